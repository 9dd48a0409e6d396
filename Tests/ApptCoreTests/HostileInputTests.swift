import Foundation
import Testing

@testable import ApptCore

/// Hostile input about text and values: one set of rules for every way in,
/// the supported range of times, and lines of any length.
@Suite("Hostile input: rules, times, lines")
struct HostileInputTests {
  let parser = CommandParser(clock: Fixture.clock)  // Paris

  func failure(_ line: String) -> CommandError? {
    do throws(CommandError) {
      _ = try parser.parse(line: line)
      return nil
    } catch {
      return error
    }
  }

  func calendar(_ lines: [String]) -> String {
    (["BEGIN:VCALENDAR", "VERSION:2.0"] + lines + ["END:VCALENDAR"]).joined(separator: "\r\n") + "\r\n"
  }

  /// One VEVENT: BEGIN:VEVENT is line 3, the first of `lines` line 4.
  func event(_ lines: String...) -> String { calendar(["BEGIN:VEVENT"] + lines + ["END:VEVENT"]) }

  func read(_ text: String) -> ICalendar.ReadResult { ICalendar.read(text, clock: Fixture.clock) }

  // MARK: - The supported times

  @Test("the supported range: every zone sees a Gregorian date with a four-digit year")
  func supportedRangeEdges() throws {
    #expect(AppointmentRules.utcText(AppointmentRules.earliest) == "1583-01-01 00:00 UTC")
    #expect(AppointmentRules.utcText(AppointmentRules.latest) == "9999-12-31 00:00 UTC")
    for identifier in ["Pacific/Kiritimati", "Pacific/Pago_Pago", "Asia/Manila", "America/Sitka", "Europe/Paris"] {
      let zone = Fixture.zone(identifier)
      for edge in [AppointmentRules.earliest, AppointmentRules.latest] {
        let local = ICalendar.DateValue.local(edge, in: zone, dateOnly: false)
        #expect((1582...9999).contains(local.year), "\(identifier): \(local.text)")
        #expect(local.instant(in: zone) == edge, "\(identifier) gives the instant back")
      }
    }
  }

