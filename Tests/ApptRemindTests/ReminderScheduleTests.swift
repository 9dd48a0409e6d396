import ApptCore
import ApptRemind
import ApptStore
import ApptTestSupport
import Foundation
import Testing

/// The daemon's decisions with an injected "now" (never the wall clock): what fires on time,
/// late within the grace, what is missed, what is never looked at again, and when to wake.
/// The instances come from a real store (`alarmInstances`), so series, DST and REPEAT go
/// through the same expansion the daemon uses.
@Suite("Reminder schedule")
struct ReminderScheduleTests {
  static let paris = TimeZone(identifier: "Europe/Paris") ?? .gmt

  static func date(_ y: Int, _ m: Int, _ d: Int, _ h: Int = 0, _ min: Int = 0, _ s: Double = 0) -> Date {
    var calendar = Calendar(identifier: .gregorian)
    calendar.timeZone = paris
    let base = calendar.date(from: DateComponents(year: y, month: m, day: d, hour: h, minute: min)) ?? .distantPast
    return base.addingTimeInterval(s)
  }

  static func block(_ lines: String...) -> [String] { ["BEGIN:VALARM"] + lines + ["END:VALARM"] }

  static func event(
    _ title: String,
    at start: Date,
    minutes: Int = 60,
    recurrence: Recurrence? = nil,
    alarms: [[String]]
  ) -> Appointment {
    Appointment(
      title: title,
      start: start,
      end: start.addingTimeInterval(Double(minutes) * 60),
      created: start,
      timeZone: "Europe/Paris",
      recurrence: recurrence,
      extras: ICalendarExtras(lines: alarms.flatMap { $0 })
    )
  }

  /// A fresh in-memory store holding `appointments`.
  static func store(_ appointments: [Appointment]) async throws -> AppointmentDAO {
    let configuration = DatabaseConfiguration(location: .inMemory, migrations: Schema.migrations)
    let dao = AppointmentDAO(
      service: DatabaseService(database: AsyncDatabase(configuration: configuration)),
      clock: Clock.fixed(date(2026, 12, 1), timeZone: paris)
    )
    for appointment in appointments { try await dao.saveAppointment(appointment) }
    return dao
  }

  /// What the schedule plans at `now` over what the store holds and has recorded.
  static func plan(
    _ dao: AppointmentDAO,
    at now: Date,
    grace: TimeInterval = 3600
  ) async throws -> ReminderSchedule.Plan<AlarmInstance> {
    let schedule = ReminderSchedule(grace: grace)
    let window = schedule.window(now: now)
    let instances = try await dao.alarmInstances(in: window)
    let recorded = try await dao.recordedAlarmKeys(from: window.start)
    return schedule.plan(instances: instances, recorded: recorded, now: now)
  }

  /// Records what `plan` says is due and missed, as the daemon does.
  static func record(_ plan: ReminderSchedule.Plan<AlarmInstance>, in dao: AppointmentDAO, at now: Date) async throws {
    for item in plan.due + plan.missed {
      _ = try await dao.recordAlarm(
        key: item.instance.key,
        appointmentID: item.instance.appointment.id.description,
        fireAt: item.instance.fireAt,
        outcome: item.outcome,
        at: now
      )
    }
  }

  static let fifteenBefore = block("ACTION:DISPLAY", "DESCRIPTION:Standup", "TRIGGER:-PT15M")

  @Test("before its time nothing fires and the next wake is its instant; at it, it fires once")
  func firesOnTimeOnce() async throws {
    let dao = try await Self.store([Self.event("Standup", at: Self.date(2026, 12, 3, 9), alarms: [Self.fifteenBefore])])
    let before = try await Self.plan(dao, at: Self.date(2026, 12, 3, 8, 44))
    #expect(before.due.isEmpty && before.missed.isEmpty)
    #expect(before.nextFire == Self.date(2026, 12, 3, 8, 45))
    #expect(before.wakeAt == Self.date(2026, 12, 3, 8, 45))

    let at = Self.date(2026, 12, 3, 8, 45, 0.3)
    let plan = try await Self.plan(dao, at: at)
    #expect(plan.due.map(\.outcome) == [.fired])
    #expect(plan.due.first?.instance.appointment.title == "Standup")
    #expect(ReminderSchedule(grace: 3600).words(for: try #require(plan.due.first)) == "fired")
    try await Self.record(plan, in: dao, at: at)
    let after = try await Self.plan(dao, at: Self.date(2026, 12, 3, 8, 45, 1))
    #expect(after.due.isEmpty, "recorded: never again")
    #expect(after.nextFire == nil)
    #expect(after.wakeAt == Self.date(2026, 12, 4, 8, 45, 1), "nothing ahead: read again at the window's end")
  }

