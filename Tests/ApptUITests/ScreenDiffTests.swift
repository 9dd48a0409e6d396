import ApptCore
import ApptTestSupport
import Testing

@testable import ApptUI

/// `Screen.changes(from:)`: what a terminal is told to write between two frames, and
/// `Screen.apply`, which writes it as a terminal would.
@Suite struct ScreenDiffTests {
  let size = Screen.Size(rows: 3, columns: 10)

  func screen(_ lines: [(String, Int, Screen.Style)], size: Screen.Size? = nil) -> Screen {
    var screen = Screen(size: size ?? self.size)
    for (index, (text, column, style)) in lines.enumerated() {
      screen.put(text, row: index, column: column, style: style)
    }
    return screen
  }

  /// What a terminal showing `previous` shows after the changes to `next`.
  func applied(_ next: Screen, over previous: Screen?) -> Screen {
    var shown = previous.flatMap { $0.size == next.size ? $0 : nil } ?? Screen(size: next.size)
    for run in next.changes(from: previous) { shown.apply(run) }
    return shown
  }

  @Test func identicalFramesChangeNothing() {
    let frame = screen([("appt", 0, .header), ("中文 ok", 1, .normal)])
    #expect(frame.changes(from: frame) == [])
  }

  @Test func oneChangedCellIsOneRunOfOneCell() {
    let before = screen([("abcdef", 0, .normal)])
    let after = screen([("abXdef", 0, .normal)])
    #expect(after.changes(from: before) == [Screen.Run(row: 0, column: 2, text: "X", style: .normal, width: 1)])
  }

  @Test func runsSplitAtStyleChangesAndUnchangedCells() {
    let before = screen([("abcdef", 0, .normal)])
    var after = screen([("xbcyzf", 0, .normal)])
    after.fill(row: 0, column: 4, count: 1, style: .selected)
    #expect(
      after.changes(from: before) == [
        Screen.Run(row: 0, column: 0, text: "x", style: .normal, width: 1),
        Screen.Run(row: 0, column: 3, text: "y", style: .normal, width: 1),
        Screen.Run(row: 0, column: 4, text: "z", style: .selected, width: 1),
      ]
    )
    var restyled = before
    restyled.fill(row: 0, style: .error)
    #expect(
      restyled.changes(from: before) == [Screen.Run(row: 0, column: 0, text: "abcdef    ", style: .error, width: 10)]
    )
  }

  @Test func aWideCharacterAndItsContinuationChangeTogether() {
    let before = screen([("ab中d", 0, .normal)])
    #expect(before[0, 2].text == "中")
    #expect(before[0, 3].text == "", "the continuation cell")
    // The wide character becomes two narrow ones: both of its columns are written.
    let after = screen([("abxyd", 0, .normal)])
    #expect(after.changes(from: before) == [Screen.Run(row: 0, column: 2, text: "xy", style: .normal, width: 2)])
    // And back: one run of one character covering two columns, never starting on a continuation.
    #expect(before.changes(from: after) == [Screen.Run(row: 0, column: 2, text: "中", style: .normal, width: 2)])
    // Only the style of the continuation's column painted: the whole character is restyled.
    var painted = before
    painted.fill(row: 0, column: 3, count: 1, style: .selected)
    #expect(painted[0, 2].style == .selected)
    #expect(painted.changes(from: before) == [Screen.Run(row: 0, column: 2, text: "中", style: .selected, width: 2)])
    #expect(applied(after, over: before) == after)
    #expect(applied(before, over: after) == before)
  }

  @Test func overwritingHalfOfAWideCharacterBlanksTheOtherHalf() {
    var screen = screen([("中文", 0, .normal)])
    screen.put("x", row: 0, column: 1)  // the right half of 中
    #expect([screen[0, 0].text, screen[0, 1].text, screen[0, 2].text] == [" ", "x", "文"])
    screen.put("y", row: 0, column: 2)  // the left half of 文
    #expect(screen[0, 3].text == " ", "no continuation is left without its character")
  }

  @Test func aResizeRewritesEverything() {
    let before = screen([("abc", 0, .normal)])
    let bigger = Screen.Size(rows: 2, columns: 12)
    let after = screen([("abc", 0, .normal)], size: bigger)
    let runs = after.changes(from: before)
    #expect(runs.map(\.row) == [0, 1])
    #expect(runs.map(\.width) == [12, 12])
    #expect(after.changes(from: nil) == runs, "no previous frame: the same")
    #expect(applied(after, over: before) == after)
  }

  @Test func appliedChangesReproduceAnyFrame() {
    // Random frames of narrow, wide and zero-width characters, in random styles: what a
    // terminal shows after each frame's changes is that frame, cell for cell.
    var random = SplitMix64(seed: 12)
    let pieces = ["a", "b", " ", "中", "文", "😀", "e\u{301}", "é", "\u{200B}", "\u{1B}", "─"]
    let styles: [Screen.Style] = [.normal, .selected, .header, .dim]
    var shown = Screen(size: size)
    var previous: Screen?
    for _ in 0..<300 {
      var next = Screen(size: size)
      for _ in 0..<random.below(8) {
        let text = (0..<random.below(6)).map { _ in random.pick(pieces) }.joined()
        next.put(text, row: random.below(size.rows), column: random.below(size.columns), style: random.pick(styles))
        if random.below(4) == 0 {
          next.fill(
            row: random.below(size.rows),
            column: random.below(size.columns),
            count: random.below(5),
            style: random.pick(styles)
          )
        }
      }
      for run in next.changes(from: previous) { shown.apply(run) }
      #expect(shown == next)
      previous = next
    }
  }

  @Test func drawingAHugeTextCostsItsVisiblePart() {
    // 2 MB with no line break: put looks only at the start that can show, and says it is cut.
    let huge = String(repeating: "x", count: 2_000_000)
    var screen = Screen(size: size)
    #expect(screen.put(huge, row: 0, column: 0) == 10)
    #expect(screen.rows[0] == "xxxxxxxxx…")
    let head = TextWidth.head(huge, columns: 10)
    #expect(head.isCut)
    #expect(head.text.unicodeScalars.count == 44)
    #expect(TextWidth.head("short", columns: 10).text == "short")
    #expect(!TextWidth.head("short", columns: 10).isCut)
  }
}
