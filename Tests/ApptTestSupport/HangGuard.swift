// Hang guards: turn a hang into a failure that says what was awaited, and never fire on a
// machine that is only slow.
//
// Every store test of a process queues on the one DatabaseActor, so under a sanitizer, beside
// other work, a test can wait behind hundreds of other tests' calls: the time since a test
// started measures that queue, not the test. So a guard here fires only after `limit` in which
// nothing progressed: no store transaction finished anywhere in the process
// (`AsyncDatabase.finishedTransactions`) and the test's own guarded waits did not move. A test
// queued behind others sees their transactions finish; a test waiting for what never comes is
// caught once the others are done. A store that never answers moves nothing, so it is caught
// too; the counter is read without DatabaseActor, so a stuck actor cannot stop the guard.

//
// Swift Testing is only there for test builds: `swift build --static-swift-stdlib` (make
// release) builds this target too, and finds no Testing module. So what needs Testing is
// compiled only where it can be imported; nothing runs tests elsewhere.

import ApptCore
import ApptStore

#if canImport(Testing)
  import Testing
#endif

public enum HangGuard {
  /// How long nothing may progress while a test waits before it counts as hung. One value for
  /// every guard, the same under sanitizers and on any machine: a guard, never a timing.
  public static let limit: Duration = .seconds(60)

  /// How often a guard looks at the progress counters.
  static let checkInterval: Duration = .milliseconds(100)
}

/// Records a test failure at the given place (a Swift Testing issue); without Swift Testing,
/// where no test runs, it stops the process with `message`.
func recordFailure(_ message: String, fileID: String, filePath: String, line: Int, column: Int) {
  #if canImport(Testing)
    Issue.record(
      Comment(rawValue: message),
      sourceLocation: SourceLocation(fileID: fileID, filePath: filePath, line: line, column: column)
    )
  #else
    preconditionFailure(message)
  #endif
}

