import ApptCore
import ApptRuntime
import ApptStore
import ApptTerminal
import ApptTestSupport
import ApptUI
import Foundation
import Testing

/// A clock the test moves: alarms come due when the test says, never by the time of day.
final class MovableClock: Sendable {
  private let current: Locked<Date>

  init(_ start: Date = TestClock.now) {
    current = Locked(start)
  }

  var now: Date { current.withLock { $0 } }
  func set(_ date: Date) { current.withLock { $0 = date } }
  var clock: Clock { Clock(timeZone: TestClock.paris) { [self] in now } }
}

/// Alarms in the calendar end to end: the real runtime asks a real store for the alarms
/// ahead, rings the headless terminal's bell when one comes due on the test's clock, `z`
/// snoozes it, another process moving the appointment moves its alarm; and the form's
/// Remind field saves an alarm the store then lists.
@MainActor
@Suite struct AlarmSessionTests {
  let directory = TemporaryDirectory()
  let time = MovableClock()

  func pilot(dao: AppointmentDAO) -> Pilot {
    let terminal = HeadlessTerminal(size: Screen.Size(rows: 24, columns: 100))
    return Pilot(
      terminal: terminal,
      loop: RenderLoop(
        dao: dao,
        terminal: terminal,
        environment: Environment(clock: time.clock),
        // The timer's sleeps are short, so the moved clock is seen at once.
        alarmDelay: { _ in .milliseconds(5) }
      )
    )
  }

  /// Today (the test's) at `hour`:`minute`, with a reminder `before` minutes before.
  func withReminder(_ title: String, _ hour: Int, _ minute: Int, before: Int) -> Appointment {
    var appointment = TestStore.appointment(title, TestClock.date(2026, 11, 29, hour, minute), minutes: 30)
    appointment.setAlarms([Alarm.display(.relative(TimeInterval(-before * 60), toEnd: false))])
    return appointment
  }

  /// Settles until `condition` holds; fails after `HangGuard.limit` without it.
  func waitUntil(_ pilot: Pilot, _ what: String, _ condition: () -> Bool) async {
    let start = ContinuousClock.now
    while !condition() {
      guard ContinuousClock.now - start < HangGuard.limit else {
        Issue.record("never happened: \(what)\n\(pilot.rows.joined(separator: "\n"))")
        return
      }
      await pilot.settle()
      try? await Task.sleep(for: .milliseconds(5))
    }
    // What made it true may have happened after the last settle (the bell rings before the
    // frame that shows why, which waits for the messages queued behind it): let it reach
    // the screen before the caller reads it (seen under ASan: the status line still read
    // "Added").
    await pilot.settle()
  }

  /// A few of the timer's turns, for something that must not happen.
  func letTheTimerRun(_ pilot: Pilot) async {
    for _ in 0..<10 {
      try? await Task.sleep(for: .milliseconds(5))
      await pilot.settle()
    }
  }

  var statusLine: (Pilot) -> String { { $0.rows[23] } }

  @Test("due: the status line and one bell; z snoozes 5 minutes; another key dismisses")
  func ringsSnoozesDismisses() async throws {
    let dao = TestStore.fileDAO(in: directory)
    try await dao.saveAppointment(withReminder("Standup", 15, 20, before: 15))  // due 15:05
    let pilot = pilot(dao: dao)
    await pilot.start()
    await letTheTimerRun(pilot)
    #expect(pilot.terminal.bellCount == 0, "not due yet at 15:00")
    #expect(pilot.shows("Standup 🔔"), "the marker in the day's list")

    time.set(TestClock.date(2026, 11, 29, 15, 5))
    await waitUntil(pilot, "the alarm at 15:05") { pilot.terminal.bellCount == 1 }
    #expect(statusLine(pilot) == " 🔔 15:20 Standup in 15 min  z snooze")
    await letTheTimerRun(pilot)
    #expect(pilot.terminal.bellCount == 1, "once")

    pilot.press("z")
    await pilot.settle()
    #expect(statusLine(pilot) == " Snoozed \"Standup\" until 15:10")
    time.set(TestClock.date(2026, 11, 29, 15, 9))
    await letTheTimerRun(pilot)
    #expect(pilot.terminal.bellCount == 1, "snoozed until 15:10")
    time.set(TestClock.date(2026, 11, 29, 15, 10))
    await waitUntil(pilot, "the snoozed alarm back at 15:10") { pilot.terminal.bellCount == 2 }
    #expect(statusLine(pilot) == " 🔔 15:20 Standup in 10 min  z snooze")

    pilot.press("t")
    await pilot.settle()
    #expect(!statusLine(pilot).contains("🔔"), "dismissed")
    time.set(TestClock.date(2026, 11, 29, 15, 30))
    await letTheTimerRun(pilot)
    #expect(pilot.terminal.bellCount == 2, "a dismissed alarm does not come back")
    pilot.press("q")
    await pilot.waitUntilFinished()
  }

