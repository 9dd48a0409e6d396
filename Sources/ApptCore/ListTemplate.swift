import Foundation

/// `list --format TEMPLATE`: one line per appointment, made of `{field}`s and text, like
/// calcurse's `--format-apt` and khal's `--format`.
///
/// The fields: `{start}` and `{end}` (`Tue 2026-12-01 10:00`; `{start:%H:%M}` formats them
/// with `DateTemplate`'s fields), `{duration}` (`1h30m`), `{title}`, `{location}`,
/// `{calendar}`, `{id}`, `{short_id}`, `{status}` (scheduled or cancelled), `{note}`,
/// `{organizer}` and `{attendees}` (`Name <address>`, comma-separated), `{uid}`,
/// `{categories}`, `{url}` and `{answer}` (the user's answer to an invitation). The
/// escapes `\t`, `\n` and `\\`, and `{{` / `}}` for a brace. A field, format or escape appt
/// does not know is a usage error naming it, so a typo is never printed on every line. Text
/// from the store is escaped for the terminal as everywhere (a newline in a note is `^J`);
/// only the template's own `\t` and `\n` are written raw.
public struct ListTemplate: Sendable, Equatable, CustomStringConvertible {
  public enum Field: String, CaseIterable, Sendable {
    case start, end, duration, title, location, calendar, id
    case shortID = "short_id"
    case status, note
    case organizer, attendees, uid, categories, url
    /// The user's own answer to an invitation (`[mail] addresses`): "" when not invited.
    case answer
  }

  enum Part: Sendable, Equatable {
    case literal(String)
    case field(Field, DateTemplate?)
  }

  /// The template as written.
  public let text: String
  let parts: [Part]

  public var description: String { text }

  /// Parses `text`; the error names the first field, format or escape that is not known.
  public init(parsing text: String) throws(CommandError) {
    var parts: [Part] = []
    var literal = ""
    var rest = Substring(text)
    func flush() {
      if !literal.isEmpty { parts.append(.literal(literal)) }
      literal = ""
    }
    while let character = rest.popFirst() {
      switch character {
      case "\\":
        guard let escaped = rest.popFirst() else {
          throw .usage("list: --format ends in a lone \\; write \\\\ for a backslash")
        }
        switch escaped {
        case "t": literal.append("\t")
        case "n": literal.append("\n")
        case "\\": literal.append("\\")
        default:
          throw .usage("list: --format: \\\(escaped) is not an escape appt knows; the escapes are \\t \\n \\\\")
        }
      case "{" where rest.first == "{":
        rest.removeFirst()
        literal.append("{")
      case "}" where rest.first == "}":
        rest.removeFirst()
        literal.append("}")
      case "}":
        throw .usage("list: --format has a } that closes nothing; write }} for a brace")
      case "{":
        guard let close = rest.firstIndex(of: "}") else {
          throw .usage("list: --format has a { that is not closed; write {{ for a brace")
        }
        let inside = rest[..<close]
        rest = rest[rest.index(after: close)...]
        let name = inside.prefix { $0 != ":" }
        guard let field = Field(rawValue: String(name)) else {
          let known = Field.allCases.map { "{\($0.rawValue)}" }
          var message = "list: --format: {\(TextSafety.escapingControls(String(name)))} is not a field appt knows"
          if let near = Suggestion.nearest(to: String(name), among: Field.allCases.map(\.rawValue)) {
            message += "; did you mean {\(near)}?"
          } else {
            message += "; the fields are " + known.joined(separator: " ")
          }
          throw .usage(message)
        }
        var format: DateTemplate?
        if name.endIndex < inside.endIndex {
          guard field == .start || field == .end else {
            throw .usage("list: --format: only {start} and {end} take a format, not {\(field.rawValue)}")
          }
          let spec = String(inside[inside.index(after: name.endIndex)...])
          do throws(CommandError) {
            format = try DateTemplate(parsing: spec)
          } catch {
            throw .usage("list: --format: \(error.message)")
          }
        }
        flush()
        parts.append(.field(field, format))
      default:
        literal.append(character)
      }
    }
    flush()
    self.text = text
    self.parts = parts
  }
}

extension AppointmentFormatter {
  /// `appointment` as `template` says; `calendar` is its calendar's name.
  public func line(_ appointment: Appointment, as template: ListTemplate, calendar: String?) -> String {
    var out = ""
    for part in template.parts {
      switch part {
      case .literal(let text): out += text
      case .field(let field, let format): out += value(field, format, of: appointment, calendar: calendar)
      }
    }
    return out
  }

  private func value(_ field: ListTemplate.Field, _ format: DateTemplate?, of a: Appointment, calendar: String?)
    -> String
  {
    switch field {
    case .start: return format.map { self.format(a.start, as: $0) } ?? dayAndTime(a.start)
    case .end: return format.map { self.format(a.end, as: $0) } ?? dayAndTime(a.end)
    case .duration: return DurationParser.format(a.duration)
    case .title: return TextSafety.escapingControls(a.title)
    case .location: return TextSafety.escapingControls(a.location)
    case .calendar: return TextSafety.escapingControls(calendar ?? "")
    case .id: return a.id.description
    case .shortID: return a.id.short
    case .status: return a.status.rawValue
    case .note: return TextSafety.escapingControls(a.note)
    case .organizer: return a.organizer?.displayName ?? ""
    case .attendees: return a.attendees.map(\.displayName).joined(separator: ", ")
    case .uid: return TextSafety.escapingControls(a.iCalendarUID)
    case .categories: return TextSafety.escapingControls(a.keptValue("CATEGORIES"))
    case .url: return TextSafety.escapingControls(a.keptValue("URL"))
    case .answer: return a.attendee(among: addresses)?.statusWords ?? ""
    }
  }
}
