import ApptCore
import Foundation

/// The selected day's appointments, with conflict and "now" markers, and the detail pane.
enum AgendaView {
  /// One row of the agenda list.
  enum Row: Equatable {
    case appointment(Int)
    case now
  }

  /// The rows on screen (each with its screen row): the list scrolled so the selected one
  /// shows. What is drawn, and what a click hits.
  static func shownRows(_ state: State, environment: Environment, in area: Views.Area, selectedIndex: Int?)
    -> [(y: Int, row: Row)]
  {
    let top = area.rows.lowerBound + 1
    let height = area.rows.upperBound - top
    let visible = state.visible
    guard state.isLoaded, !visible.isEmpty, height > 0 else { return [] }
    let rows = self.rows(visible, day: state.selectedDay, now: state.now, clock: environment.clock)
    let selectedRow = rows.firstIndex(of: .appointment(selectedIndex ?? 0)) ?? 0
    let first = max(0, min(selectedRow - height + 1, rows.count - height))
    return rows[first..<min(rows.count, first + height)].enumerated().map { (top + $0.offset, $0.element) }
  }

  static func draw(_ state: State, environment: Environment, in area: Views.Area, into screen: inout Screen) {
    let x = area.columns.lowerBound
    let top = area.rows.lowerBound + 1  // one blank row under the header
    guard state.isLoaded else {
      screen.put("  Loading…", row: top, column: x, width: area.width, style: .dim)
      return
    }
    let visible = state.visible
    guard !visible.isEmpty else {
      let add = environment.keyMap.bindings.first { $0.action == .addAppointment }?.keys.first?.description ?? "a"
      let text =
        state.filter.isEmpty
        ? "  Nothing on this day. Press \(add) to add an appointment." : "  Nothing matches the filter."
      screen.put(text, row: top, column: x, width: area.width, style: .dim)
      return
    }
    let conflicts = Conflicts.flags(visible)
    let selectedIndex = state.selectedIndex  // computed once: it searches the filtered list
    // With several calendars, each row shows its calendar's marker after the conflict mark.
    let calendars =
      state.marksCalendars ? Dictionary(state.calendars.map { ($0.id, $0) }, uniquingKeysWith: { a, _ in a }) : [:]
    for (y, row) in shownRows(state, environment: environment, in: area, selectedIndex: selectedIndex) {
      switch row {
      case .now:
        let label = "── now \(environment.formatter.time(state.now)) "
        let line = label + String(repeating: "─", count: max(0, area.width - 2 - TextWidth.of(label)))
        screen.put("  " + line, row: y, column: x, width: area.width, style: .accent)
      case .appointment(let index):
        let appointment = visible[index]
        let isSelected = index == selectedIndex
        let style: Screen.Style = isSelected ? .selected : (appointment.isCancelled ? .dim : .normal)
        if isSelected { screen.fill(row: y, column: x, count: area.width, style: .selected) }
        let marker = conflicts[index] ? "! " : "  "
        let title = TextWidth.head(appointment.title, columns: area.width).text  // a 20 MB title costs a line
        let calendar = calendars[appointment.calendarID]
        var line = "\(marker)\(calendars.isEmpty ? "" : "  ")\(environment.formatter.timeRange(appointment))  \(title)"
        if appointment.recurrence != nil { line += " ↻" }
        if appointment.override != nil { line += " ✎" }  // a changed occurrence of a series
        line += Views.alarmMarker(appointment)  // a reminder that can fire
        if appointment.isCancelled { line += "  (cancelled)" }
        if state.isInConflict(appointment) { line += Views.conflictMarker }
        screen.put(line, row: y, column: x, width: area.width, style: style)
        if let calendar, area.width > 3 {
          screen.put(String(calendar.letter), row: y, column: x + 2, style: .calendar(calendar.colorIndex))
        }
      }
    }
  }

  /// The list's rows: the appointments, with the now marker before the first one that has
  /// not started yet when the day is today.
  static func rows(_ visible: [Appointment], day: Date, now: Date, clock: Clock) -> [Row] {
    var rows = visible.indices.map(Row.appointment)
    guard clock.startOfDay(now) == day else { return rows }
    let position = visible.firstIndex { $0.start > now } ?? visible.count
    rows.insert(.now, at: position)
    return rows
  }

  /// The title of the series a changed occurrence belongs to: from one of its occurrences on
  /// the day, else as the runtime looked it up (`State.seriesTitles`).
  static func seriesTitle(of appointment: Appointment?, state: State) -> String? {
    guard let seriesID = appointment?.override?.seriesID else { return nil }
    if let series = state.appointments.first(where: { $0.id == seriesID }) { return series.title }
    return state.seriesTitles[seriesID] ?? nil
  }

