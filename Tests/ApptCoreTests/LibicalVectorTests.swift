import Foundation
import Testing

@testable import ApptCore

/// appt's recurrence engine against libical's own recurrence test vectors: DTSTART, RRULE and
/// the occurrences libical's iterator yields, taken as data from libical's
/// src/test/icalrecur_test.txt into Fixtures/libical-recurrence-vectors.txt (its header names
/// the commit and what was left out: sub-daily frequencies, RSCALE, START-AT).
///
/// Every vector is bounded by COUNT or UNTIL and libical lists all its occurrences, so appt
/// must give the same list, no more and no fewer. DTSTART is a wall-clock time read in UTC (a
/// trailing Z is UTC anyway); a DATE DTSTART is midnight of a date start (`isDateStart`: the
/// rule's times of day do not apply), and appt's midnight occurrences are then written as
/// DATEs, as libical writes them.
///
/// The measure is how many vectors agree; `knownDisagreements` lists the ones that do not, so
/// that a vector that stops agreeing fails, and one that starts agreeing is reported (remove
/// it from the list).
@Suite("recurrence: against libical's test vectors")
struct LibicalVectorTests {
  struct Vector: Sendable, CustomTestStringConvertible {
    /// DTSTART and RRULE as libical writes them.
    var start: String
    var rule: String
    /// libical's occurrences, in its spelling.
    var expected: [String]

    var key: String { "DTSTART:\(start) RRULE:\(rule)" }
    var testDescription: String { key }
  }

  static let fixtureURL = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
    .appendingPathComponent("Fixtures/libical-recurrence-vectors.txt")

  static let vectors: [Vector] = {
    let text: String
    do { text = try String(contentsOf: fixtureURL, encoding: .utf8) } catch {
      preconditionFailure("cannot read \(fixtureURL.path): \(error)")
    }
    var vectors: [Vector] = []
    var fields: [String: String] = [:]
    func flush() {
      if let start = fields["DTSTART"], let rule = fields["RRULE"], let expected = fields["EXPECT"] {
        let list = expected.split(separator: ",").map(String.init)
        vectors.append(Vector(start: start, rule: rule, expected: list))
      } else {
        precondition(fields.isEmpty, "incomplete vector in \(fixtureURL.path): \(fields)")
      }
      fields = [:]
    }
    for line in text.split(separator: "\n", omittingEmptySubsequences: false) {
      if line.hasPrefix("#") { continue }
      guard let colon = line.firstIndex(of: ":") else {
        flush()
        continue
      }
      fields[String(line[..<colon])] = String(line[line.index(after: colon)...])
    }
    flush()
    return vectors
  }()

  /// The vectors where appt's occurrences are not libical's, by DTSTART and RRULE.
  ///
  /// YEARLY with BYWEEKNO and INTERVAL > 1 where DTSTART lies in a week of the next or the
  /// previous year (2 January 2010 is in week 53 of 2009): libical steps the interval from
  /// DTSTART's week-numbering year, appt (and Python's dateutil) from its calendar year. With
  /// INTERVAL=1 both give the same days.
  static let knownDisagreements: Set<String> = [
    "DTSTART:20100102T000000 RRULE:FREQ=YEARLY;BYWEEKNO=53;BYDAY=TU,SA;INTERVAL=6;UNTIL=20170101T000000Z",
    "DTSTART:20100102T000000 RRULE:FREQ=YEARLY;BYWEEKNO=53;BYDAY=TU,SA;INTERVAL=5;UNTIL=20170101T000000Z",
    "DTSTART:20241231 RRULE:FREQ=YEARLY;BYWEEKNO=1;BYDAY=MO,TU;INTERVAL=3;UNTIL=20320101",
  ]

  /// appt's occurrences of `vector` in libical's spelling: one more than libical lists, if
  /// there are more. nil if appt does not read the rule.
  static func occurrences(_ vector: Vector) -> [String]? {
    guard (try? RecurrenceRule(parsing: vector.rule)) != nil else { return nil }
    let isDate = vector.start.count == 8
    let isUTC = vector.start.hasSuffix("Z")
    let found = RRuleTesting.expand(
      String(vector.start.prefix(15)),
      [vector.rule],
      zone: .gmt,
      to: "22000101T000000",
      first: vector.expected.count + 1,
      dateStart: isDate
    )
    return found.map { text in
      if isDate, text.hasSuffix("T000000") { return String(text.prefix(8)) }
      return isUTC ? text + "Z" : text
    }
  }

  static func agrees(_ vector: Vector) -> Bool { occurrences(vector) == vector.expected }

  @Test("appt gives libical's occurrences for each vector not known to disagree", arguments: vectors)
  func matchesLibical(_ vector: Vector) {
    let found = Self.occurrences(vector)
    if Self.knownDisagreements.contains(vector.key) {
      // Reported as an issue when the vector agrees: remove it from `knownDisagreements`.
      withKnownIssue("known to disagree with libical") {
        #expect(found == vector.expected)
      }
    } else {
      #expect(found == vector.expected)
    }
  }

  @Test("at least 95% of libical's vectors give libical's occurrences")
  func agreement() {
    let agreeing = Self.vectors.filter(Self.agrees).count
    #expect(!Self.vectors.isEmpty)
    #expect(agreeing * 100 >= Self.vectors.count * 95, "\(agreeing) of \(Self.vectors.count) agree")
  }

  @Test("every known disagreement is one of the vectors")
  func knownDisagreementsExist() {
    let keys = Set(Self.vectors.map(\.key))
    #expect(Self.knownDisagreements.subtracting(keys).isEmpty)
  }
}
