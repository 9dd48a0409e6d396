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
    pilot.press("c")
    await pilot.settle()
    #expect(pilot.shows("o this occurrence, f this and following, s the whole series"), "c asks which")
    pilot.press("o")
    await pilot.settle()
    let stored = try await freshDAO().getAppointment(id: series.id)
    #expect(stored.status == .scheduled, "the series itself is not cancelled")
    #expect(stored.exceptions == [today])
    pilot.press("u")
    await pilot.settle()
    #expect(try await freshDAO().getAppointment(id: series.id).exceptions.isEmpty)
  }

  @Test func cancellingThisAndFollowingSplitsTheSeriesAndUndoJoinsItAgain() async throws {
    let (pilot, series) = try await startedOnASeries()
    pilot.press("c", "f")
    await pilot.settle()
    let dao = freshDAO()
    let all = try await dao.getAllAppointments()
    #expect(all.count == 2, "the series and the part split off")
    let stored = try await dao.getAppointment(id: series.id)
    #expect(stored.status == .scheduled)
    let rest = try #require(all.first { $0.id != series.id })
    #expect(rest.status == .cancelled && rest.start == today)
    let yesterday = TestClock.date(2026, 11, 28, 0)
    let window = DateInterval(start: yesterday, end: TestClock.date(2026, 12, 10, 0))
    let shown = try await dao.appointments(matching: AppointmentQuery(range: window))
    #expect(shown.map(\.start) == [TestClock.date(2026, 11, 28, 9)], "only the one before today is left")
    pilot.press("u")
    await pilot.settle()
    #expect(pilot.shows("Undid: changes to \"Standup\" and the occurrences after it"))
    // One series again, as it was: its five occurrences, its rule, no part split off.
    let after = try await freshDAO().getAllAppointments()
    #expect(after.map(\.id) == [series.id])
    #expect(after.first?.recurrence == series.recurrence)
    #expect(after.first?.status == .scheduled)
    let again = try await freshDAO().appointments(matching: AppointmentQuery(range: window))
    #expect(again.map(\.start) == (0..<5).map { TestClock.date(2026, 11, 28 + $0, 9) })
  }

  @Test func cancellingTheWholeSeriesFromAnOccurrence() async throws {
    let (pilot, series) = try await startedOnASeries()
    pilot.press("c", "s")
    await pilot.settle()
    #expect(try await freshDAO().getAppointment(id: series.id).status == .cancelled)
    pilot.press("u")
    await pilot.settle()
    #expect(try await freshDAO().getAppointment(id: series.id).status == .scheduled)
    // r on an occurrence of a cancelled series restores the series (nothing else would).
    pilot.press("c", "s")
    await pilot.settle()
    pilot.press("r")
    await pilot.settle()
    #expect(try await freshDAO().getAppointment(id: series.id).status == .scheduled)
    #expect(pilot.shows("Restored \"Standup\""))
  }

  @Test func escapeAtTheQuestionChangesNothing() async throws {
    let (pilot, series) = try await startedOnASeries()
    pilot.press("c", "esc")
    await pilot.settle()
    #expect(pilot.shows("Kept \"Standup\""))
    pilot.press("e", "esc")
    await pilot.settle()
    #expect(pilot.state.mode == .browsing, "no form opened")
    #expect(try await freshDAO().getAppointment(id: series.id) == series)
  }

  @Test func editingAnOccurrenceMakesAnOverrideAndUndoDeletesIt() async throws {
    let (pilot, series) = try await startedOnASeries()
    pilot.press("e")
    await pilot.settle()
    #expect(pilot.shows("Edit \"Standup\": o this occurrence"))
    pilot.press("o", "ctrl+u")
    await pilot.settle()
    #expect(pilot.shows("Edit this occurrence"))
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
    #expect(pilot.shows("Standup (moved) ✎"), "the changed occurrence carries its marker")
    pilot.resize(rows: 24, columns: 120)
    await pilot.settle()
    #expect(pilot.shows("Changed occurrence of \"Standup\" (was Sun 2026-11-29 09:00)"), "looked up: not on the day")
    pilot.press("u")
    await pilot.settle()
    #expect(try await dao.getAllAppointments().map(\.title) == ["Standup"])
    #expect(try await dao.getAppointment(id: series.id).exceptions.isEmpty)
    #expect(pilot.shows("Standup ↻"), "the occurrence is back as it was")
  }

  @Test func editingThisAndFollowingSplitsAndUndoJoinsAgain() async throws {
    let (pilot, series) = try await startedOnASeries()
    pilot.press("e", "f", "ctrl+u")
    pilot.type("Standup (new)")
    pilot.press("enter")
    await pilot.settle()
    let dao = freshDAO()
    let all = try await dao.getAllAppointments()
    #expect(all.map(\.title).sorted() == ["Standup", "Standup (new)"])
    let rest = try #require(all.first { $0.id != series.id })
    #expect(rest.start == today && rest.recurrence != nil)
    pilot.press("u")
    await pilot.settle()
    let after = try await dao.getAllAppointments()
    #expect(after.map(\.title) == ["Standup"])
    #expect(after.first?.recurrence == series.recurrence, "the series' rule is whole again")
  }

  @Test func undoingASplitKeepsTheChangedOccurrencesAfterIt() async throws {
    let (pilot, series) = try await startedOnASeries()
    let dao = freshDAO()
    let tomorrow = TestClock.date(2026, 11, 30, 0)
    let moved = try await dao.editAppointment(
      EditRequest(id: series.id.description, title: "Standup (Monday)", occurrence: tomorrow)
    )
    await pilot.checkForExternalChanges()  // the series is at its next revision now
    await pilot.settle()
    pilot.press("e", "f", "ctrl+u")
    pilot.type("Standup (new)")
    pilot.press("enter")
    await pilot.settle()
    let splitOff = try await dao.getAppointment(id: moved.id)
    #expect(splitOff.override?.seriesID != series.id, "the split took the changed occurrence along")
    pilot.press("u")
    await pilot.settle()
    let after = try await dao.getAllAppointments()
    #expect(after.map(\.title).sorted() == ["Standup", "Standup (Monday)"], "nothing lost")
    let back = try await dao.getAppointment(id: moved.id)
    #expect(back.override?.seriesID == series.id && back.uid == series.uid)
    let window = DateInterval(start: tomorrow, end: TestClock.date(2026, 12, 1, 0))
    let shown = try await dao.appointments(matching: AppointmentQuery(range: window))
    #expect(shown.map(\.title) == ["Standup (Monday)"], "it replaces its occurrence again")
  }

  @Test func editingTheWholeSeriesFromAnOccurrenceMovesItsStartByAsMuch() async throws {
    let (pilot, series) = try await startedOnASeries()
    pilot.press("e", "s")
    await pilot.settle()
    #expect(pilot.shows("Edit the whole series"))
    pilot.press("ctrl+u")
    pilot.type("Daily")
    pilot.press("tab", "ctrl+w")
    pilot.type("09:30")
    pilot.press("enter")
    await pilot.settle()
    let stored = try await freshDAO().getAppointment(id: series.id)
    #expect(stored.title == "Daily")
    #expect(stored.start == TestClock.date(2026, 11, 28, 9, 30), "the first occurrence moved by 30 minutes too")
    #expect(try await freshDAO().getAllAppointments().count == 1)
    pilot.press("u")
    await pilot.settle()
    let undone = try await freshDAO().getAppointment(id: series.id)
    #expect(undone.title == "Standup" && undone.start == series.start)
  }
}
