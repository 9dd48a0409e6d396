// `probe --db FILE --day YYYY-MM-DD [--week YYYY-MM-DD] [--repeat N] [--pragma SQL]`: where the time of a day's
// window goes, in process, on an open connection: stepping the window query in SQLite, reading
// the columns, parsing the ids, building `Appointment`s (the whole
// `AppointmentDAO.appointments(matching:)`), comparing two snapshots (what an observer does
// after a commit) and diffing them, and the month panel's busy-day counts. Each step runs over N consecutive days from DAY (a new day
// each time, as the next-day key does; the OS cache is warm, SQLite's own cache is not) and
// reports the median. `--pragma` runs first on the connection, to try a setting. It explains
// the calendar's latencies; it is not a goal of its own. With `--week`, also `list`'s two
// steps for that week in process: fetching the appointments and formatting the text lines.

import ApptCore
import ApptStore
import Foundation

@MainActor
func probeCommand(_ arguments: Arguments) async {
  let file = arguments.required("db")
  let day = utcDay(arguments.required("day"))
  let repetitions = max(1, arguments.int("repeat", default: 30))
  let dao = AppointmentDAO(file: URL(fileURLWithPath: file))
  let firstFrom = Int64(day.timeIntervalSince1970 * 1_000)
  // AppointmentDAO.fetch's one-off query for a day, cancelled ones included (the calendar's).
  let sql =
    "SELECT \(ProbeQueries.columns) FROM appointment "
    + "WHERE start_ms >= ? AND start_ms < ? AND end_ms > ? AND \(ProbeQueries.isOneOff) ORDER BY start_ms, end_ms, title, id"

  /// The median over `repetitions` consecutive days of `body(from, to)` (milliseconds).
  func time(_ body: (_ from: Int64, _ to: Int64) async throws -> Void) async -> Double {
    var samples: [Double] = []
    for index in 0..<repetitions {
      let from = firstFrom + Int64(index) * 86_400_000
      let started = monotonicNanos()
      do { try await body(from, from + 86_400_000) } catch { fail("probe: \(error)") }
      samples.append(milliseconds(from: started, to: monotonicNanos()))
    }
    return rounded(median(samples) ?? 0)
  }

  let database = dao.database
  if let pragma = arguments.string("pragma") {
    do { try await ProbeQueries.execute(pragma, on: database) } catch { fail("probe: \(error)") }
  }
  var rows: [Double] = []
  let stepOnly = await time { from, to in
    rows.append(Double(try await ProbeQueries.run(.stepOnly, sql: sql, on: database, from: from, to: to)))
  }
  let readColumns = await time { from, to in
    _ = try await ProbeQueries.run(.readColumns, sql: sql, on: database, from: from, to: to)
  }
  let parseIDs = await time { from, to in
    _ = try await ProbeQueries.run(.parseIDs, sql: sql, on: database, from: from, to: to)
  }
  var items: [Appointment] = []
  let fullFetch = await time { from, to in
    let window = DateInterval(
      start: Date(timeIntervalSince1970: Double(from) / 1_000),
      end: Date(timeIntervalSince1970: Double(to) / 1_000)
    )
    items = try await dao.appointments(matching: AppointmentQuery(range: window, includeCancelled: true))
  }
  var copy = items
  if let last = copy.indices.last { copy[last].title += " " }  // equal until the very last
  let compare = await time { _, _ in if items == copy { fail("probe: the copies should differ") } }
  let diff = await time { _, _ in _ = ChangeSet.diff(from: items, to: copy) }

  // The month panel's markers: the busy days of the 31 days from each day (one grouped read).
  var busyDays = 0
  let monthMarkers = await time { from, _ in
    let window = DateInterval(start: Date(timeIntervalSince1970: Double(from) / 1_000), duration: 31 * 86_400)
    for await snapshot in await dao.observeBusyDays(in: window) {
      busyDays = snapshot.items.count
      break
    }
  }

  // `list`'s work in process for a week: the fetch, then the text lines (AppointmentFormatter).
  // The fetch is also split: one-offs read and decoded; series rows read and decoded; the
  // series expanded into their occurrences in the week (`Appointment.occurrences(in:...)`).
  var weekRows = 0
  var weekFetch: [Double] = []
  var weekFormat: [Double] = []
  var weekSingles: [Double] = []
  var weekSeriesRows: [Double] = []
  var weekSeriesExpand: [Double] = []
  var seriesCounts = (scanned: 0, reaching: 0, read: 0, occurrences: 0)
  if let weekText = arguments.string("week") {
    let week = DateInterval(start: utcDay(weekText), duration: 7 * 86_400)
    let weekFrom = Int64(week.start.timeIntervalSince1970 * 1_000)
    let weekTo = Int64(week.end.timeIntervalSince1970 * 1_000)
    for _ in 0..<max(3, repetitions / 3) {
      do {
        let started = monotonicNanos()
        _ = try await ProbeQueries.decode(
          sql + "",
          [.integer(weekFrom - 5_400_000), .integer(weekTo), .integer(weekFrom)],
          on: database
        )
        let singles = monotonicNanos()
        // As the DAO reads them: the series listed in the week's `series_week` rows (schema 7).
        let weeks = SeriesWeeks.condition(from: weekFrom - 5_400_000, to: weekTo)
        let series = try await ProbeQueries.decode(
          "SELECT \(ProbeQueries.columns) FROM appointment WHERE \(ProbeQueries.isSeries) AND start_ms < ? "
            + "AND (series_end_ms IS NULL OR series_end_ms > ?) AND status = 'scheduled' AND \(weeks.sql) "
            + "ORDER BY start_ms",
          [.integer(weekTo), .integer(weekFrom)] + weeks.bindings,
          on: database
        )
        let read = monotonicNanos()
        let occurrences = series.flatMap { $0.occurrences(in: week, fallbackZone: utc, includeCancelled: false) }
        let expanded = monotonicNanos()
        weekSingles.append(milliseconds(from: started, to: singles))
        weekSeriesRows.append(milliseconds(from: singles, to: read))
        weekSeriesExpand.append(milliseconds(from: read, to: expanded))
        seriesCounts.read = series.count
        seriesCounts.occurrences = occurrences.count
        seriesCounts.reaching = Int(
          try await ProbeQueries.count(
            "SELECT count(*) FROM appointment WHERE \(ProbeQueries.isSeries) AND start_ms < ? "
              + "AND (series_end_ms IS NULL OR series_end_ms > ?) AND status = 'scheduled'",
            [.integer(weekTo), .integer(weekFrom)],
            on: database
          )
        )
        seriesCounts.scanned = Int(
          try await ProbeQueries.count(
            "SELECT count(*) FROM appointment WHERE \(ProbeQueries.isSeries) AND start_ms < ?",
            [.integer(weekTo)],
            on: database
          )
        )
      } catch {
        fail("probe: \(error)")
      }
    }
    let formatter = AppointmentFormatter(clock: Clock.fixed(week.start, timeZone: utc))
    for _ in 0..<max(3, repetitions / 3) {
      let started = monotonicNanos()
      let found: [Appointment]
      do {
        found = try await dao.appointments(matching: AppointmentQuery(range: week))
      } catch {
        fail("probe: \(error)")
      }
      let fetched = monotonicNanos()
      let text = found.map { formatter.textLine($0) + "\n" }.joined()
      let formatted = monotonicNanos()
      weekRows = found.count + (text.isEmpty ? 0 : 0)
      weekFetch.append(milliseconds(from: started, to: fetched))
      weekFormat.append(milliseconds(from: fetched, to: formatted))
    }
  }

  // SQLite alone, no Swift: the same window counted by the index.
  let countOnly = await time { from, to in
    _ = try await ProbeQueries.count(
      "SELECT count(*) FROM appointment WHERE start_ms >= ? - 5400000 AND start_ms < ?",
      [.integer(from), .integer(to)],
      on: database
    )
  }
  await dao.database.close()
  printJSON([
    "day": arguments.required("day"), "rows_median": median(rows) ?? 0, "repeat": repetitions,
    "pragma": arguments.string("pragma") ?? "",
    "count_only_ms": countOnly,
    "step_only_ms": stepOnly,
    "read_columns_ms": readColumns,
    "parse_ids_ms": parseIDs,
    "fetch_appointments_ms": fullFetch,
    "compare_snapshots_ms": compare,
    "diff_snapshots_ms": diff,
    "month_busy_days_ms": monthMarkers,
    "month_busy_days": busyDays,
    "week_rows": weekRows,
    "week_fetch_ms": rounded(median(weekFetch) ?? 0),
    "week_format_ms": rounded(median(weekFormat) ?? 0),
    "week_singles_ms": rounded(median(weekSingles) ?? 0),
    "week_series_rows_ms": rounded(median(weekSeriesRows) ?? 0),
    "week_series_expand_ms": rounded(median(weekSeriesExpand) ?? 0),
    "week_series_scanned": seriesCounts.scanned,
    "week_series_read": seriesCounts.read,
    "week_series_reaching": seriesCounts.reaching,
    "week_series_occurrences": seriesCounts.occurrences,
  ])
}

