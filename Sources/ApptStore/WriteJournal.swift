/// The rows a write transaction noted it wrote, by table and primary key: what lets an
/// observer patch its last result with those rows instead of running its query again.
///
/// A note is a claim, never trusted alone: `AsyncDatabase.write` holds it against the row
/// changes the engine itself counted (`CommittedChanges`), and only a table whose every
/// change was noted, each row once, is passed on as exact. A write that notes nothing, or
/// too much, costs its observers a query, never a wrong result.
///
/// Not `Sendable`: like the connection that holds it, it lives on `DatabaseActor`.
public final class WriteJournal {
  /// More rows than this in one transaction (an import, a sync): observers query again,
  /// which is cheaper than patching that many, and the journal stays small.
  static let capacity = 32

  private var keys: [String: Set<String>] = [:]
  private var count = 0
  private var overflowed = false

  init() {}

  /// `key`'s row of `table` was written (inserted, updated or deleted) by a statement that
  /// changed it: note only after the write, and only a row it really changed.
  public func note(_ table: String, key: String) {
    guard !overflowed else { return }
    count += 1
    guard count <= Self.capacity else {
      overflowed = true
      keys.removeAll()
      return
    }
    keys[table, default: []].insert(key)
  }

  /// The rows noted since the last take, per table, and forgets them; nil when more were
  /// written than it keeps.
  func take() -> [String: Set<String>]? {
    defer { discard() }
    return overflowed ? nil : keys
  }

  /// Forgets what a rolled-back transaction noted.
  func discard() {
    keys.removeAll()
    count = 0
    overflowed = false
  }
}

/// What a committed write changed, as observers are told: the tables, and for the tables
/// where the DAO's notes and the engine's count agree, exactly which rows.
struct ChangedRows: Sendable {
  var tables: Set<String>
  /// Per table: the primary keys of every row the transaction changed, and no other.
  var exact: [String: Set<String>]

  /// The rows changed: `keys` of `table` and nothing else in `tables` (nil when the change
  /// was not all noted, or touched another of `tables`).
  func only(_ table: String, among tables: Set<String>) -> Set<String>? {
    guard self.tables.intersection(tables) == [table] else { return nil }
    return exact[table]
  }

  /// Holds the journal's notes against the engine's count of row changes.
  init(committed: CommittedChanges, noted: [String: Set<String>]?) {
    tables = committed.tables
    exact = [:]
    guard let noted else { return }
    for (table, keys) in noted where committed.rowChanges[table] == keys.count {
      exact[table] = keys
    }
  }
}
