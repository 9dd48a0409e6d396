import ApptCore
import Foundation

/// Everything the calendar shows, in one value with exactly one writer (the runtime's loop).
public struct State: Equatable, Sendable {
  public enum Mode: Equatable, Sendable {
    case browsing
    /// The add/edit form is open.
    case form(Form)
    /// Waiting for y/n.
    case confirm(Confirmation)
    /// `e` or `c` on an occurrence of a series: which does it change? `o` this occurrence,
    /// `f` this and the following ones, `s` the whole series; esc asks nothing more.
    case chooseScope(ScopeQuestion)
    /// Typing a filter on the status line (`/`); the agenda filters as it changes.
    case search(TextField)
    /// Typing a command of the script grammar on the status line (`:`).
    case command(TextField)
    /// The key overlay (`?`); any key closes it.
    case help
    /// The list of calendars (`C`), the one at this index selected: space shows or hides it.
    case calendars(Int)
    /// The whole output of a `:` command longer than a line, scrolling; esc closes it.
    case output(OutputPane)
    /// What `/` then tab found on every day: a list to choose one from and go to its day.
    case results(SearchResults)
  }

  /// The appointments of every day matching a search, one chosen.
  public struct SearchResults: Equatable, Sendable {
    public var query: String
    public var items: [Appointment]
    public var selected = 0

    public init(query: String, items: [Appointment]) {
      self.query = query
      self.items = items
    }
  }

  /// What a `:` command printed, shown whole.
  public struct OutputPane: Equatable, Sendable {
    public var lines: [String]
    public var isError: Bool
    /// The first line shown.
    public var scroll = 0

    public init(lines: [String], isError: Bool) {
      self.lines = lines
      self.isError = isError
    }
  }

  public enum Confirmation: Equatable, Sendable {
    case cancel(Appointment)
    case delete(Appointment)
  }

  /// The question `chooseScope` asks, about an occurrence of a series.
  public struct ScopeQuestion: Equatable, Sendable {
    public enum Purpose: Equatable, Sendable { case edit, cancel }
    public var purpose: Purpose
    public var occurrence: Appointment

    public init(_ purpose: Purpose, _ occurrence: Appointment) {
      self.purpose = purpose
      self.occurrence = occurrence
    }
  }

  /// A change the store refuses when someone else changed the appointment since it was shown.
  public enum Change: Equatable, Sendable {
    case save, cancel, restore, delete, undo

    /// What did not happen: "nothing saved", "not cancelled"...
    var refusal: String {
      switch self {
      case .save: "nothing saved"
      case .cancel: "not cancelled"
      case .restore: "not restored"
      case .delete: "not deleted"
      case .undo: "nothing undone"
      }
    }
  }

  public struct StatusMessage: Equatable, Sendable {
    public var text: String
    public var isError: Bool
  }

  /// How to take back one change (`u`): the inverse operation, recorded when a change lands.
  public enum UndoStep: Equatable, Sendable {
    /// Undo an add: delete it.
    case remove(Appointment)
    /// Undo an edit or a delete: put this version back.
    case put(Appointment)
    /// Undo a cancel or a restore: set the status back (of one occurrence, for an occurrence).
    case setStatus(Appointment, Appointment.Status)
    /// Undo editing one occurrence of a series: delete the changed occurrence (the override
    /// row) it became, which gives the series its occurrence back as it was.
    case removeOverride(Appointment)
    /// Undo "this and following": put the series back as it was (`series`) and delete the
    /// series the split started (`split`).
    case unsplit(series: Appointment, split: Appointment)
  }

