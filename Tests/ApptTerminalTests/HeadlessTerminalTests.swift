import ApptUI
import Testing

@testable import ApptTerminal

/// The headless terminal shows what the runs it is given make of its grid, as ncurses would.
@MainActor
@Suite struct HeadlessTerminalTests {
  @Test func whatItShowsIsEveryFrameItWasGiven() throws {
    let terminal = HeadlessTerminal(size: Screen.Size(rows: 4, columns: 12))
    try terminal.start { _ in }
    var first = Screen(size: terminal.size)
    first.put("appt 中文", row: 0, column: 0, style: .header)
    first.put("hello", row: 2, column: 3)
    terminal.draw(first, cursor: nil)
    #expect(terminal.screen == first)
    let runsAfterFirst = terminal.runCount

    var second = first
    second.put("x", row: 0, column: 6, style: .header)  // half of 文: the other half blanks
    second.put("HELLO", row: 2, column: 3)
    terminal.draw(second, cursor: (2, 8))
    #expect(terminal.screen == second)
    #expect(terminal.runCount == runsAfterFirst + 2, "only the two changed stretches were written")

    terminal.draw(second, cursor: (2, 8))
    #expect(terminal.runCount == runsAfterFirst + 2, "an unchanged frame writes nothing")

    let bigger = Screen.Size(rows: 5, columns: 20)
    var third = Screen(size: bigger)
    third.put("resized", row: 4, column: 13)
    terminal.draw(third, cursor: nil)
    #expect(terminal.screen == third)
    #expect(terminal.frame == third)
    #expect(terminal.frameCount == 4)
  }
}
