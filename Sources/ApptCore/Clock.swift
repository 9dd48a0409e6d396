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

  /// Midnight starting the day that contains `date` (its first instant where the zone skips
  /// midnight).
  public func startOfDay(_ date: Date) -> Date { day(0, after: date) }

  /// The start of the day `days` after the one containing `date` (DST-safe). Where the zone
  /// keeps one offset from two days before the two through two days after, that is arithmetic
  /// on day numbers; elsewhere (a change of offset near, a skipped midnight or a skipped day) it
  /// is Foundation's `Calendar`, whose rules a test holds the arithmetic to in every zone.
  /// Making a `Calendar` was a tenth of a one-shot `list`'s start-up.
  public func day(_ days: Int, after date: Date) -> Date {
    let seconds = date.timeIntervalSince1970
    let target = seconds + Double(days) * 86_400
    if abs(seconds) < 1e12, abs(target) < 1e12,
      let offset = ZoneOffsets.shared(for: timeZone).offset(
        throughout: Date(timeIntervalSince1970: min(seconds, target) - 2 * 86_400),
        Date(timeIntervalSince1970: max(seconds, target) + 2 * 86_400)
      )
    {
      let day = Int(((seconds + Double(offset)) / 86_400).rounded(.down)) + days
      return Date(timeIntervalSince1970: Double(day * 86_400 - offset))
    }
    let calendar = calendar
    return calendar.date(byAdding: .day, value: days, to: calendar.startOfDay(for: date)).map(calendar.startOfDay)
      ?? date
  }

  public var today: Date { startOfDay(now) }

  /// The local day containing `date` as a number (days since 1970-01-01, local), computed
  /// from the zone's offset at that instant: cheap enough for every row of a month.
  public func dayNumber(of date: Date) -> Int {
    let local = date.timeIntervalSince1970 + Double(timeZone.secondsFromGMT(for: date))
    return Int((local / 86_400).rounded(.down))
  }
}

// MARK: - The clock a process runs on: APPT_NOW and TZ

extension Clock {
  /// Why the environment names no clock appt can run on; the process refuses to start (exit 2).
  public enum SetupError: Error, Equatable, Sendable {
    /// `TZ` is set to something that is not a zone name appt and the C library agree on.
    case unknownTimeZone(String)
    /// `APPT_NOW` is set to something that is not an ISO 8601 date and time.
    case unreadableNow(String)

    /// What to tell the user: the variable, its value (controls escaped) and what would work.
    public var message: String {
      switch self {
      case .unknownTimeZone(let value):
        "TZ=\(TextSafety.escapingControls(value)) is not a time zone name appt knows"
          + " (use an IANA name such as Europe/Berlin, or UTC)"
      case .unreadableNow(let value):
        "APPT_NOW=\(TextSafety.escapingControls(value)) is not a date and time appt can read"
          + " (use ISO 8601 such as 2026-12-01T09:51:00, optionally ending in Z or an offset like +01:00)"
      }
    }
  }

  /// The clock the environment asks for: the zone `TZ` names (`timeZone(fromTZ:system:)`) and
  /// the real time, or, when `APPT_NOW` is set, a clock started at that instant that runs on
  /// by the monotonic time elapsed since (sleeps and timers are untouched).
  public static func fromEnvironment(
    _ environment: [String: String],
    systemZone: @autoclosure () -> TimeZone = .current
  ) throws(SetupError) -> Clock {
    let zone = try timeZone(fromTZ: environment["TZ"], system: systemZone())
    // Empty is unset, as for APPT_DB (`APPT_NOW= appt` is how a shell unsets it for one run).
    guard let text = environment["APPT_NOW"], !text.isEmpty else { return Clock(timeZone: zone, now: { Date() }) }
    guard let start = parseNow(text, in: zone) else { throw .unreadableNow(text) }
    return running(from: start, timeZone: zone)
  }

  /// A clock that reads `start` now and runs on from there at the pace of `elapsed` (by
  /// default the monotonic time since this call, the clock `Task.sleep` uses).
  public static func running(
    from start: Date,
    timeZone: TimeZone,
    elapsed: (@Sendable () -> TimeInterval)? = nil
  ) -> Clock {
    let elapsed = elapsed ?? monotonicElapsed()
    return Clock(timeZone: timeZone, now: { start.addingTimeInterval(elapsed()) })
  }

  private static func monotonicElapsed() -> @Sendable () -> TimeInterval {
    let origin = ContinuousClock.now
    return {
      let components = (ContinuousClock.now - origin).components
      return TimeInterval(components.seconds) + TimeInterval(components.attoseconds) / 1e18
    }
  }

