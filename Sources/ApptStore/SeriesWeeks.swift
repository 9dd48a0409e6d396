import ApptCore
import Foundation

// Schema step 6, "series weeks", and step 10, "series days": which weeks, and which days of
// them, each series has an instance in.
//
// A window query used to read every series that starts before the window and ends after it,
// and expand each to find out whether it has an occurrence there. At 1M appointments with 5%
// series that is about 5,000 rows read and expanded for a day holding a few hundred of their
// occurrences: a yearly series reaches every day of its years and occurs on one. The table
// `series_week` (week, series_id, days) lists, for each series, the weeks (UTC, 7-day buckets
// from the epoch) its RRULE and RDATE instances touch, and in `days` which of the week's
// seven UTC days (bit d: the day whose number from the epoch is d modulo 7, bit 0 a Thursday),
// so a window reads only the series with an instance on its days. It is a superset and never
// more: EXDATEs are ignored, overrides are found on their own rows (they are one-offs to the
// window query), and every instance is widened each side by `margin(of:)`: a floating series,
// whose instants depend on the reader's zone, is listed on the days it touches in any zone,
// and one in a named zone on the days it would touch if a later tzdata moved the offset.
//
// A series that never ends, or spans more than `SeriesWeeks.maximumWeeks`, is "wide": it
// has the one row `(SeriesWeeks.wide, id, days)`, every window considers it, and `days`
// holds the days of the week (as bits of the same kind) its rules can put an instance on
// (`wideDays(of:)`): a weekly meeting on Mondays is read only by windows holding a Monday.
//
// The rows are written with their series in the same transaction (`Appointment.upsert`), and
// removed with it by a trigger on both engines (any delete path: one id, a series' overrides,
// a calendar's). A WITHOUT ROWID table on SQLite: the update hook that drives observation is
// silent for it, which is right, since every change to it comes with a change to its series.
public enum SeriesWeeks {
  /// One row: a week, and the days of it an instance touches.
  struct Mark: Hashable {
    var week: Int64
    var days: Int64
  }

  static let dayMS: Int64 = 86_400_000
  /// One bucket: seven days of UTC milliseconds from the epoch.
  static let weekMS: Int64 = 7 * dayMS
  /// The `week` of a wide series' single row: below every real week.
  static let wide = Int64.min
  /// Every day of a week: what `days` holds when nothing narrower is known.
  static let allDays: Int64 = 0b111_1111
  /// A series spanning more weeks than this is wide (about five years): its rows would cost
  /// more to write than the expansion they save.
  static let maximumWeeks: Int64 = 260
  /// How far an instance of a series in a zone it names is widened on both sides: every
  /// reader expands it in that zone, so this only covers a later tzdata moving the zone's
  /// offset (by an hour, rarely two).
  static let zonedMargin: Int64 = 3 * 3_600_000
  /// The same for a floating series (or one whose zone this machine does not know), expanded
  /// here in UTC and read in the reader's zone: DTSTART's wall-clock time there may fall on
  /// the day before or after, and every instance with it (plus summer time and the margin).
  static let floatingMargin: Int64 = 27 * 3_600_000

  static func margin(of appointment: Appointment) -> Int64 {
    TimeZone.named(appointment.timeZone) == nil ? floatingMargin : zonedMargin
  }

  static func week(of milliseconds: Int64) -> Int64 { floorDivision(milliseconds, weekMS) }
  static func day(of milliseconds: Int64) -> Int64 { floorDivision(milliseconds, dayMS) }

  private static func floorDivision(_ value: Int64, _ divisor: Int64) -> Int64 {
    value >= 0 ? value / divisor : -((-value + divisor - 1) / divisor)
  }

