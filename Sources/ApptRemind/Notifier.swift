import ApptCore
import CLinuxEvents
import Foundation

/// One notification to send: what the environment, stdin and the fallback line carry.
public struct ReminderNotification: Sendable, Equatable {
  /// `APPT_*` variables (APPT_TITLE, APPT_START...), in a stable order.
  public var environment: [(String, String)]
  /// The alarm as one JSON object (the notify_command's stdin, with a newline).
  public var json: String
  /// notify-send's summary and body.
  public var summary: String
  public var body: String
  /// The line printed on stdout when there is no command and no notify-send.
  public var line: String
  /// How the log names it (`Standup at 2026-12-03 09:00 (ab12cd)`).
  public var label: String

  public init(
    environment: [(String, String)],
    json: String,
    summary: String,
    body: String,
    line: String,
    label: String
  ) {
    self.environment = environment
    self.json = json
    self.summary = summary
    self.body = body
    self.line = line
    self.label = label
  }

  public static func == (a: Self, b: Self) -> Bool {
    a.environment.elementsEqual(b.environment) { $0 == $1 } && a.json == b.json && a.summary == b.summary
      && a.body == b.body && a.line == b.line && a.label == b.label
  }
}

/// Runs the notifications: `notify_command` through `/bin/sh -c` with the alarm as JSON on
/// stdin and `APPT_*` in the environment; else `notify-send` when it is on PATH; else a line
/// on stdout. A command runs in a process group of its own and is killed (the whole group)
/// when it outlives `timeout`; a failure is logged and nothing else happens. Children run
/// side by side, so a slow one does not delay the next alarm: the daemon reaps them when
/// SIGCHLD wakes it (`reap`) and kills the overdue ones at their deadline (`killOverdue`).
public final class Notifier {
  public enum Method: Equatable, Sendable {
    case command(String)
    case notifySend(path: String)
    case standardOutput
  }

  public let method: Method
  public let timeout: TimeInterval
  private let log: @Sendable (String) -> Void
  private let output: @Sendable (String) -> Void
  /// Each child: when it is overdue (after a kill: when to kill it again), its label, and
  /// whether its timeout was logged.
  private var running: [pid_t: (deadline: ContinuousClock.Instant, label: String, killed: Bool)] = [:]

  /// The method the settings ask for: `notify_command`, else notify-send on `PATH`, else stdout.
  public static func method(command: String?, environment: [String: String]) -> Method {
    if let command, !command.trimmingCharacters(in: .whitespaces).isEmpty { return .command(command) }
    for directory in (environment["PATH"] ?? "/usr/bin:/bin").split(separator: ":") where !directory.isEmpty {
      let path = "\(directory)/notify-send"
      if access(path, X_OK) == 0 { return .notifySend(path: path) }
    }
    return .standardOutput
  }

  public init(
    method: Method,
    timeout: TimeInterval = 10,
    log: @escaping @Sendable (String) -> Void,
    output: @escaping @Sendable (String) -> Void
  ) {
    self.method = method
    self.timeout = timeout
    self.log = log
    self.output = output
    // A command that exits without reading its stdin must not kill us with SIGPIPE when the
    // JSON is written (appt ignores it anyway; children get it back by SETSIGDEF).
    signal(SIGPIPE, SIG_IGN)
  }

  /// Children still running.
  public var runningCount: Int { running.count }

  /// Seconds until the first running child's deadline; nil when none runs.
  public var secondsToNextDeadline: TimeInterval? {
    guard let first = running.values.map(\.deadline).min() else { return nil }
    let left = (first - ContinuousClock.now).components
    return max(0, TimeInterval(left.seconds) + TimeInterval(left.attoseconds) / 1e18)
  }

  /// Sends one notification (starts its command and returns).
  public func send(_ notification: ReminderNotification) {
    switch method {
    case .standardOutput:
      output(notification.line + "\n")
    case .notifySend(let path):
      spawn(
        path: path,
        arguments: ["notify-send", "--app-name=appt", notification.summary, notification.body],
        notification: notification
      )
    case .command(let command):
      spawn(path: "/bin/sh", arguments: ["sh", "-c", command], notification: notification)
    }
  }

