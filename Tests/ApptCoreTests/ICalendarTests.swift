import ApptTestSupport
import Foundation
import Testing

@testable import ApptCore

/// The iCalendar codec: the lexical layer, each way an event gives its times, recurrence,
/// the problems (with their lines) that stop an import, and writer -> reader round trips.
@Suite("iCalendar")
struct ICalendarTests {
  let clock = Fixture.clock  // Paris, Sunday 2026-11-29 15:00
  let paris = Fixture.paris
  let newYork = Fixture.newYork

  /// A calendar around `lines` (CRLF): line 1 is BEGIN:VCALENDAR, line 2 VERSION, so the
  /// first of `lines` is line 3.
  func calendar(_ lines: [String]) -> String {
    (["BEGIN:VCALENDAR", "VERSION:2.0"] + lines + ["END:VCALENDAR"]).joined(separator: "\r\n") + "\r\n"
  }

  /// One VEVENT (BEGIN:VEVENT is line 3, the first property line 4).
  func event(_ lines: String...) -> String {
    calendar(["BEGIN:VEVENT"] + lines + ["END:VEVENT"])
  }

  func read(_ text: String) -> ICalendar.ReadResult { ICalendar.read(text, clock: clock) }

  /// The only appointment `text` yields, failing the test when there are problems.
  func only(_ text: String, sourceLocation: SourceLocation = #_sourceLocation) throws -> Appointment {
    let result = read(text)
    #expect(result.problems == [], sourceLocation: sourceLocation)
    return try #require(result.appointments.first, sourceLocation: sourceLocation)
  }

  /// The problems of `text`, as `LINE: message`.
  func problems(_ text: String) -> [ICalendar.Problem] {
    let result = read(text)
    #expect(result.appointments.isEmpty)
    return result.problems
  }

  func instant(_ text: String) -> Date { Fixture.instant(text) }

  // MARK: - Lines

  @Test("CRLF and LF line ends, folds with a space or a tab, line numbers of the first physical line")
  func unfolding() {
    let text = "BEGIN:VCALENDAR\nVERSION:2.0\r\nX-A:one\r\n  two\n\tthree\r\nX-B:b\n"
    let (lines, problems) = ICalendar.unfold(Array(text.utf8))
    #expect(problems == [])
    #expect(lines.map(\.text) == ["BEGIN:VCALENDAR", "VERSION:2.0", "X-A:one twothree", "X-B:b"])
    #expect(lines.map(\.line) == [1, 2, 3, 6])
  }

  @Test("a fold inside a UTF-8 sequence is joined byte by byte")
  func foldInsideUTF8() throws {
    // "é" is C3 A9; a careless writer folded between the two bytes.
    var bytes = Array("BEGIN:VCALENDAR\r\nVERSION:2.0\r\nBEGIN:VEVENT\r\nUID:u\r\nSUMMARY:caf".utf8)
    bytes += [0xC3, 0x0D, 0x0A, 0x20, 0xA9]
    bytes += Array("\r\nDTSTART:20261201T100000Z\r\nDTEND:20261201T110000Z\r\nEND:VEVENT\r\nEND:VCALENDAR\r\n".utf8)
    let result = ICalendar.read(bytes: bytes, clock: clock)
    #expect(result.problems == [])
    #expect(result.appointments.first?.title == "café")
  }

  @Test("a byte order mark is skipped; a line that is not UTF-8 is a problem with its line")
  func encodings() {
    let bom = [UInt8]([0xEF, 0xBB, 0xBF]) + Array(event("UID:u", "DTSTART;VALUE=DATE:20261201").utf8)
    #expect(ICalendar.read(bytes: bom, clock: clock).appointments.count == 1)
    var bad = Array(event("UID:u", "DTSTART;VALUE=DATE:20261201", "SUMMARY:x").utf8)
    let index = bad.firstIndex(of: UInt8(ascii: "x")) ?? 0
    bad[index] = 0xFF
    let result = ICalendar.read(bytes: bad, clock: clock)
    #expect(result.problems.contains(ICalendar.Problem(line: 6, message: "not UTF-8 text")))
  }

  @Test(
    "folding keeps lines within 75 octets, never splits a UTF-8 sequence, and unfolds back",
    arguments: [
      String(repeating: "a", count: 200),
      "SUMMARY:" + String(repeating: "é", count: 60),
      "SUMMARY:" + String(repeating: "🏖️", count: 30) + "x",
      "DESCRIPTION:" + String(repeating: "日本語", count: 40),
      "SUMMARY:" + String(repeating: "x", count: 73) + "€€",
      "SUMMARY:short",
      "SUMMARY:" + String(repeating: "x", count: 67),
    ]
  )
  func folding(line: String) throws {
    let folded = ICalendar.fold(line)
    #expect(folded.hasSuffix("\r\n"))
    let physical = folded.dropLast(2).components(separatedBy: "\r\n")
    for (index, part) in physical.enumerated() {
      #expect(part.utf8.count <= 75, "line \(index) has \(part.utf8.count) octets")
      if index > 0 { #expect(part.utf8.first == 0x20) }
      #expect(String(validating: Array(part.utf8), as: UTF8.self) != nil)
    }
    let (lines, problems) = ICalendar.unfold(Array(folded.utf8))
    #expect(problems == [])
    #expect(lines.map(\.text) == [line])
  }

  @Test("TEXT escaping of commas, semicolons, backslashes and newlines, both ways")
  func escaping() {
    #expect(ICalendar.escape("a,b;c\\d\ne") == "a\\,b\\;c\\\\d\\ne")
    #expect(ICalendar.escape("one\r\ntwo\rthree") == "one\\ntwo\\nthree")
    #expect(ICalendar.escape("tab\there") == "tab\there")
    #expect(ICalendar.escape("esc\u{1B}[2J") == "esc^[[2J", "controls are written visibly, never raw")
    #expect(ICalendar.unescape("a\\,b\\;c\\\\d\\ne\\Nf") == "a,b;c\\d\ne\nf")
    #expect(ICalendar.unescape("keep \\x and a trailing \\") == "keep \\x and a trailing \\")
    for text in ["", "plain", "a,b;c", "back\\slash\\n", "multi\nline\n", "🙂, ; \\ \n"] {
      #expect(ICalendar.unescape(ICalendar.escape(text)) == text)
    }
  }

  @Test("property parameters, quoted values holding : ; and ,")
  func parameters() throws {
    let line = try #require(
      ICalendar.contentLine("dtstart;tzid=\"Weird:Zone;x,y\";VALUE=DATE-TIME:20261201T100000", line: 7)
    )
    #expect(line.name == "DTSTART")
    #expect(line.parameters == ["TZID": "Weird:Zone;x,y", "VALUE": "DATE-TIME"])
    #expect(line.value == "20261201T100000")
    #expect(line.line == 7)
    #expect(ICalendar.contentLine("SUMMARY:a:b;c", line: 1)?.value == "a:b;c")
    #expect(ICalendar.contentLine("no colon here", line: 1) == nil)
    #expect(ICalendar.contentLine("X;P=\"open:1", line: 1) == nil)
    #expect(ICalendar.contentLine(":value", line: 1) == nil)
  }

