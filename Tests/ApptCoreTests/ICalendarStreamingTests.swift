import ApptTestSupport
import Foundation
import Testing

@testable import ApptCore

/// `ICalendar.read(bytes:clock:batchSize:sink:)`: the events of a big file handed over a
/// batch at a time as they are read, never all held, and the same events as a whole read.
@Suite("iCalendar streaming")
struct ICalendarStreamingTests {
  let clock = Fixture.clock

  func calendar(_ lines: [String]) -> String {
    (["BEGIN:VCALENDAR", "VERSION:2.0"] + lines + ["END:VCALENDAR"]).joined(separator: "\r\n") + "\r\n"
  }

  func event(_ uid: String, day: Int, sequence: Int = 0, title: String? = nil, _ more: [String] = []) -> [String] {
    let start = "202612\(day < 10 ? "0" : "")\(day)T090000"
    return [
      "BEGIN:VEVENT", "UID:\(uid)", "SEQUENCE:\(sequence)", "SUMMARY:\(title ?? uid)", "DTSTART:\(start)",
      "DURATION:PT1H",
    ] + more + ["END:VEVENT"]
  }

  /// What the sink got, each event once (a later copy in place of the first, by ordinal),
  /// the batch sizes, and how the reading ended.
  func streamed(_ text: String, batchSize: Int) -> (
    events: [Appointment], batches: [Int], outcome: ICalendar.StreamedRead
  ) {
    final class Got {
      var byOrdinal: [Int: Appointment] = [:]
      var batches: [Int] = []
    }
    let got = Got()
    let outcome = ICalendar.read(bytes: Array(text.utf8), clock: clock, batchSize: batchSize) { items in
      got.batches.append(items.count)
      for item in items { got.byOrdinal[item.ordinal] = item.appointment }
      return true
    }
    return (got.byOrdinal.keys.sorted().compactMap { got.byOrdinal[$0] }, got.batches, outcome)
  }

  @Test("an event of appt's (\"<id>@appt\") keeps its id; any other event, or an override, has a random one")
  func randomIDs() throws {
    let own = AppointmentID()
    let text = calendar(
      event("\(own)@appt", day: 1) + event("other@example.com", day: 2)
        + event("\(own)@appt", day: 3, ["RECURRENCE-ID:20261201T090000"]) + event("not-an-id@appt", day: 4)
    )
    final class Got {
      var items: [ICalendar.ImportItem] = []
    }
    let got = Got()
    _ = ICalendar.read(bytes: Array(text.utf8), clock: clock, batchSize: 10) { items in
      got.items += items
      return true
    }
    #expect(got.items.map(\.hasRandomID) == [false, true, true, true])
    #expect(got.items.first?.appointment.id == own)
    #expect(Set(got.items.map(\.appointment.id)).count == 4)
  }

  @Test("events come a batch at a time, at most batchSize held, the same as a whole read")
  func batches() throws {
    var lines: [String] = []
    for day in 1...10 { lines += event("e\(day)@x", day: day) }
    let text = calendar(lines)
    let (events, batches, outcome) = streamed(text, batchSize: 3)
    #expect(batches == [3, 3, 3, 1])
    guard case .read(let result) = outcome else {
      Issue.record("not read to the end: \(outcome)")
      return
    }
    #expect(result.mostHeld == 3, "never more than one batch held")
    #expect(result.appointments.isEmpty && result.count == 10 && result.eventCount == 10)
    let whole = ICalendar.read(text, clock: clock)
    #expect(whole.mostHeld == 10 && whole.count == 10)
    #expect(events.map(\.uid) == whole.appointments.map(\.uid))
    #expect(events.map(\.start) == whole.appointments.map(\.start))
  }

  @Test("a later copy of a UID handed over already comes again under its ordinal; an older one does not")
  func laterCopies() throws {
    let text = calendar(
      event("a@x", day: 1, sequence: 1) + event("b@x", day: 2, sequence: 1) + event("c@x", day: 3)
        + event("a@x", day: 4, sequence: 2, title: "a, moved") + event("b@x", day: 5, title: "b, older")
    )
    let (events, batches, outcome) = streamed(text, batchSize: 2)
    #expect(batches == [2, 2])
    guard case .read(let result) = outcome else {
      Issue.record("not read to the end")
      return
    }
    #expect(result.count == 3)
    let whole = ICalendar.read(text, clock: clock)
    #expect(events.map(\.title) == ["a, moved", "b@x", "c@x"])
    #expect(events.map(\.title) == whole.appointments.map(\.title))
    #expect(result.notices == whole.notices && result.problems == whole.problems)
  }

  @Test("problems and notices come at the end with their lines, as a whole read has them")
  func problemsAtTheEnd() throws {
    let text = calendar(
      event("a@x", day: 1) + ["X-WHAT"] + event("b@x", day: 2) + ["BEGIN:VEVENT", "UID:c@x", "END:VEVENT"]
        + ["BEGIN:VTODO", "END:VTODO"]
    )
    let (events, _, outcome) = streamed(text, batchSize: 1)
    guard case .read(let result) = outcome else {
      Issue.record("not read to the end")
      return
    }
    let whole = ICalendar.read(text, clock: clock)
    #expect(!whole.problems.isEmpty && !whole.notices.isEmpty)
    #expect(result.problems == whole.problems && result.notices == whole.notices)
    #expect(result.eventCount == whole.eventCount && events.count == whole.appointments.count)
  }

