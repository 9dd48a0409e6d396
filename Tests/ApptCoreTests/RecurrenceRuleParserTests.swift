import Foundation
import Testing

@testable import ApptCore

/// RRULE text: every part read, canonical text written, and errors that name the bad part.
@Suite("recurrence: RRULE parser and writer")
struct RecurrenceRuleParserTests {
  static let roundTrips = [
    "FREQ=DAILY",
    "FREQ=SECONDLY;COUNT=10;INTERVAL=17;BYSECOND=0,30,60",
    "FREQ=MINUTELY;INTERVAL=20;BYHOUR=9,10,11,12,13,14,15,16",
    "FREQ=HOURLY;UNTIL=19970902T170000Z;INTERVAL=3",
    "FREQ=DAILY;UNTIL=20251231;BYMONTH=1",
    "FREQ=WEEKLY;UNTIL=20250101T090000;INTERVAL=2;BYDAY=MO,WE,FR;WKST=SU",
    "FREQ=MONTHLY;COUNT=6;BYDAY=-2MO",
    "FREQ=MONTHLY;BYDAY=SA;BYMONTHDAY=7,8,9,10,11,12,13",
    "FREQ=MONTHLY;BYDAY=MO,TU,WE,TH,FR;BYSETPOS=-1,1",
    "FREQ=YEARLY;BYDAY=20MO",
    "FREQ=YEARLY;BYDAY=MO;BYWEEKNO=20,-1,53;WKST=MO",
    "FREQ=YEARLY;COUNT=10;INTERVAL=3;BYYEARDAY=1,100,200,-366",
    "FREQ=YEARLY;BYSECOND=5;BYMINUTE=0,30;BYHOUR=8;BYDAY=1SU,-1SU;BYMONTHDAY=-31;BYYEARDAY=-1;BYWEEKNO=1;BYMONTH=2,12;BYSETPOS=3;WKST=TH",
    "FREQ=WEEKLY;X-NAME=value;X-OTHER=a,b",
  ]

  @Test("canonical text parses back to the same rule and writes the same text", arguments: roundTrips)
  func roundTrip(_ text: String) throws {
    let rule = try RecurrenceRule(parsing: text)
    #expect(rule.text == text)
    #expect(try RecurrenceRule(parsing: rule.text) == rule)
  }

  @Test("every part is read into its field")
  func fields() throws {
    let rule = try RecurrenceRule(
      parsing:
        "FREQ=YEARLY;INTERVAL=2;COUNT=5;BYSECOND=1;BYMINUTE=2;BYHOUR=3;BYDAY=2TU,-1FR,SU;BYMONTHDAY=1,-1;BYYEARDAY=-100;BYWEEKNO=-53;BYMONTH=11;BYSETPOS=-1;WKST=SU"
    )
    #expect(rule.frequency == .yearly)
    #expect(rule.interval == 2)
    #expect(rule.count == 5)
    #expect(rule.bySecond == [1] && rule.byMinute == [2] && rule.byHour == [3])
    #expect(rule.byDay == [.init(.tuesday, 2), .init(.friday, -1), .init(.sunday)])
    #expect(rule.byMonthDay == [1, -1] && rule.byYearDay == [-100] && rule.byWeekNo == [-53])
    #expect(rule.byMonth == [11] && rule.bySetPos == [-1] && rule.weekStart == .sunday)
  }

  @Test("names and values are read case-insensitively, written in upper case; RRULE: is tolerated")
  func caseInsensitive() throws {
    let lower = try RecurrenceRule(parsing: "freq=monthly;byday=-1su;wkst=su;until=20250101t000000z")
    #expect(lower.text == "FREQ=MONTHLY;UNTIL=20250101T000000Z;BYDAY=-1SU;WKST=SU")
    #expect(try RecurrenceRule(parsing: "RRULE:FREQ=DAILY;COUNT=2") == RecurrenceRule(frequency: .daily, count: 2))
    #expect(try RecurrenceRule(parsing: "FREQ=DAILY;BYDAY=+1MO").byDay == [.init(.monday, 1)])
  }

  @Test("blanks after a list's commas are not part of its values (BYDAY=MO, TU)")
  func blanksInLists() throws {
    let rule = try RecurrenceRule(parsing: "FREQ=WEEKLY;BYDAY=MO, TU ,WE;BYHOUR=9, 17")
    #expect(rule.text == "FREQ=WEEKLY;BYHOUR=9,17;BYDAY=MO,TU,WE")
    #expect(throws: RecurrenceRuleError.self) { try RecurrenceRule(parsing: "FREQ=WEEKLY;BYDAY=MO,,TU") }
  }

