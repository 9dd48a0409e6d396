import Foundation

/// The iCalendar (RFC 5545) codec: `read` turns a calendar file into appointments and a list
/// of problems, each with its line; `write` turns appointments into a calendar file. Pure: the
/// caller reads and writes the bytes.
///
/// What maps (README "Reading and writing iCalendar"):
/// - VEVENT -> one appointment; an overridden occurrence (RECURRENCE-ID, RANGE=THISANDFUTURE)
///   -> an appointment of its own with `override` set (its series unknown: the store links it
///   by UID). UID -> `uid` (an event without one gets a UID derived from its content;
///   `<id>@appt`, as appt writes, keeps that id); SUMMARY -> title ("(no title)" when missing
///   or blank); DESCRIPTION -> note; LOCATION -> location; SEQUENCE -> sequence (between two
///   copies of one UID and RECURRENCE-ID the higher wins, equal: the later); CREATED and
///   LAST-MODIFIED (else DTSTAMP) -> created and updated; STATUS:CANCELLED.
/// - DTSTART/DTEND or DURATION in UTC (a one-off stays in UTC), floating (X-WR-TIMEZONE, else
///   the clock's zone), with a TZID (TimeZoneResolver's names, a VTIMEZONE's X-LIC-LOCATION,
///   or its rules through `VTimeZoneRules`), or VALUE=DATE (whole days in the clock's zone).
/// - Every RRULE, RDATE (DATE, DATE-TIME, PERIOD) and EXDATE.
/// - Everything else (properties, their parameters, VALARM and other sub-components) goes
///   verbatim into `extras`, with the TZID as written and its VTIMEZONE, and an end that was
///   a DURATION or missing: the writer gives them back.
/// - Lenient: each assumption is a notice (`notices`, printed as `FILE:LINE: note: ...`);
///   refused (`problems`): only what no reader can interpret (README lists both).
///
/// The writer emits each series followed by its overrides: UID, DTSTAMP and LAST-MODIFIED (the
/// appointment's `updated`), CREATED, SEQUENCE, SUMMARY, LOCATION, DTSTART/DTEND (or the end
/// as read), RECURRENCE-ID, RRULEs, RDATEs and EXDATEs in DTSTART's form, STATUS:CANCELLED,
/// DESCRIPTION, then the extras; `TZID=<the zone as read, else the appointment's zone>` and
/// its VTIMEZONE (as read, else generated and marked X-APPT-GENERATED), or UTC `Z` for a UTC
/// zone and for a time its TZID cannot name alone (the hour repeated when clocks go back,
/// except a series' DTSTART), VALUE=DATE for whole days (a whole-day series' UNTIL is a DATE
/// too); CRLF line ends, lines folded at 75 octets (never inside a UTF-8 sequence) and TEXT
/// escaping. Control characters other than tab and newline cannot appear in iCalendar TEXT:
/// they are written visibly, in caret notation.
public enum ICalendar {
  /// `PRODID` of the calendars appt writes.
  public static let productID = "-//appt//appt 0.1//EN"

  /// Something in a file that stops an event (or the file) from being imported, or, as a
  /// notice, something that was skipped on purpose.
  public struct Problem: Error, Hashable, Sendable, CustomStringConvertible {
    /// The 1-based line of the file: the first physical line of a folded property.
    public var line: Int
    public var message: String

    public init(line: Int, message: String) {
      self.line = line
      self.message = message
    }

    /// `LINE: message`; the caller puts the file name in front.
    public var description: String { "\(line): \(message)" }
  }

  /// What `read` found.
  public struct ReadResult: Sendable {
    /// The events that map faithfully, in file order, each with `uid` set.
    public var appointments: [Appointment]
    /// Why the other events (or the file) could not be imported, in line order.
    public var problems: [Problem]
    /// The notes: each assumption the reader made and what it skipped on purpose (one line
    /// each, `FILE:LINE: note: ...` in the import's output).
    public var notices: [Problem]
    /// The number of VEVENTs seen, imported or not.
    public var eventCount: Int
    /// The number of events that map (with a sink, handed to it; else `appointments.count`).
    public var count = 0
    /// The most events held at once before they went to the sink (without one: `count`).
    public var mostHeld = 0
    /// The most (UID, RECURRENCE-ID) keys the reader held at once: with a sink, one batch's
    /// (the others are in its `KeptEvents`); without one, `count`.
    public var mostKeysHeld = 0
  }

