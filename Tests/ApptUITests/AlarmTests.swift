import ApptCore
import ApptTestSupport
import Foundation
import Testing

@testable import ApptUI

/// Alarms in the calendar as the UI model sees them (Alarms.swift): a due one on the status
/// line with one bell, `z` snoozing it, any other key dismissing it and doing what it does;
/// the marker in the views, the detail pane's reminders and the form's Remind field. The
/// clock is the test's (fixed): nothing here reads the time of day.
@Suite struct AlarmTests: UIModelTest {
  let environment = Environment(clock: TestClock.clock)

  /// Today at 15:15 (the test clock says 15:00), with a reminder 15 minutes before.
  static func standup(minutes: Int = 15, at start: Date = TestClock.date(2026, 11, 29, 15, 15)) -> Appointment {
    var appointment = TestStore.appointment("Standup", start, minutes: 30)
    appointment.setAlarms([Alarm.display(.relative(TimeInterval(-minutes * 60), toEnd: false))])
    return appointment
  }

  static func instance(_ appointment: Appointment) -> AlarmInstance {
    let alarm = appointment.alarms[0]
    return AlarmInstance(
      appointment: appointment,
      alarm: alarm,
      repetition: 0,
      fireAt: alarm.triggers(start: appointment.start, end: appointment.end)[0]
    )
  }

  func statusRow(_ state: State) -> String {
    String(Views.render(state, environment: environment).rows[state.size.rows - 1])
      .replacingOccurrences(of: "\\s+$", with: "", options: .regularExpression)
  }

  @Test("a due alarm shows on the status line with one bell; the same one again rings none")
  func dueAlarmShowsWithOneBell() {
    let standup = Self.standup()
    var state = loaded([standup])
    let due = Self.instance(standup)
    #expect(UI.update(&state, .alarmDue(due), environment: environment) == [.ringBell])
    #expect(statusRow(state) == " 🔔 15:15 Standup in 15 min  z snooze")
    #expect(UI.update(&state, .alarmDue(due), environment: environment).isEmpty, "one bell per alarm")
    #expect(state.alarms.count == 1)
    // As the clock moves on, so do the words.
    _ = UI.update(
      &state,
      .clockTicked(TestClock.date(2026, 11, 29, 15, 15).addingTimeInterval(-10)),
      environment: environment
    )
    #expect(statusRow(state) == " 🔔 15:15 Standup now  z snooze")
  }

  @Test("z snoozes it 5 minutes and does nothing else; the runtime sends it again then")
  func zSnoozes() {
    let standup = Self.standup()
    let lunch = TestStore.appointment("Lunch", TestClock.date(2026, 11, 29, 16, 0))
    var state = loaded([standup, lunch])
    let selected = state.selectedID
    let due = Self.instance(standup)
    _ = UI.update(&state, .alarmDue(due), environment: environment)
    let effects = press("z", on: &state)
    #expect(effects == [.snoozeAlarm(due, until: TestClock.now.addingTimeInterval(300))])
    #expect(state.alarms.isEmpty)
    #expect(state.selectedID == selected && state.mode == .browsing)
    #expect(state.status?.text == "Snoozed \"Standup\" until 15:05")
    // Back from the snooze: shown again, with another bell.
    #expect(UI.update(&state, .alarmDue(due), environment: environment) == [.ringBell])
    #expect(state.alarmIsShown)
  }

  @Test("any other key dismisses it and does what it does")
  func otherKeysDismiss() throws {
    let standup = Self.standup()
    let lunch = TestStore.appointment("Lunch", TestClock.date(2026, 11, 29, 16, 0))
    var state = loaded([standup, lunch])
    _ = UI.update(&state, .alarmDue(Self.instance(standup)), environment: environment)
    press("j", on: &state)
    #expect(state.alarms.isEmpty)
    #expect(state.selectedID == lunch.id, "j moved too")
    #expect(!statusRow(state).contains("🔔"))
    _ = UI.update(&state, .alarmDue(Self.instance(Self.standup(minutes: 10))), environment: environment)
    press("a", on: &state)
    #expect(state.alarms.isEmpty)
    guard case .form = state.mode else { throw Failure("a opens the form while dismissing the alarm") }
    // In the form the alarm shows too, and z is typed, not a snooze.
    _ = UI.update(&state, .alarmDue(Self.instance(standup)), environment: environment)
    #expect(statusRow(state) == " 🔔 15:15 Standup in 15 min")
    press("z", on: &state)
    #expect(state.alarms.isEmpty)
    guard case .form(let form) = state.mode else { throw Failure("the form stays open") }
    #expect(form[.title].text == "z")
  }

