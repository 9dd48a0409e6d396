import ApptCore
import ApptTestSupport
import Foundation
import Testing

@testable import ApptStore

/// `alarmInstances`: the alarms due in a range as the store finds them, series expanded, on
/// every engine.
@Suite struct AlarmStoreTests {
  func withAlarms(_ a: Appointment, _ specs: String...) throws -> Appointment {
    var a = a
    a.setAlarms(try specs.map { try Alarm.parse($0, start: a.start, zone: TestClock.paris) })
    return a
  }

  func fires(_ dao: AppointmentDAO, _ from: Date, _ to: Date) async throws -> [String] {
    try await dao.alarmInstances(in: window(from, to)).map {
      "\($0.appointment.title) \(TestClock.clock.calendar.component(.day, from: $0.fireAt)) "
        + AppointmentFormatter(clock: TestClock.clock).time($0.fireAt)
    }
  }

  @Test("a series' alarms are read from its extras once, not once per occurrence", arguments: StoreKind.allCases)
  func seriesAlarmsReadOnce(kind: StoreKind) async throws {
    try await withStore(kind) { dao in
      var daily = Appointment(
        title: "Daily",
        start: december(7, 9),
        end: december(7, 10),
        created: TestClock.now,
        timeZone: "Europe/Paris",
        recurrence: Recurrence(frequency: .daily, count: 10)
      )
      daily = try withAlarms(daily, "10m")
      _ = try await dao.saveAppointment(daily)
      let counter = AlarmReads.Counter()
      let instances = try await AlarmReads.$counter.withValue(counter) {
        try await dao.alarmInstances(in: window(december(1), december(31)))
      }
      #expect(instances.count == 10)
      #expect(counter.count == 1)
    }
  }

  @Test(arguments: StoreKind.allCases)
  func oneOffsInRangeOnlyAndNotCancelled(kind: StoreKind) async throws {
    try await withStore(kind) { dao in
      _ = try await dao.saveAppointment(
        try withAlarms(appointment("Dentist", from: december(3, 9), to: december(3, 10)), "15m", "1d")
      )
      _ = try await dao.saveAppointment(appointment("No alarm", from: december(3, 9), to: december(3, 10)))
      _ = try await dao.saveAppointment(
        try withAlarms(appointment("Off", from: december(3, 11), to: december(3, 12), status: .cancelled), "15m")
      )
      #expect(try await fires(dao, december(1), december(5)) == ["Dentist 2 09:00", "Dentist 3 08:45"])
      #expect(try await fires(dao, december(3), december(5)) == ["Dentist 3 08:45"])
      #expect(try await fires(dao, december(3, 8, 45), december(3, 8, 45)) == [])
    }
  }

  @Test(arguments: StoreKind.allCases)
  func seriesOnePerOccurrenceWithOverridesAndExceptions(kind: StoreKind) async throws {
    try await withStore(kind) { dao in
      var daily = Appointment(
        title: "Daily",
        start: december(7, 9),
        end: december(7, 10),
        created: TestClock.now,
        timeZone: "Europe/Paris",
        recurrence: Recurrence(frequency: .daily, count: 5),
        exceptions: [december(9, 9)],
        uid: "daily@example.com"
      )
      daily = try withAlarms(daily, "10m")
      daily.setAlarms(daily.alarms + [Alarm.display(.absolute(december(1, 12)))])
      let series = try await dao.saveAppointment(daily)
      // The 8th moved to the 12th at 15:00 with an alarm of its own; the 10th keeps none.
      var moved = Appointment(
        title: "Daily (moved)",
        start: december(12, 15),
        end: december(12, 16),
        created: TestClock.now,
        timeZone: "Europe/Paris",
        uid: "daily@example.com",
        override: .init(seriesID: series.id, recurrenceID: december(8, 9))
      )
      moved = try withAlarms(moved, "1h")
      _ = try await dao.saveAppointment(moved)
      _ = try await dao.saveAppointment(
        Appointment(
          title: "Daily (quiet)",
          start: december(10, 9),
          end: december(10, 10),
          created: TestClock.now,
          timeZone: "Europe/Paris",
          uid: "daily@example.com",
          override: .init(seriesID: series.id, recurrenceID: december(10, 9))
        )
      )
      #expect(
        try await fires(dao, december(1), december(31)) == [
          "Daily 1 12:00", "Daily 7 08:50", "Daily 11 08:50", "Daily (moved) 12 14:00",
        ]
      )
      // A window that only the moved occurrence's alarm falls in finds it where it is now.
      #expect(try await fires(dao, december(12), december(13)) == ["Daily (moved) 12 14:00"])
      // Each instance has its own key; the same occurrence keeps its key from window to window.
      let keys = try await dao.alarmInstances(in: window(december(1), december(31))).map(\.key)
      #expect(Set(keys).count == 4)
      #expect(try await dao.alarmInstances(in: window(december(11), december(12))).map(\.key) == [keys[2]])
      _ = try await dao.cancelAppointment(id: series.id)
      #expect(try await fires(dao, december(1), december(31)) == [])
    }
  }

  @Test(arguments: StoreKind.allCases)
  func aDayAheadOfTomorrowFiresToday(kind: StoreKind) async throws {
    try await withStore(kind) { dao in
      let weekly = Appointment(
        title: "Weekly",
        start: december(7, 9),
        end: december(7, 10),
        created: TestClock.now,
        timeZone: "Europe/Paris",
        recurrence: Recurrence(frequency: .weekly)
      )
      _ = try await dao.saveAppointment(try withAlarms(weekly, "2d", "+5m end"))
      #expect(try await fires(dao, december(12), december(13)) == ["Weekly 12 09:00"])
      #expect(try await fires(dao, december(14), december(15)) == ["Weekly 14 10:05"])
    }
  }

  /// `at 08:00` on a whole-day series is 08:00 on each day, the day the clocks go forward
  /// too (it was 09:00 there), and found by a window of that day alone.
  @Test(arguments: StoreKind.allCases)
  func atATimeOfDayFiresOnTheWallClock(kind: StoreKind) async throws {
    try await withStore(kind) { dao in
      var days = Appointment(
        title: "Spring",
        start: TestClock.date(2027, 3, 27),
        end: TestClock.date(2027, 3, 28),
        created: TestClock.now,
        timeZone: "Europe/Paris",
        isAllDay: true,
        recurrence: Recurrence(frequency: .daily, count: 3)
      )
      days = try withAlarms(days, "at 08:00", "at 02:30")
      _ = try await dao.saveAppointment(days)
      let sunday = try await dao.alarmInstances(in: window(TestClock.date(2027, 3, 28), TestClock.date(2027, 3, 29)))
      #expect(
        sunday.map(\.fireAt) == [
          TestClock.date(2027, 3, 28, 3, 30), TestClock.date(2027, 3, 28, 8),
        ]
      )
      #expect(TestClock.date(2027, 3, 28, 8) == Date(timeIntervalSince1970: 1_806_213_600))
    }
  }
}
