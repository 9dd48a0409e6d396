import ApptCore
import ApptStore
import ApptTestSupport
import ApptUI
import Foundation
import Testing

/// The week view (`w`) driven through the runtime against a real file: it observes the whole
/// week, and adds, edits and cancels on its selection, read back through a fresh connection.
@MainActor
@Suite struct WeekViewSessionTests {
  let directory = TemporaryDirectory()

  func freshDAO() -> AppointmentDAO { TestStore.fileDAO(in: directory) }

  @Test func addEditAndCancelFromTheWeekView() async throws {
    let dentist = TestStore.appointment("Dentist", TestClock.date(2026, 11, 26, 10))
    let lunch = TestStore.appointment("Lunch", TestClock.date(2026, 11, 29, 12))
    let dao = freshDAO()
    for appointment in [dentist, lunch] { try await dao.saveAppointment(appointment) }
    let pilot = Pilot(dao: dao)
    await pilot.start()
    #expect(!pilot.shows("Dentist"), "the day view shows today only")
    pilot.press("w")
    await pilot.settle()
    #expect(pilot.state.view == .week)
    #expect(pilot.shows("Dentist") && pilot.shows("Lunch"), "the whole week is observed")
    #expect(pilot.rows[1].contains("Mon 23") && pilot.rows[1].contains("Sun 29"))

    // h three times: Thursday, its appointment selected; e edits it.
    pilot.press("h", "h", "h")
    await pilot.settle()
    #expect(pilot.state.selectedAppointment?.id == dentist.id)
    pilot.press("e", "ctrl+u")
    pilot.type("Orthodontist")
    pilot.press("enter")
    await pilot.settle()
    #expect(try await freshDAO().getAppointment(id: dentist.id).title == "Orthodontist")
    #expect(pilot.shows("Orthodontist"))

    // a adds on the selected day (a time alone is on the form's day).
    pilot.addInForm(title: "Gym", time: "07:00", duration: "30m", note: "")
    await pilot.settle()
    let gym = try #require(try await freshDAO().getAllAppointments().first { $0.title == "Gym" })
    #expect(gym.start == TestClock.date(2026, 11, 26, 7))
    #expect(pilot.state.view == .week && pilot.state.selectedAppointment?.id == gym.id)

    // c cancels the selected one (the new one).
    pilot.press("c", "y")
    await pilot.settle()
    #expect(try await freshDAO().getAppointment(id: gym.id).status == .cancelled)
    #expect(pilot.shows("✗ Gym"))

    // l past Sunday: the next week, observed.
    pilot.press("l", "l", "l", "l")
    await pilot.settle()
    #expect(pilot.rows[1].contains("Mon 30"))
    #expect(!pilot.shows("Lunch"))
    pilot.press("q")
    await pilot.waitUntilFinished()
  }

  @Test func theAgendaListsTheNextDays() async throws {
    let dao = freshDAO()
    try await dao.saveAppointment(TestStore.appointment("Dinner", TestClock.date(2026, 12, 1, 19)))
    let pilot = Pilot(dao: dao)
    await pilot.start()
    pilot.press("A")
    await pilot.settle()
    #expect(pilot.shows(" Tue 1 Dec 2026") && pilot.shows("19:00-20:00  Dinner"))
    pilot.press("j", "e")
    await pilot.settle()
    #expect(pilot.shows("Edit appointment"), "e edits the selected one")
    pilot.press("esc", "q")
    await pilot.waitUntilFinished()
  }
}
