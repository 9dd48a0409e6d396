import Foundation
import Testing

@testable import ApptCore

@Suite("Formatting")
struct FormattingTests {
  let formatter = AppointmentFormatter(clock: Fixture.clock)

  @Test("time range, day and text line")
  func textLine() {
    let a = Fixture.appointment()
    #expect(formatter.timeRange(a) == "10:00-10:45")
    #expect(formatter.day(a.start) == "Tue 2026-12-01")
    #expect(formatter.textLine(a) == "1a2b3c  Tue 2026-12-01  10:00-10:45  Dentist")
  }

  @Test("a line is its id, day, time range and title in any zone, near any change of offset")
  func lineAgreesWithItsParts() throws {
    // `appendTextLine` makes the common line in one piece (one offset look-up); `day` and
    // `timeRange` take the general path, which shows repeated hours and later days.
    var generator = SystemRandomNumberGenerator()
    let zones = ["UTC", "Europe/Berlin", "America/New_York", "Australia/Lord_Howe", "Asia/Kolkata"]
    // The changes of offset in 2027 of the zones with summer time, and plain days.
    let anchors = [
      "2027-03-28T01:00:00Z", "2027-10-31T01:00:00Z", "2027-03-14T07:00:00Z", "2027-11-07T06:00:00Z",
      "2027-04-03T15:00:00Z", "2027-10-02T15:30:00Z", "2027-06-15T12:00:00Z", "2027-01-01T00:00:00Z",
    ].map { Fixture.instant($0) }
    for zoneID in zones {
      let zone = try #require(TimeZone(identifier: zoneID))
      for timeFormat in TimeFormat.allCases {
        let formatter = AppointmentFormatter(clock: Clock.fixed(Fixture.now, timeZone: zone), timeFormat: timeFormat)
        for _ in 0..<300 {
          let anchor = try #require(anchors.randomElement(using: &generator))
          let start = anchor.addingTimeInterval(TimeInterval(Int.random(in: -8 * 3600...8 * 3600, using: &generator)))
          let minutes = [1, 15, 30, 60, 90, 180, 600, 1440, 1800].randomElement(using: &generator) ?? 30
          var a = Fixture.appointment(title: "x")
          a.start = start
          a.end = start.addingTimeInterval(TimeInterval(minutes * 60))
          a.isAllDay = Int.random(in: 0..<10, using: &generator) == 0
          let parts = "\(a.id.short)  \(formatter.day(a.start))  \(formatter.timeRange(a))  x"
          #expect(formatter.textLine(a) == parts, "\(zoneID) \(timeFormat) \(a.start) \(minutes) min")
        }
      }
    }
  }

  @Test("a cancelled appointment is marked")
  func cancelled() {
    let a = Fixture.appointment(status: .cancelled)
    #expect(formatter.textLine(a) == "1a2b3c  Tue 2026-12-01  10:00-10:45  Dentist  [cancelled]")
  }

  @Test("titles are escaped in text output")
  func escapedTitle() {
    let a = Fixture.appointment(title: "Evil\u{1B}]0;pwned\u{07}\u{9B}2J")
    #expect(formatter.textLine(a).hasSuffix("Evil^[]0;pwned^G\\u{9b}2J"))
    #expect(!formatter.textLine(a).unicodeScalars.contains(where: TextSafety.isControl))
  }

