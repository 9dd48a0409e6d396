import ApptTestSupport
import Foundation
import Testing

@testable import ApptCore

/// Modelled properties written back as they came while the appointment still means what
/// they said (`ICalendarExtras.asRead`): RDATE and EXDATE lines, a DTSTART in a DST gap, no
/// SUMMARY; generated afresh once it changes; appt's own export read back without any.
@Suite("iCalendar as read")
struct ICalendarAsReadTests {
  let clock = Fixture.clock  // Paris, Sunday 2026-11-29 15:00
  let paris = Fixture.paris

  func event(_ lines: String...) -> String { event(lines) }

  func event(_ lines: [String]) -> String {
    (["BEGIN:VCALENDAR", "VERSION:2.0", "BEGIN:VEVENT"] + lines + ["END:VEVENT", "END:VCALENDAR"])
      .joined(separator: "\r\n") + "\r\n"
  }

  func read(_ text: String) -> [Appointment] {
    let result = ICalendar.read(text, clock: clock)
    #expect(result.problems == [])
    return result.appointments
  }

  /// The unfolded lines of the export whose names are in `names`.
  func written(_ appointments: [Appointment], _ names: Set<String>) -> [String] {
    let all = ICalendar.write(appointments, fallbackZone: paris).replacingOccurrences(of: "\r\n ", with: "")
      .components(separatedBy: "\r\n")
    return all[(all.firstIndex(of: "BEGIN:VEVENT") ?? 0)...].filter {
      names.contains(ICalendar.Writer.propertyName($0))
    }
  }

  /// read -> write -> read -> write: the same appointments and the same text (DTSTAMP aside).
  func expectStable(_ first: [Appointment], sourceLocation: SourceLocation = #_sourceLocation) {
    let text = ICalendar.write(first, fallbackZone: paris)
    var second = read(text)
    // A foreign UID gets a new id each time it is read.
    for index in second.indices where index < first.count { second[index].id = first[index].id }
    #expect(second == first, sourceLocation: sourceLocation)
    #expect(ICalendar.write(second, fallbackZone: paris) == text, sourceLocation: sourceLocation)
  }

  let dateLines = [
    "RDATE;VALUE=PERIOD:20261203T130000Z/20261203T170000Z,20261208T080000Z/PT2H",
    "RDATE;VALUE=DATE:20261220",
    "EXDATE;TZID=Europe/Berlin:20261202T063000,20261204T063000",
    "EXDATE;TZID=Europe/Berlin:20261206T063000",
    "EXDATE:20261208T053000Z,20261209T053000Z",
  ]

  @Test("RDATE and EXDATE lines come back grouped, zoned and typed as they came")
  func datesAsRead() throws {
    let read = read(
      event(
        ["UID:d", "DTSTART;TZID=Europe/Berlin:20261201T063000", "DTEND;TZID=Europe/Berlin:20261201T070000"]
          + ["SUMMARY:Morning pages", "RRULE:FREQ=DAILY"] + dateLines
      )
    )
    let a = try #require(read.first)
    #expect(a.exceptions.count == 5)
    #expect(a.recurrence?.dates.count == 3)
    #expect(written(read, ["RDATE", "EXDATE"]) == dateLines)
    expectStable(read)
  }

