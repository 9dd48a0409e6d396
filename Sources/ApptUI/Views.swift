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
    let weekTakesBody = showsWeek(state) && state.size.columns < WeekView.monthPanelColumns
    if let panel = layout.month, !state.mode.coversTheBody, !weekTakesBody || state.mode.hidesTheDay {
      MonthView.draw(state, environment: environment, in: panel, into: &screen)
    }
    switch state.mode {
    case .form(let form):
      FormView.draw(form, state: state, environment: environment, in: layout.agenda, into: &screen)
    case .help:
      HelpView.draw(environment.keyMap, scroll: state.helpScroll, in: layout.body, into: &screen)
    case .calendars(let index):
      CalendarListView.draw(state.calendars, selected: index, in: layout.agenda, into: &screen)
    case .output(let pane):
      OutputView.draw(pane, in: layout.body, into: &screen)
    case .results(let results):
      ResultsView.draw(results, environment: environment, in: layout.body, into: &screen)
    default:
      let columns = dayArea(state, layout).columns
      if showsWeek(state) {
        WeekView.draw(state, environment: environment, in: dayArea(state, layout), into: &screen)
      } else if state.view == .agenda {
        AgendaListView.draw(state, environment: environment, in: layout.agenda, into: &screen)
      } else {
        AgendaView.draw(state, environment: environment, in: layout.agenda, into: &screen)
      }
      if var detail = layout.detail {
        detail.columns = columns
        AgendaView.drawDetail(
          state.selectedAppointment,
          seriesTitle: AgendaView.seriesTitle(of: state.selectedAppointment, state: state),
          calendar: state.selectedAppointment.flatMap(state.calendar(of:)),
          inConflict: state.selectedAppointment.map(state.isInConflict) ?? false,
          environment: environment,
          in: detail,
          into: &screen
        )
      }
    }
    drawStatusLine(state, environment: environment, into: &screen)
    return screen
  }

  /// Where the day's (or week's, or agenda's) view goes: the agenda's area, except that the
  /// week takes the month panel's columns too below 120 columns (the detail pane stays under
  /// it, as wide).
  static func dayArea(_ state: State, _ layout: Layout) -> Area {
    let weekTakesBody = showsWeek(state) && state.size.columns < WeekView.monthPanelColumns
    return Area(rows: layout.agenda.rows, columns: weekTakesBody ? layout.body.columns : layout.agenda.columns)
  }

  /// Whether the week view is drawn (narrower than it needs, the day view stands in).
  static func showsWeek(_ state: State) -> Bool { state.view == .week && WeekView.fits(state.size) }

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
    if state.view == .week { title += "  week" }
    if state.view == .agenda { title += "  agenda" }
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
    // The key hints make room for it, the least needed first ("? help  q quit" stay).
    if sync != nil, state.status == nil, state.storeInterruption == nil, !state.alarmIsShown,
      TextWidth.of(text) + 2 > column
    {
      text = " " + hints(environment.keyMap, width: max(0, column - 3))
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
    // A due alarm goes over whatever the line says but a question or a line being typed.
    if state.alarmIsShown { return (alarmLine(state, environment: environment), .accent) }
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
    case .search(let field) where field.characters.isEmpty:
      return (" /   enter filters this day, tab searches every day", .status)
    case .search(let field):
      return (" /" + FormView.visibleText(of: field, width: lineFieldWidth(state.size)), .status)
    case .results(let results):
      let count = results.items.count
      return (" \(results.selected + 1) of \(count)  j/k choose  enter go to its day  esc close", .status)
    case .command(let field):
      return (" :" + FormView.visibleText(of: field, width: lineFieldWidth(state.size)), .status)
    case .output(let pane):
      let shown = OutputView.visibleRows(state.size)
      let range =
        pane.lines.count > shown
        ? " (\(pane.scroll + 1)-\(min(pane.lines.count, pane.scroll + shown)) of \(pane.lines.count))" : ""
      return (" j/k scroll\(range)  esc close", .status)
    case .help:
      let lines = HelpView.lines(environment.keyMap, width: columns).count
      guard lines > HelpView.visibleRows(state.size) else { return (" any key closes the help", .status) }
      let last = min(lines, state.helpScroll + HelpView.visibleRows(state.size))
      return (" j/k scroll (\(state.helpScroll + 1)-\(last) of \(lines))  any other key closes", .status)
    case .calendars where state.status == nil:
      return (" j/k choose  space show/hide  esc close", .status)
    case .form(let form) where form.isSaving:
      return (" Saving…", .status)
    default:
      if let problem = state.storeInterruption, state.status?.isError != true {
        return (" " + problem.statusText, .error)
      }
      if let status = state.status { return (" " + status.text, status.isError ? .error : .status) }
      if case .form(let form) = state.mode {
        if !FormView.fits(form, on: state.size) { return (" esc discard", .status) }
        let hints = ["enter save", "tab next field", "esc discard", "ctrl+u clear field"]
        return (" " + fitting(hints, order: [0, 2, 1, 3], width: columns - 1), .status)
      }
      if state.view == .week, !WeekView.fits(state.size) {
        let week = environment.keyMap.keys(for: .weekView)
        return (" The week needs \(WeekView.minimumColumns) columns: the day (\(week) leaves)", .status)
      }
      return (" " + hints(environment.keyMap, width: columns - 1), .status)
    }
  }

  /// The main keys, read from the key map so the hints can never disagree with it. Where
  /// they do not all fit in `width`, the less needed go first: help and quit stay.
  static func hints(_ keyMap: KeyMap, width: Int = .max) -> String {
    let groups: [([Action], String)] = [
      ([.nextAppointment, .previousAppointment], "move"), ([.previousDay, .nextDay], "day"),
      ([.addAppointment], "add"), ([.editAppointment], "edit"), ([.cancelAppointment], "cancel"),
      ([.undo], "undo"), ([.search], "search"), ([.help], "help"), ([.quit], "quit"),
    ]
    let hints = groups.map { actions, word in
      let keys = actions.compactMap { action in keyMap.bindings.first { $0.action == action }?.keys.first?.description }
      return "\(keys.joined(separator: "/")) \(word)"
    }
    // help, quit, add, edit, move, day, cancel, undo, search
    return fitting(hints, order: [7, 8, 2, 3, 0, 1, 4, 5, 6], width: width)
  }

  /// As many of `hints` as fit in `width` columns, two spaces apart, taken in `order` of
  /// need and shown in their own order.
  static func fitting(_ hints: [String], order: [Int], width: Int) -> String {
    var kept: Set<Int> = []
    var used = 0
    for index in order {
      let cost = TextWidth.of(hints[index]) + (kept.isEmpty ? 0 : 2)
      guard used + cost <= width else { continue }
      kept.insert(index)
      used += cost
    }
    return hints.indices.filter(kept.contains).map { hints[$0] }.joined(separator: "  ")
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
