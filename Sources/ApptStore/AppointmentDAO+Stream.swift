import ApptCore
import Foundation

/// What the reader of a stream of appointments says after each chunk.
public enum StreamControl: Sendable, Equatable {
  /// Send the next chunk.
  case more
  /// Stop reading the store: the output is gone (`appt list | head -1`) or has enough.
  case stop
}

@DatabaseActor
extension AppointmentDAO {
  /// The most appointments a stream hands over at once.
  public static let streamChunkSize = 512
  /// A window whose series give at most this many chunks of occurrences (by their pace) is
  /// expanded in one slice (decided at its start). Each slice expands every series alive in it from its own start,
  /// so a week of the calendar model (5,873 series reaching it) cut into slices of one chunk
  /// was 20 slices, 418 ms against 160 ms whole (release); a long window (an endless series
  /// from 1970 to 9999) is still cut into slices of one chunk, so memory stays flat.
  nonisolated static let wholeWindowChunks = 32

  /// The window of `query` in display order, as `appointments(matching:)` has it, handed to
  /// `deliver` in chunks of at most `chunkSize` as it is read, in one read transaction: the
  /// one-offs from a cursor, the series' occurrences expanded a slice of time at a time. The
  /// memory held is a few chunks, however long the window; `deliver` returning `.stop`
  /// ends the reading there.
  public func streamAppointments(
    matching query: AppointmentQuery,
    chunkSize: Int = AppointmentDAO.streamChunkSize,
    _ deliver: @Sendable ([Appointment]) -> StreamControl
  ) throws(StoreError) {
    try database.read { connection throws(StoreError) in
      _ = try stream(query, chunkSize: chunkSize, in: connection) { chunk throws(StoreError) in deliver(chunk) }
    }
  }

  /// The one window reader (`fetch`, `streamAppointments`): see `streamAppointments`.
  /// Returns the most appointments it held at once (a chunk, the pending one-offs and the
  /// series' current slice), what the tests bound.
  @discardableResult
  func stream(
    _ query: AppointmentQuery,
    chunkSize: Int,
    boundedSlices: Bool = true,
    in connection: any Connection,
    _ deliver: ([Appointment]) throws(StoreError) -> StreamControl
  ) throws(StoreError) -> Int {
    var conditions: [String] = []
    var bindings: [SQLValue] = []
    // Whether every condition names only columns `appointment_window` holds.
    var windowIndexHoldsConditions = !query.withAlarmsOnly
    if !query.includeCancelled {
      conditions.append("status = 'scheduled'")
    }
    if let search = query.search.map(TextSearch.init), !search.isEmpty {
      // What `TextSearch.matches` says, on the keys each write stores (`databaseValues`).
      conditions.append("(instr(title_folded, ?) > 0 OR instr(note_folded, ?) > 0 OR instr(location_folded, ?) > 0)")
      bindings += [.text(search.key), .text(search.key), .text(search.key)]
      windowIndexHoldsConditions = false
    }
    // The calendars, resolved to ids once: one condition on the row, never a subquery.
    if let ids = try Self.calendarFilter(names: query.calendars, onlyShown: query.onlyShownCalendars, in: connection) {
      let filter = Self.calendarCondition(ids)
      conditions.append(filter.condition)
      bindings += filter.bindings
      windowIndexHoldsConditions = false
    }
    var oneOffConditions = conditions + (query.includeCancelled ? [] : [Self.seriesNotCancelled])
    var seriesConditions = conditions
    if query.withAlarmsOnly {
      // The one-offs through the alarms' partial index (bounded by the window); the series
      // through appointment_series (the window's weeks), the count a filter on their rows:
      // `+` keeps the planner off the alarms index, which would read every row with alarms
      // that starts before the window.
      oneOffConditions.append(Self.carriesAlarms)
      seriesConditions.append(Self.seriesCarryAlarms)
    }
    var output = ChunkedOutput(chunkSize: max(1, chunkSize), limit: query.limit, markCancelled: query.includeCancelled)
    guard let range = query.range else {
      // `list --all`: every row once, as stored, in the store's order.
      let rows = DatabaseQuery<Appointment>(
        where: oneOffConditions.isEmpty ? "TRUE" : oneOffConditions.joined(separator: " AND "),
        bindings: bindings,
        order: Self.displayOrder,
        limit: query.limit
      )
      try connection.stream(rows.sql, rows.bindings, batch: output.chunkSize) { row throws(StoreError) in
        try output.append(try Appointment(row: row), connection, deliver)
      }
      try output.finish(connection, deliver)
      return output.peak
    }
    let from = range.start.millisecondsSince1970
    let to = range.end.millisecondsSince1970
    let longest = try Self.longestDuration(connection)
    let lineOnly = query.detail == .listLine
    let series = try SeriesSlices(
      range: range,
      conditions: seriesConditions,
      bindings: bindings,
      includeCancelled: query.includeCancelled,
      longest: longest,
      fallbackZone: clock.timeZone,
      sliceSize: boundedSlices ? output.chunkSize : nil,
      lineOnly: lineOnly,
      connection: connection
    )
    let singles = Self.oneOffs(
      from: from - longest,
      to: to,
      endingAfter: from,
      conditions: oneOffConditions,
      bindings: bindings,
      limit: query.limit,
      lineOnly: lineOnly,
      fromWindowIndex: lineOnly && windowIndexHoldsConditions
    )
    var merge = WindowMerge(output: output, series: series, end: range.end)
    try connection.stream(singles.sql, singles.bindings, batch: output.chunkSize) { row throws(StoreError) in
      try merge.add(lineOnly ? try Appointment(lineRow: row) : try Appointment(row: row), connection, deliver)
    }
    try merge.finish(connection, deliver)
    return merge.output.peak
  }

