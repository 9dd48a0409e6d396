import ApptCore
import Foundation

// Schema step 9, "alarms": what the reminder daemon needs of the
// store.
//
// - `appointment.alarms`: how many VALARM blocks the row's extras hold (`Appointment
//   .alarmBlockCount`, written by the one row writer, `databaseValues`), so the alarms of a
//   store are found through a small partial index instead of a scan of every row's extras.
//   The migration counts them for the rows already stored.
// - `alarm_fired`: one row per alarm instance the daemon handled (`AlarmInstance.key`): fired
//   on time, late, or missed (past `remind_grace`). Written BEFORE the notification goes out,
//   with a primary key that makes the second writer a no-op: a restarted daemon, a second one
//   or `appt remind --once` from cron never notifies an instance twice. Records older than
//   the grace and a day are pruned by the daemon (`pruneAlarmRecords`); no instance that old
//   is looked at again. Like the sync tables it notifies no observer: a record changes
//   nothing a screen shows.
extension Schema {
  static let alarmsSQLite = """
    ALTER TABLE appointment ADD COLUMN alarms INTEGER NOT NULL DEFAULT 0 CHECK (alarms >= 0);
    CREATE INDEX appointment_with_alarms ON appointment (start_ms) WHERE alarms > 0;
    CREATE TABLE alarm_fired (
      key TEXT PRIMARY KEY NOT NULL,
      appointment_id TEXT NOT NULL,
      fire_at_ms INTEGER NOT NULL,
      fired_ms INTEGER NOT NULL,
      outcome TEXT NOT NULL CHECK (outcome IN ('fired', 'late', 'missed'))
    );
    CREATE INDEX alarm_fired_by_fire_at ON alarm_fired (fire_at_ms);
    """

  static let alarmsPostgres = """
    ALTER TABLE appointment ADD COLUMN alarms integer NOT NULL DEFAULT 0 CHECK (alarms >= 0);
    CREATE INDEX appointment_with_alarms ON appointment (start_ms) WHERE alarms > 0;
    CREATE TABLE alarm_fired (
      key text COLLATE "C" PRIMARY KEY NOT NULL,
      appointment_id text COLLATE "C" NOT NULL,
      fire_at_ms bigint NOT NULL,
      fired_ms bigint NOT NULL,
      outcome text NOT NULL CHECK (outcome IN ('fired', 'late', 'missed'))
    );
    CREATE INDEX alarm_fired_by_fire_at ON alarm_fired (fire_at_ms);
    """

  /// Step 9: the column and the table, then each stored row's count of VALARMs (only rows
  /// whose extras mention one are decoded).
  static func migrateAlarms(engine: Engine, connection: any Connection) throws(StoreError) {
    try connection.execute(engine == .sqlite ? alarmsSQLite : alarmsPostgres)
    var counts: [(id: SQLValue, count: Int)] = []
    try connection.query(
      "SELECT id, extras FROM appointment WHERE instr(upper(extras), 'BEGIN:VALARM') > 0",
      []
    ) { row throws(StoreError) in
      do {
        let extras = try JSONDecoder().decode(ICalendarExtras.self, from: Data(row.string(at: 1).utf8))
        counts.append((row.value(at: 0), Appointment.alarmBlockCount(extras.lines)))
      } catch {
        // An unreadable row keeps 0: reading it fails as it did before (`corrupt`).
      }
    }
    for (id, count) in counts where count > 0 {
      try connection.run("UPDATE appointment SET alarms = ? WHERE id = ?", [.integer(Int64(count)), id])
    }
  }
}

extension Appointment {
  /// How many VALARM blocks `lines` (an event's extras) hold: what `appointment.alarms`
  /// stores. Every block counts, one appt cannot read too (a superset is what an index on
  /// "has alarms" needs).
  static func alarmBlockCount(_ lines: [String]) -> Int {
    lines.reduce(0) { count, line in
      count + (line.utf8.count == 12 && line.uppercased() == "BEGIN:VALARM" ? 1 : 0)
    }
  }
}
