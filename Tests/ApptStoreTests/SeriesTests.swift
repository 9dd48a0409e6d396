import ApptCore
import ApptTestSupport
import Foundation
import Testing

@testable import ApptStore

/// Series in the store: windows expand occurrences, and one occurrence can be cancelled,
/// restored or edited on its own, each in one transaction.
@Suite struct SeriesTests {

  /// Weekly on Mondays and Wednesdays at 09:00 Paris from Mon 30 Nov 2026, ten times.
  func savedSeries(_ dao: AppointmentDAO) async throws -> Appointment {
    let start = TestClock.date(2026, 11, 30, 9)
    var series = Appointment(
      title: "Sync",
      start: start,
      end: start.addingTimeInterval(3600),
      created: TestClock.now,
      timeZone: "Europe/Paris",
      recurrence: Recurrence(frequency: .weekly, weekdays: [.monday, .wednesday], count: 10)
    )
    series = try await dao.saveAppointment(series)
    return series
  }

  var december: DateInterval { DateInterval(start: TestClock.date(2026, 12, 1), end: TestClock.date(2027, 1, 1)) }

  @Test(arguments: StoreKind.allCases)
  func windowsListOccurrences(kind: StoreKind) async throws {
    try await withStore(kind) { dao in
      let series = try await savedSeries(dao)
      let listed = try await dao.appointments(matching: AppointmentQuery(range: december))
      #expect(listed.count == 9, "ten in all, the first on 30 November")
      #expect(listed.allSatisfy { $0.id == series.id && $0.occurrence == $0.start })
      #expect(listed.first?.start == TestClock.date(2026, 12, 2, 9))
      let all = try await dao.appointments(matching: AppointmentQuery(range: nil))
      #expect(all == [series], "without a range the series is listed once, as stored")
    }
  }

  @Test(arguments: StoreKind.allCases)
  func oneOccurrenceCanBeCancelledAndRestored(kind: StoreKind) async throws {
    try await withStore(kind) { dao in
      let series = try await savedSeries(dao)
      let cancelled = try await dao.cancelOccurrence(id: series.id, on: TestClock.date(2026, 12, 2))
      #expect(cancelled.status == .cancelled)
      #expect(cancelled.start == TestClock.date(2026, 12, 2, 9))
      let week = DateInterval(start: TestClock.date(2026, 11, 30), end: TestClock.date(2026, 12, 7))
      #expect(try await dao.appointments(matching: AppointmentQuery(range: week)).count == 1)
      let withCancelled = try await dao.appointments(matching: AppointmentQuery(range: week, includeCancelled: true))
      #expect(withCancelled.map(\.status) == [.scheduled, .cancelled])
      #expect(try await dao.getAppointment(id: series.id).status == .scheduled, "the series itself is untouched")
      try await dao.restoreOccurrence(id: series.id, on: TestClock.date(2026, 12, 2))
      #expect(try await dao.appointments(matching: AppointmentQuery(range: week)).count == 2)
    }
  }

  @Test(arguments: StoreKind.allCases)
  func editingOneOccurrenceMakesAnOverride(kind: StoreKind) async throws {
    try await withStore(kind) { dao in
      let series = try await savedSeries(dao)
      let moved = try await dao.editOccurrence(id: series.id, on: TestClock.date(2026, 12, 7)) { appointment in
        appointment.title = "Sync (moved)"
        appointment.start = TestClock.date(2026, 12, 7, 14)
        appointment.end = TestClock.date(2026, 12, 7, 15)
      }
      #expect(moved.id != series.id && moved.recurrence == nil)
      #expect(moved.override == Appointment.Override(seriesID: series.id, recurrenceID: TestClock.date(2026, 12, 7, 9)))
      let day = DateInterval(start: TestClock.date(2026, 12, 7), end: TestClock.date(2026, 12, 8))
      let listed = try await dao.appointments(matching: AppointmentQuery(range: day, includeCancelled: true))
      #expect(listed.map(\.title) == ["Sync (moved)"], "the override replaces the occurrence")
      let stored = try await dao.getAppointment(id: series.id)
      #expect(stored.exceptions.isEmpty, "no exception: the override keeps its place in the series")
      #expect(stored.revision == series.revision + 1, "the series (the resource a sync sends) is written too")
    }
  }

  @Test(arguments: StoreKind.allCases)
  func occurrenceRequestsThatDoNotFitAreRefusedAndChangeNothing(kind: StoreKind) async throws {
    try await withStore(kind) { dao in
      let series = try await savedSeries(dao)
      let tuesday = TestClock.date(2026, 12, 1)
      await #expect(throws: StoreError.invalidRequest(message: "\"Sync\" has no occurrence on Tue 2026-12-01")) {
        try await dao.cancelOccurrence(id: series.id, on: tuesday)
      }
      var single = TestStore.appointment("Once", TestClock.date(2026, 12, 1, 10))
      single = try await dao.saveAppointment(single)
      await #expect(throws: StoreError.invalidRequest(message: "\"Once\" does not repeat; leave out --occurrence")) {
        try await dao.cancelOccurrence(id: single.id, on: tuesday)
      }
      #expect(try await dao.getAppointment(id: series.id) == series)
    }
  }

  @Test(arguments: StoreKind.allCases)
  func observersSeeAnOccurrenceChange(kind: StoreKind) async throws {
    try await withStore(kind) { dao in
      let series = try await savedSeries(dao)
      let day = DateInterval(start: TestClock.date(2026, 12, 2), end: TestClock.date(2026, 12, 3))
      var snapshots = await dao.observeAppointments(AppointmentQuery(range: day, includeCancelled: true))
        .makeAsyncIterator()
      let first = try #require(await snapshots.next())
      #expect(first.items.map(\.status) == [.scheduled])
      try await dao.cancelOccurrence(id: series.id, on: TestClock.date(2026, 12, 2))
      let second = try #require(await snapshots.next())
      #expect(second.items.map(\.status) == [.cancelled])
      #expect(second.change == .update(ChangeSet(modifications: [0])), "the same occurrence, modified")
    }
  }

  @Test(arguments: StoreKind.allCases)
  func theMonthPanelCountsOccurrencesAndWholeDays(kind: StoreKind) async throws {
    try await withStore(kind) { dao in
      _ = try await savedSeries(dao)
      var holiday = Appointment(
        title: "Holiday",
        start: TestClock.date(2026, 12, 24),
        end: TestClock.date(2026, 12, 26),
        created: TestClock.now,
        isAllDay: true
      )
      holiday = try await dao.saveAppointment(holiday)
      var marks = await dao.observeBusyDays(in: december).makeAsyncIterator()
      let days = try #require(await marks.next()).items
      let clock = TestClock.clock
      #expect(days.contains(BusyDay(id: clock.dayNumber(of: TestClock.date(2026, 12, 24)))))
      #expect(days.contains(BusyDay(id: clock.dayNumber(of: TestClock.date(2026, 12, 25)))))
      #expect(!days.contains { $0.id == clock.dayNumber(of: TestClock.date(2026, 12, 26)) })
      #expect(days.contains(BusyDay(id: clock.dayNumber(of: TestClock.date(2026, 12, 2)))), "an occurrence")
      #expect(!days.contains { $0.id == clock.dayNumber(of: TestClock.date(2026, 12, 3)) }, "a Thursday: none")
      #expect(days.count == 11, "9 occurrences in December and 2 holiday days")
    }
  }
}
