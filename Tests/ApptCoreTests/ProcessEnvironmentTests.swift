import ApptCore
import Foundation
import Testing

/// `ProcessEnvironment` reads `environ` as Foundation's `ProcessInfo` does, but for a name
/// given twice, whose first value it keeps, as `getenv` does.
@Suite struct ProcessEnvironmentTests {
  @Test func thisProcessHasFoundationsVariables() {
    let variables = ProcessEnvironment.variables()
    #expect(variables == ProcessInfo.processInfo.environment)
    #expect(variables["PATH"] != nil)
  }

  @Test func aListSplitsAtTheFirstEqualsSignKeepsTheFirstOfTwinsAndSkipsEntriesWithoutOne() throws {
    let entries: [[UInt8]] = [
      Array("EQUALS=a=b=c".utf8), Array("EMPTY=".utf8), Array("TEXT=Zürich 会議 🎉".utf8),
      Array("TWICE=first".utf8), Array("TWICE=second".utf8), Array("NO_EQUALS".utf8),
      Array("BYTES=".utf8) + [0xFF, 0x41],
    ]
    var pointers: [UnsafeMutablePointer<CChar>?] = entries.map { bytes in
      let pointer = UnsafeMutablePointer<CChar>.allocate(capacity: bytes.count + 1)
      for (index, byte) in bytes.enumerated() { pointer[index] = CChar(bitPattern: byte) }
      pointer[bytes.count] = 0
      return pointer
    }
    pointers.append(nil)
    defer { for pointer in pointers { pointer?.deallocate() } }
    let variables = try pointers.withUnsafeBufferPointer { list in
      ProcessEnvironment.variables(in: try #require(list.baseAddress))
    }
    #expect(
      variables == [
        "EQUALS": "a=b=c", "EMPTY": "", "TEXT": "Zürich 会議 🎉", "TWICE": "first", "BYTES": "\u{FFFD}A",
      ]
    )
  }
}
