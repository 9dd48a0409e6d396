// ApptRuntime: the @MainActor loop that connects a terminal, the UI model and the store.
//
// key -> inbox -> UI.update -> effects (DAO calls hop to DatabaseActor) -> commit -> the DAO's
// snapshot stream -> inbox -> UI.update -> Views.render -> terminal.draw (only what changed).

import ApptCore
import ApptStore
import ApptTerminal
import ApptUI
import Foundation

/// The render loop: one inbox of messages (keys, snapshots, resizes, store results), one
/// writer of the state, effects carried out against the DAO.
@MainActor
public final class RenderLoop {
  public let dao: AppointmentDAO
  public let terminal: any Terminal
  public let environment: Environment
  public private(set) var state: State

  private let inbox: AsyncStream<Message>
  private let inboxInput: AsyncStream<Message>.Continuation
  /// Messages sent but not yet handled; rendering waits until the inbox is drained.
  private var queued = 0
  /// Store calls started and not yet answered.
  private var inFlight = 0
  private var observation: Task<Void, Never>?
  private var monthObservation: Task<Void, Never>?
  private var calendarsObservation: Task<Void, Never>?
  private var ticker: Task<Void, Never>?
  /// The sequence of the newest snapshot the observations have put in the inbox.
  private var forwardedSequence: UInt64 = 0
  /// What `UI.start` asked for, carried out when `run` starts.
  private var startEffects: [Effect]
  private let executor: CommandExecutor
  /// How often the clock ticks (the now marker moves, "today" changes at midnight); nil: it
  /// never does (a test that counts its own frames: the ticks also come each minute).
  private let tickInterval: Duration?
  /// Runs `appt-sync` with the arguments given (`SyncLauncher.run` unless a test gives one).
  private let syncRunner: SyncRunner
  /// How long a `.scheduleSync(after:)` waits (the seconds as they are, unless a test says).
  private let syncDelay: @Sendable (TimeInterval) -> Duration
  /// The one sync timer (`.scheduleSync` replaces it).
  private var syncTimer: Task<Void, Never>?
  /// The alarms ahead and what was sent (CalendarAlarms.swift).
  public private(set) var alarms: CalendarAlarms
  /// The observation of the days around now whose snapshots make the alarms be asked again.
  private var alarmWatch: Task<Void, Never>?
  /// When `alarmWatch` was started (it moves on with the clock, every `alarmRewatch`).
  private var alarmWatchStart = Date.distantPast
  /// The one alarm timer: until the next alarm is due (or the watch moves on). A clock that
  /// jumps past either (a suspend, NTP, `APPT_NOW`) is noticed by the ticker, which wakes at
  /// least every `tickInterval` anyway (`alarmClockTicked`): the timer needs no wake-ups of
  /// its own to check the clock.
  private var alarmTimer: Task<Void, Never>?
  /// Counts the asks for alarms, so an older answer arriving late is left out.
  private var alarmAsks = 0
  /// How long the alarm timer sleeps for so many seconds (as they are, unless a test says).
  private let alarmDelay: @Sendable (TimeInterval) -> Duration
  /// How often the alarm watch moves on with the clock and the store is asked again.
  public static let alarmRewatch: TimeInterval = 3600

  /// What runs the sync program: its arguments in, its exit status and output out.
  public typealias SyncRunner = @Sendable ([String]) async -> (status: Int32, stdout: String, stderr: String)

  /// Background syncs started and ended (tests wait for these).
  public private(set) var syncsStarted = 0
  public private(set) var syncsFinished = 0

  public init(
    dao: AppointmentDAO,
    terminal: any Terminal,
    environment: Environment,
    tickInterval: Duration? = .seconds(20),
    syncRunner: SyncRunner? = nil,
    syncDelay: @escaping @Sendable (TimeInterval) -> Duration = { .milliseconds(Int64($0 * 1000)) },
    alarmDelay: @escaping @Sendable (TimeInterval) -> Duration = { .milliseconds(Int64($0 * 1000)) }
  ) {
    self.dao = dao
    self.terminal = terminal
    self.environment = environment
    self.tickInterval = tickInterval
    self.syncRunner = syncRunner ?? { arguments in await SyncLauncher.run(arguments: arguments) }
    self.syncDelay = syncDelay
    self.alarmDelay = alarmDelay
    alarms = CalendarAlarms(since: environment.clock.now)
    executor = CommandExecutor(dao: dao, clock: environment.clock, json: false, settings: environment.settings)
    (inbox, inboxInput) = AsyncStream.makeStream(of: Message.self)
    (state, startEffects) = UI.start(size: terminal.size, environment: environment)
  }