  /// The window's one-offs (and overrides): starting in `[from, to)` and ending after
  /// `endingAfter`, in start order. With `lineOnly`, the columns a `list` line shows
  /// (`Appointment.lineColumns`); with `fromWindowIndex` (which the caller says only when
  /// `conditions` name nothing else `appointment_window` lacks) `lineTerm` too, which lets the
  /// planner use that index: SQLite then reads it alone (Schema, "window index").
  static func oneOffs(
    from: Int64,
    to: Int64,
    endingAfter: Int64,
    conditions: [String],
    bindings: [SQLValue],
    limit: Int?,
    lineOnly: Bool,
    fromWindowIndex: Bool
  ) -> (sql: String, bindings: [SQLValue]) {
    // A moment (no length) at the window's start is in it: it starts there.
    let window = "start_ms >= ? AND start_ms < ? AND (end_ms > ? OR start_ms >= ?) AND \(isOneOff)"
    let query = DatabaseQuery<Appointment>(
      where: ([window] + (fromWindowIndex ? [lineTerm] : []) + conditions).joined(separator: " AND "),
      bindings: [.integer(from), .integer(to), .integer(endingAfter), .integer(endingAfter)] + bindings,
      // Rows sharing a start are sorted here (`WindowMerge`, with the series' occurrences), so
      // the start index's order is enough; SQLite's sorter for the rest of the display order
      // copied every row of a window. A limit needs it: it cuts in SQL.
      order: limit == nil ? "start_ms" : displayOrder,
      limit: limit
    )
    return (lineOnly ? query.sql(selecting: Appointment.lineColumns) : query.sql, query.bindings)
  }
}

