import ApptCore
import ApptRemind
import ApptTestSupport
import Foundation
import Testing

/// The daemon's system parts, each alone: the notify_command runner (stdin, environment,
/// failure, timeout), the one-per-user lock and the wake source (timer, file events).
/// Real processes and descriptors; no assertion on how long anything took.
@Suite("Reminder daemon parts")
struct DaemonPartsTests {
  final class Lines: Sendable {
    let lines = Locked<[String]>([])
    func append(_ line: String) { lines.withLock { $0.append(line) } }
    var all: [String] { lines.withLock { $0 } }
  }

  static func notification(_ title: String = "Standup") -> ReminderNotification {
    ReminderNotification(
      environment: [("APPT_TITLE", title), ("APPT_START", "2026-12-03T09:00:00+01:00")],
      json: "{\"title\":\"\(title)\"}",
      summary: title,
      body: "15 minutes before",
      line: "reminder: \(title)",
      label: "\(title) (ab12cd)"
    )
  }

  /// Reaps until no child runs (or gives up after five minutes, a hang guard only: a
  /// sanitizer build on a machine kept busy by other work once needed more than one to see a
  /// killed child go).
  static func finish(_ notifier: Notifier) async throws {
    let end = ContinuousClock.now + .seconds(300)
    while notifier.runningCount > 0 && ContinuousClock.now < end {
      try await Task.sleep(for: .milliseconds(20))
      notifier.reap()
      notifier.killOverdue()
    }
    #expect(notifier.runningCount == 0)
  }

  @Test("notify_command gets the alarm as JSON on stdin and APPT_* in its environment")
  func commandGetsJSONAndEnvironment() async throws {
    let directory = TemporaryDirectory()
    let out = directory.file("out.txt").path
    let log = Lines()
    let notifier = Notifier(
      method: .command("cat > '\(out)'; printf '%s|%s' \"$APPT_TITLE\" \"$APPT_START\" >> '\(out)'"),
      log: { log.append($0) },
      output: { _ in }
    )
    notifier.send(Self.notification("Dentist's"))
    try await Self.finish(notifier)
    let text = try String(contentsOfFile: out, encoding: .utf8)
    #expect(text == "{\"title\":\"Dentist's\"}\nDentist's|2026-12-03T09:00:00+01:00")
    #expect(log.all.isEmpty)
  }

  @Test("a failing notify_command is logged with its status, and the next one still runs")
  func failingCommand() async throws {
    let log = Lines()
    let notifier = Notifier(method: .command("exit 3"), log: { log.append($0) }, output: { _ in })
    notifier.send(Self.notification())
    notifier.send(Self.notification("Review"))
    try await Self.finish(notifier)
    #expect(
      log.all.sorted() == [
        "notify_command failed (exit status 3) for Review (ab12cd)",
        "notify_command failed (exit status 3) for Standup (ab12cd)",
      ]
    )
  }

  @Test("a notify_command past its timeout is killed, with its whole process group")
  func timeout() async throws {
    let directory = TemporaryDirectory()
    let marker = directory.file("grandchild-lived").path
    let log = Lines()
    let notifier = Notifier(
      // Longer than any stall of this test on a loaded machine: the command is still running
      // when the test looks at it again, so only the timeout can end it.
      method: .command("(sleep 600; touch '\(marker)') & sleep 600"),
      timeout: 0.2,
      log: { log.append($0) },
      output: { _ in }
    )
    notifier.send(Self.notification())
    try await Self.finish(notifier)
    #expect(log.all.first == "notify_command timed out after 0.2s for Standup (ab12cd); killed")
    #expect(log.all.last == "notify_command failed (signal 9) for Standup (ab12cd)")
    #expect(!FileManager.default.fileExists(atPath: marker))
  }

  @Test("without a command or notify-send, a line goes to stdout")
  func standardOutput() {
    let lines = Lines()
    let notifier = Notifier(method: .standardOutput, log: { _ in }, output: { lines.append($0) })
    notifier.send(Self.notification())
    #expect(lines.all == ["reminder: Standup\n"])
    #expect(Notifier.method(command: nil, environment: ["PATH": "/nonexistent"]) == .standardOutput)
    #expect(Notifier.method(command: "  ", environment: ["PATH": "/nonexistent"]) == .standardOutput)
    #expect(Notifier.method(command: "notify", environment: [:]) == .command("notify"))
  }

  @Test("one daemon per lock file: a second is refused with the holder's pid; the lock goes with its holder")
  func lock() throws {
    let directory = TemporaryDirectory()
    let path = directory.file("run/appt/remind.lock").path
    var first: DaemonLock? = try DaemonLock(path: path)
    #expect(throws: RemindError.alreadyRunning(pid: getpid())) { try DaemonLock(path: path) }
    #expect(
      RemindError.alreadyRunning(pid: 42).description == "a reminder daemon already runs (pid 42)"
    )
    withExtendedLifetime(first) {}
    first = nil
    // Free now; a child another test is spawning this very moment may still hold a copy of
    // the descriptor until its exec closes it (O_CLOEXEC), so allow it a moment.
    var again: DaemonLock?
    for _ in 0..<200 where again == nil {
      again = try? DaemonLock(path: path)
      if again == nil { usleep(10_000) }
    }
    #expect(again != nil)
    #expect(DaemonLock.defaultPath(environment: ["XDG_RUNTIME_DIR": "/run/user/1"]) == "/run/user/1/appt/remind.lock")
    #expect(
      DaemonLock.defaultPath(environment: ["XDG_RUNTIME_DIR": "rel", "XDG_STATE_HOME": "/s"]) == "/s/appt/remind.lock"
    )
    #expect(DaemonLock.defaultPath(environment: ["HOME": "/h"]) == "/h/.local/state/appt/remind.lock")
  }

  @Test("the wake source wakes for its timer and for writes to the watched file, not for other files")
  func wakeSource() async throws {
    let directory = TemporaryDirectory()
    let file = directory.file("appt.sqlite3")
    #expect(FileManager.default.createFile(atPath: file.path, contents: Data()))
    let wake = try WakeSource(watching: file)
    try wake.arm(at: Date().addingTimeInterval(-1))
    #expect(await wake.wait(timeout: 60, socket: nil).contains(.timer))
    try wake.arm(at: Date().addingTimeInterval(3600))
    #expect(FileManager.default.createFile(atPath: directory.file("other.txt").path, contents: Data("x".utf8)))
    #expect(await wake.wait(timeout: 0.05, socket: nil) == .timeout, "another file: nothing")
    let handle = try FileHandle(forWritingTo: directory.file("appt.sqlite3"))
    try handle.write(contentsOf: Data("x".utf8))
    try handle.close()
    #expect(await wake.wait(timeout: 60, socket: nil).contains(.store))
  }
}
