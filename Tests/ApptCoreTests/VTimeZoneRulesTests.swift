import Foundation
import Testing

@testable import ApptCore

/// Zones defined only by their VTIMEZONE: the rules read, applied (offsets, transitions) and
/// matched to the IANA zone with the same clock, as Outlook, Apple, Thunderbird and hand-made
/// calendars write them.
@Suite("VTIMEZONE rules")
struct VTimeZoneRulesTests {
  // MARK: - Fixtures

  /// A VTIMEZONE as lines (indentation stripped).
  static func lines(_ text: String) -> [String] {
    text.split(separator: "\n").map { $0.trimmingCharacters(in: .whitespaces) }
  }

  static func rules(_ text: String) throws -> VTimeZoneRules {
    try VTimeZoneRules(lines: lines(text))
  }

  /// The EU's rules since 1996 at +01:00, as Apple and Google write them.
  static func europe(tzid: String) -> String {
    """
    BEGIN:VTIMEZONE
    TZID:\(tzid)
    BEGIN:DAYLIGHT
    TZOFFSETFROM:+0100
    TZOFFSETTO:+0200
    TZNAME:CEST
    DTSTART:19810329T020000
    RRULE:FREQ=YEARLY;BYMONTH=3;BYDAY=-1SU
    END:DAYLIGHT
    BEGIN:STANDARD
    TZOFFSETFROM:+0200
    TZOFFSETTO:+0100
    TZNAME:CET
    DTSTART:19961027T030000
    RRULE:FREQ=YEARLY;BYMONTH=10;BYDAY=-1SU
    END:STANDARD
    END:VTIMEZONE
    """
  }

  /// Exactly as Exchange writes it (CRLF aside).
  static let exchangeWEurope = """
    BEGIN:VTIMEZONE
    TZID:W. Europe Standard Time
    BEGIN:STANDARD
    DTSTART:16010101T030000
    TZOFFSETFROM:+0200
    TZOFFSETTO:+0100
    RRULE:FREQ=YEARLY;INTERVAL=1;BYDAY=-1SU;BYMONTH=10
    END:STANDARD
    BEGIN:DAYLIGHT
    DTSTART:16010101T020000
    TZOFFSETFROM:+0100
    TZOFFSETTO:+0200
    RRULE:FREQ=YEARLY;INTERVAL=1;BYDAY=-1SU;BYMONTH=3
    END:DAYLIGHT
    END:VTIMEZONE
    """

  /// US Eastern the Outlook way: DTSTART in 1601, BYDAY before BYMONTH.
  static func usEastern(tzid: String) -> String {
    """
    BEGIN:VTIMEZONE
    TZID:\(tzid)
    BEGIN:STANDARD
    DTSTART:16010101T020000
    TZOFFSETFROM:-0400
    TZOFFSETTO:-0500
    RRULE:FREQ=YEARLY;INTERVAL=1;BYDAY=1SU;BYMONTH=11
    END:STANDARD
    BEGIN:DAYLIGHT
    DTSTART:16010101T020000
    TZOFFSETFROM:-0500
    TZOFFSETTO:-0400
    RRULE:FREQ=YEARLY;INTERVAL=1;BYDAY=2SU;BYMONTH=3
    END:DAYLIGHT
    END:VTIMEZONE
    """
  }

  static func sydney(tzid: String) -> String {
    """
    BEGIN:VTIMEZONE
    TZID:\(tzid)
    BEGIN:STANDARD
    DTSTART:20080406T030000
    TZOFFSETFROM:+1100
    TZOFFSETTO:+1000
    TZNAME:AEST
    RRULE:FREQ=YEARLY;BYMONTH=4;BYDAY=1SU
    END:STANDARD
    BEGIN:DAYLIGHT
    DTSTART:20081005T020000
    TZOFFSETFROM:+1000
    TZOFFSETTO:+1100
    TZNAME:AEDT
    RRULE:FREQ=YEARLY;BYMONTH=10;BYDAY=1SU
    END:DAYLIGHT
    END:VTIMEZONE
    """
  }