/// The probe's queries, run on the database's actor (a `Connection` never leaves it).
@DatabaseActor
enum ProbeQueries {
  enum Work: Sendable {
    case stepOnly, readColumns, parseIDs
  }

  /// Every column `Appointment(row:)` reads, in its order.
  nonisolated static let columns = Appointment.table.readColumns.joined(separator: ", ")
  /// `AppointmentDAO.isOneOff` and `Schema.isSeries`, as the DAO's queries state them (so the
  /// same indexes serve).
  nonisolated static let isOneOff = "recurrence IS NULL AND rdates = ''"
  nonisolated static let isSeries = "(recurrence IS NOT NULL OR rdates <> '')"

  static let longestSQL = "SELECT end_ms - start_ms FROM appointment ORDER BY end_ms - start_ms DESC LIMIT 1"

  static func run(_ work: Work, sql: String, on database: AsyncDatabase, from: Int64, to: Int64) throws(StoreError)
    -> Int
  {
    try database.read { connection throws(StoreError) in
      let longest = try connection.scalar(longestSQL)?.int64 ?? 0
      var total = 0
      try connection.query(sql, [.integer(from - longest), .integer(to), .integer(from)]) { row in
        switch work {
        case .stepOnly:
          total += 1
        case .readColumns:
          total +=
            row.string(at: 0).utf8.count + row.string(at: 1).utf8.count + row.string(at: 4).utf8.count
            + row.string(at: 5).utf8.count + Int(row.int64(at: 2) & 1) + Int(row.int64(at: 3) & 1)
            + Int(row.int64(at: 6) & 1) + Int(row.int64(at: 7) & 1)
        case .parseIDs:
          if AppointmentID(string: row.string(at: 0)) != nil { total += 1 }
        }
      }
      return total
    }
  }

