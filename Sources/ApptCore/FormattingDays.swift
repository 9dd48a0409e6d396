import Foundation

extension AppointmentFormatter {
  static let monthNames = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"]

  /// `"2026-12-01"`: the local day, as the WHEN parser reads it back.
  public func isoDay(_ date: Date) -> String {
    let t = local(date)
    let year = String(t.year)
    return String(repeating: "0", count: max(0, 4 - year.count)) + year + "-" + two(t.month) + "-" + two(t.day)
  }

  /// `"Tue 1 Dec 2026"`: the local day in words, for headings.
  public func longDay(_ date: Date) -> String {
    let t = local(date)
    return "\(Self.weekdayNames[t.weekday]) \(t.day) \(Self.monthNames[t.month - 1]) \(t.year)"
  }

  private func two(_ n: Int) -> String { n < 10 ? "0\(n)" : "\(n)" }
}
