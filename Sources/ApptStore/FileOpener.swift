import CSQLite
import Foundation

/// Opens the configured file, refusing anything that is not appt's without changing a byte.
///
/// SQLite would happily open any file and, on the first write (switching to WAL), rewrite its
/// header or create `-wal`/`-shm` files beside it. So the 100-byte header is read directly
/// first: the magic string says whether it is SQLite at all, `application_id` whose it is, and
/// `user_version` whether this build knows its schema.
struct FileOpener {
  let configuration: DatabaseConfiguration

  func open() throws(StoreError) -> SQLiteConnection {
    switch configuration.location {
    case .inMemory:
      return try SQLiteConnection(
        filename: ":memory:",
        displayPath: ":memory:",
        flags: SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE
      )
    case .file(let url):
      return try openFile(at: url)
    case .postgres:
      preconditionFailure("FileOpener opens SQLite locations only")
    }
  }

  private func openFile(at url: URL) throws(StoreError) -> SQLiteConnection {
    let path = url.path
    var info = stat()
    var readOnly = configuration.readOnly
    if stat(path, &info) == 0 {
      guard (info.st_mode & S_IFMT) == S_IFREG else {
        throw .cannotOpen(path: path, reason: "not a regular file")
      }
      if info.st_size > 0 { try inspectHeader(path: path, size: Int(info.st_size)) }
      // Honour the file's mode even for root, who could write anyway: a user who made the
      // calendar read-only meant it.
      if info.st_mode & (S_IWUSR | S_IWGRP | S_IWOTH) == 0 || access(path, W_OK) != 0 { readOnly = true }
    } else if readOnly {
      throw .cannotOpen(path: path, reason: "no such file")
    } else {
      try createFile(at: url)
    }

    let flags = readOnly ? SQLITE_OPEN_READONLY : SQLITE_OPEN_READWRITE
    let connection = try SQLiteConnection(filename: path, displayPath: path, flags: flags)
    connection.setBusyTimeout(milliseconds: configuration.busyTimeout)
    if !readOnly {
      let mode = try connection.scalar("PRAGMA journal_mode = WAL")?.string
      guard mode == "wal" else {
        throw .cannotOpen(
          path: path,
          reason: "cannot switch to write-ahead logging (journal mode \(mode ?? "unknown"))"
        )
      }
      // FULL: a commit is on disk before `add` says so; survives power loss, not only kill -9.
      try connection.execute("PRAGMA synchronous = FULL")
    }
    try connection.execute("PRAGMA foreign_keys = ON")
    if let kib = configuration.pageCacheKiB { try connection.execute("PRAGMA cache_size = -\(kib)") }
    return connection
  }

  /// Creates the directories (0700) and an empty file (0600) before SQLite sees the path.
  private func createFile(at url: URL) throws(StoreError) {
    let path = url.path
    let directory = url.deletingLastPathComponent()
    do {
      try FileManager.default.createDirectory(
        at: directory,
        withIntermediateDirectories: true,
        attributes: [.posixPermissions: 0o700]
      )
    } catch {
      throw .cannotOpen(path: path, reason: "cannot create directory \(directory.path): \(Self.reason(error))")
    }
    let fd = Glibc.open(path, O_CREAT | O_EXCL | O_WRONLY | O_CLOEXEC, 0o600)
    if fd < 0 {
      let code = errno
      // Another process may have created it between our stat and open: then use theirs.
      guard code == EEXIST else {
        throw .cannotOpen(path: path, reason: String(cString: strerror(code)))
      }
      return
    }
    close(fd)
  }

  /// Reads through a read-only, `immutable=1` SQLite connection: it creates no WAL or SHM
  /// file and takes no lock, and SQLite (unlike a descriptor of ours) defers closing a file
  /// another connection of this process has open, so nobody's locks are dropped.
  private func inspectHeader(path: String, size: Int) throws(StoreError) {
    let probe = try SQLiteConnection(
      filename: "file:\(Self.uriEscaped(path))?immutable=1",
      displayPath: path,
      flags: SQLITE_OPEN_READONLY
    )
    let magic = Array("SQLite format 3".utf8) + [0]
    guard size >= 100, let header = probe.readHeader(count: 100), Array(header.prefix(16)) == magic else {
      throw .notADatabase(path: path)
    }
    let userVersion = Int(int32(in: header, at: 60))
    let applicationID = int32(in: header, at: 68)
    if applicationID == Schema.applicationID {
      if userVersion > configuration.schemaVersion {
        throw .newerSchema(path: path, found: userVersion, known: configuration.schemaVersion)
      }
      return
    }
    if applicationID != 0 { throw .foreignDatabase(path: path) }
    // No application id: either an empty database (fine to adopt) or somebody else's.
    do throws(StoreError) {
      let count = try probe.scalar("SELECT count(*) FROM sqlite_schema")?.int64 ?? 0
      // The header and the count are two reads of a file another process may be
      // checkpointing its first migration into: tables with an application id of 0 are a
      // stranger's only if the header, read again after the count, still says 0.
      if count > 0, probe.readHeader(count: 100).map({ int32(in: $0, at: 68) }) != Schema.applicationID {
        throw StoreError.foreignDatabase(path: path)
      }
    } catch {
      if case .sqlite = error { throw StoreError.corrupt(path: path, reason: error.description) }
      throw error
    }
  }

