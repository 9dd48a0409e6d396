import ApptCore
import ApptTestSupport
import Foundation
import Testing

@testable import ApptUI

/// Whole screens as text rows, at the sizes people use and the degenerate ones.
@Suite struct ViewTests {
  let environment = Environment(clock: TestClock.clock)
  let today = TestClock.clock.today

  func state(size: Screen.Size, items: [Appointment]) -> State {
    var state = UI.start(size: size, environment: environment).0
    _ = UI.update(&state, .snapshotArrived(day: today, appointments: items), environment: environment)
    return state
  }

  func expectScreen(_ state: State, _ expected: String, sourceLocation: SourceLocation = #_sourceLocation) {
    let rows = Views.render(state, environment: environment).rows
    if let difference = screenDifference(rows, expected) {
      Issue.record(Comment(rawValue: difference), sourceLocation: sourceLocation)
    }
  }

  var dentist: Appointment { TestStore.appointment("Dentist", TestClock.date(2026, 11, 29, 10), minutes: 45) }
  var cancelled: Appointment {
    TestStore.appointment("Standup", TestClock.date(2026, 11, 29, 9), minutes: 15, status: .cancelled)
  }

  @Test func agendaAt80x24() {
    let state = state(size: Screen.Size(rows: 24, columns: 80), items: [cancelled, dentist])
    let blank = Array(repeating: "", count: 19).joined(separator: "\n")
    expectScreen(
      state,
      """
       appt  Sun 29 Nov 2026  (today)                                  2 appointments

        09:00-09:15  Standup  (cancelled)
        10:00-10:45  Dentist
      \(blank)
       j/k move  h/l day  t today  a add  c cancel  q quit
      """
    )
    let screen = Views.render(state, environment: environment)
    #expect(screen[2, 2].style == .selected, "the first appointment is selected")
    #expect(screen[3, 2].style == .normal)
  }

  @Test func emptyDayInvitesToAdd() {
    let rows = Views.render(state(size: Screen.Size(rows: 6, columns: 60), items: []), environment: environment).rows
    #expect(rows[2].hasPrefix("  Nothing on this day. Press a to add an appointment."))
  }

  @Test func loadingBeforeTheFirstSnapshot() {
    let state = UI.start(size: Screen.Size(rows: 6, columns: 40), environment: environment).0
    #expect(Views.render(state, environment: environment).rows[2].hasPrefix("  Loading…"))
  }

  @Test func smallestUsableSize() {
    expectScreen(
      state(size: Screen.Size(rows: 5, columns: 20), items: [dentist]),
      """
       appt  Sun 29 Nov 2…

        10:00-10:45  Dent…

       j/k move  h/l day …
      """
    )
  }

  @Test func tooSmallSaysSo() {
    expectScreen(state(size: Screen.Size(rows: 3, columns: 30), items: [dentist]), "terminal too small\n\n")
    expectScreen(state(size: Screen.Size(rows: 1, columns: 1), items: [dentist]), "…")
    #expect(
      Views.render(state(size: Screen.Size(rows: 0, columns: 0), items: [dentist]), environment: environment).rows
        .isEmpty
    )
  }

  @Test func largeTerminal() {
    let rows = Views.render(
      state(size: Screen.Size(rows: 40, columns: 120), items: [dentist]),
      environment: environment
    ).rows
    #expect(rows.count == 40)
    #expect(rows.allSatisfy { TextWidth.of($0) == 120 })
    #expect(rows[0].hasSuffix("1 appointment "))
    #expect(rows[39].hasPrefix(" j/k move"))
  }

  @Test func selectionScrollsIntoView() {
    let many = (0..<30).map {
      TestStore.appointment(
        "Item \($0)",
        TestClock.date(2026, 11, 29, 0).addingTimeInterval(Double($0) * 1800),
        minutes: 15
      )
    }
    var state = state(size: Screen.Size(rows: 10, columns: 40), items: many)
    state.selectedID = many[20].id
    let rows = Views.render(state, environment: environment).rows
    #expect(rows.contains { $0.contains("Item 20") })
    #expect(!rows.contains { $0.contains("Item 0 ") })
  }

  @Test func hostileTitlesAreEscaped() {
    let evil = TestStore.appointment("\u{1B}]0;pwned\u{07}\u{1B}[2J evil\u{9B}", TestClock.date(2026, 11, 29, 10))
    let rows = Views.render(state(size: Screen.Size(rows: 6, columns: 60), items: [evil]), environment: environment)
      .rows
    #expect(rows[2].hasPrefix("  10:00-11:00  ^[]0;pwned^G^[[2J evil\\u{9b} "))
    #expect(!rows.joined().unicodeScalars.contains { TextSafety.isControl($0) })
  }

  @Test func wideTitlesAreClippedWithoutSplittingACharacter() {
    let wide = TestStore.appointment("会議会議会議会議会議会議🎉🎉", TestClock.date(2026, 11, 29, 10))
    let screen = Views.render(state(size: Screen.Size(rows: 5, columns: 30), items: [wide]), environment: environment)
    #expect(screen.rows[2] == "  10:00-11:00  会議会議会議会…")
    #expect(TextWidth.of(screen.rows[2]) == 30)
  }

  @Test func formShowsFieldsAndInterpretation() {
    var state = state(size: Screen.Size(rows: 14, columns: 60), items: [])
    for key: Key in [
      .character("a"), .character("X"), .tab, .character("1"), .character("0"), .character(":"), .character("0"),
      .character("0"),
    ] {
      _ = UI.update(&state, .keyPressed(key), environment: environment)
    }
    expectScreen(
      state,
      """
       appt  Sun 29 Nov 2026  (today)              0 appointments

        New appointment

        Title     X
        Start     2026-11-29 10:00
        Duration  1h
        Note

        → Sun 2026-11-29, 10:00-11:00



       enter save  tab next field  esc discard  ctrl+u clear field
      """
    )
    #expect(Views.cursorPosition(state)?.row == 5)
    #expect(Views.cursorPosition(state)?.column == 12 + 16)
  }

  @Test func confirmationOnTheStatusLine() {
    var state = state(size: Screen.Size(rows: 6, columns: 60), items: [dentist])
    _ = UI.update(&state, .keyPressed(.character("c")), environment: environment)
    #expect(
      Views.render(state, environment: environment).rows[5].hasPrefix(" Cancel \"Dentist\" at 10:00-10:45? (y/n)")
    )
  }

  @Test func hintsComeFromTheKeyMap() {
    #expect(Views.hints(.standard) == "j/k move  h/l day  t today  a add  c cancel  q quit")
  }
}

@Suite struct TextWidthTests {
  @Test func measuresColumns() {
    #expect(TextWidth.of("abc") == 3)
    #expect(TextWidth.of("会議") == 4)
    #expect(TextWidth.of("🎉") == 2)
    #expect(TextWidth.of("e\u{301}") == 1)
    #expect(TextWidth.of("👩‍💻") == 2)
  }

  @Test func clipsOnCharacterBoundaries() {
    #expect(TextWidth.clip("abcdef", to: 4) == "abc…")
    #expect(TextWidth.clip("会議会議", to: 4) == "会…")
    #expect(TextWidth.clip("会議会議", to: 5) == "会議…")
    #expect(TextWidth.clip("abc", to: 3) == "abc")
    #expect(TextWidth.clip("abc", to: 0) == "")
  }
}