  @Test("another process moves the appointment: its alarm moves; cancels one: it never rings")
  func followsTheStore() async throws {
    let dao = TestStore.fileDAO(in: directory)
    let standup = try await dao.saveAppointment(withReminder("Standup", 15, 20, before: 15))  // due 15:05
    let review = try await dao.saveAppointment(withReminder("Review", 15, 30, before: 20))  // due 15:10
    let pilot = pilot(dao: dao)
    await pilot.start()
    await waitUntil(pilot, "the loop has both alarms") { pilot.loop.alarms.upcoming.count == 2 }

    let other = TestStore.fileDAO(in: directory)
    var moved = try await other.getAppointment(id: standup.id)
    moved.start = TestClock.date(2026, 11, 29, 16, 0)
    moved.end = TestClock.date(2026, 11, 29, 16, 30)
    try await other.saveAppointment(moved)  // due 15:45 now
    try await other.cancelAppointment(id: review.id)
    await pilot.checkForExternalChanges()
    await waitUntil(pilot, "the loop asked the store again") {
      pilot.loop.alarms.upcoming.map(\.fireAt) == [TestClock.date(2026, 11, 29, 15, 45)]
    }

    time.set(TestClock.date(2026, 11, 29, 15, 30))
    await letTheTimerRun(pilot)
    #expect(pilot.terminal.bellCount == 0, "neither the moved alarm's old time nor the cancelled one")
    time.set(TestClock.date(2026, 11, 29, 15, 45))
    await waitUntil(pilot, "the moved alarm at 15:45") { pilot.terminal.bellCount == 1 }
    #expect(statusLine(pilot) == " 🔔 16:00 Standup in 15 min  z snooze")
    pilot.press("q")
    await pilot.waitUntilFinished()
  }

  @Test("the alarm watch observes only the rows with alarms around now")
  func watchReadsOnlyRowsWithAlarms() async throws {
    let dao = TestStore.fileDAO(in: directory)
    let standup = try await dao.saveAppointment(withReminder("Standup", 15, 20, before: 15))
    try await dao.saveAppointment(TestStore.appointment("Plain", TestClock.date(2026, 11, 29, 16, 0), minutes: 30))
    try await dao.saveAppointment(TestStore.appointment("Tomorrow", TestClock.date(2026, 11, 30, 9, 0), minutes: 30))
    let query = RenderLoop.alarmWatchQuery(at: time.now, clock: time.clock)
    let watched = try await dao.appointments(matching: query)
    #expect(watched.map(\.id) == [standup.id])
  }

  @Test("a clock that jumps past an alarm is caught up by the ticker, not by the timer's own wake-ups")
  func tickerCatchesAJumpedClock() async throws {
    let dao = TestStore.fileDAO(in: directory)
    try await dao.saveAppointment(withReminder("Standup", 15, 20, before: 15))  // due 15:05
    let terminal = HeadlessTerminal(size: Screen.Size(rows: 24, columns: 100))
    let pilot = Pilot(
      terminal: terminal,
      loop: RenderLoop(
        dao: dao,
        terminal: terminal,
        environment: Environment(clock: time.clock),
        tickInterval: .milliseconds(10),
        // The timer's sleep never ends within the test: only the ticker can see 15:05.
        alarmDelay: { _ in .seconds(86_400) }
      )
    )
    await pilot.start()
    await waitUntil(pilot, "the loop has the alarm") { pilot.loop.alarms.upcoming.count == 1 }
    time.set(TestClock.date(2026, 11, 29, 15, 5))
    await waitUntil(pilot, "the alarm at 15:05") { pilot.terminal.bellCount == 1 }
    #expect(statusLine(pilot) == " 🔔 15:20 Standup in 15 min  z snooze")
    pilot.press("q")
    await pilot.waitUntilFinished()
  }