  public var size: Screen.Size
  /// Local midnight of the day on screen.
  public var selectedDay: Date
  /// The current time, advanced by clock ticks: drives "today" and the now marker.
  public var now: Date
  /// The day's appointments as of the last snapshot (cancelled included), in display order.
  public var appointments: [Appointment] = [] { didSet { reindex() } }
  /// False until the first snapshot of the selected day arrives.
  public var isLoaded = false
  public var selectedID: AppointmentID?
  public var mode: Mode = .browsing
  public var status: StatusMessage?
  /// Set while the store cannot be reached (a PostgreSQL server restarting), from the
  /// snapshots that say so: the status line says so until a snapshot without it comes, and
  /// then "Reconnected". The agenda keeps the last snapshot meanwhile.
  public var storeInterruption: StoreInterruption?
  /// Keys typed while the selected day was still loading, replayed when its snapshot comes:
  /// `l j` typed in one go must move in the new day's list, not in the empty one between.
  /// At most `maximumTypeahead`: a store that does not answer cannot make it grow forever.
  public var typeahead: [Key] = []
  public static let maximumTypeahead = 256
  public var showsCancelled = true { didSet { if showsCancelled != oldValue { reindex() } } }
  /// The agenda shows only appointments whose title or note contains this, as `list --search`
  /// finds them (`TextSearch`: case and accents ignored).
  public var filter = "" { didSet { if filter != oldValue { reindex() } } }
  /// Newest last.
  public var undoSteps: [UndoStep] = []
  /// The titles of the series of changed occurrences on screen whose series is not (nil: not
  /// stored), as the runtime looked them up (`Effect.lookUpSeries`), for the detail pane.
  public var seriesTitles: [AppointmentID: String?] = [:]
  /// The first day of the month in the panel, and its busy days (`Clock.dayNumber`s).
  public var month: Date
  public var busyDays: Set<Int> = []
  /// The store's calendars, live (`calendarsArrived`): their colours mark the rows.
  public var calendars: [CalendarInfo] = []
  /// The first line of the help overlay shown, when it is taller than the terminal.
  public var helpScroll = 0
  /// The day view, the week view (`w`) or the agenda view (`A`).
  public var view: CalendarView = .day
  /// The days the week and agenda views observe (nil in the day view, which observes
  /// `selectedDay`): the selected day moves inside it without a new observation.
  public var span: Span? { didSet { if span != oldValue { reindex() } } }
  /// The span's shown appointments day by day (`shown(on:)`), kept by `reindex()` whenever
  /// the appointments, the span, the filter or `showsCancelled` change.
  public internal(set) var spanIndex = SpanIndex()
  /// The most a search of every day lists (the first, in start order).
  public static let searchLimit = 500
  /// The background sync (Sync.swift), nil when the settings have no account.
  public var sync: SyncState?
  /// Alarms come due (Alarms.swift), oldest first: on the status line until a key dismisses
  /// them or `z` snoozes them.
  public var alarms: [DueAlarm] = []
  /// The windows beside the one on screen as read ahead (ReadAhead.swift), and those asked
  /// for, with the store version each was asked at.
  public var readAhead: [Window: KnownWindow] = [:]
  /// For the week and agenda views, the `SpanIndex` of each window in `readAhead`, made when
  /// it came.
  var readAheadIndexes: [Window: PreparedIndex] = [:]
  var readAheadAsked: [Window: UInt64] = [:]
  /// The newest store version a snapshot or a read-ahead reflected, and that of the snapshot
  /// on screen (nil once the calendar changed the store, until the next snapshot).
  public var storeVersion: UInt64 = 0
  var shownVersion: UInt64?

  public init(size: Screen.Size, selectedDay: Date, now: Date, month: Date) {
    self.size = size
    self.selectedDay = selectedDay
    self.now = now
    self.month = month
  }

  /// What the agenda lists: the day's appointments less hidden cancelled ones and the filter.
  /// In the week and agenda views, of the span's appointments those of the selected day.
  public var visible: [Appointment] {
    guard span == nil else { return shown(on: selectedDay) }
    let search = TextSearch(filter)
    guard !showsCancelled || !search.isEmpty else { return appointments }
    return appointments.filter { (showsCancelled || !$0.isCancelled) && search.matches($0) }
  }

  /// The index of the selected appointment in `visible`, if any.
  public var selectedIndex: Int? {
    guard let selectedID else { return nil }
    return visible.firstIndex { $0.id == selectedID }
  }

  public var selectedAppointment: Appointment? { selectedIndex.map { visible[$0] } }

  /// The calendar an appointment is in, when known.
  public func calendar(of appointment: Appointment) -> CalendarInfo? {
    calendars.first { $0.id == appointment.calendarID }
  }

  /// Whether rows carry their calendar's marker: only when there is more than one calendar
  /// to tell apart.
  public var marksCalendars: Bool { calendars.count > 1 }

  /// The calendar names the form offers (none when there is only one: the form then has no
  /// Calendar field), and the one a new appointment goes in.
  var formCalendars: [String] { marksCalendars ? calendars.map(\.name) : [] }
  /// `preferred` is `[ui] default_calendar` when the settings file sets it.
  func defaultCalendarName(preferring preferred: String?) -> String? {
    guard marksCalendars else { return nil }
    let wanted = preferred.map(CalendarRules.folded) ?? CalendarRules.defaultName
    let found = calendars.first { CalendarRules.folded($0.name) == wanted }
    return (found ?? calendars.first)?.name
  }

  // MARK: - Helpers shared by update (mutations, not extra messages)

