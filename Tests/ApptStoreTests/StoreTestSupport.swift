// Helpers shared by the ApptStore tests: a seeded RNG, crafted ids, store fixtures, a raw
// SQLite handle for writing "foreign" files, file inspection.

import ApptCore
import ApptTestSupport
import CSQLite
import Foundation
import Testing

@testable import ApptStore

// MARK: - Deterministic randomness

// SplitMix64 lives in ApptTestSupport, shared with the other test targets.

// MARK: - Values

/// An id spelled out in full, so tests can make ids that share a prefix.
func craftedID(_ text: String, sourceLocation: SourceLocation = #_sourceLocation) throws -> AppointmentID {
  let uuid = try #require(UUID(uuidString: text), "bad crafted id \(text)", sourceLocation: sourceLocation)
  return AppointmentID(uuid)
}

/// Midnight (Paris) starting the given day of December 2026.
func december(_ day: Int, _ hour: Int = 0, _ minute: Int = 0) -> Date {
  TestClock.date(2026, 12, day, hour, minute)
}

/// An appointment from `start` to `end` (explicit, unlike `TestStore.appointment`).
func appointment(
  _ title: String,
  from start: Date,
  to end: Date,
  id: AppointmentID = AppointmentID(),
  note: String = "",
  status: Appointment.Status = .scheduled
) -> Appointment {
  Appointment(id: id, title: title, start: start, end: end, note: note, status: status, created: TestClock.now)
}

/// The window `[from, to)`.
func window(_ from: Date, _ to: Date) -> DateInterval {
  DateInterval(start: from, end: to)
}

// MARK: - Stores

/// The stores a suite runs against. `allCases` holds PostgreSQL when a test server is given
/// (`APPT_TEST_PG`, which `make test` sets), so one parameterized suite covers both engines.
enum StoreKind: String, CaseIterable, Sendable, CustomTestStringConvertible {
  case memory
  case file
  case postgres

  static var allCases: [StoreKind] { [.memory, .file] + (PostgresTestServer.isAvailable ? [.postgres] : []) }

  /// The stores several connections (processes, clients) can share.
  static var shared: [StoreKind] { [.file] + (PostgresTestServer.isAvailable ? [.postgres] : []) }

  var testDescription: String { rawValue }
}

/// Runs `body` with a fresh DAO of `kind`; the store lives until `body` returns.
func withStore<R>(
  _ kind: StoreKind,
  _ body: (AppointmentDAO) async throws -> R
) async throws -> R {
  try await withSharedStore(kind) { store in try await body(store.dao()) }
}

/// Runs `body` with a fresh store of `kind` that it can open several connections to (each
/// `dao()` is a connection of its own, like another process); all are closed after.
func withSharedStore<R>(
  _ kind: StoreKind,
  pollInterval: Duration = .milliseconds(20),
  _ body: (TestDatabase) async throws -> R
) async throws -> R {
  let store = try TestDatabase(kind, pollInterval: pollInterval)
  do {
    let result = try await body(store)
    try await store.remove()
    return result
  } catch {
    try await store.remove()
    throw error
  }
}

/// A fresh store of one kind: a temporary file, a private in-memory database, or a new
/// database on the test PostgreSQL server (dropped by `remove`).
final class TestDatabase: Sendable {
  let kind: StoreKind
  let location: DatabaseConfiguration.Location
  private let directory: TemporaryDirectory?
  private let pollInterval: Duration
  private let opened = Locked<[AppointmentDAO]>([])

  init(_ kind: StoreKind, pollInterval: Duration = .milliseconds(20)) throws {
    self.kind = kind
    self.pollInterval = pollInterval
    switch kind {
    case .memory:
      directory = nil
      location = .inMemory
    case .file:
      let directory = TemporaryDirectory()
      self.directory = directory
      location = .file(directory.file("appt.sqlite3"))
    case .postgres:
      directory = nil
      location = .postgres(url: try PostgresTestServer.createDatabase())
    }
  }

  /// A DAO on a connection of its own (the same one, for an in-memory store).
  func dao(migrations: [Migration] = Schema.migrations, readOnly: Bool = false) -> AppointmentDAO {
    opened.withLock { opened in
      if kind == .memory, let first = opened.first { return first }
      let configuration = DatabaseConfiguration(
        location: location,
        migrations: migrations,
        readOnly: readOnly,
        externalChangePollInterval: pollInterval
      )
      let dao = AppointmentDAO(
        service: DatabaseService(database: AsyncDatabase(configuration: configuration)),
        clock: TestClock.clock
      )
      opened.append(dao)
      return dao
    }
  }

  /// Closes every connection, and drops a PostgreSQL database.
  func remove() async throws {
    for dao in opened.withLock({ $0 }) { await dao.database.close() }
    if case .postgres(let url) = location { try PostgresTestServer.dropDatabase(url: url) }
    withExtendedLifetime(directory) {}
  }
}

/// The throwaway PostgreSQL server `make test` starts (Tests/pg/with-server.sh): each test
/// gets a database of its own, so notifications and data never cross between tests.
enum PostgresTestServer {
  static let url = ProcessInfo.processInfo.environment["APPT_TEST_PG"].flatMap { $0.isEmpty ? nil : $0 }
  static var isAvailable: Bool { url != nil }

