import ApptCore

/// One subscriber's observation of a query: re-runs the query after relevant commits and hands
/// the newest result to the stream when the subscriber asks for it.
///
/// Pull-based on purpose: a subscriber that cannot keep up gets the latest snapshot, not a
/// backlog, and its change set is computed against the snapshot it actually received.
@DatabaseActor
final class ObservationMailbox<Element: Equatable & Sendable, Key: Hashable & Sendable>: DatabaseObserver {
  let observedTables: Set<String>
  let priority: ObservationPriority
  private let fetch: (any Connection) throws(StoreError) -> [Element]
  /// The result after a write, from the result before and the rows it changed (read on
  /// the connection): nil when it cannot tell, and the query runs.
  private let patch: Patch<Element>?
  /// What change sets match items by.
  private let key: (Element) -> Key
  /// Strong: a stream that outlives its DAO keeps the database (and its polling) alive until
  /// the stream ends. No cycle: the database holds its observers weakly.
  private let database: AsyncDatabase?

  private var delivered: [Element]?
  private var deliveredVersion: UInt64 = 0
  private var deliveredSequence: UInt64 = 0
  private var pending: [Element]?
  private var pendingVersion: UInt64 = 0
  private var pendingFromOtherProcess = false
  /// The version the newest result (`pending ?? delivered`) is the query's answer at: a
  /// patch applies only to the result of the version just before its write.
  private var currentVersion: UInt64?
  private var failure: StoreError?
  /// Why the store cannot be reached now, and what the subscriber was last told of it.
  private var interruption: StoreError?
  private var deliveredInterruption: StoreError?
  private var finished = false
  private var waiter: CheckedContinuation<CollectionSnapshot<Element>?, Never>?

  init(
    database: AsyncDatabase,
    tables: Set<String>,
    priority: ObservationPriority = .window,
    key: @escaping (Element) -> Key,
    patch: Patch<Element>? = nil,
    fetch: @escaping (any Connection) throws(StoreError) -> [Element]
  ) {
    self.database = database
    self.observedTables = tables
    self.priority = priority
    self.patch = patch
    self.key = key
    self.fetch = fetch
  }

  /// Fetches the initial result and registers, in one actor job: no commit can slip between.
  /// A `known` result of the current version is the initial one, not fetched again.
  func start(known: (items: [Element], version: UInt64)? = nil) {
    guard let database else { return finish() }
    if let known, known.version == database.version {
      pending = known.items
      pendingVersion = known.version
      currentVersion = known.version
      database.register(self)
      return
    }
    do {
      pending = try fetchInTransaction(database)
      pendingVersion = database.version
      currentVersion = database.version
      database.register(self)
    } catch .connectionLost(let server, let reason) {
      // The server is away: start empty and say so; the refresh on its return fills it.
      pending = []
      database.register(self)
      databaseInterrupted(.connectionLost(server: server, reason: reason))
    } catch {
      databaseFailed(error)
    }
  }

  /// The stream's pull: the next snapshot, waiting for one if none is ready; nil at the end.
  ///
  /// Nonisolated on purpose: the snapshot is handed over by resuming a continuation, which
  /// runs the subscriber on its own executor at once, instead of queueing the rest of this
  /// function behind whatever else the actor does next (another window's slower refresh).
  nonisolated func next() async -> CollectionSnapshot<Element>? {
    await withCheckedContinuation { continuation in
      Task { @DatabaseActor in self.wait(continuation) }
    }
  }

  private func wait(_ continuation: CheckedContinuation<CollectionSnapshot<Element>?, Never>) {
    if let ready = takeReady() { return continuation.resume(returning: ready) }
    if finished { return continuation.resume(returning: nil) }
    waiter?.resume(returning: nil)
    waiter = continuation
  }

  /// How long the last fetch took: the database refreshes cheap windows first.
  private(set) var lastFetchDuration: Duration = .zero

  /// The subscriber went away (its task was cancelled or the stream ended).
  func cancel() {
    finish()
  }

  var deliveryState: (sequence: UInt64, pending: Bool) {
    (deliveredSequence, pending != nil || (failure != nil && !finished) || interruption != deliveredInterruption)
  }

  // MARK: DatabaseObserver

  func databaseChanged(version: UInt64, rows: ChangedRows?, fromOtherProcess: Bool, restored: Bool) {
    guard !finished, let database else { return }
    do {
      let items: [Element]
      if let patched = try patchedInTransaction(database, rows: rows, version: version) {
        items = patched
      } else {
        items = try fetchInTransaction(database)
      }
      currentVersion = version
      if restored { interruption = nil }
      // Unchanged: say nothing, unless the subscriber still believes the store is away.
      if let baseline = pending ?? delivered, baseline == items, interruption == deliveredInterruption { return }
      pendingFromOtherProcess = (pending != nil && pendingFromOtherProcess) || fromOtherProcess
      pending = items
      pendingVersion = version
      wakeWaiter()
    } catch .connectionLost(let server, let reason) {
      // Not the end: keep the last items; the refresh when the server is back fills them.
      databaseInterrupted(.connectionLost(server: server, reason: reason))
    } catch {
      databaseFailed(error)
    }
  }

  func databaseUnchanged(version: UInt64) {
    if currentVersion == version &- 1 { currentVersion = version }
  }

