import ApptCalDAV
import ApptCore
import ApptStore
import ApptSync
import ApptUI
import Foundation

/// appt-sync's arguments, settings, store, lock and output around the engine.
enum SyncCommand {
  static let usage = "usage: appt-sync [--db PATH|postgresql://URL] [--config FILE] [--json] [--quiet] [ACCOUNT...]"

  struct Arguments {
    var database: String?
    var config: String?
    var json = false
    var quiet = false
    var accounts: [String] = []
  }

  static func parse(_ words: [String]) -> Result<Arguments, Problem> {
    var arguments = Arguments()
    var index = 0
    func value(_ option: String) -> String? {
      guard index + 1 < words.count, !words[index + 1].isEmpty else { return nil }
      index += 1
      return words[index]
    }
    while index < words.count {
      let word = words[index]
      switch word {
      case "--json": arguments.json = true
      case "--quiet", "-q": arguments.quiet = true
      case "--db":
        guard arguments.database == nil else { return .failure(Problem("--db given more than once")) }
        guard let path = value(word) else { return .failure(Problem("--db needs a path or a postgresql:// URL")) }
        arguments.database = path
      case "--config":
        guard arguments.config == nil else { return .failure(Problem("--config given more than once")) }
        guard let path = value(word) else { return .failure(Problem("--config needs the path of a settings file")) }
        arguments.config = path
      case "--":
        arguments.accounts += words[(index + 1)...]
        index = words.count
        continue
      case _ where word.hasPrefix("-") && word.count > 1:
        return .failure(Problem("unknown option \(TextSafety.escapingControls(word))"))
      default:
        arguments.accounts.append(word)
      }
      index += 1
    }
    return .success(arguments)
  }

  static func main(_ words: [String], environment: [String: String]) async -> Int32 {
    if words == ["--help"] || words == ["-h"] {
      Output.out(usage + "\n")
      return 0
    }
    let arguments: Arguments
    switch parse(words) {
    case .success(let parsed): arguments = parsed
    case .failure(let problem):
      Output.err("appt: \(problem.message)\n\(usage)")
      return 2
    }
    // The settings file as appt reads it (its mistakes said the same way); one that does not
    // exist has no accounts.
    let located = SettingsSource.locate(option: arguments.config, environment: environment)
    let source = SettingsSource(
      path: located.path,
      chosenBy: FileManager.default.fileExists(atPath: located.path) ? located.chosenBy : .standard
    )
    let settings: Settings
    do throws(SettingsFile.Refusal) {
      settings = try SettingsFile.load(source: source, environment: environment, vocabulary: KeyMap.standard.vocabulary)
    } catch {
      for line in error.lines { Output.err(line) }
      return 2
    }
    let clock: Clock
    do throws(Clock.SetupError) {
      clock = try Clock.fromEnvironment(environment)
    } catch {
      Output.err("appt: \(error.message)")
      return 2
    }
    let shownPath = TextSafety.escapingControls(source.path)
    guard !settings.accounts.isEmpty else {
      Output.err(
        """
        appt: no accounts to sync: \(shownPath) has no [account NAME]; add one, e.g.
          [account work]
          url = https://dav.example.com/
          username = me
          password_command = pass show dav
        """
      )
      return 1
    }
    var accounts: [AccountSettings] = []
    for name in arguments.accounts {
      guard let account = settings.accounts.first(where: { $0.name.lowercased() == name.lowercased() }) else {
        Output.err("appt: no [account \(TextSafety.escapingControls(name))] in \(shownPath)")
        return 1
      }
      if !accounts.contains(where: { $0.name == account.name }) { accounts.append(account) }
    }
    if accounts.isEmpty { accounts = settings.accounts }

    let location: DatabaseConfiguration.Location
    switch DatabaseConfiguration.Location.resolve(arguments.database, environment: environment) {
    case .success(let resolved): location = resolved
    case .failure(let problem):
      Output.err("appt: \(problem.message)\n\(usage)")
      return 2
    }
    let dao = AppointmentDAO(location: location, clock: clock)
    let status = await run(
      accounts,
      dao: dao,
      location: location,
      clock: clock,
      arguments: arguments,
      environment: environment
    )
    await dao.database.close()
    return status
  }

