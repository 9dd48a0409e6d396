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

  /// The days the list has (those with appointments, and the selected one), with their
  /// appointments: from the span's index, each day a header and its lines.
  static func listedDays(_ state: State) -> [(day: Date, items: [Appointment])] {
    guard let span = state.span else { return [] }
    return span.days.compactMap { day in
      let shown = state.shown(on: day)
      return !shown.isEmpty || day == state.selectedDay ? (day, shown) : nil
    }
  }

  /// The lines of the list, with the appointments of each day.
  static func lines(_ state: State) -> (lines: [Line], items: [Date: [Appointment]]) {
    let days = listedDays(state)
    return (
      days.flatMap { [.day($0.day)] + lines(of: $0.day, $0.items) },
      Dictionary(days.map { ($0.day, $0.items) }, uniquingKeysWith: { a, _ in a })
    )
  }

  /// A day's lines under its header: its appointments, or "nothing".
  static func lines(of day: Date, _ items: [Appointment], in range: Range<Int>? = nil) -> [Line] {
    guard !items.isEmpty else { return (range ?? 0..<1).contains(0) ? [.nothing] : [] }
    return (range?.clamped(to: items.indices) ?? items.indices).map { .appointment(day, $0) }
  }

  /// The lines that fit `height` rows, from the first one shown: the selected line stays on
  /// screen, its day's header too where there is room. What `draw` draws and a click hits.
  /// Only the lines shown are made (a day of the agenda can have a thousand).
  static func shownLines(_ state: State, height: Int) -> (lines: ArraySlice<Line>, items: [Date: [Appointment]]) {
    let days = listedDays(state)
    let items = Dictionary(days.map { ($0.day, $0.items) }, uniquingKeysWith: { a, _ in a })
    // Where each day's header is in the whole list, and how many lines there are.
    var headers: [Int] = []
    var total = 0
    for day in days {
      headers.append(total)
      total += 1 + max(1, day.items.count)
    }
    let selected = days.firstIndex { $0.day == state.selectedDay }
    var selectedLine = 0
    var header: Int?
    if let selected {
      header = headers[selected]
      let position = state.selectedID.flatMap { id in days[selected].items.firstIndex { $0.id == id } }
      selectedLine = headers[selected] + (position.map { 1 + $0 } ?? 0)
    }
    var first = max(0, min(selectedLine - height + 1, total - height))
    if let header, header < first, selectedLine - header < height { first = header }
    let last = min(total, first + max(0, height))
    var shown: [Line] = []
    for (index, day) in days.enumerated() where headers[index] < last {
      let top = headers[index]
      let bottom = top + 1 + max(1, day.items.count)
      guard bottom > first else { continue }
      if top >= first { shown.append(.day(day.day)) }
      // The day's lines from `top + 1`: those of them inside first..<last.
      let range = (max(first, top + 1) - top - 1)..<(min(last, bottom) - top - 1)
      shown += lines(of: day.day, day.items, in: range)
    }
    return (shown[...], items)
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
        if state.isInConflict(appointment) { text += Views.conflictMarker }
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
