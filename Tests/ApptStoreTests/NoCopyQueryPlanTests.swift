import ApptCore
import Foundation
import Testing

@testable import ApptStore

/// Every add asks whether the calendar holds another copy of the event: both of its probes
/// must be index lookups on both engines. A scan there reads the whole table on each add and,
/// on PostgreSQL, takes a predicate lock on all of it, so that concurrent adds fail each other
/// as serialization conflicts.
@Suite struct NoCopyQueryPlanTests {
  /// `sql` with `values` written in place of its `?`s, in order.
  static func inlined(_ sql: String, _ values: [String]) -> String {
    var sql = sql
    for value in values {
      sql = sql.replacingOccurrences(of: "?", with: value, options: [], range: sql.range(of: "?"))
    }
    return sql
  }

  static func plan(_ sql: String, on dao: AppointmentDAO, kind: StoreKind) async throws -> String {
    try await dao.database.read { connection throws(StoreError) in
      var lines: [String] = []
      if kind == .postgres {
        // An empty table is cheapest to scan: ask for the plan an index would give.
        _ = try connection.run("SET enable_seqscan = off", [])
        try connection.query("EXPLAIN " + sql, []) { row throws(StoreError) in lines.append(row.string(at: 0)) }
        _ = try connection.run("RESET enable_seqscan", [])
      } else {
        try connection.query("EXPLAIN QUERY PLAN " + sql, []) { row throws(StoreError) in
          lines.append(row.string(at: 3))
        }
      }
      return lines.joined(separator: "\n")
    }
  }

  static func expectNoScan(_ plan: String, sourceLocation: SourceLocation = #_sourceLocation) {
    #expect(!plan.contains("SCAN appointment"), "\(plan)", sourceLocation: sourceLocation)
    #expect(!plan.contains("Seq Scan"), "\(plan)", sourceLocation: sourceLocation)
  }

  @Test("a copy is looked up by uid through appointment_by_uid", arguments: StoreKind.allCases)
  func copyByUIDUsesTheUIDIndex(kind: StoreKind) async throws {
    try await withStore(kind) { dao in
      let sql = Self.inlined(await AppointmentDAO.copyByUID, ["'a@example.com'", "-1", "'personal'", "'x'"])
      let plan = try await Self.plan(sql, on: dao, kind: kind)
      #expect(plan.contains("appointment_by_uid"), "\(plan)")
      Self.expectNoScan(plan)
    }
  }

  @Test("a copy of an event appt made is looked up by id and series, not by a scan", arguments: StoreKind.allCases)
  func copyByOwnIDUsesKeys(kind: StoreKind) async throws {
    try await withStore(kind) { dao in
      let own = "'0198a2b4-0000-7000-8000-000000000001'"
      let sql = Self.inlined(await AppointmentDAO.copyByOwnID, [own, own, own, "-1", "'personal'", "'x'"])
      let plan = try await Self.plan(sql, on: dao, kind: kind)
      #expect(plan.contains("appointment_by_series"), "\(plan)")
      Self.expectNoScan(plan)
    }
  }
}
