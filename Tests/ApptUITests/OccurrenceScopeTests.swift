import ApptCore
import ApptTestSupport
import Foundation
import Testing

@testable import ApptUI

/// The calendar model in the UI: the Location field, the question `e` and `c` ask on an
/// occurrence of a series (o / f / s, esc), what each answer sends, the undo each edit
/// records, and what the list and the detail pane show of a location and a changed occurrence.
@Suite struct OccurrenceScopeTests: UIModelTest {
  let environment = Environment(clock: TestClock.clock)
  let dentist = TestStore.appointment("Dentist", TestClock.date(2026, 11, 29, 10), minutes: 45)

  /// Today's 09:00 occurrence of a daily series that started yesterday.
  var occurrence: Appointment {
    var series = TestStore.appointment("Standup", TestClock.date(2026, 11, 28, 9), minutes: 15)
    series.recurrence = Recurrence(frequency: .daily)
    series.revision = 3
    var copy = series
    copy.start = TestClock.date(2026, 11, 29, 9)
    copy.end = copy.start.addingTimeInterval(900)
    copy.occurrence = copy.start
    return copy
  }

  func form(_ state: State) -> Form? {
    if case .form(let form) = state.mode { return form }
    return nil
  }

  @Test func theLocationFieldComesBetweenDurationAndNoteAndIsSaved() throws {
    var state = loaded([])
    press("a", on: &state)
    type("Lunch", on: &state)
    press("tab", on: &state)
    type("12:30", on: &state)
    press("tab", "tab", on: &state)
    #expect(form(state)?.focus == .location)
    type("Café Anna  ", on: &state)
    press("ctrl+a", on: &state)
    type(" ", on: &state)  // readline editing, as in the other fields
    press("tab", on: &state)
    #expect(form(state)?.focus == .note)
    press("shift+tab", on: &state)
    #expect(form(state)?.focus == .location)
    let effects = press("enter", on: &state)
    guard case .addAppointment(let request) = effects.first else {
      Issue.record("expected an add, got \(effects)")
      return
    }
    #expect(request.location == "Café Anna", "trimmed, as the title is")
  }

  @Test func editingLoadsTheLocationAndSendsIt() throws {
    var room = dentist
    room.location = "Room 4"
    var state = loaded([room])
    press("e", on: &state)
    #expect(form(state)?[.location].text == "Room 4")
    #expect(form(state)?.scope == nil, "a one-off asks nothing")
    press("tab", "tab", "tab", "ctrl+u", on: &state)
    type("Room 5", on: &state)
    guard case .editAppointment(_, let request) = press("enter", on: &state).first else {
      Issue.record("expected an edit")
      return
    }
    #expect(request.location == "Room 5" && request.occurrence == nil && !request.andFollowing)
  }

  @Test func aTooLongLocationIsAnErrorUnderTheField() {
    var state = loaded([])
    press("a", "tab", "tab", "tab", on: &state)
    _ = UI.update(&state, .keyPressed(.paste(String(repeating: "x", count: 1001))), environment: environment)
    #expect(form(state)?.errors[.location] == "1001 characters; at most 1000")
  }

  @Test(arguments: [("o", Form.Scope.occurrence), ("f", .andFollowing), ("s", .series)])
  func editOnAnOccurrenceAsksWhichAndTheAnswerTravelsInTheRequest(key: String, scope: Form.Scope) throws {
    let occurrence = self.occurrence
    var state = loaded([occurrence])
    press("e", on: &state)
    #expect(state.mode == .chooseScope(.init(.edit, occurrence)))
    let line = Views.render(state, environment: environment).rows.last ?? ""
    #expect(line.contains("Edit \"Standup\": o this occurrence, f this and following, s the whole series"))
    press(key, on: &state)
    #expect(form(state)?.scope == scope)
    guard case .editAppointment(let old, let request) = press("enter", on: &state).first else {
      Issue.record("expected an edit")
      return
    }
    #expect(old == occurrence && request.ifRevision == 3)
    let today = TestClock.clock.startOfDay(occurrence.start)
    #expect(request.occurrence == (scope == .series ? nil : today))
    #expect(request.andFollowing == (scope == .andFollowing))
  }

