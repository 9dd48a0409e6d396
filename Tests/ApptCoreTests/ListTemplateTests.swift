import Foundation
import Testing

@testable import ApptCore

@Suite("list --format and --week/--month")
struct ListTemplateTests {
  let formatter = AppointmentFormatter(clock: Fixture.clock)

  func line(_ template: String, _ appointment: Appointment = Fixture.appointment(), calendar: String? = "work") throws
    -> String
  {
    formatter.line(appointment, as: try ListTemplate(parsing: template), calendar: calendar)
  }

  func failure(_ template: String) -> CommandError? {
    commandError { () throws(CommandError) in try ListTemplate(parsing: template) }
  }

  @Test("every field, with the default and a strftime form of the times")
  func fields() throws {
    var a = Fixture.appointment(note: "bring\nthe card")
    a.location = "Rue de Rivoli"
    #expect(try line("{start}|{end}|{duration}", a) == "Tue 2026-12-01 10:00|Tue 2026-12-01 10:45|45m")
    #expect(try line("{start:%H:%M}-{end:%R} {start:%a %-d %b}", a) == "10:00-10:45 Tue 1 Dec")
    #expect(
      try line("{title}|{location}|{calendar}|{status}|{note}", a)
        == "Dentist|Rue de Rivoli|work|scheduled|bring^Jthe card"
    )
    #expect(try line("{id} {short_id}", a) == "1a2b3c4d-0000-4000-8000-00000000abcd 1a2b3c")
    #expect(try line("[{calendar}]", a, calendar: nil) == "[]")
  }

  @Test("escapes and braces; text from the store stays escaped")
  func escapes() throws {
    #expect(try line("{title}\\t{{x}}\\n\\\\") == "Dentist\t{x}\n\\")
    let hostile = Fixture.appointment(title: "Evil\u{1B}[2J")
    #expect(try line("{title}", hostile) == "Evil^[[2J")
  }

  @Test("a field, format or escape appt does not know is a usage error naming it")
  func refused() {
    #expect(failure("{titel}") == .usage("list: --format: {titel} is not a field appt knows; did you mean {title}?"))
    #expect(failure("{title:%H}") == .usage("list: --format: only {start} and {end} take a format, not {title}"))
    #expect(failure("{start:%Q}")?.kind == .usage)
    #expect(failure("{start:%Q}")?.message.contains("\"%Q\"") == true)
    #expect(failure("a\\qb") == .usage("list: --format: \\q is not an escape appt knows; the escapes are \\t \\n \\\\"))
    #expect(failure("{title") == .usage("list: --format has a { that is not closed; write {{ for a brace"))
    #expect(failure("title}") == .usage("list: --format has a } that closes nothing; write }} for a brace"))
    #expect(failure("trailing\\") == .usage("list: --format ends in a lone \\; write \\\\ for a backslash"))
  }

  // The fixture's clock is Sunday 2026-11-29 15:00 in Paris.
  func range(_ line: String, weekStart: Recurrence.Weekday = .monday) throws -> DateInterval? {
    let parser = CommandParser(clock: Fixture.clock, defaults: .init(weekStart: weekStart))
    guard case .list(let request)? = try parser.parse(line: line) else { return nil }
    return request.range
  }

  @Test("--week is the week holding --from (else today), from the configured first day")
  func week() throws {
    #expect(
      try range("list --week")
        == DateInterval(
          start: Fixture.instant("2026-11-23T00:00:00+01:00"),
          end: Fixture.instant("2026-11-30T00:00:00+01:00")
        )
    )
    #expect(
      try range("list --week", weekStart: .sunday)
        == DateInterval(
          start: Fixture.instant("2026-11-29T00:00:00+01:00"),
          end: Fixture.instant("2026-12-06T00:00:00+01:00")
        )
    )
    // Across the spring change in Paris: the week is seven local days, 167 hours.
    #expect(
      try range("list --week --from 2027-03-31")
        == DateInterval(
          start: Fixture.instant("2027-03-29T00:00:00+02:00"),
          end: Fixture.instant("2027-04-05T00:00:00+02:00")
        )
    )
    #expect(
      try range("list --week --from 2027-03-28")
        == DateInterval(
          start: Fixture.instant("2027-03-22T00:00:00+01:00"),
          end: Fixture.instant("2027-03-29T00:00:00+02:00")
        )
    )
  }

  @Test("--month is the calendar month holding --from (else today)")
  func month() throws {
    #expect(
      try range("list --month")
        == DateInterval(
          start: Fixture.instant("2026-11-01T00:00:00+01:00"),
          end: Fixture.instant("2026-12-01T00:00:00+01:00")
        )
    )
    #expect(
      try range("list --month --from 2026-12-31")
        == DateInterval(
          start: Fixture.instant("2026-12-01T00:00:00+01:00"),
          end: Fixture.instant("2027-01-01T00:00:00+01:00")
        )
    )
    #expect(
      try range("list --month --from 2027-10-15")
        == DateInterval(
          start: Fixture.instant("2027-10-01T00:00:00+02:00"),
          end: Fixture.instant("2027-11-01T00:00:00+01:00")
        )
    )
  }

  @Test("--week and --month do not mix with another end or each other")
  func spansRefused() {
    let parser = CommandParser(clock: Fixture.clock)
    func failure(_ line: String) -> CommandError? {
      commandError { () throws(CommandError) in try parser.parse(line: line) }
    }
    #expect(failure("list --week --month") == .usage("list: give --week or --month, not both"))
    #expect(failure("list --week --days 3") == .usage("list: --week is a whole range; give it or --days, not both"))
    #expect(
      failure("list --month --to 2026-12-24") == .usage("list: --month is a whole range; give it or --to, not both")
    )
    #expect(failure("list --all --week")?.kind == .usage)
  }

  @Test("--format is parsed into the request, on a range and with --all")
  func formatInRequest() throws {
    let parser = CommandParser(clock: Fixture.clock)
    guard case .list(let request)? = try parser.parse(line: "list --all --format '{title}'") else {
      Issue.record("not a list")
      return
    }
    #expect(request.format?.text == "{title}")
    #expect(request.range == nil)
  }
}
