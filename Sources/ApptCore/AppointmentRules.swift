import Foundation

/// What every stored appointment satisfies, however it came in: `add`, `edit`, the calendar's
/// form, `import` (and sync later). One definition, checked in three places: by the parser
/// (early messages naming the option), by the iCalendar reader (per event, with its line) and
/// by the store's write paths (the last gate, which nothing can bypass).
///
/// The rules:
/// - a title is not blank, has at most `maximumTitleLength` characters (and at most
///   `bytesPerCharacter` UTF-8 bytes per allowed character, so one character stacked with a
///   million combining marks is refused too), and no NUL;
/// - a note has at most `maximumNoteLength` characters (same byte bound) and no NUL;
/// - a UID has at most `maximumUIDLength` characters and no control character;
/// - start and end lie in `supportedTimes`, the end is not before the start and at most
///   `DurationParser.maximum` (366 days) later;
/// - the cancelled occurrences of a series lie in `supportedTimes` too.
///
/// NUL is refused because no layer can carry it faithfully (PostgreSQL text cannot hold it,
/// C strings end at it). Other controls are kept, and shown escaped (`TextSafety`).
public enum AppointmentRules {
  /// A title fits a line and a note a page: longer text is almost always a mistake (a file
  /// pasted into the command), and would make every list and screen unusable.
  public static let maximumTitleLength = 500
  public static let maximumNoteLength = 10_000
  /// UIDs are machine-made (Google's and Outlook's are well under 300 characters).
  public static let maximumUIDLength = 1_000
  /// The UTF-8 bytes allowed per character of a length limit (an emoji with skin tone and ZWJ
  /// is up to ~25 bytes; 16 on average is far beyond any real text).
  public static let bytesPerCharacter = 16

  /// The first instant appt keeps: 1583-01-01 00:00 UTC.
  ///
  /// Foundation's Gregorian calendar switches to the Julian calendar before 15 October 1582,
  /// while appt's text output counts proleptic Gregorian days, so earlier dates would print
  /// one way in `list` and another in an export. Any zone's offset is less than a day, so
  /// every zone sees this instant on 31 December 1582 or later: a Gregorian date.
  public static let earliest = Date(timeIntervalSince1970: -12_212_553_600)
  /// The last instant appt keeps: 9999-12-31 00:00 UTC. Any zone's offset is less than a day,
  /// so every zone sees it on 31 December 9999 at the latest: a date iCalendar can write
  /// (four-digit years) and appt can show.
  public static let latest = Date(timeIntervalSince1970: 253_402_214_400)
  /// The instants an appointment, an occurrence of a series, or (later) an alarm may take.
  public static let supportedTimes = earliest...latest

  /// Why an appointment cannot be stored: which field, and a message a user can act on
  /// (without a command name: the caller says where the value came from).
  public struct Violation: Error, Equatable, Sendable, CustomStringConvertible {
    public enum Field: String, Sendable {
      case title, note, uid, timeZone, start, end, exceptions
    }

    public var field: Field
    public var message: String

    public init(_ field: Field, _ message: String) {
      self.field = field
      self.message = message
    }

    public var description: String { message }
  }

  // MARK: - The whole appointment

  /// Which rules apply. The length limits (title, note, 366 days) guard what a person types
  /// or imports by hand; what a calendar server holds is the user's already, and is kept
  /// whole (a long Teams invitation, a conference of a year and a half).
  public enum Limits: Sendable, Equatable {
    /// Everything: `add`, `edit`, the form, `import`.
    case input
    /// What no layer can carry (NUL, times out of range, an end before the start, a UID
    /// or zone name that is not one), not the lengths.
    case server
  }

  /// Checks every rule of `limits`; the first broken one is thrown. With `stored` (the row
  /// an edit changes), a length that is as stored is not checked again: an event the server
  /// sent whole stays editable in its other fields.
  public static func validate(_ a: Appointment, limits: Limits = .input, stored: Appointment? = nil)
    throws(Violation)
  {
    let lengths = limits == .input
    guard !a.title.allSatisfy({ $0.isWhitespace }) else { throw Violation(.title, "the title is empty") }
    try checkText(a.title, .title, "title", maximum: lengths && a.title != stored?.title ? maximumTitleLength : nil)
    try checkText(a.note, .note, "note", maximum: lengths && a.note != stored?.note ? maximumNoteLength : nil)
    if let uid = a.uid { try checkUID(uid) }
    if a.timeZone.unicodeScalars.contains(where: TextSafety.isControl) || a.timeZone.count > 64 {
      throw Violation(.timeZone, "the time zone \(WhenParser.quoted(a.timeZone)) is not a zone name")
    }
    let sameLength = stored.map { a.end.timeIntervalSince(a.start) == $0.end.timeIntervalSince($0.start) } ?? false
    try checkTimes(start: a.start, end: a.end, longest: lengths && !sameLength)
    if a.isAllDay, a.end == a.start { throw Violation(.end, "a whole-day appointment lasts at least a day") }
    if let outside = a.exceptions.first(where: { !supportedTimes.contains($0) }) {
      throw Violation(.exceptions, "a cancelled occurrence at \(utcText(outside)) is \(rangeText)")
    }
  }

