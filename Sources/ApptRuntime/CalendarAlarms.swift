import ApptCore
import Foundation

/// Which alarms the calendar shows, and when: the pure part of the render loop's alarm timer.
/// The loop asks the store for the alarm instances of a window (`window`)
/// at start and after each change of the days ahead, hands them over (`replace`), sleeps
/// until `nextDue`, and sends what is `due` then. Each instance is sent once in a session;
/// a snoozed one once more at its time. In memory only: the reminder daemon keeps the
/// record of what fired, and nothing here writes to the store.
public struct CalendarAlarms: Equatable, Sendable {
  /// An alarm put off with `z`, due again at `until`.
  public struct Snooze: Equatable, Sendable {
    public var instance: AlarmInstance
    public var until: Date
  }

  /// How far ahead the store is asked (the window is asked again as time goes on).
  public static let lookahead: TimeInterval = 86_400

  /// Alarms due before this are not shown: those of before the calendar started, and those
  /// more than the grace (`[reminders] remind_grace`) late, as after a suspend.
  public private(set) var since: Date
  /// The instances of the window, by fire time.
  public private(set) var upcoming: [AlarmInstance] = []
  /// The instances sent, by key, with their fire times (forgotten once before `since`).
  public private(set) var sent: [String: Date] = [:]
  public private(set) var snoozed: [Snooze] = []

  public init(since: Date) {
    self.since = since
  }

  /// The window to ask the store for at `now`: from `since` (at most `grace` back) to a day
  /// ahead.
  public mutating func window(at now: Date, grace: TimeInterval) -> DateInterval {
    since = max(since, now.addingTimeInterval(-max(0, grace)))
    return DateInterval(start: since, end: max(since, now).addingTimeInterval(Self.lookahead))
  }

  /// What the store lists for the window now. A snoozed alarm whose appointment moved, was
  /// cancelled or deleted (its instance is no longer listed) is dropped.
  public mutating func replace(_ instances: [AlarmInstance]) {
    upcoming = instances.sorted { ($0.fireAt, $0.key) < ($1.fireAt, $1.key) }
    let since = self.since
    sent = sent.filter { $0.value >= since }
    let listed = Set(instances.map(\.key))
    snoozed.removeAll { !listed.contains($0.instance.key) && $0.instance.fireAt >= since }
  }

  /// Puts `instance` off until `until` (`z`).
  public mutating func snooze(_ instance: AlarmInstance, until: Date) {
    snoozed.removeAll { $0.instance.key == instance.key }
    snoozed.append(Snooze(instance: instance, until: until))
  }

  /// The alarms due at `now`, oldest first: each listed instance once (from `since`), a
  /// snoozed one again once its time came.
  public mutating func due(at now: Date) -> [AlarmInstance] {
    var result: [AlarmInstance] = []
    for instance in upcoming where instance.fireAt <= now && instance.fireAt >= since && sent[instance.key] == nil {
      sent[instance.key] = instance.fireAt
      result.append(instance)
    }
    // One back from its snooze past the grace (after a suspend) is dropped, as one due then is.
    let woken = snoozed.filter { $0.until <= now && $0.until >= since }
    snoozed.removeAll { $0.until <= now }
    return result + woken.map(\.instance)
  }

  /// When the next alarm is due; nil when none is in the window.
  public var nextDue: Date? {
    let next = upcoming.first { $0.fireAt >= since && sent[$0.key] == nil }?.fireAt
    return ([next].compactMap { $0 } + snoozed.map(\.until)).min()
  }
}
