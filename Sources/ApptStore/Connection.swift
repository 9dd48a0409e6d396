import CSQLite
import Foundation

/// What the DAO and the generic layer ask of a database connection, on either engine
/// (`SQLiteConnection`, `PostgresConnection`): the one SQL-facing seam of appt.
///
/// SQL is written once, in the subset both engines speak: `?` placeholders (PostgreSQL's
/// connection numbers them), `TRUE`, `ON CONFLICT ... DO UPDATE`, partial indexes, and the
/// function appt's schema defines on PostgreSQL (`instr`). Engine-specific SQL
/// (PRAGMAs, LISTEN) stays inside the engine.
///
/// Not `Sendable`: `AsyncDatabase`, isolated to `DatabaseActor`, owns the connection.
public protocol Connection: AnyObject {
  /// Where the connection goes, for messages (a path, or `host:port/dbname` without password).
  var path: String { get }
  /// True while a transaction is open.
  var isInTransaction: Bool { get }
  /// Runs one or more statements that take no bindings and return no rows.
  func execute(_ sql: String) throws(StoreError)
  /// Runs `sql` with `bindings` and calls `row` for each result row.
  func query(_ sql: String, _ bindings: [SQLValue], row: (Row) throws(StoreError) -> Void) throws(StoreError)
  /// Runs a statement that returns no rows and reports how many rows it changed.
  @discardableResult
  func run(_ sql: String, _ bindings: [SQLValue]) throws(StoreError) -> Int
  /// Runs `sql` with `bindings` and calls `row` for each result row until it returns false,
  /// holding about `batch` rows at a time whatever the result's size: SQLite steps its
  /// statement, PostgreSQL fetches from a cursor. Only inside a transaction; `row` may run
  /// other statements (not this one) meanwhile.
  func stream(_ sql: String, _ bindings: [SQLValue], batch: Int, row: (Row) throws(StoreError) -> Bool)
    throws(StoreError)
  /// Where the DAO notes the rows a write changed (`WriteJournal`); nil: none is kept.
  var journal: WriteJournal? { get }
}

extension Connection {
  public var journal: WriteJournal? { nil }

  public func query(_ sql: String, row: (Row) throws(StoreError) -> Void) throws(StoreError) {
    try query(sql, [], row: row)
  }

  @discardableResult
  public func run(_ sql: String) throws(StoreError) -> Int { try run(sql, []) }

  /// The first column of the first row, or nil when there is no row.
  public func scalar(_ sql: String, _ bindings: [SQLValue] = []) throws(StoreError) -> SQLValue? {
    var result: SQLValue?
    try query(sql, bindings) { row throws(StoreError) in
      if result == nil { result = row.value(at: 0) }
    }
    return result
  }
}

/// A value to bind or read. Dates are stored as integer milliseconds since 1970 (UTC).
public enum SQLValue: Equatable, Sendable {
  case null
  case integer(Int64)
  case real(Double)
  case text(String)

  public var int64: Int64? {
    if case .integer(let value) = self { return value }
    return nil
  }

  public var string: String? {
    if case .text(let value) = self { return value }
    return nil
  }
}

/// The current result row, read by column index (no per-row dictionaries), from either engine.
/// Valid only inside the `query` callback that hands it out.
public struct Row {
  enum Source {
    /// A prepared SQLite statement positioned on a row.
    case sqlite(OpaquePointer)
    /// One row of a PostgreSQL result.
    case postgres(PostgresRow)
  }

  let source: Source

  init(_ source: Source) { self.source = source }

  public func int64(at index: Int32) -> Int64 {
    switch source {
    case .sqlite(let statement): sqlite3_column_int64(statement, index)
    case .postgres(let row): row.int64(at: index)
    }
  }

  public func string(at index: Int32) -> String {
    switch source {
    case .sqlite(let statement):
      guard let text = sqlite3_column_text(statement, index) else { return "" }
      let count = Int(sqlite3_column_bytes(statement, index))
      return count == 0 ? "" : String(decoding: UnsafeBufferPointer(start: text, count: count), as: UTF8.self)
    case .postgres(let row): return row.string(at: index)
    }
  }

  /// The column's text as UTF-8 bytes ("" for NULL), borrowed for `body`: no String made.
  public func withUTF8<Result>(at index: Int32, _ body: (UnsafeBufferPointer<UInt8>) -> Result) -> Result {
    switch source {
    case .sqlite(let statement):
      let text = sqlite3_column_text(statement, index)
      return body(
        UnsafeBufferPointer(start: text, count: text == nil ? 0 : Int(sqlite3_column_bytes(statement, index)))
      )
    case .postgres(let row): return body(row.bytes(at: index))
    }
  }

  /// The column holds '' (or NULL): most rows leave most text columns so.
  public func isEmptyText(at index: Int32) -> Bool {
    switch source {
    case .sqlite(let statement): sqlite3_column_bytes(statement, index) == 0
    case .postgres(let row): row.bytes(at: index).isEmpty
    }
  }

  public func isNull(at index: Int32) -> Bool {
    switch source {
    case .sqlite(let statement): sqlite3_column_type(statement, index) == SQLITE_NULL
    case .postgres(let row): row.isNull(at: index)
    }
  }

  /// Milliseconds since 1970 as a Date.
  public func date(at index: Int32) -> Date { Date(millisecondsSince1970: int64(at: index)) }

  public func value(at index: Int32) -> SQLValue {
    switch source {
    case .sqlite(let statement):
      switch sqlite3_column_type(statement, index) {
      case SQLITE_INTEGER: .integer(int64(at: index))
      case SQLITE_FLOAT: .real(sqlite3_column_double(statement, index))
      case SQLITE_NULL: .null
      default: .text(string(at: index))
      }
    case .postgres(let row): row.value(at: index)
    }
  }
}

extension Date {
  /// The store's time representation: whole milliseconds since 1970 UTC.
  public init(millisecondsSince1970 ms: Int64) { self.init(timeIntervalSince1970: Double(ms) / 1000) }
  public var millisecondsSince1970: Int64 { Int64((timeIntervalSince1970 * 1000).rounded()) }
}