  /// An invitation's organizer, attendees (each with its answer, cut to the pane) and the
  /// user's own answer (`[mail] addresses`): none for an event without attendees.
  static func participantLines(_ a: Appointment, formatter: AppointmentFormatter, width: Int)
    -> [(String, Screen.Style)]
  {
    var lines: [(String, Screen.Style)] = []
    if let organizer = a.organizer {
      lines.append((" Organizer: " + TextWidth.head(organizer.displayName, columns: width).text, .normal))
    }
    let attendees = a.attendees
    guard !attendees.isEmpty else { return lines }
    let words = attendees.map { attendee in
      "\(attendee.name.isEmpty ? TextSafety.escapingControls(attendee.email) : TextSafety.escapingControls(attendee.name))"
        + " (\(attendee.statusWords))"
    }
    lines.append((" Attendees: " + TextWidth.head(words.joined(separator: ", "), columns: width).text, .normal))
    if let me = attendees.first(where: { $0.isOne(of: formatter.addresses) }) {
      lines.append((" Your answer: " + me.statusWords, me.status == "NEEDS-ACTION" ? .accent : .normal))
    }
    return lines
  }

  static func drawDetail(
    _ appointment: Appointment?,
    seriesTitle: String? = nil,
    calendar: CalendarInfo? = nil,
    inConflict: Bool = false,
    environment: Environment,
    in area: Views.Area,
    into screen: inout Screen
  ) {
    let x = area.columns.lowerBound
    var y = area.rows.lowerBound
    screen.put(String(repeating: "─", count: area.width), row: y, column: x, style: .dim)
    y += 1
    guard let appointment else { return }
    let formatter = environment.formatter
    // Only the start of a title or note that can show is looked at (a 20 MB note costs a line).
    let title = TextWidth.head(appointment.title, columns: area.width).text
    var lines: [(String, Screen.Style)] = [
      (" " + title, .accent),
      (
        " \(formatter.format(appointment.start, as: environment.settings.ui.dateFormat.value)),"
          + " \(formatter.timeRange(appointment))"
          + " (\(DurationParser.format(appointment.duration)))  \(appointment.status.rawValue)", .normal
      ),
    ]
    if let recurrence = appointment.recurrence {
      let zone = appointment.zone(fallback: environment.clock.timeZone)
      lines.append((" Repeats " + TextWidth.head(recurrence.summary(in: zone), columns: area.width).text, .normal))
    }
    if let override = appointment.override {
      let words = formatter.overrideWords(override, seriesTitle: seriesTitle)
      lines.append(
        (" " + TextWidth.head(words.prefix(1).uppercased() + words.dropFirst(), columns: area.width).text, .normal)
      )
    }
    let location = TextWidth.head(appointment.location, columns: area.width).text.split(whereSeparator: \.isNewline)
      .joined(separator: " / ")
    if !location.isEmpty { lines.append((" Location: " + location, .normal)) }
    if let calendar {
      lines.append(
        (" Calendar: " + TextWidth.head(TextSafety.escapingControls(calendar.name), columns: area.width).text, .normal)
      )
    }
    lines += participantLines(appointment, formatter: formatter, width: area.width)
    let alarms = appointment.alarms
    if !alarms.isEmpty {
      let words = alarms.map { $0.summary(clock: environment.clock) }.joined(separator: "; ")
      lines.append(
        (" Reminders: " + TextWidth.head(TextSafety.escapingControls(words), columns: area.width).text, .normal)
      )
    }
    let note = TextWidth.head(appointment.note, columns: area.width).text.split(whereSeparator: \.isNewline)
      .joined(separator: " / ")
    if !note.isEmpty { lines.append((" Note: " + note, .normal)) }
    if inConflict {
      lines.append((" Sync conflict: your version is kept aside (appt conflicts shows it)", .error))
    }
    lines.append(
      (
        " id \(appointment.id.short) · created \(formatter.dayAndTime(appointment.created))"
          + " · updated \(formatter.dayAndTime(appointment.updated))", .dim
      )
    )
    for (text, style) in lines where y < area.rows.upperBound {
      screen.put(text, row: y, column: x, width: area.width, style: style)
      y += 1
    }
  }
}

