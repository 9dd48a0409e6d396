import ApptCore
import Foundation

/// One line of editable text with a cursor, edited like readline. It holds at most
/// `maximumLength` characters (more than any field may save, so the field's own error shows
/// long before): typing or pasting past that adds nothing, and memory stays bounded.
public struct TextField: Equatable, Sendable {
  public static let maximumLength = 200_000

  public private(set) var characters: [Character]
  public private(set) var cursor: Int
  /// A prefilled field opens selected, as form fields do elsewhere: typing (or pasting)
  /// replaces the text, Backspace or Delete clears it, and a cursor key keeps it and moves.
  public private(set) var isSelected: Bool

  public init(_ text: String = "", selected: Bool = false) {
    characters = Array(text)
    cursor = characters.count
    isSelected = selected && !characters.isEmpty
  }

  public var text: String { String(characters) }

  /// Where the text is once leading and trailing blanks (spaces, tabs) are left out: what
  /// `text.trimmingCharacters(in: .whitespaces)` keeps, without building the text.
  public var trimmed: Range<Int> {
    var start = 0
    var end = characters.count
    while start < end, Self.isBlank(characters[start]) { start += 1 }
    while end > start, Self.isBlank(characters[end - 1]) { end -= 1 }
    return start..<end
  }

  /// The text without leading and trailing blanks.
  public var trimmedText: String { String(characters[trimmed]) }

  static func isBlank(_ character: Character) -> Bool {
    character.unicodeScalars.allSatisfy { CharacterSet.whitespaces.contains($0) }
  }

