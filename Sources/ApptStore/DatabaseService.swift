/// Generic CRUD and observation for any `Persistable` type (the seed's `DatabaseService`).
public final class DatabaseService: Sendable {
  public let database: AsyncDatabase

  public init(database: AsyncDatabase) {
    self.database = database
  }
}

/// A query over one persistable type: an SQL condition, its bindings, an order and a limit.
/// `prepare` runs first in the same transaction, for bindings that depend on the data.
public struct DatabaseQuery<Model: Persistable>: Sendable {
  public var condition: String
  public var bindings: [SQLValue]
  public var order: String
  public var limit: Int?

  public init(where condition: String = "TRUE", bindings: [SQLValue] = [], order: String, limit: Int? = nil) {
    self.condition = condition
    self.bindings = bindings
    self.order = order
    self.limit = limit
  }

  var sql: String { sql(select: Model.table.selectSQL) }

  /// The query reading only `columns` (a comma-separated list) of each row.
  func sql(selecting columns: String) -> String { sql(select: "SELECT \(columns) FROM \(Model.table.name)") }

  private func sql(select: String) -> String {
    var sql = "\(select) WHERE \(condition) ORDER BY \(order)"
    if let limit { sql += " LIMIT \(limit)" }
    return sql
  }

  /// Runs the query on `connection`, decoding each row by index.
  public func fetch(_ connection: any Connection) throws(StoreError) -> [Model] {
    var result: [Model] = []
    try connection.query(sql, bindings) { row throws(StoreError) in result.append(try Model(row: row)) }
    return result
  }
}

@DatabaseActor
extension DatabaseService {
  /// Inserts `value`, or replaces the stored row with the same id.
  public func save<Model: Persistable>(_ value: Model) throws(StoreError) {
    try database.write { connection throws(StoreError) in
      try Model.upsert(value, in: connection)
    }
  }

  /// Saves many values in one transaction.
  public func save<Model: Persistable>(all values: [Model]) throws(StoreError) {
    try database.write { connection throws(StoreError) in
      for value in Model.storageOrder(values) { try Model.upsert(value, in: connection) }
    }
  }

  public func find<Model: Persistable>(type: Model.Type, id: Model.ID) throws(StoreError) -> Model? {
    try database.read { connection throws(StoreError) in try Self.find(type, id: id, in: connection) }
  }

  public func findAll<Model: Persistable>(type: Model.Type, order: String? = nil) throws(StoreError) -> [Model] {
    let query = DatabaseQuery<Model>(order: order ?? Model.table.primaryKey)
    return try database.read { connection throws(StoreError) in try query.fetch(connection) }
  }

  public func fetch<Model: Persistable>(_ query: DatabaseQuery<Model>) throws(StoreError) -> [Model] {
    try database.read { connection throws(StoreError) in try query.fetch(connection) }
  }

  /// Deletes the row with `id`; returns whether there was one.
  @discardableResult
  public func delete<Model: Persistable>(type: Model.Type, id: Model.ID) throws(StoreError) -> Bool {
    try database.write { connection throws(StoreError) in
      try connection.run(
        "DELETE FROM \(Model.table.name) WHERE \(Model.table.primaryKey) = ?",
        [Model.databaseValue(of: id)]
      ) > 0
    }
  }

  /// Snapshots of `query`: the current result first, then one after each commit changing it.
  public func observe<Model: Persistable>(_ query: DatabaseQuery<Model>) -> AsyncStream<CollectionSnapshot<Model>> {
    database.observe(tables: [Model.table.name], key: \.id) { connection throws(StoreError) in
      try query.fetch(connection)
    }
  }

  static func find<Model: Persistable>(_ type: Model.Type, id: Model.ID, in connection: any Connection)
    throws(StoreError)
    -> Model?
  {
    var found: Model?
    try connection.query(
      "\(Model.table.selectSQL) WHERE \(Model.table.primaryKey) = ?",
      [Model.databaseValue(of: id)]
    ) { row throws(StoreError) in found = try Model(row: row) }
    return found
  }
}