  // MARK: - Times

  @Test("DTSTART in UTC: the instant, in UTC (a one-off and a series alike: written back in UTC)")
  func utcStart() throws {
    let a = try only(event("UID:u", "DTSTART:20261201T090000Z", "DTEND:20261201T100000Z"))
    #expect(a.start == instant("2026-12-01T09:00:00Z"))
    #expect(a.end == instant("2026-12-01T10:00:00Z"))
    #expect(a.timeZone == TimeZone.gmt.identifier)
    #expect(!a.isAllDay)
    #expect(ICalendar.write([a], fallbackZone: paris).contains("DTSTART:20261201T090000Z\r\n"))
    let series = try only(event("UID:u", "DTSTART:20261201T090000Z", "DURATION:PT1H", "RRULE:FREQ=DAILY"))
    #expect(series.timeZone == TimeZone.gmt.identifier)
  }

  @Test("components without a VCALENDAR around them are read as one calendar, with a note")
  func bareComponents() throws {
    // As khal's test files and a paste from a mail are: LF line ends, no VCALENDAR.
    let text = """
      BEGIN:VEVENT
      SUMMARY:An Event
      DTSTART;VALUE=DATE-TIME:20140409T093000Z
      DTEND;VALUE=DATE-TIME:20140409T103000Z
      UID:bare-1
      END:VEVENT
      BEGIN:VEVENT
      SUMMARY:Another
      DTSTART:20140410T093000Z
      UID:bare-2
      END:VEVENT

      """
    let result = ICalendar.read(text, clock: TestClock.clock)
    #expect(result.problems.isEmpty, "\(result.problems)")
    #expect(result.appointments.map(\.title) == ["An Event", "Another"])
    #expect(result.notices.first?.message == "no BEGIN:VCALENDAR around the events: read as one calendar")
    // A file that mixes a VCALENDAR with a bare event is not one calendar: the stray is refused.
    let mixed = ICalendar.read("BEGIN:VCALENDAR\nEND:VCALENDAR\n" + text, clock: TestClock.clock)
    #expect(mixed.problems.map(\.message).contains("BEGIN:VEVENT outside a VCALENDAR"))
  }

  @Test("floating DTSTART is read in the importing clock's zone")
  func floatingStart() throws {
    let a = try only(event("UID:u", "DTSTART:20261201T100000", "DTEND:20261201T104500"))
    #expect(a.start == instant("2026-12-01T10:00:00+01:00"))
    #expect(a.end == instant("2026-12-01T10:45:00+01:00"))
    #expect(a.timeZone == "Europe/Paris")
  }

  @Test("DTSTART with a TZID is read in that zone, which the appointment keeps")
  func zonedStart() throws {
    let a = try only(
      event("UID:u", "DTSTART;TZID=America/New_York:20261201T100000", "DTEND;TZID=Europe/Paris:20261201T170000")
    )
    #expect(a.start == instant("2026-12-01T10:00:00-05:00"))
    #expect(a.end == instant("2026-12-01T17:00:00+01:00"))
    #expect(a.timeZone == "America/New_York")
  }

  @Test("a TZID path ending in an IANA name, and a VTIMEZONE's X-LIC-LOCATION, are understood")
  func zoneAliases() throws {
    let path = try only(
      event("UID:u", "DTSTART;TZID=/mozilla.org/20050126_1/America/New_York:20261201T100000", "DURATION:PT1H")
    )
    #expect(path.timeZone == "America/New_York")
    let aliased = try only(
      calendar([
        "BEGIN:VTIMEZONE", "TZID:Eastern Standard Time", "X-LIC-LOCATION:America/New_York", "END:VTIMEZONE",
        "BEGIN:VEVENT", "UID:u", "DTSTART;TZID=Eastern Standard Time:20261201T100000", "DURATION:PT1H", "END:VEVENT",
      ])
    )
    #expect(aliased.start == instant("2026-12-01T10:00:00-05:00"))
  }

  @Test("a TZID no zone and no VTIMEZONE defines is read as floating, with a note, and kept as written")
  func unknownZone() throws {
    let result = read(event("UID:u", "DTSTART;TZID=Mars/Olympus_Mons:20261201T100000", "DURATION:PT1H"))
    #expect(result.problems == [])
    let a = try #require(result.appointments.first)
    #expect(a.start == instant("2026-12-01T10:00:00+01:00"))
    #expect(a.timeZone == "Europe/Paris")
    #expect(a.extras.zoneID == "Mars/Olympus_Mons")
    #expect(result.notices.map(\.line) == [5])
    #expect(result.notices.first?.message.contains("unknown time zone \"Mars/Olympus_Mons\"") == true)
    let written = ICalendar.write([a], fallbackZone: paris)
    #expect(written.contains("DTSTART;TZID=Mars/Olympus_Mons:20261201T100000\r\n"))
    #expect(written.contains("DURATION:PT1H\r\n"))
    #expect(!written.contains("DTEND"))
  }

  @Test("VALUE=DATE is a whole day in the clock's zone; without DTEND it lasts one day")
  func allDay() throws {
    let one = try only(event("UID:u", "DTSTART;VALUE=DATE:20261201"))
    #expect(one.isAllDay)
    #expect(one.start == instant("2026-12-01T00:00:00+01:00"))
    #expect(one.end == instant("2026-12-02T00:00:00+01:00"))
    let three = try only(event("UID:u", "DTSTART;VALUE=DATE:20261201", "DTEND;VALUE=DATE:20261204"))
    #expect(three.end == instant("2026-12-04T00:00:00+01:00"))
    let bare = try only(event("UID:u", "DTSTART:20261201", "DURATION:P1W"))
    #expect(bare.isAllDay, "eight digits without VALUE=DATE are a date too")
    #expect(bare.end == instant("2026-12-08T00:00:00+01:00"))
  }

