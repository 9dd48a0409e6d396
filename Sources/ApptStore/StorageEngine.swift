import Foundation

/// One SQL engine's side of `AsyncDatabase`: opening (and migrating), transactions, and how
/// commits become known, its own and other clients'. `AsyncDatabase` keeps everything the
/// engines share: the transaction skeleton, observers, versions and polling.
@DatabaseActor
protocol StorageEngine: AnyObject {
  /// The connection, opened and migrated on first use (and, for a server, after a loss).
  func connection() throws(StoreError) -> any Connection
  /// Starts a read transaction: one consistent state for everything the body reads.
  func beginRead(_ connection: any Connection) throws(StoreError)
  /// Starts a write transaction, after checking the store can take writes.
  func beginWrite(_ connection: any Connection) throws(StoreError)
  /// How many times a write is tried when the engine reports a serialization failure.
  var writeAttempts: Int { get }
  /// What the committed transaction changed (no table: it changed nothing).
  func takeCommittedChanges() throws(StoreError) -> CommittedChanges
  /// After a commit and the observers it concerned: upkeep kept off the commit's own path
  /// (SQLite copies a long WAL back into the file).
  func afterCommit()
  /// Forgets what a rolled-back transaction wrote.
  func discardChanges()
  /// What other clients did since the last call. Called only while someone observes.
  func externalChanges() -> ExternalChange
  /// How often `externalChanges` is asked.
  var pollInterval: Duration { get }
  /// "ok", or what is wrong.
  func integrityCheck() throws(StoreError) -> [String]
  /// A consistent copy in a new file.
  func backup(to url: URL) throws(StoreError)
  /// Called when an operation failed with `error`: a lost connection is dropped so the next
  /// use reconnects.
  func operationFailed(with error: StoreError)
  func close()
}

/// What one of our own transactions changed, as the engine saw it: the tables, and how many
/// row changes each took (SQLite: each insert, update or delete of a row, from its update
/// hook; PostgreSQL: each row its NOTIFY trigger named, once however often it changed).
/// `AsyncDatabase.write` holds the counts against what the DAO noted it wrote.
struct CommittedChanges: Equatable {
  var tables: Set<String> = []
  var rowChanges: [String: Int] = [:]
}

/// What polling found out about other clients.
enum ExternalChange {
  /// Nothing new.
  case none
  /// Other clients committed changes to these tables.
  case changed(Set<String>)
  /// The store cannot be reached; observers keep their last snapshot and are told why.
  case interrupted(StoreError)
  /// The store is back (after `interrupted`); everything observed must be fetched again.
  case restored
  /// The store failed for good (the file was replaced): observation ends with this error.
  case failed(StoreError)
}
