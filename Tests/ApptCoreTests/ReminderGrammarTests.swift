import Foundation
import Testing

@testable import ApptCore

/// Reminders in the grammar: `--remind`/`--no-remind` on add and edit, `reminders`,
/// per-calendar defaults in the settings file, and how `show`/JSON print alarms.
@Suite("Reminders: grammar, settings, output")
struct ReminderGrammarTests {
  let parser = CommandParser(clock: Fixture.clock)

  func parse(_ line: String) throws(CommandError) -> Command? {
    try parser.parse(line: line)
  }

  func failure(_ line: String) -> CommandError? {
    commandError { () throws(CommandError) in try parser.parse(line: line) }
  }

  func add(_ line: String) throws -> AddRequest {
    guard case .add(let request) = try parse(line) else { throw CommandError.invalid("not an add: \(line)") }
    return request
  }

  func edit(_ line: String) throws -> EditRequest {
    guard case .edit(let request) = try parse(line) else { throw CommandError.invalid("not an edit: \(line)") }
    return request
  }

  func alarm(_ text: String, start: Date) throws -> Alarm {
    try Alarm.parse(text, start: start, zone: Fixture.paris)
  }

  // MARK: - add

  @Test func addTakesRemindersInOrderEachOnce() throws {
    let request = try add("add Standup --at 2026-12-03 09:00 --remind 15m --remind=1d --remind 15m")
    let start = Fixture.instant("2026-12-03T09:00:00+01:00")
    #expect(request.alarms == [try alarm("15m", start: start), try alarm("1d", start: start)])
    #expect(request.title == "Standup")
  }

  @Test func remindAtTakesTheTimeWordSoTheTitleStaysWhole() throws {
    let request = try add("add Standup --remind at 08:00 --at 2026-12-03 09:00 with Bob")
    #expect(request.title == "Standup with Bob")
    let start = Fixture.instant("2026-12-03T09:00:00+01:00")
    #expect(request.alarms == [try alarm("at 08:00", start: start)])
  }

  @Test func aSeriesReadsItsAlarmsAgainstItsFirstOccurrence() throws {
    // Sunday 29 Nov: the series starts on Tuesday 1 Dec.
    let request = try add("add Standup --at today 09:00 --repeat weekly --on tue --remind 'at 08:30'")
    #expect(request.start == Fixture.instant("2026-12-01T09:00:00+01:00"))
    #expect(request.alarms == [try alarm("at 08:30", start: request.start)])
  }

  @Test func withoutRemindTheDefaultsApplyAndNoRemindMeansNone() throws {
    #expect(try add("add Lunch --at 2026-12-03 12:00").alarms == nil)
    #expect(try add("add Lunch --at 2026-12-03 12:00 --no-remind").alarms == [])
  }