/// A window's one-offs, read in start order, merged with its series' occurrences into
/// `output` in display order. A struct with mutating methods, not local functions over
/// captured variables: those were boxed, and each access to them checked for exclusivity at
/// run time (five a row).
@DatabaseActor
struct WindowMerge {
  private(set) var output: ChunkedOutput
  private var series: SeriesSlices
  /// The window's end.
  let end: Date
  /// The one-offs sharing the latest start read (`groupStart`): the next row may still sort
  /// among them. Kept with their capacity, as are `tied`, a start's rows, and `order`, their
  /// display order.
  private var group: [Appointment] = []
  private var groupStart: Date?
  private var tied: [Appointment] = []
  private var order: [Int] = []
  /// The reader wants no more: nothing else is read or handed over.
  private var stopped = false

  init(output: ChunkedOutput, series: SeriesSlices, end: Date) {
    self.output = output
    self.series = series
    self.end = end
  }

  /// Takes the next one-off (in start order); false once the reader wants no more.
  mutating func add(
    _ single: Appointment,
    _ connection: any Connection,
    _ deliver: ([Appointment]) throws(StoreError) -> StreamControl
  ) throws(StoreError) -> Bool {
    if groupStart != single.start {
      guard try advance(to: single.start, connection, deliver) else {
        stopped = true
        return false
      }
      groupStart = single.start
    }
    group.append(single)
    output.observe(held: series.held + group.count)
    return true
  }

  /// Hands over the rest: the series' occurrences after the last one-off, then the last chunk.
  mutating func finish(
    _ connection: any Connection,
    _ deliver: ([Appointment]) throws(StoreError) -> StreamControl
  ) throws(StoreError) {
    if !stopped, try advance(to: end, connection, deliver), try release(before: .distantFuture, connection, deliver) {
      try output.finish(connection, deliver)
    }
  }

  /// Hands over, in display order, everything starting before `bound`: the series'
  /// occurrences must be expanded that far already.
  private mutating func release(
    before bound: Date,
    _ connection: any Connection,
    _ deliver: ([Appointment]) throws(StoreError) -> StreamControl
  ) throws(StoreError) -> Bool {
    if let start = groupStart, start < bound {
      guard try series.release(before: start, into: &output, connection, deliver) else { return false }
      groupStart = nil
      series.take(startingAt: start, into: &tied)
      if tied.isEmpty {
        swap(&tied, &group)
      } else {
        tied += group
        group.removeAll(keepingCapacity: true)
      }
      AppointmentDAO.displayOrder(of: tied, into: &order)
      for index in order {
        guard try output.append(tied[index], connection, deliver) else { return false }
      }
      tied.removeAll(keepingCapacity: true)
    }
    return try series.release(before: bound, into: &output, connection, deliver)
  }

  /// Expands the series up to `bound` (the next one-off's start: none to come starts
  /// earlier), handing over all that precedes it.
  private mutating func advance(
    to bound: Date,
    _ connection: any Connection,
    _ deliver: ([Appointment]) throws(StoreError) -> StreamControl
  ) throws(StoreError) -> Bool {
    while series.expanded <= bound, series.expanded < end {
      series.expandNextSlice()
      output.observe(held: series.held + group.count)
      guard try release(before: min(series.expanded, bound), connection, deliver) else { return false }
    }
    return try release(before: bound, connection, deliver)
  }
}

/// The chunk being filled, handed over when full; counts what a limit allows.
struct ChunkedOutput {
  let chunkSize: Int
  var remaining: Int?
  let markCancelled: Bool
  var chunk: [Appointment] = []
  var stopped = false
  /// The most appointments held at once, besides the chunk (`observe`), plus the chunk.
  private(set) var peak = 0
  private var heldElsewhere = 0

  init(chunkSize: Int, limit: Int?, markCancelled: Bool) {
    self.chunkSize = chunkSize
    remaining = limit
    self.markCancelled = markCancelled
    chunk.reserveCapacity(chunkSize)
  }

  mutating func observe(held: Int) {
    heldElsewhere = held
    peak = max(peak, held + chunk.count)
  }

