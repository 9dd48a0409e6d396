import Foundation

/// iTIP (RFC 5546): a calendar file's METHOD says what it is. No METHOD or PUBLISH is a plain
/// calendar and REQUEST an invitation (new, or an update by SEQUENCE): both are events to
/// store. A REPLY only says how one attendee answered, and a CANCEL only which event or
/// occurrences are off: neither is an event, and storing one as an event destroys the meeting
/// it names (a reply has no SUMMARY, no DTEND and one attendee).
public enum ITIP {
  public enum Method: Equatable, Sendable {
    /// No METHOD, PUBLISH or REQUEST: events to store (`import` as ever).
    case events
    case reply
    case cancel
    /// Any other METHOD (COUNTER, DECLINECOUNTER, REFRESH, ADD, or an unknown one), as written.
    case unsupported(String)

    public init(_ name: String?) {
      switch name?.uppercased() {
      case nil, "PUBLISH", "REQUEST": self = .events
      case "REPLY": self = .reply
      case "CANCEL": self = .cancel
      case let other?: self = .unsupported(other)
      }
    }
  }

  /// How much of a file `method(inHead:)` is given: a calendar's own properties come first
  /// and are a few lines.
  public static let headSize = 1 << 16

  /// The METHOD of the calendar that `bytes` (a file's first bytes) starts, read from the
  /// calendar's own properties, which RFC 5545 puts before its first component; nil when it
  /// has none there. Folded lines are joined; a line cut by the end of `bytes` is not read.
  public static func method(inHead bytes: some Collection<UInt8>) -> String? {
    var lines = ICalendar.UnfoldedLines(Array(bytes))
    var depth = 0
    var last: String?
    // The last line may be cut short by the head's end: each line is taken once the next begins.
    while let (text, _) = lines.next() {
      if let found = methodLine(last) { return found }
      last = nil
      guard let text else { continue }
      let upper = text.uppercased()
      if upper.hasPrefix("BEGIN:") {
        depth += 1
        if depth > 1 { return nil }
      } else if depth == 1 {
        last = text
      }
    }
    return nil
  }

  private static func methodLine(_ text: String?) -> String? {
    guard let text, let line = ICalendar.contentLine(text, line: 0), line.name == "METHOD" else { return nil }
    let value = line.value.trimmingBlanks
    return value.isEmpty ? nil : value
  }

  /// One event of a REPLY or a CANCEL: which stored event (and occurrence) it names.
  public struct Item: Hashable, Sendable {
    public var uid: String
    /// The occurrence it names (RECURRENCE-ID), nil for the whole event.
    public var recurrenceID: Date?
    public var sequence: Int
    /// Its ATTENDEE lines as written (unfolded): a reply's are the attendees who answered.
    public var attendees: [String]
    /// The file line its VEVENT begins.
    public var line: Int

    public init(uid: String, recurrenceID: Date? = nil, sequence: Int = 0, attendees: [String] = [], line: Int = 0) {
      self.uid = uid
      self.recurrenceID = recurrenceID
      self.sequence = sequence
      self.attendees = attendees
      self.line = line
    }
  }

  /// A REPLY or CANCEL as read: its events, and what stopped an event from being read.
  public struct Message: Sendable {
    public var method: Method
    public var items: [Item]
    public var problems: [ICalendar.Problem]
  }

  /// The calendar user an ATTENDEE or ORGANIZER line names: its address without `mailto:`,
  /// lower-cased (RFC 5546 compares calendar users by address; mail clients lower-case
  /// them), or the whole value when it is not a mail address.
  public static func address(ofLine raw: String) -> String? {
    guard let line = ICalendar.contentLine(raw, line: 0) else { return nil }
    return address(line.value)
  }

  static func address(_ value: String) -> String {
    var text = value.trimmingBlanks
    if text.lowercased().hasPrefix("mailto:") { text = String(text.dropFirst(7)) }
    return text.lowercased()
  }

  /// `lines` (an event's kept lines) with each of `answers` (a reply's ATTENDEE lines)
  /// applied: the event's own ATTENDEE line for that address (not an email alarm's) gets the
  /// answer's PARTSTAT; an attendee the event does not list is added as the reply gives it.
  public static func answered(_ lines: [String], by answers: [String]) -> [String] {
    var lines = lines
    var byAddress: [String: [Int]] = [:]
    for (index, name) in ICalendar.Writer.topLevelNames(lines).enumerated() where name == "ATTENDEE" {
      if let who = address(ofLine: lines[index]) { byAddress[who, default: []].append(index) }
    }
    for answer in answers {
      guard let who = address(ofLine: answer) else { continue }
      guard let found = byAddress[who] else {
        byAddress[who] = [lines.count]
        lines.append(answer)
        continue
      }
      let status = participation(ofLine: answer)
      for index in found { lines[index] = settingParameter("PARTSTAT", to: status, in: lines[index]) }
    }
    return lines
  }

  /// The PARTSTAT an ATTENDEE line gives (upper-cased), NEEDS-ACTION when it gives none
  /// (RFC 5545's default).
  public static func participation(ofLine raw: String) -> String {
    ICalendar.contentLine(raw, line: 0)?.parameter("PARTSTAT")?.uppercased() ?? "NEEDS-ACTION"
  }

  /// `raw` (a content line) with its parameter `name` set to `value`: replaced where it is,
  /// else added after the others. Every other byte of the line is kept as written.
  public static func settingParameter(_ name: String, to value: String, in raw: String) -> String {
    let scalars = Array(raw.unicodeScalars)
    var index = 0
    while index < scalars.count, scalars[index] != ";", scalars[index] != ":" { index += 1 }
    var pieces: [(begin: Int, end: Int)] = []
    var quoted = false
    var begin = index
    while index < scalars.count {
      let scalar = scalars[index]
      if scalar == "\"" { quoted.toggle() }
      if !quoted, scalar == ";" || scalar == ":" {
        if index > begin { pieces.append((begin, index)) }
        begin = index
        if scalar == ":" { break }
      }
      index += 1
    }
    let text = { (range: (begin: Int, end: Int)) in String(String.UnicodeScalarView(scalars[range.begin..<range.end])) }
    let setting = ";\(name)=\(ICalendar.parameterValue(value))"
    for piece in pieces {
      let parameter = text(piece)
      let key = parameter.dropFirst().prefix { $0 != "=" }
      if key.uppercased() == name.uppercased() {
        return text((0, piece.begin)) + setting + text((piece.end, scalars.count))
      }
    }
    return text((0, index)) + setting + text((index, scalars.count))
  }
}
