import Foundation
import Synchronization

/// A reminder of an appointment: one VALARM (RFC 5545 section 3.6.6).
///
/// Alarms are not stored apart from the event: the VALARM blocks stay in `extras.lines`
/// exactly as read (or as appt wrote them), so export and sync carry them, unknown properties
/// and all, with no code of their own. `Alarm` is the parsed view of one block, and
/// `Appointment.setAlarms` the one way appt changes them.
public struct Alarm: Hashable, Sendable {
  public enum Trigger: Hashable, Sendable {
    /// Seconds from the occurrence's start (or its end, `toEnd`); negative is before, as in
    /// RFC 5545's TRIGGER. Whole days are calendar days in the appointment's zone.
    case relative(TimeInterval, toEnd: Bool)
    /// One instant, whatever the occurrence (on a series: once).
    case absolute(Date)
    /// A wall-clock time (minutes after midnight) on the day each occurrence starts, in the
    /// appointment's zone (`at 08:00`): 08:00 on a day the clocks change too, and a time in
    /// the spring gap as RFC 5545 reads one (02:30 is 03:30). iCalendar has no such trigger:
    /// it is written as `fallback` (seconds from the start it was set on) for other clients,
    /// with `X-APPT-TIME-OF-DAY` beside it for appt (see `timeOfDayLine`).
    case timeOfDay(minutes: Int, fallback: TimeInterval)
  }

  public var trigger: Trigger
  /// ACTION upper-cased: DISPLAY (the default when absent), AUDIO, EMAIL...
  public var action: String
  /// DESCRIPTION unescaped; "" when absent.
  public var description: String
  /// REPEAT: how many more times it fires after the trigger; 0 when absent.
  public var repeatCount: Int
  /// DURATION: the time between repetitions; 0 when absent.
  public var repeatInterval: TimeInterval
  /// The block as kept in extras, BEGIN:VALARM to END:VALARM: what is written back.
  public var lines: [String]

  /// A DISPLAY alarm with generated lines.
  public static func display(_ trigger: Trigger, description: String = "Reminder") -> Alarm {
    var lines = ["BEGIN:VALARM", "ACTION:DISPLAY", "DESCRIPTION:" + ICalendar.escape(description)]
    lines += triggerLines(trigger)
    lines.append("END:VALARM")
    return Alarm(
      trigger: trigger,
      action: "DISPLAY",
      description: description,
      repeatCount: 0,
      repeatInterval: 0,
      lines: lines
    )
  }

  /// Stable identity of the alarm inside its appointment: what it does and when, not how
  /// its lines are spelled. `setAlarms` keeps a block whose key is asked for again.
  public var key: String {
    var key: String
    switch trigger {
    case .relative(let offset, let toEnd): key = (toEnd ? "E" : "S") + String(Int64(offset.rounded()))
    case .absolute(let date): key = "A" + String(milliseconds(date))
    case .timeOfDay(let minutes, _): key = "T" + String(minutes)
    }
    if repeatCount > 0 { key += "R\(repeatCount)x\(Int64(repeatInterval.rounded()))" }
    return key + "/" + action
  }

  // MARK: - When it fires

  /// Every instant it fires for the occurrence [start, end): the trigger, then `repeatCount`
  /// more, `repeatInterval` apart. Whole days of a relative trigger count in `zone` (a day
  /// before 09:00 is 09:00 the day before, across a daylight-saving change too).
  public func triggers(start: Date, end: Date, zone: TimeZone = .gmt) -> [Date] {
    let first: Date
    switch trigger {
    case .absolute(let date): first = date
    case .relative(let offset, let toEnd): first = Self.shift(toEnd ? end : start, by: offset, in: zone)
    case .timeOfDay(let minutes, _):
      first = CivilDateTime(date: CivilDateTime(start, in: zone).date, hour: minutes / 60, minute: minutes % 60)
        .instant(in: zone)
    }
    guard repeatCount > 0, repeatInterval > 0 else { return [first] }
    return (0...repeatCount).map { first.addingTimeInterval(Double($0) * repeatInterval) }
  }

  /// `base` moved by `offset`: its whole days on the calendar of `zone`, the rest exactly.
  static func shift(_ base: Date, by offset: TimeInterval, in zone: TimeZone) -> Date {
    let days = Int(offset / 86_400)
    let rest = offset - Double(days) * 86_400
    guard days != 0 else { return base.addingTimeInterval(rest) }
    var calendar = Calendar(identifier: .gregorian)
    calendar.timeZone = zone
    let moved = calendar.date(byAdding: .day, value: days, to: base) ?? base.addingTimeInterval(Double(days) * 86_400)
    return moved.addingTimeInterval(rest)
  }

