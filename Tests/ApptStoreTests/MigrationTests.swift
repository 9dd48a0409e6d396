import ApptCore
import ApptStore
import ApptTestSupport
import Foundation
import Testing

/// Schema migrations: `PRAGMA user_version` counts the steps applied; each step commits with
/// its version bump or not at all.
///
/// Fixture files of shipped schema versions (SchemaFixtureTests) need a `resources:` entry for
/// `Fixtures` in Package.swift; the tests here generate their v1 files with the DAO instead.
@Suite("Migrations")
struct MigrationTests {
  /// The schema version this build ships (every shipped migration applied).
  static let current = Schema.migrations.count

  /// A step beyond the shipped ones, as a future build would add.
  static let next = Migration(name: "add colour", sql: "ALTER TABLE appointment ADD COLUMN colour TEXT")

  /// The appointment table's columns in the file. A set: the file has them in the order the
  /// schema's steps added them, `Appointment.table` lists the ones a row reads first.
  static func columns(_ url: URL) throws -> Set<String> {
    let raw = try RawSQLite(path: url.path, readOnly: true)
    return Set(try raw.column("SELECT name FROM pragma_table_info('appointment') ORDER BY cid"))
  }

  static func userVersion(_ url: URL) throws -> Int64 {
    try RawSQLite(path: url.path, readOnly: true).integer("PRAGMA user_version")
  }

  @Test("a v1 file opened again is not migrated again: bytes and data intact")
  func reopeningIsNoOp() async throws {
    let directory = TemporaryDirectory()
    let url = directory.file("appt.sqlite3")
    let first = fileDAO(at: url)
    let items = [
      appointment("Dentist", from: december(1, 10), to: december(1, 10, 45), note: "bring the x-rays"),
      appointment("会議 🎉", from: december(2, 9), to: december(2, 10)),
      appointment("Cancelled one", from: december(3, 9), to: december(3, 10), status: .cancelled),
      appointment("Multi-day conference", from: december(4), to: december(6)),
    ].map { $0.atRevision(1) }
    try await first.service.save(all: items)
    await first.database.close()
    #expect(try Self.userVersion(url) == Int64(Self.current))
    let bytes = try fileBytes(url)

    let again = fileDAO(at: url)
    try await again.database.prepare()
    #expect(try await again.getAllAppointments() == items)
    await again.database.close()
    #expect(try fileBytes(url) == bytes)
    #expect(try Self.userVersion(url) == Int64(Self.current))
    #expect(try Self.columns(url) == Set(Appointment.table.columns))
  }

  @Test("a new step migrates a v1 file forward, keeping its data")
  func migratesForward() async throws {
    let directory = TemporaryDirectory()
    let url = directory.file("appt.sqlite3")
    let stored = try await FileSafetyTests.makeApptFile(at: url)

    let v2 = fileDAO(at: url, migrations: Schema.migrations + [Self.next])
    #expect(try await v2.getAllAppointments() == [stored])
    await v2.database.close()
    #expect(try Self.userVersion(url) == Int64(Self.current + 1))
    #expect(try Self.columns(url) == Set(Appointment.table.columns + ["colour"]))

    // This build (schema 1) now refuses the file, and leaves it alone.
    try await FileSafetyTests.expectRefused(
      url,
      with: .newerSchema(path: url.path, found: Self.current + 1, known: Self.current)
    )
  }

