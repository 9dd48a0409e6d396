import ApptCore
import ApptTestSupport
import Foundation
import Testing

@testable import ApptUI

/// `update` is pure: each test is a state, a message, and a comparison of values.
@Suite struct UpdateTests: UIModelTest {
  let environment = Environment(clock: TestClock.clock)
  let today = TestClock.clock.today
  let dentist = TestStore.appointment("Dentist", TestClock.date(2026, 11, 29, 10))
  let lunch = TestStore.appointment("Lunch", TestClock.date(2026, 11, 29, 12, 30))

  @Test func startsOnTodayAndObservesIt() {
    let (state, effects) = UI.start(size: Screen.Size(rows: 24, columns: 80), environment: environment)
    #expect(state.selectedDay == today)
    #expect(effects == [.observeDay(today), .observeMonth(TestClock.date(2026, 11, 1))])
    #expect(!state.isLoaded)
  }

  @Test func snapshotSelectsTheFirstAppointment() {
    let state = loaded([dentist, lunch])
    #expect(state.isLoaded)
    #expect(state.selectedID == dentist.id)
  }

  @Test func jAndKMoveAndStopAtTheEnds() {
    var state = loaded([dentist, lunch])
    _ = press("j", on: &state)
    #expect(state.selectedID == lunch.id)
    _ = press("j", "down", on: &state)
    #expect(state.selectedID == lunch.id)
    _ = press("k", on: &state)
    #expect(state.selectedID == dentist.id)
    _ = press("up", "k", on: &state)
    #expect(state.selectedID == dentist.id)
  }

  /// Delivers the (empty) snapshot of the day on screen, as the runtime would.
  func arrive(_ state: inout State) {
    _ = UI.update(&state, .snapshotArrived(day: state.selectedDay, appointments: []), environment: environment)
  }

