import ApptCore
import Foundation

// Schema step 6 (SQLite): the appointment rows are kept in the order of their start.
//
// SQLite stores a rowid table in rowid order, and a window query reads its rows through the
// start index. With rowids given in insertion order, the rows of one day are scattered over
// the whole file (an import, a sync and a lifetime of adds are in no order of start): at 1M
// appointments a week's 6,700 rows sat on about as many pages, each read from the OS on its
// own, and copying those pages was a third of `list`'s time. So a row's rowid is its start:
// `start_ms * slots + n`, n the first slot free among the rows starting in the same
// millisecond, and the rows of a window are neighbours in the file. A write that moves an
// appointment's start moves its row (its rowid changes; nothing refers to rowids: ids are the
// keys). When every slot of a millisecond is taken, SQLite picks a rowid (after the last),
// which is only slower. Series have rowids of their own, above every one-off's
// (`seriesBase`): a window reads the series that reach it, which are neighbours in their start
// order, and their rows then share pages instead of each sitting among a day's one-offs.
// PostgreSQL's heap has no such order to keep: it upserts as before.
enum StartOrder {
  /// Rowids per millisecond of start. 4096 keeps every supported start (years 1900-9999)
  /// within a rowid's 63 bits: 2.5e14 ms * 4096 ≈ 1.0e18 < 9.2e18.
  static let slots: Int64 = 4096

  /// Where the series' rowids begin: above every one-off's, and still within 63 bits with them.
  static let seriesBase: Int64 = 4_000_000_000_000_000_000

  /// The rowids of the rows starting at `start` (milliseconds), series or not.
  static func rowids(startingAt start: Int64, series: Bool) -> (first: Int64, last: Int64) {
    let first = (series ? seriesBase : 0) + start * slots
    return (first, first + slots - 1)
  }

  /// Appointment's upsert on SQLite: the rowid is the row's own when it already starts in this
  /// millisecond, else the first free one after the highest in the millisecond's range (or its
  /// first, when none), else SQLite's choice (NULL). The columns are bound as `?1...`, then the
  /// range's first and last rowid.
  static let upsertSQL: String = {
    let (table, first, last) = (Appointment.table, boundRowid.first, boundRowid.last)
    let rowid = """
      (SELECT CASE WHEN own IS NOT NULL THEN own WHEN top IS NULL THEN \(first) \
      WHEN top < \(last) THEN top + 1 ELSE NULL END \
      FROM (SELECT (SELECT rowid FROM \(table.name) WHERE \(table.primaryKey) = ?1 \
      AND rowid BETWEEN \(first) AND \(last)) AS own, \
      (SELECT max(rowid) FROM \(table.name) WHERE rowid BETWEEN \(first) AND \(last)) AS top))
      """
    let updates = (["rowid = excluded.rowid"] + table.columns.dropFirst().map { "\($0) = excluded.\($0)" })
      .joined(separator: ", ")
    return insert(rowid: rowid) + " ON CONFLICT (\(table.primaryKey)) DO UPDATE SET \(updates)"
  }()

  /// `upsertSQL` for a row whose id is stored nowhere: the first free rowid after the
  /// highest in the millisecond's range (or its first), else SQLite's, without looking for
  /// the row's own. Bound as `upsertSQL` is.
  static let insertSQL: String = {
    let (table, first, last) = (Appointment.table, boundRowid.first, boundRowid.last)
    return insert(
      rowid: """
        (SELECT CASE WHEN top IS NULL THEN \(first) WHEN top < \(last) THEN top + 1 ELSE NULL END \
        FROM (SELECT max(rowid) AS top FROM \(table.name) WHERE rowid BETWEEN \(first) AND \(last)))
        """
    )
  }()

  /// The placeholders of the range's first and last rowid, bound after the columns.
  private static let boundRowid = (
    first: "?\(Appointment.table.columns.count + 1)", last: "?\(Appointment.table.columns.count + 2)"
  )

  /// An INSERT of a row's columns (bound as `?1...`) at the rowid `rowid` computes.
  private static func insert(rowid: String) -> String {
    let table = Appointment.table
    let placeholders = (1...table.columns.count).map { "?\($0)" }.joined(separator: ", ")
    return "INSERT INTO \(table.name) (rowid, \(table.columnList)) VALUES (\(rowid), \(placeholders))"
  }

