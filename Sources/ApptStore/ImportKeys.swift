import ApptCore
import CSQLite

/// Where an import keeps the (UID, RECURRENCE-ID) of the events it handed on, so that a copy
/// of one anywhere later in the file is found (the reader holds one batch's keys): a table in
/// a private temporary SQLite database of its own (SQLite's "" file: in memory until its
/// cache fills, then in a file deleted on close), made at the first batch and gone with it.
/// In front of it a fixed-size Bloom filter answers "never seen" for nearly every key without
/// a query, so a file without copies costs one insert per event and memory stays flat in the
/// file's size (the filter's 2 MiB).
///
/// Its own database, not a table on the import's connection: the reader runs on a thread of
/// its own (`ImportReader`) while the store writes, and on PostgreSQL each key no longer
/// goes to the server. Not `Sendable`: it lives on the reader's thread.
final class ImportKeys: ICalendar.KeptEvents {
  private var connection: SQLiteConnection?
  /// Where the keys' database is: "" (SQLite's private temporary database) but in tests.
  private let filename: String
  private var filter = KeyFilter()
  /// The first failure to open, read or write the table. The reader stops at its next batch
  /// and the import fails with it, so a copy is never missed unnoticed.
  private(set) var failure: StoreError?

  init(filename: String = "") {
    self.filename = filename
  }

  static let table = "appt_import_kept"
  /// Rows per INSERT: 4 values each, under the 999 bindings of SQLite before 3.32 too.
  private static let rowsPerInsert = 200

  func kept(_ key: String) -> ICalendar.KeptEvent? {
    guard let connection, failure == nil, filter.mayContain(key) else { return nil }
    var found: ICalendar.KeptEvent?
    do throws(StoreError) {
      try connection.query("SELECT ordinal, line, sequence FROM \(Self.table) WHERE key = ?", [.text(key)]) {
        row throws(StoreError) in
        found = ICalendar.KeptEvent(
          ordinal: Int(row.int64(at: 0)),
          line: Int(row.int64(at: 1)),
          sequence: Int(row.int64(at: 2))
        )
      }
    } catch {
      failure = error
    }
    return found
  }

  func keep(_ events: [(key: String, event: ICalendar.KeptEvent)]) {
    guard failure == nil, !events.isEmpty else { return }
    do throws(StoreError) {
      let connection = try opened()
      // In key order: the inserts walk the table's tree instead of jumping about it.
      let sorted = events.sorted { $0.key < $1.key }
      try connection.execute("BEGIN")
      for start in stride(from: 0, to: sorted.count, by: Self.rowsPerInsert) {
        let rows = sorted[start..<min(start + Self.rowsPerInsert, sorted.count)]
        let marks = Array(repeating: "(?, ?, ?, ?)", count: rows.count).joined(separator: ", ")
        var values: [SQLValue] = []
        values.reserveCapacity(rows.count * 4)
        for (key, event) in rows {
          filter.insert(key)
          values += [
            .text(key), .integer(Int64(event.ordinal)), .integer(Int64(event.line)), .integer(Int64(event.sequence)),
          ]
        }
        try connection.run(
          """
          INSERT INTO \(Self.table) (key, ordinal, line, sequence) VALUES \(marks)
          ON CONFLICT (key) DO UPDATE SET ordinal = excluded.ordinal, line = excluded.line, sequence = excluded.sequence
          """,
          values
        )
      }
      try connection.execute("COMMIT")
    } catch {
      failure = error
    }
  }

  /// The keys' database, opened with its table at the first batch.
  private func opened() throws(StoreError) -> SQLiteConnection {
    if let connection { return connection }
    let made = try SQLiteConnection(
      filename: filename,
      displayPath: "the import's keys",
      flags: SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE
    )
    // Scratch: nothing to roll back to or to keep after a crash. WITHOUT ROWID: the key is
    // the tree, no second index.
    try made.execute(
      """
      PRAGMA journal_mode = OFF;
      PRAGMA synchronous = OFF;
      CREATE TABLE \(Self.table) (
        key TEXT PRIMARY KEY, ordinal INTEGER NOT NULL, line INTEGER NOT NULL, sequence INTEGER NOT NULL
      ) WITHOUT ROWID;
      """
    )
    connection = made
    return made
  }
}

/// A Bloom filter of strings with a fixed 2^24 bits (2 MiB) and three probes: after a
/// million keys about one key in two hundred never kept is taken for one that may be.
struct KeyFilter {
  private static let bitCount = 1 << 24
  private var words = [UInt64](repeating: 0, count: KeyFilter.bitCount / 64)

  mutating func insert(_ key: String) {
    let (h1, h2) = Self.hashes(key)
    for probe in 0..<UInt64(3) {
      let bit = Int((h1 &+ probe &* h2) % UInt64(Self.bitCount))
      words[bit >> 6] |= 1 << UInt64(bit & 63)
    }
  }

  func mayContain(_ key: String) -> Bool {
    let (h1, h2) = Self.hashes(key)
    for probe in 0..<UInt64(3) {
      let bit = Int((h1 &+ probe &* h2) % UInt64(Self.bitCount))
      if words[bit >> 6] & (1 << UInt64(bit & 63)) == 0 { return false }
    }
    return true
  }

  /// The two halves of one 64-bit hash; the probes are h1 + i * h2 (double hashing).
  private static func hashes(_ key: String) -> (UInt64, UInt64) {
    var hasher = Hasher()
    hasher.combine(key)
    let hash = UInt64(bitPattern: Int64(hasher.finalize()))
    return (hash & 0xFFFF_FFFF, (hash >> 32) | 1)
  }
}
