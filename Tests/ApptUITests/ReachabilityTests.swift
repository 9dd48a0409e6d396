import ApptCore
import ApptTestSupport
import Foundation
import Testing

@testable import ApptUI

/// A PostgreSQL server going away and coming back: the status line says so, and the agenda
/// keeps what it showed.
@Suite struct ReachabilityTests: UIModelTest {
  let environment = Environment(clock: TestClock.clock)

  func statusLine(_ state: State) -> String {
    Views.statusLine(state, environment: environment).0
  }

  @Test func theStatusLineSaysReconnectingUntilTheStoreIsBack() {
    let dentist = TestStore.appointment("Dentist", TestClock.date(2026, 11, 29, 9))
    var state = loaded([dentist])
    let away = "Reconnecting to PostgreSQL at appt@db:5432/appt… (server closed the connection)"
    _ = UI.update(&state, .storeReachability(unreachable: away), environment: environment)
    #expect(statusLine(state) == " " + away)
    #expect(state.appointments == [dentist], "the last snapshot stays on screen")

    // Keys still work meanwhile; their messages do not hide the problem for good.
    press("j", on: &state)
    #expect(statusLine(state) == " " + away)
    // A failed write's own error shows over it.
    _ = UI.update(&state, .storeFailed("lost the connection; nothing was saved"), environment: environment)
    #expect(statusLine(state) == " lost the connection; nothing was saved")

    _ = UI.update(&state, .storeReachability(unreachable: nil), environment: environment)
    #expect(state.storeUnreachable == nil)
    #expect(statusLine(state) == " Reconnected: the calendar is up to date")
  }

  @Test func beingReachableWithoutAnInterruptionSaysNothing() {
    var state = loaded([])
    let before = statusLine(state)
    _ = UI.update(&state, .storeReachability(unreachable: nil), environment: environment)
    #expect(statusLine(state) == before)
  }
}
