import Foundation
import Testing

@testable import ApptCore

/// The grammar of series beyond weekdays: `--on` ordinal weekdays and month days,
/// `--in` months, `--rrule`, `--location`, and `--and-following` on edit and cancel.
@Suite("Command parser: series, location, and-following")
struct CommandParserRecurrenceTests {
  let parser = CommandParser(clock: Fixture.clock)

  func request(_ line: String) throws -> AddRequest {
    guard case .add(let request) = try parser.parse(line: line) else { throw CommandError.invalid("not an add") }
    return request
  }

  func rules(_ line: String) throws -> [String] {
    try request(line).recurrence?.rules.map(\.text) ?? []
  }

  func failure(_ line: String) -> CommandError? {
    commandError { () throws(CommandError) in try parser.parse(line: line) }
  }

  @Test(
    "--on and --in become the RRULE parts",
    arguments: [
      ("--repeat monthly --on 2nd-tue", "FREQ=MONTHLY;BYDAY=2TU"),
      ("--repeat monthly --on last-fri", "FREQ=MONTHLY;BYDAY=-1FR"),
      ("--repeat monthly --on 2nd-last-fri", "FREQ=MONTHLY;BYDAY=-2FR"),
      ("--repeat monthly --on 15,-1", "FREQ=MONTHLY;BYMONTHDAY=15,-1"),
      ("--repeat monthly --on 1st-mon,3rd-mon", "FREQ=MONTHLY;BYDAY=1MO,3MO"),
      ("--repeat monthly --on 3rd-Monday,1st-mon", "FREQ=MONTHLY;BYDAY=1MO,3MO"),
      ("--repeat yearly --on 4th-thu --in nov", "FREQ=YEARLY;BYDAY=4TH;BYMONTH=11"),
      ("--repeat yearly --on 1 --in jan,7", "FREQ=YEARLY;BYMONTHDAY=1;BYMONTH=1,7"),
      ("--repeat yearly --in November", "FREQ=YEARLY;BYMONTH=11"),
      ("--repeat weekly --on mon,wed", "FREQ=WEEKLY;BYDAY=MO,WE"),
      ("--repeat weekly --on wed,mon,wed", "FREQ=WEEKLY;BYDAY=MO,WE"),
      ("--repeat daily --on mon,tue,wed,thu,fri", "FREQ=DAILY;BYDAY=MO,TU,WE,TH,FR"),
      ("--repeat monthly --on 2nd-tue --every 2 --count 5", "FREQ=MONTHLY;COUNT=5;INTERVAL=2;BYDAY=2TU"),
    ]
  )
  func onAndIn(options: String, rule: String) throws {
    #expect(try rules("add Board --at 2026-12-01 10:00 \(options)") == [rule])
  }

