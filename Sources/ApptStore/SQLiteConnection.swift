import CSQLite
import Foundation

/// One SQLite connection: the only owner of a `sqlite3*` in appt.
///
/// Deliberately not `Sendable`. `AsyncDatabase` (isolated to `DatabaseActor`) holds it, so
/// region isolation keeps every use on the actor; `deinit` closes the handle.
public final class SQLiteConnection: Connection {
  /// The rows the current write transaction noted it changed.
  public let journal: WriteJournal? = WriteJournal()
  private let handle: OpaquePointer
  /// The file path (or in-memory name) for messages.
  public let path: String
  private var statements: [String: Statement] = [:]
  /// Tables written since the last commit or rollback, fed by SQLite's update hook.
  private let dirty = DirtyTables()
  /// The write-ahead log's length after the last commit, fed by SQLite's WAL hook.
  private let log = LogLength()

  /// Opens `filename` (a path or an SQLite URI) with `flags`.
  init(filename: String, displayPath: String, flags: Int32) throws(StoreError) {
    var db: OpaquePointer?
    let rc = sqlite3_open_v2(filename, &db, flags | SQLITE_OPEN_NOMUTEX | SQLITE_OPEN_URI, nil)
    guard rc == SQLITE_OK, let db else {
      let reason = db.map { String(cString: sqlite3_errmsg($0)) } ?? String(cString: sqlite3_errstr(rc))
      sqlite3_close_v2(db)
      throw .cannotOpen(path: displayPath, reason: reason)
    }
    handle = db
    path = displayPath
    sqlite3_extended_result_codes(db, 1)
    installUpdateHook()
    installWALHook()
  }

  deinit {
    statements.removeAll()  // finalize before closing; close_v2 would also wait for them
    sqlite3_update_hook(handle, nil, nil)
    sqlite3_wal_hook(handle, nil, nil)
    sqlite3_close_v2(handle)
  }

  // MARK: - Statements

  /// Runs one or more statements that return no rows.
  public func execute(_ sql: String) throws(StoreError) {
    var message: UnsafeMutablePointer<CChar>?
    let rc = sqlite3_exec(handle, sql, nil, nil, &message)
    if rc != SQLITE_OK {
      let osError = errno
      let text = message.map { String(cString: $0) } ?? String(cString: sqlite3_errstr(rc))
      sqlite3_free(message)
      throw error(code: rc, message: text, systemErrno: systemErrno(or: osError))
    }
  }

  /// A prepared statement, cached by its SQL: preparing costs more than running a lookup.
  public func prepare(_ sql: String) throws(StoreError) -> Statement {
    if let cached = statements[sql] {
      cached.reset()
      return cached
    }
    var raw: OpaquePointer?
    let rc = sqlite3_prepare_v3(handle, sql, -1, UInt32(SQLITE_PREPARE_PERSISTENT), &raw, nil)
    guard rc == SQLITE_OK, let raw else { throw lastError(code: rc) }
    let statement = Statement(handle: raw, connection: self)
    statements[sql] = statement
    return statement
  }

  /// Runs `sql` with `bindings` and calls `row` for each result row; the statement is reset after.
  public func query(
    _ sql: String,
    _ bindings: [SQLValue],
    row: (Row) throws(StoreError) -> Void
  ) throws(StoreError) {
    try stream(sql, bindings, batch: 1) { result throws(StoreError) in
      try row(result)
      return true
    }
  }

  /// Steps the statement row by row: SQLite holds no result set, so `batch` does not matter.
  public func stream(
    _ sql: String,
    _ bindings: [SQLValue],
    batch: Int,
    row: (Row) throws(StoreError) -> Bool
  ) throws(StoreError) {
    let statement = try prepare(sql)
    defer { statement.reset() }
    try statement.bind(bindings)
    while try statement.step() {
      guard try row(Row(.sqlite(statement.handle))) else { return }
    }
  }

  /// Runs a statement that returns no rows and reports how many rows it changed.
  @discardableResult
  public func run(_ sql: String, _ bindings: [SQLValue]) throws(StoreError) -> Int {
    let statement = try prepare(sql)
    defer { statement.reset() }
    try statement.bind(bindings)
    while try statement.step() {}
    return Int(sqlite3_changes(handle))
  }