  /// One event handed to a sink (`read(bytes:clock:batchSize:sink:)`). `ordinal` is its place
  /// among the events kept (0, 1, ...); an event whose UID and RECURRENCE-ID came before with
  /// a lower or equal SEQUENCE, handed over already, comes again with that one's ordinal.
  public struct ImportItem: Sendable {
    public var appointment: Appointment
    public var ordinal: Int
    /// The reader gave the event a new random id (it did not come with one of appt's): no
    /// stored row and no other event can have it, so the store need not look for it.
    public var hasRandomID: Bool

    public init(appointment: Appointment, ordinal: Int, hasRandomID: Bool = false) {
      self.appointment = appointment
      self.ordinal = ordinal
      self.hasRandomID = hasRandomID
    }
  }

  /// An event a streamed read kept, as a later copy of it (the same UID and RECURRENCE-ID)
  /// finds it: its ordinal (`ImportItem.ordinal`), the line its VEVENT begins and its SEQUENCE.
  public struct KeptEvent: Hashable, Sendable {
    public var ordinal: Int
    public var line: Int
    public var sequence: Int

    public init(ordinal: Int, line: Int, sequence: Int) {
      self.ordinal = ordinal
      self.line = line
      self.sequence = sequence
    }
  }

  /// Where a streamed read keeps the events of the batches it handed on, so that a copy of
  /// one anywhere later in the file is still found while the reader itself holds one batch's.
  /// `key` is the event's UID and RECURRENCE-ID in one string (`keptKey(uid:recurrenceID:)`).
  /// The store's keeps them on disk (`ImportKeys`), so an import's memory stays flat in the
  /// file's size; `KeptEventsInMemory` is the default.
  public protocol KeptEvents {
    /// The event kept under `key` from a batch handed on already, if any.
    mutating func kept(_ key: String) -> KeptEvent?
    /// Keeps a batch's events (a later copy replaces an earlier one under its key).
    mutating func keep(_ events: [(key: String, event: KeptEvent)])
  }

  /// The (UID, RECURRENCE-ID) of an event as one string: a UID holds no line end, and the
  /// instant is written as the Double it is (two keys are equal when the dates are). A UID
  /// that is not ASCII is put in Unicode's composed form first, so that a table comparing
  /// bytes finds the copies Swift's `==` (canonical equivalence) finds in memory.
  public static func keptKey(uid: String, recurrenceID: Date?) -> String {
    let ascii = uid.utf8.allSatisfy { $0 < 0x80 }
    return (ascii ? uid : uid.precomposedStringWithCanonicalMapping) + "\n"
      + (recurrenceID.map { "\($0.timeIntervalSinceReferenceDate)" } ?? "")
  }

  /// `KeptEvents` in a dictionary: memory grows with the file's events.
  public struct KeptEventsInMemory: KeptEvents {
    private var events: [String: KeptEvent] = [:]

    public init() {}

    public func kept(_ key: String) -> KeptEvent? { events[key] }

    public mutating func keep(_ events: [(key: String, event: KeptEvent)]) {
      for (key, event) in events { self.events[key] = event }
    }
  }

  /// How `read(bytes:clock:batchSize:sink:)` ended.
  public enum StreamedRead: Sendable {
    /// Read to the end: every event that maps was handed to the sink; `appointments` is empty.
    case read(ReadResult)
    /// The sink returned false; reading stopped there.
    case stopped
    /// The file has what changes how events before it read (a VTIMEZONE or X-WR-TIMEZONE
    /// after the first event, a second VCALENDAR, a VCALENDAR without its END): read it
    /// whole instead (`read(bytes:clock:)`), throwing away what the sink got.
    case readWhole
  }

