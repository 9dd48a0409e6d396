import Foundation

/// Parses and prints DURATION values: `45m`, `1h`, `1h30m`, `90` (minutes), `1d`.
///
/// Parsing is case-insensitive. Units are `d` (24 hours), `h` and `m`, largest first, each at
/// most once; a bare number is minutes, and so is a bare number after hours (`1h30`).
/// Spaces between parts are allowed (`2d 3h`), so everything `format` prints parses back.
/// A duration is more than zero (zero too where a moment is meant: `allowingZero`) and at
/// most 366 days; whole minutes only.
public enum DurationParser {
  /// The longest duration accepted: 366 days.
  public static let maximum: TimeInterval = 366 * 24 * 3600

  private static let maximumMinutes = 366 * 24 * 60
  private static let hint = "try 45m, 1h, 1h30m, 90 (minutes)"

  /// Parses `text` into seconds; `allowingZero`, `0` (`0m`...) is a moment.
  public static func parse(_ text: String, allowingZero: Bool = false) throws(CommandError) -> TimeInterval {
    let quoted = WhenParser.quoted(text)
    let body = text.trimmingCharacters(in: .whitespaces).lowercased()
    guard !body.isEmpty else { throw .invalid("missing duration: \(hint)") }
    if body.hasPrefix("-") {
      throw .invalid("invalid duration \(quoted): must be \(allowingZero ? "zero or more" : "more than zero")")
    }

    // Tokens: (number, unit?) pairs, spaces allowed between them.
    var parts: [(number: Int, unit: Character?)] = []
    var index = body.startIndex
    while index < body.endIndex {
      while index < body.endIndex, body[index] == " " { index = body.index(after: index) }
      guard index < body.endIndex else { break }
      let digitsStart = index
      while index < body.endIndex, WhenParser.isASCIIDigit(body[index]) { index = body.index(after: index) }
      guard digitsStart < index else { throw .invalid("cannot understand \(quoted) as a duration: \(hint)") }
      guard let number = Int(body[digitsStart..<index]), number <= maximumMinutes else {
        throw .invalid("invalid duration \(quoted): longer than the limit of 366 days")
      }
      var unit: Character?
      if index < body.endIndex, "dhm".contains(body[index]) {
        unit = body[index]
        index = body.index(after: index)
      }
      parts.append((number, unit))
    }

    // The order must be d, h, m; a unit-less number is minutes and only comes alone or last
    // after hours.
    let rank: [Character: Int] = ["d": 0, "h": 1, "m": 2]
    var lastRank = -1
    var minutes = 0
    for (position, part) in parts.enumerated() {
      let unit: Character
      if let given = part.unit {
        unit = given
      } else {
        let isLast = position == parts.count - 1
        let afterHours = position > 0 && parts[position - 1].unit == "h"
        guard isLast, parts.count == 1 || afterHours else {
          throw .invalid("cannot understand \(quoted) as a duration: \(hint)")
        }
        unit = "m"
      }
      let thisRank = rank[unit] ?? 2
      guard thisRank > lastRank else {
        throw .invalid("cannot understand \(quoted) as a duration: \(hint)")
      }
      lastRank = thisRank
      let factor = unit == "d" ? 24 * 60 : unit == "h" ? 60 : 1
      minutes += part.number * factor  // each number <= 527040, so no overflow
    }
    guard minutes > 0 || allowingZero else { throw .invalid("invalid duration \(quoted): must be more than zero") }
    guard minutes <= maximumMinutes else {
      throw .invalid("invalid duration \(quoted): longer than the limit of 366 days")
    }
    return TimeInterval(minutes * 60)
  }

  /// Short text for an interval, rounded to the minute: `45m`, `1h`, `1h30m`, `2d 3h`.
  public static func format(_ interval: TimeInterval) -> String {
    guard interval.isFinite else { return "?" }
    if interval < 0 { return "-" + format(-interval) }
    // Far beyond any appointment; keep the conversion to Int safe.
    let cappedMinutes = min((interval / 60).rounded(), 1e12)
    let total = Int(cappedMinutes)
    if total == 0 { return "0m" }
    let days = total / (24 * 60)
    let hours = total % (24 * 60) / 60
    let minutes = total % 60
    var clock = ""
    if hours > 0 { clock += "\(hours)h" }
    if minutes > 0 { clock += "\(minutes)m" }
    if days == 0 { return clock }
    return clock.isEmpty ? "\(days)d" : "\(days)d \(clock)"
  }
}