  /// New York since 1967, the tzurl.org way: several blocks of each kind, RRULEs ending in a
  /// UTC UNTIL, and the 1974/1975 energy-crisis changes as a DTSTART and an RDATE.
  static let historicalNewYork = """
    BEGIN:VTIMEZONE
    TZID:Historic Eastern
    BEGIN:DAYLIGHT
    TZOFFSETFROM:-0500
    TZOFFSETTO:-0400
    TZNAME:EDT
    DTSTART:19670430T020000
    RRULE:FREQ=YEARLY;BYMONTH=4;BYDAY=-1SU;UNTIL=19730429T070000Z
    END:DAYLIGHT
    BEGIN:STANDARD
    TZOFFSETFROM:-0400
    TZOFFSETTO:-0500
    TZNAME:EST
    DTSTART:19671029T020000
    RRULE:FREQ=YEARLY;BYMONTH=10;BYDAY=-1SU;UNTIL=20061029T060000Z
    END:STANDARD
    BEGIN:DAYLIGHT
    TZOFFSETFROM:-0500
    TZOFFSETTO:-0400
    TZNAME:EDT
    DTSTART:19740106T020000
    RDATE:19750223T020000
    END:DAYLIGHT
    BEGIN:DAYLIGHT
    TZOFFSETFROM:-0500
    TZOFFSETTO:-0400
    TZNAME:EDT
    DTSTART:19760425T020000
    RRULE:FREQ=YEARLY;BYMONTH=4;BYDAY=-1SU;UNTIL=19860427T070000Z
    END:DAYLIGHT
    BEGIN:DAYLIGHT
    TZOFFSETFROM:-0500
    TZOFFSETTO:-0400
    TZNAME:EDT
    DTSTART:19870405T020000
    RRULE:FREQ=YEARLY;BYMONTH=4;BYDAY=1SU;UNTIL=20060402T070000Z
    END:DAYLIGHT
    BEGIN:DAYLIGHT
    TZOFFSETFROM:-0500
    TZOFFSETTO:-0400
    TZNAME:EDT
    DTSTART:20070311T020000
    RRULE:FREQ=YEARLY;BYMONTH=3;BYDAY=2SU
    END:DAYLIGHT
    BEGIN:STANDARD
    TZOFFSETFROM:-0400
    TZOFFSETTO:-0500
    TZNAME:EST
    DTSTART:20071104T020000
    RRULE:FREQ=YEARLY;BYMONTH=11;BYDAY=1SU
    END:STANDARD
    END:VTIMEZONE
    """

  /// Moscow 1996-2014: summer time ending in 2010 (UNTIL), then permanent +04:00 from March
  /// 2011 and back to +03:00 in October 2014, as STANDARD blocks with RDATEs.
  static let historicalMoscow = """
    BEGIN:VTIMEZONE
    TZID:Custom Moscow
    BEGIN:DAYLIGHT
    TZOFFSETFROM:+0300
    TZOFFSETTO:+0400
    TZNAME:MSD
    DTSTART:19930328T020000
    RRULE:FREQ=YEARLY;BYMONTH=3;BYDAY=-1SU;UNTIL=20100327T230000Z
    END:DAYLIGHT
    BEGIN:STANDARD
    TZOFFSETFROM:+0400
    TZOFFSETTO:+0300
    TZNAME:MSK
    DTSTART:19961027T030000
    RRULE:FREQ=YEARLY;BYMONTH=10;BYDAY=-1SU;UNTIL=20101030T230000Z
    END:STANDARD
    BEGIN:STANDARD
    TZOFFSETFROM:+0300
    TZOFFSETTO:+0400
    TZNAME:MSK
    DTSTART:20110327T020000
    RDATE:20110327T020000
    END:STANDARD
    BEGIN:STANDARD
    TZOFFSETFROM:+0400
    TZOFFSETTO:+0300
    TZNAME:MSK
    DTSTART:20141026T020000
    RDATE:20141026T020000
    END:STANDARD
    END:VTIMEZONE
    """

  static func utc(_ year: Int, _ month: Int, _ day: Int, _ hour: Int = 0, _ minute: Int = 0) -> Date {
    CivilDateTime(year, month, day, hour, minute).instant(in: .gmt)
  }

  static let hour = 3600

  /// The offset changes of `zone` in `[from, to)`, independently of the code under test:
  /// Foundation's own transitions.
  static func zoneTransitions(_ zone: TimeZone, from: Date, to: Date) -> [VTimeZoneRules.Transition] {
    var result: [VTimeZoneRules.Transition] = []
    var cursor = from.addingTimeInterval(-1)
    while let next = zone.nextDaylightSavingTimeTransition(after: cursor), next < to {
      let before = zone.secondsFromGMT(for: next.addingTimeInterval(-1))
      let after = zone.secondsFromGMT(for: next)
      if before != after { result.append(.init(instant: next, offsetBefore: before, offsetAfter: after)) }
      cursor = next
    }
    return result
  }