  @Test("UNTIL keeps its form: DATE, local DATE-TIME or UTC")
  func untilForms() throws {
    #expect(
      try RecurrenceRule(parsing: "FREQ=DAILY;UNTIL=20250630").until == .date(CivilDate(year: 2025, month: 6, day: 30))
    )
    #expect(
      try RecurrenceRule(parsing: "FREQ=DAILY;UNTIL=20250630T120000").until == .local(CivilDateTime(2025, 6, 30, 12))
    )
    #expect(
      try RecurrenceRule(parsing: "FREQ=DAILY;UNTIL=20250630T120000Z").until == .utc(CivilDateTime(2025, 6, 30, 12))
    )
  }

  @Test("a rule survives JSON coding")
  func codable() throws {
    let rule = try RecurrenceRule(parsing: Self.roundTrips[12])
    let decoded = try JSONDecoder().decode(RecurrenceRule.self, from: JSONEncoder().encode(rule))
    #expect(decoded == rule)
  }

  static let errors: [(String, RecurrenceRuleError)] = [
    ("", .missingFrequency),
    ("COUNT=3", .missingFrequency),
    ("FREQ=FORTNIGHTLY", .invalidValue(part: "FREQ", value: "FORTNIGHTLY", expected: "")),
    ("FREQ=DAILY;FREQ=WEEKLY", .repeatedPart("FREQ")),
    ("FREQ=DAILY;byday=MO;BYDAY=TU", .repeatedPart("BYDAY")),
    ("FREQ=DAILY;BYDAY", .notNameValue("BYDAY")),
    ("FREQ=DAILY;=3", .notNameValue("=3")),
    ("FREQ=DAILY;BYEASTER=1", .unknownPart("BYEASTER")),
    ("FREQ=DAILY;INTERVAL=0", .invalidValue(part: "INTERVAL", value: "0", expected: "")),
    ("FREQ=DAILY;INTERVAL=-2", .invalidValue(part: "INTERVAL", value: "-2", expected: "")),
    ("FREQ=DAILY;COUNT=0", .invalidValue(part: "COUNT", value: "0", expected: "")),
    ("FREQ=DAILY;COUNT=ten", .invalidValue(part: "COUNT", value: "ten", expected: "")),
    ("FREQ=DAILY;UNTIL=20250230", .invalidValue(part: "UNTIL", value: "20250230", expected: "")),
    ("FREQ=DAILY;UNTIL=20250101Z", .invalidValue(part: "UNTIL", value: "20250101Z", expected: "")),
    ("FREQ=DAILY;UNTIL=20250101T250000", .invalidValue(part: "UNTIL", value: "20250101T250000", expected: "")),
    ("FREQ=DAILY;BYSECOND=61", .invalidValue(part: "BYSECOND", value: "61", expected: "")),
    ("FREQ=DAILY;BYMINUTE=60", .invalidValue(part: "BYMINUTE", value: "60", expected: "")),
    ("FREQ=DAILY;BYHOUR=24", .invalidValue(part: "BYHOUR", value: "24", expected: "")),
    ("FREQ=DAILY;BYHOUR=1,,2", .invalidValue(part: "BYHOUR", value: "1,,2", expected: "")),
    ("FREQ=DAILY;BYDAY=XX", .invalidValue(part: "BYDAY", value: "XX", expected: "")),
    ("FREQ=MONTHLY;BYDAY=0MO", .invalidValue(part: "BYDAY", value: "0MO", expected: "")),
    ("FREQ=MONTHLY;BYDAY=54MO", .invalidValue(part: "BYDAY", value: "54MO", expected: "")),
    ("FREQ=MONTHLY;BYMONTHDAY=0", .invalidValue(part: "BYMONTHDAY", value: "0", expected: "")),
    ("FREQ=MONTHLY;BYMONTHDAY=-32", .invalidValue(part: "BYMONTHDAY", value: "-32", expected: "")),
    ("FREQ=YEARLY;BYYEARDAY=367", .invalidValue(part: "BYYEARDAY", value: "367", expected: "")),
    ("FREQ=YEARLY;BYWEEKNO=54", .invalidValue(part: "BYWEEKNO", value: "54", expected: "")),
    ("FREQ=YEARLY;BYMONTH=13", .invalidValue(part: "BYMONTH", value: "13", expected: "")),
    ("FREQ=YEARLY;BYMONTH=-1", .invalidValue(part: "BYMONTH", value: "-1", expected: "")),
    ("FREQ=MONTHLY;BYSETPOS=0", .invalidValue(part: "BYSETPOS", value: "0", expected: "")),
    ("FREQ=WEEKLY;WKST=XX", .invalidValue(part: "WKST", value: "XX", expected: "")),
    ("FREQ=DAILY;COUNT=2;UNTIL=20250101", .countAndUntil),
  ]

  @Test("what no reader could interpret is refused, naming the part", arguments: errors)
  func refused(_ text: String, _ expected: RecurrenceRuleError) {
    #expect {
      _ = try RecurrenceRule(parsing: text)
    } throws: { error in
      guard let error = error as? RecurrenceRuleError else { return false }
      if case .invalidValue(let part, let value, _) = expected {
        guard case .invalidValue(part, value, _) = error else { return false }
        return !error.description.isEmpty && error.description.contains("\(part)=\(value)")
      }
      return error == expected
    }
  }

  @Test("messages say what to write instead")
  func messages() {
    let error = RecurrenceRuleError.invalidValue(part: "BYMONTHDAY", value: "0", expected: "days 1 to 31 or -31 to -1")
    #expect(error.description == "RRULE BYMONTHDAY=0: expected days 1 to 31 or -31 to -1")
    #expect(error.part == "BYMONTHDAY")
    #expect(RecurrenceRuleError.repeatedPart("FREQ").description == "RRULE part FREQ is given twice")
  }
}

