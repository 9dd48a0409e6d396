import Foundation
import Testing

@testable import ApptCore

/// Alarms (VALARM) as values: reading the blocks kept in extras, when each fires (with a
/// fixed clock, never the wall clock), what a user types, and changing them without loss.
@Suite("Alarms")
struct AlarmTests {
  let paris = TimeZone(identifier: "Europe/Paris") ?? .gmt
  var clock: Clock { Clock.fixed(date(2026, 12, 1, 12), timeZone: paris) }

  func date(_ y: Int, _ m: Int, _ d: Int, _ h: Int = 0, _ min: Int = 0, zone: TimeZone? = nil) -> Date {
    var calendar = Calendar(identifier: .gregorian)
    calendar.timeZone = zone ?? paris
    return calendar.date(from: DateComponents(year: y, month: m, day: d, hour: h, minute: min)) ?? .distantPast
  }

  func event(_ start: Date, minutes: Int = 60, alarms: [[String]]) -> Appointment {
    Appointment(
      title: "Standup",
      start: start,
      end: start.addingTimeInterval(Double(minutes) * 60),
      created: start,
      timeZone: "Europe/Paris",
      extras: ICalendarExtras(lines: ["X-KEPT:1"] + alarms.flatMap { $0 })
    )
  }

  func block(_ lines: String...) -> [String] { ["BEGIN:VALARM"] + lines + ["END:VALARM"] }

  @Test("show and JSON read a row's alarms from its extras once each, with or without any")
  func formattingReadsAlarmsOnce() {
    let formatter = AppointmentFormatter(clock: clock)
    let with = event(date(2026, 12, 3, 9), alarms: [block("ACTION:DISPLAY", "TRIGGER:-PT15M")])
    let without = event(date(2026, 12, 3, 9), alarms: [])
    for (a, reminders) in [(with, 1), (without, 0)] {
      let counter = AlarmReads.Counter()
      let (json, details) = AlarmReads.$counter.withValue(counter) { (formatter.jsonObject(a), formatter.details(a)) }
      #expect(counter.count == 2, "one read for the JSON, one for show")
      #expect(json.contains("\"reminders\":[" + (reminders == 0 ? "]" : "{")))
      #expect(details.filter { $0.hasPrefix("reminder: ") }.count == reminders)
    }
  }

  @Test("a relative trigger fires before the start, one related to the end after the end")
  func relative() throws {
    let start = date(2026, 12, 3, 9)
    let a = event(
      start,
      alarms: [block("ACTION:DISPLAY", "TRIGGER:-PT15M"), block("ACTION:DISPLAY", "TRIGGER;RELATED=END:PT10M")]
    )
    let alarms = a.alarms
    try #require(alarms.count == 2)
    #expect(alarms[0].triggers(start: a.start, end: a.end) == [start.addingTimeInterval(-900)])
    #expect(alarms[1].triggers(start: a.start, end: a.end) == [a.end.addingTimeInterval(600)])
    #expect(alarms[0].summary(clock: clock) == "15 minutes before")
    #expect(alarms[1].summary(clock: clock) == "10 minutes after the end")
    #expect(alarms[0].spec == "15m")
    #expect(alarms[1].spec == "+10m end")
  }

  @Test("an absolute trigger fires at its instant, wherever the appointment is")
  func absolute() throws {
    let a = event(date(2026, 12, 3, 9), alarms: [block("ACTION:DISPLAY", "TRIGGER;VALUE=DATE-TIME:20261202T170000Z")])
    let alarm = try #require(a.alarms.first)
    let fire = date(2026, 12, 2, 17, zone: .gmt)
    #expect(alarm.trigger == .absolute(fire))
    #expect(alarm.triggers(start: a.start, end: a.end) == [fire])
    #expect(alarm.summary(clock: clock) == "at Wed 2026-12-02 18:00")
    #expect(alarm.spec == "@20261202T170000Z")
    #expect(try Alarm.parse(alarm.spec, start: a.start, zone: paris).trigger == alarm.trigger)
  }

