// The month panel's marks: which days scheduled appointments touch, from the start index
// (one probe a day), and refreshed after the windows a commit concerns.

import ApptCore
import ApptTestSupport
import Foundation
import Testing

@testable import ApptStore

@Suite struct BusyDaysTests {
  /// March 2027 in Paris: 31 days, the clocks go forward on the 28th (a day of 23 hours).
  static let march = window(TestClock.date(2027, 3, 1), TestClock.date(2027, 4, 1))

  func marks(_ dao: AppointmentDAO, onlyShown: Bool) async throws -> Set<Int> {
    var stream = await dao.observeBusyDays(in: Self.march, onlyShownCalendars: onlyShown).makeAsyncIterator()
    return Set(try await nextSnapshot(&stream).items.map(\.id))
  }

  /// What the marks must be: the days whose own window (as the calendar's day view reads
  /// it) lists a scheduled appointment.
  func daysListingScheduled(_ dao: AppointmentDAO, onlyShown: Bool) async throws -> Set<Int> {
    let clock = TestClock.clock
    var days: Set<Int> = []
    var day = Self.march.start
    while day < Self.march.end {
      let next = clock.day(1, after: day)
      let listed = try await dao.appointments(
        matching: AppointmentQuery(range: DateInterval(start: day, end: next), onlyShownCalendars: onlyShown)
      )
      if listed.contains(where: { $0.status == .scheduled }) { days.insert(clock.dayNumber(of: day)) }
      day = next
    }
    return days
  }

  /// Random sparse stores (so that days stay unmarked and every part of the query decides):
  /// one-offs of a quarter hour to three days, some cancelled, some in a hidden calendar,
  /// some beginning in February; series (daily, weekly, monthly) with a moved occurrence,
  /// a cancelled one, and a cancelled series. The marks equal the days the day windows list.
  @Test(arguments: StoreKind.allCases)
  func theMarksAreTheDaysWhoseWindowsListAScheduledAppointment(kind: StoreKind) async throws {
    for seed in [UInt64(1), 2, 3] {
      try await withStore(kind) { dao in
        var random = SplitMix64(seed: seed)
        try await dao.addCalendar(name: "hidden")
        try await dao.setCalendarShown("hidden", false)
        for index in 0..<14 {
          let day = Int.random(in: -3...31, using: &random)
          let start = TestClock.date(2027, 3, 1).addingTimeInterval(
            Double(day) * 86_400 + Double(Int.random(in: 0..<96, using: &random)) * 900
          )
          let minutes = [15, 45, 90, 600, 1_440, 2_000, 4_320][Int.random(in: 0..<7, using: &random)]
          var request = AddRequest(
            title: "One-off \(index)",
            start: start,
            end: start.addingTimeInterval(Double(minutes) * 60)
          )
          if index % 5 == 4 { request.calendar = "hidden" }
          let added = try await dao.addAppointment(request)
          if index % 6 == 5 { try await dao.cancelAppointment(id: added.id) }
        }
        let rules: [(Recurrence, Int, Int)] = [
          (Recurrence(frequency: .daily, count: 4), 5, 23),
          (Recurrence(frequency: .weekly, count: 3), 12, 7),
          (Recurrence(frequency: .monthly, count: 3), 20, 9),
          (Recurrence(frequency: .daily, count: 3), 26, 22),
        ]
        for (index, (rule, day, hour)) in rules.enumerated() {
          var request = AddRequest(
            title: "Series \(index)",
            start: TestClock.date(2027, 3, day, hour),
            end: TestClock.date(2027, 3, day, hour, 30).addingTimeInterval(3_600)
          )
          request.recurrence = rule
          if index == 3 { request.calendar = "hidden" }
          let series = try await dao.addAppointment(request)
          switch index {
          case 0:
            // Its second occurrence moved three days on, its third cancelled.
            _ = try await dao.editAppointment(
              EditRequest(
                id: series.id.description,
                start: TestClock.date(2027, 3, day + 4, 8),
                occurrence: TestClock.date(2027, 3, day + 1)
              )
            )
            try await dao.cancelOccurrence(id: series.id, on: TestClock.date(2027, 3, day + 2))
          case 2: try await dao.cancelAppointment(id: series.id)
          default: break
          }
        }
        for onlyShown in [true, false] {
          let expected = try await daysListingScheduled(dao, onlyShown: onlyShown)
          #expect(try await marks(dao, onlyShown: onlyShown) == expected, "seed \(seed), only shown: \(onlyShown)")
          #expect(expected.count > 3 && expected.count < 31, "seed \(seed): days marked and days not")
        }
      }
    }
  }

