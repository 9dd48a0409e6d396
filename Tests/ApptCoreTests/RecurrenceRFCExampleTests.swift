import Foundation
import Testing

@testable import ApptCore

/// Every example of RFC 5545 section 3.8.5.3, in America/New_York as the RFC gives them, with
/// the occurrence lists the RFC prints ("forever" rules: their first occurrences).
@Suite("recurrence: RFC 5545 3.8.5.3 examples")
struct RecurrenceRFCExampleTests {
  struct Example: Sendable, CustomTestStringConvertible {
    var name: String
    var start: String
    var rules: [String]
    var exdates: [String] = []
    var first: Int?
    var expected: [String]
    var testDescription: String { name }
  }

  static func at(_ year: Int, _ month: Int, _ days: [Int], _ time: String = "090000") -> [String] {
    RRuleTesting.at(year, month, days, time)
  }
  static func range(_ year: Int, _ month: Int, _ days: ClosedRange<Int>) -> [String] { at(year, month, Array(days)) }

  static let examples: [Example] = [
    Example(
      name: "Daily for 10 occurrences",
      start: "19970902T090000",
      rules: ["FREQ=DAILY;COUNT=10"],
      expected: range(1997, 9, 2...11)
    ),
    Example(
      name: "Daily until December 24, 1997",
      start: "19970902T090000",
      rules: ["FREQ=DAILY;UNTIL=19971224T000000Z"],
      expected: range(1997, 9, 2...30) + range(1997, 10, 1...31) + range(1997, 11, 1...30) + range(1997, 12, 1...23)
    ),
    Example(
      name: "Every other day - forever",
      start: "19970902T090000",
      rules: ["FREQ=DAILY;INTERVAL=2"],
      first: 47,
      expected: at(1997, 9, Array(stride(from: 2, through: 30, by: 2)))
        + at(1997, 10, Array(stride(from: 2, through: 30, by: 2)))
        + at(1997, 11, Array(stride(from: 1, through: 29, by: 2))) + at(1997, 12, [1, 3])
    ),
    Example(
      name: "Every 10 days, 5 occurrences",
      start: "19970902T090000",
      rules: ["FREQ=DAILY;INTERVAL=10;COUNT=5"],
      expected: at(1997, 9, [2, 12, 22]) + at(1997, 10, [2, 12])
    ),
    Example(
      name: "Every day in January, for 3 years (yearly form)",
      start: "19980101T090000",
      rules: ["FREQ=YEARLY;UNTIL=20000131T140000Z;BYMONTH=1;BYDAY=SU,MO,TU,WE,TH,FR,SA"],
      expected: range(1998, 1, 1...31) + range(1999, 1, 1...31) + range(2000, 1, 1...31)
    ),
    Example(
      name: "Every day in January, for 3 years (daily form)",
      start: "19980101T090000",
      rules: ["FREQ=DAILY;UNTIL=20000131T140000Z;BYMONTH=1"],
      expected: range(1998, 1, 1...31) + range(1999, 1, 1...31) + range(2000, 1, 1...31)
    ),
    Example(
      name: "Weekly for 10 occurrences",
      start: "19970902T090000",
      rules: ["FREQ=WEEKLY;COUNT=10"],
      expected: at(1997, 9, [2, 9, 16, 23, 30]) + at(1997, 10, [7, 14, 21, 28]) + at(1997, 11, [4])
    ),
    Example(
      name: "Weekly until December 24, 1997",
      start: "19970902T090000",
      rules: ["FREQ=WEEKLY;UNTIL=19971224T000000Z"],
      expected: at(1997, 9, [2, 9, 16, 23, 30]) + at(1997, 10, [7, 14, 21, 28]) + at(1997, 11, [4, 11, 18, 25])
        + at(1997, 12, [2, 9, 16, 23])
    ),
    Example(
      name: "Every other week - forever",
      start: "19970902T090000",
      rules: ["FREQ=WEEKLY;INTERVAL=2;WKST=SU"],
      first: 13,
      expected: at(1997, 9, [2, 16, 30]) + at(1997, 10, [14, 28]) + at(1997, 11, [11, 25]) + at(1997, 12, [9, 23])
        + at(1998, 1, [6, 20]) + at(1998, 2, [3, 17])
    ),
    Example(
      name: "Weekly on Tuesday and Thursday for five weeks (UNTIL)",
      start: "19970902T090000",
      rules: ["FREQ=WEEKLY;UNTIL=19971007T000000Z;WKST=SU;BYDAY=TU,TH"],
      expected: at(1997, 9, [2, 4, 9, 11, 16, 18, 23, 25, 30]) + at(1997, 10, [2])
    ),
    Example(
      name: "Weekly on Tuesday and Thursday for five weeks (COUNT)",
      start: "19970902T090000",
      rules: ["FREQ=WEEKLY;COUNT=10;WKST=SU;BYDAY=TU,TH"],
      expected: at(1997, 9, [2, 4, 9, 11, 16, 18, 23, 25, 30]) + at(1997, 10, [2])
    ),
    Example(
      name: "Every other week on Monday, Wednesday, and Friday until December 24, 1997",
      start: "19970901T090000",
      rules: ["FREQ=WEEKLY;INTERVAL=2;UNTIL=19971224T000000Z;WKST=SU;BYDAY=MO,WE,FR"],
      expected: at(1997, 9, [1, 3, 5, 15, 17, 19, 29]) + at(1997, 10, [1, 3, 13, 15, 17, 27, 29, 31])
        + at(1997, 11, [10, 12, 14, 24, 26, 28]) + at(1997, 12, [8, 10, 12, 22])
    ),
    Example(
      name: "Every other week on Tuesday and Thursday, for 8 occurrences",
      start: "19970902T090000",
      rules: ["FREQ=WEEKLY;INTERVAL=2;COUNT=8;WKST=SU;BYDAY=TU,TH"],
      expected: at(1997, 9, [2, 4, 16, 18, 30]) + at(1997, 10, [2, 14, 16])
    ),
    Example(
      name: "Monthly on the first Friday for 10 occurrences",
      start: "19970905T090000",
      rules: ["FREQ=MONTHLY;COUNT=10;BYDAY=1FR"],
      expected: at(1997, 9, [5]) + at(1997, 10, [3]) + at(1997, 11, [7]) + at(1997, 12, [5]) + at(1998, 1, [2])
        + at(1998, 2, [6]) + at(1998, 3, [6]) + at(1998, 4, [3]) + at(1998, 5, [1]) + at(1998, 6, [5])
    ),
    Example(
      name: "Monthly on the first Friday until December 24, 1997",
      start: "19970905T090000",
      rules: ["FREQ=MONTHLY;UNTIL=19971224T000000Z;BYDAY=1FR"],
      expected: at(1997, 9, [5]) + at(1997, 10, [3]) + at(1997, 11, [7]) + at(1997, 12, [5])
    ),
    Example(
      name: "Every other month on the first and last Sunday of the month for 10 occurrences",
      start: "19970907T090000",
      rules: ["FREQ=MONTHLY;INTERVAL=2;COUNT=10;BYDAY=1SU,-1SU"],
      expected: at(1997, 9, [7, 28]) + at(1997, 11, [2, 30]) + at(1998, 1, [4, 25]) + at(1998, 3, [1, 29])
        + at(1998, 5, [3, 31])
    ),
    Example(
      name: "Monthly on the second-to-last Monday of the month for 6 months",
      start: "19970922T090000",
      rules: ["FREQ=MONTHLY;COUNT=6;BYDAY=-2MO"],
      expected: at(1997, 9, [22]) + at(1997, 10, [20]) + at(1997, 11, [17]) + at(1997, 12, [22]) + at(1998, 1, [19])
        + at(1998, 2, [16])
    ),
    Example(
      name: "Monthly on the third-to-the-last day of the month, forever",
      start: "19970928T090000",
      rules: ["FREQ=MONTHLY;BYMONTHDAY=-3"],
      first: 6,
      expected: at(1997, 9, [28]) + at(1997, 10, [29]) + at(1997, 11, [28]) + at(1997, 12, [29]) + at(1998, 1, [29])
        + at(1998, 2, [26])
    ),
    Example(
      name: "Monthly on the 2nd and 15th of the month for 10 occurrences",
      start: "19970902T090000",
      rules: ["FREQ=MONTHLY;COUNT=10;BYMONTHDAY=2,15"],
      expected: at(1997, 9, [2, 15]) + at(1997, 10, [2, 15]) + at(1997, 11, [2, 15]) + at(1997, 12, [2, 15])
        + at(1998, 1, [2, 15])
    ),
    Example(
      name: "Monthly on the first and last day of the month for 10 occurrences",
      start: "19970930T090000",
      rules: ["FREQ=MONTHLY;COUNT=10;BYMONTHDAY=1,-1"],
      expected: at(1997, 9, [30]) + at(1997, 10, [1, 31]) + at(1997, 11, [1, 30]) + at(1997, 12, [1, 31])
        + at(1998, 1, [1, 31]) + at(1998, 2, [1])
    ),
    Example(
      name: "Every 18 months on the 10th thru 15th of the month for 10 occurrences",
      start: "19970910T090000",
      rules: ["FREQ=MONTHLY;INTERVAL=18;COUNT=10;BYMONTHDAY=10,11,12,13,14,15"],
      expected: range(1997, 9, 10...15) + range(1999, 3, 10...13)
    ),
    Example(
      name: "Every Tuesday, every other month",
      start: "19970902T090000",
      rules: ["FREQ=MONTHLY;INTERVAL=2;BYDAY=TU"],
      first: 18,
      expected: at(1997, 9, [2, 9, 16, 23, 30]) + at(1997, 11, [4, 11, 18, 25]) + at(1998, 1, [6, 13, 20, 27])
        + at(1998, 3, [3, 10, 17, 24, 31])
    ),
    Example(
      name: "Yearly in June and July for 10 occurrences",
      start: "19970610T090000",
      rules: ["FREQ=YEARLY;COUNT=10;BYMONTH=6,7"],
      expected: (1997...2001).flatMap { at($0, 6, [10]) + at($0, 7, [10]) }
    ),
    Example(
      name: "Every other year on January, February, and March for 10 occurrences",
      start: "19970310T090000",
      rules: ["FREQ=YEARLY;INTERVAL=2;COUNT=10;BYMONTH=1,2,3"],
      expected: at(1997, 3, [10]) + [1999, 2001, 2003].flatMap { at($0, 1, [10]) + at($0, 2, [10]) + at($0, 3, [10]) }
    ),
    Example(
      name: "Every third year on the 1st, 100th, and 200th day for 10 occurrences",
      start: "19970101T090000",
      rules: ["FREQ=YEARLY;INTERVAL=3;COUNT=10;BYYEARDAY=1,100,200"],
      expected: at(1997, 1, [1]) + at(1997, 4, [10]) + at(1997, 7, [19]) + at(2000, 1, [1]) + at(2000, 4, [9])
        + at(2000, 7, [18]) + at(2003, 1, [1]) + at(2003, 4, [10]) + at(2003, 7, [19]) + at(2006, 1, [1])
    ),
    Example(
      name: "Every 20th Monday of the year, forever",
      start: "19970519T090000",
      rules: ["FREQ=YEARLY;BYDAY=20MO"],
      first: 3,
      expected: at(1997, 5, [19]) + at(1998, 5, [18]) + at(1999, 5, [17])
    ),
    Example(
      name: "Monday of week number 20 (where the default start of the week is Monday), forever",
      start: "19970512T090000",
      rules: ["FREQ=YEARLY;BYWEEKNO=20;BYDAY=MO"],
      first: 3,
      expected: at(1997, 5, [12]) + at(1998, 5, [11]) + at(1999, 5, [17])
    ),
    Example(
      name: "Every Thursday in March, forever",
      start: "19970313T090000",
      rules: ["FREQ=YEARLY;BYMONTH=3;BYDAY=TH"],
      first: 11,
      expected: at(1997, 3, [13, 20, 27]) + at(1998, 3, [5, 12, 19, 26]) + at(1999, 3, [4, 11, 18, 25])
    ),
    Example(
      name: "Every Thursday, but only during June, July, and August, forever",
      start: "19970605T090000",
      rules: ["FREQ=YEARLY;BYDAY=TH;BYMONTH=6,7,8"],
      first: 39,
      expected: at(1997, 6, [5, 12, 19, 26]) + at(1997, 7, [3, 10, 17, 24, 31]) + at(1997, 8, [7, 14, 21, 28])
        + at(1998, 6, [4, 11, 18, 25]) + at(1998, 7, [2, 9, 16, 23, 30]) + at(1998, 8, [6, 13, 20, 27])
        + at(1999, 6, [3, 10, 17, 24]) + at(1999, 7, [1, 8, 15, 22, 29]) + at(1999, 8, [5, 12, 19, 26])
    ),
    Example(
      name: "Every Friday the 13th, forever",
      start: "19970902T090000",
      rules: ["FREQ=MONTHLY;BYDAY=FR;BYMONTHDAY=13"],
      exdates: ["19970902T090000"],
      first: 5,
      expected: at(1998, 2, [13]) + at(1998, 3, [13]) + at(1998, 11, [13]) + at(1999, 8, [13]) + at(2000, 10, [13])
    ),
    Example(
      name: "The first Saturday that follows the first Sunday of the month, forever",
      start: "19970913T090000",
      rules: ["FREQ=MONTHLY;BYDAY=SA;BYMONTHDAY=7,8,9,10,11,12,13"],
      first: 10,
      expected: at(1997, 9, [13]) + at(1997, 10, [11]) + at(1997, 11, [8]) + at(1997, 12, [13]) + at(1998, 1, [10])
        + at(1998, 2, [7]) + at(1998, 3, [7]) + at(1998, 4, [11]) + at(1998, 5, [9]) + at(1998, 6, [13])
    ),
    Example(
      name: "Every 4 years, the first Tuesday after a Monday in November, forever (U.S. Presidential Election day)",
      start: "19961105T090000",
      rules: ["FREQ=YEARLY;INTERVAL=4;BYMONTH=11;BYDAY=TU;BYMONTHDAY=2,3,4,5,6,7,8"],
      first: 3,
      expected: at(1996, 11, [5]) + at(2000, 11, [7]) + at(2004, 11, [2])
    ),
    Example(
      name: "The third instance into the month of one of Tuesday, Wednesday, or Thursday, for the next 3 months",
      start: "19970904T090000",
      rules: ["FREQ=MONTHLY;COUNT=3;BYDAY=TU,WE,TH;BYSETPOS=3"],
      expected: at(1997, 9, [4]) + at(1997, 10, [7]) + at(1997, 11, [6])
    ),
    Example(
      name: "The second-to-last weekday of the month",
      start: "19970929T090000",
      rules: ["FREQ=MONTHLY;BYDAY=MO,TU,WE,TH,FR;BYSETPOS=-2"],
      first: 7,
      expected: at(1997, 9, [29]) + at(1997, 10, [30]) + at(1997, 11, [27]) + at(1997, 12, [30]) + at(1998, 1, [29])
        + at(1998, 2, [26]) + at(1998, 3, [30])
    ),
    // The RFC prints 09:00, 12:00 and 15:00 for UNTIL=19970902T170000Z, but 17:00Z is 13:00
    // EDT, so its own UNTIL ends the list at 12:00 (dateutil and libical agree). Tested both
    // ways: the rule as printed, and with the UNTIL the printed list means (17:00 EDT).
    Example(
      name: "Every 3 hours from 9:00 AM to 5:00 PM on a specific day (UNTIL as printed: 17:00Z)",
      start: "19970902T090000",
      rules: ["FREQ=HOURLY;INTERVAL=3;UNTIL=19970902T170000Z"],
      expected: at(1997, 9, [2], "090000") + at(1997, 9, [2], "120000")
    ),
    Example(
      name: "Every 3 hours from 9:00 AM to 5:00 PM on a specific day (UNTIL 17:00 EDT)",
      start: "19970902T090000",
      rules: ["FREQ=HOURLY;INTERVAL=3;UNTIL=19970902T210000Z"],
      expected: at(1997, 9, [2], "090000") + at(1997, 9, [2], "120000") + at(1997, 9, [2], "150000")
    ),
    Example(
      name: "Every 15 minutes for 6 occurrences",
      start: "19970902T090000",
      rules: ["FREQ=MINUTELY;INTERVAL=15;COUNT=6"],
      expected: ["090000", "091500", "093000", "094500", "100000", "101500"].flatMap { at(1997, 9, [2], $0) }
    ),
    Example(
      name: "Every hour and a half for 4 occurrences",
      start: "19970902T090000",
      rules: ["FREQ=MINUTELY;INTERVAL=90;COUNT=4"],
      expected: ["090000", "103000", "120000", "133000"].flatMap { at(1997, 9, [2], $0) }
    ),
    Example(
      name: "Every 20 minutes from 9:00 AM to 4:40 PM every day (DAILY with BYHOUR and BYMINUTE)",
      start: "19970902T090000",
      rules: ["FREQ=DAILY;BYHOUR=9,10,11,12,13,14,15,16;BYMINUTE=0,20,40"],
      first: 48,
      expected: everyTwentyMinutes(2) + everyTwentyMinutes(3)
    ),
    Example(
      name: "Every 20 minutes from 9:00 AM to 4:40 PM every day (MINUTELY with BYHOUR)",
      start: "19970902T090000",
      rules: ["FREQ=MINUTELY;INTERVAL=20;BYHOUR=9,10,11,12,13,14,15,16"],
      first: 48,
      expected: everyTwentyMinutes(2) + everyTwentyMinutes(3)
    ),
    Example(
      name: "An example where the days generated makes a difference because of WKST (MO)",
      start: "19970805T090000",
      rules: ["FREQ=WEEKLY;INTERVAL=2;COUNT=4;BYDAY=TU,SU;WKST=MO"],
      expected: at(1997, 8, [5, 10, 19, 24])
    ),
    Example(
      name: "An example where the days generated makes a difference because of WKST (SU)",
      start: "19970805T090000",
      rules: ["FREQ=WEEKLY;INTERVAL=2;COUNT=4;BYDAY=TU,SU;WKST=SU"],
      expected: at(1997, 8, [5, 17, 19, 31])
    ),
    Example(
      name: "An example where an invalid date (i.e., February 30) is ignored",
      start: "20070115T090000",
      rules: ["FREQ=MONTHLY;BYMONTHDAY=15,30;COUNT=5"],
      expected: at(2007, 1, [15, 30]) + at(2007, 2, [15]) + at(2007, 3, [15, 30])
    ),
  ]

