import Foundation

/// How to open a database (the seed's `Realm.Configuration`): where, which schema, how.
public struct DatabaseConfiguration: Sendable {
  public enum Location: Sendable, Equatable {
    /// A file on disk; its directory is created 0700 and a new file 0600.
    case file(URL)
    /// A private in-memory database, for tests that need neither WAL nor other processes.
    case inMemory
    /// A PostgreSQL database, by libpq connection URL (`postgresql://user@host:port/dbname`);
    /// the password comes from it, `PGPASSWORD` or `~/.pgpass`.
    case postgres(url: String)

    /// The location `--db`/`APPT_DB` names: a PostgreSQL URL, or else a file path.
    public static func named(_ name: String) -> Location {
      let lowered = name.lowercased()
      if lowered.hasPrefix("postgresql://") || lowered.hasPrefix("postgres://") { return .postgres(url: name) }
      return .file(URL(fileURLWithPath: name))
    }
  }

  public var location: Location
  /// Ordered, append-only schema steps; the schema version is their count.
  public var migrations: [Migration]
  /// Open for reading only; every write then fails with `StoreError.readOnly`.
  public var readOnly: Bool
  /// How long a writer waits for another process's lock before giving up (milliseconds).
  public var busyTimeout: Int32
  /// How often observed windows check for other clients' commits (SQLite's
  /// `PRAGMA data_version`, PostgreSQL's notifications) and, on PostgreSQL, retry a lost
  /// connection.
  public var externalChangePollInterval: Duration
  /// SQLite's page cache for the file, in KiB; nil keeps SQLite's own (2,000 KiB). A
  /// PostgreSQL server keeps its own cache: ignored there.
  public var pageCacheKiB: Int?

  public init(
    location: Location,
    migrations: [Migration],
    readOnly: Bool = false,
    busyTimeout: Int32 = 10_000,
    externalChangePollInterval: Duration? = nil,
    pageCacheKiB: Int? = nil
  ) {
    self.location = location
    self.migrations = migrations
    self.readOnly = readOnly
    self.busyTimeout = busyTimeout
    self.pageCacheKiB = pageCacheKiB
    // A server pushes notifications, so reading them often costs one non-blocking recv.
    let defaultInterval: Duration = if case .postgres = location { .milliseconds(100) } else { .milliseconds(250) }
    self.externalChangePollInterval = externalChangePollInterval ?? defaultInterval
  }

  public var schemaVersion: Int { migrations.count }

  /// The path (or the server, never with its password) for messages.
  public var displayPath: String {
    switch location {
    case .file(let url): url.path
    case .inMemory: ":memory:"
    case .postgres(let url): PostgresConnection.displayName(of: url)
    }
  }
}

/// The SQL engines appt stores into.
public enum Engine: String, Sendable {
  case sqlite
  case postgres
}

/// One named schema step, for both engines. Runs inside the transaction that also records the
/// new schema version, so a failing step leaves the database exactly as it was. Never edit
/// one once it has shipped.
public struct Migration: Sendable {
  public let name: String
  private let steps: @Sendable (Engine, any Connection) throws(StoreError) -> Void

  /// A step in code, given the engine it runs on.
  public init(name: String, migrate: @escaping @Sendable (Engine, any Connection) throws(StoreError) -> Void) {
    self.name = name
    self.steps = migrate
  }

  /// A step in code that is the same on both engines.
  public init(name: String, migrate: @escaping @Sendable (any Connection) throws(StoreError) -> Void) {
    self.init(name: name) { _, connection throws(StoreError) in try migrate(connection) }
  }

  /// A step that is plain SQL, with each engine's dialect.
  public init(name: String, sqlite: String, postgres: String) {
    self.init(name: name) { engine, connection throws(StoreError) in
      try connection.execute(engine == .sqlite ? sqlite : postgres)
    }
  }

  /// A step that is plain SQL both engines understand.
  public init(name: String, sql: String) {
    self.init(name: name, sqlite: sql, postgres: sql)
  }

  func migrate(_ connection: any Connection, on engine: Engine) throws(StoreError) {
    try steps(engine, connection)
  }
}
