import Foundation

/// A day of the proleptic Gregorian calendar, with no zone: what a DATE value or the date part
/// of a local DATE-TIME names. Arithmetic is on day numbers (days since 1970-01-01), so no
/// `Calendar` is needed to step through days, months and years.
public struct CivilDate: Hashable, Comparable, Sendable, Codable, CustomStringConvertible {
  public var year: Int
  public var month: Int
  public var day: Int

  public init(year: Int, month: Int, day: Int) {
    self.year = year
    self.month = month
    self.day = day
  }

  /// The date of day number `dayNumber` (days since 1970-01-01).
  public init(dayNumber: Int) {
    // Howard Hinnant's civil_from_days.
    let z = dayNumber + 719_468
    let era = (z >= 0 ? z : z - 146_096) / 146_097
    let doe = z - era * 146_097
    let yoe = (doe - doe / 1460 + doe / 36524 - doe / 146_096) / 365
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100)
    let mp = (5 * doy + 2) / 153
    let day = doy - (153 * mp + 2) / 5 + 1
    let month = mp < 10 ? mp + 3 : mp - 9
    self.init(year: yoe + era * 400 + (month <= 2 ? 1 : 0), month: month, day: day)
  }

  /// Days since 1970-01-01 (negative before). Days past a month's end roll over.
  public var dayNumber: Int { Self.dayNumber(year: year, month: month, day: day) }

  public static func dayNumber(year: Int, month: Int, day: Int) -> Int {
    // Howard Hinnant's days_from_civil.
    let y = month <= 2 ? year - 1 : year
    let era = (y >= 0 ? y : y - 399) / 400
    let yoe = y - era * 400
    let doy = (153 * (month + (month > 2 ? -3 : 9)) + 2) / 5 + day - 1
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy
    return era * 146_097 + doe - 719_468
  }

  /// ISO weekday of a day number: 0 = Monday ... 6 = Sunday.
  public static func weekday(ofDayNumber dayNumber: Int) -> Int { ((dayNumber + 3) % 7 + 7) % 7 }

  public var weekday: Recurrence.Weekday {
    Recurrence.Weekday(rawValue: Self.weekday(ofDayNumber: dayNumber)) ?? .monday
  }

  public static func isLeapYear(_ year: Int) -> Bool { (year % 4 == 0 && year % 100 != 0) || year % 400 == 0 }

  public static func daysInMonth(year: Int, month: Int) -> Int {
    switch month {
    case 2: return isLeapYear(year) ? 29 : 28
    case 4, 6, 9, 11: return 30
    default: return 31
    }
  }

  /// True when the fields name a real day (not 30 February).
  public var isValid: Bool { (1...12).contains(month) && day >= 1 && day <= Self.daysInMonth(year: year, month: month) }

  public static func < (lhs: Self, rhs: Self) -> Bool {
    (lhs.year, lhs.month, lhs.day) < (rhs.year, rhs.month, rhs.day)
  }

  /// `YYYYMMDD`, as iCalendar writes a DATE.
  public var description: String { pad(year, 4) + pad(month, 2) + pad(day, 2) }
}

/// A wall-clock date and time with no zone: a floating DATE-TIME, or a local time before it
/// is placed in a zone.
public struct CivilDateTime: Hashable, Comparable, Sendable, Codable, CustomStringConvertible {
  public var date: CivilDate
  public var hour: Int
  public var minute: Int
  public var second: Int

  public init(date: CivilDate, hour: Int = 0, minute: Int = 0, second: Int = 0) {
    self.date = date
    self.hour = hour
    self.minute = minute
    self.second = second
  }

  public init(_ year: Int, _ month: Int, _ day: Int, _ hour: Int = 0, _ minute: Int = 0, _ second: Int = 0) {
    self.init(date: CivilDate(year: year, month: month, day: day), hour: hour, minute: minute, second: second)
  }

  /// The wall-clock time `seconds` seconds after 1970-01-01 00:00 (on a clock with no DST).
  public init(civilSeconds seconds: Int) {
    let days = seconds >= 0 ? seconds / 86400 : -((-seconds + 86399) / 86400)
    let rest = seconds - days * 86400
    self.init(date: CivilDate(dayNumber: days), hour: rest / 3600, minute: rest % 3600 / 60, second: rest % 60)
  }

  /// The wall-clock time of `instant` in `zone`.
  public init(_ instant: Date, in zone: TimeZone) {
    let seconds = Int(instant.timeIntervalSince1970.rounded(.down))
    self.init(civilSeconds: seconds + zone.secondsFromGMT(for: instant))
  }

  /// Seconds since 1970-01-01 00:00 on a clock with no DST: the order of wall-clock times.
  public var civilSeconds: Int { date.dayNumber * 86400 + hour * 3600 + minute * 60 + second }

  /// The instant this wall-clock time names in `zone`, as RFC 5545 3.3.5 says: a time that
  /// occurs twice (autumn overlap) is the first of the two; a time that does not occur
  /// (spring gap) is read with the offset before the gap, so it lands as much later as the
  /// gap is long (02:30 in a 02:00-03:00 gap is 03:30).
  public func instant(in zone: TimeZone) -> Date {
    instant { zone.secondsFromGMT(for: $0) }
  }

  /// `instant(in:)` with the zone's offsets remembered (`ZoneOffsets`): for the many
  /// instances of one series.
  func instant(in offsets: ZoneOffsets) -> Date {
    instant(offsetAt: offsets.offset(at:))
  }

  private func instant(offsetAt offset: (Date) -> Int) -> Date {
    let local = civilSeconds
    // The offsets a day either side: there is at most one change between them in any zone.
    let before = offset(Date(timeIntervalSince1970: TimeInterval(local - 86400)))
    let after = offset(Date(timeIntervalSince1970: TimeInterval(local + 86400)))
    let early = Date(timeIntervalSince1970: TimeInterval(local - before))
    if before == after { return early }
    let late = Date(timeIntervalSince1970: TimeInterval(local - after))
    let earlyHolds = offset(early) == before
    let lateHolds = offset(late) == after
    switch (earlyHolds, lateHolds) {
    case (true, true): return min(early, late)
    case (false, true): return late
    default: return early  // in the gap (or both hold only before): the offset before it
    }
  }

  public static func < (lhs: Self, rhs: Self) -> Bool { lhs.civilSeconds < rhs.civilSeconds }

  /// `YYYYMMDDTHHMMSS`, as iCalendar writes a local DATE-TIME.
  public var description: String { date.description + "T" + pad(hour, 2) + pad(minute, 2) + pad(second, 2) }
}

func pad(_ value: Int, _ width: Int) -> String {
  let text = String(abs(value))
  return (value < 0 ? "-" : "") + String(repeating: "0", count: max(0, width - text.count)) + text
}
