import ApptCore
import ApptStore
import ApptTestSupport
import ApptUI
import Foundation
import Testing

/// Reading ahead against a real file: the days beside the one on screen are read once it has
/// loaded, a move there shows them, and another client's commit since is never lost.
@MainActor
@Suite struct ReadAheadSessionTests {
  let directory = TemporaryDirectory()
  let clock = TestClock.clock
  let dentist = TestStore.appointment("Dentist", TestClock.date(2026, 11, 29, 10))
  let lunch = TestStore.appointment("Lunch", TestClock.date(2026, 11, 30, 12, 30))

  func freshDAO() -> AppointmentDAO { TestStore.fileDAO(in: directory) }

  func started() async throws -> Pilot {
    let dao = freshDAO()
    for appointment in [dentist, lunch] { try await dao.saveAppointment(appointment) }
    let pilot = Pilot(dao: dao)
    await pilot.start()
    return pilot
  }

  @Test func theNextDayIsReadOnceTodayHasLoadedAndShownFromIt() async throws {
    let pilot = try await started()
    let tomorrow = State.Window(day: clock.day(1, after: clock.today), end: nil)
    #expect(pilot.state.readAhead[tomorrow]?.items.map(\.title) == ["Lunch"])
    pilot.press("l")
    await pilot.settle()
    #expect(pilot.agenda.contains("  12:30-13:30  Lunch"))
    #expect(pilot.state.readAhead[State.Window(day: clock.today, end: nil)]?.items.map(\.title) == ["Dentist"])
  }

  @Test func anotherClientsCommitOnTheDayReadAheadShowsWhenTheSelectionGetsThere() async throws {
    let pilot = try await started()
    // Another connection adds to tomorrow: today's window does not change, so the calendar
    // learns of the commit only when it observes tomorrow (the version moved: read again).
    let tea = TestStore.appointment("Tea", TestClock.date(2026, 11, 30, 16))
    try await freshDAO().saveAppointment(tea)
    await pilot.checkForExternalChanges()
    await pilot.settle()
    pilot.press("l")
    await pilot.settle()
    #expect(pilot.agenda.contains("  12:30-13:30  Lunch"))
    #expect(pilot.agenda.contains("  16:00-17:00  Tea"))
  }

  @Test func theWeekViewShowsTheNextWeekFromWhatWasRead() async throws {
    let pilot = try await started()
    pilot.press("w")
    await pilot.settle()
    let next = State.Window(day: TestClock.date(2026, 11, 30), end: TestClock.date(2026, 12, 7))
    #expect(pilot.state.readAhead[next]?.items.map(\.title) == ["Lunch"])
    pilot.press("l")
    await pilot.settle()
    #expect(pilot.state.selectedAppointment?.title == "Lunch")
    #expect(pilot.shows("Lunch"))
  }
}
