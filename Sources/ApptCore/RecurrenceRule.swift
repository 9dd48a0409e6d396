import Foundation

/// One RFC 5545 recurrence rule (RRULE, section 3.3.10) with every part, as a value.
///
/// `RecurrenceRule(parsing:)` reads the RFC text (`FREQ=MONTHLY;BYDAY=-1SU`), with names and
/// values case-insensitive as real readers take them, and refuses what no reader could
/// interpret with a `RecurrenceRuleError` naming the part. `text` writes the canonical form
/// (parts in the RFC's order, upper case); parsing it gives the same value back. Lists keep
/// the order they were written in. Expansion is `RecurrenceSet`'s job.
public struct RecurrenceRule: Hashable, Sendable, Codable {
  public enum Frequency: String, Hashable, Sendable, Codable, CaseIterable, Comparable {
    case secondly = "SECONDLY", minutely = "MINUTELY", hourly = "HOURLY", daily = "DAILY"
    case weekly = "WEEKLY", monthly = "MONTHLY", yearly = "YEARLY"

    /// Finer first: SECONDLY < ... < YEARLY.
    public static func < (lhs: Self, rhs: Self) -> Bool {
      (allCases.firstIndex(of: lhs) ?? 0) < (allCases.firstIndex(of: rhs) ?? 0)
    }
  }

  /// A BYDAY entry: a weekday, with an ordinal in the month or year (`2TU`, `-1FR`) or none.
  public struct WeekdayNumber: Hashable, Sendable, Codable, CustomStringConvertible {
    public var weekday: Recurrence.Weekday
    /// 1...53 or -53...-1; nil for every such weekday.
    public var ordinal: Int?

    public init(_ weekday: Recurrence.Weekday, _ ordinal: Int? = nil) {
      self.weekday = weekday
      self.ordinal = ordinal
    }

    public var description: String { (ordinal.map(String.init) ?? "") + weekday.code }
  }

  /// UNTIL as written: a DATE, a local (floating or DTSTART-zone) DATE-TIME, or a UTC one.
  public enum Until: Hashable, Sendable, Codable, CustomStringConvertible {
    case date(CivilDate)
    case local(CivilDateTime)
    case utc(CivilDateTime)

    /// The last instant the rule may produce as `zone` reads it: a DATE means its whole day
    /// (up to the next local midnight), a local time is read in `zone`, a UTC one is itself.
    public func instant(in zone: TimeZone) -> Date {
      switch self {
      case .date(let date): return CivilDateTime(date: CivilDate(dayNumber: date.dayNumber + 1)).instant(in: zone)
      case .local(let time): return time.instant(in: zone)
      case .utc(let time): return time.instant(in: .gmt)
      }
    }

    public var description: String {
      switch self {
      case .date(let date): return date.description
      case .local(let time): return time.description
      case .utc(let time): return time.description + "Z"
      }
    }
  }

  public var frequency: Frequency
  /// 1 or more.
  public var interval: Int
  public var count: Int?
  public var until: Until?
  public var bySecond: [Int]
  public var byMinute: [Int]
  public var byHour: [Int]
  public var byDay: [WeekdayNumber]
  public var byMonthDay: [Int]
  public var byYearDay: [Int]
  public var byWeekNo: [Int]
  public var byMonth: [Int]
  public var bySetPos: [Int]
  /// WKST as written; nil means the default, Monday.
  public var weekStart: Recurrence.Weekday?
  /// `X-` parts, kept as written (name upper-cased) so nothing is lost on the way out.
  public var extensions: [Extension]

  public struct Extension: Hashable, Sendable, Codable {
    public var name: String
    public var value: String
    public init(name: String, value: String) {
      self.name = name
      self.value = value
    }
  }

