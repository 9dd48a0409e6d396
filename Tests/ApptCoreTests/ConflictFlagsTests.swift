import ApptCore
import ApptTestSupport
import Foundation
import Testing

/// The agenda's conflict marks (`Conflicts.flags`): a row is marked when it is scheduled and
/// overlaps another scheduled row, which is what comparing every pair says.
@Suite struct ConflictFlagsTests {
  /// Every pair compared: the definition the two passes must agree with.
  func pairwise(_ items: [Appointment]) -> [Bool] {
    items.indices.map { i in
      !items[i].isCancelled
        && items.indices.contains { j in
          j != i && !items[j].isCancelled && items[j].start < items[i].end && items[i].start < items[j].end
        }
    }
  }

  @Test func twoPassesMarkWhatEveryPairSays() {
    var random = SplitMix64(seed: 7)
    let day = TestClock.date(2026, 12, 1)
    for round in 0..<300 {
      let items = (0..<Int.random(in: 0...14, using: &random)).map { index in
        TestStore.appointment(
          "Item \(index)",
          day.addingTimeInterval(Double(Int.random(in: 0..<24, using: &random)) * 1_800),
          minutes: [15, 30, 60, 240][Int.random(in: 0..<4, using: &random)],
          status: Int.random(in: 0..<5, using: &random) == 0 ? .cancelled : .scheduled
        )
      }
      // In order of start (as a day comes) and shuffled (as a filtered list may).
      let sorted = items.sorted { $0.start < $1.start }
      #expect(Conflicts.flags(sorted) == pairwise(sorted), "round \(round), sorted")
      let shuffled = items.shuffled(using: &random)
      #expect(Conflicts.flags(shuffled) == pairwise(shuffled), "round \(round), shuffled")
    }
  }

  @Test func aCancelledOneNeitherMarksNorIsMarked() {
    let day = TestClock.date(2026, 12, 1, 9)
    let items = [
      TestStore.appointment("Dentist", day),
      TestStore.appointment("Call", day.addingTimeInterval(1_800), status: .cancelled),
      TestStore.appointment("Lunch", day.addingTimeInterval(3 * 3_600)),
    ]
    #expect(Conflicts.flags(items) == [false, false, false])
  }
}
