import ApptCore
import ApptTestSupport
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

  @Test("every digit of a stored id counts: any stray byte in any place reads as AppointmentID(string:) reads it")
  func storedIDDigits() {
    for _ in 0..<64 {
      let id = AppointmentID()
      #expect(StoredID.parse(id.description) == id)
    }
    let text = Array(AppointmentID().description.utf8)
    // Bytes just outside each digit range, and upper case (which only the general reader takes).
    let strays: [UInt8] = Array("/:`g@GAF -".utf8)
    for place in text.indices where text[place] != UInt8(ascii: "-") {
      for stray in strays {
        var bytes = text
        bytes[place] = stray
        let changed = String(decoding: bytes, as: UTF8.self)
        #expect(StoredID.parse(changed) == AppointmentID(string: changed), "\(changed)")
      }
    }
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

  @Test("a window's rows are sorted in display order, ties on the times by title then id, and cut at the limit")
  func displaySorted() {
    var generator = SplitMix64(seed: 13)
    let base = Date(timeIntervalSince1970: 1_780_000_000)
    let titles = ["b", "a", "B", "é", "a"]
    let rows = (0..<400).map { _ in
      var row = Appointment(
        title: titles[Int.random(in: 0..<titles.count, using: &generator)],
        start: base.addingTimeInterval(TimeInterval(Int.random(in: 0..<4, using: &generator) * 900)),
        end: base.addingTimeInterval(3600 + TimeInterval(Int.random(in: 0..<3, using: &generator) * 900)),
        created: base
      )
      // Few ids, so that rows tie on the times and title and the id decides.
      let byte = UInt8(generator.next() % 3)
      row.id = AppointmentID(UUID(uuid: (byte, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, UInt8(generator.next() % 5))))
      return row
    }
    let expected = rows.sorted(by: Appointment.displayOrder)
    #expect(AppointmentDAO.displaySorted(rows, limit: nil) == expected)
    #expect(AppointmentDAO.displaySorted(rows, limit: 17) == Array(expected.prefix(17)))
    #expect(AppointmentDAO.displaySorted(rows, limit: 1000) == expected)
    #expect(AppointmentDAO.displaySorted([], limit: 3).isEmpty)
  }
}
