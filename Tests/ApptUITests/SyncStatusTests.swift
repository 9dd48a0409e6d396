import ApptCore
import ApptTestSupport
import Foundation
import Testing

@testable import ApptUI

/// The calendar's background sync as the UI model sees it (Sync.swift): when it asks for a
/// sync, never two at once, and what the status line says of the last one.
@Suite struct SyncStatusTests: UIModelTest {
  static func settings(intervals: [TimeInterval]) -> Settings {
    var settings = Settings()
    settings.accounts = intervals.enumerated().map { index, interval in
      AccountSettings(
        name: "acct\(index)",
        url: Setting("https://dav.example/"),
        username: Setting("ann"),
        syncInterval: Setting(interval)
      )
    }
    return settings
  }

  let environment = Environment(clock: TestClock.clock, settings: SyncStatusTests.settings(intervals: [600, 120]))

  func report(_ outcome: SyncReport.Outcome, pending: Int = 0, conflicts: Int = 0) -> SyncReport {
    SyncReport(outcome: outcome, finished: TestClock.date(2026, 11, 29, 10, 42), pending: pending, conflicts: conflicts)
  }

  @Test("the status texts: synced, offline with changes waiting, conflicts first, failures")
  func statusTexts() {
    let formatter = environment.formatter
    #expect(report(.synced).statusText(formatter) == "synced 10:42")
    #expect(report(.offline, pending: 3).statusText(formatter) == "offline: 3 changes waiting")
    #expect(report(.offline, pending: 1).statusText(formatter) == "offline: 1 change waiting")
    #expect(report(.offline).statusText(formatter) == "offline")
    #expect(report(.offline, pending: 3, conflicts: 1).statusText(formatter) == "sync: 1 conflict (appt conflicts)")
    #expect(report(.synced, conflicts: 2).statusText(formatter) == "sync: 2 conflicts (appt conflicts)")
    #expect(
      report(.failed("no [account x] in CONFIG")).statusText(formatter) == "sync failed: no [account x] in CONFIG"
    )
    let twelve = Environment(
      clock: TestClock.clock,
      settings: { () -> Settings in
        var settings = Settings()
        settings.ui.timeFormat = Setting(.hours12)
        return settings
      }()
    )
    #expect(report(.synced).statusText(twelve.formatter) == "synced 10:42am")
    let missing = "sync needs the appt-sync program next to appt (not found in /usr/bin or PATH)"
    #expect(report(.failed(missing)).statusText(formatter) == "sync failed: sync needs the appt-sync program next t…")
  }

  @Test("without accounts there is no background sync")
  func noAccounts() {
    let plain = Environment(clock: TestClock.clock)
    let (state, effects) = UI.start(size: Screen.Size(rows: 24, columns: 80), environment: plain)
    #expect(state.sync == nil)
    #expect(!effects.contains(.runSync))
    var copy = state
    #expect(
      UI.update(&copy, .appointmentDeleted(TestStore.appointment("x", TestClock.now)), environment: plain).isEmpty
    )
  }

  @Test("a sync at start, the next after the smallest interval, one 5 s after a change, never two at once")
  func policy() {
    var (state, effects) = UI.start(size: Screen.Size(rows: 24, columns: 80), environment: environment)
    #expect(effects.contains(.runSync), "a sync after start")
    #expect(state.sync?.isRunning == true && state.sync?.interval == 120)
    #expect(Views.syncText(state, environment: environment) == "syncing…")
    // A change while it runs: a sync 5 s later, which waits for the running one to end.
    let dentist = TestStore.appointment("Dentist", TestClock.now)
    #expect(UI.update(&state, .appointmentDeleted(dentist), environment: environment) == [.scheduleSync(after: 5)])
    #expect(UI.update(&state, .syncDue, environment: environment).isEmpty, "never two at once")
    #expect(state.sync?.isWanted == true)
    #expect(UI.update(&state, .syncFinished(report(.synced)), environment: environment) == [.runSync])
    #expect(state.sync?.isRunning == true && state.sync?.isWanted == false)
    #expect(
      UI.update(&state, .syncFinished(report(.offline, pending: 2)), environment: environment) == [
        .scheduleSync(after: 120)
      ]
    )
    #expect(state.sync?.isRunning == false)
    #expect(UI.update(&state, .syncDue, environment: environment) == [.runSync])
    #expect(
      Views.syncText(state, environment: environment) == "offline: 2 changes waiting",
      "the last one's, meanwhile"
    )
    // A failed `:` command changed nothing: no sync for it; one that worked may have.
    #expect(UI.update(&state, .commandFinished(output: "bad", isError: true), environment: environment).isEmpty)
    #expect(
      UI.update(&state, .commandFinished(output: "added", isError: false), environment: environment) == [
        .scheduleSync(after: 5)
      ]
    )
  }

  @Test("the status line ends with the sync's words, over the end of the key hints")
  func statusLine() {
    var state = loaded([])
    _ = UI.update(&state, .syncFinished(report(.synced)), environment: environment)
    let screen = Views.render(state, environment: environment)
    let row = String(screen.rows[23])
    #expect(row.hasSuffix("synced 10:42 "))
    #expect(row.hasPrefix(" j/k move"))
    // A message keeps its place; the sync's words go beside it when they fit.
    state.report("Deleted \"Dentist\" (u undoes)")
    #expect(String(Views.render(state, environment: environment).rows[23]).hasSuffix("synced 10:42 "))
    state.status = nil
    state.mode = .help
    #expect(!String(Views.render(state, environment: environment).rows[23]).contains("synced"), "not over other modes")
  }
}
