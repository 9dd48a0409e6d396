import ApptCore
import ApptStore
import ApptTestSupport
import Foundation
import Testing

/// Several connections on one store: separate `AsyncDatabase`s behave like separate processes
/// (their own `sqlite3*`, so `PRAGMA data_version` sees each other's commits; their own
/// PostgreSQL session, so each other's notifications), and a raw SQLite handle plays a
/// foreign process holding locks.
@Suite("Several connections on one store", .hangBackstop)
struct MultiConnectionTests {
  static let query = AppointmentQuery(range: window(december(1), december(2)))

  @Test("an observer on one connection sees a save made through another", arguments: StoreKind.shared)
  func crossConnectionObservation(kind: StoreKind) async throws {
    try await withTimeout {
      try await withSharedStore(kind) { store in
        let a = store.dao()
        let b = store.dao()
        var existing = appointment("existing", from: december(1, 8), to: december(1, 9))
        existing = try await a.saveAppointment(existing)
        var iterator = await a.observeAppointments(Self.query).makeAsyncIterator()
        let first = try await nextSnapshot(&iterator)
        #expect(first.items == [existing])

        // B's commit outside A's window is noticed, re-queried and found irrelevant...
        try await b.saveAppointment(appointment("elsewhere", from: december(7, 9), to: december(7, 10)))
        // ...and the one inside arrives with its index (A polls now rather than at its interval).
        var inside = appointment("from B", from: december(1, 12), to: december(1, 13))
        inside = try await b.saveAppointment(inside)
        await a.database.checkForExternalChanges()
        let next = try await nextSnapshot(&iterator)
        #expect(next.items == [existing, inside])
        #expect(next.change == .update(ChangeSet(insertions: [1])))
        #expect(try await a.getAllAppointments().count == 3)

        // A's own write still reaches A's observer as before.
        try await a.deleteAppointment(id: existing.id)
        let afterDelete = try await nextSnapshot(&iterator)
        #expect(afterDelete.items == [inside])
        #expect(afterDelete.change == .update(ChangeSet(deletions: [0])))
        #expect(afterDelete.fromOtherProcess == false)
        #expect(next.fromOtherProcess)
      }
    }
  }

  @Test("another process's DELETE without WHERE reaches observers")
  func foreignTruncateIsSeen() async throws {
    try await withTimeout {
      let directory = TemporaryDirectory()
      defer { withExtendedLifetime(directory) {} }
      let dao = TestStore.fileDAO(in: directory)
      let one = appointment("one", from: december(1, 9), to: december(1, 10)).atRevision(1)
      let two = appointment("two", from: december(1, 11), to: december(1, 12)).atRevision(1)
      try await dao.service.save(all: [one, two])
      var iterator = await dao.observeAppointments(Self.query).makeAsyncIterator()
      #expect(try await nextSnapshot(&iterator).items == [one, two])

      let other = try RawSQLite(path: directory.file("appt.sqlite3").path)
      try other.execute("DELETE FROM appointment")
      await dao.database.checkForExternalChanges()
      let next = try await nextSnapshot(&iterator)
      #expect(next.items.isEmpty)
      #expect(next.change == .update(ChangeSet(deletions: [0, 1])))
      await dao.database.close()
    }
  }

  /// Regression: tests waited up to 30 s for the poll; they now drive it. With a poll
  /// interval of an hour, only the check can deliver B's commit to A's observer: the real poll
  /// path (`data_version`, PostgreSQL's notifications), run now.
  @Test(
    "checkForExternalChanges delivers another connection's commit without waiting for the poll",
    arguments: StoreKind.shared
  )
  func checkingNowDelivers(kind: StoreKind) async throws {
    try await withTimeout {
      try await withSharedStore(kind, pollInterval: .seconds(3_600)) { store in
        let a = store.dao()
        let b = store.dao()
        var iterator = await a.observeAppointments(Self.query).makeAsyncIterator()
        #expect(try await nextSnapshot(&iterator).items.isEmpty)
        let seen = await a.database.observationHorizon
        var saved = appointment("from B", from: december(1, 12), to: december(1, 13))
        saved = try await b.saveAppointment(saved)
        #expect(await a.database.observationHorizon == seen, "nothing reaches A before it checks")
        await a.database.checkForExternalChanges()
        // SQLite's data_version shows B's commit at once; PostgreSQL's notification reaches A's
        // session a moment after B's COMMIT returns, so A checks until it is there.
        await eventually("A's observer has B's commit pending") {
          if await a.database.observationHorizon.pending { return true }
          await a.database.checkForExternalChanges()
          return false
        }
        let next = try await nextSnapshot(&iterator)
        #expect(next.items == [saved])
        #expect(next.fromOtherProcess)
        // Checking again finds nothing new: the poll's own bookkeeping moved on.
        await a.database.checkForExternalChanges()
        #expect((await a.database.observationHorizon).pending == false)
      }
    }
  }

