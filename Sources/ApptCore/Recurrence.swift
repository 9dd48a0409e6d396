import Foundation

/// How an appointment repeats: the subset of RFC 5545 RRULE appt supports (FREQ, INTERVAL,
/// BYDAY for weekly rules, COUNT, UNTIL), stored and exchanged as RRULE text.
///
/// Occurrences keep the wall-clock time of the first one in the zone the series was entered
/// in, so a weekly 09:00 meeting stays at 09:00 local across daylight-saving changes. They are
/// computed only for the window asked for: an endless daily series costs nothing outside it.
public struct Recurrence: Hashable, Sendable {
  public enum Frequency: String, Hashable, Sendable, CaseIterable {
    case daily, weekly, monthly, yearly
  }

  /// ISO weekdays, Monday first (RRULE's MO...SU).
  public enum Weekday: Int, Hashable, Sendable, CaseIterable, Comparable {
    case monday = 0, tuesday, wednesday, thursday, friday, saturday, sunday

    public static func < (lhs: Self, rhs: Self) -> Bool { lhs.rawValue < rhs.rawValue }

    /// RRULE's two-letter code.
    public var code: String { ["MO", "TU", "WE", "TH", "FR", "SA", "SU"][rawValue] }

    public init?(code: String) {
      guard let index = ["MO", "TU", "WE", "TH", "FR", "SA", "SU"].firstIndex(of: code.uppercased()) else { return nil }
      self.init(rawValue: index)
    }

    /// `mon`, `monday`, `tue`, `tues`, ... as typed after `--on`.
    public init?(name: String) {
      let names: [String: Weekday] = [
        "mon": .monday, "monday": .monday, "tue": .tuesday, "tues": .tuesday, "tuesday": .tuesday,
        "wed": .wednesday, "wednesday": .wednesday, "thu": .thursday, "thur": .thursday, "thurs": .thursday,
        "thursday": .thursday, "fri": .friday, "friday": .friday, "sat": .saturday, "saturday": .saturday,
        "sun": .sunday, "sunday": .sunday,
      ]
      guard let day = names[name.lowercased()] else { return nil }
      self = day
    }
  }

  public var frequency: Frequency
  /// Every `interval` days, weeks, months or years (1 or more).
  public var interval: Int
  /// For weekly rules, the days of the week; empty means the first occurrence's weekday.
  public var weekdays: [Weekday]
  /// At most this many occurrences (exceptions still count, as in RFC 5545).
  public var count: Int?
  /// No occurrence starts after this instant (at most `AppointmentRules.latest`: no
  /// occurrence can be later anyway, and a later UNTIL could not be written as RRULE text).
  public var until: Date?

  public init(frequency: Frequency, interval: Int = 1, weekdays: [Weekday] = [], count: Int? = nil, until: Date? = nil)
  {
    self.frequency = frequency
    self.interval = max(1, interval)
    self.weekdays = Array(Set(weekdays)).sorted()
    self.count = count
    self.until = until.map { min($0, AppointmentRules.latest) }
  }

  // MARK: - Occurrences

  /// The starts of the occurrences of a series first starting at `start` and lasting
  /// `duration`, that intersect `window`, in order. `zone` is the series' own zone. A series
  /// ends where `AppointmentRules.supportedTimes` does: no occurrence ends after it.
  public func occurrences(start: Date, duration: TimeInterval, zone: TimeZone, in window: DateInterval) -> [Date] {
    var result: [Date] = []
    let notBefore = window.start.addingTimeInterval(-duration)
    forEachOccurrence(start: start, duration: duration, zone: zone, notBefore: notBefore) { occurrence in
      if occurrence >= window.end { return false }
      if occurrence.addingTimeInterval(duration) > window.start { result.append(occurrence) }
      return true
    }
    return result
  }

  /// The start of the last occurrence (of those lasting `duration` that end by
  /// `AppointmentRules.latest`), or nil when the series never ends.
  public func lastOccurrence(start: Date, duration: TimeInterval = 0, zone: TimeZone) -> Date? {
    guard count != nil || until != nil else { return nil }
    var last: Date?
    forEachOccurrence(start: start, duration: duration, zone: zone, notBefore: nil) { occurrence in
      last = occurrence
      return true
    }
    return last
  }

