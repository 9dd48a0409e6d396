import ApptCore
import Foundation

/// How the reminder daemon handled one alarm instance (`alarm_fired.outcome`).
public enum AlarmOutcome: String, Sendable, Equatable, CaseIterable {
  /// Notified on time.
  case fired
  /// Notified late (the daemon was down or the machine asleep), within `remind_grace`.
  case late
  /// Not notified: it was found later than `remind_grace` after its time.
  case missed
}

/// One alarm instance handled, to record (`recordAlarms`).
public struct AlarmRecord: Sendable, Equatable {
  /// `AlarmInstance.key`.
  public var key: String
  /// The stored row's id (the series' for any of its occurrences).
  public var appointmentID: String
  public var fireAt: Date
  public var outcome: AlarmOutcome

  public init(key: String, appointmentID: String, fireAt: Date, outcome: AlarmOutcome) {
    self.key = key
    self.appointmentID = appointmentID
    self.fireAt = fireAt
    self.outcome = outcome
  }
}

/// The records of what the reminder daemon fired (schema 9, `alarm_fired`): the store's half
/// of "each alarm instance fires exactly once across restarts and crashes".
@DatabaseActor
extension AppointmentDAO {
  /// Records that the instance keyed `key` was handled (`outcome`) at `at`, before anyone is
  /// notified; false when it was recorded already (an earlier run or another daemon took it:
  /// do not notify). One INSERT whose primary key decides, on both engines.
  public func recordAlarm(
    key: String,
    appointmentID: String,
    fireAt: Date,
    outcome: AlarmOutcome,
    at: Date
  ) throws(StoreError) -> Bool {
    let record = AlarmRecord(key: key, appointmentID: appointmentID, fireAt: fireAt, outcome: outcome)
    return try recordAlarms([record], at: at).contains(key)
  }

  /// Records every instance of `records` (handled at `at`) in ONE transaction, before anyone
  /// is notified: what one wake-up of the daemon found due and missed costs one durable
  /// commit. Returns the keys recorded now; the others were recorded already (an earlier
  /// run or another daemon took them: do not notify them). All or none are recorded.
  public func recordAlarms(_ records: [AlarmRecord], at: Date) throws(StoreError) -> Set<String> {
    guard !records.isEmpty else { return [] }
    return try database.write { connection throws(StoreError) in
      var taken: Set<String> = []  // in the body: a retried transaction starts again
      for record in records {
        let inserted = try connection.run(
          """
          INSERT INTO alarm_fired (key, appointment_id, fire_at_ms, fired_ms, outcome) VALUES (?, ?, ?, ?, ?)
          ON CONFLICT (key) DO NOTHING
          """,
          [
            .text(record.key), .text(record.appointmentID), .integer(record.fireAt.millisecondsSince1970),
            .integer(at.millisecondsSince1970), .text(record.outcome.rawValue),
          ]
        )
        if inserted == 1 { taken.insert(record.key) }
      }
      return taken
    }
  }

  /// The keys of the instances recorded with a fire time at or after `from`.
  public func recordedAlarmKeys(from: Date) throws(StoreError) -> Set<String> {
    try database.read { connection throws(StoreError) in
      var keys: Set<String> = []
      try connection.query(
        "SELECT key FROM alarm_fired WHERE fire_at_ms >= ?",
        [.integer(from.millisecondsSince1970)]
      ) { row throws(StoreError) in keys.insert(row.string(at: 0)) }
      return keys
    }
  }

  /// The outcome recorded for `key`, nil when none is.
  public func recordedAlarmOutcome(key: String) throws(StoreError) -> AlarmOutcome? {
    try database.read { connection throws(StoreError) in
      try connection.scalar("SELECT outcome FROM alarm_fired WHERE key = ?", [.text(key)])?.string
        .flatMap(AlarmOutcome.init(rawValue:))
    }
  }

  /// Deletes the records of instances that fired before `before` (the daemon passes now less
  /// the grace and a day: no instance that old is looked at again); returns how many.
  @discardableResult
  public func pruneAlarmRecords(before: Date) throws(StoreError) -> Int {
    try database.write { connection throws(StoreError) in
      try connection.run(
        "DELETE FROM alarm_fired WHERE fire_at_ms < ?",
        [.integer(before.millisecondsSince1970)]
      )
    }
  }

  /// A number that changes when another connection (process) commits to the store: SQLite's
  /// `PRAGMA data_version`; nil on PostgreSQL, whose changes arrive as notifications. The
  /// reminder daemon reads it after a file event to tell others' writes from its own.
  public func externalDataVersion() throws(StoreError) -> Int64? {
    guard database.configuration.location != .inMemory else { return nil }
    if case .postgres = database.configuration.location { return nil }
    return try database.read { connection throws(StoreError) in
      try connection.scalar("PRAGMA data_version")?.int64
    }
  }
}
