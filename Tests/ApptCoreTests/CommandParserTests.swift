import Foundation
import Testing

@testable import ApptCore

@Suite("Command parser")
struct CommandParserTests {
  let parser = CommandParser(clock: Fixture.clock)

  func parse(_ line: String) throws(CommandError) -> Command? {
    try parser.parse(line: line)
  }

  func failure(_ line: String) -> CommandError? {
    commandError { () throws(CommandError) in try parser.parse(line: line) }
  }

  func add(_ title: String, _ start: String, _ end: String, note: String = "") -> Command {
    .add(AddRequest(title: title, start: Fixture.instant(start), end: Fixture.instant(end), note: note))
  }

  func list(_ start: String, _ end: String, includeCancelled: Bool = false, search: String? = nil) -> Command {
    .list(
      ListRequest(
        range: DateInterval(start: Fixture.instant(start), end: Fixture.instant(end)),
        includeCancelled: includeCancelled,
        search: search
      )
    )
  }

  // MARK: - Lines

  @Test("blank and comment lines parse to nil")
  func blankLines() throws {
    #expect(try parse("") == nil)
    #expect(try parse("  # nothing") == nil)
  }

  @Test("the words form needs a command")
  func noWords() {
    #expect(commandError { () throws(CommandError) in try parser.parse(words: []) }?.kind == .usage)
  }

  @Test("unknown command")
  func unknownCommand() {
    #expect(failure("frobnicate now") == .usage(#"unknown command "frobnicate"; try 'help'"#))
    #expect(failure("ADD x --at today")?.kind == .usage)
  }

  // MARK: - add

