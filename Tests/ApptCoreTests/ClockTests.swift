import ApptCore
import Foundation
import Testing

/// The process's clock from its environment: `APPT_NOW` and `TZ`.
@Suite("Clock from the environment")
struct ClockTests {
  static let berlin = TimeZone(identifier: "Europe/Berlin") ?? .gmt
  /// A system zone no test input names, so "fell back to the system zone" is visible.
  static let system = TimeZone(identifier: "Asia/Tokyo") ?? .gmt

  static func utc(_ text: String) -> Date? { try? Date(text, strategy: .iso8601) }

  // MARK: - APPT_NOW

  @Test(
    "APPT_NOW forms",
    arguments: [
      ("2026-12-01T09:51:00", "2026-12-01T08:51:00Z"),  // local: Berlin is +01:00 in December
      ("2026-12-01T09:51", "2026-12-01T08:51:00Z"),  // seconds-less
      ("2026-12-01 09:51", "2026-12-01T08:51:00Z"),
      ("2026-12-01T09:51:30Z", "2026-12-01T09:51:30Z"),
      ("2026-12-01T09:51:30z", "2026-12-01T09:51:30Z"),
      ("2026-12-01T09:51:30+05:30", "2026-12-01T04:21:30Z"),
      ("2026-12-01T09:51-0800", "2026-12-01T17:51:00Z"),
      ("2026-12-01T09:51+02", "2026-12-01T07:51:00Z"),
      ("2026-07-01T09:51", "2026-07-01T07:51:00Z"),  // summer time: +02:00
      ("2026-12-31T23:59:10", "2026-12-31T22:59:10Z"),
      ("2028-02-29T00:00:30", "2028-02-28T23:00:30Z"),
    ]
  )
  func readsNow(text: String, expected: String) throws {
    let parsed = try #require(Clock.parseNow(text, in: Self.berlin), "\(text)")
    #expect(parsed == Self.utc(expected), "\(text)")
  }

  @Test("fractions of a second are kept")
  func fraction() throws {
    let parsed = try #require(Clock.parseNow("2026-12-01T09:51:00.250Z", in: Self.berlin))
    let whole = try #require(Self.utc("2026-12-01T09:51:00Z"))
    #expect(parsed.timeIntervalSince(whole) == 0.25)
  }

