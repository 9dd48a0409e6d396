import ApptCore
import ApptTestSupport
import Foundation
import Synchronization
import Testing

@testable import ApptStore

/// The hang guard (ApptTestSupport's `HangGuard`) fires for a hang, and not for a test that
/// waits its turn behind others on DatabaseActor (issue 12: a 10 s guard measured from the
/// test's start fired for 6 to 63 tests under a sanitizer beside other work).
@Suite("Hang guard", .serialized, .hangBackstop)  // serialized: one test stalls the store on purpose
struct HangGuardTests {
  /// Set once, read by another task.
  final class Flag: Sendable {
    private let value = Mutex(false)
    func set() { value.withLock { $0 = true } }
    var isSet: Bool { value.withLock { $0 } }
  }

  /// Collected by one task, read by another.
  final class Lines: Sendable {
    private let lines = Mutex<[String]>([])
    func append(_ new: [String]) { lines.withLock { $0 += new } }
    var all: [String] { lines.withLock { $0 } }
  }

  static func memoryDatabase() -> AsyncDatabase {
    AsyncDatabase(configuration: DatabaseConfiguration(location: .inMemory, migrations: Schema.migrations))
  }

  @Test("waiting 1.5 s behind 30 transactions of other tests is not a hang, even with a 1 s limit")
  func queuedBehindOthersIsNotAHang() async throws {
    let others = Self.memoryDatabase()
    try await others.prepare()
    // Other tests' work, queued on DatabaseActor ahead of this test's call (a task isolated to
    // the actor enqueues its first job there at once, in order).
    let queue = (0..<30).map { _ in
      Task { @DatabaseActor in try others.write { _ in _ = usleep(50_000) } }
    }
    let mine = Self.memoryDatabase()
    let finished = Flag()
    try await HangGuard.run(limit: .seconds(1)) {
      try await mine.read { _ in }  // waits its turn behind the 30
      finished.set()
    }
    #expect(finished.isSet)
    for task in queue { try await task.value }
    await others.close()
    await mine.close()
  }

  @Test("a store that does not answer is a hang, though the guard never asks it")
  func stuckStoreIsAHang() async throws {
    let started = Flag()
    let stuck = Task { @DatabaseActor in
      started.set()
      // A store call that never ends, as far as a 0.2 s guard can tell: 15 times longer, so a
      // loaded machine that runs the guard late still sees it (CI runs beside other work).
      usleep(3_000_000)
    }
    while !started.isSet { await Task.yield() }
    let comments = Lines()
    let database = Self.memoryDatabase()
    try await withKnownIssue {
      try await HangGuard.run(limit: .milliseconds(200)) { try await database.prepare() }
    } matching: { issue in
      comments.append(issue.comments.map(\.rawValue))
      return true
    }
    #expect(comments.all.contains { $0.hasPrefix("hang: nothing progressed for 0.2 seconds") })
    await stuck.value
    await database.close()
  }

  @Test("a wait that never ends on a free store fails, naming what it waited for")
  func hangIsReported() async throws {
    let comments = Lines()
    try await withKnownIssue {
      try await HangGuard.run(limit: .milliseconds(300)) {
        let (stream, continuation) = AsyncStream.makeStream(of: Int.self)
        var iterator = stream.makeAsyncIterator()
        _ = try await nextSnapshot(&iterator)  // never comes; cancelled, the stream ends
        withExtendedLifetime(continuation) {}
      }
    } matching: { issue in
      comments.append(issue.comments.map(\.rawValue))
      return true
    }
    let hang = try #require(comments.all.first { $0.hasPrefix("hang:") })
    #expect(hang.contains("no store transaction finished in the process"))
    #expect(hang.contains("it was waiting for the next snapshot (HangGuardTests.swift:"))
  }
}