  @Test("whole days count on the calendar across a daylight-saving change")
  func daysAcrossDST() throws {
    // Sunday 29 March 2026 09:00 in Paris (CEST since 02:00 that morning); a day before is
    // Saturday 28 March 09:00 (CET): 23 hours earlier, not 24.
    let start = date(2026, 3, 29, 9)
    let alarm = try Alarm.parse("1d", start: start, zone: paris)
    #expect(alarm.triggers(start: start, end: start.addingTimeInterval(3600), zone: paris) == [date(2026, 3, 28, 9)])
    #expect(start.timeIntervalSince(date(2026, 3, 28, 9)) == 23 * 3600)
    // Minutes are exact: 15 minutes before 03:05 on the change day is 01:50 (wall), 15 minutes.
    let early = date(2026, 3, 29, 3, 5)
    let short = try Alarm.parse("15m", start: early, zone: paris)
    #expect(
      short.triggers(start: early, end: early.addingTimeInterval(600), zone: paris) == [early.addingTimeInterval(-900)]
    )
  }

  @Test("REPEAT and DURATION fire the alarm again, that far apart")
  func repeats() throws {
    let start = date(2026, 12, 3, 9)
    let a = event(start, alarms: [block("ACTION:AUDIO", "TRIGGER:-PT30M", "REPEAT:2", "DURATION:PT5M")])
    let alarm = try #require(a.alarms.first)
    #expect(alarm.action == "AUDIO")
    #expect(
      alarm.triggers(start: a.start, end: a.end)
        == [start.addingTimeInterval(-1800), start.addingTimeInterval(-1500), start.addingTimeInterval(-1200)]
    )
    #expect(alarm.summary(clock: clock) == "30 minutes before, repeated 2 times every 5 minutes (audio)")
  }

  @Test("whole-day appointments: a trigger counts from their midnight")
  func wholeDay() throws {
    let midnight = date(2026, 12, 24)
    var a = event(midnight, minutes: 24 * 60, alarms: [])
    a.isAllDay = true
    a.setAlarms([
      try Alarm.parse("at 08:00", start: midnight, zone: paris), try Alarm.parse("6h", start: midnight, zone: paris),
    ])
    let fires = a.alarms.flatMap { $0.triggers(start: a.start, end: a.end, zone: paris) }
    #expect(fires == [date(2026, 12, 24, 8), date(2026, 12, 23, 18)])
    #expect(a.alarms[0].summary(clock: clock) == "at 08:00 on its day")
  }

  @Test(
    "what a user types",
    arguments: [
      ("15m", -900.0, false), ("-15m", -900, false), ("1h30m", -5400, false), ("1d", -86400, false),
      ("2w", -1_209_600, false), ("+10m", 600, false), ("0", 0, false), ("10m end", -600, true),
      ("+5m end", 300, true), ("0 end", 0, true), ("end", 0, true), ("30s", -30, false),
    ]
  )
  func parse(text: String, offset: Double, toEnd: Bool) throws {
    let alarm = try Alarm.parse(text, start: date(2026, 12, 3, 9), zone: paris)
    #expect(alarm.trigger == .relative(offset, toEnd: toEnd))
    #expect(alarm.action == "DISPLAY")
    // What `spec` prints reads back the same.
    #expect(try Alarm.parse(alarm.spec, start: date(2026, 12, 3, 9), zone: paris) == alarm)
  }

  @Test("at HH:MM is that wall time on the occurrence's day, written as an offset for others")
  func atTime() throws {
    let start = date(2026, 12, 3, 14)
    let alarm = try Alarm.parse("at 08:00", start: start, zone: paris)
    #expect(alarm.trigger == .timeOfDay(minutes: 480, fallback: -6 * 3600))
    #expect(try Alarm.parse("at 8am", start: start, zone: paris) == alarm)
    #expect(
      alarm.lines == [
        "BEGIN:VALARM", "ACTION:DISPLAY", "DESCRIPTION:Reminder", "TRIGGER:-PT6H",
        "X-APPT-TIME-OF-DAY;X-TRIGGER=-PT6H:08:00", "END:VALARM",
      ]
    )
    #expect(alarm.spec == "at 08:00")
    #expect(try Alarm.parse(alarm.spec, start: start, zone: paris) == alarm)
    #expect(Alarm.read(block: alarm.lines) == alarm)
  }

  /// The night the clocks go forward (Paris, 28 March 2027): `at 08:00` of a whole day is
  /// 08:00 (it was 8 hours after midnight: 09:00), and `at 02:30`, in the gap, is 03:30 as
  /// RFC 5545 reads a time that does not exist (it was 03:00).
  @Test("at HH:MM stays on the wall clock the day the clocks change")
  func atTimeOnAClockChange() throws {
    let midnight = date(2027, 3, 27)
    var a = event(midnight, minutes: 24 * 60, alarms: [])
    a.isAllDay = true
    a.recurrence = Recurrence(frequency: .daily, count: 3)
    a.setAlarms([
      try Alarm.parse("at 08:00", start: midnight, zone: paris),
      try Alarm.parse("at 02:30", start: midnight, zone: paris),
    ])
    let sunday = date(2027, 3, 28)
    let fires = a.alarms.flatMap { $0.triggers(start: sunday, end: sunday.addingTimeInterval(23 * 3600), zone: paris) }
    #expect(fires == [Fixture.instant("2027-03-28T08:00:00+02:00"), Fixture.instant("2027-03-28T03:30:00+02:00")])
  }

  /// Another client that changes the TRIGGER meant its own: the time of day gives way.
  @Test("a TRIGGER changed by another client wins over appt's time of day")
  func atTimeChangedElsewhere() {
    let lines = [
      "BEGIN:VALARM", "ACTION:DISPLAY", "TRIGGER:-PT30M", "X-APPT-TIME-OF-DAY;X-TRIGGER=-PT6H:08:00", "END:VALARM",
    ]
    #expect(Alarm.read(block: lines)?.trigger == .relative(-1800, toEnd: false))
    var kept = lines
    kept[2] = "TRIGGER:-PT6H"
    #expect(Alarm.read(block: kept)?.trigger == .timeOfDay(minutes: 480, fallback: -6 * 3600))
  }

  @Test("a reminder that cannot be read says what to type", arguments: ["", "soon", "at lunch", "@tomorrow", "15x"])
  func refused(text: String) {
    let error = commandError { () throws(CommandError) in
      try Alarm.parse(text, start: Date(timeIntervalSince1970: 0), zone: .gmt)
    }
    let message = error?.message ?? ""
    #expect(message.hasPrefix(text.isEmpty ? "missing reminder" : "invalid reminder \"\(text)\""), "\(message)")
  }

  @Test("setAlarms keeps an alarm asked for again verbatim, and everything else")
  func setAlarmsKeeps() throws {
    let imported = block("ACTION:DISPLAY", "trigger:-PT15M", "DESCRIPTION:Stand up", "X-WR-ALARMUID:abc")
    var a = event(date(2026, 12, 3, 9), alarms: [imported, block("ACTION:DISPLAY", "TRIGGER:-P1D")])
    let fifteen = try Alarm.parse("15m", start: a.start, zone: paris)
    let ten = try Alarm.parse("10m", start: a.start, zone: paris)
    a.setAlarms([fifteen, ten])
    #expect(a.extras.lines == ["X-KEPT:1"] + imported + ten.lines)
    #expect(a.alarms.map(\.spec) == ["15m", "10m"])
    #expect(a.alarms[0].description == "Stand up")
    a.setAlarms([])
    #expect(a.extras.lines == ["X-KEPT:1"])
    #expect(!a.hasAlarms)
  }

  @Test("a block without a readable TRIGGER is kept but not listed")
  func unreadable() {
    var a = event(date(2026, 12, 3, 9), alarms: [block("ACTION:DISPLAY", "TRIGGER:soon")])
    #expect(a.alarms.isEmpty)
    #expect(a.hasAlarms)
    a.setAlarms([])
    #expect(a.extras.lines.contains("TRIGGER:soon"))
  }

  @Test("generated lines are a DISPLAY VALARM another reader understands")
  func generated() throws {
    let alarm = Alarm.display(.relative(-86400 - 7200, toEnd: false))
    #expect(alarm.lines == ["BEGIN:VALARM", "ACTION:DISPLAY", "DESCRIPTION:Reminder", "TRIGGER:-P1DT2H", "END:VALARM"])
    #expect(Alarm.read(block: alarm.lines) == alarm)
    #expect(Alarm.display(.relative(1_209_600, toEnd: true)).lines[3] == "TRIGGER;RELATED=END:P2W")
    #expect(Alarm.display(.relative(0, toEnd: false)).lines[3] == "TRIGGER:PT0S")
  }

  @Test("instances of one occurrence: in the range only, none when cancelled, keys by occurrence")
  func instances() throws {
    let start = date(2026, 12, 3, 9)
    var a = event(start, alarms: [block("TRIGGER:-PT15M", "REPEAT:1", "DURATION:PT10M")])
    let all = a.alarmInstances(in: DateInterval(start: start.addingTimeInterval(-3600), end: start), zone: paris)
    #expect(all.map(\.fireAt) == [start.addingTimeInterval(-900), start.addingTimeInterval(-300)])
    #expect(all.map(\.repetition) == [0, 1])
    #expect(all[0].key != all[1].key)
    let later = a.alarmInstances(in: DateInterval(start: start.addingTimeInterval(-600), end: start), zone: paris)
    #expect(later.map(\.repetition) == [1])
    a.status = .cancelled
    #expect(a.alarmInstances(in: DateInterval(start: start.addingTimeInterval(-3600), end: start), zone: paris).isEmpty)
  }
}
