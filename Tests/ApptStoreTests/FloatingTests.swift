import ApptCore
import ApptTestSupport
import Foundation
import Testing

@testable import ApptStore

/// Floating events (a DATE-TIME without a zone) keep their wall-clock time in every zone: a
/// process in another zone moves them to its own, and they write back as they came.
@Suite struct FloatingTests {
  static let utc = TimeZone(identifier: "UTC") ?? .gmt
  static let tokyo = TimeZone(identifier: "Asia/Tokyo") ?? .gmt

  /// A phone's floating 09:00-10:00 on Tuesday 8 December 2026, weekly three times, its
  /// second occurrence moved to 11:00 (floating too).
  static let text = """
    BEGIN:VCALENDAR\r
    VERSION:2.0\r
    PRODID:-//phone//EN\r
    BEGIN:VEVENT\r
    UID:float-1@phone\r
    DTSTAMP:20261201T120000Z\r
    DTSTART:20261208T090000\r
    DTEND:20261208T100000\r
    RRULE:FREQ=WEEKLY;COUNT=3\r
    SUMMARY:Standup\r
    END:VEVENT\r
    BEGIN:VEVENT\r
    UID:float-1@phone\r
    DTSTAMP:20261201T120000Z\r
    RECURRENCE-ID:20261215T090000\r
    DTSTART:20261215T110000\r
    DTEND:20261215T120000\r
    SUMMARY:Standup (late)\r
    END:VEVENT\r
    END:VCALENDAR\r

    """

  func dao(_ store: TestDatabase, _ zone: TimeZone) -> AppointmentDAO {
    AppointmentDAO(service: store.dao().service, clock: Clock.fixed(TestClock.now, timeZone: zone))
  }

  func wallClock(_ date: Date, _ zone: TimeZone) -> String {
    var calendar = Calendar(identifier: .gregorian)
    calendar.timeZone = zone
    let c = calendar.dateComponents([.year, .month, .day, .hour, .minute], from: date)
    return String(format: "%04d%02d%02dT%02d%02d00", c.year ?? 0, c.month ?? 0, c.day ?? 0, c.hour ?? 0, c.minute ?? 0)
  }

  @Test("a floating event keeps its wall-clock time in another zone, and its text", arguments: StoreKind.allCases)
  func followsTheZone(kind: StoreKind) async throws {
    try await withSharedStore(kind) { store in
      let inUTC = dao(store, Self.utc)
      _ = try await inUTC.importAppointments(
        ICalendar.read(Self.text, clock: .fixed(TestClock.now, timeZone: Self.utc)).appointments
      )
      let before = try await inUTC.getAllAppointments().sorted { $0.start < $1.start }
      let calendar = try #require(before.first?.calendarID)
      let ics = try #require(try await inUTC.localItem(calendarID: calendar, uid: "float-1@phone")).ics
      #expect(try await inUTC.followClockZone() == 0, "nothing to move in its own zone")
      let inTokyo = dao(store, Self.tokyo)
      #expect(try await inTokyo.followClockZone() == 2)
      let after = try await inTokyo.getAllAppointments().sorted { $0.start < $1.start }
      #expect(after.map(\.id) == before.map(\.id) && after.map(\.revision) == before.map(\.revision))
      #expect(after.map { wallClock($0.start, Self.tokyo) } == ["20261208T090000", "20261215T110000"])
      #expect(after.allSatisfy { $0.timeZone == "Asia/Tokyo" })
      #expect(
        after.last?.override?.recurrenceID == Date(timeIntervalSince1970: 1_797_292_800),
        "09:00 Tokyo, 00:00 UTC"
      )
      #expect(try await inTokyo.localItem(calendarID: calendar, uid: "float-1@phone")?.ics == ics, "written as it came")
      #expect(try await inTokyo.followClockZone() == 0, "once")
      // An occurrence in the window where Tokyo's 09:00 is.
      let day = DateInterval(start: Date(timeIntervalSince1970: 1_797_292_800 - 7 * 86_400), duration: 3600)
      #expect(try await inTokyo.appointments(matching: AppointmentQuery(range: day)).map(\.title) == ["Standup"])
    }
  }

  @Test("a time X-WR-TIMEZONE placed is that zone's, not floating: it stays", arguments: StoreKind.allCases)
  func calendarZoneTimesStay(kind: StoreKind) async throws {
    try await withSharedStore(kind) { store in
      let text = Self.text.replacingOccurrences(
        of: "PRODID:-//phone//EN\r\n",
        with: "PRODID:-//phone//EN\r\nX-WR-TIMEZONE:America/New_York\r\n"
      )
      let inUTC = dao(store, Self.utc)
      _ = try await inUTC.importAppointments(
        ICalendar.read(text, clock: .fixed(TestClock.now, timeZone: Self.utc)).appointments
      )
      let before = try await inUTC.getAllAppointments().sorted { $0.start < $1.start }
      // 09:00 in New York: 14:00 UTC.
      #expect(before.first?.start == Date(timeIntervalSince1970: 1_796_738_400))
      #expect(try await dao(store, Self.tokyo).followClockZone() == 0)
      #expect(try await dao(store, Self.tokyo).getAllAppointments().sorted { $0.start < $1.start } == before)
    }
  }

  @Test("the probe for floating events in another zone reads their own index, not the table")
  func probeReadsTheFloatingIndex() async throws {
    let dao = AppointmentDAO(location: .inMemory, clock: TestClock.clock)
    let plan = try await dao.database.read { connection throws(StoreError) in
      var lines: [String] = []
      try connection.query(
        "EXPLAIN QUERY PLAN SELECT 1 FROM appointment WHERE \(AppointmentDAO.floatingElsewhere) LIMIT 1",
        [.text("UTC")]
      ) { row throws(StoreError) in lines.append(row.string(at: 3)) }
      return lines
    }
    #expect(plan.contains { $0.contains("USING INDEX appointment_floating") }, "\(plan)")
  }
}
