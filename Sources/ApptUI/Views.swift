import ApptCore
import Foundation

/// Draws a state into a screen. Pure: the same state and environment give the same screen.
public enum Views {
  /// Smaller than this, the calendar says so instead of drawing a garbled layout.
  public static let minimumSize = Screen.Size(rows: 5, columns: 20)

  public static func render(_ state: State, environment: Environment) -> Screen {
    var screen = Screen(size: state.size)
    guard state.size.rows >= minimumSize.rows, state.size.columns >= minimumSize.columns else {
      screen.put("terminal too small", row: 0, column: 0)
      return screen
    }
    drawHeader(state, environment: environment, into: &screen)
    let body = 1..<(state.size.rows - 1)
    switch state.mode {
    case .browsing, .confirmCancel:
      drawAgenda(state, environment: environment, rows: body, into: &screen)
    case .form(let form):
      drawForm(form, state: state, environment: environment, rows: body, into: &screen)
    }
    drawStatusLine(state, environment: environment, into: &screen)
    return screen
  }

  // MARK: - Header

  private static func drawHeader(_ state: State, environment: Environment, into screen: inout Screen) {
    screen.fill(row: 0, style: .header)
    var title = " appt  \(environment.formatter.longDay(state.selectedDay))"
    if state.selectedDay == environment.clock.today { title += "  (today)" }
    screen.put(title, row: 0, column: 0, style: .header)
    guard state.isLoaded else { return }
    let count = state.appointments.count
    let summary = count == 1 ? "1 appointment " : "\(count) appointments "
    let column = state.size.columns - TextWidth.of(summary)
    if column > TextWidth.of(title) + 1 { screen.put(summary, row: 0, column: column, style: .header) }
  }

  // MARK: - Agenda

  private static func drawAgenda(_ state: State, environment: Environment, rows: Range<Int>, into screen: inout Screen)
  {
    guard state.isLoaded else {
      screen.put("  Loading…", row: rows.lowerBound + 1, column: 0, style: .dim)
      return
    }
    guard !state.appointments.isEmpty else {
      screen.put(
        "  Nothing on this day. Press a to add an appointment.",
        row: rows.lowerBound + 1,
        column: 0,
        style: .dim
      )
      return
    }
    let visible = rows.count - 1  // one blank row under the header
    let selected = state.selectedIndex ?? 0
    let first = max(0, min(selected - visible + 1, state.appointments.count - visible))
    for (offset, index) in (first..<min(state.appointments.count, first + visible)).enumerated() {
      let row = rows.lowerBound + 1 + offset
      let appointment = state.appointments[index]
      let isSelected = index == state.selectedIndex
      let style: Screen.Style = isSelected ? .selected : (appointment.isCancelled ? .dim : .normal)
      if isSelected { screen.fill(row: row, style: .selected) }
      var line = "  \(environment.formatter.timeRange(appointment))  \(appointment.title)"
      if appointment.isCancelled { line += "  (cancelled)" }
      screen.put(line, row: row, column: 0, style: style)
    }
  }

  // MARK: - Form

  private static func drawForm(
    _ form: Form,
    state: State,
    environment: Environment,
    rows: Range<Int>,
    into screen: inout Screen
  ) {
    var row = rows.lowerBound + 1
    screen.put("  New appointment", row: row, column: 0, style: .accent)
    row += 2
    let labelWidth = 12
    let fieldWidth = max(1, min(60, state.size.columns - labelWidth - 4))
    for field in Form.Field.allCases where row < rows.upperBound {
      let focused = field == form.focus
      screen.put("  \(field.label)", row: row, column: 0, style: focused ? .accent : .normal)
      screen.fill(row: row, column: labelWidth, count: fieldWidth, style: focused ? .focusedField : .field)
      screen.put(
        visibleText(of: form[field], width: fieldWidth),
        row: row,
        column: labelWidth,
        style: focused ? .focusedField : .field
      )
      row += 1
      if let error = form.errors[field], row < rows.upperBound {
        screen.put(error, row: row, column: labelWidth, style: .error)
        row += 1
      }
    }
    row += 1
    if row < rows.upperBound, let meaning = form.interpretation(environment: environment) {
      screen.put("  → \(meaning)", row: row, column: 0, style: .accent)
    }
  }

  /// The part of a field that fits, scrolled so the cursor stays visible.
  private static func visibleText(of field: TextField, width: Int) -> String {
    let characters = field.characters
    var start = 0
    while TextWidth.of(String(characters[start..<field.cursor])) >= width { start += 1 }
    return String(characters[start...])
  }

  /// Where the terminal should put its cursor (row, column), when a field is being edited.
  public static func cursorPosition(_ state: State) -> (row: Int, column: Int)? {
    guard case .form(let form) = state.mode,
      state.size.rows >= minimumSize.rows, state.size.columns >= minimumSize.columns
    else { return nil }
    var row = 4
    for field in Form.Field.allCases {
      if field == form.focus { break }
      row += form.errors[field] == nil ? 1 : 2
    }
    guard row < state.size.rows - 1 else { return nil }
    let fieldWidth = max(1, min(60, state.size.columns - 12 - 4))
    let text = form[form.focus]
    var start = 0
    while TextWidth.of(String(text.characters[start..<text.cursor])) >= fieldWidth { start += 1 }
    return (row, 12 + TextWidth.of(String(text.characters[start..<text.cursor])))
  }

  // MARK: - Status line

  private static func drawStatusLine(_ state: State, environment: Environment, into screen: inout Screen) {
    let row = state.size.rows - 1
    screen.fill(row: row, style: .status)
    let text: String
    var style = Screen.Style.status
    switch state.mode {
    case .confirmCancel(let appointment):
      text = " Cancel \"\(appointment.title)\" at \(environment.formatter.timeRange(appointment))? (y/n)"
      style = .accent
    case .form(let form) where form.isSaving:
      text = " Saving…"
    case _ where state.status != nil:
      text = " " + (state.status?.text ?? "")
      if state.status?.isError == true { style = .error }
    case .form:
      text = " enter save  tab next field  esc discard  ctrl+u clear field"
    case .browsing:
      text = " " + hints(environment.keyMap)
    }
    if style != .status { screen.fill(row: row, style: style) }
    screen.put(text, row: row, column: 0, style: style)
  }

  /// The main keys, read from the key map so the hints can never disagree with it.
  static func hints(_ keyMap: KeyMap) -> String {
    let groups: [([Action], String)] = [
      ([.nextAppointment, .previousAppointment], "move"), ([.previousDay, .nextDay], "day"), ([.today], "today"),
      ([.addAppointment], "add"), ([.cancelAppointment], "cancel"), ([.quit], "quit"),
    ]
    return groups.map { actions, word in
      let keys = actions.compactMap { action in keyMap.bindings.first { $0.action == action }?.keys.first?.description }
      return "\(keys.joined(separator: "/")) \(word)"
    }.joined(separator: "  ")
  }
}
