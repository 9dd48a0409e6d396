import Foundation

/// A parsed WHEN: a local day and, if one was given, a time of day.
public struct When: Equatable, Sendable {
  /// Local midnight starting the day (the clock's zone).
  public var day: Date
  /// Minutes after midnight (0...1439) when a time was given; `nil` for a bare date.
  public var minutes: Int?

  public init(day: Date, minutes: Int? = nil) {
    self.day = day
    self.minutes = minutes
  }

  /// The instant this WHEN names: the day's midnight, or the wall-clock time on that day.
  ///
  /// Wall-clock arithmetic goes through the calendar, so `10:00` is 10:00 local on both sides
  /// of a DST change. A time that does not exist (in the spring-forward gap, e.g. 02:30 in
  /// New York on 2026-03-08) moves forward by the gap (03:30); a time that happens twice
  /// (the fall-back hour) means the first one, still on daylight time.
  public func instant(in clock: Clock) -> Date {
    guard let minutes else { return day }
    let calendar = clock.calendar
    var components = calendar.dateComponents([.year, .month, .day], from: day)
    components.hour = minutes / 60
    components.minute = minutes % 60
    components.second = 0
    return calendar.date(from: components) ?? day.addingTimeInterval(TimeInterval(minutes * 60))
  }
}

/// Parses WHEN values (the forms `appt help add` and the man page list) against an injected clock.
///
/// Accepted, case-insensitively, each date optionally followed by a time (after a space, or
/// after `T` for an ISO date):
/// - `2026-12-01`, `2026-12-01 10:00`, `2026-12-01T10:00` (years 1970-9999);
/// - `today`, `tomorrow`, `yesterday`;
/// - a weekday, `monday` or `mon` (also `tues`, `thur`, `thurs`): the next such day,
///   **today included** (calcurse and khal habit): on a Sunday, `sun` is today;
/// - `+3d`, `-1d`, `+2w`: days or weeks from today;
/// - a time alone (`10:00`, `9am`) means that time today.
///
/// Times: `10:00`, `9:05`, `9am`, `3:30pm`, `12pm` (noon), `12am` (midnight), `noon`,
/// `midnight`. Minutes take two digits. Nothing is normalised: `2026-02-30`, month 13,
/// `24:00` and minute 60 are errors that quote the input and say what is wrong.
public struct WhenParser: Sendable {
  let clock: Clock

  public init(clock: Clock) {
    self.clock = clock
  }

  /// The suggestion appended to "cannot understand" errors.
  static let dateHint = "try 2026-12-01 10:00, today, tomorrow, mon, next fri, dec 1, +3d, in 2h"
  static let timeHint = "try 10:00, 9am, 3:30pm, noon"

  /// What the text said, before a missing date is defaulted to today.
  struct Parts: Equatable {
    /// Local midnight of the given day, or `nil` when the text was a time alone.
    var day: Date?
    var minutes: Int?
  }

  /// Parses one WHEN given as a single string (`"2026-12-01 10:00"` is one string here).
  public func parse(_ text: String) throws(CommandError) -> When {
    let parts = try parseParts(text)
    return When(day: parts.day ?? clock.today, minutes: parts.minutes)
  }

  /// Parses a WHEN at the start of `words`, taking a second word when it is the time.
  ///
  /// `["2026-12-01", "10:00", ...]` consumes two words; `["2026-12-01", "--for", ...]` one.
  /// A second word that looks like a time but is not a valid one (`25:00`) is an error, not
  /// left behind to become part of a title.
  /// Parses `text`, a time alone falling on `day` (a form's day) instead of today; without
  /// `day`, as `parse(_:)`.
  public func parse(_ text: String, timeAloneOn day: Date?) throws(CommandError) -> When {
    let parts = try parseParts(text)
    return When(day: parts.day ?? day.map(clock.startOfDay) ?? clock.today, minutes: parts.minutes)
  }

  public func parse(words: [String]) throws(CommandError) -> (When, consumed: Int) {
    let (parts, consumed) = try parseParts(words: words)
    return (When(day: parts.day ?? clock.today, minutes: parts.minutes), consumed)
  }

