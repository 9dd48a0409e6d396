import Foundation

/// How to open a database (the seed's `Realm.Configuration`): where, which schema, how.
public struct DatabaseConfiguration: Sendable {
  public enum Location: Sendable, Equatable {
    /// A file on disk; its directory is created 0700 and a new file 0600.
    case file(URL)
    /// A private in-memory database, for tests that need neither WAL nor other processes.
    case inMemory
  }

  public var location: Location
  /// Ordered, append-only schema steps; the schema version is their count.
  public var migrations: [Migration]
  /// Open for reading only; every write then fails with `StoreError.readOnly`.
  public var readOnly: Bool
  /// How long a writer waits for another process's lock before giving up (milliseconds).
  public var busyTimeout: Int32
  /// How often observed windows check for other processes' commits (`PRAGMA data_version`).
  public var externalChangePollInterval: Duration

  public init(
    location: Location,
    migrations: [Migration],
    readOnly: Bool = false,
    busyTimeout: Int32 = 10_000,
    externalChangePollInterval: Duration = .milliseconds(250)
  ) {
    self.location = location
    self.migrations = migrations
    self.readOnly = readOnly
    self.busyTimeout = busyTimeout
    self.externalChangePollInterval = externalChangePollInterval
  }

  public var schemaVersion: Int { migrations.count }

  /// The path for messages.
  public var displayPath: String {
    switch location {
    case .file(let url): url.path
    case .inMemory: ":memory:"
    }
  }
}

/// One named schema step. Runs inside the transaction that also bumps `user_version`, so a
/// failing step leaves the file exactly as it was. Never edit one once it has shipped.
public struct Migration: Sendable {
  public let name: String
  public let migrate: @Sendable (any Connection) throws(StoreError) -> Void

  public init(name: String, migrate: @escaping @Sendable (any Connection) throws(StoreError) -> Void) {
    self.name = name
    self.migrate = migrate
  }

  /// A step that is plain SQL.
  public init(name: String, sql: String) {
    self.init(name: name) { connection throws(StoreError) in try connection.execute(sql) }
  }
}
