// Not part of the build. Copy into Tests/ApptCoreTests/ to regenerate rfc-examples.json:
//   cp Resources/tools/libical-compare/DumpRFCExamples.swift Tests/ApptCoreTests/
//   swift build --build-tests && swift test --skip-build --filter DumpRFCExamples
//   rm Tests/ApptCoreTests/DumpRFCExamples.swift
// It writes the RFC 5545 3.8.5.3 examples of RecurrenceRFCExampleTests (their expected lists,
// wall clock in America/New_York) to $APPT_DUMP_RFC (default /tmp/rfc-examples.json).
import Foundation
import Testing

@testable import ApptCore

@Suite("DumpRFCExamples")
struct DumpRFCExamples {
  struct Row: Encodable {
    var name: String
    var zone = "America/New_York"
    var start: String
    var rules: [String]
    var exdates: [String]
    var first: Int?
    var to = "20100101T000000"
    var expected: [String]
  }

  @Test func dump() throws {
    let rows = RecurrenceRFCExampleTests.examples.map {
      Row(name: $0.name, start: $0.start, rules: $0.rules, exdates: $0.exdates, first: $0.first, expected: $0.expected)
    }
    let encoder = JSONEncoder()
    encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
    let path = ProcessInfo.processInfo.environment["APPT_DUMP_RFC"] ?? "/tmp/rfc-examples.json"
    try encoder.encode(rows).write(to: URL(fileURLWithPath: path))
  }
}