  /// Runs until the user quits or the terminal goes away; the terminal is restored after.
  public func run() async throws(TerminalError) {
    try terminal.start { [weak self] event in self?.receive(event) }
    defer {
      observation?.cancel()
      monthObservation?.cancel()
      calendarsObservation?.cancel()
      ticker?.cancel()
      syncTimer?.cancel()
      alarmWatch?.cancel()
      alarmTimer?.cancel()
      terminal.stop()
    }
    // A real terminal knows its size once started.
    if terminal.size != state.size { _ = UI.update(&state, .terminalResized(terminal.size), environment: environment) }
    let effects = startEffects
    startEffects = []
    observeCalendars()
    watchAlarms()
    guard perform(effects) else { return }
    startTicking()
    render()
    for await message in inbox {
      queued -= 1
      guard perform(UI.update(&state, message, environment: environment)) else { return }
      if queued == 0 { render() }
    }
  }

  /// Puts a message in the inbox (from the terminal, the store, or a test).
  public func send(_ message: Message) {
    queued += 1
    inboxInput.yield(message)
  }

  private func receive(_ event: TerminalEvent) {
    switch event {
    case .key(let key): send(.keyPressed(key))
    case .resized(let size): send(.terminalResized(size))
    case .mouse(let event): send(.mouse(event))
    case .interrupted: send(.interrupted)
    }
  }

  private func render() {
    terminal.draw(Views.render(state, environment: environment), cursor: Views.cursorPosition(state))
  }

  // MARK: - Effects

  /// Carries out `effects`; false once one of them is `.quit` (the loop then ends).
  private func perform(_ effects: [Effect]) -> Bool {
    for effect in effects {
      if effect == .quit { return false }
      perform(effect)
    }
    return true
  }

  private func perform(_ effect: Effect) {
    switch effect {
    case .observeDay(let day, let known):
      observe(day: day, known: known)
    case .observeDays(let start, let end, let known):
      observe(day: start, end: end, known: known)
    case .readAhead(let day, let end):
      readAhead(day: day, end: end)
    case .observeMonth(let month):
      observe(month: month)
    case .addAppointment(let request):
      runStoreCall { dao throws(StoreError) in .appointmentAdded(try await dao.addAppointment(request)) }
    // Based on the revision the user saw; a newer one is refused (.changeRefused).
    case .editAppointment(let old, let request):
      runStoreCall(.save) { dao throws(StoreError) in try await Self.edit(old, request, dao: dao) }
    case .cancelAppointment(let appointment, let occurrence, let andFollowing):
      setStatus(.cancelled, of: appointment, occurrence: occurrence, andFollowing: andFollowing)
    case .restoreAppointment(let appointment):
      // An occurrence cancelled on its own comes back alone; one cancelled with its whole
      // series (`c` then `s`, or "this and following") brings the series back.
      let alone = appointment.occurrence.flatMap { appointment.exceptions.contains($0) ? $0 : nil }
      setStatus(.scheduled, of: appointment, occurrence: alone.map(environment.clock.startOfDay))
    case .deleteAppointment(let appointment):
      runStoreCall(.delete) { dao throws(StoreError) in
        .appointmentDeleted(try await dao.deleteAppointment(id: appointment.id, ifRevision: appointment.revision))
      }
    case .undo(let step):
      let clock = environment.clock
      runStoreCall(.undo) { dao throws(StoreError) in try await Self.undo(step, dao: dao, clock: clock) }
    case .lookUpSeries(let ids):
      runStoreCall { dao throws(StoreError) in
        var titles: [AppointmentID: String?] = [:]
        for id in ids {
          do throws(StoreError) {
            titles[id] = try await dao.getAppointment(id: id).title
          } catch {
            titles[id] = .some(nil)  // not stored (any more): the pane says "changed occurrence"
          }
        }
        return .seriesFound(titles)
      }
    case .runCommand(let line):
      runCommand(line)
    case .searchAllDays(let text):
      // Series once each, as stored (their first start), with the cancelled ones marked.
      let query = AppointmentQuery(
        range: nil,
        includeCancelled: true,
        search: text,
        limit: State.searchLimit,
        onlyShownCalendars: true
      )
      runStoreCall { dao throws(StoreError) in
        .searchResultsArrived(query: text, results: try await dao.appointments(matching: query))
      }
    case .setCalendarShown(let name, let shown):
      runStoreCall { dao throws(StoreError) in .calendarShown(try await dao.setCalendarShown(name, shown)) }
    case .runSync:
      runSync()
    case .scheduleSync(let seconds):
      syncTimer?.cancel()
      let delay = syncDelay(seconds)
      syncTimer = Task { [weak self] in
        do {
          try await Task.sleep(for: delay)
        } catch {
          return  // replaced by a newer timer, or the loop ended
        }
        self?.send(.syncDue)
      }
    case .ringBell:
      terminal.bell()
    case .snoozeAlarm(let instance, let until):
      alarms.snooze(instance, until: until)
      armAlarmTimer()
    case .quit:
      break  // handled by perform(_:), which ends the loop; its defer cancels the observations
    }
  }

