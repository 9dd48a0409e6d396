import ApptCore
import Foundation

/// Draws a state into a screen. Pure: the same state and environment give the same screen.
///
/// Layout, widest first: header | month panel, agenda and detail pane | status line.
/// Narrower terminals drop the month panel, then the detail pane; below `minimumSize` the
/// screen says "terminal too small" instead of drawing a garbled layout.
public enum Views {
  public static let minimumSize = Screen.Size(rows: 5, columns: 20)
  /// The month panel needs this many columns in all (it takes 23, the agenda the rest).
  static let monthPanelMinimumColumns = 64
  static let monthPanelWidth = 23
  /// The detail pane needs this many body rows (it takes 6 of them).
  static let detailMinimumRows = 14

  public static func render(_ state: State, environment: Environment) -> Screen {
    var screen = Screen(size: state.size)
    guard state.size.rows >= minimumSize.rows, state.size.columns >= minimumSize.columns else {
      screen.put("terminal too small", row: 0, column: 0)
      return screen
    }
    let layout = Layout(size: state.size)
    drawHeader(state, environment: environment, into: &screen)
    if let panel = layout.month, state.mode != .help {
      MonthView.draw(state, environment: environment, in: panel, into: &screen)
    }
    switch state.mode {
    case .form(let form):
      FormView.draw(form, state: state, environment: environment, in: layout.agenda, into: &screen)
    case .help:
      HelpView.draw(environment.keyMap, in: layout.body, into: &screen)
    case .calendars(let index):
      CalendarListView.draw(state.calendars, selected: index, in: layout.agenda, into: &screen)
    default:
      AgendaView.draw(state, environment: environment, in: layout.agenda, into: &screen)
      if let detail = layout.detail {
        AgendaView.drawDetail(
          state.selectedAppointment,
          seriesTitle: AgendaView.seriesTitle(of: state.selectedAppointment, state: state),
          calendar: state.selectedAppointment.flatMap(state.calendar(of:)),
          environment: environment,
          in: detail,
          into: &screen
        )
      }
    }
    drawStatusLine(state, environment: environment, into: &screen)
    return screen
  }

  /// A rectangle of the screen.
  struct Area {
    var rows: Range<Int>
    var columns: Range<Int>
    var width: Int { columns.count }
  }

  /// Where each panel goes at a given size.
  struct Layout {
    let body: Area
    let month: Area?
    let agenda: Area
    let detail: Area?

    init(size: Screen.Size) {
      body = Area(rows: 1..<(size.rows - 1), columns: 0..<size.columns)
      let hasMonth = size.columns >= Views.monthPanelMinimumColumns && body.rows.count >= 9
      month = hasMonth ? Area(rows: body.rows, columns: 0..<Views.monthPanelWidth) : nil
      let agendaColumns = hasMonth ? (Views.monthPanelWidth + 1)..<size.columns : body.columns
      if body.rows.count >= Views.detailMinimumRows {
        let split = body.rows.upperBound - 6
        agenda = Area(rows: body.rows.lowerBound..<split, columns: agendaColumns)
        detail = Area(rows: split..<body.rows.upperBound, columns: agendaColumns)
      } else {
        agenda = Area(rows: body.rows, columns: agendaColumns)
        detail = nil
      }
    }
  }

  // MARK: - Header

  private static func drawHeader(_ state: State, environment: Environment, into screen: inout Screen) {
    screen.fill(row: 0, style: .header)
    var title =
      " appt  \(environment.formatter.format(state.selectedDay, as: environment.settings.ui.dateFormat.value))"
    if state.selectedDay == environment.clock.startOfDay(state.now) { title += "  (today)" }
    if !state.filter.isEmpty { title += "  filter: \(state.filter)" }
    if !state.showsCancelled { title += "  cancelled hidden" }
    screen.put(title, row: 0, column: 0, style: .header)
    guard state.isLoaded else { return }
    let count = state.visible.count
    let summary = count == 1 ? "1 appointment " : "\(count) appointments "
    let column = state.size.columns - TextWidth.of(summary)
    if column > TextWidth.of(title) + 1 { screen.put(summary, row: 0, column: column, style: .header) }
  }

  // MARK: - Status line

