import Foundation
import Testing

@testable import ApptCore

/// appt's recurrence engine against Python's dateutil.rrule: the cases and dateutil's
/// occurrences are in Fixtures/rrule-cases.json, made by Fixtures/rrule-cases.py (run it to
/// regenerate; no Python is needed to test).
///
/// Where dateutil departs from RFC 5545, appt follows the RFC and the case is listed in
/// `rfcOverrides` with the RFC's occurrences.
@Suite("recurrence: against dateutil")
struct RecurrenceDateutilTests {
  struct Case: Decodable, Sendable, CustomTestStringConvertible {
    var name: String
    var zone: String?
    var start: String
    var rules: [String]
    var exdates: [String]
    var rdates: [String]
    var from: String?
    var to: String
    var occurrences: [String]
    var testDescription: String { name }
  }

  struct Fixture: Decodable {
    var generator: String
    var cases: [Case]
  }

  static let fixtureURL = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
    .appendingPathComponent("Fixtures/rrule-cases.json")

  static let cases: [Case] = {
    do {
      return try JSONDecoder().decode(Fixture.self, from: Data(contentsOf: fixtureURL)).cases
    } catch {
      preconditionFailure("cannot read \(fixtureURL.path): \(error)")
    }
  }()

  /// Cases where dateutil and RFC 5545 disagree: the RFC's occurrences (UTC), and why.
  /// Both are times in a spring-forward gap: dateutil reads them with the offset after the
  /// gap (an hour earlier, 01:30 EST for 02:30); RFC 5545 3.3.5 with the offset before it
  /// (03:30 EDT). In Berlin the hourly rule's 02:00 then is 03:00, the next instance's
  /// instant too: one occurrence (a recurrence set is a set), though COUNT counted both.
  static let rfcOverrides: [String: (reason: String, occurrences: [String])] = [
    "hourly Berlin spring gap": (
      "02:00 on 30 March 2025 does not exist: RFC reads it as 03:00 CEST (dateutil: 01:00 CET, twice)",
      ["20250329T220000Z", "20250329T230000Z", "20250330T000000Z", "20250330T010000Z", "20250330T020000Z"]
    ),
    "daily New York 02:30 across the gap": (
      "02:30 on 9 March 2025 does not exist: RFC reads it as 03:30 EDT (dateutil: 01:30 EST)",
      ["20250307T073000Z", "20250308T073000Z", "20250309T073000Z", "20250310T063000Z"]
    ),
  ]

  static func utc(_ text: String) -> Date { RRuleTesting.civil(text).instant(in: .gmt) }

  @Test("the same occurrences as dateutil", arguments: cases)
  func matchesDateutil(_ example: Case) throws {
    let zone = try #require(example.zone.map { TimeZone(identifier: $0) } ?? TimeZone.gmt)
    let set = RecurrenceSet(
      start: RRuleTesting.civil(example.start),
      zone: zone,
      rules: example.rules.map(RRuleTesting.rule),
      rdates: example.rdates.map { .local(RRuleTesting.civil($0)) },
      exdates: example.exdates.map { .local(RRuleTesting.civil($0)) }
    )
    let from = example.from.map(Self.utc) ?? RRuleTesting.civil(example.start).instant(in: zone)
    let found = set.occurrences(from: from, to: Self.utc(example.to)).map {
      CivilDateTime($0, in: .gmt).description + "Z"
    }
    let expected = Self.rfcOverrides[example.name]?.occurrences ?? example.occurrences
    #expect(found == expected)
    if let override = Self.rfcOverrides[example.name] {
      #expect(example.occurrences != override.occurrences, "dateutil now agrees with the RFC: \(override.reason)")
    }
  }

  @Test("the fixture is dateutil's and has enough cases")
  func fixtureIsReal() throws {
    let fixture = try JSONDecoder().decode(Fixture.self, from: Data(contentsOf: Self.fixtureURL))
    #expect(fixture.generator.hasPrefix("dateutil 2."))
    #expect(fixture.cases.count >= 50)
    #expect(fixture.cases.allSatisfy { !$0.occurrences.isEmpty })
  }
}
