import ApptCore
import ApptStore
import ApptTestSupport
import Foundation
import Testing

/// `AppointmentDAO.observeAppointments`: snapshots of a window on a file store.
///
/// No timing is asserted: a commit notifies observers inside the same `DatabaseActor` job, so
/// once `saveAppointment` returns, whatever it caused is already pending (`observationHorizon`).
/// `withTimeout` only turns a hang into a failure.
@Suite("Observation", .hangBackstop)
struct ObservationTests {
  static let day = window(december(1), december(2))
  static let query = AppointmentQuery(range: day)

  @Test("the first snapshot is .initial with the window's current items", arguments: StoreKind.shared)
  func initialSnapshot(kind: StoreKind) async throws {
    try await withTimeout {
      try await withStore(kind) { dao in
        let late = appointment("late", from: december(1, 18), to: december(1, 19))
        let early = appointment("early", from: december(1, 8), to: december(1, 9))
        let outside = appointment("outside", from: december(5, 8), to: december(5, 9))
        for item in [late, early, outside] { try await dao.saveAppointment(item) }

        var iterator = await dao.observeAppointments(Self.query).makeAsyncIterator()
        let first = try await nextSnapshot(&iterator)
        #expect(first.change == .initial)
        #expect(first.items == [early, late].map { $0.atRevision(1) })
        #expect(first.version == (await dao.database.version))
        #expect(first.failure == nil)
      }
    }
  }

  @Test("a window read ahead is its current items and the version they are of", arguments: StoreKind.shared)
  func readAhead(kind: StoreKind) async throws {
    try await withTimeout {
      try await withStore(kind) { dao in
        let early = try await dao.saveAppointment(appointment("early", from: december(1, 8), to: december(1, 9)))
        _ = try await dao.saveAppointment(appointment("outside", from: december(5, 8), to: december(5, 9)))
        let read = try await dao.prefetchAppointments(matching: Self.query)
        #expect(read.items == [early])
        #expect(read.version == (await dao.database.version))
        #expect(read.version > 0)
      }
    }
  }

  @Test(
    "observing from what was read at the current version starts from it, without reading again",
    arguments: StoreKind.shared
  )
  func startsFromWhatWasRead(kind: StoreKind) async throws {
    try await withTimeout {
      try await withStore(kind) { dao in
        let early = try await dao.saveAppointment(appointment("early", from: december(1, 8), to: december(1, 9)))
        let version = await dao.database.version
        // Items the store does not hold, of its current version: only if they were not read
        // again can they be the first snapshot.
        let marker = appointment("as the caller had it", from: december(1, 7), to: december(1, 8))
        let known = KnownWindow(items: [marker], version: version)
        var iterator = await dao.observeAppointments(Self.query, known: known).makeAsyncIterator()
        let first = try await nextSnapshot(&iterator)
        #expect(first.items == [marker] && first.version == version && first.change == .initial)
        // Still a live observation. Our own write of a one-off patches the window it started
        // from (taken, as `prefetchAppointments` reads it, for the store's at that version);
        // a write the patch cannot tell (a series) brings the store's window.
        let late = try await dao.saveAppointment(appointment("late", from: december(1, 18), to: december(1, 19)))
        #expect(try await nextSnapshot(&iterator).items == [marker, late])
        var request = AddRequest(title: "series", start: december(1, 20), end: december(1, 21))
        request.recurrence = Recurrence(frequency: .daily, count: 2)
        let series = try await dao.addAppointment(request)
        let next = try await nextSnapshot(&iterator)
        #expect(next.items.map(\.id) == [early.id, late.id, series.id])
      }
    }
  }

  @Test("what was read before a commit is read again when observed", arguments: StoreKind.shared)
  func readAgainAfterACommit(kind: StoreKind) async throws {
    try await withTimeout {
      try await withStore(kind) { dao in
        let early = try await dao.saveAppointment(appointment("early", from: december(1, 8), to: december(1, 9)))
        let read = try await dao.prefetchAppointments(matching: Self.query)
        let late = try await dao.saveAppointment(appointment("late", from: december(1, 18), to: december(1, 19)))
        var iterator = await dao.observeAppointments(Self.query, known: read).makeAsyncIterator()
        let first = try await nextSnapshot(&iterator)
        #expect(first.items == [early, late])
        #expect(first.version == (await dao.database.version) && first.version > read.version)
      }
    }
  }

