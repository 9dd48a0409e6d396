import ApptCore
import ApptTestSupport
import Foundation
import Testing

@testable import ApptStore

/// `streamAppointments`: a window handed over in chunks as it is read, in display order, in
/// bounded memory, stopping when the reader says so.
@Suite("Streaming windows")
struct StreamTests {
  /// Every day at 09:00 Paris from Tue 1 Dec 2026, for ever.
  func endlessDaily(_ dao: AppointmentDAO, title: String = "Daily") async throws -> Appointment {
    let start = december(1, 9)
    return try await dao.saveAppointment(
      Appointment(
        title: title,
        start: start,
        end: start.addingTimeInterval(1800),
        created: TestClock.now,
        timeZone: "Europe/Paris",
        recurrence: Recurrence(frequency: .daily)
      )
    )
  }

  /// `days` days from 1 December 2026.
  func days(_ count: Int) -> DateInterval {
    DateInterval(start: december(1), end: december(1).addingTimeInterval(TimeInterval(count) * 86400))
  }

  /// Runs the window reader on a connection that counts the rows its cursors hand out.
  @DatabaseActor
  func stream(
    _ dao: AppointmentDAO,
    _ query: AppointmentQuery,
    chunkSize: Int,
    _ deliver: @escaping @Sendable ([Appointment], _ rowsRead: Int) -> StreamControl
  ) async throws -> Int {
    try dao.database.read { connection throws(StoreError) in
      let counting = CountingConnection(connection)
      return try dao.stream(query, chunkSize: chunkSize, in: counting) { chunk throws(StoreError) in
        deliver(chunk, counting.rowsRead)
      }
    }
  }

  @Test("the first chunk is handed over before the last row is read", arguments: StoreKind.allCases)
  func firstChunkBeforeTheLastRow(kind: StoreKind) async throws {
    try await withStore(kind) { dao in
      let count = 600
      for index in 0..<count {
        let start = december(1).addingTimeInterval(TimeInterval(index) * 3600)
        try await dao.saveAppointment(appointment("one-off \(index)", from: start, to: start.addingTimeInterval(600)))
      }
      _ = try await endlessDaily(dao)
      let firstSeen = Shared<Int?>(nil)
      let chunks = Shared(0)
      _ = try await stream(dao, AppointmentQuery(range: days(40)), chunkSize: 50) { chunk, rowsRead in
        firstSeen.withLock { $0 = $0 ?? rowsRead }
        chunks.withLock { $0 += 1 }
        return .more
      }
      let rowsAtFirstChunk = try #require(firstSeen.withLock { $0 })
      #expect(rowsAtFirstChunk < 100, "the first chunk of 50 came after \(rowsAtFirstChunk) of \(count) rows")
      #expect(chunks.withLock { $0 } >= (count + 40) / 50)
    }
  }

  @Test("a reader that stops ends the reading there", arguments: StoreKind.allCases)
  func stopEndsTheReading(kind: StoreKind) async throws {
    try await withStore(kind) { dao in
      for index in 0..<400 {
        let start = december(1).addingTimeInterval(TimeInterval(index) * 3600)
        try await dao.saveAppointment(appointment("one-off \(index)", from: start, to: start.addingTimeInterval(600)))
      }
      let calls = Shared(0)
      let lastRead = Shared(0)
      _ = try await stream(dao, AppointmentQuery(range: days(3650)), chunkSize: 20) { _, rowsRead in
        calls.withLock { $0 += 1 }
        lastRead.withLock { $0 = rowsRead }
        return .stop
      }
      #expect(calls.withLock { $0 } == 1)
      #expect(lastRead.withLock { $0 } < 40)
      // And through the public door, over an endless series: one chunk, then nothing.
      _ = try await endlessDaily(dao)
      let delivered = Shared(0)
      try await dao.streamAppointments(matching: AppointmentQuery(range: days(3_000_000)), chunkSize: 10) { chunk in
        delivered.withLock { $0 += chunk.count }
        return .stop
      }
      #expect(delivered.withLock { $0 } == 10)
    }
  }