  /// `path` as the path of a `file:` URI: every byte escaped (`%HH`) but those a URI path
  /// keeps as they are (Foundation's `urlPathAllowed`), `%`, `?` and `#` too: what
  /// `addingPercentEncoding(withAllowedCharacters:)` gives with `urlPathAllowed` minus `?#%`,
  /// which cost a quarter of a millisecond of every command (Foundation's character sets).
  static func uriEscaped(_ path: String) -> String {
    let hex = Array("0123456789ABCDEF".utf8)
    var out: [UInt8] = []
    out.reserveCapacity(path.utf8.count)
    for byte in path.utf8 {
      if keptInURIPath(byte) {
        out.append(byte)
      } else {
        out += [UInt8(ascii: "%"), hex[Int(byte >> 4)], hex[Int(byte & 0x0F)]]
      }
    }
    return String(decoding: out, as: UTF8.self)
  }

  /// Unreserved, sub-delimiters but `;`, `:`, `@` and `/` (RFC 3986, 3.3): Foundation's
  /// `urlPathAllowed`.
  private static func keptInURIPath(_ byte: UInt8) -> Bool {
    switch byte {
    case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
      UInt8(ascii: "0")...UInt8(ascii: "9"):
      return true
    default:
      return "-._~!$&'()*+,=:@/".utf8.contains(byte)
    }
  }

  /// The big-endian 32-bit integer at `offset` of an SQLite header.
  private func int32(in header: [UInt8], at offset: Int) -> Int32 {
    header[offset..<offset + 4].reduce(Int32(0)) { ($0 << 8) | Int32($1) }
  }

  private static func reason(_ error: any Error) -> String {
    (error as NSError).localizedFailureReason ?? error.localizedDescription
  }
}

/// Brings a file to the current schema, one named step per transaction.
struct Migrator {
  let configuration: DatabaseConfiguration

  /// How long a migration waits for the write lock, in milliseconds.
  static let migrationBusyTimeout: Int32 = 300_000

  func migrate(_ connection: SQLiteConnection) throws(StoreError) {
    // The header check cannot see commits still in another program's WAL; now that SQLite
    // reads the WAL too, make sure the file is ours (or empty) before writing anything.
    // One statement, so one snapshot: read apart, another process's first migration could
    // commit in between, and its tables would look like a stranger's under application id 0.
    let ownership = "SELECT (SELECT application_id FROM pragma_application_id), (SELECT count(*) FROM sqlite_schema)"
    var applicationID: Int64 = 0
    var objects: Int64 = 0
    try connection.query(ownership) { row throws(StoreError) in
      applicationID = row.int64(at: 0)
      objects = row.int64(at: 1)
    }
    if applicationID != Int64(Schema.applicationID), applicationID != 0 || objects > 0 {
      throw .foreignDatabase(path: connection.path)
    }
    let known = configuration.schemaVersion
    let current = Int(try connection.scalar("PRAGMA user_version")?.int64 ?? 0)
    if current > known {
      throw .newerSchema(path: connection.path, found: current, known: known)
    }
    guard current < known else { return }
    if connection.isReadOnly || configuration.readOnly {
      throw .readOnly(path: connection.path)
    }
    // Processes opening a new file at once wait for the first one's steps, one lock after
    // another: on a loaded machine that is longer than a command's usual wait for the lock.
    connection.setBusyTimeout(milliseconds: max(configuration.busyTimeout, Self.migrationBusyTimeout))
    defer { connection.setBusyTimeout(milliseconds: configuration.busyTimeout) }
    for index in current..<known {
      let migration = configuration.migrations[index]
      try connection.execute("BEGIN IMMEDIATE")
      // Processes opening a new file at once all saw it unmigrated; the first to take the
      // write lock runs the step, and the others find it done once they have the lock.
      let now = Int(try connection.scalar("PRAGMA user_version")?.int64 ?? 0)
      if now > index {
        try connection.execute("COMMIT")
        if now > known { throw .newerSchema(path: connection.path, found: now, known: known) }
        continue
      }
      do {
        try migration.migrate(connection, on: .sqlite)
        try connection.execute("PRAGMA user_version = \(index + 1)")
        if index == 0 { try connection.execute("PRAGMA application_id = \(Schema.applicationID)") }
        try connection.execute("COMMIT")
      } catch {
        if connection.isInTransaction {
          do { try connection.execute("ROLLBACK") } catch {
            // Reported below with the migration's own error; closing rolls back regardless.
          }
        }
        connection.discardDirtyTables()
        throw .migrationFailed(name: migration.name, reason: error.description)
      }
      connection.discardDirtyTables()
      // Each step's log is copied into the file before the next: the WAL holds one step at most.
      connection.checkpointIfLong()
    }
    try reclaimSpace(connection)
  }

  /// A step that rebuilt a table (schema 5, 6) left the old table's pages free inside the
  /// file: a 1M store went from 227 to 434 MB. When more than a quarter of the file is free,
  /// VACUUM gives it back (it runs outside a transaction, and copies the file through the
  /// WAL: a failure, such as a full disk, leaves the store as it was, only larger).
  private func reclaimSpace(_ connection: SQLiteConnection) throws(StoreError) {
    let pages = try connection.scalar("PRAGMA page_count")?.int64 ?? 0
    let free = try connection.scalar("PRAGMA freelist_count")?.int64 ?? 0
    guard free > 256, free * 4 > pages else { return }
    do {
      try connection.execute("VACUUM")
      connection.checkpointIfLong()
    } catch {
      // ok: the migrated store is complete and consistent; only the space is not given back
    }
  }
}