  // MARK: - Fields

  public static func checkTitle(_ title: String) throws(Violation) {
    guard !title.allSatisfy({ $0.isWhitespace }) else { throw Violation(.title, "the title is empty") }
    try checkText(title, .title, "title", maximum: maximumTitleLength)
  }

  public static func checkNote(_ note: String) throws(Violation) {
    try checkText(note, .note, "note", maximum: maximumNoteLength)
  }

  public static func checkUID(_ uid: String) throws(Violation) {
    // No more bytes than the limit: no more characters either, without counting them.
    if uid.utf8.count > maximumUIDLength, uid.count > maximumUIDLength {
      throw Violation(.uid, "the UID is \(uid.count) characters long; at most \(maximumUIDLength)")
    }
    if uid.unicodeScalars.contains(where: TextSafety.isControl) {
      throw Violation(.uid, "the UID \(WhenParser.quoted(uid)) holds a control character")
    }
  }

  /// `maximum` nil: no length limit (NUL is still refused).
  private static func checkText(_ text: String, _ field: Violation.Field, _ name: String, maximum: Int?)
    throws(Violation)
  {
    if let maximum { try checkLength(text, field, name, maximum: maximum) }
    if let nul = text.unicodeScalars.firstIndex(of: "\u{0}") {
      let column = text.unicodeScalars.distance(from: text.unicodeScalars.startIndex, to: nul) + 1
      throw Violation(field, "the \(name) holds a NUL byte at character \(column)")
    }
  }

  private static func checkLength(_ text: String, _ field: Violation.Field, _ name: String, maximum: Int)
    throws(Violation)
  {
    // Bytes first: counting characters is linear too, but bounded bytes keep it cheap.
    let bytes = text.utf8.count
    if bytes > maximum * bytesPerCharacter {
      throw Violation(field, "the \(name) is \(bytes) bytes long; at most \(maximum * bytesPerCharacter)")
    }
    // Counting characters walks the grapheme breaks: not needed when the bytes are few enough.
    if bytes > maximum {
      let count = text.count
      if count > maximum { throw Violation(field, "the \(name) is \(count) characters long; at most \(maximum)") }
    }
  }

  // MARK: - Times

  /// Start and end in `supportedTimes`, the end not before the start, and (`longest`) at most 366
  /// days later.
  public static func checkTimes(start: Date, end: Date, longest: Bool = true) throws(Violation) {
    try checkInstant(start, .start)
    try checkInstant(end, .end)
    // An end at the start is a moment (a deadline, a reminder): RFC 5545's event of no length.
    guard end >= start else {
      throw Violation(.end, "the end \(utcText(end)) is before the start \(utcText(start))")
    }
    guard !longest || end.timeIntervalSince(start) <= DurationParser.maximum else {
      throw Violation(.end, "an appointment cannot last more than 366 days")
    }
  }

  /// One instant in `supportedTimes`; the field names it in the message.
  public static func checkInstant(_ date: Date, _ field: Violation.Field) throws(Violation) {
    guard !supportedTimes.contains(date) else { return }
    throw Violation(field, "the \(field == .end ? "end" : "start") \(utcText(date)) is \(rangeText)")
  }

  /// "out of range: appt keeps times from 1583-01-01 00:00 to 9999-12-31 00:00 UTC".
  static var rangeText: String {
    "out of range: appt keeps times from \(utcText(earliest, zone: false)) to \(utcText(latest))"
  }

  /// `9999-12-31 23:30 UTC`, any year (`10000-01-01 00:30 UTC`), never clamped.
  public static func utcText(_ date: Date, zone: Bool = true) -> String {
    var calendar = Calendar(identifier: .gregorian)
    calendar.timeZone = .gmt
    guard date.timeIntervalSince1970.isFinite, abs(date.timeIntervalSince1970) < 1e15 else { return "\(date)" }
    let c = calendar.dateComponents([.era, .year, .month, .day, .hour, .minute], from: date)
    func pad(_ n: Int?, _ width: Int = 2) -> String {
      let text = String(n ?? 0)
      return String(repeating: "0", count: max(0, width - text.count)) + text
    }
    let year = c.era == 0 ? "-" + pad(c.year, 4) : pad(c.year, 4)
    return "\(year)-\(pad(c.month))-\(pad(c.day)) \(pad(c.hour)):\(pad(c.minute))" + (zone ? " UTC" : "")
  }
}
