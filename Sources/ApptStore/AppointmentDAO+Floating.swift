import ApptCore
import Foundation

// Floating events: RFC 5545's DATE-TIME without a zone, the same wall-clock time wherever one
// is (a phone's "09:00" written without a zone). appt keeps each as the instant of that time
// in one zone, its `timeZone`, so windows, reminders and sorting work on instants like every
// other event; a process in another zone moves them to its own when it opens the store.

@DatabaseActor
extension AppointmentDAO {
  /// Moves the floating events kept in another zone to the clock's: each keeps its
  /// wall-clock times (09:00 in Tokyo as in New York), its id, revision and everything else,
  /// and writes back as the same iCalendar text (so a sync sends nothing). One indexed query
  /// when there is nothing to move, the usual case; a read-only store is left as it is (its
  /// floating events show at their instants). An event whose text would not come back the
  /// same is left where it is. Returns how many rows moved.
  @discardableResult
  public func followClockZone() throws(StoreError) -> Int {
    guard !database.configuration.readOnly else { return 0 }
    let zone = clock.timeZone
    let now = clock.now
    let condition = Self.floatingElsewhere
    let binding = [SQLValue.text(zone.identifier)]
    let stale = try database.read { connection throws(StoreError) in
      try connection.scalar("SELECT 1 FROM appointment WHERE \(condition) LIMIT 1", binding) != nil
    }
    guard stale else { return 0 }
    do {
      return try moveFloating(where: condition, binding, to: zone, now: now)
    } catch .readOnly {
      return 0  // a file this process may not write: shown at their instants
    }
  }

  /// The floating rows kept in another zone than the one bound (read from their own index).
  nonisolated static let floatingElsewhere = "\(Schema.isFloating) AND time_zone <> ?"

  private func moveFloating(where condition: String, _ binding: [SQLValue], to zone: TimeZone, now: Date)
    throws(StoreError) -> Int
  {
    try database.write { connection throws(StoreError) in
      let rows = try DatabaseQuery<Appointment>(where: condition, bindings: binding, order: "id").fetch(connection)
      var seen: Set<AppointmentID> = []
      var moved = 0
      for row in rows where !seen.contains(row.id) {
        guard let item = try Self.item(of: row, fallbackZone: zone, in: connection) else { continue }
        seen.formUnion(item.rows.map(\.id))
        guard let refloated = Self.refloated(item, to: zone, now: now) else { continue }
        for row in refloated { try Appointment.upsert(row, in: connection) }
        moved += refloated.count
      }
      return moved
    }
  }

  /// The whole item (a series with its overrides) `row` belongs to.
  private static func item(of row: Appointment, fallbackZone: TimeZone, in connection: any Connection)
    throws(StoreError) -> LocalItem?
  {
    var master = row
    if let seriesID = row.override?.seriesID,
      let series = try DatabaseService.find(Appointment.self, id: seriesID, in: connection)
    {
      master = series
    }
    let key = syncKey(of: master, masters: [:])
    return try localItem(calendarID: row.calendarID, uid: key, fallbackZone: fallbackZone, in: connection)
  }

  /// `item`'s rows with their floating times read in `zone`: its iCalendar text read again
  /// there, the rows keeping what is appt's own (id, revision, calendar, a missing uid).
  /// Nil unless the rows come back one for one and write the same text.
  nonisolated static func refloated(_ item: LocalItem, to zone: TimeZone, now: Date) -> [Appointment]? {
    let read = ICalendar.read(item.ics, clock: .fixed(now, timeZone: zone), limits: .server)
    guard read.problems.isEmpty else { return nil }
    // In the item's order: the master first, then the overrides by RECURRENCE-ID.
    let again =
      read.appointments.filter { $0.override == nil }
      + read.appointments.filter { $0.override != nil }.sorted {
        ($0.override?.recurrenceID ?? $0.start) < ($1.override?.recurrenceID ?? $1.start)
      }
    guard again.count == item.rows.count else { return nil }
    let masterID = item.rows.first { $0.override == nil }?.id
    let rows = zip(item.rows, again).map { old, new in
      var row = new
      row.id = old.id
      row.revision = old.revision
      row.calendarID = old.calendarID
      row.uid = old.uid
      row.created = old.created
      row.updated = old.updated
      if row.override != nil { row.override?.seriesID = old.override?.seriesID ?? masterID }
      return row
    }
    guard ICalendar.write(rows, fallbackZone: zone) == item.ics else { return nil }
    return rows
  }
}
