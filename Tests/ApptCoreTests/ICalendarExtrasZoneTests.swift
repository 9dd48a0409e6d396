import Testing

@testable import ApptCore

/// Found by the sync e2e suite: Radicale writes a VTIMEZONE's RRULE parts in another order, and
/// the same change made on both sides was taken for a conflict.
@Suite("VTIMEZONE written another way")
struct ICalendarExtrasZoneTests {
  let ours = [
    "BEGIN:VTIMEZONE", "TZID:Europe/Berlin", "BEGIN:STANDARD", "DTSTART:19701025T030000",
    "RRULE:FREQ=YEARLY;BYMONTH=10;BYDAY=-1SU", "TZOFFSETFROM:+0200", "TZOFFSETTO:+0100", "END:STANDARD",
    "BEGIN:DAYLIGHT", "DTSTART:19700329T020000", "RRULE:FREQ=YEARLY;BYMONTH=3;BYDAY=-1SU", "TZOFFSETFROM:+0100",
    "TZOFFSETTO:+0200", "END:DAYLIGHT", "END:VTIMEZONE",
  ]

  @Test("reordered parts, properties and components are the same zone")
  func reordered() {
    let theirs = [
      "BEGIN:VTIMEZONE", "TZID:Europe/Berlin", "BEGIN:DAYLIGHT", "DTSTART:19700329T020000",
      "RRULE:FREQ=YEARLY;BYDAY=-1SU;BYMONTH=3", "TZOFFSETTO:+0200", "TZOFFSETFROM:+0100", "END:DAYLIGHT",
      "begin:STANDARD", "DTSTART:19701025T030000", "RRULE:FREQ=YEARLY;BYDAY=-1SU;BYMONTH=10", "TZOFFSETFROM:+0200",
      "TZOFFSETTO:+0100", "END:STANDARD", "END:VTIMEZONE",
    ]
    #expect(ICalendarExtras.sameZoneDefinition(ours, theirs))
  }

  @Test("other rules or offsets swapped between components are another zone")
  func different() {
    var otherRule = ours
    otherRule[4] = "RRULE:FREQ=YEARLY;BYMONTH=11;BYDAY=-1SU"
    #expect(!ICalendarExtras.sameZoneDefinition(ours, otherRule))
    var swapped = ours
    swapped.swapAt(5, 11)  // STANDARD's TZOFFSETFROM for DAYLIGHT's
    #expect(!ICalendarExtras.sameZoneDefinition(ours, swapped))
  }
}
