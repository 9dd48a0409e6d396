import ApptCore
import ApptStore
import Foundation
import Testing

@testable import ApptSync

/// What a server holds is stored whole: the limits on what a person types or imports (a
/// title of 500 characters, a note of 10,000, 366 days, a rule) do not drop or freeze an
/// event another client put on the server. On the stores that enforce the limits.
@Suite("Sync: server events kept whole")
struct ServerLimitsTests {
  static let kinds = StoreKind.available.filter { $0 != .fake }

  /// A server event with `lines` in its VEVENT besides UID, DTSTAMP and SUMMARY.
  static func serverEvent(_ uid: String, _ summary: String, _ lines: [String]) -> String {
    let event = ["UID:\(uid)", "DTSTAMP:20261201T120000Z", "SUMMARY:\(summary)"] + lines
    let all = ["BEGIN:VCALENDAR", "VERSION:2.0", "PRODID:-//tests//peer//EN", "BEGIN:VEVENT"] + event
    // Unfolded: long lines are what some clients write, and every reader takes them.
    return (all + ["END:VEVENT", "END:VCALENDAR"]).joined(separator: "\r\n") + "\r\n"
  }

  static let hour = ["DTSTART:20261203T100000Z", "DTEND:20261203T110000Z"]
  /// A long meeting invitation: the dial-in text of a Teams or Zoom meeting, many times over.
  static let longNote = String(repeating: "Join by phone: +1 555 0100, ID 123 456 789#. ", count: 300)
  static let longTitle = String(repeating: "Quarterly planning, ", count: 40) + "the rest"

  func rows(_ h: Harness) async throws -> [Appointment] {
    let store = try #require(h.local as? DAOTestStore)
    return try await store.rows(Harness.calendar)
  }

  @Test("long notes and titles, a year and a half, an empty RRULE: all stored and shown", arguments: kinds)
  func everyServerEventIsStored(kind: StoreKind) async throws {
    #expect(Self.longNote.count > AppointmentRules.maximumNoteLength)
    #expect(Self.longTitle.count > AppointmentRules.maximumTitleLength)
    let h = try Harness(kind)
    await h.server.clientPut(
      "work",
      "note.ics",
      Self.serverEvent("note", "Call", Self.hour + ["DESCRIPTION:\(Self.longNote)"])
    )
    await h.server.clientPut("work", "title.ics", Self.serverEvent("title", Self.longTitle, Self.hour))
    await h.server.clientPut(
      "work",
      "long.ics",
      Self.serverEvent("long", "Sabbatical", ["DTSTART;VALUE=DATE:20261201", "DTEND;VALUE=DATE:20280601"])
    )
    await h.server.clientPut("work", "rule.ics", Self.serverEvent("rule", "Empty rule", Self.hour + ["RRULE:"]))
    let summary = try await h.good()
    #expect(summary.new == 4)
    let stored = try await rows(h)
    #expect(Set(stored.compactMap(\.uid)) == ["note", "title", "long", "rule"])
    #expect(stored.first { $0.uid == "note" }?.note == Self.longNote)
    #expect(stored.first { $0.uid == "title" }?.title == Self.longTitle)
    // 1 December 2026 to 1 June 2028 in the sync's zone: 548 days, a clock change more or less.
    let days = stored.first { $0.uid == "long" }.map { ($0.end.timeIntervalSince($0.start) / 86_400).rounded() }
    #expect(days == 548)
    #expect(stored.first { $0.uid == "rule" }?.recurrence == nil)
    // Nothing to send back: each is as the server has it.
    let again = try await h.good()
    #expect(again.changed == 0 && again.new == 0)
    #expect(await h.server.objects("work")["/cal/u/work/rule.ics"]?.contains("RRULE:\r\n") == true)
  }

  @Test("a known event the server makes long is updated, and a local edit of it goes out", arguments: kinds)
  func aKnownEventMadeLongStaysInSync(kind: StoreKind) async throws {
    let h = try Harness(kind)
    await h.server.clientPut("work", "a.ics", Self.serverEvent("a", "Call", Self.hour))
    try await h.good()
    await h.server.clientPut(
      "work",
      "a.ics",
      Self.serverEvent("a", "Call", Self.hour + ["DESCRIPTION:\(Self.longNote)"])
    )
    let pulled = try await h.good()
    #expect(pulled.changed == 1)
    #expect(try await rows(h).first?.note == Self.longNote)
    // The title changes here; the long note, as stored, does not stop the edit or the push.
    try await h.local.editLocal(Harness.calendar, uid: "a", title: "Call, moved")
    let pushed = try await h.good()
    #expect(pushed.pending == 0)
    let text = try #require(await h.server.objects("work")["/cal/u/work/a.ics"])
    let onServer = ICalendar.read(text, clock: testClock, limits: .server)
    #expect(onServer.problems == [])
    #expect(onServer.appointments.map(\.title) == ["Call, moved"])
    #expect(onServer.appointments.map(\.note) == [Self.longNote])
  }

  @Test("typed and imported input keeps its limits")
  func inputKeepsItsLimits() {
    let text = Self.serverEvent("note", "Call", Self.hour + ["DESCRIPTION:\(Self.longNote)"])
    #expect(ICalendar.read(text, clock: testClock).problems.count == 1)
    #expect(ICalendar.read(text, clock: testClock, limits: .server).problems == [])
    // An empty RRULE is no limit: it repeats nothing wherever it comes from (a holiday feed's).
    let rule = Self.serverEvent("rule", "Empty rule", Self.hour + ["RRULE:"])
    #expect(ICalendar.read(rule, clock: testClock).problems == [])
  }
}
