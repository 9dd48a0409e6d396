import ApptCore
import ApptTestSupport
import Foundation
import Testing

@testable import ApptUI

/// A PostgreSQL server going away and coming back, as the snapshots say it: `update` decides
/// what the status line says, and remembers it. Plain values in, values out.
@Suite struct ReachabilityTests: UIModelTest {
  let environment = Environment(clock: TestClock.clock)
  let dentist = TestStore.appointment("Dentist", TestClock.date(2026, 11, 29, 9))
  let lunch = TestStore.appointment("Lunch", TestClock.date(2026, 11, 29, 12))
  let away = StoreInterruption(server: "appt@db:5432/appt", reason: "server closed the connection")

  func statusLine(_ state: State) -> String {
    Views.statusLine(state, environment: environment).0
  }

  func snapshot(
    _ state: State,
    _ items: [Appointment],
    fromOtherProcess: Bool = false,
    interruption: StoreInterruption? = nil
  ) -> Message {
    .snapshotArrived(
      day: state.selectedDay,
      appointments: items,
      fromOtherProcess: fromOtherProcess,
      interruption: interruption
    )
  }

  @Test func theStatusLineSaysReconnectingUntilTheStoreIsBack() {
    var state = loaded([dentist])
    #expect(UI.update(&state, snapshot(state, [dentist], interruption: away), environment: environment) == [])
    #expect(state.storeInterruption == away)
    #expect(statusLine(state) == " Reconnecting to PostgreSQL at appt@db:5432/appt… (server closed the connection)")
    #expect(state.appointments == [dentist], "the last snapshot stays on screen")

    // Keys still work meanwhile; their messages do not hide the problem for good.
    press("j", on: &state)
    #expect(statusLine(state) == " " + away.statusText)
    // A failed write's own error shows over it.
    _ = UI.update(&state, .storeFailed("lost the connection; nothing was saved"), environment: environment)
    #expect(statusLine(state) == " lost the connection; nothing was saved")

    // The store is back: a snapshot without an interruption (caused by "another process",
    // the server coming back) says "Reconnected", not "Updated by another process".
    _ = UI.update(&state, snapshot(state, [dentist], fromOtherProcess: true), environment: environment)
    #expect(state.storeInterruption == nil)
    #expect(state.status == State.StatusMessage(text: "Reconnected: the calendar is up to date", isError: false))
  }

  @Test func aChangeAfterTheReconnectIsAnnouncedAsOne() {
    var state = loaded([dentist])
    _ = UI.update(&state, snapshot(state, [dentist], interruption: away), environment: environment)
    _ = UI.update(&state, snapshot(state, [dentist], fromOtherProcess: true), environment: environment)
    #expect(state.status?.text == "Reconnected: the calendar is up to date")
    _ = UI.update(&state, snapshot(state, [dentist, lunch], fromOtherProcess: true), environment: environment)
    #expect(state.status?.text == "Updated by another process")
    #expect(state.appointments == [dentist, lunch])
    #expect(state.storeInterruption == nil)
  }

  @Test func repeatedInterruptionsAreOneAndALateDaysSnapshotStillCounts() {
    var state = loaded([dentist])
    _ = UI.update(&state, snapshot(state, [dentist], interruption: away), environment: environment)
    let again = StoreInterruption(server: "appt@db:5432/appt", reason: "connection refused")
    _ = UI.update(&state, snapshot(state, [dentist], interruption: again), environment: environment)
    #expect(state.storeInterruption == again, "the status line follows the newest reason")
    // The store comes back in the snapshot of a day the user has just left: still back.
    let yesterday = TestClock.clock.day(-1, after: state.selectedDay)
    _ = UI.update(&state, .snapshotArrived(day: yesterday, appointments: []), environment: environment)
    #expect(state.storeInterruption == nil)
    #expect(state.status?.text == "Reconnected: the calendar is up to date")
    #expect(state.appointments == [dentist], "the other day's items are not shown")
  }

  @Test func beingReachableWithoutAnInterruptionSaysNothing() {
    var state = loaded([])
    let before = state
    _ = UI.update(&state, snapshot(state, []), environment: environment)
    #expect(state == before)
    #expect(StoreInterruption(server: nil, reason: "disk I/O error").statusText == "Reconnecting… (disk I/O error)")
  }

  @Test func anInterruptionOfTheTerminalIsTheOneQuit() {
    var state = loaded([dentist])
    press("a", on: &state)
    let before = state
    #expect(UI.update(&state, .interrupted, environment: environment) == [.quit])
    #expect(state == before, "nothing else changes: the runtime stops on .quit")
    var browsing = loaded([dentist])
    #expect(press("q", on: &browsing) == [.quit])
  }
}
