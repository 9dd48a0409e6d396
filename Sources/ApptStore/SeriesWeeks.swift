import ApptCore
import Foundation

// Schema step 6, "series weeks": which weeks each series has an occurrence in.
//
// A window query used to read every series that starts before the window and ends after it,
// and expand each to find out whether it has an occurrence there. At 1M appointments with 5%
// series that is about 5,000 rows read and expanded for a day holding a few hundred of their
// occurrences: a yearly series reaches every day of its years and occurs on one. The table
// `series_week` (week, series_id) lists, for each series, the weeks (UTC, 7-day buckets
// from the epoch) its RRULE and RDATE instances touch, so a window reads only the series
// with an instance in its weeks. It is a superset and never more: EXDATEs are ignored,
// overrides are found on their own rows (they are one-offs to the window query), and every
// instance is widened by a day each side, so a floating or whole-day series, whose instants
// depend on the reader's zone, is listed in the weeks it touches in any zone.
//
// A series that never ends, or spans more than `SeriesWeeks.maximumWeeks`, is "wide": it
// has the one row `(SeriesWeeks.wide, id)` and every window considers it, as before.
//
// The rows are written with their series in the same transaction (`Appointment.upsert`), and
// removed with it by a trigger on both engines (any delete path: one id, a series' overrides,
// a calendar's). A WITHOUT ROWID table on SQLite: the update hook that drives observation is
// silent for it, which is right, since every change to it comes with a change to its series.
public enum SeriesWeeks {
  /// One bucket: seven days of UTC milliseconds from the epoch.
  static let weekMS: Int64 = 7 * 86_400_000
  /// The `week` of a wide series' single row: below every real week.
  static let wide = Int64.min
  /// A series spanning more weeks than this is wide (about five years): its rows would cost
  /// more to write than the expansion they save.
  static let maximumWeeks: Int64 = 260
  /// How far each instance is widened on both sides: more than any zone's UTC offset.
  static let margin: Int64 = 86_400_000

  static func week(of milliseconds: Int64) -> Int64 {
    milliseconds >= 0 ? milliseconds / weekMS : -((-milliseconds + weekMS - 1) / weekMS)
  }

  static let createSQLite = """
    CREATE TABLE series_week (
      week INTEGER NOT NULL,
      series_id TEXT NOT NULL,
      PRIMARY KEY (week, series_id)
    ) WITHOUT ROWID;
    CREATE INDEX series_week_by_series ON series_week (series_id);
    CREATE TRIGGER series_week_forget AFTER DELETE ON appointment
      WHEN old.recurrence IS NOT NULL OR old.rdates <> ''
      BEGIN DELETE FROM series_week WHERE series_id = old.id; END;
    """

  static let createPostgres = """
    CREATE TABLE series_week (
      week bigint NOT NULL,
      series_id text COLLATE "C" NOT NULL,
      PRIMARY KEY (week, series_id)
    );
    CREATE INDEX series_week_by_series ON series_week (series_id);
    CREATE FUNCTION appt_forget_series_weeks() RETURNS trigger LANGUAGE plpgsql AS $f$
    BEGIN
      DELETE FROM series_week WHERE series_id = OLD.id;
      RETURN NULL;
    END
    $f$;
    CREATE TRIGGER series_week_forget AFTER DELETE ON appointment
      FOR EACH ROW WHEN (OLD.recurrence IS NOT NULL OR OLD.rdates <> '')
      EXECUTE FUNCTION appt_forget_series_weeks();
    """

  /// The migration: the table, its trigger, and the rows of every stored series.
  static func migrate(engine: Engine, connection: any Connection) throws(StoreError) {
    try connection.execute(engine == .sqlite ? createSQLite : createPostgres)
    let series = try DatabaseQuery<Appointment>(where: Schema.isSeries, order: "id").fetch(connection)
    for appointment in series { try insert(appointment, in: connection) }
  }

  /// The weeks `appointment`'s instances touch, in order; nil when it is wide (or not a series:
  /// then `[]`).
  static func weeks(of appointment: Appointment) -> [Int64]? {
    guard let recurrence = appointment.recurrence else { return [] }
    guard let end = appointment.seriesEnd else { return nil }
    let first = week(of: appointment.start.millisecondsSince1970 - margin)
    guard week(of: end.millisecondsSince1970 + margin) - first <= maximumWeeks else { return nil }
    let starts = recurrence.occurrences(
      start: appointment.start,
      duration: appointment.duration,
      zone: appointment.zone(fallback: .gmt),
      in: DateInterval(start: appointment.start, end: max(end, appointment.start.addingTimeInterval(1)))
    )
    var weeks: [Int64] = []
    for start in starts {
      let from = start.millisecondsSince1970
      let length = Int64(((recurrence.periodLength(at: start) ?? appointment.duration) * 1000).rounded())
      let firstWeek = week(of: from - margin)
      let lastWeek = week(of: from + max(length, 1) - 1 + margin)
      let next = max(firstWeek, (weeks.last ?? Int64.min) + 1)
      if next <= lastWeek { weeks.append(contentsOf: next...lastWeek) }
    }
    return weeks
  }

  /// Replaces `appointment`'s rows: called after every write of an appointment row.
  static func refresh(_ appointment: Appointment, in connection: any Connection) throws(StoreError) {
    try connection.run("DELETE FROM series_week WHERE series_id = ?", [.text(appointment.id.description)])
    try insert(appointment, in: connection)
  }

  private static func insert(_ appointment: Appointment, in connection: any Connection) throws(StoreError) {
    guard appointment.recurrence != nil else { return }
    let id = SQLValue.text(appointment.id.description)
    guard let weeks = weeks(of: appointment) else {
      try connection.run("INSERT INTO series_week (week, series_id) VALUES (?, ?)", [.integer(wide), id])
      return
    }
    // Many rows per statement: a long weekly series has hundreds.
    var index = weeks.startIndex
    while index < weeks.endIndex {
      let chunk = weeks[index..<min(index + 100, weeks.endIndex)]
      let values = Array(repeating: "(?, ?)", count: chunk.count).joined(separator: ", ")
      try connection.run(
        "INSERT INTO series_week (week, series_id) VALUES \(values)",
        chunk.flatMap { [SQLValue.integer($0), id] }
      )
      index = chunk.endIndex
    }
  }

  /// `appointment_series` holds the id beside the two times, so the membership below is
  /// tested on the index before a row is read.
  static let seriesIndex = """
    DROP INDEX appointment_series;
    CREATE INDEX appointment_series ON appointment (start_ms, series_end_ms, id) WHERE recurrence IS NOT NULL OR rdates <> '';
    """

  /// The SQL condition on `appointment.id` that keeps the series with an instance in the
  /// weeks of `[from, to)` (milliseconds), wide ones included, and its bindings. `id || ''`
  /// on purpose: a bare `id IN (...)` lets the planner look each listed id up in the id
  /// index, one random read per series before its row; this way the window's range of
  /// `appointment_series` is read in order and each entry tested where it lies (20 -> 14 ms
  /// for a week's series at 1M in the sqlite3 CLI).
  public static func condition(from: Int64, to: Int64) -> (sql: String, bindings: [SQLValue]) {
    (
      "id || '' IN (SELECT series_id FROM series_week WHERE week = ? OR (week >= ? AND week <= ?))",
      [.integer(wide), .integer(week(of: from)), .integer(week(of: max(from, to - 1)))]
    )
  }
}
