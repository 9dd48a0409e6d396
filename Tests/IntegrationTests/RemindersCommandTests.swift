import ApptCore
import ApptRuntime
import ApptStore
import ApptTestSupport
import Foundation
import Testing

/// Reminders through the executor the CLI, scripts and the `:` line share:
/// `--remind`/`--no-remind`, the settings' defaults, `show` and JSON, `reminders`, and VALARMs
/// kept byte for byte through import, edit and export.
@Suite struct RemindersCommandTests {
  let directory = TemporaryDirectory()

  func freshDAO() -> AppointmentDAO { TestStore.fileDAO(in: directory) }

  @discardableResult
  func run(
    _ line: String,
    json: Bool = false,
    settings: Settings = Settings(),
    on dao: AppointmentDAO
  ) async throws(CommandExecutor.Failure) -> String {
    let executor = CommandExecutor(dao: dao, clock: TestClock.clock, json: json, settings: settings)
    guard let command = try executor.parse(line: line) else { return "" }
    return try await executor.run(command)
  }

  func only(_ dao: AppointmentDAO, titled title: String) async throws -> Appointment {
    try #require(try await dao.getAllAppointments().first { $0.title == title })
  }

  /// The lines of the VALARM blocks in `text` (CRLF or LF ends), in order.
  static func alarmLines(_ text: String) -> [String] {
    var out: [String] = []
    var inside = false
    for line in text.replacingOccurrences(of: "\r\n", with: "\n").split(separator: "\n") {
      if line == "BEGIN:VALARM" { inside = true }
      if inside { out.append(String(line)) }
      if line == "END:VALARM" { inside = false }
    }
    return out
  }

