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

  @Test("a window asks whether any series reaches its days before it reads the series", arguments: StoreKind.allCases)
  func anySeriesOnTheWindowsDays(kind: StoreKind) async throws {
    try await withStore(kind) { dao in
      func any(_ day: Date) async throws -> Bool {
        let from = day.millisecondsSince1970
        return try await dao.database.read { connection throws(StoreError) in
          try SeriesWeeks.anySeries(from: from, to: from + 86_400_000, connection: connection)
        }
      }
      #expect(try await !any(december(7)))
      _ = try await dao.saveAppointment(yearly(from: december(7, 9)))
      let nextYear = december(7).addingTimeInterval(365 * 86400)
      #expect(try await any(nextYear))
      #expect(try await titles(dao, on: nextYear) == ["Yearly"])
      // Two weeks later, no instance is near (the margin is hours): none, and nothing listed.
      let between = december(21)
      #expect(try await !any(between))
      #expect(try await titles(dao, on: between).isEmpty)
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
      let marks = try #require(SeriesWeeks.marks(of: edited))
      #expect(try await rows(dao, of: edited.id) == Int64(marks.count), "replaced, not added to")
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
    let marks = try #require(SeriesWeeks.marks(of: floatingWeekly()))
    let summer = SeriesWeeks.week(of: 1_811_980_800_000)  // Thu 3 Jun 2027 00:00 UTC: a bucket's start
    #expect(SeriesWeeks.week(of: 1_811_980_800_000 - 1) == summer - 1)
    // Wednesday, the last day (bit 6) of the bucket before, and Thursday, the first of its own.
    #expect(marks.contains { $0.week == summer - 1 && $0.days & (1 << 6) != 0 })
    #expect(marks.contains { $0.week == summer && $0.days & 1 != 0 })
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

  // MARK: - Days (schema 10)

  /// Series of every shape the days must hold: zones east and west of UTC and with half-hour
  /// offsets, floating ones, instances near midnight and lasting days, BYDAY and ordinal
  /// weekdays, BYHOUR, RDATE periods; each finite and endless.
  static func shapes() throws -> [Appointment] {
    let rules = [
      "FREQ=WEEKLY;BYDAY=MO,WE", "FREQ=WEEKLY", "FREQ=MONTHLY;BYDAY=2TU", "FREQ=MONTHLY;BYDAY=-1FR",
      "FREQ=DAILY;BYHOUR=1,23", "FREQ=YEARLY", "FREQ=WEEKLY;INTERVAL=2;BYDAY=SU", "FREQ=MONTHLY;BYMONTHDAY=-1",
      "FREQ=WEEKLY;BYDAY=FR;WKST=SU",
    ]
    let zones = ["Europe/Paris", "America/New_York", "Asia/Kolkata", "Pacific/Auckland", "UTC", ""]
    // Starts near both ends of a UTC day, and durations from a minute to three days.
    let starts: [(Date, TimeInterval)] = [
      (Date(timeIntervalSince1970: 1_796_255_400), 60),  // Thu 3 Dec 2026 00:30 UTC
      (Date(timeIntervalSince1970: 1_796_339_700), 3600),  // Thu 3 Dec 2026 23:55 UTC
      (Date(timeIntervalSince1970: 1_796_544_000), 3 * 86_400),  // Sun 6 Dec 2026 08:00 UTC
    ]
    var shapes: [Appointment] = []
    for (index, rule) in rules.enumerated() {
      for (zoneIndex, zone) in zones.enumerated() {
        let (start, duration) = starts[(index + zoneIndex) % starts.count]
        for count in [12, nil] as [Int?] {
          var text = rule
          if let count { text += ";COUNT=\(count)" }
          shapes.append(
            Appointment(
              title: "\(text) \(zone)",
              start: start,
              end: start.addingTimeInterval(duration),
              created: TestClock.now,
              timeZone: zone,
              recurrence: try Recurrence(rrule: text)
            )
          )
        }
      }
    }
    // RDATEs, one a period of two days: finite, and endless.
    var rdates = try Recurrence(rrule: "FREQ=WEEKLY;BYDAY=TH;COUNT=4")
    rdates.dates = [.period(Date(timeIntervalSince1970: 1_797_897_600), 2 * 86_400)]  // Tue 22 Dec 2026
    var endlessWithRDates = try Recurrence(rrule: "FREQ=WEEKLY;BYDAY=TH")
    endlessWithRDates.dates = [.instant(Date(timeIntervalSince1970: 1_797_897_600))]
    for (title, recurrence) in [("RDATE period", rdates), ("endless RDATE", endlessWithRDates)] {
      shapes.append(
        Appointment(
          title: title,
          start: starts[0].0,
          end: starts[0].0.addingTimeInterval(3600),
          created: TestClock.now,
          timeZone: "Europe/Paris",
          recurrence: recurrence
        )
      )
    }
    return shapes
  }

  /// The UTC days (numbers from the epoch) an instance from `start` to `end` touches.
  func days(from start: Date, to end: Date) -> ClosedRange<Int64> {
    let first = SeriesWeeks.day(of: start.millisecondsSince1970)
    return first...max(first, SeriesWeeks.day(of: max(start.millisecondsSince1970, end.millisecondsSince1970 - 1)))
  }

  @Test("every instance, in any reader's zone, lies on a day its rows hold")
  func everyInstanceIsOnAMarkedDay() throws {
    // Readers at both ends of the offsets (UTC+14, UTC-12) and one with summer time.
    let readers = ["Pacific/Kiritimati", "Etc/GMT+12", "Europe/London"].compactMap(TimeZone.init(identifier:))
    #expect(readers.count == 3)
    var checked = 0
    for series in try Self.shapes() {
      let marks = SeriesWeeks.marks(of: series)
      let wideDays = SeriesWeeks.wideDays(of: series)
      let spans =
        marks == nil
        // A wide series: its first three years, and a year far on (offsets sampled, not assumed).
        ? [
          window(series.start, series.start.addingTimeInterval(3 * 365 * 86_400)),
          window(TestClock.date(2045, 1, 1), TestClock.date(2046, 1, 1)),
        ]
        : [window(series.start.addingTimeInterval(-3 * 86_400), TestClock.date(2030, 1, 1))]
      for reader in readers where series.timeZone.isEmpty || reader == readers[0] {
        for span in spans {
          for instance in series.occurrences(in: span, fallbackZone: reader, includeCancelled: true, overrides: []) {
            for day in days(from: instance.start, to: instance.end) {
              let bit: Int64 = 1 << (day - (day >= 0 ? day / 7 : (day - 6) / 7) * 7)
              if let marks {
                let week = SeriesWeeks.week(of: day * SeriesWeeks.dayMS)
                let held = marks.first { $0.week == week }?.days ?? 0
                #expect(held & bit != 0, "\(series.title): \(instance.start) in \(reader.identifier)")
              } else {
                #expect(wideDays & bit != 0, "\(series.title) (wide): \(instance.start) in \(reader.identifier)")
              }
              checked += 1
            }
          }
        }
      }
    }
    #expect(checked > 5_000, "the shapes have instances to check")
  }

  @Test("a wide series is read on the weekdays its rules allow, a finite one on its instances' days")
  func daysAreNarrow() throws {
    // Bits: the day number modulo 7, bit 0 a Thursday (the epoch's first day).
    let monday: Int64 = 1 << 4
    let tuesday: Int64 = 1 << 5
    let wednesday: Int64 = 1 << 6
    func series(_ rule: String, zone: String = "Europe/Paris", hour: Int = 10) throws -> Appointment {
      let start = TestClock.date(2026, 12, 7, hour)  // Monday 7 December 2026, Paris
      return Appointment(
        title: rule,
        start: start,
        end: start.addingTimeInterval(3600),
        created: TestClock.now,
        timeZone: zone,
        recurrence: try Recurrence(rrule: rule)
      )
    }
    #expect(SeriesWeeks.wideDays(of: try series("FREQ=WEEKLY")) == monday)
    #expect(SeriesWeeks.wideDays(of: try series("FREQ=WEEKLY;BYDAY=MO,WE")) == monday | wednesday)
    #expect(SeriesWeeks.wideDays(of: try series("FREQ=MONTHLY;BYDAY=2TU")) == monday | tuesday, "and DTSTART's")
    // At 00:30 in Paris an instance is on the UTC day before, within the margin of its own.
    #expect(SeriesWeeks.wideDays(of: try series("FREQ=WEEKLY", hour: 0)) == monday | monday >> 1)
    #expect(SeriesWeeks.wideDays(of: try series("FREQ=YEARLY")) == SeriesWeeks.allDays)
    #expect(SeriesWeeks.wideDays(of: try series("FREQ=DAILY;BYDAY=MO")) == monday)
    #expect(SeriesWeeks.wideDays(of: try series("FREQ=HOURLY")) == SeriesWeeks.allDays)
    // Floating: any zone's offset moves it to the days either side.
    #expect(SeriesWeeks.wideDays(of: try series("FREQ=WEEKLY", zone: "")) == monday | monday >> 1 | tuesday)
    // A finite series: each week's row holds its two days, no more.
    let finite = try #require(SeriesWeeks.marks(of: try series("FREQ=WEEKLY;BYDAY=MO,WE;COUNT=6")))
    #expect(finite.count == 3 || finite.count == 4, "\(finite)")
    #expect(finite.allSatisfy { $0.days & ~(monday | wednesday) == 0 }, "\(finite)")
    #expect(finite.reduce(0) { $0 + $1.days.nonzeroBitCount } == 6)
  }

  @Test("a window reads the series with an instance on its days, and no other", arguments: StoreKind.allCases)
  func windowsReadTheirDaysOnly(kind: StoreKind) async throws {
    try await withStore(kind) { dao in
      var saved: [String: AppointmentID] = [:]
      // From Monday 7 December 2026 at 10:00 in Paris; the Wednesdays from the 9th.
      for (rule, day) in [("FREQ=WEEKLY", 7), ("FREQ=WEEKLY;BYDAY=WE;COUNT=4", 9), ("FREQ=DAILY;COUNT=3", 7)] {
        let start = december(day, 10)
        let series = try await dao.saveAppointment(
          Appointment(
            title: rule,
            start: start,
            end: start.addingTimeInterval(3600),
            created: TestClock.now,
            timeZone: "Europe/Paris",
            recurrence: try Recurrence(rrule: rule)
          )
        )
        saved[rule] = series.id
      }
      func read(_ day: Date, days: Double = 1) async throws -> Set<String> {
        let condition = SeriesWeeks.condition(
          from: day.millisecondsSince1970,
          to: day.addingTimeInterval(days * 86_400).millisecondsSince1970
        )
        let ids = try await dao.database.read { connection throws(StoreError) in
          var ids: [String] = []
          try connection.query("SELECT id FROM appointment WHERE \(condition.sql)", condition.bindings) {
            row throws(StoreError) in ids.append(row.string(at: 0))
          }
          return ids
        }
        return Set(saved.filter { ids.contains($0.value.description) }.keys)
      }
      #expect(try await read(december(7)) == ["FREQ=WEEKLY", "FREQ=DAILY;COUNT=3"])
      #expect(try await read(december(9)) == ["FREQ=WEEKLY;BYDAY=WE;COUNT=4", "FREQ=DAILY;COUNT=3"])
      #expect(try await read(december(11)).isEmpty, "a Friday: none of them")
      #expect(try await read(december(14)) == ["FREQ=WEEKLY"])
      #expect(try await read(december(10), days: 7).count == 3, "a week from Thursday: all")
      // Across a bucket's edge (Wednesday to Thursday, 16 to 17 December).
      #expect(try await read(december(16), days: 2) == ["FREQ=WEEKLY;BYDAY=WE;COUNT=4"])
    }
  }
}
