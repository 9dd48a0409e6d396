import ApptCore
import Foundation

@DatabaseActor
extension AppointmentDAO {
  /// The most rows a window is patched with; more, and the window's query runs again.
  nonisolated static let patchLimit = 16

  /// `items`, the window of `query` before our own write, brought up to date with the rows
  /// it changed (`rows`), as the window's query would now read it: each changed row leaves
  /// the window, and comes back, in display order, if it is still in it. Nil, and the
  /// query runs, unless the write changed only plain one-offs (no series, occurrence or
  /// override, before or after: those bring other rows with them) of a window that has no
  /// search, alarm filter or limit.
  ///
  /// What it costs: one read of the changed rows by id and of the calendars, instead of the
  /// whole window (1,100 rows a day at 1M), and no sort.
  static func patch(
    _ items: [Appointment],
    of query: AppointmentQuery,
    with rows: ChangedRows,
    in connection: any Connection
  ) throws(StoreError) -> [Appointment]? {
    guard let range = query.range, query.search == nil, !query.withAlarmsOnly, query.limit == nil,
      let keys = rows.only(Appointment.table.name, among: [Appointment.table.name, "calendar"]),
      !keys.isEmpty, keys.count <= patchLimit
    else { return nil }
    let ids = Set(keys.compactMap(AppointmentID.init(string:)))
    guard ids.count == keys.count else { return nil }
    if items.contains(where: { ids.contains($0.id) && !$0.isPlainOneOff }) { return nil }
    let placeholders = Array(repeating: "?", count: keys.count).joined(separator: ", ")
    let current = try DatabaseQuery<Appointment>(
      where: "id IN (\(placeholders))",
      bindings: keys.sorted().map { .text($0) },
      order: "id"
    ).fetch(connection)
    guard current.allSatisfy(\.isPlainOneOff) else { return nil }
    let calendars = try calendarFilter(names: query.calendars, onlyShown: query.onlyShownCalendars, in: connection)
      .map(Set.init)
    var patched = items.filter { !ids.contains($0.id) }
    for row in current
    where (query.includeCancelled || row.status == .scheduled)
      && row.overlaps(from: range.start, to: range.end)
      && calendars?.contains(row.calendarID) ?? true
    {
      patched.insert(row, at: patched.displayIndex(of: row))
    }
    return patched
  }
}

extension Appointment {
  /// Neither a series, an occurrence of one, nor an override: a row that is all it is.
  var isPlainOneOff: Bool { recurrence == nil && occurrence == nil && override == nil }
}

extension [Appointment] {
  /// Where `item` goes in these items, sorted in display order (`Appointment.displayOrder`,
  /// as windows are): after every item that precedes it.
  func displayIndex(of item: Appointment) -> Int {
    var low = startIndex
    var high = endIndex
    while low < high {
      let middle = (low + high) / 2
      if Appointment.displayOrder(self[middle], item) { low = middle + 1 } else { high = middle }
    }
    return low
  }
}
