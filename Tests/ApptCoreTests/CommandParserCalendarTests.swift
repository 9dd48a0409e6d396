import Foundation
import Testing

@testable import ApptCore

@Suite("Command parser: calendars")
struct CommandParserCalendarTests {
  let parser = CommandParser(clock: Fixture.clock)

  func parse(_ line: String) throws(CommandError) -> Command? {
    try parser.parse(line: line)
  }

  func failure(_ line: String) -> CommandError? {
    commandError { () throws(CommandError) in try parser.parse(line: line) }
  }

  @Test("calendars and calendar add|rename|color|delete|show|hide|sync|unsync")
  func calendarCommands() throws {
    #expect(try parse("calendars") == .calendar(.list))
    #expect(try parse("calendar add Work") == .calendar(.add(name: "Work", color: nil)))
    #expect(
      try parse("calendar add 'Team events' --color=#FF8800") == .calendar(.add(name: "Team events", color: "#ff8800"))
    )
    #expect(try parse("calendar rename personal Home") == .calendar(.rename(old: "personal", new: "Home")))
    #expect(try parse("calendar color work Red") == .calendar(.color(name: "work", color: "red")))
    #expect(try parse("calendar delete work") == .calendar(.delete(name: "work", moveTo: nil, withAppointments: false)))
    #expect(
      try parse("calendar delete work --move-to personal")
        == .calendar(.delete(name: "work", moveTo: "personal", withAppointments: false))
    )
    #expect(
      try parse("calendar delete work --with-appointments")
        == .calendar(.delete(name: "work", moveTo: nil, withAppointments: true))
    )
    #expect(try parse("calendar hide work") == .calendar(.setShown(name: "work", shown: false)))
    #expect(try parse("calendar show work") == .calendar(.setShown(name: "work", shown: true)))
    #expect(try parse("calendar unsync cloud/Work") == .calendar(.setSyncs(name: "cloud/Work", syncs: false)))
    #expect(try parse("calendar sync 'cloud/Work'") == .calendar(.setSyncs(name: "cloud/Work", syncs: true)))
    #expect(try parse("calendar --help") == .help(topic: "calendar"))
    #expect(try parse("help calendars") == .help(topic: "calendars"))
  }

  @Test("calendar commands refuse what they cannot do")
  func calendarRefusals() {
    #expect(failure("calendar")?.kind == .usage)
    #expect(failure("calendar frobnicate x")?.kind == .usage)
    #expect(failure("calendar add")?.kind == .usage)
    #expect(failure("calendar add two words")?.kind == .usage)
    #expect(failure("calendar rename onlyone")?.kind == .usage)
    #expect(failure("calendar unsync")?.kind == .usage)
    #expect(failure("calendar add x --color purple")?.message.contains("not a colour") == true)
    #expect(failure("calendar add a/b")?.kind == .invalid)
    #expect(failure("calendar add '\(String(repeating: "x", count: 65))'")?.kind == .invalid)
    #expect(failure("calendar delete w --move-to p --with-appointments")?.kind == .usage)
    #expect(failure("calendars extra")?.kind == .usage)
    #expect(failure("calendar hide x --color red")?.kind == .usage)
  }

  @Test("--calendar and -c on add, list (repeatable), edit, import and export")
  func calendarOption() throws {
    guard case .add(let add) = try parse("add Standup --at 2026-12-01 09:00 -c work") else {
      Issue.record("not an add")
      return
    }
    #expect(add.calendar == "work")
    guard case .add(let long) = try parse("add Standup --at 2026-12-01 09:00 --calendar=work") else { return }
    #expect(long.calendar == "work")
    guard case .list(let list) = try parse("list -c work --calendar home --all") else {
      Issue.record("not a list")
      return
    }
    #expect(list.calendars == ["work", "home"])
    guard case .list(let plain) = try parse("list") else { return }
    #expect(plain.calendars == nil)
    guard case .edit(let edit) = try parse("edit 1a2b -c home") else {
      Issue.record("not an edit")
      return
    }
    #expect(edit.calendar == "home")
    #expect(try parse("import cal.ics -c work") == .importFile(path: "cal.ics", partial: false, calendar: "work"))
    #expect(try parse("export -c work out.ics") == .export(range: nil, path: "out.ics", calendar: "work"))
    #expect(failure("add x --at 10:00 -c")?.kind == .usage)
    #expect(failure("add x --at 10:00 -c work -c home")?.kind == .usage, "one calendar for an add")
    #expect(failure("show 1a2b -c work")?.kind == .usage, "show takes no -c")
    #expect(failure("list -c ' '")?.kind == .invalid)
  }

  @Test("calendar names and colours")
  func rules() throws {
    #expect(try CalendarRules.checkName("  Work  ") == "Work")
    #expect(throws: CommandError.self) { try CalendarRules.checkName("bad\u{1b}name") }
    #expect(CalendarRules.colorIndex("#ff0000") == 1)
    #expect(CalendarRules.colorIndex("#00ffff") == 6)
    #expect(CalendarRules.colorIndex("#101010") == 0)
    #expect(CalendarRules.colorIndex("magenta") == 5)
    #expect(CalendarRules.suggestion(for: "wrok", among: ["personal", "work"]) == "work")
    #expect(CalendarRules.suggestion(for: "zzzzzz", among: ["personal", "work"]) == nil)
    #expect(CalendarInfo(id: "x", name: "work").letter == "W")
  }

  @Test("export of one calendar names it in X-WR-CALNAME")
  func calendarName() {
    let text = ICalendar.write([], fallbackZone: .gmt, calendarName: "Work, home; etc")
    #expect(text.contains("X-WR-CALNAME:Work\\, home\\; etc\r\n"))
    #expect(!ICalendar.write([], fallbackZone: .gmt).contains("X-WR-CALNAME"))
  }
}

extension CommandParserCalendarTests {
  @Test("an empty name is refused naming what is empty")
  func emptyNames() {
    #expect(failure("calendar hide ''")?.message == "calendar hide: the calendar's name is empty")
    #expect(
      failure("calendar delete work --move-to ''")?.message == "calendar delete: --move-to needs a calendar's name"
    )
    #expect(failure("add x --at 10:00 -c ''")?.message == "add: --calendar needs a calendar's name")
  }
}
