import ApptCore
import ApptTestSupport
import Foundation
import Testing

@testable import ApptStore

/// An observation ends with its stream: no token to keep, nothing left registered.
@Suite("Observation lifecycle", .hangBackstop)
struct ObservationLifecycleTests {
  static let query = AppointmentQuery(range: window(december(1), december(2)))
  static let count = 10_000

  @Test("10,000 dropped streams leave no observer behind", arguments: StoreKind.shared)
  func droppedStreams(kind: StoreKind) async throws {
    try await withTimeout {
      try await withSharedStore(kind) { store in
        let dao = store.dao()
        try await dao.saveAppointment(appointment("a", from: december(1, 9), to: december(1, 10)))

        var streams: [AsyncStream<AppointmentSnapshot>] = []
        streams.reserveCapacity(Self.count)
        for _ in 0..<Self.count { streams.append(await dao.observeAppointments(Self.query)) }
        #expect(await dao.database.observerCount == Self.count)

        // Half of them are read once before being dropped.
        for index in stride(from: 0, to: streams.count, by: 2) {
          var iterator = streams[index].makeAsyncIterator()
          #expect(await iterator.next()?.change == .initial)
        }
        streams.removeAll()
        await eventually("no observer left") { await dao.database.observerCount == 0 }

        // A commit after they are gone reaches nobody and fails nothing.
        try await dao.saveAppointment(appointment("b", from: december(1, 11), to: december(1, 12)))
        #expect(await dao.database.observerCount == 0)
      }
    }
  }

  @Test("10,000 cancelled consumers leave no observer behind")
  func cancelledConsumers() async throws {
    try await withTimeout {
      let dao = TestStore.memoryDAO()
      await withTaskGroup(of: Int.self) { group in
        for _ in 0..<Self.count {
          group.addTask {
            var received = 0
            for await _ in await dao.observeAppointments(Self.query) { received += 1 }
            return received
          }
        }
        await eventually("all \(Self.count) consumers registered") { await dao.database.observerCount == Self.count }
        group.cancelAll()
        var total = 0
        for await received in group { total += received }
        // Each consumer saw at most its initial snapshot, then its loop ended.
        #expect(total <= Self.count)
      }
      await eventually("no observer left") { await dao.database.observerCount == 0 }
      // The store still serves new observers.
      var iterator = await dao.observeAppointments(Self.query).makeAsyncIterator()
      #expect(await iterator.next()?.change == .initial)
      #expect(await dao.database.observerCount == 1)
    }
  }

  @Test("a consumer cancelled while waiting for a change ends its stream and unregisters", arguments: StoreKind.shared)
  func cancelWhileWaiting(kind: StoreKind) async throws {
    try await withTimeout {
      try await withSharedStore(kind) { store in
        let dao = store.dao()
        let consumer = Task {
          var snapshots: [AppointmentSnapshot] = []
          for await snapshot in await dao.observeAppointments(Self.query) { snapshots.append(snapshot) }
          return snapshots
        }
        await eventually("the consumer registered") { await dao.database.observerCount == 1 }
        consumer.cancel()
        let snapshots = await consumer.value
        #expect(snapshots.count <= 1)
        await eventually("no observer left") { await dao.database.observerCount == 0 }
      }
    }
  }

  /// Regression: the mailbox once held its database weakly, so a stream that outlived its DAO
  /// neither ended nor saw changes and its consumer waited forever.
  @Test("a stream that outlives its DAO still ends or keeps observing, never hangs", arguments: StoreKind.shared)
  func streamOutlivesDAO(kind: StoreKind) async throws {
    try await withSharedStore(kind) { store in
      let writer = store.dao()
      try await writer.database.prepare()
      // The observing DAO is gone once this line is done; only its stream is left.
      let stream = await AppointmentDAO(location: store.location, clock: TestClock.clock).observeAppointments(
        Self.query
      )

      var a = appointment("a", from: december(1, 9), to: december(1, 10))
      a = try await writer.saveAppointment(a)
      // Fixed, the stream either delivers the change (the mailbox keeps its database alive) or
      // ends (the database finished it on deinit). Broken, the mailbox's database is nil and
      // nothing will ever wake it.
      // A hang detector, not a timing: it counts only time in which DatabaseActor was free, as
      // the 10,000-stream tests beside it can keep the actor busy for seconds under a sanitizer.
      let result = await snapshots(of: stream, count: 2)
      #expect(result.snapshots.first?.change == .initial)
      #expect(result.timedOut == false)
      if result.snapshots.count == 2 { #expect(result.snapshots[1].items == [a]) }
    }
  }

  @Test("streams kept alive keep observing while others end", arguments: StoreKind.shared)
  func survivorsKeepObserving(kind: StoreKind) async throws {
    try await withTimeout {
      try await withSharedStore(kind) { store in
        let dao = store.dao()
        var survivor = await dao.observeAppointments(Self.query).makeAsyncIterator()
        _ = try await nextSnapshot(&survivor)
        do {
          var dropped: [AsyncStream<AppointmentSnapshot>] = []
          for _ in 0..<100 { dropped.append(await dao.observeAppointments(Self.query)) }
          #expect(await dao.database.observerCount == 101)
        }
        await eventually("one observer left") { await dao.database.observerCount == 1 }
        var a = appointment("a", from: december(1, 9), to: december(1, 10))
        a = try await dao.saveAppointment(a)
        #expect(try await nextSnapshot(&survivor).items == [a])
      }
    }
  }
}
