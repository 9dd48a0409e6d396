import ApptCore
import Foundation
import Testing

@testable import ApptStore

/// Decoding a row takes shortcuts on the common path (stored ids, rule texts seen before);
/// they must read exactly what the general readers read, and refuse what those refuse.
@Suite struct RowDecodingTests {
  @Test("stored ids read as AppointmentID(string:) reads them, whatever the text")
  func storedIDs() {
    let id = AppointmentID()
    let texts = [
      id.description, id.description.uppercased(), "{\(id.description)}", String(id.description.dropLast()),
      id.description.replacingOccurrences(of: "-", with: "g"), String(id.description.dropLast(2)) + "é",
      "00000000-0000-0000-0000-000000000000", "ffffffff-ffff-ffff-ffff-ffffffffffff", "", "not an id",
      String(id.description.prefix(8)) + "x" + String(id.description.dropFirst(9)),
    ]
    for text in texts {
      #expect(StoredID.parse(text) == AppointmentID(string: text), "\(text)")
    }
    #expect(StoredID.parse(id.description) == id)
  }

  @Test("cached rule texts give what parsing gives, and a bad text fails every time")
  func ruleTexts() throws {
    let texts = [
      "FREQ=WEEKLY;BYDAY=MO,WE", "FREQ=MONTHLY;BYDAY=-1FR;UNTIL=20271231T235959Z", "FREQ=DAILY;COUNT=3\nFREQ=YEARLY",
    ]
    for text in texts {
      let expected = try Recurrence(rrule: text).rules
      #expect(try RuleTextCache.rules(text) == expected)
      #expect(try RuleTextCache.rules(text) == expected, "the cached answer")
    }
    for _ in 0..<2 {
      #expect(throws: CommandError.self) { try RuleTextCache.rules("FREQ=WEEKLY;BYDAY=XX") }
    }
    // Past the bound it starts over, still right.
    for count in 1...(RuleTextCache.capacity + 10) {
      #expect(try RuleTextCache.rules("FREQ=DAILY;COUNT=\(count)").first?.count == count)
    }
  }

  @Test("canonical RRULE text and the same rule spelled loosely read alike")
  func looseSpelling() throws {
    let canonical = try Recurrence(rrule: "FREQ=MONTHLY;UNTIL=20271231;BYDAY=2TU;WKST=SU").rules
    let loose = try Recurrence(rrule: " rrule:freq=monthly; until = 20271231 ;byday=2tu;wkst=su ").rules
    #expect(canonical == loose)
    #expect(throws: CommandError.self) { try Recurrence(rrule: "FREQ=WEEKLY;FREQ=DAILY") }
  }
}
