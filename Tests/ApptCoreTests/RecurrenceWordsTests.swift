import Foundation
import Testing

@testable import ApptCore

/// `Recurrence.summary(in:)`: any rule in English words, for `show` and the detail pane.
@Suite("Recurrence in words")
struct RecurrenceWordsTests {
  static let berlin = Fixture.zone("Europe/Berlin")

  func words(_ lines: String..., dates: [RecurrenceDate] = []) throws -> String {
    var rules: [RecurrenceRule] = []
    for line in lines { rules.append(try RecurrenceRule(parsing: line)) }
    return Recurrence(rules: rules, dates: dates).summary(in: Self.berlin)
  }

  @Test(
    "each form",
    arguments: [
      ("FREQ=DAILY", "every day"),
      ("FREQ=DAILY;INTERVAL=3", "every 3 days"),
      ("FREQ=WEEKLY", "every week"),
      ("FREQ=WEEKLY;BYDAY=MO,TU,WE,TH,FR", "every weekday"),
      ("FREQ=DAILY;BYDAY=MO,TU,WE,TH,FR", "every weekday"),
      ("FREQ=DAILY;BYDAY=MO,WE", "every Monday and Wednesday"),
      ("FREQ=WEEKLY;BYDAY=MO,TU,WE,TH,FR,SA,SU", "every day"),
      ("FREQ=WEEKLY;INTERVAL=2;COUNT=10;BYDAY=MO,WE", "every 2 weeks on Monday and Wednesday, 10 times"),
      ("FREQ=WEEKLY;BYDAY=MO,WE,FR;COUNT=1", "every week on Monday, Wednesday and Friday, once"),
      ("FREQ=MONTHLY", "every month"),
      ("FREQ=MONTHLY;BYDAY=2TU;UNTIL=20270630T215959Z", "every 2nd Tuesday of the month, until 30 June 2027"),
      ("FREQ=MONTHLY;BYDAY=2TU;UNTIL=20270630", "every 2nd Tuesday of the month, until 30 June 2027"),
      ("FREQ=MONTHLY;BYDAY=-1FR", "every last Friday of the month"),
      ("FREQ=MONTHLY;BYDAY=-2FR", "every 2nd to last Friday of the month"),
      ("FREQ=MONTHLY;BYDAY=1MO,3MO", "every month on the 1st Monday and 3rd Monday"),
      ("FREQ=MONTHLY;INTERVAL=2;BYDAY=2TU", "every 2 months on the 2nd Tuesday"),
      ("FREQ=MONTHLY;BYMONTHDAY=-1", "on the last day of the month"),
      ("FREQ=MONTHLY;BYMONTHDAY=15,-1", "on the 15th and last day of the month"),
      ("FREQ=MONTHLY;BYMONTHDAY=1,2,3;INTERVAL=3", "every 3 months on the 1st, 2nd and 3rd"),
      ("FREQ=MONTHLY;BYDAY=FR;BYMONTHDAY=13", "every month on Fridays that fall on the 13th"),
      ("FREQ=MONTHLY;BYDAY=MO,TU,WE,TH,FR;BYSETPOS=-1", "on the last weekday of the month"),
      ("FREQ=MONTHLY;BYDAY=SA,SU;BYSETPOS=1", "on the 1st weekend day of the month"),
      (
        "FREQ=MONTHLY;BYDAY=TU,WE,TH;BYSETPOS=3;COUNT=3",
        "on the 3rd of Tuesday, Wednesday or Thursday of the month, 3 times"
      ),
      ("FREQ=MONTHLY;INTERVAL=2;BYSETPOS=1,-1", "every 2 months on the 1st and last day of the month"),
      ("FREQ=YEARLY", "every year"),
      ("FREQ=YEARLY;BYDAY=4TH;BYMONTH=11", "every year on the 4th Thursday of November"),
      ("FREQ=YEARLY;BYMONTHDAY=25;BYMONTH=12", "every year on 25 December"),
      ("FREQ=YEARLY;BYMONTH=3,6", "every year in March and June"),
      ("FREQ=YEARLY;BYDAY=20MO", "every year on the 20th Monday of the year"),
      ("FREQ=YEARLY;BYDAY=TH;BYMONTH=6,7,8", "every year on every Thursday in June, July and August"),
      ("FREQ=YEARLY;BYYEARDAY=1,100,200", "every year on days 1, 100 and 200 of the year"),
      ("FREQ=YEARLY;BYYEARDAY=-1", "every year on the last day of the year"),
      ("FREQ=YEARLY;BYWEEKNO=20;BYDAY=MO", "every year on every Monday in week 20"),
      ("FREQ=YEARLY;BYMONTH=2;BYMONTHDAY=-1", "every year on the last day of February"),
      (
        "FREQ=YEARLY;INTERVAL=4;BYMONTH=11;BYDAY=TU;BYMONTHDAY=2,3,4,5,6,7,8",
        "every 4 years on every Tuesday in November that falls on the 2nd, 3rd, 4th, 5th, 6th, 7th and 8th"
      ),
      ("FREQ=HOURLY", "every hour"),
      ("FREQ=HOURLY;INTERVAL=3;UNTIL=20270102T170000Z", "every 3 hours, until 2 January 2027"),
      ("FREQ=MINUTELY;INTERVAL=15;COUNT=6", "every 15 minutes, 6 times"),
      (
        "FREQ=MINUTELY;INTERVAL=20;BYHOUR=9,10,11,12,13,14,15,16",
        "every 20 minutes, at hours 9, 10, 11, 12, 13, 14, 15 and 16"
      ),
      ("FREQ=DAILY;BYHOUR=9,17;BYMINUTE=0,30", "every day at 09:00, 09:30, 17:00 and 17:30"),
      ("FREQ=HOURLY;BYMINUTE=15", "every hour, at minute 15"),
      ("FREQ=SECONDLY;INTERVAL=30", "every 30 seconds"),
      ("FREQ=DAILY;BYMONTH=1", "every day in January"),
      ("FREQ=WEEKLY;WKST=SU;BYDAY=TU", "every week on Tuesday"),
    ]
  )
  func form(rule: String, expected: String) throws {
    #expect(try words(rule) == expected)
  }