  @Test("an empty window starts with an empty .initial snapshot", arguments: StoreKind.shared)
  func initialEmpty(kind: StoreKind) async throws {
    try await withTimeout {
      try await withStore(kind) { dao in
        var iterator = await dao.observeAppointments(Self.query).makeAsyncIterator()
        let first = try await nextSnapshot(&iterator)
        #expect(first.items.isEmpty)
        #expect(first.change == .initial)
        #expect(first.version == 0)
        #expect(first.failure == nil)
      }
    }
  }

  @Test("a save in the window yields an update with the insertion's index", arguments: StoreKind.shared)
  func insertionIndex(kind: StoreKind) async throws {
    try await withTimeout {
      try await withStore(kind) { dao in
        var nine = appointment("nine", from: december(1, 9), to: december(1, 10))
        var eleven = appointment("eleven", from: december(1, 11), to: december(1, 12))
        nine = try await dao.saveAppointment(nine)
        eleven = try await dao.saveAppointment(eleven)
        var iterator = await dao.observeAppointments(Self.query).makeAsyncIterator()
        let first = try await nextSnapshot(&iterator)
        #expect(first.items == [nine, eleven])

        var ten = appointment("ten", from: december(1, 10), to: december(1, 11))
        ten = try await dao.saveAppointment(ten)
        let second = try await nextSnapshot(&iterator)
        #expect(second.change == .update(ChangeSet(insertions: [1])))
        #expect(second.items == [nine, ten, eleven])
        #expect(second.version == (await dao.database.version))
        #expect(second.version > first.version)

        // Renaming keeps the place: a modification at the new list's index.
        var renamed = ten
        renamed.title = "ten (renamed)"
        renamed = try await dao.saveAppointment(renamed)
        let third = try await nextSnapshot(&iterator)
        #expect(third.change == .update(ChangeSet(modifications: [1])))
        #expect(third.items == [nine, renamed, eleven])

        // Moving it after "eleven": a deletion plus an insertion.
        var moved = renamed
        moved.start = december(1, 13)
        moved.end = december(1, 14)
        moved = try await dao.saveAppointment(moved)
        let fourth = try await nextSnapshot(&iterator)
        #expect(fourth.change == .update(ChangeSet(deletions: [1], insertions: [2])))
        #expect(fourth.items == [nine, eleven, moved])

        // Cancelling hides it (a deletion), deleting "nine" removes index 0.
        try await dao.cancelAppointment(id: moved.id)
        let fifth = try await nextSnapshot(&iterator)
        #expect(fifth.change == .update(ChangeSet(deletions: [2])))
        try await dao.deleteAppointment(id: nine.id)
        let sixth = try await nextSnapshot(&iterator)
        #expect(sixth.change == .update(ChangeSet(deletions: [0])))
        #expect(sixth.items == [eleven])
      }
    }
  }

  @Test("with includeCancelled, cancelling is a modification", arguments: StoreKind.shared)
  func cancelIsModificationWhenShown(kind: StoreKind) async throws {
    try await withTimeout {
      try await withStore(kind) { dao in
        var a = appointment("a", from: december(1, 9), to: december(1, 10))
        var b = appointment("b", from: december(1, 11), to: december(1, 12))
        a = try await dao.saveAppointment(a)
        b = try await dao.saveAppointment(b)
        let stream = await dao.observeAppointments(AppointmentQuery(range: Self.day, includeCancelled: true))
        var iterator = stream.makeAsyncIterator()
        _ = try await nextSnapshot(&iterator)
        let cancelled = try await dao.cancelAppointment(id: b.id)
        let next = try await nextSnapshot(&iterator)
        #expect(next.change == .update(ChangeSet(modifications: [1])))
        #expect(next.items == [a, cancelled])
      }
    }
  }