  public var isReadOnly: Bool { sqlite3_db_readonly(handle, "main") == 1 }
  public var isInTransaction: Bool { sqlite3_get_autocommit(handle) == 0 }

  // MARK: - Change tracking

  /// Takes the tables written since the last call, with their row changes (and forgets them).
  func takeDirtyTables() -> CommittedChanges {
    defer { discardDirtyTables() }
    return CommittedChanges(tables: Set(dirty.rowChanges.keys), rowChanges: dirty.rowChanges)
  }

  func discardDirtyTables() { dirty.rowChanges.removeAll(keepingCapacity: true) }

  private func installUpdateHook() {
    // SQLite calls back with a C function pointer and a context pointer. The context is the
    // connection's own DirtyTables box, which lives exactly as long as the hook (removed in
    // deinit), so an unretained reference is sound.
    let context = Unmanaged.passUnretained(dirty).toOpaque()
    sqlite3_update_hook(
      handle,
      { context, _, _, table, _ in
        guard let context, let table else { return }
        Unmanaged<DirtyTables>.fromOpaque(context).takeUnretainedValue().rowChanges[
          String(cString: table),
          default: 0
        ] += 1
      },
      context
    )
  }

  /// Replaces SQLite's auto-checkpoint, which copies the WAL back into the file inside the
  /// COMMIT that makes it long (1,000 pages), so one commit in a few hundred waited for it
  /// (the calendar's commit -> frame p99 at 1M: 8.3 ms against 3.8 ms without). The hook only
  /// notes the length; `checkpointIfLong` copies it, after observers have their snapshots.
  private func installWALHook() {
    let context = Unmanaged.passUnretained(log).toOpaque()
    sqlite3_wal_hook(
      handle,
      { context, _, _, pages in
        if let context { Unmanaged<LogLength>.fromOpaque(context).takeUnretainedValue().pages = pages }
        return SQLITE_OK
      },
      context
    )
  }

  /// The length at which SQLite's auto-checkpoint would have run (`SQLITE_DEFAULT_WAL_AUTOCHECKPOINT`).
  static let checkpointPages: Int32 = 1000

  /// Copies the WAL back into the database file when the last commit left it at least
  /// `checkpointPages` long, as SQLite's auto-checkpoint would have, without waiting for
  /// readers (PASSIVE: a reader's pages stay for the next time; the log is reused from its
  /// start once all of it is copied).
  ///
  /// Upkeep, not part of any commit: like SQLite's auto-checkpoint, which ignores the outcome,
  /// it has nothing to report. A checkpoint that cannot run (another connection's under way,
  /// a full disk) leaves every commit in the WAL, as durable as it was, and is tried again
  /// after the next commit; a full disk is what that commit then reports.
  func checkpointIfLong() {
    guard log.pages >= Self.checkpointPages else { return }
    if sqlite3_wal_checkpoint_v2(handle, nil, SQLITE_CHECKPOINT_PASSIVE, nil, nil) == SQLITE_OK { log.pages = 0 }
  }

  // MARK: - Errors

  /// `osError` is the C `errno` read right after the failing call: SQLite's own record
  /// (`sqlite3_system_errno`) is 0 after a failed COMMIT here, though the write failed with
  /// ENOSPC or EFBIG.
  func lastError(code: Int32, osError: Int32 = 0) -> StoreError {
    error(code: code, message: String(cString: sqlite3_errmsg(handle)), systemErrno: systemErrno(or: osError))
  }

  private func systemErrno(or osError: Int32) -> Int32 {
    let recorded = sqlite3_system_errno(handle)
    return recorded != 0 ? recorded : osError
  }

  /// The first `count` bytes of the database file, read through SQLite's own file handle
  /// (never through a descriptor of ours: closing it would drop SQLite's POSIX locks).
  func readHeader(count: Int) -> [UInt8]? {
    var bytes = [UInt8](repeating: 0, count: count)
    let rc = bytes.withUnsafeMutableBufferPointer { appt_sqlite_read_header(handle, $0.baseAddress, Int32(count)) }
    return rc == SQLITE_OK ? bytes : nil
  }

