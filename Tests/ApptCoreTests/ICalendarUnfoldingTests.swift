import ApptTestSupport
import Foundation
import Testing

@testable import ApptCore

/// The lazy unfolding that `read` streams through (one line at a time, so a big file is not
/// held again as every line's bytes and text): the same lines, numbers and problems as a
/// whole-file split, at the edges.
@Suite("iCalendar unfolding")
struct ICalendarUnfoldingTests {
  func lines(_ text: String) -> (texts: [String?], numbers: [Int], problems: [ICalendar.Problem]) {
    let (lines, problems) = ICalendar.unfold(Array(text.utf8))
    return (lines.map(\.text), lines.map(\.line), problems)
  }

  /// The lines of `text` read from pieces of `size` bytes, as an import reads a file.
  func piecewise(_ text: String, size: Int) -> (texts: [String?], numbers: [Int], problems: [ICalendar.Problem]) {
    var rest = Array(text.utf8)[...]
    var iterator = ICalendar.UnfoldedLines(source: {
      guard !rest.isEmpty else { return nil }
      defer { rest = rest.dropFirst(size) }
      return Array(rest.prefix(size))
    })
    var lines: [(text: String?, line: Int)] = []
    while let line = iterator.next() { lines.append(line) }
    return (lines.map(\.text), lines.map(\.line), iterator.problems)
  }

  @Test("read from pieces of any size, the lines, numbers and problems are the whole text's")
  func pieces() {
    let texts = [
      " orphan\r\n\tanother\r\nX-A:a\r\n\r\n  folded into a blank\r\nX-B:b",
      "\u{FEFF}X-A:a\r\n b\r\n\tc\r\nX-B:caf\u{E9} \u{1F600}\r\n \u{E9}\nX-C:\r",
      "X-A:a\n b\n", "", "\u{FEFF}", "\r\n", "X-A:" + String(repeating: "long ", count: 100) + "\r\n more",
      "BEGIN:VCALENDAR\r\nBEGIN:VEVENT\r\nSUMMARY:x\r\n  y\r\nEND:VEVENT\r\nEND:VCALENDAR\r\n",
    ]
    for text in texts {
      let whole = lines(text)
      for size in [1, 2, 3, 5, 7, 64, 1 << 16] {
        let read = piecewise(text, size: size)
        #expect(read.texts == whole.texts, "pieces of \(size) bytes")
        #expect(read.numbers == whole.numbers && read.problems == whole.problems, "pieces of \(size) bytes")
      }
    }
    // A line cut inside a UTF-8 sequence, at every byte.
    let split = "X-A:caf\u{E9}\u{1F600}\r\n \u{E9}\r\nX-B:b"
    #expect(piecewise(split, size: 1).texts == ["X-A:caf\u{E9}\u{1F600}\u{E9}", "X-B:b"])
  }

  @Test("continuations before any line are problems; blank lines are lines; folds may follow a blank one")
  func edges() {
    let start = lines(" orphan\r\n\tanother\r\nX-A:a\r\n\r\n  folded into a blank\r\nX-B:b")
    #expect(start.texts == ["X-A:a", " folded into a blank", "X-B:b"])
    #expect(start.numbers == [3, 4, 6])
    let orphan = "a continuation line (starting with a blank) with no line before it"
    #expect(start.problems == [.init(line: 1, message: orphan), .init(line: 2, message: orphan)])
  }

  @Test("the last line may lack its newline or end in a fold")
  func lastLine() {
    #expect(lines("X-A:a\r\n b").texts == ["X-A:ab"])
    #expect(lines("X-A:a\n b\n").texts == ["X-A:ab"])
    #expect(lines("X-A:a\r").texts == ["X-A:a"], "a CR before the end of the file is the CRLF's")
    #expect(lines("").texts == [])
    #expect(lines("\u{FEFF}X-A:a").texts == ["X-A:a"], "the byte order mark is skipped")
  }

  @Test("a file of blank lines only is empty; a line that is not UTF-8 keeps its number")
  func emptyAndInvalid() {
    let clock = Fixture.clock
    let orphan = "a continuation line (starting with a blank) with no line before it"
    #expect(ICalendar.read("  x\r\n", clock: clock).problems == [.init(line: 1, message: orphan)])
    #expect(ICalendar.read("\r\n   \r\n\r\n", clock: clock).problems == [.init(line: 1, message: "the file is empty")])
    let bytes = Array("BEGIN:VCALENDAR\r\nX-A:".utf8) + [0xFF] + Array("\r\n\r\nEND:VCALENDAR\r\n".utf8)
    let (lines, _) = ICalendar.unfold(bytes)
    #expect(lines.map(\.line) == [1, 2, 3, 4])
    #expect(lines[1].text == nil)
  }
}