/// The month of the selected day: today highlighted, the selected day inverted, days with
/// appointments marked.
enum MonthView {
  static func draw(_ state: State, environment: Environment, in area: Views.Area, into screen: inout Screen) {
    let clock = environment.clock
    let calendar = clock.calendar
    let x = area.columns.lowerBound
    var y = area.rows.lowerBound
    guard let days = calendar.range(of: .day, in: .month, for: state.month) else { return }
    screen.put(" " + monthTitle(state.month, environment: environment), row: y, column: x, style: .accent)
    y += 1
    let start = environment.weekStart.rawValue
    let names = ["Mo", "Tu", "We", "Th", "Fr", "Sa", "Su"]
    screen.put(" " + (0..<7).map { names[(start + $0) % 7] }.joined(separator: " "), row: y, column: x, style: .dim)
    y += 1
    let todayNumber = clock.dayNumber(of: state.now)
    let selectedNumber = clock.dayNumber(of: state.selectedDay)
    let firstNumber = clock.dayNumber(of: state.month)
    let firstWeekday = firstColumn(state, environment: environment)
    for day in days {
      let number = firstNumber + day - 1
      let cell = firstWeekday + day - 1
      let row = y + cell / 7
      guard row < area.rows.upperBound else { break }
      let column = x + 1 + (cell % 7) * 3
      let style: Screen.Style =
        number == selectedNumber
        ? .selected : number == todayNumber ? .today : state.busyDays.contains(number) ? .marked : .normal
      screen.put(day < 10 ? " \(day)" : "\(day)", row: row, column: column, style: style)
    }
    if y + 7 < area.rows.upperBound {
      screen.put(" ", row: y + 7, column: x)
      screen.put("▪", row: y + 7, column: x + 1, style: .marked)
      screen.put(" busy  ", row: y + 7, column: x + 2, style: .dim)
      screen.put("▪", row: y + 7, column: x + 9, style: .today)
      screen.put(" today", row: y + 7, column: x + 10, style: .dim)
    }
    let separatorColumn = area.columns.upperBound
    for row in area.rows where separatorColumn < screen.size.columns {
      screen.put("│", row: row, column: separatorColumn, style: .dim)
    }
  }

  /// The column of the month's first day: Monday = 0 ... Sunday = 6 (1970-01-01, day 0, was
  /// a Thursday), counted from the week's first day.
  static func firstColumn(_ state: State, environment: Environment) -> Int {
    let firstNumber = environment.clock.dayNumber(of: state.month)
    return (((firstNumber + 3) % 7 + 7) % 7 - environment.weekStart.rawValue + 7) % 7
  }

  /// The day drawn at (`row`, `column`) in `area`, if a day is drawn there.
  static func day(at row: Int, _ column: Int, _ state: State, environment: Environment, in area: Views.Area) -> Date? {
    let clock = environment.clock
    guard let days = clock.calendar.range(of: .day, in: .month, for: state.month) else { return nil }
    let gridRow = row - (area.rows.lowerBound + 2)
    let offset = column - (area.columns.lowerBound + 1)
    guard gridRow >= 0, offset >= 0, offset % 3 < 2, offset / 3 < 7 else { return nil }
    let day = gridRow * 7 + offset / 3 - firstColumn(state, environment: environment) + 1
    guard days.contains(day) else { return nil }
    return clock.day(day - 1, after: state.month)
  }

  static let monthNames = [
    "January", "February", "March", "April", "May", "June", "July", "August", "September", "October",
    "November", "December",
  ]

  /// "November 2026".
  static func monthTitle(_ month: Date, environment: Environment) -> String {
    let components = environment.clock.calendar.dateComponents([.year, .month], from: month)
    let name = monthNames[max(0, min(11, (components.month ?? 1) - 1))]
    return "\(name) \(components.year ?? 0)"
  }
}

/// The calendars (`C`): a marker in each one's colour, its name, and whether it is shown.
enum CalendarListView {
  static func draw(_ calendars: [CalendarInfo], selected: Int, in area: Views.Area, into screen: inout Screen) {
    let x = area.columns.lowerBound
    var y = area.rows.lowerBound + 1
    screen.put("  Calendars", row: y, column: x, width: area.width, style: .accent)
    y += 2
    for (index, calendar) in calendars.enumerated() where y < area.rows.upperBound {
      let isSelected = index == selected
      let style: Screen.Style = isSelected ? .selected : (calendar.isShown ? .normal : .dim)
      if isSelected { screen.fill(row: y, column: x, count: area.width, style: .selected) }
      let name = TextWidth.head(TextSafety.escapingControls(calendar.name), columns: max(1, area.width - 20)).text
      let line = "  [\(calendar.isShown ? "x" : " ")]   \(name)  \(calendar.isShown ? "" : "(hidden)")"
      screen.put(line, row: y, column: x, width: area.width, style: style)
      if area.width > 7 {
        screen.put(String(calendar.letter), row: y, column: x + 6, style: .calendar(calendar.colorIndex))
      }
      y += 1
    }
  }
}

