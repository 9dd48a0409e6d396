import ApptCore
import ApptTestSupport
import Foundation
import Testing

@testable import ApptUI

/// The calendar's keys beyond moving around: edit, restore, delete, undo, search, the command
/// line, help; each a state, some keys, and the effects and state that must follow.
@Suite struct FeatureTests: UIModelTest {
  let environment = Environment(clock: TestClock.clock)
  let today = TestClock.clock.today
  let dentist = TestStore.appointment("Dentist", TestClock.date(2026, 11, 29, 10), minutes: 45, note: "x-rays")
  let lunch = TestStore.appointment("Lunch", TestClock.date(2026, 11, 29, 12, 30))
  let standup = TestStore.appointment("Standup", TestClock.date(2026, 11, 29, 9), minutes: 15, status: .cancelled)

  func form(_ state: State) -> Form? {
    if case .form(let form) = state.mode { return form }
    return nil
  }

  @Test func editOpensTheFormWithTheAppointmentsFields() throws {
    var state = loaded([dentist])
    press("e", on: &state)
    let form = try #require(self.form(state))
    #expect(form.editing == dentist)
    #expect(form.fields.map(\.text) == ["Dentist", "2026-11-29 10:00", "45m", "", "x-rays", ""])
    press("esc", on: &state)
    press("enter", on: &state)
    #expect(self.form(state)?.editing == dentist, "enter edits too")
  }

  @Test func savingAnEditSendsTheNewVersionAndRemembersTheOld() throws {
    var state = loaded([dentist])
    press("e", "ctrl+u", on: &state)
    type("Dentist (moved)", on: &state)
    press("tab", "ctrl+w", on: &state)
    type("11:00", on: &state)
    let effects = press("enter", on: &state)
    var moved = dentist
    moved.title = "Dentist (moved)"
    moved.start = TestClock.date(2026, 11, 29, 11)
    moved.end = TestClock.date(2026, 11, 29, 11, 45)
    moved.updated = TestClock.now
    let request = EditRequest(
      id: dentist.id.description,
      title: "Dentist (moved)",
      start: moved.start,
      duration: 45 * 60,
      note: dentist.note,
      location: "",
      ifRevision: dentist.revision
    )
    #expect(effects == [.editAppointment(old: dentist, request: request)], "what `appt edit` would send")
    UI.update(&state, .appointmentUpdated(old: dentist, new: moved), environment: environment).forEach { _ in }
    #expect(state.mode == .browsing)
    #expect(state.undoSteps == [.put(dentist)])
    #expect(state.selectedID == dentist.id)
  }

  @Test func errorsShowAsYouTypeAndGoWhenFixed() throws {
    var state = loaded([])
    press("a", "tab", on: &state)
    type("25:", on: &state)
    #expect(form(state)?.errors[.start] != nil, "25: is already wrong")
    #expect(form(state)?.errors[.title] == nil, "an empty title is only reported on enter")
    press("backspace", "backspace", "backspace", on: &state)
    type("10:00", on: &state)
    #expect(form(state)?.errors.isEmpty == true)
  }

  @Test func anOverlapIsAWarningNotARefusal() throws {
    var state = loaded([dentist])
    press("a", on: &state)
    type("Call", on: &state)
    press("tab", on: &state)
    type("10:30", on: &state)
    let form = try #require(self.form(state))
    #expect(form.overlaps(with: state.appointments, clock: TestClock.clock) == [dentist])
    let rows = Views.render(state, environment: environment).rows
    #expect(rows.contains { $0.contains("! overlaps Dentist 10:00-10:45") })
    #expect(press("enter", on: &state).count == 1, "it still saves")
  }

  @Test func restoreOnlyAppliesToCancelledOnes() {
    var state = loaded([standup, dentist])
    #expect(press("r", on: &state) == [.restoreAppointment(standup)])
    press("j", on: &state)
    #expect(press("r", on: &state) == [])
    #expect(state.status?.text == "\"Dentist\" is not cancelled")
    _ = UI.update(&state, .appointmentRestored(standup), environment: environment)
    #expect(state.undoSteps == [.setStatus(standup, .cancelled)])
  }

