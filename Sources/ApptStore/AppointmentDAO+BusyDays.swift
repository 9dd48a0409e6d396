import ApptCore
import Foundation

/// A local day (`Clock.dayNumber`) that at least one scheduled appointment touches: a mark of
/// the month panel.
public struct BusyDay: Identifiable, Hashable, Sendable {
  public let id: Int

  public init(id: Int) {
    self.id = id
  }
}

@DatabaseActor
extension AppointmentDAO {
  /// The days of `range` that scheduled appointments touch (the month panel's marks), live:
  /// a new snapshot after each commit that changes them. With `onlyShownCalendars`, hidden
  /// calendars' appointments do not mark a day.
  ///
  /// A summary, refreshed after every window a commit concerns (`ObservationPriority`), so the
  /// day on screen never waits for it.
  public func observeBusyDays(
    in range: DateInterval,
    onlyShownCalendars: Bool = false
  ) -> AsyncStream<CollectionSnapshot<BusyDay>> {
    let clock = self.clock
    return database.observe(
      tables: [Appointment.table.name, "calendar"],
      key: \.id,
      priority: .summary
    ) { connection throws(StoreError) in
      try Self.busyDays(in: range, clock: clock, onlyShownCalendars: onlyShownCalendars, connection: connection)
    }
  }

  /// Which local days of `range` scheduled appointments touch, from the start index: a day
  /// is asked whether one row begins in it, and only then whether one that began before it
  /// reaches into it (each an EXISTS that stops at the first row: the cost is one probe a
  /// day, not the month's rows). Series are expanded only for the days no row marked,
  /// which in a busy store are none. A day is touched as `Appointment.touches` says: by
  /// what begins in it, and by what began before it and ends after it begins.
  static func busyDays(
    in range: DateInterval,
    clock: Clock,
    onlyShownCalendars: Bool = false,
    connection: any Connection
  ) throws(StoreError) -> [BusyDay] {
    // What every appointment counted must be: scheduled, and in a calendar shown.
    var conditions = ["status = 'scheduled'"]
    var filterBindings: [SQLValue] = []
    if let ids = try calendarFilter(names: nil, onlyShown: onlyShownCalendars, in: connection) {
      let filter = calendarCondition(ids)
      conditions.append(filter.condition)
      filterBindings += filter.bindings
    }
    let rowCondition = (conditions + [isOneOff, seriesNotCancelled]).joined(separator: " AND ")
    // One statement for the whole range, each day a row of its VALUES (the text depends
    // only on the number of days, so the connection's statement cache keeps it, and its one
    // copy of the conditions keeps it quick to prepare): the days a row begins in, or else
    // one that began before it (by at most the longest appointment) reaches into.
    let days = LocalDays(range, clock: clock)
    guard !days.isEmpty else { return [] }
    let longest = try longestDuration(connection)
    let values = Array(repeating: "(CAST(? AS BIGINT), CAST(? AS BIGINT), CAST(? AS BIGINT))", count: days.bounds.count)
    let sql = """
      WITH range_day(n, day_start, day_end) AS (VALUES \(values.joined(separator: ", ")))
      SELECT n FROM range_day WHERE EXISTS (SELECT 1 FROM appointment WHERE start_ms >= day_start
      AND start_ms < day_end AND \(rowCondition)) OR EXISTS (SELECT 1 FROM appointment
      WHERE start_ms >= day_start - ? AND start_ms < day_start AND end_ms > day_start AND \(rowCondition))
      """
    var bindings = [SQLValue]()
    for (index, day) in days.bounds.enumerated() {
      bindings += [
        .integer(Int64(index)), .integer(day.start.millisecondsSince1970), .integer(day.end.millisecondsSince1970),
      ]
    }
    bindings += filterBindings + [.integer(longest)] + filterBindings
    var marked = Array(repeating: false, count: days.bounds.count)
    try connection.query(sql, bindings) { row throws(StoreError) in marked[Int(row.int64(at: 0))] = true }
    // The days no row touched: the series that reach them, expanded over the span between
    // the first and the last of them.
    if let first = marked.firstIndex(of: false), let last = marked.lastIndex(of: false) {
      let span = DateInterval(start: days.bounds[first].start, end: days.bounds[last].end)
      let occurrences = try seriesOccurrences(
        in: span,
        conditions: conditions,
        bindings: filterBindings,
        includeCancelled: false,
        longest: longest,
        fallbackZone: clock.timeZone,
        connection: connection
      )
      for occurrence in occurrences {
        for index in first...last where !marked[index] && occurrence.touches(days.bounds[index]) {
          marked[index] = true
        }
      }
    }
    return marked.indices.filter { marked[$0] }.map { BusyDay(id: days.firstNumber + $0) }
  }
}

/// The local days a range covers, each with its bounds in the clock's zone (a day of 23 or
/// 25 hours where the clocks change), numbered as `Clock.dayNumber` numbers them.
struct LocalDays {
  let firstNumber: Int
  let bounds: [DateInterval]

  init(_ range: DateInterval, clock: Clock) {
    firstNumber = clock.dayNumber(of: range.start)
    var bounds: [DateInterval] = []
    var start = clock.startOfDay(range.start)
    while start < range.end {
      let end = clock.day(1, after: start)
      guard end > start else { break }
      bounds.append(DateInterval(start: max(start, range.start), end: min(end, range.end)))
      start = end
    }
    self.bounds = bounds
  }

  var isEmpty: Bool { bounds.isEmpty }
}

extension Appointment {
  /// Whether it touches `interval` (a day), as windows list: `overlaps`.
  func touches(_ interval: DateInterval) -> Bool {
    overlaps(from: interval.start, to: interval.end)
  }
}
