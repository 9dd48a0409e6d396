import ApptCore
import Foundation

/// The week view (`w`): the span's seven days as columns on a time grid, hour labels on the
/// left, whole-day appointments in a row on top, overlapping ones side by side, today's
/// column and the now line marked, the selected appointment highlighted. The grid shows the
/// working hours (08:00-18:00) when they fit and scrolls to keep the selection on screen.
enum WeekView {
  /// Narrower than this, the calendar shows the day view (and says why).
  static let minimumColumns = 50
  /// From this width the month panel stays beside the week; narrower, the week takes it.
  static let monthPanelColumns = 120
  static let workStart = 8
  static let workEnd = 18

  /// Whether the week view is drawn at this size (else the day view stands in).
  static func fits(_ size: Screen.Size) -> Bool { size.columns >= minimumColumns }

  /// An appointment's place in a day column: its rows (grid slots) and its lane of `lanes`.
  struct Block: Equatable {
    var appointment: Appointment
    var slots: Range<Int>
    var lane = 0
    var lanes = 1
  }

  /// The minutes of wall-clock time from `day`'s midnight to `date` (0 before the day, 1440
  /// after it): on a day with a daylight-saving change the hours stay in their rows.
  static func wallMinutes(_ date: Date, day: Date, end: Date, calendar: Calendar) -> Double {
    if date <= day { return 0 }
    if date >= end { return 1440 }
    let time = calendar.dateComponents([.hour, .minute, .second], from: date)
    return Double((time.hour ?? 0) * 60 + (time.minute ?? 0)) + Double(time.second ?? 0) / 60
  }

  /// The slot range `appointment` takes of the day from `day` to `end` (`slotMinutes` each).
  static func slots(
    of appointment: Appointment,
    day: Date,
    end: Date,
    slotMinutes: Int,
    calendar: Calendar
  ) -> Range<Int> {
    let time = State.WallTime(
      from: wallMinutes(appointment.start, day: day, end: end, calendar: calendar),
      to: wallMinutes(appointment.end, day: day, end: end, calendar: calendar)
    )
    return slots(of: time, slotMinutes: slotMinutes)
  }

  /// The slot range of the wall-clock minutes `time` takes of its day (`slotMinutes` each).
  static func slots(of time: State.WallTime, slotMinutes: Int) -> Range<Int> {
    let count = 1440 / slotMinutes
    let first = min(count - 1, max(0, Int(time.from) / slotMinutes))
    let last = max(first + 1, min(count, Int((time.to / Double(slotMinutes)).rounded(.up))))
    return first..<last
  }

  /// The timed appointments of a day as blocks, overlapping ones in lanes side by side (each
  /// group of overlapping ones shares its lane count), as many lanes as they need.
  static func blocks(_ items: [Appointment], day: Date, end: Date, slotMinutes: Int, calendar: Calendar) -> [Block] {
    let ranges = items.map { slots(of: $0, day: day, end: end, slotMinutes: slotMinutes, calendar: calendar) }
    return place(ranges, lanes: .max).placed.map {
      Block(appointment: items[$0.item], slots: $0.slots, lane: $0.lane, lanes: $0.lanes)
    }
  }

  /// Where one of a day's timed appointments goes: its index in the day's list, its slots,
  /// and its lane of `lanes`.
  struct Placement: Equatable {
    var item: Int
    var slots: Range<Int>
    var lane = 0
    var lanes = 1
  }