  // MARK: - Alarms

  /// Observes the days around now (yesterday to the day after tomorrow: where an alarm due in
  /// the next day almost always belongs), and asks the store for the alarms again after each
  /// change there to an appointment with alarms, in this process or another; started again
  /// every `alarmRewatch`, which asks again too (an alarm set weeks ahead by another process
  /// is seen within the hour, and long before it is due). Only the rows with alarms are
  /// observed (`withAlarmsOnly`): the store re-runs the query after every commit, and a
  /// commit that touches no alarm then reads next to nothing (no one-off without alarms, no
  /// series expanded); a wider window would cost every commit more.
  private func watchAlarms() {
    alarmWatch?.cancel()
    let now = environment.clock.now
    alarmWatchStart = now
    let query = Self.alarmWatchQuery(at: now, clock: environment.clock)
    let dao = self.dao
    inFlight += 1
    alarmWatch = Task { [weak self] in
      let stream = await dao.observeAppointments(query)
      self?.inFlight -= 1
      // Only a change to the appointments with alarms makes the store be asked again: an
      // add or an edit of one without (most commits) changes no snapshot and costs no scan.
      var carrying: [Appointment]?
      for await snapshot in stream {
        guard let self, !Task.isCancelled else { return }
        self.forwardedSequence = max(self.forwardedSequence, snapshot.sequence)
        guard snapshot.failure == nil else { continue }
        let now = snapshot.items.filter(\.hasAlarms)
        if now != carrying {
          carrying = now
          self.askForAlarms()
        }
      }
    }
  }

  /// What the alarm watch observes at `now`: the rows with alarms of yesterday to the day
  /// after tomorrow, cancelled ones too (a cancel must be seen).
  public static func alarmWatchQuery(at now: Date, clock: Clock) -> AppointmentQuery {
    AppointmentQuery(
      range: DateInterval(start: clock.day(-1, after: now), end: clock.day(3, after: now)),
      includeCancelled: true,
      withAlarmsOnly: true
    )
  }

  /// Asks the store for the alarm instances of the window and re-arms the timer with them.
  /// Not a store call `settle()` waits for: nothing shows until the timer says so, as for
  /// the sync timer (and a settle bounded tightly stays about what is on screen).
  private func askForAlarms() {
    alarmAsks += 1
    let ask = alarmAsks
    let window = alarms.window(at: environment.clock.now, grace: environment.settings.reminders.remindGrace.value)
    let dao = self.dao
    Task { [weak self] in
      var instances: [AlarmInstance]?
      do throws(StoreError) {
        instances = try await dao.alarmInstances(in: window)
      } catch {
        instances = nil  // the day's observation says what is wrong; the next change asks again
      }
      guard let self, ask == self.alarmAsks, let instances else { return }
      self.alarms.replace(instances)
      self.armAlarmTimer()
    }
  }

