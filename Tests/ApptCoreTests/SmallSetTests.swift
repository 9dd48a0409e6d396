import Testing

@testable import ApptCore

/// The rule expander's sets of months, weekdays and times: membership and ascending order
/// must be what a sorted array of unique values says.
@Suite struct SmallSetTests {
  @Test("iterates its values once each, ascending, whatever the order they came in")
  func ascendingUnique() {
    var generator = SystemRandomNumberGenerator()
    for _ in 0..<200 {
      let count = Int.random(in: 0...40, using: &generator)
      let values = (0..<count).map { _ in Int.random(in: -5...70, using: &generator) }
      let set = SmallSet(values)
      let expected = Array(Set(values.filter { (0..<64).contains($0) })).sorted()
      #expect(Array(set) == expected, "\(values)")
      for value in -5...70 { #expect(set.contains(value) == expected.contains(value)) }
      #expect(set.isEmpty == expected.isEmpty)
    }
  }

  @Test("all: every value of the range and nothing else; single: one value")
  func ranges() {
    for range in [0...6, 1...12, 0...23, 0...59, 5...5, 0...62] {
      #expect(Array(SmallSet(all: range)) == Array(range), "\(range)")
    }
    #expect(Array(SmallSet(single: 59)) == [59])
    #expect(Array(SmallSet(single: 0)) == [0])
    #expect(SmallSet().isEmpty)
  }
}
