import Foundation

/// The shared engine: a PostgreSQL database several appt clients use at once.
///
/// Reads run in REPEATABLE READ (one consistent state), writes in SERIALIZABLE, retried by
/// `AsyncDatabase` when another client's transaction wins a race, so a read-check-write in
/// the DAO can never lose an update. Every row change fires `NOTIFY appt_changes` (a trigger
/// from the schema), delivered at commit: this connection LISTENs, so its own commits and
/// other clients' both arrive as notifications, told apart by the sender's backend pid.
@DatabaseActor
final class PostgresEngine: StorageEngine {
  private let configuration: DatabaseConfiguration
  private let url: String
  private let server: String
  private var open: PostgresConnection?
  /// Once connected, a failure to reconnect is a lost connection (the TUI waits it out), not
  /// a failure to start (which ends the program with exit status 3).
  private var hasConnected = false
  /// True from a lost connection until polling has reported the store back.
  private var wasLost = false
  /// Other clients' changes received while doing our own work, reported at the next poll.
  private var externalTables: Set<String> = []
  /// While the server is away, polls try to reconnect no sooner than this, backing off from
  /// the poll interval to 2 s: connecting blocks DatabaseActor (up to `connect_timeout`).
  private var nextReconnect: ContinuousClock.Instant?
  private var reconnectDelay: Duration = .zero

  init(configuration: DatabaseConfiguration) {
    self.configuration = configuration
    if case .postgres(let url) = configuration.location {
      self.url = url
    } else {
      preconditionFailure("PostgresEngine needs a postgres location")
    }
    server = configuration.displayPath
  }

  /// Plenty for 8 writers hammering one table; each retry backs off a little longer.
  var writeAttempts: Int { 50 }
  var pollInterval: Duration { configuration.externalChangePollInterval }

  func connection() throws(StoreError) -> any Connection { try postgresConnection() }

  private func postgresConnection() throws(StoreError) -> PostgresConnection {
    if let open, !open.isBroken { return open }
    open = nil
    // Whoever reconnects (a read, a write, a new observation), notifications sent meanwhile
    // are gone: the next poll must report the store restored, so every window refreshes.
    if hasConnected { wasLost = true }
    do {
      let connection = try PostgresConnection(url: url)
      try PostgresMigrator(configuration: configuration).migrate(connection)
      try connection.execute("LISTEN \(Schema.changeChannel)")
      open = connection
      hasConnected = true
      return connection
    } catch .cannotConnect(_, let reason) where hasConnected {
      wasLost = true
      throw .connectionLost(server: server, reason: reason)
    }
  }

  func beginRead(_ connection: any Connection) throws(StoreError) {
    try connection.execute("BEGIN ISOLATION LEVEL REPEATABLE READ, READ ONLY")
  }

  func beginWrite(_ connection: any Connection) throws(StoreError) {
    if configuration.readOnly { throw .readOnly(path: server) }
    try connection.execute("BEGIN ISOLATION LEVEL SERIALIZABLE")
  }

  /// Our own notifications arrive with the COMMIT's reply; others' may have come in too.
  func takeCommittedChanges() throws(StoreError) -> CommittedChanges {
    try drainNotifications()
  }

  func afterCommit() {}  // the server keeps its own WAL

  func discardChanges() {}  // a rollback sends no notifications

  /// Reads what has arrived: returns what our own commits changed (each row's notification
  /// says "table id"; the server sends one per distinct payload in a transaction), and keeps
  /// the tables other clients changed for the next poll.
  @discardableResult
  private func drainNotifications() throws(StoreError) -> CommittedChanges {
    guard let open else { return CommittedChanges() }
    var own = CommittedChanges()
    for notification in try open.takeNotifications() where notification.channel == Schema.changeChannel {
      let table = String(notification.payload.prefix { $0 != " " })
      if notification.pid == open.backendPID {
        own.tables.insert(table)
        own.rowChanges[table, default: 0] += 1
      } else {
        externalTables.insert(table)
      }
    }
    return own
  }

  func externalChanges() -> ExternalChange {
    if wasLost || open == nil || open?.isBroken == true {
      guard hasConnected else { return .none }
      if open == nil || open?.isBroken == true {
        let now = ContinuousClock.now
        if let nextReconnect, now < nextReconnect { return .none }
        do {
          _ = try postgresConnection()
        } catch {
          reconnectDelay = min(max(reconnectDelay * 2, pollInterval), .seconds(2))
          nextReconnect = now + reconnectDelay
          return .interrupted(error)
        }
      }
      wasLost = false
      nextReconnect = nil
      reconnectDelay = .zero
      externalTables = []
      return .restored  // notifications sent while we were away are lost: refresh everything
    }
    do {
      try drainNotifications()
    } catch {
      operationFailed(with: error)
      return .interrupted(error)
    }
    guard !externalTables.isEmpty else { return .none }
    defer { externalTables = [] }
    return .changed(externalTables)
  }

  func operationFailed(with error: StoreError) {
    switch error {
    case .connectionLost, .commitUncertain:
      open = nil
      wasLost = true
    default: break
    }
  }

  func close() { open = nil }

  var backendPID: Int32? { open?.backendPID }

  // MARK: - Maintenance

  /// The constraints live in the schema, so PostgreSQL itself keeps the rows sound; this
  /// checks what appt relies on besides: the schema version, and that every row reads back.
  func integrityCheck() throws(StoreError) -> [String] {
    let connection = try postgresConnection()
    var problems: [String] = []
    let version = try connection.scalar("SELECT max(version) FROM appt_schema")?.int64 ?? 0
    if version != Int64(configuration.schemaVersion) {
      problems.append("schema version \(version), expected \(configuration.schemaVersion)")
    }
    try connection.query(
      "SELECT id FROM appointment WHERE NOT (end_ms >= start_ms) OR status NOT IN ('scheduled', 'cancelled') LIMIT 10"
    ) { row throws(StoreError) in problems.append("appointment \(row.string(at: 0)) is unsound") }
    return problems.isEmpty ? ["ok"] : problems
  }

