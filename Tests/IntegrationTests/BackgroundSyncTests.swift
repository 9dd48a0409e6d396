import ApptCore
import ApptRuntime
import ApptStore
import ApptTerminal
import ApptTestSupport
import ApptUI
import Foundation
import Testing

/// The calendar's background sync end to end: the real runtime runs a fake `appt-sync` (a
/// shell script that logs its arguments, prints a calendar's JSON line, and can be held
/// running) and the screen says how it went; keys go on being handled while it runs.
@MainActor
@Suite struct BackgroundSyncTests {
  let directory = TemporaryDirectory()

  func freshDAO() -> AppointmentDAO { TestStore.fileDAO(in: directory) }

  var calls: URL { directory.file("calls") }
  var hold: URL { directory.file("hold") }

  /// The fake program: logs its arguments, waits while `hold` exists, prints one calendar's
  /// line and exits with `status`. The hold has no time limit of its own a loaded machine
  /// could outlast (the test removes it, and the directory goes with the test); 10 min caps
  /// a test that crashed.
  func fakeSync(status: Int32 = 0, pending: Int = 0) throws -> String {
    let program = directory.file("appt-sync")
    let script = """
      #!/bin/sh
      echo "$*" >> '\(calls.path)'
      i=0
      while [ -e '\(hold.path)' ] && [ $i -lt 60000 ]; do sleep 0.01; i=$((i + 1)); done
      echo '{"account":"acct","calendar":"acct/Home","url":"http://127.0.0.1:9/home/","new":0,"changed":0,\
      "deleted":0,"pushed":0,"conflicts":0,"pending":\(pending),"synced":null,"error":null}'
      exit \(status)

      """
    // Written through a close-on-exec descriptor: a child another test starts meanwhile must
    // not keep the script open for writing, which makes starting it fail (ETXTBSY).
    let fd = open(program.path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o755)
    guard fd >= 0 else { throw POSIXError(.init(rawValue: errno) ?? .EIO) }
    let bytes = Array(script.utf8)
    let written = bytes.withUnsafeBytes { write(fd, $0.baseAddress, $0.count) }
    close(fd)
    guard written == bytes.count else { throw POSIXError(.EIO) }
    return program.path
  }

  func pilot(program: String) -> Pilot {
    var settings = Settings()
    settings.accounts = [
      AccountSettings(
        name: "acct",
        url: Setting("http://127.0.0.1:9/"),
        username: Setting("ann"),
        syncInterval: Setting(3600)
      )
    ]
    settings.source = SettingsSource(path: directory.file("config").path, chosenBy: .option, exists: false)
    let terminal = HeadlessTerminal(size: Screen.Size(rows: 24, columns: 80))
    return Pilot(
      terminal: terminal,
      loop: RenderLoop(
        dao: freshDAO(),
        terminal: terminal,
        environment: Environment(clock: TestClock.clock, settings: settings),
        syncRunner: { arguments in await SyncLauncher.run(program: program, arguments: arguments) },
        // 5 s after a commit: at once here; the hour between syncs stays long.
        syncDelay: { seconds in seconds <= 5 ? .milliseconds(20) : .seconds(seconds) }
      )
    )
  }

  func loggedCalls() -> [String] {
    ((try? String(contentsOf: calls, encoding: .utf8)) ?? "").split(separator: "\n").map(String.init)
  }

  /// Settles until `condition` holds; fails after `HangGuard.limit` without it.
  func waitUntil(_ pilot: Pilot, _ what: String, _ condition: () -> Bool) async {
    let start = ContinuousClock.now
    while !condition() {
      guard ContinuousClock.now - start < HangGuard.limit else {
        Issue.record("never happened: \(what)")
        return
      }
      await pilot.settle()
      try? await Task.sleep(for: .milliseconds(5))
    }
  }