  @Test("DURATION: hours and minutes are exact, days are calendar days (23 h across the spring change)")
  func durations() throws {
    let short = try only(event("UID:u", "DTSTART:20261201T100000Z", "DURATION:PT1H30M"))
    #expect(short.duration == 5400)
    let calcurse = try only(event("UID:u", "DTSTART:20261201T100000", "DURATION:P0DT1H0M0S"))
    #expect(calcurse.duration == 3600)
    let day = try only(event("UID:u", "DTSTART;TZID=America/New_York:20270313T120000", "DURATION:P1D"))
    #expect(day.end == instant("2027-03-14T12:00:00-04:00"))
    #expect(day.duration == 23 * 3600)
    #expect(problems(event("UID:u", "DTSTART:20261201T100000Z", "DURATION:1H")).map(\.line) == [6])
  }

  @Test("DURATION leniencies: negative, not whole days on a date, beside a DTEND; each a note")
  func durationLeniencies() throws {
    let negative = read(event("UID:u", "DTSTART:20261201T100000Z", "DURATION:-PT1H"))
    #expect(negative.problems == [])
    #expect(negative.appointments.first?.duration == 0)
    #expect(negative.notices.first?.message.contains("negative") == true)
    let hours = read(event("UID:u", "DTSTART;VALUE=DATE:20261201", "DURATION:PT5H"))
    #expect(hours.appointments.first?.end == instant("2026-12-02T00:00:00+01:00"))
    #expect(hours.notices.map(\.line) == [6])
    let both = read(event("UID:u", "DTSTART:20261201T100000Z", "DTEND:20261201T110000Z", "DURATION:PT2H"))
    #expect(both.appointments.first?.duration == 3600)
    #expect(both.notices.map(\.line) == [7])
    #expect(both.appointments.first?.extras.lines == ["DURATION:PT2H"])
  }

  // MARK: - Recurrence

