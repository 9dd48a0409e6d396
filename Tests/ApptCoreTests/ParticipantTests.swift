import Foundation
import Testing

@testable import ApptCore

/// Organizer and attendees as real invitations carry them (Exchange 2010 and Thunderbird, from
/// `Tests/e2e/fixtures/itip`, whose README names each file's origin): read from the kept lines,
/// shown by `show`, JSON and `--format`, with the user's own answer (`[mail] addresses`).
@Suite struct ParticipantTests {
  static let itip = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
    .appendingPathComponent("../e2e/fixtures/itip").standardized
  let clock = Fixture.clock

  func event(_ file: String) throws -> Appointment {
    let text = try String(contentsOf: Self.itip.appendingPathComponent(file), encoding: .utf8)
    let result = ICalendar.read(text, clock: clock)
    #expect(result.problems == [])
    return try #require(result.appointments.first)
  }

  @Test("Exchange's invitation: organizer (MAILTO: upper-cased) and two attendees, a CN folded mid-word")
  func exchange() throws {
    let a = try event("exchange-request.ics")
    #expect(a.organizer == Participant(name: "Inbox Apptest2", email: "test2@example.com"))
    #expect(
      a.attendees == [
        Participant(name: "Karim Hamidou", email: "karim@example.com", rsvp: true),
        Participant(name: "test1@example.com", email: "test1@example.com", rsvp: true),
      ]
    )
    #expect(a.attendee(among: ["karim@example.com"])?.name == "Karim Hamidou")
    #expect(a.attendee(among: []) == nil)
  }

  @Test("Thunderbird's series: statuses, the organizer among the attendees; a VALARM's lines are not the event's")
  func thunderbird() throws {
    let a = try event("thunderbird-recurring-request.ics")
    #expect(a.organizer?.email == "sender@example.com")
    #expect(a.attendees.map(\.email) == ["sender@example.com", "receiver@example.com", "other@example.com"])
    #expect(a.attendees.map(\.status) == ["ACCEPTED", "NEEDS-ACTION", "NEEDS-ACTION"])
    #expect(a.attendees.map(\.rsvp) == [false, true, true])
    var withMailAlarm = a
    withMailAlarm.extras.lines += [
      "BEGIN:VALARM", "ACTION:EMAIL", "ATTENDEE:mailto:alarm@example.com", "TRIGGER:-PT5M", "END:VALARM",
    ]
    #expect(withMailAlarm.attendees.count == 3)
  }

  @Test("show: the organizer, each attendee with role and answer, and the user's own answer")
  func showLines() throws {
    let a = try event("thunderbird-recurring-request.ics")
    let formatter = AppointmentFormatter(clock: clock, addresses: ["receiver@example.com"])
    let lines = formatter.details(a)
    #expect(lines.contains("organizer: Sender <sender@example.com>"))
    #expect(lines.contains("attendee: Sender <sender@example.com> (required, accepted)"))
    #expect(lines.contains("attendee: Receiver <receiver@example.com> (required, needs action, answer asked)"))
    #expect(lines.contains("your answer: needs action"))
    #expect(!AppointmentFormatter(clock: clock).details(a).contains { $0.hasPrefix("your answer") })
  }

  @Test("JSON: uid, organizer and attendees (RFC 5545's values), the user marked \"me\"")
  func json() throws {
    let a = try event("thunderbird-recurring-request.ics")
    let json = AppointmentFormatter(clock: clock, addresses: ["other@example.com"]).jsonObject(a)
    let object = try #require(try JSONSerialization.jsonObject(with: Data(json.utf8)) as? [String: Any])
    #expect(object["uid"] as? String == "02e79b96")
    let organizer = try #require(object["organizer"] as? [String: Any])
    #expect(organizer["name"] as? String == "Sender" && organizer["email"] as? String == "sender@example.com")
    let attendees = try #require(object["attendees"] as? [[String: Any]])
    #expect(
      attendees.map { $0["email"] as? String } == ["sender@example.com", "receiver@example.com", "other@example.com"]
    )
    #expect(attendees.map { $0["status"] as? String } == ["ACCEPTED", "NEEDS-ACTION", "NEEDS-ACTION"])
    #expect(attendees.map { $0["role"] as? String } == ["REQ-PARTICIPANT", "REQ-PARTICIPANT", "REQ-PARTICIPANT"])
    #expect(attendees.map { $0["rsvp"] as? Bool } == [false, true, true])
    #expect(attendees.map { $0["me"] as? Bool } == [nil, nil, true])
    // An event appt made: its UID as exported, no organizer, no attendees.
    let mine = Appointment(title: "Mine", start: Fixture.now, end: Fixture.now + 3600, created: Fixture.now)
    let plain = try #require(
      try JSONSerialization.jsonObject(with: Data(AppointmentFormatter(clock: clock).jsonObject(mine).utf8))
        as? [String: Any]
    )
    #expect(plain["uid"] as? String == "\(mine.id)@appt")
    #expect(plain["organizer"] is NSNull)
    #expect((plain["attendees"] as? [Any])?.isEmpty == true)
  }

  @Test("--format: {organizer} {attendees} {uid} {categories} {url} {answer}")
  func format() throws {
    var a = try event("exchange-request.ics")
    a.extras.lines += ["CATEGORIES:Work,Travel", "URL:https://example.com/meet"]
    let template = try ListTemplate(parsing: "{organizer}|{attendees}|{uid}|{categories}|{url}|{answer}")
    let line = AppointmentFormatter(clock: clock, addresses: ["test1@example.com"]).line(a, as: template, calendar: nil)
    #expect(
      line
        == "Inbox Apptest2 <test2@example.com>|Karim Hamidou <karim@example.com>, test1@example.com <test1@example.com>|"
        + "040000008200E00074C5B7101A82E00800000000F9125A30B06BD0010000000000000000100000009D791C7548BFD144BFA54F14213CAD25"
        + "|Work,Travel|https://example.com/meet|needs action"
    )
  }

  @Test("list's line shows the user's answer to an invitation, only with [mail] addresses")
  func listLine() throws {
    let a = try event("thunderbird-recurring-request.ics")
    let with = AppointmentFormatter(clock: clock, addresses: ["sender@example.com"]).textLine(a)
    #expect(with.hasSuffix("Repeat Event  [repeats]  [accepted]"))
    #expect(AppointmentFormatter(clock: clock).textLine(a).hasSuffix("Repeat Event  [repeats]"))
  }
}