  public init(
    frequency: Frequency,
    interval: Int = 1,
    count: Int? = nil,
    until: Until? = nil,
    bySecond: [Int] = [],
    byMinute: [Int] = [],
    byHour: [Int] = [],
    byDay: [WeekdayNumber] = [],
    byMonthDay: [Int] = [],
    byYearDay: [Int] = [],
    byWeekNo: [Int] = [],
    byMonth: [Int] = [],
    bySetPos: [Int] = [],
    weekStart: Recurrence.Weekday? = nil,
    extensions: [Extension] = []
  ) {
    self.frequency = frequency
    self.interval = interval
    self.count = count
    self.until = until
    self.bySecond = bySecond
    self.byMinute = byMinute
    self.byHour = byHour
    self.byDay = byDay
    self.byMonthDay = byMonthDay
    self.byYearDay = byYearDay
    self.byWeekNo = byWeekNo
    self.byMonth = byMonth
    self.bySetPos = bySetPos
    self.weekStart = weekStart
    self.extensions = extensions
  }

  /// The week's first day for BYWEEKNO and weekly intervals (WKST, Monday by default).
  public var effectiveWeekStart: Recurrence.Weekday { weekStart ?? .monday }

  // MARK: - Parsing

  /// The highest COUNT and INTERVAL read: far beyond any real rule, low enough that counting
  /// from DTSTART stays bounded.
  public static let maximumCount = 1_000_000
  public static let maximumInterval = 1_000_000

  /// Reads RRULE text (without the `RRULE:` name; a leading one is tolerated).
  public init(parsing text: String) throws(RecurrenceRuleError) {
    // The text the store keeps, byte by byte (RecurrenceRule+Canonical.swift); the rest here.
    if let rule = Self.parsingCanonical(text) {
      self = rule
    } else {
      self = try Self(parsingGeneral: text)
    }
  }

