import ApptCore
import ApptTestSupport
import Foundation
import Testing

@testable import ApptStore

/// iTIP REPLY and CANCEL applied to the store (`AppointmentDAO.apply`): a reply changes one
/// attendee's PARTSTAT and nothing else, never creates or replaces an event; a cancel cancels
/// the event or one occurrence; older messages change nothing; all or nothing.
@Suite struct MessageStoreTests {
  static let uid = "040000008200E00074C5B7101A82E008"

  /// An invitation as an organizer's server sends it: two attendees, a location, an alarm.
  static let invitation = [
    "BEGIN:VCALENDAR", "VERSION:2.0", "METHOD:REQUEST",
    "BEGIN:VEVENT", "UID:\(uid)", "SEQUENCE:1", "DTSTAMP:20261201T100000Z",
    "SUMMARY:Planning", "LOCATION:Room 1",
    "DTSTART;TZID=Europe/Paris:20261207T090000", "DTEND;TZID=Europe/Paris:20261207T100000",
    "RRULE:FREQ=DAILY;COUNT=5",
    "ORGANIZER;CN=Bob:mailto:bob@example.com",
    "ATTENDEE;ROLE=REQ-PARTICIPANT;PARTSTAT=NEEDS-ACTION;RSVP=TRUE;CN=Ada:mailto:ada@example.com",
    "ATTENDEE;ROLE=OPT-PARTICIPANT;PARTSTAT=NEEDS-ACTION;RSVP=TRUE;CN=Cy:mailto:cy@example.com",
    "BEGIN:VALARM", "ACTION:DISPLAY", "DESCRIPTION:Reminder", "TRIGGER:-PT15M", "END:VALARM",
    "END:VEVENT", "END:VCALENDAR",
  ]

  func stored(_ dao: AppointmentDAO) async throws -> Appointment {
    let read = ICalendar.read(Self.invitation.joined(separator: "\r\n") + "\r\n", clock: TestClock.clock)
    #expect(read.problems == [])
    _ = try await dao.importAppointments(read.appointments)
    return try #require(try await dao.getAllAppointments().first { $0.uid == Self.uid })
  }

  func message(_ method: ITIP.Method, _ events: [[String]]) -> ITIP.Message {
    let lines =
      ["BEGIN:VCALENDAR", "VERSION:2.0"] + events.flatMap { ["BEGIN:VEVENT"] + $0 + ["END:VEVENT"] } + ["END:VCALENDAR"]
    return ICalendar.readMessage(
      bytes: Array((lines.joined(separator: "\r\n") + "\r\n").utf8),
      method: method,
      clock: TestClock.clock
    )
  }

  func attendees(_ appointment: Appointment) -> [String] {
    appointment.extras.lines.filter { $0.hasPrefix("ATTENDEE") }
  }