  @Test("a commit outside the window emits nothing", arguments: StoreKind.shared)
  func outsideCommitIsSilent(kind: StoreKind) async throws {
    try await withTimeout {
      try await withStore(kind) { dao in
        var iterator = await dao.observeAppointments(Self.query).makeAsyncIterator()
        let first = try await nextSnapshot(&iterator)
        #expect(first.items.isEmpty)

        // Two commits outside the window (another day; a cancelled one inside).
        try await dao.saveAppointment(appointment("other day", from: december(3, 9), to: december(3, 10)))
        try await dao.saveAppointment(
          appointment("cancelled", from: december(1, 9), to: december(1, 10), status: .cancelled)
        )
        let horizon = await dao.database.observationHorizon
        #expect(horizon.pending == false)
        #expect(horizon.sequence == first.sequence)

        var inside = appointment("inside", from: december(1, 12), to: december(1, 13))
        inside = try await dao.saveAppointment(inside)
        let versionAfterInside = await dao.database.version
        let next = try await nextSnapshot(&iterator)
        #expect(next.version == versionAfterInside)
        #expect(next.version == first.version + 3)
        #expect(next.change == .update(ChangeSet(insertions: [0])))
        #expect(next.items == [inside])
      }
    }
  }

  @Test(
    "a slow subscriber gets one snapshot with the latest items, diffed against what it had",
    arguments: StoreKind.shared
  )
  func slowSubscriberCoalesces(kind: StoreKind) async throws {
    try await withTimeout {
      try await withStore(kind) { dao in
        let keep = appointment("keep", from: december(1, 8), to: december(1, 9))
        let edit = appointment("edit", from: december(1, 10), to: december(1, 11))
        let drop = appointment("drop", from: december(1, 12), to: december(1, 13))
        for item in [keep, edit, drop] { try await dao.saveAppointment(item) }
        var iterator = await dao.observeAppointments(Self.query).makeAsyncIterator()
        let first = try await nextSnapshot(&iterator)
        #expect(first.items == [keep, edit, drop].map { $0.atRevision(1) })

        // Five commits while the subscriber is not asking.
        var edited = edit.atRevision(1)
        edited.note = "edited"
        edited = try await dao.saveAppointment(edited)
        try await dao.deleteAppointment(id: drop.id)
        try await dao.saveAppointment(appointment("new 1", from: december(1, 7), to: december(1, 8)))
        try await dao.saveAppointment(appointment("new 2", from: december(1, 14), to: december(1, 15)))
        try await dao.saveAppointment(appointment("new 3", from: december(1, 9), to: december(1, 10)))
        let latest = try await dao.appointments(matching: Self.query)
        let latestVersion = await dao.database.version
        #expect(latestVersion == first.version + 5)

        let snapshot = try await nextSnapshot(&iterator)
        #expect(snapshot.items == latest)
        #expect(snapshot.version == latestVersion)
        guard case .update(let change) = snapshot.change else {
          Issue.record("expected an update, got \(snapshot.change)")
          return
        }
        #expect(change == ChangeSet.diff(from: first.items, to: latest))
        #expect(change.apply(to: first.items, from: snapshot.items) == snapshot.items)
        #expect(change.deletions == [2])
        #expect(change.insertions == [0, 2, 4])
        #expect(change.modifications == [3])
        // Exactly one snapshot: nothing else is pending.
        #expect((await dao.database.observationHorizon).pending == false)

        // The next change is relative to the coalesced snapshot.
        try await dao.deleteAppointment(id: keep.id)
        let after = try await nextSnapshot(&iterator)
        #expect(after.change == .update(ChangeSet(deletions: [1])))
        #expect(after.version == latestVersion + 1)
      }
    }
  }

  @Test("a change undone before the subscriber asks delivers the same items", arguments: StoreKind.shared)
  func changeThenUndo(kind: StoreKind) async throws {
    try await withTimeout {
      try await withStore(kind) { dao in
        var a = appointment("a", from: december(1, 9), to: december(1, 10))
        a = try await dao.saveAppointment(a)
        var iterator = await dao.observeAppointments(Self.query).makeAsyncIterator()
        let first = try await nextSnapshot(&iterator)
        try await dao.cancelAppointment(id: a.id)
        try await dao.restoreAppointment(id: a.id)
        let restored = try await dao.getAppointment(id: a.id)
        // The subscriber may get a snapshot equal to what it has (an empty change set), but
        // never a wrong one.
        let next = try await nextSnapshot(&iterator)
        #expect(next.items == [restored])
        // The same fields; two writes later (a modification, by its revision and SEQUENCE).
        let fields = { (value: Appointment) in
          var copy = value.atRevision(0)
          copy.sequence = 0
          return copy
        }
        #expect(next.items.map(fields) == first.items.map(fields))
        #expect(restored.revision == a.revision + 2)
        #expect(restored.sequence == a.sequence + 2)
        guard case .update(let change) = next.change else {
          Issue.record("expected an update, got \(next.change)")
          return
        }
        #expect(change.apply(to: first.items, from: next.items) == next.items)
      }
    }
  }

