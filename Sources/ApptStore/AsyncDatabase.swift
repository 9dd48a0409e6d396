import CSQLite
import Foundation
import Synchronization

/// The asynchronous, actor-isolated database (the seed's `AsyncRealm`), over one connection
/// to one of two engines: an SQLite file (the default) or a PostgreSQL server.
///
/// Created anywhere (its configuration is immutable); used on `DatabaseActor`. It opens
/// lazily, refuses stores that are not appt's without touching them, migrates, runs each
/// write as one transaction (retried when PostgreSQL cannot serialize it against another
/// client's) and tells observers after each commit, its own and other clients'.
@DatabaseActor
public final class AsyncDatabase {
  public nonisolated let configuration: DatabaseConfiguration
  private lazy var engine: any StorageEngine = Self.makeEngine(configuration)
  private var isClosed = false
  private var observers: [ObjectIdentifier: WeakObserver] = [:]
  private var pollTask: Task<Void, Never>?
  /// Counts the commits (ours, and other clients' as polling sees them) that changed data.
  public private(set) var version: UInt64 = 0
  /// Counts the snapshots handed to subscribers (see `CollectionSnapshot.sequence`).
  private var deliverySequence: UInt64 = 0
  /// Set once the store failed for good (its file was replaced): every later call fails with it.
  private var failure: StoreError?
  /// Set while a server cannot be reached; observers were told, and are told when it is back.
  private var interruption: StoreError?

  /// Read and write transactions finished (committed or not) by every database of this
  /// process. Tests' hang guards watch it: a test waiting its turn behind other tests' store
  /// work is not hung while this moves.
  package nonisolated static let finishedTransactions = Atomic<UInt64>(0)

  public nonisolated init(configuration: DatabaseConfiguration) {
    self.configuration = configuration
  }

  private static func makeEngine(_ configuration: DatabaseConfiguration) -> any StorageEngine {
    switch configuration.location {
    case .file, .inMemory: SQLiteEngine(configuration: configuration)
    case .postgres: PostgresEngine(configuration: configuration)
    }
  }

  // MARK: - Transactions

  /// Runs `body` in a read transaction, so it sees one consistent state of the data.
  public func read<T>(_ body: (any Connection) throws(StoreError) -> T) throws(StoreError) -> T {
    defer { Self.finishedTransactions.add(1, ordering: .relaxed) }
    let connection = try open()
    do {
      try engine.beginRead(connection)
      let result = try body(connection)
      try connection.execute("COMMIT")
      return result
    } catch {
      rollback(connection)
      throw failed(error)
    }
  }

  /// Runs `body` as one write transaction. A throw rolls everything back; observers hear of
  /// the change only after `COMMIT` succeeded. When PostgreSQL cannot serialize the
  /// transaction against a concurrent one, `body` runs again on the fresh state, so it must
  /// derive everything it writes from what it reads in the transaction.
  @discardableResult
  public func write<T>(_ body: (any Connection) throws(StoreError) -> T) throws(StoreError) -> T {
    defer { Self.finishedTransactions.add(1, ordering: .relaxed) }
    let attempts = engine.writeAttempts
    var attempt = 0
    while true {
      attempt += 1
      let connection = try open()
      connection.journal?.discard()
      let result: T
      var committing = false
      do throws(StoreError) {
        try engine.beginWrite(connection)
        result = try body(connection)
        committing = true
        try connection.execute("COMMIT")
      } catch {
        rollback(connection)
        engine.discardChanges()
        connection.journal?.discard()
        if case .serializationFailure = error, attempt < attempts {
          // Another client won the race; back off a little (growing, jittered) and go again.
          usleep(UInt32.random(in: 0...UInt32(min(attempt, 10) * 2_000)))
          continue
        }
        throw Self.outcomeKnown(failed(error), committing: committing)
      }
      // Committed: whatever happens now, the caller hears of success. A connection lost
      // while reading our own notifications is an interruption, and its end refreshes all.
      do {
        let committed = try engine.takeCommittedChanges()
        let noted = connection.journal?.take()
        if !committed.tables.isEmpty {
          version &+= 1
          notifyObservers(
            of: committed.tables,
            rows: ChangedRows(committed: committed, noted: noted),
            fromOtherProcess: false
          )
        }
        // The snapshots are on their way: a checkpoint now runs while they are drawn.
        engine.afterCommit()
      } catch {
        _ = failed(error)
      }
      return result
    }
  }

