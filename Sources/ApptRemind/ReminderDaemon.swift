// ApptRemind: the reminder daemon behind `appt remind` (the man page, REMINDER DAEMON).
//
// One loop: read the alarm instances around now (the DAO's `alarmInstances`), let the pure
// `ReminderSchedule` say what fires, what is missed and when to wake; record the instances
// (`alarm_fired`, one transaction per wake-up) BEFORE notifying, so a crash loses at most the
// notifications of that wake-up and never repeats one; then sleep in `WakeSource` until the next alarm, a store change by
// another process, a clock step or a signal.

import ApptCore
import ApptStore
import Foundation

extension AlarmInstance: ScheduledAlarm {}

/// The daemon's settings, from the settings file and the environment.
public struct RemindConfiguration: Sendable {
  /// `[reminders] remind_grace`.
  public var grace: TimeInterval
  /// How the notifications go out (`Notifier.method`).
  public var method: Notifier.Method
  /// How long a notify_command may run.
  public var timeout: TimeInterval
  /// The lock file (`DaemonLock.defaultPath`).
  public var lockPath: String

  public init(grace: TimeInterval, method: Notifier.Method, timeout: TimeInterval = 10, lockPath: String) {
    self.grace = grace
    self.method = method
    self.timeout = timeout
    self.lockPath = lockPath
  }

  /// What `settings` and `environment` say.
  public init(settings: Settings, environment: [String: String]) {
    self.init(
      grace: settings.reminders.remindGrace.value,
      method: Notifier.method(command: settings.reminders.notifyCommand?.value, environment: environment),
      lockPath: DaemonLock.defaultPath(environment: environment)
    )
  }
}

/// `appt remind [--once]`.
///
/// On the main actor, and never on the global concurrent pool: on Linux the first job that
/// pool runs starts libdispatch's workqueue monitor, a 1 s timer for the life of the process,
/// which would wake an idle daemon 3,600 times an hour. The store's calls run on
/// DatabaseActor's own (overcommit) queue and come back to the main thread.
@MainActor
public final class ReminderDaemon {
  private let dao: AppointmentDAO
  private let clock: Clock
  private let configuration: RemindConfiguration
  private let schedule: ReminderSchedule
  private let notifier: Notifier
  private let log: @Sendable (String) -> Void
  private let formatter: AppointmentFormatter
  /// The store's `data_version` when the instances were last read (SQLite): a file event
  /// that leaves it unchanged was our own write, or a checkpoint.
  private var readAtVersion: Int64?
  /// The PostgreSQL connection that LISTENs for changes (nil on SQLite, or while lost).
  private var listener: PostgresConnection?
  private var lastPrune: Date?

  /// Exit statuses (the man page): 0 stopped by a signal or `--once` done, 1 another daemon
  /// runs, 3 the store cannot be used.
  public enum Exit: Int32 {
    case ok = 0
    case failure = 1
    case storage = 3
  }

  public init(
    dao: AppointmentDAO,
    clock: Clock,
    configuration: RemindConfiguration,
    log: @escaping @Sendable (String) -> Void,
    output: @escaping @Sendable (String) -> Void
  ) {
    self.dao = dao
    self.clock = clock
    self.configuration = configuration
    self.schedule = ReminderSchedule(grace: configuration.grace)
    self.notifier = Notifier(method: configuration.method, timeout: configuration.timeout, log: log, output: output)
    self.log = log
    self.formatter = AppointmentFormatter(clock: clock)
  }

  // MARK: - The loop

  public func run(once: Bool) async -> Exit {
    var lock: DaemonLock?
    do throws(RemindError) {
      if !once { lock = try DaemonLock(path: configuration.lockPath) }
    } catch {
      log("appt: \(error)")
      return .failure
    }
    // The store first: opening it creates its directory, which the wake source watches.
    do {
      try await dao.database.prepare()
    } catch {
      log("appt: \(error)")
      return .storage
    }
    do {
      // Floating events' reminders at their wall-clock time in this process's zone.
      try await dao.followClockZone()
    } catch {
      log("appt: note: floating events were not moved to this zone: \(error)")
    }
    let wake: WakeSource
    do throws(RemindError) {
      wake = try WakeSource(watching: watchedFile)
    } catch {
      log("appt: \(error)")
      return .failure
    }
    // `--once` keeps the default SIGTERM/SIGINT (it is over in a moment); it hears SIGCHLD.
    wake.installSignalHandlers(stopping: !once)
    if !once {
      connectListener()
      log("appt remind: started (pid \(getpid())), watching \(dao.database.configuration.displayPath)")
    }
    var retryDelay: TimeInterval = 0
    while true {
      var wakeAt: Date
      do throws(StoreError) {
        wakeAt = try await fireDue()
        retryDelay = 0
      } catch {
        guard case .connectionLost = error, !once else {
          log("appt: \(error)")
          await finishChildren(within: once ? configuration.timeout : 1, wake: wake)
          return .storage
        }
        // A server away: try again, backing off to a minute.
        retryDelay = min(max(retryDelay * 2, 1), 60)
        log("appt remind: \(error); trying again in \(Int(retryDelay))s")
        listener = nil
        reading = nil
        wakeAt = clock.now.addingTimeInterval(retryDelay)
      }
      if once {
        await finishChildren(within: configuration.timeout, wake: wake)
        withExtendedLifetime(lock) {}
        return .ok
      }
      // The real clock's instant for the schedule's one (an APPT_NOW clock runs on from its
      // own start, at the pace of the real one).
      let deadline = Date().addingTimeInterval(wakeAt.timeIntervalSince(clock.now))
      do throws(RemindError) {
        try wake.arm(at: deadline)
      } catch {
        log("appt: \(error)")
        return .failure
      }
      if await sleep(on: wake) == .stop {
        log("appt remind: stopped")
        await finishChildren(within: 1, wake: wake)
        withExtendedLifetime(lock) {}
        return .ok
      }
    }
  }