  @Test("behind a question it waits: the answer does not dismiss an alarm not seen")
  func hiddenBehindAQuestion() {
    let standup = Self.standup()
    var state = loaded([standup])
    press("c", on: &state)
    _ = UI.update(&state, .alarmDue(Self.instance(standup)), environment: environment)
    #expect(statusRow(state).hasPrefix(" Cancel \"Standup\""), "the question stays on the line")
    press("n", on: &state)
    #expect(state.alarms.count == 1)
    #expect(statusRow(state) == " 🔔 15:15 Standup in 15 min  z snooze")
  }

  @Test("several at once: the oldest, and how many more; z snoozes them all")
  func severalAtOnce() {
    let standup = Self.standup()
    var review = TestStore.appointment("Review", TestClock.date(2026, 11, 29, 16, 0))
    review.setAlarms([Alarm.display(.relative(-3600, toEnd: false))])
    var state = loaded([standup, review])
    _ = UI.update(&state, .alarmDue(Self.instance(standup)), environment: environment)
    _ = UI.update(&state, .alarmDue(Self.instance(review)), environment: environment)
    #expect(statusRow(state) == " 🔔 15:15 Standup in 15 min  (+1 more)  z snooze")
    #expect(press("z", on: &state).count == 2)
  }

  @Test("the words: in minutes, hours, days, now, ended; another day's start with its day")
  func relativeWords() {
    let start = TestClock.date(2026, 11, 29, 15, 0)
    let end = start.addingTimeInterval(1800)
    #expect(DueAlarm.relative(start: start, end: end, now: start.addingTimeInterval(-900)) == "in 15 min")
    #expect(DueAlarm.relative(start: start, end: end, now: start.addingTimeInterval(-5400)) == "in 1 h 30 min")
    #expect(DueAlarm.relative(start: start, end: end, now: start.addingTimeInterval(-7200)) == "in 2 h")
    #expect(DueAlarm.relative(start: start, end: end, now: start.addingTimeInterval(-2 * 86400)) == "in 2 days")
    #expect(DueAlarm.relative(start: start, end: end, now: start) == "now")
    #expect(DueAlarm.relative(start: start, end: end, now: end) == "ended")
    let tomorrow = Self.standup(minutes: 1440, at: TestClock.date(2026, 11, 30, 15, 0))
    let due = DueAlarm(instance: Self.instance(tomorrow), shownAt: TestClock.now)
    #expect(due.statusText(now: TestClock.now, environment: environment) == "🔔 Mon 2026-11-30 15:00 Standup in 1 day")
  }

  @Test("z with no alarm says so")
  func zWithoutAlarm() {
    var state = loaded([])
    #expect(press("z", on: &state).isEmpty)
    #expect(state.status?.text == "No alarm to snooze: z snoozes one the status line shows")
  }

  @Test("a reminder marks its row in the day, week and agenda views; a cancelled one has none")
  func markers() {
    let standup = Self.standup()
    var cancelled = Self.standup(at: TestClock.date(2026, 11, 29, 17, 0))
    cancelled.title = "Gone"
    cancelled.status = .cancelled
    var state = loaded([standup, cancelled])
    state.size = Screen.Size(rows: 30, columns: 120)
    let day = Views.render(state, environment: environment).rows.map { String($0) }
    #expect(day.contains { $0.contains("15:15-15:45  Standup 🔔") })
    #expect(day.contains { $0.contains("Gone") && !$0.contains("🔔") })
    for view in ["w", "A"] {
      var other = state
      for case .observeDays(let start, let end, _) in press(view, on: &other) {
        let snapshot = Message.snapshotArrived(day: start, end: end, appointments: [standup, cancelled])
        _ = UI.update(&other, snapshot, environment: environment)
      }
      let rows = Views.render(other, environment: environment).rows.map { String($0) }
      #expect(rows.contains { $0.contains("Standup 🔔") }, "\(view): \(rows.joined(separator: "\n"))")
    }
  }