  /// A connection lost before COMMIT was sent rolled everything back on the server: say that
  /// nothing was saved. Lost while COMMIT was on its way, the outcome is unknown: say so.
  private static func outcomeKnown(_ error: StoreError, committing: Bool) -> StoreError {
    guard case .connectionLost(let server, let reason) = error else { return error }
    return committing
      ? .commitUncertain(server: server, reason: reason)
      : .connectionLost(server: server, reason: reason + "; nothing was saved")
  }

  private func rollback(_ connection: any Connection) {
    guard connection.isInTransaction else { return }  // the engine already rolled back
    do {
      try connection.execute("ROLLBACK")
    } catch {
      // The caller is about to throw the error that caused the rollback, which is the one the
      // user can act on; if ROLLBACK itself fails the engine rolls back when the connection
      // closes.
    }
  }

  /// Lets the engine and the observers know of an operation's failure; returns it to throw.
  private func failed(_ error: StoreError) -> StoreError {
    engine.operationFailed(with: error)
    switch error {
    case .connectionLost: interrupt(with: error)
    case .commitUncertain(let server, let reason): interrupt(with: .connectionLost(server: server, reason: reason))
    case .replaced:
      failure = error
      for observer in observers.values.compactMap(\.observer) { observer.databaseFailed(error) }
    default: break
    }
    return error
  }

  /// Closes the connection and finishes every observation stream.
  public func close() {
    isClosed = true
    pollTask?.cancel()
    pollTask = nil
    let live = observers.values.compactMap(\.observer)
    observers.removeAll()
    for observer in live { observer.databaseClosed() }
    engine.close()
  }

  // MARK: - Observers