  /// `parse(words:)` keeping the knowledge of whether a date was given (for `--until`).
  func parseParts(words: [String]) throws(CommandError) -> (Parts, consumed: Int) {
    guard let first = words.first else { throw .invalid("missing date: \(Self.dateHint)") }
    // Two-word day phrases (`next mon`, `dec 1`, `1 dec`, `in 2h`), maybe followed by a time.
    if words.count > 1, Self.isDayPhrase(first.lowercased(), words[1].lowercased()) {
      let length = words.count > 2 && Self.looksLikeTime(words[2]) && first.lowercased() != "in" ? 3 : 2
      return (try parseParts(words[0..<length].joined(separator: " ")), length)
    }
    if words.count > 1, Self.takesTimeWord(first, words[1]) {
      return (try parseParts(first + " " + words[1]), 2)
    }
    return (try parseParts(first), 1)
  }

  /// Whether a WHEN word `first` is completed by the next word `second`: `second` is shaped
  /// like a time and `first` is one word that does not already carry a time. Decided on the
  /// shapes alone, so `2026-02-30 10:00` is reported as a whole.
  static func takesTimeWord(_ first: String, _ second: String) -> Bool {
    guard looksLikeTime(second), !first.isEmpty, !looksLikeTime(first) else { return false }
    guard !first.contains(where: { $0 == " " || $0 == "\t" }) else { return false }
    let lowered = first.lowercased()
    if let tIndex = lowered.firstIndex(of: "t"), isISODateShape(lowered[..<tIndex]) { return false }
    return true
  }

  /// Parses the text into a day (if any) and a time (if any).
  func parseParts(_ text: String) throws(CommandError) -> Parts {
    let input = text
    let originalPieces = text.split(whereSeparator: { $0 == " " || $0 == "\t" }).map(String.init)
    var pieces = originalPieces.map { $0.lowercased() }
    // An ISO date with a `T` and a time: `2026-12-01t10:00` once lower-cased.
    if pieces.count == 1, let tIndex = pieces[0].firstIndex(of: "t"), Self.isISODateShape(pieces[0][..<tIndex]) {
      let datePart = String(pieces[0][..<tIndex])
      let timePart = String(pieces[0][pieces[0].index(after: tIndex)...])
      guard !timePart.isEmpty else { throw Self.notUnderstood(input) }
      pieces = [datePart, timePart]
    }
    if pieces.first == "in" { return try parseFromNow(pieces, input: input) }
    if pieces.count >= 2, Self.isDayPhrase(pieces[0], pieces[1]) {
      let day = try parseDayPhrase(pieces[0], pieces[1], input: input)
      switch pieces.count {
      case 2: return Parts(day: day, minutes: nil)
      case 3:
        guard let minutes = try Self.parseTime(pieces[2], input: input, context: "date") else {
          throw .invalid(
            "understood \(Self.quoted(pieces[0] + " " + pieces[1])) as a day but not \(Self.quoted(pieces[2])) as a time: \(Self.timeHint)"
          )
        }
        return Parts(day: day, minutes: minutes)
      default: throw Self.notUnderstood(input)
      }
    }
    switch pieces.count {
    case 0:
      throw .invalid("missing date: \(Self.dateHint)")
    case 1:
      if let day = try parseDay(pieces[0], input: input) {
        return Parts(day: day, minutes: nil)
      }
      if let minutes = try Self.parseTime(pieces[0], input: input, context: "time") {
        return Parts(day: nil, minutes: minutes)
      }
      throw Self.notUnderstood(input)
    case 2:
      guard let day = try parseDay(pieces[0], input: input) else { throw Self.notUnderstood(input) }
      guard let minutes = try Self.parseTime(pieces[1], input: input, context: "date") else {
        let timeWord = Self.quoted(originalPieces.count == 2 ? originalPieces[1] : pieces[1])
        throw .invalid("cannot understand \(timeWord) as a time in \(Self.quoted(input)): \(Self.timeHint)")
      }
      return Parts(day: day, minutes: minutes)
    default:
      throw Self.notUnderstood(input)
    }
  }

  // MARK: - Days

