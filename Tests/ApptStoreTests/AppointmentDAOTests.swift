import ApptCore
import ApptStore
import ApptTestSupport
import Foundation
import Testing

/// CRUD through `AppointmentDAO`, on an in-memory store and on a real file.
@Suite("AppointmentDAO CRUD")
struct AppointmentDAOTests {
  @Test("save then get and getAll return the same values", arguments: StoreKind.allCases)
  func saveGetRoundTrip(kind: StoreKind) async throws {
    try await withStore(kind) { dao async throws in
      var dentist = appointment(
        "Dentist",
        from: december(1, 10),
        to: december(1, 10, 45),
        note: "bring the X-rays\nsecond line"
      )
      var unicode = appointment("Réunion 🗓️ «équipe»", from: december(2, 9), to: december(2, 17), note: "café ☕️")
      dentist = try await dao.saveAppointment(dentist)
      unicode = try await dao.saveAppointment(unicode)

      #expect(try await dao.getAppointment(id: dentist.id) == dentist)
      #expect(try await dao.getAppointment(id: unicode.id) == unicode)
      #expect(try await dao.getAllAppointments() == [dentist, unicode])
    }
  }

  @Test("an empty store has no appointments", arguments: StoreKind.allCases)
  func emptyStore(kind: StoreKind) async throws {
    try await withStore(kind) { dao async throws in
      #expect(try await dao.getAllAppointments().isEmpty)
      #expect(try await dao.appointments(matching: AppointmentQuery(range: nil)).isEmpty)
    }
  }

  @Test("saving the same id twice updates the row", arguments: StoreKind.allCases)
  func saveIsUpsert(kind: StoreKind) async throws {
    try await withStore(kind) { dao async throws in
      var original = appointment("Dentist", from: december(1, 10), to: december(1, 11))
      original = try await dao.saveAppointment(original)
      original.title = "Dentist (moved)"
      original.start = december(3, 14)
      original.end = december(3, 15, 30)
      original.note = "new note"
      original.updated = TestClock.now.addingTimeInterval(60)
      original = try await dao.saveAppointment(original)

      #expect(try await dao.getAllAppointments() == [original])
      #expect(try await dao.getAppointment(id: original.id) == original)
    }
  }

