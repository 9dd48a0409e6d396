import Foundation

/// Any recurrence in English words, for `show` and the detail pane: "every 2nd Tuesday of the
/// month, until 30 June 2027", "every weekday", "every year on the 4th Thursday of November",
/// "every 2 weeks on Monday and Wednesday, 10 times", "on the last weekday of the month".
///
/// Every RRULE part is said (WKST aside: it only decides which weeks an interval counts);
/// several rules are joined with "; and ", RDATEs are counted ("and 3 more dates").
extension Recurrence {
  /// In words, with UNTIL dates as `zone` reads them (the series' own zone).
  public func summary(in zone: TimeZone) -> String {
    var parts = rules.map { RuleWords(rule: $0, zone: zone).text }
    if dates.isEmpty { return parts.joined(separator: "; and ") }
    if parts.isEmpty {
      // DTSTART and the RDATEs.
      return "on \(dates.count + 1) dates"
    }
    parts.append(dates.count == 1 ? "1 more date" : "\(dates.count) more dates")
    return parts.dropLast().joined(separator: "; and ") + " and " + (parts.last ?? "")
  }

  /// `summary(in:)` with UNTIL read in UTC.
  public var summary: String { summary(in: .gmt) }
}

/// One rule in words.
struct RuleWords {
  let rule: RecurrenceRule
  let zone: TimeZone

  static let dayNames = ["Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday"]
  static let monthNames = [
    "January", "February", "March", "April", "May", "June", "July", "August", "September", "October", "November",
    "December",
  ]

  var text: String {
    var text = core
    if !rule.byHour.isEmpty || !rule.byMinute.isEmpty || !rule.bySecond.isEmpty { text += times }
    if let count = rule.count { text += count == 1 ? ", once" : ", \(count) times" }
    if let until = rule.until { text += ", until " + Self.dateWords(untilDate(until)) }
    return text
  }

  // MARK: - The period and its days

  private var unit: String {
    switch rule.frequency {
    case .secondly: "second"
    case .minutely: "minute"
    case .hourly: "hour"
    case .daily: "day"
    case .weekly: "week"
    case .monthly: "month"
    case .yearly: "year"
    }
  }

  /// "every month", "every 2 months".
  private var every: String { rule.interval == 1 ? "every \(unit)" : "every \(rule.interval) \(unit)s" }

  private var plainDays: [Recurrence.Weekday] { rule.byDay.filter { $0.ordinal == nil }.map(\.weekday) }
  private var hasOrdinals: Bool { rule.byDay.contains { $0.ordinal != nil } }
  private static let weekdaySet: Set<Recurrence.Weekday> = [.monday, .tuesday, .wednesday, .thursday, .friday]

  /// What the period, its days and BYSETPOS say, without times, COUNT or UNTIL.
  private var core: String {
    let limits = monthAndWeekLimits  // " in November", " in week 20"
    if !rule.bySetPos.isEmpty { return setPosition + limits }
    switch rule.frequency {
    case .weekly:
      guard !rule.byDay.isEmpty else { return every + limits }
      if rule.interval == 1, Set(plainDays) == Self.weekdaySet, !hasOrdinals, rule.byDay.count == 5 {
        return "every weekday" + limits
      }
      if rule.interval == 1, Set(plainDays).count == 7 { return "every day" + limits }
      return every + " on " + Self.list(weekdayWords) + limits
    case .daily, .hourly, .minutely, .secondly:
      var text = every
      if rule.frequency == .daily, rule.interval == 1, !rule.byDay.isEmpty {
        if Set(plainDays) == Self.weekdaySet, rule.byDay.count == 5 {
          text = "every weekday"
        } else {
          text = "every " + Self.list(weekdayWords)
        }
      } else if !rule.byDay.isEmpty {
        text += " on " + Self.list(weekdayWords.map { $0 + "s" })
      }
      if !rule.byMonthDay.isEmpty {
        text += " on the " + Self.list(rule.byMonthDay.map(Self.monthDay)) + " of the month"
      }
      if !rule.byYearDay.isEmpty { text += " on " + yearDays }
      return text + limits
    case .monthly:
      if !rule.byDay.isEmpty, rule.byMonthDay.isEmpty, rule.interval == 1, rule.byDay.count == 1, hasOrdinals {
        return "every " + weekdayWords[0] + " of the month" + limits
      }
      var days: [String] = []
      if !rule.byDay.isEmpty { days.append(Self.list(hasOrdinals ? weekdayWords : weekdayWords.map { $0 + "s" })) }
      if !rule.byMonthDay.isEmpty {
        let words = Self.list(rule.byMonthDay.map(Self.monthDay))
        days.append(rule.byDay.isEmpty ? words : "that fall on the " + words)
      }
      guard !days.isEmpty else { return every + limits }
      let body = days.joined(separator: " ")
      let theDays = rule.byDay.isEmpty || hasOrdinals ? "the " + body : body
      if rule.interval == 1 {
        return (rule.byDay.isEmpty ? "on " : "every month on ") + theDays + (rule.byDay.isEmpty ? " of the month" : "")
          + limits
      }
      return every + " on " + theDays + limits
    case .yearly:
      return yearly
    }
  }