  @Test("a newer schema still in another connection's WAL is refused too")
  func newerSchemaInWAL() async throws {
    let directory = TemporaryDirectory()
    let url = directory.file("appt.sqlite3")
    _ = try await FileSafetyTests.makeApptFile(at: url)
    // The newer build keeps the file open, so its migration may sit in the WAL, not the header.
    let newer = fileDAO(at: url, migrations: Schema.migrations + [Self.next])
    try await newer.database.prepare()

    let old = fileDAO(at: url)
    await #expect(throws: StoreError.newerSchema(path: url.path, found: Self.current + 1, known: Self.current)) {
      try await old.getAllAppointments()
    }
    await old.database.close()
    #expect(try await newer.getAllAppointments().count == 1)
    await newer.database.close()
  }

  @Test("a failing step leaves the version, the schema and the bytes as they were")
  func failingMigration() async throws {
    let directory = TemporaryDirectory()
    let url = directory.file("appt.sqlite3")
    let stored = try await FileSafetyTests.makeApptFile(at: url)

    let failing = Migration(name: "half done") { connection throws(StoreError) in
      try connection.execute("ALTER TABLE appointment ADD COLUMN mood TEXT")
      try connection.execute("UPDATE appointment SET title = 'damaged'")
      throw StoreError.constraint(message: "boom")
    }
    let broken = fileDAO(at: url, migrations: Schema.migrations + [Self.next, failing])
    let expected = StoreError.migrationFailed(
      name: "half done",
      reason: StoreError.constraint(message: "boom").description
    )
    await #expect(throws: expected) { try await broken.getAllAppointments() }
    #expect(expected.isStorageFailure)
    await broken.database.close()

    // Steps before the failing one did commit (each is its own transaction)...
    #expect(try Self.userVersion(url) == Int64(Self.current + 1))
    #expect(try Self.columns(url) == Set(Appointment.table.columns + ["colour"]))
    let atV2 = fileDAO(at: url, migrations: Schema.migrations + [Self.next])
    #expect(try await atV2.getAllAppointments() == [stored])  // the failing step's UPDATE is gone
    await atV2.database.close()

    // ...so check the all-or-nothing property on the failing step alone, from v1 again.
    let fresh = directory.file("fresh.sqlite3")
    let freshStored = try await FileSafetyTests.makeApptFile(at: fresh)
    let freshBytes = try fileBytes(fresh)
    let files = try listing(directory.url)
    let onlyFailing = fileDAO(at: fresh, migrations: Schema.migrations + [failing])
    await #expect(throws: expected) { try await onlyFailing.getAllAppointments() }
    await onlyFailing.database.close()
    #expect(try fileBytes(fresh) == freshBytes)
    #expect(try listing(directory.url) == files)
    #expect(try Self.userVersion(fresh) == Int64(Self.current))
    #expect(try Self.columns(fresh) == Set(Appointment.table.columns))

    // The old schema still opens it, with its data.
    let old = fileDAO(at: fresh)
    #expect(try await old.getAllAppointments() == [freshStored])
    try await old.saveAppointment(appointment("after", from: december(9, 9), to: december(9, 10)))
    #expect(try await old.getAllAppointments().count == 2)
    await old.database.close()
  }

  @Test("a failing first step leaves a new file without a schema, which opens later")
  func failingFirstMigration() async throws {
    let directory = TemporaryDirectory()
    let url = directory.file("appt.sqlite3")
    let failing = Migration(name: "create, then fail") { connection throws(StoreError) in
      try connection.execute("CREATE TABLE appointment (id TEXT)")
      try connection.execute("SELECT * FROM no_such_table")
    }
    let broken = fileDAO(at: url, migrations: [failing])
    let error = await thrownError { try await broken.getAllAppointments() }
    guard case .migrationFailed(let name, let reason)? = error as? StoreError else {
      Issue.record("expected migrationFailed, got \(String(describing: error))")
      return
    }
    #expect(name == "create, then fail")
    #expect(reason.contains("no_such_table"))
    await broken.database.close()
    #expect(try Self.userVersion(url) == 0)
    #expect(try RawSQLite(path: url.path, readOnly: true).integer("PRAGMA application_id") == 0)
    #expect(try RawSQLite(path: url.path, readOnly: true).integer("SELECT count(*) FROM sqlite_schema") == 0)

    let good = fileDAO(at: url)
    try await good.saveAppointment(appointment("a", from: december(1, 9), to: december(1, 10)))
    #expect(try await good.getAllAppointments().count == 1)
    await good.database.close()
    #expect(try Self.userVersion(url) == Int64(Self.current))
  }

  @Test("migrations run in order, once each, on an in-memory store too")
  func inMemoryMigrations() async throws {
    let configuration = DatabaseConfiguration(location: .inMemory, migrations: Schema.migrations + [Self.next])
    let database = AsyncDatabase(configuration: configuration)
    let version = try await database.read { connection throws(StoreError) in
      try connection.scalar("PRAGMA user_version")?.int64
    }
    #expect(version == Int64(Self.current + 1))
    let applicationID = try await database.read { connection throws(StoreError) in
      try connection.scalar("PRAGMA application_id")?.int64
    }
    #expect(applicationID == Int64(Schema.applicationID))
    // The migration bookkeeping is not a change anyone observes.
    #expect(await database.version == 0)
  }
}