  @Test func mistakesAreUsageOrInvalidWithTheText() {
    #expect(
      failure("add Lunch --at 2026-12-03 12:00 --remind 15m --no-remind")
        == .usage("add: give --remind or --no-remind, not both")
    )
    #expect(failure("add Lunch --at 2026-12-03 12:00 --remind") == .usage("add: --remind needs a value"))
    #expect(failure("add Lunch --at 2026-12-03 12:00 --no-remind=x") == .usage("add: --no-remind takes no value"))
    let bad = failure("add Lunch --at 2026-12-03 12:00 --remind soon")
    #expect(bad?.kind == .invalid)
    #expect(
      bad?.message == "add: --remind \"soon\": try 15m, 1h, 1d, +10m, 0, 10m end, at 08:00",
      "\(String(describing: bad))"
    )
    #expect(
      failure("edit 1a2b --remind 'at 25:00'")
        == .invalid("edit: --remind \"at 25:00\": hour 25 is out of range (0-23)")
    )
  }

  // MARK: - edit

  @Test func editReplacesRemovesOrKeepsTheAlarms() throws {
    let now = Fixture.now
    #expect(try edit("edit 1a2b --title X").alarms == nil, "unchanged")
    #expect(try edit("edit 1a2b --no-remind").alarms == [], "--no-remind alone is a change")
    let replaced = try edit("edit 1a2b --remind 10m --remind 2h")
    #expect(replaced.alarms == [try alarm("10m", start: now), try alarm("2h", start: now)])
    #expect(replaced.alarmTexts == nil, "relative alarms need no start")
    #expect(
      failure("edit 1a2b --remind 10m --no-remind") == .usage("edit: give --remind or --no-remind, not both")
    )
  }

  @Test func editAtTimeIsReadAgainstTheNewStartOrLeftToTheExecutor() throws {
    let moved = try edit("edit 1a2b --at 2026-12-04 10:00 --remind 'at 08:00'")
    #expect(moved.alarms == [try alarm("at 08:00", start: Fixture.instant("2026-12-04T10:00:00+01:00"))])
    #expect(moved.alarmTexts == nil)
    let kept = try edit("edit 1a2b --remind at 08:00 --remind 5m")
    #expect(kept.alarmTexts == ["at 08:00", "5m"], "the stored start is needed")
  }

  // MARK: - reminders

  @Test func remindersDefaultsToTheNextDay() throws {
    #expect(
      try parse("reminders")
        == .reminders(RemindersRequest(range: DateInterval(start: Fixture.now, duration: 86_400)))
    )
  }

  @Test func remindersTakesARangeCalendarsAndJSON() throws {
    let midnight = Fixture.instant("2026-12-03T00:00:00+01:00")
    #expect(
      try parse("reminders --from 2026-12-03 --to 2026-12-04 -c work --calendar=home --json")
        == .reminders(
          RemindersRequest(
            range: DateInterval(start: midnight, end: Fixture.instant("2026-12-05T00:00:00+01:00")),
            calendars: ["work", "home"],
            json: true
          )
        )
    )
    #expect(
      try parse("reminders --from 2026-12-03 08:00")
        == .reminders(
          RemindersRequest(
            range: DateInterval(start: Fixture.instant("2026-12-03T08:00:00+01:00"), duration: 86_400)
          )
        )
    )
    #expect(try parse("reminders --help") == .help(topic: "reminders"))
  }

  @Test func remindersRefusesBadRanges() {
    #expect(
      failure("reminders --from 2026-12-03 --to 2026-12-01")
        == .invalid("reminders: reversed range: --from 2026-12-03 is after --to 2026-12-01")
    )
    #expect(failure("reminders --to 2026-11-01")?.message.contains("before now") == true)
    #expect(failure("reminders soon") == .usage("reminders: unexpected argument \"soon\""))
    #expect(failure("reminders --days 3") == .usage("reminders: unknown option --days"))
  }

  @Test func helpAndCompletionKnowTheNewOptionsAndCommand() throws {
    #expect(CommandHelp.summary.contains("  reminders [--from WHEN] [--to WHEN] [--calendar NAME...] [--json]\n"))
    let add = try #require(CommandHelp.usage(for: "add"))
    #expect(add.contains("[--remind ALARM... | --no-remind]"))
    #expect(add.contains("ALARM     "), "the values of ALARM are explained")
    #expect(try #require(CommandHelp.usage(for: "edit")).contains("--no-remind"))
    let entries = ShellCompletion.entries
    let addEntry = try #require(entries.first { $0.name == "add" })
    #expect(addEntry.options.contains("--remind") && addEntry.options.contains("--no-remind"))
    #expect(addEntry.valued.contains("--remind") && !addEntry.valued.contains("--no-remind"))
    let reminders = try #require(entries.first { $0.name == "reminders" })
    #expect(reminders.options == ["--from", "--to", "--calendar", "--json", "-c"])
    #expect(ShellCompletion.bash.script.contains("reminders"))
  }

  // MARK: - Settings

  let settingsPath = "/home/u/.config/appt/config"

  func settings(_ text: String) throws -> Settings {
    switch SettingsParser(path: settingsPath).parse(text: text) {
    case .success(let settings): return settings
    case .failure(let failure): throw failure
    }
  }

  func mistakes(_ text: String) -> [String] {
    switch SettingsParser(path: settingsPath).parse(text: text) {
    case .success: return []
    case .failure(let failure): return failure.diagnostics.map(\.description)
    }
  }

  @Test func aCalendarsDefaultRemindOverridesTheGlobalOne() throws {
    let parsed = try settings(
      """
      [reminders]
      default_remind = 15m
      [calendar Work]
      default_remind = 10m, 1d
      [calendar "work/Team"]
      default_remind =
      [calendar Home]
      """
    )
    #expect(
      parsed.calendars == [
        CalendarSettings(
          name: "Work",
          defaultRemind: Setting([600, 86_400], origin: .file(path: settingsPath, line: 4)),
          line: 3
        ),
        CalendarSettings(
          name: "work/Team",
          defaultRemind: Setting([], origin: .file(path: settingsPath, line: 6)),
          line: 5
        ),
        CalendarSettings(name: "Home", line: 7),
      ]
    )
    #expect(parsed.defaultAlarms(calendar: "WORK") == [600, 86_400], "names compare ignoring case")
    #expect(parsed.defaultAlarms(calendar: "work/Team") == [], "an empty value is none")
    #expect(parsed.defaultAlarms(calendar: "Home") == [900], "a section without the key: the global one")
    #expect(parsed.defaultAlarms(calendar: "personal") == [900])
    #expect(Settings().defaultAlarms(calendar: "personal") == [])
    let report = parsed.reportText()
    #expect(report.contains("calendar.Work.default_remind = 10m, 1d"))
    #expect(report.contains("# \(settingsPath):4\n"))
    #expect(report.contains("calendar.work/Team.default_remind = \"\""))
    #expect(!report.contains("calendar.Home."), "nothing set, nothing reported")
    #expect(
      parsed.reportJSON().contains(#""calendar.Work.default_remind":{"value":"10m, 1d","origin":"file","line":4}"#)
    )
  }

  @Test func calendarSectionMistakesNameTheLine() {
    #expect(
      mistakes("[calendar]\n[calendar Work]\ndefault_remid = 5m\ndefault_remind = soon\n[calendar /x]\n[calender x]")
        == [
          "\(settingsPath):1: [calendar] needs a calendar's name: [calendar NAME]",
          "\(settingsPath):3: unknown key \"default_remid\" in [calendar Work]; did you mean default_remind?",
          "\(settingsPath):4: default_remind: cannot understand \"soon\" as a duration: try 45m, 1h, 1h30m, 90 (minutes)",
          "\(settingsPath):5: [calendar /x]: a / in a calendar name only separates an account from a calendar (ACCOUNT/Name)",
          "\(settingsPath):6: unknown section [calender x]; did you mean [calendar NAME]?",
        ]
    )
    #expect(
      mistakes("[calendar Work]\ndefault_remind = 5m\n[calendar work]\ndefault_remind = 10m")
        == ["\(settingsPath):4: default_remind is set twice in [calendar Work] (first at line 2)"]
    )
  }
}