  @Test("add with the default duration of one hour")
  func addDefault() throws {
    #expect(
      try parse("add Dentist --at 2026-12-01 10:00")
        == add("Dentist", "2026-12-01T10:00:00+01:00", "2026-12-01T11:00:00+01:00")
    )
  }

  @Test("add accepts its options in any order and in --opt=value form")
  func addForms() throws {
    let expected = add("Dentist", "2026-12-01T10:00:00+01:00", "2026-12-01T10:45:00+01:00", note: "bring card")
    #expect(try parse("add Dentist --at '2026-12-01 10:00' --for 45m --note 'bring card'") == expected)
    #expect(try parse("add --for 45m --note 'bring card' --at 2026-12-01T10:00 Dentist") == expected)
    #expect(try parse("add Dentist --at=2026-12-01 10:00 --for=45m --note='bring card'") == expected)
    #expect(try parse("add --note=\"bring card\" Dentist --at=tue 10am --for=45") == expected)
  }

  @Test("add joins several title words with single spaces and trims")
  func addTitleWords() throws {
    #expect(
      try parse("add Lunch with   Bob --at tomorrow 12:30")
        == add("Lunch with Bob", "2026-11-30T12:30:00+01:00", "2026-11-30T13:30:00+01:00")
    )
    #expect(
      try parse("add Lunch --at tomorrow 12:30 with Bob")
        == add("Lunch with Bob", "2026-11-30T12:30:00+01:00", "2026-11-30T13:30:00+01:00")
    )
    // A date without a time is a whole day.
    let review = AddRequest(
      title: "Review",
      start: Fixture.instant("2026-11-30T00:00:00+01:00"),
      end: Fixture.instant("2026-12-01T00:00:00+01:00"),
      isAllDay: true
    )
    #expect(try parse("add '  Review  ' --at mon") == .add(review))
  }

  @Test("-- ends the options")
  func addDoubleDash() throws {
    #expect(
      try parse("add --at today 9am -- --weird -x title")
        == add("--weird -x title", "2026-11-29T09:00:00+01:00", "2026-11-29T10:00:00+01:00")
    )
  }

  @Test("a value may start with a single dash")
  func dashValue() throws {
    #expect(
      try parse("add Past --at -1d 10:00")
        == add("Past", "2026-11-28T10:00:00+01:00", "2026-11-28T11:00:00+01:00")
    )
  }

  @Test("--until with a time ends on the start's day")
  func addUntilTime() throws {
    #expect(
      try parse("add Meeting --at 2026-12-01 10:00 --until 11:30")
        == add("Meeting", "2026-12-01T10:00:00+01:00", "2026-12-01T11:30:00+01:00")
    )
    #expect(
      try parse("add Meeting --at tue 10am --until 3pm")
        == add("Meeting", "2026-12-01T10:00:00+01:00", "2026-12-01T15:00:00+01:00")
    )
  }

  @Test("--until with a full WHEN, or a date meaning the whole day")
  func addUntilWhen() throws {
    #expect(
      try parse("add Trip --at 2026-12-01 22:00 --until 2026-12-02 06:00")
        == add("Trip", "2026-12-01T22:00:00+01:00", "2026-12-02T06:00:00+01:00")
    )
    #expect(
      try parse("add Conference --at 2026-12-01 09:00 --until 2026-12-03")
        == add("Conference", "2026-12-01T09:00:00+01:00", "2026-12-04T00:00:00+01:00")
    )
  }

  @Test("--until must not be before the start; at the start, or --for 0, is a moment")
  func addUntilBefore() throws {
    #expect(
      failure("add Meeting --at 2026-12-01 10:00 --until 09:00")
        == .invalid("end 09:00 is before start 10:00")
    )
    #expect(
      failure("add Meeting --at 2026-12-03 10:00 --until 2026-12-01")
        == .invalid("end 2026-12-02 00:00 is before start 2026-12-03 10:00")
    )
    let moment = add("Deadline", "2026-12-01T10:00:00+01:00", "2026-12-01T10:00:00+01:00")
    #expect(try parse("add Deadline --at 2026-12-01 10:00 --until 10:00") == moment)
    #expect(try parse("add Deadline --at 2026-12-01 10:00 --for 0") == moment)
    #expect(
      failure("add Day --at 2026-12-01 --all-day --for 0d")
        == .invalid(#"invalid duration "0d": must be more than zero"#)
    )
  }

  @Test("--until more than 366 days later")
  func addUntilTooLong() {
    #expect(failure("add Year --at 2026-12-01 10:00 --until 2028-12-01")?.kind == .invalid)
    #expect(failure("add Year --at 2026-12-01 --until 2028-12-01")?.kind == .invalid, "whole days too")
  }

  @Test(
    "add usage errors",
    arguments: [
      ("add Dentist", "add: missing --at WHEN"),
      ("add --at today", "add: missing TITLE"),
      ("add", "add: missing TITLE"),
      ("add Dentist --at today --colour red", "add: unknown option --colour"),
      ("add Dentist --at today -x", "add: unknown option -x"),
      ("add Dentist --at", "add: --at needs a value"),
      ("add Dentist --at --for 1h", "add: --at needs a value"),
      ("add Dentist --at today --note", "add: --note needs a value"),
      ("add Dentist --at today --at tomorrow", "add: --at given more than once"),
      ("add Dentist --at today --for 1h --until 3pm", "add: give --for or --until, not both"),
      ("add Dentist --at today --every 2", "add: --every needs --repeat"),
      (
        "add Dentist --at today --repeat weekly --count 2 --until-date dec 24",
        "add: give --count or --until-date, not both"
      ),
      (
        "add Dentist --at today 10:00 --rrule FREQ=DAILY --repeat daily",
        "add: give --rrule or --repeat, not both (an RRULE says it all)"
      ),
      ("add Dentist --at today 10:00 --in nov", "add: --in needs --repeat"),
    ]
  )
  func addUsage(line: String, message: String) {
    #expect(failure(line) == .usage(message))
  }

  @Test(
    "add invalid values",
    arguments: [
      ("add '  ' --at today", "add: the title is empty"),
      (
        "add Dentist --at fooday",
        #"cannot understand "fooday" as a date: try 2026-12-01 10:00, today, tomorrow, mon, next fri, dec 1, +3d, in 2h"#
      ),
      (
        "add Dentist --at 2026-02-30 10:00",
        #"invalid date "2026-02-30 10:00": day 30 is out of range (February 2026 has 28 days)"#
      ),
      ("add Dentist --at 2026-12-01 25:00", #"invalid date "2026-12-01 25:00": hour 25 is out of range (0-23)"#),
      ("add Dentist --at today --for 0m", #"invalid duration "0m": must be more than zero"#),
      ("add Dentist --at today 10:00 --for -1h", #"invalid duration "-1h": must be zero or more"#),
      (
        "add Dentist --at today --for soon",
        #"cannot understand "soon" as a duration: try 45m, 1h, 1h30m, 90 (minutes)"#
      ),
    ]
  )
  func addInvalid(line: String, message: String) {
    #expect(failure(line) == .invalid(message))
  }

  @Test("usage errors come before invalid values")
  func usageFirst() {
    #expect(failure("add Dentist --at fooday --colour red") == .usage("add: unknown option --colour"))
    #expect(failure("add --at 2026-02-30 10:00") == .usage("add: missing TITLE"))
    #expect(
      failure("list --from 2026-13-01 --all")
        == .usage("list: --all cannot be combined with --from, --to, --days, --week or --month")
    )
    #expect(failure("edit abcd --at fooday --until x") == .usage("edit: unknown option --until"))
  }

  @Test("the two-word WHEN also follows the --opt=value form")
  func inlineTwoWords() throws {
    #expect(
      try parse("add X --at=2026-12-01 9:30 --until=10am")
        == add("X", "2026-12-01T09:30:00+01:00", "2026-12-01T10:00:00+01:00")
    )
  }

  @Test("the note is kept as given, empty by default")
  func addNote() throws {
    guard case .add(let request)? = try parse("add X --at today --note '  two  spaces  '") else {
      Issue.record("not an add")
      return
    }
    #expect(request.note == "  two  spaces  ")
    guard case .add(let plain)? = try parse("add X --at today") else { return }
    #expect(plain.note == "")
  }

  @Test("add --help is help for add")
  func addHelp() throws {
    #expect(try parse("add --help") == .help(topic: "add"))
    #expect(try parse("add Dentist -h") == .help(topic: "add"))
  }

  // MARK: - list

  @Test("list without a range: today and the next 6 days")
  func listDefault() throws {
    #expect(try parse("list") == list("2026-11-29T00:00:00+01:00", "2026-12-06T00:00:00+01:00"))
  }

  @Test("list --from a date starts at its midnight, or at the time given")
  func listFrom() throws {
    #expect(try parse("list --from 2026-12-01") == list("2026-12-01T00:00:00+01:00", "2026-12-08T00:00:00+01:00"))
    #expect(
      try parse("list --from 2026-12-01 10:00 --days 1")
        == list("2026-12-01T10:00:00+01:00", "2026-12-02T10:00:00+01:00")
    )
  }

  @Test("list --to a date includes that day; with a time it ends there")
  func listTo() throws {
    #expect(
      try parse("list --from 2026-12-01 --to 2026-12-03")
        == list("2026-12-01T00:00:00+01:00", "2026-12-04T00:00:00+01:00")
    )
    #expect(
      try parse("list --from 2026-12-01 --to 2026-12-03 12:00")
        == list("2026-12-01T00:00:00+01:00", "2026-12-03T12:00:00+01:00")
    )
    #expect(try parse("list --to tomorrow") == list("2026-11-29T00:00:00+01:00", "2026-12-01T00:00:00+01:00"))
    #expect(try parse("list --from today --to today") == list("2026-11-29T00:00:00+01:00", "2026-11-30T00:00:00+01:00"))
  }

  @Test("list --days N")
  func listDays() throws {
    #expect(try parse("list --days 1") == list("2026-11-29T00:00:00+01:00", "2026-11-30T00:00:00+01:00"))
    #expect(try parse("list --from mon --days=14") == list("2026-11-30T00:00:00+01:00", "2026-12-14T00:00:00+01:00"))
  }

  @Test("list flags and search")
  func listFlags() throws {
    #expect(
      try parse("list --include-cancelled --search 'Dr. Who'")
        == list("2026-11-29T00:00:00+01:00", "2026-12-06T00:00:00+01:00", includeCancelled: true, search: "Dr. Who")
    )
    #expect(try parse("list --all") == .list(ListRequest(range: nil)))
    #expect(
      try parse("list --search dentist --all --include-cancelled")
        == .list(ListRequest(range: nil, includeCancelled: true, search: "dentist"))
    )
  }

  @Test("reversed and empty ranges")
  func listReversed() {
    #expect(
      failure("list --from 2026-12-05 --to 2026-12-01")
        == .invalid("reversed range: --from 2026-12-05 is after --to 2026-12-01")
    )
    #expect(
      failure("list --from 2026-12-05 --to 2026-12-04")
        == .invalid("reversed range: --from 2026-12-05 is after --to 2026-12-04")
    )
    #expect(
      failure("list --from '2026-12-05 10:00' --to 2026-12-05 10:00")
        == .invalid("empty range: --from 2026-12-05 10:00 and --to 2026-12-05 10:00 are the same instant")
    )
    #expect(
      failure("list --to 2026-11-01")
        == .invalid(
          "reversed range: --to 2026-11-01 is before today (Sun 2026-11-29), where the list starts; give --from too"
        )
    )
  }

  @Test(
    "list usage errors",
    arguments: [
      ("list --to 2026-12-01 --days 3", "list: give --to or --days, not both"),
      ("list --all --from today", "list: --all cannot be combined with --from, --to, --days, --week or --month"),
      ("list --all --days 3", "list: --all cannot be combined with --from, --to, --days, --week or --month"),
      ("list --all=yes", "list: --all takes no value"),
      ("list --all --all", "list: --all given more than once"),
      ("list tomorrow", #"list: unexpected argument "tomorrow""#),
      ("list --from", "list: --from needs a value"),
      ("list --sort start", "list: unknown option --sort"),
    ]
  )
  func listUsage(line: String, message: String) {
    #expect(failure(line) == .usage(message))
  }

  @Test(
    "list --days must be a whole number from 1 to 100000",
    arguments: ["0", "-1", "x", "1.5", "100001", "99999999999999999999999"]
  )
  func listDaysInvalid(value: String) {
    #expect(
      failure("list --days=\(value)")
        == .invalid("list: --days needs a whole number from 1 to 100000, not \"\(value)\"")
    )
  }

  @Test("list --search needs text")
  func listEmptySearch() {
    #expect(failure("list --search ''") == .invalid("list: --search needs some text"))
  }

  // MARK: - ids

  @Test("id commands take one id, lower-cased", arguments: ["show", "cancel", "restore", "delete"])
  func idCommands(name: String) throws {
    let command = try parse("\(name) 1A2B-3c")
    switch (name, command) {
    case ("show", .show(let id)?), ("cancel", .cancel(let id, nil, false, nil)?),
      ("restore", .restore(let id, nil, nil)?),
      ("delete", .delete(let id, nil)?):
      #expect(id == "1a2b-3c")
    default:
      Issue.record("\(name) parsed as \(String(describing: command))")
    }
  }

  @Test("id errors", arguments: ["show", "cancel", "restore", "delete"])
  func idErrors(name: String) throws {
    #expect(failure(name) == .usage("\(name): missing ID"))
    #expect(failure("\(name) abcd ef01") == .usage("\(name): unexpected argument \"ef01\""))
    #expect(failure("\(name) xyz") == .invalid("invalid id \"xyz\": use 4 or more hex characters of the id"))
    #expect(failure("\(name) abc") == .invalid("invalid id \"abc\": use 4 or more hex characters of the id"))
    #expect(failure("\(name) abcg") == .invalid("invalid id \"abcg\": use 4 or more hex characters of the id"))
    #expect(failure("\(name) abcd --force") == .usage("\(name): unknown option --force"))
    #expect(try parse("\(name) --help") == .help(topic: name))
  }

  @Test("a full id is fine, anything longer is not")
  func idLength() throws {
    let full = "1a2b3c4d-0000-4000-8000-00000000abcd"
    #expect(try parse("show \(full.uppercased())") == .show(id: full))
    #expect(failure("show \(full)0")?.message == "invalid id \"\(full)0\": longer than a full id (36 characters)")
  }

  // MARK: - edit

  @Test("edit changes only what is given")
  func edit() throws {
    #expect(try parse("edit ABCD --title '  New title '") == .edit(EditRequest(id: "abcd", title: "New title")))
    #expect(
      try parse("edit abcd --at 2026-12-02 09:00 --for 1h30m --note ''")
        == .edit(
          EditRequest(id: "abcd", start: Fixture.instant("2026-12-02T09:00:00+01:00"), duration: 5400, note: "")
        )
    )
    #expect(try parse("edit --note=hi abcd") == .edit(EditRequest(id: "abcd", note: "hi")))
  }

  @Test("edit errors")
  func editErrors() {
    #expect(failure("edit") == .usage("edit: missing ID"))
    #expect(
      failure("edit abcd")
        == .usage("edit: nothing to change; give --title, --at, --for, --note, --location, --calendar or --remind")
    )
    #expect(failure("edit abcd --until 3pm") == .usage("edit: unknown option --until"))
    #expect(failure("edit abcd ef01 --title x") == .usage(#"edit: unexpected argument "ef01""#))
    #expect(failure("edit abcd --title ''") == .invalid("edit: the title is empty"))
    #expect(failure("edit zz --title x") == .invalid(#"invalid id "zz": use 4 or more hex characters of the id"#))
    #expect(failure("edit abcd --for -5m") == .invalid(#"invalid duration "-5m": must be zero or more"#))
  }

  // MARK: - help

  @Test("help and its spellings")
  func help() throws {
    #expect(try parse("help") == .help(topic: nil))
    #expect(try parse("--help") == .help(topic: nil))
    #expect(try parse("-h") == .help(topic: nil))
    #expect(try parse("help list") == .help(topic: "list"))
    #expect(try parse("--help edit") == .help(topic: "edit"))
    #expect(try parse("help help") == .help(topic: "help"))
    #expect(try parse("help --help") == .help(topic: "help"))
    #expect(try parse("list --from today --help") == .help(topic: "list"))
  }

  @Test("help errors")
  func helpErrors() {
    #expect(failure("help frobnicate") == .usage(#"help: unknown command "frobnicate"; try 'help'"#))
    #expect(failure("help add list") == .usage(#"help: unexpected argument "list""#))
  }
}