  /// Calls `body` with each occurrence start in order until it returns false or the series
  /// ends, at the latest with the last occurrence lasting `duration` that ends by
  /// `AppointmentRules.latest`. Without a COUNT, iteration starts at the period just before
  /// `notBefore` instead of at the first occurrence (a COUNT must be counted from the start).
  private func forEachOccurrence(
    start: Date,
    duration: TimeInterval,
    zone: TimeZone,
    notBefore: Date?,
    _ body: (Date) -> Bool
  ) {
    let latestStart = AppointmentRules.latest.addingTimeInterval(-max(0, duration))
    guard start <= latestStart else { return }
    var calendar = Calendar(identifier: .gregorian)
    calendar.timeZone = zone
    calendar.firstWeekday = 2
    let first = calendar.dateComponents([.year, .month, .day, .hour, .minute, .second], from: start)
    let firstDay = calendar.startOfDay(for: start)
    var period = 0
    var emitted = 0
    // Daily and plain weekly rules yield exactly one occurrence per period, so even a COUNT
    // can be skipped ahead: the periods jumped over are occurrences already counted.
    let onePerPeriod = frequency == .daily || (frequency == .weekly && weekdays.isEmpty)
    if count == nil || onePerPeriod, let notBefore, notBefore > start {
      // Past the end of the supported times there is nothing to find (and nothing to count).
      guard notBefore <= latestStart else { return }
      period = max(0, periodsBetween(firstDay, calendar.startOfDay(for: notBefore), calendar: calendar) - 1)
      if count != nil { emitted = period }
    }
    // A safety bound: no rule in this subset yields an empty run of this many periods.
    var idlePeriods = 0
    while idlePeriods < 400 {
      var produced = false
      for day in days(ofPeriod: period, firstDay: firstDay, first: first, calendar: calendar) {
        guard let occurrence = wallClock(day: day, first: first, calendar: calendar), occurrence >= start else {
          continue
        }
        if let until, occurrence > until { return }
        if occurrence > latestStart { return }
        if let count, emitted >= count { return }
        emitted += 1
        produced = true
        if !body(occurrence) { return }
      }
      idlePeriods = produced ? 0 : idlePeriods + 1
      period += 1
    }
  }

  /// Whole periods (of `interval` units) from `firstDay` to `day`, rounded down.
  private func periodsBetween(_ firstDay: Date, _ day: Date, calendar: Calendar) -> Int {
    let unit: Calendar.Component
    switch frequency {
    case .daily: unit = .day
    case .weekly: unit = .weekOfYear
    case .monthly: unit = .month
    case .yearly: unit = .year
    }
    let elapsed = calendar.dateComponents([unit], from: firstDay, to: day).value(for: unit) ?? 0
    return max(0, elapsed / interval)
  }

  /// The candidate days (local midnights) of one period, in order; days that do not exist
  /// (31 April, 29 February in a common year) are skipped, as RFC 5545 says.
  private func days(ofPeriod period: Int, firstDay: Date, first: DateComponents, calendar: Calendar) -> [Date] {
    let step = period * interval
    switch frequency {
    case .daily:
      return calendar.date(byAdding: .day, value: step, to: firstDay).map { [$0] } ?? []
    case .weekly:
      let weekStart = calendar.dateInterval(of: .weekOfYear, for: firstDay)?.start ?? firstDay
      guard let week = calendar.date(byAdding: .weekOfYear, value: step, to: weekStart) else { return [] }
      let wanted = weekdays.isEmpty ? [Self.weekday(of: firstDay, calendar: calendar)] : weekdays
      return wanted.compactMap { calendar.date(byAdding: .day, value: $0.rawValue, to: week) }
    case .monthly, .yearly:
      guard let year = first.year, let month = first.month, let day = first.day else { return [] }
      let months = frequency == .monthly ? step : step * 12
      let total = (year * 12 + month - 1) + months
      var components = DateComponents(year: total / 12, month: total % 12 + 1, day: 1)
      guard let monthStart = calendar.date(from: components),
        let length = calendar.range(of: .day, in: .month, for: monthStart)?.count, day <= length
      else { return [] }
      components.day = day
      return calendar.date(from: components).map { [$0] } ?? []
    }
  }

  /// `day` at the first occurrence's wall-clock time (a time in a DST gap moves forward).
  private func wallClock(day: Date, first: DateComponents, calendar: Calendar) -> Date? {
    var components = calendar.dateComponents([.year, .month, .day], from: day)
    components.hour = first.hour
    components.minute = first.minute
    components.second = first.second
    return calendar.date(from: components)
  }

  static func weekday(of date: Date, calendar: Calendar) -> Weekday {
    // Calendar: 1 = Sunday ... 7 = Saturday.
    Weekday(rawValue: (calendar.component(.weekday, from: date) + 5) % 7) ?? .monday
  }

  // MARK: - RRULE text

  /// `FREQ=WEEKLY;INTERVAL=2;BYDAY=MO,WE;COUNT=10` (UNTIL as UTC `YYYYMMDDTHHMMSSZ`).
  public var rrule: String {
    var parts = ["FREQ=\(frequency.rawValue.uppercased())"]
    if interval != 1 { parts.append("INTERVAL=\(interval)") }
    if !weekdays.isEmpty { parts.append("BYDAY=" + weekdays.map(\.code).joined(separator: ",")) }
    if let count { parts.append("COUNT=\(count)") }
    if let until { parts.append("UNTIL=" + Self.utcStamp(until)) }
    return parts.joined(separator: ";")
  }