  static func execute(_ sql: String, on database: AsyncDatabase) throws(StoreError) {
    try database.open().execute(sql)
  }

  /// Runs `sql` and decodes every row as an `Appointment` (what `DatabaseQuery.fetch` does).
  static func decode(_ sql: String, _ bindings: [SQLValue], on database: AsyncDatabase) throws(StoreError)
    -> [Appointment]
  {
    try database.read { connection throws(StoreError) in
      var result: [Appointment] = []
      try connection.query(sql, bindings) { row throws(StoreError) in result.append(try Appointment(row: row)) }
      return result
    }
  }

  static func count(_ sql: String, _ bindings: [SQLValue], on database: AsyncDatabase) throws(StoreError) -> Int64 {
    try database.read { connection throws(StoreError) in try connection.scalar(sql, bindings)?.int64 ?? 0 }
  }
}

/// `probe-import --ics FILE --dir DIR [--runs R]`: where `appt import`'s time goes, in process:
/// reading the file, parsing it (`ICalendar.read`), and storing the result into a fresh database
/// (`AppointmentDAO.importAppointments`, one transaction). Medians of R fresh files.
@MainActor
func probeImportCommand(_ arguments: Arguments) async {
  let icsPath = arguments.required("ics")
  let directory = arguments.required("dir")
  let runs = max(1, arguments.int("runs", default: 3))
  let clock = Clock.system
  var readMS: [Double] = []
  var parseMS: [Double] = []
  var storeMS: [Double] = []
  var events = 0
  for run in 0..<runs {
    let path = "\(directory)/probe-import-\(run).sqlite3"
    for suffix in ["", "-wal", "-shm"] { unlink(path + suffix) }
    let started = monotonicNanos()
    guard let bytes = FileManager.default.contents(atPath: icsPath) else { fail("cannot read \(icsPath)") }
    let read = monotonicNanos()
    let result = ICalendar.read(bytes: bytes, clock: clock)
    let parsed = monotonicNanos()
    guard result.problems.isEmpty else { fail("probe-import: \(result.problems.prefix(3))") }
    events = result.appointments.count
    let dao = AppointmentDAO(file: URL(fileURLWithPath: path), clock: clock)
    do {
      try await dao.database.prepare()
      let before = monotonicNanos()
      _ = try await dao.importAppointments(result.appointments)
      storeMS.append(milliseconds(from: before, to: monotonicNanos()))
    } catch {
      fail("probe-import: \(error)")
    }
    await dao.database.close()
    for suffix in ["", "-wal", "-shm"] { unlink(path + suffix) }
    readMS.append(milliseconds(from: started, to: read))
    parseMS.append(milliseconds(from: read, to: parsed))
  }
  printJSON([
    "events": events, "runs": runs,
    "read_ms": rounded(median(readMS) ?? 0),
    "parse_ms": rounded(median(parseMS) ?? 0),
    "store_ms": rounded(median(storeMS) ?? 0),
    "rss_kib": peakRSSKiB(),
  ])
}