extension RecurrenceRuleParserTests {
  @Test("text in any order or case is written canonically, and that text reads back the same")
  func canonicalizes() throws {
    let rule = try RecurrenceRule(parsing: "wkst=su;byday=mo;interval=2;count=3;freq=weekly")
    #expect(rule.text == "FREQ=WEEKLY;COUNT=3;INTERVAL=2;BYDAY=MO;WKST=SU")
    #expect(try RecurrenceRule(parsing: rule.text) == rule)
  }

  /// The canonical texts and, from each, every text one byte away (changed to one of the bytes
  /// that matter, removed, or doubled) and each prefix: what a byte reader gets wrong.
  static func nearCanonical() -> [String] {
    let canonical =
      roundTrips + errors.map(\.0) + [
        "FREQ=WEEKLY;COUNT=7;BYDAY=TH,FR", "FREQ=MONTHLY;UNTIL=20270630T235959Z;BYDAY=2TU",
        "FREQ=YEARLY;COUNT=3;BYMONTH=11;BYDAY=4TH", "FREQ=MONTHLY;BYMONTHDAY=15,-1", "FREQ=DAILY;UNTIL=20261231",
      ]
    let replacements = Array("09-+;=,ZTaX :".utf8)
    var texts: [String] = []
    for text in canonical {
      let bytes = Array(text.utf8)
      texts.append(text)
      for index in bytes.indices {
        for byte in replacements {
          var changed = bytes
          changed[index] = byte
          texts.append(String(decoding: changed, as: UTF8.self))
        }
        var removed = bytes
        removed.remove(at: index)
        texts.append(String(decoding: removed, as: UTF8.self))
        var doubled = bytes
        doubled.insert(bytes[index], at: index)
        texts.append(String(decoding: doubled, as: UTF8.self))
        texts.append(String(decoding: bytes[..<index], as: UTF8.self))
      }
      texts.append(text + ";" + text)
    }
    return texts
  }

  @Test("the byte reader of canonical text takes only what the general reader takes, and the same way")
  func canonicalReaderAgreesWithTheGeneralOne() {
    var taken = 0
    for text in Self.nearCanonical() {
      guard let fast = RecurrenceRule.parsingCanonical(text) else { continue }
      taken += 1
      #expect(throws: Never.self, "\(text)") { _ = try RecurrenceRule(parsingGeneral: text) }
      #expect((try? RecurrenceRule(parsingGeneral: text)) == fast, "\(text)")
    }
    // Every canonical text without an X- part is the byte reader's.
    for text in Self.roundTrips where !text.contains("X-") {
      #expect(RecurrenceRule.parsingCanonical(text) != nil, "\(text)")
    }
    #expect(taken > 500, "the byte reader takes the near-canonical texts that are rules")
  }
}