  /// The reader of any RRULE text, which says what is wrong with one it cannot read.
  init(parsingGeneral text: String) throws(RecurrenceRuleError) {
    // The common case, the canonical text the store keeps: printable ASCII without spaces or
    // lower-case letters, where trimming and upper-casing (Foundation's, costly per row)
    // change nothing.
    let plain = text.utf8.allSatisfy { $0 > 0x20 && $0 < 0x7F && !(0x61...0x7A).contains($0) }
    var body = plain ? Substring(text) : Substring(text.trimmingCharacters(in: .whitespaces))
    if (plain ? body : Substring(body.uppercased())).hasPrefix("RRULE:") { body = body.dropFirst(6) }
    var seen = Set<String>()
    var frequency: Frequency?
    var rule = RecurrenceRule(frequency: .daily)
    for part in body.split(separator: ";", omittingEmptySubsequences: true) {
      let pair = part.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
      guard pair.count == 2, !pair[0].isEmpty else { throw .notNameValue(String(part)) }
      let name = plain ? String(pair[0]) : pair[0].trimmingCharacters(in: .whitespaces).uppercased()
      let value = plain ? String(pair[1]) : pair[1].trimmingCharacters(in: .whitespaces)
      guard seen.insert(name).inserted else { throw .repeatedPart(name) }
      func bad(_ expected: String) -> RecurrenceRuleError {
        .invalidValue(part: name, value: value, expected: expected)
      }
      func numbers(_ range: ClosedRange<Int>, signed: Bool, _ expected: String) throws(RecurrenceRuleError) -> [Int] {
        guard !value.isEmpty else { throw bad(expected) }
        var result: [Int] = []
        for item in Self.items(of: value, plain: plain) {
          guard let number = Self.integer(item, signed: signed), range.contains(abs(number)),
            number != 0 || range.lowerBound == 0
          else { throw bad(expected) }
          result.append(number)
        }
        return result
      }
      switch name {
      case "FREQ":
        guard let parsed = Frequency(rawValue: plain ? value : value.uppercased()) else {
          throw bad("SECONDLY, MINUTELY, HOURLY, DAILY, WEEKLY, MONTHLY or YEARLY")
        }
        frequency = parsed
      case "INTERVAL":
        guard let parsed = Self.integer(Substring(value), signed: false), (1...Self.maximumInterval).contains(parsed)
        else { throw bad("a whole number from 1 to \(Self.maximumInterval)") }
        rule.interval = parsed
      case "COUNT":
        guard let parsed = Self.integer(Substring(value), signed: false), (1...Self.maximumCount).contains(parsed)
        else { throw bad("a whole number from 1 to \(Self.maximumCount)") }
        rule.count = parsed
      case "UNTIL":
        guard let parsed = Self.parseUntil(value) else {
          throw bad("a DATE (YYYYMMDD) or DATE-TIME (YYYYMMDDTHHMMSS[Z])")
        }
        rule.until = parsed
      case "BYSECOND": rule.bySecond = try numbers(0...60, signed: false, "seconds 0 to 60, separated by commas")
      case "BYMINUTE": rule.byMinute = try numbers(0...59, signed: false, "minutes 0 to 59, separated by commas")
      case "BYHOUR": rule.byHour = try numbers(0...23, signed: false, "hours 0 to 23, separated by commas")
      case "BYMONTHDAY": rule.byMonthDay = try numbers(1...31, signed: true, "days 1 to 31 or -31 to -1")
      case "BYYEARDAY": rule.byYearDay = try numbers(1...366, signed: true, "days 1 to 366 or -366 to -1")
      case "BYWEEKNO": rule.byWeekNo = try numbers(1...53, signed: true, "weeks 1 to 53 or -53 to -1")
      case "BYMONTH": rule.byMonth = try numbers(1...12, signed: false, "months 1 to 12")
      case "BYSETPOS": rule.bySetPos = try numbers(1...366, signed: true, "positions 1 to 366 or -366 to -1")
      case "BYDAY":
        guard !value.isEmpty else { throw bad("weekdays such as MO, 2TU or -1FR, separated by commas") }
        for item in Self.items(of: value, plain: plain) {
          guard let day = Self.weekdayNumber(item) else {
            throw bad("weekdays such as MO, 2TU or -1FR, separated by commas")
          }
          rule.byDay.append(day)
        }
      case "WKST":
        guard let day = Recurrence.Weekday(code: value) else { throw bad("MO, TU, WE, TH, FR, SA or SU") }
        rule.weekStart = day
      default:
        guard name.hasPrefix("X-") else { throw .unknownPart(name) }
        rule.extensions.append(Extension(name: name, value: value))
      }
    }
    guard let frequency else { throw .missingFrequency }
    guard rule.count == nil || rule.until == nil else { throw .countAndUntil }
    rule.frequency = frequency
    self = rule
  }

  /// Digits with an optional sign: no spaces, no `+` where `signed` is false.
  /// A part's comma-separated values; around each, the blanks some writers put after a
  /// comma (`BYDAY=MO, TU`, as python-dateutil and Google read them) are not part of it.
  private static func items(of value: String, plain: Bool) -> [Substring] {
    let items = value.split(separator: ",", omittingEmptySubsequences: false)
    return plain ? items : items.map { Substring($0.trimmingCharacters(in: .whitespaces)) }
  }

  private static func integer(_ text: Substring, signed: Bool) -> Int? {
    var digits = text
    var sign = 1
    if signed, let first = digits.first, first == "+" || first == "-" {
      sign = first == "-" ? -1 : 1
      digits = digits.dropFirst()
    }
    guard !digits.isEmpty, digits.count <= 9, digits.allSatisfy({ $0.isASCII && $0.isNumber }), let value = Int(digits)
    else { return nil }
    return sign * value
  }

  private static func weekdayNumber(_ text: Substring) -> WeekdayNumber? {
    guard text.count >= 2, let day = Recurrence.Weekday(code: String(text.suffix(2))) else { return nil }
    let prefix = text.dropLast(2)
    if prefix.isEmpty { return WeekdayNumber(day) }
    guard let ordinal = integer(prefix, signed: true), (1...53).contains(abs(ordinal)) else { return nil }
    return WeekdayNumber(day, ordinal)
  }