  /// Sleeps until the next alarm is due (or the watch moves on), then sends what is due; the
  /// one timer, replaced each time. The clock's now decides, so an `APPT_NOW` clock sleeps
  /// `fireAt - now` of real time.
  private func armAlarmTimer() {
    alarmTimer?.cancel()
    let now = environment.clock.now
    let delay = alarmDelay(max(0, alarmTarget.timeIntervalSince(now)))
    alarmTimer = Task { [weak self] in
      do {
        try await Task.sleep(for: delay)
      } catch {
        return  // replaced by a newer timer, or the loop ended
      }
      self?.alarmTimerFired()
    }
  }

  /// When the alarm timer is due to fire: the next alarm, or the watch's moving on.
  private var alarmTarget: Date {
    let rewatch = alarmWatchStart.addingTimeInterval(Self.alarmRewatch)
    return min(alarms.nextDue ?? rewatch, rewatch)
  }

  /// Each tick of the clock: a clock that jumped past the timer's target (the timer sleeps
  /// real time) is caught up with now, within a tick, not only when the timer wakes.
  private func alarmClockTicked() {
    guard alarmTimer != nil, environment.clock.now >= alarmTarget else { return }
    alarmTimerFired()
  }

  private func alarmTimerFired() {
    let now = environment.clock.now
    for instance in alarms.due(at: now) { send(.alarmDue(instance)) }
    if now >= alarmWatchStart.addingTimeInterval(Self.alarmRewatch) {
      watchAlarms()  // its first snapshot asks for the next window
    }
    armAlarmTimer()
  }

  /// Runs `appt-sync --json --quiet` on the calendar's store and settings file as a child,
  /// off the main actor (keys go on being handled), and sends how it went: the outcome by
  /// its exit status, the changes still waiting as its JSON lines say (the store's count
  /// when it printed none), the conflicts as the store holds them.
  private func runSync() {
    syncsStarted += 1
    let clock = environment.clock
    let config =
      environment.settings.source?.path
      ?? SettingsSource.locate(option: nil, environment: ProcessEnvironment.variables()).path
    let arguments = SyncLauncher.arguments(
      database: dao.database.configuration.location,
      config: config,
      json: true,
      quiet: true,
      accounts: []
    )
    let runner = syncRunner
    let dao = self.dao
    Task { [weak self] in
      let report: SyncReport
      if let arguments {
        let result = await runner(arguments)
        report = await Self.syncReport(result, dao: dao, at: clock.now)
      } else {
        report = SyncReport(
          outcome: .failed("sync needs a database file or a PostgreSQL database"),
          finished: clock.now
        )
      }
      self?.syncsFinished += 1
      self?.send(.syncFinished(report))
    }
  }

  /// After a `:sync`: the status line's report of it, with the store's changes still waiting
  /// and its conflicts (as after a background sync).
  private func reportSync(failure: CommandExecutor.Failure?) async {
    guard state.sync != nil else { return }
    let outcome: SyncReport.Outcome
    switch failure?.kind {
    case nil: outcome = .synced
    case .unavailable?: outcome = .offline
    default: outcome = .failed(failure?.message.split(separator: "\n").first.map(String.init) ?? "sync failed")
    }
    let status: Int32 = failure == nil ? 0 : (failure?.kind == .unavailable ? 3 : 1)
    var report = await Self.syncReport((status, "", ""), dao: dao, at: environment.clock.now)
    report.outcome = outcome
    send(.syncReported(report))
  }

  /// After a `:resolve`: the conflicts left, for the status line and the calendar's marks.
  private func reportConflicts() async {
    guard state.sync != nil else { return }
    do throws(StoreError) {
      let conflicts = try await dao.conflicts()
      send(.conflictsRead(Set(conflicts.map(\.appointment)), count: conflicts.count))
    } catch {
      send(.commandFinished(output: error.description, isError: true))
    }
  }

