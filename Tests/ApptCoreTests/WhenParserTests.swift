import Foundation
import Testing

@testable import ApptCore

@Suite("WHEN parsing")
struct WhenParserTests: WhenParsing {

  @Test(
    "date and time forms",
    arguments: [
      ("2026-12-01 10:00", "2026-12-01T10:00:00+01:00"),
      ("2026-12-01T10:00", "2026-12-01T10:00:00+01:00"),
      ("2026-12-01t9:05", "2026-12-01T09:05:00+01:00"),
      ("2026-12-01", "2026-12-01T00:00:00+01:00"),
      ("2026-7-4 3pm", "2026-07-04T15:00:00+02:00"),
      ("2028-02-29 noon", "2028-02-29T12:00:00+01:00"),
      ("today", "2026-11-29T00:00:00+01:00"),
      ("TODAY 9AM", "2026-11-29T09:00:00+01:00"),
      ("tomorrow 3:30pm", "2026-11-30T15:30:00+01:00"),
      ("yesterday midnight", "2026-11-28T00:00:00+01:00"),
      ("+3d", "2026-12-02T00:00:00+01:00"),
      ("+2w 10:00", "2026-12-13T10:00:00+01:00"),
      ("-1d", "2026-11-28T00:00:00+01:00"),
      ("+0d", "2026-11-29T00:00:00+01:00"),
      ("10:00", "2026-11-29T10:00:00+01:00"),
      ("9am", "2026-11-29T09:00:00+01:00"),
      ("12pm", "2026-11-29T12:00:00+01:00"),
      ("12am", "2026-11-29T00:00:00+01:00"),
      ("12:30am", "2026-11-29T00:30:00+01:00"),
      ("11:59pm", "2026-11-29T23:59:00+01:00"),
      ("0:00", "2026-11-29T00:00:00+01:00"),
      ("23:59", "2026-11-29T23:59:00+01:00"),
    ]
  )
  func forms(text: String, expected: String) throws {
    #expect(try instant(text) == Fixture.instant(expected))
  }

  @Test(
    "weekdays: the next occurrence, today (a Sunday) included",
    arguments: [
      ("sun", "2026-11-29"), ("Sunday", "2026-11-29"),
      ("mon", "2026-11-30"), ("monday", "2026-11-30"),
      ("tue", "2026-12-01"), ("tues", "2026-12-01"), ("wed", "2026-12-02"),
      ("thu", "2026-12-03"), ("thurs", "2026-12-03"), ("fri", "2026-12-04"), ("sat 10:00", "2026-12-05"),
    ]
  )
  func weekdays(text: String, expectedDay: String) throws {
    let when = try parser.parse(text)
    #expect(when.day == Fixture.instant("\(expectedDay)T00:00:00+01:00"))
  }

  @Test("a bare date has no minutes; a time has minutes after midnight")
  func structure() throws {
    #expect(try parser.parse("2026-12-01") == When(day: Fixture.instant("2026-12-01T00:00:00+01:00"), minutes: nil))
    #expect(try parser.parse("2026-12-01 10:30").minutes == 630)
    #expect(try parser.parse("15:45") == When(day: Fixture.clock.today, minutes: 945))
  }

  @Test("the words form takes a second word only when it is the time")
  func words() throws {
    let (when, consumed) = try parser.parse(words: ["2026-12-01", "10:00", "--for", "1h"])
    #expect(consumed == 2)
    #expect(when.instant(in: Fixture.clock) == Fixture.instant("2026-12-01T10:00:00+01:00"))

    #expect(try parser.parse(words: ["2026-12-01", "--for"]).consumed == 1)
    #expect(try parser.parse(words: ["tomorrow"]).consumed == 1)
    #expect(try parser.parse(words: ["tomorrow", "9am"]).consumed == 2)
    #expect(try parser.parse(words: ["2026-12-01 10:00", "11:00"]).consumed == 1)
    #expect(try parser.parse(words: ["10:00", "11:00"]).consumed == 1)
    #expect(try parser.parse(words: ["2026-12-01T10:00", "11:00"]).consumed == 1)
    #expect(try parser.parse(words: ["2026-12-01", "Lunch"]).consumed == 1)
    #expect(try parser.parse(words: ["2026-12-01", "90"]).consumed == 1)
  }

  @Test("a second word shaped like a time must be a valid one")
  func wordsInvalidTime() {
    let error = commandError { () throws(CommandError) in try parser.parse(words: ["2026-12-01", "25:00"]) }
    #expect(error == .invalid(#"invalid date "2026-12-01 25:00": hour 25 is out of range (0-23)"#))
  }

  @Test("errors in the two-word form quote both words")
  func wordsErrorsQuoteBoth() {
    let badDay = commandError { () throws(CommandError) in try parser.parse(words: ["2026-02-30", "10:00"]) }
    #expect(badDay == .invalid(#"invalid date "2026-02-30 10:00": day 30 is out of range (February 2026 has 28 days)"#))
    let unknown = commandError { () throws(CommandError) in try parser.parse(words: ["fooday", "9am"]) }
    #expect(unknown?.message.hasPrefix(#"cannot understand "fooday 9am" as a date"#) == true)
  }

