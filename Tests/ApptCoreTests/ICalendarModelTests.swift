import ApptTestSupport
import Foundation
import Testing

@testable import ApptCore

/// The iCalendar codec and the calendar model: overrides, SEQUENCE, RDATE, several RRULEs,
/// zones (Windows, VTIMEZONE-only, X-WR-TIMEZONE, a zone and a Z), nested calendars, and
/// what is kept verbatim and written back.
@Suite("iCalendar model")
struct ICalendarModelTests {
  let clock = Fixture.clock  // Paris, Sunday 2026-11-29 15:00
  let paris = Fixture.paris

  func calendar(_ lines: [String]) -> String {
    (["BEGIN:VCALENDAR", "VERSION:2.0"] + lines + ["END:VCALENDAR"]).joined(separator: "\r\n") + "\r\n"
  }

  func event(_ lines: String...) -> String { calendar(["BEGIN:VEVENT"] + lines + ["END:VEVENT"]) }

  func read(_ text: String, clock: Clock? = nil) -> ICalendar.ReadResult {
    ICalendar.read(text, clock: clock ?? self.clock)
  }

  func instant(_ text: String) -> Date { Fixture.instant(text) }

  /// The physical lines of `text`, unfolded (CRLF ends, a leading space continues).
  func unfolded(_ text: String) -> [String] {
    text.replacingOccurrences(of: "\r\n ", with: "").components(separatedBy: "\r\n").filter { !$0.isEmpty }
  }

  /// read -> write -> read: the same appointments (ids aside: a foreign UID gets a new one).
  func expectRoundTrip(_ text: String, sourceLocation: SourceLocation = #_sourceLocation) {
    let first = read(text)
    #expect(first.problems == [], sourceLocation: sourceLocation)
    let written = ICalendar.write(first.appointments, fallbackZone: paris)
    let second = read(written)
    #expect(second.problems == [], sourceLocation: sourceLocation)
    var again = second.appointments
    for index in again.indices where index < first.appointments.count { again[index].id = first.appointments[index].id }
    #expect(again == first.appointments, sourceLocation: sourceLocation)
  }

  // MARK: - Overrides

  let series = [
    "BEGIN:VEVENT", "UID:weekly@example.com", "DTSTART;TZID=Europe/Berlin:20261201T100000",
    "DTEND;TZID=Europe/Berlin:20261201T110000", "RRULE:FREQ=WEEKLY;COUNT=6", "SUMMARY:Standup", "END:VEVENT",
  ]