#if canImport(Testing)

  extension HangGuard {
    /// Runs `body`, recording a failure and cancelling `body` once nothing has progressed for
    /// `limit` before it finished. Cancelling ends `body`'s observation streams, so a stuck
    /// `iterator.next()` returns nil and the test fails instead of waiting forever. Tests use
    /// `withTimeout`; `limit` is a parameter for the guard's own tests.
    public static func run(
      limit: Duration = HangGuard.limit,
      sourceLocation: SourceLocation = #_sourceLocation,
      _ body: @escaping @Sendable () async throws -> Void
    ) async throws {
      let watch = Watch()
      let work = Task { try await Watch.$current.withValue(watch) { try await body() } }
      let watchdog = Task {
        var stall = Stall(limit: limit, watch: watch)
        while !stall.isOver {
          do { try await Task.sleep(for: checkInterval) } catch { return }
        }
        guard watch.hang() else { return }
        Issue.record("hang: \(stall.report); \(watch.waitingFor)", sourceLocation: sourceLocation)
        work.cancel()
      }
      let result = await withTaskCancellationHandler {
        await work.result
      } onCancel: {
        work.cancel()
      }
      watch.finish()
      watchdog.cancel()
      try result.get()
    }

    /// Runs `body` (one wait of a guarded test), so that a guard firing meanwhile names it; its
    /// end counts as progress.
    public static func waiting<T>(
      for what: String,
      at location: SourceLocation,
      _ body: () async throws -> T
    ) async rethrows -> T {
      let watch = Watch.current
      let outer = watch?.enter("\(what) (\(location.fileName):\(location.line))")
      defer { watch?.leave(restoring: outer) }
      return try await body()
    }

    /// Returns once nothing has progressed for `limit` (false if cancelled first).
    static func waitForStall(_ limit: Duration) async -> Bool {
      var stall = Stall(limit: limit, watch: Watch.current)
      while !stall.isOver {
        do { try await Task.sleep(for: checkInterval) } catch { return false }
      }
      return true
    }
  }

  /// Watches for `limit` without progress: no store transaction finished in the process and no
  /// guarded wait of the test ended. Time and progress are read through `now` and `progress`,
  /// so the guard's own tests can drive both (a real queue on DatabaseActor shares the actor with
  /// every other test of the process, whose long transactions would be gaps a test cannot bound).
  struct Stall {
    /// What counts as progress: store transactions finished in the process, waits ended.
    typealias Progress = (transactions: UInt64, waits: UInt64)

    let limit: Duration
    private let now: () -> ContinuousClock.Instant
    private let progress: () -> Progress
    private let started: ContinuousClock.Instant
    private var seen: Progress
    private var lastProgress: ContinuousClock.Instant

    init(limit: Duration, watch: Watch?) {
      self.init(limit: limit, now: { ContinuousClock.now }) {
        (AsyncDatabase.finishedTransactions.load(ordering: .relaxed), watch?.finishedWaits ?? 0)
      }
    }

    init(limit: Duration, now: @escaping () -> ContinuousClock.Instant, progress: @escaping () -> Progress) {
      self.limit = limit
      self.now = now
      self.progress = progress
      started = now()
      lastProgress = started
      seen = progress()
    }

    /// Whether `limit` has passed since anything last progressed (noting progress if some did).
    var isOver: Bool {
      mutating get {
        let current = progress()
        if current != seen {
          seen = current
          lastProgress = now()
        }
        return now() - lastProgress >= limit
      }
    }

    var report: String {
      "nothing progressed for \(limit) (no store transaction finished in the process, no wait of the test ended; "
        + "\(now() - started) in all)"
    }
  }

  /// What a guarded test is waiting for, how many of its waits ended, and whether its guard
  /// fired or it finished first.
  final class Watch: Sendable {
    @TaskLocal static var current: Watch?

    private enum Phase { case running, finished, hung }
    private struct State {
      var phase = Phase.running
      var waitingFor: String?
      var finishedWaits: UInt64 = 0
    }
    private let state = Locked(State())

    /// Marks the test hung; false if it had finished (or was already marked).
    func hang() -> Bool {
      state.withLock { state in
        guard state.phase == .running else { return false }
        state.phase = .hung
        return true
      }
    }

    func finish() {
      state.withLock { state in
        if state.phase == .running { state.phase = .finished }
      }
    }

    /// Notes that the test now waits for `what`; returns what it waited for before.
    func enter(_ what: String) -> String? {
      state.withLock { state in
        defer { state.waitingFor = what }
        return state.waitingFor
      }
    }

    func leave(restoring outer: String?) {
      state.withLock { state in
        state.waitingFor = outer
        state.finishedWaits += 1
      }
    }

    var finishedWaits: UInt64 { state.withLock { $0.finishedWaits } }

    var waitingFor: String {
      state.withLock { state in
        state.waitingFor.map { "it was waiting for \($0)" } ?? "it was in none of the guarded waits (a store call?)"
      }
    }
  }

  extension Trait where Self == TimeLimitTrait {
    /// Swift Testing's own limit for suites with store tests, counted from each test's start: the
    /// last resort for a test outside `withTimeout`, far beyond any queue (HangGuard catches hangs).
    public static var hangBackstop: Self { .timeLimit(.minutes(30)) }
  }

  /// Runs `body` under the hang guard (`HangGuard`): a failure, and `body` cancelled, only when
  /// nothing progresses for `HangGuard.limit`; a slow machine or a long queue on DatabaseActor
  /// only delays it.
  public func withTimeout(
    sourceLocation: SourceLocation = #_sourceLocation,
    _ body: @escaping @Sendable () async throws -> Void
  ) async throws {
    try await HangGuard.run(sourceLocation: sourceLocation, body)
  }

  /// Polls `condition` (yielding, then sleeping briefly) until it holds; records a failure naming
  /// `what` and returns false once nothing has progressed for `HangGuard.limit`.
  @discardableResult
  public func eventually(
    _ what: String,
    sourceLocation: SourceLocation = #_sourceLocation,
    _ condition: @Sendable () async -> Bool
  ) async -> Bool {
    var stall = Stall(limit: HangGuard.limit, watch: Watch.current)
    return await HangGuard.waiting(for: what, at: sourceLocation) {
      var attempt = 0
      while true {
        if await condition() { return true }
        attempt += 1
        if attempt < 20 {
          await Task.yield()
          continue
        }
        if Task.isCancelled { return false }  // the guard around it fired, and said so
        if stall.isOver {
          Issue.record("still not so: \(what); \(stall.report)", sourceLocation: sourceLocation)
          return false
        }
        do { try await Task.sleep(for: .milliseconds(5)) } catch { continue }
      }
    }
  }

  /// Reads up to `count` snapshots of `stream` in a task of its own; if they have not all come
  /// (nor the stream ended) before nothing progressed for `HangGuard.limit`, that task is
  /// cancelled, which ends the stream. For the test that must show a stream does not hang where
  /// it cannot drive it; `timedOut` says which it was.
  public func snapshots<Element: Sendable>(
    of stream: AsyncStream<Element>,
    count: Int
  ) async -> (snapshots: [Element], timedOut: Bool) {
    let consumer = Task {
      var received: [Element] = []
      for await snapshot in stream {
        received.append(snapshot)
        if received.count == count { break }
      }
      return received
    }
    let timer = Task {
      guard await HangGuard.waitForStall(HangGuard.limit) else { return false }
      consumer.cancel()
      return true
    }
    let received = await consumer.value
    timer.cancel()
    return (received, await timer.value)
  }

  /// The next snapshot of an observation; fails the test if the stream ended instead.
  public func nextSnapshot<Element: Sendable>(
    _ iterator: inout AsyncStream<Element>.Iterator,
    sourceLocation: SourceLocation = #_sourceLocation
  ) async throws -> Element {
    let next = await HangGuard.waiting(for: "the next snapshot", at: sourceLocation) { await iterator.next() }
    return try #require(next, "the observation ended", sourceLocation: sourceLocation)
  }

#endif