  @Test func deleteAsksAndThenDeletes() {
    var state = loaded([dentist])
    press("D", on: &state)
    #expect(state.mode == .confirm(.delete(dentist)))
    #expect(Views.render(state, environment: environment).rows[23].hasPrefix(" Delete \"Dentist\" for good? (y/n)"))
    #expect(press("y", on: &state) == [.deleteAppointment(dentist)])
    _ = UI.update(&state, .appointmentDeleted(dentist), environment: environment)
    #expect(state.undoSteps == [.put(dentist)])
  }

  @Test func undoTakesBackTheLastChangeRepeatedly() {
    var state = loaded([dentist])
    #expect(press("u", on: &state) == [])
    #expect(state.status?.text == "Nothing to undo")
    _ = UI.update(&state, .appointmentAdded(lunch), environment: environment)
    _ = UI.update(&state, .appointmentCancelled(dentist), environment: environment)
    #expect(press("u", on: &state) == [.undo(.setStatus(dentist, .scheduled))])
    #expect(press("u", on: &state) == [.undo(.remove(lunch))])
    #expect(press("u", on: &state) == [])
    _ = UI.update(&state, .undone("added \"Lunch\""), environment: environment)
    #expect(state.status?.text == "Undid: added \"Lunch\"")
  }

  @Test func searchFiltersAsYouTypeEnterKeepsEscClears() {
    var state = loaded([dentist, lunch])
    press("/", on: &state)
    type("LUN", on: &state)
    #expect(state.visible == [lunch])
    #expect(state.selectedID == lunch.id, "the selection follows the filter")
    #expect(Views.render(state, environment: environment).rows[23].hasPrefix(" /LUN"))
    press("enter", on: &state)
    #expect(state.mode == .browsing)
    #expect(state.filter == "LUN")
    #expect(Views.render(state, environment: environment).rows[0].contains("filter: LUN"))
    press("esc", on: &state)
    #expect(state.filter.isEmpty)
    #expect(state.visible == [dentist, lunch])
    press("/", on: &state)
    type("x-ray", on: &state)
    #expect(state.visible == [dentist], "the note is searched too")
    press("esc", on: &state)
    #expect(state.filter.isEmpty && state.mode == .browsing)
  }

  @Test func vHidesAndShowsCancelledOnes() {
    var state = loaded([standup, dentist])
    #expect(state.selectedID == standup.id)
    press("v", on: &state)
    #expect(state.visible == [dentist])
    #expect(state.selectedID == dentist.id)
    press("v", on: &state)
    #expect(state.visible == [standup, dentist])
  }

  @Test func gAndGJumpToTheEnds() {
    var state = loaded([standup, dentist, lunch])
    press("G", on: &state)
    #expect(state.selectedID == lunch.id)
    press("g", on: &state)
    #expect(state.selectedID == standup.id)
    press("end", on: &state)
    #expect(state.selectedID == lunch.id)
  }

  /// A long output scrolls: j/k, pages, home/end; q closes.
  @Test func aLongCommandOutputScrolls() {
    var state = loaded([])
    let output = (1...50).map { "line \($0)" }.joined(separator: "\n")
    _ = UI.update(&state, .commandFinished(output: output, isError: false), environment: environment)
    var rows = Views.render(state, environment: environment).rows
    #expect(rows[23].hasPrefix(" j/k scroll (1-22 of 50)  esc close"))
    press("end", on: &state)
    rows = Views.render(state, environment: environment).rows
    #expect(rows[22].trimmingCharacters(in: .whitespaces) == "line 50")
    #expect(rows[23].hasPrefix(" j/k scroll (29-50 of 50)"))
    press("k", "x", on: &state)  // a key that is not a pane's does nothing
    guard case .output(let pane) = state.mode else {
      Issue.record("the pane closed")
      return
    }
    #expect(pane.scroll == 27)
    press("q", on: &state)
    #expect(state.mode == .browsing)
  }

