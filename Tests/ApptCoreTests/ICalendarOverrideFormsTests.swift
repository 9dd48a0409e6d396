import Foundation
import Testing

@testable import ApptCore

/// The forms real exports give an overridden occurrence's RECURRENCE-ID, read as the
/// occurrence they name and written back so that they name it again.
@Suite("iCalendar: RECURRENCE-ID forms")
struct ICalendarOverrideFormsTests {
  let berlin = Clock.fixed(Date(timeIntervalSince1970: 1_585_000_000), timeZone: RRuleTesting.zone("Europe/Berlin"))

  func calendar(_ lines: [String]) -> String {
    (["BEGIN:VCALENDAR", "VERSION:2.0", "PRODID:test"] + lines + ["END:VCALENDAR"]).joined(separator: "\r\n") + "\r\n"
  }

  /// An all-day weekly series from Thursday 2 April 2020 and its moved 16 April, whose
  /// RECURRENCE-ID is written `recurrenceID`.
  func allDaySeries(recurrenceID: String) -> String {
    calendar([
      "BEGIN:VEVENT", "UID:bins", "SUMMARY:Bins", "DTSTART;VALUE=DATE:20200402", "DTEND;VALUE=DATE:20200403",
      "RRULE:FREQ=WEEKLY;COUNT=4", "END:VEVENT",
      "BEGIN:VEVENT", "UID:bins", "SUMMARY:Bins (moved)", recurrenceID,
      "DTSTART;VALUE=DATE:20200417", "DTEND;VALUE=DATE:20200418", "END:VEVENT",
    ])
  }

  @Test(
    "Exchange's midnight RECURRENCE-ID on an all-day series (in a zone, or in UTC) names that date's occurrence",
    arguments: [
      "RECURRENCE-ID;TZID=GMT Standard Time:20200416T000000", "RECURRENCE-ID:20200416T000000Z",
      "RECURRENCE-ID;VALUE=DATE:20200416",
    ]
  )
  func exchangeAllDayRecurrenceID(line: String) throws {
    let result = ICalendar.read(allDaySeries(recurrenceID: line), clock: berlin)
    #expect(result.problems == [])
    let moved = try #require(result.appointments.first { $0.override != nil })
    let sixteenth = CivilDateTime(2020, 4, 16, 0, 0, 0).instant(in: berlin.timeZone)
    #expect(moved.override?.recurrenceID == sixteenth)
    // Written back as it came, so a reader that matched it before matches it again.
    let written = ICalendar.write(result.appointments, fallbackZone: berlin.timeZone)
    #expect(written.contains(line + "\r\n"))
  }

  @Test("an all-day override of a timed series keeps its series' time in its RECURRENCE-ID when written")
  func allDayOverrideOfTimedSeries() throws {
    let zone = berlin.timeZone
    let series = Appointment(
      title: "Standup",
      start: CivilDateTime(2026, 12, 7, 9, 0, 0).instant(in: zone),
      end: CivilDateTime(2026, 12, 7, 9, 15, 0).instant(in: zone),
      created: berlin.now,
      timeZone: zone.identifier,
      recurrence: Recurrence(frequency: .daily, count: 5),
      uid: "standup"
    )
    var allDay = series
    allDay.id = AppointmentID()
    allDay.recurrence = nil
    allDay.isAllDay = true
    allDay.start = CivilDateTime(2026, 12, 9, 0, 0, 0).instant(in: zone)
    allDay.end = CivilDateTime(2026, 12, 10, 0, 0, 0).instant(in: zone)
    allDay.override = Appointment.Override(
      seriesID: series.id,
      recurrenceID: CivilDateTime(2026, 12, 9, 9, 0, 0).instant(in: zone)
    )
    let text = ICalendar.write([series, allDay], fallbackZone: zone)
    #expect(text.contains("RECURRENCE-ID;TZID=Europe/Berlin:20261209T090000\r\n"))
    let back = ICalendar.read(text, clock: berlin)
    #expect(back.appointments.compactMap(\.override?.recurrenceID) == [allDay.override?.recurrenceID])
  }

  @Test("a title keeps the spaces it was written with; only line breaks at its ends go")
  func titleSpaces() throws {
    let text = calendar([
      "BEGIN:VEVENT", "UID:t", "SUMMARY:Germany: Epiphany ", "DTSTART;VALUE=DATE:20260106", "END:VEVENT",
    ])
    let result = ICalendar.read(text, clock: berlin)
    #expect(result.appointments.map(\.title) == ["Germany: Epiphany "])
  }
}
