import CSQLite
import Foundation

/// The embedded engine: one SQLite file (or an in-memory database for tests).
///
/// Own commits are seen through SQLite's update hook; other processes' through
/// `PRAGMA data_version` (about 1.5 µs), polled while someone observes.
@DatabaseActor
final class SQLiteEngine: StorageEngine {
  private let configuration: DatabaseConfiguration
  private var open: SQLiteConnection?
  private var lastDataVersion: Int64?
  /// The file opened (device and inode), to notice it being deleted or replaced under us.
  private var openedFile: FileIdentity?

  init(configuration: DatabaseConfiguration) {
    self.configuration = configuration
  }

  var writeAttempts: Int { 1 }  // BEGIN IMMEDIATE serializes writers; nothing to retry
  var pollInterval: Duration { configuration.externalChangePollInterval }

  func connection() throws(StoreError) -> any Connection { try sqliteConnection() }

  private func sqliteConnection() throws(StoreError) -> SQLiteConnection {
    if let open { return open }
    let connection = try FileOpener(configuration: configuration).open()
    try Migrator(configuration: configuration).migrate(connection)
    if case .file(let url) = configuration.location { openedFile = FileIdentity(path: url.path) }
    lastDataVersion = try connection.scalar("PRAGMA data_version")?.int64
    open = connection
    return connection
  }

  func beginRead(_ connection: any Connection) throws(StoreError) {
    try connection.execute("BEGIN")
  }

  func beginWrite(_ connection: any Connection) throws(StoreError) {
    let connection = try sqliteConnection()
    try checkFileIsStillOurs(connection)
    if configuration.readOnly || connection.isReadOnly { throw .readOnly(path: configuration.displayPath) }
    // IMMEDIATE takes the write lock now: a deferred transaction that later writes can fail
    // with SQLITE_BUSY_SNAPSHOT, which the busy timeout does not retry.
    try connection.execute("BEGIN IMMEDIATE")
  }

  func takeCommittedChanges() throws(StoreError) -> CommittedChanges {
    try sqliteConnection().takeDirtyTables()
  }

  func afterCommit() {
    open?.checkpointIfLong()
  }

  func discardChanges() {
    open?.discardDirtyTables()
  }

  func externalChanges() -> ExternalChange {
    guard let open, case .file = configuration.location else { return .none }
    do {
      try checkFileIsStillOurs(open)
      let current = try open.scalar("PRAGMA data_version")?.int64
      defer { lastDataVersion = current }
      guard let last = lastDataVersion, current != last else { return .none }
      return .changed([])  // data_version says something changed, not what: refresh all
    } catch {
      return .failed(error)  // a file's errors do not pass by themselves
    }
  }

  func operationFailed(with error: StoreError) {}

  func close() { open = nil }

  // MARK: - Maintenance

  func integrityCheck() throws(StoreError) -> [String] {
    let connection = try sqliteConnection()
    var problems: [String] = []
    try connection.query("PRAGMA integrity_check") { row throws(StoreError) in problems.append(row.string(at: 0)) }
    return problems
  }

  /// `VACUUM INTO` a new file that appt creates (0600, like the database itself); an
  /// existing path of any kind is refused and left alone (`BackupFile`).
  func backup(to url: URL) throws(StoreError) {
    let connection = try sqliteConnection()
    let file = try BackupFile(url)
    do {
      try connection.run("VACUUM INTO ?", [.text(file.stagingFile)])
    } catch {
      file.discard()
      throw error
    }
    try file.publish()
  }

  /// Refuses to go on when the file at our path is no longer the one we opened (deleted,
  /// renamed over, or overwritten with something that is not SQLite): writing would land in
  /// an unlinked file and be lost, and closing would checkpoint our pages into a stranger's
  /// file. About 10 µs (a stat, and a 16-byte read through SQLite's own handle) before each
  /// write and each poll.
  func checkFileIsStillOurs(_ connection: SQLiteConnection) throws(StoreError) {
    guard let openedFile, case .file(let url) = configuration.location else { return }
    if FileIdentity(path: url.path) == openedFile, Self.looksLikeSQLite(connection.readHeader(count: 16)) { return }
    connection.disableCheckpointOnClose()
    throw StoreError.replaced(path: url.path)
  }

  /// True unless the header has content that is not SQLite's (a new file can still be empty,
  /// all zeros here, while its pages sit in the WAL).
  nonisolated static func looksLikeSQLite(_ header: [UInt8]?) -> Bool {
    guard let header else { return false }
    return header.allSatisfy { $0 == 0 } || header == Array("SQLite format 3".utf8) + [0]
  }
}

/// A file's device and inode: the same path can come to name another file.
struct FileIdentity: Equatable {
  let device: UInt64
  let inode: UInt64

  init?(path: String) {
    var info = stat()
    guard stat(path, &info) == 0 else { return nil }
    device = UInt64(info.st_dev)
    inode = UInt64(info.st_ino)
  }
}