  // MARK: - Words

  /// "15 minutes before", "1 day before", "at the start", "10 minutes after the end",
  /// "at 2026-12-03 08:00" (an absolute one, in `clock`'s zone), then ", repeated 3 times
  /// every 5 minutes" when it repeats.
  public func summary(clock: Clock) -> String {
    var text: String
    switch trigger {
    case .absolute(let date):
      text = "at " + AppointmentFormatter(clock: clock).dayAndTime(date)
    case .timeOfDay(let minutes, _):
      text = "at " + Self.clockText(minutes) + " on its day"
    case .relative(let offset, let toEnd):
      let edge = toEnd ? "the end" : "the start"
      if offset == 0 {
        text = "at " + edge
      } else {
        let amount = Self.words(abs(offset))
        text = offset < 0 ? amount + " before" + (toEnd ? " the end" : "") : amount + " after " + edge
      }
    }
    if repeatCount > 0, repeatInterval > 0 {
      text += ", repeated \(repeatCount) time\(repeatCount == 1 ? "" : "s") every \(Self.words(repeatInterval))"
    }
    if action != "DISPLAY" { text += " (\(action.lowercased()))" }
    return text
  }

  /// "1 day 2 hours", "15 minutes", "1 week".
  static func words(_ seconds: TimeInterval) -> String {
    var rest = Int(seconds.rounded())
    var parts: [String] = []
    for (size, name) in [(604_800, "week"), (86_400, "day"), (3600, "hour"), (60, "minute"), (1, "second")] {
      let count = rest / size
      rest %= size
      if count > 0 { parts.append("\(count) \(name)\(count == 1 ? "" : "s")") }
    }
    return parts.isEmpty ? "0 minutes" : parts.joined(separator: " ")
  }

  /// The short spelling `parse` reads back: `15m` (before the start), `+10m` (after it), `0`
  /// (at it), `15m end` / `+10m end` / `0 end` (from the end), `@20261203T080000Z`.
  /// Repetitions are not spelled (JSON gives them apart).
  public var spec: String {
    switch trigger {
    case .absolute(let date): return "@" + Recurrence.utcStamp(date)
    case .timeOfDay(let minutes, _): return "at " + Self.clockText(minutes)
    case .relative(let offset, let toEnd):
      let amount = offset == 0 ? "0" : (offset > 0 ? "+" : "") + Self.compact(abs(offset))
      return toEnd ? amount + " end" : amount
    }
  }

  /// `08:00`.
  static func clockText(_ minutes: Int) -> String {
    (minutes / 60 < 10 ? "0" : "") + "\(minutes / 60):" + (minutes % 60 < 10 ? "0" : "") + "\(minutes % 60)"
  }

  /// `1d 2h30m`, `45s`: DurationParser's spelling, seconds when there are any.
  static func compact(_ seconds: TimeInterval) -> String {
    let whole = Int(seconds.rounded())
    guard whole % 60 != 0 else { return DurationParser.format(seconds).replacingOccurrences(of: " ", with: "") }
    return "\(whole)s"
  }

  // MARK: - Reading what a user typed