  /// Bidirectional controls must not reach stdout raw, or `list` could show a title other
  /// than the stored one (Trojan Source).
  @Test("invisible format controls are escaped in text output; emoji sequences are not")
  func escapedFormatControls() {
    let hostile = "safe\u{202E}txt.exe \u{2066}a\u{2069} \u{200E}\u{200F}\u{061C}\u{202A}\u{202D} z\u{200B}w\u{FEFF}"
    let a = Fixture.appointment(title: hostile, note: "n\u{2028}x\u{E0041}")
    #expect(
      formatter.textLine(a).hasSuffix(
        "safe\\u{202e}txt.exe \\u{2066}a\\u{2069} \\u{200e}\\u{200f}\\u{61c}\\u{202a}\\u{202d} z\\u{200b}w\\u{feff}"
      )
    )
    #expect(formatter.details(a).contains("note: n\\u{2028}x\\u{e0041}"), "a lone tag character is smuggled text")
    for line in [formatter.textLine(a)] + formatter.details(a) {
      #expect(!line.unicodeScalars.contains(where: TextSafety.isInvisibleFormat))
    }
    // Part of how text is written: ZWJ emoji, variation selectors, ZWNJ, a flag's tags.
    let kept =
      "👩\u{200D}👩\u{200D}👧 ❤\u{FE0F} می\u{200C}خواهم 🏴\u{E0067}\u{E0062}\u{E0065}\u{E006E}\u{E0067}\u{E007F} e\u{301}"
    #expect(TextSafety.escapingControls(kept) == kept)
    #expect(AppointmentFormatter.jsonString(kept) == "\"" + kept + "\"")
  }

  /// JSON stays exact data, but carries no raw bidirectional control either.
  @Test("JSON escapes invisible format controls losslessly")
  func jsonFormatControls() throws {
    let text = "a\u{202E}b\u{2066}c\u{E0041}d👩\u{200D}👩\u{200D}👧"
    let json = AppointmentFormatter.jsonString(text)
    #expect(json == "\"a\\u202eb\\u2066c\\udb40\\udc41d👩\u{200D}👩\u{200D}👧\"")
    let decoded = try JSONSerialization.jsonObject(with: Data(json.utf8), options: .fragmentsAllowed) as? String
    #expect(decoded == text)
  }

  @Test("ends at midnight, on a later day, before the start")
  func rangesAcrossDays() {
    #expect(
      formatter.timeRange(Fixture.appointment(start: "2026-12-01T23:00:00+01:00", end: "2026-12-02T00:00:00+01:00"))
        == "23:00-24:00"
    )
    #expect(
      formatter.timeRange(Fixture.appointment(start: "2026-12-01T23:00:00+01:00", end: "2026-12-02T01:30:00+01:00"))
        == "23:00-01:30+1d"
    )
    #expect(
      formatter.timeRange(Fixture.appointment(start: "2026-12-01T09:00:00+01:00", end: "2026-12-04T00:00:00+01:00"))
        == "09:00-00:00+3d"
    )
    #expect(
      formatter.timeRange(Fixture.appointment(start: "2026-12-01T00:00:00+01:00", end: "2026-12-02T00:00:00+01:00"))
        == "00:00-24:00"
    )
  }

  @Test("the day name follows the local zone, not UTC")
  func localDay() {
    // 23:30 UTC on Monday is 00:30 on Tuesday in Paris.
    #expect(formatter.day(Fixture.instant("2026-11-30T23:30:00Z")) == "Tue 2026-12-01")
    #expect(formatter.day(Fixture.instant("2026-11-30T22:59:59Z")) == "Mon 2026-11-30")
  }

  @Test(
    "every weekday name",
    arguments: [
      ("2026-11-30", "Mon"), ("2026-12-01", "Tue"), ("2026-12-02", "Wed"), ("2026-12-03", "Thu"),
      ("2026-12-04", "Fri"), ("2026-12-05", "Sat"), ("2026-12-06", "Sun"), ("2000-02-29", "Tue"),
      ("1970-01-01", "Thu"), ("9999-12-31", "Fri"),
    ]
  )
  func weekdays(date: String, name: String) {
    #expect(formatter.day(Fixture.instant("\(date)T12:00:00+01:00")) == "\(name) \(date)")
  }

  @Test("details: one key: value line per field, escaped")
  func details() {
    let a = Fixture.appointment(note: "line 1\nline 2")
    #expect(
      formatter.details(a) == [
        "id: 1a2b3c4d-0000-4000-8000-00000000abcd",
        "title: Dentist",
        "start: Tue 2026-12-01 10:00",
        "end: Tue 2026-12-01 10:45",
        "duration: 45m",
        "status: scheduled",
        "note: line 1^Jline 2",
        "created: Sun 2026-11-29 15:00",
        "updated: Sun 2026-11-29 15:30",
        "revision: 0",
      ]
    )
    #expect(formatter.details(Fixture.appointment()).contains("note:"))
  }

  @Test("ISO 8601 with the offset in force at each instant")
  func iso8601() {
    #expect(formatter.iso8601(Fixture.instant("2026-12-01T09:00:00Z")) == "2026-12-01T10:00:00+01:00")
    #expect(formatter.iso8601(Fixture.instant("2026-07-01T09:00:00Z")) == "2026-07-01T11:00:00+02:00")
    #expect(formatter.iso8601(Fixture.instant("2026-12-31T23:30:00Z")) == "2027-01-01T00:30:00+01:00")
    // Fractions of a second are truncated, not rounded.
    #expect(
      formatter.iso8601(Fixture.instant("2026-12-01T09:00:00Z").addingTimeInterval(59.999))
        == "2026-12-01T10:00:59+01:00"
    )
  }

  @Test("ISO 8601: a negative offset, an offset with seconds, the first and last years")
  func iso8601Edges() throws {
    let clock = { (zone: String) in
      Clock(timeZone: TimeZone(identifier: zone)!, now: { Date(timeIntervalSince1970: 0) })
    }
    let newYork = AppointmentFormatter(clock: clock("America/New_York"))
    #expect(newYork.iso8601(Fixture.instant("2026-12-01T09:05:07Z")) == "2026-12-01T04:05:07-05:00")
    // Paris kept its mean time, +00:09:21, until 1911.
    let paris = AppointmentFormatter(clock: clock("Europe/Paris"))
    #expect(paris.iso8601(Fixture.instant("1900-06-01T12:00:00Z")) == "1900-06-01T12:09:21+00:09:21")
    let utc = AppointmentFormatter(clock: clock("UTC"))
    #expect(utc.iso8601(Date(timeIntervalSince1970: -62_135_596_800)) == "0001-01-01T00:00:00+00:00")
    #expect(utc.iso8601(Date(timeIntervalSince1970: 253_402_300_799)) == "9999-12-31T23:59:59+00:00")
  }

  @Test("ISO 8601 in New York around the fall-back change, and in UTC")
  func iso8601Zones() {
    let ny = AppointmentFormatter(clock: Clock.fixed(Fixture.now, timeZone: Fixture.newYork))
    #expect(ny.iso8601(Fixture.instant("2026-11-01T05:30:00Z")) == "2026-11-01T01:30:00-04:00")
    #expect(ny.iso8601(Fixture.instant("2026-11-01T06:30:00Z")) == "2026-11-01T01:30:00-05:00")
    let utc = AppointmentFormatter(clock: Clock.fixed(Fixture.now, timeZone: TimeZone(identifier: "UTC")!))
    #expect(utc.iso8601(Fixture.instant("2026-12-01T09:00:00Z")) == "2026-12-01T09:00:00+00:00")
    let kolkata = AppointmentFormatter(clock: Clock.fixed(Fixture.now, timeZone: TimeZone(identifier: "Asia/Kolkata")!))
    #expect(kolkata.iso8601(Fixture.instant("2026-12-01T09:00:00Z")) == "2026-12-01T14:30:00+05:30")
  }

  @Test("the civil date computation agrees with Foundation's calendar")
  func civilMatchesCalendar() {
    var calendar = Calendar(identifier: .gregorian)
    calendar.timeZone = TimeZone(identifier: "UTC")!
    for days in stride(from: -1000, through: 3_000_000, by: 9973) {
      let date = Date(timeIntervalSince1970: TimeInterval(days) * 86_400)
      let expected = calendar.dateComponents([.year, .month, .day], from: date)
      let civil = AppointmentFormatter.civil(fromDays: days)
      #expect(civil.year == expected.year && civil.month == expected.month && civil.day == expected.day)
    }
  }

  @Test("JSON object: keys in order, ISO times")
  func json() {
    let a = Fixture.appointment(note: "bring card")
    #expect(
      formatter.jsonObject(a)
        == #"{"id":"1a2b3c4d-0000-4000-8000-00000000abcd","title":"Dentist","start":"2026-12-01T10:00:00+01:00","end":"2026-12-01T10:45:00+01:00","note":"bring card","status":"scheduled","created":"2026-11-29T15:00:00+01:00","updated":"2026-11-29T15:30:00+01:00","all_day":false,"repeat":null,"occurrence":null,"time_zone":"","revision":0,"location":"","reminders":[],"uid":"1a2b3c4d-0000-4000-8000-00000000abcd@appt","organizer":null,"attendees":[]}"#
    )
    #expect(formatter.jsonObject(Fixture.appointment(status: .cancelled)).contains(#""status":"cancelled""#))
  }

  @Test(
    "JSON string escaping",
    arguments: [
      ("plain", #""plain""#),
      (#"say "hi""#, #""say \"hi\"""#),
      (#"back\slash"#, #""back\\slash""#),
      ("a\nb\tc", #""a\nb\tc""#),
      ("\r\u{0}\u{1B}\u{7F}\u{9B}", #""\u000d\u0000\u001b\u007f\u009b""#),
      ("\u{2028}\u{2029}", #""\u2028\u2029""#),
      ("Café ☕️ 🗓", "\"Café ☕️ 🗓\""),
      ("/", #""/""#),
    ]
  )
  func jsonEscaping(text: String, expected: String) {
    #expect(AppointmentFormatter.jsonString(text) == expected)
  }

  @Test("the JSON line decodes back to the same fields")
  func jsonRoundTrip() throws {
    let title = "Tab\there \"quoted\" \\ \u{1B}[31mred\u{1B}[0m \u{2028} ü"
    let a = Fixture.appointment(title: title, note: "multi\nline\r\nnote")
    let line = formatter.jsonObject(a)
    #expect(!line.contains("\n"))
    let object = try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any]
    #expect(object?["title"] as? String == title)
    #expect(object?["note"] as? String == "multi\nline\r\nnote")
    #expect(object?["id"] as? String == a.id.description)
    #expect(
      object?.count == 18,
      "the eight base keys, then all_day, repeat, occurrence, time_zone, revision, location, reminders, and more"
    )
    #expect(object?["revision"] as? Int == 0)
  }

  @Test("the formatter is Sendable and usable from many tasks")
  func concurrentUse() async {
    let formatter = self.formatter
    let a = Fixture.appointment()
    let lines = await withTaskGroup(of: String.self) { group in
      for _ in 0..<16 { group.addTask { formatter.textLine(a) + formatter.jsonObject(a) } }
      var all: Set<String> = []
      for await line in group { all.insert(line) }
      return all
    }
    #expect(lines.count == 1)
  }
}

@Suite("Help text")
struct CommandHelpTests {
  static let commands = ["add", "list", "show", "edit", "cancel", "restore", "delete", "help"]

  @Test("the summary lists every command's usage line", arguments: commands)
  func summary(command: String) throws {
    let usage = try #require(CommandHelp.usage(for: command))
    let firstLine = try #require(usage.split(separator: "\n").first)
    #expect(firstLine.hasPrefix("usage: \(command)"))
    #expect(CommandHelp.summary.contains("  " + firstLine.dropFirst("usage: ".count) + "\n"))
  }

  @Test("every command the summary names parses as a help topic", arguments: commands)
  func topics(command: String) throws {
    #expect(try CommandParser(clock: Fixture.clock).parse(words: ["help", command]) == .help(topic: command))
  }

  @Test("unknown topics have no usage")
  func unknown() {
    #expect(CommandHelp.usage(for: "frobnicate") == nil)
    #expect(CommandHelp.usage(for: "") == nil)
  }

  @Test("help for a command explains the values it takes")
  func values() throws {
    let add = try #require(CommandHelp.usage(for: "add"))
    #expect(add.contains("WHEN "))
    #expect(add.contains("DURATION "))
    #expect(!add.contains("ID "))
    let show = try #require(CommandHelp.usage(for: "show"))
    #expect(show.contains("ID "))
    #expect(!show.contains("WHEN "))
  }
}