  private enum Wake { case plan, stop }

  /// Sleeps until the timer passes, the clock is set, another process changes the store,
  /// or a signal asks to stop; reaps and times out notify_commands meanwhile.
  private func sleep(on wake: WakeSource) async -> Wake {
    // A file event can come before the commit it belongs to is visible: SQLite writes the
    // WAL (the event), syncs it, then publishes the commit in the shared memory index, which
    // is mapped, not written (no event). So a file event that finds no change is checked
    // again 0.1 s and 1 s later.
    var rechecks: [TimeInterval] = []
    while true {
      let reconnect: TimeInterval? = listener == nil && isPostgres ? 30 : nil
      let timeout = [notifier.secondsToNextDeadline, reconnect, rechecks.first].compactMap { $0 }.min()
      let events = await wake.wait(timeout: timeout, socket: listener?.socketDescriptor)
      if events.contains(.child) { notifier.reap() }
      notifier.killOverdue()
      if events.contains(.stop) { return .stop }
      if events.contains(.clockChanged) || (isPostgres && listener == nil) { reading = nil }
      if events.contains(.timer) || events.contains(.clockChanged) { return .plan }
      if events.contains(.timeout), reconnect != nil, listener == nil {
        connectListener()
        if listener != nil { return .plan }  // changes while it was away are unknown
      }
      if events.contains(.store) {
        if await storeChangedElsewhere() {
          reading = nil
          return .plan
        }
        rechecks = [0.1, 0.9]
      } else if events.contains(.timeout), !rechecks.isEmpty {
        rechecks.removeFirst()
        if await storeChangedElsewhere() {
          reading = nil
          return .plan
        }
      }
    }
  }

  /// Reads the instances around now, records and fires what is due, records what is missed;
  /// returns when to plan again.
  func fireDue() async throws(StoreError) -> Date {
    let now = clock.now
    let window = schedule.window(now: now)
    let version = try await dao.externalDataVersion()
    var current: Reading
    if let reading, reading.version == version, reading.window.start <= window.start, now < reading.window.end {
      current = reading  // a timer wake, nothing changed since: no need to read them all again
    } else {
      readAtVersion = version
      current = Reading(
        instances: try await dao.alarmInstances(in: window),
        recorded: try await dao.recordedAlarmKeys(from: window.start),
        window: window,
        version: version
      )
    }
    defer { reading = current }
    let plan = schedule.plan(instances: current.instances, recorded: current.recorded, now: now)
    for item in plan.missed + plan.due { current.recorded.insert(item.instance.key) }
    if !plan.missed.isEmpty || !plan.due.isEmpty {
      let calendars = Dictionary(
        try await dao.calendars().map { ($0.id, $0.name) },
        uniquingKeysWith: { first, _ in first }
      )
      // Everything this wake-up handles in one durable commit, before any notification.
      let taken = try await record(plan.missed + plan.due)
      for missed in plan.missed where taken.contains(missed.instance.key) {
        log("appt remind: \(schedule.words(for: missed)): \(label(missed.instance))")
      }
      for due in plan.due where taken.contains(due.instance.key) {
        notifier.send(notification(for: due, calendar: calendars[due.instance.appointment.calendarID] ?? ""))
        log("appt remind: \(schedule.words(for: due)): \(label(due.instance))")
      }
    }
    if lastPrune.map({ now.timeIntervalSince($0) > 3600 || $0 > now }) ?? true {
      try await dao.pruneAlarmRecords(before: schedule.pruneBefore(now: now))
      lastPrune = now
    }
    return min(plan.wakeAt, current.window.end)
  }

  /// What the last read found. Kept while the store has not changed, so a timer wake plans
  /// from it instead of reading every alarm again: the trigger's latency is then only the
  /// records' writes. Dropped on any store change (file event, notification), clock step or
  /// reconnection.
  private struct Reading {
    var instances: [AlarmInstance]
    var recorded: Set<String>
    var window: DateInterval
    var version: Int64?
  }
  private var reading: Reading?

