import Testing

@testable import ApptCore

/// `LineDiff`: both texts' lines in order, each marked as `diff -u` marks it.
@Suite("Line diff")
struct LineDiffTests {
  func shown(_ old: [String], _ new: [String]) -> [String] {
    LineDiff.compare(old, new).map { String($0.mark.rawValue) + $0.line }
  }

  @Test func changedLinesAreRemovedThenAdded() {
    #expect(
      shown(
        ["BEGIN:VEVENT", "SUMMARY:Mine", "DTSTART:1", "END:VEVENT"],
        ["BEGIN:VEVENT", "SUMMARY:Theirs", "DTSTART:1", "END:VEVENT"]
      )
        == [" BEGIN:VEVENT", "-SUMMARY:Mine", "+SUMMARY:Theirs", " DTSTART:1", " END:VEVENT"]
    )
  }

  @Test func linesOnlyOnOneSide() {
    #expect(shown(["a", "b", "c"], ["a", "c", "d"]) == [" a", "-b", " c", "+d"])
    #expect(shown([], ["a"]) == ["+a"])
    #expect(shown(["a"], []) == ["-a"])
    #expect(shown(["a", "b"], ["a", "b"]) == [" a", " b"])
  }

  /// Every line of both comes out once, in order: the old ones are the ` ` and `-` lines, the
  /// new ones the ` ` and `+` lines (on random texts of a few letters).
  @Test func everyLineOfBothInOrder() {
    var generator = SystemRandomNumberGenerator()
    for _ in 0..<200 {
      let old = (0..<Int.random(in: 0...8, using: &generator)).map { _ in
        String("abc".randomElement(using: &generator)!)
      }
      let new = (0..<Int.random(in: 0...8, using: &generator)).map { _ in
        String("abc".randomElement(using: &generator)!)
      }
      let diff = LineDiff.compare(old, new)
      #expect(diff.filter { $0.mark != .added }.map(\.line) == old)
      #expect(diff.filter { $0.mark != .removed }.map(\.line) == new)
    }
  }
}
