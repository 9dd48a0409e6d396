import ApptCore
import Foundation

/// What a REPLY or CANCEL did to the store.
public struct MessageOutcome: Sendable, Equatable {
  /// The rows it changed, as stored now.
  public var changed: [Appointment] = []
  /// Why each event of the message that changed nothing did not (one line each).
  public var unchanged: [String] = []
}

@DatabaseActor
extension AppointmentDAO {
  /// Applies an iTIP REPLY or CANCEL (`ICalendar.readMessage`) in ONE transaction: all or
  /// nothing. A REPLY sets only the answering attendees' PARTSTAT on the event it names (an
  /// attendee not invited is added, as RFC 5546 lets an organizer do); a reply to an older
  /// SEQUENCE changes nothing; a reply for an event not stored is refused. A CANCEL cancels
  /// the event, or the occurrence its RECURRENCE-ID names, whatever its SEQUENCE (an edit in
  /// appt counts the stored one up too); one for an event not stored changes nothing. Neither counts SEQUENCE up: the organizer's
  /// SEQUENCE is the organizer's, and a reply does not change the meeting.
  public func apply(_ message: ITIP.Message) throws(StoreError) -> MessageOutcome {
    let now = clock.now
    return try database.write { connection throws(StoreError) in
      var outcome = MessageOutcome()
      for item in message.items {
        let named = Self.describe(item)
        let masters = try Self.messageMasters(uid: item.uid, in: connection)
        // The same UID in several calendars (an invitation to two addresses) is one meeting:
        // each copy takes the answer.
        switch message.method {
        case .reply:
          guard !masters.isEmpty else {
            throw .invalidRequest(message: "a reply for \(named), which is in none of your calendars: nothing changed")
          }
          for master in masters { try Self.applyReply(item, to: master, at: now, into: &outcome, in: connection) }
        case .cancel:
          if masters.isEmpty { outcome.unchanged.append("\(named) is in none of your calendars: nothing to cancel") }
          for master in masters { try Self.applyCancel(item, to: master, at: now, into: &outcome, in: connection) }
        case .events, .unsupported:
          throw .invalidRequest(message: "not a REPLY or a CANCEL: nothing to apply")
        }
      }
      return outcome
    }
  }

  private static func applyReply(
    _ item: ITIP.Item,
    to master: Appointment,
    at now: Date,
    into outcome: inout MessageOutcome,
    in connection: any Connection
  ) throws(StoreError) {
    let named = describe(item)
    var target = master
    if let recurrenceID = item.recurrenceID {
      guard let override = try messageOverride(of: master, at: recurrenceID, in: connection) else {
        outcome.unchanged.append(
          "\(named): a reply for one occurrence, which has no copy of its own in the series: nothing changed"
        )
        return
      }
      target = override
    }
    guard item.sequence >= target.sequence else {
      outcome.unchanged.append(
        "\(named): a reply to an older version of the event (SEQUENCE \(item.sequence), stored \(target.sequence)):"
          + " nothing changed"
      )
      return
    }
    var extras = target.extras
    extras.lines = ITIP.answered(extras.lines, by: item.attendees)
    guard extras != target.extras else {
      outcome.unchanged.append("\(named): the reply's answer is stored already")
      return
    }
    target.extras = extras
    try write(&target, at: now, in: connection)
    outcome.changed.append(target)
  }

  private static func applyCancel(
    _ item: ITIP.Item,
    to master: Appointment,
    at now: Date,
    into outcome: inout MessageOutcome,
    in connection: any Connection
  ) throws(StoreError) {
    let named = describe(item)
    var master = master
    guard let recurrenceID = item.recurrenceID else {
      guard master.status != .cancelled else {
        outcome.unchanged.append("\(named) is cancelled already")
        return
      }
      master.status = .cancelled
      try write(&master, at: now, in: connection)
      outcome.changed.append(master)
      return
    }
    if var override = try messageOverride(of: master, at: recurrenceID, in: connection) {
      guard override.status != .cancelled else {
        outcome.unchanged.append("\(named) is cancelled already")
        return
      }
      override.status = .cancelled
      try write(&override, at: now, in: connection)
      outcome.changed.append(override)
    } else if master.recurrence == nil || master.exceptions.contains(recurrenceID) {
      outcome.unchanged.append("\(named): no such occurrence, or it is cancelled already")
    } else {
      master.exceptions = (master.exceptions + [recurrenceID]).sorted()
      try write(&master, at: now, in: connection)
      outcome.changed.append(master)
    }
  }

  /// Writes a row a message changed at its next revision (`updated` now), so the next sync
  /// sends it; an override's series is the resource sent, and is touched too.
  private static func write(_ row: inout Appointment, at now: Date, in connection: any Connection) throws(StoreError) {
    row.updated = now
    row.revision += 1
    try Appointment.upsert(row, in: connection)
    try touchSeries(of: row, at: now, in: connection)
  }

  /// The series or one-offs a message names, one per calendar that holds it: by UID, and for
  /// "<id>@appt" (what appt sends for an event made in appt, which keeps no UID of its own)
  /// by that id too.
  private static func messageMasters(uid: String, in connection: any Connection) throws(StoreError) -> [Appointment] {
    var masters = try DatabaseQuery<Appointment>(
      where: "uid = ? AND recurrence_ms IS NULL",
      bindings: [.text(uid)],
      order: "calendar_id, id"
    ).fetch(connection)
    // The event made here keeps no uid; copies of it elsewhere may hold "<id>@appt" as theirs.
    if uid.hasSuffix("@appt"), let id = AppointmentID(string: String(uid.dropLast(5))),
      let row = try DatabaseService.find(Appointment.self, id: id, in: connection), row.uid == nil, row.override == nil
    {
      masters.insert(row, at: 0)
    }
    return masters
  }

  private static func messageOverride(of master: Appointment, at recurrenceID: Date, in connection: any Connection)
    throws(StoreError) -> Appointment?
  {
    try DatabaseQuery<Appointment>(
      where: "series_id = ? AND recurrence_ms = ?",
      bindings: [.text(master.id.description), .integer(recurrenceID.millisecondsSince1970)],
      order: "id",
      limit: 1
    ).fetch(connection).first
  }

  /// "UID x" or "UID x (RECURRENCE-ID 20270105T090000Z)", the control characters escaped.
  nonisolated static func describe(_ item: ITIP.Item) -> String {
    let occurrence = item.recurrenceID.map { " (RECURRENCE-ID \(Recurrence.utcStamp($0)))" } ?? ""
    return "UID \(TextSafety.escapingControls(item.uid))\(occurrence)"
  }
}
