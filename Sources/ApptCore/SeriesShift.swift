import Foundation

/// How a series' occurrences move when its start moves: each by the same change of wall-clock
/// time in the series' zone (a day later and an hour earlier, say), so that a changed or
/// cancelled occurrence (RECURRENCE-ID, EXDATE) still names the occurrence it named, across a
/// change of offset too. RFC 5545 keys them by the original start of their occurrence.
public struct SeriesShift: Sendable, Equatable {
  /// The move on the wall clock, in seconds (days are 86,400 here).
  public let civilSeconds: Int
  public let zone: TimeZone

  /// The move from `old` to `new` (the same series before and after a change), or nil when
  /// it is not a series or its start stayed.
  public init?(from old: Appointment, to new: Appointment, fallbackZone: TimeZone) {
    guard old.recurrence != nil, old.override == nil, old.start != new.start else { return nil }
    let zone = new.zone(fallback: fallbackZone)
    let delta = CivilDateTime(new.start, in: zone).civilSeconds - CivilDateTime(old.start, in: zone).civilSeconds
    guard delta != 0 else { return nil }
    civilSeconds = delta
    self.zone = zone
  }

  /// Where the occurrence that started at `instant` starts after the move (the gap rule of
  /// RFC 5545 applies to a time that does not exist).
  public func moved(_ instant: Date) -> Date {
    let local = CivilDateTime(instant, in: zone).civilSeconds + civilSeconds
    // Whole seconds: keep what the instant had below one.
    let fraction = instant.timeIntervalSince1970 - instant.timeIntervalSince1970.rounded(.down)
    return CivilDateTime(civilSeconds: local).instant(in: zone).addingTimeInterval(fraction)
  }
}
