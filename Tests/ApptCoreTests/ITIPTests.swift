import ApptTestSupport
import Foundation
import Testing

@testable import ApptCore

/// iTIP's METHOD found in a file's head, a REPLY or CANCEL read as the events it names, and
/// an attendee's PARTSTAT set in a line kept byte for byte otherwise.
@Suite("iTIP messages")
struct ITIPTests {
  let clock = Fixture.clock

  func crlf(_ lines: [String]) -> [UInt8] { Array((lines.joined(separator: "\r\n") + "\r\n").utf8) }

  @Test func methodIsReadFromTheCalendarsOwnProperties() {
    let head = crlf([
      "BEGIN:VCALENDAR", "PRODID:-//Google Inc//Google Calendar 70.9054//EN", "METHOD:REPLY", "BEGIN:VEVENT",
    ])
    #expect(ITIP.method(inHead: head) == "REPLY")
    let folded = crlf(["BEGIN:VCALENDAR", "VERSION:2.0", "METH", " OD:CANCEL", "BEGIN:VTIMEZONE"])
    #expect(ITIP.method(inHead: folded) == "CANCEL")
    let lowercase = crlf(["begin:vcalendar", "method:request", "begin:vevent"])
    #expect(ITIP.method(inHead: lowercase) == "request")
  }

