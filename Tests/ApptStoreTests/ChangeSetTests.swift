import ApptStore
import ApptTestSupport
import Testing

/// A small identifiable value: `id` says which item it is, `value` whether it changed.
private struct Item: Identifiable, Equatable, Sendable, CustomStringConvertible {
  let id: Int
  var value: Int

  init(_ id: Int, _ value: Int = 0) {
    self.id = id
    self.value = value
  }

  var description: String { "\(id):\(value)" }
}

@Suite("ChangeSet")
struct ChangeSetTests {
  // MARK: - Unit cases

  @Test("equal lists give an empty change set")
  func unchanged() {
    let items = [Item(1), Item(2), Item(3)]
    let change = ChangeSet.diff(from: items, to: items)
    #expect(change.isEmpty)
    #expect(change == ChangeSet())
    #expect(ChangeSet.diff(from: [Item](), to: []).isEmpty)
  }

  @Test("pure insertion indexes the new list")
  func pureInsertion() {
    let old = [Item(1), Item(3)]
    let new = [Item(0), Item(1), Item(2), Item(3), Item(4)]
    let change = ChangeSet.diff(from: old, to: new)
    #expect(change == ChangeSet(insertions: [0, 2, 4]))
    #expect(change.apply(to: old, from: new) == new)
    #expect(ChangeSet.diff(from: [], to: new) == ChangeSet(insertions: [0, 1, 2, 3, 4]))
  }

  @Test("pure deletion indexes the old list")
  func pureDeletion() {
    let old = [Item(0), Item(1), Item(2), Item(3), Item(4)]
    let new = [Item(1), Item(3)]
    let change = ChangeSet.diff(from: old, to: new)
    #expect(change == ChangeSet(deletions: [0, 2, 4]))
    #expect(change.apply(to: old, from: new) == new)
    #expect(ChangeSet.diff(from: old, to: []) == ChangeSet(deletions: [0, 1, 2, 3, 4]))
  }

  @Test("a modification is indexed against the new list")
  func modificationIndexesNewList() {
    let old = [Item(1), Item(2), Item(3)]
    let new = [Item(0), Item(1), Item(2, 99), Item(3)]
    let change = ChangeSet.diff(from: old, to: new)
    #expect(change == ChangeSet(insertions: [0], modifications: [2]))
    #expect(change.apply(to: old, from: new) == new)

    let withDeletion = ChangeSet.diff(from: [Item(0), Item(1), Item(2)], to: [Item(2, 5)])
    #expect(withDeletion == ChangeSet(deletions: [0, 1], modifications: [0]))
  }

  @Test("a move is reported as a deletion plus an insertion")
  func moveIsDeletionPlusInsertion() {
    let old = [Item(1), Item(2), Item(3)]
    let new = [Item(3), Item(1), Item(2)]
    let change = ChangeSet.diff(from: old, to: new)
    #expect(change == ChangeSet(deletions: [2], insertions: [0]))
    #expect(change.apply(to: old, from: new) == new)

    // A moved item that also changed is still a deletion plus an insertion, not a modification.
    let movedAndChanged = [Item(2), Item(3), Item(1, 7)]
    let second = ChangeSet.diff(from: old, to: movedAndChanged)
    #expect(second == ChangeSet(deletions: [0], insertions: [2]))
    #expect(second.apply(to: old, from: movedAndChanged) == movedAndChanged)
  }

  @Test("a reversal keeps one item and moves the rest")
  func reversal() {
    let old = (0..<6).map { Item($0) }
    let new = Array(old.reversed())
    let change = ChangeSet.diff(from: old, to: new)
    #expect(change.deletions.count == 5)
    #expect(change.insertions.count == 5)
    #expect(change.modifications.isEmpty)
    #expect(change.apply(to: old, from: new) == new)
  }

  // MARK: - Property

  /// Length of a longest strictly increasing subsequence, by the quadratic textbook method: an
  /// independent check that the diff moves no more items than it must.
  private static func referenceLIS(_ values: [Int]) -> Int {
    var best = Array(repeating: 1, count: values.count)
    for i in values.indices {
      for j in 0..<i where values[j] < values[i] { best[i] = max(best[i], best[j] + 1) }
    }
    return best.max() ?? 0
  }

