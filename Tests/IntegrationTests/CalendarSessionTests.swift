import ApptCore
import ApptStore
import ApptTestSupport
import ApptUI
import Foundation
import Testing

/// A user's session, driven through the real runtime and a headless terminal against a real
/// store in a temporary file; what the screen shows is checked against what a fresh
/// connection (as a second process would) reads back from the file.
@MainActor
@Suite struct CalendarSessionTests {
  let directory = TemporaryDirectory()

  func freshDAO() -> AppointmentDAO { TestStore.fileDAO(in: directory) }

  @Test func showsTodaysAppointmentsAtStart() async throws {
    let dao = freshDAO()
    try await dao.saveAppointment(TestStore.appointment("Dentist", TestClock.date(2026, 11, 29, 10), minutes: 45))
    try await dao.saveAppointment(TestStore.appointment("Tomorrow's", TestClock.date(2026, 11, 30, 10)))
    let pilot = Pilot(dao: dao)
    await pilot.start()
    #expect(pilot.rows[0].hasPrefix(" appt  Sun 29 Nov 2026  (today)"))
    #expect(pilot.agenda[2] == "  10:00-10:45  Dentist")
    #expect(!pilot.shows("Tomorrow's"))
    #expect(pilot.rows[23].hasPrefix(" j/k move"))
    pilot.press("q")
    await pilot.waitUntilFinished()
  }

  @Test func addingThroughTheFormReachesTheScreenAndTheFile() async throws {
    let pilot = Pilot(dao: freshDAO())
    await pilot.start()
    pilot.addInForm(title: "Dentist", time: "10:00", duration: "45m", note: "bring the x-rays")
    await pilot.settle()

    #expect(pilot.agenda[2] == "  10:00-10:45  Dentist")
    #expect(pilot.rows[23].hasPrefix(" Added \"Dentist\""))
    let stored = try await freshDAO().getAllAppointments()
    #expect(stored.count == 1)
    let appointment = try #require(stored.first)
    #expect(appointment.title == "Dentist")
    #expect(appointment.note == "bring the x-rays")
    #expect(appointment.start == TestClock.date(2026, 11, 29, 10))
    #expect(appointment.duration == 45 * 60)
    #expect(pilot.state.selectedID == appointment.id)
  }

  @Test func addingOnAnotherDayShowsThatDay() async throws {
    let pilot = Pilot(dao: freshDAO())
    await pilot.start()
    pilot.press("a")
    pilot.type("Flight")
    pilot.press("tab", "ctrl+u")
    pilot.type("2026-12-24 07:15")
    pilot.press("enter")
    await pilot.settle()
    #expect(pilot.rows[0].hasPrefix(" appt  Thu 24 Dec 2026"))
    #expect(pilot.agenda[2] == "  07:15-08:15  Flight")
  }

  @Test func aBadFormKeepsTheTextAndWritesNothing() async throws {
    let pilot = Pilot(dao: freshDAO())
    await pilot.start()
    pilot.press("a")
    pilot.type("Dentist")
    pilot.press("tab")
    pilot.type("25:99")
    pilot.press("enter")
    await pilot.settle()
    #expect(pilot.shows("Start     25:99"))
    #expect(pilot.rows.contains { $0.contains("25:99") && $0.contains("invalid") })
    #expect(try await freshDAO().getAllAppointments().isEmpty)
    pilot.press("esc")
    await pilot.settle()
    #expect(pilot.shows("Nothing on this day"))
  }

  @Test func cancellingAsksThenCancels() async throws {
    let dao = freshDAO()
    let lunch = TestStore.appointment("Lunch", TestClock.date(2026, 11, 29, 12))
    try await dao.saveAppointment(TestStore.appointment("Dentist", TestClock.date(2026, 11, 29, 10)))
    try await dao.saveAppointment(lunch)
    let pilot = Pilot(dao: dao)
    await pilot.start()
    pilot.press("j", "c")
    await pilot.settle()
    #expect(pilot.rows[23].hasPrefix(" Cancel \"Lunch\" at 12:00-13:00? (y/n)"))
    pilot.press("y")
    await pilot.settle()
    #expect(pilot.agenda[3] == "  12:00-13:00  Lunch  (cancelled)")
    #expect(pilot.rows[23].hasPrefix(" Cancelled \"Lunch\""))
    #expect(try await freshDAO().getAppointment(id: lunch.id).status == .cancelled)
  }

  @Test func declinedCancellationChangesNothing() async throws {
    let dao = freshDAO()
    let dentist = TestStore.appointment("Dentist", TestClock.date(2026, 11, 29, 10))
    try await dao.saveAppointment(dentist)
    let pilot = Pilot(dao: dao)
    await pilot.start()
    pilot.press("c", "n")
    await pilot.settle()
    #expect(pilot.agenda[2] == "  10:00-11:00  Dentist")
    #expect(try await freshDAO().getAppointment(id: dentist.id).status == .scheduled)
  }

