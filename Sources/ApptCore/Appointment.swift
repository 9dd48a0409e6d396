// ApptCore: the values and pure logic of appt. No I/O happens in this module: times come
// from an injected `Clock`, text comes in as strings, and everything here is `Sendable`.

import Foundation

/// An appointment's identity: a UUID, printed lower-case, addressed by any unique prefix.
public struct AppointmentID: Hashable, Comparable, Sendable, Codable, CustomStringConvertible {
  public let uuid: UUID

  public init(_ uuid: UUID = AppointmentID.randomUUID()) { self.uuid = uuid }

  /// A random (version 4) UUID from the system generator (getrandom): Foundation's `UUID()`
  /// opens and reads /dev/urandom on each call on Linux, which an import paid per event.
  public static func randomUUID() -> UUID {
    var generator = SystemRandomNumberGenerator()
    var bytes = (generator.next() as UInt64, generator.next() as UInt64)
    return withUnsafeMutableBytes(of: &bytes) { raw in
      raw[6] = raw[6] & 0x0F | 0x40  // version 4
      raw[8] = raw[8] & 0x3F | 0x80  // the RFC 4122 variant
      return UUID(uuid: raw.load(as: uuid_t.self))
    }
  }

  /// Parses a full UUID in any case; prefixes are resolved by the store, not here.
  public init?(string: String) {
    guard let uuid = UUID(uuidString: string) else { return nil }
    self.uuid = uuid
  }

  /// The canonical lower-case spelling used in output, JSON and the database: what
  /// `uuid.uuidString.lowercased()` says (8-4-4-4-12 hex digits), written from the bytes
  /// (Foundation formats each byte with printf, then the text is lower-cased).
  public var description: String { spelling(bytes: 16) }

  /// The first six characters: enough to address an appointment in a personal calendar.
  public var short: String { spelling(bytes: 3) }

  /// `short`, appended as bytes (every `list` line starts with one).
  public func appendShort(to out: inout [UInt8]) {
    withUnsafeBytes(of: shortBytes) { out.append(contentsOf: $0) }
  }

  /// `short` as its six ASCII bytes.
  var shortBytes: (UInt8, UInt8, UInt8, UInt8, UInt8, UInt8) {
    let (first, second, third) = (uuid.uuid.0, uuid.uuid.1, uuid.uuid.2)
    return (
      Self.hexDigit(first >> 4), Self.hexDigit(first & 0x0F), Self.hexDigit(second >> 4),
      Self.hexDigit(second & 0x0F), Self.hexDigit(third >> 4), Self.hexDigit(third & 0x0F)
    )
  }

  /// The lower-case spelling of the first `count` bytes, with the dashes among them.
  private func spelling(bytes count: Int) -> String {
    withUnsafeBytes(of: uuid.uuid) { bytes in
      String(unsafeUninitializedCapacity: 36) { out in
        var next = 0
        for index in 0..<count {
          if index == 4 || index == 6 || index == 8 || index == 10 {
            out[next] = UInt8(ascii: "-")
            next += 1
          }
          out[next] = Self.hexDigit(bytes[index] >> 4)
          out[next + 1] = Self.hexDigit(bytes[index] & 0x0F)
          next += 2
        }
        return next
      }
    }
  }

  private static func hexDigit(_ value: UInt8) -> UInt8 {
    value < 10 ? UInt8(ascii: "0") + value : UInt8(ascii: "a") + value - 10
  }

  /// The order of `description`: the lower-case hex spelling sorts as the bytes do (digits
  /// before letters, as nibble values; the dashes stand at the same places), so the bytes are
  /// compared, with no text built.
  public static func < (lhs: Self, rhs: Self) -> Bool {
    withUnsafeBytes(of: lhs.uuid.uuid) { left in
      withUnsafeBytes(of: rhs.uuid.uuid) { right in
        for index in 0..<16 where left[index] != right[index] { return left[index] < right[index] }
        return false
      }
    }
  }

  public init(from decoder: any Decoder) throws {
    let text = try decoder.singleValueContainer().decode(String.self)
    guard let id = AppointmentID(string: text) else {
      throw DecodingError.dataCorrupted(.init(codingPath: decoder.codingPath, debugDescription: "not a UUID: \(text)"))
    }
    self = id
  }

