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

/// The add and edit form: four fields, one focused, errors under the fields as you type,
/// and what appt understood from Start and Duration.
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

  /// What the fields describe once they parse.
  public struct Values: Equatable, Sendable {
    public var title: String
    public var start: Date
    public var end: Date
    public var note: String
  }

  public var fields: [TextField]
  public var focus: Field = .title
  public var errors: [Field: String] = [:]
  /// The appointment being edited, at the revision the edit is based on; nil when adding.
  public var editing: Appointment?
  /// Lines shown under the fields: why the last save was refused (someone else changed the
  /// appointment), what it is now, and what Enter now does.
  public var notice: [String] = []
  /// True between Enter and the store's answer; keys are ignored meanwhile.
  public var isSaving = false

  /// A form for a new appointment on `day`: Start holds the day, ready for a time.
  public init(day: Date, formatter: AppointmentFormatter) {
    fields = [TextField(), TextField(formatter.isoDay(day) + " "), TextField("1h"), TextField()]
  }

  /// A form holding `appointment`'s fields, to edit it.
  public init(editing appointment: Appointment, formatter: AppointmentFormatter) {
    fields = [
      TextField(appointment.title),
      TextField("\(formatter.isoDay(appointment.start)) \(formatter.time(appointment.start))"),
      TextField(DurationParser.format(appointment.duration)),
      TextField(appointment.note),
    ]
    editing = appointment
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

  /// Parses every field; each problem is recorded in `errors`. `requireAll` also reports the
  /// empty title and fields not filled in yet (on Enter); while typing, only what is wrong.
  mutating func check(clock: Clock, requireAll: Bool) -> Values? {
    errors = [:]
    let title = self[.title].text.trimmingCharacters(in: .whitespaces)
    if title.isEmpty, requireAll { errors[.title] = "a title is needed" }
    if title.count > CommandParser.maximumTitleLength {
      errors[.title] = "\(title.count) characters; at most \(CommandParser.maximumTitleLength)"
    }
    if self[.note].text.count > CommandParser.maximumNoteLength {
      errors[.note] = "\(self[.note].text.count) characters; at most \(CommandParser.maximumNoteLength)"
    }
    let startText = self[.start].text.trimmingCharacters(in: .whitespaces)
    var start: Date?
    do {
      let when = try WhenParser(clock: clock).parse(startText)
      if when.minutes == nil {
        if requireAll { errors[.start] = "add a time, e.g. \(startText) 10:00" }
      } else {
        start = when.instant(in: clock)
      }
    } catch {
      if requireAll || !startText.isEmpty { errors[.start] = error.message }
    }
    var duration: TimeInterval?
    let durationText = self[.duration].text.trimmingCharacters(in: .whitespaces)
    do {
      duration = try DurationParser.parse(durationText)
    } catch {
      if requireAll || !durationText.isEmpty { errors[.duration] = error.message }
    }
    // The times every way in allows (AppointmentRules): nothing past 9999-12-31 00:00 UTC.
    if let start, let duration {
      do throws(AppointmentRules.Violation) {
        try AppointmentRules.checkTimes(start: start, end: start.addingTimeInterval(duration))
      } catch {
        errors[error.field == .start ? .start : .duration] = error.message
      }
    }
    if requireAll, let first = Field.allCases.first(where: { errors[$0] != nil }) { focus = first }
    guard !title.isEmpty, let start, let duration, errors.isEmpty else { return nil }
    return Values(title: title, start: start, end: start.addingTimeInterval(duration), note: self[.note].text)
  }

  /// What appt understands from Start and Duration right now, in words; nil while they do
  /// not parse.
  public func interpretation(environment: Environment) -> String? {
    guard let (start, end) = timeRange(clock: environment.clock) else { return nil }
    let preview = Appointment(title: "", start: start, end: end, created: start)
    return "\(environment.formatter.day(start)), \(environment.formatter.timeRange(preview))"
  }

  /// The scheduled appointments among `others` that the form's time range overlaps (not the
  /// one being edited): a warning, not a refusal.
  public func overlaps(with others: [Appointment], clock: Clock) -> [Appointment] {
    guard let (start, end) = timeRange(clock: clock) else { return [] }
    return others.filter { !$0.isCancelled && $0.id != editing?.id && $0.overlaps(from: start, to: end) }
  }

  private func timeRange(clock: Clock) -> (Date, Date)? {
    do {
      let when = try WhenParser(clock: clock).parse(self[.start].text.trimmingCharacters(in: .whitespaces))
      let duration = try DurationParser.parse(self[.duration].text.trimmingCharacters(in: .whitespaces))
      guard when.minutes != nil else { return nil }
      let start = when.instant(in: clock)
      return (start, start.addingTimeInterval(duration))
    } catch {
      return nil  // a preview only: the field's own error is shown under it
    }
  }
}