  /// Collects the children that ended, logging those that failed.
  public func reap() {
    for (pid, child) in running {
      var status: Int32 = 0
      let result = waitpid(pid, &status, WNOHANG)
      guard result == pid || (result < 0 && errno == ECHILD) else { continue }
      running[pid] = nil
      guard result == pid else { continue }
      let exited = status & 0x7f == 0
      let code = (status >> 8) & 0xff
      if exited && code == 0 { continue }
      let how = exited ? "exit status \(code)" : "signal \(status & 0x7f)"
      log("notify_command failed (\(how)) for \(child.label)")
    }
  }

  /// Kills (SIGKILL, its whole process group) each child past its deadline; they are reaped
  /// by the next `reap`.
  public func killOverdue() {
    let now = ContinuousClock.now
    for (pid, child) in running where child.deadline <= now {
      // The group, else the child itself (a group that could not be signalled must not leave
      // it running); again a second later while it is not reaped, so no lost kill leaves a
      // command running for good.
      if kill(-pid, SIGKILL) != 0 { kill(pid, SIGKILL) }
      if !child.killed {
        log("notify_command timed out after \(String(format: "%gs", timeout)) for \(child.label); killed")
      }
      running[pid] = (now + .seconds(1), child.label, true)
    }
  }

  // MARK: - Spawning

  private func spawn(path: String, arguments: [String], notification: ReminderNotification) {
    var pipeFDs: [Int32] = [0, 0]
    guard pipe2(&pipeFDs, O_CLOEXEC) == 0 else {
      log("cannot run notify_command for \(notification.label): pipe: \(String(cString: strerror(errno)))")
      return
    }
    let (readEnd, writeEnd) = (pipeFDs[0], pipeFDs[1])
    var actions = posix_spawn_file_actions_t()
    posix_spawn_file_actions_init(&actions)
    defer { posix_spawn_file_actions_destroy(&actions) }
    posix_spawn_file_actions_adddup2(&actions, readEnd, 0)
    var attributes = posix_spawnattr_t()
    posix_spawnattr_init(&attributes)
    defer { posix_spawnattr_destroy(&attributes) }
    // Its own process group (killed whole on timeout), no blocked signals, and the signals
    // the daemon handles or ignores (SIGPIPE) back to their defaults.
    var none = sigset_t()
    sigemptyset(&none)
    var defaults = sigset_t()
    sigemptyset(&defaults)
    for signal in [SIGTERM, SIGINT, SIGHUP, SIGCHLD, SIGPIPE, SIGXFSZ] { sigaddset(&defaults, signal) }
    posix_spawnattr_setsigmask(&attributes, &none)
    posix_spawnattr_setsigdefault(&attributes, &defaults)
    posix_spawnattr_setpgroup(&attributes, 0)
    posix_spawnattr_setflags(
      &attributes,
      Int16(POSIX_SPAWN_SETPGROUP | POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF)
    )
    var environment = ProcessEnvironment.variables()
    for (name, value) in notification.environment { environment[name] = value }
    let envp = environment.map { strdup("\($0.key)=\($0.value)") } + [nil]
    let argv = arguments.map { strdup($0) } + [nil]
    defer {
      for pointer in envp { free(pointer) }
      for pointer in argv { free(pointer) }
    }
    var pid: pid_t = 0
    let result = posix_spawn(&pid, path, &actions, &attributes, argv, envp)
    close(readEnd)
    guard result == 0 else {
      close(writeEnd)
      log("cannot run \(path) for \(notification.label): \(String(cString: strerror(result)))")
      return
    }
    running[pid] = (ContinuousClock.now + .milliseconds(Int64(timeout * 1000)), notification.label, false)
    // The JSON is small (one alarm); a command that does not read it must not block us, so
    // the pipe is non-blocking and whatever does not fit is dropped.
    _ = fcntl(writeEnd, F_SETFL, O_NONBLOCK)
    let bytes = Array((notification.json + "\n").utf8)
    _ = bytes.withUnsafeBytes { write(writeEnd, $0.baseAddress, $0.count) }
    close(writeEnd)
  }
}