  /// The local midnight `word` names, `nil` if it is not a date form at all.
  private func parseDay(_ word: String, input: String) throws(CommandError) -> Date? {
    switch word {
    case "today": return clock.today
    case "tomorrow": return try offset(days: 1, input: input)
    case "yesterday": return try offset(days: -1, input: input)
    default: break
    }
    if let weekday = Self.weekdays[word] {
      let current = clock.calendar.component(.weekday, from: clock.today)
      return try offset(days: (weekday - current + 7) % 7, input: input)
    }
    if let first = word.first, first == "+" || first == "-" {
      return try parseRelative(word, input: input)
    }
    if Self.isISODateShape(Substring(word)) {
      return try parseISODate(word, input: input)
    }
    return nil
  }

  /// `+3d`, `-1d`, `+2w`: whole days or weeks from today.
  private func parseRelative(_ word: String, input: String) throws(CommandError) -> Date? {
    let sign = word.first == "-" ? -1 : 1
    let body = word.dropFirst()
    guard let unit = body.last, unit == "d" || unit == "w" else { return nil }
    let digits = body.dropLast()
    guard !digits.isEmpty, digits.allSatisfy(Self.isASCIIDigit) else { return nil }
    // Anything past 9999 years is out of range anyway; keep the arithmetic far from overflow.
    guard digits.count <= 7, let count = Int(digits) else {
      throw .invalid("invalid date \(Self.quoted(input)): \(word) is too far away")
    }
    return try offset(days: sign * count * (unit == "w" ? 7 : 1), input: input)
  }

  /// Whether two lower-cased words form a day phrase: `next mon`, `dec 1`, `1 dec`, `in 2h`.
  static func isDayPhrase(_ first: String, _ second: String) -> Bool {
    if first == "in" { return true }
    if first == "next" { return weekdays[second] != nil }
    if month(named: first) != nil { return Int(second) != nil }
    if Int(first) != nil { return month(named: second) != nil }
    return false
  }

  /// `next mon`: the first such weekday strictly after today (so on a Monday, a week ahead);
  /// `dec 1` / `1 dec`: the next 1 December, today included (this year, else next year).
  private func parseDayPhrase(_ first: String, _ second: String, input: String) throws(CommandError) -> Date {
    if first == "next", let weekday = Self.weekdays[second] {
      let current = clock.calendar.component(.weekday, from: clock.today)
      let ahead = (weekday - current + 7) % 7
      return try offset(days: ahead == 0 ? 7 : ahead, input: input)
    }
    let (monthWord, dayWord) = Self.month(named: first) != nil ? (first, second) : (second, first)
    guard let month = Self.month(named: monthWord), let day = Int(dayWord) else { throw Self.notUnderstood(input) }
    let calendar = clock.calendar
    let thisYear = calendar.component(.year, from: clock.today)
    guard (1...31).contains(day), day <= Self.daysIn(month: month, year: 2000) else {
      let name = Self.monthNames[month - 1]
      throw .invalid("invalid date \(Self.quoted(input)): \(name) has no day \(day)")
    }
    // 29 Feb waits for the next leap year; any other date for its next occurrence.
    for year in thisYear...(thisYear + 8) where day <= Self.daysIn(month: month, year: year) {
      guard let date = calendar.date(from: DateComponents(year: year, month: month, day: day)) else { continue }
      if date >= clock.today { return calendar.startOfDay(for: date) }
    }
    throw .invalid("invalid date \(Self.quoted(input)): no such day ahead")
  }