  /// YEARLY: "every year on the 4th Thursday of November", "every year on 25 December",
  /// "every year in March and June", "every year on day 100".
  private var yearly: String {
    let months = rule.byMonth.map { Self.monthNames[$0 - 1] }
    let monthText = Self.list(months)
    let weeks = rule.byWeekNo.isEmpty ? "" : " in " + weekNumbers
    if !rule.byDay.isEmpty {
      let days = hasOrdinals ? "the " + Self.list(weekdayWords) : "every " + Self.list(weekdayWords)
      var text = every + " on " + days
      if !months.isEmpty {
        text += (hasOrdinals ? " of " : " in ") + monthText
      } else if hasOrdinals, rule.byWeekNo.isEmpty {
        text += " of the year"
      }
      if !rule.byMonthDay.isEmpty { text += " that falls on the " + Self.list(rule.byMonthDay.map(Self.monthDay)) }
      if !rule.byYearDay.isEmpty { text += " that is " + yearDays }
      return text + weeks
    }
    if !rule.byMonthDay.isEmpty {
      let positive = rule.byMonthDay.allSatisfy { $0 > 0 }
      if !months.isEmpty, positive {
        return every + " on " + Self.list(rule.byMonthDay.map(String.init)) + " " + monthText + weeks
      }
      let days = Self.list(rule.byMonthDay.map(Self.monthDay))
      return every + " on the " + days + " of " + (months.isEmpty ? "every month" : monthText) + weeks
    }
    if !rule.byYearDay.isEmpty {
      return every + " on " + yearDays + (months.isEmpty ? "" : " if in " + monthText) + weeks
    }
    if !rule.byWeekNo.isEmpty { return every + weeks + (months.isEmpty ? "" : " in " + monthText) }
    if !months.isEmpty { return every + " in " + monthText }
    return every
  }

  /// BYSETPOS: "on the last weekday of the month", "every 2 months on the 1st and last day".
  private var setPosition: String {
    let positions = Self.list(rule.bySetPos.map(Self.position))
    let months = rule.byMonth.map { Self.monthNames[$0 - 1] }
    var candidates: String
    if rule.byDay.isEmpty {
      candidates = "day"
    } else if !hasOrdinals, Set(plainDays) == Self.weekdaySet, rule.byDay.count == 5 {
      candidates = "weekday"
    } else if !hasOrdinals, Set(plainDays) == [.saturday, .sunday], rule.byDay.count == 2 {
      candidates = "weekend day"
    } else if !hasOrdinals, Set(plainDays).count == 7 {
      candidates = "day"
    } else if rule.byDay.count == 1 {
      candidates = weekdayWords[0]
    } else {
      candidates = "of " + Self.list(weekdayWords, conjunction: "or")
    }
    if !rule.byMonthDay.isEmpty {
      candidates += (rule.byDay.isEmpty ? "" : " falling") + " on the " + Self.list(rule.byMonthDay.map(Self.monthDay))
    }
    if !rule.byYearDay.isEmpty { candidates += " that is " + yearDays }
    let period: String
    switch rule.frequency {
    case .yearly: period = months.count == 1 ? months[0] : "the year"
    case .monthly: period = "the month"
    case .weekly: period = "the week"
    default: period = "the " + unit
    }
    let phrase = "the " + positions + " " + candidates + " of " + period
    let text = rule.interval == 1 ? "on " + phrase : every + " on " + phrase
    return text
  }

  /// " in November" (limits under finer frequencies and BYSETPOS), " in week 20".
  private var monthAndWeekLimits: String {
    var text = ""
    if rule.frequency != .yearly || !rule.bySetPos.isEmpty, !rule.byMonth.isEmpty,
      !(rule.frequency == .yearly && rule.byMonth.count == 1)
    {
      text += " in " + Self.list(rule.byMonth.map { Self.monthNames[$0 - 1] })
    }
    if rule.frequency != .yearly, !rule.byWeekNo.isEmpty { text += " in " + weekNumbers }
    return text
  }