  @Test("4 connections saving 150 appointments each at once store all 600", arguments: StoreKind.shared)
  func concurrentWriters(kind: StoreKind) async throws {
    try await withSharedStore(kind) { store in
      let daos = (0..<4).map { _ in store.dao() }
      try await withThrowingTaskGroup(of: Void.self) { group in
        for (writer, dao) in daos.enumerated() {
          group.addTask {
            for index in 0..<150 {
              let start = december(1, 8).addingTimeInterval(Double(writer * 150 + index) * 60)
              try await dao.saveAppointment(
                appointment("w\(writer) #\(index)", from: start, to: start.addingTimeInterval(1_800))
              )
            }
          }
        }
        try await group.waitForAll()
      }
      for dao in daos {
        let all = try await dao.getAllAppointments()
        #expect(all.count == 600)
        #expect(Set(all.map(\.id)).count == 600)
      }
      if case .file(let url) = store.location {
        let raw = try RawSQLite(path: url.path, readOnly: true)
        #expect(try raw.integer("SELECT count(*) FROM appointment") == 600)
        #expect(try raw.column("PRAGMA integrity_check") == ["ok"])
      }
      #expect(try await daos[0].database.integrityCheck() == ["ok"])
    }
  }

  @Test("a writer waits for another process's write lock (busy timeout)")
  func waitsForForeignLock() async throws {
    let directory = TemporaryDirectory()
    let dao = TestStore.fileDAO(in: directory)
    try await dao.database.prepare()

    let other = try RawSQLite(path: directory.file("appt.sqlite3").path)
    try other.execute("BEGIN IMMEDIATE")
    let stored = appointment("waited", from: december(1, 9), to: december(1, 10))
    let save = Task { try await dao.saveAppointment(stored) }
    // Give the save time to meet the lock (not asserted: it passes either way).
    try await Task.sleep(for: .milliseconds(100))
    try other.execute("COMMIT")
    _ = try await save.value
    #expect(try await dao.getAllAppointments() == [stored.atRevision(1)])
    await dao.database.close()
  }

  @Test("a lock held past the busy timeout fails the write cleanly")
  func busyTimeoutExpires() async throws {
    let directory = TemporaryDirectory()
    let url = directory.file("appt.sqlite3")
    let dao = fileDAO(at: url, busyTimeout: 50)
    try await dao.database.prepare()
    let other = try RawSQLite(path: url.path)
    try other.execute("BEGIN IMMEDIATE")
    let error = await thrownError {
      try await dao.saveAppointment(appointment("refused", from: december(1, 9), to: december(1, 10)))
    }
    try other.execute("ROLLBACK")
    let storeError = try #require(error as? StoreError)
    #expect(storeError.isStorageFailure)
    if case .sqlite(let code, _) = storeError {
      #expect(code & 0xFF == 5)  // SQLITE_BUSY
    } else {
      Issue.record("expected SQLITE_BUSY, got \(storeError)")
    }
    // Nothing was written, and the next write works.
    #expect(try await dao.getAllAppointments().isEmpty)
    try await dao.saveAppointment(appointment("later", from: december(1, 9), to: december(1, 10)))
    #expect(try await dao.getAllAppointments().count == 1)
    await dao.database.close()
  }

  @Test("a reader on another connection sees every acknowledged write", arguments: StoreKind.shared)
  func acknowledgedWritesAreVisible(kind: StoreKind) async throws {
    try await withSharedStore(kind) { store in
      let writer = store.dao()
      let reader = store.dao()
      for index in 0..<20 {
        var item = appointment("n\(index)", from: december(1, 9), to: december(1, 10))
        item = try await writer.saveAppointment(item)
        #expect(try await reader.getAppointment(id: item.id) == item)
      }
    }
  }
}