  /// `in 2h`, `in 90m`, `in 3d`, `in 2w`: that long from now; hours and minutes keep the
  /// time of day (rounded down to the minute), days and weeks give a day.
  private func parseFromNow(_ pieces: [String], input: String) throws(CommandError) -> Parts {
    guard pieces.count == 2, let unit = pieces[1].last, "mhdw".contains(unit) else {
      throw .invalid("cannot understand \(Self.quoted(input)): after \"in\" give an amount like 2h, 30m, 3d or 2w")
    }
    let digits = pieces[1].dropLast()
    guard !digits.isEmpty, digits.count <= 6, digits.allSatisfy(Self.isASCIIDigit), let amount = Int(digits) else {
      throw .invalid(
        "cannot understand \(Self.quoted(input)): \(Self.quoted(pieces[1])) is not an amount like 2h or 3d"
      )
    }
    switch unit {
    case "d", "w":
      return Parts(day: try offset(days: amount * (unit == "w" ? 7 : 1), input: input), minutes: nil)
    default:
      let seconds = Double(amount) * (unit == "h" ? 3600 : 60)
      let target = clock.now.addingTimeInterval(seconds)
      let calendar = clock.calendar
      let day = calendar.startOfDay(for: target)
      let components = calendar.dateComponents([.hour, .minute], from: target)
      let year = calendar.component(.year, from: day)
      guard Self.years.contains(year) else {
        throw .invalid("invalid date \(Self.quoted(input)): year \(year) is out of range (1970-9999)")
      }
      return Parts(day: day, minutes: (components.hour ?? 0) * 60 + (components.minute ?? 0))
    }
  }

  /// The month a (lower-cased) name or three-letter abbreviation means, 1...12.
  static func month(named word: String) -> Int? {
    guard word.count >= 3 else { return nil }
    return monthNames.firstIndex { name in
      let lowered = name.lowercased()
      return lowered == word || (word.count == 3 && lowered.hasPrefix(word))
        || (word == "sept" && lowered == "september")
    }.map { $0 + 1 }
  }

  /// Today plus `days`, checked against the supported years.
  private func offset(days: Int, input: String) throws(CommandError) -> Date {
    let calendar = clock.calendar
    guard let date = calendar.date(byAdding: .day, value: days, to: clock.today) else {
      throw .invalid("invalid date \(Self.quoted(input)): too far away")
    }
    // `.year` counts within an era: 2000 days before year 1 AD is year 3451 of the BC era.
    let year = calendar.component(.era, from: date) == 1 ? calendar.component(.year, from: date) : 0
    guard Self.years.contains(year) else {
      throw .invalid("invalid date \(Self.quoted(input)): the year is out of range (1970-9999)")
    }
    return calendar.startOfDay(for: date)
  }

  /// A strictly validated `YYYY-MM-DD` (month and day may have one digit).
  private func parseISODate(_ word: String, input: String) throws(CommandError) -> Date {
    let fields = word.split(separator: "-", omittingEmptySubsequences: false)
    guard fields.count == 3, let year = Int(fields[0]), let month = Int(fields[1]), let day = Int(fields[2]) else {
      throw Self.notUnderstood(input)
    }
    guard Self.years.contains(year) else {
      throw .invalid("invalid date \(Self.quoted(input)): year \(year) is out of range (1970-9999)")
    }
    guard (1...12).contains(month) else {
      throw .invalid("invalid date \(Self.quoted(input)): month \(month) is out of range (1-12)")
    }
    let length = Self.daysIn(month: month, year: year)
    guard (1...length).contains(day) else {
      let monthName = Self.monthNames[month - 1]
      throw .invalid(
        "invalid date \(Self.quoted(input)): day \(day) is out of range (\(monthName) \(year) has \(length) days)"
      )
    }
    // The day's midnight, moved forward by a gap it falls in (a skipped midnight: its first
    // instant; a skipped day: the next day's start, as `Calendar` has it), with no `Calendar`.
    let midnight = CivilDateTime(year, month, day).instant(in: ZoneOffsets.shared(for: clock.timeZone))
    return clock.startOfDay(midnight)
  }

  static let years = 1970...9999

  static let monthNames = [
    "January", "February", "March", "April", "May", "June",
    "July", "August", "September", "October", "November", "December",
  ]

  /// Gregorian month lengths, leap years included.
  static func daysIn(month: Int, year: Int) -> Int {
    switch month {
    case 2:
      let leap = (year % 4 == 0 && year % 100 != 0) || year % 400 == 0
      return leap ? 29 : 28
    case 4, 6, 9, 11:
      return 30
    default:
      return 31
    }
  }

