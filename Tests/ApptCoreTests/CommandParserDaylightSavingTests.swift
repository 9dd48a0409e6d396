import Foundation
import Testing

@testable import ApptCore

/// Daylight saving on the command line: a time typed in a spring-forward gap or an
/// autumn overlap, on `add --at` and `edit --at`, is saved with a notice saying which instant
/// it became, at the Berlin (2027-03-28 / 2027-10-31) and New York (2027-03-14 / 2027-11-07)
/// changes; a series whose first occurrence falls on such a day says so too.
@Suite("Command parser: DST gap and overlap at Berlin and New York")
struct CommandParserDaylightSavingTests {
  struct Case: Sendable, CustomStringConvertible {
    var zone: String
    var typed: String
    var instant: String
    var message: String
    var description: String { "\(zone) \(typed)" }
  }

  static let cases = [
    Case(
      zone: "Europe/Berlin",
      typed: "2027-03-28 02:30",
      instant: "2027-03-28T03:30:00+02:00",
      message: "02:30 does not exist on 28 March 2027 in Europe/Berlin; saved at 03:30"
    ),
    Case(
      zone: "Europe/Berlin",
      typed: "2027-10-31 02:30",
      instant: "2027-10-31T02:30:00+02:00",
      message: "02:30 happens twice on 31 October 2027 in Europe/Berlin; saved the first (+02:00)"
    ),
    Case(
      zone: "America/New_York",
      typed: "2027-03-14 02:30",
      instant: "2027-03-14T03:30:00-04:00",
      message: "02:30 does not exist on 14 March 2027 in America/New_York; saved at 03:30"
    ),
    Case(
      zone: "America/New_York",
      typed: "2027-11-07 01:30",
      instant: "2027-11-07T01:30:00-04:00",
      message: "01:30 happens twice on 7 November 2027 in America/New_York; saved the first (-04:00)"
    ),
  ]

  func parser(_ zone: String) -> CommandParser {
    CommandParser(clock: Clock.fixed(Fixture.instant("2027-01-15T12:00:00Z"), timeZone: Fixture.zone(zone)))
  }

  @Test("add --at", arguments: cases)
  func add(_ c: Case) throws {
    guard case .add(let request) = try parser(c.zone).parse(words: ["add", "x", "--at", c.typed]) else {
      Issue.record("not an add")
      return
    }
    #expect(request.start == Fixture.instant(c.instant))
    #expect(request.notice?.message == c.message)
  }

  @Test("edit --at", arguments: cases)
  func edit(_ c: Case) throws {
    guard case .edit(let request) = try parser(c.zone).parse(words: ["edit", "abcd", "--at", c.typed]) else {
      Issue.record("not an edit")
      return
    }
    #expect(request.start == Fixture.instant(c.instant))
    #expect(request.notice?.message == c.message)
  }

  @Test("a series moved to its first occurrence on a change day says so", arguments: cases)
  func seriesStart(_ c: Case) throws {
    // Typed on the Saturday before: the first Sunday is the change day, at the typed time,
    // which that day does not have or has twice.
    let changeDay = Fixture.instant(c.typed.prefix(10) + "T12:00:00Z")
    let saturday = AppointmentFormatter(clock: Clock.fixed(changeDay, timeZone: .gmt)).isoDay(
      changeDay.addingTimeInterval(-86_400)
    )
    let words = ["add", "x", "--at", "\(saturday) \(c.typed.suffix(5))", "--repeat", "weekly", "--on", "sun"]
    guard case .add(let moved) = try parser(c.zone).parse(words: words) else {
      Issue.record("not an add")
      return
    }
    #expect(moved.start == Fixture.instant(c.instant), "the first Sunday is the change day")
    #expect(moved.notice?.message == c.message, "never taken silently")
  }
}