  @Test(
    "out-of-range fields are errors naming the field and the input",
    arguments: [
      ("2026-13-45 25:99", #"invalid date "2026-13-45 25:99": month 13 is out of range (1-12)"#),
      ("2026-00-10", #"invalid date "2026-00-10": month 0 is out of range (1-12)"#),
      ("2026-02-30", #"invalid date "2026-02-30": day 30 is out of range (February 2026 has 28 days)"#),
      ("2026-02-29", #"invalid date "2026-02-29": day 29 is out of range (February 2026 has 28 days)"#),
      ("2100-02-29", #"invalid date "2100-02-29": day 29 is out of range (February 2100 has 28 days)"#),
      ("2026-04-31", #"invalid date "2026-04-31": day 31 is out of range (April 2026 has 30 days)"#),
      ("2026-12-00", #"invalid date "2026-12-00": day 0 is out of range (December 2026 has 31 days)"#),
      ("1969-12-31", #"invalid date "1969-12-31": year 1969 is out of range (1970-9999)"#),
      ("2026-12-01 24:00", #"invalid date "2026-12-01 24:00": hour 24 is out of range (0-23)"#),
      ("2026-12-01T10:60", #"invalid date "2026-12-01T10:60": minute 60 is out of range (0-59)"#),
      ("24:00", #"invalid time "24:00": hour 24 is out of range (0-23)"#),
      ("13pm", #"invalid time "13pm": hour 13 is out of range for pm (1-12)"#),
      ("0am", #"invalid time "0am": hour 0 is out of range for am (1-12)"#),
      ("9:5", #"invalid time "9:5": minutes need two digits (try 10:00, 9am, 3:30pm, noon)"#),
    ]
  )
  func outOfRange(text: String, message: String) {
    #expect(failure(text) == .invalid(message))
  }

  @Test(
    "unknown words get the hint",
    arguments: ["fooday", "next week", "10", "2026/12/01", "+3", "+3x", "12026-01-01", "mon tue 10:00"]
  )
  func unknown(text: String) {
    #expect(
      failure(text)
        == .invalid(
          "cannot understand \"\(text)\" as a date: try 2026-12-01 10:00, today, tomorrow, mon, next fri, dec 1, +3d, in 2h"
        )
    )
  }

  @Test("a date followed by something that is not a time")
  func badTimeWord() {
    #expect(
      failure("Tomorrow Lunch")
        == .invalid(#"cannot understand "Lunch" as a time in "Tomorrow Lunch": try 10:00, 9am, 3:30pm, noon"#)
    )
  }

  @Test("empty input and absurd offsets")
  func emptyAndFar() {
    #expect(failure("")?.kind == .invalid)
    #expect(failure("   ")?.message.hasPrefix("missing date") == true)
    #expect(failure("+99999999999d")?.message == #"invalid date "+99999999999d": +99999999999d is too far away"#)
    #expect(failure("+9999999d")?.message.contains("out of range (1970-9999)") == true)
    #expect(commandError { () throws(CommandError) in try parser.parse(words: []) }?.kind == .invalid)
  }

  @Test("error messages escape control characters")
  func escapedInput() {
    #expect(
      failure("to\u{1B}day")?.message
        == "cannot understand \"to^[day\" as a date: try 2026-12-01 10:00, today, tomorrow, mon, next fri, dec 1, +3d, in 2h"
    )
  }
}

@Suite("WHEN across DST (America/New_York)")
struct WhenDSTTests {
  /// Saturday 2026-10-31 12:00 EDT; clocks fall back on Sunday 2026-11-01 at 02:00.
  let fallClock = Clock.fixed(Fixture.instant("2026-10-31T12:00:00-04:00"), timeZone: Fixture.newYork)
  /// Saturday 2026-03-07 12:00 EST; clocks spring forward on Sunday 2026-03-08 at 02:00.
  let springClock = Clock.fixed(Fixture.instant("2026-03-07T12:00:00-05:00"), timeZone: Fixture.newYork)

  @Test("wall-clock times keep their local hour on the far side of the change")
  func fallBack() throws {
    let parser = WhenParser(clock: fallClock)
    #expect(try parser.parse("tomorrow 10:00").instant(in: fallClock) == Fixture.instant("2026-11-01T10:00:00-05:00"))
    #expect(try parser.parse("today 10:00").instant(in: fallClock) == Fixture.instant("2026-10-31T10:00:00-04:00"))
    #expect(try parser.parse("+1d").day == Fixture.instant("2026-11-01T00:00:00-04:00"))
    #expect(try parser.parse("+2d").day == Fixture.instant("2026-11-02T00:00:00-05:00"))
    #expect(try parser.parse("sun 23:00").instant(in: fallClock) == Fixture.instant("2026-11-01T23:00:00-05:00"))
  }

  @Test("the repeated fall-back hour means its first (daylight) occurrence")
  func repeatedHour() throws {
    let parser = WhenParser(clock: fallClock)
    #expect(try parser.parse("2026-11-01 01:30").instant(in: fallClock) == Fixture.instant("2026-11-01T01:30:00-04:00"))
  }

  @Test("spring forward: later times keep their hour; the missing hour moves forward by the gap")
  func springForward() throws {
    let parser = WhenParser(clock: springClock)
    #expect(try parser.parse("tomorrow 10:00").instant(in: springClock) == Fixture.instant("2026-03-08T10:00:00-04:00"))
    #expect(
      try parser.parse("2026-03-08 01:59").instant(in: springClock) == Fixture.instant("2026-03-08T01:59:00-05:00")
    )
    #expect(
      try parser.parse("2026-03-08 02:30").instant(in: springClock) == Fixture.instant("2026-03-08T03:30:00-04:00")
    )
  }
}