  @Test("diff then apply rebuilds the new list, for 500 random edit sequences")
  func diffApplyProperty() {
    var random = SplitMix64(seed: 0x5EED_0001)
    for run in 0..<500 {
      var nextID = 0
      let count = Int.random(in: 0...12, using: &random)
      let old = (0..<count).map { _ -> Item in
        defer { nextID += 1 }
        return Item(nextID, Int.random(in: 0...2, using: &random))
      }
      var new = old
      for _ in 0..<Int.random(in: 0...8, using: &random) {
        switch Int.random(in: 0..<4, using: &random) {
        case 0:  // insert
          new.insert(
            Item(nextID, Int.random(in: 0...2, using: &random)),
            at: Int.random(in: 0...new.count, using: &random)
          )
          nextID += 1
        case 1 where !new.isEmpty:  // delete
          new.remove(at: Int.random(in: 0..<new.count, using: &random))
        case 2 where !new.isEmpty:  // modify
          new[Int.random(in: 0..<new.count, using: &random)].value += 1
        case 3 where !new.isEmpty:  // move
          let item = new.remove(at: Int.random(in: 0..<new.count, using: &random))
          new.insert(item, at: Int.random(in: 0...new.count, using: &random))
        default:
          break
        }
      }

      let change = ChangeSet.diff(from: old, to: new)
      #expect(change.apply(to: old, from: new) == new, "run \(run): \(old) -> \(new), \(change)")

      // Index sets are sorted, unique and in range; modifications are not also insertions.
      #expect(change.deletions == Array(Set(change.deletions)).sorted(), "run \(run)")
      #expect(change.insertions == Array(Set(change.insertions)).sorted(), "run \(run)")
      #expect(change.modifications == Array(Set(change.modifications)).sorted(), "run \(run)")
      #expect(change.deletions.allSatisfy(old.indices.contains), "run \(run)")
      #expect(change.insertions.allSatisfy(new.indices.contains), "run \(run)")
      #expect(change.modifications.allSatisfy(new.indices.contains), "run \(run)")
      #expect(Set(change.modifications).isDisjoint(with: change.insertions), "run \(run)")
      #expect(old.count - change.deletions.count + change.insertions.count == new.count, "run \(run)")

      // Minimal: only the items outside one longest in-order run are moved.
      let newPosition = Dictionary(uniqueKeysWithValues: new.enumerated().map { ($1.id, $0) })
      let matched = old.compactMap { newPosition[$0.id] }
      let removed = old.count - matched.count
      #expect(change.deletions.count == removed + matched.count - Self.referenceLIS(matched), "run \(run)")

      // A modification is exactly a kept item whose value changed.
      for index in change.modifications {
        let before = old.first { $0.id == new[index].id }
        #expect(before != nil && before != new[index], "run \(run)")
      }
      if old.map(\.id) == new.map(\.id) {
        #expect(change.deletions.isEmpty && change.insertions.isEmpty, "run \(run)")
        #expect(change.modifications == new.indices.filter { old[$0] != new[$0] }, "run \(run)")
      }
    }
  }

  @Test("apply works on sorted windows like the store's (bigger lists)")
  func sortedWindows() {
    var random = SplitMix64(seed: 42)
    for _ in 0..<50 {
      let old = (0..<200).filter { _ in Bool.random(using: &random) }.map { Item($0) }
      var new = (0..<200).filter { _ in Bool.random(using: &random) }.map {
        Item($0, Int.random(in: 0...3, using: &random))
      }
      new.sort { $0.id < $1.id }
      let change = ChangeSet.diff(from: old, to: new)
      #expect(change.apply(to: old, from: new) == new)
      // In a sorted window nothing moves: deletions and insertions are only real ones.
      let oldIDs = Set(old.map(\.id))
      let newIDs = Set(new.map(\.id))
      #expect(change.deletions.count == oldIDs.subtracting(newIDs).count)
      #expect(change.insertions.count == newIDs.subtracting(oldIDs).count)
    }
  }
}