  /// Lanes for the slot ranges of a day's appointments (in display order), at most
  /// `maximum` lanes side by side: a group of overlapping ones that needs more has its first
  /// `maximum - 1` lanes placed, and the rest (`hidden`) summed up in its last lane ("+3").
  /// First fit, in start order: a lane of the first lanes is the one it would be with no
  /// limit at all.
  static func place(_ slots: [Range<Int>], lanes maximum: Int) -> (placed: [Placement], hidden: [Placement]) {
    let order = slots.indices.sorted { (slots[$0].lowerBound, $0) < (slots[$1].lowerBound, $1) }
    var placed: [Placement] = []
    var hidden: [Placement] = []
    var group: [Placement] = []
    var overflow: [Placement] = []
    var laneEnds: [Int] = []
    var groupEnd = 0
    func close() {
      if overflow.isEmpty {
        let lanes = max(1, laneEnds.count)
        placed += group.map {
          var placement = $0
          placement.lanes = lanes
          return placement
        }
      } else {
        // The last lane sums up the ones that do not fit.
        for var placement in group {
          placement.lanes = maximum
          if placement.lane == maximum - 1 { hidden.append(placement) } else { placed.append(placement) }
        }
        hidden += overflow
      }
      group = []
      overflow = []
      laneEnds = []
    }
    for item in order {
      var placement = Placement(item: item, slots: slots[item])
      if placement.slots.lowerBound >= groupEnd { close() }
      groupEnd = max(groupEnd, placement.slots.upperBound)
      if let lane = laneEnds.firstIndex(where: { $0 <= placement.slots.lowerBound }) {
        placement.lane = lane
        laneEnds[lane] = placement.slots.upperBound
      } else if laneEnds.count < maximum {
        placement.lane = laneEnds.count
        laneEnds.append(placement.slots.upperBound)
      } else {
        placement.lanes = maximum
        placement.lane = maximum
        overflow.append(placement)
        continue
      }
      group.append(placement)
    }
    close()
    return (placed, hidden.sorted { ($0.slots.lowerBound, $0.item) < ($1.slots.lowerBound, $1.item) })
  }

  /// The narrowest a lane is drawn: a character and the gap to the next lane.
  static let minimumLaneWidth = 2

  /// Where a day's group of overlapping appointments needs more lanes than its column has:
  /// at a slot shown, how many are not drawn there, the first of them (what a click on the
  /// "+N" chooses) and whether the selected one is among them.
  struct Summary: Equatable {
    var slot: Int
    var count: Int
    var first: Appointment
    var hasSelection: Bool
  }

  static let weekdayNames = ["Mon", "Tue", "Wed", "Thu", "Fri", "Sat", "Sun"]

  /// Where everything of the week goes in `area`: what `draw` draws and a click hits.
  struct Layout {
    var days: [Date]
    var left: Int
    var labelWidth: Int
    var columnWidth: Int
    var wide: Bool
    /// The day headers' row.
    var headerRow: Int
    /// The whole days' row, when any day of the week has one.
    var allDayRow: Int?
    /// The first row of the time grid, and the grid slots shown from it down.
    var gridTop: Int
    var rowsPerHour: Int
    var shownSlots: Range<Int>
    /// Each day's timed appointments shown as blocks (those some of which is on screen),
    /// and each day's appointments (`shown(on:)`).
    var blocks: [[Block]]
    var perDay: [[Appointment]]
    /// Each day's "+N" of the ones its column has no lane for, at the slots shown.
    var summaries: [[Summary]]
    /// Whether each day has appointments above or below the slots shown.
    var moreAbove: [Bool]
    var moreBelow: [Bool]
    /// The most lanes a group of overlapping ones takes side by side in a column.
    var maximumLanes: Int {
      max(1, (columnWidth - 1) / WeekView.minimumLaneWidth)
    }

    var slotMinutes: Int { 60 / rowsPerHour }
    func columnX(_ index: Int) -> Int { left + labelWidth + index * columnWidth }

    /// The screen row of a grid slot.
    func row(ofSlot slot: Int) -> Int { gridTop + slot - shownSlots.lowerBound }

    /// Where a block goes across its day's column: its lane's first column and width.
    func lane(of block: Block, day index: Int) -> (x: Int, width: Int) {
      let inner = columnWidth - 1
      let laneWidth = max(1, inner / block.lanes)
      let x = columnX(index) + 1 + block.lane * laneWidth
      return (x, block.lane == block.lanes - 1 ? inner - block.lane * laneWidth : laneWidth)
    }