@Suite("Command parser across DST (America/New_York)")
struct CommandParserDSTTests {
  @Test("a day-long list window on the fall-back day is 25 hours")
  func fallBackDay() throws {
    let clock = Clock.fixed(Fixture.instant("2026-10-31T12:00:00-04:00"), timeZone: Fixture.newYork)
    let parser = CommandParser(clock: clock)
    guard case .list(let request)? = try parser.parse(line: "list --from tomorrow --days 1") else {
      Issue.record("not a list")
      return
    }
    #expect(request.range?.start == Fixture.instant("2026-11-01T00:00:00-04:00"))
    #expect(request.range?.end == Fixture.instant("2026-11-02T00:00:00-05:00"))
    #expect(request.range?.duration == TimeInterval(25 * 3600))
  }

  @Test("a default week spanning spring-forward ends at local midnight")
  func springWeek() throws {
    let clock = Clock.fixed(Fixture.instant("2026-03-07T12:00:00-05:00"), timeZone: Fixture.newYork)
    let parser = CommandParser(clock: clock)
    guard case .list(let request)? = try parser.parse(line: "list") else {
      Issue.record("not a list")
      return
    }
    #expect(request.range?.start == Fixture.instant("2026-03-07T00:00:00-05:00"))
    #expect(request.range?.end == Fixture.instant("2026-03-14T00:00:00-04:00"))
  }

  @Test("--for is elapsed time; --until is wall-clock time across the change")
  func durationsAcrossChange() throws {
    let clock = Clock.fixed(Fixture.instant("2026-10-31T12:00:00-04:00"), timeZone: Fixture.newYork)
    let parser = CommandParser(clock: clock)
    #expect(
      try parser.parse(line: "add Night --at 2026-11-01 00:30 --for 3h")
        == .add(
          AddRequest(
            title: "Night",
            start: Fixture.instant("2026-11-01T00:30:00-04:00"),
            end: Fixture.instant("2026-11-01T02:30:00-05:00")
          )
        )
    )
    #expect(
      try parser.parse(line: "add Night --at 2026-11-01 00:30 --until 03:30")
        == .add(
          AddRequest(
            title: "Night",
            start: Fixture.instant("2026-11-01T00:30:00-04:00"),
            end: Fixture.instant("2026-11-01T03:30:00-05:00")
          )
        )
    )
  }
}
