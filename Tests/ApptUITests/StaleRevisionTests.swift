import ApptCore
import ApptTestSupport
import Foundation
import Testing

@testable import ApptUI

/// Changes based on the revision the user saw, and what the calendar does when the store
/// refuses one because someone else changed the appointment first.
@Suite struct StaleRevisionTests: UIModelTest {
  let environment = Environment(clock: TestClock.clock)
  let dentist = TestStore.appointment("Dentist", TestClock.date(2026, 11, 29, 10), minutes: 45).atRevision(3)

  /// The version someone else saved meanwhile.
  var theirs: Appointment {
    var theirs = dentist
    theirs.title = "Dentist (theirs)"
    theirs.start = TestClock.date(2026, 11, 29, 14)
    theirs.end = TestClock.date(2026, 11, 29, 14, 45)
    return theirs.atRevision(4)
  }

  func form(_ state: State) -> Form? {
    if case .form(let form) = state.mode { return form }
    return nil
  }

  @Test func aRefusedSaveKeepsTheFormAndTheNextEnterSavesOverTheNewVersion() throws {
    var state = loaded([dentist])
    press("e", "ctrl+u", on: &state)
    type("Mine", on: &state)
    let first = press("enter", on: &state)
    guard case .editAppointment(let old, let request) = first.first else {
      Issue.record("expected an edit, got \(first)")
      return
    }
    #expect(old.revision == 3 && request.ifRevision == 3, "based on the revision on screen")

    _ = UI.update(&state, .changeRefused(.save, current: theirs), environment: environment)
    let form = try #require(self.form(state), "the form stays open")
    #expect(!form.isSaving)
    #expect(form.fields.map(\.text) == ["Mine", "2026-11-29 10:00", "45m", "", "", ""], "what was typed is kept")
    #expect(form.editing == theirs, "the base is now the version stored")
    #expect(
      form.notice == [
        "Changed by someone else; it is now", "\"Dentist (theirs)\" Sun 2026-11-29 14:00-14:45",
        "enter saves yours over it, esc discards yours",
      ]
    )
    #expect(state.status?.isError == true)
    #expect(state.status?.text.contains("changed by someone else") == true)

    let second = press("enter", on: &state)
    var mine = theirs
    mine.title = "Mine"
    mine.start = TestClock.date(2026, 11, 29, 10)
    mine.end = TestClock.date(2026, 11, 29, 10, 45)
    mine.updated = TestClock.now
    let mineRequest = EditRequest(
      id: theirs.id.description,
      title: "Mine",
      start: mine.start,
      duration: 45 * 60,
      note: "",
      location: "",
      ifRevision: 4
    )
    #expect(second == [.editAppointment(old: theirs, request: mineRequest)], "saved over revision 4")

    // The store saves it at revision 5; undo would put their version back over that one.
    _ = UI.update(&state, .appointmentUpdated(old: theirs, new: mine.atRevision(5)), environment: environment)
    #expect(state.mode == .browsing)
    #expect(state.undoSteps == [.put(theirs.atRevision(5))])
  }

  @Test func escDiscardsAfterARefusal() {
    var state = loaded([dentist])
    press("e", "ctrl+u", on: &state)
    type("Mine", on: &state)
    press("enter", on: &state)
    _ = UI.update(&state, .changeRefused(.save, current: theirs), environment: environment)
    #expect(press("esc", on: &state).isEmpty)
    #expect(state.mode == .browsing)
    #expect(state.status?.text == "Discarded the changes")
  }

  @Test func theFormShowsTheNotice() throws {
    var state = loaded([dentist])
    press("e", "enter", on: &state)
    _ = UI.update(&state, .changeRefused(.save, current: theirs), environment: environment)
    let rows = Views.render(state, environment: environment).rows.map { String($0) }
    #expect(rows.contains { $0.contains("! Changed by someone else") })
  }

  @Test(arguments: [
    (State.Change.cancel, "not cancelled"), (.restore, "not restored"), (.delete, "not deleted"),
    (.undo, "nothing undone"),
  ])
  func aRefusedChangeSaysSoOnTheStatusLine(change: State.Change, words: String) {
    var state = loaded([dentist])
    #expect(UI.update(&state, .changeRefused(change, current: theirs), environment: environment).isEmpty)
    #expect(state.mode == .browsing)
    #expect(
      state.status
        == State.StatusMessage(
          text: "\"Dentist (theirs)\" was changed by someone else; \(words)",
          isError: true
        )
    )
    #expect(state.undoSteps.isEmpty)
  }

  @Test func cancelRestoreAndDeleteCarryTheRevisionOnScreen() {
    var state = loaded([dentist])
    #expect(press("c", "y", on: &state) == [.cancelAppointment(dentist)])
    #expect(press("D", "y", on: &state) == [.deleteAppointment(dentist)])
    var cancelled = dentist.atRevision(7)
    cancelled.status = .cancelled
    var withCancelled = loaded([cancelled])
    #expect(press("r", on: &withCancelled) == [.restoreAppointment(cancelled)])
  }
}
