import ApptCore
import ApptStore
import ApptTestSupport
import Foundation
import Testing

/// Revisions: every write of a row counts up, and a change based on an older revision is
/// refused with what is stored now, changing nothing.
@Suite("Revisions")
struct RevisionTests {
  /// A series on every day of December 2026 at 09:00 (Paris).
  static func daily() -> Appointment {
    Appointment(
      title: "Standup",
      start: december(1, 9),
      end: december(1, 9, 15),
      created: TestClock.now,
      timeZone: "Europe/Paris",
      recurrence: Recurrence(frequency: .daily, count: 31)
    )
  }

  /// Expects `body` to throw `.staleRevision` carrying `current`, and the store to be unchanged.
  static func expectStale(
    _ dao: AppointmentDAO,
    current: Appointment,
    sourceLocation: SourceLocation = #_sourceLocation,
    _ body: () async throws -> Void
  ) async throws {
    let before = try await dao.getAllAppointments()
    let version = await dao.database.version
    let error = await thrownError(body)
    #expect(error as? StoreError == .staleRevision(current: current), sourceLocation: sourceLocation)
    #expect(try await dao.getAllAppointments() == before, "nothing changed", sourceLocation: sourceLocation)
    #expect(await dao.database.version == version, "nothing committed", sourceLocation: sourceLocation)
  }

  @Test("a new appointment is stored at revision 1 and each save counts up", arguments: StoreKind.allCases)
  func saveCountsUp(kind: StoreKind) async throws {
    try await withStore(kind) { dao in
      let fresh = appointment("Dentist", from: december(1, 10), to: december(1, 11))
      #expect(fresh.revision == 0)
      var saved = try await dao.saveAppointment(fresh)
      #expect(saved.revision == 1)
      #expect(try await dao.getAppointment(id: fresh.id) == saved)
      saved.title = "Dentist (moved)"
      let again = try await dao.saveAppointment(saved)
      #expect(again.revision == 2)
      #expect(try await dao.getAppointment(id: fresh.id) == again)
    }
  }

  @Test("saving over a newer revision is refused with the stored version", arguments: StoreKind.allCases)
  func staleSave(kind: StoreKind) async throws {
    try await withStore(kind) { dao in
      let first = try await dao.saveAppointment(appointment("Dentist", from: december(1, 10), to: december(1, 11)))
      var mine = first
      mine.title = "mine"
      var theirs = first
      theirs.title = "theirs"
      let stored = try await dao.saveAppointment(theirs)
      try await Self.expectStale(dao, current: stored) { try await dao.saveAppointment(mine) }
      // A value never stored (revision 0) cannot replace a stored row with its id either.
      try await Self.expectStale(dao, current: stored) { try await dao.saveAppointment(first.atRevision(0)) }
    }
  }

  @Test(
    "a deleted appointment saved again comes back at the next revision (undo of a delete)",
    arguments: StoreKind.allCases
  )
  func reinsertAfterDelete(kind: StoreKind) async throws {
    try await withStore(kind) { dao in
      var stored = try await dao.saveAppointment(appointment("Dentist", from: december(1, 10), to: december(1, 11)))
      stored = try await dao.cancelAppointment(id: stored.id)
      let deleted = try await dao.deleteAppointment(id: stored.id)
      #expect(deleted == stored)
      let back = try await dao.saveAppointment(deleted)
      #expect(back.revision == 3)
      #expect(try await dao.getAppointment(id: stored.id) == back)
    }
  }

  @Test("updateAppointment checks ifRevision, applies the change and counts up", arguments: StoreKind.allCases)
  func update(kind: StoreKind) async throws {
    try await withStore(kind) { dao in
      let stored = try await dao.saveAppointment(appointment("Dentist", from: december(1, 10), to: december(1, 11)))
      let updated = try await dao.updateAppointment(id: stored.id, ifRevision: 1) { $0.title = "Orthodontist" }
      #expect(updated.title == "Orthodontist")
      #expect(updated.revision == 2)
      #expect(updated.updated == TestClock.now)
      #expect(try await dao.getAppointment(id: stored.id) == updated)
      try await Self.expectStale(dao, current: updated) {
        try await dao.updateAppointment(id: stored.id, ifRevision: 1) { $0.title = "lost" }
      }
      // The change cannot move the row to another id or choose its revision.
      let other = AppointmentID()
      let renamed = try await dao.updateAppointment(id: stored.id, ifRevision: 2) {
        $0.id = other
        $0.revision = 99
      }
      #expect(renamed.id == stored.id)
      #expect(renamed.revision == 3)
      #expect(try await dao.getAllAppointments().map(\.id) == [stored.id])
      let missing = await thrownError { try await dao.updateAppointment(id: other) { $0.title = "x" } }
      #expect(missing as? StoreError == .notFound(id: other.description))
    }
  }