  /// Opens the store, takes the lock and syncs `accounts`: the exit status.
  static func run(
    _ accounts: [AccountSettings],
    dao: AppointmentDAO,
    location: DatabaseConfiguration.Location,
    clock: Clock,
    arguments: Arguments,
    environment: [String: String]
  ) async -> Int32 {
    do throws(StoreError) {
      try await dao.database.prepare()
    } catch {
      Output.err("appt: \(error)")
      return 3
    }
    do throws(StoreError) {
      // Floating events at their wall-clock time here: what the sync compares and sends.
      try await dao.followClockZone()
    } catch {
      Output.err("appt: note: floating events were not moved to this zone: \(error)")
    }
    let lock: SyncLock
    let wait = environment["APPT_SYNC_WAIT"].flatMap { Int($0) }.map { max(0, $0) } ?? SyncLock.defaultWait
    // Quiet (the calendar's background sync): no notice, which would read as its failure.
    let quiet = arguments.quiet
    switch SyncLock.acquire(for: location, waitingUpTo: wait, notice: { if !quiet { Output.err("appt: \($0)") } }) {
    case .success(let acquired): lock = acquired
    case .failure(let refusal):
      Output.err("appt: \(refusal.message)")
      return refusal.status
    }
    defer { lock.release() }

    let progress = ProgressLine(enabled: !arguments.quiet && isatty(2) == 1)
    let engine = SyncEngine(store: DAOSyncStore(dao: dao), clock: clock) { event in
      switch event {
      case .progress(let calendar, let fetched, let total):
        progress.show("\(TextSafety.escapingControls(calendar)): ↓ \(fetched)/\(total)")
      case .note(let text):
        progress.erase()
        Output.err("appt: \(text)")
      }
    }
    let formatter = AppointmentFormatter(clock: clock)
    var worst: Int32 = 0
    for account in accounts {
      let summaries: [CalendarSummary]
      do throws(StoreError) {
        switch Password.resolve(account, environment: environment) {
        case .failure(let problem):
          summaries = try await engine.accountFailed(
            account.name,
            url: account.url.value,
            message: problem.message,
            unavailable: true
          )
        case .success(let password):
          let client = CalDAVClient(
            url: URL(string: account.url.value) ?? URL(fileURLWithPath: "/"),
            username: account.username.value,
            password: password,
            caFile: account.caFile.map { expandingTilde($0.value, environment: environment) },
            timeout: account.timeout.value
          )
          summaries = try await engine.sync(account: account.name, client: client)
        }
      } catch {
        progress.erase()
        Output.err("appt: \(error)")
        return error.isStorageFailure ? 3 : 1
      }
      progress.erase()
      for summary in summaries {
        if summary.error != nil { worst = max(worst, summary.unavailable ? 3 : 1) }
        report(summary, json: arguments.json, quiet: arguments.quiet, formatter: formatter)
      }
    }
    return worst
  }

  /// One calendar's line (stdout), its failure (stderr), or its JSON object.
  static func report(_ summary: CalendarSummary, json: Bool, quiet: Bool, formatter: AppointmentFormatter) {
    let name = TextSafety.escapingControls(summary.calendar ?? summary.account)
    // A failure is said on stderr in either mode (as appt says its errors); --json also has
    // it in the object.
    if let error = summary.error { Output.err("appt: \(name): \(TextSafety.escapingControls(error))") }
    if json {
      Output.out(jsonObject(summary, formatter: formatter) + "\n")
      return
    }
    if summary.error != nil { return }
    guard !quiet else { return }
    Output.out(
      "\(name): ↓ \(summary.new) new, \(summary.changed) changed, \(summary.deleted) deleted; ↑ \(summary.pushed);"
        + " \(summary.conflicts) conflict\(summary.conflicts == 1 ? "" : "s")\n"
    )
  }

  /// `{"account","calendar","url","new","changed","deleted","pushed","conflicts","pending","synced","error"}`.
  static func jsonObject(_ summary: CalendarSummary, formatter: AppointmentFormatter) -> String {
    let quote = AppointmentFormatter.jsonString
    var out = "{\"account\":" + quote(summary.account)
    out += ",\"calendar\":" + (summary.calendar.map(quote) ?? "null")
    out += ",\"url\":" + quote(summary.url)
    out += ",\"new\":\(summary.new),\"changed\":\(summary.changed),\"deleted\":\(summary.deleted)"
    out += ",\"pushed\":\(summary.pushed),\"conflicts\":\(summary.conflicts),\"pending\":\(summary.pending)"
    out += ",\"synced\":" + (summary.synced.map { quote(formatter.iso8601($0)) } ?? "null")
    out += ",\"error\":" + (summary.error.map(quote) ?? "null")
    return out + "}"
  }

