import ApptCore
import ApptStore
import ApptTestSupport
import ApptUI
import Foundation
import Testing

/// Keys on one occurrence of a series change that occurrence only, as the confirmation says,
/// and undo gives it back; the series stays as it was.
@MainActor
@Suite struct OccurrenceKeysTests {
  let directory = TemporaryDirectory()

  func freshDAO() -> AppointmentDAO { TestStore.fileDAO(in: directory) }

  /// Daily at 09:00 from the day before the test clock's today, five times.
  func startedOnASeries() async throws -> (Pilot, Appointment) {
    let dao = freshDAO()
    let start = TestClock.date(2026, 11, 28, 9)
    let series = try await dao.saveAppointment(
      Appointment(
        title: "Standup",
        start: start,
        end: start.addingTimeInterval(900),
        created: TestClock.now,
        timeZone: "Europe/Paris",
        recurrence: Recurrence(frequency: .daily, count: 5)
      )
    )
    let pilot = Pilot(dao: dao)
    await pilot.start()
    return (pilot, series)
  }

  var today: Date { TestClock.date(2026, 11, 29, 9) }

  @Test func cancellingAnOccurrenceLeavesTheSeries() async throws {
    let (pilot, series) = try await startedOnASeries()
    pilot.press("c", "y")
    await pilot.settle()
    let stored = try await freshDAO().getAppointment(id: series.id)
    #expect(stored.status == .scheduled, "the series itself is not cancelled")
    #expect(stored.exceptions == [today])
    pilot.press("u")
    await pilot.settle()
    #expect(try await freshDAO().getAppointment(id: series.id).exceptions.isEmpty)
  }

  @Test func editingAnOccurrenceDetachesItAndUndoReattaches() async throws {
    let (pilot, series) = try await startedOnASeries()
    pilot.press("e", "ctrl+u")
    pilot.type("Standup (moved)")
    pilot.press("enter")
    await pilot.settle()
    let dao = freshDAO()
    let stored = try await dao.getAppointment(id: series.id)
    #expect(stored.title == "Standup", "the series keeps its title")
    #expect(stored.exceptions.isEmpty, "the override keeps the occurrence's place in the series")
    #expect(try await dao.getAllAppointments().first { $0.override != nil }?.override?.recurrenceID == today)
    let all = try await dao.getAllAppointments()
    #expect(all.map(\.title).sorted() == ["Standup", "Standup (moved)"])
    pilot.press("u")
    await pilot.settle()
    #expect(try await dao.getAllAppointments().map(\.title) == ["Standup"])
    #expect(try await dao.getAppointment(id: series.id).exceptions.isEmpty)
  }
}
