/// A set of small integers (0...63) in one word: a rule's months, weekdays, hours, minutes
/// and seconds. Iterates in ascending order, so it is also the sorted, unique list of them.
/// An expansion set up with arrays of flags allocated a dozen arrays per series, which a
/// `list` of a week at 1M did 675 times.
struct SmallSet: Sequence, Equatable {
  private(set) var bits: UInt64 = 0

  init() {}

  /// The values of `values` below 64; `values` above 63 or below 0 are left out.
  init(_ values: some Sequence<Int>) {
    for value in values { insert(value) }
  }

  /// `value` alone.
  init(single value: Int) {
    insert(value)
  }

  /// Every value in `range`, which lies in 0...62.
  init(all range: ClosedRange<Int>) {
    precondition(range.lowerBound >= 0 && range.upperBound < 63, "SmallSet(all:) holds 0...62")
    let upTo: UInt64 = (1 << UInt64(range.upperBound + 1)) - 1
    let below: UInt64 = (1 << UInt64(range.lowerBound)) - 1
    bits = upTo & ~below
  }

  var isEmpty: Bool { bits == 0 }

  func contains(_ value: Int) -> Bool {
    value >= 0 && value < 64 && bits & (1 << UInt64(value)) != 0
  }

  mutating func insert(_ value: Int) {
    if value >= 0 && value < 64 { bits |= 1 << UInt64(value) }
  }

  func makeIterator() -> Iterator { Iterator(rest: bits) }

  struct Iterator: IteratorProtocol {
    var rest: UInt64

    mutating func next() -> Int? {
      guard rest != 0 else { return nil }
      let value = rest.trailingZeroBitCount
      rest &= rest - 1
      return value
    }
  }
}