  @Test("cancel, restore and delete refuse a stale revision and count up otherwise", arguments: StoreKind.allCases)
  func statusChanges(kind: StoreKind) async throws {
    try await withStore(kind) { dao in
      let stored = try await dao.saveAppointment(appointment("Dentist", from: december(1, 10), to: december(1, 11)))
      let cancelled = try await dao.cancelAppointment(id: stored.id, ifRevision: 1)
      #expect(cancelled.revision == 2)
      #expect(cancelled.status == .cancelled)
      try await Self.expectStale(dao, current: cancelled) {
        try await dao.restoreAppointment(id: stored.id, ifRevision: 1)
      }
      try await Self.expectStale(dao, current: cancelled) {
        try await dao.cancelAppointment(id: stored.id, ifRevision: 1)
      }
      try await Self.expectStale(dao, current: cancelled) {
        try await dao.deleteAppointment(id: stored.id, ifRevision: 1)
      }
      let restored = try await dao.restoreAppointment(id: stored.id, ifRevision: 2)
      #expect(restored.revision == 3)
      #expect(restored.status == .scheduled)
      // Restoring what is not cancelled writes nothing: the revision stays.
      #expect(try await dao.restoreAppointment(id: stored.id, ifRevision: 3).revision == 3)
      let deleted = try await dao.deleteAppointment(id: stored.id, ifRevision: 3)
      #expect(deleted == restored)
      #expect(try await dao.getAllAppointments().isEmpty)
    }
  }

  @Test("without ifRevision a change applies to whatever is stored now", arguments: StoreKind.allCases)
  func noRevisionMeansCurrent(kind: StoreKind) async throws {
    try await withStore(kind) { dao in
      var stored = try await dao.saveAppointment(appointment("Dentist", from: december(1, 10), to: december(1, 11)))
      stored.note = "someone else's"
      stored = try await dao.saveAppointment(stored)
      stored = try await dao.saveAppointment(stored)
      #expect(stored.revision == 3)
      let updated = try await dao.updateAppointment(id: stored.id) { $0.title = "mine" }
      #expect(updated.revision == 4)
      #expect(updated.note == "someone else's")
      #expect(try await dao.cancelAppointment(id: stored.id).revision == 5)
      #expect(try await dao.restoreAppointment(id: stored.id).revision == 6)
      #expect(try await dao.deleteAppointment(id: stored.id).revision == 6)
    }
  }

  @Test("occurrence changes check and bump the series' revision", arguments: StoreKind.allCases)
  func occurrences(kind: StoreKind) async throws {
    try await withStore(kind) { dao in
      let series = try await dao.saveAppointment(Self.daily())
      let day = december(7)
      let cancelled = try await dao.cancelOccurrence(id: series.id, on: day, ifRevision: 1)
      #expect(cancelled.revision == 2, "an occurrence carries its series' revision")
      #expect(cancelled.occurrence == december(7, 9))
      let afterCancel = try await dao.getAppointment(id: series.id)
      #expect(afterCancel.revision == 2)
      try await Self.expectStale(dao, current: afterCancel) {
        try await dao.restoreOccurrence(id: series.id, on: day, ifRevision: 1)
      }
      try await Self.expectStale(dao, current: afterCancel) {
        try await dao.cancelOccurrence(id: series.id, on: december(8), ifRevision: 1)
      }
      try await Self.expectStale(dao, current: afterCancel) {
        try await dao.editOccurrence(id: series.id, on: december(8), ifRevision: 1) { $0.title = "lost" }
      }
      #expect(try await dao.restoreOccurrence(id: series.id, on: day, ifRevision: 2).revision == 3)
      let detached = try await dao.editOccurrence(id: series.id, on: december(8), ifRevision: 3) {
        $0.title = "Standup (moved)"
      }
      #expect(detached.id != series.id)
      #expect(detached.revision == 1, "the occurrence becomes a new appointment")
      #expect(try await dao.getAppointment(id: detached.id) == detached)
      #expect(try await dao.getAppointment(id: series.id).revision == 4)
      // Occurrences listed in a window carry the series' revision, for a change based on them.
      let listed = try await dao.appointments(matching: AppointmentQuery(range: window(december(9), december(10))))
      #expect(listed.map(\.revision) == [4])
    }
  }