  /// How long a writer waits for another process's write lock, retrying every fraction of a
  /// millisecond (`appt_sqlite_busy_timeout`) rather than in SQLite's coarse steps.
  func setBusyTimeout(milliseconds: Int32) {
    appt_sqlite_busy_timeout(handle, milliseconds)
  }

  /// Stops SQLite from checkpointing into the file when this connection closes.
  func disableCheckpointOnClose() {
    appt_sqlite_no_checkpoint_on_close(handle)
  }

  /// Maps an SQLite result code (and the OS error behind an I/O error) to the error a user
  /// can act on.
  func error(code: Int32, message: String, systemErrno: Int32 = 0) -> StoreError {
    switch code & 0xFF {
    case SQLITE_FULL: .diskFull(path: path)
    case SQLITE_READONLY: .readOnly(path: path)
    case SQLITE_NOTADB: .notADatabase(path: path)
    case SQLITE_CORRUPT: .corrupt(path: path, reason: message)
    case SQLITE_CONSTRAINT: .constraint(message: message)
    case SQLITE_CANTOPEN: .cannotOpen(path: path, reason: message)
    case SQLITE_IOERR:
      // A full disk, a quota or a file-size limit (ulimit -f) reaches SQLite as a failed write.
      [ENOSPC, EDQUOT, EFBIG].contains(systemErrno) ? .diskFull(path: path) : .sqlite(code: code, message: message + "")
    default: .sqlite(code: code, message: message)
    }
  }
}

/// The update hook's scratch pad: a reference type so the C callback can reach it.
private final class DirtyTables {
  /// Each table written, with how many row changes it took.
  var rowChanges: [String: Int] = [:]
}

/// The WAL hook's scratch pad: its length in pages after the last commit.
private final class LogLength {
  var pages: Int32 = 0
}

/// A prepared statement. Reset right after reading: a statement left on a row holds a read
/// transaction open, which freezes `PRAGMA data_version` and blocks WAL checkpoints.
public final class Statement {
  let handle: OpaquePointer
  private unowned let connection: SQLiteConnection

  fileprivate init(handle: OpaquePointer, connection: SQLiteConnection) {
    self.handle = handle
    self.connection = connection
  }

  deinit { sqlite3_finalize(handle) }

  func reset() {
    sqlite3_reset(handle)
    sqlite3_clear_bindings(handle)
  }

  func bind(_ values: [SQLValue]) throws(StoreError) {
    for (offset, value) in values.enumerated() {
      let index = Int32(offset + 1)
      let rc: Int32
      switch value {
      case .null: rc = sqlite3_bind_null(handle, index)
      case .integer(let int): rc = sqlite3_bind_int64(handle, index, int)
      case .real(let double): rc = sqlite3_bind_double(handle, index, double)
      case .text(var text):
        // An explicit length, not -1: text may hold NUL characters, which must survive intact.
        // The string's own UTF-8 (no C-string copy per value); SQLite copies it (transient),
        // and an empty one gets a pointer of its own, as a null pointer would bind NULL.
        rc = text.withUTF8 { bytes in
          guard let base = bytes.baseAddress else {
            return sqlite3_bind_text(handle, index, "", 0, appt_sqlite_transient())
          }
          return base.withMemoryRebound(to: CChar.self, capacity: bytes.count) {
            sqlite3_bind_text(handle, index, $0, Int32(bytes.count), appt_sqlite_transient())
          }
        }
      }
      guard rc == SQLITE_OK else { throw connection.lastError(code: rc) }
    }
  }

  /// Advances to the next row: true on a row, false when done.
  func step() throws(StoreError) -> Bool {
    let rc = sqlite3_step(handle)
    switch rc {
    case SQLITE_ROW: return true
    case SQLITE_DONE: return false
    default:
      let error = connection.lastError(code: rc, osError: errno)
      sqlite3_reset(handle)
      throw error
    }
  }
}