  @Test func dayKeysChangeTheDayAndObserveIt() {
    var state = loaded([dentist])
    let clock = TestClock.clock
    let tomorrow = clock.day(1, after: today)
    #expect(press("l", on: &state) == [.observeDay(tomorrow)])
    #expect(state.selectedDay == tomorrow)
    #expect(state.appointments.isEmpty && !state.isLoaded)
    arrive(&state)
    // Back to the day just left: shown at once from what it showed (the store is at the same
    // version), and observed from there.
    #expect(press("h", on: &state) == [.observeDay(today, known: KnownWindow(items: [dentist], version: 0))])
    #expect(state.isLoaded && state.appointments == [dentist])
    arrive(&state)
    #expect(press("left", on: &state) == [.observeDay(clock.day(-1, after: today))])
    arrive(&state)
    #expect(
      press("pgdown", on: &state) == [
        .observeDay(clock.day(6, after: today)), .observeMonth(TestClock.date(2026, 12, 1)),
      ]
    )
    arrive(&state)
    #expect(
      press("pgup", on: &state) == [
        .observeDay(clock.day(-1, after: today)), .observeMonth(TestClock.date(2026, 11, 1)),
      ]
    )
    arrive(&state)
    #expect(press("t", on: &state) == [.observeDay(today)])
    arrive(&state)
    #expect(press("t", on: &state) == [], "already on today: nothing to observe")
  }

  @Test func keysTypedWhileADayLoadsActOnThatDay() {
    var state = loaded([dentist])
    let tomorrow = TestClock.clock.day(1, after: today)
    let first = TestStore.appointment("First", TestClock.date(2026, 11, 30, 9))
    let second = TestStore.appointment("Second", TestClock.date(2026, 11, 30, 10))
    #expect(press("l", "j", "c", on: &state) == [.observeDay(tomorrow)])
    #expect(state.typeahead == [.character("j"), .character("c")])
    #expect(state.mode == .browsing)
    _ = UI.update(&state, .snapshotArrived(day: tomorrow, appointments: [first, second]), environment: environment)
    #expect(state.typeahead.isEmpty)
    #expect(state.mode == .confirm(.cancel(second)))
  }

  @Test func typeaheadAcrossSeveralDaysWaitsForEach() {
    var state = loaded([])
    let tomorrow = TestClock.clock.day(1, after: today)
    let dayAfter = TestClock.clock.day(2, after: today)
    #expect(press("l", "l", "j", on: &state) == [.observeDay(tomorrow)])
    let effects = UI.update(&state, .snapshotArrived(day: tomorrow, appointments: []), environment: environment)
    // The day after was asked to be read ahead, but the typed `l` goes there before it came.
    #expect(
      effects == [
        .readAhead(day: dayAfter, end: nil), .observeDay(dayAfter), .observeMonth(TestClock.date(2026, 12, 1)),
      ]
    )
    #expect(state.typeahead == [.character("j")])
  }

  @Test func quitDoesNotWaitForLoading() {
    var state = loaded([])
    _ = press("l", on: &state)
    #expect(press("q", on: &state) == [.quit])
  }

  @Test func aLateSnapshotOfAnotherDayIsIgnored() {
    var state = loaded([dentist])
    _ = press("l", on: &state)
    _ = UI.update(&state, .snapshotArrived(day: today, appointments: [dentist, lunch]), environment: environment)
    #expect(state.appointments.isEmpty)
    #expect(!state.isLoaded)
  }

  @Test func selectionFollowsTheAppointmentAcrossSnapshots() {
    var state = loaded([dentist, lunch])
    _ = press("j", on: &state)
    let early = TestStore.appointment("Early", TestClock.date(2026, 11, 29, 8))
    _ = UI.update(
      &state,
      .snapshotArrived(day: today, appointments: [early, dentist, lunch]),
      environment: environment
    )
    #expect(state.selectedID == lunch.id)
    #expect(state.selectedIndex == 2)
    // The selected one disappears: the selection stays on the same row.
    _ = UI.update(&state, .snapshotArrived(day: today, appointments: [early, dentist]), environment: environment)
    #expect(state.selectedID == dentist.id)
  }

  @Test func addFormSavesAValidatedRequest() throws {
    var state = loaded([])
    _ = press("a", on: &state)
    guard case .form(let form) = state.mode else {
      Issue.record("a did not open the form")
      return
    }
    #expect(form[.start].text == "2026-11-29 ")
    #expect(form[.duration].text == "1h")
    for character in "Dentist" { _ = UI.update(&state, .keyPressed(.character(character)), environment: environment) }
    _ = press("tab", on: &state)
    for character in "10:00" { _ = UI.update(&state, .keyPressed(.character(character)), environment: environment) }
    _ = press("tab", "ctrl+u", "4", "5", "m", on: &state)
    let effects = press("enter", on: &state)
    let start = TestClock.date(2026, 11, 29, 10)
    #expect(
      effects == [.addAppointment(AddRequest(title: "Dentist", start: start, end: start.addingTimeInterval(45 * 60)))]
    )
    guard case .form(let saving) = state.mode else {
      Issue.record("the form closed before the store answered")
      return
    }
    #expect(saving.isSaving)
    #expect(press("x", on: &state) == [], "keys wait while saving")
  }

  /// The prefilled Start used to be appended to (`2026-12-01 fri 3pm`, an error) until
  /// the user thought of Ctrl-U. It opens selected: typing replaces it, and a time typed
  /// alone falls on the form's day, not today; a cursor key keeps the text.
  @Test func aPrefilledFieldIsReplacedByTypingAndKeptByACursorKey() {
    var state = loaded([])
    _ = press("l", on: &state)
    _ = UI.update(&state, .snapshotArrived(day: state.selectedDay, appointments: []), environment: environment)
    _ = press("a", "tab", on: &state)  // tomorrow's form
    for character in "fri 3pm" { _ = UI.update(&state, .keyPressed(.character(character)), environment: environment) }
    guard case .form(let replaced) = state.mode else {
      Issue.record("a did not open the form")
      return
    }
    #expect(replaced[.start].text == "fri 3pm")
    #expect(replaced.errors[.start] == nil)
    _ = press("ctrl+u", on: &state)
    for character in "10:00" { _ = UI.update(&state, .keyPressed(.character(character)), environment: environment) }
    _ = press("tab", "backspace", on: &state)  // Duration's prefilled 1h: Backspace clears it
    for character in "30m" { _ = UI.update(&state, .keyPressed(.character(character)), environment: environment) }
    _ = press("shift+tab", "shift+tab", on: &state)
    for character in "Tea" { _ = UI.update(&state, .keyPressed(.character(character)), environment: environment) }
    let start = TestClock.date(2026, 11, 30, 10)
    #expect(
      press("enter", on: &state)
        == [.addAppointment(AddRequest(title: "Tea", start: start, end: start.addingTimeInterval(30 * 60)))],
      "a time alone is on the form's day (tomorrow), not today"
    )

    var kept = loaded([])
    _ = press("a", "tab", "end", on: &kept)
    for character in "09:15" { _ = UI.update(&kept, .keyPressed(.character(character)), environment: environment) }
    guard case .form(let form) = kept.mode else {
      Issue.record("a did not open the form")
      return
    }
    #expect(form[.start].text == "2026-11-29 09:15", "End kept the day and typing went after it")
    #expect(!form[.start].isSelected)
  }

  @Test func badFieldsShowErrorsAndKeepWhatWasTyped() {
    var state = loaded([])
    _ = press("a", on: &state)
    _ = press("tab", on: &state)
    for character in "25:99" { _ = UI.update(&state, .keyPressed(.character(character)), environment: environment) }
    #expect(press("enter", on: &state) == [])
    guard case .form(let form) = state.mode else {
      Issue.record("the form closed on bad input")
      return
    }
    #expect(form.errors[.title] == "a title is needed")
    #expect(form.errors[.start] != nil)
    #expect(form[.start].text == "25:99", "typing replaced the prefilled day")
    #expect(form.focus == .title, "focus moves to the first bad field")
  }

  /// An end in year 10000 made an export appt could not import; the form refuses
  /// such times as `add` does, inline, keeping what was typed.
  @Test func timesPastTheSupportedRangeAreRefusedInline() {
    var state = loaded([])
    press("a", on: &state)
    type("Late", on: &state)
    press("tab", "ctrl+u", on: &state)
    type("9999-12-31 10:00", on: &state)
    #expect(press("enter", on: &state) == [], "nothing is saved")
    guard case .form(let form) = state.mode else {
      Issue.record("the form closed")
      return
    }
    #expect(form.errors[.start]?.hasPrefix("the start 9999-12-31 09:00 UTC is out of range") == true)
    #expect(form[.start].text == "9999-12-31 10:00")
  }

  @Test func escapeDiscardsTheForm() {
    var state = loaded([])
    _ = press("a", "x", "esc", on: &state)
    #expect(state.mode == .browsing)
    #expect(state.status?.text == "Discarded the new appointment")
  }

  @Test func storeFailureKeepsTheFormOpenWithItsText() {
    var state = loaded([])
    _ = press("a", "x", "tab", "1", "0", ":", "0", "0", "enter", on: &state)
    _ = UI.update(&state, .storeFailed("disk full: cannot write /x"), environment: environment)
    guard case .form(let form) = state.mode else {
      Issue.record("the form closed on a store failure")
      return
    }
    #expect(!form.isSaving)
    #expect(form[.title].text == "x")
    #expect(state.status == State.StatusMessage(text: "disk full: cannot write /x", isError: true))
  }

  @Test func addedAppointmentIsSelectedOnItsDay() {
    var state = loaded([])
    let later = TestStore.appointment("Later", TestClock.date(2026, 12, 3, 9))
    let effects = UI.update(&state, .appointmentAdded(later), environment: environment)
    #expect(effects == [.observeDay(TestClock.date(2026, 12, 3)), .observeMonth(TestClock.date(2026, 12, 1))])
    #expect(state.mode == .browsing)
    _ = UI.update(
      &state,
      .snapshotArrived(day: TestClock.date(2026, 12, 3), appointments: [dentist, later]),
      environment: environment
    )
    #expect(state.selectedID == later.id)
  }

  @Test func cancelAsksFirst() {
    var state = loaded([dentist, lunch])
    _ = press("j", on: &state)
    #expect(press("c", on: &state) == [])
    #expect(state.mode == .confirm(.cancel(lunch)))
    #expect(press("y", on: &state) == [.cancelAppointment(lunch)])
    #expect(state.mode == .browsing)
  }

  @Test func anyOtherKeyKeepsTheAppointment() {
    var state = loaded([dentist])
    _ = press("c", on: &state)
    #expect(press("n", on: &state) == [])
    #expect(state.mode == .browsing)
    #expect(state.status?.text == "Kept \"Dentist\"")
  }

  @Test func cancelWithNothingSelectedSaysSo() {
    var state = loaded([])
    #expect(press("c", on: &state) == [])
    #expect(state.status?.isError == true)
  }

  @Test func quitKeysQuitFromEveryMode() {
    for spelling in ["q", "ctrl+c"] {
      var state = loaded([dentist])
      #expect(press(spelling, on: &state) == [.quit])
    }
    var inForm = loaded([])
    #expect(press("a", "q", on: &inForm) == [], "q is text in the form")
    #expect(press("ctrl+c", on: &inForm) == [.quit])
    var interrupted = loaded([])
    #expect(UI.update(&interrupted, .interrupted, environment: environment) == [.quit])
  }
}

