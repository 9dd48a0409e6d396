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
    .replacingOccurrences(of: "series_end_ms >= ?", with: "series_end_ms >= 1780444800000")

  /// SQLite's `plan` reads `index` alone (it holds every column the query names), in the
  /// index's order (no sort).
  static func expectReadAlone(from index: String, _ plan: String, sourceLocation: SourceLocation = #_sourceLocation) {
    #expect(
      plan.contains("SEARCH appointment USING COVERING INDEX \(index)"),
      "\(plan)",
      sourceLocation: sourceLocation
    )
    #expect(!plan.contains("TEMP B-TREE"), "\(plan)", sourceLocation: sourceLocation)
  }

  /// `SeriesSlices.query` for the week of 3 June 2026, its scheduled series.
  @DatabaseActor
  static func weeksSeriesQuery() -> DatabaseQuery<Appointment> {
    SeriesSlices.query(
      range: DateInterval(start: Date(millisecondsSince1970: 1_780_444_800_000), duration: 7 * 86_400),
      bounds: (1_780_444_800_000 - 86_400_000, 1_781_049_600_000),
      conditions: ["status = 'scheduled'"],
      bindings: []
    )
  }

  /// `sql` with its integer bindings written in place of its `?`s, in order.
  static func inlined(_ sql: String, _ bindings: [SQLValue]) -> String {
    var sql = sql
    for case .integer(let value) in bindings {
      sql = sql.replacingOccurrences(of: "?", with: String(value), options: [], range: sql.range(of: "?"))
    }
    return sql
  }

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
      let condition = Self.inlined(weeks.sql, weeks.bindings)
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
      let query = await Self.weeksSeriesQuery()
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

  /// The plan of `AppointmentDAO.oneOffs` for the week of 3 June 2026, bounds written in.
  static func oneOffsPlan(
    on dao: AppointmentDAO,
    kind: StoreKind,
    conditions: [String],
    lineOnly: Bool,
    fromWindowIndex: Bool
  ) async throws -> String {
    let week = (from: Int64(1_780_444_800_000), to: Int64(1_781_049_600_000))
    let query = await AppointmentDAO.oneOffs(
      from: week.from - 86_400_000,
      to: week.to,
      endingAfter: week.from,
      conditions: conditions,
      bindings: [],
      limit: nil,
      lineOnly: lineOnly,
      fromWindowIndex: fromWindowIndex
    )
    return try await plan(inlined(query.sql, query.bindings), on: dao, kind: kind)
  }

  @Test("a list's one-offs are read from appointment_window alone, not a row each", arguments: StoreKind.allCases)
  func oneOffLinesComeFromTheWindowIndex(kind: StoreKind) async throws {
    try await withStore(kind) { dao in
      let conditions = ["status = 'scheduled'", await AppointmentDAO.seriesNotCancelled]
      let lines = try await Self.oneOffsPlan(
        on: dao,
        kind: kind,
        conditions: conditions,
        lineOnly: true,
        fromWindowIndex: true
      )
      if kind == .postgres {
        // Without the title (a btree entry is limited to about 2.7 KB): read from the row.
        #expect(lines.contains("Index Scan using appointment_window"), "\(lines)")
      } else {
        // A column added to `lineColumns` must be added to the index too.
        Self.expectReadAlone(from: "appointment_window", lines)
        // Whole rows, and lines whose conditions name other columns (a search), come through
        // the narrower start index, with a row read for each entry either way.
        let rows = try await Self.oneOffsPlan(
          on: dao,
          kind: kind,
          conditions: conditions,
          lineOnly: false,
          fromWindowIndex: false
        )
        #expect(rows.contains("SEARCH appointment USING INDEX appointment_by_start"), "\(rows)")
        let searched = try await Self.oneOffsPlan(
          on: dao,
          kind: kind,
          conditions: conditions + ["instr(title_folded, 'x') > 0"],
          lineOnly: true,
          fromWindowIndex: false
        )
        #expect(searched.contains("SEARCH appointment USING INDEX appointment_by_start"), "\(searched)")
      }
    }
  }

  @Test(
    "the longest title appt takes, hard to compress, is stored and listed on every engine",
    arguments: StoreKind.allCases
  )
  func longestTitleFitsTheIndexes(kind: StoreKind) async throws {
    // 500 characters, each an ideograph of CJK Extension B and three combining marks, drawn
    // by a fixed LCG: 5,000 bytes no compressor shrinks much (PostgreSQL refuses a btree entry
    // over about 2.7 KB, even compressed).
    var state: UInt32 = 12345
    func next(_ bound: UInt32) -> UInt32 {
      state = state &* 1_103_515_245 &+ 12345
      return (state >> 8) % bound
    }
    var title = ""
    for _ in 0..<AppointmentRules.maximumTitleLength {
      for scalar in [0x20000 + next(0xA6DF), 0x300 + next(0x70), 0x300 + next(0x70), 0x300 + next(0x70)] {
        title.unicodeScalars.append(try #require(Unicode.Scalar(scalar)))
      }
    }
    #expect(title.count == AppointmentRules.maximumTitleLength)
    #expect(title.utf8.count == 5_000)
    try await withStore(kind) { dao in
      try await dao.saveAppointment(appointment(title, from: december(1, 10), to: december(1, 11)))
      let lines = Locked<[Appointment]>([])
      try await dao.streamAppointments(
        matching: AppointmentQuery(range: window(december(1), december(2)), detail: .listLine)
      ) { chunk in
        lines.withLock { $0 += chunk }
        return .more
      }
      #expect(lines.withLock { $0.map(\.title) } == [title])
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
        #expect(Array(columns.prefix(3)) == ["start_ms", "series_end_ms", "id"])
      }
    }
  }

  @Test("a list's series are read from appointment_series alone, not a row each", arguments: StoreKind.allCases)
  func seriesLinesComeFromTheSeriesIndex(kind: StoreKind) async throws {
    try await withStore(kind) { dao in
      let query = await Self.weeksSeriesQuery()
      let sql = Self.inlined(query.sql(selecting: Appointment.seriesLineColumns), query.bindings)
      let lines = try await Self.plan(sql, on: dao, kind: kind)
      if kind == .postgres {
        // The index keeps only its key there (a title or EXDATEs may pass a btree entry's
        // 2.7 KB): the row is read.
        #expect(lines.contains("appointment_series"), "\(lines)")
      } else {
        // A column added to `seriesLineColumns` must be added to the index too.
        Self.expectReadAlone(from: "appointment_series", lines)
        // Whole rows come through the same index, with a row read for each entry.
        let rows = try await Self.plan(
          sql.replacingOccurrences(of: Appointment.seriesLineColumns, with: Appointment.table.columnList),
          on: dao,
          kind: kind
        )
        #expect(rows.contains("SEARCH appointment USING INDEX appointment_series"), "\(rows)")
      }
    }
  }
}
