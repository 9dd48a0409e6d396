import ApptCore
import ApptTestSupport
import Foundation
import Testing

@testable import ApptStore

/// What only the PostgreSQL engine does: its schema table, refusing what is not appt's,
/// notifications from any client, and riding out a lost connection. The engine-independent
/// behaviour is covered by the suites parameterized over `StoreKind` (which include it).
@Suite("PostgreSQL engine", .enabled(if: PostgresTestServer.isAvailable), .hangBackstop)
struct PostgresEngineTests {
  static let query = AppointmentQuery(range: window(december(1), december(2)))

  /// A raw connection to the test database `store` made: another client, or an administrator.
  func sql(_ store: TestDatabase) throws -> PostgresConnection {
    guard case .postgres(let url) = store.location else { throw RawSQLiteError(code: 0, message: "not postgres") }
    return try PostgresConnection(url: url)
  }

  @Test("a new database gets every step, recorded by name in appt_schema, with timestamptz columns")
  func migrationsAreRecorded() async throws {
    try await withSharedStore(.postgres) { store in
      let dao = store.dao()
      var saved = appointment("Dentist", from: december(1, 9), to: december(1, 10))
      saved = try await dao.saveAppointment(saved)
      let raw = try sql(store)
      var steps: [String] = []
      try raw.query("SELECT version, name FROM appt_schema ORDER BY version") { row throws(StoreError) in
        steps.append("\(row.int64(at: 0)) \(row.string(at: 1))")
      }
      #expect(steps == Schema.migrations.enumerated().map { "\($0.offset + 1) \($0.element.name)" })
      // The generated timestamptz columns say the same instants as the integer ones.
      let seconds = try raw.scalar("SELECT extract(epoch FROM starts_at)::bigint FROM appointment")
      #expect(seconds == .integer(Int64(december(1, 9).timeIntervalSince1970)))
    }
  }

  @Test("a database with someone else's appointment table is refused and left alone")
  func foreignTableIsRefused() async throws {
    try await withSharedStore(.postgres) { store in
      let raw = try sql(store)
      try raw.execute("CREATE TABLE appointment (name text); INSERT INTO appointment VALUES ('theirs')")
      let error = await thrownError { try await store.dao().database.prepare() }
      #expect((error as? StoreError)?.description.contains("appt did not create") == true)
      #expect(try raw.scalar("SELECT name FROM appointment") == .text("theirs"))
      #expect(try raw.scalar("SELECT to_regclass('appt_schema') IS NULL") == .integer(1))
    }
  }

  @Test("a database from a newer appt is refused: newerSchema, nothing written")
  func newerSchemaIsRefused() async throws {
    try await withSharedStore(.postgres) { store in
      try await store.dao().database.prepare()
      let raw = try sql(store)
      try raw.execute("INSERT INTO appt_schema (version, name) VALUES (99, 'from the future')")
      let error = await thrownError { try await store.dao().database.prepare() }
      guard case .newerSchema(_, let found, let known)? = error as? StoreError else {
        Issue.record("expected newerSchema, got \(String(describing: error))")
        return
      }
      #expect(found == 99 && known == Schema.migrations.count)
    }
  }

  @Test("a database at schema 3 gets search keys for its rows, and appt_fold is dropped")
  func searchKeysAreFilledIn() async throws {
    try await withSharedStore(.postgres) { store in
      let before = DatabaseConfiguration(location: store.location, migrations: Array(Schema.migrations.prefix(3)))
      let old = AsyncDatabase(configuration: before)
      try await old.prepare()
      await old.close()
      let raw = try sql(store)
      try raw.execute(
        """
        INSERT INTO appointment (id, title, start_ms, end_ms, note, created_ms, updated_ms)
        VALUES ('\(AppointmentID())', 'Hauptstraße', 0, 60000, 'Café', 0, 0)
        """
      )
      #expect(try raw.scalar("SELECT to_regprocedure('appt_fold(text)') IS NOT NULL") == .integer(1))
      let dao = store.dao()
      let search = { (text: String) async throws in
        try await dao.appointments(matching: AppointmentQuery(range: nil, search: text)).map(\.title)
      }
      #expect(try await search("STRASSE") == ["Hauptstraße"])
      #expect(try await search("cafe") == ["Hauptstraße"], "the note too")
      #expect(try raw.scalar("SELECT to_regprocedure('appt_fold(text)') IS NULL") == .integer(1))
    }
  }