  @Test("the detail pane lists the reminders")
  func detailPane() {
    let standup = Self.standup()
    var state = loaded([standup])
    state.size = Screen.Size(rows: 30, columns: 100)
    let rows = Views.render(state, environment: environment).rows.map { String($0) }
    let summary = standup.alarms[0].summary(clock: TestClock.clock)
    #expect(rows.contains { $0.contains("Reminders: \(summary)") })
  }
}

/// The form's Remind field: prefilled (an edit: its alarms; an add: the default), parsed as
/// `--remind` parses, its error under it.
@Suite struct RemindFieldTests: UIModelTest {
  static let settings: Settings = {
    var settings = Settings()
    settings.reminders.defaultRemind = Setting([600, 86_400])
    return settings
  }()
  let environment = Environment(clock: TestClock.clock, settings: RemindFieldTests.settings)

  func form(_ state: State) -> Form? {
    if case .form(let form) = state.mode { return form }
    return nil
  }

  @Test("an add is prefilled with the default; what enter saves is what Remind says")
  func addUsesTheDefaultAndSavesTheField() throws {
    var state = loaded([])
    press("a", on: &state)
    #expect(form(state)?[.remind].text == "10m, 1d")
    type("Tea", on: &state)
    press("tab", on: &state)
    type("16:00", on: &state)
    press("tab", "tab", "tab", "tab", on: &state)
    #expect(form(state)?.focus == .remind)
    type("soon", on: &state)
    #expect(press("enter", on: &state).isEmpty, "a bad spec saves nothing")
    #expect(form(state)?.errors[.remind] != nil)
    #expect(form(state)?.focus == .remind)
    press("ctrl+u", on: &state)
    type("15m, at 08:00", on: &state)
    let effects = press("enter", on: &state)
    guard case .addAppointment(let request) = effects.first else { throw Failure("no add: \(effects)") }
    let start = TestClock.date(2026, 11, 29, 16, 0)
    let expected = [
      try Alarm.parse("15m", start: start, zone: TestClock.paris),
      try Alarm.parse("at 08:00", start: start, zone: TestClock.paris),
    ]
    #expect(request.alarms?.map(\.trigger) == expected.map(\.trigger))
  }

  @Test("an add with Remind emptied asks for none")
  func addWithoutReminders() throws {
    var state = loaded([])
    press("a", on: &state)
    type("Tea", on: &state)
    press("tab", on: &state)
    type("16:00", on: &state)
    press("tab", "tab", "tab", "tab", "backspace", on: &state)
    let effects = press("enter", on: &state)
    guard case .addAppointment(let request) = effects.first else { throw Failure("no add: \(effects)") }
    #expect(request.alarms == nil, "none: as `add` without --remind once the default is resolved")
  }

  @Test("an edit shows the alarms; unchanged they stay as stored, emptied they go")
  func editKeepsOrRemoves() throws {
    let standup = AlarmTests.standup()
    var state = loaded([standup])
    press("e", on: &state)
    #expect(form(state)?[.remind].text == "15m")
    var effects = press("enter", on: &state)
    guard case .editAppointment(_, let unchanged) = effects.first else { throw Failure("no edit: \(effects)") }
    #expect(unchanged.alarms == nil)
    state = loaded([standup])
    press("e", "tab", "tab", "tab", "tab", "tab", "backspace", on: &state)
    effects = press("enter", on: &state)
    guard case .editAppointment(_, let emptied) = effects.first else { throw Failure("no edit: \(effects)") }
    #expect(emptied.alarms == [])
    // A part naming an alarm it has keeps that alarm as stored (its VALARM lines too).
    state = loaded([standup])
    press("e", "tab", "tab", "tab", "tab", "tab", "end", on: &state)
    type(", 1h", on: &state)
    effects = press("enter", on: &state)
    guard case .editAppointment(_, let added) = effects.first else { throw Failure("no edit: \(effects)") }
    #expect(added.alarms?.first == standup.alarms[0])
    #expect(added.alarms?.count == 2)
  }
}

/// What a `throw` in a test says.
struct Failure: Error, CustomStringConvertible {
  let description: String
  init(_ description: String) { self.description = description }
}
