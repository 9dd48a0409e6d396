import ApptCore
import Foundation
import Testing

@testable import ApptStore

/// The window query's series part must be answered by `appointment_series` on both engines,
/// and the index must hold `series_end_ms`: the series that started before a window but ended
/// before it (most of a calendar's series, in time) are then passed over in the index, without
/// reading their rows (on the calendar-model benchmark, 18,000 of the 24,000 series a week's
/// query met were read only to be dropped).
@Suite struct WindowQueryPlanTests {
  /// `AppointmentDAO.seriesReaching` with a week's bounds written in, as the DAO binds them
  /// (the window's end, then its start).
  static let condition = AppointmentDAO.seriesReaching
    .replacingOccurrences(of: "start_ms < ?", with: "start_ms < 1781049600000")
    .replacingOccurrences(of: "series_end_ms > ?", with: "series_end_ms > 1780444800000")

  static func plan(_ sql: String, on dao: AppointmentDAO, kind: StoreKind) async throws -> String {
    try await dao.database.read { connection throws(StoreError) in
      var lines: [String] = []
      if kind == .postgres {
        // An empty table is cheapest to scan: ask for the plan an index would give.
        _ = try connection.run("SET enable_seqscan = off", [])
        _ = try connection.run("SET enable_bitmapscan = off", [])
        try connection.query("EXPLAIN " + sql, []) { row throws(StoreError) in lines.append(row.string(at: 0)) }
        _ = try connection.run("RESET enable_seqscan", [])
        _ = try connection.run("RESET enable_bitmapscan", [])
      } else {
        try connection.query("EXPLAIN QUERY PLAN " + sql, []) { row throws(StoreError) in
          lines.append(row.string(at: 3))
        }
      }
      return lines.joined(separator: "\n")
    }
  }

  @Test("the window's series query uses appointment_series, and no table scan", arguments: StoreKind.allCases)
  func seriesQueryUsesTheIndex(kind: StoreKind) async throws {
    try await withStore(kind) { dao in
      let sql =
        "SELECT \(Appointment.table.columnList) FROM appointment WHERE \(Self.condition) AND status = 'scheduled'"
      let plan = try await Self.plan(sql, on: dao, kind: kind)
      #expect(plan.contains("appointment_series"), "\(plan)")
      #expect(!plan.contains("SCAN appointment") && !plan.contains("Seq Scan"), "\(plan)")
    }
  }

  @Test("the series listed in a window's weeks are found through appointment_series, not one id at a time")
  func seriesWeeksQueryUsesTheSeriesIndex() async throws {
    try await withStore(.file) { dao in
      let weeks = SeriesWeeks.condition(from: 1_780_444_800_000, to: 1_781_049_600_000)
      var condition = weeks.sql
      for case .integer(let value) in weeks.bindings {
        condition = condition.replacingOccurrences(
          of: "?",
          with: String(value),
          options: [],
          range: condition.range(of: "?")
        )
      }
      let plan = try await Self.plan(
        "SELECT \(Appointment.table.columnList) FROM appointment WHERE \(Self.condition) AND \(condition)",
        on: dao,
        kind: .file
      )
      #expect(plan.contains("SEARCH appointment USING INDEX appointment_series"), "\(plan)")
      #expect(!plan.contains("sqlite_autoindex_appointment_1"), "\(plan)")
    }
  }

  @Test("the series a window reads come in the index's order: SQLite sorts none of their rows")
  func seriesRowsAreNotSorted() async throws {
    try await withStore(.file) { dao in
      let week = DateInterval(start: Date(millisecondsSince1970: 1_780_444_800_000), duration: 7 * 86_400)
      let query = await SeriesSlices.query(
        range: week,
        bounds: (1_780_444_800_000 - 86_400_000, 1_781_049_600_000),
        conditions: ["status = 'scheduled'"],
        bindings: []
      )
      let plan = try await dao.database.read { connection throws(StoreError) in
        var lines: [String] = []
        try connection.query("EXPLAIN QUERY PLAN " + query.sql, query.bindings) { row throws(StoreError) in
          lines.append(row.string(at: 3))
        }
        return lines.joined(separator: "\n")
      }
      #expect(plan.contains("SEARCH appointment USING INDEX appointment_series"), "\(plan)")
      #expect(!plan.contains("TEMP B-TREE"), "\(plan)")
    }
  }

  @Test("a list's one-offs are read from appointment_window alone, not a row each", arguments: StoreKind.allCases)
  func oneOffLinesComeFromTheWindowIndex(kind: StoreKind) async throws {
    try await withStore(kind) { dao in
      let week = (from: Int64(1_780_444_800_000), to: Int64(1_781_049_600_000))
      let lines = await AppointmentDAO.oneOffs(
        from: week.from - 86_400_000,
        to: week.to,
        endingAfter: week.from,
        conditions: ["status = 'scheduled'", AppointmentDAO.seriesNotCancelled],
        bindings: [],
        limit: nil,
        lineOnly: true
      )
      var sql = lines.sql
      for case .integer(let value) in lines.bindings {
        sql = sql.replacingOccurrences(of: "?", with: String(value), options: [], range: sql.range(of: "?"))
      }
      let plan = try await Self.plan(sql, on: dao, kind: kind)
      if kind == .postgres {
        #expect(plan.contains("Index Only Scan using appointment_window"), "\(plan)")
      } else {
        // Every column the query names is in the index (a column added to `lineColumns`
        // must be added to it too), and the start order needs no sort.
        #expect(plan.contains("SEARCH appointment USING COVERING INDEX appointment_window"), "\(plan)")
        #expect(!plan.contains("TEMP B-TREE"), "\(plan)")
        // Whole rows come through the narrower start index, with a row read for each entry
        // either way.
        let rows = await AppointmentDAO.oneOffs(
          from: week.from - 86_400_000,
          to: week.to,
          endingAfter: week.from,
          conditions: ["status = 'scheduled'"],
          bindings: [],
          limit: nil,
          lineOnly: false
        )
        let rowsPlan = try await Self.plan(
          rows.sql.replacingOccurrences(of: "?", with: "0"),
          on: dao,
          kind: kind
        )
        #expect(rowsPlan.contains("SEARCH appointment USING INDEX appointment_by_start"), "\(rowsPlan)")
      }
    }
  }

  @Test("appointment_series holds the series' end beside the start", arguments: StoreKind.allCases)
  func indexHoldsTheSeriesEnd(kind: StoreKind) async throws {
    try await withStore(kind) { dao in
      if kind == .postgres {
        // Only the index is read for the two times: the series' end comes from it.
        let plan = try await Self.plan(
          "SELECT start_ms, series_end_ms FROM appointment WHERE \(Self.condition)",
          on: dao,
          kind: kind
        )
        #expect(plan.contains("Index Only Scan using appointment_series"), "\(plan)")
      } else {
        // SQLite reads an index's columns before it seeks the row (a deferred seek), so a
        // series the index shows ending before the window is dropped without its row.
        let columns = try await dao.database.read { connection throws(StoreError) in
          var names: [String] = []
          try connection.query("PRAGMA index_info(appointment_series)", []) { row throws(StoreError) in
            names.append(row.string(at: 2))
          }
          return names
        }
        #expect(columns == ["start_ms", "series_end_ms", "id"])
      }
    }
  }
}
