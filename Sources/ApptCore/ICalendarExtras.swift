import Foundation

/// What an imported event carried that appt does not show, kept with the appointment so an
/// export (and a sync) writes it back unchanged: RFC 5545's "nothing lost".
///
/// Lines are unfolded content lines exactly as read (`ATTENDEE;CN=Ann:mailto:ann@example.com`,
/// `X-APPLE-TRAVEL-ADVISORY-BEHAVIOR:AUTOMATIC`), sub-components (`BEGIN:VALARM` ...
/// `END:VALARM`) included, in the order they came. The zone is kept as written when appt
/// could not keep its name: a Windows name or a zone defined only by its VTIMEZONE is read as
/// an IANA zone (or the rules' own offsets), and written back with its own TZID and
/// definition, so a server or another reader sees what it wrote.
public struct ICalendarExtras: Hashable, Sendable, Codable {
  /// The event's properties and components appt does not model.
  public var lines: [String]
  /// DTSTART's TZID as written, when it differs from the appointment's `timeZone`; "" for a
  /// floating DTSTART (no TZID, no Z: read in the importing zone, written back floating, its
  /// wall-clock time the same in any zone); `calendarZoneTimes` for one its calendar's
  /// X-WR-TIMEZONE placed (a time in that zone, written back under that X-WR-TIMEZONE).
  public var zoneID: String?

  /// `zoneID` of a time without a zone that X-WR-TIMEZONE placed.
  public static let calendarZoneTimes = "X-WR-TIMEZONE"

  /// The VTIMEZONE that defined `zoneID`, as read (unfolded lines, BEGIN to END).
  public var zoneDefinition: [String]
  /// How the event gave its end when it was not a DTEND appt writes back the same: the line
  /// as read (a DURATION, a DTEND not after DTSTART, a DTEND of the other value type), or ""
  /// when it had none; `derivedEnd` is the end appt took from it. The writer writes `endLine`
  /// again (nothing for "") as long as the appointment still ends at `derivedEnd`.
  public var endLine: String?
  public var derivedEnd: Date?
  /// Modelled properties whose text appt would write otherwise (a DTSTART in a DST gap, RDATE
  /// and EXDATE lines grouped or zoned their own way, no SUMMARY at all): the lines as read
  /// and what they meant; the writer writes them again while the appointment still means
  /// that (`ICalendar.Writer`), and generates them once it does not.
  public var asRead: [AsRead]?

  /// The lines of one modelled property as read (none: it was absent), and `meaning`, the
  /// writer's fingerprint of the value they gave.
  public struct AsRead: Hashable, Sendable, Codable {
    /// "DTSTART", "RDATE" (the RDATE and EXDATE lines together) or "SUMMARY".
    public var name: String
    public var lines: [String]
    public var meaning: String

    public init(name: String, lines: [String], meaning: String) {
      self.name = name
      self.lines = lines
      self.meaning = meaning
    }
  }

  public init(
    lines: [String] = [],
    zoneID: String? = nil,
    zoneDefinition: [String] = [],
    endLine: String? = nil,
    derivedEnd: Date? = nil,
    asRead: [AsRead]? = nil
  ) {
    self.lines = lines
    self.zoneID = zoneID
    self.zoneDefinition = zoneDefinition
    self.endLine = endLine
    self.derivedEnd = derivedEnd
    self.asRead = asRead
  }

  /// The lines kept for `name` while they still mean `meaning`; nil otherwise.
  public func lines(asRead name: String, meaning: String) -> [String]? {
    asRead?.first { $0.name == name && $0.meaning == meaning }?.lines
  }

  /// Whether `title` is the one an event read without a SUMMARY was given (and still has):
  /// data (JSON) says it has none.
  public func isUntitled(_ title: String) -> Bool {
    lines(asRead: "SUMMARY", meaning: title)?.isEmpty == true
  }

  public static let none = ICalendarExtras()

  public var isEmpty: Bool {
    lines.isEmpty && zoneID == nil && zoneDefinition.isEmpty && endLine == nil && (asRead ?? []).isEmpty
  }
}

extension ICalendarExtras {
  /// Whether two VTIMEZONEs as read say the same, written another way: the same components
  /// with the same properties, in any order, an RRULE's parts in any order and names in any
  /// case (a server that writes the calendar again, as Radicale does, reorders them). What a
  /// sync needs to tell the same change made on both sides from a conflict.
  public static func sameZoneDefinition(_ a: [String], _ b: [String]) -> Bool {
    a == b || canonicalZone(a) == canonicalZone(b)
  }

  /// Each component (BEGIN to END) as its sorted, canonical lines; the components sorted.
  static func canonicalZone(_ lines: [String]) -> [String] {
    var components: [String] = []
    var stack: [[String]] = []
    for line in lines {
      let upper = line.uppercased()
      if upper.hasPrefix("BEGIN:") {
        stack.append([upper])
      } else if upper.hasPrefix("END:"), var component = stack.popLast() {
        component.append(upper)
        components.append(component.sorted().joined(separator: "\n"))
      } else if !stack.isEmpty {
        stack[stack.count - 1].append(canonicalProperty(line))
      }
    }
    return components.sorted()
  }

  /// A property's name upper-cased; an RRULE's parts sorted.
  static func canonicalProperty(_ line: String) -> String {
    guard let colon = line.firstIndex(of: ":") else { return line.uppercased() }
    let name = line[..<colon].uppercased()
    let value = String(line[line.index(after: colon)...])
    guard name == "RRULE" else { return name + ":" + value }
    return name + ":" + value.uppercased().split(separator: ";").sorted().joined(separator: ";")
  }
}
