import Foundation
import Testing

@testable import ApptCore

/// Local times a DST change makes ambiguous: a typed time in the spring-forward gap or the
/// autumn overlap is saved with a notice saying which instant was chosen, and times inside an
/// overlap print their UTC offset so the two 02:30s can be told apart (all other times print
/// as before). Berlin changes on the last Sundays of March and October, New York on the 2nd
/// Sunday of March and the 1st of November.
@Suite("Daylight saving")
struct DaylightSavingTests {
  static let berlin = Fixture.zone("Europe/Berlin")
  let berlinClock = Clock.fixed(Fixture.instant("2027-03-01T10:00:00+01:00"), timeZone: berlin)
  let newYorkClock = Clock.fixed(Fixture.instant("2027-03-01T10:00:00-05:00"), timeZone: Fixture.newYork)

  func when(_ text: String, _ clock: Clock) throws -> (instant: Date, notice: LocalTimeNotice?) {
    try WhenParser(clock: clock).parse(text).resolved(in: clock)
  }

  // MARK: - Notices

  @Test("Berlin, last Sunday of March: 02:30 does not exist and is saved at 03:30 CEST")
  func berlinGap() throws {
    let (instant, notice) = try when("2027-03-28 02:30", berlinClock)
    #expect(instant == Fixture.instant("2027-03-28T03:30:00+02:00"))
    #expect(notice?.kind == .gap)
    #expect(notice?.message == "02:30 does not exist on 28 March 2027 in Europe/Berlin; saved at 03:30")
    #expect(notice?.preview == "02:30 does not exist that day: it will be 03:30")
  }

  @Test("Berlin, last Sunday of October: 02:30 happens twice and the first (CEST) is saved")
  func berlinOverlap() throws {
    let (instant, notice) = try when("2027-10-31 02:30", berlinClock)
    #expect(instant == Fixture.instant("2027-10-31T02:30:00+02:00"))
    #expect(notice?.kind == .overlap)
    #expect(notice?.message == "02:30 happens twice on 31 October 2027 in Europe/Berlin; saved the first (+02:00)")
  }

  @Test("New York, 2nd Sunday of March and 1st Sunday of November")
  func newYork() throws {
    let gap = try when("2027-03-14 02:30", newYorkClock)
    #expect(gap.instant == Fixture.instant("2027-03-14T03:30:00-04:00"))
    #expect(gap.notice?.message == "02:30 does not exist on 14 March 2027 in America/New_York; saved at 03:30")
    let overlap = try when("2027-11-07 1:30am", newYorkClock)
    #expect(overlap.instant == Fixture.instant("2027-11-07T01:30:00-04:00"))
    #expect(
      overlap.notice?.message == "01:30 happens twice on 7 November 2027 in America/New_York; saved the first (-04:00)"
    )
  }

  @Test(
    "times next to a change, and on other days, are taken without a word",
    arguments: [
      "2027-03-28 01:59", "2027-03-28 03:00", "2027-10-31 01:59", "2027-10-31 03:00", "2027-10-30 02:30",
      "2027-10-31", "2027-03-28",
    ]
  )
  func noNotice(text: String) throws {
    #expect(try when(text, berlinClock).notice == nil)
  }

  @Test("add --at and edit --at carry the notice; --for alone, an all-day add and a plain time do not")
  func parserCarriesNotice() throws {
    let parser = CommandParser(clock: berlinClock)
    guard case .add(let gap) = try parser.parse(words: ["add", "x", "--at", "2027-03-28 02:30"]) else {
      Issue.record("not an add")
      return
    }
    #expect(gap.notice?.kind == .gap)
    #expect(gap.start == Fixture.instant("2027-03-28T03:30:00+02:00"))
    guard case .edit(let overlap) = try parser.parse(words: ["edit", "abcd", "--at", "2027-10-31 02:30"]) else {
      Issue.record("not an edit")
      return
    }
    #expect(overlap.notice?.kind == .overlap)
    guard case .edit(let duration) = try parser.parse(words: ["edit", "abcd", "--for", "2h"]) else {
      Issue.record("not an edit")
      return
    }
    #expect(duration.notice == nil)
    guard case .add(let plain) = try parser.parse(words: ["add", "x", "--at", "2027-10-31 10:00"]) else {
      Issue.record("not an add")
      return
    }
    #expect(plain.notice == nil)
    guard case .add(let allDay) = try parser.parse(words: ["add", "x", "--at", "2027-03-28"]) else {
      Issue.record("not an add")
      return
    }
    #expect(allDay.notice == nil)
  }

  // MARK: - Display

  func appointment(_ start: String, minutes: Int) -> Appointment {
    let start = Fixture.instant(start)
    return Appointment(
      title: "x",
      start: start,
      end: start.addingTimeInterval(TimeInterval(minutes * 60)),
      created: start
    )
  }

  @Test("times inside the repeated hour carry their offset; others print as before")
  func overlapDisplay() {
    let formatter = AppointmentFormatter(clock: berlinClock)
    #expect(formatter.timeRange(appointment("2027-10-31T02:30:00+02:00", minutes: 90)) == "02:30+02-03:00")
    #expect(formatter.timeRange(appointment("2027-10-31T02:30:00+01:00", minutes: 60)) == "02:30+01-03:30")
    #expect(formatter.timeRange(appointment("2027-10-31T02:00:00+02:00", minutes: 30)) == "02:00+02-02:30+02")
    #expect(formatter.timeRange(appointment("2027-10-31T01:30:00+02:00", minutes: 60)) == "01:30-02:30+02")
    #expect(formatter.timeRange(appointment("2027-10-31T02:59:00+01:00", minutes: 1)) == "02:59+01-03:00")
    #expect(formatter.timeRange(appointment("2027-10-31T10:00:00+01:00", minutes: 60)) == "10:00-11:00")
    #expect(formatter.timeRange(appointment("2027-03-28T01:30:00+01:00", minutes: 60)) == "01:30-03:30")
    #expect(formatter.dayAndTime(Fixture.instant("2027-10-31T02:30:00+01:00")) == "Sun 2027-10-31 02:30+01")
    #expect(formatter.dayAndTime(Fixture.instant("2027-10-31T12:00:00+01:00")) == "Sun 2027-10-31 12:00")
    let line = formatter.textLine(appointment("2027-10-31T02:30:00+02:00", minutes: 30))
    #expect(line.hasSuffix("Sun 2027-10-31  02:30+02-02:00+01  x"))
    let newYork = AppointmentFormatter(clock: newYorkClock)
    #expect(newYork.timeRange(appointment("2027-11-07T01:15:00-05:00", minutes: 30)) == "01:15-05-01:45-05")
    #expect(newYork.timeRange(appointment("2027-11-07T00:15:00-04:00", minutes: 30)) == "00:15-00:45")
  }

  @Test("a zone with a half-hour offset writes its minutes; UTC has no overlaps")
  func offsets() {
    #expect(AppointmentFormatter.offsetText(19_800) == "+05:30")
    #expect(AppointmentFormatter.offsetText(-3600) == "-01")
    #expect(AppointmentFormatter.offsetText(7200, long: true) == "+02:00")
    let utc = AppointmentFormatter(clock: Clock.fixed(Fixture.now, timeZone: .gmt))
    #expect(utc.timeRange(appointment("2027-10-31T01:30:00Z", minutes: 60)) == "01:30-02:30")
  }
}