  @Test("found late within the grace it fires late, saying by how much; past the grace it is missed")
  func lateAndMissed() async throws {
    let dao = try await Self.store([
      Self.event("Standup", at: Self.date(2026, 12, 3, 9), alarms: [Self.fifteenBefore]),
      Self.event("Review", at: Self.date(2026, 12, 3, 11, 15), alarms: [Self.fifteenBefore]),
    ])
    let now = Self.date(2026, 12, 3, 11, 12)  // Standup's alarm 2h27m ago, Review's 12m ago
    let plan = try await Self.plan(dao, at: now)
    let schedule = ReminderSchedule(grace: 3600)
    #expect(plan.due.map(\.instance.appointment.title) == ["Review"])
    #expect(plan.due.map(\.outcome) == [.late])
    #expect(schedule.words(for: try #require(plan.due.first)) == "late by 12m")
    #expect(plan.missed.map(\.instance.appointment.title) == ["Standup"])
    #expect(schedule.words(for: try #require(plan.missed.first)) == "missed (2h27m late, past remind_grace 1h)")
    // With a longer grace the same instant is still late, not missed.
    let lenient = try await Self.plan(dao, at: now, grace: 3 * 3600)
    #expect(lenient.due.map(\.outcome) == [.late, .late])
    // A few seconds late is on time (the daemon's own wake-up).
    let almost = try await Self.plan(dao, at: Self.date(2026, 12, 3, 8, 45, 4))
    #expect(almost.due.map(\.outcome) == [.fired])
  }

