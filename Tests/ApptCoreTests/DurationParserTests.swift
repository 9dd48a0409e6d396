import Foundation
import Testing

@testable import ApptCore

@Suite("DURATION")
struct DurationParserTests {
  @Test(
    "accepted forms",
    arguments: [
      ("45m", 45), ("1h", 60), ("1h30m", 90), ("1H30M", 90), ("90", 90), ("1d", 1440),
      ("1h30", 90), ("2d 3h", 3060), ("2d3h15m", 3075), ("1d 2h30m", 1590), (" 15m ", 15),
      ("366d", 527_040), ("527040", 527_040), ("0h5m", 5),
    ]
  )
  func forms(text: String, minutes: Int) throws {
    #expect(try DurationParser.parse(text) == TimeInterval(minutes * 60))
  }

  @Test("zero and negative are refused", arguments: ["0", "0m", "0h0m", "0d", "-5m", "-1h"])
  func notPositive(text: String) {
    let error = commandError { () throws(CommandError) in try DurationParser.parse(text) }
    #expect(error == .invalid("invalid duration \"\(text)\": must be more than zero"))
  }

  @Test(
    "longer than 366 days or overflowing",
    arguments: ["367d", "366d1m", "527041", "99999999999999999999999m", "8785h"]
  )
  func tooLong(text: String) {
    let error = commandError { () throws(CommandError) in try DurationParser.parse(text) }
    #expect(error == .invalid("invalid duration \"\(text)\": longer than the limit of 366 days"))
  }

  @Test(
    "garbage gets the hint",
    arguments: ["abc", "1.5h", "h", "1x", "30m1h", "1m30", "1d30", "1h1h", "1 h", "+5m", "1h-5m"]
  )
  func garbage(text: String) {
    let error = commandError { () throws(CommandError) in try DurationParser.parse(text) }
    #expect(error == .invalid("cannot understand \"\(text)\" as a duration: try 45m, 1h, 1h30m, 90 (minutes)"))
  }

  @Test("empty input")
  func empty() {
    #expect(commandError { () throws(CommandError) in try DurationParser.parse("") }?.kind == .invalid)
  }

  @Test(
    "format",
    arguments: [
      (45, "45m"), (60, "1h"), (90, "1h30m"), (1440, "1d"), (3060, "2d 3h"), (1590, "1d 2h30m"),
      (1441, "1d 1m"), (0, "0m"), (-90, "-1h30m"),
    ]
  )
  func format(minutes: Int, expected: String) {
    #expect(DurationParser.format(TimeInterval(minutes * 60)) == expected)
  }

  @Test("format rounds to the minute and survives absurd values")
  func formatEdges() {
    #expect(DurationParser.format(29) == "0m")
    #expect(DurationParser.format(31) == "1m")
    #expect(DurationParser.format(.infinity) == "?")
    #expect(DurationParser.format(.nan) == "?")
    #expect(!DurationParser.format(1e300).isEmpty)
  }

  @Test("everything format prints parses back", arguments: [1, 45, 60, 90, 1440, 1441, 3060, 1590, 527_040])
  func roundTrip(minutes: Int) throws {
    let interval = TimeInterval(minutes * 60)
    #expect(try DurationParser.parse(DurationParser.format(interval)) == interval)
  }
}
