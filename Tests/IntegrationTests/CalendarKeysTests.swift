import ApptCore
import ApptStore
import ApptTestSupport
import ApptUI
import Foundation
import Testing

/// Every key that changes data, driven through the runtime against a real file, with the
/// file read back through a fresh connection after each step.
@MainActor
@Suite struct CalendarKeysTests {
  let directory = TemporaryDirectory()

  func freshDAO() -> AppointmentDAO { TestStore.fileDAO(in: directory) }

  func started(with appointments: [Appointment]) async throws -> Pilot {
    let dao = freshDAO()
    for appointment in appointments { try await dao.saveAppointment(appointment) }
    let pilot = Pilot(dao: dao)
    await pilot.start()
    return pilot
  }

  func stored(_ id: AppointmentID) async throws -> Appointment { try await freshDAO().getAppointment(id: id) }

  @Test func editChangesTheFileAndUndoPutsItBack() async throws {
    let dentist = TestStore.appointment("Dentist", TestClock.date(2026, 11, 29, 10))
    let pilot = try await started(with: [dentist])
    pilot.press("e", "ctrl+u")
    pilot.type("Orthodontist")
    pilot.press("tab", "ctrl+w")
    pilot.type("16:30")
    pilot.press("enter")
    await pilot.settle()
    #expect(pilot.agenda.contains("  16:30-17:30  Orthodontist"))
    #expect(try await stored(dentist.id).title == "Orthodontist")
    #expect(try await stored(dentist.id).start == TestClock.date(2026, 11, 29, 16, 30))
    pilot.press("u")
    await pilot.settle()
    #expect(try await stored(dentist.id).title == "Dentist")
    #expect(pilot.agenda[2] == "  10:00-11:00  Dentist")
    #expect(pilot.rows[23].hasPrefix(" Undid: changes to \"Dentist\""))
  }

  @Test func cancelThenUndoRestores() async throws {
    let dentist = TestStore.appointment("Dentist", TestClock.date(2026, 11, 29, 10))
    let pilot = try await started(with: [dentist])
    pilot.press("c", "y")
    await pilot.settle()
    #expect(try await stored(dentist.id).status == .cancelled)
    pilot.press("u")
    await pilot.settle()
    #expect(try await stored(dentist.id).status == .scheduled)
    #expect(pilot.agenda[2] == "  10:00-11:00  Dentist")
  }

  @Test func restoreKeyRestores() async throws {
    let standup = TestStore.appointment("Standup", TestClock.date(2026, 11, 29, 9), status: .cancelled)
    let pilot = try await started(with: [standup])
    #expect(pilot.agenda[2] == "  09:00-10:00  Standup  (cancelled)")
    pilot.press("r")
    await pilot.settle()
    #expect(try await stored(standup.id).status == .scheduled)
    #expect(pilot.agenda[2] == "  09:00-10:00  Standup")
  }

  @Test func deleteAsksDeletesAndUndoBringsItBack() async throws {
    let dentist = TestStore.appointment("Dentist", TestClock.date(2026, 11, 29, 10), note: "keep me")
    let pilot = try await started(with: [dentist])
    pilot.press("D", "y")
    await pilot.settle()
    #expect(try await freshDAO().getAllAppointments().isEmpty)
    #expect(pilot.shows("Nothing on this day"))
    pilot.press("u")
    await pilot.settle()
    // Every field, id included, at the next revision (1 when stored, 2 when put back).
    #expect(try await stored(dentist.id) == dentist.atRevision(2), "undo puts back every field, id included")
  }

  @Test func addThenUndoRemovesIt() async throws {
    let pilot = try await started(with: [])
    pilot.press("a")
    pilot.type("Mistake")
    pilot.press("tab")
    pilot.type("11:00")
    pilot.press("enter")
    await pilot.settle()
    #expect(try await freshDAO().getAllAppointments().count == 1)
    pilot.press("u")
    await pilot.settle()
    #expect(try await freshDAO().getAllAppointments().isEmpty)
  }

  @Test func theCommandLineWritesThroughTheSameStore() async throws {
    let pilot = try await started(with: [])
    pilot.press(":")
    pilot.type("add Lunch with Sam --at 12:30 --for 45m")
    pilot.press("enter")
    await pilot.settle()
    #expect(pilot.agenda[2] == "  12:30-13:15  Lunch with Sam")
    #expect(pilot.rows[23].hasPrefix(" added "))
    #expect(try await freshDAO().getAllAppointments().map(\.title) == ["Lunch with Sam"])
    pilot.press(":")
    pilot.type("frobnicate")
    pilot.press("enter")
    await pilot.settle()
    #expect(pilot.rows[23].hasPrefix(" unknown command \"frobnicate\""))
  }

  @Test func searchAndCancelledToggleFilterTheScreen() async throws {
    let pilot = try await started(with: [
      TestStore.appointment("Dentist", TestClock.date(2026, 11, 29, 10)),
      TestStore.appointment("Lunch", TestClock.date(2026, 11, 29, 12)),
      TestStore.appointment("Standup", TestClock.date(2026, 11, 29, 9), status: .cancelled),
    ])
    pilot.press("/")
    pilot.type("lun")
    await pilot.settle()
    #expect(pilot.agenda[2] == "  12:00-13:00  Lunch")
    #expect(!pilot.shows("Dentist"))
    pilot.press("esc", "v")
    await pilot.settle()
    #expect(!pilot.shows("Standup"))
    #expect(pilot.agenda[2] == "  10:00-11:00  Dentist")
    #expect(pilot.rows[0].contains("cancelled hidden"))
  }

  @Test func helpShowsEveryBinding() async throws {
    let pilot = try await started(with: [])
    pilot.resize(rows: 30, columns: 80)  // all of the overlay (at 24 rows it scrolls)
    pilot.press("?")
    await pilot.settle()
    for binding in KeyMap.standard.bindings { #expect(pilot.shows(binding.action.summary)) }
    pilot.press("x")
    await pilot.settle()
    #expect(!pilot.shows("show this help"))
  }

  @Test func theMonthPanelMarksBusyDaysLive() async throws {
    let pilot = try await started(with: [])
    // 30 Nov sits in the month grid at row 8 (the last week), column 2.
    #expect(pilot.screen[8, 2].style == .normal)
    // Another connection's commit is seen by polling; the test polls now instead of waiting.
    try await freshDAO().saveAppointment(TestStore.appointment("Monday", TestClock.date(2026, 11, 30, 9)))
    await pilot.checkForExternalChanges()
    await pilot.settle()
    #expect(pilot.screen[8, 2].style == .marked)
  }
}