  /// The result patched with the rows our own write changed, when the last result is the
  /// answer of the version just before it; nil: the query must run.
  private func patchedInTransaction(_ database: AsyncDatabase, rows: ChangedRows?, version: UInt64)
    throws(StoreError) -> [Element]?
  {
    guard let patch, let rows, let baseline = pending ?? delivered, currentVersion == version &- 1 else {
      return nil
    }
    let started = ContinuousClock.now
    guard let items = try database.read({ connection throws(StoreError) in try patch(baseline, rows, connection) })
    else { return nil }
    lastFetchDuration = ContinuousClock.now - started
    database.countPatchedRefresh()
    return items
  }

  /// Runs the query in one read transaction (its statements see one state of the data) and
  /// times it: the database refreshes cheap windows first.
  private func fetchInTransaction(_ database: AsyncDatabase) throws(StoreError) -> [Element] {
    let started = ContinuousClock.now
    defer { lastFetchDuration = ContinuousClock.now - started }
    return try database.read(fetch)
  }

  func databaseInterrupted(_ error: StoreError) {
    guard !finished, interruption == nil else { return }
    interruption = error
    wakeWaiter()
  }

  func databaseFailed(_ error: StoreError) {
    guard !finished, failure == nil else { return }
    failure = error
    database?.unregister(self)
    wakeWaiter()
  }

  func databaseClosed() { finish() }

  // MARK: Delivery

  /// The snapshot `start()` fetched (or its failure), handed out now.
  func takeInitial() -> CollectionSnapshot<Element>? { takeReady() }

  private func takeReady() -> CollectionSnapshot<Element>? {
    if pending == nil, interruption != deliveredInterruption, failure == nil, let delivered {
      pending = delivered  // only the interruption changed: the same items, with it
      pendingVersion = deliveredVersion
    }
    if let items = pending {
      let change: CollectionSnapshot<Element>.Change =
        delivered.map { .update(ChangeSet.diff(from: $0, to: items, key: key)) } ?? .initial
      delivered = items
      deliveredVersion = pendingVersion
      deliveredSequence = database?.nextDeliverySequence() ?? deliveredSequence
      pending = nil
      deliveredInterruption = interruption
      defer { pendingFromOtherProcess = false }
      return CollectionSnapshot(
        items: items,
        change: change,
        version: deliveredVersion,
        sequence: deliveredSequence,
        fromOtherProcess: pendingFromOtherProcess,
        interruption: interruption
      )
    }
    if let failure, !finished {
      finished = true
      let change: CollectionSnapshot<Element>.Change = delivered == nil ? .initial : .update(ChangeSet())
      deliveredSequence = database?.nextDeliverySequence() ?? deliveredSequence
      return CollectionSnapshot(
        items: delivered ?? [],
        change: change,
        version: deliveredVersion,
        sequence: deliveredSequence,
        failure: failure
      )
    }
    return nil
  }

  private func wakeWaiter() {
    guard let waiter, let ready = takeReady() else { return }
    self.waiter = nil
    waiter.resume(returning: ready)
  }

  private func finish() {
    finished = true
    pending = nil
    database?.unregister(self)
    waiter?.resume(returning: nil)
    waiter = nil
  }
}

/// How an observation brings its result up to date from the rows a write changed (see
/// `ObservationMailbox.patch`).
typealias Patch<Element> = ([Element], ChangedRows, any Connection) throws(StoreError) -> [Element]?

/// Which observers a commit refreshes first: the windows a user looks at (the day, the week),
/// then summaries of them (the month panel's marks), so a summary never stands between a
/// commit and the frame that shows it.
public enum ObservationPriority: Int, Comparable, Sendable {
  case window
  case summary

  public static func < (lhs: Self, rhs: Self) -> Bool { lhs.rawValue < rhs.rawValue }
}

extension AsyncDatabase {
  /// A stream of snapshots of `fetch`'s result: the current one first, then one after each
  /// commit that changes it. Ending or dropping the stream ends the observation.
  /// `known`: the result as the subscriber already has it, with the version it was read at.
  /// `priority`: where it stands when a commit refreshes observers (a summary after windows).
  func observe<Element: Equatable & Sendable, Key: Hashable & Sendable>(
    tables: Set<String>,
    key: @escaping (Element) -> Key,
    priority: ObservationPriority = .window,
    known: (items: [Element], version: UInt64)? = nil,
    patch: Patch<Element>? = nil,
    fetch: @escaping (any Connection) throws(StoreError) -> [Element]
  ) -> AsyncStream<CollectionSnapshot<Element>> {
    let mailbox = ObservationMailbox(
      database: self,
      tables: tables,
      priority: priority,
      key: key,
      patch: patch,
      fetch: fetch
    )
    mailbox.start(known: known)
    // The first snapshot goes into the stream now, so the subscriber's first pull needs no
    // hop back onto this actor, where it could wait behind another window's slow first fetch
    // (a new month's busy days when the day changes month).
    let first = FirstSnapshot(mailbox.takeInitial())
    return AsyncStream(
      unfolding: {
        if let snapshot = first.take() { return snapshot }
        return await mailbox.next()
      },
      onCancel: { Task { @DatabaseActor in mailbox.cancel() } }
    )
  }
}

/// Holds a stream's first snapshot until its subscriber pulls it, once.
private final class FirstSnapshot<Element: Sendable & Equatable>: Sendable {
  private let snapshot: Locked<CollectionSnapshot<Element>?>

  init(_ snapshot: CollectionSnapshot<Element>?) {
    self.snapshot = Locked(snapshot)
  }

  func take() -> CollectionSnapshot<Element>? {
    snapshot.withLock { value in
      defer { value = nil }
      return value
    }
  }
}
