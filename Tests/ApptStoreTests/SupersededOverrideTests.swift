import ApptCore
import ApptTestSupport
import Foundation
import Testing

@testable import ApptStore

/// A file or a server that still carries a changed occurrence its newer series took back
/// (Tests/corpus/rie's issue_148_edge_case_1, issue_163_deleted_modification and
/// issue_253_additional_recurrence_id): the series says what there is, as Google and
/// recurring-ical-events show it.
@Suite struct SupersededOverrideTests {
  /// A weekly series from Monday 7 December 2026 at 09:00 (SEQUENCE 2, `seriesLines` added)
  /// and a change of its 21 December occurrence made at SEQUENCE `overrideSequence`.
  func file(seriesLines: [String], overrideSequence: Int = 1) -> [UInt8] {
    let lines =
      [
        "BEGIN:VCALENDAR", "VERSION:2.0", "PRODID:test",
        "BEGIN:VEVENT", "UID:weekly", "SEQUENCE:2", "SUMMARY:Weekly",
        "DTSTART;TZID=Europe/Paris:20261207T090000", "DTEND;TZID=Europe/Paris:20261207T100000",
      ] + seriesLines + [
        "END:VEVENT",
        "BEGIN:VEVENT", "UID:weekly", "SEQUENCE:\(overrideSequence)", "SUMMARY:Weekly (edited)",
        "RECURRENCE-ID;TZID=Europe/Paris:20261221T090000",
        "DTSTART;TZID=Europe/Paris:20261221T110000", "DTEND;TZID=Europe/Paris:20261221T120000",
        "END:VEVENT", "END:VCALENDAR",
      ]
    return Array((lines.joined(separator: "\r\n") + "\r\n").utf8)
  }

  func titles(_ dao: AppointmentDAO) async throws -> [String] {
    let query = AppointmentQuery(range: window(TestClock.date(2026, 12, 1), TestClock.date(2027, 2, 1)))
    return try await dao.appointments(matching: query).map(\.title)
  }

  @Test(
    "an occurrence the newer series excludes (EXDATE) is not shown, whatever its change's SEQUENCE",
    arguments: StoreKind.allCases
  )
  func excludedByExdate(kind: StoreKind) async throws {
    for sequence in [1, 3] {
      try await withStore(kind) { dao in
        let bytes = file(
          seriesLines: ["RRULE:FREQ=WEEKLY;COUNT=4", "EXDATE;TZID=Europe/Paris:20261221T090000"],
          overrideSequence: sequence
        )
        let imported = try await dao.importCalendar(bytes: bytes, clock: TestClock.clock, partial: false)
        #expect(imported.superseded == 1)
        #expect(try await titles(dao) == ["Weekly", "Weekly", "Weekly"], "SEQUENCE \(sequence)")
      }
    }
  }

  @Test(
    "an older change of an occurrence the newer series no longer makes (UNTIL before it) is not shown",
    arguments: StoreKind.allCases
  )
  func droppedByUntil(kind: StoreKind) async throws {
    try await withStore(kind) { dao in
      let bytes = file(seriesLines: ["RRULE:FREQ=WEEKLY;UNTIL=20261215T000000Z"])
      let imported = try await dao.importCalendar(bytes: bytes, clock: TestClock.clock, partial: false)
      #expect(imported.superseded == 1)
      #expect(try await titles(dao) == ["Weekly", "Weekly"])
    }
  }

  @Test(
    "a change of an occurrence the series still has is kept, and one from a newer SEQUENCE too",
    arguments: StoreKind.allCases
  )
  func keptWhileTheSeriesHasIt(kind: StoreKind) async throws {
    try await withStore(kind) { dao in
      let imported = try await dao.importCalendar(
        bytes: file(seriesLines: ["RRULE:FREQ=WEEKLY;COUNT=4"]),
        clock: TestClock.clock,
        partial: false
      )
      #expect(imported.superseded == 0)
      #expect(try await titles(dao) == ["Weekly", "Weekly", "Weekly (edited)", "Weekly"])
    }
    try await withStore(kind) { dao in
      // Newer than the series that stopped before it: a change made after, kept.
      let bytes = file(seriesLines: ["RRULE:FREQ=WEEKLY;UNTIL=20261215T000000Z"], overrideSequence: 3)
      let imported = try await dao.importCalendar(bytes: bytes, clock: TestClock.clock, partial: false)
      #expect(imported.superseded == 0)
      #expect(try await titles(dao) == ["Weekly", "Weekly", "Weekly (edited)"])
    }
  }
}