  /// What a run of the sync program said, with the store's conflicts.
  static func syncReport(
    _ result: (status: Int32, stdout: String, stderr: String),
    dao: AppointmentDAO,
    at now: Date
  ) async -> SyncReport {
    var pending: Int?
    /// The part of a calendar's JSON line (`appt-sync --json`) the status line uses.
    struct CalendarLine: Decodable { var pending: Int? }
    for line in result.stdout.split(separator: "\n") {
      let decoded = try? JSONDecoder().decode(CalendarLine.self, from: Data(line.utf8))  // ok: not a calendar's line
      guard let count = decoded?.pending else { continue }
      pending = (pending ?? 0) + count
    }
    var conflicts: [SyncConflict] = []
    do throws(StoreError) {
      conflicts = try await dao.conflicts()
      if pending == nil, result.status != 0 {
        var waiting = 0
        for calendar in try await dao.calendars() where calendar.source == "caldav" {
          waiting += try await dao.pendingChanges(calendarID: calendar.id)
        }
        pending = waiting
      }
    } catch {
      return SyncReport(outcome: .failed(error.description), finished: now)
    }
    let said = result.stderr.split(separator: "\n").first.map { line in
      line.hasPrefix("appt: ") ? String(line.dropFirst(6)) : String(line)
    }
    let outcome: SyncReport.Outcome
    switch result.status {
    case 0: outcome = .synced
    case 3: outcome = .offline
    default: outcome = .failed(said ?? "appt-sync exited with status \(result.status)")
    }
    return SyncReport(
      outcome: outcome,
      finished: now,
      pending: pending ?? 0,
      conflicts: conflicts.count,
      conflicted: Set(conflicts.map(\.appointment))
    )
  }

  /// Carries out an edit. An occurrence edited as the whole series moves the series' start by
  /// as much as the occurrence moved; the message then carries the series as it was (for
  /// undo), as it does for "this and following" (whose result is the new series).
  private static func edit(_ old: Appointment, _ request: EditRequest, dao: AppointmentDAO) async throws(StoreError)
    -> Message
  {
    guard old.occurrence != nil, request.occurrence == nil || request.andFollowing else {
      return .appointmentUpdated(old: old, new: try await dao.editAppointment(request))
    }
    var series = try await dao.getAppointment(id: old.id)
    var request = request
    if request.occurrence == nil, let start = request.start {
      request.start = series.start.addingTimeInterval(start.timeIntervalSince(old.start))
    }
    series.revision = old.revision  // undo compares with the revision the edit was based on
    let new = try await dao.editAppointment(request)
    if new.id == series.id { series.revision = new.revision }
    return .appointmentUpdated(old: series, new: new)
  }

  /// Cancels or restores `appointment`: only the occurrence on the day `occurrence`, with
  /// `andFollowing` every later one too, or (nil) all of it.
  private func setStatus(
    _ status: Appointment.Status,
    of appointment: Appointment,
    occurrence day: Date?,
    andFollowing: Bool = false
  ) {
    runStoreCall(status == .cancelled ? .cancel : .restore) { dao throws(StoreError) in
      // The series as it was, for an undo that joins a split again.
      var series: Appointment?
      if status == .cancelled, andFollowing, day != nil {
        series = try await dao.getAppointment(id: appointment.id)
        series?.revision = appointment.revision
      }
      let changed = try await dao.setStatus(
        status,
        id: appointment.id,
        occurrenceOn: day,
        andFollowing: andFollowing,
        ifRevision: appointment.revision
      )
      if let series, changed.id != series.id { return .followingCancelled(series: series, split: changed) }
      return status == .cancelled ? .appointmentCancelled(changed) : .appointmentRestored(changed)
    }
  }

