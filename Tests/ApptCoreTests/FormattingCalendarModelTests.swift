import Foundation
import Testing

@testable import ApptCore

/// `show` and `--json` of the calendar model: location, the repeat rule in words,
/// and a changed occurrence (an override) with its series and original start.
@Suite("Formatting: location and changed occurrences")
struct FormattingCalendarModelTests {
  let formatter = AppointmentFormatter(clock: Fixture.clock)

  var series: Appointment {
    var series = Fixture.appointment(id: "5e5e5e5e-0000-4000-8000-000000000001", title: "Board")
    series.recurrence = Recurrence(rules: [
      RecurrenceRule(
        frequency: .monthly,
        until: .date(CivilDate(year: 2027, month: 6, day: 30)),
        byDay: [.init(.tuesday, 2)]
      )
    ])
    series.timeZone = "Europe/Paris"
    return series
  }

  var override: Appointment {
    var moved = Fixture.appointment(
      title: "Board (moved)",
      start: "2026-12-09T14:00:00+01:00",
      end: "2026-12-09T14:45:00+01:00"
    )
    moved.location = "Room 4\nsecond floor"
    moved.override = Appointment.Override(
      seriesID: series.id,
      recurrenceID: Fixture.instant("2026-12-08T10:00:00+01:00")
    )
    return moved
  }

  @Test("show says where, when it repeats in words, and what a changed occurrence was")
  func details() {
    let lines = formatter.details(series)
    #expect(lines.contains("repeats: every 2nd Tuesday of the month, until 30 June 2027"))
    #expect(!lines.contains { $0.hasPrefix("location") }, "no location, no line")
    let moved = formatter.details(override, series: series)
    #expect(moved.contains("location: Room 4^Jsecond floor"), "escaped for the terminal")
    #expect(moved.contains("series: changed occurrence of \"Board\" (was Tue 2026-12-08 10:00)"))
    var orphan = override
    orphan.override?.seriesID = nil
    orphan.override?.thisAndFuture = true
    #expect(
      formatter.details(orphan).contains(
        "series: changed occurrence of a series not in appt (was Tue 2026-12-08 10:00) and the ones after it"
      )
    )
    #expect(formatter.textLine(override).hasSuffix("Board (moved)  [changed]"))
  }

  @Test("JSON: location after revision; an override adds series and recurrence_id")
  func json() throws {
    let line = formatter.jsonObject(override)
    #expect(
      line.hasSuffix(
        #","revision":0,"location":"Room 4\nsecond floor","series":"5e5e5e5e-0000-4000-8000-000000000001","recurrence_id":"2026-12-08T10:00:00+01:00","reminders":[],"uid":"5e5e5e5e-0000-4000-8000-000000000001@appt","organizer":null,"attendees":[]}"#
      )
    )
    var orphan = override
    orphan.override?.seriesID = nil
    #expect(formatter.jsonObject(orphan).contains(#","series":null,"recurrence_id":"#))
    let plain = formatter.jsonObject(series)
    #expect(
      plain.hasSuffix(
        #""revision":0,"location":"","reminders":[],"uid":"5e5e5e5e-0000-4000-8000-000000000001@appt","organizer":null,"attendees":[]}"#
      ),
      "no series keys on anything but an override"
    )
    #expect(plain.contains(#""repeat":"FREQ=MONTHLY;UNTIL=20270630;BYDAY=2TU""#))
    let object = try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any]
    #expect(object?["location"] as? String == "Room 4\nsecond floor")
  }

  @Test("several rules are one repeat text, lines joined by \\n")
  func severalRules() {
    var two = series
    two.recurrence?.rules.append(RecurrenceRule(frequency: .weekly, byDay: [.init(.friday)]))
    #expect(
      formatter.jsonObject(two).contains(#""repeat":"FREQ=MONTHLY;UNTIL=20270630;BYDAY=2TU\nFREQ=WEEKLY;BYDAY=FR""#)
    )
    #expect(
      formatter.details(two).contains(
        "repeats: every 2nd Tuesday of the month, until 30 June 2027; and every week on Friday"
      )
    )
  }
}