  @Test("RRULE maps to a Recurrence; a floating or date UNTIL is read in the event's zone")
  func rrule() throws {
    let weekly = try only(
      event(
        "UID:u",
        "DTSTART;TZID=America/New_York:20270301T090000",
        "DTEND;TZID=America/New_York:20270301T100000",
        "RRULE:FREQ=WEEKLY;INTERVAL=2;BYDAY=MO,WE;COUNT=10"
      )
    )
    #expect(
      weekly.recurrence == Recurrence(frequency: .weekly, interval: 2, weekdays: [.monday, .wednesday], count: 10)
    )
    #expect(weekly.timeZone == "America/New_York")
    let floating = try only(
      event("UID:u", "DTSTART:20261204T080000", "DURATION:PT1H", "RRULE:FREQ=DAILY;UNTIL=20261210T080000")
    )
    #expect(floating.recurrence?.rules.first?.until == .local(CivilDateTime(2026, 12, 10, 8)))
    let window = DateInterval(start: instant("2026-12-01T00:00:00+01:00"), duration: 30 * 86400)
    #expect(floating.occurrences(in: window, fallbackZone: .gmt, includeCancelled: false).count == 7)
    let dated = try only(event("UID:u", "DTSTART;VALUE=DATE:20261204", "RRULE:FREQ=DAILY;UNTIL=20261210"))
    #expect(dated.recurrence?.rules.first?.until == .date(CivilDate(year: 2026, month: 12, day: 10)))
    #expect(dated.occurrences(in: window, fallbackZone: .gmt, includeCancelled: false).count == 7)
  }

  @Test("EXDATE in every form, several per line and on several lines, kept even when they name no occurrence")
  func exdates() throws {
    let result = read(
      event(
        "UID:u",
        "DTSTART;TZID=America/New_York:20270301T090000",
        "DURATION:PT1H",
        "RRULE:FREQ=DAILY;COUNT=30",
        "EXDATE;TZID=America/New_York:20270302T090000,20270303T090000",
        "EXDATE:20270315T130000Z",
        "EXDATE;VALUE=DATE:20270320",
        "EXDATE:20270322T090000",
        "EXDATE:20270325T100000Z"
      )
    )
    #expect(result.problems == [])
    let a = try #require(result.appointments.first)
    // 22 March 09:00 floating is read in the series' zone; 25 March 10:00Z is no occurrence
    // (kept, so it is written back; it removes nothing).
    #expect(
      a.exceptions == [
        instant("2027-03-02T09:00:00-05:00"), instant("2027-03-03T09:00:00-05:00"),
        instant("2027-03-15T09:00:00-04:00"), instant("2027-03-20T09:00:00-04:00"),
        instant("2027-03-22T09:00:00-04:00"), instant("2027-03-25T10:00:00Z"),
      ]
    )
    let window = DateInterval(start: instant("2027-03-01T00:00:00-05:00"), end: instant("2027-04-01T00:00:00-04:00"))
    #expect(a.occurrences(in: window, fallbackZone: .gmt, includeCancelled: false).count == 25)
  }

  @Test("an all-day series with date EXDATEs")
  func allDayExdates() throws {
    let a = try only(
      event("UID:u", "DTSTART;VALUE=DATE:20261201", "RRULE:FREQ=WEEKLY", "EXDATE;VALUE=DATE:20261208,20261222")
    )
    #expect(a.exceptions == [instant("2026-12-08T00:00:00+01:00"), instant("2026-12-22T00:00:00+01:00")])
  }

  @Test("STATUS:CANCELLED cancels; other statuses are scheduled")
  func status() throws {
    #expect(try only(event("UID:u", "DTSTART;VALUE=DATE:20261201", "STATUS:CANCELLED")).status == .cancelled)
    #expect(try only(event("UID:u", "DTSTART;VALUE=DATE:20261201", "STATUS:TENTATIVE")).status == .scheduled)
    #expect(try only(event("UID:u", "DTSTART;VALUE=DATE:20261201")).status == .scheduled)
  }

  // MARK: - Text fields and defaults

  @Test("SUMMARY, DESCRIPTION and LOCATION: unescaped; a missing title gets a default; LOCATION is its own field")
  func textFields() throws {
    let a = try only(
      event(
        "UID:u",
        "DTSTART;VALUE=DATE:20261201",
        "SUMMARY:Lunch\\, then \\; coffee",
        "DESCRIPTION:first\\nsecond",
        "LOCATION:Café de Flore\\, Paris"
      )
    )
    #expect(a.title == "Lunch, then ; coffee")
    #expect(a.note == "first\nsecond")
    #expect(a.location == "Café de Flore, Paris")
    let untitled = try only(event("UID:u", "DTSTART;VALUE=DATE:20261201", "SUMMARY:  ", "LOCATION:Home"))
    #expect(untitled.title == "(no title)")
    #expect(untitled.note == "")
    #expect(untitled.location == "Home")
    #expect(try only(event("UID:u", "DTSTART;VALUE=DATE:20261201")).title == "(no title)")
  }

  @Test("created comes from CREATED, else DTSTAMP, else now")
  func created() throws {
    let both = try only(
      event("UID:u", "DTSTART;VALUE=DATE:20261201", "DTSTAMP:20261120T080000Z", "CREATED:20261101T080000Z")
    )
    #expect(both.created == instant("2026-11-01T08:00:00Z"))
    #expect(both.updated == instant("2026-11-20T08:00:00Z"))
    let stamp = try only(event("UID:u", "DTSTART;VALUE=DATE:20261201", "DTSTAMP:20261120T080000Z"))
    #expect(stamp.created == instant("2026-11-20T08:00:00Z"))
    #expect(try only(event("UID:u", "DTSTART;VALUE=DATE:20261201")).created == Fixture.now)
  }

  @Test("UIDs: kept; derived from the content when missing (stable, distinct for twins); ours keep their id")
  func uids() throws {
    #expect(try only(event("UID:abc\\,1@example.com", "DTSTART;VALUE=DATE:20261201")).uid == "abc,1@example.com")
    let twin = ["BEGIN:VEVENT", "DTSTART;VALUE=DATE:20261201", "SUMMARY:x", "END:VEVENT"]
    let first = read(calendar(twin + twin))
    let again = read(calendar(twin + ["BEGIN:VEVENT", "SUMMARY:other", "DTSTART;VALUE=DATE:20261201", "END:VEVENT"]))
    #expect(first.problems == [])
    let uids = first.appointments.compactMap(\.uid)
    #expect(uids.count == 2)
    #expect(Set(uids).count == 2)
    #expect(uids[0].hasPrefix("appt-import-"))
    #expect(again.appointments.first?.uid == uids[0], "the same event gets the same UID")
    #expect(again.appointments.last?.uid != uids[0])
    let ours = try only(event("UID:1a2b3c4d-0000-4000-8000-00000000abcd@appt", "DTSTART;VALUE=DATE:20261201"))
    #expect(ours.id.description == "1a2b3c4d-0000-4000-8000-00000000abcd")
  }

  @Test("VTODO and VJOURNAL are skipped with one notice per kind; a VALARM is kept with its event")
  func ignoredComponents() {
    let result = read(
      calendar([
        "BEGIN:VTODO", "SUMMARY:task", "END:VTODO",
        "BEGIN:VEVENT", "UID:u", "DTSTART;VALUE=DATE:20261201",
        "BEGIN:VALARM", "TRIGGER:-PT15M", "ACTION:DISPLAY", "END:VALARM",
        "END:VEVENT",
        "BEGIN:VJOURNAL", "END:VJOURNAL",
        "BEGIN:VTODO", "SUMMARY:another task", "END:VTODO",
      ])
    )
    #expect(result.problems == [])
    #expect(result.appointments.count == 1)
    #expect(
      result.appointments.first?.extras.lines == ["BEGIN:VALARM", "TRIGGER:-PT15M", "ACTION:DISPLAY", "END:VALARM"]
    )
    let skips = result.notices.filter { $0.message.contains("skipped") }
    #expect(skips.map(\.line) == [3, 14])
    #expect(skips[0].message == "2 VTODOs skipped (the first here): appt keeps events only")
    #expect(skips[1].message == "1 VJOURNAL skipped (the first here): appt keeps events only")
  }

  // MARK: - Problems

  @Test("a malformed line in an event is left out with a note at the line it starts on; the event is read")
  func malformedLine() throws {
    let text =
      "BEGIN:VCALENDAR\r\nVERSION:2.0\r\nBEGIN:VEVENT\r\nUID:u\r\nSUMMARY:long\r\n  title\r\n"
      + "this line has no colon\r\nDTSTART;VALUE=DATE:20261201\r\nEND:VEVENT\r\nEND:VCALENDAR\r\n"
    let result = read(text)
    #expect(result.problems == [])
    #expect(result.appointments.map(\.title) == ["long title"])
    let notes = result.notices.filter { $0.message.contains("malformed line") }
    #expect(notes.map(\.line) == [7])
    #expect(notes.first?.message.hasSuffix("left out, the rest read") == true)
    #expect(try #require(result.appointments.first).extras.lines.allSatisfy { !$0.contains("no colon") })
  }

  @Test("a misspelt END (END:VTOOD) ends the component it stands in, with a note; what follows is read")
  func misspeltEnd() {
    let text =
      "BEGIN:VCALENDAR\r\nVERSION:2.0\r\nBEGIN:VTODO\r\nUID:t\r\nEND:VTOOD\r\n"
      + "BEGIN:VEVENT\r\nUID:u\r\nSUMMARY:After\r\nDTSTART;VALUE=DATE:20261201\r\nEND:VEVENT\r\nEND:VCALENDAR\r\n"
    let result = read(text)
    #expect(result.problems == [])
    #expect(result.appointments.map(\.title) == ["After"])
    #expect(result.notices.contains(ICalendar.Problem(line: 5, message: "END:VTOOD ends BEGIN:VTODO (line 3)")))
    // At the top level there is nothing it could end: still a problem.
    #expect(problems("END:VEVENT\r\n").map(\.message) == ["END:VEVENT without BEGIN:VEVENT"])
  }

  @Test("an RRULE without FREQ (empty, as a holiday feed writes it) repeats nothing, with a note; COUNT=-1 is left out")
  func lenientRules() throws {
    for rule in ["RRULE:", "RRULE:INTERVAL=1"] {
      let result = read(event("UID:u", "SUMMARY:Holiday", "DTSTART;VALUE=DATE:20261201", rule))
      #expect(result.problems == [])
      let holiday = try #require(result.appointments.first)
      #expect(holiday.recurrence == nil)
      #expect(holiday.extras.lines == [rule], "written back as it came")
      #expect(result.notices.map(\.message) == ["an RRULE without FREQ adds no occurrence; kept as it came"])
    }
    let negative = read(
      event("UID:u", "SUMMARY:x", "DTSTART;VALUE=DATE:20240304", "RRULE:FREQ=WEEKLY;UNTIL=20240331;COUNT=-1;INTERVAL=4")
    )
    #expect(negative.problems == [])
    #expect(negative.appointments.first?.recurrence?.rrule == "FREQ=WEEKLY;UNTIL=20240331;INTERVAL=4")
    #expect(negative.notices.map(\.message).contains { $0.hasPrefix("RRULE COUNT=-1 is not a count") })
    // Any other mistake in a rule is still a problem.
    #expect(read(event("UID:u", "DTSTART;VALUE=DATE:20261201", "RRULE:FREQ=SOMETIMES")).problems.count == 1)
  }

  @Test("impossible dates are errors, never normalised", arguments: ["20260230", "20261301", "20270229", "20261200"])
  func impossibleDates(date: String) {
    let found = problems(event("UID:u", "SUMMARY:x", "DTSTART;VALUE=DATE:\(date)"))
    #expect(found.map(\.line) == [6])
  }

  @Test("Feb 30 says why")
  func february30() {
    let found = problems(event("UID:u", "DTSTART:20260230T100000", "DURATION:PT1H"))
    #expect(
      found == [ICalendar.Problem(line: 5, message: "DTSTART: \"20260230T100000\": February 2026 has 28 days, not 30")]
    )
    #expect(problems(event("UID:u", "DTSTART:20261201T246000", "DURATION:PT1H")).map(\.line) == [5])
  }

  @Test("every RRULE part is read; a rule no reader could interpret names its part")
  func everyRulePart() throws {
    let monthly = try only(
      event("UID:u", "DTSTART:20261201T100000Z", "DURATION:PT1H", "SUMMARY:x", "RRULE:FREQ=MONTHLY;BYMONTHDAY=1,15")
    )
    #expect(monthly.recurrence?.rrule == "FREQ=MONTHLY;BYMONTHDAY=1,15")
    let secondly = try only(event("UID:u", "DTSTART:20261201T100000Z", "DURATION:PT1H", "RRULE:FREQ=SECONDLY"))
    #expect(secondly.recurrence?.rrule == "FREQ=SECONDLY")
    let bad = problems(event("UID:u", "DTSTART:20261201T100000Z", "DURATION:PT1H", "RRULE:FREQ=MONTHLY;BYMONTHDAY=40"))
    #expect(bad.map(\.line) == [7])
    #expect(bad.first?.message.contains("BYMONTHDAY=40") == true)
  }

  @Test("RECURRENCE-ID overrides and RDATEs are read; EXRULE is kept, not applied, with a note")
  func overrides() throws {
    let text = calendar([
      "BEGIN:VEVENT", "UID:s", "DTSTART:20261201T100000Z", "DURATION:PT1H", "RRULE:FREQ=DAILY", "END:VEVENT",
      "BEGIN:VEVENT", "UID:s", "RECURRENCE-ID:20261203T100000Z", "DTSTART:20261203T120000Z", "DURATION:PT1H",
      "END:VEVENT",
      "BEGIN:VEVENT", "UID:r", "DTSTART:20261201T100000Z", "DURATION:PT1H", "RDATE:20261205T100000Z", "END:VEVENT",
    ])
    let result = read(text)
    #expect(result.problems == [])
    #expect(result.appointments.map(\.uid) == ["s", "s", "r"])
    let moved = result.appointments[1]
    #expect(moved.override == Appointment.Override(seriesID: nil, recurrenceID: instant("2026-12-03T10:00:00Z")))
    #expect(moved.start == instant("2026-12-03T12:00:00Z"))
    #expect(
      result.appointments[2].recurrence == Recurrence(rules: [], dates: [.instant(instant("2026-12-05T10:00:00Z"))])
    )
    let exrule = read(
      event("UID:u", "DTSTART:20261201T100000Z", "DURATION:PT1H", "RRULE:FREQ=DAILY", "EXRULE:FREQ=WEEKLY")
    )
    #expect(exrule.problems == [])
    #expect(exrule.appointments.first?.extras.lines == ["EXRULE:FREQ=WEEKLY"])
    #expect(exrule.notices.map(\.line) == [8])
  }

  @Test("missing DTSTART names the BEGIN:VEVENT line")
  func missingStart() {
    #expect(problems(event("UID:u", "SUMMARY:x")) == [ICalendar.Problem(line: 3, message: "VEVENT without DTSTART")])
  }

  @Test(
    "a time with an end at the start, or none, is an event of no length (RFC 5545); written back as it came",
    arguments: ["DTEND:20261201T100000Z", "DURATION:PT0S", ""]
  )
  func shortEnds(end: String) throws {
    let lines = ["UID:u", "DTSTART:20261201T100000Z"] + (end.isEmpty ? [] : [end])
    let result = read(calendar(["BEGIN:VEVENT"] + lines + ["END:VEVENT"]))
    #expect(result.problems == [])
    let a = try #require(result.appointments.first)
    #expect(a.start == instant("2026-12-01T10:00:00Z"))
    #expect(a.end == a.start)
    #expect(result.notices == [])
    let written = ICalendar.write([a], fallbackZone: paris)
    #expect(written.contains("DTEND") == end.hasPrefix("DTEND"))
    if !end.isEmpty { #expect(written.contains(end + "\r\n")) }
    // Once its end is edited, the event is written with its own end.
    var edited = a
    edited.end = instant("2026-12-01T11:00:00Z")
    #expect(ICalendar.write([edited], fallbackZone: paris).contains("DTEND:20261201T110000Z\r\n"))
  }

  @Test("DTEND before DTSTART: read swapped, as other readers do; a series keeps its DTSTART and has no length")
  func reversedEnds() throws {
    let timed = read(event("UID:u", "DTSTART:20261201T100000Z", "DTEND:20261201T090000Z"))
    #expect(timed.problems == [])
    let a = try #require(timed.appointments.first)
    #expect(a.start == instant("2026-12-01T09:00:00Z"))
    #expect(a.end == instant("2026-12-01T10:00:00Z"))
    #expect(timed.notices == [ICalendar.Problem(line: 6, message: "DTEND is before DTSTART: the two are read swapped")])
    let written = ICalendar.write([a], fallbackZone: paris)
    #expect(written.contains("DTSTART:20261201T090000Z\r\nDTEND:20261201T100000Z\r\n"))
    let days = try only(event("UID:u", "DTSTART;VALUE=DATE:20261205", "DTEND;VALUE=DATE:20261203"))
    #expect(days.isAllDay)
    #expect(days.start == instant("2026-12-03T00:00:00+01:00"))
    #expect(days.end == instant("2026-12-05T00:00:00+01:00"))
    let series = read(
      event("UID:u", "DTSTART:20261201T100000Z", "DTEND:20261201T090000Z", "RRULE:FREQ=DAILY;COUNT=2")
    )
    let b = try #require(series.appointments.first)
    #expect(b.start == instant("2026-12-01T10:00:00Z"))
    #expect(b.end == b.start)
    #expect(series.notices.map(\.message) == ["DTEND is before DTSTART: an event of no length"])
  }

  @Test("a date DTSTART with a timed DTEND ends with DTEND's day; a timed one with a date DTEND at its midnight")
  func mixedEnds() throws {
    let dated = read(event("UID:u", "DTSTART;VALUE=DATE:20261201", "DTEND:20261202T100000"))
    #expect(dated.problems == [])
    #expect(dated.appointments.first?.end == instant("2026-12-03T00:00:00+01:00"))
    #expect(dated.notices.map(\.line) == [6])
    let timed = read(event("UID:u", "DTSTART:20261201T100000", "DTEND;VALUE=DATE:20261202"))
    #expect(timed.appointments.first?.end == instant("2026-12-02T00:00:00+01:00"))
    #expect(timed.notices.map(\.line) == [6])
  }

  @Test("structure: not a calendar, an empty file, a missing END, an END without BEGIN, VERSION 1.0")
  func structure() {
    #expect(problems("hello\r\n") == [ICalendar.Problem(line: 1, message: "malformed line \"hello\": not NAME:VALUE")])
    #expect(problems("") == [ICalendar.Problem(line: 1, message: "the file is empty")])
    #expect(
      problems("BEGIN:VCALENDAR\r\nBEGIN:VEVENT\r\nDTSTART;VALUE=DATE:20261201\r\n").map(\.line) == [1, 2]
    )
    #expect(problems(calendar(["END:VEVENT"])).map(\.line) == [3])
    let v1 = "BEGIN:VCALENDAR\r\nVERSION:1.0\r\nEND:VCALENDAR\r\n"
    #expect(problems(v1) == [ICalendar.Problem(line: 2, message: "VERSION:1.0 is not supported (iCalendar 2.0 only)")])
  }

  @Test("an EXDATE without a series, a DTSTART that is not its rule's first occurrence, an UNTIL before it: notes")
  func consistency() {
    let lone = read(event("UID:u", "DTSTART;VALUE=DATE:20261201", "EXDATE;VALUE=DATE:20261201"))
    #expect(lone.problems == [])
    #expect(lone.appointments.first?.extras.lines == ["EXDATE;VALUE=DATE:20261201"])
    #expect(lone.notices.filter { $0.message.hasPrefix("EXDATE") }.map(\.line) == [6])
    // 1 December 2026 is a Tuesday.
    let unsynced = read(event("UID:u", "DTSTART:20261201T100000Z", "DURATION:PT1H", "RRULE:FREQ=WEEKLY;BYDAY=MO"))
    #expect(unsynced.problems == [])
    #expect(unsynced.notices.map(\.line) == [7])
    #expect(unsynced.notices.first?.message.contains("not an occurrence of its RRULE") == true)
    let ended = read(event("UID:u", "DTSTART:20261201T100000Z", "DURATION:PT1H", "RRULE:FREQ=DAILY;UNTIL=20261101"))
    #expect(ended.problems == [])
    #expect(
      ended.notices == [
        ICalendar.Problem(line: 7, message: "RRULE UNTIL is before DTSTART: the rule adds no occurrence")
      ]
    )
  }

  @Test("every problem of every event is listed, in line order, and the good events still map")
  func everyProblem() {
    let result = read(
      calendar([
        "BEGIN:VEVENT", "UID:1", "DTSTART:20260230T100000Z", "DURATION:PT1H", "END:VEVENT",
        "BEGIN:VEVENT", "UID:2", "DTSTART;VALUE=DATE:20261201", "SUMMARY:good", "END:VEVENT",
        "BEGIN:VEVENT", "UID:3", "DTSTART:20261201T100000Z", "DURATION:PT1H", "RRULE:FREQ=DAILY;BYHOUR=25",
        "END:VEVENT",
      ])
    )
    #expect(result.problems.map(\.line) == [5, 17])
    #expect(result.appointments.map(\.title) == ["good"])
    #expect(result.eventCount == 3)
  }

  // MARK: - Writer

  @Test("the writer's frame: PRODID, VERSION, CALSCALE, CRLF, 75-octet lines, UID <id>@appt")
  func writerFrame() throws {
    let a = Fixture.appointment(title: String(repeating: "long title ", count: 12))
    let text = ICalendar.write([a], fallbackZone: paris)
    #expect(text.hasPrefix("BEGIN:VCALENDAR\r\nVERSION:2.0\r\nPRODID:-//appt//appt 0.1//EN\r\nCALSCALE:GREGORIAN\r\n"))
    #expect(text.hasSuffix("END:VCALENDAR\r\n"))
    let physical = text.dropLast(2).components(separatedBy: "\r\n")
    #expect(physical.allSatisfy { $0.utf8.count <= 75 && !$0.contains("\n") && !$0.contains("\r") })
    #expect(text.contains("UID:1a2b3c4d-0000-4000-8000-00000000abcd@appt\r\n"))
    #expect(
      text.contains("DTSTART;TZID=Europe/Paris:20261201T100000\r\n"),
      "an appointment without a zone is written in the fallback"
    )
  }

  @Test("TZID and a VTIMEZONE for a real zone, Z for UTC, VALUE=DATE for whole days, STATUS, EXDATE")
  func writerForms() throws {
    var zoned = Fixture.appointment()
    zoned.timeZone = "America/New_York"
    zoned.recurrence = Recurrence(frequency: .weekly, weekdays: [.tuesday])
    zoned.exceptions = [zoned.start.addingTimeInterval(7 * 86_400)]
    zoned.status = .cancelled
    var utc = Fixture.appointment(id: "1a2b3c4d-0000-4000-8000-00000000abce")
    utc.timeZone = "GMT"
    var day = Fixture.appointment(id: "1a2b3c4d-0000-4000-8000-00000000abcf")
    day.isAllDay = true
    day.timeZone = "Europe/Paris"
    day.start = instant("2026-12-01T00:00:00+01:00")
    day.end = instant("2026-12-03T00:00:00+01:00")
    day.recurrence = Recurrence(frequency: .yearly, until: instant("2030-12-01T23:59:59+01:00"))
    let text = ICalendar.write([zoned, utc, day], fallbackZone: paris)
    #expect(text.contains("DTSTART;TZID=America/New_York:20261201T040000\r\n"))
    #expect(text.contains("RRULE:FREQ=WEEKLY;BYDAY=TU\r\n"))
    #expect(text.contains("EXDATE;TZID=America/New_York:20261208T040000\r\n"))
    #expect(text.contains("STATUS:CANCELLED\r\n"))
    #expect(text.contains("BEGIN:VTIMEZONE\r\nTZID:America/New_York\r\n"))
    #expect(!text.contains("TZID:GMT"))
    #expect(text.contains("DTSTART:20261201T090000Z\r\n"))
    #expect(text.contains("DTSTART;VALUE=DATE:20261201\r\nDTEND;VALUE=DATE:20261203\r\n"))
    #expect(text.contains("RRULE:FREQ=YEARLY;UNTIL=20301201\r\n"), "a whole-day series ends on a DATE")
    #expect(text.components(separatedBy: "BEGIN:VTIMEZONE").count == 2, "no VTIMEZONE for whole days or UTC")
  }

  @Test("VTIMEZONE: yearly rules, a rule change (US 2007) bounded by UNTIL, one STANDARD for a zone without DST")
  func vtimezone() {
    let us = ICalendar.Writer.vtimezone(
      newYork,
      from: instant("2005-06-01T12:00:00Z"),
      through: instant("2027-06-01T12:00:00Z")
    ).joined(separator: "\n")
    #expect(
      us.contains(
        "DTSTART:20040404T020000\nTZOFFSETFROM:-0500\nTZOFFSETTO:-0400\nRRULE:FREQ=YEARLY;BYMONTH=4;BYDAY=1SU;UNTIL=20060402T070000Z"
      )
    )
    #expect(
      us.contains(
        "DTSTART:20041031T020000\nTZOFFSETFROM:-0400\nTZOFFSETTO:-0500\nRRULE:FREQ=YEARLY;BYMONTH=10;BYDAY=-1SU;UNTIL=20061029T060000Z"
      )
    )
    #expect(
      us.contains(
        "DTSTART:20070311T020000\nTZOFFSETFROM:-0500\nTZOFFSETTO:-0400\nRRULE:FREQ=YEARLY;BYMONTH=3;BYDAY=2SU\n"
      )
    )
    #expect(
      us.contains(
        "DTSTART:20071104T020000\nTZOFFSETFROM:-0400\nTZOFFSETTO:-0500\nRRULE:FREQ=YEARLY;BYMONTH=11;BYDAY=1SU\n"
      )
    )
    let europe = ICalendar.Writer.vtimezone(
      paris,
      from: instant("2026-12-01T12:00:00Z"),
      through: instant("2026-12-01T12:00:00Z")
    )
    #expect(europe.contains("RRULE:FREQ=YEARLY;BYMONTH=3;BYDAY=-1SU"))
    #expect(europe.contains("RRULE:FREQ=YEARLY;BYMONTH=10;BYDAY=-1SU"))
    let tokyo = ICalendar.Writer.vtimezone(
      Fixture.zone("Asia/Tokyo"),
      from: instant("2026-12-01T12:00:00Z"),
      through: instant("2027-12-01T12:00:00Z")
    )
    #expect(
      tokyo == [
        "BEGIN:VTIMEZONE", "TZID:Asia/Tokyo", "X-LIC-LOCATION:Asia/Tokyo", "X-APPT-GENERATED:TRUE", "BEGIN:STANDARD",
        "DTSTART:20250101T000000", "TZOFFSETFROM:+0900", "TZOFFSETTO:+0900", "END:STANDARD", "END:VTIMEZONE",
      ]
    )
  }

  // MARK: - Round trips

  /// A deterministic stream (ApptTestSupport's SplitMix64), so a failure reproduces.
  typealias Random = SplitMix64

  func randomAppointment(_ random: inout Random, index: Int) -> Appointment {
    let words = [
      "Lunch", "réunion", "a,b", "x;y", "back\\slash", "🙂", "日本語", "Zoë", "tab\there", "\"quoted\"", "50%",
      "colon: here", "👩‍👩‍👧", String(repeating: "long", count: 20),
    ]
    let zones = ["Europe/Paris", "America/New_York", "Asia/Tokyo", "GMT", "Asia/Kolkata", "Australia/Sydney"]
    let zone = Fixture.zone(random.pick(zones))
    var calendar = Calendar(identifier: .gregorian)
    calendar.timeZone = zone
    let title = (0...random.below(4)).map { _ in random.pick(words) }.joined(separator: " ")
    let note = random.below(3) == 0 ? "" : (0...random.below(6)).map { _ in random.pick(words) }.joined(separator: "\n")
    let isAllDay = random.below(4) == 0
    let day = DateComponents(year: 2026 + random.below(2), month: 1 + random.below(12), day: 1 + random.below(28))
    var start = calendar.date(from: day) ?? Fixture.now
    var end: Date
    if isAllDay {
      end = calendar.date(byAdding: .day, value: 1 + random.below(3), to: start) ?? start
    } else {
      start = start.addingTimeInterval(TimeInterval((random.below(24 * 4)) * 900))
      end = start.addingTimeInterval(TimeInterval((1 + random.below(16)) * 900))
    }
    var recurrence: Recurrence?
    var exceptions: [Date] = []
    switch random.below(6) {
    case 0: recurrence = Recurrence(frequency: .daily, interval: 1 + random.below(3), count: 5 + random.below(20))
    case 1:
      let weekday = Recurrence.weekday(of: start, calendar: calendar)
      let other = Recurrence.Weekday(rawValue: (weekday.rawValue + 2) % 7) ?? .monday
      let until = calendar.date(byAdding: .month, value: 3, to: start).map { calendar.startOfDay(for: $0) }
      recurrence = Recurrence(frequency: .weekly, weekdays: [weekday, other], until: until?.addingTimeInterval(-1))
    case 2: recurrence = Recurrence(frequency: .monthly, count: 12)
    case 3: recurrence = Recurrence(frequency: .yearly)
    default: recurrence = nil
    }
    if let recurrence {
      let window = DateInterval(start: start, duration: 120 * 86_400)
      let occurrences = recurrence.occurrences(
        start: start,
        duration: end.timeIntervalSince(start),
        zone: zone,
        in: window
      )
      exceptions = occurrences.enumerated().filter { $0.offset % 3 == 1 }.map(\.element)
    }
    let id = String(format: "00000000-0000-4000-8000-%012d", index)
    return Appointment(
      id: AppointmentID(string: id) ?? AppointmentID(),
      title: title,
      start: start,
      end: end,
      note: note,
      status: random.below(4) == 0 ? .cancelled : .scheduled,
      created: instant("2026-01-01T00:00:00Z").addingTimeInterval(TimeInterval(random.below(1_000_000))),
      updated: instant("2026-02-01T00:00:00Z").addingTimeInterval(TimeInterval(random.below(1_000_000))),
      timeZone: zone.identifier,
      isAllDay: isAllDay,
      recurrence: recurrence,
      exceptions: exceptions,
      uid: random.below(2) == 0 ? nil : "event-\(index)@example.org"
    )
  }

  @Test("writer -> reader gives the same appointments (seeded random titles, notes, zones, series, days)")
  func roundTrip() throws {
    var random = Random(seed: 20_261_129)
    let originals = (0..<120).map { randomAppointment(&random, index: $0) }
    let text = ICalendar.write(originals, fallbackZone: paris)
    #expect(!text.unicodeScalars.contains { TextSafety.isControl($0) && $0 != "\r" && $0 != "\n" && $0 != "\t" })
    // Whole days are read in the importing clock's zone: read each in its own zone.
    for original in originals {
      let clock = Clock.fixed(Fixture.now, timeZone: Fixture.zone(original.timeZone))
      let result = ICalendar.read(ICalendar.write([original], fallbackZone: paris), clock: clock)
      #expect(result.problems == [], "\(original.title)")
      var expected = original
      expected.uid = original.uid ?? "\(original.id)@appt"
      if original.isAllDay, case .utc(let until)? = original.recurrence?.rules.first?.until {
        // A whole-day series ends on a date (the day of its UNTIL), as RFC 5545 wants.
        expected.recurrence?.rules[0].until = .date(CivilDateTime(until.instant(in: .gmt), in: clock.timeZone).date)
      }
      var got = result.appointments
      // An event with a foreign UID gets a new id; only "<id>@appt" keeps it.
      if original.uid != nil, !got.isEmpty { got[0].id = original.id }
      #expect(got == [expected], "\(original.title)")
    }
    let all = ICalendar.read(text, clock: Clock.fixed(Fixture.now, timeZone: .gmt))
    #expect(all.problems == [])
    #expect(all.appointments.count == originals.count)
    #expect(all.appointments.map(\.title) == originals.map(\.title))
  }

  @Test("both instants of the hour repeated when clocks go back survive the round trip")
  func repeatedHour() throws {
    for text in ["2026-11-01T01:30:00-04:00", "2026-11-01T01:30:00-05:00"] {
      var a = Fixture.appointment(start: text, end: "2026-11-01T03:00:00-05:00")
      a.timeZone = "America/New_York"
      let back = try #require(ICalendar.read(ICalendar.write([a], fallbackZone: .gmt), clock: clock).appointments.first)
      #expect(back.start == a.start, "\(text)")
      #expect(back.end == a.end)
    }
  }

  @Test("a series' occurrences survive the round trip across a daylight-saving change")
  func seriesAcrossDST() throws {
    var series = Fixture.appointment(start: "2027-02-01T09:00:00-05:00", end: "2027-02-01T10:00:00-05:00")
    series.timeZone = "America/New_York"
    series.recurrence = Recurrence(frequency: .weekly)
    let back = try #require(
      ICalendar.read(ICalendar.write([series], fallbackZone: .gmt), clock: clock).appointments.first
    )
    let window = DateInterval(start: instant("2027-02-01T00:00:00Z"), end: instant("2027-05-01T00:00:00Z"))
    let before = series.occurrences(in: window, fallbackZone: .gmt, includeCancelled: true).map(\.start)
    let after = back.occurrences(in: window, fallbackZone: .gmt, includeCancelled: true).map(\.start)
    #expect(after == before)
    #expect(after.contains(instant("2027-03-15T09:00:00-04:00")))
  }

  // MARK: - Commands

  @Test("import and export parse; a reversed export range is an error")
  func commands() throws {
    let parser = CommandParser(clock: clock)
    #expect(try parser.parse(line: "import cal.ics") == .importFile(path: "cal.ics", partial: false))
    #expect(try parser.parse(line: "import --partial 'my cal.ics'") == .importFile(path: "my cal.ics", partial: true))
    #expect(try parser.parse(line: "export") == .export(range: nil, path: nil))
    #expect(
      try parser.parse(line: "export --from 2026-12-01 --to 2026-12-31 out.ics")
        == .export(
          range: DateInterval(start: instant("2026-12-01T00:00:00+01:00"), end: instant("2027-01-01T00:00:00+01:00")),
          path: "out.ics"
        )
    )
    #expect(
      try parser.parse(line: "export --from 2026-12-01")
        == .export(range: DateInterval(start: instant("2026-12-01T00:00:00+01:00"), end: .distantFuture), path: nil)
    )
    let reversed = commandError { () throws(CommandError) in
      try parser.parse(line: "export --from 2026-12-31 --to 2026-12-01")
    }
    #expect(reversed?.kind == .invalid)
    #expect(reversed?.message.contains("reversed range") == true)
    #expect(commandError { () throws(CommandError) in try parser.parse(line: "import") }?.kind == .usage)
    #expect(commandError { () throws(CommandError) in try parser.parse(line: "import a b") }?.kind == .usage)
    #expect(commandError { () throws(CommandError) in try parser.parse(line: "export a b") }?.kind == .usage)
    #expect(commandError { () throws(CommandError) in try parser.parse(line: "import a --all") }?.kind == .usage)
    #expect(try parser.parse(line: "help import") == .help(topic: "import"))
    #expect(CommandHelp.summary.contains("  export [--from WHEN] [--to WHEN] [--calendar NAME] [FILE]\n"))
  }

  @Test("export's range: one-offs that overlap it, series whose span reaches it")
  func exportRange() {
    let range = DateInterval(start: instant("2027-01-01T00:00:00Z"), end: instant("2027-02-01T00:00:00Z"))
    let before = Fixture.appointment(start: "2026-12-01T10:00:00Z", end: "2026-12-01T11:00:00Z")
    var endless = before
    endless.recurrence = Recurrence(frequency: .weekly)
    var ended = before
    ended.recurrence = Recurrence(frequency: .weekly, count: 3)
    let inside = Fixture.appointment(start: "2027-01-10T10:00:00Z", end: "2027-01-10T11:00:00Z")
    #expect(!ICalendar.reaches(before, range, fallbackZone: .gmt))
    #expect(ICalendar.reaches(endless, range, fallbackZone: .gmt))
    #expect(!ICalendar.reaches(ended, range, fallbackZone: .gmt))
    #expect(ICalendar.reaches(inside, range, fallbackZone: .gmt))
  }
}