  /// Carries out an undo step and says what was undone. Each step holds the revision its
  /// change left, so an undo never overwrites what someone else changed since.
  private static func undo(_ step: State.UndoStep, dao: AppointmentDAO, clock: Clock) async throws(StoreError)
    -> Message
  {
    switch step {
    case .removeOverride(let changed):
      // Deleting a changed occurrence gives the series its occurrence back as it was.
      try await dao.deleteAppointment(id: changed.id, ifRevision: changed.revision)
      return .undone("changes to an occurrence of \"\(changed.title)\"")
    case .unsplit(let series, let split):
      // The changed occurrences the split moved to the new series go back to the series
      // first (deleting a series deletes its own). A full read: undoing a split is rare.
      for var moved in try await dao.getAllAppointments() where moved.override?.seriesID == split.id {
        moved.override?.seriesID = series.id
        moved.uid = series.uid
        try await dao.saveAppointment(moved)
      }
      try await dao.deleteAppointment(id: split.id, ifRevision: split.revision)
      // The split changed the series' rules (its UNTIL) too: put them back over that version.
      var before = series
      before.revision = try await dao.getAppointment(id: series.id).revision
      try await dao.saveAppointment(before)
      return .undone("changes to \"\(split.title)\" and the occurrences after it")
    case .remove(let appointment):
      try await dao.deleteAppointment(id: appointment.id, ifRevision: appointment.revision)
      return .undone("added \"\(appointment.title)\"")
    case .put(let appointment):
      try await dao.saveAppointment(appointment)  // checks `appointment.revision` if it is stored
      return .undone("changes to \"\(appointment.title)\"")
    case .setStatus(let appointment, let status):
      let day = appointment.occurrence.map(clock.startOfDay)
      try await dao.setStatus(status, id: appointment.id, occurrenceOn: day, ifRevision: appointment.revision)
      let what = day == nil ? "" : "occurrence of "
      return .undone("\(status == .scheduled ? "cancelled" : "restored") \(what)\"\(appointment.title)\"")
    }
  }

  /// Runs a `:` line through the same executor as scripts; its output goes to the status line.
  private func runCommand(_ line: String) {
    inFlight += 1
    let executor = self.executor
    Task { [weak self] in
      let message: Message
      do throws(CommandExecutor.Failure) {
        guard let command = try executor.parse(line: line) else {
          self?.inFlight -= 1
          return
        }
        do throws(CommandExecutor.Failure) {
          let output = try await executor.run(command)
          // A DST note (which instant a typed time became) is what the status line shows: the
          // result itself is on screen in the agenda.
          let notes = executor.notices(for: command).map { $0 + "\n" }.joined()
          message = .commandFinished(output: notes + output, isError: false)
        } catch {
          // A `:sync` says how it went on the status line's right end at once, as the
          // background sync does (it said the last background one's until the next).
          if case .sync = command { await self?.reportSync(failure: error) }
          throw error
        }
        if case .sync = command { await self?.reportSync(failure: nil) }
        if case .resolve = command { await self?.reportConflicts() }
      } catch {
        message = .commandFinished(output: error.message, isError: true)
      }
      self?.inFlight -= 1
      self?.send(message)
    }
  }

  /// Marks of the month panel: the month's busy days, live.
  private func observe(month: Date) {
    monthObservation?.cancel()
    let clock = environment.clock
    let end = clock.calendar.date(byAdding: .month, value: 1, to: month) ?? clock.day(31, after: month)
    let dao = self.dao
    inFlight += 1
    monthObservation = Task { [weak self] in
      let stream = await dao.observeBusyDays(in: DateInterval(start: month, end: end), onlyShownCalendars: true)
      self?.inFlight -= 1
      for await snapshot in stream {
        guard let self, !Task.isCancelled else { return }
        self.forwardedSequence = max(self.forwardedSequence, snapshot.sequence)
        self.send(.busyDaysArrived(month: month, days: Set(snapshot.items.map(\.id))))
      }
    }
  }

  /// The store's calendars, live (another process's changes included): the rows' colours,
  /// the `C` list and the form's Calendar field.
  private func observeCalendars() {
    calendarsObservation?.cancel()
    let dao = self.dao
    inFlight += 1
    calendarsObservation = Task { [weak self] in
      let stream = await dao.observeCalendars()
      self?.inFlight -= 1
      for await snapshot in stream {
        guard let self, !Task.isCancelled else { return }
        self.forwardedSequence = max(self.forwardedSequence, snapshot.sequence)
        if snapshot.failure == nil { self.send(.calendarsArrived(snapshot.items)) }
      }
    }
  }