  public func encode(to encoder: any Encoder) throws {
    var container = encoder.singleValueContainer()
    try container.encode(description)
  }
}

extension TimeZone {
  /// The zone with this IANA identifier, or nil. Foundation answers a zone with offset 0 for
  /// some malformed identifiers (one holding a NUL, for instance), which would silently move
  /// appointments: text with control characters or spaces is refused first.
  public static func named(_ identifier: String) -> TimeZone? {
    // Bytes, not characters: IANA names are ASCII, and counting characters walks graphemes
    // (every series expanded asks for its zone).
    guard !identifier.isEmpty, identifier.utf8.count <= 64,
      !identifier.unicodeScalars.contains(where: { TextSafety.isControl($0) || $0 == " " })
    else { return nil }
    return TimeZone(identifier: identifier)
  }
}

/// An appointment as every layer sees it: a plain value, safe to send between actors.
public struct Appointment: Hashable, Sendable, Identifiable {
  public enum Status: String, Hashable, Sendable, Codable, CaseIterable {
    case scheduled
    case cancelled
  }

  // The fields without references are stored inline; the ones that hold strings and arrays
  // live in one shared, immutable object (`Shared`). An occurrence of a series is a copy of
  // it that differs only in inline fields, so copying one (a `list` of an endless series
  // makes millions) retains one object instead of a dozen strings and arrays. Setting a
  // shared field makes a new object: the value semantics are a struct's.

  public var id: AppointmentID
  /// The first instant of the appointment (stored as UTC).
  public var start: Date
  /// The instant it ends; always after `start`.
  public var end: Date
  public var status: Status
  public var created: Date
  public var updated: Date
  /// A whole-day appointment: `start` and `end` are midnights in `timeZone`.
  public var isAllDay: Bool
  /// For one occurrence of a series listed in a window: which one (its start). Nil for a
  /// one-off and for a series as stored.
  public var occurrence: Date?
  /// How many times the stored row was written: 0 for a value never stored, 1 once saved,
  /// one more on every later write. An edit based on an older revision is refused, so a change
  /// someone else made in between is never lost. An occurrence carries its series' revision.
  public var revision: Int
  /// iCalendar SEQUENCE: how many times the organizer's copy was revised (an edit in appt
  /// counts it up; between two copies of one UID, the higher one wins).
  public var sequence: Int
  /// Set for an overridden occurrence of a series (RECURRENCE-ID): which one it replaces.
  public var override: Override?
  private var shared: Shared

  public var title: String {
    get { shared.fields.title }
    set { change { $0.title = newValue } }
  }
  public var note: String {
    get { shared.fields.note }
    set { change { $0.note = newValue } }
  }
  /// Where it takes place (iCalendar LOCATION); "" when unknown.
  public var location: String {
    get { shared.fields.location }
    set { change { $0.location = newValue } }
  }
  /// The zone it was entered in (an IANA identifier; "" when unknown): a series repeats at
  /// the same wall-clock time there.
  public var timeZone: String {
    get { shared.fields.timeZone }
    set { change { $0.timeZone = newValue } }
  }
  /// How it repeats; nil for a one-off.
  public var recurrence: Recurrence? {
    get { shared.fields.recurrence }
    set { change { $0.recurrence = newValue } }
  }
  /// Starts of occurrences cancelled one by one (EXDATE), sorted.
  public var exceptions: [Date] {
    get { shared.fields.exceptions }
    set { change { $0.exceptions = newValue } }
  }
  /// The iCalendar UID it was imported with (or exported as), so a re-import updates it.
  public var uid: String? {
    get { shared.fields.uid }
    set { change { $0.uid = newValue } }
  }
  /// What an imported event carried that appt does not show, written back on export.
  public var extras: ICalendarExtras {
    get { shared.fields.extras }
    set { change { $0.extras = newValue } }
  }
  /// The id of the calendar it is in (`CalendarInfo.id`): the built-in calendar's
  /// (`CalendarRules.personalID`) unless said otherwise; "" for a value not placed yet, which
  /// the store puts in the default calendar. An override is always in its series' calendar.
  public var calendarID: String {
    get { shared.fields.calendarID }
    set { change { $0.calendarID = newValue } }
  }

