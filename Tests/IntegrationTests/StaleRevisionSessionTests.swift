import ApptCore
import ApptRuntime
import ApptStore
import ApptTestSupport
import ApptUI
import Foundation
import Testing

/// Someone else changes an appointment while it is on screen (another connection to the same
/// file): the calendar's change is refused, not lost, and the user decides again.
@MainActor
@Suite struct StaleRevisionSessionTests {
  let directory = TemporaryDirectory()

  func freshDAO() -> AppointmentDAO { TestStore.fileDAO(in: directory) }

  func started(with appointments: [Appointment]) async throws -> (Pilot, [Appointment]) {
    let dao = freshDAO()
    var stored: [Appointment] = []
    for appointment in appointments { stored.append(try await dao.saveAppointment(appointment)) }
    let pilot = Pilot(dao: dao)
    await pilot.start()
    return (pilot, stored)
  }

  /// Another connection renames it, as another process would.
  func renameElsewhere(_ id: AppointmentID, to title: String) async throws -> Appointment {
    let other = freshDAO()
    let changed = try await other.updateAppointment(id: id) { $0.title = title }
    await other.database.close()
    return changed
  }

  func stored(_ id: AppointmentID) async throws -> Appointment { try await freshDAO().getAppointment(id: id) }

  @Test func aStaleFormSaveIsRefusedAndTheSecondEnterSavesOverTheNewVersion() async throws {
    let (pilot, stored) = try await started(with: [TestStore.appointment("Dentist", TestClock.date(2026, 11, 29, 10))])
    let dentist = stored[0]
    pilot.press("e", "ctrl+u")
    pilot.type("Mine")
    await pilot.settle()
    let theirs = try await renameElsewhere(dentist.id, to: "Theirs")
    #expect(theirs.revision == 2)

    pilot.press("enter")
    await pilot.settle()
    #expect(pilot.shows("Edit appointment"), "the form stays open")
    #expect(pilot.shows("! Changed by someone else; it is now"))
    #expect(pilot.shows("    \"Theirs\" Sun 2026-11-29 10:00-11:00"))
    #expect(pilot.shows("    enter saves yours over it, esc discards yours"))
    #expect(pilot.shows("\"Theirs\" was changed by someone else; nothing saved"))
    #expect(try await self.stored(dentist.id) == theirs, "their change is not lost")

    pilot.press("enter")
    await pilot.settle()
    #expect(!pilot.shows("Edit appointment"))
    let mine = try await self.stored(dentist.id)
    #expect(mine.title == "Mine")
    #expect(mine.revision == 3)
    #expect(pilot.agenda.contains("  10:00-11:00  Mine"))

    // Undo puts their version back, over mine only.
    pilot.press("u")
    await pilot.settle()
    #expect(try await self.stored(dentist.id).title == "Theirs")
  }

  @Test func escDiscardsAfterARefusal() async throws {
    let (pilot, stored) = try await started(with: [TestStore.appointment("Dentist", TestClock.date(2026, 11, 29, 10))])
    pilot.press("e", "ctrl+u")
    pilot.type("Mine")
    let theirs = try await renameElsewhere(stored[0].id, to: "Theirs")
    pilot.press("enter")
    await pilot.settle()
    pilot.press("esc")
    await pilot.settle()
    #expect(!pilot.shows("Edit appointment"))
    #expect(try await self.stored(stored[0].id) == theirs)
  }

  @Test func cancelOfAChangedAppointmentDoesNothing() async throws {
    let (pilot, stored) = try await started(with: [TestStore.appointment("Dentist", TestClock.date(2026, 11, 29, 10))])
    // Renamed elsewhere while the y/n question is on screen: the answer is about what was asked.
    pilot.press("c")
    await pilot.settle()
    let theirs = try await renameElsewhere(stored[0].id, to: "Theirs")
    pilot.press("y")
    await pilot.settle()
    #expect(try await self.stored(stored[0].id) == theirs, "not cancelled")
    #expect(pilot.shows("\"Theirs\" was changed by someone else; not cancelled"))
  }

  @Test func undoOfAChangeSomeoneElseChangedSinceDoesNothing() async throws {
    let (pilot, stored) = try await started(with: [TestStore.appointment("Dentist", TestClock.date(2026, 11, 29, 10))])
    pilot.press("c", "y")
    await pilot.settle()
    #expect(try await self.stored(stored[0].id).status == .cancelled)
    let theirs = try await renameElsewhere(stored[0].id, to: "Theirs")
    pilot.press("u")
    await pilot.settle()
    #expect(try await self.stored(stored[0].id) == theirs, "their version stays")
    #expect(pilot.shows("\"Theirs\" was changed by someone else; nothing undone"))
  }
}
