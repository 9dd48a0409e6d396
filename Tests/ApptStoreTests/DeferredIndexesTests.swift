import ApptCore
import ApptTestSupport
import Foundation
import Testing

@testable import ApptStore

/// `DeferredIndexes`: an import into an empty SQLite table builds the start-keyed indexes
/// after its rows are in. Whatever happens, the schema ends as it began.
@Suite struct DeferredIndexesTests {
  /// The appointment table's indexes on SQLite, by name: their `CREATE INDEX` text.
  func indexes(_ dao: AppointmentDAO) async throws -> [String: String] {
    try await dao.database.read { connection throws(StoreError) in
      var all: [String: String] = [:]
      try connection.query(
        "SELECT name, coalesce(sql, '') FROM sqlite_master WHERE type = 'index' AND tbl_name = 'appointment'",
        []
      ) { row throws(StoreError) in all[row.string(at: 0)] = row.string(at: 1) }
      return all
    }
  }

  func calendar(_ count: Int, broken: Bool = false) -> [UInt8] {
    var lines = ["BEGIN:VCALENDAR", "VERSION:2.0"]
    for day in 1...count {
      lines += [
        "BEGIN:VEVENT", "UID:e\(day)@example.com", "SUMMARY:Event \(day)",
        String(format: "DTSTART:202612%02dT090000Z", day), "DURATION:PT1H", "END:VEVENT",
      ]
    }
    if broken { lines += ["BEGIN:VEVENT", "UID:broken@example.com", "END:VEVENT"] }
    return Array((lines + ["END:VCALENDAR", ""]).joined(separator: "\r\n").utf8)
  }

  @Test(arguments: [StoreKind.memory, .file])
  func anEmptyTableLosesAllButTheLookupsIndexesUntilTheRebuild(kind: StoreKind) async throws {
    try await withStore(kind) { dao in
      let schema = try await indexes(dao)
      #expect(schema.keys.contains("appointment_window") && schema.keys.contains("appointment_by_start"))
      let (during, after) = try await dao.database.write { connection throws(StoreError) in
        guard let deferred = try DeferredIndexes.dropIfEmpty(connection) else {
          throw StoreError.invalidRequest(message: "nothing deferred on an empty table")
        }
        var during: Set<String> = []
        try connection.query("SELECT name FROM sqlite_master WHERE type = 'index' AND tbl_name = 'appointment'", []) {
          row throws(StoreError) in during.insert(row.string(at: 0))
        }
        try deferred.rebuild(connection)
        var after: [String: String] = [:]
        try connection.query(
          "SELECT name, coalesce(sql, '') FROM sqlite_master WHERE type = 'index' AND tbl_name = 'appointment'",
          []
        ) { row throws(StoreError) in after[row.string(at: 0)] = row.string(at: 1) }
        return (during, after)
      }
      let primaryKey = schema.filter { $0.value.isEmpty }.keys
      #expect(during == DeferredIndexes.kept.union(primaryKey), "the import's lookups keep theirs")
      #expect(after == schema)
    }
  }

  @Test(arguments: StoreKind.allCases)
  func aTableWithRowsOrPostgreSQLKeepsEveryIndex(kind: StoreKind) async throws {
    try await withStore(kind) { dao in
      if kind != .postgres {
        _ = try await dao.saveAppointment(TestStore.appointment("Stored", TestClock.date(2026, 12, 20, 9)))
      }
      let deferred = try await dao.database.write { connection throws(StoreError) in
        try DeferredIndexes.dropIfEmpty(connection) != nil
      }
      #expect(!deferred, kind == .postgres ? "a shared database is never left without them" : "a stored row")
    }
  }

  @Test(arguments: [StoreKind.memory, .file])
  func anImportIntoAnEmptyTableEndsWithTheSchemasIndexes(kind: StoreKind) async throws {
    try await withStore(kind) { dao in
      let schema = try await indexes(dao)
      let report = try await dao.importCalendar(
        bytes: calendar(9),
        clock: TestClock.clock,
        partial: false,
        batchSize: 2
      )
      #expect(report.stored && report.added == 9)
      #expect(try await indexes(dao) == schema)
      let december = window(TestClock.date(2026, 12, 1), TestClock.date(2027, 1, 1))
      #expect(try await dao.appointments(matching: AppointmentQuery(range: december)).count == 9)
    }
  }

  @Test(arguments: [StoreKind.memory, .file])
  func parsedEventsImportedIntoAnEmptyTableEndWithTheSchemasIndexes(kind: StoreKind) async throws {
    try await withStore(kind) { dao in
      let schema = try await indexes(dao)
      let read = ICalendar.read(bytes: calendar(5), clock: TestClock.clock)
      let counts = try await dao.importAppointments(read.appointments)
      #expect(counts.added == 5)
      #expect(try await indexes(dao) == schema)
    }
  }

  @Test func aFailedImportIntoAnEmptyTableLeavesItsIndexes() async throws {
    try await withStore(.file) { dao in
      let schema = try await indexes(dao)
      let refused = try await dao.importCalendar(
        bytes: calendar(6, broken: true),
        clock: TestClock.clock,
        partial: false,
        batchSize: 2
      )
      #expect(!refused.stored)
      #expect(try await indexes(dao) == schema, "a refused import rolls the drop back")
      try await dao.database.write { connection throws(StoreError) in
        try connection.execute(
          """
          CREATE TRIGGER refuse_e5 BEFORE INSERT ON appointment WHEN NEW.uid = 'e5@example.com'
          BEGIN SELECT RAISE(ABORT, 'refused'); END
          """
        )
      }
      await #expect(throws: StoreError.self) {
        try await dao.importCalendar(bytes: calendar(6), clock: TestClock.clock, partial: false, batchSize: 2)
      }
      #expect(try await indexes(dao) == schema, "so does a failed one")
      #expect(try await dao.getAllAppointments().isEmpty)
    }
  }
}
