import ApptCore

/// Everything the store can refuse or fail at, as a value a user can act on.
///
/// `isStorageFailure` separates the file's problems (exit 3) from the request's (exit 1).
public enum StoreError: Error, Equatable, Sendable, CustomStringConvertible {
  /// The file or its directory cannot be opened or created.
  case cannotOpen(path: String, reason: String)
  /// The file exists but is not an SQLite database.
  case notADatabase(path: String)
  /// An SQLite database, but not one of appt's.
  case foreignDatabase(path: String)
  /// Written by a newer appt: refused so an old build cannot damage it.
  case newerSchema(path: String, found: Int, known: Int)
  /// SQLite reports the file as damaged.
  case corrupt(path: String, reason: String)
  /// The file (or its directory) cannot be written.
  case readOnly(path: String)
  /// No space left to commit.
  case diskFull(path: String)
  /// The file was deleted or replaced while appt had it open; appt stopped writing to it.
  case replaced(path: String)
  /// A migration step failed; the file was left as it was.
  case migrationFailed(name: String, reason: String)
  /// Any other SQLite error, with the code and SQLite's message.
  case sqlite(code: Int32, message: String)
  /// The PostgreSQL server cannot be reached or refused us (`server` is `host:port/dbname`,
  /// never with a password); `reason` is libpq's.
  case cannotConnect(server: String, reason: String)
  /// The connection to the PostgreSQL server broke (a failed write's reason says that nothing
  /// was saved); appt reconnects by itself.
  case connectionLost(server: String, reason: String)
  /// The connection broke while the server was committing: the change may or may not have
  /// been saved (the only case where appt cannot say which).
  case commitUncertain(server: String, reason: String)
  /// Any other PostgreSQL error, with its SQLSTATE and the server's message.
  case postgres(sqlState: String, message: String)
  /// PostgreSQL could not serialize this transaction against a concurrent one (SQLSTATE
  /// 40001/40P01). `AsyncDatabase` retries the transaction; users see it only if retries run out.
  case serializationFailure(message: String)
  /// The store was closed.
  case closed
  /// No appointment has this id or prefix.
  case notFound(id: String)
  /// The prefix matches more than one appointment.
  case ambiguousID(prefix: String, candidates: [String])
  /// The schema refused the values (a CHECK or NOT NULL constraint).
  case constraint(message: String)
  /// A request that does not fit the appointment (no occurrence that day, not a series...).
  case invalidRequest(message: String)
  /// The change was based on an older revision than the stored one: someone else changed the
  /// appointment in between, so nothing was written. `current` is what is stored now.
  case staleRevision(current: Appointment)

  /// True when the file or the engine failed (exit 3), false when the request did (exit 1).
  public var isStorageFailure: Bool {
    switch self {
    case .notFound, .ambiguousID, .constraint, .invalidRequest, .staleRevision: false
    default: true
    }
  }

  public var description: String {
    switch self {
    case .cannotOpen(let path, let reason): "cannot open \(path): \(reason)"
    case .notADatabase(let path): "\(path) is not an SQLite database; refusing to touch it"
    case .foreignDatabase(let path): "\(path) is an SQLite database without appt's schema; refusing to touch it"
    case .newerSchema(let path, let found, let known):
      "\(path) was created by a newer appt (schema \(found), this build knows \(known))"
    case .corrupt(let path, let reason): "\(path) is corrupt: \(reason)"
    case .readOnly(let path): "\(path) is read-only"
    case .diskFull(let path): "disk full: cannot write \(path)"
    case .replaced(let path):
      "\(path) was deleted or replaced by another program; appt stopped writing to it (restart appt)"
    case .migrationFailed(let name, let reason): "migration \"\(name)\" failed: \(reason); the file is unchanged"
    case .sqlite(let code, let message): "database error \(code): \(message)"
    case .cannotConnect(let server, let reason): "cannot connect to PostgreSQL at \(server): \(reason)"
    case .connectionLost(let server, let reason):
      "lost the connection to PostgreSQL at \(server) (\(reason))"
    case .commitUncertain(let server, let reason):
      "lost the connection to PostgreSQL at \(server) while it was committing (\(reason)); "
        + "the change may or may not have been saved: check before doing it again"
    case .postgres(let sqlState, let message): "PostgreSQL error \(sqlState): \(message)"
    case .serializationFailure(let message): "too many concurrent writers; try again (\(message))"
    case .closed: "the database is closed"
    case .notFound(let id): "no appointment with id \(id)"
    case .ambiguousID(let prefix, let candidates):
      "id \(prefix) is ambiguous; it matches \(candidates.joined(separator: ", "))"
    case .constraint(let message): "refused by the database: \(message)"
    case .invalidRequest(let message): message
    case .staleRevision(let current):
      "\(current.id.description.prefix(8)) was changed by someone else (now revision \(current.revision)); nothing changed"
    }
  }
}