    /// Where a day's summary ("+N") goes across its column: its last lane.
    func summaryLane(day index: Int) -> (x: Int, width: Int) {
      let inner = columnWidth - 1
      let lanes = maximumLanes
      let laneWidth = max(1, inner / lanes)
      let x = columnX(index) + 1 + (lanes - 1) * laneWidth
      return (x, inner - (lanes - 1) * laneWidth)
    }

    /// The day (its index) whose column holds screen `column`, if any.
    func dayIndex(at column: Int) -> Int? {
      guard column >= columnX(0) else { return nil }
      let index = (column - columnX(0)) / columnWidth
      return days.indices.contains(index) ? index : nil
    }

    /// What a click at (`row`, `column`) chooses: a day, and the appointment under it (a
    /// block of the grid, or the whole day shown on top), if any.
    func hit(row: Int, column: Int, selectedID: AppointmentID?) -> (day: Date, appointment: Appointment?)? {
      guard let index = dayIndex(at: column) else { return nil }
      let day = days[index]
      if row == headerRow { return (day, nil) }
      if row == allDayRow {
        let whole = perDay[index].filter(\.isAllDay)
        return (day, whole.first { $0.id == selectedID } ?? whole.first)
      }
      guard row >= gridTop, row < gridTop + shownSlots.count else { return nil }
      let slot = shownSlots.lowerBound + row - gridTop
      let block = blocks[index].first { block in
        let place = lane(of: block, day: index)
        return block.slots.contains(slot) && (place.x..<(place.x + place.width)).contains(column)
      }
      if let block { return (day, block.appointment) }
      let place = summaryLane(day: index)
      if (place.x..<(place.x + place.width)).contains(column),
        let summary = summaries[index].first(where: { $0.slot == slot })
      {
        return (day, summary.first)
      }
      return (day, nil)
    }
  }

  /// The hour label of `hour`: `09:00` (narrow `09`), or `9:00am` (`9a`) with 12-hour times.
  static func hourLabel(_ hour: Int, wide: Bool, twelveHours: Bool) -> String {
    if twelveHours {
      let shown = "\(hour % 12 == 0 ? 12 : hour % 12)"
      return shown + (wide ? (hour < 12 ? ":00am" : ":00pm") : (hour < 12 ? "a" : "p"))
    }
    return (hour < 10 ? "0\(hour)" : "\(hour)") + (wide ? ":00" : "")
  }

