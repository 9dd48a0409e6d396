import ApptCore
import Foundation

/// The agenda view (`A`): the days of the span (the next `State.agendaDays` from the day it
/// was opened on) as one scrolling list, a header line per day that has appointments (and
/// the selected day, even without). j/k move across the days.
enum AgendaListView {
  /// One line of the list.
  enum Line: Equatable {
    case day(Date)
    case nothing
    /// An appointment of a day (its index in that day's list).
    case appointment(Date, Int)
  }

  /// Moves the selection `offset` (±1) past the selected day's first or last appointment to
  /// the nearest day of the span with appointments; nil when the move stays in the day.
  static func step(_ offset: Int, state: inout State, environment: Environment) -> [Effect]? {
    guard let span = state.span else { return nil }
    let list = state.visible
    if let index = state.selectedIndex, list.indices.contains(index + offset) { return nil }
    if state.selectedIndex == nil, !list.isEmpty { return nil }
    let later = offset > 0
    let candidates = later ? span.days.filter { $0 > state.selectedDay } : span.days.filter { $0 < state.selectedDay }
    let ordered = later ? candidates : candidates.reversed()
    for day in ordered {
      let items = state.shown(on: day)
      guard let target = later ? items.first : items.last else { continue }
      let effects = state.selectDay(day, environment: environment)
      state.selectedID = target.id
      return effects
    }
    return []  // the first or last of the span: stay
  }

  /// The lines of the list, with the appointments of each day.
  static func lines(_ state: State) -> (lines: [Line], items: [Date: [Appointment]]) {
    guard let span = state.span else { return ([], [:]) }
    var lines: [Line] = []
    var items: [Date: [Appointment]] = [:]
    for day in span.days {
      let shown = state.shown(on: day)
      guard !shown.isEmpty || day == state.selectedDay else { continue }
      items[day] = shown
      lines.append(.day(day))
      lines += shown.isEmpty ? [.nothing] : shown.indices.map { .appointment(day, $0) }
    }
    return (lines, items)
  }

  /// The lines that fit `height` rows, from the first one shown: the selected line stays on
  /// screen, its day's header too where there is room. What `draw` draws and a click hits.
  static func shownLines(_ state: State, height: Int) -> (lines: ArraySlice<Line>, items: [Date: [Appointment]]) {
    let (lines, items) = lines(state)
    let selectedID = state.selectedID
    let selectedLine =
      lines.firstIndex {
        if case .appointment(let day, let index) = $0 {
          day == state.selectedDay && items[day]?[index].id == selectedID
        } else {
          false
        }
      } ?? lines.firstIndex(of: .day(state.selectedDay)) ?? 0
    var first = max(0, min(selectedLine - height + 1, lines.count - height))
    if let header = lines[..<min(selectedLine + 1, lines.count)].lastIndex(where: {
      if case .day = $0 { true } else { false }
    }),
      header < first, selectedLine - header < height
    {
      first = header
    }
    return (lines.dropFirst(first).prefix(height), items)
  }

  /// What a click on screen `row` chooses: a day (its header, or "nothing on this day"),
  /// and the appointment on that line, if any.
  static func hit(row: Int, _ state: State, in area: Views.Area) -> (day: Date, appointment: Appointment?)? {
    guard state.isLoaded, area.rows.contains(row) else { return nil }
    let (lines, items) = shownLines(state, height: area.rows.count)
    let index = lines.startIndex + row - area.rows.lowerBound
    guard lines.indices.contains(index) else { return nil }
    switch lines[index] {
    case .day(let day): return (day, nil)
    case .nothing:
      // The line under the header of the day it belongs to.
      guard index > lines.startIndex, case .day(let day) = lines[index - 1] else { return nil }
      return (day, nil)
    case .appointment(let day, let position): return (day, items[day]?[position])
    }
  }

  static func draw(_ state: State, environment: Environment, in area: Views.Area, into screen: inout Screen) {
    let x = area.columns.lowerBound
    let top = area.rows.lowerBound
    guard state.isLoaded else {
      screen.put("  Loading…", row: top + 1, column: x, width: area.width, style: .dim)
      return
    }
    let height = area.rows.upperBound - top
    guard height > 0 else { return }
    let (shown, items) = shownLines(state, height: height)
    let selectedID = state.selectedID
    let today = environment.clock.startOfDay(state.now)
    let formatter = environment.formatter
    let calendars =
      state.marksCalendars ? Dictionary(state.calendars.map { ($0.id, $0) }, uniquingKeysWith: { a, _ in a }) : [:]
    for (offset, line) in shown.enumerated() {
      let y = top + offset
      switch line {
      case .day(let day):
        var text = " " + formatter.longDay(day)
        if day == today { text += "  (today)" }
        screen.put(text, row: y, column: x, width: area.width, style: day == today ? .today : .accent)
      case .nothing:
        let add = environment.keyMap.bindings.first { $0.action == .addAppointment }?.keys.first?.description ?? "a"
        screen.put("    Nothing on this day (\(add) adds)", row: y, column: x, width: area.width, style: .dim)
      case .appointment(let day, let index):
        guard let appointment = items[day]?[index] else { continue }
        let isSelected = day == state.selectedDay && appointment.id == selectedID
        let style: Screen.Style = isSelected ? .selected : (appointment.isCancelled ? .dim : .normal)
        if isSelected { screen.fill(row: y, column: x, count: area.width, style: .selected) }
        let title = TextWidth.head(appointment.title, columns: area.width).text
        var text = "  \(calendars.isEmpty ? "" : "  ")\(formatter.timeRange(appointment))  \(title)"
        if appointment.recurrence != nil { text += " ↻" }
        if appointment.override != nil { text += " ✎" }
        text += Views.alarmMarker(appointment)
        if appointment.isCancelled { text += "  (cancelled)" }
        screen.put(text, row: y, column: x, width: area.width, style: style)
        if let calendar = calendars[appointment.calendarID], area.width > 3 {
          screen.put(String(calendar.letter), row: y, column: x + 2, style: .calendar(calendar.colorIndex))
        }
      }
    }
    if items.values.allSatisfy(\.isEmpty), height > 2 {
      let text = "  Nothing in the next \(State.agendaDays) days."
      screen.put(text, row: top + 2, column: x, width: area.width, style: .dim)
    }
  }
}