  @Test(
    "unreadable APPT_NOW values",
    arguments: [
      "now", "2026-12-01", "09:51", "2026-12-01T", "2026-12-01T9:51", "2026-12-01T09:5",
      "2026-02-30T10:00", "2026-13-01T10:00", "2026-12-01T24:00", "2026-12-01T10:60",
      "2026-12-01T10:00:60", "2026-12-01T10:00+19:00", "2026-12-01T10:00+01:60", "2026-12-01T10:00 Z",
      " 2026-12-01T10:00", "2026-12-01T10:00\n", "1969-12-31T23:59", "12026-12-01T10:00",
      "2026-12-01T10:00:00.", "2026-12-01T10:00Europe/Berlin", "２０２６-12-01T10:00",
    ]
  )
  func refusesNow(text: String) {
    #expect(Clock.parseNow(text, in: Self.berlin) == nil, "\(text.debugDescription)")
    #expect(throws: Clock.SetupError.unreadableNow(text)) {
      try Clock.fromEnvironment(["APPT_NOW": text, "TZ": "Europe/Berlin"], systemZone: Self.system)
    }
  }

  /// The clocks change in Berlin on 2027-03-28 at 02:00 (to 03:00) and on 2027-10-31 at 03:00
  /// (back to 02:00): the same rule as WHEN values, so `today 02:30` and APPT_NOW agree.
  @Test("a local APPT_NOW in a DST gap moves forward; in an overlap it is the first one")
  func daylightSaving() throws {
    #expect(Clock.parseNow("2027-03-28T01:59", in: Self.berlin) == Self.utc("2027-03-28T00:59:00Z"))
    #expect(Clock.parseNow("2027-03-28T02:30", in: Self.berlin) == Self.utc("2027-03-28T01:30:00Z"))  // = 03:30 CEST
    #expect(Clock.parseNow("2027-03-28T03:00", in: Self.berlin) == Self.utc("2027-03-28T01:00:00Z"))
    #expect(Clock.parseNow("2027-10-31T02:30", in: Self.berlin) == Self.utc("2027-10-31T00:30:00Z"))  // CEST, first
    #expect(Clock.parseNow("2027-10-31T02:30+01:00", in: Self.berlin) == Self.utc("2027-10-31T01:30:00Z"))
    let clock = Clock.fixed(try #require(Self.utc("2027-03-28T00:00:00Z")), timeZone: Self.berlin)
    let when = When(day: clock.today, minutes: 150)
    #expect(when.instant(in: clock) == Clock.parseNow("2027-03-28T02:30", in: Self.berlin))
  }

  @Test("the clock starts at APPT_NOW and runs on by the elapsed time")
  func runs() throws {
    let start = try #require(Self.utc("2026-12-31T22:59:10Z"))
    let elapsed = Elapsed()
    let clock = Clock.running(from: start, timeZone: Self.berlin, elapsed: { elapsed.seconds })
    #expect(clock.now == start)
    #expect(clock.today == Self.utc("2026-12-30T23:00:00Z"))
    elapsed.seconds = 60  // 00:00:10 on New Year's Day in Berlin: today follows
    #expect(clock.now == start.addingTimeInterval(60))
    #expect(clock.today == Self.utc("2026-12-31T23:00:00Z"))
  }

  @Test("APPT_NOW starts a running clock in the TZ zone; unset or empty, the real time")
  func fromEnvironment() throws {
    let clock = try Clock.fromEnvironment(
      ["APPT_NOW": "2026-12-01T09:51", "TZ": "Europe/Berlin"],
      systemZone: Self.system
    )
    #expect(clock.timeZone.identifier == "Europe/Berlin")
    let now = clock.now.timeIntervalSince(try #require(Self.utc("2026-12-01T08:51:00Z")))
    #expect(now >= 0 && now < 3600, "the clock starts at APPT_NOW and runs at the real pace")
    for environment in [[:], ["APPT_NOW": ""]] {
      let real = try Clock.fromEnvironment(environment, systemZone: Self.system)
      #expect(real.timeZone == Self.system)
      #expect(abs(real.now.timeIntervalSinceNow) < 3600, "\(environment): the real time")
    }
  }

  // MARK: - TZ

  @Test(
    "TZ values appt honours",
    arguments: [
      ("Europe/Berlin", "Europe/Berlin"),
      (":Europe/Berlin", "Europe/Berlin"),  // glibc's leading colon
      ("/usr/share/zoneinfo/Asia/Tokyo", "Asia/Tokyo"),
      (":/usr/share/zoneinfo/America/New_York", "America/New_York"),
      ("America/Argentina/Buenos_Aires", "America/Argentina/Buenos_Aires"),
      ("Etc/GMT+3", "Etc/GMT+3"),  // UTC-3 for glibc and for Foundation
      ("Etc/UTC", "Etc/UTC"),
      ("UTC", "GMT"),
      ("", "GMT"),  // glibc: an empty TZ is UTC
      (":", "Asia/Tokyo"),  // glibc: the system default
    ]
  )
  func honoursTZ(value: String, identifier: String) throws {
    let zone = try Clock.timeZone(fromTZ: value, system: Self.system)
    #expect(zone.identifier == identifier, "\(value)")
    let clock = try Clock.fromEnvironment(["TZ": value], systemZone: Self.system)
    #expect(clock.timeZone.identifier == identifier, "the clock's zone is the one TZ names")
  }

  @Test("Etc/GMT+3 is three hours behind UTC, as the C library reads it")
  func posixSign() throws {
    let zone = try Clock.timeZone(fromTZ: "Etc/GMT+3", system: Self.system)
    #expect(zone.secondsFromGMT() == -3 * 3600)
  }

  @Test("TZ unset is the system zone")
  func unsetTZ() throws {
    #expect(try Clock.timeZone(fromTZ: nil, system: Self.system) == Self.system)
  }

  /// Each of these was read as UTC (or, `GMT+3`, as UTC+3 where glibc means UTC-3).
  @Test(
    "TZ values appt refuses rather than reading another zone",
    arguments: [
      "Nowhere/Foo", "EST5EDT,M3.2.0,M11.1.0", "CET-1CEST,M3.5.0,M10.5.0/3", "GMT+3", "UTC+1", "GMT+03:00",
      "europe/berlin", "Europe/Berlin/", "Europe//Berlin", " Europe/Berlin", "Europe/Berlin ", "../Europe/Berlin",
      "/etc/localtime", "/usr/share/zoneinfo/../zoneinfo/Europe/Berlin", "/tmp/Europe/Berlin", "::Europe/Berlin",
      "posixrules", "localtime", "Etc/Unknown", "Europe/Berlin\u{1b}[31m", "UTC0",
    ]
  )
  func refusesTZ(value: String) {
    #expect(throws: Clock.SetupError.unknownTimeZone(value)) {
      try Clock.timeZone(fromTZ: value, system: Self.system)
    }
    #expect(throws: Clock.SetupError.unknownTimeZone(value)) {
      try Clock.fromEnvironment(["TZ": value, "APPT_NOW": "2026-12-01T09:51"], systemZone: Self.system)
    }
  }

  @Test("the messages name the variable and its value, controls escaped")
  func messages() {
    #expect(
      Clock.SetupError.unknownTimeZone("Nowhere/Foo").message
        == "TZ=Nowhere/Foo is not a time zone name appt knows (use an IANA name such as Europe/Berlin, or UTC)"
    )
    #expect(Clock.SetupError.unknownTimeZone("A\u{1b}[2J").message.hasPrefix("TZ=A^[[2J is not"))
    #expect(
      Clock.SetupError.unreadableNow("soon").message.hasPrefix("APPT_NOW=soon is not a date and time appt can read")
    )
  }
}