  /// Parses the RRULE subset appt represents faithfully; anything else is an error naming the
  /// part, never silently dropped.
  public init(rrule text: String) throws(CommandError) {
    var frequency: Frequency?
    var interval = 1
    var weekdays: [Weekday] = []
    var count: Int?
    var until: Date?
    for part in text.split(separator: ";") where !part.isEmpty {
      let pair = part.split(separator: "=", maxSplits: 1).map(String.init)
      guard pair.count == 2 else { throw .invalid("RRULE part \"\(part)\" is not NAME=VALUE") }
      let (name, value) = (pair[0].uppercased(), pair[1])
      switch name {
      case "FREQ":
        guard let parsed = Frequency(rawValue: value.lowercased()) else {
          throw .invalid("RRULE FREQ=\(value) is not supported (DAILY, WEEKLY, MONTHLY, YEARLY)")
        }
        frequency = parsed
      case "INTERVAL":
        guard let parsed = Int(value), (1...1000).contains(parsed) else {
          throw .invalid("RRULE INTERVAL=\(value) is not 1-1000")
        }
        interval = parsed
      case "COUNT":
        guard let parsed = Int(value), (1...100_000).contains(parsed) else {
          throw .invalid("RRULE COUNT=\(value) is not 1-100000")
        }
        count = parsed
      case "UNTIL":
        guard let parsed = Self.parseStamp(value) else { throw .invalid("RRULE UNTIL=\(value) is not a date") }
        until = parsed
      case "BYDAY":
        for code in value.split(separator: ",") {
          guard let day = Weekday(code: String(code)) else {
            throw .invalid("RRULE BYDAY=\(value): \"\(code)\" is not supported (plain MO...SU only)")
          }
          weekdays.append(day)
        }
      case "WKST":
        guard value.uppercased() == "MO" else { throw .invalid("RRULE WKST=\(value) is not supported (MO only)") }
      default:
        throw .invalid("RRULE part \(name) is not supported")
      }
    }
    guard let frequency else { throw .invalid("RRULE \"\(text)\" has no FREQ") }
    guard count == nil || until == nil else { throw .invalid("RRULE has both COUNT and UNTIL") }
    if !weekdays.isEmpty, frequency != .weekly { throw .invalid("RRULE BYDAY is supported for WEEKLY rules only") }
    self.init(frequency: frequency, interval: interval, weekdays: weekdays, count: count, until: until)
  }

  static func utcStamp(_ date: Date) -> String {
    var calendar = Calendar(identifier: .gregorian)
    calendar.timeZone = .gmt
    let c = calendar.dateComponents([.year, .month, .day, .hour, .minute, .second], from: date)
    func pad(_ value: Int?, _ width: Int) -> String {
      let text = String(value ?? 0)
      return String(repeating: "0", count: max(0, width - text.count)) + text
    }
    return pad(c.year, 4) + pad(c.month, 2) + pad(c.day, 2) + "T" + pad(c.hour, 2) + pad(c.minute, 2) + pad(c.second, 2)
      + "Z"
  }

  /// `YYYYMMDD` (end of that day, UTC) or `YYYYMMDDTHHMMSS[Z]` (UTC).
  static func parseStamp(_ text: String) -> Date? {
    let digits = text.filter(\.isNumber)
    guard digits.count == 8 || digits.count == 14, let year = Int(digits.prefix(4)),
      let month = Int(digits.dropFirst(4).prefix(2)), let day = Int(digits.dropFirst(6).prefix(2))
    else { return nil }
    var calendar = Calendar(identifier: .gregorian)
    calendar.timeZone = .gmt
    var components = DateComponents(year: year, month: month, day: day, hour: 23, minute: 59, second: 59)
    if digits.count == 14 {
      components.hour = Int(digits.dropFirst(8).prefix(2))
      components.minute = Int(digits.dropFirst(10).prefix(2))
      components.second = Int(digits.dropFirst(12).prefix(2))
    }
    guard (1...12).contains(month), (1...31).contains(day), let date = calendar.date(from: components),
      calendar.component(.day, from: date) == day
    else { return nil }
    return date
  }

  /// In words, for `show` and the detail pane: "every 2 weeks on Mon, Wed, 10 times".
  public var summary: String {
    let unit = ["daily": "day", "weekly": "week", "monthly": "month", "yearly": "year"][frequency.rawValue] ?? ""
    var text = interval == 1 ? "every \(unit)" : "every \(interval) \(unit)s"
    if !weekdays.isEmpty {
      text +=
        " on "
        + weekdays.map { ["Mon", "Tue", "Wed", "Thu", "Fri", "Sat", "Sun"][$0.rawValue] }.joined(separator: ", ")
    }
    if let count { text += count == 1 ? ", once" : ", \(count) times" }
    if let until { text += ", until " + String(Self.utcStamp(until).prefix(8)) }
    return text
  }
}
