import Foundation

/// Someone an event names: its ORGANIZER or one of its ATTENDEEs (RFC 5545 3.8.4.1, 3.8.4.3),
/// read from the lines appt keeps as they came (`ICalendarExtras`). Those lines stay the
/// truth, written back byte for byte; this is how they read.
public struct Participant: Hashable, Sendable {
  /// CN, "" when the line gives none.
  public var name: String
  /// The calendar user's address without `mailto:`, as written.
  public var email: String
  /// ROLE, upper-cased: `REQ-PARTICIPANT` (RFC 5545's default), `CHAIR`, `OPT-PARTICIPANT`,
  /// `NON-PARTICIPANT`, or another as written.
  public var role: String
  /// PARTSTAT, upper-cased: `NEEDS-ACTION` (the default), `ACCEPTED`, `DECLINED`,
  /// `TENTATIVE`, `DELEGATED`, or another as written.
  public var status: String
  /// RSVP=TRUE: the organizer asks for an answer.
  public var rsvp: Bool

  public init(
    name: String = "",
    email: String,
    role: String = "REQ-PARTICIPANT",
    status: String = "NEEDS-ACTION",
    rsvp: Bool = false
  ) {
    self.name = name
    self.email = email
    self.role = role
    self.status = status
    self.rsvp = rsvp
  }

  /// The participant an ORGANIZER or ATTENDEE line names; nil when it is not a content line.
  public init?(line raw: String) {
    guard let line = ICalendar.contentLine(raw, line: 0) else { return nil }
    var email = line.value.trimmingBlanks
    if email.lowercased().hasPrefix("mailto:") { email = String(email.dropFirst(7)) }
    self.init(
      name: line.parameter("CN") ?? "",
      email: email,
      role: line.parameter("ROLE")?.uppercased() ?? "REQ-PARTICIPANT",
      status: line.parameter("PARTSTAT")?.uppercased() ?? "NEEDS-ACTION",
      rsvp: line.parameter("RSVP")?.uppercased() == "TRUE"
    )
  }

  /// `Ann Example <ann@example.com>`, or the address alone; escaped for the terminal.
  public var displayName: String {
    let email = TextSafety.escapingControls(email)
    return name.isEmpty ? email : "\(TextSafety.escapingControls(name)) <\(email)>"
  }

  /// The status in words: `needs action`, `accepted`, `declined`, `tentative`, `delegated`.
  public var statusWords: String { Self.words(status) }

  /// The role in words: `chair`, `required`, `optional`, `non-participant`.
  public var roleWords: String {
    switch role {
    case "REQ-PARTICIPANT": "required"
    case "OPT-PARTICIPANT": "optional"
    default: Self.words(role)
    }
  }

  /// `NEEDS-ACTION` as `needs action`; a value appt does not know, lower-cased and escaped.
  static func words(_ value: String) -> String {
    TextSafety.escapingControls(value.lowercased().replacingOccurrences(of: "-", with: " "))
  }

  /// Whether `addresses` (compared without case, as mail clients compare them) holds its address.
  public func isOne(of addresses: Set<String>) -> Bool {
    addresses.contains(email.lowercased())
  }
}

extension Appointment {
  /// The event's ORGANIZER, nil when it names none (an event the user made alone).
  public var organizer: Participant? {
    participantLines("ORGANIZER").first.flatMap(Participant.init(line:))
  }

  /// The event's ATTENDEEs, in the order they came (an email alarm's are not the event's).
  public var attendees: [Participant] {
    participantLines("ATTENDEE").compactMap(Participant.init(line:))
  }

  /// The attendee who is the user: the first whose address `addresses` (lower-cased) holds.
  public func attendee(among addresses: Set<String>) -> Participant? {
    addresses.isEmpty ? nil : attendees.first { $0.isOne(of: addresses) }
  }

  /// The UID the event is known by outside appt: its own, else the one appt writes for it.
  public var iCalendarUID: String { ICalendar.Writer.uid(of: self) }

  /// The event's own `name` lines among those kept (not a sub-component's).
  private func participantLines(_ name: String) -> [String] {
    let lines = extras.lines
    guard !lines.isEmpty else { return [] }
    var found: [String] = []
    for (index, lineName) in ICalendar.Writer.topLevelNames(lines).enumerated() where lineName == name {
      found.append(lines[index])
    }
    return found
  }

  /// The text of the event's first kept `name` line (CATEGORIES, URL...), unescaped; "" when none.
  public func keptValue(_ name: String) -> String {
    for (index, lineName) in ICalendar.Writer.topLevelNames(extras.lines).enumerated() where lineName == name {
      return ICalendar.unescape(ICalendar.Writer.value(extras.lines[index]))
    }
    return ""
  }
}