  @Test(arguments: [("o", false, false), ("f", false, true), ("s", true, false)])
  func cancelOnAnOccurrenceAsksWhich(key: String, wholeSeries: Bool, andFollowing: Bool) {
    let occurrence = self.occurrence
    var state = loaded([occurrence])
    press("c", on: &state)
    #expect(state.mode == .chooseScope(.init(.cancel, occurrence)))
    let day = TestClock.clock.startOfDay(occurrence.start)
    #expect(
      press(key, on: &state)
        == [.cancelAppointment(occurrence, occurrence: wholeSeries ? nil : day, andFollowing: andFollowing)]
    )
    #expect(state.mode == .browsing)
  }

  @Test func escapeAtTheQuestionDoesNothing() {
    var state = loaded([occurrence])
    #expect(press("c", "esc", on: &state) == [])
    #expect(state.mode == .browsing && state.status?.text == "Kept \"Standup\"")
    #expect(press("e", "esc", on: &state) == [])
    #expect(state.mode == .browsing && state.status?.text == "Nothing edited")
    #expect(press("e", "ctrl+c", on: &state) == [.quit])
  }

  @Test func aOneOffStillAsksYesOrNo() {
    var state = loaded([dentist])
    press("c", on: &state)
    #expect(state.mode == .confirm(.cancel(dentist)))
    #expect(press("y", on: &state) == [.cancelAppointment(dentist)])
  }

  @Test func undoOfEachKindOfEdit() {
    let occurrence = self.occurrence
    var override = occurrence
    override.id = AppointmentID()
    override.occurrence = nil
    override.recurrence = nil
    override.override = Appointment.Override(seriesID: occurrence.id, recurrenceID: occurrence.start)
    override.revision = 1
    var state = loaded([occurrence])
    // This occurrence: undo deletes the override row (the occurrence comes back as it was).
    _ = UI.update(&state, .appointmentUpdated(old: occurrence, new: override), environment: environment)
    #expect(state.undoSteps.last == .removeOverride(override))
    // This and following: the runtime gives the series as it was and the new series.
    var series = occurrence
    series.occurrence = nil
    var split = series
    split.id = AppointmentID()
    _ = UI.update(&state, .appointmentUpdated(old: series, new: split), environment: environment)
    #expect(state.undoSteps.last == .unsplit(series: series, split: split))
    // The whole series, or an override edited again: put the old version back.
    var renamed = series
    renamed.title = "Daily"
    renamed.revision = 4
    _ = UI.update(&state, .appointmentUpdated(old: series, new: renamed), environment: environment)
    var previous = series
    previous.revision = 4
    #expect(state.undoSteps.last == .put(previous))
  }

  @Test func theListMarksAChangedOccurrenceAndTheDetailPaneSaysWhatItWas() {
    let occurrence = self.occurrence
    var moved = occurrence
    moved.id = AppointmentID()
    moved.title = "Standup (moved)"
    moved.start = TestClock.date(2026, 11, 29, 11)
    moved.end = moved.start.addingTimeInterval(900)
    moved.occurrence = nil
    moved.recurrence = nil
    moved.location = "Room\n4"
    moved.override = Appointment.Override(seriesID: occurrence.id, recurrenceID: TestClock.date(2026, 11, 29, 10))
    var tomorrowsSeries = occurrence
    tomorrowsSeries.start = TestClock.date(2026, 11, 29, 9)
    var state = loaded([tomorrowsSeries, moved])
    state.size = Screen.Size(rows: 30, columns: 120)
    press("j", on: &state)
    let rows = Views.render(state, environment: environment).rows
    #expect(rows.contains { $0.contains("09:00-09:15  Standup ↻") })
    #expect(rows.contains { $0.contains("11:00-11:15  Standup (moved) ✎") })
    #expect(rows.contains { $0.contains("Changed occurrence of \"Standup\" (was Sun 2026-11-29 10:00)") })
    #expect(rows.contains { $0.contains("Location: Room / 4") }, "line breaks do not break the pane")
  }

  @Test func deletingAChangedOccurrenceSaysTheSeriesGetsItBack() {
    var moved = dentist
    moved.override = Appointment.Override(seriesID: AppointmentID(), recurrenceID: dentist.start)
    var state = loaded([moved])
    state.size = Screen.Size(rows: 24, columns: 120)
    press("D", on: &state)
    let line = Views.render(state, environment: environment).rows.last ?? ""
    #expect(line.contains("Delete the changes to \"Dentist\" (its series gets the occurrence back)? (y/n)"))
    #expect(press("y", on: &state) == [.deleteAppointment(moved)])
  }

  @Test func theSeriesOfAChangedOccurrenceNotOnTheDayIsLookedUpOnce() throws {
    var moved = dentist
    let seriesID = AppointmentID()
    moved.override = Appointment.Override(seriesID: seriesID, recurrenceID: dentist.start)
    var state = UI.start(size: Screen.Size(rows: 24, columns: 120), environment: environment).0
    let day = state.selectedDay
    let effects = UI.update(&state, .snapshotArrived(day: day, appointments: [moved]), environment: environment)
    let clock = TestClock.clock
    #expect(
      effects == [
        .lookUpSeries([seriesID]), .readAhead(day: clock.day(1, after: day), end: nil),
        .readAhead(day: clock.day(-1, after: day), end: nil),
      ]
    )
    #expect(Views.render(state, environment: environment).rows.contains { $0.contains("Changed occurrence (was") })
    _ = UI.update(&state, .seriesFound([seriesID: "Board"]), environment: environment)
    let rows = Views.render(state, environment: environment).rows
    #expect(rows.contains { $0.contains("Changed occurrence of \"Board\" (was Sun 2026-11-29 10:00)") })
    #expect(UI.update(&state, .snapshotArrived(day: day, appointments: [moved]), environment: environment) == [])
    var gone = moved
    let goneID = AppointmentID()
    gone.override?.seriesID = goneID
    _ = UI.update(&state, .snapshotArrived(day: day, appointments: [gone]), environment: environment)
    _ = UI.update(&state, .seriesFound([goneID: String?.none]), environment: environment)
    #expect(UI.update(&state, .snapshotArrived(day: day, appointments: [gone]), environment: environment) == [])
  }

  @Test func theDetailPaneSaysWhenASeriesRepeatsInWords() {
    var occurrence = self.occurrence
    occurrence.recurrence = Recurrence(frequency: .weekly, interval: 2, weekdays: [.monday, .wednesday], count: 10)
    let rows = Views.render(loaded([occurrence]), environment: environment).rows
    #expect(rows.contains { $0.contains("Repeats every 2 weeks on Monday and Wednesday, 10 times") })
  }

  @Test func theHelpOverlayDescribesTheQuestion() {
    var state = loaded([])
    state.size = Screen.Size(rows: 40, columns: 120)
    press("?", on: &state)
    let rows = Views.render(state, environment: environment).rows
    #expect(
      rows.contains { $0.contains("On an occurrence, e and c ask: o this one, f this and following, s the series") }
    )
  }
}