  /// The zone a `TZ` value names, with the meaning glibc gives it, or an error when appt
  /// would give it another one (Foundation reads `TZ=Nowhere/Foo` or a POSIX rule string as
  /// UTC while `date` shows another offset; it reads `GMT+3` as UTC+3, glibc as UTC-3).
  ///
  /// - unset, or `:` alone: `system` (the process's zone, from /etc/localtime);
  /// - empty: UTC, as glibc;
  /// - an IANA name such as `Europe/Berlin`, `UTC` or `Etc/GMT+3`, with or without glibc's
  ///   leading `:`, or as a path under /usr/share/zoneinfo;
  /// - anything else (unknown names, POSIX rule strings like `EST5EDT,M3.2.0,M11.1.0`,
  ///   `GMT+3`, other paths) is refused.
  public static func timeZone(fromTZ value: String?, system: TimeZone) throws(SetupError) -> TimeZone {
    guard let value else { return system }
    var name = Substring(value)
    if name.hasPrefix(":") {
      name = name.dropFirst()
      if name.isEmpty { return system }
    }
    if name.isEmpty { return utc }
    let zoneinfo = "/usr/share/zoneinfo/"
    if name.hasPrefix(zoneinfo) { name = name.dropFirst(zoneinfo.count) }
    if name == "UTC" { return utc }
    // An IANA name is letters, digits and `/_-+`, never a dot (no path tricks), and Foundation
    // must know it under that very name: `GMT+3` comes back as "GMT+0300", another zone.
    let allowed = name.unicodeScalars.allSatisfy {
      $0.isASCII && ($0.properties.isAlphabetic || ("0"..."9").contains($0) || "/_-+".unicodeScalars.contains($0))
    }
    guard allowed, !name.hasPrefix("/"), let zone = TimeZone(identifier: String(name)), zone.identifier == name else {
      throw .unknownTimeZone(value)
    }
    return zone
  }

  /// UTC as Foundation names it (`TimeZone(identifier: "UTC")` is "GMT", as `.current` was).
  private static var utc: TimeZone { .gmt }

  /// Reads an `APPT_NOW` value: `YYYY-MM-DDTHH:MM[:SS[.fff]]`, then `Z`, an offset (`+01:00`,
  /// `+0100`, `+01`) or nothing (local time in `zone`). A local time that does not exist (in
  /// the spring-forward gap) moves forward by the gap, and one that happens twice (the
  /// fall-back hour) means the first, as WHEN values do (`When.instant(in:)`).
  public static func parseNow(_ text: String, in zone: TimeZone) -> Date? {
    let pattern =
      #/^(\d{4})-(\d{2})-(\d{2})[Tt ](\d{2}):(\d{2})(?::(\d{2})(?:\.(\d{1,9}))?)?(Z|z|[+-]\d{2}(?::?\d{2})?)?$/#
    guard let match = text.wholeMatch(of: pattern),
      let year = Int(match.1), let month = Int(match.2), let day = Int(match.3),
      let hour = Int(match.4), let minute = Int(match.5)
    else { return nil }
    let second = match.6.flatMap { Int($0) } ?? 0
    guard (1970...9999).contains(year), (1...12).contains(month), (1...31).contains(day),
      (0...23).contains(hour), (0...59).contains(minute), (0...59).contains(second)
    else { return nil }
    let fraction = match.7.flatMap { Double("0.\($0)") } ?? 0
    var calendar = Calendar(identifier: .gregorian)
    if let designator = match.8 {
      guard let offset = offsetSeconds(String(designator)), let fixed = TimeZone(secondsFromGMT: offset) else {
        return nil
      }
      calendar.timeZone = fixed
    } else {
      calendar.timeZone = zone
    }
    // Refuse a day the month does not have (2026-02-30) rather than roll it into March.
    var gregorian = Calendar(identifier: .gregorian)
    gregorian.timeZone = .gmt
    guard let noon = gregorian.date(from: DateComponents(year: year, month: month, day: day, hour: 12)),
      gregorian.component(.day, from: noon) == day
    else { return nil }
    let components = DateComponents(year: year, month: month, day: day, hour: hour, minute: minute, second: second)
    return calendar.date(from: components).map { $0.addingTimeInterval(fraction) }
  }

  /// `Z` -> 0, `+01:00` / `+0100` / `+01` -> 3600 (at most 18 hours either way).
  private static func offsetSeconds(_ designator: String) -> Int? {
    if designator == "Z" || designator == "z" { return 0 }
    let sign = designator.hasPrefix("-") ? -1 : 1
    let digits = designator.dropFirst().filter(\.isNumber)
    guard let hours = Int(digits.prefix(2)), let minutes = digits.count > 2 ? Int(digits.dropFirst(2)) : 0,
      hours <= 18, minutes < 60
    else { return nil }
    return sign * (hours * 3600 + minutes * 60)
  }
}

/// Which appointments overlap another one (the agenda's conflict marker).
public enum Conflicts {
  /// The ids of scheduled appointments that overlap at least one other scheduled one.
  public static func overlapping(_ appointments: [Appointment]) -> Set<AppointmentID> {
    let flags = flags(appointments)
    return Set(appointments.indices.filter { flags[$0] }.map { appointments[$0].id })
  }

  /// One flag per appointment: whether it is scheduled and overlaps another scheduled one
  /// (each row on its own: two occurrences of a series are two rows). For a list in order of
  /// start (a day's is), two passes of comparisons and no hashing, so a frame of a day of a
  /// thousand appointments does not hash them all.
  public static func flags(_ appointments: [Appointment]) -> [Bool] {
    var order = Array(appointments.indices)
    if zip(appointments, appointments.dropFirst()).contains(where: { $0.start > $1.start }) {
      order.sort { appointments[$0].start < appointments[$1].start }
    }
    order.removeAll { appointments[$0].isCancelled }
    var flags = Array(repeating: false, count: appointments.count)
    // Overlapped by one that starts earlier (or as early, before it): the latest end so far.
    var latestEnd: Date?
    for index in order {
      if let end = latestEnd, appointments[index].start < end { flags[index] = true }
      if latestEnd.map({ appointments[index].end > $0 }) ?? true { latestEnd = appointments[index].end }
    }
    // Overlapping one that starts later (or as early, after it): the next one's start.
    var nextStart: Date?
    for index in order.reversed() {
      if let start = nextStart, start < appointments[index].end { flags[index] = true }
      nextStart = appointments[index].start
    }
    return flags
  }
}
