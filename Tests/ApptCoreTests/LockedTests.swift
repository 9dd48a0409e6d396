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

  /// Every lock in appt and its tests is a `Locked`: a bare `Mutex` would bring back the
  /// false reports that fail `make tsan` by chance.
  @Test func noBareMutexInSourcesOrTests() throws {
    let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
      .deletingLastPathComponent()
    var offenders: [String] = []
    for folder in ["Sources", "Tests", "Benchmarks/Sources"] {
      let base = root.appendingPathComponent(folder)
      let files = try #require(FileManager.default.enumerator(atPath: base.path))
      for case let path as String in files where path.hasSuffix(".swift") {
        guard !path.hasSuffix("/Locked.swift"), !path.hasSuffix("/LockedTests.swift") else { continue }
        let text = try String(contentsOf: base.appendingPathComponent(path), encoding: .utf8)
        for (number, line) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated()
        where line.contains("Mutex<") || line.contains("Mutex(") {
          offenders.append("\(folder)/\(path):\(number + 1): \(line.trimmingCharacters(in: .whitespaces))")
        }
      }
    }
    #expect(offenders.isEmpty, "use Locked (ApptCore/Locked.swift):\n\(offenders.joined(separator: "\n"))")
    #expect(FileManager.default.fileExists(atPath: root.appendingPathComponent("Sources/ApptCore/Locked.swift").path))
  }
}