  /// Reads a `--remind` value (or the form's Remind field, one item):
  /// - `15m`, `1h30m`, `1d`, `2w`, `-15m`: that long before the start;
  /// - `+10m`: after the start; `0`: at the start;
  /// - any of these followed by `end`: from the end instead;
  /// - `at 08:00` (or `at 8am`): that wall time on the day each occurrence starts, in the
  ///   appointment's zone (`zone` gives the offset written for other clients);
  /// - `@20261203T080000Z` (or `@2026-12-03T08:00:00Z`): at that UTC instant, once.
  public static func parse(_ text: String, start: Date, zone: TimeZone) throws(CommandError) -> Alarm {
    let body = text.trimmingCharacters(in: .whitespaces).lowercased()
    let hint = "try 15m, 1h, 1d, +10m, 0, 10m end, at 08:00"
    guard !body.isEmpty else { throw .invalid("missing reminder: \(hint)") }
    if body.hasPrefix("@") {
      let stamp = body.dropFirst().uppercased().filter { $0 != "-" && $0 != ":" }
      guard case .success(let value) = ICalendar.DateValue.parse(stamp), value.isUTC, let date = value.instant(in: .gmt)
      else {
        throw .invalid("invalid reminder \(WhenParser.quoted(text)): not a UTC instant like @20261203T080000Z")
      }
      return .display(.absolute(date))
    }
    if body.hasPrefix("at ") {
      let word = body.dropFirst(3).trimmingCharacters(in: .whitespaces)
      guard let minutes = try WhenParser.parseTime(word, input: text, context: "reminder") else {
        throw .invalid(
          "invalid reminder \(WhenParser.quoted(text)): \(WhenParser.quoted(word)) is not a time (\(hint))"
        )
      }
      let wall = CivilDateTime(date: CivilDateTime(start, in: zone).date, hour: minutes / 60, minute: minutes % 60)
      return .display(.timeOfDay(minutes: minutes, fallback: wall.instant(in: zone).timeIntervalSince(start)))
    }
    var amount = Substring(body)
    var toEnd = false
    if amount.hasSuffix(" end") || amount == "end" {
      toEnd = true
      amount = amount.dropLast(3)
      amount = amount.drop { $0 == " " }
      while amount.last == " " { amount = amount.dropLast() }
    }
    var sign = -1.0
    if amount.hasPrefix("+") {
      sign = 1
      amount = amount.dropFirst()
    } else if amount.hasPrefix("-") {
      amount = amount.dropFirst()
    }
    if amount == "0" || amount.isEmpty && toEnd { return .display(.relative(0, toEnd: toEnd)) }
    let seconds: TimeInterval
    do throws(CommandError) {
      seconds = try Self.amount(String(amount))
    } catch {
      throw .invalid("invalid reminder \(WhenParser.quoted(text)): \(hint)")
    }
    return .display(.relative(sign * seconds, toEnd: toEnd))
  }

  /// A reminder's amount: DurationParser's (`15m`, `1h30m`, `1d`) plus weeks and seconds.
  private static func amount(_ text: String) throws(CommandError) -> TimeInterval {
    if text.hasSuffix("w"), let weeks = Int(text.dropLast()), (1...52).contains(weeks) {
      return Double(weeks) * 604_800
    }
    if text.hasSuffix("s"), let seconds = Int(text.dropLast()), (1...86_400).contains(seconds) {
      return Double(seconds)
    }
    return try DurationParser.parse(text)
  }

  // MARK: - VALARM lines

  /// The alarm one VALARM block says; nil when its TRIGGER cannot be read.
  static func read(block lines: [String]) -> Alarm? {
    var trigger: Trigger?
    var action = "DISPLAY"
    var description = ""
    var repeatCount = 0
    var repeatInterval: TimeInterval = 0
    var triggerValue = ""
    var timeOfDay: ICalendar.ContentLine?
    var depth = 0
    for text in lines {
      guard let line = ICalendar.contentLine(text, line: 0) else { continue }
      if line.name == "BEGIN" {
        depth += 1
        continue
      }
      if line.name == "END" {
        depth -= 1
        continue
      }
      guard depth == 1 else { continue }  // a sub-component's properties are not the alarm's
      switch line.name {
      case "TRIGGER":
        trigger = readTrigger(line)
        triggerValue = line.value.trimmingCharacters(in: .whitespaces)
      case "X-APPT-TIME-OF-DAY": timeOfDay = line
      case "ACTION": action = line.value.uppercased()
      case "DESCRIPTION": description = ICalendar.unescape(line.value)
      case "REPEAT": repeatCount = max(0, Int(line.value.trimmingCharacters(in: .whitespaces)) ?? 0)
      case "DURATION": repeatInterval = signedDuration(line.value) ?? 0
      default: break
      }
    }
    guard var trigger else { return nil }
    // appt's wall-clock time, while the TRIGGER is the one written with it (another client
    // that changed the TRIGGER meant that one).
    if let timeOfDay, case .relative(let fallback, false) = trigger,
      timeOfDay.parameter("X-TRIGGER") == triggerValue, let minutes = Self.minutes(timeOfDay.value)
    {
      trigger = .timeOfDay(minutes: minutes, fallback: fallback)
    }
    return Alarm(
      trigger: trigger,
      action: action,
      description: description,
      repeatCount: repeatCount,
      repeatInterval: max(0, repeatInterval),
      lines: lines
    )
  }

  private static func readTrigger(_ line: ICalendar.ContentLine) -> Trigger? {
    if line.parameter("VALUE")?.uppercased() == "DATE-TIME" {
      guard case .success(let value) = ICalendar.DateValue.parse(line.value), value.isUTC else { return nil }
      return value.instant(in: .gmt).map(Trigger.absolute)
    }
    guard let offset = signedDuration(line.value) else { return nil }
    return .relative(offset, toEnd: line.parameter("RELATED")?.uppercased() == "END")
  }

