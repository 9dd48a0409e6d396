// `appt sync` is carried out by a program of its own, `appt-sync` (it links the HTTP stack,
// which appt keeps out of its start-up): found next to appt's own executable, else on PATH.
// A one-shot `appt sync` replaces itself with it (`exec`, as git runs its subcommands, so the
// progress line reaches the terminal); scripts, the `:` line and the calendar's background
// sync run it as a child and read what it printed (`run`).

import ApptCore
import ApptStore
import Foundation

public enum SyncLauncher {
  /// The program's name.
  public static let programName = "appt-sync"

  /// The directory of the running executable (`/proc/self/exe` resolved), nil if unknown.
  public static var ownDirectory: String? {
    var buffer = [CChar](repeating: 0, count: Int(PATH_MAX) + 1)
    let count = readlink("/proc/self/exe", &buffer, buffer.count - 1)
    guard count > 0 else { return nil }
    let path = String(decoding: buffer[0..<count].map { UInt8(bitPattern: $0) }, as: UTF8.self)
    return (path as NSString).deletingLastPathComponent
  }

  /// `appt-sync` next to the running executable, else the first on PATH; nil when neither.
  public static func locateSyncProgram() -> String? {
    locate(in: ownDirectory, path: ProcessEnvironment.variables()["PATH"])
  }

  /// `appt-sync` in `directory`, else in the first directory of `path` (PATH's form) that has it.
  static func locate(in directory: String?, path: String?) -> String? {
    var candidates: [String] = []
    if let directory { candidates.append(directory) }
    for entry in (path ?? "").split(separator: ":", omittingEmptySubsequences: true) {
      candidates.append(String(entry))
    }
    for candidate in candidates {
      let file = (candidate.hasSuffix("/") ? candidate : candidate + "/") + programName
      var info = stat()
      if stat(file, &info) == 0, (info.st_mode & S_IFMT) == S_IFREG, access(file, X_OK) == 0 { return file }
    }
    return nil
  }

  /// What to say when the program is not there (exit 1).
  public static var missingMessage: String {
    "sync needs the appt-sync program next to appt (not found in \(ownDirectory ?? "appt's directory") or PATH)"
  }

  /// The arguments appt gives the program: the store (`--db`, the resolved location), the
  /// settings file (`--config`, even when it does not exist: then there are no accounts),
  /// `--json` when appt has it, the accounts named. Nil for an in-memory store, which another
  /// process cannot open.
  public static func arguments(
    database: DatabaseConfiguration.Location,
    config: String,
    json: Bool,
    quiet: Bool = false,
    accounts: [String]
  ) -> [String]? {
    let location: String
    switch database {
    case .file(let url): location = url.path
    case .postgres(let url): location = url
    case .inMemory: return nil
    }
    var arguments = ["--db", location, "--config", config]
    if json { arguments.append("--json") }
    if quiet { arguments.append("--quiet") }
    if !accounts.isEmpty { arguments.append("--") }
    return arguments + accounts
  }

  /// Replaces this process with `program` run with `arguments` (git style: its output and its
  /// progress line go straight to the terminal, its exit status is appt's). Returns only when
  /// that failed: the errno.
  public static func exec(_ program: String, arguments: [String]) -> Int32 {
    let argv = ([program] + arguments).map { strdup($0) }
    defer { argv.forEach { free($0) } }
    let pointers = argv + [nil]
    execv(program, pointers)
    return errno
  }

  /// Runs `appt-sync` with `arguments` as a child (located by `locateSyncProgram`), off the
  /// caller's thread, and returns its exit status and what it printed. Status 127 and the
  /// missing message when it is not found; 126 when it cannot be started.
  public static func run(arguments: [String]) async -> (status: Int32, stdout: String, stderr: String) {
    guard let program = locateSyncProgram() else { return (127, "", "appt: \(missingMessage)\n") }
    return await run(program: program, arguments: arguments)
  }