  /// A store with a row beginning on every day marks the month without expanding a series
  /// (none is read: a series' rows are not even looked at when every day is marked).
  @Test(arguments: StoreKind.allCases)
  func aBusyMonthIsMarkedFromItsOneOffsAlone(kind: StoreKind) async throws {
    try await withStore(kind) { dao in
      var request = AddRequest(
        title: "Every day",
        start: TestClock.date(2027, 3, 1, 9),
        end: TestClock.date(2027, 3, 1, 10)
      )
      request.recurrence = Recurrence(frequency: .daily, count: 31)
      _ = try await dao.addAppointment(request)
      let expandedOnly = try await marks(dao, onlyShown: false)
      #expect(expandedOnly.count == 31, "a series alone marks every day it touches")
      for day in 1...31 {
        _ = try await dao.addAppointment(
          AddRequest(
            title: "Day \(day)",
            start: TestClock.date(2027, 3, day, 12),
            end: TestClock.date(2027, 3, day, 13)
          )
        )
      }
      #expect(try await marks(dao, onlyShown: false) == expandedOnly)
    }
  }

  /// After a commit, the windows a user looks at are refreshed before summaries, whatever
  /// their last fetch cost: the marks never stand between a commit and the day's frame.
  @Test func aCommitRefreshesWindowsBeforeSummaries() async throws {
    try await withStore(.memory) { dao in
      let database = dao.database
      let order = RefreshOrder()
      let summary = await RecordingObserver(name: "summary", priority: .summary, cost: .zero, order: order)
      let day = await RecordingObserver(name: "day", priority: .window, cost: .seconds(1), order: order)
      let week = await RecordingObserver(name: "week", priority: .window, cost: .milliseconds(5), order: order)
      await database.register(summary)
      await database.register(day)
      await database.register(week)
      _ = try await dao.addAppointment(
        AddRequest(title: "Dentist", start: TestClock.date(2027, 3, 1, 9), end: TestClock.date(2027, 3, 1, 10))
      )
      #expect(await order.names == ["week", "day", "summary"], "windows, the cheaper first, then the summary")
      await database.unregister(summary)
      await database.unregister(day)
      await database.unregister(week)
    }
  }
}

@DatabaseActor
final class RefreshOrder {
  var names: [String] = []
}

/// An observer that only records when it is refreshed.
@DatabaseActor
final class RecordingObserver: DatabaseObserver {
  let name: String
  let priority: ObservationPriority
  let lastFetchDuration: Duration
  let order: RefreshOrder
  let observedTables: Set<String> = ["appointment"]
  let deliveryState: (sequence: UInt64, pending: Bool) = (0, false)

  init(name: String, priority: ObservationPriority, cost: Duration, order: RefreshOrder) {
    self.name = name
    self.priority = priority
    self.lastFetchDuration = cost
    self.order = order
  }

  func databaseChanged(version: UInt64, rows: ChangedRows?, fromOtherProcess: Bool, restored: Bool) {
    order.names.append(name)
  }
  func databaseUnchanged(version: UInt64) {}
  func databaseInterrupted(_ error: StoreError) {}
  func databaseFailed(_ error: StoreError) {}
  func databaseClosed() {}
}