  /// Adds `item`; false once the reader (or the limit) wants no more.
  @DatabaseActor
  mutating func append(
    _ item: Appointment,
    _ connection: any Connection,
    _ deliver: ([Appointment]) throws(StoreError) -> StreamControl
  ) throws(StoreError) -> Bool {
    guard !stopped else { return false }
    if let remaining, remaining <= 0 {
      stopped = true
      return false
    }
    chunk.append(item)
    peak = max(peak, heldElsewhere + chunk.count)
    remaining? -= 1
    if chunk.count >= chunkSize || remaining == 0 { try flush(connection, deliver) }
    return !stopped
  }

  @DatabaseActor
  mutating func finish(
    _ connection: any Connection,
    _ deliver: ([Appointment]) throws(StoreError) -> StreamControl
  ) throws(StoreError) {
    if !stopped, !chunk.isEmpty { try flush(connection, deliver) }
  }

  @DatabaseActor
  private mutating func flush(
    _ connection: any Connection,
    _ deliver: ([Appointment]) throws(StoreError) -> StreamControl
  ) throws(StoreError) {
    if markCancelled { try AppointmentDAO.markCancelledSeries(&chunk, connection: connection) }
    if try deliver(chunk) == .stop || remaining == 0 { stopped = true }
    chunk.removeAll(keepingCapacity: true)
  }
}

/// The series reaching a window, expanded one slice of time at a time: a slice is as long as
/// `sliceSize` occurrences take at most (nil: the whole window is one slice), by the rules' densest pace (`pace`), among the series
/// alive in it, so a slice never holds much more than a chunk however long the window is.
/// Each slice is what `Appointment.occurrences(in:)` gives for it (the window's own
/// expansion, overrides, EXDATEs and RDATEs as there), keeping the occurrences that start in
/// it (the first slice: also those starting before the window and reaching into it).
@DatabaseActor
struct SeriesSlices {
  let range: DateInterval
  let includeCancelled: Bool
  let fallbackZone: TimeZone
  let sliceSize: Int?
  /// Each series with its overrides, the span its occurrences can start in (nil end: never
  /// ends), and its densest pace in occurrences per second.
  private var series: [(value: Appointment, overrides: [Appointment], from: Date, until: Date?, pace: Double)] = []
  /// Every occurrence starting before this is expanded.
  private(set) var expanded: Date
  /// The occurrences expanded and not yet handed over, in display order, from `head`.
  private var queue: [Appointment] = []
  private var head = 0

  init(
    range: DateInterval,
    conditions: [String],
    bindings: [SQLValue],
    includeCancelled: Bool,
    longest: Int64,
    fallbackZone: TimeZone,
    sliceSize: Int?,
    lineOnly: Bool = false,
    connection: any Connection
  ) throws(StoreError) {
    self.range = range
    self.includeCancelled = includeCancelled
    self.fallbackZone = fallbackZone
    self.sliceSize = sliceSize
    expanded = range.start
    let bounds = try AppointmentDAO.overrideBounds(for: range, longest: longest, connection: connection)
    // No series on the window's days: neither the series nor their overrides are read.
    guard try SeriesWeeks.anySeries(from: bounds.lower, to: bounds.upper, connection: connection) else {
      expanded = range.end
      return
    }
    let query = Self.query(
      range: range,
      bounds: (bounds.lower, bounds.upper),
      conditions: conditions,
      bindings: bindings
    )
    // Each series with the bound its row keeps (`series_end_ms`, made when it was written):
    // worked out again here it would expand every COUNT series whole.
    let column = lineOnly ? Appointment.seriesLineEndColumn : Appointment.seriesEndColumn
    var rows: [(value: Appointment, storedEnd: Date?)] = []
    let sql = lineOnly ? query.sql(selecting: Appointment.seriesLineColumns) : query.sql
    try connection.query(sql, query.bindings) { row throws(StoreError) in
      let value = lineOnly ? try Appointment(seriesLineRow: row) : try Appointment(row: row)
      rows.append((value, row.isNull(at: column) ? nil : row.date(at: column)))
    }
    // None of the window's series matches its conditions (status, calendars, a search): no
    // override can matter, so the plain ones are not read.
    guard !rows.isEmpty else {
      expanded = range.end
      return
    }
    let overrides = try AppointmentDAO.overrides(within: bounds, connection: connection)
    for (value, storedEnd) in rows {
      guard let recurrence = value.recurrence else { continue }
      let mine = overrides[value.id] ?? []
      // A THISANDFUTURE override moves occurrences anywhere: such a series is alive throughout;
      // an RDATE may precede DTSTART.
      let moves = mine.contains { $0.override?.thisAndFuture == true }
      // Unsliced (the calendar's windows), none of this is needed: it is not computed.
      guard sliceSize != nil else {
        series.append((value, mine, .distantPast, nil, 0))
        continue
      }
      // A floating series' bound was worked out in UTC (`Appointment.seriesEnd`); in the
      // fallback zone its occurrences come at most 14 hours later.
      let until = moves ? nil : storedEnd.map { value.timeZone.isEmpty ? $0.addingTimeInterval(14 * 3600) : $0 }
      series.append(
        (
          value, mine, moves || !recurrence.dates.isEmpty ? .distantPast : value.start, until,
          Self.pace(of: recurrence)
        )
      )
    }
  }

