import ApptCore
import Foundation

// Alarms in the calendar. The runtime keeps the next alarm instance of the
// store's appointments and sends `.alarmDue` when it comes due; the policy is here, pure: a
// due alarm shows on the status line (`🔔 09:00 Standup in 15 min`) with one bell, `z`
// snoozes it 5 minutes (the runtime sends it again then, with another bell), and any other
// key dismisses it and then does what it does. In memory only: the reminder daemon
// (`appt remind`) owns the record of what fired.

/// An alarm come due, on the status line until a key dismisses or snoozes it.
public struct DueAlarm: Equatable, Sendable {
  public var instance: AlarmInstance
  /// When it came due (or back from a snooze): "in 15 min" counts from here, or from the
  /// clock's ticks once they pass it.
  public var shownAt: Date

  public init(instance: AlarmInstance, shownAt: Date) {
    self.instance = instance
    self.shownAt = shownAt
  }

  /// `🔔 09:00 Standup in 15 min`, `… now`, `… ended`; another day's start has its day,
  /// a whole day only its day.
  public func statusText(now: Date, environment: Environment) -> String {
    let appointment = instance.appointment
    let formatter = environment.formatter
    let clock = environment.clock
    let now = max(now, shownAt)
    let when: String
    if appointment.isAllDay {
      when = formatter.day(appointment.start)
    } else if clock.startOfDay(appointment.start) == clock.startOfDay(now) {
      when = formatter.time(appointment.start)
    } else {
      when = "\(formatter.day(appointment.start)) \(formatter.time(appointment.start))"
    }
    let title = TextSafety.escapingControls(TextWidth.head(appointment.title, columns: 200).text)
    return "🔔 \(when) \(title) \(Self.relative(start: appointment.start, end: appointment.end, now: now))"
  }

  /// "in 15 min", "in 1 h 30 min", "in 2 days", "now" (from half a minute before the start
  /// to the end), "ended".
  static func relative(start: Date, end: Date, now: Date) -> String {
    if now >= end { return "ended" }
    let seconds = start.timeIntervalSince(now)
    if seconds <= 30 { return "now" }
    let minutes = Int((seconds / 60).rounded())
    if minutes < 60 { return "in \(minutes) min" }
    if minutes < 24 * 60 {
      let hours = minutes / 60
      let rest = minutes % 60
      return rest == 0 ? "in \(hours) h" : "in \(hours) h \(rest) min"
    }
    let days = Int((seconds / 86_400).rounded())
    return days == 1 ? "in 1 day" : "in \(days) days"
  }
}

extension State {
  /// How long `z` puts an alarm off.
  public static let snoozeInterval: TimeInterval = 5 * 60

  /// Whether the status line shows the due alarms now: not while it asks a question (y/n,
  /// which occurrences) or holds a line being typed (`/`, `:`), nor while a form saves. A key
  /// there answers that and leaves the alarms for when they show.
  public var alarmIsShown: Bool {
    guard !alarms.isEmpty else { return false }
    switch mode {
    case .confirm, .chooseScope, .search, .command: return false
    case .form(let form): return !form.isSaving
    default: return true
    }
  }
}

extension UI {
  /// An alarm came due: on the status line, with one bell (none for one already shown).
  static func alarmDue(_ instance: AlarmInstance, state: inout State, environment: Environment) -> [Effect] {
    guard !state.alarms.contains(where: { $0.instance.key == instance.key }) else { return [] }
    state.alarms.append(DueAlarm(instance: instance, shownAt: environment.clock.now))
    return [.ringBell]
  }

  /// The reminders (seconds before the start) a new appointment in `calendar` gets, for the
  /// form's Remind field: the calendar's `[calendar NAME] default_remind`, else the global
  /// one, as `appt add` resolves it (no Calendar field: the default calendar's).
  static func defaultRemind(_ settings: Settings, calendar: String?) -> [TimeInterval] {
    settings.defaultAlarms(calendar: calendar ?? settings.ui.defaultCalendar.value)
  }

  /// A key while alarms show: `z` (browsing) snoozes them, and that is all it does; any
  /// other key dismisses them and goes on to do what it does (nil).
  static func alarmKey(_ key: Key, state: inout State, environment: Environment) -> [Effect]? {
    guard state.alarmIsShown else { return nil }
    let alarms = state.alarms
    state.alarms = []
    guard state.mode == .browsing, environment.keyMap.action(for: key) == .snoozeAlarm else { return nil }
    let until = environment.clock.now.addingTimeInterval(State.snoozeInterval)
    let first = TextSafety.escapingControls(TextWidth.head(alarms[0].instance.appointment.title, columns: 200).text)
    let others = alarms.count > 1 ? " and \(alarms.count - 1) more" : ""
    state.report("Snoozed \"\(first)\"\(others) until \(environment.formatter.time(until))")
    return alarms.map { .snoozeAlarm($0.instance, until: until) }
  }
}

extension Views {
  /// The status line of due alarms: the first (the oldest) with how many more, and `z`.
  static func alarmLine(_ state: State, environment: Environment) -> String {
    guard let first = state.alarms.first else { return "" }
    let more = state.alarms.count > 1 ? "  (+\(state.alarms.count - 1) more)" : ""
    let snooze = environment.keyMap.keys(for: .snoozeAlarm)
    let hint = snooze.isEmpty || state.mode != .browsing ? "" : "  \(snooze) snooze"
    let room = max(1, state.size.columns - 1 - TextWidth.of(more) - TextWidth.of(hint))
    return " " + TextWidth.clip(first.statusText(now: state.now, environment: environment), to: room) + more + hint
  }

  /// After a title in a list: a version of it a sync kept aside waits to be settled.
  static let conflictMarker = "  (sync conflict)"

  /// The marker of an appointment with a reminder that can fire (not a cancelled one), after
  /// its title in the day, week and agenda views.
  static func alarmMarker(_ appointment: Appointment) -> String {
    appointment.isCancelled || !appointment.hasAlarms || appointment.alarms.isEmpty ? "" : " 🔔"
  }
}
