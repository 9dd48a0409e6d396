import Foundation
import Testing

@testable import ApptCore

/// RFC 5545's "what the rule does not name, DTSTART gives" where a rule names some day parts
/// but not all, a DATE start's rule, and DTSTART as the first occurrence, each as libical,
/// Google and Python's recurring-ical-events read them.
@Suite("recurrence: what DTSTART gives")
struct RecurrenceDefaultsTests {
  func dates(_ start: String, _ rule: String, zone: TimeZone = .gmt, dateStart: Bool = false) -> [String] {
    RRuleTesting.expand(start, [rule], zone: zone, to: "20400101T000000", first: 8, dateStart: dateStart)
      .map { String($0.prefix(8)) }
  }

  @Test("a yearly rule naming weeks only takes DTSTART's weekday, not every day of those weeks")
  func weeksOnlyTakeTheWeekday() {
    // Tuesday 1 January 2013; week 1 of 2014 starts on Monday 30 December 2013.
    #expect(
      dates("20130101T090000", "FREQ=YEARLY;BYWEEKNO=1,2;COUNT=5") == [
        "20130101", "20130108", "20131231", "20140107", "20141230",
      ]
    )
    // Named weekdays still win over DTSTART's.
    #expect(dates("20130101T090000", "FREQ=YEARLY;BYWEEKNO=1;BYDAY=FR;COUNT=2") == ["20130104", "20140103"])
  }

  @Test("a yearly rule naming days of the month only keeps DTSTART's month: yearly on the 29th is 29 February")
  func monthDaysOnlyTakeTheMonth() {
    #expect(dates("20240229T090000", "FREQ=YEARLY;BYMONTHDAY=29;COUNT=3") == ["20240229", "20280229", "20320229"])
    // With a weekday as well, every month still counts (Friday the 13th).
    #expect(
      dates("20260213T090000", "FREQ=YEARLY;BYMONTHDAY=13;BYDAY=FR;COUNT=3") == ["20260213", "20260313", "20261113"]
    )
  }

  @Test("a DATE start's rule ignores BYHOUR, BYMINUTE and BYSECOND: one all-day occurrence a day")
  func dateStartIgnoresTimes() {
    let rule = "FREQ=DAILY;BYMINUTE=1,2,3,4;INTERVAL=2;COUNT=3"
    #expect(dates("20241018", rule, dateStart: true) == ["20241018", "20241020", "20241022"])
    #expect(
      RRuleTesting.expand("20241018", [rule], zone: .gmt, to: "20241019T000000") == [
        "20241018T000100", "20241018T000200", "20241018T000300",
      ],
      "a time start still expands its minutes"
    )
  }

  @Test("an all-day series' UTC UNTIL ends on its UTC date in every zone")
  func allDayUTCUntilIsADate() {
    // Outlook: UNTIL=20200916T230000Z, a London midnight: the 16th is the last day everywhere.
    for zone in ["UTC", "Europe/Berlin", "America/New_York", "Asia/Tokyo"].map(RRuleTesting.zone) {
      #expect(
        dates("20200902", "FREQ=WEEKLY;UNTIL=20200916T230000Z", zone: zone, dateStart: true) == [
          "20200902", "20200909", "20200916",
        ],
        "\(zone.identifier)"
      )
    }
  }

  @Test("DTSTART off its rule is the first occurrence, as Google shows it; unless every rule ended before it")
  func unmatchedStartIsShown() {
    // Tuesday 1 December 2026, a rule of Mondays.
    let start = RRuleTesting.civil("20261201T100000").instant(in: .gmt)
    let mondays = Recurrence(rules: [RRuleTesting.rule("FREQ=WEEKLY;BYDAY=MO;COUNT=2")])
    let window = (start, start.addingTimeInterval(30 * 86400))
    let shown = mondays.set(start: start, zone: .gmt).occurrences(from: window.0, to: window.1)
    #expect(
      shown.map { CivilDateTime($0, in: .gmt).description } == [
        "20261201T100000", "20261207T100000", "20261214T100000",
      ]
    )
    let ruleOnly = mondays.set(start: start, zone: .gmt, onlyRuleStarts: true).occurrences(from: window.0, to: window.1)
    #expect(ruleOnly.count == 2)
    // A rule whose UNTIL (a date) is before DTSTART's day: nothing at all.
    let ended = Recurrence(rules: [RRuleTesting.rule("FREQ=WEEKLY;UNTIL=20261130;BYDAY=MO")])
    let set = ended.set(start: start, zone: .gmt, allDay: false)
    #expect(set.rulesEndBeforeStart)
    #expect(set.occurrences(from: window.0, to: window.1).isEmpty)
  }
}