  @Test("clients opening a new database at once migrate it once")
  func concurrentMigration() async throws {
    try await withSharedStore(.postgres) { store in
      let daos = (0..<6).map { _ in store.dao() }
      try await withThrowingTaskGroup(of: Void.self) { group in
        for dao in daos { group.addTask { try await dao.database.prepare() } }
        try await group.waitForAll()
      }
      #expect(try sql(store).scalar("SELECT count(*) FROM appt_schema") == .integer(Int64(Schema.migrations.count)))
    }
  }

  @Test("a change made in plain SQL by another client reaches observers (the trigger notifies)")
  func plainSQLIsObserved() async throws {
    try await withTimeout {
      try await withSharedStore(.postgres) { store in
        let dao = store.dao()
        var saved = appointment("Dentist", from: december(1, 9), to: december(1, 10))
        saved = try await dao.saveAppointment(saved)
        var iterator = await dao.observeAppointments(Self.query).makeAsyncIterator()
        #expect(try await nextSnapshot(&iterator).items.map(\.title) == ["Dentist"])
        try sql(store).execute("UPDATE appointment SET title = 'Dentist (moved)'")
        let next = try await nextSnapshot(&iterator)
        #expect(next.items.map(\.title) == ["Dentist (moved)"])
        #expect(next.fromOtherProcess)
      }
    }
  }

  @Test("a lost connection interrupts observers, fails writes clearly, and recovers with a refresh")
  func lostConnectionRecovers() async throws {
    try await withTimeout {
      try await withSharedStore(.postgres) { store in
        let dao = store.dao()
        let other = store.dao()
        var first = appointment("before", from: december(1, 9), to: december(1, 10))
        first = try await dao.saveAppointment(first)
        var iterator = await dao.observeAppointments(Self.query).makeAsyncIterator()
        #expect(try await nextSnapshot(&iterator).items == [first])

        // An administrator ends the observing client's session (as a server restart does).
        let admin = try sql(store)
        let pid = try #require(await dao.database.backendPID)
        try admin.execute("SELECT pg_terminate_backend(\(pid))")
        // Meanwhile another client adds one; the notification is lost with the session.
        var during = appointment("during", from: december(1, 11), to: december(1, 12))
        during = try await other.saveAppointment(during)

        // The observer hears of the loss, or straight away of the recovery; either way it
        // ends up with both appointments and no interruption, without being restarted.
        var snapshot = try await nextSnapshot(&iterator)
        if snapshot.interruption != nil {
          #expect(snapshot.items == [first], "the last good items while away")
          snapshot = try await nextSnapshot(&iterator)
        }
        #expect(snapshot.items == [first, during])
        #expect(snapshot.interruption == nil)
        #expect(snapshot.fromOtherProcess)
        // Writes work again on a new session.
        var after = appointment("after", from: december(1, 13), to: december(1, 14))
        after = try await dao.saveAppointment(after)
        #expect(try await nextSnapshot(&iterator).items == [first, during, after])
      }
    }
  }

  @Test("an observation started while the server is away, and one refreshed, both recover")
  func observationsStartedDuringALossRecover() async throws {
    try await withTimeout {
      try await withSharedStore(.postgres) { store in
        let dao = store.dao()
        var first = appointment("before", from: december(1, 9), to: december(1, 10))
        first = try await dao.saveAppointment(first)
        var old = await dao.observeAppointments(Self.query).makeAsyncIterator()
        #expect(try await nextSnapshot(&old).items == [first])

        let pid = try #require(await dao.database.backendPID)
        try sql(store).execute("SELECT pg_terminate_backend(\(pid))")
        var during = appointment("during", from: december(1, 11), to: december(1, 12))
        during = try await store.dao().saveAppointment(during)
        // A new window opens on the dead session, and a read reconnects behind the poll's
        // back (review: neither may leave a window stale or "reconnecting" for good).
        let new = await dao.observeAppointments(Self.query).makeAsyncIterator()
        _ = try await dao.getAllAppointments()

        for var iterator in [old, new] {
          var snapshot = try await nextSnapshot(&iterator)
          while snapshot.interruption != nil || snapshot.items != [first, during] {
            snapshot = try await nextSnapshot(&iterator)
          }
          #expect(snapshot.items == [first, during])
        }
      }
    }
  }

