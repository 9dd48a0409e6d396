import Foundation

/// Where "now" and "here" come from. Injected everywhere so tests fix today without faketime.
public struct Clock: Sendable {
  private let nowProvider: @Sendable () -> Date
  /// The zone appointments are entered and shown in (`TZ` is respected by `.system`).
  public let timeZone: TimeZone

  public init(timeZone: TimeZone = .current, now: @escaping @Sendable () -> Date) {
    self.timeZone = timeZone
    self.nowProvider = now
  }

  public var now: Date { nowProvider() }

  /// A Gregorian calendar in this clock's zone, weeks starting on Monday (ISO 8601).
  public var calendar: Calendar {
    var calendar = Calendar(identifier: .gregorian)
    calendar.timeZone = timeZone
    calendar.firstWeekday = 2
    calendar.locale = Locale(identifier: "en_US_POSIX")
    return calendar
  }

  /// The real clock in the process's zone.
  public static var system: Clock { Clock(timeZone: .current, now: { Date() }) }

  /// A clock stopped at `date`, for tests and reproducible runs.
  public static func fixed(_ date: Date, timeZone: TimeZone) -> Clock {
    Clock(timeZone: timeZone, now: { date })
  }

  /// Midnight starting the day that contains `date`.
  public func startOfDay(_ date: Date) -> Date { calendar.startOfDay(for: date) }

  /// The start of the day `days` after the one containing `date` (DST-safe).
  public func day(_ days: Int, after date: Date) -> Date {
    calendar.date(byAdding: .day, value: days, to: startOfDay(date)) ?? date
  }

  public var today: Date { startOfDay(now) }

  /// The local day containing `date` as a number (days since 1970-01-01, local), computed
  /// from the zone's offset at that instant: cheap enough for every row of a month.
  public func dayNumber(of date: Date) -> Int {
    let local = date.timeIntervalSince1970 + Double(timeZone.secondsFromGMT(for: date))
    return Int((local / 86_400).rounded(.down))
  }
}

/// Which appointments overlap another one (the agenda's conflict marker).
public enum Conflicts {
  /// The ids of scheduled appointments that overlap at least one other scheduled one.
  /// One pass over the list sorted by start, tracking the latest end seen so far.
  public static func overlapping(_ appointments: [Appointment]) -> Set<AppointmentID> {
    let scheduled = appointments.filter { !$0.isCancelled }.sorted(by: Appointment.displayOrder)
    var result: Set<AppointmentID> = []
    var latest: Appointment?
    for appointment in scheduled {
      if let previous = latest, appointment.start < previous.end {
        result.insert(appointment.id)
        result.insert(previous.id)
      }
      if latest.map({ appointment.end > $0.end }) ?? true { latest = appointment }
    }
    return result
  }
}
