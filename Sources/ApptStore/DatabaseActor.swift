// ApptStore: appt's persistence layer, after the seed articles' design, on SQLite or PostgreSQL.
//
// DatabaseActor (this file) isolates every database call. AsyncDatabase owns the one connection
// and runs transactions over a StorageEngine (SQLiteEngine, PostgresEngine); migrations bring
// a store to the current schema; Persistable and
// DatabaseService give generic CRUD; AppointmentDAO is the app's entry point; observation
// publishes value snapshots through AsyncStream. Only Sendable values leave this module.

import Dispatch

/// The global actor every database call runs on.
///
/// SQLite calls block (fsync on commit takes ~0.2 ms, a busy file up to the busy timeout), so
/// the actor runs on its own serial dispatch queue instead of the two-thread cooperative pool:
/// a slow commit never stalls the main actor's render loop or other tasks.
@globalActor public actor DatabaseActor {
  public static let shared = DatabaseActor()

  private static let executor = DatabaseExecutor()

  public nonisolated var unownedExecutor: UnownedSerialExecutor {
    Self.executor.asUnownedSerialExecutor()
  }
}

/// A serial executor over a dedicated dispatch queue (`DispatchSerialQueue` is not on Linux).
final class DatabaseExecutor: SerialExecutor {
  private let queue = DispatchQueue(label: "appt.database", qos: .userInitiated)

  func enqueue(_ job: consuming ExecutorJob) {
    let job = UnownedJob(job)
    let executor = asUnownedSerialExecutor()
    queue.async { job.runSynchronously(on: executor) }
  }

  func asUnownedSerialExecutor() -> UnownedSerialExecutor {
    UnownedSerialExecutor(ordinary: self)
  }
}
