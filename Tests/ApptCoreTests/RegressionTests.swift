import Foundation
import Testing

@testable import ApptCore

/// Bugs found by the fuzzers (Fuzz/) and the hostile-input suite, each pinned by a test.
@Suite("regressions")
struct RegressionTests {
  let parser = CommandParser(clock: Fixture.clock)

  func failure(_ line: String) -> CommandError? {
    commandError { () throws(CommandError) in _ = try parser.parse(line: line) }
  }

  /// Fuzz/when_duration: 2,000,000 days back is 3451 BC, whose `.year` counts within the BC
  /// era (3450) and passed the 1970-9999 check.
  @Test func datesBeforeTheCommonEraAreRefused() {
    #expect(failure("add X --at -2000000d")?.message.contains("out of range (1970-9999)") == true)
    #expect(failure("add X --at -1428571w")?.kind == .invalid)
  }

  /// Fuzz/ical_reader: Foundation gives a zone with offset 0 for "America/New_York\0".
  @Test func zoneNamesWithControlCharactersAreUnknown() {
    #expect(TimeZone.named("America/New_York\u{0}") == nil)
    #expect(TimeZone.named("Europe/Paris") != nil)
    #expect(TimeZone.named("") == nil)
    let appointment = Appointment(
      title: "x",
      start: Fixture.now,
      end: Fixture.now + 60,
      created: Fixture.now,
      timeZone: "Bad\u{0}"
    )
    #expect(appointment.zone(fallback: Fixture.paris) == Fixture.paris)
  }

  /// Fuzz/ical_reader: 0x1C was exported as `^\N`, which reads back as a newline.
  @Test func caretNotationSurvivesICalendarText() {
    #expect(ICalendar.escape("a\u{1C}Nb") == "a^\\\\Nb")
    let appointment = Appointment(title: "a\u{1C}Nb", start: Fixture.now, end: Fixture.now + 3600, created: Fixture.now)
    let text = ICalendar.write([appointment], fallbackZone: Fixture.paris)
    let back = ICalendar.read(text, clock: Fixture.clock)
    #expect(back.appointments.map(\.title) == ["a^\\Nb"], "caret notation is kept, never a line break")
  }

  /// hostile.sh: a NUL byte in a script line was stored in the title.
  @Test func nulBytesAreRefused() {
    #expect(failure("add Lunch\u{0}break --at 10:00")?.message == "NUL byte at column 10: a command line is text")
  }

  /// hostile.sh: a 2 MB title was accepted.
  @Test func titlesAndNotesHaveALimit() {
    let long = String(repeating: "x", count: CommandParser.maximumTitleLength + 1)
    #expect(failure("add \(long) --at 10:00")?.message == "add: the title is 501 characters long; at most 500")
    #expect(failure("add ok --at 10:00 --note \(String(repeating: "n", count: 10_001))")?.kind == .invalid)
    #expect(failure("add \(String(repeating: "x", count: 500)) --at 10:00") == nil, "exactly at the limit is fine")
  }

  /// hostile.sh: a 4 MB bad line was quoted whole on stderr.
  @Test func quotedInputIsShortened() {
    let message = failure("add X --at \(String(repeating: "z", count: 10_000))")?.message ?? ""
    #expect(message.count < 300)
    #expect(message.contains("…"))
  }
}
