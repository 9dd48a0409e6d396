import ApptCore
import ApptTestSupport
import Foundation
import Testing

@testable import ApptStore

/// `series_week` (schema 6): a window reads only the series listed in its weeks, so the list
/// must follow every write of a series (an edit that moves it, one that ends it, a delete),
/// and must hold every week an instance can touch in any reader's zone.
@Suite struct SeriesWeeksTests {
  func yearly(from start: Date, count: Int = 3, zone: String = "Europe/Paris") -> Appointment {
    Appointment(
      title: "Yearly",
      start: start,
      end: start.addingTimeInterval(3600),
      created: TestClock.now,
      timeZone: zone,
      recurrence: Recurrence(frequency: .yearly, count: count)
    )
  }

  func titles(_ dao: AppointmentDAO, on day: Date) async throws -> [String] {
    try await dao.appointments(matching: AppointmentQuery(range: window(day, day.addingTimeInterval(86400))))
      .map(\.title)
  }

  func rows(_ dao: AppointmentDAO, of id: AppointmentID) async throws -> Int64? {
    try await dao.database.read { connection throws(StoreError) in
      try connection.scalar("SELECT count(*) FROM series_week WHERE series_id = ?", [.text(id.description)])?.int64
    }
  }

  @Test("an edit that moves a series moves its weeks", arguments: StoreKind.allCases)
  func editMovesTheWeeks(kind: StoreKind) async throws {
    try await withStore(kind) { dao in
      var series = try await dao.saveAppointment(yearly(from: december(7, 9)))
      #expect(try await titles(dao, on: december(7).addingTimeInterval(365 * 86400)) == ["Yearly"])
      // Two weeks later: the old weeks no longer hold it, the new ones do.
      series.start = december(21, 9)
      series.end = december(21, 10)
      series = try await dao.saveAppointment(series)
      #expect(try await titles(dao, on: december(21).addingTimeInterval(365 * 86400)) == ["Yearly"])
      #expect(try await titles(dao, on: december(7).addingTimeInterval(365 * 86400)).isEmpty)
      // The edit through the DAO's own door, too.
      let edited = try await dao.editAppointment(
        EditRequest(id: series.id.description, start: december(28, 9))
      )
      #expect(try await titles(dao, on: TestClock.date(2028, 12, 28)) == ["Yearly"])
      let weeks = try #require(SeriesWeeks.weeks(of: edited))
      #expect(try await rows(dao, of: edited.id) == Int64(weeks.count), "replaced, not added to")
    }
  }

  @Test("a series that stops repeating, or is deleted, leaves no weeks", arguments: StoreKind.allCases)
  func endedAndDeletedSeriesLeaveNoWeeks(kind: StoreKind) async throws {
    try await withStore(kind) { dao in
      var series = try await dao.saveAppointment(yearly(from: december(7, 9)))
      #expect(try await rows(dao, of: series.id) ?? 0 > 0)
      series.recurrence = nil
      series = try await dao.saveAppointment(series)
      #expect(try await rows(dao, of: series.id) == 0)
      let other = try await dao.saveAppointment(yearly(from: december(8, 9)))
      #expect(try await rows(dao, of: other.id) ?? 0 > 0)
      try await dao.deleteAppointment(id: other.id)
      #expect(try await rows(dao, of: other.id) == 0, "the delete trigger")
    }
  }

  @Test("a series without end, or longer than five years, is read by every window", arguments: StoreKind.allCases)
  func wideSeriesAreAlwaysRead(kind: StoreKind) async throws {
    try await withStore(kind) { dao in
      let endless = try await dao.saveAppointment(
        Appointment(
          title: "Endless",
          start: december(7, 9),
          end: december(7, 10),
          created: TestClock.now,
          timeZone: "Europe/Paris",
          recurrence: Recurrence(frequency: .weekly)
        )
      )
      let long = try await dao.saveAppointment(yearly(from: december(8, 9), count: 30))
      #expect(try await rows(dao, of: endless.id) == 1)
      #expect(try await rows(dao, of: long.id) == 1, "one row for a wide series, not 30 years of weeks")
      let monday2040 = TestClock.date(2040, 12, 3)  // a Monday
      #expect(try await titles(dao, on: monday2040) == ["Endless"])
      #expect(try await titles(dao, on: TestClock.date(2050, 12, 8)) == ["Yearly"])
    }
  }

  /// A floating series, monthly at 00:30 on the 3rd from Thursday 3 December 2026, eight
  /// times. Thursday 3 June 2027 00:30 is in the first hour of a bucket (7-day spans from the
  /// epoch, a Thursday); read in London, that instance is at 23:30 UTC on Wednesday (summer
  /// time), in the bucket before, which no other instance touches: a list that left out the
  /// margin would miss it.
  static let floatingStart = Date(timeIntervalSince1970: 1_796_257_800)  // Thu 3 Dec 2026 00:30 UTC

  func floatingWeekly() -> Appointment {
    Appointment(
      title: "Floating",
      start: Self.floatingStart,
      end: Self.floatingStart.addingTimeInterval(1800),
      created: TestClock.now,
      timeZone: "",
      recurrence: Recurrence(frequency: .monthly, count: 8)
    )
  }

  @Test("a floating series is listed in the weeks it touches in any zone")
  func floatingSeriesCoverEveryZone() throws {
    let weeks = try #require(SeriesWeeks.weeks(of: floatingWeekly()))
    let summer = SeriesWeeks.week(of: 1_811_980_800_000)  // Thu 3 Jun 2027 00:00 UTC: a bucket's start
    #expect(SeriesWeeks.week(of: 1_811_980_800_000 - 1) == summer - 1)
    #expect(weeks.contains(summer - 1) && weeks.contains(summer))
  }

  @Test("a floating series is found where the reader's zone puts it", arguments: StoreKind.allCases)
  func floatingSeriesFoundInTheReadersZone(kind: StoreKind) async throws {
    try await withSharedStore(kind) { store in
      let london = try #require(TimeZone(identifier: "Europe/London"))
      let dao = AppointmentDAO(service: store.dao().service, clock: Clock.fixed(TestClock.now, timeZone: london))
      _ = try await dao.saveAppointment(floatingWeekly())
      // 00:00-01:00 on Thursday 3 June 2027 in London (summer time): 23:00-24:00 UTC the day before.
      let hour = DateInterval(start: Date(timeIntervalSince1970: 1_811_977_200), duration: 3600)
      let found = try await dao.appointments(matching: AppointmentQuery(range: hour)).map(\.start)
      #expect(found == [Date(timeIntervalSince1970: 1_811_979_000)], "00:30 BST, 23:30 UTC on Wednesday")
    }
  }
}
