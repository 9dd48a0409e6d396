import Foundation
import Testing

@testable import ApptCore

/// The natural WHEN forms: `next mon`, `in 2h`, `dec 1`, `1 dec`, and how they
/// combine with times, in one word or several. "Now" is Sunday 2026-11-29 15:00 in Paris.
@Suite("natural dates")
struct NaturalDateTests: WhenParsing {

  @Test(
    "accepted forms",
    arguments: [
      ("next mon", "2026-11-30T00:00:00+01:00"),
      ("next sun", "2026-12-06T00:00:00+01:00"),  // today is Sunday: next sun is a week ahead
      ("sun", "2026-11-29T00:00:00+01:00"),  // ...while plain sun is today
      ("next friday 9am", "2026-12-04T09:00:00+01:00"),
      ("dec 1", "2026-12-01T00:00:00+01:00"),
      ("Dec 1 10:00", "2026-12-01T10:00:00+01:00"),
      ("1 dec", "2026-12-01T00:00:00+01:00"),
      ("1 December 3:30pm", "2026-12-01T15:30:00+01:00"),
      ("nov 29", "2026-11-29T00:00:00+01:00"),  // today counts
      ("nov 28", "2027-11-28T00:00:00+01:00"),  // passed this year: next year
      ("feb 29", "2028-02-29T00:00:00+01:00"),  // waits for the next leap year
      ("sept 3", "2027-09-03T00:00:00+02:00"),
      ("in 2h", "2026-11-29T17:00:00+01:00"),
      ("in 90m", "2026-11-29T16:30:00+01:00"),
      ("in 3d", "2026-12-02T00:00:00+01:00"),
      ("in 2w", "2026-12-13T00:00:00+01:00"),
      ("in 10h", "2026-11-30T01:00:00+01:00"),  // crosses midnight
    ]
  )
  func accepted(text: String, expected: String) throws {
    #expect(try instant(text) == Fixture.instant(expected))
  }

  @Test(
    "refused with a message that says what was and was not understood",
    arguments: [
      ("feb 30", "invalid date \"feb 30\": February has no day 30"),
      ("dec 32", "invalid date \"dec 32\": December has no day 32"),
      ("apr 31 10:00", "invalid date \"apr 31 10:00\": April has no day 31"),
      ("next moon", "cannot understand \"next moon\" as a date"),
      ("in", "cannot understand \"in\""),
      ("in 2", "cannot understand \"in 2\": after \"in\" give an amount like 2h, 30m, 3d or 2w"),
      ("in 2y", "cannot understand \"in 2y\": after \"in\" give an amount like 2h, 30m, 3d or 2w"),
      ("in xh", "cannot understand \"in xh\": \"xh\" is not an amount like 2h or 3d"),
      ("dec 1 noonish", "understood \"dec 1\" as a day but not \"noonish\" as a time"),
      ("dec 1 25:00", "invalid date \"dec 1 25:00\": hour 25 is out of range (0-23)"),
      ("next mon 24:01", "invalid date \"next mon 24:01\": hour 24 is out of range (0-23)"),
    ]
  )
  func refused(text: String, message: String) {
    let error = failure(text)
    #expect(error?.kind == .invalid)
    #expect(error?.message.hasPrefix(message) == true, "got: \(error?.message ?? "no error")")
  }

  @Test(
    "several words after an option",
    arguments: [
      ("add Call --at next mon 10:00 --for 30m", "2026-11-30T10:00:00+01:00"),
      ("add Call --at dec 24 3pm", "2026-12-24T15:00:00+01:00"),
      ("add Call --at 24 dec 9am --note hi", "2026-12-24T09:00:00+01:00"),
      ("add Call --at in 2h", "2026-11-29T17:00:00+01:00"),
    ]
  )
  func wordsAfterAnOption(line: String, expected: String) throws {
    guard case .add(let request)? = try CommandParser(clock: Fixture.clock).parse(line: line) else {
      Issue.record("not an add: \(line)")
      return
    }
    #expect(request.title == "Call")
    #expect(request.start == Fixture.instant(expected))
  }
}