  @Test("what the stream holds stays within a few chunks, for 1k or 100k occurrences", arguments: StoreKind.allCases)
  func memoryIsBoundedByTheChunk(kind: StoreKind) async throws {
    try await withStore(kind) { dao in
      _ = try await endlessDaily(dao, title: "A")
      _ = try await endlessDaily(dao, title: "B")
      for index in 0..<300 {
        let start = december(1).addingTimeInterval(TimeInterval(index) * 86400 * 7 + 3600)
        try await dao.saveAppointment(appointment("one-off \(index)", from: start, to: start.addingTimeInterval(600)))
      }
      let chunkSize = 64
      for count in [500, 50_000] {
        let delivered = Shared(0)
        let largest = Shared(0)
        let peak = try await stream(dao, AppointmentQuery(range: days(count)), chunkSize: chunkSize) { chunk, _ in
          delivered.withLock { $0 += chunk.count }
          largest.withLock { $0 = max($0, chunk.count) }
          return .more
        }
        #expect(delivered.withLock { $0 } == 2 * count + min(300, count / 7 + 1))
        #expect(largest.withLock { $0 } <= chunkSize)
        // A short window's series are expanded whole (at most `wholeWindowChunks` chunks by
        // their pace); a long one's a chunk's worth at a time, to its end.
        let bound = count == 500 ? (AppointmentDAO.wholeWindowChunks + 2) * chunkSize : 3 * chunkSize
        #expect(peak <= bound, "held \(peak) appointments at once over \(count) days")
      }
    }
  }

  @Test("chunked, the window is the one expansion in display order", arguments: StoreKind.allCases)
  func chunksAreTheWholeWindow(kind: StoreKind) async throws {
    try await withStore(kind) { dao in
      var daily = try await endlessDaily(dao)
      daily.exceptions = [december(3, 9)]
      daily = try await dao.saveAppointment(daily)
      let rdates = try await dao.saveAppointment(
        Appointment(
          title: "Extra",
          start: december(2, 9),
          end: december(2, 10),
          created: TestClock.now,
          timeZone: "Europe/Paris",
          recurrence: Recurrence(
            rules: [RecurrenceRule(frequency: .weekly, interval: 1, count: 6)],
            dates: [.instant(december(5, 9)), .period(december(6, 7), 7200)]
          )
        )
      )
      // Moved within the window, and from a later slot to an earlier day.
      _ = try await dao.editOccurrence(id: daily.id, on: december(10)) {
        $0.start = december(10, 15)
        $0.end = december(10, 16)
      }
      let future = Appointment(
        title: "Later from the 20th",
        start: december(20, 11),
        end: december(20, 12),
        created: TestClock.now,
        timeZone: "Europe/Paris",
        override: .init(seriesID: rdates.id, recurrenceID: december(23, 9), thisAndFuture: true)
      )
      _ = try await dao.saveAppointment(future)
      for (index, hour) in [9, 9, 10, 23].enumerated() {
        try await dao.saveAppointment(
          appointment("tie \(index)", from: december(4 + index, hour), to: december(4 + index, hour, 30))
        )
      }
      try await dao.saveAppointment(appointment("long", from: december(1).addingTimeInterval(-86400), to: december(3)))
      let range = DateInterval(start: december(1), end: december(31))
      for includeCancelled in [false, true] {
        let query = AppointmentQuery(range: range, includeCancelled: includeCancelled)
        let whole = try await dao.appointments(matching: query)
        // The same window read in one slice, chunk by chunk of 3.
        let chunked = Shared<[Appointment]>([])
        try await dao.streamAppointments(matching: query, chunkSize: 3) { chunk in
          chunked.withLock { $0 += chunk }
          return .more
        }
        #expect(chunked.withLock { $0 } == whole)
        // What expanding each stored row over the whole window gives, sorted.
        let stored = try await dao.getAllAppointments()
        let overrides = Dictionary(grouping: stored.filter { $0.override != nil }) { $0.override?.seriesID }
        var expected: [Appointment] = []
        for row in stored where row.recurrence != nil {
          expected += row.occurrences(
            in: range,
            fallbackZone: TestClock.clock.timeZone,
            includeCancelled: includeCancelled,
            overrides: overrides[row.id] ?? []
          )
        }
        expected += stored.filter { $0.recurrence == nil && $0.overlaps(from: range.start, to: range.end) }
        expected.sort(by: Appointment.displayOrder)
        #expect(whole.map(\.title) == expected.map(\.title))
        #expect(whole.map(\.start) == expected.map(\.start))
        #expect(whole.map(\.end) == expected.map(\.end))
        #expect(whole.count > 40)
      }
    }
  }

