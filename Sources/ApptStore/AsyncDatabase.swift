import CSQLite
import Foundation

/// The asynchronous, actor-isolated database (the seed's `AsyncRealm`), over one connection.
///
/// Created anywhere (its configuration is immutable); used on `DatabaseActor`. It opens the
/// file lazily, refuses files that are not appt's without touching them, migrates, runs each
/// write as one `BEGIN IMMEDIATE` transaction and tells observers after each commit.
@DatabaseActor
public final class AsyncDatabase {
  public nonisolated let configuration: DatabaseConfiguration
  private var connection: SQLiteConnection?
  private var isClosed = false
  private var observers: [ObjectIdentifier: WeakObserver] = [:]
  private var pollTask: Task<Void, Never>?
  private var lastDataVersion: Int64?
  /// Counts the commits (ours, and other processes' as seen by polling) that changed data.
  public private(set) var version: UInt64 = 0
  /// Counts the snapshots handed to subscribers (see `CollectionSnapshot.sequence`).
  private var deliverySequence: UInt64 = 0
  /// The file opened (device and inode), to notice it being deleted or replaced under us.
  private var openedFile: FileIdentity?
  /// Set once the file was found replaced: every later call fails with it.
  private var failure: StoreError?

  public nonisolated init(configuration: DatabaseConfiguration) {
    self.configuration = configuration
  }

  // MARK: - Transactions

  /// Runs `body` in a read transaction, so it sees one consistent state of the file.
  public func read<T>(_ body: (any Connection) throws(StoreError) -> T) throws(StoreError) -> T {
    let connection = try open()
    try connection.execute("BEGIN")
    do {
      let result = try body(connection)
      try connection.execute("COMMIT")
      return result
    } catch {
      rollback(connection)
      throw error
    }
  }

  /// Runs `body` as one write transaction. A throw rolls everything back; observers hear of
  /// the change only after `COMMIT` succeeded.
  @discardableResult
  public func write<T>(_ body: (any Connection) throws(StoreError) -> T) throws(StoreError) -> T {
    let connection = try open()
    try checkFileIsStillOurs(connection)
    if configuration.readOnly || connection.isReadOnly { throw .readOnly(path: configuration.displayPath) }
    // IMMEDIATE takes the write lock now: a deferred transaction that later writes can fail
    // with SQLITE_BUSY_SNAPSHOT, which the busy timeout does not retry.
    try connection.execute("BEGIN IMMEDIATE")
    let result: T
    do {
      result = try body(connection)
      try connection.execute("COMMIT")
    } catch {
      rollback(connection)
      connection.discardDirtyTables()
      throw error
    }
    let tables = connection.takeDirtyTables()
    if !tables.isEmpty {
      version &+= 1
      notifyObservers(of: tables, connection: connection, fromOtherProcess: false)
    }
    return result
  }

  private func rollback(_ connection: SQLiteConnection) {
    guard connection.isInTransaction else { return }  // SQLite already rolled back
    do {
      try connection.execute("ROLLBACK")
    } catch {
      // The caller is about to throw the error that caused the rollback, which is the one the
      // user can act on; if ROLLBACK itself fails SQLite rolls back when the connection closes.
    }
  }

  /// Closes the connection and finishes every observation stream.
  public func close() {
    isClosed = true
    pollTask?.cancel()
    pollTask = nil
    let live = observers.values.compactMap(\.observer)
    observers.removeAll()
    for observer in live { observer.databaseClosed() }
    connection = nil
  }

  // MARK: - Observers

  func register(_ observer: any DatabaseObserver) {
    observers[ObjectIdentifier(observer)] = WeakObserver(observer: observer)
    startPollingIfNeeded()
  }

  func unregister(_ observer: any DatabaseObserver) {
    observers[ObjectIdentifier(observer)] = nil
  }

  /// Live observers (those whose stream has not ended). Tests use it to prove nothing leaks.
  public var observerCount: Int {
    observers = observers.filter { $0.value.observer != nil }
    return observers.count
  }

  /// The sequence of the newest snapshot handed to a live observer, and whether any observer
  /// has one waiting. A consumer that has received that sequence and sees nothing pending has
  /// seen every commit so far: how tests and benchmarks wait without sleeping.
  public var observationHorizon: (sequence: UInt64, pending: Bool) {
    var horizon: UInt64 = 0
    var pending = false
    for observer in observers.values.compactMap(\.observer) {
      let state = observer.deliveryState
      horizon = max(horizon, state.sequence)
      pending = pending || state.pending
    }
    return (horizon, pending)
  }

  func nextDeliverySequence() -> UInt64 {
    deliverySequence += 1
    return deliverySequence
  }

  /// Refreshes the observers of `tables`, the cheapest first (by their last fetch), so a
  /// day's snapshot is on its way before a month's slower count starts.
  private func notifyObservers(of tables: Set<String>, connection: any Connection, fromOtherProcess: Bool) {
    observers = observers.filter { $0.value.observer != nil }
    let due = observers.values.compactMap(\.observer).filter { !$0.observedTables.isDisjoint(with: tables) }
    for observer in due.sorted(by: { $0.lastFetchDuration < $1.lastFetchDuration }) {
      observer.databaseChanged(connection, version: version, fromOtherProcess: fromOtherProcess)
    }
  }