  @Test func addRemindShowsInShowAndJSON() async throws {
    let dao = freshDAO()
    try await run("add Standup --at 2026-12-03 09:00 --remind 15m --remind 1d", on: dao)
    let standup = try await only(dao, titled: "Standup")
    #expect(standup.alarms.map(\.spec) == ["15m", "1d"])
    let shown = try await run("show \(standup.id.short)", on: dao)
    #expect(shown.contains("\nreminder: 15 minutes before\nreminder: 1 day before\n"), "\(shown)")
    let json = try await run("show \(standup.id.short)", json: true, on: dao)
    #expect(
      json.contains(
        #","reminders":[{"trigger":"15m","summary":"15 minutes before","action":"DISPLAY","repeat":0,"every":0,"#
          + #""description":"Reminder"},"#
          + #"{"trigger":"1d","summary":"1 day before","action":"DISPLAY","repeat":0,"every":0,"description":"Reminder"}],"#
      ),
      "\(json)"
    )
    let listed = try await run("list --from 2026-12-03 --days 1", json: true, on: dao)
    #expect(listed.contains(#""reminders":[{"trigger":"15m""#), "every appointment object has them")
  }

  @Test func defaultsComeFromTheCalendarElseTheGlobalSetting() async throws {
    let dao = freshDAO()
    let parsed = SettingsParser(path: "/config").parse(
      text: "[reminders]\ndefault_remind = 15m\n[calendar Work]\ndefault_remind = 10m, 1d\n"
    )
    let settings = try parsed.get()
    try await run("calendar add work", on: dao)
    try await run("add Personal --at 2026-12-03 09:00", settings: settings, on: dao)
    try await run("add Job --at 2026-12-03 10:00 -c work", settings: settings, on: dao)
    try await run("add Quiet --at 2026-12-03 11:00 -c work --no-remind", settings: settings, on: dao)
    try await run("add Own --at 2026-12-03 12:00 -c work --remind 5m", settings: settings, on: dao)
    try await run("add Plain --at 2026-12-03 13:00", on: dao)
    #expect(try await only(dao, titled: "Personal").alarms.map(\.spec) == ["15m"])
    #expect(try await only(dao, titled: "Job").alarms.map(\.spec) == ["10m", "1d"])
    #expect(try await only(dao, titled: "Quiet").alarms.isEmpty)
    #expect(try await only(dao, titled: "Own").alarms.map(\.spec) == ["5m"])
    #expect(try await only(dao, titled: "Plain").alarms.isEmpty, "no settings, no default")
  }

  static let imported = """
    BEGIN:VCALENDAR\r
    VERSION:2.0\r
    PRODID:-//Test//Reminders//EN\r
    BEGIN:VEVENT\r
    UID:dentist-1@example.com\r
    DTSTAMP:20261120T080000Z\r
    DTSTART:20261203T090000Z\r
    DTEND:20261203T100000Z\r
    SUMMARY:Dentist\r
    BEGIN:VALARM\r
    ACTION:DISPLAY\r
    DESCRIPTION:Dentist in 15 minutes\r
    TRIGGER:-PT15M\r
    X-WR-ALARMUID:alarm-1\r
    X-APPLE-DEFAULT-ALARM:FALSE\r
    END:VALARM\r
    BEGIN:VALARM\r
    ACTION:AUDIO\r
    TRIGGER;RELATED=END:PT10M\r
    REPEAT:2\r
    DURATION:PT5M\r
    ATTACH;FMTTYPE=audio/basic:https://example.com/ding.au\r
    END:VALARM\r
    BEGIN:VALARM\r
    ACTION:DISPLAY\r
    DESCRIPTION:Tomorrow\r
    TRIGGER;VALUE=DATE-TIME:20261202T170000Z\r
    END:VALARM\r
    END:VEVENT\r
    END:VCALENDAR\r

    """

  @Test func importExportKeepsVALARMsByteForByteAndEditKeepsAnEqualOne() async throws {
    let dao = freshDAO()
    let file = directory.file("in.ics").path
    try Self.imported.write(toFile: file, atomically: true, encoding: .utf8)
    try await run("import \(file)", on: dao)
    let out = directory.file("out.ics").path
    try await run("export \(out)", on: dao)
    let exported = try String(contentsOfFile: out, encoding: .utf8)
    let original = Self.alarmLines(Self.imported)
    #expect(original.count == 19)
    #expect(Self.alarmLines(exported) == original, "import then export: the same bytes")
    #expect(exported.contains(original.joined(separator: "\r\n") + "\r\n"))

    let dentist = try await only(dao, titled: "Dentist")
    let shown = try await run("show \(dentist.id.short)", json: true, on: dao)
    #expect(shown.contains(#"{"trigger":"+10m end","#), "\(shown)")
    #expect(shown.contains(#""action":"AUDIO","repeat":2,"every":300,"description":""}"#), "\(shown)")

    // The same alarm asked for again keeps its block (X-WR-ALARMUID and all); the others go.
    try await run("edit \(dentist.id.short) --remind 15m", on: dao)
    try await run("export \(out)", on: dao)
    let edited = Self.alarmLines(try String(contentsOfFile: out, encoding: .utf8))
    #expect(edited == Array(original.prefix(7)), "\(edited)")
    // And as the JSON spells it, so a script can read and write them back.
    try await run("edit \(dentist.id.short) --remind -15m --remind '+10m end'", on: dao)
    #expect(try await only(dao, titled: "Dentist").alarms.map(\.spec) == ["15m", "+10m end"])
    try await run("edit \(dentist.id.short) --no-remind", on: dao)
    #expect(try await only(dao, titled: "Dentist").alarms.isEmpty)
    try await run("export \(out)", on: dao)
    #expect(!(try String(contentsOfFile: out, encoding: .utf8)).contains("VALARM"))
  }

  @Test func editRemindAtTimeReadsTheStoredStart() async throws {
    let dao = freshDAO()
    try await run("add Standup --at 2026-12-03 09:00", on: dao)
    let standup = try await only(dao, titled: "Standup")
    try await run("edit \(standup.id.short) --remind 'at 08:00'", on: dao)
    let listed = try await run("reminders --from 2026-12-03 --to 2026-12-03", on: dao)
    #expect(listed.hasPrefix("2026-12-03 08:00  "), "\(listed)")
    #expect(listed.hasSuffix("  09:00 Standup (\(standup.id.short))\n"), "\(listed)")
  }

  @Test func anOccurrenceGetsItsOwnRemindersAsAnOverride() async throws {
    let dao = freshDAO()
    try await run("add Standup --at 2026-11-30 09:00 --repeat daily --count 3 --remind 10m", on: dao)
    let series = try await only(dao, titled: "Standup")
    try await run("edit \(series.id.short) --occurrence 2026-12-01 --remind 30m", on: dao)
    let all = try await dao.getAllAppointments()
    #expect(all.count == 2)
    #expect(try #require(all.first { $0.override == nil }).alarms.map(\.spec) == ["10m"], "the series keeps its")
    #expect(try #require(all.first { $0.override != nil }).alarms.map(\.spec) == ["30m"])
  }

  @Test func remindersListsEachOccurrenceInFiringOrder() async throws {
    let dao = freshDAO()
    try await run("calendar add work", on: dao)
    try await run("add Standup --at 2026-11-30 09:00 --repeat daily --count 3 --remind 15m -c work", on: dao)
    try await run("add Dentist --at 2026-11-30 11:00 --remind 1d", on: dao)
    try await run("add Called off --at 2026-11-30 12:00 --remind 5m", on: dao)
    let off = try await only(dao, titled: "Called off")
    try await run("cancel \(off.id.short)", on: dao)
    let standup = try await only(dao, titled: "Standup").id.short
    let dentist = try await only(dao, titled: "Dentist").id.short
    let text = try await run("reminders --from 2026-11-29 --to 2026-12-01", on: dao)
    #expect(
      text == """
        2026-11-29 11:00  1 day before       Mon 2026-11-30 11:00 Dentist (\(dentist))
        2026-11-30 08:45  15 minutes before  09:00 Standup (\(standup))
        2026-12-01 08:45  15 minutes before  09:00 Standup (\(standup))

        """
    )
    let work = try await run("reminders --from 2026-11-29 --to 2026-12-03 -c work", json: true, on: dao)
    let lines = work.split(separator: "\n")
    #expect(lines.count == 3, "three occurrences, the work calendar only")
    #expect(
      lines.first
        == #"{"fire_at":"2026-11-30T08:45:00+01:00","id":""# + (try await only(dao, titled: "Standup")).id.description
        + #"","title":"Standup","start":"2026-11-30T09:00:00+01:00","end":"2026-11-30T10:00:00+01:00","calendar":"work","#
        + #""location":"","reminder":{"trigger":"15m","summary":"15 minutes before","action":"DISPLAY","repeat":0,"#
        + #""every":0,"description":"Reminder"},"repetition":0}"#
    )
    #expect(try await run("reminders --from 2026-11-29 --to 2026-12-03 --json -c work", on: dao) == work)
    #expect(try await run("reminders --from 2026-12-05", on: dao) == "", "nothing due: nothing printed")
  }
}