  private func startTicking() {
    guard let interval = tickInterval else { return }
    let clock = environment.clock
    ticker = Task { [weak self] in
      while !Task.isCancelled {
        // At most `interval` apart, and just after each minute of the clock turns, so the now
        // marker's minute and "today" (at midnight) change when the clock's do.
        let second = clock.now.timeIntervalSince1970.truncatingRemainder(dividingBy: 60)
        let delay = min(interval, .milliseconds(Int((60 - second) * 1000) + 50))
        do {
          try await Task.sleep(for: delay)
        } catch {
          return  // cancelled: the loop ended
        }
        self?.send(.clockTicked(clock.now))
        self?.alarmClockTicked()
      }
    }
  }

  /// Replaces the current observation with one of `day`'s window (with `end`, of the days from
  /// `day` to `end`: the week and agenda views). Snapshots are tagged with the window, so a
  /// late one from the previous window is recognised and ignored by `update`. `known`: the
  /// window as read ahead, which the store does not read again if no commit came since.
  private func observe(day: Date, end: Date? = nil, known: KnownWindow? = nil) {
    observation?.cancel()
    let query = windowQuery(day: day, end: end)
    let dao = self.dao
    inFlight += 1
    observation = Task { [weak self] in
      let stream = await dao.observeAppointments(query, known: known)
      self?.inFlight -= 1
      for await snapshot in stream {
        guard let self, !Task.isCancelled else { return }
        self.forwardedSequence = max(self.forwardedSequence, snapshot.sequence)
        if let failure = snapshot.failure {
          self.send(.storeFailed(failure.description))
        } else {
          // The facts only; `update` decides what they mean (reconnected, updated elsewhere).
          self.send(
            .snapshotArrived(
              day: day,
              end: end,
              appointments: snapshot.items,
              fromOtherProcess: snapshot.fromOtherProcess,
              interruption: snapshot.interruption.map(Self.interruption),
              version: snapshot.version
            )
          )
        }
      }
    }
  }

  /// What the calendar observes or reads ahead of the window from `day` to `end` (nil: the
  /// day). Hidden calendars stay out (the store re-reads it when one is shown or hidden).
  private func windowQuery(day: Date, end: Date?) -> AppointmentQuery {
    let window = DateInterval(start: day, end: end ?? environment.clock.day(1, after: day))
    return AppointmentQuery(range: window, includeCancelled: true, onlyShownCalendars: true)
  }

  /// Reads the window from `day` to `end` once, for `update` to show at once when the
  /// selection moves there (ReadAhead.swift).
  private func readAhead(day: Date, end: Date?) {
    let query = windowQuery(day: day, end: end)
    let dao = self.dao
    inFlight += 1
    Task { [weak self] in
      let known: KnownWindow?
      do throws(StoreError) {
        known = try await dao.prefetchAppointments(matching: query)
      } catch {
        // Not the user's concern: the move there waits for the store instead, and the
        // observation of that window says what is wrong (the store's interruptions and
        // failures reach the status line through the observations, once each).
        known = nil
      }
      self?.inFlight -= 1
      if let known { self?.send(.readAheadArrived(day: day, end: end, known: known)) }
    }
  }

  /// Runs one DAO call off the main actor and sends its result (or its error) to the inbox; a
  /// refusal of `change` as stale comes back as `.changeRefused`.
  private func runStoreCall(
    _ change: State.Change? = nil,
    _ call: @escaping @Sendable (AppointmentDAO) async throws(StoreError) -> Message
  ) {
    inFlight += 1
    let dao = self.dao
    Task { [weak self] in
      let message: Message
      do throws(StoreError) {
        message = try await call(dao)
      } catch {
        if let change, case .staleRevision(let current) = error {
          message = .changeRefused(change, current: current)
        } else {
          message = .storeFailed(error.description)
        }
      }
      self?.inFlight -= 1
      self?.send(message)
    }
  }

  /// A snapshot's interruption in the UI model's terms (it does not know `StoreError`).
  nonisolated static func interruption(_ error: StoreError) -> StoreInterruption {
    switch error {
    case .connectionLost(let server, let reason), .cannotConnect(let server, let reason):
      StoreInterruption(server: server, reason: reason)
    default: StoreInterruption(server: nil, reason: error.description)
    }
  }