  @Test("a limited window reports the item pushed out as a deletion", arguments: StoreKind.shared)
  func limitedWindow(kind: StoreKind) async throws {
    try await withTimeout {
      try await withStore(kind) { dao in
        // The generic layer stores values as they are: at the revision a first save gives.
        let ten = appointment("ten", from: december(1, 10), to: december(1, 11)).atRevision(1)
        let eleven = appointment("eleven", from: december(1, 11), to: december(1, 12)).atRevision(1)
        try await dao.service.save(all: [ten, eleven])
        var iterator = await dao.observeAppointments(AppointmentQuery(range: Self.day, limit: 2)).makeAsyncIterator()
        #expect(try await nextSnapshot(&iterator).items == [ten, eleven])
        var nine = appointment("nine", from: december(1, 9), to: december(1, 10))
        nine = try await dao.saveAppointment(nine)
        let next = try await nextSnapshot(&iterator)
        #expect(next.items == [nine, ten])
        #expect(next.change == .update(ChangeSet(deletions: [1], insertions: [0])))
      }
    }
  }

  @Test("search observations follow edits into and out of the match", arguments: StoreKind.shared)
  func searchWindow(kind: StoreKind) async throws {
    try await withTimeout {
      try await withStore(kind) { dao in
        var item = appointment("Lunch", from: december(1, 12), to: december(1, 13))
        item = try await dao.saveAppointment(item)
        var iterator = await dao.observeAppointments(AppointmentQuery(range: nil, search: "dentist"))
          .makeAsyncIterator()
        #expect(try await nextSnapshot(&iterator).items.isEmpty)
        item.note = "then the DENTIST"
        item = try await dao.saveAppointment(item)
        let matched = try await nextSnapshot(&iterator)
        #expect(matched.items == [item])
        #expect(matched.change == .update(ChangeSet(insertions: [0])))
        item.note = ""
        item = try await dao.saveAppointment(item)
        let unmatched = try await nextSnapshot(&iterator)
        #expect(unmatched.items.isEmpty)
        #expect(unmatched.change == .update(ChangeSet(deletions: [0])))
      }
    }
  }

  @Test("snapshots carry increasing delivery sequence numbers", arguments: StoreKind.shared)
  func deliverySequence(kind: StoreKind) async throws {
    try await withTimeout {
      try await withStore(kind) { dao in
        var iterator = await dao.observeAppointments(Self.query).makeAsyncIterator()
        let first = try await nextSnapshot(&iterator)
        try await dao.saveAppointment(appointment("a", from: december(1, 9), to: december(1, 10)))
        #expect((await dao.database.observationHorizon).pending)
        let second = try await nextSnapshot(&iterator)
        #expect(second.sequence > first.sequence)
        let horizon = await dao.database.observationHorizon
        #expect(horizon.sequence == second.sequence)
        #expect(horizon.pending == false)
      }
    }
  }

  @Test("observers of different windows each get only their own changes", arguments: StoreKind.shared)
  func independentWindows(kind: StoreKind) async throws {
    try await withTimeout {
      try await withStore(kind) { dao in
        var first = await dao.observeAppointments(Self.query).makeAsyncIterator()
        var second = await dao.observeAppointments(AppointmentQuery(range: window(december(2), december(3))))
          .makeAsyncIterator()
        _ = try await nextSnapshot(&first)
        _ = try await nextSnapshot(&second)
        var tuesday = appointment("tuesday", from: december(1, 9), to: december(1, 10))
        tuesday = try await dao.saveAppointment(tuesday)
        var wednesday = appointment("wednesday", from: december(2, 9), to: december(2, 10))
        wednesday = try await dao.saveAppointment(wednesday)
        let firstNext = try await nextSnapshot(&first)
        let secondNext = try await nextSnapshot(&second)
        #expect(firstNext.items == [tuesday])
        #expect(secondNext.items == [wednesday])
        #expect(firstNext.version + 1 == secondNext.version)
      }
    }
  }