  /// Reads a calendar file as `read(bytes:clock:)` does, handing the events of its one
  /// VCALENDAR to `sink` at most `batchSize` at a time as they are read, so a big file never
  /// has all its events in memory. Problems and notices come at the end, in the result.
  /// `kept` keeps the events of the batches handed on (for a copy of one later in the file).
  public static func read(
    bytes: consuming [UInt8],
    clock: Clock,
    batchSize: Int,
    kept: any KeptEvents = KeptEventsInMemory(),
    sink: @escaping ([ImportItem]) -> Bool
  ) -> StreamedRead {
    var reader = Reader(clock: clock)
    reader.earlierBatches = kept
    reader.sink = sink
    reader.batchSize = max(1, batchSize)
    let result = reader.read(consume bytes)
    if reader.abandoned { return .readWhole }
    if reader.stopped { return .stopped }
    return .read(result)
  }

  /// `read(bytes:clock:batchSize:sink:)` for a text that `chunks` hands over piece by piece
  /// (nil at its end; pieces may split lines anywhere): not even the file is held whole.
  public static func read(
    chunks: @escaping () -> [UInt8]?,
    clock: Clock,
    batchSize: Int,
    kept: any KeptEvents = KeptEventsInMemory(),
    sink: @escaping ([ImportItem]) -> Bool
  ) -> StreamedRead {
    var reader = Reader(clock: clock)
    reader.earlierBatches = kept
    reader.sink = sink
    reader.batchSize = max(1, batchSize)
    let result = reader.read(lines: UnfoldedLines(source: chunks))
    if reader.abandoned { return .readWhole }
    if reader.stopped { return .stopped }
    return .read(result)
  }

  /// Reads a calendar file. Lines end in CRLF or LF; a UTF-8 byte order mark is skipped.
  /// `clock` gives the zone of floating times and whole days, and "now" for an event without
  /// CREATED or DTSTAMP.
  public static func read(bytes: some Collection<UInt8>, clock: Clock) -> ReadResult {
    read(bytes: Array(bytes), clock: clock)
  }

  /// Reads a calendar file, taking its bytes: a caller that hands them over (`read(bytes:
  /// readFile(...))`) lets the reader free the text before it maps the events.
  public static func read(bytes: consuming [UInt8], clock: Clock) -> ReadResult {
    var reader = Reader(clock: clock)
    return reader.read(consume bytes)
  }

  /// Reads calendar text (see `read(bytes:clock:)`). `limits` `.server`: what a calendar
  /// server holds, kept whole (no length limits, an empty RRULE kept as it came).
  public static func read(_ text: String, clock: Clock, limits: AppointmentRules.Limits = .input) -> ReadResult {
    var reader = Reader(clock: clock)
    reader.limits = limits
    return reader.read(Array(text.utf8))
  }

  /// Writes `appointments` (series as stored, not expanded) as one VCALENDAR. An appointment
  /// whose zone is empty or unknown is written in `fallbackZone`.
  /// With `calendarName`, the calendar is named (X-WR-CALNAME, as Google, Apple and
  /// Thunderbird name an exported calendar).
  public static func write(_ appointments: [Appointment], fallbackZone: TimeZone, calendarName: String? = nil)
    -> String
  {
    Writer(
      fallbackZone: fallbackZone,
      calendarName: calendarName,
      calendarZone: Writer.calendarZone(for: appointments)
    ).write(appointments)
  }

  /// `write`'s text in pieces of about `piece` bytes (whole lines), each handed to `body`
  /// as it is made; stops when `body` returns false.
  public static func write(
    _ appointments: [Appointment],
    fallbackZone: TimeZone,
    calendarName: String? = nil,
    piece: Int,
    _ body: (String) -> Bool
  ) {
    Writer(
      fallbackZone: fallbackZone,
      calendarName: calendarName,
      calendarZone: Writer.calendarZone(for: appointments)
    ).write(appointments, piece: piece, body)
  }

  /// Whether `appointment` belongs in an export of `range`: a one-off that overlaps it, or a
  /// series whose span (first start to last end; endless if it has no end) reaches it.
  public static func reaches(_ appointment: Appointment, _ range: DateInterval, fallbackZone: TimeZone) -> Bool {
    guard let recurrence = appointment.recurrence else {
      return appointment.overlaps(from: range.start, to: range.end)
    }
    guard appointment.start < range.end else { return false }
    let zone = appointment.zone(fallback: fallbackZone)
    guard
      let end = recurrence.seriesEnd(
        start: appointment.start,
        duration: appointment.duration,
        zone: zone,
        allDay: appointment.isAllDay
      )
    else { return true }
    return end > range.start || (end == range.start && appointment.duration == 0)
  }
}