  @Test func dayNavigationShowsEachDaysWindow() async throws {
    let dao = freshDAO()
    try await dao.saveAppointment(TestStore.appointment("Monday thing", TestClock.date(2026, 11, 30, 9)))
    try await dao.saveAppointment(TestStore.appointment("Next week", TestClock.date(2026, 12, 6, 9)))
    let pilot = Pilot(dao: dao)
    await pilot.start()
    pilot.press("l")
    await pilot.settle()
    #expect(pilot.rows[0].hasPrefix(" appt  Mon 30 Nov 2026 "))
    #expect(pilot.agenda[2] == "  09:00-10:00  Monday thing")
    pilot.press("h", "pgdown")
    await pilot.settle()
    #expect(pilot.agenda[2] == "  09:00-10:00  Next week")
    pilot.press("t")
    await pilot.settle()
    #expect(pilot.rows[0].contains("(today)"))
    #expect(pilot.shows("Nothing on this day"))
  }

  /// The screen changes only because a snapshot arrived: a write made behind the UI's back
  /// (straight through the DAO) shows up on its own.
  @Test func writesFromElsewhereArriveThroughTheStream() async throws {
    let dao = freshDAO()
    let pilot = Pilot(dao: dao)
    await pilot.start()
    try await dao.saveAppointment(TestStore.appointment("Behind your back", TestClock.date(2026, 11, 29, 16)))
    await pilot.settle()
    #expect(pilot.agenda[2].hasPrefix("  ── now 15:00 ──"), "it is 15:00: the marker comes before 16:00")
    #expect(pilot.agenda[3] == "  16:00-17:00  Behind your back")
  }

  /// Another connection to the file (as another process would have) is seen by polling
  /// `PRAGMA data_version`; the test runs that poll now instead of waiting for it.
  @Test func anotherConnectionsCommitReachesTheScreen() async throws {
    let pilot = Pilot(dao: freshDAO())
    await pilot.start()
    let other = freshDAO()
    try await other.saveAppointment(TestStore.appointment("From elsewhere", TestClock.date(2026, 11, 29, 18)))
    await pilot.checkForExternalChanges()
    await pilot.settle()
    #expect(pilot.shows("From elsewhere"))
    #expect(pilot.shows("Updated by another process"))
  }

  @Test func resizeRedrawsAtTheNewSize() async throws {
    let dao = freshDAO()
    try await dao.saveAppointment(TestStore.appointment("Dentist", TestClock.date(2026, 11, 29, 10)))
    let pilot = Pilot(dao: dao)
    await pilot.start()
    for (rows, columns) in [(5, 20), (3, 10), (60, 200), (1, 1), (24, 80)] {
      pilot.resize(rows: rows, columns: columns)
      await pilot.settle()
      #expect(pilot.screen.size == Screen.Size(rows: rows, columns: columns))
    }
    #expect(pilot.agenda[2] == "  10:00-11:00  Dentist")
  }

  @Test func quittingStopsTheLoopAndRestoresTheTerminal() async throws {
    let pilot = Pilot(dao: freshDAO())
    await pilot.start()
    #expect(pilot.isRunning)
    pilot.press("ctrl+c")
    await pilot.waitUntilFinished()
    #expect(!pilot.isRunning)
  }

  /// SIGINT, SIGTERM and SIGHUP reach the loop as one event: it ends even mid-form, and the
  /// terminal is given back.
  @Test func aSignalEndsTheLoopFromAnyMode() async throws {
    let pilot = Pilot(dao: freshDAO())
    await pilot.start()
    pilot.press("a")
    pilot.type("half-typed")
    await pilot.settle()
    pilot.terminal.interrupt()
    await pilot.waitUntilFinished()
    #expect(!pilot.isRunning)
    #expect(try await freshDAO().getAllAppointments().isEmpty, "nothing half-typed was saved")
  }

  @Test func aStoreFailureIsShownAndTheFormKeepsItsText() async throws {
    let dao = freshDAO()
    try await dao.saveAppointment(TestStore.appointment("Existing", TestClock.date(2026, 11, 29, 8)))
    let file = directory.file("appt.sqlite3")
    try FileManager.default.setAttributes([.posixPermissions: 0o444], ofItemAtPath: file.path)
    let readOnly = freshDAO()
    let pilot = Pilot(dao: readOnly)
    await pilot.start()
    #expect(pilot.agenda[2] == "  08:00-09:00  Existing")
    pilot.press("a")
    pilot.type("Dentist")
    pilot.press("tab")
    pilot.type("10:00")
    pilot.press("enter")
    await pilot.settle()
    #expect(pilot.rows.contains { $0.contains("read-only") })
    #expect(pilot.shows("Title     Dentist"))
    try FileManager.default.setAttributes([.posixPermissions: 0o600], ofItemAtPath: file.path)
    #expect(try await freshDAO().getAllAppointments().map(\.title) == ["Existing"])
  }
}