  /// The bits of days `first...last` of a week (0...6).
  private static func bits(_ first: Int64, _ last: Int64) -> Int64 {
    first > last ? 0 : ((1 << (last + 1)) - 1) & ~((1 << first) - 1)
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

  /// Step 6: the table and its trigger. Its rows are written by step 10 (`addDays`), which
  /// every store opened by this build runs after it.
  static func create(engine: Engine, connection: any Connection) throws(StoreError) {
    try connection.execute(engine == .sqlite ? createSQLite : createPostgres)
  }

  /// Step 10: the `days` of each row, and the rows of every stored series written again
  /// with them (those written by step 6 and later writes had whole weeks).
  static func addDays(engine: Engine, connection: any Connection) throws(StoreError) {
    try connection.execute(
      engine == .sqlite
        ? "ALTER TABLE series_week ADD COLUMN days INTEGER NOT NULL DEFAULT 127;"
        : """
        ALTER TABLE series_week ADD COLUMN days integer NOT NULL DEFAULT 127;
        ALTER TABLE series_week DROP CONSTRAINT series_week_pkey;
        ALTER TABLE series_week ADD PRIMARY KEY (week, series_id) INCLUDE (days);
        """
    )
    try connection.run("DELETE FROM series_week", [])
    let series = try DatabaseQuery<Appointment>(where: Schema.isSeries, order: "id").fetch(connection)
    for appointment in series { try add(appointment, in: connection) }
  }

  /// The weeks `appointment`'s instances touch and the days of each, in order of the week;
  /// nil when it is wide (or not a series: then `[]`).
  static func marks(of appointment: Appointment) -> [Mark]? {
    guard let recurrence = appointment.recurrence else { return [] }
    guard let end = appointment.seriesEnd else { return nil }
    let margin = margin(of: appointment)
    let first = week(of: appointment.start.millisecondsSince1970 - margin)
    guard week(of: end.millisecondsSince1970 + margin) - first <= maximumWeeks else { return nil }
    let starts = recurrence.occurrences(
      start: appointment.start,
      duration: appointment.duration,
      zone: appointment.zone(fallback: .gmt),
      allDay: appointment.isAllDay,
      // A second past the bound: the last of a series of moments starts at it.
      in: DateInterval(start: appointment.start, end: max(end, appointment.start).addingTimeInterval(1))
    )
    var days: [Int64: Int64] = [:]
    for start in starts {
      let from = start.millisecondsSince1970
      let length = Int64(((recurrence.periodLength(at: start) ?? appointment.duration) * 1000).rounded())
      let firstDay = day(of: from - margin)
      let lastDay = day(of: from + max(length, 1) - 1 + margin)
      for week in floorDivision(firstDay, 7)...floorDivision(lastDay, 7) {
        days[week, default: 0] |= bits(max(firstDay, week * 7) - week * 7, min(lastDay, week * 7 + 6) - week * 7)
      }
    }
    return days.keys.sorted().map { Mark(week: $0, days: days[$0, default: allDays]) }
  }

  /// The days of the week (bits as in `Mark.days`) a wide series can have an instance on:
  /// the weekdays its rules allow (BYDAY, else DTSTART's for a weekly rule; any for the
  /// others), each moved into UTC by the offsets its zone takes and the margin, with its
  /// duration. A series with RDATEs, which may fall on any day, is read on every day.
  static func wideDays(of appointment: Appointment) -> Int64 {
    guard let recurrence = appointment.recurrence, recurrence.dates.isEmpty else { return allDays }
    let zone = appointment.zone(fallback: .gmt)
    var calendar = Calendar(identifier: .gregorian)
    calendar.timeZone = zone
    let local = calendar.dateComponents([.weekday, .hour, .minute, .second], from: appointment.start)
    // Monday 0 ... Sunday 6, as `Recurrence.Weekday`.
    var weekdays: Set<Int> = [((local.weekday ?? 2) + 5) % 7]
    var anyTime = false
    for rule in recurrence.rules {
      if rule.frequency < .daily || !rule.byHour.isEmpty || !rule.byMinute.isEmpty || !rule.bySecond.isEmpty {
        anyTime = true
      }
      if !rule.byDay.isEmpty {
        weekdays.formUnion(rule.byDay.map(\.weekday.rawValue))
      } else if rule.frequency != .weekly {
        return allDays
      }
    }
    // Where an instance can lie, from its local day's midnight, in UTC milliseconds.
    let time = Int64((local.hour ?? 0) * 3600 + (local.minute ?? 0) * 60 + (local.second ?? 0)) * 1000
    let length = max(Int64((appointment.duration * 1000).rounded()), 1)
    var lowestOffset: Int64 = -12 * 3_600_000
    var highestOffset: Int64 = 14 * 3_600_000
    if TimeZone.named(appointment.timeZone) == nil {
      // Floating: read in any zone, where its wall-clock time may be anywhere in the day.
      anyTime = true
    } else {
      // The offsets the zone takes over fifty years from DTSTART, every 73 days: a season
      // shorter than that (Ramadan's in Morocco) is an hour from one sampled, which the
      // margin covers.
      let offsets = (0..<250).map { step in
        Int64(zone.secondsFromGMT(for: appointment.start.addingTimeInterval(Double(step) * 73 * 86_400))) * 1000
      }
      lowestOffset = offsets.min() ?? 0
      highestOffset = offsets.max() ?? 0
    }
    let earliest = anyTime ? 0 : time
    let latest = anyTime ? dayMS - 1 : time
    let firstShift = floorDivision(earliest - highestOffset - zonedMargin, dayMS)
    let lastShift = floorDivision(latest + length - 1 - lowestOffset + zonedMargin, dayMS)
    guard lastShift - firstShift < 6 else { return allDays }
    var days: Int64 = 0
    for weekday in weekdays {
      for shift in firstShift...lastShift {
        // Thursday (3) is bit 0: the epoch's first day was a Thursday.
        days |= 1 << (((Int64(weekday) + shift - 3) % 7 + 7) % 7)
      }
    }
    return days
  }

  /// Replaces `appointment`'s rows: called after every write of an appointment row.
  static func refresh(_ appointment: Appointment, in connection: any Connection) throws(StoreError) {
    try connection.run("DELETE FROM series_week WHERE series_id = ?", [.text(appointment.id.description)])
    try add(appointment, in: connection)
  }

  /// The rows of a series just stored for the first time (none to replace); nothing for a
  /// one-off.
  static func add(_ appointment: Appointment, in connection: any Connection) throws(StoreError) {
    guard appointment.recurrence != nil else { return }
    let id = SQLValue.text(appointment.id.description)
    guard let marks = marks(of: appointment) else {
      try connection.run(
        "INSERT INTO series_week (week, series_id, days) VALUES (?, ?, ?)",
        [.integer(wide), id, .integer(wideDays(of: appointment))]
      )
      return
    }
    // Many rows per statement: a long weekly series has hundreds.
    var index = marks.startIndex
    while index < marks.endIndex {
      let chunk = marks[index..<min(index + 100, marks.endIndex)]
      let values = Array(repeating: "(?, ?, ?)", count: chunk.count).joined(separator: ", ")
      try connection.run(
        "INSERT INTO series_week (week, series_id, days) VALUES \(values)",
        chunk.flatMap { [SQLValue.integer($0.week), id, .integer($0.days)] }
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

  /// The SQL condition on `series_week` that keeps the rows of the series with an instance
  /// on the days of `[from, to)` (milliseconds), wide ones included when their days hold one
  /// of the window's, and its bindings.
  static func rows(from: Int64, to: Int64) -> (sql: String, bindings: [SQLValue]) {
    let firstDay = day(of: from)
    let lastDay = day(of: max(from, to - 1))
    let firstWeek = floorDivision(firstDay, 7)
    let lastWeek = floorDivision(lastDay, 7)
    // The window's days in its first and last week (the same week: the days of both).
    let firstDays = bits(firstDay - firstWeek * 7, firstWeek == lastWeek ? lastDay - firstWeek * 7 : 6)
    let lastDays = bits(firstWeek == lastWeek ? firstDay - lastWeek * 7 : 0, lastDay - lastWeek * 7)
    // Its days as days of any week, for the wide rows.
    var anyWeek: Int64 = 0
    if lastDay - firstDay >= 6 {
      anyWeek = allDays
    } else {
      for day in firstDay...lastDay { anyWeek |= 1 << (day - floorDivision(day, 7) * 7) }
    }
    return (
      """
      (week = ? AND (days & ?) <> 0) \
      OR (week >= ? AND week <= ? AND (days & CASE week WHEN ? THEN ? WHEN ? THEN ? ELSE 127 END) <> 0)
      """,
      [
        .integer(wide), .integer(anyWeek), .integer(firstWeek), .integer(lastWeek),
        .integer(firstWeek), .integer(firstDays), .integer(lastWeek), .integer(lastDays),
      ]
    )
  }

  /// The SQL condition on `appointment.id` that keeps the series `rows(from:to:)` lists.
  /// `id || ''` on purpose: a bare `id IN (...)` lets the planner look each listed id up in
  /// the id index, one random read per series before its row; this way the window's range of
  /// `appointment_series` is read in order and each entry tested where it lies (20 -> 14 ms
  /// for a week's series at 1M in the sqlite3 CLI).
  public static func condition(from: Int64, to: Int64) -> (sql: String, bindings: [SQLValue]) {
    let rows = rows(from: from, to: to)
    return ("id || '' IN (SELECT series_id FROM series_week WHERE \(rows.sql))", rows.bindings)
  }

  /// Whether any series has an instance on the days of `[from, to)`. When none has, a window
  /// need not read `appointment_series` at all: the series condition is tested on every
  /// entry that starts before the window's end (at 1M, an empty week passed over all 10,000).
  static func anySeries(from: Int64, to: Int64, connection: any Connection) throws(StoreError) -> Bool {
    let rows = rows(from: from, to: to)
    return try connection.scalar("SELECT 1 FROM series_week WHERE \(rows.sql) LIMIT 1", rows.bindings) != nil
  }
}