  @Test("a list line read from a third of the columns is the line read in full", arguments: StoreKind.allCases)
  func listLineDetail(kind: StoreKind) async throws {
    try await withStore(kind) { dao in
      let daily = try await endlessDaily(dao)
      _ = try await dao.editOccurrence(id: daily.id, on: december(3)) {
        $0.start = december(3, 7)
        $0.title = "Moved"
      }
      let weekly = try await dao.saveAppointment(
        Appointment(
          title: "Weekly",
          start: december(2, 12),
          end: december(2, 13),
          created: TestClock.now,
          recurrence: Recurrence(frequency: .weekly)
        )
      )
      _ = try await dao.editOccurrence(id: weekly.id, on: december(9)) { $0.title = "Weekly, changed" }
      _ = try await dao.cancelAppointment(id: weekly.id)
      var kept = appointment("Dentist", from: december(2, 9), to: december(2, 10), note: "bring the card")
      kept.location = "Rue de Rivoli"
      kept.uid = "dentist@example.com"
      try await dao.saveAppointment(kept)
      try await dao.saveAppointment(appointment("Dentist", from: december(2, 9), to: december(2, 10)))
      try await dao.saveAppointment(appointment("Call\u{7}back ü", from: december(2, 9), to: december(2, 11)))
      try await dao.saveAppointment(appointment("Gone", from: december(4, 8), to: december(4, 9), status: .cancelled))
      try await dao.saveAppointment(
        Appointment(title: "Holiday", start: december(5), end: december(7), created: TestClock.now, isAllDay: true)
      )
      // Series read from their line columns too: a zone, RDATEs (an instant and a period),
      // EXDATEs, a THISANDFUTURE override, whole days; a note and a place a line leaves out.
      let extra = try await dao.saveAppointment(
        Appointment(
          title: "Extra",
          start: december(2, 9),
          end: december(2, 10),
          note: "agenda attached",
          location: "Room 4",
          created: TestClock.now,
          timeZone: "Europe/Paris",
          recurrence: Recurrence(
            rules: [RecurrenceRule(frequency: .weekly, interval: 1, count: 6)],
            dates: [.instant(december(5, 9)), .period(december(6, 7), 7200)]
          ),
          exceptions: [december(9, 9)]
        )
      )
      _ = try await dao.saveAppointment(
        Appointment(
          title: "Extra, later",
          start: december(11, 11),
          end: december(11, 12),
          created: TestClock.now,
          timeZone: "Europe/Paris",
          override: .init(seriesID: extra.id, recurrenceID: december(6, 7), thisAndFuture: true)
        )
      )
      _ = try await dao.saveAppointment(
        Appointment(
          title: "Market day",
          start: december(3),
          end: december(4),
          created: TestClock.now,
          isAllDay: true,
          recurrence: Recurrence(frequency: .weekly)
        )
      )
      let formatter = AppointmentFormatter(clock: TestClock.clock)
      for includeCancelled in [false, true] {
        func read(_ detail: AppointmentQuery.Detail) async throws -> [Appointment] {
          let query = AppointmentQuery(range: days(14), includeCancelled: includeCancelled, detail: detail)
          let read = Shared<[Appointment]>([])
          try await dao.streamAppointments(matching: query, chunkSize: 4) { chunk in
            read.withLock { $0 += chunk }
            return .more
          }
          return read.withLock { $0 }
        }
        let whole = try await read(.full)
        let narrow = try await read(.listLine)
        let full = whole.map(formatter.textLine)
        #expect(narrow.map(formatter.textLine) == full, "includeCancelled: \(includeCancelled)")
        // The narrow read did leave out what a line does not show.
        #expect(whole.contains { $0.note == "bring the card" && $0.location == "Rue de Rivoli" })
        #expect(!narrow.contains { $0.recurrence == nil && $0.occurrence == nil && !$0.calendarID.isEmpty })
        #expect(whole.contains { $0.occurrence != nil && $0.note == "agenda attached" })
        #expect(!narrow.contains { $0.occurrence != nil && (!$0.note.isEmpty || !$0.calendarID.isEmpty) })
        // The zone is read (here it is the clock's own, so the lines alone would not tell).
        #expect(narrow.contains { $0.occurrence != nil && $0.timeZone == "Europe/Paris" })
        for title in ["Extra", "Extra, later", "Market day"] {
          #expect(full.contains { $0.contains(title) }, "\(title) in \(full)")
        }
        // The window holds every kind of line the projection must get right.
        for mark in ["[repeats]", "[changed]", "^G", "all day"] {
          #expect(full.contains { $0.contains(mark) }, "\(mark) in \(full)")
        }
        #expect(full.contains { $0.contains("[cancelled]") } == includeCancelled)
        #expect(full.filter { $0.contains("Dentist") }.count == 2)
      }
    }
  }