  @Test("a series starts at its first occurrence on or after --at")
  func startsAtFirstOccurrence() throws {
    // 2026-12-01 is the first Tuesday of December; the second is the 8th.
    let board = try request("add Board --at 2026-12-01 10:00 --for 90m --repeat monthly --on 2nd-tue")
    #expect(board.start == Fixture.instant("2026-12-08T10:00:00+01:00"))
    #expect(board.end == Fixture.instant("2026-12-08T11:30:00+01:00"))
    let thanksgiving = try request("add Turkey --at 2026-12-01 --repeat yearly --on 4th-thu --in nov")
    #expect(thanksgiving.isAllDay)
    #expect(thanksgiving.start == Fixture.instant("2027-11-25T00:00:00+01:00"))
    // A start the rule matches stays where it is.
    #expect(
      try request("add W --at 2026-12-01 10:00 --repeat weekly").start == Fixture.instant("2026-12-01T10:00:00+01:00")
    )
    // 31 February never happens.
    #expect(
      failure("add X --at 2026-12-01 10:00 --repeat yearly --on 31 --in feb")
        == .invalid(
          "add: the series never happens after its start (FREQ=YEARLY;BYMONTHDAY=31;BYMONTH=2); check --on and --in"
        )
    )
  }

  @Test(
    "each bad --on or --in value names the input",
    arguments: [
      ("--repeat monthly --on 6th-tue", "add: --on 6th-tue: a month has at most 5 Tuesdays; write 1st-5th or last"),
      ("--repeat monthly --on 0th-fri", "add: --on 0th-fri: a month has at most 5 Fridays; write 1st-5th or last"),
      ("--repeat monthly --on 32", "add: --on 32: a month has at most 31 days; write 1 to 31, or -1 for the last day"),
      ("--repeat monthly --on 0", "add: --on 0: a month has at most 31 days; write 1 to 31, or -1 for the last day"),
      (
        "--repeat monthly --on 2nd-funday",
        "add: --on 2nd-funday: not a weekday (mon), an ordinal weekday (2nd-tue, last-fri) or a day of the month (15, -1)"
      ),
      ("--repeat weekly --on 2nd-tue", "add: --on 2nd-tue: an ordinal weekday goes with --repeat monthly or yearly"),
      ("--repeat weekly --on 15", "add: --on 15: a day of the month goes with --repeat monthly or yearly"),
      ("--repeat monthly --on mon,15", #"add: --on "mon,15": give weekdays or days of the month, not both"#),
      ("--repeat monthly --on mon,,tue", #"add: --on "mon,,tue" has an empty item; separate days with single commas"#),
      ("--repeat yearly --in 13", "add: --in 13: months are 1 to 12, or names such as nov"),
      ("--repeat yearly --in nob", "add: --in nob: not a month; write names (jan, november) or numbers 1 to 12"),
    ]
  )
  func badValues(options: String, message: String) {
    #expect(failure("add Board --at 2026-12-01 10:00 \(options)") == .invalid(message))
  }

  @Test("--rrule takes any rule, several times; it excludes --repeat and its options")
  func rrule() throws {
    #expect(
      try rules("add X --at 2026-12-01 10:00 --rrule 'FREQ=MONTHLY;BYDAY=MO,TU,WE,TH,FR;BYSETPOS=-1'") == [
        "FREQ=MONTHLY;BYDAY=MO,TU,WE,TH,FR;BYSETPOS=-1"
      ]
    )
    #expect(
      try rules("add X --at 2026-12-01 10:00 --rrule FREQ=WEEKLY;BYDAY=TU --rrule=freq=monthly;bymonthday=15")
        == ["FREQ=WEEKLY;BYDAY=TU", "FREQ=MONTHLY;BYMONTHDAY=15"]
    )
    #expect(
      failure("add X --at 2026-12-01 10:00 --rrule 'FREQ=MONTHLY;BYDAY=9XX'")
        == .invalid(
          #"add: --rrule "FREQ=MONTHLY;BYDAY=9XX": RRULE BYDAY=9XX: expected weekdays such as MO, 2TU or -1FR, separated by commas"#
        )
    )
    for option in ["--repeat weekly", "--count 3", "--every 2", "--on mon", "--in nov", "--until-date dec 24"] {
      #expect(
        failure("add X --at 2026-12-01 10:00 --rrule FREQ=DAILY \(option)")
          == .usage("add: give --rrule or \(option.split(separator: " ")[0]), not both (an RRULE says it all)")
      )
    }
    #expect(failure("add X --at 2026-12-01 10:00 --rrule") == .usage("add: --rrule needs a value"))
  }

  @Test("the common options still work with --repeat")
  func commonOptions() throws {
    #expect(
      try rules("add X --at 2026-12-01 10:00 --repeat weekly --every 2 --on mon,wed --count 10")
        == ["FREQ=WEEKLY;COUNT=10;INTERVAL=2;BYDAY=MO,WE"]
    )
    let until = try request("add X --at 2026-12-01 10:00 --repeat daily --until-date 2026-12-24")
    #expect(until.recurrence?.until == Fixture.instant("2026-12-24T23:59:59+01:00"))
  }

  @Test("--location on add and edit")
  func location() throws {
    #expect(try request("add X --at 2026-12-01 10:00 --location 'Room 4'").location == "Room 4")
    #expect(try request("add X --at 2026-12-01 10:00").location == "")
    #expect(try parser.parse(line: "edit abcd --location Lab") == .edit(EditRequest(id: "abcd", location: "Lab")))
    #expect(try parser.parse(line: "edit abcd --location ''") == .edit(EditRequest(id: "abcd", location: "")))
    let long = String(repeating: "x", count: 1001)
    #expect(
      failure("add X --at 2026-12-01 10:00 --location \(long)")
        == .invalid("add: the location is 1001 characters long; at most 1000")
    )
  }

  @Test("--and-following goes with --occurrence, on edit and cancel")
  func andFollowing() throws {
    let day = Fixture.instant("2026-12-08T00:00:00+01:00")
    #expect(
      try parser.parse(line: "edit abcd --occurrence 2026-12-08 --and-following --title New")
        == .edit(EditRequest(id: "abcd", title: "New", occurrence: day, andFollowing: true))
    )
    #expect(
      try parser.parse(line: "edit abcd --occurrence 2026-12-08 --title New")
        == .edit(EditRequest(id: "abcd", title: "New", occurrence: day))
    )
    #expect(
      try parser.parse(line: "cancel abcd --occurrence 2026-12-08 --and-following")
        == .cancel(id: "abcd", occurrence: day, andFollowing: true)
    )
    #expect(
      failure("edit abcd --and-following --title New")
        == .usage("edit: --and-following needs --occurrence DATE (the first occurrence it changes)")
    )
    #expect(
      failure("cancel abcd --and-following")
        == .usage("cancel: --and-following needs --occurrence DATE (the first occurrence it changes)")
    )
    #expect(
      failure("edit abcd --occurrence 2026-12-08 --and-following")
        == .usage("edit: nothing to change; give --title, --at, --for, --note, --location, --calendar or --remind")
    )
    #expect(failure("restore abcd --and-following") == .usage("restore: unknown option --and-following"))
  }

  @Test("help names the new options")
  func help() {
    let add = CommandHelp.usage(for: "add") ?? ""
    for word in ["--location TEXT", "--in MONTHS", "--rrule RULE", "2nd-tue", "RULE      an RFC 5545 RRULE"] {
      #expect(add.contains(word), "add help lacks \(word)")
    }
    #expect(CommandHelp.usage(for: "edit")?.contains("--and-following") == true)
    #expect(CommandHelp.usage(for: "cancel")?.contains("--and-following") == true)
  }
}