  static func expandingTilde(_ path: String, environment: [String: String]) -> String {
    guard path.hasPrefix("~/"), let home = environment["HOME"], !home.isEmpty else { return path }
    return home + path.dropFirst()
  }
}

/// A message for the user.
struct Problem: Error {
  let message: String
  init(_ message: String) { self.message = message }
}

/// The account's password: the first line `password_command` prints (run by /bin/sh -c), or
/// the variable `password_env` names. Never printed; messages name the command or variable.
enum Password {
  static func resolve(_ account: AccountSettings, environment: [String: String]) -> Result<String, Problem> {
    let name = TextSafety.escapingControls(account.name)
    if let variable = account.passwordEnv?.value {
      guard let value = environment[variable], !value.isEmpty else {
        return .failure(
          Problem("password_env names \(variable), which is not set (or empty); set it to \(name)'s password")
        )
      }
      return .success(value)
    }
    guard let command = account.passwordCommand?.value else {
      return .failure(Problem("no password_command or password_env"))
    }
    let shown = TextSafety.escapingControls(command)
    guard let (output, status) = firstLine(of: command) else {
      return .failure(Problem("password_command \"\(shown)\" could not be run: \(String(cString: strerror(errno)))"))
    }
    guard status == 0 else {
      let how = status > 128 ? "killed by signal \(status - 128)" : "exit \(status)"
      return .failure(Problem("password_command \"\(shown)\" failed (\(how)); nothing was synced"))
    }
    let text = String(decoding: output, as: UTF8.self)
    let first = text.split(separator: "\n", maxSplits: 1, omittingEmptySubsequences: false).first.map {
      $0.hasSuffix("\r") ? String($0.dropLast()) : String($0)
    }
    guard let first, !first.isEmpty else {
      return .failure(Problem("password_command \"\(shown)\" printed no password (its first line is empty)"))
    }
    return .success(first)
  }
}

extension Password {
  /// Runs `command` with /bin/sh -c (stdin and stderr this process's: a prompt reaches the
  /// terminal) and reads its output up to the first line's end: a daemon the command started
  /// (gpg-agent) may keep the pipe open long after the command exited. Nil if it could not be
  /// started; else what was read and the exit status (128 + N for signal N).
  static func firstLine(of command: String) -> (Data, Int32)? {
    var fds: [Int32] = [-1, -1]
    guard pipe(&fds) == 0 else { return nil }
    _ = fcntl(fds[0], F_SETFD, FD_CLOEXEC)
    var actions = posix_spawn_file_actions_t()
    posix_spawn_file_actions_init(&actions)
    defer { posix_spawn_file_actions_destroy(&actions) }
    posix_spawn_file_actions_adddup2(&actions, fds[1], 1)
    // Nothing else of this process reaches the command (nor a daemon it leaves behind, which
    // would hold a pipe of whoever started appt-sync open).
    for fd in openDescriptors() where fd > 2 && fd != fds[1] {
      posix_spawn_file_actions_addclose(&actions, fd)
    }
    posix_spawn_file_actions_addclose(&actions, fds[1])
    let words: [String] = ["/bin/sh", "-c", command]
    let argv = words.map { strdup($0) }
    defer { argv.forEach { free($0) } }
    var pid = pid_t()
    let spawned = posix_spawn(&pid, "/bin/sh", &actions, nil, argv + [nil], environ)
    close(fds[1])
    guard spawned == 0 else {
      close(fds[0])
      errno = spawned
      return nil
    }
    var output = Data()
    var buffer = [UInt8](repeating: 0, count: 4096)
    while !output.contains(UInt8(ascii: "\n")) {
      let got = buffer.withUnsafeMutableBytes { read(fds[0], $0.baseAddress, $0.count) }
      if got < 0, errno == EINTR { continue }
      if got <= 0 { break }
      output += buffer[0..<got]
    }
    close(fds[0])
    var status: Int32 = 0
    while waitpid(pid, &status, 0) < 0, errno == EINTR {}
    // WIFEXITED / WEXITSTATUS by hand (the macros do not import).
    let exit = (status & 0x7F) == 0 ? (status >> 8) & 0xFF : 128 + (status & 0x7F)
    return (output, exit)
  }
}