  @Test("changed dates are written afresh, and read back without lines kept")
  func datesChanged() throws {
    var a = try #require(
      read(
        event(
          ["UID:d", "DTSTART;TZID=Europe/Berlin:20261201T063000", "DTEND;TZID=Europe/Berlin:20261201T070000"]
            + ["SUMMARY:Morning pages", "RRULE:FREQ=DAILY"] + dateLines
        )
      ).first
    )
    a.exceptions.removeLast()
    let lines = written([a], ["RDATE", "EXDATE"])
    #expect(lines.contains("EXDATE;TZID=Europe/Berlin:20261202T063000,20261204T063000,20261206T063000,20261208T063000"))
    #expect(!lines.contains("EXDATE:20261208T053000Z,20261209T053000Z"))
    let again = try #require(read(ICalendar.write([a], fallbackZone: paris)).first)
    #expect(again.extras.asRead == nil)
    #expect(again.exceptions == a.exceptions)
  }

  @Test("appt's own export is read back with nothing kept as read")
  func ownExport() throws {
    let start = Fixture.instant("2026-12-01T09:00:00+01:00")
    var a = Appointment(title: "Plain", start: start, end: start + 3600, created: start, timeZone: "Europe/Paris")
    a.recurrence = Recurrence(
      rules: [try RecurrenceRule(parsing: "FREQ=WEEKLY;COUNT=5")],
      dates: [.instant(start + 86400 * 3), .date(CivilDate(year: 2026, month: 12, day: 20))]
    )
    a.exceptions = [start + 86400 * 7]
    let back = try #require(read(ICalendar.write([a], fallbackZone: paris)).first)
    #expect(back.extras.asRead == nil)
    #expect(back.recurrence == a.recurrence)
    #expect(back.exceptions == a.exceptions)
  }

  @Test("a DTSTART in the spring gap is written back at the time it said while the start is unchanged")
  func startInGap() throws {
    let read = read(
      event(
        "UID:g",
        "DTSTART;TZID=Europe/Berlin:20270328T023000",
        "DTEND;TZID=Europe/Berlin:20270328T043000",
        "SUMMARY:In the gap"
      )
    )
    #expect(written(read, ["DTSTART"]) == ["DTSTART;TZID=Europe/Berlin:20270328T023000"])
    expectStable(read)
    var moved = try #require(read.first)
    moved.start += 3600
    #expect(written([moved], ["DTSTART"]) == ["DTSTART;TZID=Europe/Berlin:20270328T043000"])
  }

  @Test("an event without a SUMMARY is written without one while its title is the default")
  func noSummary() throws {
    let read = read(event("UID:n", "DTSTART;VALUE=DATE:20261201"))
    #expect(read.first?.title == "(no title)")
    #expect(written(read, ["SUMMARY"]) == [])
    expectStable(read)
    var titled = try #require(read.first)
    titled.title = "Named"
    #expect(written([titled], ["SUMMARY"]) == ["SUMMARY:Named"])
    // Data says it has no title; "(no title)" is what people are shown.
    let formatter = AppointmentFormatter(clock: Clock.fixed(Date(timeIntervalSince1970: 0), timeZone: .gmt))
    #expect(formatter.jsonObject(try #require(read.first)).contains(#""title":"","#))
    #expect(formatter.jsonObject(titled).contains(#""title":"Named","#))
  }

  @Test("a bare CR inside a kept line is written as an escaped line break, never raw (fuzz find)")
  func bareCarriageReturn() throws {
    let text = event(
      "UID:cr@test",
      "DTSTART:20261201T100000Z",
      "DURATION:PT1H",
      "SUMMARY:Series\r202T120000Z",
      "X-NOTE:one\rtwo"
    )
    let first = try #require(read(text).first)
    #expect(first.title == "Series\r202T120000Z")
    let exported = ICalendar.write([first], fallbackZone: paris)
    // Every CR is the one ending a line.
    #expect(!exported.replacingOccurrences(of: "\r\n", with: "").contains("\r"))
    #expect(written([first], ["SUMMARY"]) == ["SUMMARY:Series\\n202T120000Z"])
    #expect(written([first], ["X-NOTE"]) == ["X-NOTE:one\\ntwo"])
    let again = try #require(read(exported).first)
    #expect(again.title == "Series\n202T120000Z")
    #expect(again.start == first.start && again.end == first.end)
  }

  @Test("an ESC in the first of two SUMMARYs is written in caret notation, never raw (fuzz find)")
  func controlInKeptSummary() throws {
    let text = event(
      "UID:esc@test",
      "DTSTART:20261201T100000Z",
      "DURATION:PT1H",
      "SUMMARY:\u{1B}[D=Europe/Paris",
      "SUMMARY:Paris",
      "X-NOTE:bell\u{07}"
    )
    let first = try #require(read(text).first)
    #expect(first.title == "\u{1B}[D=Europe/Paris")
    let exported = ICalendar.write([first], fallbackZone: paris)
    #expect(!exported.unicodeScalars.contains { $0 != "\r" && $0 != "\n" && TextSafety.isControl($0) })
    // The title is written afresh (the line kept as read held the ESC); the second SUMMARY
    // stays as it came, and a kept line's control is shown as appt shows it.
    #expect(written([first], ["SUMMARY"]) == ["SUMMARY:^[[D=Europe/Paris", "SUMMARY:Paris"])
    #expect(written([first], ["X-NOTE"]) == ["X-NOTE:bell^G"])
    let again = try #require(read(exported).first)
    #expect(again.title == "^[[D=Europe/Paris")
    #expect(again.start == first.start && again.end == first.end)
  }

  @Test("a TZID no zone has stays one no zone has: its NUL in caret notation, never left out (fuzz find)")
  func controlInUnknownZone() throws {
    let text = event(
      "UID:nul@test",
      "DTSTART;TZID=Europ\u{0}e/Paris:20261201T100000",
      "DTEND;TZID=Murope/Paris:20261201T110000",
      "SUMMARY:Floating"
    )
    let result = ICalendar.read(text, clock: clock)
    let first = try #require(result.appointments.first)
    // Read as floating, in the clock's zone (Paris): 10:00-11:00 there.
    #expect(first.duration == 3600)
    #expect(written([first], ["DTEND"]) == ["DTEND;TZID=Europ^@e/Paris:20261201T110000"])
    let exported = ICalendar.write([first], fallbackZone: paris)
    let again = try #require(ICalendar.read(exported, clock: clock).appointments.first)
    #expect(again.start == first.start && again.end == first.end)
    #expect(ICalendar.parameterValue("A\"B") == "A^'B")
  }
}
