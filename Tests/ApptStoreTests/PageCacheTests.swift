import ApptCore
import ApptTestSupport
import Foundation
import Testing

@testable import ApptStore

/// `DatabaseConfiguration.pageCacheKiB`: the small page cache a process that runs one command
/// opens its file with (`AppointmentDAO.oneCommandPageCacheKiB`). It bounds what SQLite keeps
/// in memory, never what a read returns.
@Suite struct PageCacheTests {
  @DatabaseActor
  func cacheSize(_ dao: AppointmentDAO) throws -> Int64? {
    try pragma("cache_size", dao)
  }

  @DatabaseActor
  func pragma(_ name: String, _ dao: AppointmentDAO) throws -> Int64? {
    try dao.database.read { connection throws(StoreError) in try connection.scalar("PRAGMA \(name)")?.int64 }
  }

  /// Everything `list` would print for `range`, through the stream it reads.
  func listed(_ dao: AppointmentDAO, _ range: DateInterval) async throws -> [Appointment] {
    let all = Locked<[Appointment]>([])
    try await dao.streamAppointments(matching: AppointmentQuery(range: range, detail: .listLine), chunkSize: 256) {
      chunk in
      all.withLock { $0 += chunk }
      return .more
    }
    return all.withLock { $0 }
  }

  @Test("a one-command file keeps its small cache, through an import's own; others keep SQLite's")
  func theCacheIsSetAndKept() async throws {
    let directory = TemporaryDirectory()
    let url = directory.file("appt.sqlite3")
    let small = AppointmentDAO(
      location: .file(url),
      clock: TestClock.clock,
      pageCacheKiB: AppointmentDAO.oneCommandPageCacheKiB
    )
    let kept = -Int64(AppointmentDAO.oneCommandPageCacheKiB)
    #expect(try await cacheSize(small) == kept)
    let event = [
      "BEGIN:VCALENDAR", "VERSION:2.0", "BEGIN:VEVENT", "UID:one@example.com", "SUMMARY:One",
      "DTSTART:20261207T090000Z", "DURATION:PT1H", "END:VEVENT", "END:VCALENDAR", "",
    ]
    let report = try await small.importCalendar(
      bytes: Array(event.joined(separator: "\r\n").utf8),
      clock: TestClock.clock,
      partial: false
    )
    #expect(report.stored && report.added == 1)
    #expect(try await cacheSize(small) == kept, "the import gives back the cache it found")
    await small.database.close()

    let standard = AppointmentDAO(location: .file(url), clock: TestClock.clock)
    #expect(try await cacheSize(standard) == -2000, "SQLite's default")
    await standard.database.close()
  }

  @Test("a window read through a cache of 10 pages lists what the default cache lists")
  func aSmallCacheReadsTheSameWindow() async throws {
    let directory = TemporaryDirectory()
    let url = directory.file("appt.sqlite3")
    let writer = AppointmentDAO(location: .file(url), clock: TestClock.clock)
    // 4,000 one-offs in shuffled order over December (a few hundred pages, rows and index
    // entries far apart), and weekly series among them.
    var random = SplitMix64(seed: 17)
    var batch: [Appointment] = []
    for index in 0..<4_000 {
      let start = december(1).addingTimeInterval(TimeInterval(random.next() % (30 * 96)) * 900)
      var meeting = appointment(
        "Meeting \(index) " + String(repeating: "x", count: Int(random.next() % 80)),
        from: start,
        to: start + 1800
      )
      meeting.revision = 1  // the generic layer's batch save stores rows as they are
      batch.append(meeting)
    }
    for index in 0..<40 {
      let start = TestClock.date(2026, 11, 1 + index % 28, 8 + index % 10)
      batch.append(
        Appointment(
          title: "Weekly \(index)",
          start: start,
          end: start + 3600,
          created: TestClock.now,
          recurrence: Recurrence(frequency: .weekly, count: 10),
          revision: 1
        )
      )
    }
    try await writer.service.save(all: batch)
    await writer.database.close()

    let month = window(december(1), december(31))
    let standard = AppointmentDAO(location: .file(url), readOnly: true, clock: TestClock.clock)
    let expected = try await listed(standard, month)
    await standard.database.close()
    let tiny = AppointmentDAO(location: .file(url), readOnly: true, clock: TestClock.clock, pageCacheKiB: 40)
    #expect(try await cacheSize(tiny) == -40)
    let pages = try #require(try await pragma("page_count", tiny))
    #expect(pages > 200, "the file is many times the cache")
    let got = try await listed(tiny, month)
    await tiny.database.close()
    #expect(expected.count > 4_000, "the one-offs and the series' occurrences")
    #expect(got == expected)
  }
}
