import ApptCore
import ApptStore
import ApptTestSupport
import ApptUI
import Foundation
import Testing

/// `/` filters only the day shown; tab searches every day against the real store,
/// and a result takes the calendar to its day with it selected.
@MainActor
@Suite struct SearchEveryDayTests {
  let directory = TemporaryDirectory()

  @Test func tabSearchesEveryDayAndEnterGoesToTheResult() async throws {
    let dao = TestStore.fileDAO(in: directory)
    let today = TestStore.appointment("Dentist today", TestClock.date(2026, 11, 29, 10))
    let later = TestStore.appointment("Dentist again", TestClock.date(2027, 2, 3, 9))
    let other = TestStore.appointment("Lunch", TestClock.date(2027, 2, 3, 12))
    for appointment in [today, later, other] { try await dao.saveAppointment(appointment) }
    let pilot = Pilot(dao: dao)
    await pilot.start()
    pilot.press("/")
    pilot.type("dent")
    pilot.press("tab")
    await pilot.settle()
    #expect(pilot.shows("2 matches for \"dent\" on every day"), "\(pilot.rows)")
    #expect(pilot.shows("Sun 2026-11-29  10:00-11:00  Dentist today"))
    #expect(pilot.shows("Wed 2027-02-03  09:00-10:00  Dentist again"))
    #expect(!pilot.shows("Lunch"))
    pilot.press("j", "enter")
    await pilot.settle()
    #expect(pilot.rows[0].hasPrefix(" appt  Wed 3 Feb 2027"), "\(pilot.rows[0])")
    #expect(pilot.agenda.contains { $0.contains("Lunch") }, "the whole day, unfiltered")
    #expect(pilot.state.selectedID == later.id)
  }

  @Test func nothingFoundSaysSo() async throws {
    let pilot = Pilot(dao: TestStore.fileDAO(in: directory))
    await pilot.start()
    pilot.press("/")
    pilot.type("nowhere")
    pilot.press("tab")
    await pilot.settle()
    #expect(pilot.rows[23].hasPrefix(" Nothing matches \"nowhere\" on any day"), "\(pilot.rows[23])")
  }
}