/// A settable elapsed time for a running clock.
private final class Elapsed: Sendable {
  private let value = Locked<TimeInterval>(0)
  var seconds: TimeInterval {
    get { value.withLock { $0 } }
    set { value.withLock { $0 = newValue } }
  }
}

/// `Clock.startOfDay` and `Clock.day(_:after:)` count on day numbers, not through Foundation's
/// `Calendar`: held to it here, in every zone this machine knows, at and around each change of
/// offset from 1970 to 2037 (midnights skipped or repeated, whole days skipped, offsets by the
/// quarter hour).
@Suite("Clock's days")
struct ClockDayTests {
  @Test("a day's first instant and the days either side are Calendar's, around every change of offset")
  func daysAgreeWithCalendar() throws {
    let end = Date(timeIntervalSince1970: 2_145_916_800)  // 2038-01-01
    var compared = 0
    var skippedMidnights = 0
    for identifier in TimeZone.knownTimeZoneIdentifiers {
      let zone = try #require(TimeZone(identifier: identifier))
      let clock = Clock.fixed(Date(timeIntervalSince1970: 0), timeZone: zone)
      let calendar = clock.calendar
      var transition = zone.nextDaylightSavingTimeTransition(after: Date(timeIntervalSince1970: 0))
      // Zones that never change offset still get a date checked. Around each change: hours
      // from it out to two days either side, so the arithmetic meets the change just past
      // its margin and a shorter margin fails; a week on, far from any.
      var instants = [Date(timeIntervalSince1970: 1_780_444_800)]
      while let current = transition, current < end {
        instants += [-47, -25, -20, -3, 0, 3, 20, 25, 47, 175].map {
          current.addingTimeInterval(Double($0) * 3_600)
        }
        transition = zone.nextDaylightSavingTimeTransition(after: current)
      }
      for instant in instants {
        let start = calendar.startOfDay(for: instant)
        #expect(clock.startOfDay(instant) == start, "\(identifier) \(instant)")
        if calendar.component(.hour, from: start) != 0 { skippedMidnights += 1 }
        for days in [-1, 2] {
          // Calendar adds days on the wall clock from the day's first instant (01:00 stays
          // 01:00), so its next day's start is the start of that.
          let expected = try #require(calendar.date(byAdding: .day, value: days, to: start))
          #expect(
            clock.day(days, after: instant) == calendar.startOfDay(for: expected),
            "\(identifier) \(instant) \(days)"
          )
        }
        compared += 1
      }
    }
    #expect(compared > 30_000)
    #expect(skippedMidnights > 0, "some zone skips a midnight in these years (America/Sao_Paulo did)")
  }

  @Test("a date's start is Calendar's, on the days either side of every change of offset, and on skipped days")
  func datesAgreeWithCalendar() throws {
    let end = Date(timeIntervalSince1970: 2_145_916_800)  // 2038-01-01
    for identifier in TimeZone.knownTimeZoneIdentifiers {
      let zone = try #require(TimeZone(identifier: identifier))
      let clock = Clock.fixed(Date(timeIntervalSince1970: 0), timeZone: zone)
      let calendar = clock.calendar
      let parser = WhenParser(clock: clock)
      var transition = zone.nextDaylightSavingTimeTransition(after: Date(timeIntervalSince1970: 3 * 86_400))
      while let current = transition, current < end {
        let day = CivilDateTime(current, in: zone).date
        for dayNumber in day.dayNumber - 1...day.dayNumber + 1 {
          let date = CivilDate(dayNumber: dayNumber)
          // What `WhenParser` did through `Calendar`: its date, then that day's start.
          let components = DateComponents(year: date.year, month: date.month, day: date.day)
          let expected = calendar.startOfDay(for: try #require(calendar.date(from: components)))
          #expect(try parser.parse(date.isoText).day == expected, "\(identifier) \(date.isoText)")
        }
        transition = zone.nextDaylightSavingTimeTransition(after: current)
      }
    }
    // Samoa skipped 30 December 2011: that date is the day after the gap, the 31st.
    let apia = try #require(TimeZone(identifier: "Pacific/Apia"))
    let samoa = WhenParser(clock: Clock.fixed(Date(timeIntervalSince1970: 0), timeZone: apia))
    #expect(try samoa.parse("2011-12-30").day == Date(timeIntervalSince1970: 1_325_239_200))  // 31 Dec 00:00 +14
  }
}

extension CivilDate {
  /// `2026-03-08`, as WHEN reads it.
  fileprivate var isoText: String {
    String(format: "%04d-%02d-%02d", year, month, day)
  }
}