  @Test(
    "import: an unchanged event keeps its revision, a changed one counts up, a new one starts at 1",
    arguments: StoreKind.allCases
  )
  func importRevisions(kind: StoreKind) async throws {
    try await withStore(kind) { dao in
      let original = Appointment(
        title: "Dentist",
        start: december(1, 10),
        end: december(1, 11),
        created: TestClock.now,
        uid: "dentist@example.com"
      )
      #expect(try await dao.importAppointments([original]) == (1, 0, 0, 0))
      let stored = try #require(try await dao.getAllAppointments().first)
      #expect(stored.revision == 1)
      // Edited locally (revision 2), then the same file imported again: nothing changes.
      let edited = try await dao.updateAppointment(id: stored.id) { $0.note = "local note" }
      var unchanged = edited
      unchanged.id = AppointmentID()  // a file's event has no revision and maybe another id
      unchanged.revision = 0
      #expect(try await dao.importAppointments([unchanged]) == (0, 0, 1, 0))
      #expect(try await dao.getAppointment(id: stored.id) == edited)
      var changed = unchanged
      changed.title = "Dentist (moved)"
      #expect(try await dao.importAppointments([changed]) == (0, 1, 0, 0))
      let updated = try await dao.getAppointment(id: stored.id)
      #expect(updated.title == "Dentist (moved)")
      #expect(updated.revision == 3)
    }
  }

  @Test("StoreError.staleRevision is a request failure that says what happened")
  func staleDescription() throws {
    let current = appointment(
      "Dentist",
      from: december(1, 10),
      to: december(1, 11),
      id: try craftedID(
        "1a2b3c4d-0000-4000-8000-000000000001"
      )
    ).atRevision(4)
    let error = StoreError.staleRevision(current: current)
    #expect(!error.isStorageFailure)
    #expect(error.description == "1a2b3c4d was changed by someone else (now revision 4); nothing changed")
  }

  // MARK: - Concurrency

  /// Eight writers based on the same revision: exactly one wins, seven are told it changed.
  static func race(_ daos: [AppointmentDAO], id: AppointmentID) async throws -> (won: Int, stale: Int, others: [String])
  {
    try await withThrowingTaskGroup(of: Result<Appointment, StoreError>.self) { group in
      for (index, dao) in daos.enumerated() {
        group.addTask {
          do throws(StoreError) {
            return .success(try await dao.updateAppointment(id: id, ifRevision: 1) { $0.title = "writer \(index)" })
          } catch {
            return .failure(error)
          }
        }
      }
      var won = 0
      var stale = 0
      var others: [String] = []
      for try await result in group {
        switch result {
        case .success: won += 1
        case .failure(.staleRevision(let current)) where current.revision == 2: stale += 1
        case .failure(let error): others.append(error.description)
        }
      }
      return (won, stale, others)
    }
  }

  @Test(
    "8 tasks editing one appointment at the same revision: one succeeds, 7 are stale",
    arguments: StoreKind.allCases
  )
  func raceOnOneDAO(kind: StoreKind) async throws {
    try await withTimeout {
      try await withStore(kind) { dao in
        let stored = try await dao.saveAppointment(appointment("Dentist", from: december(1, 10), to: december(1, 11)))
        let outcome = try await Self.race(Array(repeating: dao, count: 8), id: stored.id)
        #expect(outcome.won == 1)
        #expect(outcome.stale == 7)
        #expect(outcome.others.isEmpty)
        let final = try await dao.getAppointment(id: stored.id)
        #expect(final.revision == 2)
        #expect(final.title.hasPrefix("writer "))
      }
    }
  }

  /// Eight connections of their own (sessions, on PostgreSQL). In one process they take turns
  /// on DatabaseActor, so this checks the revision logic over real connections; sessions that
  /// truly overlap are PostgresEngineTests' retry test and the e2e suite's eight processes.
  @Test(
    "8 connections editing one appointment at the same revision: exactly one succeeds",
    arguments: StoreKind.shared
  )
  func raceOnSeparateConnections(kind: StoreKind) async throws {
    try await withTimeout {
      try await withSharedStore(kind) { store in
        let first = store.dao()
        let stored = try await first.saveAppointment(
          appointment("Dentist", from: december(1, 10), to: december(1, 11))
        )
        let daos = [first] + (1..<8).map { _ in store.dao() }
        let outcome = try await Self.race(daos, id: stored.id)
        #expect(outcome.won == 1)
        #expect(outcome.stale == 7)
        #expect(outcome.others.isEmpty)
        let final = try await store.dao().getAppointment(id: stored.id)
        #expect(final.revision == 2)
      }
    }
  }
}