  @Test("an observation on an in-memory store works the same")
  func inMemory() async throws {
    try await withTimeout {
      let dao = TestStore.memoryDAO()
      var iterator = await dao.observeAppointments(Self.query).makeAsyncIterator()
      #expect(try await nextSnapshot(&iterator).change == .initial)
      var a = appointment("a", from: december(1, 9), to: december(1, 10))
      a = try await dao.saveAppointment(a)
      let next = try await nextSnapshot(&iterator)
      #expect(next.items == [a])
      #expect(next.change == .update(ChangeSet(insertions: [0])))
    }
  }

  // MARK: - Failures and the end of a stream

  @Test("close() finishes the streams")
  func closeFinishes() async throws {
    try await withTimeout {
      let directory = TemporaryDirectory()
      defer { withExtendedLifetime(directory) {} }
      let dao = TestStore.fileDAO(in: directory)
      var waiting = await dao.observeAppointments(Self.query).makeAsyncIterator()
      var idle = await dao.observeAppointments(Self.query).makeAsyncIterator()
      _ = try await nextSnapshot(&waiting)
      _ = try await nextSnapshot(&idle)
      #expect(await dao.database.observerCount == 2)

      // One subscriber is already waiting when the store closes.
      let closer = Task {
        try? await Task.sleep(for: .milliseconds(20))
        await dao.database.close()
      }
      #expect(await waiting.next() == nil)
      await closer.value
      #expect(await idle.next() == nil)
      #expect(await waiting.next() == nil)
      #expect(await dao.database.observerCount == 0)
      await #expect(throws: StoreError.closed) { try await dao.getAllAppointments() }
      await #expect(throws: StoreError.closed) {
        try await dao.saveAppointment(appointment("late", from: december(1, 9), to: december(1, 10)))
      }
    }
  }

  @Test("observing a closed store yields one failure snapshot, then ends")
  func observeClosedStore() async throws {
    try await withTimeout {
      let dao = TestStore.memoryDAO()
      await dao.database.close()
      var iterator = await dao.observeAppointments(Self.query).makeAsyncIterator()
      let only = try await nextSnapshot(&iterator)
      #expect(only.failure == .closed)
      #expect(only.items.isEmpty)
      #expect(only.change == .initial)
      #expect(await iterator.next() == nil)
      #expect(await dao.database.observerCount == 0)
    }
  }

  @Test("observing a file that is not a database yields the error, then ends")
  func observeGarbageFile() async throws {
    try await withTimeout {
      let directory = TemporaryDirectory()
      defer { withExtendedLifetime(directory) {} }
      let url = directory.file("appt.sqlite3")
      try Data(repeating: 0x41, count: 512).write(to: url)
      let dao = TestStore.fileDAO(in: directory)
      var iterator = await dao.observeAppointments(Self.query).makeAsyncIterator()
      let only = try await nextSnapshot(&iterator)
      #expect(only.failure == .notADatabase(path: url.path))
      #expect(await iterator.next() == nil)
    }
  }

  @Test("a query that fails after a commit ends the stream with the last good items", arguments: StoreKind.shared)
  func failureAfterCommit(kind: StoreKind) async throws {
    try await withTimeout {
      try await withStore(kind) { dao in
        var a = appointment("a", from: december(1, 9), to: december(1, 10))
        a = try await dao.saveAppointment(a)
        // abs() of the smallest integer is an SQLite runtime error; it runs only for titled "boom".
        let failing = DatabaseQuery<Appointment>(
          where: "CASE WHEN title = 'boom' THEN abs(-9223372036854775807 - 1 + start_ms - start_ms) ELSE 1 END > 0",
          order: "start_ms"
        )
        var iterator = await dao.service.observe(failing).makeAsyncIterator()
        let first = try #require(await iterator.next())
        #expect(first.items == [a])
        #expect(await dao.database.observerCount == 1)

        try await dao.saveAppointment(appointment("boom", from: december(1, 11), to: december(1, 12)))
        let last = try #require(await iterator.next())
        switch last.failure {
        case .sqlite(_, let message)?: #expect(message.contains("overflow"))
        case .postgres(_, let message)?: #expect(message.contains("out of range"))
        default: Issue.record("expected the engine's overflow error, got \(String(describing: last.failure))")
        }
        #expect(last.items == [a])
        #expect(last.change == .update(ChangeSet()))
        #expect(await iterator.next() == nil)
        #expect(await dao.database.observerCount == 0)
        // The store itself is fine.
        #expect(try await dao.getAllAppointments().count == 2)
      }
    }
  }
}