  @Test("a VTIMEZONE or X-WR-TIMEZONE after the first event, a second or a nested VCALENDAR: read it whole")
  func readWhole() {
    let zone = [
      "BEGIN:VTIMEZONE", "TZID:Custom", "BEGIN:STANDARD", "DTSTART:19700101T000000", "TZOFFSETFROM:+0500",
      "TZOFFSETTO:+0500", "END:STANDARD", "END:VTIMEZONE",
    ]
    let late = calendar(event("a@x", day: 1) + zone)
    let lateWR = calendar(event("a@x", day: 1) + ["X-WR-TIMEZONE:Asia/Tokyo"])
    let two = calendar(event("a@x", day: 1)) + calendar(event("b@x", day: 2))
    let unclosed = (["BEGIN:VCALENDAR", "VERSION:2.0"] + event("a@x", day: 1)).joined(separator: "\r\n")
    // A VCALENDAR inside the one read, before its first event too (its events were lost).
    let nested = calendar(
      calendar(event("inner@x", day: 1)).split(separator: "\r\n").map(String.init) + event("a@x", day: 2)
    )
    let nestedLate = calendar(
      event("a@x", day: 2) + calendar(event("inner@x", day: 1)).split(separator: "\r\n").map(String.init)
    )
    #expect(ICalendar.read(nested, clock: clock).appointments.count == 2, "a whole read has both")
    for text in [late, lateWR, two, unclosed, nested, nestedLate] {
      guard case .readWhole = streamed(text, batchSize: 5).outcome else {
        Issue.record("streamed: \(text)")
        continue
      }
    }
    // Before the first event they are set up for it.
    let early = calendar(["X-WR-TIMEZONE:Asia/Tokyo"] + zone + event("a@x", day: 1))
    let (events, _, outcome) = streamed(early, batchSize: 5)
    guard case .read = outcome else {
      Issue.record("not streamed")
      return
    }
    #expect(events.map(\.start) == ICalendar.read(early, clock: clock).appointments.map(\.start))
    #expect(events.first?.timeZone == "Asia/Tokyo")
  }

  @Test("the sink stops the reading")
  func stop() {
    var lines: [String] = []
    for day in 1...6 { lines += event("e\(day)@x", day: day) }
    var calls = 0
    let outcome = ICalendar.read(bytes: Array(calendar(lines).utf8), clock: clock, batchSize: 2) { _ in
      calls += 1
      return false
    }
    guard case .stopped = outcome else {
      Issue.record("not stopped")
      return
    }
    #expect(calls == 1)
  }

  @Test("the reader holds one batch's keys; a copy in a later batch is found through its KeptEvents")
  func keysOfEarlierBatchesAreAskedFor() throws {
    /// A `KeptEvents` that records what it was asked and given.
    final class Spy: ICalendar.KeptEvents {
      var events = ICalendar.KeptEventsInMemory()
      var asked: [String] = []
      var batches: [Int] = []
      func kept(_ key: String) -> ICalendar.KeptEvent? {
        asked.append(key)
        return events.kept(key)
      }
      func keep(_ batch: [(key: String, event: ICalendar.KeptEvent)]) {
        batches.append(batch.count)
        events.keep(batch)
      }
    }
    var lines: [String] = []
    for day in 1...7 { lines += event("e\(day)@x", day: day, sequence: day == 3 ? 1 : 0) }
    // e2 again (higher SEQUENCE, kept) and e3 again (lower, not), two batches later; then an
    // override of e1 twice, in two batches.
    lines += event("e2@x", day: 12, sequence: 1, title: "e2 moved") + event("e3@x", day: 13)
    lines += event("e1@x", day: 20, ["RECURRENCE-ID:20261201T090000"]) + event("e9@x", day: 9)
    lines += event("e10@x", day: 10) + event("e1@x", day: 21, title: "again", ["RECURRENCE-ID:20261201T090000"])
    lines += event("e11@x", day: 11)
    let text = calendar(lines)
    let spy = Spy()
    final class Got { var byOrdinal: [Int: Appointment] = [:] }
    let got = Got()
    let outcome = ICalendar.read(bytes: Array(text.utf8), clock: clock, batchSize: 3, kept: spy) { items in
      for item in items { got.byOrdinal[item.ordinal] = item.appointment }
      return true
    }
    guard case .read(let result) = outcome else {
      Issue.record("not read to the end: \(outcome)")
      return
    }
    #expect(result.mostKeysHeld == 3, "one batch of keys; the rest went to the KeptEvents")
    // e2 is kept again with its new line and SEQUENCE; the keys of the last batch (e11),
    // which no event follows, are not kept.
    #expect(spy.batches == [3, 3, 3, 3], "\(spy.batches)")
    #expect(result.count == 11 && got.byOrdinal.count == 11)
    #expect(spy.asked.contains(ICalendar.keptKey(uid: "e2@x", recurrenceID: nil)))
    let titles = got.byOrdinal.keys.sorted().compactMap { got.byOrdinal[$0]?.title }
    #expect(titles.contains("e2 moved") && !titles.contains("e2@x"), "the higher SEQUENCE, under e2's ordinal")
    #expect(titles.contains("e3@x") && titles.contains("again"), "the lower SEQUENCE lost; the later override won")
    let whole = ICalendar.read(text, clock: clock)
    #expect(result.notices == whole.notices, "the same notes as a whole read: \(result.notices)")
    #expect(whole.notices.count == 3, "\(whole.notices)")
    #expect(whole.notices.first?.message.contains("also the event at line 10") == true)
  }
}