  /// The week's layout in `area`; nil when there is no span, too few rows, or (until the
  /// week's snapshot comes) nothing but the headers to place.
  static func layout(_ state: State, environment: Environment, in area: Views.Area) -> Layout? {
    guard let span = state.span, area.rows.count >= 3 else { return nil }
    let wide = area.width >= 80
    let twelveHours = environment.settings.ui.timeFormat.value == .hours12
    let labelWidth =
      (0..<24).map { TextWidth.of(hourLabel($0, wide: wide, twelveHours: twelveHours)) }.max()
      .map { $0 + 1 } ?? 6
    let days = Array(span.days)
    var layout = Layout(
      days: days,
      left: area.columns.lowerBound,
      labelWidth: labelWidth,
      columnWidth: max(3, (area.width - labelWidth) / 7),
      wide: wide,
      headerRow: area.rows.lowerBound,
      allDayRow: nil,
      gridTop: area.rows.lowerBound + 1,
      rowsPerHour: 1,
      shownSlots: 0..<0,
      blocks: days.map { _ in [] },
      perDay: days.map { _ in [] },
      summaries: days.map { _ in [] },
      moreAbove: days.map { _ in false },
      moreBelow: days.map { _ in false }
    )
    guard state.isLoaded else { return layout }
    let bottom = area.rows.upperBound
    layout.perDay = days.map { state.shown(on: $0) }
    if layout.perDay.contains(where: { $0.contains(where: \.isAllDay) }), layout.gridTop < bottom {
      layout.allDayRow = layout.gridTop
      layout.gridTop += 1
    }
    let height = bottom - layout.gridTop
    guard height > 0 else { return layout }
    // An hour takes 1, 2 or 3 rows (20 minutes each) as the height allows: the working hours
    // fit in each, and the evening too where the rows are.
    let rowsPerHour = height >= 36 ? 3 : height >= 2 * (workEnd - workStart) ? 2 : 1
    layout.rowsPerHour = rowsPerHour
    let slotCount = 24 * rowsPerHour
    // Each day's timed ones in lanes (as many side by side as the column has room for), from
    // the minutes the span's index keeps: no calendar asked, no text looked at.
    let maximumLanes = layout.maximumLanes
    let slotMinutes = layout.slotMinutes
    let placements = days.map { day in
      let items = state.shown(on: day)
      let times = state.wallTimes(on: day)
      let timed = items.indices.filter { !items[$0].isAllDay && times.indices.contains($0) }
      let (placed, hidden) = place(timed.map { slots(of: times[$0], slotMinutes: slotMinutes) }, lanes: maximumLanes)
      func original(_ placement: Placement) -> Placement {
        var placement = placement
        placement.item = timed[placement.item]
        return placement
      }
      return (placed: placed.map(original), hidden: hidden.map(original))
    }
    var first = max(0, min(workStart * rowsPerHour, slotCount - height))
    if let dayIndex = days.firstIndex(of: state.selectedDay), let selectedID = state.selectedID {
      let items = layout.perDay[dayIndex]
      let day = placements[dayIndex]
      let isSelected = { (placement: Placement) in items[placement.item].id == selectedID }
      if let selected = day.placed.first(where: isSelected) ?? day.hidden.first(where: isSelected) {
        if selected.slots.lowerBound < first { first = selected.slots.lowerBound }
        if selected.slots.upperBound > first + height {
          first = min(selected.slots.lowerBound, selected.slots.upperBound - height)
        }
        first = max(0, min(first, slotCount - height))
      }
    }
    let shownSlots = first..<min(slotCount, first + height)
    layout.shownSlots = shownSlots
    for (index, day) in placements.enumerated() {
      let items = layout.perDay[index]
      let isAbove = { (placement: Placement) in placement.slots.lowerBound < shownSlots.lowerBound }
      let isBelow = { (placement: Placement) in placement.slots.upperBound > shownSlots.upperBound }
      layout.moreAbove[index] = day.placed.contains(where: isAbove) || day.hidden.contains(where: isAbove)
      layout.moreBelow[index] = day.placed.contains(where: isBelow) || day.hidden.contains(where: isBelow)
      layout.blocks[index] = day.placed.filter { $0.slots.overlaps(shownSlots) }.map {
        Block(appointment: items[$0.item], slots: $0.slots, lane: $0.lane, lanes: $0.lanes)
      }
      guard !day.hidden.isEmpty else { continue }
      // The ones without a lane, counted at each slot shown (in start order: the first is
      // the earliest).
      var counts = Array(repeating: 0, count: shownSlots.count)
      var firsts = Array(repeating: -1, count: shownSlots.count)
      var selections = Array(repeating: false, count: shownSlots.count)
      let selectedHere = days[index] == state.selectedDay ? state.selectedID : nil
      for placement in day.hidden {
        let isSelected = selectedHere != nil && items[placement.item].id == selectedHere
        for slot in placement.slots.clamped(to: shownSlots) {
          let row = slot - shownSlots.lowerBound
          counts[row] += 1
          if firsts[row] < 0 { firsts[row] = placement.item }
          if isSelected { selections[row] = true }
        }
      }
      layout.summaries[index] = counts.indices.filter { counts[$0] > 0 }.map { row in
        Summary(
          slot: shownSlots.lowerBound + row,
          count: counts[row],
          first: items[firsts[row]],
          hasSelection: selections[row]
        )
      }
    }
    return layout
  }