  /// Other processes' commits are invisible to the update hook; `PRAGMA data_version` (about
  /// 1.5 µs) reveals them. Polled only while someone observes.
  private func startPollingIfNeeded() {
    guard pollTask == nil, case .file = configuration.location else { return }
    let interval = configuration.externalChangePollInterval
    pollTask = Task { [weak self] in
      while true {
        do {
          try await Task.sleep(for: interval)
        } catch {
          return  // cancelled: the database closed
        }
        guard let self, self.pollForExternalChanges() else { return }
      }
    }
  }

  /// Checks once for another process's commit; returns false when polling should stop.
  func pollForExternalChanges() -> Bool {
    guard observerCount > 0, let connection, !isClosed, failure == nil else {
      pollTask = nil
      return false
    }
    do {
      try checkFileIsStillOurs(connection)
      let current = try connection.scalar("PRAGMA data_version")?.int64
      defer { lastDataVersion = current }
      guard let last = lastDataVersion, current != last else { return true }
      version &+= 1
      let allTables = Set(observers.values.compactMap(\.observer).flatMap(\.observedTables))
      notifyObservers(of: allTables, connection: connection, fromOtherProcess: true)
    } catch {
      for observer in observers.values.compactMap(\.observer) { observer.databaseFailed(error) }
    }
    return true
  }

  // MARK: - Maintenance

  /// SQLite's `integrity_check`: `["ok"]` for a healthy file, else what is wrong.
  public func integrityCheck() throws(StoreError) -> [String] {
    let connection = try open()
    var problems: [String] = []
    try connection.query("PRAGMA integrity_check") { row throws(StoreError) in problems.append(row.string(at: 0)) }
    return problems
  }

  /// Writes a consistent, compacted copy to `url` (`VACUUM INTO`), which must not exist yet
  /// or be empty; the copy is created 0600 like the database itself.
  public func backup(to url: URL) throws(StoreError) {
    let connection = try open()
    let path = url.path
    let fd = Glibc.open(path, O_CREAT | O_WRONLY | O_CLOEXEC, 0o600)
    guard fd >= 0 else { throw .cannotOpen(path: path, reason: String(cString: strerror(errno))) }
    var info = stat()
    let size = fstat(fd, &info) == 0 ? info.st_size : 0
    Glibc.close(fd)
    guard size == 0 else { throw .cannotOpen(path: path, reason: "it exists and is not empty; refusing to overwrite") }
    do {
      try connection.run("VACUUM INTO ?", [.text(path)])
    } catch {
      // Leave no half-written or empty copy behind for someone to mistake for a backup.
      unlink(path)
      throw error
    }
  }

  // MARK: - Opening

  /// Opens (and migrates) now, so a caller can report a bad file before doing anything else.
  public func prepare() throws(StoreError) {
    _ = try open()
  }

  /// The connection, opened and migrated on first use.
  public func open() throws(StoreError) -> SQLiteConnection {
    if let failure { throw failure }
    if isClosed { throw .closed }
    if let connection { return connection }
    let connection = try FileOpener(configuration: configuration).open()
    try Migrator(configuration: configuration).migrate(connection)
    if case .file(let url) = configuration.location { openedFile = FileIdentity(path: url.path) }
    lastDataVersion = try connection.scalar("PRAGMA data_version")?.int64
    self.connection = connection
    return connection
  }
}

extension AsyncDatabase {
  /// Refuses to go on when the file at our path is no longer the one we opened (deleted,
  /// renamed over, or overwritten with something that is not SQLite): writing would land in
  /// an unlinked file and be lost, and closing would checkpoint our pages into a stranger's
  /// file. About 10 µs (a stat, and a 16-byte read through SQLite's own handle) before each
  /// write and each poll.
  func checkFileIsStillOurs(_ connection: SQLiteConnection) throws(StoreError) {
    guard let openedFile, case .file(let url) = configuration.location else { return }
    if FileIdentity(path: url.path) == openedFile, Self.looksLikeSQLite(connection.readHeader(count: 16)) { return }
    connection.disableCheckpointOnClose()
    let error = StoreError.replaced(path: url.path)
    failure = error
    throw error
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

extension AsyncDatabase {
  /// True unless the header has content that is not SQLite's (a new file can still be empty,
  /// all zeros here, while its pages sit in the WAL).
  nonisolated static func looksLikeSQLite(_ header: [UInt8]?) -> Bool {
    guard let header else { return false }
    return header.allSatisfy { $0 == 0 } || header == Array("SQLite format 3".utf8) + [0]
  }
}

/// What `AsyncDatabase` asks of an observer; isolated to the actor so no locks are needed.
@DatabaseActor
protocol DatabaseObserver: AnyObject {
  var observedTables: Set<String> { get }
  /// The sequence of the last snapshot handed out, and whether another is waiting.
  var deliveryState: (sequence: UInt64, pending: Bool) { get }
  /// How long its last fetch took (refresh order).
  var lastFetchDuration: Duration { get }
  func databaseChanged(_ connection: any Connection, version: UInt64, fromOtherProcess: Bool)
  func databaseFailed(_ error: StoreError)
  func databaseClosed()
}

/// The registry holds observers weakly: a stream that is dropped frees its observer, and the
/// registry forgets it on the next pass. No token to keep, nothing to leak.
@DatabaseActor
private struct WeakObserver {
  weak var observer: (any DatabaseObserver)?
}