@Suite struct TextFieldTests {
  func field(_ text: String, keys: [Key]) -> TextField {
    var field = TextField(text)
    for key in keys { _ = field.apply(key) }
    return field
  }

  @Test func editsLikeReadline() {
    #expect(field("abc", keys: [.left, .character("X")]).text == "abXc")
    #expect(field("abc", keys: [.home, .character("X")]).text == "Xabc")
    #expect(field("abc", keys: [.control("a"), .control("e"), .character("X")]).text == "abcX")
    #expect(field("abc", keys: [.backspace]).text == "ab")
    #expect(field("abc", keys: [.home, .delete]).text == "bc")
    #expect(field("abc", keys: [.control("u")]).text == "")
    #expect(field("lunch with bob", keys: [.control("w")]).text == "lunch with ")
    #expect(field("abc", keys: [.home, .backspace]).text == "abc")
    #expect(field("abc", keys: [.left, .left, .control("k")]).text == "a")
  }

  @Test func nonEditingKeysAreNotConsumed() {
    var field = TextField("x")
    let enterConsumed = field.apply(.enter)
    let tabConsumed = field.apply(.tab)
    #expect(!enterConsumed && !tabConsumed)
    #expect(field.text == "x")
  }
}

@Suite struct KeyMapTests {
  @Test func everySpellingRoundTrips() {
    for binding in KeyMap.standard.bindings {
      for key in binding.keys {
        #expect(Key(spelling: key.description) == key)
      }
    }
  }

  @Test func noKeyIsBoundTwice() {
    let keys = KeyMap.standard.bindings.flatMap(\.keys)
    #expect(Set(keys).count == keys.count)
  }

  @Test func everyActionHasAKey() {
    for action in Action.allCases {
      #expect(!KeyMap.standard.keys(for: action).isEmpty, "\(action) has no key")
    }
  }
}
