import Foundation

/// `[ui] date_format`: a strftime-like template for the days the calendar shows in words
/// (its header and detail pane). English names, whatever the locale, like the rest of appt.
///
/// The fields: `%a` Tue, `%A` Tuesday, `%b` Dec, `%B` December, `%d` 01, `%e` ` 1`, `%-d` 1,
/// `%m` 12, `%-m` 12, `%y` 26, `%Y` 2026, `%F` 2026-12-01, `%j` 335 (day of the year), `%u` 2
/// (Monday 1 ... Sunday 7), `%H` 09, `%-H` 9, `%I` 09, `%-I` 9, `%M` 05, `%p` AM, `%P` am,
/// `%R` 09:05, `%%` a percent sign. Any other `%` is refused by name.
public struct DateTemplate: Sendable, Equatable, CustomStringConvertible {
  enum Part: Sendable, Equatable {
    case literal(String)
    case field(Character, padded: Bool)
  }

  /// The template as written.
  public let text: String
  let parts: [Part]

  /// The calendar's header until a setting says otherwise: `Tue 1 Dec 2026`.
  public static let standardDay = DateTemplate(
    text: "%a %-d %b %Y",
    parts: [
      .field("a", padded: true), .literal(" "), .field("d", padded: false), .literal(" "), .field("b", padded: true),
      .literal(" "), .field("Y", padded: true),
    ]
  )

  /// The fields a template may hold, each as typed after `%`.
  public static let fields = "aAbBdemyYFjuHIMpPR%"

  public var description: String { text }

  /// Parses `text`; the error names the first field that is not supported.
  public init(parsing text: String) throws(CommandError) {
    var parts: [Part] = []
    var literal = ""
    var index = text.startIndex
    while index < text.endIndex {
      let character = text[index]
      index = text.index(after: index)
      guard character == "%" else {
        literal.append(character)
        continue
      }
      var padded = true
      if index < text.endIndex, text[index] == "-" {
        padded = false
        index = text.index(after: index)
      }
      guard index < text.endIndex else {
        throw .invalid("\(WhenParser.quoted(text)) ends in a lone %; write %% for a percent sign")
      }
      let field = text[index]
      index = text.index(after: index)
      let unpaddable = "dmHI"
      guard Self.fields.contains(field), padded || unpaddable.contains(field) else {
        let shown = padded ? "%\(field)" : "%-\(field)"
        throw .invalid(
          "\(WhenParser.quoted(shown)) is not a field appt knows; the fields are"
            + " %a %A %b %B %d %-d %e %m %-m %y %Y %F %j %u %H %-H %I %-I %M %p %P %R %%"
        )
      }
      if field == "%" {
        literal.append("%")
        continue
      }
      if !literal.isEmpty { parts.append(.literal(literal)) }
      literal = ""
      parts.append(.field(field, padded: padded))
    }
    if !literal.isEmpty { parts.append(.literal(literal)) }
    self.text = text
    self.parts = parts
  }

  private init(text: String, parts: [Part]) {
    self.text = text
    self.parts = parts
  }
}

extension AppointmentFormatter {
  static let longWeekdayNames = ["Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday"]
  static let longMonthNames = [
    "January", "February", "March", "April", "May", "June", "July", "August", "September", "October",
    "November", "December",
  ]

  /// `date` in its local fields as `template` says (`%a %-d %b %Y`: `Tue 1 Dec 2026`).
  public func format(_ date: Date, as template: DateTemplate) -> String {
    let t = local(date)
    var out = ""
    for part in template.parts {
      switch part {
      case .literal(let text): out += text
      case .field(let field, let padded): out += Self.field(field, padded: padded, of: t)
      }
    }
    return out
  }

  private static func field(_ field: Character, padded: Bool, of t: LocalTime) -> String {
    func number(_ n: Int, width: Int = 2) -> String {
      let text = String(n)
      return padded && text.count < width ? String(repeating: "0", count: width - text.count) + text : text
    }
    let hour12 = t.hour % 12 == 0 ? 12 : t.hour % 12
    switch field {
    case "a": return weekdayNames[t.weekday]
    case "A": return longWeekdayNames[t.weekday]
    case "b": return monthNames[t.month - 1]
    case "B": return longMonthNames[t.month - 1]
    case "d": return number(t.day)
    case "e": return t.day < 10 ? " \(t.day)" : "\(t.day)"
    case "m": return number(t.month)
    case "y": return number(((t.year % 100) + 100) % 100)
    case "Y": return number(t.year, width: 4)
    case "F": return number(t.year, width: 4) + "-" + number(t.month) + "-" + number(t.day)
    case "j":
      let first = CivilDate.dayNumber(year: t.year, month: 1, day: 1)
      return number(t.dayNumber - first + 1, width: 3)
    case "u": return String(t.weekday + 1)
    case "H": return number(t.hour)
    case "I": return number(hour12)
    case "M": return number(t.minute)
    case "p": return t.hour < 12 ? "AM" : "PM"
    case "P": return t.hour < 12 ? "am" : "pm"
    case "R": return number(t.hour) + ":" + number(t.minute)
    default: return ""
    }
  }
}