  private var weekNumbers: String {
    (rule.byWeekNo.count == 1 ? "week " : "weeks ") + Self.list(rule.byWeekNo.map(Self.fromEnd(last: "the last week")))
  }

  private var yearDays: String {
    if rule.byYearDay == [-1] { return "the last day of the year" }
    let days = rule.byYearDay.map(Self.fromEnd(last: "the last"))
    return (rule.byYearDay.count == 1 ? "day " : "days ") + Self.list(days) + " of the year"
  }

  /// "20", or "the 2nd to last" for -2.
  private static func fromEnd(last: String) -> (Int) -> String {
    { n in n > 0 ? String(n) : (n == -1 ? last : "the \(ordinal(-n)) to last") }
  }

  /// "2nd Tuesday", "last Friday", "2nd to last Monday", "Wednesday".
  private var weekdayWords: [String] {
    rule.byDay.map { day in
      let name = Self.dayNames[day.weekday.rawValue]
      guard let ordinal = day.ordinal else { return name }
      return Self.position(ordinal) + " " + name
    }
  }

  // MARK: - Times

  /// " at 09:00 and 17:00", " at minute 0 and 30" (HOURLY), " at second 15".
  private var times: String {
    let hours = rule.byHour.sorted()
    let minutes = rule.byMinute.sorted()
    let seconds = rule.bySecond.sorted()
    if !hours.isEmpty, hours.count * max(1, minutes.count) <= 6 {
      var clocks: [String] = []
      for hour in hours {
        for minute in minutes.isEmpty ? [nil] : minutes.map(Optional.some) {
          clocks.append(Self.pad2(hour) + ":" + (minute.map(Self.pad2) ?? "mm"))
        }
      }
      var text = " at " + Self.list(clocks)
      if minutes.isEmpty { text = " in the hour" + (hours.count == 1 ? " " : "s ") + Self.list(hours.map(Self.pad2)) }
      if !seconds.isEmpty { text += ", at second " + Self.list(seconds.map(String.init)) }
      return text
    }
    var parts: [String] = []
    if !hours.isEmpty { parts.append((hours.count == 1 ? "hour " : "hours ") + Self.list(hours.map(String.init))) }
    if !minutes.isEmpty {
      parts.append((minutes.count == 1 ? "minute " : "minutes ") + Self.list(minutes.map(String.init)))
    }
    if !seconds.isEmpty {
      parts.append((seconds.count == 1 ? "second " : "seconds ") + Self.list(seconds.map(String.init)))
    }
    return ", at " + parts.joined(separator: ", ")
  }

  // MARK: - Words

  private func untilDate(_ until: RecurrenceRule.Until) -> CivilDate {
    switch until {
    case .date(let date): return date
    case .local(let time): return time.date
    case .utc(let time): return CivilDateTime(time.instant(in: .gmt), in: zone).date
    }
  }

  /// "30 June 2027".
  static func dateWords(_ date: CivilDate) -> String { "\(date.day) \(monthNames[date.month - 1]) \(date.year)" }

  /// 1 -> "1st", 22 -> "22nd", 13 -> "13th".
  static func ordinal(_ n: Int) -> String {
    let tens = n % 100
    if (11...13).contains(tens) { return "\(n)th" }
    switch n % 10 {
    case 1: return "\(n)st"
    case 2: return "\(n)nd"
    case 3: return "\(n)rd"
    default: return "\(n)th"
    }
  }

  /// 2 -> "2nd", -1 -> "last", -2 -> "2nd to last".
  static func position(_ n: Int) -> String { n > 0 ? ordinal(n) : (n == -1 ? "last" : "\(ordinal(-n)) to last") }

  /// A BYMONTHDAY: 15 -> "15th", -1 -> "last day", -3 -> "3rd to last day".
  static func monthDay(_ n: Int) -> String { n > 0 ? ordinal(n) : position(n) + " day" }

  /// "a", "a and b", "a, b and c".
  static func list(_ items: [String], conjunction: String = "and") -> String {
    guard items.count > 1 else { return items.first ?? "" }
    return items.dropLast().joined(separator: ", ") + " \(conjunction) " + (items.last ?? "")
  }

  static func pad2(_ n: Int) -> String { n < 10 ? "0\(n)" : "\(n)" }
}