  @Test("instances older than the grace and a day are not looked at (their records are pruned)")
  func tooOld() async throws {
    let dao = try await Self.store([Self.event("Standup", at: Self.date(2026, 12, 3, 9), alarms: [Self.fifteenBefore])])
    let plan = try await Self.plan(dao, at: Self.date(2026, 12, 4, 10, 0))  // 25h15m after
    #expect(plan.due.isEmpty && plan.missed.isEmpty)
    let schedule = ReminderSchedule(grace: 3600)
    #expect(
      schedule.pruneBefore(now: Self.date(2026, 12, 4, 10)) < schedule.window(now: Self.date(2026, 12, 4, 10)).start
    )
  }

  @Test("a series has one alarm per occurrence, each fired once, across a DST change at its local time")
  func seriesAcrossDST() async throws {
    // Daily at 09:00 Paris from Friday 26 March 2027: clocks go forward on Sunday the 28th.
    let series = Self.event(
      "Standup",
      at: Self.date(2027, 3, 26, 9),
      recurrence: Recurrence(frequency: .daily, count: 4),
      alarms: [Self.fifteenBefore]
    )
    let dao = try await Self.store([series])
    var fired: [Date] = []
    var now = Self.date(2027, 3, 26, 0)
    // As the daemon does: wake when the plan says (the next fire, or the window's end).
    while now < Self.date(2027, 4, 2) {
      let plan = try await Self.plan(dao, at: now)
      try await Self.record(plan, in: dao, at: now)
      fired += plan.due.map(\.instance.fireAt)
      #expect(plan.missed.isEmpty)
      #expect(plan.due.allSatisfy { $0.lateness == 0 })
      now = plan.wakeAt
    }
    try #require(fired.count == 4)
    #expect(fired == (26...29).map { Self.date(2027, 3, $0, 8, 45) })
    #expect(fired[2].timeIntervalSince(fired[1]) == 23 * 3600, "the short day")
  }

  @Test("a whole day's alarm 15 hours before fires at 09:00 local the day before")
  func wholeDay() async throws {
    let holiday = Appointment(
      title: "Holiday",
      start: Self.date(2026, 12, 24),
      end: Self.date(2026, 12, 25),
      created: Self.date(2026, 12, 1),
      timeZone: "Europe/Paris",
      isAllDay: true,
      extras: ICalendarExtras(lines: Self.block("ACTION:DISPLAY", "TRIGGER:-PT15H"))
    )
    let dao = try await Self.store([holiday])
    let plan = try await Self.plan(dao, at: Self.date(2026, 12, 23, 8))
    #expect(plan.nextFire == Self.date(2026, 12, 23, 9))
    let due = try await Self.plan(dao, at: Self.date(2026, 12, 23, 9))
    #expect(due.due.map(\.instance.appointment.title) == ["Holiday"])
  }

  @Test("REPEAT fires the trigger, then each repetition, each its own instance")
  func repeats() async throws {
    let alarm = Self.block("ACTION:DISPLAY", "TRIGGER:-PT10M", "REPEAT:2", "DURATION:PT5M")
    let dao = try await Self.store([Self.event("Standup", at: Self.date(2026, 12, 3, 9), alarms: [alarm])])
    var now = Self.date(2026, 12, 3, 8)
    var fired: [(Int, Date)] = []
    while true {
      let plan = try await Self.plan(dao, at: now)
      try await Self.record(plan, in: dao, at: now)
      fired += plan.due.map { ($0.instance.repetition, $0.instance.fireAt) }
      guard let next = plan.nextFire else { break }
      now = next
    }
    #expect(fired.map(\.0) == [0, 1, 2])
    #expect(
      fired.map(\.1) == [Self.date(2026, 12, 3, 8, 50), Self.date(2026, 12, 3, 8, 55), Self.date(2026, 12, 3, 9)]
    )
  }

  @Test("an absolute trigger and one after the end fire at their instants")
  func absoluteAndAfterEnd() async throws {
    let dao = try await Self.store([
      Self.event(
        "Trip",
        at: Self.date(2026, 12, 3, 9),
        alarms: [
          Self.block("ACTION:DISPLAY", "TRIGGER;VALUE=DATE-TIME:20261202T170000Z"),
          Self.block("ACTION:DISPLAY", "TRIGGER;RELATED=END:PT10M"),
        ]
      )
    ])
    let first = try await Self.plan(dao, at: Self.date(2026, 12, 2, 12))
    #expect(first.nextFire == Self.date(2026, 12, 2, 18))
    let second = try await Self.plan(dao, at: Self.date(2026, 12, 2, 18))
    try await Self.record(second, in: dao, at: Self.date(2026, 12, 2, 18))
    #expect(second.due.count == 1)
    #expect(second.nextFire == Self.date(2026, 12, 3, 10, 10))
  }

  @Test("a moved appointment's alarm moves (a new instance); a cancelled one never fires")
  func movedAndCancelled() async throws {
    var standup = Self.event("Standup", at: Self.date(2026, 12, 3, 9), alarms: [Self.fifteenBefore])
    let dao = try await Self.store([standup])
    let early = try await Self.plan(dao, at: Self.date(2026, 12, 3, 8))
    #expect(early.nextFire == Self.date(2026, 12, 3, 8, 45))
    standup = try await dao.getAppointment(id: standup.id)
    standup.start = Self.date(2026, 12, 3, 10)
    standup.end = Self.date(2026, 12, 3, 11)
    try await dao.saveAppointment(standup)
    let moved = try await Self.plan(dao, at: Self.date(2026, 12, 3, 8, 45))
    #expect(moved.due.isEmpty, "nothing at the old time")
    #expect(moved.nextFire == Self.date(2026, 12, 3, 9, 45))
    _ = try await dao.cancelAppointment(id: standup.id)
    let cancelled = try await Self.plan(dao, at: Self.date(2026, 12, 3, 9, 45))
    #expect(cancelled.due.isEmpty && cancelled.nextFire == nil)
  }

  @Test("pure decisions: order, duplicates, the window's end, grace 0")
  func pureDecisions() {
    struct Item: ScheduledAlarm {
      var key: String
      var fireAt: Date
    }
    let now = Date(timeIntervalSince1970: 1_000_000)
    let schedule = ReminderSchedule(grace: 0)
    let items = [
      Item(key: "b", fireAt: now.addingTimeInterval(-5)), Item(key: "a", fireAt: now.addingTimeInterval(-5)),
      Item(key: "a", fireAt: now.addingTimeInterval(-5)), Item(key: "late", fireAt: now.addingTimeInterval(-60)),
      Item(key: "far", fireAt: now.addingTimeInterval(2 * 86_400)),
      Item(key: "next", fireAt: now.addingTimeInterval(30)),
    ]
    let plan = schedule.plan(instances: items, recorded: ["b"], now: now)
    #expect(plan.due.map(\.instance.key) == ["a"], "sorted, the recorded one and the duplicate left out")
    #expect(plan.missed.map(\.instance.key) == ["late"], "grace 0: anything past on time is missed")
    #expect(plan.nextFire == now.addingTimeInterval(30))
    #expect(schedule.plan(instances: [items[4]], recorded: [], now: now).wakeAt == now.addingTimeInterval(86_400))
    #expect(ReminderSchedule.span(45) == "45s" && ReminderSchedule.span(3600 * 26) == "1d2h")
  }
}
