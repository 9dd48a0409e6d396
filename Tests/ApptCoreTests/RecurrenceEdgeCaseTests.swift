import Foundation
import Testing

@testable import ApptCore

/// The corners of the recurrence engine: leap years, month ends, week numbers, DST, the
/// forms of UNTIL, EXDATE and RDATE, and the supported time range.
@Suite("recurrence: edge cases")
struct RecurrenceEdgeCaseTests {
  let utc = TimeZone.gmt
  let berlin = RRuleTesting.zone("Europe/Berlin")
  let newYork = RRuleTesting.zone("America/New_York")

  func dates(_ start: String, _ rule: String, zone: TimeZone = .gmt, first: Int? = nil) -> [String] {
    RRuleTesting.expand(start, [rule], zone: zone, to: "21500101T000000", first: first).map { String($0.prefix(8)) }
  }

  @Test("29 February yearly: only leap years (2100 is not one)")
  func leapDay() {
    #expect(dates("20880229T120000", "FREQ=YEARLY;COUNT=4") == ["20880229", "20920229", "20960229", "21040229"])
  }

  @Test("BYMONTHDAY=-1 is every month's last day, 29 February in a leap year")
  func lastDayOfMonth() {
    #expect(
      dates("20240101T090000", "FREQ=MONTHLY;BYMONTHDAY=-1;COUNT=4") == [
        "20240131", "20240229", "20240331", "20240430",
      ]
    )
  }

  @Test("BYMONTHDAY=31 skips the months without a 31st; BYMONTHDAY=30 skips February")
  func shortMonths() {
    #expect(
      dates("20250101T090000", "FREQ=MONTHLY;BYMONTHDAY=31;COUNT=4") == [
        "20250131", "20250331", "20250531", "20250731",
      ]
    )
    #expect(dates("20250130T090000", "FREQ=MONTHLY;COUNT=3") == ["20250130", "20250330", "20250430"])
  }

  @Test("BYSETPOS=-1 over the weekdays: the month's last working day")
  func lastWeekday() {
    #expect(
      dates("20240101T090000", "FREQ=MONTHLY;BYDAY=MO,TU,WE,TH,FR;BYSETPOS=-1;COUNT=4") == [
        "20240131", "20240229", "20240329", "20240430",
      ]
    )
  }

  @Test("BYWEEKNO=1: with WKST=MO week 1 of 2026 starts on 29 December 2025, with WKST=SU on 4 January")
  func weekOneDependsOnWeekStart() {
    #expect(
      dates("20240101T090000", "FREQ=YEARLY;BYWEEKNO=1;BYDAY=SA;WKST=MO;COUNT=3") == [
        "20240106", "20250104", "20260103",
      ]
    )
    #expect(
      dates("20240101T090000", "FREQ=YEARLY;BYWEEKNO=1;BYDAY=SA;WKST=SU;COUNT=3") == [
        "20240106", "20250104", "20260110",
      ]
    )
    // Week 1 of 2026 (WKST=MO) holds 29-31 December 2025: they are in 2025's yearly set. 2026
    // has no Monday or Tuesday in week 1; week 1 of 2027 starts on 4 January 2027.
    #expect(
      dates("20250101T090000", "FREQ=YEARLY;BYWEEKNO=1;BYDAY=MO,TU;COUNT=3") == ["20251229", "20251230", "20270104"]
    )
  }

  @Test("week 53 exists only in long years (2026, 2032, 2037)")
  func weekFiftyThree() {
    #expect(
      dates("20240101T090000", "FREQ=YEARLY;BYWEEKNO=53;BYDAY=MO;COUNT=3") == ["20261228", "20321227", "20371228"]
    )
  }

  @Test("BYYEARDAY=-1 is 31 December, leap year or not")
  func lastDayOfYear() {
    #expect(dates("20240101T090000", "FREQ=YEARLY;BYYEARDAY=-1;COUNT=3") == ["20241231", "20251231", "20261231"])
  }

  @Test("hourly in Berlin across the autumn change: the repeated 02:00 is met once, the first (CEST)")
  func berlinHourlyAutumn() {
    let set = RecurrenceSet(
      start: RRuleTesting.civil("20251026T000000"),
      zone: berlin,
      rules: [RRuleTesting.rule("FREQ=HOURLY;COUNT=5")]
    )
    let utcTimes = set.occurrences(from: .distantPast, to: .distantFuture).map {
      CivilDateTime($0, in: .gmt).description
    }
    #expect(
      utcTimes == ["20251025T220000", "20251025T230000", "20251026T000000", "20251026T020000", "20251026T030000"]
    )
  }

  @Test("hourly in Berlin across the spring change: 02:00 does not exist, it is 03:00 CEST (one occurrence)")
  func berlinHourlySpring() {
    let set = RecurrenceSet(
      start: RRuleTesting.civil("20260329T000000"),
      zone: berlin,
      rules: [RRuleTesting.rule("FREQ=HOURLY;COUNT=5")]
    )
    let local = set.occurrences(from: .distantPast, to: .distantFuture).map {
      CivilDateTime($0, in: berlin).description
    }
    #expect(local == ["20260329T000000", "20260329T010000", "20260329T030000", "20260329T040000"])
  }

  @Test("a daily 02:30 in New York is 03:30 EDT on the day 02:30 does not exist, 02:30 again after")
  func newYorkGap() {
    #expect(
      RRuleTesting.expand("20260307T023000", ["FREQ=DAILY;COUNT=3"], zone: newYork, to: "20270101T000000") == [
        "20260307T023000", "20260308T033000", "20260309T023000",
      ]
    )
  }

  @Test("UNTIL as a DATE includes that whole day; as a local time, up to that time")
  func untilForms() {
    #expect(dates("20250101T230000", "FREQ=DAILY;UNTIL=20250103") == ["20250101", "20250102", "20250103"])
    #expect(dates("20250101T230000", "FREQ=DAILY;UNTIL=20250103T225959") == ["20250101", "20250102"])
  }

  @Test("an EXDATE as a DATE removes that day's occurrences; an RDATE as a DATE is at DTSTART's time")
  func dateForms() {
    let set = RecurrenceSet(
      start: RRuleTesting.civil("20250106T090000"),
      zone: berlin,
      rules: [RRuleTesting.rule("FREQ=DAILY;BYHOUR=9,15;COUNT=6")],
      rdates: [.date(CivilDate(year: 2025, month: 2, day: 1)), .instant(Date(timeIntervalSince1970: 1_740_000_000))],
      exdates: [.date(CivilDate(year: 2025, month: 1, day: 7))]
    )
    let local = set.occurrences(from: .distantPast, to: .distantFuture).map {
      CivilDateTime($0, in: berlin).description
    }
    #expect(
      local == [
        "20250106T090000", "20250106T150000", "20250108T090000", "20250108T150000", "20250201T090000",
        "20250219T222000",
      ]
    )
  }

  @Test("a DTSTART that does not match its rule is not an occurrence, unless asked (libical's reading)")
  func unmatchedStart() {
    let rule = RRuleTesting.rule("FREQ=MONTHLY;BYDAY=1MO;COUNT=2")
    var set = RecurrenceSet(start: RRuleTesting.civil("20250102T090000"), zone: utc, rules: [rule])
    let plain = set.occurrences(from: .distantPast, to: .distantFuture).map { CivilDateTime($0, in: utc).description }
    #expect(plain == ["20250106T090000", "20250203T090000"])
    set.includesUnmatchedStart = true
    let withStart = set.occurrences(from: .distantPast, to: .distantFuture).map {
      CivilDateTime($0, in: utc).description
    }
    #expect(withStart == ["20250102T090000", "20250106T090000", "20250203T090000"])
    // No RRULE: DTSTART and the RDATEs are the set.
    let single = RecurrenceSet(start: RRuleTesting.civil("20250102T090000"), zone: utc, rules: [])
    #expect(single.occurrences(from: .distantPast, to: .distantFuture).count == 1)
  }

  @Test("nothing is produced past the supported times, and an endless rule there ends")
  func supportedRange() {
    let set = RecurrenceSet(
      start: RRuleTesting.civil("99951231T120000"),
      zone: utc,
      rules: [RRuleTesting.rule("FREQ=YEARLY")]
    )
    // Date.distantFuture is in 4001: the window here reaches past 9999.
    let all = set.occurrences(from: .distantPast, to: Date(timeIntervalSince1970: 1e12))
    #expect(all.count == 4, "9995 to 9998: 9999-12-31 12:00 is after the last supported instant")
    #expect(all.allSatisfy { AppointmentRules.supportedTimes.contains($0) })
    let early = RecurrenceSet(
      start: RRuleTesting.civil("15800101T000000"),
      zone: utc,
      rules: [RRuleTesting.rule("FREQ=YEARLY;COUNT=5")]
    )
    #expect(
      early.occurrences(from: .distantPast, to: .distantFuture).map { CivilDateTime($0, in: utc).date.year } == [
        1583, 1584,
      ]
    )
  }

  @Test("a rule that never matches ends at the window, however wide")
  func neverMatches() {
    let set = RecurrenceSet(
      start: RRuleTesting.civil("20250101T000000"),
      zone: utc,
      rules: [
        RRuleTesting.rule("FREQ=YEARLY;BYMONTH=2;BYMONTHDAY=30"),
        RRuleTesting.rule("FREQ=MONTHLY;BYMONTHDAY=31;BYMONTH=4;COUNT=3"),
      ]
    )
    #expect(set.occurrences(from: .distantPast, to: .distantFuture).isEmpty)
  }

  @Test("a window ten years after DTSTART of an endless daily rule: one week, seven occurrences")
  func farWindow() {
    let found = RRuleTesting.expand(
      "20160101T080000",
      ["FREQ=DAILY"],
      zone: newYork,
      from: "20260601T000000",
      to: "20260608T000000"
    )
    #expect(found == RRuleTesting.at(2026, 6, Array(1...7), "080000"))
  }

  @Test("a COUNT rule seen from a later window counts from DTSTART: the 1000th month is the last")
  func countFromLaterWindow() {
    let found = RRuleTesting.expand(
      "19500115T100000",
      ["FREQ=MONTHLY;COUNT=1000"],
      zone: berlin,
      from: "20330101T000000",
      to: "20350101T000000"
    )
    // 1000 months from January 1950: the last is April 2033.
    #expect(found == ["20330115T100000", "20330215T100000", "20330315T100000", "20330415T100000"])
    let counted = RRuleTesting.expand(
      "19500115T100000",
      ["FREQ=MONTHLY;BYMONTHDAY=15;COUNT=1000"],
      zone: berlin,
      from: "20330101T000000",
      to: "20350101T000000"
    )
    #expect(counted == found, "the same rule counted month by month")
  }
}