  // MARK: - Settling (tests and benchmarks)

  /// How long `settle()` waits while nothing it waits for moves, before it gives up: long
  /// enough for store calls queued behind a busy DatabaseActor (a test suite under a
  /// sanitizer, a loaded machine), short enough that a hang ends the run with a diagnostic.
  public static let settleLimit: Duration = .seconds(60)

  /// What `settle()` was still waiting for when it gave up.
  public struct Unsettled: Error, Equatable, CustomStringConvertible {
    /// Messages sent and not yet handled.
    public var queuedMessages: Int
    /// Store calls (and `:` commands) started and not yet answered.
    public var storeCallsInFlight: Int
    /// The sequence of the store's observation horizon when last asked; nil if the loop was
    /// never idle enough to ask.
    public var horizon: UInt64?
    /// Whether an observer had a snapshot waiting to be delivered, when last asked.
    public var horizonPending: Bool
    /// The newest snapshot sequence the observations have put in the inbox.
    public var forwardedSequence: UInt64
    /// How long none of the above changed.
    public var stalledFor: Duration

    public var description: String {
      var waits: [String] = []
      if queuedMessages > 0 { waits.append("\(queuedMessages) message(s) queued, not yet handled") }
      if storeCallsInFlight > 0 { waits.append("\(storeCallsInFlight) store call(s) in flight") }
      if let horizon {
        if horizonPending { waits.append("a snapshot pending delivery to an observer (horizon \(horizon))") }
        if forwardedSequence < horizon {
          waits.append("snapshots forwarded up to sequence \(forwardedSequence), the horizon is at \(horizon)")
        }
      } else {
        waits.append("the store's observation horizon (not asked: the loop was never idle)")
      }
      return "settle() gave up after \(stalledFor) without progress (nor any store transaction finished), waiting for: "
        + waits.joined(separator: "; ")
    }
  }

  /// Waits until every message is handled, no store call is in flight, and the snapshot of
  /// the last commit has reached the screen. Deterministic: no sleeps of a guessed length.
  ///
  /// Throws what it still waits for once none of that has moved for `limit`: the deadline
  /// restarts whenever a message is handled, a call answers, a snapshot is forwarded or the
  /// store finishes a transaction (a call of ours may wait its turn behind others' work), so
  /// a slow machine only delays it and only a hang ends it.
  public func settle(giveUpAfter limit: Duration = settleLimit) async throws(Unsettled) {
    var horizon: (sequence: UInt64, pending: Bool)?
    var seen: Unsettled?
    var storeWork = AsyncDatabase.finishedTransactions.load(ordering: .relaxed)
    var lastProgress = ContinuousClock.now
    var idleRounds = 0
    while true {
      if queued == 0, inFlight == 0 {
        let current = await dao.database.observationHorizon
        horizon = current
        if queued == 0, inFlight == 0, !current.pending, forwardedSequence >= current.sequence { return }
      }
      var now = Unsettled(
        queuedMessages: queued,
        storeCallsInFlight: inFlight,
        horizon: horizon?.sequence,
        horizonPending: horizon?.pending ?? false,
        forwardedSequence: forwardedSequence,
        stalledFor: .zero
      )
      let storeWorkNow = AsyncDatabase.finishedTransactions.load(ordering: .relaxed)
      if now != seen {
        seen = now
        lastProgress = ContinuousClock.now
        idleRounds = 0
      } else if storeWorkNow != storeWork {
        lastProgress = ContinuousClock.now  // our calls may be queued behind others' work
      } else if ContinuousClock.now - lastProgress >= limit {
        now.stalledFor = ContinuousClock.now - lastProgress
        throw now
      }
      storeWork = storeWorkNow
      // A message or a snapshot takes a turn or two of the main actor: yield for those. A
      // longer wait is on the store, whose thread a spinning loop would only slow down.
      idleRounds += 1
      if idleRounds < 64 {
        await Task.yield()
      } else {
        do {
          try await Task.sleep(for: .milliseconds(1))
        } catch {
          await Task.yield()  // cancelled: go on waiting (the deadline still holds)
        }
      }
    }
  }
}