  /// The calendar marks an event whose version a sync kept aside, in the list and the detail
  /// pane, until `:resolve` settles it.
  @Test func anEventInConflictIsMarkedUntilResolved() async throws {
    let dao = freshDAO()
    _ = try await ConflictsTests().seedConflict(dao)
    let id = try #require(try await dao.conflicts().first?.id)
    let pilot = pilot(program: try fakeSync())
    await pilot.start()
    await waitUntil(pilot, "the first sync's result") { pilot.loop.syncsFinished == 1 }
    await pilot.settle()
    #expect(pilot.rows[23].hasSuffix("sync: 1 conflict (appt conflicts)"))
    #expect(pilot.agenda.contains { $0.contains("Swim (pool closed)  (sync conflict)") }, "\(pilot.agenda)")
    #expect(pilot.shows("Sync conflict: your version"), "the detail pane says so")
    pilot.press(":")
    pilot.type("resolve \(id.short) --keep server")
    pilot.press("enter")
    await waitUntil(pilot, "the mark gone after the resolve") { !pilot.shows("(sync conflict)") }
    #expect(!pilot.shows("Sync conflict:"))
    #expect(pilot.shows("Swim (pool closed)"))
  }

  @Test func aSyncRunsAtStartAndAfterALocalCommit() async throws {
    let pilot = pilot(program: try fakeSync())
    await pilot.start()
    await waitUntil(pilot, "the first sync's result") { pilot.loop.syncsFinished == 1 }
    await pilot.settle()
    #expect(pilot.rows[23].hasSuffix("synced 15:00"))
    let arguments = try #require(loggedCalls().first)
    #expect(
      arguments
        == "--db \(directory.file("appt.sqlite3").path) --config \(directory.file("config").path) --json --quiet"
    )
    pilot.addInForm(title: "Dentist", time: "16:00", duration: "45m", note: "")
    await pilot.settle()
    await waitUntil(pilot, "a sync after the commit") { pilot.loop.syncsFinished == 2 }
    #expect(loggedCalls().count == 2)
  }

  @Test func keysGoOnWhileASyncRunsAndTheNextWaitsForIt() async throws {
    try Data().write(to: hold)
    let pilot = pilot(program: try fakeSync(status: 3, pending: 2))
    await pilot.start()
    await waitUntil(pilot, "the fake program started") { loggedCalls().count == 1 }
    #expect(pilot.rows[23].hasSuffix("syncing…"))
    // The sync is held running: the form opens, saves, and the agenda shows it meanwhile.
    pilot.addInForm(title: "Dentist", time: "16:00", duration: "45m", note: "")
    await pilot.settle()
    #expect(pilot.agenda.contains { $0.contains("16:00-16:45  Dentist") })
    #expect(pilot.loop.syncsFinished == 0, "the sync still runs")
    await waitUntil(pilot, "the commit's sync is wanted") { pilot.state.sync?.isWanted == true }
    #expect(loggedCalls().count == 1, "never two at once")
    try FileManager.default.removeItem(at: hold)
    await waitUntil(pilot, "both syncs") { pilot.loop.syncsFinished == 2 }
    await pilot.settle()
    #expect(loggedCalls().count == 2)
    #expect(pilot.rows[23].hasSuffix("offline: 2 changes waiting"))
  }

  /// A `:sync` says how it went on the status line at once: here the background sync went
  /// well, then `:sync` (the real appt-sync, next to the test binary) finds no password for
  /// the account (exit 3): the status line says offline, not the background sync's "synced"
  /// until the next one.
  @Test func aSyncFromTheCommandLineIsOnTheStatusLineAtOnce() async throws {
    try "[account acct]\nurl = http://127.0.0.1:9/\nusername = ann\npassword_env = APPT_TEST_NO_SUCH_PASSWORD\n"
      .write(to: directory.file("config"), atomically: true, encoding: .utf8)
    let pilot = pilot(program: try fakeSync())
    await pilot.start()
    await waitUntil(pilot, "the first sync's result") { pilot.loop.syncsFinished == 1 }
    await pilot.settle()
    #expect(pilot.rows[23].hasSuffix("synced 15:00"))
    pilot.press(":")
    pilot.type("sync")
    pilot.press("enter")
    await waitUntil(pilot, "the :sync's report") { pilot.state.sync?.last?.outcome != .synced }
    await pilot.settle()
    #expect(pilot.state.sync?.last?.outcome == .offline, "\(String(describing: pilot.state.sync?.last))")
    // The line's left holds the command's own message (which account, why) meanwhile.
    #expect(pilot.rows[23].contains("password_env names APPT_TEST_NO_SUCH_PASSWORD"))
    #expect(pilot.state.sync?.statusText(AppointmentFormatter(clock: TestClock.clock)) == "offline")
  }
}