  @Test("a window whose days no series reaches does not read the series", arguments: StoreKind.allCases)
  func noSeriesReadWithoutSeries(kind: StoreKind) async throws {
    try await withStore(kind) { dao in
      _ = try await dao.saveAppointment(
        Appointment(
          title: "Weekly",
          start: december(2, 12),
          end: december(2, 13),
          created: TestClock.now,
          recurrence: Recurrence(frequency: .weekly, count: 3)
        )
      )
      try await dao.saveAppointment(appointment("Dentist", from: december(20, 9), to: december(20, 10)))
      @DatabaseActor
      func seriesQueries(_ range: DateInterval) throws -> (titles: [String], series: Int) {
        try dao.database.read { connection throws(StoreError) in
          let counting = CountingConnection(connection)
          var titles: [String] = []
          try dao.stream(AppointmentQuery(range: range), chunkSize: 10, in: counting) { chunk throws(StoreError) in
            titles += chunk.map(\.title)
            return .more
          }
          return (titles, counting.queried.filter { $0.contains(AppointmentDAO.seriesReaching) }.count)
        }
      }
      let withSeries = try await seriesQueries(window(december(9), december(10)))
      #expect(withSeries.titles == ["Weekly"] && withSeries.series == 1)
      let without = try await seriesQueries(window(december(20), december(21)))
      #expect(without.titles == ["Dentist"] && without.series == 0)
    }
  }

  @Test("a limit ends the window after that many", arguments: StoreKind.allCases)
  func limit(kind: StoreKind) async throws {
    try await withStore(kind) { dao in
      _ = try await endlessDaily(dao)
      let listed = try await dao.appointments(matching: AppointmentQuery(range: days(100_000), limit: 5))
      #expect(listed.map(\.start) == (0..<5).map { december(1 + $0, 9) })
    }
  }
}

/// A value closures on another actor can change.
final class Shared<Value: Sendable>: Sendable {
  private let lock: Locked<Value>
  init(_ value: Value) { lock = Locked(value) }
  func withLock<R: Sendable>(_ body: (inout Value) -> R) -> R { lock.withLock { body(&$0) } }
}

/// A connection that counts the rows its `stream` cursors have handed out, and keeps the SQL
/// of each `query`.
final class CountingConnection: Connection {
  let base: any Connection
  private(set) var rowsRead = 0
  private(set) var queried: [String] = []

  init(_ base: any Connection) { self.base = base }

  var path: String { base.path }
  var isInTransaction: Bool { base.isInTransaction }
  func execute(_ sql: String) throws(StoreError) { try base.execute(sql) }
  func query(_ sql: String, _ bindings: [SQLValue], row: (Row) throws(StoreError) -> Void) throws(StoreError) {
    queried.append(sql)
    try base.query(sql, bindings, row: row)
  }
  func run(_ sql: String, _ bindings: [SQLValue]) throws(StoreError) -> Int { try base.run(sql, bindings) }
  func stream(_ sql: String, _ bindings: [SQLValue], batch: Int, row: (Row) throws(StoreError) -> Bool)
    throws(StoreError)
  {
    try base.stream(sql, bindings, batch: batch) { value throws(StoreError) in
      rowsRead += 1
      return try row(value)
    }
  }
}
