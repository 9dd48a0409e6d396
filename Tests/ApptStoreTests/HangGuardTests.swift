import ApptCore
import Foundation
import Testing

@testable import ApptStore
@testable import ApptTestSupport

/// The hang guard (ApptTestSupport's `HangGuard`) fires for a hang, and not for a test that
/// waits its turn behind others on DatabaseActor (a 10 s guard measured from the
/// test's start fired for 6 to 63 tests under a sanitizer beside other work).
@Suite("Hang guard", .serialized, .hangBackstop)  // serialized: one test stalls the store on purpose
struct HangGuardTests {
  /// Set once, read by another task.
  final class Flag: Sendable {
    private let value = Locked(false)
    func set() { value.withLock { $0 = true } }
    var isSet: Bool { value.withLock { $0 } }
  }

  /// Collected by one task, read by another.
  final class Lines: Sendable {
    private let lines = Locked<[String]>([])
    func append(_ new: [String]) { lines.withLock { $0 += new } }
    var all: [String] { lines.withLock { $0 } }
  }

  static func memoryDatabase() -> AsyncDatabase {
    AsyncDatabase(configuration: DatabaseConfiguration(location: .inMemory, migrations: Schema.migrations))
  }

  /// A clock and progress counters the test moves by hand.
  final class FakeProgress {
    let start = ContinuousClock.now
    var elapsed: Duration = .zero
    var transactions: UInt64 = 0
    var waits: UInt64 = 0

    func stall(limit: Duration) -> Stall {
      Stall(limit: limit, now: { self.start + self.elapsed }) { (self.transactions, self.waits) }
    }
  }

  @Test("waiting 27 s behind others' transactions is not a hang with a 1 s limit; 1 s with none is")
  func queuedBehindOthersIsNotAHang() {
    let fake = FakeProgress()
    var stall = fake.stall(limit: .seconds(1))
    var over: Bool
    for _ in 0..<30 {  // another test's transaction finishes every 0.9 s
      fake.elapsed += .milliseconds(900)
      fake.transactions += 1
      over = stall.isOver
      #expect(!over)
    }
    fake.elapsed += .milliseconds(999)
    over = stall.isOver
    #expect(!over)
    fake.elapsed += .milliseconds(1)
    over = stall.isOver
    #expect(over)
    #expect(stall.report.hasPrefix("nothing progressed for 1.0 seconds"))
    #expect(stall.report.hasSuffix("28.0 seconds in all)"))
  }

  @Test("a wait of the test ending counts as progress; time alone does not")
  func aFinishedWaitIsProgress() {
    let fake = FakeProgress()
    var stall = fake.stall(limit: .seconds(1))
    var over: Bool
    fake.elapsed += .milliseconds(900)
    fake.waits += 1
    over = stall.isOver
    #expect(!over)
    fake.elapsed += .milliseconds(900)
    over = stall.isOver
    #expect(!over)  // 0.9 s since the wait ended
    fake.elapsed += .milliseconds(100)
    over = stall.isOver
    #expect(over)
  }

  @Test("every store transaction, read or write, moves the counter the guard watches")
  func storeTransactionsAreProgress() async throws {
    let database = Self.memoryDatabase()
    try await database.prepare()
    let before = AsyncDatabase.finishedTransactions.load(ordering: .relaxed)
    try await database.read { _ in }
    let afterRead = AsyncDatabase.finishedTransactions.load(ordering: .relaxed)
    #expect(afterRead > before)
    try await database.write { _ in }
    #expect(AsyncDatabase.finishedTransactions.load(ordering: .relaxed) > afterRead)
    await database.close()
  }

  @Test("a store that does not answer is a hang, though the guard never asks it")
  func stuckStoreIsAHang() async throws {
    let started = Flag()
    let reported = Flag()
    let stuck = Task { @DatabaseActor in
      started.set()
      // A store call that does not end until the guard has said so, however late a loaded
      // machine runs the guard (CI runs beside other work); 120 s caps a guard that never does.
      var waited = 0
      while !reported.isSet, waited < 120_000 {
        usleep(1000)
        waited += 1
      }
    }
    while !started.isSet { await Task.yield() }
    let comments = Lines()
    let database = Self.memoryDatabase()
    try await withKnownIssue {
      try await HangGuard.run(limit: .milliseconds(200)) { try await database.prepare() }
    } matching: { issue in
      comments.append(issue.comments.map(\.rawValue))
      reported.set()
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