  @Test("a write that loses a race to another session runs again on the fresh row: no update lost")
  func serializationFailuresAreRetried() async throws {
    try await withTimeout {
      try await withSharedStore(.postgres) { store in
        let dao = store.dao()
        let saved = try await dao.saveAppointment(appointment("Dentist", from: december(1, 9), to: december(1, 10)))
        let id = saved.id.description

        // Another session changes the row and holds it, uncommitted...
        let other = try sql(store)
        try other.execute("BEGIN ISOLATION LEVEL SERIALIZABLE")
        try other.run("UPDATE appointment SET note = 'theirs', revision = revision + 1 WHERE id = ?", [.text(id)])
        // ...while appt edits it: its UPDATE waits for the row lock...
        // (It waits on DatabaseActor's queue, which all of this process's connections share.)
        let edit = Task { try await dao.updateAppointment(id: saved.id) { $0.title = "Mine" } }
        let admin = try sql(store)
        try await HangGuard.waiting(for: "appt's UPDATE to wait for the row lock", at: #_sourceLocation) {
          while try admin.scalar("SELECT count(*) FROM pg_locks WHERE NOT granted AND locktype = 'transactionid'")
            != .integer(1)
          {
            try await Task.sleep(for: .milliseconds(10))
          }
        }
        // ...and fails to serialize when the other commits; run again, it applies to theirs.
        try other.execute("COMMIT")
        let edited = try await edit.value
        #expect(edited.title == "Mine")
        #expect(edited.note == "theirs", "the other session's change is kept")
        // An edit based on revision 1 is now stale.
        let refused = await thrownError {
          try await store.dao().updateAppointment(id: saved.id, ifRevision: 1) { $0.note = "late" }
        }
        guard case .staleRevision(let current)? = refused as? StoreError else {
          Issue.record("expected staleRevision, got \(String(describing: refused))")
          return
        }
        #expect(current.note == "theirs")
        let final = try await dao.getAppointment(id: saved.id)
        #expect(final.title == "Mine" && final.note == "theirs" && final.revision == 3)
      }
    }
  }

  @Test("backup writes an appt SQLite file with every row, and refuses to overwrite one")
  func backupToSQLite() async throws {
    try await withSharedStore(.postgres) { store in
      let dao = store.dao()
      for hour in [9, 11, 14] {
        try await dao.saveAppointment(appointment("at \(hour)", from: december(1, hour), to: december(1, hour + 1)))
      }
      let stored = try await dao.getAllAppointments()
      let directory = TemporaryDirectory()
      let copy = directory.file("copy.sqlite3")
      try await dao.database.backup(to: copy)
      let fromCopy = AppointmentDAO(file: copy, clock: TestClock.clock)
      #expect(try await fromCopy.getAllAppointments() == stored)
      #expect(try await fromCopy.database.integrityCheck() == ["ok"])
      await fromCopy.database.close()
      #expect(permissions(copy.path) == 0o600)

      let before = try fileBytes(copy)
      let error = await thrownError { try await dao.database.backup(to: copy) }
      #expect((error as? StoreError)?.description.contains("refusing to overwrite") == true)
      #expect(try fileBytes(copy) == before)
    }
  }

  @Test("a server that cannot be reached at start is cannotConnect, with the host and no password")
  func unreachableServer() async throws {
    let url = "postgresql://appt:hunter2secret@127.0.0.1:1/appt"
    let dao = AppointmentDAO(location: .postgres(url: url))
    let error = await thrownError { try await dao.database.prepare() }
    guard case .cannotConnect(let server, _)? = error as? StoreError else {
      Issue.record("expected cannotConnect, got \(String(describing: error))")
      return
    }
    #expect(server.contains("127.0.0.1"))
    #expect(!String(describing: error!).contains("hunter2secret"))
    #expect((error as? StoreError)?.isStorageFailure == true)
  }
}

/// `make test` starts a PostgreSQL server and sets APPT_REQUIRE_PG: then the suites above must
/// not quietly skip the engine because the server's URL went missing on the way.
@Test("under make test, the store suites run against PostgreSQL too")
func postgresRunsWhenRequired() {
  if ProcessInfo.processInfo.environment["APPT_REQUIRE_PG"] == "1" {
    #expect(PostgresTestServer.isAvailable, "APPT_REQUIRE_PG is set but APPT_TEST_PG is not")
    #expect(StoreKind.allCases.contains(.postgres))
  }
}
