import ApptCore
import ApptTestSupport
import Foundation
import Testing

@testable import ApptUI

/// A bracketed paste is one key, `.paste(text)`: one edit in a field, never commands.
@Suite struct PasteUpdateTests: UIModelTest {
  let environment = Environment(clock: TestClock.clock)
  let dentist = TestStore.appointment("Dentist", TestClock.date(2026, 11, 29, 9), note: "bring the card")

  func form(_ state: State) -> Form? {
    if case .form(let form) = state.mode { return form }
    return nil
  }

  func paste(_ text: String, on state: inout State) -> [Effect] {
    UI.update(&state, .keyPressed(.paste(text)), environment: environment)
  }

  @Test func aPasteIntoTheTitleIsOneEditOnOneLine() {
    var state = loaded([])
    press("a", on: &state)
    type("Lunch ", on: &state)
    #expect(paste("with\r\nAna\tand\u{1B}[31m Bo", on: &state) == [])
    #expect(form(state)?[.title].text == "Lunch with Ana and[31m Bo", "breaks and tabs are spaces, controls left out")
    #expect(form(state)?[.title].cursor == "Lunch with Ana and[31m Bo".count)
    type("!", on: &state)
    #expect(form(state)?[.title].text == "Lunch with Ana and[31m Bo!")
  }

  @Test func aPasteIntoTheNoteKeepsItsLineBreaks() {
    var state = loaded([])
    press("a", "tab", "tab", "tab", "tab", on: &state)
    #expect(form(state)?.focus == .note)
    _ = paste("line one\rline two\nline three", on: &state)
    #expect(form(state)?[.note].text == "line one\nline two\nline three")
  }

  @Test func aTooLongPasteIsKeptAndTheFieldSaysSo() {
    var state = loaded([])
    press("a", on: &state)
    _ = paste(String(repeating: "x", count: 600), on: &state)
    #expect(form(state)?[.title].characters.count == 600)
    #expect(form(state)?.errors[.title] == "600 characters; at most 500")
    #expect(press("enter", on: &state) == [], "nothing is saved, and nothing was cut unseen")
  }

  @Test func aFieldHoldsAtMostItsMaximum() {
    var field = TextField(String(repeating: "a", count: TextField.maximumLength - 2))
    var applied = field.apply(.paste("bcd"))
    #expect(applied)
    #expect(field.characters.count == TextField.maximumLength)
    #expect(field.text.hasSuffix("abc"))
    applied = field.apply(.character("e"))
    #expect(applied, "still an editing key")
    #expect(field.characters.count == TextField.maximumLength)
    applied = field.apply(.backspace)
    #expect(field.text.hasSuffix("ab"))
  }

  @Test func aPasteWhileBrowsingRunsNoCommands() {
    var state = loaded([dentist])
    let before = state
    #expect(paste("Dq", on: &state) == [])
    #expect(state.mode == .browsing)
    #expect(state.appointments == before.appointments)
    #expect(state.status?.text.hasPrefix("Pasting does nothing here") == true)
  }

  @Test func aPasteOnTheCommandLineNeverRunsIt() {
    var state = loaded([])
    press(":", on: &state)
    #expect(paste("delete 1a2b\ndelete 3c4d\n", on: &state) == [])
    #expect(state.mode == .command(TextField("delete 1a2b delete 3c4d ")))
    #expect(press("enter", on: &state) == [.runCommand("delete 1a2b delete 3c4d")])
  }

  @Test func aPasteIntoTheFilterFilters() {
    var state = loaded([dentist])
    press("/", on: &state)
    _ = paste("Dent", on: &state)
    #expect(state.filter == "Dent")
  }

  @Test func aPasteTypedBeforeTheDayLoadedWaitsWithTheOtherKeys() {
    var state = UI.start(size: Screen.Size(rows: 24, columns: 80), environment: environment).0
    press("a", on: &state)
    _ = paste("Lunch", on: &state)
    type("!", on: &state)
    #expect(state.mode == .browsing)
    _ = UI.update(&state, .snapshotArrived(day: state.selectedDay, appointments: []), environment: environment)
    #expect(form(state)?[.title].text == "Lunch!", "a, the paste and ! went to the form, in order")
  }

  @Test func textTypedAfterAWhileTheDayLoadsReachesTheForm() {
    // "x" is no key while browsing, but it was typed after "a": it is the title's first letter.
    var state = UI.start(size: Screen.Size(rows: 24, columns: 80), environment: environment).0
    press("a", "x", "y", on: &state)
    _ = UI.update(&state, .snapshotArrived(day: state.selectedDay, appointments: []), environment: environment)
    #expect(form(state)?[.title].text == "xy")
  }

  @Test func typeaheadIsBounded() {
    var state = UI.start(size: Screen.Size(rows: 24, columns: 80), environment: environment).0
    for _ in 0..<(State.maximumTypeahead + 10) { press("j", on: &state) }
    #expect(state.typeahead.count == State.maximumTypeahead)
    #expect(state.status?.isError == true)
    #expect(press("q", on: &state) == [.quit], "quitting never waits")
  }

  @Test func aHugeNoteOpensCutAndSaysSo() {
    // 2 MB: the form holds the first 10,000 characters, and says what enter saves.
    let huge = String(repeating: "n", count: 2_000_000)
    var big = dentist
    big.note = huge
    var state = loaded([big])
    press("e", on: &state)
    guard let opened = form(state) else {
      Issue.record("the form did not open")
      return
    }
    #expect(opened[.note].characters.count == CommandParser.maximumNoteLength)
    #expect(opened.notice.first == "The note is longer than 10000 characters: only its first 10000 are here,")
    let screen = Views.render(state, environment: environment)
    #expect(screen.text.contains("! The note is longer than 10000 characters"))
    press("tab", "tab", "tab", "tab", "end", on: &state)
    type("x", on: &state)
    #expect(form(state)?.errors[.note] == "10001 characters; at most 10000")
  }
}