  /// The fields that hold references, as one value.
  private struct Fields: Hashable, Sendable {
    var title: String
    var note: String
    var location: String
    var timeZone: String
    var recurrence: Recurrence?
    var exceptions: [Date]
    var uid: String?
    var extras: ICalendarExtras
    var calendarID: String
  }

  /// `Fields` shared by copies; never changed once made. Equal and hashed by its fields, so
  /// `Appointment`'s synthesized `==` and `hash(into:)` still compare every field.
  private final class Shared: Hashable, Sendable {
    let fields: Fields

    init(_ fields: Fields) { self.fields = fields }

    static func == (lhs: Shared, rhs: Shared) -> Bool { lhs === rhs || lhs.fields == rhs.fields }

    func hash(into hasher: inout Hasher) { fields.hash(into: &hasher) }
  }

  private mutating func change(_ body: (inout Fields) -> Void) {
    var fields = shared.fields
    body(&fields)
    shared = Shared(fields)
  }

  /// An occurrence of a series changed on its own (RFC 5545's RECURRENCE-ID instance): it
  /// replaces the occurrence that would have started at `recurrenceID`, wherever it now is.
  public struct Override: Hashable, Sendable {
    /// The series it belongs to; nil when the series itself is absent (a calendar invitation
    /// to one occurrence), when it is shown as an appointment of its own.
    public var seriesID: AppointmentID?
    /// The start the occurrence had in its series.
    public var recurrenceID: Date
    /// RANGE=THISANDFUTURE: its changes apply to every later occurrence as well.
    public var thisAndFuture: Bool

    public init(seriesID: AppointmentID?, recurrenceID: Date, thisAndFuture: Bool = false) {
      self.seriesID = seriesID
      self.recurrenceID = recurrenceID
      self.thisAndFuture = thisAndFuture
    }
  }

  public init(
    id: AppointmentID = AppointmentID(),
    title: String,
    start: Date,
    end: Date,
    note: String = "",
    location: String = "",
    status: Status = .scheduled,
    created: Date,
    updated: Date? = nil,
    timeZone: String = "",
    isAllDay: Bool = false,
    recurrence: Recurrence? = nil,
    exceptions: [Date] = [],
    occurrence: Date? = nil,
    uid: String? = nil,
    revision: Int = 0,
    sequence: Int = 0,
    override: Override? = nil,
    extras: ICalendarExtras = .none,
    calendarID: String = CalendarRules.personalID
  ) {
    self.id = id
    self.start = start
    self.end = end
    self.status = status
    self.created = created
    self.updated = updated ?? created
    self.isAllDay = isAllDay
    self.occurrence = occurrence
    self.revision = revision
    self.sequence = sequence
    self.override = override
    self.shared = Shared(
      Fields(
        title: title,
        note: note,
        location: location,
        timeZone: timeZone,
        recurrence: recurrence,
        exceptions: exceptions.sorted(),
        uid: uid,
        extras: extras,
        calendarID: calendarID
      )
    )
  }

  /// The zone the series repeats in (its own, else `fallback`).
  public func zone(fallback: TimeZone) -> TimeZone {
    TimeZone.named(timeZone) ?? fallback
  }

