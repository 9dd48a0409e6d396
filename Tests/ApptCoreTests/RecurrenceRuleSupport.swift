import Foundation

@testable import ApptCore

/// Helpers for the recurrence engine's tests: wall-clock text in, wall-clock text out.
enum RRuleTesting {
  /// `19970902T090000` (or `19970902`) as a wall-clock time.
  static func civil(_ text: String) -> CivilDateTime {
    let digits = text.filter(\.isNumber).map { Int(String($0)) ?? 0 }
    func number(_ from: Int, _ count: Int) -> Int {
      guard digits.count >= from + count else { return 0 }
      return digits[from..<(from + count)].reduce(0) { $0 * 10 + $1 }
    }
    return CivilDateTime(number(0, 4), number(4, 2), number(6, 2), number(8, 2), number(10, 2), number(12, 2))
  }

  static func rule(_ text: String) -> RecurrenceRule {
    do { return try RecurrenceRule(parsing: text) } catch {
      preconditionFailure("bad rule \(text): \(error)")
    }
  }

  /// The occurrences of DTSTART `start` (wall clock in `zone`) and `rules` in `[from, to)`,
  /// as wall-clock text in `zone`; at most `first` of them.
  static func expand(
    _ start: String,
    _ rules: [String],
    zone: TimeZone,
    exdates: [String] = [],
    rdates: [String] = [],
    from: String? = nil,
    to: String = "20100101T000000",
    first: Int? = nil,
    dateStart: Bool = false
  ) -> [String] {
    let set = RecurrenceSet(
      start: civil(start),
      zone: zone,
      rules: rules.map(rule),
      rdates: rdates.map { .local(civil($0)) },
      exdates: exdates.map { .local(civil($0)) },
      isDateStart: dateStart
    )
    let lower = civil(from ?? start).instant(in: zone)
    let occurrences = set.occurrences(from: lower, to: civil(to).instant(in: zone))
    return occurrences.prefix(first ?? Int.max).map { CivilDateTime($0, in: zone).description }
  }

  /// `days` of one month at a time of day: `at(1997, 9, [2, 3], "090000")`.
  static func at(_ year: Int, _ month: Int, _ days: [Int], _ time: String = "090000") -> [String] {
    days.map { CivilDate(year: year, month: month, day: $0).description + "T" + time }
  }

  static func zone(_ id: String) -> TimeZone {
    guard let zone = TimeZone(identifier: id) else { preconditionFailure("no zone \(id)") }
    return zone
  }
}