  /// Shows `day` and asks the runtime to observe it (and its month, when that changes); the
  /// list empties until the day's snapshot comes.
  /// In the week and agenda views a day of the span is shown at once, its first appointment
  /// selected; a day outside it moves the span.
  mutating func selectDay(_ day: Date, environment: Environment) -> [Effect] {
    let clock = environment.clock
    guard day != selectedDay else { return [] }
    let staysInSpan = span?.contains(day) ?? false
    if !staysInSpan { keepWindowOnScreen() }
    selectedDay = day
    selectedID = nil
    var effects: [Effect] = []
    if staysInSpan {
      clampSelection(previousIndex: nil)
    } else {
      appointments = []  // first: the index is not made of the old span's appointments again
      span = span(for: view, day: day, environment: environment)
      isLoaded = false
      effects.append(observeNewWindow())
    }
    let newMonth = State.firstOfMonth(day, clock: clock)
    if newMonth != month {
      month = newMonth
      busyDays = []
      effects.append(.observeMonth(newMonth))
    }
    return effects
  }

  static func firstOfMonth(_ date: Date, clock: Clock) -> Date {
    let calendar = clock.calendar
    return calendar.date(from: calendar.dateComponents([.year, .month], from: date)) ?? clock.startOfDay(date)
  }

  /// Moves the selection by `offset` in the visible list, stopping at the ends.
  mutating func moveSelection(by offset: Int) {
    let list = visible
    guard !list.isEmpty else { return }
    let current = selectedIndex ?? (offset > 0 ? -1 : list.count)
    let next = min(max(current + offset, 0), list.count - 1)
    selectedID = list[next].id
  }

  /// Keeps a selection on screen after the list or the filter changed: the same appointment,
  /// else the row it was on (`previousIndex`), else the first.
  mutating func clampSelection(previousIndex: Int?) {
    if selectedIndex != nil { return }
    let list = visible
    selectedID = list.isEmpty ? nil : list[min(previousIndex ?? 0, list.count - 1)].id
  }

  /// Replaces the list with a snapshot's.
  mutating func applySnapshot(_ items: [Appointment]) {
    let previousIndex = selectedIndex
    appointments = items
    isLoaded = true
    clampSelection(previousIndex: previousIndex)
  }

  mutating func report(_ text: String, isError: Bool = false) {
    status = StatusMessage(text: text, isError: isError)
  }

  mutating func recordUndo(_ step: UndoStep) {
    undoSteps.append(step)
    if undoSteps.count > 100 { undoSteps.removeFirst() }
  }
}

/// Why the store cannot be reached right now, as a snapshot reports it.
public struct StoreInterruption: Equatable, Sendable {
  /// The PostgreSQL server (`user@host:port/dbname`), when the store is one.
  public var server: String?
  public var reason: String

  public init(server: String?, reason: String) {
    self.server = server
    self.reason = reason
  }

  /// What the status line says meanwhile.
  public var statusText: String {
    if let server { "Reconnecting to PostgreSQL at \(server)… (\(reason))" } else { "Reconnecting… (\(reason))" }
  }
}

/// Facts the loop hears about, in the order it hears them.
public enum Message: Sendable, Equatable {
  case keyPressed(Key)
  /// A snapshot of the observed window of `day` from the DAO's stream: whether another
  /// client's commit caused it, and whether the store was unreachable when it was taken (its
  /// items are then the last good ones). `update` decides what to say about it.
  /// A snapshot of several days (`observeDays`) carries the window's `end`.
  case snapshotArrived(
    day: Date,
    end: Date? = nil,
    appointments: [Appointment],
    fromOtherProcess: Bool = false,
    interruption: StoreInterruption? = nil,
    version: UInt64 = 0
  )
  /// What `.readAhead` read: the window from `day` to `end` (nil: the day).
  case readAheadArrived(day: Date, end: Date?, known: KnownWindow)
  /// The busy days of the month starting at `month`.
  case busyDaysArrived(month: Date, days: Set<Int>)
  /// The store's calendars, as they are now.
  case calendarsArrived([CalendarInfo])
  /// A calendar was shown or hidden (`C`, space).
  case calendarShown(CalendarInfo)
  case terminalResized(Screen.Size)
  /// A click or a wheel turn, where the terminal reports the mouse (`[ui] mouse`).
  case mouse(MouseEvent)
  case clockTicked(Date)
  case appointmentAdded(Appointment)
  case appointmentUpdated(old: Appointment, new: Appointment)
  case appointmentCancelled(Appointment)
  /// "Cancel this and following" split `series` (as it was before) at `split`, the part
  /// cancelled: undo joins them again.
  case followingCancelled(series: Appointment, split: Appointment)
  case appointmentRestored(Appointment)
  case appointmentDeleted(Appointment)
  /// An undo step was carried out; the text says what was undone.
  case undone(String)
  /// The titles `lookUpSeries` found (nil for a series not stored).
  case seriesFound([AppointmentID: String?])
  /// A `:` command finished; its output (or error) in words.
  case commandFinished(output: String, isError: Bool)
  /// What `searchAllDays` found (at most `State.searchLimit`, in start order).
  case searchResultsArrived(query: String, results: [Appointment])
  /// A store operation failed; the text says what and why.
  case storeFailed(String)
  /// The store refused `change` because someone else changed the appointment since it was
  /// shown (a newer revision); `current` is what is stored now.
  case changeRefused(State.Change, current: Appointment)
  /// The terminal was interrupted (SIGINT, SIGTERM, SIGHUP) or hung up.
  case interrupted
  /// The sync timer (`.scheduleSync`) went off.
  case syncDue
  /// A background sync (`.runSync`) ended.
  case syncFinished(SyncReport)
  /// A sync run from the `:` line ended: how it went, for the status line (the background
  /// sync's own schedule is left as it is).
  case syncReported(SyncReport)
  /// The store's conflicts were read again (after a `:resolve`): how many, and their events.
  case conflictsRead(Set<AppointmentID>, count: Int)
  /// An alarm of an appointment came due (or back from a snooze): the runtime's alarm timer.
  case alarmDue(AlarmInstance)
}