  @Test("cancel, restore and delete", arguments: StoreKind.allCases)
  func cancelRestoreDelete(kind: StoreKind) async throws {
    try await withStore(kind) { dao async throws in
      let earlier = TestClock.now.addingTimeInterval(-86_400)
      var stored = Appointment(
        title: "Standup",
        start: december(1, 9),
        end: december(1, 9, 15),
        created: earlier,
        updated: earlier
      )
      stored = try await dao.saveAppointment(stored)

      let cancelled = try await dao.cancelAppointment(id: stored.id)
      #expect(cancelled.status == .cancelled)
      #expect(cancelled.updated == TestClock.now)
      #expect(cancelled.created == earlier)
      #expect(try await dao.getAppointment(id: stored.id) == cancelled)
      // A cancelled appointment stays stored (getAll lists everything).
      #expect(try await dao.getAllAppointments() == [cancelled])

      // Cancelling twice changes nothing.
      #expect(try await dao.cancelAppointment(id: stored.id) == cancelled)

      let restored = try await dao.restoreAppointment(id: stored.id)
      #expect(restored.status == .scheduled)
      #expect(try await dao.getAppointment(id: stored.id) == restored)
      #expect(try await dao.restoreAppointment(id: stored.id) == restored)

      let removed = try await dao.deleteAppointment(id: stored.id)
      #expect(removed == restored)
      #expect(try await dao.getAllAppointments().isEmpty)
      await #expect(throws: StoreError.notFound(id: stored.id.description)) {
        try await dao.getAppointment(id: stored.id)
      }
      await #expect(throws: StoreError.notFound(id: stored.id.description)) {
        try await dao.deleteAppointment(id: stored.id)
      }
    }
  }

  @Test("unknown ids throw notFound with the lower-case id", arguments: StoreKind.allCases)
  func unknownIDs(kind: StoreKind) async throws {
    try await withStore(kind) { dao async throws in
      try await dao.saveAppointment(appointment("Other", from: december(1, 9), to: december(1, 10)))
      let missing = try craftedID("DEADBEEF-0000-4000-8000-000000000001")
      let expected = StoreError.notFound(id: "deadbeef-0000-4000-8000-000000000001")
      await #expect(throws: expected) { try await dao.getAppointment(id: missing) }
      await #expect(throws: expected) { try await dao.cancelAppointment(id: missing) }
      await #expect(throws: expected) { try await dao.restoreAppointment(id: missing) }
      await #expect(throws: expected) { try await dao.deleteAppointment(id: missing) }
      #expect(expected.isStorageFailure == false)
      #expect(try await dao.getAllAppointments().count == 1)
    }
  }

  @Test("a failed write does not bump the version; a successful one bumps it once", arguments: StoreKind.allCases)
  func versionCounting(kind: StoreKind) async throws {
    try await withStore(kind) { dao async throws in
      let start = await dao.database.version
      let missing = try craftedID("deadbeef-0000-4000-8000-000000000002")
      _ = await thrownError { try await dao.cancelAppointment(id: missing) }
      #expect(await dao.database.version == start)

      var stored = appointment("A", from: december(1, 9), to: december(1, 10))
      stored = try await dao.saveAppointment(stored)
      #expect(await dao.database.version == start + 1)
      // Cancelling an already-cancelled appointment writes nothing.
      try await dao.cancelAppointment(id: stored.id)
      try await dao.cancelAppointment(id: stored.id)
      #expect(await dao.database.version == start + 2)
    }
  }

  // MARK: - resolveID

  @Test("resolveID finds a unique prefix, in any case", arguments: StoreKind.allCases)
  func resolveUniquePrefix(kind: StoreKind) async throws {
    try await withStore(kind) { dao async throws in
      let first = try craftedID("abcd1234-0000-4000-8000-000000000001")
      let second = try craftedID("abce0000-0000-4000-8000-000000000002")
      let before = try craftedID("abccffff-0000-4000-8000-000000000003")
      for id in [first, second, before] {
        try await dao.saveAppointment(appointment("x", from: december(1, 9), to: december(1, 10), id: id))
      }
      #expect(try await dao.resolveID("abcd") == first)
      #expect(try await dao.resolveID("ABCD12") == first)
      #expect(try await dao.resolveID("abce") == second)
      #expect(try await dao.resolveID("abcc") == before)
      #expect(try await dao.resolveID("abcd1234-0000-4000-8000-00000000000") == first)
    }
  }

  @Test("resolveID accepts a full upper-case UUID", arguments: StoreKind.allCases)
  func resolveFullUpperCase(kind: StoreKind) async throws {
    try await withStore(kind) { dao async throws in
      var stored = appointment("x", from: december(1, 9), to: december(1, 10))
      stored = try await dao.saveAppointment(stored)
      #expect(try await dao.resolveID(stored.id.uuid.uuidString.uppercased()) == stored.id)
      #expect(try await dao.resolveID(stored.id.description) == stored.id)
    }
  }

  @Test("resolveID reports an ambiguous prefix with its candidates in order", arguments: StoreKind.allCases)
  func resolveAmbiguous(kind: StoreKind) async throws {
    try await withStore(kind) { dao async throws in
      let second = try craftedID("abcd5678-0000-4000-8000-000000000002")
      let first = try craftedID("abcd1234-0000-4000-8000-000000000001")
      for id in [second, first] {
        try await dao.saveAppointment(appointment("x", from: december(1, 9), to: december(1, 10), id: id))
      }
      let expected = StoreError.ambiguousID(prefix: "abcd", candidates: [first.description, second.description])
      await #expect(throws: expected) { try await dao.resolveID("abcd") }
      await #expect(throws: expected) { try await dao.resolveID("ABCD") }
      #expect(expected.isStorageFailure == false)
      #expect(try await dao.resolveID("abcd5") == second)
    }
  }

  @Test("resolveID throws notFound for a prefix nobody has", arguments: StoreKind.allCases)
  func resolveUnknown(kind: StoreKind) async throws {
    try await withStore(kind) { dao async throws in
      try await dao.saveAppointment(
        appointment(
          "x",
          from: december(1, 9),
          to: december(1, 10),
          id: try craftedID("abcd1234-0000-4000-8000-000000000001")
        )
      )
      await #expect(throws: StoreError.notFound(id: "ffff")) { try await dao.resolveID("FFFF") }
      await #expect(throws: StoreError.notFound(id: "abcd2")) { try await dao.resolveID("abcd2") }
    }
  }

  // MARK: - Generic layer

  @Test("DatabaseService: save(all:) is one transaction, find, findAll and delete(type:id:)")
  func genericService() async throws {
    let dao = TestStore.memoryDAO()
    let service = dao.service
    // The generic layer stores values as they are: at the revision a first save gives.
    let a = appointment("A", from: december(1, 9), to: december(1, 10)).atRevision(1)
    let b = appointment("B", from: december(2, 9), to: december(2, 10)).atRevision(1)
    let version = await service.database.version
    try await service.save(all: [b, a])
    #expect(await service.database.version == version + 1)
    #expect(try await service.find(type: Appointment.self, id: a.id) == a)
    #expect(try await service.findAll(type: Appointment.self).sorted(by: Appointment.displayOrder) == [a, b])
    #expect(try await service.delete(type: Appointment.self, id: a.id) == true)
    #expect(try await service.delete(type: Appointment.self, id: a.id) == false)
    #expect(try await service.find(type: Appointment.self, id: a.id) == nil)

    // One bad value rolls the whole batch back.
    let c = appointment("C", from: december(3, 9), to: december(3, 10)).atRevision(1)
    let bad = appointment("bad", from: december(3, 9), to: december(3, 8)).atRevision(1)
    let failure = await thrownError { try await service.save(all: [c, bad]) }
    guard case .constraint? = failure as? StoreError else {
      Issue.record("expected a constraint error, got \(String(describing: failure))")
      return
    }
    #expect(try await service.findAll(type: Appointment.self) == [b])
  }

  // MARK: - Schema constraints

  @Test("an appointment ending before its start is refused and changes nothing", arguments: StoreKind.allCases)
  func endBeforeStartIsRefused(kind: StoreKind) async throws {
    try await withStore(kind) { dao async throws in
      var good = appointment("Good", from: december(1, 9), to: december(1, 10))
      good = try await dao.saveAppointment(good)
      let version = await dao.database.version

      let reversed = appointment("Reversed", from: december(1, 10), to: december(1, 9))
      var brokenUpdate = good
      brokenUpdate.end = good.start.addingTimeInterval(-60)
      brokenUpdate.title = "changed"

      for bad in [reversed, brokenUpdate] {
        // The DAO refuses it first (AppointmentRules); below it, the schema's CHECK does.
        let refused = await thrownError { try await dao.saveAppointment(bad) }
        guard case .invalidRequest(let rule)? = refused as? StoreError else {
          Issue.record("expected the DAO's rules to refuse \(bad.title), got \(String(describing: refused))")
          continue
        }
        #expect(rule.contains("is before the start"))
        var row = bad
        row.revision = max(1, bad.revision)  // only the end breaks a CHECK
        let error = await thrownError { [row] in try await dao.service.save(row) }
        guard case .constraint(let message)? = error as? StoreError else {
          Issue.record("expected StoreError.constraint for \(bad.title), got \(String(describing: error))")
          continue
        }
        #expect(message.contains("end_ms >= start_ms"))
        #expect((error as? StoreError)?.isStorageFailure == false)
      }
      #expect(try await dao.getAllAppointments() == [good])
      #expect(await dao.database.version == version)
      // The store still works after the refusals.
      var later = appointment("Later", from: december(2, 9), to: december(2, 10))
      later = try await dao.saveAppointment(later)
      #expect(try await dao.getAllAppointments() == [good, later])
    }
  }

  // MARK: - Values that must survive storage

  @Test("dates keep millisecond precision", arguments: StoreKind.allCases)
  func millisecondPrecision(kind: StoreKind) async throws {
    try await withStore(kind) { dao async throws in
      let start = Date(millisecondsSince1970: 1_796_652_000_123)
      var stored = appointment("ms", from: start, to: Date(millisecondsSince1970: 1_796_652_000_124))
      stored = try await dao.saveAppointment(stored)
      let read = try await dao.getAppointment(id: stored.id)
      #expect(read.start.millisecondsSince1970 == 1_796_652_000_123)
      #expect(read.end.millisecondsSince1970 == 1_796_652_000_124)
    }
  }

  /// Regression: text was once bound with length -1, so SQLite read it as a C string and
  /// stopped at the first NUL ("a\0b" was stored as "a"). PostgreSQL text cannot hold NUL at
  /// all: there it must be refused whole, never cut short. (appt's commands refuse NUL before
  /// the store sees it, and so does the DAO (AppointmentRules); this is the engines' own
  /// guarantee, below the DAO.)
  @Test("text with an embedded NUL is stored whole, or refused whole", arguments: StoreKind.allCases)
  func embeddedNUL(kind: StoreKind) async throws {
    try await withStore(kind) { dao async throws in
      var stored = appointment("before\u{0}after", from: december(1, 9), to: december(1, 10), note: "x\u{0}y")
      let refused = await thrownError { try await dao.saveAppointment(stored) }
      #expect(
        refused as? StoreError
          == .invalidRequest(message: "\"before^@after\": the title holds a NUL byte at character 7")
      )
      stored.revision = 1  // the schema's CHECK: a stored row has a revision
      if kind == .postgres {
        let error = await thrownError { try await dao.service.save(stored) }
        guard case .constraint(let message)? = error as? StoreError else {
          Issue.record("expected a refusal, got \(String(describing: error))")
          return
        }
        #expect(message.contains("NUL"))
        #expect(try await dao.getAllAppointments().isEmpty)
        return
      }
      try await dao.service.save(stored)
      let read = try await dao.getAppointment(id: stored.id)
      #expect(read.title == stored.title)
      #expect(read.note == stored.note)
    }
  }
}