  @Test(arguments: StoreKind.allCases)
  func aReplyChangesOnlyTheAnsweringAttendeesStatus(kind: StoreKind) async throws {
    try await withStore(kind) { dao in
      let before = try await stored(dao)
      // Google's reply: no SUMMARY, no DTEND, one attendee (its address in other case).
      let reply = message(
        .reply,
        [
          [
            "UID:\(Self.uid)", "SEQUENCE:1", "DTSTART:20261207T080000Z", "DTSTAMP:20261202T100000Z",
            "ORGANIZER;CN=Bob:mailto:bob@example.com",
            "ATTENDEE;CUTYPE=INDIVIDUAL;ROLE=REQ-PARTICIPANT;PARTSTAT=ACCEPTED;CN=Ada;X-NUM-GUESTS=0:mailto:ADA@example.com",
          ]
        ]
      )
      let outcome = try await dao.apply(reply)
      #expect(outcome.changed.map(\.id) == [before.id])
      let after = try await dao.getAppointment(id: before.id)
      #expect(
        attendees(after) == [
          "ATTENDEE;ROLE=REQ-PARTICIPANT;PARTSTAT=ACCEPTED;RSVP=TRUE;CN=Ada:mailto:ada@example.com",
          "ATTENDEE;ROLE=OPT-PARTICIPANT;PARTSTAT=NEEDS-ACTION;RSVP=TRUE;CN=Cy:mailto:cy@example.com",
        ]
      )
      // Everything else as it was: title, times, location, rule, alarm, SEQUENCE.
      var expected = before
      expected.extras = after.extras
      expected.revision = after.revision
      expected.updated = after.updated
      #expect(after == expected)
      #expect(after.revision == before.revision + 1)
      #expect(after.sequence == before.sequence)
      #expect(
        after.extras.lines.filter { !$0.hasPrefix("ATTENDEE") }
          == before.extras.lines.filter { !$0.hasPrefix("ATTENDEE") }
      )
      // The same reply again changes nothing.
      let again = try await dao.apply(reply)
      #expect(again.changed.isEmpty)
      #expect(again.unchanged.count == 1)
      #expect(try await dao.getAppointment(id: before.id).revision == after.revision)
    }
  }

  @Test(arguments: StoreKind.allCases)
  func aReplyForAnEventNotStoredIsRefusedAndChangesNothing(kind: StoreKind) async throws {
    try await withStore(kind) { dao in
      let before = try await stored(dao)
      let reply = message(
        .reply,
        [
          ["UID:\(Self.uid)", "SEQUENCE:1", "ATTENDEE;PARTSTAT=DECLINED:mailto:cy@example.com"],
          ["UID:someone-else@example.com", "ATTENDEE;PARTSTAT=ACCEPTED:mailto:ada@example.com"],
        ]
      )
      await #expect(throws: StoreError.self) { try await dao.apply(reply) }
      // All or nothing: the first event's answer was not kept either, and nothing was created.
      #expect(try await dao.getAllAppointments() == [before])
    }
  }

  @Test(arguments: StoreKind.allCases)
  func aReplyToAnOlderVersionChangesNothing(kind: StoreKind) async throws {
    try await withStore(kind) { dao in
      let before = try await stored(dao)
      let outcome = try await dao.apply(
        message(.reply, [["UID:\(Self.uid)", "SEQUENCE:0", "ATTENDEE;PARTSTAT=DECLINED:mailto:ada@example.com"]])
      )
      #expect(outcome.changed.isEmpty)
      #expect(outcome.unchanged.first?.contains("older version") == true)
      #expect(try await dao.getAppointment(id: before.id) == before)
    }
  }

  @Test(arguments: StoreKind.allCases)
  func anUninvitedAttendeesReplyIsAdded(kind: StoreKind) async throws {
    try await withStore(kind) { dao in
      let before = try await stored(dao)
      let answer = "ATTENDEE;PARTSTAT=TENTATIVE;CN=Dee:mailto:dee@example.com"
      _ = try await dao.apply(message(.reply, [["UID:\(Self.uid)", "SEQUENCE:1", answer]]))
      #expect(attendees(try await dao.getAppointment(id: before.id)) == attendees(before) + [answer])
    }
  }

  @Test(arguments: StoreKind.allCases)
  func aCancelCancelsTheEvent(kind: StoreKind) async throws {
    try await withStore(kind) { dao in
      let before = try await stored(dao)
      let outcome = try await dao.apply(message(.cancel, [["UID:\(Self.uid)", "SEQUENCE:2", "STATUS:CANCELLED"]]))
      #expect(outcome.changed.map(\.id) == [before.id])
      let after = try await dao.getAppointment(id: before.id)
      #expect(after.status == .cancelled)
      #expect(after.title == "Planning")
      #expect(after.location == "Room 1")
    }
  }

  @Test(arguments: StoreKind.allCases)
  func aCancelOfOneOccurrenceExcludesIt(kind: StoreKind) async throws {
    try await withStore(kind) { dao in
      let before = try await stored(dao)
      let second = december(8, 9)
      _ = try await dao.apply(
        message(.cancel, [["UID:\(Self.uid)", "SEQUENCE:1", "RECURRENCE-ID;TZID=Europe/Paris:20261208T090000"]])
      )
      let after = try await dao.getAppointment(id: before.id)
      #expect(after.status == .scheduled)
      #expect(after.exceptions == [second])
      let shown = try await dao.appointments(matching: AppointmentQuery(range: window(december(7), december(13))))
      #expect(shown.map(\.start) == [december(7, 9), december(9, 9), december(10, 9), december(11, 9)])
    }
  }

  @Test(arguments: StoreKind.allCases)
  func aCancelForAnUnknownEventChangesNothing(kind: StoreKind) async throws {
    try await withStore(kind) { dao in
      let before = try await stored(dao)
      let outcome = try await dao.apply(message(.cancel, [["UID:never-stored@example.com", "SEQUENCE:4"]]))
      #expect(outcome.changed.isEmpty)
      #expect(outcome.unchanged == ["UID never-stored@example.com is in none of your calendars: nothing to cancel"])
      #expect(try await dao.getAllAppointments() == [before])
    }
  }

  /// An edit in appt counts SEQUENCE up (a reminder changed here), so the organizer's
  /// cancel may carry a lower one: it still cancels.
  @Test(arguments: StoreKind.allCases)
  func aCancelAppliesWhateverItsSequence(kind: StoreKind) async throws {
    try await withStore(kind) { dao in
      let before = try await stored(dao)
      _ = try await dao.editAppointment(EditRequest(id: before.id.description, note: "bring the figures"))
      let outcome = try await dao.apply(message(.cancel, [["UID:\(Self.uid)", "SEQUENCE:1"]]))
      #expect(outcome.changed.map(\.id) == [before.id])
      #expect(try await dao.getAppointment(id: before.id).status == .cancelled)
    }
  }

  /// An event made in appt keeps no UID and goes out as "<id>@appt": its replies and
  /// cancels find it by that id.
  @Test(arguments: StoreKind.allCases)
  func messagesFindAnEventMadeInAppt(kind: StoreKind) async throws {
    try await withStore(kind) { dao in
      let mine = try await dao.addAppointment(AddRequest(title: "Review", start: december(9, 14), end: december(9, 15)))
      #expect(mine.uid == nil)
      let answer = "ATTENDEE;PARTSTAT=ACCEPTED;CN=Ada:mailto:ada@example.com"
      let replied = try await dao.apply(message(.reply, [["UID:\(mine.id)@appt", "SEQUENCE:0", answer]]))
      #expect(replied.changed.map(\.id) == [mine.id])
      #expect(attendees(try await dao.getAppointment(id: mine.id)) == [answer])
      _ = try await dao.apply(message(.cancel, [["UID:\(mine.id)@appt", "SEQUENCE:0"]]))
      #expect(try await dao.getAppointment(id: mine.id).status == .cancelled)
    }
  }
  /// The same meeting in two calendars (an invitation to two addresses): each copy takes a
  /// REPLY and a CANCEL, and an event made here ("<id>@appt") is found with its copies.
  @Test(arguments: StoreKind.allCases)
  func everyCopyTakesTheMessage(kind: StoreKind) async throws {
    try await withStore(kind) { dao in
      _ = try await stored(dao)
      _ = try await dao.addCalendar(name: "home")
      let read = ICalendar.read(Self.invitation.joined(separator: "\r\n") + "\r\n", clock: TestClock.clock)
      _ = try await dao.importAppointments(read.appointments, calendar: "home")
      let cancel = message(.cancel, [["UID:\(Self.uid)", "SEQUENCE:1", "DTSTAMP:20261203T100000Z"]])
      let outcome = try await dao.apply(cancel)
      #expect(outcome.changed.count == 2 && Set(outcome.changed.map(\.calendarID)).count == 2)
      #expect(try await dao.getAllAppointments().allSatisfy { $0.status == .cancelled })
      // Made here, exported, imported into home: the cancel of "<id>@appt" reaches both.
      let made = try await dao.addAppointment(
        AddRequest(title: "Review", start: TestClock.date(2026, 12, 9, 10), end: TestClock.date(2026, 12, 9, 11))
      )
      let exported = ICalendar.write([made], fallbackZone: TestClock.clock.timeZone)
      _ = try await dao.importAppointments(
        ICalendar.read(exported, clock: TestClock.clock).appointments,
        calendar: "home"
      )
      let ours = message(.cancel, [["UID:\(made.id)@appt", "SEQUENCE:0", "DTSTAMP:20261203T100000Z"]])
      #expect(try await dao.apply(ours).changed.count == 2)
      // The copy in home holds the event: the original may not move there.
      let refused = await #expect(throws: StoreError.self) {
        var request = EditRequest(id: made.id.description)
        request.calendar = "home"
        try await dao.editAppointment(request)
      }
      #expect(refused?.description.contains("holds this event already") == true, "\(String(describing: refused))")
    }
  }
}
