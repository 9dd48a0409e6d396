// Placeholder until the libpq connection lands (issue 8).

/// One row of a PostgreSQL result.
struct PostgresRow {
  func int64(at index: Int32) -> Int64 { 0 }
  func string(at index: Int32) -> String { "" }
  func isNull(at index: Int32) -> Bool { true }
  func value(at index: Int32) -> SQLValue { .null }
}

public struct PostgresNotification: Sendable, Equatable {
  public var channel: String
  public var payload: String
  public var pid: Int32
}

public final class PostgresConnection: Connection {
  public let path: String
  init(url: String) throws(StoreError) { throw .cannotConnect(server: Self.displayName(of: url), reason: "soon") }
  static func displayName(of url: String) -> String { "PostgreSQL" }
  public var isInTransaction: Bool { false }
  public func execute(_ sql: String) throws(StoreError) {}
  public func query(_ sql: String, _ bindings: [SQLValue], row: (Row) throws(StoreError) -> Void) throws(StoreError) {}
  public func run(_ sql: String, _ bindings: [SQLValue]) throws(StoreError) -> Int { 0 }
  var backendPID: Int32 { 0 }
  var isBroken: Bool { true }
  func takeNotifications() throws(StoreError) -> [PostgresNotification] { [] }
}