  @Test func noMethodBeforeTheFirstComponentIsNone() {
    #expect(
      ITIP.method(inHead: crlf(["BEGIN:VCALENDAR", "VERSION:2.0", "BEGIN:VEVENT", "UID:x", "END:VEVENT"])) == nil
    )
    // A METHOD inside a component is not the calendar's.
    #expect(ITIP.method(inHead: crlf(["BEGIN:VCALENDAR", "BEGIN:VEVENT", "METHOD:REPLY", "END:VEVENT"])) == nil)
    #expect(ITIP.method(inHead: []) == nil)
  }

  @Test func aLineCutByTheHeadsEndIsNotRead() {
    // "METHOD:REP" could be the start of anything: only a line followed by another counts.
    let cut = Array("BEGIN:VCALENDAR\r\nMETHOD:REP".utf8)
    #expect(ITIP.method(inHead: cut) == nil)
  }

  @Test func methodsMapToWhatAnImportDoes() {
    #expect(ITIP.Method(nil) == .events)
    #expect(ITIP.Method("PUBLISH") == .events)
    #expect(ITIP.Method("request") == .events)
    #expect(ITIP.Method("REPLY") == .reply)
    #expect(ITIP.Method("Cancel") == .cancel)
    #expect(ITIP.Method("COUNTER") == .unsupported("COUNTER"))
    #expect(ITIP.Method("X-FOO") == .unsupported("X-FOO"))
  }

  @Test func partstatIsReplacedWhereItIs() {
    let line = "ATTENDEE;ROLE=REQ-PARTICIPANT;PARTSTAT=NEEDS-ACTION;RSVP=TRUE;CN=Ada:mailto:ada@example.com"
    #expect(
      ITIP.settingParameter("PARTSTAT", to: "ACCEPTED", in: line)
        == "ATTENDEE;ROLE=REQ-PARTICIPANT;PARTSTAT=ACCEPTED;RSVP=TRUE;CN=Ada:mailto:ada@example.com"
    )
    let lower = "ATTENDEE;partstat=tentative:mailto:ada@example.com"
    #expect(
      ITIP.settingParameter("PARTSTAT", to: "DECLINED", in: lower)
        == "ATTENDEE;PARTSTAT=DECLINED:mailto:ada@example.com"
    )
  }

  @Test func partstatIsAddedAfterQuotedParameters() {
    // A quoted CN holds ';' and ':', which end nothing.
    let line = "ATTENDEE;CN=\"Doe; Jane: PARTSTAT=X\":mailto:jane@example.com"
    #expect(
      ITIP.settingParameter("PARTSTAT", to: "ACCEPTED", in: line)
        == "ATTENDEE;CN=\"Doe; Jane: PARTSTAT=X\";PARTSTAT=ACCEPTED:mailto:jane@example.com"
    )
    #expect(
      ITIP.settingParameter("PARTSTAT", to: "ACCEPTED", in: "ATTENDEE:mailto:a@b")
        == "ATTENDEE;PARTSTAT=ACCEPTED:mailto:a@b"
    )
  }

  @Test func addressesCompareWithoutMailtoAndCase() {
    #expect(ITIP.address(ofLine: "ATTENDEE;CN=Ada:MAILTO:Ada@Example.COM") == "ada@example.com")
    #expect(ITIP.address(ofLine: "ATTENDEE:urn:uuid:1234") == "urn:uuid:1234")
    #expect(ITIP.participation(ofLine: "ATTENDEE;PARTSTAT=accepted:mailto:a@b") == "ACCEPTED")
    #expect(ITIP.participation(ofLine: "ATTENDEE:mailto:a@b") == "NEEDS-ACTION")
  }

  @Test func aReplyIsReadAsTheEventItNamesNotAsAnAppointment() throws {
    let text = crlf([
      "BEGIN:VCALENDAR", "METHOD:REPLY", "VERSION:2.0",
      "BEGIN:VTIMEZONE", "TZID:Europe/Paris", "BEGIN:STANDARD", "DTSTART:19701025T030000",
      "TZOFFSETFROM:+0200", "TZOFFSETTO:+0100", "END:STANDARD", "END:VTIMEZONE",
      "BEGIN:VEVENT", "UID:weekly@example.com", "SEQUENCE:2", "DTSTAMP:20261201T080000Z",
      "RECURRENCE-ID;TZID=Europe/Paris:20261208T090000",
      "ATTENDEE;PARTSTAT=DECLINED:mailto:ada@example.com", "END:VEVENT",
      "END:VCALENDAR",
    ])
    let message = ICalendar.readMessage(bytes: text, method: .reply, clock: clock)
    #expect(message.problems == [])
    let item = try #require(message.items.first)
    #expect(message.items.count == 1)
    #expect(item.uid == "weekly@example.com")
    #expect(item.sequence == 2)
    #expect(item.recurrenceID == Fixture.instant("2026-12-08T09:00:00+01:00"))
    #expect(item.attendees == ["ATTENDEE;PARTSTAT=DECLINED:mailto:ada@example.com"])
  }

  @Test func aMessageEventThatNamesNothingIsAProblem() {
    let text = crlf([
      "BEGIN:VCALENDAR", "METHOD:CANCEL",
      "BEGIN:VEVENT", "SEQUENCE:1", "END:VEVENT",
      "BEGIN:VEVENT", "UID:a", "SEQUENCE:one", "END:VEVENT",
      "BEGIN:VEVENT", "UID:b", "RECURRENCE-ID:2026120", "END:VEVENT",
      "END:VCALENDAR",
    ])
    let message = ICalendar.readMessage(bytes: text, method: .cancel, clock: clock)
    #expect(message.items == [])
    #expect(message.problems.map(\.line) == [3, 8, 12])
    #expect(message.problems.first?.message.contains("without a UID") == true)
  }

  @Test func anAnswerChangesTheEventsOwnAttendeeOnly() {
    let lines = [
      "ATTENDEE;PARTSTAT=NEEDS-ACTION;CN=Ada:mailto:ada@example.com",
      "ATTENDEE-X;PARTSTAT=NEEDS-ACTION:mailto:ada@example.com",
      "BEGIN:VALARM", "ACTION:EMAIL", "ATTENDEE:mailto:ada@example.com", "TRIGGER:-PT15M", "END:VALARM",
    ]
    let answered = ITIP.answered(lines, by: ["ATTENDEE;PARTSTAT=DECLINED:MAILTO:ADA@example.com"])
    var expected = lines
    expected[0] = "ATTENDEE;PARTSTAT=DECLINED;CN=Ada:mailto:ada@example.com"
    #expect(answered == expected)
    // Someone the event does not list is added after everything else.
    let added = ITIP.answered(lines, by: ["ATTENDEE;PARTSTAT=TENTATIVE:mailto:dee@example.com"])
    #expect(added == lines + ["ATTENDEE;PARTSTAT=TENTATIVE:mailto:dee@example.com"])
  }
}
