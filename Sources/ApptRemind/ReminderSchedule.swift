import ApptStore
import Foundation

/// What the schedule needs of an alarm instance: its identity and its instant.
public protocol ScheduledAlarm: Sendable {
  /// What the fired record keys by (`AlarmInstance.key`).
  var key: String { get }
  var fireAt: Date { get }
}

/// The reminder daemon's decisions, pure: given the alarm instances around now, the keys
/// already recorded and now, what fires now (on time, or late within the grace), what is
/// missed (later than the grace), and when to wake next. No clock of its own: `now` comes
/// from the caller's (`APPT_NOW` in tests), so every case is a plain value test.
public struct ReminderSchedule: Sendable, Equatable {
  /// How late a missed alarm may still fire (`[reminders] remind_grace`).
  public var grace: TimeInterval
  /// How far ahead the daemon reads instances; it wakes at the end to read again.
  public var lookahead: TimeInterval
  /// How far behind the grace missed instances are still looked for (and logged as missed).
  /// Records of instances older than grace + lookback are pruned: no instance that old is
  /// looked at again, so pruning cannot make one fire twice.
  public var lookback: TimeInterval
  /// Lateness still counted as on time (the daemon's own wake-up and a busy machine).
  public var onTime: TimeInterval

  public init(
    grace: TimeInterval,
    lookahead: TimeInterval = 86_400,
    lookback: TimeInterval = 86_400,
    onTime: TimeInterval = 10
  ) {
    self.grace = max(0, grace)
    self.lookahead = lookahead
    self.lookback = lookback
    self.onTime = onTime
  }

  /// One instance to act on now.
  public struct Due<Instance: ScheduledAlarm>: Sendable {
    public var instance: Instance
    public var outcome: AlarmOutcome
    /// Seconds after its instant (0 or more).
    public var lateness: TimeInterval
  }

  /// What to do at `now`.
  public struct Plan<Instance: ScheduledAlarm>: Sendable {
    /// To notify now, oldest first: `fired` (on time) or `late`.
    public var due: [Due<Instance>]
    /// To record as missed (past the grace), oldest first; never notified.
    public var missed: [Due<Instance>]
    /// The next instant an instance not recorded yet fires; nil: none in the window read.
    public var nextFire: Date?
    /// When to wake at the latest: the next fire, or the end of the window read.
    public var wakeAt: Date
  }

  /// The fire times to read at `now`: from the oldest missed instance still looked for to the
  /// end of the lookahead.
  public func window(now: Date) -> DateInterval {
    DateInterval(start: now.addingTimeInterval(-(grace + lookback)), end: now.addingTimeInterval(lookahead))
  }

  /// Fire times before this are pruned from the records at `now` (an hour before the window,
  /// so a record is never pruned while its instance can still be read).
  public func pruneBefore(now: Date) -> Date {
    window(now: now).start.addingTimeInterval(-3600)
  }

  /// How `lateness` seconds after its instant is handled.
  public func outcome(lateness: TimeInterval) -> AlarmOutcome {
    if lateness <= onTime { return .fired }
    return lateness <= max(grace, onTime) ? .late : .missed
  }

  public func plan<Instance: ScheduledAlarm>(
    instances: [Instance],
    recorded: Set<String>,
    now: Date
  ) -> Plan<Instance> {
    let window = window(now: now)
    var due: [Due<Instance>] = []
    var missed: [Due<Instance>] = []
    var nextFire: Date?
    var seen: Set<String> = []
    for instance in instances.sorted(by: { ($0.fireAt, $0.key) < ($1.fireAt, $1.key) })
    where !recorded.contains(instance.key) && seen.insert(instance.key).inserted {
      guard instance.fireAt >= window.start else { continue }
      let lateness = now.timeIntervalSince(instance.fireAt)
      if lateness < 0 {
        if instance.fireAt < window.end { nextFire = min(nextFire ?? instance.fireAt, instance.fireAt) }
        continue
      }
      let outcome = outcome(lateness: lateness)
      let item = Due(instance: instance, outcome: outcome, lateness: lateness)
      if outcome == .missed { missed.append(item) } else { due.append(item) }
    }
    return Plan(due: due, missed: missed, nextFire: nextFire, wakeAt: min(nextFire ?? window.end, window.end))
  }
}

// MARK: - Words for the log

extension ReminderSchedule {
  /// `45s`, `12m`, `2h`, `1h5m`, `1d3h`: a lateness as the log says it.
  public static func span(_ seconds: TimeInterval) -> String {
    let whole = Int(seconds.rounded(.down))
    if whole < 60 { return "\(whole)s" }
    let minutes = whole / 60
    if minutes < 60 { return "\(minutes)m" }
    let hours = minutes / 60
    if hours < 24 { return minutes % 60 == 0 ? "\(hours)h" : "\(hours)h\(minutes % 60)m" }
    return hours % 24 == 0 ? "\(hours / 24)d" : "\(hours / 24)d\(hours % 24)h"
  }

  /// `fired`, `late by 12m`, `missed (2h late, past remind_grace 1h)`.
  public func words<Instance>(for due: Due<Instance>) -> String {
    switch due.outcome {
    case .fired: "fired"
    case .late: "late by \(Self.span(due.lateness))"
    case .missed: "missed (\(Self.span(due.lateness)) late, past remind_grace \(Self.span(grace)))"
    }
  }
}