  private static func drawStatusLine(_ state: State, environment: Environment, into screen: inout Screen) {
    let row = state.size.rows - 1
    var (text, style) = statusLine(state, environment: environment)
    screen.fill(row: row, style: style)
    // How the background sync went, at the right end: beside a message when it fits, and
    // over the end of the key hints (which are always there to read again).
    let sync = syncText(state, environment: environment)
    let column = state.size.columns - TextWidth.of(sync ?? "") - 1
    // Whole hints are dropped from the end ("? help  q quit" go first) until it fits.
    while sync != nil, state.status == nil, TextWidth.of(text) + 2 > column,
      let cut = text.range(of: "  ", options: .backwards), cut.lowerBound > text.startIndex
    {
      text = String(text[..<cut.lowerBound])
    }
    screen.put(text, row: row, column: 0, style: style)
    if let sync, column > TextWidth.of(text) + 1 { screen.put(sync, row: row, column: column, style: style) }
  }

  /// The background sync's words for the status line (Sync.swift), while browsing.
  static func syncText(_ state: State, environment: Environment) -> String? {
    guard case .browsing = state.mode else { return nil }
    return state.sync?.statusText(environment.formatter)
  }

  static func statusLine(_ state: State, environment: Environment) -> (String, Screen.Style) {
    let columns = state.size.columns
    switch state.mode {
    case .confirm(.cancel(let appointment)):
      let what = appointment.occurrence == nil ? "" : "this occurrence of "
      let title = TextWidth.head(appointment.title, columns: columns).text
      return (" Cancel \(what)\"\(title)\" at \(environment.formatter.timeRange(appointment))? (y/n)", .accent)
    case .chooseScope(let question):
      let verb = question.purpose == .edit ? "Edit" : "Cancel"
      let title = TextWidth.head(question.occurrence.title, columns: columns).text
      return (
        " \(verb) \"\(title)\": o this occurrence, f this and following, s the whole series, esc neither", .accent
      )
    case .confirm(.delete(let appointment)) where appointment.override?.seriesID != nil:
      let title = TextWidth.head(appointment.title, columns: columns).text
      return (" Delete the changes to \"\(title)\" (its series gets the occurrence back)? (y/n)", .accent)
    case .confirm(.delete(let appointment)):
      let what = appointment.recurrence == nil ? "" : "the whole series "
      return (" Delete \(what)\"\(TextWidth.head(appointment.title, columns: columns).text)\" for good? (y/n)", .accent)
    case .search(let field):
      return (" /" + FormView.visibleText(of: field, width: lineFieldWidth(state.size)), .status)
    case .command(let field):
      return (" :" + FormView.visibleText(of: field, width: lineFieldWidth(state.size)), .status)
    case .help:
      return (" any key closes the help", .status)
    case .calendars where state.status == nil:
      return (" j/k choose  space show/hide  esc close", .status)
    case .form(let form) where form.isSaving:
      return (" Saving…", .status)
    default:
      if let problem = state.storeInterruption, state.status?.isError != true {
        return (" " + problem.statusText, .error)
      }
      if let status = state.status { return (" " + status.text, status.isError ? .error : .status) }
      if case .form = state.mode { return (" enter save  tab next field  esc discard  ctrl+u clear field", .status) }
      return (" " + hints(environment.keyMap), .status)
    }
  }

  /// The main keys, read from the key map so the hints can never disagree with it.
  static func hints(_ keyMap: KeyMap) -> String {
    let groups: [([Action], String)] = [
      ([.nextAppointment, .previousAppointment], "move"), ([.previousDay, .nextDay], "day"),
      ([.addAppointment], "add"), ([.editAppointment], "edit"), ([.cancelAppointment], "cancel"),
      ([.undo], "undo"), ([.search], "search"), ([.help], "help"), ([.quit], "quit"),
    ]
    return groups.map { actions, word in
      let keys = actions.compactMap { action in keyMap.bindings.first { $0.action == action }?.keys.first?.description }
      return "\(keys.joined(separator: "/")) \(word)"
    }.joined(separator: "  ")
  }

  // MARK: - Cursor

  /// The columns the `/` and `:` lines show of what is typed (after " /"); a longer text
  /// scrolls with the cursor, as a form field does.
  static func lineFieldWidth(_ size: Screen.Size) -> Int { max(1, size.columns - 3) }

  /// Where the terminal should put its cursor (row, column) while text is being edited.
  public static func cursorPosition(_ state: State) -> (row: Int, column: Int)? {
    guard state.size.rows >= minimumSize.rows, state.size.columns >= minimumSize.columns else { return nil }
    switch state.mode {
    case .search(let field), .command(let field):
      let start = FormView.scrollOffset(of: field, width: lineFieldWidth(state.size))
      let column = 2 + TextWidth.of(String(field.characters[start..<field.cursor]))
      return column < state.size.columns ? (state.size.rows - 1, column) : nil
    case .form(let form):
      return FormView.cursorPosition(form, in: Layout(size: state.size).agenda)
    default:
      return nil
    }
  }
}