  @Test("a UTC UNTIL is a date in the series' zone")
  func untilInZone() throws {
    // 23:30 UTC on 30 June is 1 July in Berlin, still 30 June in New York.
    let rule = try RecurrenceRule(parsing: "FREQ=DAILY;UNTIL=20270630T233000Z")
    #expect(Recurrence(rules: [rule]).summary(in: Self.berlin) == "every day, until 1 July 2027")
    #expect(Recurrence(rules: [rule]).summary(in: Fixture.newYork) == "every day, until 30 June 2027")
  }

  @Test("several rules are joined; RDATEs are counted")
  func rulesAndDates() throws {
    #expect(
      try words("FREQ=WEEKLY;BYDAY=MO", "FREQ=MONTHLY;BYDAY=1FR")
        == "every week on Monday; and every 1st Friday of the month"
    )
    let dates: [RecurrenceDate] = [
      .date(CivilDate(year: 2027, month: 1, day: 5)), .instant(Fixture.now),
      .instant(Fixture.now.addingTimeInterval(3600)),
    ]
    #expect(try words("FREQ=WEEKLY", dates: dates) == "every week and 3 more dates")
    #expect(try words("FREQ=WEEKLY", dates: Array(dates.prefix(1))) == "every week and 1 more date")
    #expect(Recurrence(rules: [], dates: dates).summary(in: Self.berlin) == "on 4 dates")
  }

  @Test("the grammar's rules read as typed")
  func grammar() throws {
    let parser = CommandParser(clock: Fixture.clock)
    func summary(_ options: String) throws -> String? {
      guard case .add(let request) = try parser.parse(line: "add X --at 2026-12-01 10:00 " + options) else {
        return nil
      }
      return request.recurrence?.summary(in: Fixture.paris)
    }
    #expect(
      try summary("--repeat monthly --on 2nd-tue --until-date 2027-06-30")
        == "every 2nd Tuesday of the month, until 30 June 2027"
    )
    #expect(try summary("--repeat yearly --on 4th-thu --in nov") == "every year on the 4th Thursday of November")
    #expect(try summary("--repeat monthly --on 15,-1") == "on the 15th and last day of the month")
  }
}