  /// 9:00 to 16:40 every 20 minutes on one day of September 1997.
  static func everyTwentyMinutes(_ day: Int) -> [String] {
    (9...16).flatMap { hour in [0, 20, 40].flatMap { at(1997, 9, [day], pad(hour, 2) + pad($0, 2) + "00") } }
  }

  @Test("the RFC's occurrences, in New York", arguments: examples)
  func rfcExample(_ example: Example) {
    let occurrences = RRuleTesting.expand(
      example.start,
      example.rules,
      zone: RRuleTesting.zone("America/New_York"),
      exdates: example.exdates,
      first: example.first
    )
    #expect(occurrences == example.expected)
  }

  @Test("the RFC's UTC instants: 9:00 EDT is 13:00Z, 9:00 EST 14:00Z, across the 1997 change")
  func dailyUntilAcrossTheChange() {
    let newYork = RRuleTesting.zone("America/New_York")
    let set = RecurrenceSet(
      start: RRuleTesting.civil("19970902T090000"),
      zone: newYork,
      rules: [RRuleTesting.rule("FREQ=DAILY;UNTIL=19971224T000000Z")]
    )
    let all = set.occurrences(from: .distantPast, to: .distantFuture)
    #expect(all.count == 113)
    let utc = all.map { CivilDateTime($0, in: .gmt).description }
    #expect(utc.first == "19970902T130000")
    #expect(utc.contains("19971025T130000") && utc.contains("19971026T140000"))
    #expect(utc.last == "19971223T140000")
  }

  @Test("a window far from DTSTART finds the same occurrences as the whole series")
  func windowMatchesWholeSeries() {
    let newYork = RRuleTesting.zone("America/New_York")
    for example in Self.examples where example.first != nil && example.exdates.isEmpty {
      let all = RRuleTesting.expand(example.start, example.rules, zone: newYork, to: "20300101T000000")
      let window = RRuleTesting.expand(
        example.start,
        example.rules,
        zone: newYork,
        from: "20250301T000000",
        to: "20260301T000000"
      )
      let expected = all.filter { $0 >= "20250301" && $0 < "20260301" }
      #expect(window == expected, "\(example.name)")
    }
  }
}