  static func draw(_ state: State, environment: Environment, in area: Views.Area, into screen: inout Screen) {
    guard let span = state.span, let layout = layout(state, environment: environment, in: area) else { return }
    let clock = environment.clock
    let formatter = environment.formatter
    let x0 = layout.left
    let labelWidth = layout.labelWidth
    let columnWidth = layout.columnWidth
    let days = layout.days
    let today = clock.startOfDay(state.now)
    let twelveHours = environment.settings.ui.timeFormat.value == .hours12
    func columnX(_ index: Int) -> Int { layout.columnX(index) }

    // Day headers: "Mon 30" (narrow: "Mo30"); the selected day inverted, today marked.
    for (index, day) in days.enumerated() {
      let number = clock.calendar.component(.day, from: day)
      let weekday = ((clock.dayNumber(of: day) + 3) % 7 + 7) % 7
      let name = weekdayNames[weekday]
      var text = columnWidth >= 8 ? " \(name) \(number)" : " \(name.prefix(2))\(number)"
      if day == today, columnWidth >= 11 { text += " •" }
      let style: Screen.Style = day == state.selectedDay ? .selected : day == today ? .today : .accent
      screen.fill(row: layout.headerRow, column: columnX(index), count: columnWidth, style: style)
      screen.put(text, row: layout.headerRow, column: columnX(index), width: columnWidth, style: style)
    }
    guard state.isLoaded else {
      screen.put("  Loading…", row: layout.gridTop, column: x0, width: area.width, style: .dim)
      return
    }
    let perDay = layout.perDay
    let selectedID = state.selectedID
    func isSelected(_ appointment: Appointment, _ day: Date) -> Bool {
      day == state.selectedDay && appointment.id == selectedID
    }
    func style(_ appointment: Appointment, _ day: Date) -> Screen.Style {
      isSelected(appointment, day) ? .selected : appointment.isCancelled ? .dim : .marked
    }
    func label(_ appointment: Appointment) -> String {
      (appointment.isCancelled ? "✗ " : "") + (state.isInConflict(appointment) ? "≠ " : "")
        + TextWidth.head(appointment.title, columns: area.width).text
        + Views.alarmMarker(appointment)
    }

    // Whole days, in a row on top (when there are any): the selected one, else the first.
    if let y = layout.allDayRow {
      screen.put(labelWidth > 7 ? "all day" : "all", row: y, column: x0, width: labelWidth - 1, style: .dim)
      for (index, items) in perDay.enumerated() {
        let whole = items.filter(\.isAllDay)
        guard !whole.isEmpty else { continue }
        let shown = whole.first { isSelected($0, days[index]) } ?? whole[0]
        let more = whole.count > 1 ? " +\(whole.count - 1)" : ""
        let width = columnWidth - 1
        let moreWidth = TextWidth.of(more)
        screen.fill(row: y, column: columnX(index) + 1, count: width, style: style(shown, days[index]))
        screen.put(
          label(shown),
          row: y,
          column: columnX(index) + 1,
          width: max(1, width - moreWidth),
          style: style(shown, days[index])
        )
        if !more.isEmpty, width > moreWidth {
          screen.put(more, row: y, column: columnX(index) + 1 + width - moreWidth, style: .dim)
        }
      }
    }

    // The time grid.
    let shownSlots = layout.shownSlots
    guard !shownSlots.isEmpty else { return }
    let rowsPerHour = layout.rowsPerHour
    let slotMinutes = layout.slotMinutes
    let blocks = layout.blocks

    // Hour labels (narrow: every other hour) and the column rules.
    for slot in shownSlots {
      let row = layout.row(ofSlot: slot)
      let hour = slot / rowsPerHour
      if slot % rowsPerHour == 0, layout.wide || hour % 2 == 0 {
        screen.put(
          hourLabel(hour, wide: layout.wide, twelveHours: twelveHours),
          row: row,
          column: x0,
          width: labelWidth - 1,
          style: .dim
        )
      }
      for index in days.indices {
        screen.put(slot % rowsPerHour == 0 ? "┆" : "│", row: row, column: columnX(index), style: .dim)
      }
    }
    // The now line, across today's column under its appointments. It starts after the
    // column's rule, so the rule (and the hour it marks) stays whole whatever the time.
    if let todayIndex = days.firstIndex(of: today) {
      let end = span.end(of: today) ?? today
      let slot = Int(wallMinutes(state.now, day: today, end: end, calendar: clock.calendar)) / slotMinutes
      if shownSlots.contains(slot) {
        screen.put(
          String(repeating: "─", count: columnWidth - 1),
          row: layout.row(ofSlot: slot),
          column: columnX(todayIndex) + 1,
          style: .accent
        )
      }
    }
    // The appointments: each a block in its lane, its title wrapped down the block.
    for (index, dayBlocks) in blocks.enumerated() {
      for block in dayBlocks {
        let (x, width) = layout.lane(of: block, day: index)
        let visible = block.slots.clamped(to: shownSlots)
        guard !visible.isEmpty, width > 0 else { continue }
        let blockStyle = style(block.appointment, days[index])
        let time = formatter.time(block.appointment.start)
        // With several calendars, the block starts with its calendar's marker.
        let calendar = state.marksCalendars && width >= 4 ? state.calendar(of: block.appointment) : nil
        let text =
          (calendar == nil ? "" : "▪ ")
          + (width >= 14 ? "\(time) \(label(block.appointment))" : label(block.appointment))
        // Side by side, a lane keeps its last column as a gap from the next one.
        let textWidth = block.lanes > 1 && width > 2 ? width - 1 : width
        let pieces = FormView.errorLines(text, width: textWidth)
        for (offset, slot) in visible.enumerated() {
          let row = layout.row(ofSlot: slot)
          screen.fill(row: row, column: x, count: width, style: blockStyle)
          // The rows of a block wrap its text; the last row shows the rest, cut with "…".
          let piece =
            offset == visible.count - 1
            ? pieces.dropFirst(offset).joined(separator: " ") : pieces.dropFirst(offset).first ?? ""
          if !piece.isEmpty { screen.put(piece, row: row, column: x, width: textWidth, style: blockStyle) }
        }
        if let calendar {
          screen.put(
            String(calendar.letter),
            row: layout.row(ofSlot: visible.lowerBound),
            column: x,
            style: .calendar(calendar.colorIndex)
          )
        }
      }
      // The ones without a lane, counted in the last lane of each row they take ("+3").
      let summaryLane = layout.summaryLane(day: index)
      for summary in layout.summaries[index] where summaryLane.width > 0 {
        let row = layout.row(ofSlot: summary.slot)
        let summaryStyle: Screen.Style = summary.hasSelection ? .selected : .dim
        screen.fill(row: row, column: summaryLane.x, count: summaryLane.width, style: summaryStyle)
        screen.put("+\(summary.count)", row: row, column: summaryLane.x, width: summaryLane.width, style: summaryStyle)
      }
      // More of the day above or below what shows.
      let lastRow = layout.row(ofSlot: shownSlots.upperBound - 1)
      if layout.moreAbove[index] {
        screen.put("▲", row: layout.gridTop, column: columnX(index) + columnWidth - 1, style: .dim)
      }
      if layout.moreBelow[index] {
        screen.put("▼", row: lastRow, column: columnX(index) + columnWidth - 1, style: .dim)
      }
    }
  }
}

extension State.Mode {
  /// The modes drawn instead of the day (or week) view.
  var hidesTheDay: Bool {
    switch self {
    case .form, .help, .calendars, .output, .results: true
    default: false
    }
  }
}