  /// `--at "9999-12-31 23:30" --for 1h` once stored an end in year 10000.
  @Test("add and edit refuse times outside the range, naming the input")
  func parserRefusesOutOfRangeTimes() {
    let message = failure("add X --at \"9999-12-31 23:30\" --for 1h")?.message
    #expect(
      message == "add: --at \"9999-12-31 23:30\" --for \"1h\": the start 9999-12-31 22:30 UTC is out of range: "
        + "appt keeps times from 1583-01-01 00:00 to 9999-12-31 00:00 UTC"
    )
    #expect(failure("add X --at \"9999-12-31 00:30\" --for 1h")?.message.contains("the end 9999-12-31 00:30") == true)
    #expect(failure("add X --at \"9999-12-30 23:30\" --for 2h")?.message.contains("the end 9999-12-31 00:30") == true)
    #expect(failure("add X --at 9999-12-31")?.kind == .invalid, "a whole day ending in year 10000")
    #expect(
      failure("edit 1a2b3c --at \"9999-12-31 10:00\"")?.message.hasPrefix("edit: --at \"9999-12-31 10:00\"") == true
    )
    #expect(failure("add X --at \"9999-12-31 00:00\" --for 1h") == nil, "ending at the last instant (01:00 in Paris)")
  }

  @Test("a series near the end of the range stops there")
  func seriesStopAtTheEndOfTheRange() throws {
    let start = Fixture.instant("9999-12-01T10:00:00+01:00")
    let daily = Recurrence(frequency: .daily)
    let all = daily.occurrences(
      start: start,
      duration: 3600,
      zone: Fixture.paris,
      in: DateInterval(start: start, end: AppointmentRules.latest + 400 * 86_400)
    )
    #expect(all.count == 30, "1 to 30 December; the 31st would end after 9999-12-31 00:00 UTC")
    #expect(all.allSatisfy { $0.addingTimeInterval(3600) <= AppointmentRules.latest })
    // A window entirely after the range, and a COUNT that would run 270 centuries further.
    #expect(
      daily.occurrences(
        start: start,
        duration: 3600,
        zone: Fixture.paris,
        in: DateInterval(start: AppointmentRules.latest + 86_400, duration: 86_400)
      ).isEmpty
    )
    let yearly = Recurrence(frequency: .yearly, count: 100_000)
    let last = try #require(yearly.lastOccurrence(start: Fixture.now, duration: 3600, zone: Fixture.paris))
    #expect(last == Fixture.instant("9999-11-29T15:00:00+01:00"))
    let weekly = Recurrence(frequency: .weekly, weekdays: [.monday, .friday], count: 100_000)
    let lastWeekly = try #require(weekly.lastOccurrence(start: start, duration: 3600, zone: Fixture.paris))
    #expect(lastWeekly <= AppointmentRules.latest)
    // An UNTIL past the range (a whole last day in a zone west of UTC) is kept within it, so
    // the RRULE text stays readable.
    let endless = Recurrence(frequency: .daily, until: Fixture.instant("10000-01-01T04:59:59Z"))
    #expect(endless.until == AppointmentRules.latest)
    #expect(try Recurrence(rrule: endless.rrule) == endless)
  }

  @Test("the edge appointments survive export and import")
  func edgeRoundTrip() throws {
    var series = Appointment(
      title: "Last days",
      start: Fixture.instant("9999-12-20T10:00:00+01:00"),
      end: Fixture.instant("9999-12-20T11:00:00+01:00"),
      created: Fixture.now,
      timeZone: "Europe/Paris",
      recurrence: Recurrence(frequency: .daily, until: AppointmentRules.latest)
    )
    series.uid = "series@example.com"
    var zones: [Appointment] = [series]
    for identifier in ["Pacific/Kiritimati", "Pacific/Pago_Pago", "America/New_York", "Asia/Manila"] {
      var last = Appointment(
        title: "Last \(identifier)",
        start: AppointmentRules.latest - 3600,
        end: AppointmentRules.latest,
        created: Fixture.now,
        timeZone: identifier
      )
      last.uid = "last-\(identifier)@example.com"
      var first = Appointment(
        title: "First \(identifier)",
        start: AppointmentRules.earliest,
        end: AppointmentRules.earliest + 3600,
        created: Fixture.now,
        timeZone: identifier
      )
      first.uid = "first-\(identifier)@example.com"
      zones += [last, first]
    }
    let text = ICalendar.write(zones, fallbackZone: Fixture.paris)
    let back = read(text)
    #expect(back.problems == [])
    #expect(back.appointments.map(\.start) == zones.map(\.start))
    #expect(back.appointments.map(\.end) == zones.map(\.end))
    #expect(back.appointments.first?.recurrence == series.recurrence)
  }

  // MARK: - Import applies the rules

  /// A 5,000-character SUMMARY, a 50,000-character DESCRIPTION and a raw NUL were once
  /// imported.
  @Test("import refuses what add refuses, per event, at the property's line")
  func importAppliesTheRules() {
    let long = String(repeating: "s", count: 5_000)
    let note = String(repeating: "d", count: 50_000)
    let result = read(
      calendar([
        "BEGIN:VEVENT", "UID:a", "DTSTART:20261201T100000Z", "DTEND:20261201T110000Z", "SUMMARY:\(long)", "END:VEVENT",
        "BEGIN:VEVENT", "UID:b", "DTSTART:20261201T100000Z", "DTEND:20261201T110000Z", "DESCRIPTION:\(note)",
        "END:VEVENT",
        "BEGIN:VEVENT", "UID:c", "DTSTART:20261201T100000Z", "DTEND:20261201T110000Z", "SUMMARY:a\u{0}b", "END:VEVENT",
        "BEGIN:VEVENT", "UID:d", "DTSTART:99991231T233000Z", "DTEND:99991231T235900Z", "END:VEVENT",
        "BEGIN:VEVENT", "UID:e", "DTSTART:15000101T100000Z", "DTEND:15000101T110000Z", "END:VEVENT",
        "BEGIN:VEVENT", "UID:f", "DTSTART:99991230T233000Z", "DURATION:PT1H", "END:VEVENT",
        "BEGIN:VEVENT", "UID:ok", "DTSTART:20261201T100000Z", "DTEND:20261201T110000Z", "SUMMARY:Fine", "END:VEVENT",
      ])
    )
    #expect(result.appointments.map(\.title) == ["Fine"])
    let range = "out of range: appt keeps times from 1583-01-01 00:00 to 9999-12-31 00:00 UTC"
    #expect(
      result.problems.map(\.description) == [
        "7: SUMMARY: the title is 5000 characters long; at most 500",
        "13: DESCRIPTION: the note is 50000 characters long; at most 10000",
        "19: SUMMARY: the title holds a NUL byte at character 2",
        "23: the start 9999-12-31 23:30 UTC is \(range)",
        "28: the start 1500-01-01 10:00 UTC is \(range)",
        "34: the end 9999-12-31 00:30 UTC is \(range)",
      ]
    )
  }

  @Test("a yearly birthday from 1604 (Apple's year for a birthday without one) imports")
  func oldBirthdays() throws {
    let result = read(
      event(
        "UID:bday",
        "DTSTART;VALUE=DATE:16040615",
        "RRULE:FREQ=YEARLY",
        "SUMMARY:Birthday",
        "X-APPLE-OMIT-YEAR:1604"
      )
    )
    #expect(result.problems == [])
    #expect(result.appointments.first?.title == "Birthday")
  }

  @Test("a file with a byte order mark imports")
  func importSkipsABOM() {
    let text = "\u{FEFF}" + event("UID:x", "DTSTART:20261201T100000Z", "DTEND:20261201T110000Z", "SUMMARY:Bom")
    #expect(read(text).problems == [])
    #expect(read(text).appointments.map(\.title) == ["Bom"])
  }

  // MARK: - The rules themselves

  @Test("the rules, field by field")
  func rules() {
    func violation(_ a: Appointment) -> AppointmentRules.Violation? {
      do throws(AppointmentRules.Violation) {
        try AppointmentRules.validate(a)
        return nil
      } catch {
        return error
      }
    }
    let good = Fixture.appointment()
    #expect(violation(good) == nil)
    var a = good
    a.title = String(repeating: "x", count: 501)
    #expect(violation(a) == .init(.title, "the title is 501 characters long; at most 500"))
    a.title = "e" + String(repeating: "\u{301}", count: 100_000)  // one character, 200 kB
    #expect(violation(a) == .init(.title, "the title is 200001 bytes long; at most 8000"))
    a = good
    a.note = String(repeating: "x", count: 10_000)
    #expect(violation(a) == nil, "exactly at the limit")
    a.note += "x"
    #expect(violation(a)?.field == .note)
    a = good
    a.uid = "u\u{1B}"
    #expect(violation(a)?.field == .uid)
    a = good
    a.exceptions = [AppointmentRules.latest + 86_400]
    #expect(violation(a)?.field == .exceptions)
    a = good
    a.end = a.start.addingTimeInterval(DurationParser.maximum + 60)
    #expect(violation(a) == .init(.end, "an appointment cannot last more than 366 days"))
  }

  // MARK: - Lines

  func lines(_ bytes: [UInt8], limit: Int = 16, chunkSize: Int = 65_536) -> [LineReader.Line] {
    var reader = LineReader(bytes: bytes, limit: limit, chunkSize: chunkSize)
    var out: [LineReader.Line] = []
    while let line = reader.next() { out.append(line) }
    return out
  }

  func text(_ string: String) -> LineReader.Line { .text(Array(string.utf8)) }

  @Test("lines split the same whatever the reads deliver", arguments: [1, 2, 3, 7, 65_536])
  func linesAcrossReads(chunkSize: Int) {
    let input = Array("add a\n\nlist\r\nlast without newline".utf8)
    #expect(
      lines(input, limit: 100, chunkSize: chunkSize) == [
        text("add a"), text(""), text("list\r"), text("last without newline"),
      ]
    )
    #expect(lines([], chunkSize: chunkSize) == [])
    #expect(lines(Array("one\n".utf8), chunkSize: chunkSize) == [text("one")])
  }

  /// A UTF-8 BOM before a script's first line once made it "unknown command".
  @Test("a byte order mark is skipped at the start of the input only", arguments: [1, 2, 65_536])
  func byteOrderMark(chunkSize: Int) {
    let bom: [UInt8] = [0xEF, 0xBB, 0xBF]
    #expect(
      lines(bom + Array("list\n".utf8) + bom + Array("x\n".utf8), chunkSize: chunkSize) == [
        text("list"), .text(bom + Array("x".utf8)),
      ]
    )
    #expect(lines(bom, chunkSize: chunkSize) == [text("")])
  }

  /// A 32 MB line once took 6 s and 100 MB with no newline over a minute (the buffer was
  /// rescanned from the line's start after every read).
  @Test("a line longer than the limit is skipped and reported; the next one reads", arguments: [1, 5, 65_536])
  func longLines(chunkSize: Int) {
    let exactly = String(repeating: "a", count: 16)
    let input = Array("\(exactly)\n\(exactly)b\nnext\n\(String(repeating: "c", count: 40))".utf8)
    #expect(
      lines(input, chunkSize: chunkSize) == [
        text(exactly), .tooLong(byteCount: 17), text("next"), .tooLong(byteCount: 40),
      ]
    )
  }

  @Test("an endless line is counted, not kept")
  func endlessLine() {
    // 64 MB of one line through a source that never holds more than one read.
    var remaining = 64 << 20
    var reader = LineReader(limit: LineReader.maximumLineLength) { buffer in
      let count = min(buffer.count, remaining)
      for index in 0..<count { buffer[index] = 0x78 }
      remaining -= count
      return count
    }
    #expect(reader.next() == .tooLong(byteCount: 64 << 20))
    #expect(reader.next() == nil)
    #expect(LineReader.maximumLineLength == 1_048_576)
  }
}
