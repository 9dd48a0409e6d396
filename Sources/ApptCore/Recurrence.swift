import Foundation

/// How an appointment repeats: RFC 5545's RRULEs (every part) and RDATEs. EXDATEs are the
/// appointment's `exceptions`; overridden occurrences (RECURRENCE-ID) are appointments of
/// their own that name the series. `RecurrenceSet` does the expansion.
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

  /// The RRULEs (RFC 5545 allows several; their instances are merged).
  public var rules: [RecurrenceRule]
  /// Extra occurrences (RDATE), in the order they were written.
  public var dates: [RecurrenceDate]

  public init(rules: [RecurrenceRule], dates: [RecurrenceDate] = []) {
    self.rules = rules
    self.dates = dates
  }

  /// The common rule the grammar writes: every `interval` days, weeks, months or years, on
  /// `weekdays` (weekly), at most `count` times or until the instant `until` (kept at most
  /// `AppointmentRules.latest`: no occurrence can be later, and RRULE text could not say it).
  public init(frequency: Frequency, interval: Int = 1, weekdays: [Weekday] = [], count: Int? = nil, until: Date? = nil)
  {
    let rule = RecurrenceRule(
      frequency: frequency.ruleFrequency,
      interval: max(1, interval),
      count: count,
      until: until.map { .utc(CivilDateTime(min($0, AppointmentRules.latest), in: .gmt)) },
      byDay: Array(Set(weekdays)).sorted().map { RecurrenceRule.WeekdayNumber($0) }
    )
    self.init(rules: [rule])
  }

  // MARK: - The common rule's parts (the grammar's and the form's view of the first rule)

  /// The first rule's frequency, when it is one the grammar offers (nil for HOURLY and finer,
  /// or an RDATE-only set).
  public var frequency: Frequency? { rules.first.flatMap { Frequency(rule: $0.frequency) } }
  public var interval: Int { rules.first?.interval ?? 1 }
  public var count: Int? { rules.first?.count }
  /// The first rule's plain weekdays (BYDAY without ordinals).
  public var weekdays: [Weekday] { rules.first?.byDay.filter { $0.ordinal == nil }.map(\.weekday) ?? [] }
  /// The first rule's UNTIL as an instant, read as `Until.instant(zone:)` reads it in UTC;
  /// setting it writes a UTC UNTIL (and drops a COUNT).
  public var until: Date? {
    get { rules.first?.until.map { $0.instant(in: .gmt) } }
    set {
      guard !rules.isEmpty else { return }
      rules[0].until = newValue.map { .utc(CivilDateTime(min($0, AppointmentRules.latest), in: .gmt)) }
      if newValue != nil { rules[0].count = nil }
    }
  }

  // MARK: - Occurrences

  /// The set a series starting at `start` in `zone` expands, without `exceptions` (EXDATE
  /// instants).
  /// `allDay`: the series starts on a DATE (the rules' times of day do not apply). DTSTART is
  /// the first occurrence even where the rules do not produce it, as Google and other readers
  /// show it; `onlyRuleStarts` leaves it out then (to find where the rules begin, or count them).
  public func set(
    start: Date,
    zone: TimeZone,
    exceptions: [Date] = [],
    allDay: Bool = false,
    onlyRuleStarts: Bool = false
  ) -> RecurrenceSet {
    RecurrenceSet(
      start: start,
      zone: zone,
      rules: rules,
      rdates: dates,
      exdates: exceptions.map { .instant($0) },
      includesUnmatchedStart: !onlyRuleStarts,
      isDateStart: allDay
    )
  }

  /// The starts of the occurrences of a series first starting at `start` and lasting
  /// `duration`, that intersect `window`, in order. `zone` is the series' own zone. A series
  /// ends where `AppointmentRules.supportedTimes` does: no occurrence ends after it. An RDATE
  /// PERIOD lasts its own length: `periodLength(at:)` says how long.
  public func occurrences(
    start: Date,
    duration: TimeInterval,
    zone: TimeZone,
    exceptions: [Date] = [],
    allDay: Bool = false,
    in window: DateInterval
  ) -> [Date] {
    let longest = max(duration, longestPeriod)
    let latestStart = AppointmentRules.latest.addingTimeInterval(-max(0, duration))
    return set(start: start, zone: zone, exceptions: exceptions, allDay: allDay)
      .occurrences(from: window.start.addingTimeInterval(-longest), to: window.end)
      .filter { occurrence in
        // One of no length at the window's start is in it: it starts there.
        occurrence <= latestStart
          && (occurrence.addingTimeInterval(periodLength(at: occurrence) ?? duration) > window.start
            || occurrence >= window.start)
      }
  }

  /// How long the occurrence starting at `instant` lasts when an RDATE PERIOD gave it its own
  /// length; nil when it lasts the series' duration.
  public func periodLength(at instant: Date) -> TimeInterval? {
    for case .period(let start, let length) in dates where start == instant { return length }
    return nil
  }

  private var longestPeriod: TimeInterval {
    var longest: TimeInterval = 0
    for case .period(_, let length) in dates { longest = max(longest, length) }
    return longest
  }

  /// An instant no occurrence ends after, or nil when the series never ends: the window
  /// query's bound. It may be later than the last occurrence's end (an UNTIL is taken as
  /// given, plus a day for a local one); it is never earlier.
  public func seriesEnd(start: Date, duration: TimeInterval, zone: TimeZone, allDay: Bool = false) -> Date? {
    var end = start.addingTimeInterval(duration)
    for date in dates {
      switch date {
      case .instant(let instant): end = max(end, instant.addingTimeInterval(duration))
      case .period(let instant, let length): end = max(end, instant.addingTimeInterval(length))
      case .local(let local): end = max(end, local.instant(in: zone).addingTimeInterval(duration + 86400))
      case .date(let day):
        end = max(end, CivilDateTime(date: day).instant(in: zone).addingTimeInterval(duration + 2 * 86400))
      }
    }
    for rule in rules {
      if let until = rule.until {
        end = max(end, until.instant(in: zone).addingTimeInterval(duration + 2 * 86400))
      } else if rule.count != nil {
        let only = Recurrence(rules: [rule])
        let starts = only.set(start: start, zone: zone, allDay: allDay)
          .occurrences(from: start, to: AppointmentRules.latest)
        if let last = starts.last { end = max(end, last.addingTimeInterval(duration)) }
      } else {
        return nil
      }
    }
    return min(end, AppointmentRules.latest)
  }

  /// The start of the last occurrence (of those lasting `duration` that end by
  /// `AppointmentRules.latest`), or nil when the series never ends. It expands the whole
  /// series: for reports and tests, not for windows (`seriesEnd` bounds those).
  public func lastOccurrence(start: Date, duration: TimeInterval = 0, zone: TimeZone, allDay: Bool = false) -> Date? {
    guard let bound = seriesEnd(start: start, duration: duration, zone: zone, allDay: allDay) else { return nil }
    // A second past the bound: the last occurrence of a series of moments starts at it.
    let window = DateInterval(start: start, end: bound.addingTimeInterval(1))
    return occurrences(start: start, duration: duration, zone: zone, allDay: allDay, in: window).last
  }

  static func weekday(of date: Date, calendar: Calendar) -> Weekday {
    // Calendar: 1 = Sunday ... 7 = Saturday.
    Weekday(rawValue: (calendar.component(.weekday, from: date) + 5) % 7) ?? .monday
  }

  // MARK: - RRULE text

  /// The rules as RRULE text, one per line (`FREQ=WEEKLY;BYDAY=MO,WE;COUNT=10`): how the
  /// store keeps them.
  public var rrule: String { rules.map(\.text).joined(separator: "\n") }

  /// Reads rules written as `rrule` writes them (one per line; a leading `RRULE:` is taken).
  /// Every RFC 5545 part is read; what cannot be interpreted is an error naming the part.
  public init(rrule text: String) throws(CommandError) {
    // One canonical rule, as most series have: no lines to split.
    if let rule = RecurrenceRule.parsingCanonical(text) {
      self.init(rules: [rule])
      return
    }
    var rules: [RecurrenceRule] = []
    for line in text.split(whereSeparator: \.isNewline) where !line.allSatisfy(\.isWhitespace) {
      do {
        rules.append(try RecurrenceRule(parsing: String(line)))
      } catch {
        throw .invalid(error.description)
      }
    }
    guard !rules.isEmpty else { throw .invalid("RRULE \"\(text)\" has no FREQ") }
    self.init(rules: rules)
  }

  public static func utcStamp(_ date: Date) -> String {
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
}

extension Recurrence.Frequency {
  var ruleFrequency: RecurrenceRule.Frequency {
    switch self {
    case .daily: return .daily
    case .weekly: return .weekly
    case .monthly: return .monthly
    case .yearly: return .yearly
    }
  }

  init?(rule: RecurrenceRule.Frequency) {
    switch rule {
    case .daily: self = .daily
    case .weekly: self = .weekly
    case .monthly: self = .monthly
    case .yearly: self = .yearly
    default: return nil
    }
  }
}