  @Test("the form's Remind field saves an alarm the store then lists, and it rings")
  func remindFieldSaves() async throws {
    let dao = TestStore.fileDAO(in: directory)
    let pilot = pilot(dao: dao)
    await pilot.start()
    pilot.press("a")
    pilot.type("Tea")
    pilot.press("tab")
    pilot.type("16:00")
    pilot.press("tab", "tab", "tab", "tab")
    pilot.type("15m")
    pilot.press("enter")
    await pilot.settle()
    #expect(pilot.shows("Tea 🔔"))

    let fresh = TestStore.fileDAO(in: directory)
    let window = DateInterval(start: TestClock.now, duration: 86_400)
    let listed = try await fresh.alarmInstances(in: window)
    #expect(listed.map(\.appointment.title) == ["Tea"])
    #expect(listed.map(\.fireAt) == [TestClock.date(2026, 11, 29, 15, 45)])

    time.set(TestClock.date(2026, 11, 29, 15, 45))
    await waitUntil(pilot, "the new alarm at 15:45") { pilot.terminal.bellCount == 1 }
    #expect(statusLine(pilot) == " 🔔 16:00 Tea in 15 min  z snooze")
    pilot.press("q")
    await pilot.waitUntilFinished()
  }
}

/// The runtime's alarm bookkeeping, pure (CalendarAlarms.swift).
@Suite struct CalendarAlarmsTests {
  func instance(_ title: String, fireAt: Date) -> AlarmInstance {
    var appointment = TestStore.appointment(title, fireAt.addingTimeInterval(900))
    let alarm = Alarm.display(.relative(-900, toEnd: false))
    appointment.setAlarms([alarm])
    return AlarmInstance(appointment: appointment, alarm: appointment.alarms[0], repetition: 0, fireAt: fireAt)
  }

  @Test("each instance is due once, from when the calendar started; a snoozed one once more")
  func dueOnceAndSnoozed() {
    let now = TestClock.now
    var alarms = CalendarAlarms(since: now)
    let window = alarms.window(at: now, grace: 3600)
    #expect(window == DateInterval(start: now, duration: CalendarAlarms.lookahead))
    let before = instance("Before", fireAt: now.addingTimeInterval(-60))
    let first = instance("First", fireAt: now.addingTimeInterval(60))
    let second = instance("Second", fireAt: now.addingTimeInterval(120))
    alarms.replace([second, before, first])
    #expect(alarms.nextDue == first.fireAt)
    #expect(alarms.due(at: now).isEmpty)
    #expect(alarms.due(at: now.addingTimeInterval(60)) == [first])
    #expect(alarms.due(at: now.addingTimeInterval(60)).isEmpty, "once")
    alarms.replace([second, before, first])  // asked again after a change: still once
    #expect(alarms.due(at: now.addingTimeInterval(90)).isEmpty)
    alarms.snooze(first, until: now.addingTimeInterval(360))
    #expect(alarms.nextDue == second.fireAt)
    #expect(alarms.due(at: now.addingTimeInterval(400)) == [second, first])
    #expect(alarms.nextDue == nil)
  }

  @Test("past the grace an alarm is not shown; a snoozed one whose appointment went is dropped")
  func graceAndGone() {
    let start = TestClock.now
    var alarms = CalendarAlarms(since: start)
    let late = instance("Late", fireAt: start.addingTimeInterval(600))
    let snoozed = instance("Snoozed", fireAt: start.addingTimeInterval(60))
    alarms.replace([late, snoozed])
    #expect(alarms.due(at: start.addingTimeInterval(60)) == [snoozed])
    alarms.snooze(snoozed, until: start.addingTimeInterval(360))
    // Suspended for three hours: the window starts an hour (the grace) back.
    let now = start.addingTimeInterval(3 * 3600)
    #expect(alarms.window(at: now, grace: 3600).start == now.addingTimeInterval(-3600))
    alarms.replace([])  // the store lists neither now: too old, or gone
    #expect(alarms.due(at: now).isEmpty, "10 minutes after the start is 2 h 50 min late")
    var kept = CalendarAlarms(since: start)
    kept.replace([snoozed])
    _ = kept.due(at: start.addingTimeInterval(60))
    kept.snooze(snoozed, until: start.addingTimeInterval(360))
    kept.replace([])  // cancelled by another process
    #expect(kept.due(at: start.addingTimeInterval(400)).isEmpty)
  }
}
