import ApptCore
import Foundation
import Testing

@testable import ApptStore

/// `Appointment.extrasText` writes by hand what `JSONEncoder` writes for `ICalendarExtras`:
/// the same text, byte for byte, and `JSONDecoder` reads it back to the same value.
@Suite struct ExtrasJSONTests {
  static let cases: [ICalendarExtras] = [
    ICalendarExtras(lines: ["ATTENDEE;CN=Ann:mailto:ann@example.com", "X-A:1"]),
    ICalendarExtras(zoneID: ""),
    ICalendarExtras(
      lines: ["BEGIN:VALARM", "TRIGGER:-PT15M", "END:VALARM"],
      zoneID: "W. Europe Standard Time",
      zoneDefinition: ["BEGIN:VTIMEZONE", "TZID:W. Europe Standard Time", "END:VTIMEZONE"],
      endLine: "DURATION:PT1H",
      derivedEnd: Date(timeIntervalSinceReferenceDate: 811_234_567.5),
      asRead: [
        .init(name: "DTSTART", lines: ["DTSTART;TZID=Europe/Berlin:20260329T023000"], meaning: "1774747800000"),
        .init(name: "SUMMARY", lines: [], meaning: ""),
      ]
    ),
    // Every character JSON escapes, slashes (not escaped), quotes, backslashes, and more than ASCII.
    ICalendarExtras(
      lines: [
        "X-CONTROLS:\u{00}\u{01}\u{07}\u{08}\t\n\u{0B}\u{0C}\r\u{1B}\u{1F}\u{7F}",
        "URL:https://example.com/a/b?q=\"x\"\\y",
        "SUMMARY:Café 東京 🎉 \u{2028}\u{2029}",
      ],
      endLine: "",
      derivedEnd: Date(timeIntervalSinceReferenceDate: -978_307_200),
      asRead: []
    ),
    ICalendarExtras(endLine: "DURATION:PT0S", derivedEnd: Date(timeIntervalSinceReferenceDate: 0.001)),
    ICalendarExtras(endLine: "DTEND;VALUE=DATE:20010102", derivedEnd: Date(timeIntervalSinceReferenceDate: 86_400)),
  ]

  @Test(arguments: cases)
  func sameTextAsJSONEncoderAndReadBack(extras: ICalendarExtras) throws {
    let encoder = JSONEncoder()
    encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
    let expected = String(decoding: try encoder.encode(extras), as: UTF8.self)
    let text = Appointment.extrasText(extras)
    #expect(text == expected)
    #expect(try JSONDecoder().decode(ICalendarExtras.self, from: Data(text.utf8)) == extras)
  }

  @Test func noExtrasIsNoText() {
    #expect(Appointment.extrasText(ICalendarExtras()).isEmpty)
  }
}
