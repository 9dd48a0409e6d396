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

  /// Fixed ids, so whole screens (the detail pane shows the id) are the same every run.
  func withID(_ appointment: Appointment, _ uuid: String) -> Appointment {
    var copy = appointment
    if let id = AppointmentID(string: uuid) { copy.id = id }
    return copy
  }

  var dentist: Appointment {
    withID(
      TestStore.appointment("Dentist", TestClock.date(2026, 11, 29, 10), minutes: 45, note: "bring the x-rays"),
      "1a2b3c4d-0000-4000-8000-000000000001"
    )
  }
  var cancelled: Appointment {
    withID(
      TestStore.appointment("Standup", TestClock.date(2026, 11, 29, 9), minutes: 15, status: .cancelled),
      "5e6f7a8b-0000-4000-8000-000000000002"
    )
  }

  @Test func agendaAt80x24() {
    var state = state(size: Screen.Size(rows: 24, columns: 80), items: [cancelled, dentist])
    state.busyDays = [TestClock.clock.dayNumber(of: TestClock.date(2026, 11, 30))]
    expectScreen(
      state,
      """
       appt  Sun 29 Nov 2026  (today)                                  2 appointments
       November 2026         │
       Mo Tu We Th Fr Sa Su  │  09:00-09:15  Standup  (cancelled)
                          1  │  10:00-10:45  Dentist
        2  3  4  5  6  7  8  │  ── now 15:00 ─────────────────────────────────────────
        9 10 11 12 13 14 15  │
       16 17 18 19 20 21 22  │
       23 24 25 26 27 28 29  │
       30                    │
                             │
       ▪ busy  ▪ today       │
                             │
                             │
                             │
                             │
                             │
                             │
                             │────────────────────────────────────────────────────────
                             │ Standup
                             │ Sun 29 Nov 2026, 09:00-09:15 (15m)  cancelled
                             │ id 5e6f7a · created Sun 2026-11-29 15:00 · updated Sun…
                             │
                             │
       j/k move  h/l day  a add  e edit  c cancel  u undo  / search  ? help  q quit
      """
    )
    let screen = Views.render(state, environment: environment)
    #expect(screen[2, 26].style == .selected, "the first appointment is selected")
    #expect(screen[3, 26].style == .normal)
    #expect(screen[8, 1].style == .marked, "30 Nov has appointments")
    #expect(screen[7, 19].style == .selected, "the selected day (today here) is inverted")
    #expect(screen[7, 4].style == .normal)
  }

  @Test func narrowTerminalsDropTheMonthPanelThenTheDetail() {
    let narrow = Views.render(
      state(size: Screen.Size(rows: 24, columns: 50), items: [dentist]),
      environment: environment
    )
    #expect(narrow.rows[2].hasPrefix("  10:00-10:45  Dentist"))
    #expect(narrow.rows.contains { $0.hasPrefix(" Dentist") }, "the detail pane is still there")
    let short = Views.render(
      state(size: Screen.Size(rows: 12, columns: 50), items: [dentist]),
      environment: environment
    )
    #expect(!short.rows.contains { $0.hasPrefix(" Dentist") }, "no room for the detail pane")
    #expect(!short.rows.joined().contains("Mo Tu"))
  }

  @Test func conflictsAreMarked() {
    let overlapping = TestStore.appointment("Call", TestClock.date(2026, 11, 29, 10, 30))
    let later = TestStore.appointment("Later", TestClock.date(2026, 11, 29, 17))
    let rows = Views.render(
      state(size: Screen.Size(rows: 10, columns: 40), items: [dentist, overlapping, later]),
      environment: environment
    ).rows
    #expect(rows[2] == "! 10:00-10:45  Dentist" + String(repeating: " ", count: 18))
    #expect(rows[3].hasPrefix("! 10:30-11:30  Call"))
    #expect(rows[5].hasPrefix("  17:00-18:00  Later"), "after the now marker, and no conflict")
  }

  @Test func helpOverlayListsExactlyTheKeyMap() {
    var state = state(size: Screen.Size(rows: 30, columns: 90), items: [dentist])
    _ = UI.update(&state, .keyPressed(.character("?")), environment: environment)
    let rows = Views.render(state, environment: environment).rows.map {
      String($0.reversed().drop { $0 == " " }.reversed())
    }
    let listed = rows.filter { row in
      KeyMap.standard.bindings.contains {
        row.hasPrefix("  " + $0.keys.map(\.description).joined(separator: " ") + " ")
      }
    }
    #expect(listed == HelpView.bindingLines(.standard).map { "  " + $0 })
    #expect(listed.count == KeyMap.standard.bindings.count)
    for binding in KeyMap.standard.bindings {
      #expect(rows.contains { $0.contains(binding.action.summary) }, "\(binding.action) missing from the help")
    }
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
        ── now 15:00 ─────
       ? help  q quit
      """
    )
  }

  /// The status line used to cut its hints at the right edge, "? help" and "q quit" first;
  /// a narrow one keeps those two and fills the rest with what fits.
  @Test func narrowStatusLinesKeepTheHintsThatMatter() {
    #expect(Views.hints(.standard, width: 40) == "j/k move  a add  e edit  ? help  q quit")
    #expect(Views.hints(.standard, width: 60) == "j/k move  h/l day  a add  e edit  c cancel  ? help  q quit")
    #expect(Views.hints(.standard, width: 14) == "? help  q quit")
    #expect(Views.hints(.standard, width: 13) == "a add  ? help", "what still fits fills the line")
  }

  /// At 60x20 the help used to be cut before "quit"; taller than the terminal, it scrolls.
  @Test func theHelpScrollsWhenItIsTallerThanTheTerminal() {
    var state = state(size: Screen.Size(rows: 20, columns: 60), items: [dentist])
    _ = UI.update(&state, .keyPressed(.character("?")), environment: environment)
    let lines = HelpView.lines(environment.keyMap, width: 60)
    #expect(lines.count > 18, "the help is taller than 18 rows")
    var rows = Views.render(state, environment: environment).rows
    #expect(rows[1].hasPrefix("  Keys"))
    #expect(rows[19].hasPrefix(" j/k scroll (1-18 of \(lines.count))"))
    _ = UI.update(&state, .keyPressed(.end), environment: environment)
    rows = Views.render(state, environment: environment).rows
    #expect(state.mode == .help, "a scrolling key keeps it open")
    #expect(rows.contains { $0.contains("quit") }, "the last lines are reachable")
    #expect(rows[18].hasPrefix("    ") || rows[18].hasPrefix("  On an occurrence"), "the end shows: \(rows[18])")
    _ = UI.update(&state, .keyPressed(.character("k")), environment: environment)
    #expect(state.helpScroll == lines.count - 18 - 1)
    _ = UI.update(&state, .keyPressed(.character("x")), environment: environment)
    #expect(state.mode == .browsing, "any other key closes it")
  }

  /// At 20x5 the form used to take keys with nothing of it shown; now it says it is too small
  /// and takes only esc.
  @Test func aFormTooSmallToShowSaysSoAndTakesOnlyEsc() {
    var state = state(size: Screen.Size(rows: 5, columns: 20), items: [dentist])
    _ = UI.update(&state, .keyPressed(.character("a")), environment: environment)
    let rows = Views.render(state, environment: environment).rows
    #expect(rows[1].hasPrefix("Too small for the"), "\(rows)")
    #expect(rows[4].hasPrefix(" esc discard"))
    #expect(Views.cursorPosition(state) == nil)
    _ = UI.update(&state, .keyPressed(.character("X")), environment: environment)
    guard case .form(let form) = state.mode else {
      Issue.record("the form closed")
      return
    }
    #expect(form[.title].text.isEmpty, "nothing typed blind")
    _ = UI.update(&state, .keyPressed(.escape), environment: environment)
    #expect(state.mode == .browsing)
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

  /// A right-to-left override in a title must not reach the terminal raw (Trojan Source:
  /// the row would read "safe" and a reversed name instead of what is stored).
  @Test func bidirectionalControlsInTitlesAreEscaped() {
    let evil = TestStore.appointment(
      "invoice\u{202E}fdp.exe\u{2066}x\u{2069}\u{200F}",
      TestClock.date(2026, 11, 29, 10)
    )
    let rows = Views.render(state(size: Screen.Size(rows: 6, columns: 80), items: [evil]), environment: environment)
      .rows
    #expect(rows[2].hasPrefix("  10:00-11:00  invoice\\u{202e}fdp.exe\\u{2066}x\\u{2069}\\u{200f} "))
    #expect(!rows.joined().unicodeScalars.contains { TextSafety.isInvisibleFormat($0) })
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
        Start     10:00
        Duration  1h
        Location
        Note
        Remind

        → Sun 2026-11-29, 10:00-11:00

       enter save  tab next field  esc discard  ctrl+u clear field
      """
    )
    #expect(Views.cursorPosition(state)?.row == 5)
    #expect(Views.cursorPosition(state)?.column == 12 + 5)
  }

  @Test func confirmationOnTheStatusLine() {
    var state = state(size: Screen.Size(rows: 6, columns: 60), items: [dentist])
    _ = UI.update(&state, .keyPressed(.character("c")), environment: environment)
    #expect(
      Views.render(state, environment: environment).rows[5].hasPrefix(" Cancel \"Dentist\" at 10:00-10:45? (y/n)")
    )
  }

  @Test func hintsComeFromTheKeyMap() {
    #expect(Views.hints(.standard) == "j/k move  h/l day  a add  e edit  c cancel  u undo  / search  ? help  q quit")
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
