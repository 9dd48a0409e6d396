import ApptCore
import ApptTestSupport
import Foundation
import Testing

@testable import ApptStore

/// A series whose start moves takes its changed and cancelled occurrences with it: each
/// RECURRENCE-ID and EXDATE moves by the same wall-clock change, so the series keeps its
/// number of occurrences (before, a 5-occurrence series listed 7 after a move).
@Suite struct SeriesShiftTests {
  /// Daily at 09:00 Paris from Monday 7 December 2026, five times; the 8th changed (title
  /// only), the 9th cancelled, the 10th moved to 15:00.
  func seriesWithChanges(_ dao: AppointmentDAO) async throws -> Appointment {
    let series = try await dao.saveAppointment(
      Appointment(
        title: "Standup",
        start: december(7, 9),
        end: december(7, 9, 30),
        created: TestClock.now,
        timeZone: "Europe/Paris",
        recurrence: Recurrence(frequency: .daily, count: 5),
        uid: "standup@example.com"
      )
    )
    let id = series.id.description
    try await dao.editAppointment(EditRequest(id: id, title: "Standup (long)", occurrence: december(8)))
    try await dao.cancelOccurrence(id: series.id, on: december(9))
    try await dao.editAppointment(EditRequest(id: id, start: december(10, 15), occurrence: december(10)))
    return try await dao.getAppointment(id: series.id)
  }

  func shown(_ dao: AppointmentDAO) async throws -> [String] {
    let query = AppointmentQuery(range: window(december(1), december(31)), includeCancelled: true)
    let formatter = AppointmentFormatter(clock: TestClock.clock)
    return try await dao.appointments(matching: query).map { row in
      "\(formatter.dayAndTime(row.start)) \(row.title)\(row.status == .cancelled ? " (cancelled)" : "")"
    }
  }

  func overrides(_ dao: AppointmentDAO) async throws -> [Appointment] {
    try await dao.getAllAppointments().filter { $0.override != nil }.sorted {
      ($0.override?.recurrenceID ?? .distantPast) < ($1.override?.recurrenceID ?? .distantPast)
    }
  }

  @Test(arguments: StoreKind.allCases)
  func aSeriesMovedADayAndAnHourLaterTakesItsOccurrencesAlong(kind: StoreKind) async throws {
    try await withStore(kind) { dao in
      let series = try await seriesWithChanges(dao)
      try await dao.editAppointment(EditRequest(id: series.id.description, start: december(8, 10)))
      #expect(
        try await shown(dao) == [
          "Tue 2026-12-08 10:00 Standup",
          "Wed 2026-12-09 10:00 Standup (long)",
          "Thu 2026-12-10 10:00 Standup (cancelled)",
          "Thu 2026-12-10 15:00 Standup",
          "Sat 2026-12-12 10:00 Standup",
        ]
      )
      let moved = try await dao.getAppointment(id: series.id)
      #expect(moved.exceptions == [december(10, 10)])
      // The changed one kept its time with its occurrence; the moved one stays where it was put.
      #expect(try await overrides(dao).map(\.override?.recurrenceID) == [december(9, 10), december(11, 10)])
      #expect(try await overrides(dao).map(\.start) == [december(9, 10), december(10, 15)])
      // iCalendar says the same: each RECURRENCE-ID names an occurrence of the moved series.
      let text = ICalendar.write(try await dao.exportAppointments(in: nil), fallbackZone: TestClock.paris)
      let lines = text.components(separatedBy: "\r\n")
      #expect(
        lines.filter { $0.hasPrefix("RECURRENCE-ID") || $0.hasPrefix("EXDATE") }.sorted() == [
          "EXDATE;TZID=Europe/Paris:20261210T100000",
          "RECURRENCE-ID;TZID=Europe/Paris:20261209T100000",
          "RECURRENCE-ID;TZID=Europe/Paris:20261211T100000",
        ]
      )
    }
  }

  @Test(arguments: StoreKind.allCases)
  func puttingTheOlderVersionBackMovesThemBack(kind: StoreKind) async throws {
    try await withStore(kind) { dao in
      let before = try await seriesWithChanges(dao)
      let overridesBefore = try await overrides(dao).map { [$0.override?.recurrenceID, $0.start] }
      let shownBefore = try await shown(dao)
      try await dao.editAppointment(EditRequest(id: before.id.description, start: december(7, 11)))
      // Undo: the calendar saves the version it had over the one stored now.
      var older = before
      older.revision = try await dao.getAppointment(id: before.id).revision
      try await dao.saveAppointment(older)
      #expect(try await shown(dao) == shownBefore)
      #expect(try await overrides(dao).map { [$0.override?.recurrenceID, $0.start] } == overridesBefore)
      #expect(try await dao.getAppointment(id: before.id).exceptions == before.exceptions)
    }
  }

  /// Across a change of offset the wall-clock time is what moves: 09:00 becomes 10:00 on
  /// both sides of the last Sunday of March.
  @Test(arguments: StoreKind.allCases)
  func theWallClockMovesAcrossAChangeOfOffset(kind: StoreKind) async throws {
    try await withStore(kind) { dao in
      let start = TestClock.date(2027, 3, 27, 9)
      let series = try await dao.saveAppointment(
        Appointment(
          title: "Swim",
          start: start,
          end: start.addingTimeInterval(3600),
          created: TestClock.now,
          timeZone: "Europe/Paris",
          recurrence: Recurrence(frequency: .daily, count: 4)
        )
      )
      try await dao.cancelOccurrence(id: series.id, on: TestClock.date(2027, 3, 29))
      try await dao.editAppointment(EditRequest(id: series.id.description, start: TestClock.date(2027, 3, 27, 10)))
      #expect(try await dao.getAppointment(id: series.id).exceptions == [TestClock.date(2027, 3, 29, 10)])
    }
  }

  /// "This and following" from the first occurrence is the whole series, changed in place.
  @Test(arguments: StoreKind.allCases)
  func thisAndFollowingFromTheFirstOccurrenceTakesThemAlong(kind: StoreKind) async throws {
    try await withStore(kind) { dao in
      let series = try await seriesWithChanges(dao)
      let whole = try await dao.editAppointment(
        EditRequest(id: series.id.description, start: december(7, 8), occurrence: december(7), andFollowing: true)
      )
      #expect(whole.id == series.id)
      #expect(
        try await shown(dao) == [
          "Mon 2026-12-07 08:00 Standup",
          "Tue 2026-12-08 08:00 Standup (long)",
          "Wed 2026-12-09 08:00 Standup (cancelled)",
          "Thu 2026-12-10 15:00 Standup",
          "Fri 2026-12-11 08:00 Standup",
        ]
      )
      #expect(try await dao.getAppointment(id: series.id).exceptions == [december(9, 8)])
    }
  }
}