  /// The rows of the series reaching `range` whose instances touch the days of `bounds`
  /// (`SeriesWeeks`) and that match `conditions`.
  static func query(
    range: DateInterval,
    bounds: (lower: Int64, upper: Int64),
    conditions: [String],
    bindings: [SQLValue]
  ) -> DatabaseQuery<Appointment> {
    let weeks = SeriesWeeks.condition(from: bounds.lower, to: bounds.upper)
    return DatabaseQuery<Appointment>(
      where: ([AppointmentDAO.seriesReaching, weeks.sql] + conditions).joined(separator: " AND "),
      bindings: [.integer(range.end.millisecondsSince1970), .integer(range.start.millisecondsSince1970)]
        + weeks.bindings + bindings,
      // The order `appointment_series` reads them in: each slice sorts what it expands
      // (`displaySorted`, a total order), so the rows' order only has to be stable. SQLite's
      // sorter for the display order copied every whole row of them: 4.7 -> 2.3 ms for a
      // week's 661 series at 1M in the sqlite3 CLI.
      order: "start_ms"
    )
  }

  /// How many expanded occurrences are held.
  var held: Int { queue.count - head }

  /// Every occurrence in the window, each slice in display order (`seriesOccurrences`).
  mutating func all() -> [Appointment] {
    var all: [Appointment] = []
    while expanded < range.end {
      expandNextSlice()
      all += queue[head...]
      queue.removeAll(keepingCapacity: true)
      head = 0
    }
    return all
  }

  /// Expands the next slice after `expanded`, up to the window's end at most.
  mutating func expandNextSlice() {
    let start = expanded
    // Nothing is alive until the next series starts: the slice ends there.
    let next = series.lazy.filter { $0.until.map { $0 >= start } ?? true }.map(\.from).min() ?? range.end
    if next > start {
      expanded = min(range.end, next)
      return
    }
    // The slice's length: `chunkSize` occurrences at the pace of the series alive in it
    // (found twice: a series starting within the first guess slows the second).
    var end = range.end
    let alive = series.lazy.filter { $0.until.map { $0 >= start } ?? true }
    let whole = alive.reduce(0.0) { $0 + $1.pace } * range.end.timeIntervalSince(start)
    // Decided on the first slice only: the tail of a long window stays sliced too.
    let small = start == range.start && whole <= Double((sliceSize ?? 0) * AppointmentDAO.wholeWindowChunks)
    for _ in 0..<(sliceSize == nil || small ? 0 : 2) {
      var pace = 0.0
      for item in series where item.from < end && (item.until.map { $0 >= start } ?? true) { pace += item.pace }
      guard pace > 0 else { break }
      let length = max(60, min(Double(sliceSize ?? .max) / pace, 1e12))
      end = min(end, start.addingTimeInterval(length))
    }
    if end <= start { end = min(range.end, start.addingTimeInterval(60)) }
    let first = start == range.start
    let slice = DateInterval(start: start, end: end)
    var found: [Appointment] = []
    for item in series where item.from < end && (item.until.map { $0 >= start } ?? true) {
      for occurrence in item.value.occurrences(
        in: slice,
        fallbackZone: fallbackZone,
        includeCancelled: includeCancelled,
        overrides: item.overrides
      ) where occurrence.start < end && (first || occurrence.start >= start) {
        found.append(occurrence)
      }
    }
    if head > 0 {
      queue.removeFirst(head)
      head = 0
    }
    queue += AppointmentDAO.displaySorted(found, limit: nil)
    expanded = end
  }