  /// Creates an empty database and returns its URL.
  static func createDatabase() throws -> String {
    guard let url, var components = URLComponents(string: url) else {
      throw RawSQLiteError(code: 0, message: "APPT_TEST_PG is not a URL")
    }
    let name = "appt_test_" + String(UInt64.random(in: 0...UInt64.max), radix: 36)
    let admin = try PostgresConnection(url: url)
    try admin.execute("CREATE DATABASE \(name)")
    components.path = "/\(name)"
    return components.string ?? url
  }

  /// Drops the database `url` names, disconnecting whoever is still on it.
  static func dropDatabase(url: String) throws {
    guard let admin = Self.url, let name = URLComponents(string: url)?.path.dropFirst(), name.hasPrefix("appt_test_")
    else { return }
    try PostgresConnection(url: admin).execute("DROP DATABASE IF EXISTS \(name) WITH (FORCE)")
  }
}

/// A DAO with the default schema over `url`, polling other connections' commits every 20 ms.
func fileDAO(
  at url: URL,
  migrations: [Migration] = Schema.migrations,
  readOnly: Bool = false,
  busyTimeout: Int32 = 10_000
)
  -> AppointmentDAO
{
  let configuration = DatabaseConfiguration(
    location: .file(url),
    migrations: migrations,
    readOnly: readOnly,
    busyTimeout: busyTimeout,
    externalChangePollInterval: .milliseconds(20)
  )
  return AppointmentDAO(
    service: DatabaseService(database: AsyncDatabase(configuration: configuration)),
    clock: TestClock.clock
  )
}

/// The error `body` throws, or nil when it returns.
func thrownError<R>(_ body: () async throws -> R) async -> (any Error)? {
  do {
    _ = try await body()
    return nil
  } catch {
    return error
  }
}

// MARK: - Files

func fileBytes(_ url: URL) throws -> Data { try Data(contentsOf: url) }

func listing(_ directory: URL) throws -> [String] {
  try FileManager.default.contentsOfDirectory(atPath: directory.path).sorted()
}

/// The permission bits of `path`, or nil if it does not exist.
func permissions(_ path: String) -> Int? {
  var info = stat()
  guard stat(path, &info) == 0 else { return nil }
  return Int(info.st_mode & 0o7777)
}

func setPermissions(_ path: String, _ mode: mode_t) throws {
  guard chmod(path, mode) == 0 else { throw RawSQLiteError(code: errno, message: "chmod \(path)") }
}

struct RawSQLiteError: Error, CustomStringConvertible {
  let code: Int32
  let message: String
  var description: String { "sqlite \(code): \(message)" }
}

/// A bare SQLite connection, independent of ApptStore: writes files appt did not make, reads
/// headers appt would not show, and holds locks like another process would. Used by one task.
final class RawSQLite {
  private let handle: OpaquePointer

  init(path: String, readOnly: Bool = false) throws {
    var db: OpaquePointer?
    let flags = readOnly ? SQLITE_OPEN_READONLY : (SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE)
    let rc = sqlite3_open_v2(path, &db, flags, nil)
    guard rc == SQLITE_OK, let db else {
      sqlite3_close_v2(db)
      throw RawSQLiteError(code: rc, message: "cannot open \(path)")
    }
    handle = db
    sqlite3_busy_timeout(db, 5_000)
  }

  deinit { sqlite3_close_v2(handle) }

  func execute(_ sql: String) throws {
    var message: UnsafeMutablePointer<CChar>?
    let rc = sqlite3_exec(handle, sql, nil, nil, &message)
    guard rc == SQLITE_OK else {
      let text = message.map { String(cString: $0) } ?? "error"
      sqlite3_free(message)
      throw RawSQLiteError(code: rc, message: text)
    }
  }

  /// The first column of every row, as text.
  func column(_ sql: String) throws -> [String] {
    var statement: OpaquePointer?
    let rc = sqlite3_prepare_v2(handle, sql, -1, &statement, nil)
    guard rc == SQLITE_OK, let statement else {
      throw RawSQLiteError(code: rc, message: String(cString: sqlite3_errmsg(handle)))
    }
    defer { sqlite3_finalize(statement) }
    var values: [String] = []
    while true {
      let step = sqlite3_step(statement)
      if step == SQLITE_DONE { return values }
      guard step == SQLITE_ROW else {
        throw RawSQLiteError(code: step, message: String(cString: sqlite3_errmsg(handle)))
      }
      values.append(sqlite3_column_text(statement, 0).map { String(cString: $0) } ?? "")
    }
  }

  func integer(_ sql: String) throws -> Int64 {
    let first = try #require(try column(sql).first, "no row for \(sql)")
    return try #require(Int64(first), "not an integer: \(first)")
  }
}

// MARK: - Waiting

// withTimeout, eventually, snapshots(of:count:) and nextSnapshot live in ApptTestSupport
// (HangGuard.swift), with the one hang limit every test target shares.

extension AppointmentDAO {
  /// `remoteCalendar`, which must give a calendar (the user has not stopped syncing it).
  func syncedCalendar(account: String, url: String, displayName: String, color: String?) async throws
    -> CalendarInfo
  {
    try #require(try await remoteCalendar(account: account, url: url, displayName: displayName, color: color))
  }
}