  /// `/` then tab searches every day; the results are a list to go from.
  @Test func searchEveryDayListsResultsToGoTo() {
    var state = loaded([dentist])
    press("/", on: &state)
    #expect(
      Views.render(state, environment: environment).rows[23].hasPrefix(
        " /   enter filters this day, tab searches every day"
      )
    )
    #expect(press("tab", on: &state) == [], "nothing typed: nothing to search")
    type("lunch", on: &state)
    #expect(press("tab", on: &state) == [.searchAllDays("lunch")])
    #expect(state.mode == .browsing)
    #expect(state.filter.isEmpty, "the day's filter goes")
    let later = TestStore.appointment("Lunch", TestClock.date(2027, 1, 5, 12))
    _ = UI.update(&state, .searchResultsArrived(query: "lunch", results: [lunch, later]), environment: environment)
    guard case .results(let results) = state.mode else {
      Issue.record("no results shown")
      return
    }
    #expect(results.items == [lunch, later])
    let rows = Views.render(state, environment: environment).rows
    #expect(rows[1].hasPrefix("  2 matches for \"lunch\" on every day"))
    #expect(rows[23].hasPrefix(" 1 of 2  j/k choose  enter go to its day  esc close"))
    press("j", on: &state)
    let effects = press("enter", on: &state)
    #expect(effects.contains(.observeDay(TestClock.date(2027, 1, 5))))
    #expect(state.selectedID == later.id)
    #expect(state.mode == .browsing)
  }

  /// The mouse. The fixture's month, November 2026, starts on a Sunday: its 1st is
  /// the seventh cell of the first week row (screen row 3, columns 19-20), the 2nd row 4.
  @Test func clicksChooseDaysAndAppointmentsAndTheWheelMoves() {
    var state = loaded([dentist, lunch])
    let rows = Views.render(state, environment: environment).rows
    #expect(rows[3].hasPrefix("                    1"), "\(rows[3])")
    var effects = UI.update(&state, .mouse(MouseEvent(.click, row: 4, column: 2)), environment: environment)
    #expect(effects.contains(.observeDay(TestClock.date(2026, 11, 2))))
    #expect(UI.update(&state, .mouse(MouseEvent(.click, row: 2, column: 3)), environment: environment) == [])
    #expect(state.selectedDay == TestClock.date(2026, 11, 2), "a click on the weekday names does nothing")
    // Back to today's agenda: a click on Lunch's row selects it, the wheel goes back up.
    state = loaded([dentist, lunch])
    let agenda = Views.render(state, environment: environment).rows
    let lunchRow = agenda.firstIndex { $0.contains("Lunch") }
    #expect(lunchRow != nil)
    effects = UI.update(&state, .mouse(MouseEvent(.click, row: lunchRow ?? 0, column: 40)), environment: environment)
    #expect(state.selectedID == lunch.id)
    _ = UI.update(&state, .mouse(MouseEvent(.wheelUp, row: 10, column: 40)), environment: environment)
    #expect(state.selectedID == dentist.id)
    // Over the help, the wheel scrolls it as j/k do.
    state.size = Screen.Size(rows: 20, columns: 60)
    press("?", on: &state)
    _ = UI.update(&state, .mouse(MouseEvent(.wheelDown, row: 5, column: 5)), environment: environment)
    #expect(state.helpScroll == 1)
  }

  @Test func theCommandLineRunsTheScriptGrammar() {
    var state = loaded([])
    press(":", on: &state)
    type("list --all", on: &state)
    #expect(Views.render(state, environment: environment).rows[23].hasPrefix(" :list --all"))
    #expect(Views.cursorPosition(state)?.row == 23)
    #expect(press("enter", on: &state) == [.runCommand("list --all")])
    // More than a line of output is shown whole, in a pane (was: "a  (+2 more lines)").
    _ = UI.update(&state, .commandFinished(output: "a\nb\nc\n", isError: false), environment: environment)
    #expect(state.mode == .output(State.OutputPane(lines: ["a", "b", "c"], isError: false)))
    let rows = Views.render(state, environment: environment).rows
    #expect(Array(rows[1...3]).map { $0.trimmingCharacters(in: .whitespaces) } == ["a", "b", "c"])
    #expect(rows[23].hasPrefix(" j/k scroll  esc close"))
    press("esc", on: &state)
    #expect(state.mode == .browsing)
    press(":", "esc", on: &state)
    #expect(state.mode == .browsing)
    _ = UI.update(&state, .commandFinished(output: "unknown command \"x\"", isError: true), environment: environment)
    #expect(state.status?.isError == true)
  }

  @Test func helpOpensAndAnyKeyClosesIt() {
    var state = loaded([dentist])
    state.size = Screen.Size(rows: 60, columns: 100)  // the whole help fits: every key closes it
    press("?", on: &state)
    #expect(state.mode == .help)
    #expect(press("j", on: &state) == [])
    #expect(state.mode == .browsing)
    #expect(state.selectedID == dentist.id, "the closing key does nothing else")
  }

  @Test func anotherProcessesChangeIsAnnounced() {
    var state = loaded([dentist])
    _ = UI.update(
      &state,
      .snapshotArrived(day: today, appointments: [dentist, lunch], fromOtherProcess: true),
      environment: environment
    )
    #expect(state.status?.text == "Updated by another process")
  }

  @Test func unboundKeysPointToTheHelp() {
    var state = loaded([])
    press("Z", on: &state)
    #expect(state.status?.text == "Z does nothing here; ? shows the keys")
  }

  @Test func theNowMarkerMovesWithTheClock() {
    var state = loaded([dentist, lunch])
    #expect(AgendaView.rows(state.visible, day: today, now: state.now, clock: TestClock.clock).last == .now)
    _ = UI.update(&state, .clockTicked(TestClock.date(2026, 11, 29, 11)), environment: environment)
    #expect(
      AgendaView.rows(state.visible, day: today, now: state.now, clock: TestClock.clock) == [
        .appointment(0), .now, .appointment(1),
      ]
    )
    let tomorrow = TestClock.clock.day(1, after: today)
    #expect(!AgendaView.rows(state.visible, day: tomorrow, now: state.now, clock: TestClock.clock).contains(.now))
  }

  @Test func aCalendarOpenOnTodayFollowsTodayPastMidnight() {
    var state = loaded([dentist, lunch])
    let tomorrow = TestClock.clock.day(1, after: today)
    #expect(UI.update(&state, .clockTicked(TestClock.date(2026, 11, 29, 23, 59)), environment: environment) == [])
    let effects = UI.update(&state, .clockTicked(TestClock.date(2026, 11, 30, 0, 0)), environment: environment)
    #expect(state.selectedDay == tomorrow)
    #expect(effects == [.observeDay(tomorrow)])
  }

  @Test func aCalendarOnAnotherDayStaysThereAtMidnight() {
    var state = loaded([dentist, lunch])
    press("h", on: &state)  // yesterday, chosen by the user
    let chosen = state.selectedDay
    #expect(chosen != today)
    #expect(UI.update(&state, .clockTicked(TestClock.date(2026, 11, 30, 0, 0)), environment: environment) == [])
    #expect(state.selectedDay == chosen)
    var editing = loaded([dentist])
    press("e", on: &editing)
    #expect(UI.update(&editing, .clockTicked(TestClock.date(2026, 11, 30, 0, 0)), environment: environment) == [])
    #expect(editing.selectedDay == today, "an open form keeps its day")
  }
}