  /// Records `handled` in one transaction before anything is notified; returns the keys
  /// recorded now (the others another daemon, or `--once`, took between our read and now).
  private func record(_ handled: [ReminderSchedule.Due<AlarmInstance>]) async throws(StoreError) -> Set<String> {
    let records = handled.map { due in
      AlarmRecord(
        key: due.instance.key,
        appointmentID: (due.instance.appointment.override?.seriesID ?? due.instance.appointment.id).description,
        fireAt: due.instance.fireAt,
        outcome: due.outcome
      )
    }
    return try await dao.recordAlarms(records, at: clock.now)
  }

  /// Waits up to `seconds` for running notify_commands, then kills what is left.
  private func finishChildren(within seconds: TimeInterval, wake: WakeSource) async {
    let end = ContinuousClock.now + .milliseconds(Int64(seconds * 1000))
    notifier.reap()
    while notifier.runningCount > 0 && ContinuousClock.now < end {
      let left = (end - ContinuousClock.now).components
      let timeout = TimeInterval(left.seconds) + TimeInterval(left.attoseconds) / 1e18
      // SIGCHLD wakes it (the timer and the store are not listened to any more).
      _ = await wake.wait(timeout: timeout, socket: nil)
      notifier.reap()
    }
    if notifier.runningCount > 0 {
      notifier.killOverdue()
      notifier.reap()
    }
  }

  // MARK: - Store changes

  private var isPostgres: Bool {
    if case .postgres = dao.database.configuration.location { return true }
    return false
  }

  private var watchedFile: URL? {
    if case .file(let url) = dao.database.configuration.location { return url }
    return nil
  }

  /// On PostgreSQL, a connection of our own that LISTENs for `appt_changes` (the DAO's own
  /// connection is busy with its transactions; this one only waits).
  private func connectListener() {
    guard case .postgres(let url) = dao.database.configuration.location else { return }
    do {
      let connection = try PostgresConnection(url: url)
      try connection.execute("LISTEN \(Schema.changeChannel)")
      listener = connection
    } catch {
      log("appt remind: cannot listen for changes: \(error); trying again in 30s")
      listener = nil
    }
  }

  /// Whether the event that woke us was another process's commit: on SQLite, the store's
  /// `data_version` moved since the instances were read; on PostgreSQL, a notification about
  /// an appointment or a calendar arrived.
  private func listenerHeardChange() -> Bool {
    if let listener {
      do {
        return try listener.takeNotifications().contains { $0.channel == Schema.changeChannel }
      } catch {
        log("appt remind: the change connection was lost: \(error); trying again in 30s")
        self.listener = nil
        return true
      }
    }
    return true
  }

  private func storeChangedElsewhere() async -> Bool {
    guard !isPostgres else { return listenerHeardChange() }
    do {
      return try await dao.externalDataVersion() != readAtVersion
    } catch {
      return true  // reading again reports it
    }
  }

  // MARK: - What a notification says

  private func label(_ instance: AlarmInstance) -> String {
    let a = instance.appointment
    return "\(TextSafety.escapingControls(a.title)) at \(formatter.dayAndTime(a.start)) (\(a.id.short)), "
      + instance.alarm.summary(clock: clock)
  }

  func notification(for due: ReminderSchedule.Due<AlarmInstance>, calendar: String) -> ReminderNotification {
    let instance = due.instance
    let a = instance.appointment
    let alarm = instance.alarm
    let summary = alarm.summary(clock: clock)
    let late = Int(due.lateness.rounded(.down))
    let environment: [(String, String)] = [
      ("APPT_TITLE", a.title), ("APPT_START", formatter.iso8601(a.start)), ("APPT_END", formatter.iso8601(a.end)),
      ("APPT_ID", a.id.description), ("APPT_LOCATION", a.location), ("APPT_CALENDAR", calendar),
      ("APPT_FIRE_AT", formatter.iso8601(instance.fireAt)), ("APPT_LATE_SECONDS", String(late)),
      ("APPT_REMINDER", summary), ("APPT_DESCRIPTION", alarm.description),
    ]
    let json = formatter.jsonObject(
      instance,
      calendar: calendar,
      more: ",\"late_seconds\":\(late),\"outcome\":" + AppointmentFormatter.jsonString(due.outcome.rawValue)
    )
    let when = "\(formatter.dayAndTime(a.start))" + (a.location.isEmpty ? "" : ", \(a.location)")
    let lateness = due.outcome == .late ? " (late by \(ReminderSchedule.span(due.lateness)))" : ""
    let text = TextSafety.escapingControls
    return ReminderNotification(
      environment: environment,
      json: json,
      summary: a.title,
      body: "\(when)\n\(summary)\(lateness)",
      line: "reminder: \(text(a.title)) at \(text(when)) (\(a.id.short)): \(summary)\(lateness)",
      label: label(instance)
    )
  }
}