  /// Hands over the expanded occurrences starting before `bound`; false once the reader
  /// wants no more.
  mutating func release(
    before bound: Date,
    into output: inout ChunkedOutput,
    _ connection: any Connection,
    _ deliver: ([Appointment]) throws(StoreError) -> StreamControl
  ) throws(StoreError) -> Bool {
    while head < queue.count, queue[head].start < bound {
      let item = queue[head]
      head += 1
      guard try output.append(item, connection, deliver) else { return false }
    }
    if head == queue.count {
      queue.removeAll(keepingCapacity: true)
      head = 0
    }
    return true
  }

  /// Appends to `taken` the expanded occurrences starting at `instant` (the next ones:
  /// everything before has been handed over), to sort among one-offs starting then too.
  mutating func take(startingAt instant: Date, into taken: inout [Appointment]) {
    while head < queue.count, queue[head].start == instant {
      taken.append(queue[head])
      head += 1
    }
  }

  /// At most how many occurrences per second `recurrence` yields (a bound, not an average):
  /// each rule's most instances per interval over the interval's shortest length; RDATEs
  /// are few and stored, so they do not count.
  static func pace(of recurrence: Recurrence) -> Double {
    var pace = 0.0
    for rule in recurrence.rules {
      let times = max(1, rule.byHour.count) * max(1, rule.byMinute.count) * max(1, rule.bySecond.count)
      let noDays =
        rule.byMonth.isEmpty && rule.byWeekNo.isEmpty && rule.byYearDay.isEmpty
        && rule.byMonthDay.isEmpty && rule.byDay.isEmpty
      var perInterval: Int
      let seconds: Double
      switch rule.frequency {
      case .yearly:
        perInterval = noDays ? 1 : 366
        if !rule.byYearDay.isEmpty { perInterval = min(perInterval, rule.byYearDay.count) }
        perInterval *= times
        seconds = 365 * 86400
      case .monthly:
        perInterval = noDays ? 1 : 31
        if !rule.byMonthDay.isEmpty { perInterval = min(perInterval, rule.byMonthDay.count) }
        perInterval *= times
        seconds = 28 * 86400
      case .weekly:
        perInterval = (rule.byDay.isEmpty ? 1 : min(7, rule.byDay.count)) * times
        seconds = 7 * 86400
      case .daily:
        perInterval = times
        seconds = 86400
      case .hourly:
        perInterval = max(1, rule.byMinute.count) * max(1, rule.bySecond.count)
        seconds = 3600
      case .minutely:
        perInterval = max(1, rule.bySecond.count)
        seconds = 60
      case .secondly:
        perInterval = 1
        seconds = 1
      }
      if !rule.bySetPos.isEmpty { perInterval = min(perInterval, rule.bySetPos.count) }
      pace += Double(perInterval) / (seconds * Double(max(1, rule.interval)))
    }
    return pace
  }
}
