import ApptCore

/// A window's contents at one database version, with what changed since the subscriber's
/// previous snapshot (Realm's `RealmCollectionChange`, as values).
public struct CollectionSnapshot<Element: Sendable & Equatable>: Sendable, Equatable {
  public enum Change: Sendable, Equatable {
    /// The first snapshot of a stream.
    case initial
    /// Deletions index the previous snapshot; insertions and modifications index this one.
    case update(ChangeSet)
  }

  public let items: [Element]
  public let change: Change
  /// The `AsyncDatabase.version` this snapshot reflects.
  public let version: UInt64
  /// Its place in the order the database handed snapshots out (to all subscribers), so a
  /// consumer can tell whether it has received everything handed out so far.
  public let sequence: UInt64
  /// True when another client's commit caused it (or the store coming back).
  public let fromOtherProcess: Bool
  /// Set on a stream's final snapshot when the store failed; the items are the last good ones.
  public let failure: StoreError?
  /// Set while the store cannot be reached (a PostgreSQL server restarting): the items are
  /// the last good ones, and a later snapshot, without it, follows when the store is back.
  public let interruption: StoreError?

  public init(
    items: [Element],
    change: Change,
    version: UInt64,
    sequence: UInt64 = 0,
    fromOtherProcess: Bool = false,
    failure: StoreError? = nil,
    interruption: StoreError? = nil
  ) {
    self.interruption = interruption
    self.fromOtherProcess = fromOtherProcess
    self.items = items
    self.change = change
    self.version = version
    self.sequence = sequence
    self.failure = failure
  }
}

/// The snapshots `AppointmentDAO.observeAppointments` publishes.
public typealias AppointmentSnapshot = CollectionSnapshot<Appointment>

/// Index sets describing how one list became another.
public struct ChangeSet: Sendable, Equatable {
  public var deletions: [Int]
  public var insertions: [Int]
  public var modifications: [Int]

  public init(deletions: [Int] = [], insertions: [Int] = [], modifications: [Int] = []) {
    self.deletions = deletions
    self.insertions = insertions
    self.modifications = modifications
  }

  public var isEmpty: Bool { deletions.isEmpty && insertions.isEmpty && modifications.isEmpty }

  /// The id-based diff from `old` to `new`.
  ///
  /// Items are matched by id in one hashing pass. Matched items whose relative order changed
  /// cannot stay in place, so the longest run that kept its order (a longest increasing
  /// subsequence, O(n log n) — still linear in practice for a sorted window) stays and the
  /// rest count as a deletion plus an insertion, as Realm reports moves.
  public static func diff<Element: Identifiable & Equatable>(from old: [Element], to new: [Element]) -> ChangeSet {
    diff(from: old, to: new, key: \.id)
  }

  /// The same diff, matching items by `key` (e.g. an appointment's id and occurrence).
  public static func diff<Element: Equatable, Key: Hashable>(
    from old: [Element],
    to new: [Element],
    key: (Element) -> Key
  ) -> ChangeSet {
    // The items equal at both ends stay where they are: only the middle is matched, so a
    // write of one row into a window of a thousand hashes a few items, not all of them.
    // (The result is the same: those items precede, or follow, every other in both.)
    var prefix = 0
    while prefix < old.count, prefix < new.count, old[prefix] == new[prefix] { prefix += 1 }
    var suffix = 0
    while suffix < old.count - prefix, suffix < new.count - prefix,
      old[old.count - 1 - suffix] == new[new.count - 1 - suffix]
    {
      suffix += 1
    }
    let oldMiddle = old[prefix..<(old.count - suffix)]
    let newMiddle = new[prefix..<(new.count - suffix)]

    var newIndex: [Key: Int] = [:]
    newIndex.reserveCapacity(newMiddle.count)
    for index in newMiddle.indices { newIndex[key(new[index])] = index }

    var deletions: [Int] = []
    var matched: [(old: Int, new: Int)] = []
    for index in oldMiddle.indices {
      if let target = newIndex[key(old[index])] { matched.append((index, target)) } else { deletions.append(index) }
    }

    let kept = longestIncreasingRun(matched.map(\.new))
    var keptNew = Array(repeating: false, count: new.count)
    for index in new.indices where !newMiddle.indices.contains(index) { keptNew[index] = true }
    var modifications: [Int] = []
    for (position, pair) in matched.enumerated() {
      if kept[position] {
        keptNew[pair.new] = true
        if old[pair.old] != new[pair.new] { modifications.append(pair.new) }
      } else {
        deletions.append(pair.old)
      }
    }
    deletions.sort()
    modifications.sort()
    let insertions = newMiddle.indices.filter { !keptNew[$0] }
    return ChangeSet(deletions: deletions, insertions: insertions, modifications: modifications)
  }

  /// Applies the change to `old`, taking inserted and modified items from `new`: the
  /// definition of a correct change set (`apply(to: old, from: new) == new`).
  public func apply<Element>(to old: [Element], from new: [Element]) -> [Element] {
    var result = old
    for index in deletions.reversed() { result.remove(at: index) }
    for index in insertions { result.insert(new[index], at: index) }
    for index in modifications { result[index] = new[index] }
    return result
  }

  /// Marks the members of one longest strictly increasing subsequence (patience sorting).
  private static func longestIncreasingRun(_ values: [Int]) -> [Bool] {
    var tails: [Int] = []  // index into values of the smallest tail of each length
    var previous = Array(repeating: -1, count: values.count)
    for (index, value) in values.enumerated() {
      var low = 0
      var high = tails.count
      while low < high {
        let mid = (low + high) / 2
        if values[tails[mid]] < value { low = mid + 1 } else { high = mid }
      }
      if low > 0 { previous[index] = tails[low - 1] }
      if low == tails.count { tails.append(index) } else { tails[low] = index }
    }
    var member = Array(repeating: false, count: values.count)
    var cursor = tails.last ?? -1
    while cursor >= 0 {
      member[cursor] = true
      cursor = previous[cursor]
    }
    return member
  }
}