  @Test("RECURRENCE-ID: an override of its own, uid set, series unknown; written after its master")
  func override() throws {
    let moved = [
      "BEGIN:VEVENT", "UID:weekly@example.com", "RECURRENCE-ID;TZID=Europe/Berlin:20261208T100000",
      "DTSTART;TZID=Europe/Berlin:20261209T150000", "DTEND;TZID=Europe/Berlin:20261209T160000",
      "SUMMARY:Standup (moved)", "SEQUENCE:2", "END:VEVENT",
    ]
    // The override first: the writer still puts the master before it.
    let result = read(calendar(moved + series))
    #expect(result.problems == [])
    let overrideEvent = try #require(result.appointments.first)
    #expect(
      overrideEvent.override
        == Appointment.Override(seriesID: nil, recurrenceID: instant("2026-12-08T10:00:00+01:00"), thisAndFuture: false)
    )
    #expect(overrideEvent.uid == "weekly@example.com")
    #expect(overrideEvent.sequence == 2)
    #expect(overrideEvent.recurrence == nil)
    let all = unfolded(ICalendar.write(result.appointments, fallbackZone: paris))
    let written = Array(all[(all.firstIndex(of: "BEGIN:VEVENT") ?? 0)...])
    let uids = written.enumerated().filter { $0.element.hasPrefix("RECURRENCE-ID") || $0.element.hasPrefix("RRULE") }
    #expect(uids.map(\.element) == ["RRULE:FREQ=WEEKLY;COUNT=6", "RECURRENCE-ID;TZID=Europe/Berlin:20261208T100000"])
    #expect(written.contains("SEQUENCE:2"))
    expectRoundTrip(calendar(series + moved))
  }

  @Test("RANGE=THISANDFUTURE is read and written back; another RANGE is this occurrence only, with a note")
  func thisAndFuture() throws {
    let future = [
      "BEGIN:VEVENT", "UID:weekly@example.com", "RECURRENCE-ID;RANGE=THISANDFUTURE:20261215T090000Z",
      "DTSTART:20261215T140000Z", "DURATION:PT1H", "END:VEVENT",
    ]
    let result = read(calendar(series + future))
    #expect(result.problems == [])
    let later = try #require(result.appointments.last)
    #expect(later.override?.thisAndFuture == true)
    #expect(later.override?.recurrenceID == instant("2026-12-15T09:00:00Z"))
    let written = ICalendar.write(result.appointments, fallbackZone: paris)
    #expect(written.contains("RECURRENCE-ID;RANGE=THISANDFUTURE:20261215T090000Z\r\n"))
    expectRoundTrip(calendar(series + future))

    let prior = read(
      event("UID:x", "RECURRENCE-ID;RANGE=THISANDPRIOR:20261215T090000Z", "DTSTART:20261215T140000Z", "DURATION:PT1H")
    )
    #expect(prior.problems == [])
    #expect(prior.appointments.first?.override?.thisAndFuture == false)
    #expect(prior.notices.map(\.line) == [5])
  }

  // MARK: - SEQUENCE

  @Test("two copies of one UID: the higher SEQUENCE wins wherever it is; equal: the later; each with a note")
  func sequence() throws {
    func copy(_ title: String, _ sequence: Int) -> [String] {
      [
        "BEGIN:VEVENT", "UID:same", "DTSTART;VALUE=DATE:20261201", "SUMMARY:\(title)", "SEQUENCE:\(sequence)",
        "END:VEVENT",
      ]
    }
    let higherFirst = read(calendar(copy("new", 3) + copy("old", 1)))
    #expect(higherFirst.problems == [])
    #expect(higherFirst.appointments.map(\.title) == ["new"])
    #expect(higherFirst.notices.map(\.line) == [9])
    #expect(higherFirst.notices.first?.message.contains("line 3") == true)
    let higherLast = read(calendar(copy("old", 1) + copy("new", 3)))
    #expect(higherLast.appointments.map(\.title) == ["new"])
    let equal = read(calendar(copy("first", 2) + copy("second", 2)))
    #expect(equal.appointments.map(\.title) == ["second"])
    #expect(equal.notices.first?.message.contains("the later one is kept") == true)
    // Overrides of different occurrences are not copies of each other.
    let two = read(
      calendar(
        series
          + ["BEGIN:VEVENT", "UID:weekly@example.com", "RECURRENCE-ID:20261208T090000Z", "DTSTART:20261208T120000Z"]
          + ["DURATION:PT1H", "END:VEVENT"]
          + ["BEGIN:VEVENT", "UID:weekly@example.com", "RECURRENCE-ID:20261215T090000Z", "DTSTART:20261215T120000Z"]
          + ["DURATION:PT1H", "END:VEVENT"]
      )
    )
    #expect(two.appointments.count == 3)
    #expect(two.notices.filter { $0.message.contains("SEQUENCE") } == [])
  }

  // MARK: - Recurrence

  @Test("several RRULEs and RDATEs in every form, several per line and on several lines")
  func recurrenceSet() throws {
    let text = event(
      "UID:r",
      "DTSTART;TZID=America/New_York:20270301T090000",
      "DTEND;TZID=America/New_York:20270301T100000",
      "RRULE:FREQ=MONTHLY;COUNT=2;BYDAY=1MO",
      "RRULE:FREQ=YEARLY;COUNT=2;BYMONTH=3;BYMONTHDAY=-1",
      "RDATE;TZID=America/New_York:20270310T090000,20270311T090000",
      "RDATE:20270312T170000Z",
      "RDATE;VALUE=DATE:20270313",
      "RDATE;VALUE=PERIOD:20270314T170000Z/20270314T200000Z,20270315T170000Z/PT30M",
      "RDATE:20270316T090000"
    )
    let result = read(text)
    #expect(result.problems == [])
    let a = try #require(result.appointments.first)
    #expect(a.recurrence?.rules.count == 2)
    #expect(
      a.recurrence?.dates == [
        .instant(instant("2027-03-10T09:00:00-05:00")), .instant(instant("2027-03-11T09:00:00-05:00")),
        .instant(instant("2027-03-12T17:00:00Z")), .date(CivilDate(year: 2027, month: 3, day: 13)),
        .period(instant("2027-03-14T17:00:00Z"), 3 * 3600), .period(instant("2027-03-15T17:00:00Z"), 1800),
        .local(CivilDateTime(2027, 3, 16, 9)),
      ]
    )
    let window = DateInterval(start: instant("2027-03-01T00:00:00Z"), end: instant("2028-04-01T00:00:00Z"))
    let starts = a.occurrences(in: window, fallbackZone: .gmt, includeCancelled: false).map(\.start)
    #expect(starts.contains(instant("2027-03-13T09:00:00-05:00")), "a DATE RDATE is that day at DTSTART's time")
    #expect(starts.contains(instant("2027-03-31T09:00:00-04:00")), "the second rule")
    #expect(starts.contains(instant("2027-04-05T09:00:00-04:00")), "the first rule's second")
    let all = unfolded(ICalendar.write([a], fallbackZone: paris))
    let written = Array(all[(all.firstIndex(of: "BEGIN:VEVENT") ?? 0)...])
    #expect(written.filter { $0.hasPrefix("RRULE:") }.count == 2)
    #expect(written.contains("RDATE;VALUE=DATE:20270313"))
    #expect(written.contains("RDATE:20270316T090000"))
    // The RDATE lines as they came, while the dates are the same; generated otherwise.
    #expect(written.contains("RDATE;VALUE=PERIOD:20270314T170000Z/20270314T200000Z,20270315T170000Z/PT30M"))
    var generated = a
    generated.extras.asRead = nil
    let fresh = unfolded(ICalendar.write([generated], fallbackZone: paris))
    #expect(fresh.contains { $0.hasPrefix("RDATE;VALUE=PERIOD;TZID=America/New_York:20270314T130000/") })
    expectRoundTrip(text)
  }

  @Test("an override's RRULE, RDATE and EXDATE are kept as they are, not applied, with a note")
  func overrideWithRule() throws {
    let result = read(
      event("UID:x", "RECURRENCE-ID:20261208T090000Z", "DTSTART:20261208T120000Z", "DURATION:PT1H", "RRULE:FREQ=DAILY")
    )
    let a = try #require(result.appointments.first)
    #expect(a.recurrence == nil)
    #expect(a.extras.lines == ["RRULE:FREQ=DAILY"])
    #expect(result.notices.map(\.line) == [5])
  }

  // MARK: - Zones

  let windowsZone = [
    "BEGIN:VTIMEZONE", "TZID:W. Europe Standard Time",
    "BEGIN:STANDARD", "DTSTART:16010101T030000", "TZOFFSETFROM:+0200", "TZOFFSETTO:+0100",
    "RRULE:FREQ=YEARLY;INTERVAL=1;BYDAY=-1SU;BYMONTH=10", "END:STANDARD",
    "BEGIN:DAYLIGHT", "DTSTART:16010101T020000", "TZOFFSETFROM:+0100", "TZOFFSETTO:+0200",
    "RRULE:FREQ=YEARLY;INTERVAL=1;BYDAY=-1SU;BYMONTH=3", "END:DAYLIGHT", "END:VTIMEZONE",
  ]

  @Test("a Windows zone name is its IANA zone; the name and its VTIMEZONE are written back as they came")
  func windowsZoneName() throws {
    let text = calendar(
      windowsZone + [
        "BEGIN:VEVENT", "UID:o", "DTSTART;TZID=W. Europe Standard Time:20270705T100000",
        "DTEND;TZID=W. Europe Standard Time:20270705T110000", "SUMMARY:Outlook", "END:VEVENT",
      ]
    )
    let result = read(text)
    #expect(result.problems == [])
    let a = try #require(result.appointments.first)
    #expect(a.timeZone == "Europe/Berlin")
    #expect(a.start == instant("2027-07-05T10:00:00+02:00"))
    #expect(a.extras.zoneID == "W. Europe Standard Time")
    #expect(a.extras.zoneDefinition == windowsZone)
    let written = unfolded(ICalendar.write([a], fallbackZone: paris))
    #expect(written.contains("DTSTART;TZID=W. Europe Standard Time:20270705T100000"))
    let begin = try #require(written.firstIndex(of: "BEGIN:VTIMEZONE"))
    #expect(Array(written[begin..<(begin + windowsZone.count)]) == windowsZone)
    #expect(written.filter { $0 == "BEGIN:VTIMEZONE" }.count == 1, "no generated Europe/Berlin beside it")
    expectRoundTrip(text)
  }

  @Test("a zone defined only by its VTIMEZONE: the IANA zone with the same clock, with a note")
  func vtimezoneOnly() throws {
    var custom = windowsZone
    custom[1] = "TZID:My Office"
    let text = calendar(
      custom + [
        "BEGIN:VEVENT", "UID:c", "DTSTART;TZID=My Office:20270105T100000", "DURATION:PT1H",
        "RRULE:FREQ=MONTHLY;COUNT=12", "END:VEVENT",
      ]
    )
    let result = read(text)
    #expect(result.problems == [])
    let a = try #require(result.appointments.first)
    #expect(a.start == instant("2027-01-05T10:00:00+01:00"))
    #expect(a.extras.zoneID == "My Office")
    let zone = try #require(TimeZone(identifier: a.timeZone))
    #expect(zone.secondsFromGMT(for: instant("2027-07-05T10:00:00Z")) == 7200)
    #expect(result.notices.contains { $0.line == 3 && $0.message.contains("defined only by its VTIMEZONE") })
    let window = DateInterval(start: instant("2027-07-01T00:00:00Z"), duration: 31 * 86400)
    #expect(
      a.occurrences(in: window, fallbackZone: .gmt, includeCancelled: false).map(\.start) == [
        instant("2027-07-05T10:00:00+02:00")
      ]
    )
    expectRoundTrip(text)
  }

  @Test("a VTIMEZONE no IANA zone matches: its fixed offset, with a note")
  func vtimezoneFixed() throws {
    let text = calendar([
      "BEGIN:VTIMEZONE", "TZID:Odd", "BEGIN:STANDARD", "DTSTART:19700101T000000", "TZOFFSETFROM:+0117",
      "TZOFFSETTO:+0117", "END:STANDARD", "END:VTIMEZONE",
      "BEGIN:VEVENT", "UID:c", "DTSTART;TZID=Odd:20270105T100000", "DURATION:PT1H", "END:VEVENT",
    ])
    let result = read(text)
    #expect(result.problems == [])
    #expect(result.appointments.first?.start == instant("2027-01-05T10:00:00+01:17"))
    #expect(result.notices.map(\.line) == [3])
    #expect(result.notices.first?.message.hasSuffix("read as the fixed offset +01:17") == true)
  }

  @Test("DTSTART with a TZID and a Z: UTC, the same under any TZ, with a note")
  func zoneAndZ() throws {
    let text = event("UID:z", "DTSTART;TZID=Europe/Berlin:20150602T120000Z", "DURATION:PT1H")
    for zone in ["Europe/Paris", "America/New_York", "Asia/Tokyo"] {
      let result = read(text, clock: Clock.fixed(Fixture.now, timeZone: Fixture.zone(zone)))
      #expect(result.problems == [])
      let a = try #require(result.appointments.first)
      #expect(a.start == instant("2015-06-02T12:00:00Z"))
      #expect(a.timeZone == "Europe/Berlin")
      #expect(result.notices.map(\.line) == [5])
      #expect(result.notices.first?.message.contains("read as UTC") == true)
    }
  }

  @Test("X-WR-TIMEZONE: floating times and dates are read in it, with a note")
  func wrTimezone() throws {
    let text =
      "BEGIN:VCALENDAR\r\nVERSION:2.0\r\nX-WR-TIMEZONE:America/New_York\r\nBEGIN:VEVENT\r\nUID:f\r\n"
      + "DTSTART:20261201T090000\r\nDURATION:PT1H\r\nEND:VEVENT\r\nEND:VCALENDAR\r\n"
    let result = read(text)
    #expect(result.problems == [])
    #expect(result.appointments.first?.start == instant("2026-12-01T09:00:00-05:00"))
    #expect(result.appointments.first?.timeZone == "America/New_York")
    #expect(result.notices.map(\.line) == [3])
  }

  @Test("an RDATE in another zone than DTSTART's is exported with that zone's VTIMEZONE too")
  func rdateZoneWritten() throws {
    let text = event(
      "UID:r",
      "SUMMARY:Call",
      "DTSTART;TZID=Europe/Berlin:20261201T090000",
      "DURATION:PT1H",
      "RDATE;TZID=Pacific Standard Time:20261210T080000"
    )
    let read = read(text).appointments
    let written = ICalendar.write(read, fallbackZone: .gmt)
    #expect(written.contains("RDATE;TZID=Pacific Standard Time:20261210T080000\r\n"))
    #expect(written.contains("TZID:Pacific Standard Time\r\n"))
    #expect(written.contains("TZID:Europe/Berlin\r\n"))
  }

  @Test("X-WR-TIMEZONE times are exported under that X-WR-TIMEZONE, or with a TZID beside other floating times")
  func wrTimezoneWrittenBack() throws {
    let text =
      "BEGIN:VCALENDAR\r\nVERSION:2.0\r\nX-WR-TIMEZONE:America/New_York\r\nBEGIN:VEVENT\r\nUID:f\r\n"
      + "DTSTART:20261201T090000\r\nDURATION:PT1H\r\nEND:VEVENT\r\nEND:VCALENDAR\r\n"
    let placed = read(text).appointments
    let alone = ICalendar.write(placed, fallbackZone: .gmt)
    #expect(alone.contains("X-WR-TIMEZONE:America/New_York\r\n"))
    #expect(alone.contains("DTSTART:20261201T090000\r\n"))
    // In any zone, the export reads back at the same instant.
    let tokyo = Clock.fixed(clock.now, timeZone: TimeZone(identifier: "Asia/Tokyo") ?? .gmt)
    #expect(read(alone, clock: tokyo).appointments.map(\.start) == placed.map(\.start))
    // Beside a truly floating event, an X-WR-TIMEZONE would move that one: a TZID instead.
    let floating = read(event("UID:g", "DTSTART:20261202T100000", "DURATION:PT1H")).appointments
    let mixed = ICalendar.write(placed + floating, fallbackZone: .gmt)
    #expect(!mixed.contains("X-WR-TIMEZONE"))
    #expect(mixed.contains("DTSTART;TZID=America/New_York:20261201T090000\r\n"))
    #expect(mixed.contains("DTSTART:20261202T100000\r\n"))
    let back = read(mixed, clock: tokyo).appointments
    #expect(back.first { $0.uid == "f" }?.start == placed.first?.start)
  }

  // MARK: - Structure

  @Test("a VCALENDAR nested in a VCALENDAR: its events are read, with a note")
  func nestedCalendar() throws {
    let text = calendar(
      ["BEGIN:VCALENDAR", "VERSION:2.0", "BEGIN:VEVENT", "UID:n", "DTSTART;VALUE=DATE:20261201", "SUMMARY:inner"]
        + ["END:VEVENT", "END:VCALENDAR"]
    )
    let result = read(text)
    #expect(result.problems == [])
    #expect(result.appointments.map(\.title) == ["inner"])
    #expect(result.eventCount == 1)
    #expect(
      result.notices.first
        == ICalendar.Problem(line: 3, message: "a VCALENDAR inside a VCALENDAR: its events are read as well")
    )
  }

  // MARK: - Kept verbatim

  @Test("everything appt does not model is kept verbatim (unfolded, original spelling) and written back")
  func extrasVerbatim() throws {
    let kept = [
      "ORGANIZER;CN=\"Doe, Jane\":mailto:jane@example.com",
      "attendee;ROLE=REQ-PARTICIPANT;PARTSTAT=ACCEPTED;CN=Ann:mailto:ann@example.com",
      "CATEGORIES:Work,Important",
      "URL;VALUE=URI:https://example.com/meeting?id=1",
      "CLASS:PRIVATE",
      "TRANSP:TRANSPARENT",
      "GEO:48.85;2.35",
      "X-MICROSOFT-CDO-BUSYSTATUS:BUSY",
      "X-UNKNOWN;X-PARAM=whatever:" + String(repeating: "long value ", count: 12),
    ]
    let alarm = [
      "BEGIN:VALARM", "TRIGGER;RELATED=START:-PT15M", "ACTION:DISPLAY", "DESCRIPTION:Reminder", "END:VALARM",
    ]
    let text = calendar(
      [
        "BEGIN:VEVENT", "UID:v", "dtstart;tzid=Europe/Berlin:20261201T100000",
        "DTEND;TZID=Europe/Berlin:20261201T110000",
      ]
        + ["SUMMARY;LANGUAGE=de:Besprechung", "STATUS:TENTATIVE"] + kept + alarm + ["END:VEVENT"]
    )
    let result = read(text)
    #expect(result.problems == [])
    let a = try #require(result.appointments.first)
    #expect(a.title == "Besprechung")
    #expect(a.start == instant("2026-12-01T10:00:00+01:00"))
    // The SUMMARY with its LANGUAGE too: written back as it came while the title is the same.
    #expect(a.extras.lines == ["SUMMARY;LANGUAGE=de:Besprechung"] + kept + ["STATUS:TENTATIVE"] + alarm)
    let output = ICalendar.write([a], fallbackZone: paris)
    #expect(output.components(separatedBy: "\r\n").allSatisfy { $0.utf8.count <= 75 }, "folded at 75 octets")
    let written = unfolded(output)
    for line in kept + alarm + ["STATUS:TENTATIVE", "SUMMARY;LANGUAGE=de:Besprechung"] {
      #expect(written.contains(line), "\(line)")
    }
    #expect(written.filter { $0.hasPrefix("SUMMARY") }.count == 1)
    var retitled = a
    retitled.title = "Neu"
    let titles = unfolded(ICalendar.write([retitled], fallbackZone: paris)).filter { $0.hasPrefix("SUMMARY") }
    #expect(titles == ["SUMMARY:Neu"])
    expectRoundTrip(text)
    // A cancelled event gives its STATUS:TENTATIVE up.
    var cancelled = a
    cancelled.status = .cancelled
    let statuses = unfolded(ICalendar.write([cancelled], fallbackZone: paris)).filter { $0.hasPrefix("STATUS") }
    #expect(statuses == ["STATUS:CANCELLED"])
  }

  @Test("LOCATION is a field, written back as LOCATION; DURATION is written back as it came")
  func locationAndDuration() throws {
    let text = event("UID:l", "DTSTART:20261201T100000Z", "DURATION:PT1H30M", "LOCATION:Room 1\\, 2nd floor")
    let a = try #require(read(text).appointments.first)
    #expect(a.location == "Room 1, 2nd floor")
    #expect(a.note == "")
    let written = unfolded(ICalendar.write([a], fallbackZone: paris))
    #expect(written.contains("LOCATION:Room 1\\, 2nd floor"))
    #expect(written.contains("DURATION:PT1H30M"))
    #expect(!written.contains { $0.hasPrefix("DTEND") })
    expectRoundTrip(text)
  }

  @Test("lower-case names, a bare LF and unknown parameters on what appt models are read")
  func lowerCaseAndLF() throws {
    let text =
      "begin:vcalendar\nversion:2.0\nbegin:vevent\nuid:lc\ndtstart;x-foo=bar:20261201T100000Z\n"
      + "dtend:20261201T110000Z\nsummary;x-lang=en:lower\nend:vevent\nend:vcalendar\n"
    let result = read(text)
    #expect(result.problems == [])
    #expect(result.appointments.first?.title == "lower")
    #expect(result.appointments.first?.duration == 3600)
  }

  @Test("a second SUMMARY (or other single property) is kept as it is, the first used, with a note")
  func secondSummary() throws {
    let result = read(event("UID:s", "DTSTART;VALUE=DATE:20261201", "SUMMARY:one", "SUMMARY:two"))
    #expect(result.problems == [])
    #expect(result.appointments.first?.title == "one")
    #expect(result.appointments.first?.extras.lines == ["SUMMARY:one", "SUMMARY:two"])
    let written = unfolded(ICalendar.write(result.appointments, fallbackZone: paris)).filter { $0.hasPrefix("SUMMARY") }
    #expect(written == ["SUMMARY:one", "SUMMARY:two"])
    #expect(result.notices.map(\.line) == [7])
  }
}
