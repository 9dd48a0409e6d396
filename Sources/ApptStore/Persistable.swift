/// A value type the generic layer can store: what RealmSwiftMacro's `@GenCrud` generated per
/// model, done once with a protocol (swift-syntax macros cannot be fetched here).
///
/// Rows are decoded by column index in `table.columns` order: no per-row dictionaries.
public protocol Persistable: Sendable, Identifiable, Equatable where ID: Sendable {
  static var table: TableDescription { get }
  /// The primary key as stored.
  static func databaseValue(of id: ID) -> SQLValue
  /// Decodes the current row, whose columns are `table.columns` in order.
  init(row: Row) throws(StoreError)
  /// The values of `table.columns`, in order (the primary key first).
  var databaseValues: [SQLValue] { get }
  /// Inserts `value`'s row or replaces the stored one with the same key, with whatever is
  /// derived from it: every write of a row goes through here.
  static func upsert(_ value: Self, in connection: any Connection) throws(StoreError)
  /// `values` in the order a batch is best written in; the result is the same either way.
  /// As given by default.
  static func storageOrder(_ values: [Self]) -> [Self]
}

extension Persistable {
  public static func storageOrder(_ values: [Self]) -> [Self] { values }

  public static func upsert(_ value: Self, in connection: any Connection) throws(StoreError) {
    try connection.run(table.upsertSQL, value.databaseValues)
  }
}

/// A table's name and columns; the first column is the primary key. Builds the CRUD SQL once.
public struct TableDescription: Sendable {
  public let name: String
  /// Every column a write sets: the read ones, then the derived ones.
  public let columns: [String]
  /// The columns a row is read from (`init(row:)`), in order.
  public let readColumns: [String]

  /// `derived` columns are written with each row (after `columns`) but never read back: a
  /// query selects only `columns`, so it also works on a table from before they existed (as a
  /// migration step that reads rows finds it).
  public init(name: String, columns: [String], derived: [String] = []) {
    precondition(!columns.isEmpty, "a table needs at least its primary key column")
    let all = columns + derived
    self.name = name
    self.columns = all
    self.readColumns = columns
    // Made once: every query and write of a row uses them, and the statement cache is
    // looked up by the text.
    columnList = all.joined(separator: ", ")
    selectSQL = "SELECT \(columns.joined(separator: ", ")) FROM \(name)"
    let placeholders = Array(repeating: "?", count: all.count).joined(separator: ", ")
    let updates = all.dropFirst().map { "\($0) = excluded.\($0)" }.joined(separator: ", ")
    upsertSQL =
      "INSERT INTO \(name) (\(columnList)) VALUES (\(placeholders)) ON CONFLICT (\(all[0])) DO UPDATE SET \(updates)"
  }

  public var primaryKey: String { columns[0] }
  public let columnList: String

  public let selectSQL: String

  /// Insert, or update every column of the row with the same key (`save` is an upsert).
  public let upsertSQL: String
}
