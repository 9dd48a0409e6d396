import Dispatch
import Foundation
import Testing

@testable import ApptCore

@Suite struct LockedTests {
  /// Threads that meet at the lock all the time, so most takes wait in the contended path: the
  /// count says no update was lost, and under `make tsan` the pass says TSan saw the waits as
  /// the synchronization they are (a bare `Mutex` here reported "Swift access race" within a
  /// few thousand takes).
  @Test func threadsThatWaitForTheLockLoseNoUpdate() {
    let threads = 4
    let takes = 20_000
    let locked = Locked<[Int]>([])
    let counted = Locked(0)
    DispatchQueue.concurrentPerform(iterations: threads) { thread in
      for take in 0..<takes {
        locked.withLock { values in
          values.append(thread * takes + take)
          if values.count > 64 { values.removeAll(keepingCapacity: true) }
        }
        counted.withLock { $0 += 1 }
      }
    }
    #expect(counted.withLock { $0 } == threads * takes)
    #expect(locked.withLock { $0.count } == (threads * takes) % 65)
  }

  @Test func anErrorThrownInsideLeavesTheLockFree() {
    struct Refused: Error {}
    let locked = Locked(1)
    #expect(throws: Refused.self) {
      try locked.withLock { (value: inout Int) throws(Refused) in
        value = 2
        throw Refused()
      }
    }
    #expect(locked.withLock { $0 } == 2)
  }

  /// `make tsan` runs the suite with APPT_UNDER_TSAN=1: there `Locked` must have found TSan's
  /// annotations (were they gone, it would quietly be a bare `Mutex` again), and nowhere else.
  @Test func annotatesExactlyUnderThreadSanitizer() {
    let underTSan = ProcessInfo.processInfo.environment["APPT_UNDER_TSAN"] == "1"
    #expect(
      Locked<Int>.annotatesForThreadSanitizer == underTSan,
      "APPT_UNDER_TSAN=\(underTSan ? 1 : 0): run the suite under TSan as `make tsan` does, which sets it"
    )
  }

  /// Every in-process lock of appt and its tests is a `Locked`: a bare `Mutex` would bring back
  /// the false reports that fail `make tsan` by chance. Any use of the name in code counts
  /// (`Mutex<`, `Mutex(`, `Mutex.init`, a typealias), comments do not.
  @Test func noBareMutexInTheCode() throws {
    let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
      .deletingLastPathComponent()
    let allowed: Set = ["Sources/ApptCore/Locked.swift", "Tests/ApptCoreTests/LockedTests.swift"]
    // Simple word boundaries: by Unicode's, `Synchronization.Mutex` is one word.
    let name = try Regex(#"\bMutex\b"#).wordBoundaryKind(.simple)
    var offenders: [String] = []
    for folder in ["Sources", "Tests", "Benchmarks/Sources", "Fuzz"] {
      let base = root.appendingPathComponent(folder)
      let files = try #require(FileManager.default.enumerator(atPath: base.path)).compactMap { $0 as? String }
        .filter { $0.hasSuffix(".swift") && !allowed.contains("\(folder)/\($0)") }
      #expect(!files.isEmpty, "no Swift file under \(folder): the rule would check nothing there")
      for path in files {
        let text = try String(contentsOf: base.appendingPathComponent(path), encoding: .utf8)
        for (number, line) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
          let code = line.trimmingCharacters(in: .whitespaces)
          guard !code.hasPrefix("//"), code.contains(name) else { continue }
          offenders.append("\(folder)/\(path):\(number + 1): \(code)")
        }
      }
    }
    #expect(offenders.isEmpty, "use Locked (Sources/ApptCore/Locked.swift):\n\(offenders.joined(separator: "\n"))")
  }
}