  /// `zone` keeps the same offsets as `reference` every six hours of `years` years from `from`.
  static func sameOffsets(_ zone: TimeZone, _ reference: TimeZone, from: Date, years: Int) -> Bool {
    let steps = years * 366 * 4
    return (0..<steps).allSatisfy { step in
      let instant = from.addingTimeInterval(TimeInterval(step * 6 * 3600))
      return zone.secondsFromGMT(for: instant) == reference.secondsFromGMT(for: instant)
    }
  }

  static let near = utc(2026, 6, 15)

  // MARK: - Europe

  @Test("EU rules: offsets and the 2026 transitions at 01:00 UTC")
  func europeOffsets() throws {
    let rules = try Self.rules(Self.europe(tzid: "Custom Berlin"))
    #expect(rules.tzid == "Custom Berlin")
    #expect(rules.observances.map(\.kind) == [.daylight, .standard])
    #expect(rules.observances.map(\.names) == [["CEST"], ["CET"]])
    #expect(rules.offset(at: Self.utc(2026, 1, 15)) == Self.hour)
    #expect(rules.offset(at: Self.utc(2026, 7, 15)) == 2 * Self.hour)
    #expect(
      rules.transitions(from: Self.utc(2026, 1, 1), to: Self.utc(2027, 1, 1)) == [
        .init(instant: Self.utc(2026, 3, 29, 1), offsetBefore: Self.hour, offsetAfter: 2 * Self.hour),
        .init(instant: Self.utc(2026, 10, 25, 1), offsetBefore: 2 * Self.hour, offsetAfter: Self.hour),
      ]
    )
    // At the transition instant the new offset holds; a second before, the old one.
    #expect(rules.offset(at: Self.utc(2026, 3, 29, 1)) == 2 * Self.hour)
    #expect(rules.offset(at: Self.utc(2026, 3, 29, 1).addingTimeInterval(-1)) == Self.hour)
    // The same changes as Europe/Berlin from 1997 to 2040.
    let berlin = try #require(TimeZone(identifier: "Europe/Berlin"))
    let from = Self.utc(1997, 1, 1)
    let to = Self.utc(2040, 1, 1)
    #expect(rules.transitions(from: from, to: to) == Self.zoneTransitions(berlin, from: from, to: to))
  }

  @Test(
    "EU rules under a custom TZID match a zone with Europe/Berlin's clock, chosen by the TZID's hints",
    arguments: [
      ("Custom Berlin", "Europe/Berlin"),
      ("W. Europe (custom)", "Europe/Berlin"),
      ("Office zone 1", "Europe/Berlin"),  // no hint: the well-known zone
      ("Custom Paris", "Europe/Paris"),
      ("Romance Standard Time (copy)", "Europe/Paris"),
      ("Central Europe Standard Time (custom)", "Europe/Budapest"),
      ("Amsterdam office", "Europe/Amsterdam"),
    ]
  )
  func europeMatches(tzid: String, expected: String) throws {
    let rules = try Self.rules(Self.europe(tzid: tzid))
    let zone = try #require(rules.matchingZone(near: Self.near))
    let berlin = try #require(TimeZone(identifier: "Europe/Berlin"))
    #expect(Self.sameOffsets(zone, berlin, from: Self.utc(2026, 1, 1), years: 3))
    // Only where the zone's identifier is Foundation's own does the name stand.
    let reference = try #require(TimeZone(identifier: expected))
    #expect(zone.identifier == reference.identifier)
    // Deterministic: the same rules give the same zone every time.
    #expect(rules.matchingZone(near: Self.near)?.identifier == zone.identifier)
  }

  @Test("a TZID naming a zone wins when the rules agree with it, and the rules win when they do not")
  func namedZone() throws {
    let paris = try Self.rules(Self.europe(tzid: "/citadel.org/20190914_1/Europe/Paris"))
    #expect(paris.matchingZone(near: Self.near)?.identifier == "Europe/Paris")
    let contradicted = try Self.rules(Self.europe(tzid: "America/Chicago"))
    #expect(contradicted.matchingZone(near: Self.near)?.identifier == "Europe/Berlin")
    let located = try VTimeZoneRules(
      lines: Self.lines(Self.europe(tzid: "Custom")).flatMap {
        $0 == "TZID:Custom" ? [$0, "X-LIC-LOCATION:Europe/Rome"] : [$0]
      }
    )
    #expect(located.location == "Europe/Rome")
    #expect(located.matchingZone(near: Self.near)?.identifier == "Europe/Rome")
  }

  @Test("an Outlook VTIMEZONE exactly as Exchange writes it (DTSTART in 1601)")
  func exchangeWEurope() throws {
    let rules = try Self.rules(Self.exchangeWEurope)
    #expect(rules.observances.map(\.start) == [CivilDateTime(1601, 1, 1, 3), CivilDateTime(1601, 1, 1, 2)])
    #expect(
      rules.transitions(from: Self.utc(2026, 1, 1), to: Self.utc(2027, 1, 1)) == [
        .init(instant: Self.utc(2026, 3, 29, 1), offsetBefore: Self.hour, offsetAfter: 2 * Self.hour),
        .init(instant: Self.utc(2026, 10, 25, 1), offsetBefore: 2 * Self.hour, offsetAfter: Self.hour),
      ]
    )
    let zone = try #require(rules.matchingZone(near: Self.near))
    #expect(zone.identifier == "Europe/Berlin")
    #expect(rules.offset(at: Self.utc(2031, 8, 1)) == 2 * Self.hour)
  }

  // MARK: - America and Australia

  @Test(
    "US Eastern rules, Outlook style (BYDAY=2SU in March, 1SU in November), match America/New_York",
    arguments: ["Eastern Time (custom)", "Custom", "(UTC-05:00) Eastern Time (US & Canada) copy"]
  )
  func usEastern(tzid: String) throws {
    let rules = try Self.rules(Self.usEastern(tzid: tzid))
    #expect(rules.offset(at: Self.utc(2026, 1, 15)) == -5 * Self.hour)
    #expect(rules.offset(at: Self.utc(2026, 7, 15)) == -4 * Self.hour)
    #expect(
      rules.transitions(from: Self.utc(2026, 1, 1), to: Self.utc(2027, 1, 1)) == [
        .init(instant: Self.utc(2026, 3, 8, 7), offsetBefore: -5 * Self.hour, offsetAfter: -4 * Self.hour),
        .init(instant: Self.utc(2026, 11, 1, 6), offsetBefore: -4 * Self.hour, offsetAfter: -5 * Self.hour),
      ]
    )
    let zone = try #require(rules.matchingZone(near: Self.near))
    #expect(zone.identifier == "America/New_York")
    let newYork = try #require(TimeZone(identifier: "America/New_York"))
    #expect(Self.sameOffsets(zone, newYork, from: Self.utc(2026, 1, 1), years: 3))
  }

  @Test("southern hemisphere: Australia/Sydney's rules, summer in January", arguments: ["Sydney (custom)", "AUS-E"])
  func sydney(tzid: String) throws {
    let rules = try Self.rules(Self.sydney(tzid: tzid))
    #expect(rules.offset(at: Self.utc(2026, 1, 15)) == 11 * Self.hour)
    #expect(rules.offset(at: Self.utc(2026, 7, 15)) == 10 * Self.hour)
    #expect(
      rules.transitions(from: Self.utc(2026, 1, 1), to: Self.utc(2027, 1, 1)) == [
        .init(instant: Self.utc(2026, 4, 4, 16), offsetBefore: 11 * Self.hour, offsetAfter: 10 * Self.hour),
        .init(instant: Self.utc(2026, 10, 3, 16), offsetBefore: 10 * Self.hour, offsetAfter: 11 * Self.hour),
      ]
    )
    let zone = try #require(rules.matchingZone(near: Self.near))
    #expect(zone.identifier == "Australia/Sydney")
    let sydney = try #require(TimeZone(identifier: "Australia/Sydney"))
    #expect(Self.sameOffsets(zone, sydney, from: Self.utc(2026, 1, 1), years: 3))
  }

  // MARK: - Fixed offsets

  @Test("a zone with no DAYLIGHT: a fixed +05:30 gives a +05:30 zone")
  func fixedHalfHour() throws {
    let rules = try Self.rules(
      """
      BEGIN:VTIMEZONE
      TZID:Custom India
      BEGIN:STANDARD
      DTSTART:19700101T000000
      TZOFFSETFROM:+0530
      TZOFFSETTO:+0530
      TZNAME:IST
      END:STANDARD
      END:VTIMEZONE
      """
    )
    #expect(rules.transitions(from: Self.utc(1960, 1, 1), to: Self.utc(2040, 1, 1)).isEmpty)
    #expect(rules.offset(at: Self.near) == 19800)
    #expect(rules.offset(at: Self.utc(1950, 1, 1)) == 19800)  // before DTSTART: TZOFFSETFROM
    let zone = try #require(rules.matchingZone(near: Self.near))
    #expect(zone.secondsFromGMT(for: Self.near) == 19800)
    #expect(zone.secondsFromGMT(for: Self.utc(2028, 1, 1)) == 19800)
    #expect(zone.identifier == "GMT+0530")
    // Unless the VTIMEZONE names a zone that keeps that offset.
    let located = try VTimeZoneRules(
      lines: ["TZID:Custom India", "X-LIC-LOCATION:Asia/Kolkata"]
        + Self.lines(
          """
          BEGIN:STANDARD
          DTSTART:19700101T000000
          TZOFFSETFROM:+0530
          TZOFFSETTO:+0530
          END:STANDARD
          """
        )
    )
    #expect(located.matchingZone(near: Self.near)?.identifier == "Asia/Kolkata")
    #expect(located.matchingZone(near: Self.utc(1943, 1, 1))?.identifier == "GMT+0530")  // India was +06:30 then
  }

  @Test("fixed whole hours give the Etc/GMT zone (its sign inverted, as IANA names it)")
  func fixedWholeHours() throws {
    #expect(VTimeZoneRules.fixedZone(offset: 3600)?.identifier == "Etc/GMT-1")
    #expect(VTimeZoneRules.fixedZone(offset: -5 * 3600)?.identifier == "Etc/GMT+5")
    #expect(VTimeZoneRules.fixedZone(offset: 0) == .gmt)
    #expect(VTimeZoneRules.fixedZone(offset: 20 * 3600) == nil)
    let rules = try Self.rules(
      """
      BEGIN:VTIMEZONE
      TZID:Lagos office
      BEGIN:STANDARD
      DTSTART:19700101T000000
      TZOFFSETFROM:+0100
      TZOFFSETTO:+0100
      END:STANDARD
      END:VTIMEZONE
      """
    )
    #expect(rules.matchingZone(near: Self.near)?.identifier == "Etc/GMT-1")
  }

  // MARK: - History

  @Test("historical New York: several DAYLIGHT and STANDARD blocks, RDATE, RRULEs with UTC UNTIL")
  func historicalNewYork() throws {
    let rules = try Self.rules(Self.historicalNewYork)
    #expect(rules.observances.count == 7)
    let newYork = try #require(TimeZone(identifier: "America/New_York"))
    let from = Self.utc(1970, 1, 1)
    let to = Self.utc(2035, 1, 1)
    let expected = Self.zoneTransitions(newYork, from: from, to: to)
    #expect(expected.count > 120)
    #expect(rules.transitions(from: from, to: to) == expected)
    // The energy crisis: summer time from 6 January 1974 and 23 February 1975.
    #expect(rules.offset(at: Self.utc(1974, 2, 1)) == -4 * Self.hour)
    #expect(rules.offset(at: Self.utc(1975, 3, 1)) == -4 * Self.hour)
    #expect(rules.offset(at: Self.utc(1976, 3, 1)) == -5 * Self.hour)
    // 2006 ended on the last Sunday of October, 2007 on the first of November.
    #expect(rules.offset(at: Self.utc(2006, 10, 31)) == -5 * Self.hour)
    #expect(rules.offset(at: Self.utc(2007, 10, 31)) == -4 * Self.hour)
    #expect(rules.matchingZone(near: Self.utc(1975, 6, 1))?.identifier == "America/New_York")
    #expect(rules.matchingZone(near: Self.near)?.identifier == "America/New_York")
  }

  @Test("historical Moscow: STANDARD blocks with RDATEs change the standard offset twice")
  func historicalMoscow() throws {
    let rules = try Self.rules(Self.historicalMoscow)
    let moscow = try #require(TimeZone(identifier: "Europe/Moscow"))
    let from = Self.utc(1997, 1, 1)
    let to = Self.utc(2020, 1, 1)
    #expect(rules.transitions(from: from, to: to) == Self.zoneTransitions(moscow, from: from, to: to))
    #expect(rules.offset(at: Self.utc(2013, 1, 1)) == 4 * Self.hour)
    #expect(rules.offset(at: Self.utc(2013, 7, 1)) == 4 * Self.hour)
    #expect(rules.offset(at: Self.utc(2016, 1, 1)) == 3 * Self.hour)
    #expect(rules.matchingZone(near: Self.utc(2012, 1, 1))?.identifier == "Europe/Moscow")
    // 2015-2017 has no transition at all: a fixed +03:00.
    #expect(rules.matchingZone(near: Self.utc(2015, 1, 1))?.identifier == "Etc/GMT-3")
  }

  @Test("wall-clock times placed by the rules as in the IANA zone: the gap moves forward, the overlap takes the first")
  func wallClockTimes() throws {
    let rules = try Self.rules(Self.europe(tzid: "Custom Berlin"))
    let berlin = try #require(TimeZone(identifier: "Europe/Berlin"))
    #expect(rules.instant(of: CivilDateTime(2026, 3, 29, 2, 30)) == Self.utc(2026, 3, 29, 1, 30))
    #expect(rules.instant(of: CivilDateTime(2026, 10, 25, 2, 30)) == Self.utc(2026, 10, 25, 0, 30))
    for day in [CivilDate(year: 2026, month: 3, day: 29), CivilDate(year: 2026, month: 10, day: 25)] {
      for quarter in 0..<(4 * 24) {
        let local = CivilDateTime(date: day, hour: quarter / 4, minute: quarter % 4 * 15)
        #expect(rules.instant(of: local) == local.instant(in: berlin), "\(local)")
      }
    }
  }

  @Test("the whole range of times: distant past and future give the first and last offsets")
  func distantTimes() throws {
    let rules = try Self.rules(Self.historicalNewYork)
    #expect(rules.offset(at: .distantPast) == -5 * Self.hour)  // TZOFFSETFROM of the first onset (1967)
    #expect(rules.offset(at: .distantFuture) == -5 * Self.hour)  // distantFuture is 1 January 4001
    let all = rules.transitions(from: .distantPast, to: .distantFuture)
    #expect(all.first?.instant == Self.utc(1967, 4, 30, 7))
    #expect(all.count > 4000)
    #expect(zip(all, all.dropFirst()).allSatisfy { $0.instant < $1.instant && $0.offsetAfter == $1.offsetBefore })
  }

  @Test("UNTIL is UTC: an onset at exactly UNTIL is the last one, a second later it is cut")
  func untilIsUTC() throws {
    // Berlin's last October onset in 2010 is 03:00 CEST, 01:00 UTC. Read as a local time,
    // UNTIL=...T010000Z would fall before it.
    func standardOnsets(until: String) throws -> [VTimeZoneRules.Transition] {
      let text = Self.europe(tzid: "Until test")
        .replacingOccurrences(of: "BYMONTH=10;BYDAY=-1SU", with: "BYMONTH=10;BYDAY=-1SU;UNTIL=\(until)")
      let rules = try Self.rules(text)
      return rules.transitions(from: Self.utc(2010, 1, 1), to: Self.utc(2012, 1, 1)).filter {
        $0.offsetAfter == Self.hour
      }
    }
    #expect(try standardOnsets(until: "20101031T010000Z").map(\.instant) == [Self.utc(2010, 10, 31, 1)])
    #expect(try standardOnsets(until: "20101031T005959Z").isEmpty)
  }

  @Test(
    "the year-by-year onsets equal RecurrenceSet's expansion, for every rule shape VTIMEZONEs use",
    arguments: [
      "FREQ=YEARLY;BYMONTH=3;BYDAY=-1SU", "FREQ=YEARLY;INTERVAL=1;BYDAY=-1SU;BYMONTH=10",
      "FREQ=YEARLY;BYMONTH=10;BYDAY=-1SU;UNTIL=20061029T010000", "FREQ=YEARLY;BYMONTH=4;BYDAY=1SU;UNTIL=20060402",
      "FREQ=YEARLY;BYMONTH=11;BYDAY=1SU;UNTIL=20061105T060000Z", "FREQ=YEARLY;BYMONTH=3;BYDAY=2SU",
      "FREQ=YEARLY;BYMONTH=9;BYDAY=5SU", "FREQ=YEARLY;BYMONTH=3;BYDAY=SU;BYMONTHDAY=8,9,10,11,12,13,14",
      "FREQ=YEARLY", "FREQ=YEARLY;BYMONTH=3", "FREQ=YEARLY;BYMONTHDAY=-1",
      "FREQ=YEARLY;INTERVAL=2;BYMONTH=3;BYDAY=-1SU",
      "FREQ=YEARLY;BYMONTH=3,10;BYDAY=-1SU", "FREQ=YEARLY;BYMONTH=2;BYMONTHDAY=29",
      "FREQ=YEARLY;BYMONTH=3;BYDAY=-1FR,1MO",
    ]
  )
  func fastPathAgrees(text: String) throws {
    let rule = try RecurrenceRule(parsing: text)
    for start in [CivilDateTime(1990, 3, 25, 2), CivilDateTime(1601, 1, 1, 3), CivilDateTime(2004, 2, 29, 1, 30)] {
      #expect(OnsetClock.YearlyDays(rule, start: start) != nil)
      let from = CivilDateTime(1985, 1, 1).civilSeconds
      let to = CivilDateTime(2045, 1, 1).civilSeconds
      let fast = OnsetClock.instances(of: rule, start: start, civilFrom: from, civilTo: to)
      let reference = OnsetClock.expanded(rule, start: start, civilFrom: from, civilTo: to)
      #expect(fast == reference, "\(text) from \(start)")
      #expect(!fast.isEmpty)
    }
  }

  // MARK: - No match, odd but readable input

  @Test("rules no IANA zone keeps (summer time from June to September) match nothing")
  func noMatch() throws {
    let rules = try Self.rules(
      """
      BEGIN:VTIMEZONE
      TZID:Imaginary
      BEGIN:STANDARD
      DTSTART:20000903T030000
      TZOFFSETFROM:+0200
      TZOFFSETTO:+0100
      RRULE:FREQ=YEARLY;BYMONTH=9;BYDAY=1SU
      END:STANDARD
      BEGIN:DAYLIGHT
      DTSTART:20000604T020000
      TZOFFSETFROM:+0100
      TZOFFSETTO:+0200
      RRULE:FREQ=YEARLY;BYMONTH=6;BYDAY=1SU
      END:DAYLIGHT
      END:VTIMEZONE
      """
    )
    #expect(rules.offset(at: Self.utc(2026, 7, 1)) == 2 * Self.hour)
    #expect(rules.matchingZone(near: Self.near) == nil)
  }

  @Test("EU rules an hour off (transitions at 02:00 UTC) match nothing")
  func offByAnHour() throws {
    let text = Self.europe(tzid: "Off").replacingOccurrences(of: "T020000", with: "T030000")
      .replacingOccurrences(of: "T030000\nRRULE:FREQ=YEARLY;BYMONTH=10", with: "T040000\nRRULE:FREQ=YEARLY;BYMONTH=10")
    let rules = try Self.rules(text)
    #expect(rules.matchingZone(near: Self.near) == nil)
  }

  @Test("lines without BEGIN:VTIMEZONE, UTC and DATE values, PERIOD RDATEs, X-LIC-LOCATION")
  func lenientShapes() throws {
    let rules = try VTimeZoneRules(
      lines: [
        "TZID:Shapes",
        "X-LIC-LOCATION:Europe/Paris",
        "BEGIN:STANDARD",
        "DTSTART:20200101",
        "TZOFFSETFROM:+0200",
        "TZOFFSETTO:+0100",
        "RDATE;VALUE=DATE:20301027,20311026",
        "END:STANDARD",
        "BEGIN:DAYLIGHT",
        "DTSTART:20300331T010000Z",
        "TZOFFSETFROM:+0100",
        "TZOFFSETTO:+0200",
        "RDATE;VALUE=PERIOD:20310330T020000/PT1H,20320328T020000/20320328T030000",
        "END:DAYLIGHT",
        "BEGIN:X-UNKNOWN",
        "TZOFFSETTO:nonsense",
        "END:X-UNKNOWN",
      ],
      firstLine: 10
    )
    #expect(rules.location == "Europe/Paris")
    #expect(rules.observances.map(\.line) == [12, 18])
    #expect(rules.observances[0].start == CivilDateTime(2020, 1, 1))
    #expect(rules.observances[1].start == CivilDateTime(2030, 3, 31, 2))
    // A DATE RDATE is DTSTART's time of day (midnight), read with TZOFFSETFROM (+02:00).
    #expect(
      rules.transitions(from: Self.utc(2020, 1, 1), to: Self.utc(2033, 1, 1)).map(\.instant) == [
        Self.utc(2030, 3, 31, 1), Self.utc(2030, 10, 26, 22), Self.utc(2031, 3, 30, 1), Self.utc(2031, 10, 25, 22),
        Self.utc(2032, 3, 28, 1),
      ]
    )
  }

  @Test("a missing TZOFFSETFROM is taken from the other kind's TZOFFSETTO, and said")
  func missingOffsetFrom() throws {
    let text = Self.europe(tzid: "No from").replacingOccurrences(of: "TZOFFSETFROM:+0100\n", with: "")
    let rules = try Self.rules(text)
    #expect(rules.observances[0].offsetFrom == Self.hour)
    #expect(rules.assumptions == [.init(line: 3, message: "DAYLIGHT of No from has no TZOFFSETFROM: assumed +01:00")])
    #expect(rules.matchingZone(near: Self.near)?.identifier == "Europe/Berlin")
  }

  // MARK: - Refused

  @Test(
    "what cannot be interpreted is refused with the line",
    arguments: [
      ("TZOFFSETTO:+0200", "TZOFFSETTO:+2", 5, "TZOFFSETTO:+2 is not a UTC offset like +0100, -0500 or +053000"),
      (
        "TZOFFSETTO:+0200", "TZOFFSETTO:+02:00", 5, "TZOFFSETTO:+02:00 is not a UTC offset like +0100, -0500 or +053000"
      ),
      (
        "TZOFFSETFROM:+0100", "TZOFFSETFROM:0100", 4,
        "TZOFFSETFROM:0100 is not a UTC offset like +0100, -0500 or +053000"
      ),
      ("TZOFFSETTO:+0200", "TZOFFSETTO:+2400", 5, "TZOFFSETTO:+2400 is not a UTC offset like +0100, -0500 or +053000"),
      ("TZOFFSETTO:+0200\n", "", 3, "DAYLIGHT has no TZOFFSETTO"),
      ("DTSTART:19810329T020000\n", "", 3, "DAYLIGHT has no DTSTART"),
      (
        "DTSTART:19810329T020000", "DTSTART:19810230T020000", 7,
        "DTSTART: \"19810230T020000\": February 1981 has 28 days, not 30"
      ),
      (
        "RRULE:FREQ=YEARLY;BYMONTH=3;BYDAY=-1SU", "RRULE:FREQ=YEARLY;BYMONTH=13", 8,
        "RRULE BYMONTH=13: expected months 1 to 12"
      ),
      (
        "RRULE:FREQ=YEARLY;BYMONTH=3;BYDAY=-1SU", "RRULE:FREQ=SECONDLY", 8,
        "RRULE FREQ=SECONDLY: expected DAILY, WEEKLY, MONTHLY or YEARLY in a VTIMEZONE (a zone changes its offset at most once a day)"
      ),
      (
        "RRULE:FREQ=YEARLY;BYMONTH=3;BYDAY=-1SU", "RRULE:FREQ=YEARLY;BYHOUR=1,2,3", 8,
        "RRULE BYHOUR=1,2,3: expected one value in a VTIMEZONE (a zone changes its offset at most once a day)"
      ),
      ("TZID:Custom\n", "", 1, "VTIMEZONE has no TZID"),
      ("END:DAYLIGHT\n", "", 9, "BEGIN:STANDARD inside DAYLIGHT"),
      ("TZNAME:CEST", "TZNAME", 6, "malformed line \"TZNAME\" in a VTIMEZONE: not NAME:VALUE"),
    ]
  )
  func refused(find: String, replace: String, line: Int, message: String) throws {
    let text = Self.europe(tzid: "Custom").replacingOccurrences(of: find, with: replace)
    #expect(text != Self.europe(tzid: "Custom"))
    #expect {
      try Self.rules(text)
    } throws: { error in
      guard let error = error as? VTimeZoneError else { return false }
      return error.line == line && error.message == message && error.description == "\(line): \(message)"
    }
  }

  @Test("no observance at all is refused at the BEGIN line")
  func noObservance() {
    #expect(throws: VTimeZoneError.noObservance(tzid: "Empty", line: 5)) {
      try VTimeZoneRules(lines: ["BEGIN:VTIMEZONE", "TZID:Empty", "END:VTIMEZONE"], firstLine: 5)
    }
  }
}