  /// A DURATION value with its sign, in seconds (a day is 86,400 here; `triggers` counts
  /// whole days on the calendar).
  static func signedDuration(_ text: String) -> TimeInterval? {
    var body = Substring(text.trimmingCharacters(in: .whitespaces))
    var sign = 1.0
    if body.hasPrefix("-") {
      sign = -1
      body = body.dropFirst()
    } else if body.hasPrefix("+") {
      body = body.dropFirst()
    }
    guard case .success(let value) = ICalendar.DurationValue.parse(String(body)) else { return nil }
    return sign * (Double(value.days) * 86_400 + Double(value.seconds))
  }

  /// TRIGGER as appt writes it (and for a time of day, the line that says so after it).
  static func triggerLines(_ trigger: Trigger) -> [String] {
    switch trigger {
    case .absolute(let date):
      return ["TRIGGER;VALUE=DATE-TIME:" + Recurrence.utcStamp(date)]
    case .relative(let offset, let toEnd):
      return ["TRIGGER" + (toEnd ? ";RELATED=END" : "") + ":" + durationText(offset)]
    case .timeOfDay(let minutes, let fallback):
      let value = durationText(fallback)
      return ["TRIGGER:" + value, "X-APPT-TIME-OF-DAY;X-TRIGGER=\(value):" + clockText(minutes)]
    }
  }

  /// `08:00` as minutes after midnight; nil for anything else.
  static func minutes(_ text: String) -> Int? {
    let parts = text.trimmingCharacters(in: .whitespaces).split(separator: ":")
    guard parts.count == 2, parts.allSatisfy({ $0.count == 2 }), let hour = Int(parts[0]), let minute = Int(parts[1]),
      (0..<24).contains(hour), (0..<60).contains(minute)
    else { return nil }
    return hour * 60 + minute
  }

  /// `-PT15M`, `P1D`, `-P1DT2H`, `PT0S`.
  static func durationText(_ offset: TimeInterval) -> String {
    var rest = Int(abs(offset).rounded())
    let sign = offset < 0 ? "-" : ""
    guard rest > 0 else { return "PT0S" }
    if rest % 604_800 == 0 { return sign + "P\(rest / 604_800)W" }
    let days = rest / 86_400
    rest %= 86_400
    var text = sign + "P" + (days > 0 ? "\(days)D" : "")
    guard rest > 0 else { return text }
    text += "T"
    if rest / 3600 > 0 { text += "\(rest / 3600)H" }
    if rest % 3600 / 60 > 0 { text += "\(rest % 3600 / 60)M" }
    if rest % 60 > 0 { text += "\(rest % 60)S" }
    return text
  }
}

// MARK: - The alarms of an appointment

extension Appointment {
  /// The VALARMs it carries, in order. A block whose TRIGGER appt cannot read is kept (and
  /// written back) but not listed: it cannot fire.
  public var alarms: [Alarm] {
    AlarmReads.counter?.add()
    return Self.alarmBlocks(extras.lines).compactMap { Alarm.read(block: Array(extras.lines[$0])) }
  }

  /// Whether it carries a VALARM at all: cheaper than `alarms` for a whole window (but a
  /// caller that then wants them reads `alarms` alone: it costs no more when there are none).
  public var hasAlarms: Bool {
    AlarmReads.counter?.add()
    return extras.lines.contains { $0.count == 12 && $0.uppercased() == "BEGIN:VALARM" }
  }

  /// Replaces its alarms with `alarms`, in that order, after the other extras lines. An alarm
  /// asked for again (the same `key`) keeps its block as it was, X- properties and all; a
  /// block appt cannot read stays.
  public mutating func setAlarms(_ alarms: [Alarm]) {
    let blocks = Self.alarmBlocks(extras.lines)
    var kept: [Alarm] = []
    var unreadable: [[String]] = []
    for block in blocks {
      let lines = Array(extras.lines[block])
      if let alarm = Alarm.read(block: lines) { kept.append(alarm) } else { unreadable.append(lines) }
    }
    var others = extras.lines
    for block in blocks.reversed() { others.removeSubrange(block) }
    var written: [String] = []
    for alarm in alarms {
      if let index = kept.firstIndex(where: { $0.key == alarm.key }) {
        written += kept.remove(at: index).lines
      } else {
        written += alarm.lines
      }
    }
    extras.lines = others + unreadable.joined() + written
  }

