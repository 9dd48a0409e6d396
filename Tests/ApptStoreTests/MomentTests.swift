import ApptCore
import ApptTestSupport
import Foundation
import Testing

@testable import ApptStore

/// An event may end where it starts (RFC 5545: a DTSTART time without DTEND or DURATION):
/// stored with no length on every engine, listed in a window it starts in (its start
/// included), in the day marks, and never in a window that ends at its start.
@Suite struct MomentTests {
  func list(_ dao: AppointmentDAO, _ from: Date, _ to: Date) async throws -> [String] {
    try await dao.appointments(matching: AppointmentQuery(range: window(from, to))).map(\.title)
  }

  @Test(
    "a one-off of no length is stored as it is and listed in the windows it starts in",
    arguments: StoreKind.allCases
  )
  func oneOffMoment(kind: StoreKind) async throws {
    try await withStore(kind) { dao in
      let saved = try await dao.saveAppointment(appointment("Deadline", from: december(1, 10), to: december(1, 10)))
      #expect(saved.duration == 0)
      #expect(try await dao.getAllAppointments().map(\.duration) == [0])
      #expect(try await list(dao, december(1, 10), december(1, 11)) == ["Deadline"])
      #expect(try await list(dao, december(1, 9), december(1, 10, 1)) == ["Deadline"])
      #expect(try await list(dao, december(1, 9), december(1, 10)) == [])
      #expect(try await list(dao, december(1, 10, 1), december(1, 12)) == [])
      var marks = await dao.observeBusyDays(in: window(december(1), december(3))).makeAsyncIterator()
      let days = try #require(await marks.next()).items.map(\.id)
      #expect(days == [TestClock.clock.dayNumber(of: december(1))])
    }
  }

  @Test("a series of moments lists each occurrence at its start, the last one too", arguments: StoreKind.allCases)
  func seriesOfMoments(kind: StoreKind) async throws {
    try await withStore(kind) { dao in
      let daily = Appointment(
        title: "Pill",
        start: december(1, 9),
        end: december(1, 9),
        created: TestClock.now,
        timeZone: "Europe/Paris",
        recurrence: Recurrence(frequency: .daily, count: 3)
      )
      try await dao.saveAppointment(daily)
      let starts = try await dao.appointments(matching: AppointmentQuery(range: window(december(1), december(8))))
        .map(\.start)
      #expect(starts == [december(1, 9), december(2, 9), december(3, 9)])
      #expect(try await list(dao, december(3, 9), december(3, 10)) == ["Pill"])
      #expect(try await list(dao, december(3, 8), december(3, 9)) == [])
    }
  }

  @Test("an imported event without DTEND has no length on every engine", arguments: StoreKind.allCases)
  func importedWithoutEnd(kind: StoreKind) async throws {
    try await withStore(kind) { dao in
      let text = """
        BEGIN:VCALENDAR\r
        VERSION:2.0\r
        PRODID:-//test//EN\r
        BEGIN:VEVENT\r
        UID:moment-1\r
        DTSTAMP:20261101T000000Z\r
        DTSTART:20261201T090000Z\r
        SUMMARY:Call back\r
        END:VEVENT\r
        END:VCALENDAR\r

        """
      let report = try await dao.importCalendar(bytes: Array(text.utf8), clock: TestClock.clock, partial: false)
      #expect(report.read.problems.isEmpty)
      let stored = try await dao.getAllAppointments()
      #expect(stored.map(\.start) == [Date(timeIntervalSince1970: 1_796_115_600)])
      #expect(stored.map(\.duration) == [0])
    }
  }
}