  /// Weekday names to `Calendar` weekday numbers (1 = Sunday).
  static let weekdays: [String: Int] = [
    "sun": 1, "sunday": 1,
    "mon": 2, "monday": 2,
    "tue": 3, "tues": 3, "tuesday": 3,
    "wed": 4, "wednesday": 4,
    "thu": 5, "thur": 5, "thurs": 5, "thursday": 5,
    "fri": 6, "friday": 6,
    "sat": 7, "saturday": 7,
  ]

  /// Four digits, a dash, one or two digits, a dash, one or two digits.
  static func isISODateShape(_ text: Substring) -> Bool {
    let fields = text.split(separator: "-", omittingEmptySubsequences: false)
    guard fields.count == 3, fields[0].count == 4 else { return false }
    return fields.allSatisfy { !$0.isEmpty && $0.allSatisfy(isASCIIDigit) }
      && (1...2).contains(fields[1].count) && (1...2).contains(fields[2].count)
  }

  // MARK: - Times

  /// Whether `word` has the shape of a time (`10:00`, `9am`, `25:99`, `noon`): digits with a
  /// colon or an am/pm suffix. A bare number is not a time.
  static func looksLikeTime(_ word: String) -> Bool {
    let lowered = word.lowercased()
    if lowered == "noon" || lowered == "midnight" { return true }
    var body = Substring(lowered)
    if body.hasSuffix("am") || body.hasSuffix("pm") {
      body = body.dropLast(2)
      guard !body.isEmpty else { return false }
    } else if !body.contains(":") {
      return false
    }
    return body.allSatisfy { isASCIIDigit($0) || $0 == ":" } && body.first.map(isASCIIDigit) == true
  }

  /// Minutes after midnight for a lower-cased time word; `nil` if it is not shaped like one.
  ///
  /// `context` is the noun used in range errors: "time" when the input was a time alone,
  /// "date" when a date came with it.
  static func parseTime(_ word: String, input: String, context: String) throws(CommandError) -> Int? {
    switch word {
    case "noon": return 12 * 60
    case "midnight": return 0
    default: break
    }
    guard looksLikeTime(word) else { return nil }
    var body = Substring(word)
    var meridiem: String?
    if body.hasSuffix("am") || body.hasSuffix("pm") {
      meridiem = String(body.suffix(2))
      body = body.dropLast(2)
    }
    let fields = body.split(separator: ":", omittingEmptySubsequences: false)
    let prefix = "invalid \(context) \(quoted(input))"
    guard fields.count <= 2, let hourText = fields.first, (1...2).contains(hourText.count), let hour = Int(hourText)
    else {
      throw .invalid("\(prefix): \(quoted(word)) is not a time: \(timeHint)")
    }
    var minute = 0
    if fields.count == 2 {
      guard fields[1].count == 2, let value = Int(fields[1]) else {
        throw .invalid("\(prefix): minutes need two digits (\(timeHint))")
      }
      minute = value
    }
    if let meridiem {
      guard (1...12).contains(hour) else {
        throw .invalid("\(prefix): hour \(hour) is out of range for \(meridiem) (1-12)")
      }
    } else {
      guard (0...23).contains(hour) else {
        throw .invalid("\(prefix): hour \(hour) is out of range (0-23)")
      }
    }
    guard (0...59).contains(minute) else {
      throw .invalid("\(prefix): minute \(minute) is out of range (0-59)")
    }
    var hour24 = hour
    switch meridiem {
    case "am"?: hour24 = hour == 12 ? 0 : hour
    case "pm"?: hour24 = hour == 12 ? 12 : hour + 12
    default: break
    }
    return hour24 * 60 + minute
  }

  // MARK: - Messages

  static func isASCIIDigit(_ character: Character) -> Bool {
    character.isASCII && character.isWholeNumber
  }

  /// The user's text in double quotes, control characters escaped for the terminal.
  static func quoted(_ text: String) -> String {
    // Long enough to recognise, short enough that a pasted file does not flood stderr.
    let shown = text.count > 80 ? String(text.prefix(77)) + "…" : text
    return "\"\(TextSafety.escapingControls(shown))\""
  }

  static func notUnderstood(_ input: String) -> CommandError {
    .invalid("cannot understand \(quoted(input)) as a date: \(dateHint)")
  }
}
