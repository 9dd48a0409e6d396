import ApptCore
import Foundation

/// One line of editable text with a cursor, edited like readline.
public struct TextField: Equatable, Sendable {
  public private(set) var characters: [Character]
  public private(set) var cursor: Int

  public init(_ text: String = "") {
    characters = Array(text)
    cursor = characters.count
  }

  public var text: String { String(characters) }

  /// Applies an editing key; returns false when the key is not an editing key.
  public mutating func apply(_ key: Key) -> Bool {
    switch key {
    case .character(let c):
      characters.insert(c, at: cursor)
      cursor += 1
    case .left, .control("b"): cursor = max(0, cursor - 1)
    case .right, .control("f"): cursor = min(characters.count, cursor + 1)
    case .home, .control("a"): cursor = 0
    case .end, .control("e"): cursor = characters.count
    case .backspace, .control("h"):
      guard cursor > 0 else { return true }
      characters.remove(at: cursor - 1)
      cursor -= 1
    case .delete, .control("d"):
      guard cursor < characters.count else { return true }
      characters.remove(at: cursor)
    case .control("u"):
      characters.removeAll()
      cursor = 0
    case .control("k"):
      characters.removeSubrange(cursor...)
    case .control("w"):
      var start = cursor
      while start > 0, characters[start - 1] == " " { start -= 1 }
      while start > 0, characters[start - 1] != " " { start -= 1 }
      characters.removeSubrange(start..<cursor)
      cursor = start
    default:
      return false
    }
    return true
  }
}

/// The add form: four fields, one focused, with per-field errors and what appt understood.
public struct Form: Equatable, Sendable {
  public enum Field: Int, CaseIterable, Sendable {
    case title, start, duration, note

    public var label: String {
      switch self {
      case .title: "Title"
      case .start: "Start"
      case .duration: "Duration"
      case .note: "Note"
      }
    }
  }

  public var fields: [TextField]
  public var focus: Field = .title
  public var errors: [Field: String] = [:]
  /// True between Enter and the store's answer; keys are ignored meanwhile.
  public var isSaving = false

  /// A form for a new appointment on `day`: Start holds the day, ready for a time.
  public init(day: Date, formatter: AppointmentFormatter) {
    fields = [TextField(), TextField(formatter.isoDay(day) + " "), TextField("1h"), TextField()]
  }

  public subscript(field: Field) -> TextField {
    get { fields[field.rawValue] }
    set { fields[field.rawValue] = newValue }
  }

  mutating func focusNext() { focus = Field(rawValue: (focus.rawValue + 1) % Field.allCases.count) ?? .title }

  mutating func focusPrevious() {
    let count = Field.allCases.count
    focus = Field(rawValue: (focus.rawValue + count - 1) % count) ?? .title
  }

  /// The request the fields describe, or the errors that stop it (also stored in `errors`).
  mutating func validate(clock: Clock) -> AddRequest? {
    errors = [:]
    let title = self[.title].text.trimmingCharacters(in: .whitespaces)
    if title.isEmpty { errors[.title] = "a title is needed" }
    var start: Date?
    do {
      let when = try WhenParser(clock: clock).parse(self[.start].text.trimmingCharacters(in: .whitespaces))
      if when.minutes == nil {
        errors[.start] = "add a time, e.g. \(self[.start].text.trimmingCharacters(in: .whitespaces)) 10:00"
      } else {
        start = when.instant(in: clock)
      }
    } catch {
      errors[.start] = error.message
    }
    var duration: TimeInterval?
    do {
      duration = try DurationParser.parse(self[.duration].text.trimmingCharacters(in: .whitespaces))
    } catch {
      errors[.duration] = error.message
    }
    if let first = Field.allCases.first(where: { errors[$0] != nil }) { focus = first }
    guard errors.isEmpty, let start, let duration else { return nil }
    return AddRequest(title: title, start: start, end: start.addingTimeInterval(duration), note: self[.note].text)
  }

  /// What appt understands from Start and Duration right now, in words; nil while either does
  /// not parse (the field's error is reported on Enter, not while the user is still typing).
  public func interpretation(environment: Environment) -> String? {
    let clock = environment.clock
    let when: When
    let duration: TimeInterval
    do {
      when = try WhenParser(clock: clock).parse(self[.start].text.trimmingCharacters(in: .whitespaces))
      duration = try DurationParser.parse(self[.duration].text.trimmingCharacters(in: .whitespaces))
    } catch {
      return nil
    }
    guard when.minutes != nil else { return nil }
    let start = when.instant(in: clock)
    let preview = Appointment(title: "", start: start, end: start.addingTimeInterval(duration), created: start)
    return "\(environment.formatter.day(start)), \(environment.formatter.timeRange(preview))"
  }
}