  /// Applies an editing key; returns false when the key is not an editing key. A paste is
  /// inserted as one edit, its line breaks and tabs as spaces (one line), its other control
  /// characters left out.
  public mutating func apply(_ key: Key) -> Bool {
    if isSelected {
      switch key {
      case .character, .paste, .backspace, .delete, .control("h"), .control("d"):
        characters.removeAll()
        cursor = 0
        isSelected = false
        if key == .backspace || key == .delete || key == .control("h") || key == .control("d") { return true }
      case .left, .right, .home, .end, .control:
        isSelected = false
      default:
        return false
      }
    }
    switch key {
    case .character(let c):
      guard characters.count < Self.maximumLength else { return true }
      characters.insert(c, at: cursor)
      cursor += 1
    case .paste(let text):
      insert(Self.pasted(text, keepingLineBreaks: false))
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

  /// Inserts `pasted` at the cursor, in one edit.
  mutating func insert(_ pasted: [Character]) {
    if isSelected {
      characters.removeAll()
      cursor = 0
      isSelected = false
    }
    let room = max(0, Self.maximumLength - characters.count)
    let kept = pasted.count <= room ? pasted[...] : pasted.prefix(room)
    characters.insert(contentsOf: kept, at: cursor)
    cursor += kept.count
  }

  /// What a paste puts into a field: line breaks (CR, LF, CRLF) become "\n" or, in a
  /// one-line field, spaces; tabs become spaces; other control characters are left out.
  static func pasted(_ text: String, keepingLineBreaks: Bool) -> [Character] {
    var result: [Character] = []
    result.reserveCapacity(text.utf8.count)
    for character in text {
      if character == "\n" || character == "\r" || character == "\r\n" {
        result.append(keepingLineBreaks ? "\n" : " ")
      } else if character == "\t" {
        result.append(" ")
      } else if !character.unicodeScalars.contains(where: TextSafety.isControl) {
        result.append(character)
      }
    }
    return result
  }
}

/// The add and edit form: five fields, one focused, errors under the fields as you type,
/// and what appt understood from Start and Duration.
public struct Form: Equatable, Sendable {
  /// The fields in Tab order.
  public enum Field: Int, CaseIterable, Sendable {
    case title, start, duration, location, note, calendar, remind

    public var label: String {
      switch self {
      case .title: "Title"
      case .start: "Start"
      case .duration: "Duration"
      case .location: "Location"
      case .note: "Note"
      case .remind: "Remind"
      case .calendar: "Calendar"
      }
    }

    /// Its place in `fields` (the Calendar field is kept apart).
    var slot: Int { self == .remind ? 5 : rawValue }
  }

  /// The calendars the Calendar field offers (left/right cycle through them); empty when the
  /// store has one calendar, and the form then has no Calendar field.
  public var calendarNames: [String] = []
  /// An add's Remind for each calendar (folded name): its default. Choosing another
  /// calendar puts that one's default in Remind, unless Remind was changed.
  public var remindDefaults: [String: String] = [:]

  /// The fields on screen, in Tab order.
  public var shownFields: [Field] { calendarNames.isEmpty ? Field.allCases.filter { $0 != .calendar } : Field.allCases }

  /// What an edit of an occurrence of a series changes (the user's answer to "which?").
  public enum Scope: Equatable, Sendable {
    /// This occurrence only: it becomes a changed occurrence (an override) of the series.
    case occurrence
    /// This occurrence and every later one: the series is split there.
    case andFollowing
    /// The whole series.
    case series
  }

  /// What the fields describe once they parse.
  public struct Values: Equatable, Sendable {
    public var title: String
    public var start: Date
    public var end: Date
    public var note: String
    public var location: String
    /// The calendar's name as the store spells it; nil without a Calendar field.
    public var calendar: String?
    /// The reminders Remind names; nil when an edit leaves them as they were.
    public var alarms: [Alarm]?
  }

  /// The text fields Title to Note, then Remind.
  public var fields: [TextField]
  /// The Calendar field (shown only with `calendarNames`).
  public var calendarField = TextField()
  public var focus: Field = .title
  public var errors: [Field: String] = [:]
  /// The appointment being edited, at the revision the edit is based on; nil when adding.
  public var editing: Appointment?
  /// For an occurrence of a series: what the edit changes (nil for anything else).
  public var scope: Scope?
  /// Lines shown under the fields: why the last save was refused (someone else changed the
  /// appointment), what it is now, and what Enter now does.
  public var notice: [String] = []
  /// True between Enter and the store's answer; keys are ignored meanwhile.
  public var isSaving = false
  /// The day a time typed alone into Start falls on: the day the form was opened on (the
  /// appointment's own, when editing), not today.
  public var day: Date?

  /// A form for a new appointment on `day`: Start holds the day, ready for a time; Duration
  /// holds `duration` (`[ui] default_duration`, 1h unless set); Remind the reminders a new
  /// appointment gets (seconds before its start: the calendar's default).
  public init(
    day: Date,
    formatter: AppointmentFormatter,
    duration: TimeInterval = 3600,
    calendars: [String] = [],
    calendar: String? = nil,
    remind: [TimeInterval] = [],
    remindDefaults: [(calendar: String, remind: [TimeInterval])] = []
  ) {
    fields = [
      TextField(), TextField(formatter.isoDay(day) + " ", selected: true),
      TextField(DurationParser.format(duration), selected: true), TextField(), TextField(),
      TextField(remind.map { Self.remindText(before: $0) }.joined(separator: ", "), selected: true),
    ]
    calendarField = TextField(calendar ?? calendars.first ?? "", selected: true)
    calendarNames = calendars
    self.day = day
    for (name, remind) in remindDefaults {
      self.remindDefaults[CalendarRules.folded(name)] = remind.map(Self.remindText(before:)).joined(separator: ", ")
    }
  }

  /// A form holding `appointment`'s fields, to edit it. A title or note longer than a field
  /// may hold (stored before the limits, or by another program) is not loaded whole: the
  /// field holds its start, and the notice says so and what Enter then saves.
  public init(
    editing appointment: Appointment,
    formatter: AppointmentFormatter,
    scope: Scope? = nil,
    calendars: [String] = [],
    calendar: String? = nil
  ) {
    let title = Self.start(of: appointment.title, limit: CommandParser.maximumTitleLength)
    let location = Self.start(of: appointment.location, limit: CommandParser.maximumLocationLength)
    let note = Self.start(of: appointment.note, limit: CommandParser.maximumNoteLength)
    fields = [
      TextField(title.text, selected: true),
      TextField("\(formatter.isoDay(appointment.start)) \(formatter.time24(appointment.start))", selected: true),
      TextField(DurationParser.format(appointment.duration), selected: true),
      TextField(location.text, selected: true),
      TextField(note.text, selected: true),
      TextField(appointment.alarms.map(Self.remindText).joined(separator: ", "), selected: true),
    ]
    calendarField = TextField(calendar ?? "", selected: true)
    calendarNames = calendars
    editing = appointment
    day = appointment.start
    self.scope = appointment.occurrence == nil ? nil : (scope ?? .occurrence)
    for (field, cut, limit) in [
      ("title", title.isCut, CommandParser.maximumTitleLength),
      ("location", location.isCut, CommandParser.maximumLocationLength),
      ("note", note.isCut, CommandParser.maximumNoteLength),
    ] where cut {
      notice += [
        "The \(field) is longer than \(limit) characters: only its first \(limit) are here,",
        "and enter saves only those; esc keeps the \(field) as it is",
      ]
    }
  }

  /// The first `limit` characters of `text`, and whether there were more; costs `limit`, not
  /// the length of `text` (a 20 MB note).
  static func start(of text: String, limit: Int) -> (text: String, isCut: Bool) {
    guard text.utf8.count > limit,
      let end = text.index(text.startIndex, offsetBy: limit, limitedBy: text.endIndex), end != text.endIndex
    else { return (text, false) }
    return (String(text[..<end]), true)
  }

  public subscript(field: Field) -> TextField {
    get { field == .calendar ? calendarField : fields[field.slot] }
    set {
      if field == .calendar { calendarField = newValue } else { fields[field.slot] = newValue }
    }
  }

  /// Applies an editing key to the focused field, in place; a paste into the note keeps its
  /// line breaks. Returns false when the key is not an editing key.
  mutating func apply(_ key: Key) -> Bool {
    guard focus == .calendar, !remindDefaults.isEmpty else { return applyToField(key) }
    let before = remindDefaults[CalendarRules.folded(self[.calendar].trimmedText)]
    let applied = applyToField(key)
    let after = remindDefaults[CalendarRules.folded(self[.calendar].trimmedText)]
    if let before, let after, before != after, self[.remind].text == before {
      self[.remind] = TextField(after, selected: true)
    }
    return applied
  }

  private mutating func applyToField(_ key: Key) -> Bool {
    if focus == .calendar, key == .left || key == .right, !calendarNames.isEmpty {
      // Left/right cycle through the calendars, from the one typed (or the first).
      let typed = CalendarRules.folded(self[.calendar].trimmedText)
      let count = calendarNames.count
      let current = calendarNames.firstIndex { CalendarRules.folded($0) == typed }
      let next = current.map { ($0 + (key == .right ? 1 : count - 1)) % count } ?? (key == .right ? 0 : count - 1)
      self[.calendar] = TextField(calendarNames[next])
      return true
    }
    if focus == .calendar {
      if case .paste(let text) = key {
        calendarField.insert(TextField.pasted(text, keepingLineBreaks: false))
        return true
      }
      return calendarField.apply(key)
    }
    if case .paste(let text) = key {
      fields[focus.slot].insert(TextField.pasted(text, keepingLineBreaks: focus == .note))
      return true
    }
    return fields[focus.slot].apply(key)
  }

  /// Start and Duration longer than this are refused without being parsed: no time or
  /// duration is this long, and parsing on every key would make typing into one quadratic.
  static let maximumWhenLength = 100

  mutating func focusNext() {
    let fields = shownFields
    focus = fields[((fields.firstIndex(of: focus) ?? -1) + 1) % fields.count]
  }

  mutating func focusPrevious() {
    let fields = shownFields
    focus = fields[((fields.firstIndex(of: focus) ?? 0) + fields.count - 1) % fields.count]
  }

  /// The calendar the field names, as the store spells it (case ignored), or nil with the
  /// error to show when it names none.
  func chosenCalendar() -> (name: String?, error: String?) {
    guard !calendarNames.isEmpty else { return (nil, nil) }
    let typed = self[.calendar].trimmedText
    if let name = calendarNames.first(where: { CalendarRules.folded($0) == CalendarRules.folded(typed) }) {
      return (name, nil)
    }
    if typed.isEmpty { return (nil, "a calendar is needed (left/right choose one)") }
    var message = "no calendar \"\(TextSafety.escapingControls(typed))\""
    if let near = CalendarRules.suggestion(for: typed, among: calendarNames) { message += "; did you mean \(near)?" }
    return (nil, message + " (left/right choose)")
  }

  /// Parses every field; each problem is recorded in `errors`. `requireAll` also reports the
  /// empty title and fields not filled in yet (on Enter), and only then are the values
  /// returned; while typing, only what is wrong is found, in time that does not grow with
  /// the length of the title or the note.
  mutating func check(clock: Clock, requireAll: Bool) -> Values? {
    errors = [:]
    let titleRange = self[.title].trimmed
    if titleRange.isEmpty, requireAll { errors[.title] = "a title is needed" }
    if titleRange.count > CommandParser.maximumTitleLength {
      errors[.title] = "\(titleRange.count) characters; at most \(CommandParser.maximumTitleLength)"
    }
    let noteLength = self[.note].characters.count
    if noteLength > CommandParser.maximumNoteLength {
      errors[.note] = "\(noteLength) characters; at most \(CommandParser.maximumNoteLength)"
    }
    let locationLength = self[.location].trimmed.count
    if locationLength > CommandParser.maximumLocationLength {
      errors[.location] = "\(locationLength) characters; at most \(CommandParser.maximumLocationLength)"
    }
    for field in [Field.start, .duration] where self[field].characters.count > Self.maximumWhenLength {
      errors[field] = "\(self[field].characters.count) characters is too long"
    }
    let startText = self[.start].trimmedText
    var start: Date?
    if errors[.start] == nil {
      do {
        let when = try WhenParser(clock: clock).parse(startText, timeAloneOn: day)
        if when.minutes == nil {
          if requireAll { errors[.start] = "add a time, e.g. \(startText) 10:00" }
        } else {
          start = unchangedStart(startText, clock: clock) ?? when.instant(in: clock)
        }
      } catch {
        if requireAll || !startText.isEmpty { errors[.start] = error.message }
      }
    }
    var duration: TimeInterval?
    let durationText = self[.duration].trimmedText
    if errors[.duration] == nil {
      do {
        duration = try DurationParser.parse(durationText, allowingZero: true)
      } catch {
        if requireAll || !durationText.isEmpty { errors[.duration] = error.message }
      }
    }
    // The times every way in allows (AppointmentRules): nothing past 9999-12-31 00:00 UTC.
    if let start, let duration {
      do throws(AppointmentRules.Violation) {
        try AppointmentRules.checkTimes(start: start, end: start.addingTimeInterval(duration))
      } catch {
        errors[error.field == .start ? .start : .duration] = error.message
      }
    }
    var alarms: [Alarm]?
    if self[.remind].characters.count > Self.maximumRemindLength {
      errors[.remind] = "\(self[.remind].characters.count) characters is too long"
    } else {
      do throws(CommandError) {
        alarms = try remindedAlarms(start: start ?? day ?? clock.now, clock: clock)
      } catch {
        errors[.remind] = error.message
      }
    }
    let calendar = chosenCalendar()
    if let error = calendar.error, requireAll || !self[.calendar].trimmedText.isEmpty { errors[.calendar] = error }
    if requireAll, let first = Field.allCases.first(where: { errors[$0] != nil }) { focus = first }
    guard requireAll, !titleRange.isEmpty, let start, let duration, errors.isEmpty else { return nil }
    return Values(
      title: self[.title].trimmedText,
      start: start,
      end: start.addingTimeInterval(duration),
      note: self[.note].text,
      location: self[.location].trimmedText,
      calendar: calendar.name,
      alarms: alarms
    )
  }

  /// Remind longer than this is refused without being parsed (no list of reminders is).
  static let maximumRemindLength = 500

  /// How Remind shows an alarm: its `spec` (`15m`, `1d`, `0`, `+10m end`, `at` a UTC
  /// instant), which `Alarm.parse` reads back.
  static func remindText(_ alarm: Alarm) -> String { alarm.spec }

  /// `15m`, `1h30m`, `1d`, `0`: a reminder `seconds` before the start.
  static func remindText(before seconds: TimeInterval) -> String {
    Alarm.display(.relative(-seconds, toEnd: false)).spec
  }

  /// The alarms Remind names (its parts between commas, each as `--remind` takes it), for an
  /// appointment starting at `start`; nil for an edit whose Remind reads as it was loaded
  /// (its alarms stay exactly as stored). A part naming an alarm the appointment has keeps
  /// that alarm as it is (its REPEAT, which a spec does not spell, and its other VALARM
  /// properties).
  func remindedAlarms(start: Date, clock: Clock) throws(CommandError) -> [Alarm]? {
    let existing = editing?.alarms ?? []
    let text = self[.remind].trimmedText
    if editing != nil, text == existing.map(Self.remindText).joined(separator: ", ") { return nil }
    let zone = editing?.zone(fallback: clock.timeZone) ?? clock.timeZone
    var alarms: [Alarm] = []
    for part in text.split(separator: ",") {
      let spec = part.trimmingCharacters(in: .whitespaces)
      guard !spec.isEmpty else { continue }
      if let kept = existing.first(where: { Self.remindText($0) == spec }) {
        alarms.append(kept)
      } else {
        alarms.append(try Alarm.parse(spec, start: start, zone: zone))
      }
    }
    return alarms
  }

  /// What appt understands from Start and Duration right now, in words; nil while they do
  /// not parse.
  public func interpretation(environment: Environment) -> String? {
    guard let (start, end) = timeRange(clock: environment.clock) else { return nil }
    let preview = Appointment(title: "", start: start, end: end, created: start)
    return "\(environment.formatter.day(start)), \(environment.formatter.timeRange(preview))"
  }

  /// Which instant Start names when its time falls in a DST gap or overlap (shown under the
  /// "what appt understood" line, never taken silently); nil otherwise.
  public func dstNotice(clock: Clock) -> LocalTimeNotice? {
    guard self[.start].characters.count <= Self.maximumWhenLength,
      unchangedStart(self[.start].trimmedText, clock: clock) == nil
    else { return nil }
    do {
      return try WhenParser(clock: clock).parse(self[.start].trimmedText, timeAloneOn: day).resolved(in: clock).notice
    } catch {
      return nil  // the field's own error is shown under it
    }
  }

  /// The start being edited when Start still reads as it was loaded: the second 02:30 of
  /// an autumn change stays the second (typed again, the text would mean the first).
  private func unchangedStart(_ text: String, clock: Clock) -> Date? {
    guard let old = editing?.start else { return nil }
    let formatter = AppointmentFormatter(clock: clock)
    return text == "\(formatter.isoDay(old)) \(formatter.time24(old))" ? old : nil
  }

  /// The scheduled appointments among `others` that the form's time range overlaps (not the
  /// one being edited): a warning, not a refusal.
  public func overlaps(with others: [Appointment], clock: Clock) -> [Appointment] {
    guard let (start, end) = timeRange(clock: clock) else { return [] }
    return others.filter { !$0.isCancelled && $0.id != editing?.id && $0.overlaps(from: start, to: end) }
  }

  private func timeRange(clock: Clock) -> (Date, Date)? {
    guard self[.start].characters.count <= Self.maximumWhenLength,
      self[.duration].characters.count <= Self.maximumWhenLength
    else { return nil }
    do {
      let when = try WhenParser(clock: clock).parse(self[.start].trimmedText, timeAloneOn: day)
      let duration = try DurationParser.parse(self[.duration].trimmedText, allowingZero: true)
      guard when.minutes != nil else { return nil }
      let start = unchangedStart(self[.start].trimmedText, clock: clock) ?? when.instant(in: clock)
      return (start, start.addingTimeInterval(duration))
    } catch {
      return nil  // a preview only: the field's own error is shown under it
    }
  }
}