  /// Runs `program` with `arguments` as a child; see `run(arguments:)`.
  public static func run(program: String, arguments: [String]) async -> (
    status: Int32, stdout: String, stderr: String
  ) {
    await withCheckedContinuation { continuation in
      // Blocking reads and waitpid: on a thread of their own, never the main actor's.
      Thread.detachNewThread {
        continuation.resume(returning: spawnAndWait(program, arguments))
      }
    }
  }

  private static func spawnAndWait(_ program: String, _ arguments: [String]) -> (
    status: Int32, stdout: String, stderr: String
  ) {
    var outPipe: [Int32] = [-1, -1]
    var errPipe: [Int32] = [-1, -1]
    guard pipe(&outPipe) == 0 else { return (126, "", "appt: cannot start \(program): \(reason(errno))\n") }
    guard pipe(&errPipe) == 0 else {
      close(outPipe[0])
      close(outPipe[1])
      return (126, "", "appt: cannot start \(program): \(reason(errno))\n")
    }
    // Only the child's copies (dup2'd to 1 and 2) stay open in it; nothing leaks into other
    // children appt starts meanwhile.
    for fd in outPipe + errPipe { _ = fcntl(fd, F_SETFD, FD_CLOEXEC) }
    var actions = posix_spawn_file_actions_t()
    posix_spawn_file_actions_init(&actions)
    defer { posix_spawn_file_actions_destroy(&actions) }
    posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
    posix_spawn_file_actions_adddup2(&actions, outPipe[1], 1)
    posix_spawn_file_actions_adddup2(&actions, errPipe[1], 2)
    let argv = ([program] + arguments).map { strdup($0) }
    defer { argv.forEach { free($0) } }
    let pointers = argv + [nil]
    var pid = pid_t()
    var spawned = posix_spawn(&pid, program, &actions, nil, pointers, environ)
    // ETXTBSY: the program is still open for writing somewhere, most often in another child
    // between its fork and its exec (a program just installed or written): gone in moments.
    var tries = 1
    while spawned == ETXTBSY, tries < 50 {
      usleep(10_000)
      spawned = posix_spawn(&pid, program, &actions, nil, pointers, environ)
      tries += 1
    }
    close(outPipe[1])
    close(errPipe[1])
    guard spawned == 0 else {
      close(outPipe[0])
      close(errPipe[0])
      return (126, "", "appt: cannot start \(program): \(reason(spawned))\n")
    }
    let (out, err) = drain(outPipe[0], errPipe[0])
    close(outPipe[0])
    close(errPipe[0])
    var status: Int32 = 0
    while waitpid(pid, &status, 0) < 0, errno == EINTR {}
    // WIFEXITED / WEXITSTATUS by hand (macros do not import): a signal gives 128 + its number.
    let exitStatus = (status & 0x7F) == 0 ? (status >> 8) & 0xFF : 128 + (status & 0x7F)
    return (exitStatus, String(decoding: out, as: UTF8.self), String(decoding: err, as: UTF8.self))
  }

  /// Reads both descriptors to their ends, whichever has data (a child blocked writing one
  /// pipe while the other is read would never finish).
  private static func drain(_ first: Int32, _ second: Int32) -> ([UInt8], [UInt8]) {
    var collected: [[UInt8]] = [[], []]
    var open = [true, true]
    var buffer = [UInt8](repeating: 0, count: 1 << 16)
    while open[0] || open[1] {
      var fds = [
        pollfd(fd: open[0] ? first : -1, events: Int16(POLLIN), revents: 0),
        pollfd(fd: open[1] ? second : -1, events: Int16(POLLIN), revents: 0),
      ]
      let ready = poll(&fds, 2, -1)
      if ready < 0, errno == EINTR { continue }
      guard ready > 0 else { break }
      for index in 0..<2 where open[index] && fds[index].revents != 0 {
        let got = buffer.withUnsafeMutableBytes { read(fds[index].fd, $0.baseAddress, $0.count) }
        if got < 0, errno == EINTR { continue }
        if got <= 0 {
          open[index] = false
        } else {
          collected[index] += buffer[0..<got]
        }
      }
    }
    return (collected[0], collected[1])
  }

  private static func reason(_ code: Int32) -> String { String(cString: strerror(code)) }
}