  /// Rebuilds the table with every row at its start's rowid, the way SQLite documents a
  /// table rebuild (sqlite.org/lang_altertable.html: create the new table, copy, drop the old,
  /// rename the new, create the indexes and triggers again), inside the migration's
  /// transaction. The definitions are read back from `sqlite_master`, so the table stays as
  /// the earlier steps made it.
  static func rebuild(_ connection: any Connection) throws(StoreError) {
    let table = Appointment.table.name
    guard
      let definition = try connection.scalar(
        "SELECT sql FROM sqlite_master WHERE type = 'table' AND name = ?",
        [.text(table)]
      )?.string,
      let open = definition.firstIndex(of: "(")
    else {
      throw .corrupt(path: connection.path, reason: "no definition of the table \(table)")
    }
    var dependents: [String] = []
    try connection.query(
      "SELECT sql FROM sqlite_master WHERE tbl_name = ? AND type IN ('index', 'trigger') AND sql IS NOT NULL",
      [.text(table)]
    ) { row throws(StoreError) in dependents.append(row.string(at: 0)) }
    // The table's own columns, not this build's list: a later step may add some (step 9's
    // `alarms`), which do not exist yet when this one runs.
    var names: [String] = []
    try connection.query("SELECT name FROM pragma_table_info(?) ORDER BY cid", [.text(table)]) {
      row throws(StoreError) in names.append(row.string(at: 0))
    }
    let columns = names.joined(separator: ", ")
    try connection.execute(
      """
      CREATE TABLE \(table)_in_start_order \(definition[open...]);
      CREATE TEMPORARY TABLE appt_start_slots AS
        SELECT id, CASE WHEN \(Schema.isSeries) THEN \(seriesBase) ELSE 0 END AS base,
          row_number() OVER (PARTITION BY \(Schema.isSeries), start_ms ORDER BY id) - 1 AS slot FROM \(table);
      INSERT INTO \(table)_in_start_order (rowid, \(columns))
        SELECT base + start_ms * \(slots) + slot, \(columns) FROM \(table) JOIN appt_start_slots USING (id)
        WHERE slot < \(slots) ORDER BY 1;
      INSERT INTO \(table)_in_start_order (\(columns))
        SELECT \(columns) FROM \(table) JOIN appt_start_slots USING (id) WHERE slot >= \(slots) ORDER BY start_ms, slot;
      DROP TABLE appt_start_slots;
      DROP TABLE \(table);
      ALTER TABLE \(table)_in_start_order RENAME TO \(table);
      """
    )
    for sql in dependents { try connection.execute(sql) }
  }
}

extension Appointment {
  /// A batch in start order (one-offs, then series, as their rowids go): within it each row
  /// goes after the one before, instead of splitting pages in random order. Batches that
  /// cover the same span still interleave: `make bench` writes 1M rows in batches of 50k
  /// over three years, and its file stays about 390 MB where a packed one is 230. Kept as
  /// given when an id comes twice, so the later copy still wins.
  public static func storageOrder(_ values: [Appointment]) -> [Appointment] {
    guard Set(values.map(\.id)).count == values.count else { return values }
    return values.sorted { $0.storagePlace < $1.storagePlace }
  }

  /// Where the row goes in the table on SQLite (`StartOrder`'s rowids).
  var storagePlace: StoragePlace { StoragePlace(series: recurrence != nil, start: start) }

  /// Writes the row (kept in start order on SQLite) and its series weeks.
  public static func upsert(_ appointment: Appointment, in connection: any Connection) throws(StoreError) {
    try writeRow(appointment, startOrderSQL: StartOrder.upsertSQL, in: connection)
    try SeriesWeeks.refresh(appointment, in: connection)
  }

  /// Writes a new row, whose id no stored row has (an import's added event): `upsert`
  /// without looking for the row it would replace or for its series weeks, two index
  /// lookups per row. A stored id fails with a constraint error rather than being replaced.
  static func insert(_ appointment: Appointment, in connection: any Connection) throws(StoreError) {
    try writeRow(appointment, startOrderSQL: StartOrder.insertSQL, in: connection)
    try SeriesWeeks.add(appointment, in: connection)
  }

  /// The row itself: on SQLite through `startOrderSQL` (bound with the rowids of its start's
  /// range), on PostgreSQL as an upsert; noted in the connection's write journal.
  private static func writeRow(_ appointment: Appointment, startOrderSQL: String, in connection: any Connection)
    throws(StoreError)
  {
    if connection is SQLiteConnection {
      let range = StartOrder.rowids(
        startingAt: appointment.start.millisecondsSince1970,
        series: appointment.recurrence != nil
      )
      try connection.run(startOrderSQL, appointment.databaseValues + [.integer(range.first), .integer(range.last)])
    } else {
      try connection.run(table.upsertSQL, appointment.databaseValues)
    }
    connection.journal?.note(table.name, key: appointment.id.description)
  }
}

/// A row's place in the table on SQLite (`StartOrder`'s rowids): one-offs before series,
/// each by start.
struct StoragePlace: Comparable {
  let series: Bool
  let start: Date

  static func < (a: StoragePlace, b: StoragePlace) -> Bool {
    a.series != b.series ? !a.series : a.start < b.start
  }
}
