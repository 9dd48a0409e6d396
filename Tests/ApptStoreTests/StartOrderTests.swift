import ApptCore
import ApptTestSupport
import Foundation
import Testing

@testable import ApptStore

/// SQLite keeps the appointment rows in the order of their start (schema 6, StartOrder.swift),
/// whatever order they were written in, so a window's rows are neighbours in the file.
@Suite struct StartOrderTests {
  func oneOff(_ title: String, at start: Date) -> Appointment {
    Appointment(title: title, start: start, end: start.addingTimeInterval(1800), created: TestClock.now, revision: 1)
  }

  /// The titles in rowid order (the file's order).
  func stored(_ dao: AppointmentDAO) async throws -> [String] {
    try await dao.database.read { connection throws(StoreError) in
      var titles: [String] = []
      try connection.query("SELECT title FROM appointment ORDER BY rowid", []) { row throws(StoreError) in
        titles.append(row.string(at: 0))
      }
      return titles
    }
  }

  @Test("rows written in any order are stored in start order, and a moved one moves")
  func rowsAreKeptInStartOrder() async throws {
    try await withStore(.file) { dao in
      let hours = [5, 1, 4, 2, 3]
      for hour in hours { _ = try await dao.saveAppointment(oneOff("h\(hour)", at: december(7, hour))) }
      // The generic layer's batch save takes the same door.
      try await dao.service.save(all: [oneOff("h0", at: december(7, 0)), oneOff("h6", at: december(7, 6))])
      #expect(try await stored(dao) == ["h0", "h1", "h2", "h3", "h4", "h5", "h6"])
      let all = try await dao.getAllAppointments()
      var first = try #require(all.first { $0.title == "h1" })
      first.start = december(7, 5, 30)
      first.end = december(7, 6)
      _ = try await dao.saveAppointment(first)
      #expect(try await stored(dao) == ["h0", "h2", "h3", "h4", "h5", "h1", "h6"])
      // An edit that keeps the start keeps the row where it is.
      var third = try #require(all.first { $0.title == "h3" })
      third.note = "changed"
      _ = try await dao.saveAppointment(third)
      #expect(try await stored(dao) == ["h0", "h2", "h3", "h4", "h5", "h1", "h6"])
      #expect(try await dao.getAppointment(id: third.id).note == "changed")
      // Series are kept after every one-off, in start order among themselves; a one-off that
      // becomes a series moves there.
      var series = try #require(all.first { $0.title == "h4" })
      series.recurrence = Recurrence(frequency: .daily, count: 3)
      _ = try await dao.saveAppointment(series)
      _ = try await dao.saveAppointment(
        Appointment(
          title: "s0",
          start: december(6, 9),
          end: december(6, 10),
          created: TestClock.now,
          recurrence: Recurrence(frequency: .weekly, count: 2)
        )
      )
      #expect(try await stored(dao) == ["h0", "h2", "h3", "h5", "h1", "h6", "s0", "h4"])
      #expect(try await dao.database.integrityCheck() == ["ok"])
    }
  }

  @Test("a batch is written in start order, and an id given twice keeps its later copy")
  func batchesAreWrittenInStartOrder() async throws {
    let shuffled = (0..<200).map {
      oneOff("r\($0)", at: december(7).addingTimeInterval(Double(($0 * 7919) % 200) * 600))
    }
    let ordered = Appointment.storageOrder(shuffled)
    #expect(ordered.map(\.start) == shuffled.map(\.start).sorted())
    var later = shuffled[0]
    later.title = "later copy"
    later.start = december(6)
    later.end = december(6, 1)
    let twice = [shuffled[0], later]
    #expect(Appointment.storageOrder(twice).map(\.title) == ["r0", "later copy"], "as given")
    try await withStore(.memory) { dao in
      try await dao.service.save(all: twice)
      #expect(try await dao.getAppointment(id: later.id).title == "later copy")
    }
  }

  @Test("an import's batch is sorted as its rows are kept: one-offs by start, then series, ties as read")
  func storageOrderSortsABatchAsRowsAreKept() throws {
    let daily = Recurrence(rules: [try RecurrenceRule(parsing: "FREQ=DAILY")])
    let titles = ["c", "series", "a", "b", "a again", "early series"]
    let starts = [december(9), december(7, 1), december(8), december(8, 12), december(8), december(6)]
    let items = zip(titles, starts).enumerated().map { ordinal, pair in
      var appointment = oneOff(pair.0, at: pair.1)
      if pair.0.hasSuffix("series") { appointment.recurrence = daily }
      return ICalendar.ImportItem(appointment: appointment, ordinal: ordinal)
    }
    let order = ImportBatches.storageOrder(Array(items.indices), of: items)
    #expect(order.map { items[$0].appointment.title } == ["a", "a again", "b", "c", "early series", "series"])
  }

  @Test("more rows than a millisecond has slots are all stored, the rest after the last")
  func aFullMillisecondOverflows() async throws {
    try await withStore(.memory) { dao in
      let start = december(8, 9)
      let many = (0..<(Int(StartOrder.slots) + 3)).map { oneOff("same \($0)", at: start) }
      try await dao.service.save(all: many + [oneOff("later", at: december(8, 10))])
      let listed = try await dao.appointments(matching: AppointmentQuery(range: window(december(8), december(9))))
      #expect(listed.count == many.count + 1)
      #expect(Set(listed.map(\.id)) == Set(many.map(\.id) + listed.filter { $0.title == "later" }.map(\.id)))
      // Saving one of them again finds its own row: no second copy.
      var again = many[0]
      again.note = "again"
      _ = try await dao.saveAppointment(again)
      #expect(try await dao.getAllAppointments().count == many.count + 1)
    }
  }
}

/// The rebuild of schema 6 frees the old table's pages; the migration gives them back.
@Suite struct StartOrderMigrationTests {
  @Test("migrating a store to start order leaves no quarter of the file free")
  func migrationReclaimsTheFreedPages() async throws {
    try await withSharedStore(.file) { store in
      let before = store.dao(migrations: Array(Schema.migrations.prefix(5)))
      // 3,000 rows with a 1 kB note, written in reverse order of start: about 1,000 pages.
      try await before.database.write { connection throws(StoreError) in
        try connection.execute(
          """
          WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 3000)
          INSERT INTO appointment (id, title, start_ms, end_ms, note, created_ms, updated_ms)
          SELECT printf('%08x-0000-4000-8000-%012x', i, i), 'row ' || i, (3001 - i) * 3600000,
            (3001 - i) * 3600000 + 1800000, printf('%.1000c', 'x'), 0, 0 FROM n
          """
        )
      }
      await before.database.close()
      let after = store.dao()
      let (pages, free, unordered) = try await after.database.read { connection throws(StoreError) in
        (
          try connection.scalar("PRAGMA page_count")?.int64 ?? 0,
          try connection.scalar("PRAGMA freelist_count")?.int64 ?? 0,
          try connection.scalar(
            "SELECT count(*) FROM (SELECT start_ms, lag(start_ms) OVER (ORDER BY rowid) AS p FROM appointment) WHERE start_ms < p"
          )?.int64
        )
      }
      #expect(pages > 900, "the store is as big as its rows")
      #expect(free * 4 <= pages, "\(free) of \(pages) pages free")
      #expect(unordered == 0)
      #expect(try await after.getAllAppointments().count == 3000)
    }
  }
}