  /// Where each top-level VALARM block of `lines` is (BEGIN to END, inclusive).
  static func alarmBlocks(_ lines: [String]) -> [Range<Int>] {
    var blocks: [Range<Int>] = []
    var depth = 0
    var begin: Int?
    for (index, line) in lines.enumerated() {
      // Only a line that starts with b, e (either case) or a non-ASCII scalar can uppercase to
      // BEGIN: or END: (ASCII uppercases to ASCII, one for one): the rest are not copied.
      guard let first = line.utf8.first, first >= 0x80 || first | 0x20 == 0x62 || first | 0x20 == 0x65 else {
        continue
      }
      let upper = line.uppercased()
      if upper.hasPrefix("BEGIN:") {
        if depth == 0, upper == "BEGIN:VALARM" { begin = index }
        depth += 1
      } else if upper.hasPrefix("END:") {
        depth -= 1
        if depth == 0, let start = begin {
          blocks.append(start..<(index + 1))
          begin = nil
        }
      }
    }
    return blocks
  }

  /// The firings of its alarms, as the occurrence (or one-off) it is, in `range` (an absolute
  /// trigger only when `includeAbsolute`: a series fires those once, not per occurrence).
  /// `alarms`: its alarms when read already (a series' serve each of its occurrences, which
  /// carry its extras), so a window reads each row's once.
  public func alarmInstances(
    in range: DateInterval,
    zone fallback: TimeZone,
    includeAbsolute: Bool = true,
    alarms known: [Alarm]? = nil
  ) -> [AlarmInstance] {
    guard !isCancelled else { return [] }
    let zone = zone(fallback: fallback)
    var found: [AlarmInstance] = []
    for alarm in known ?? alarms {
      if case .absolute = alarm.trigger, !includeAbsolute { continue }
      for (repetition, fireAt) in alarm.triggers(start: start, end: end, zone: zone).enumerated()
      where range.start <= fireAt && fireAt < range.end {
        found.append(AlarmInstance(appointment: self, alarm: alarm, repetition: repetition, fireAt: fireAt))
      }
    }
    return found
  }
}

/// One firing of one alarm of one occurrence: what the reminder daemon fires and records.
public struct AlarmInstance: Hashable, Sendable {
  /// The occurrence (or one-off) as a window shows it.
  public var appointment: Appointment
  public var alarm: Alarm
  /// 0 for the trigger, 1... for its REPEATs.
  public var repetition: Int
  public var fireAt: Date

  public init(appointment: Appointment, alarm: Alarm, repetition: Int, fireAt: Date) {
    self.appointment = appointment
    self.alarm = alarm
    self.repetition = repetition
    self.fireAt = fireAt
  }

  /// `<stored id>/<occurrence ms>/<alarm key>/<repetition>/<fire ms>`, what a fired record is
  /// kept by. The stored id is the series' for any of its occurrences (overridden or not) and
  /// the occurrence its original start; a one-off's occurrence is 0, and so is an absolute
  /// trigger's (it fires once for the series). Moving the appointment moves `fireAt`, so the
  /// moved alarm is a new instance.
  public var key: String {
    let a = appointment
    let stored = a.override?.seriesID ?? a.id
    var occurrence: Int64 = 0
    if case .relative = alarm.trigger {
      if let recurrenceID = a.override?.recurrenceID, a.override?.seriesID != nil {
        occurrence = milliseconds(recurrenceID)
      } else if let start = a.occurrence {
        occurrence = milliseconds(start)
      }
    }
    return "\(stored)/\(occurrence)/\(alarm.key)/\(repetition)/\(milliseconds(fireAt))"
  }

  /// By firing time, then key.
  public static func ordered(_ a: AlarmInstance, _ b: AlarmInstance) -> Bool {
    a.fireAt != b.fireAt ? a.fireAt < b.fireAt : a.key < b.key
  }
}

/// Milliseconds since 1970, rounded: how keys spell instants (the store's unit).
private func milliseconds(_ date: Date) -> Int64 { Int64((date.timeIntervalSince1970 * 1000).rounded()) }

/// Counts the reads of appointments' alarms from their extras (`alarms`, `hasAlarms`) while a
/// test sets `counter`: the tests that hold a window, a list or a row to one read per row.
/// Outside them nil, and nothing is counted.
public enum AlarmReads {
  @TaskLocal public static var counter: Counter?

  public final class Counter: Sendable {
    private let value = Atomic<Int>(0)

    public init() {}

    public var count: Int { value.load(ordering: .relaxed) }

    func add() { value.add(1, ordering: .relaxed) }
  }
}
