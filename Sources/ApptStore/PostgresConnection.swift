// Placeholder until the libpq connection lands (issue 8).

/// One row of a PostgreSQL result.
struct PostgresRow {
  func int64(at index: Int32) -> Int64 { 0 }
  func string(at index: Int32) -> String { "" }
  func isNull(at index: Int32) -> Bool { true }
  func value(at index: Int32) -> SQLValue { .null }
}