  /// Copies the database into a new appt SQLite file that appt creates (an existing path of
  /// any kind is refused and left alone, `BackupFile`): one consistent snapshot of every
  /// table the schema has, readable anywhere with `appt --db FILE`. (pg_dump remains the way
  /// to back up the server itself.)
  func backup(to url: URL) throws(StoreError) {
    let source = try postgresConnection()
    let file = try BackupFile(url)
    do {
      try copy(from: source, into: URL(fileURLWithPath: file.stagingFile))
    } catch {
      file.discard()
      throw error
    }
    try file.publish()
  }

  /// Fills the new SQLite file at `url`; the copy's connection is closed when this returns,
  /// so its WAL is checkpointed into the file before it is published.
  private func copy(from source: PostgresConnection, into url: URL) throws(StoreError) {
    let target = DatabaseConfiguration(location: .file(url), migrations: configuration.migrations)
    let sqlite = try FileOpener(configuration: target).open()
    try Migrator(configuration: target).migrate(sqlite)
    try source.execute("BEGIN ISOLATION LEVEL REPEATABLE READ, READ ONLY")
    defer {
      do { try source.execute("COMMIT") } catch {
        // A read-only transaction: nothing to lose; the copy's own outcome is what counts.
      }
    }
    try sqlite.execute("BEGIN IMMEDIATE")
    for table in try Self.tables(of: sqlite) {
      // The new file's own migrations filled some rows (the `personal` calendar): the
      // server's rows replace them.
      _ = try sqlite.run("DELETE FROM \(table)", [])
      let columns = try Self.columns(of: table, in: sqlite)
      let list = columns.joined(separator: ", ")
      let insert =
        "INSERT INTO \(table) (\(list)) VALUES (\(Array(repeating: "?", count: columns.count).joined(separator: ", ")))"
      try source.query("SELECT \(list) FROM \(table)", []) { row throws(StoreError) in
        try sqlite.run(insert, (0..<Int32(columns.count)).map(row.value(at:)))
      }
    }
    try sqlite.execute("COMMIT")
  }

  /// The appt tables of an SQLite file (the schema's, not SQLite's own).
  private static func tables(of connection: SQLiteConnection) throws(StoreError) -> [String] {
    var names: [String] = []
    try connection.query(
      "SELECT name FROM sqlite_schema WHERE type = 'table' AND name NOT LIKE 'sqlite_%' ORDER BY name",
      []
    ) { row throws(StoreError) in names.append(row.string(at: 0)) }
    return names
  }

  private static func columns(of table: String, in connection: SQLiteConnection) throws(StoreError) -> [String] {
    var names: [String] = []
    try connection.query("SELECT name FROM pragma_table_info(?) ORDER BY cid", [.text(table)]) {
      row throws(StoreError) in names.append(row.string(at: 0))
    }
    return names
  }
}

/// Brings a PostgreSQL database to the current schema: the same append-only list of steps as
/// SQLite, with the applied versions in an `appt_schema` table. One transaction under an
/// advisory lock, so two clients starting together on a new database cannot both migrate.
struct PostgresMigrator {
  let configuration: DatabaseConfiguration

  /// "appt" in ASCII: the advisory lock key that serializes migrations.
  private static let lockKey: Int64 = 0x6170_7074

  func migrate(_ connection: PostgresConnection) throws(StoreError) {
    let server = connection.path
    try connection.execute("BEGIN")
    do throws(StoreError) {
      _ = try connection.run("SELECT pg_advisory_xact_lock(?)", [.integer(Self.lockKey)])
      if try connection.scalar("SELECT to_regclass('appt_schema') IS NULL") == .integer(1) {
        if try connection.scalar("SELECT to_regclass('appointment') IS NOT NULL") == .integer(1) {
          throw StoreError.cannotOpen(
            path: server,
            reason: "it has an \"appointment\" table that appt did not create; refusing to touch it"
          )
        }
        try connection.execute(
          """
          CREATE TABLE appt_schema (
            version integer PRIMARY KEY CHECK (version > 0),
            name text NOT NULL,
            applied_at timestamptz NOT NULL DEFAULT now()
          )
          """
        )
      }
      let current = Int(try connection.scalar("SELECT coalesce(max(version), 0) FROM appt_schema")?.int64 ?? 0)
      let known = configuration.schemaVersion
      if current > known { throw StoreError.newerSchema(path: server, found: current, known: known) }
      if current < known, configuration.readOnly { throw StoreError.readOnly(path: server) }
      for index in current..<known {
        let migration = configuration.migrations[index]
        do throws(StoreError) {
          try migration.migrate(connection, on: .postgres)
          _ = try connection.run(
            "INSERT INTO appt_schema (version, name) VALUES (?, ?)",
            [.integer(Int64(index + 1)), .text(migration.name)]
          )
        } catch .connectionLost(let server, let reason) {
          throw .connectionLost(server: server, reason: reason)
        } catch {
          throw .migrationFailed(name: migration.name, reason: error.description)
        }
      }
      try connection.execute("COMMIT")
    } catch {
      if connection.isInTransaction {
        do { try connection.execute("ROLLBACK") } catch {
          // Reported below with the original error; the server rolls back a dropped session.
        }
      }
      throw error
    }
  }
}