/// The key overlay: exactly the bindings of the key map, then the form's keys and the
/// question an occurrence of a series asks.
enum HelpView {
  static let scopeKeys = "  On an occurrence, e and c ask: o this one, f this and following, s the series, esc none"

  static let formKeys = "  In forms: tab/shift+tab fields, enter save, esc discard, ctrl+u clear, ctrl+w word"

  static func bindingLines(_ keyMap: KeyMap) -> [String] {
    keyMap.bindings.map { binding in
      TextWidth.pad(binding.keys.map(\.description).joined(separator: " "), to: 14) + binding.action.summary
    }
  }

  /// Every line of the overlay, its heading first, the long ones wrapped to `width`.
  static func lines(_ keyMap: KeyMap, width: Int) -> [String] {
    let text = ["  Keys"] + bindingLines(keyMap).map { "  " + $0 } + ["", formKeys, scopeKeys]
    return text.flatMap { line in
      TextWidth.of(line) <= width || line.isEmpty
        ? [line]
        : FormView.errorLines(line, width: width - 4).enumerated()
          .map { index, piece in (index == 0 ? "" : "    ") + piece }
    }
  }

  /// The body rows the overlay has (the header and the status line take the others).
  static func visibleRows(_ size: Screen.Size) -> Int { max(1, size.rows - 2) }

  static func draw(_ keyMap: KeyMap, scroll: Int, in area: Views.Area, into screen: inout Screen) {
    var y = area.rows.lowerBound
    for (index, line) in lines(keyMap, width: area.width).enumerated().dropFirst(scroll) where y < area.rows.upperBound
    {
      screen.put(line, row: y, column: 0, style: index == 0 ? .accent : .normal)
      y += 1
    }
  }
}

/// A `:` command's whole output, over the body, from its first line shown.
enum OutputView {
  /// The body rows the pane has.
  static func visibleRows(_ size: Screen.Size) -> Int { max(1, size.rows - 2) }

  static func draw(_ pane: State.OutputPane, in area: Views.Area, into screen: inout Screen) {
    var y = area.rows.lowerBound
    for line in pane.lines.dropFirst(pane.scroll) where y < area.rows.upperBound {
      screen.put(" " + line, row: y, column: 0, width: area.width, style: pane.isError ? .error : .normal)
      y += 1
    }
  }
}

extension State.Mode {
  /// The modes drawn over the whole body (no month panel beside them).
  var coversTheBody: Bool {
    switch self {
    case .help, .output, .results: true
    default: false
    }
  }
}

/// The appointments of every day that match a search (`/`, then tab), one selected.
enum ResultsView {
  /// The body rows for results (the heading takes one).
  static func visibleRows(_ size: Screen.Size) -> Int { max(1, size.rows - 3) }

  static func draw(
    _ results: State.SearchResults,
    environment: Environment,
    in area: Views.Area,
    into screen: inout Screen
  ) {
    let count = results.items.count
    let more = count >= State.searchLimit ? " (the first \(State.searchLimit))" : ""
    let heading = "  \(count) match\(count == 1 ? "" : "es") for \"\(results.query)\" on every day\(more)"
    screen.put(heading, row: area.rows.lowerBound, column: 0, width: area.width, style: .accent)
    let rows = max(1, area.rows.count - 1)
    // The selected one stays on screen: the list scrolls by pages around it.
    let first = (results.selected / rows) * rows
    var y = area.rows.lowerBound + 1
    for index in first..<min(count, first + rows) {
      let appointment = results.items[index]
      let formatter = environment.formatter
      var line =
        "  \(formatter.day(appointment.start))  \(formatter.timeRange(appointment))  "
        + TextSafety.escapingControls(appointment.title)
      if appointment.recurrence != nil { line += "  [repeats]" }
      if appointment.isCancelled { line += "  [cancelled]" }
      let style: Screen.Style = index == results.selected ? .selected : appointment.isCancelled ? .dim : .normal
      if index == results.selected { screen.fill(row: y, column: 0, count: area.width, style: .selected) }
      screen.put(line, row: y, column: 0, width: area.width, style: style)
      y += 1
    }
  }
}