/// A mouse event at a cell of the screen.
public struct MouseEvent: Equatable, Sendable {
  public enum Kind: Equatable, Sendable {
    case click, wheelUp, wheelDown
  }

  public var kind: Kind
  public var row: Int
  public var column: Int

  public init(_ kind: Kind, row: Int, column: Int) {
    self.kind = kind
    self.row = row
    self.column = column
  }
}

/// Side effects `update` asks the runtime to carry out; results come back as messages.
public enum Effect: Equatable, Sendable {
  /// Observe the appointments of the day starting at this local midnight (replacing the
  /// current observation).
  /// `known`: the window as read ahead, which the store need not read again.
  case observeDay(Date, known: KnownWindow? = nil)
  /// Observe the appointments from the local midnight `start` to `end` (the week and agenda
  /// views: several days), replacing the current observation as `observeDay` does.
  case observeDays(start: Date, end: Date, known: KnownWindow? = nil)
  /// Read the window from `day` to `end` (nil: the day) once, without observing it:
  /// `.readAheadArrived`.
  case readAhead(day: Date, end: Date?)
  /// Observe the busy days of the month starting here (replacing the current one).
  case observeMonth(Date)
  /// Add what the form describes: the request `appt add` makes from the same fields.
  case addAppointment(AddRequest)
  /// Change `old` (an appointment, or one occurrence of a series) as `request` says: the
  /// request `appt edit` makes from the same fields. `old` is kept for undo; the request
  /// carries the revision the user saw, and the store refuses it if that changed since.
  case editAppointment(old: Appointment, request: EditRequest)
  /// Cancel, restore or delete it, if it is still at the revision the user saw. A cancel of
  /// an occurrence of a series says which: the occurrence on the day `occurrence` (a local
  /// midnight), with `andFollowing` every later one too, or (nil) the whole series.
  case cancelAppointment(Appointment, occurrence: Date? = nil, andFollowing: Bool = false)
  case restoreAppointment(Appointment)
  case deleteAppointment(Appointment)
  /// Carry out an undo step, if what it undoes is still at the revision it left.
  case undo(State.UndoStep)
  /// Find the titles of these series (of changed occurrences on screen): `.seriesFound`.
  case lookUpSeries([AppointmentID])
  /// Run one line of the script grammar.
  case runCommand(String)
  /// Find the appointments of every day matching the text: `.searchResultsArrived`.
  case searchAllDays(String)
  /// Show or hide a calendar (kept in the store).
  case setCalendarShown(name: String, shown: Bool)
  /// Run a background sync (`appt-sync --json --quiet`) off the main actor: `.syncFinished`.
  case runSync
  /// Send `.syncDue` this many seconds from now, replacing the timer set before.
  case scheduleSync(after: TimeInterval)
  /// Ring the terminal's bell once (an alarm came due).
  case ringBell
  /// Send `.alarmDue` with this alarm again at `until` (`z`: snoozed).
  case snoozeAlarm(AlarmInstance, until: Date)
  /// Stop: the one way the calendar ends (q, ctrl+c, a signal, the terminal hanging up).
  case quit
}

/// What `update` and the views need from the outside world: time, formatting and the
/// settings file's values (the key map, the week's first day, the default duration...).
public struct Environment: Sendable {
  public var clock: Clock
  public var keyMap: KeyMap
  public var formatter: AppointmentFormatter
  public var settings: Settings

  /// The key map is the settings' (the standard one with `[keys]` applied) unless given.
  public init(clock: Clock, keyMap: KeyMap? = nil, settings: Settings = Settings()) {
    self.clock = clock
    self.keyMap = keyMap ?? KeyMap.standard.applying(settings.keys)
    self.formatter = AppointmentFormatter(
      clock: clock,
      timeFormat: settings.ui.timeFormat.value,
      addresses: settings.mail.addressSet
    )
    self.settings = settings
  }

  /// The month panel's first column (`[ui] week_start`).
  public var weekStart: Recurrence.Weekday { settings.ui.weekStart.value }
}
