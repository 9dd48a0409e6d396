import ApptCore
import Foundation

@DatabaseActor
extension AppointmentDAO {
  /// After a change moved a series' start (`stored` is the series before it): its changed and
  /// cancelled occurrences move with it (`SeriesShift`), as RFC 5545 keys them by their
  /// occurrence's original start. The exceptions move when the change left them as they were
  /// (an undo that puts an older version back brings its own); each override's RECURRENCE-ID
  /// moves, and so does its start when the occurrence kept its time (a moved one stays
  /// where the user put it). Called before the series is written.
  static func moveOccurrences(
    of series: inout Appointment,
    from stored: Appointment,
    fallbackZone: TimeZone,
    at now: Date,
    in connection: any Connection
  ) throws(StoreError) {
    guard let shift = SeriesShift(from: stored, to: series, fallbackZone: fallbackZone) else { return }
    if series.exceptions == stored.exceptions {
      series.exceptions = stored.exceptions.map(shift.moved).sorted()
    }
    // Latest first when moving later (earliest first when earlier): no override passes over
    // one not moved yet, whose (uid, RECURRENCE-ID) is unique.
    let order = shift.civilSeconds > 0 ? "recurrence_ms DESC, id" : "recurrence_ms, id"
    let overrides = try DatabaseQuery<Appointment>(
      where: "series_id = ?",
      bindings: [.text(series.id.description)],
      order: order
    ).fetch(connection)
    for var row in overrides {
      guard var override = row.override else { continue }
      let original = override.recurrenceID
      override.recurrenceID = shift.moved(original)
      row.override = override
      if row.start == original {
        let duration = row.end.timeIntervalSince(row.start)
        row.start = override.recurrenceID
        row.end = row.start.addingTimeInterval(duration)
      }
      row.updated = now
      row.revision += 1
      try Appointment.upsert(row, in: connection)
    }
  }
}