  /// The occurrences of this appointment that intersect `window`: itself for a one-off (and
  /// an override), else one copy per occurrence (with `occurrence` set). Occurrences
  /// cancelled one by one are included only when `includeCancelled`, marked cancelled.
  ///
  /// `overrides` are this series' overridden occurrences, as far as the window needs them
  /// (those whose `recurrenceID` is in it, and those THISANDFUTURE before its end): an
  /// overridden occurrence is left out here (the override is an appointment of its own,
  /// found where it now is), and a THISANDFUTURE override changes every later occurrence
  /// the way it changed its own: moved by as much, as long, with its title, note, location
  /// and status.
  public func occurrences(
    in window: DateInterval,
    fallbackZone: TimeZone,
    includeCancelled: Bool,
    overrides: [Appointment] = []
  ) -> [Appointment] {
    guard let recurrence else {
      return overlaps(from: window.start, to: window.end) && (includeCancelled || !isCancelled) ? [self] : []
    }
    let mine = overrides.compactMap { other in other.override.map { (value: other, override: $0) } }
    let replaced = Set(mine.map(\.override.recurrenceID))
    let future = mine.filter(\.override.thisAndFuture).sorted { $0.override.recurrenceID < $1.override.recurrenceID }
    // A THISANDFUTURE override may move later occurrences into the window from outside it.
    var slots = window
    for (value, override) in future where override.recurrenceID < window.end {
      let shift = value.start.timeIntervalSince(override.recurrenceID)
      slots = DateInterval(
        start: min(slots.start, window.start.addingTimeInterval(-max(0, shift))),
        end: max(slots.end, window.end.addingTimeInterval(max(0, -shift)))
      )
    }
    // What each THISANDFUTURE override makes of the occurrences after it, made once: its
    // occurrences share the texts as the plain ones share the series'.
    let changed = future.map { value, _ in
      var base = self
      base.change { fields in
        fields.title = value.title
        fields.note = value.note
        fields.location = value.location
      }
      return base
    }
    let excluded = Set(exceptions)
    let zone = zone(fallback: fallbackZone)
    return recurrence.occurrences(start: start, duration: duration, zone: zone, allDay: isAllDay, in: slots)
      .compactMap { slot in
        guard !replaced.contains(slot) else { return nil }
        var copy = self
        copy.start = slot
        copy.end = slot.addingTimeInterval(recurrence.periodLength(at: slot) ?? duration)
        copy.occurrence = slot
        if excluded.contains(slot) { copy.status = .cancelled }
        if let index = future.lastIndex(where: { $0.override.recurrenceID < slot }) {
          let (value, override) = future[index]
          let start = slot.addingTimeInterval(value.start.timeIntervalSince(override.recurrenceID))
          let status = excluded.contains(slot) ? Status.cancelled : value.status
          copy = changed[index]
          copy.start = start
          copy.end = start.addingTimeInterval(value.duration)
          copy.occurrence = slot
          copy.status = status
        }
        guard copy.overlaps(from: window.start, to: window.end) else { return nil }
        return includeCancelled || !copy.isCancelled ? copy : nil
      }
  }

  /// What a window's change set matches appointments by: the id, and the occurrence.
  public struct Key: Hashable, Sendable {
    public let id: AppointmentID
    public let occurrence: Date?
  }

  public var key: Key { Key(id: id, occurrence: occurrence) }

  public var duration: TimeInterval { end.timeIntervalSince(start) }
  public var isCancelled: Bool { status == .cancelled }

  /// Whether the appointment intersects the half-open interval `[from, to)`: one of no
  /// length (a moment) does when it starts in it.
  public func overlaps(from: Date, to: Date) -> Bool { start < to && (end > from || start >= from) }

  /// Display order everywhere: by start, then end, then title, then id (a total order, so
  /// lists and change sets are deterministic).
  public static func displayOrder(_ lhs: Appointment, _ rhs: Appointment) -> Bool {
    if lhs.start != rhs.start { return lhs.start < rhs.start }
    if lhs.end != rhs.end { return lhs.end < rhs.end }
    if lhs.title != rhs.title { return lhs.title < rhs.title }
    return lhs.id < rhs.id
  }
}

/// Every field by name, as before the ones holding references moved into `Shared`: `dump`,
/// `String(describing:)` and a failed test's message still show the title and the rest.
extension Appointment: CustomReflectable {
  public var customMirror: Mirror {
    let fields: KeyValuePairs<String, Any> = [
      "id": id, "title": title, "start": start, "end": end, "note": note, "location": location,
      "status": status, "created": created, "updated": updated, "timeZone": timeZone, "isAllDay": isAllDay,
      "recurrence": recurrence as Any, "exceptions": exceptions, "occurrence": occurrence as Any,
      "uid": uid as Any, "revision": revision, "sequence": sequence, "override": override as Any,
      "extras": extras, "calendarID": calendarID,
    ]
    return Mirror(self, children: fields, displayStyle: .struct)
  }
}
