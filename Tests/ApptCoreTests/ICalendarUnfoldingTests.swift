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