/// The descriptors open in this process (from /proc/self/fd).
func openDescriptors() -> [Int32] {
  let fm = FileManager.default
  let names = (try? fm.contentsOfDirectory(atPath: "/proc/self/fd")) ?? []  // ok: unknown, none closed
  return names.compactMap { Int32($0) }
}

/// One sync per store at a time: an advisory lock (flock) on a file beside the store (for
/// PostgreSQL, in the temporary directory, named by a hash of the server and database). The
/// kernel drops it when the process ends, however it ends. A second sync waits for the first
/// (the calendar's background sync, a script's) to end, up to `defaultWait` seconds
/// (`APPT_SYNC_WAIT`), then does its own run: the work is done either way.
struct SyncLock {
  let fd: Int32

  static let defaultWait = 300

  struct Refusal: Error {
    var message: String
    var status: Int32
  }

  static func acquire(
    for location: DatabaseConfiguration.Location,
    waitingUpTo seconds: Int,
    notice: (String) -> Void
  ) -> Result<SyncLock, Refusal> {
    let path: String
    let shown: String
    switch location {
    case .inMemory: return .success(SyncLock(fd: -1))
    case .file(let url):
      path = url.path + ".sync-lock"
      shown = url.path
    case .postgres(let url):
      var hash: UInt64 = 0xcbf2_9ce4_8422_2325
      for byte in url.utf8 { hash = (hash ^ UInt64(byte)) &* 0x100_0000_01b3 }
      path = NSTemporaryDirectory() + "/appt-sync-\(getuid())-\(String(hash, radix: 16)).lock"
      shown = PostgresConnection.displayName(of: url)
    }
    let fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0o600)
    guard fd >= 0 else {
      return .failure(
        Refusal(message: "cannot make the sync's lock file \(path): \(String(cString: strerror(errno)))", status: 3)
      )
    }
    let deadline = ContinuousClock.now.advanced(by: .seconds(seconds))
    var told = false
    while flock(fd, LOCK_EX | LOCK_NB) != 0 {
      let code = errno
      if code == EINTR { continue }
      let busy = code == EWOULDBLOCK
      guard busy, ContinuousClock.now < deadline else {
        close(fd)
        let waited = seconds > 0 ? "; waited \(seconds) s for it" : ""
        return .failure(
          Refusal(
            message: busy
              ? "another sync of \(TextSafety.escapingControls(shown)) is running\(waited); try again when it has"
                + " finished"
              : "cannot lock \(path): \(String(cString: strerror(code)))",
            status: busy ? 1 : 3
          )
        )
      }
      if !told { notice("another sync of \(TextSafety.escapingControls(shown)) is running; waiting for it to finish") }
      told = true
      usleep(100_000)
    }
    return .success(SyncLock(fd: fd))
  }

  func release() {
    if fd >= 0 { close(fd) }
  }
}

/// The progress line on stderr (a terminal only): rewritten in place, erased before any other
/// output and at the end.
final class ProgressLine: Sendable {
  let enabled: Bool
  private let shown = Locked(false)

  init(enabled: Bool) { self.enabled = enabled }

  func show(_ text: String) {
    guard enabled else { return }
    shown.withLock { $0 = true }
    Output.raw(2, "\r\u{1B}[K" + text)
  }

  func erase() {
    guard enabled,
      shown.withLock({ state in
        defer { state = false }
        return state
      })
    else { return }
    Output.raw(2, "\r\u{1B}[K")
  }
}

/// Unbuffered writes (a JSON line reaches a reading parent the moment it is written).
enum Output {
  static func out(_ text: String) { raw(1, text) }
  static func err(_ text: String) { raw(2, text.hasSuffix("\n") ? text : text + "\n") }

  static func raw(_ fd: Int32, _ text: String) {
    var bytes = Array(text.utf8)[...]
    while !bytes.isEmpty {
      let written = bytes.withUnsafeBytes { write(fd, $0.baseAddress, $0.count) }
      if written < 0, errno == EINTR { continue }
      guard written > 0 else { return }
      bytes = bytes.dropFirst(written)
    }
  }
}
