import ApptCore
import ApptTestSupport
import Foundation
import Testing

@testable import ApptStore

/// `AppointmentQuery.withAlarmsOnly`, what the calendar's alarm watch observes: only the rows
/// that carry alarms are read, so the store's re-run of it after a commit that touches no
/// alarm finds nothing new (no snapshot), and reads next to nothing.
@Suite("Alarm watch query", .hangBackstop)
struct AlarmWatchQueryTests {
  static let days = window(december(1), december(5))

  func withAlarms(_ a: Appointment, _ specs: String...) throws -> Appointment {
    var a = a
    a.setAlarms(try specs.map { try Alarm.parse($0, start: a.start, zone: TestClock.paris) })
    return a
  }

  func daily(_ title: String, uid: String) -> Appointment {
    Appointment(
      title: title,
      start: december(1, 7),
      end: december(1, 8),
      created: TestClock.now,
      timeZone: "Europe/Paris",
      recurrence: Recurrence(frequency: .daily, count: 10),
      uid: uid
    )
  }

  @Test(
    "withAlarmsOnly lists exactly the window's items that carry alarms, series expanded",
    arguments: StoreKind.allCases
  )
  func sameItemsWithAlarms(kind: StoreKind) async throws {
    try await withStore(kind) { dao in
      _ = try await dao.saveAppointment(
        try withAlarms(appointment("Dentist", from: december(2, 9), to: december(2, 10)), "15m")
      )
      _ = try await dao.saveAppointment(appointment("Plain", from: december(2, 11), to: december(2, 12)))
      _ = try await dao.saveAppointment(
        try withAlarms(appointment("Off", from: december(3, 9), to: december(3, 10), status: .cancelled), "1h")
      )
      _ = try await dao.saveAppointment(try withAlarms(daily("Standup", uid: "standup@example.com"), "10m"))
      let quiet = try await dao.saveAppointment(daily("Quiet", uid: "quiet@example.com"))
      // An override with an alarm of a series without: a row of its own, found as one.
      var moved = Appointment(
        title: "Quiet (moved)",
        start: december(3, 15),
        end: december(3, 16),
        created: TestClock.now,
        timeZone: "Europe/Paris",
        uid: "quiet@example.com",
        override: .init(seriesID: quiet.id, recurrenceID: december(3, 7))
      )
      moved = try withAlarms(moved, "5m")
      _ = try await dao.saveAppointment(moved)

      let all = try await dao.appointments(matching: AppointmentQuery(range: Self.days, includeCancelled: true))
      let watched = try await dao.appointments(
        matching: AppointmentQuery(range: Self.days, includeCancelled: true, withAlarmsOnly: true)
      )
      #expect(watched == all.filter(\.hasAlarms))
      #expect(all.contains { !$0.hasAlarms }, "the window holds rows without alarms")
      #expect(Set(watched.map(\.title)) == ["Dentist", "Off", "Standup", "Quiet (moved)"])
      #expect(watched.filter { $0.title == "Standup" }.count == 4)
    }
  }

  @Test(
    "a commit that touches no alarm gives the watch no snapshot; one that does, one",
    arguments: StoreKind.shared
  )
  func commitsWithoutAlarmsAreNotSeen(kind: StoreKind) async throws {
    try await withTimeout {
      try await withStore(kind) { dao in
        let query = AppointmentQuery(range: Self.days, includeCancelled: true, withAlarmsOnly: true)
        var iterator = await dao.observeAppointments(query).makeAsyncIterator()
        let first = try await nextSnapshot(&iterator)
        #expect(first.items.isEmpty)
        // Without alarms, in the window: the watch's result is unchanged, so nothing is sent.
        var plain = try await dao.saveAppointment(appointment("Plain", from: december(2, 9), to: december(2, 10)))
        plain.title = "Plain, renamed"
        _ = try await dao.saveAppointment(plain)
        let dentist = try await dao.saveAppointment(
          try withAlarms(appointment("Dentist", from: december(2, 11), to: december(2, 12)), "15m")
        )
        // The next snapshot is the alarm's: none came for the two commits before it.
        let second = try await nextSnapshot(&iterator)
        #expect(second.items == [dentist])
        #expect(second.change == .update(ChangeSet(insertions: [0])))
        // Its alarm taken off: it leaves the watch.
        var quiet = dentist
        quiet.setAlarms([])
        _ = try await dao.saveAppointment(quiet)
        let third = try await nextSnapshot(&iterator)
        #expect(third.items.isEmpty)
      }
    }
  }

  @Test(
    "the watch's one-offs are read through the alarms' index, its series through appointment_series",
    arguments: StoreKind.allCases
  )
  func queryPlans(kind: StoreKind) async throws {
    try await withStore(kind) { dao in
      let from = december(1).millisecondsSince1970
      let to = december(5).millisecondsSince1970
      let isOneOff = await AppointmentDAO.isOneOff
      let oneOffs = """
        SELECT \(Appointment.table.columnList) FROM appointment
        WHERE start_ms >= \(from - 3_600_000) AND start_ms < \(to) AND end_ms > \(from)
          AND \(isOneOff) AND \(AppointmentDAO.carriesAlarms)
        """
      let plan = try await WindowQueryPlanTests.plan(oneOffs, on: dao, kind: kind)
      #expect(plan.contains("appointment_with_alarms"), "\(plan)")
      #expect(!plan.contains("SCAN appointment") && !plan.contains("Seq Scan"), "\(plan)")
      let series = """
        SELECT \(Appointment.table.columnList) FROM appointment
        WHERE \(WindowQueryPlanTests.condition) AND \(AppointmentDAO.seriesCarryAlarms)
        """
      let seriesPlan = try await WindowQueryPlanTests.plan(series, on: dao, kind: kind)
      // Not the alarms' index: it would read every row with alarms before the window.
      #expect(seriesPlan.contains("appointment_series"), "\(seriesPlan)")
      #expect(!seriesPlan.contains("appointment_with_alarms"), "\(seriesPlan)")
    }
  }
}
