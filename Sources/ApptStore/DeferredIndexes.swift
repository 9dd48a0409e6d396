import ApptCore

/// The appointment indexes an import into an empty table builds once, after its rows are in,
/// instead of entry by entry (SQLite only).
///
/// A shuffled file writes all over every start-keyed index (start, length, window, calendar,
/// series, alarms): an entry a row, each in a different page. `CREATE INDEX` over rows already
/// stored sorts them first and writes each index in one pass. The sqlite3 CLI inserting a
/// shuffled 100k into appt's schema took 1.2-1.5 s with every index and 0.95-1.0 s with the
/// same indexes built after (README, "An import into an empty store builds its indexes
/// last"). The indexes the import's own lookups use stay: the primary key (a stored id), the
/// uid (a stored event) and the series' overrides (a series moves its overrides with it).
///
/// Only when the table is empty: over stored rows a rebuild reads them all, however few the
/// file adds. Not on PostgreSQL, a shared database: DROP INDEX holds the table's exclusive
/// lock to the end of the transaction, and every other client would wait for the import
/// even to read. The drop and the rebuild are inside the import's transaction, so a failed
/// import leaves the schema as it was, and no other connection sees the table without them.
struct DeferredIndexes {
  /// The `CREATE INDEX` statements of the indexes dropped, as `sqlite_master` has them.
  private let definitions: [String]

  /// The indexes kept through the import: its lookups read them.
  static let kept: Set<String> = ["appointment_by_uid", "appointment_by_series"]

  /// Drops the appointment table's other indexes when the connection is SQLite's and the
  /// table is empty; nil (nothing dropped) otherwise.
  static func dropIfEmpty(_ connection: any Connection) throws(StoreError) -> DeferredIndexes? {
    guard connection is SQLiteConnection,
      try connection.scalar("SELECT 1 FROM \(Appointment.table.name) LIMIT 1") == nil
    else { return nil }
    var indexes: [(name: String, sql: String)] = []
    // `sql IS NULL`: the primary key's own index, which cannot be dropped.
    try connection.query(
      "SELECT name, sql FROM sqlite_master WHERE type = 'index' AND tbl_name = ? AND sql IS NOT NULL ORDER BY name",
      [.text(Appointment.table.name)]
    ) { row throws(StoreError) in indexes.append((row.string(at: 0), row.string(at: 1))) }
    let dropped = indexes.filter { !kept.contains($0.name) }
    for index in dropped { try connection.execute("DROP INDEX \"\(index.name)\"") }
    return DeferredIndexes(definitions: dropped.map(\.sql))
  }

  /// The page cache the rebuild runs with, in KiB (SQLite's default): `CREATE INDEX` sorts in
  /// as much memory again as the page cache, and with the import's 16 MiB that was 16 MiB
  /// more at the import's peak (65 MiB for 100k events instead of 50).
  static let rebuildCacheKiB = 2000

  /// Builds the dropped indexes again, over the rows stored now, and puts the connection's
  /// page cache back as it was.
  func rebuild(_ connection: any Connection) throws(StoreError) {
    let cache = try connection.scalar("PRAGMA cache_size")?.int64
    if cache != nil { try connection.execute("PRAGMA cache_size = -\(Self.rebuildCacheKiB)") }
    for sql in definitions { try connection.execute(sql) }
    if let cache { try connection.execute("PRAGMA cache_size = \(cache)") }
  }
}