  func register(_ observer: any DatabaseObserver) {
    observers[ObjectIdentifier(observer)] = WeakObserver(observer: observer)
    if let interruption { observer.databaseInterrupted(interruption) }
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

  /// Refreshes the observers of `tables` (all of them when `tables` is empty): windows before
  /// summaries (`ObservationPriority`), and among them the cheapest first (by their last
  /// fetch), so a day's snapshot is on its way before anything slower starts. `rows`: which
  /// rows changed, when our own write says so exactly (an observer may patch its result).
  /// The others learn that the new version leaves their result as it was.
  private func notifyObservers(
    of tables: Set<String>,
    rows: ChangedRows? = nil,
    fromOtherProcess: Bool,
    restored: Bool = false
  ) {
    observers = observers.filter { $0.value.observer != nil }
    var due: [any DatabaseObserver] = []
    for observer in observers.values.compactMap(\.observer) {
      if tables.isEmpty || !observer.observedTables.isDisjoint(with: tables) {
        due.append(observer)
      } else {
        observer.databaseUnchanged(version: version)
      }
    }
    let order = due.sorted { ($0.priority, $0.lastFetchDuration) < ($1.priority, $1.lastFetchDuration) }
    for observer in order {
      observer.databaseChanged(version: version, rows: rows, fromOtherProcess: fromOtherProcess, restored: restored)
    }
  }

  /// How many observer refreshes patched their result with the rows a write changed instead
  /// of running their query (tests prove the patching is used, and equals the query).
  package private(set) var patchedRefreshes = 0

  func countPatchedRefresh() { patchedRefreshes += 1 }

  private func interrupt(with error: StoreError) {
    guard interruption == nil else { return }
    interruption = error
    for observer in observers.values.compactMap(\.observer) { observer.databaseInterrupted(error) }
    startPollingIfNeeded()
  }

  /// Other clients' commits are invisible to this connection's own change tracking; the
  /// engine finds them (SQLite's `data_version`, PostgreSQL's notifications), polled only
  /// while someone observes. Polling also notices, and recovers from, a lost server.
  private func startPollingIfNeeded() {
    guard pollTask == nil, !isClosed, configuration.location != .inMemory else { return }
    pollTask = Task { [weak self] in
      while let interval = self?.engine.pollInterval {
        do {
          try await Task.sleep(for: interval)
        } catch {
          return  // cancelled: the database closed
        }
        guard let self, self.pollForExternalChanges() else { return }
      }
    }
  }

  /// Checks once for other clients' commits; returns false when polling should stop.
  func pollForExternalChanges() -> Bool {
    guard isPolled else {
      pollTask = nil
      return false
    }
    applyExternalChanges()
    return true
  }

  private var isPolled: Bool { observerCount > 0 && !isClosed && failure == nil }

  /// Does now what the next poll would: asks the engine for other clients' commits and
  /// refreshes the observers they concern. Tests call it instead of waiting for the poll
  /// interval; with nobody observing there is no one to tell, and it does nothing.
  package func checkForExternalChanges() {
    guard isPolled else { return }
    applyExternalChanges()
  }

  /// One poll: what the engine found out about other clients, passed on to the observers.
  private func applyExternalChanges() {
    switch engine.externalChanges() {
    case .none:
      break
    case .changed(let tables):
      refreshObservers(of: tables, restored: false)
    case .interrupted(let error):
      interrupt(with: error)
    case .restored:
      interruption = nil
      refreshObservers(of: [], restored: true)
    case .failed(let error):
      failure = error
      for observer in observers.values.compactMap(\.observer) { observer.databaseFailed(error) }
    }
  }

  private func refreshObservers(of tables: Set<String>, restored: Bool) {
    version &+= 1
    notifyObservers(of: tables, fromOtherProcess: true, restored: restored)
  }

  // MARK: - Maintenance

  /// The engine's check: SQLite's `integrity_check`, `["ok"]` for a healthy file, else what
  /// is wrong; PostgreSQL's schema and constraint checks.
  public func integrityCheck() throws(StoreError) -> [String] {
    _ = try open()
    do { return try engine.integrityCheck() } catch { throw failed(error) }
  }

  /// Writes a consistent copy to `url`, a new file appt creates: a path that exists (of any
  /// kind, even an empty file) is refused and left as it was (SQLite's `VACUUM INTO`; from
  /// PostgreSQL an SQLite copy of every table).
  public func backup(to url: URL) throws(StoreError) {
    _ = try open()
    do { try engine.backup(to: url) } catch { throw failed(error) }
  }

  /// The PostgreSQL session's backend pid (nil on SQLite, or when not connected): what an
  /// administrator sees in `pg_stat_activity`.
  public var backendPID: Int32? {
    (engine as? PostgresEngine)?.backendPID
  }

  // MARK: - Opening

  /// Opens (and migrates) now, so a caller can report a bad store before doing anything else.
  public func prepare() throws(StoreError) {
    _ = try open()
  }

  /// The connection, opened and migrated on first use.
  public func open() throws(StoreError) -> any Connection {
    if let failure { throw failure }
    if isClosed { throw .closed }
    do { return try engine.connection() } catch { throw failed(error) }
  }
}

/// What `AsyncDatabase` asks of an observer; isolated to the actor so no locks are needed.
@DatabaseActor
protocol DatabaseObserver: AnyObject {
  var observedTables: Set<String> { get }
  /// Windows are refreshed before summaries.
  var priority: ObservationPriority { get }
  /// The sequence of the last snapshot handed out, and whether another is waiting.
  var deliveryState: (sequence: UInt64, pending: Bool) { get }
  /// How long its last fetch took (refresh order).
  var lastFetchDuration: Duration { get }
  /// The store changed; `restored` when it is reachable again after an interruption (the
  /// observer must then publish even an unchanged result, to clear the interruption).
  /// `rows`: what our own write changed, exactly where it is known.
  func databaseChanged(version: UInt64, rows: ChangedRows?, fromOtherProcess: Bool, restored: Bool)
  /// A commit reached `version` without touching what the observer reads.
  func databaseUnchanged(version: UInt64)
  /// The store cannot be reached for now: keep the last snapshot, and say why.
  func databaseInterrupted(_ error: StoreError)
  func databaseFailed(_ error: StoreError)
  func databaseClosed()
}

/// The registry holds observers weakly: a stream that is dropped frees its observer, and the
/// registry forgets it on the next pass. No token to keep, nothing to leak.
@DatabaseActor
private struct WeakObserver {
  weak var observer: (any DatabaseObserver)?
}