  private static func parseUntil(_ text: String) -> Until? {
    let upper = text.uppercased()
    let isUTC = upper.hasSuffix("Z")
    let body = isUTC ? String(upper.dropLast()) : upper
    func field(_ from: Int, _ length: Int) -> Int? {
      let start = body.index(body.startIndex, offsetBy: from)
      let slice = body[start..<body.index(start, offsetBy: length)]
      return slice.allSatisfy({ $0.isASCII && $0.isNumber }) ? Int(slice) : nil
    }
    guard body.count == 8 || body.count == 15 else { return nil }
    guard let year = field(0, 4), let month = field(4, 2), let day = field(6, 2) else { return nil }
    let date = CivilDate(year: year, month: month, day: day)
    guard date.isValid else { return nil }
    if body.count == 8 { return isUTC ? nil : .date(date) }
    guard body[body.index(body.startIndex, offsetBy: 8)] == "T", let hour = field(9, 2), let minute = field(11, 2),
      let second = field(13, 2), hour < 24, minute < 60, second <= 60
    else { return nil }
    let time = CivilDateTime(date: date, hour: hour, minute: minute, second: min(second, 59))
    return isUTC ? .utc(time) : .local(time)
  }

  // MARK: - Writing

  /// The canonical RRULE text: `FREQ` first, then UNTIL or COUNT, INTERVAL (when not 1), the
  /// BYxxx parts in the RFC's order, WKST (when written) and the `X-` parts.
  public var text: String {
    var parts = ["FREQ=" + frequency.rawValue]
    if let until { parts.append("UNTIL=\(until)") }
    if let count { parts.append("COUNT=\(count)") }
    if interval != 1 { parts.append("INTERVAL=\(interval)") }
    func list(_ name: String, _ values: [Int]) {
      if !values.isEmpty { parts.append(name + "=" + values.map(String.init).joined(separator: ",")) }
    }
    list("BYSECOND", bySecond)
    list("BYMINUTE", byMinute)
    list("BYHOUR", byHour)
    if !byDay.isEmpty { parts.append("BYDAY=" + byDay.map(\.description).joined(separator: ",")) }
    list("BYMONTHDAY", byMonthDay)
    list("BYYEARDAY", byYearDay)
    list("BYWEEKNO", byWeekNo)
    list("BYMONTH", byMonth)
    list("BYSETPOS", bySetPos)
    if let weekStart { parts.append("WKST=" + weekStart.code) }
    for part in extensions { parts.append(part.name + "=" + part.value) }
    return parts.joined(separator: ";")
  }
}

/// Why RRULE text cannot be read: which part, and what it should have been.
public enum RecurrenceRuleError: Error, Hashable, Sendable, CustomStringConvertible {
  case missingFrequency
  case notNameValue(String)
  case repeatedPart(String)
  case unknownPart(String)
  case invalidValue(part: String, value: String, expected: String)
  case countAndUntil

  /// The RRULE part the error is about (nil when it is about the whole rule).
  public var part: String? {
    switch self {
    case .missingFrequency: return "FREQ"
    case .notNameValue(let part): return part
    case .repeatedPart(let name), .unknownPart(let name): return name
    case .invalidValue(let part, _, _): return part
    case .countAndUntil: return nil
    }
  }

  public var description: String {
    switch self {
    case .missingFrequency: return "RRULE has no FREQ"
    case .notNameValue(let part): return "RRULE part \"\(part)\" is not NAME=VALUE"
    case .repeatedPart(let name): return "RRULE part \(name) is given twice"
    case .unknownPart(let name): return "RRULE part \(name) is not an RFC 5545 part"
    case .invalidValue(let part, let value, let expected): return "RRULE \(part)=\(value): expected \(expected)"
    case .countAndUntil: return "RRULE has both COUNT and UNTIL (RFC 5545 allows one of them)"
    }
  }
}

/// Weekdays are written as their ISO number (0 = Monday) when a rule is encoded.
extension Recurrence.Weekday: Codable {}
