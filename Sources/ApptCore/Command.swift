import Foundation

/// One parsed command of the grammar shared by one-shot arguments, stdin scripts and the TUI's
/// `:` line (the man page, COMMANDS).
public enum Command: Equatable, Sendable {
  case add(AddRequest)
  case list(ListRequest)
  case show(id: String)
  case edit(EditRequest)
  /// The whole appointment, or with `occurrence` (a local midnight) one occurrence of a series
  /// (with `andFollowing`, that one and every later one). With `ifRevision`
  /// (`--if-revision N`), only if it is still at that revision.
  case cancel(id: String, occurrence: Date? = nil, andFollowing: Bool = false, ifRevision: Int? = nil)
  case restore(id: String, occurrence: Date? = nil, ifRevision: Int? = nil)
  case delete(id: String, ifRevision: Int? = nil)
  /// Reads an iCalendar file, all or nothing; with `partial`, imports the events that map and
  /// lists the others.
  case importFile(path: String, partial: Bool, calendar: String? = nil)
  /// Writes the appointments reaching `range` (all when nil) as iCalendar to `path`, or to
  /// stdout when nil; with `calendar`, only that calendar's (named in X-WR-CALNAME).
  case export(range: DateInterval?, path: String?, calendar: String? = nil)
  /// The calendars and their changes.
  case calendar(CalendarCommand)
  /// Checks the database file's integrity and reports.
  case doctor
  /// Writes a consistent copy of the database to a new file.
  case backup(path: String)
  case help(topic: String?)
  /// Prints the effective settings and where each came from (`--json`: one object), or with
  /// `path` only the settings file's path.
  case config(path: Bool, json: Bool)
  /// `completion bash|zsh|fish`: the shell's tab completion script.
  case completion(ShellCompletion)
  /// Syncs the CalDAV accounts named (all of them when empty) through the `appt-sync` program.
  case sync(accounts: [String])
  /// Lists the local versions a sync kept when the server's won (`conflicts`).
  case conflicts
  /// One of them in full, local against the server's (`conflicts show ID`).
  case conflictShow(id: String)
  /// Resolves one of them (`resolve ID --keep local|server`).
  case resolve(id: String, keep: ConflictChoice)
  /// Runs the reminder daemon in the foreground (`remind`), or with `once` fires what is due
  /// now and exits (`remind --once`, for cron). Only from the shell (`appt remind`).
  case remind(once: Bool)
  /// `reminders [--from WHEN] [--to WHEN] [--calendar NAME...] [--json]`: the alarms due in a
  /// range, series expanded.
  case reminders(RemindersRequest)
}

/// `reminders`: the alarm instances firing in `range`.
public struct RemindersRequest: Equatable, Sendable {
  /// The half-open window `[start, end)` the alarms fire in (default: now to a day later).
  public var range: DateInterval
  /// `--calendar NAME` (repeatable): only these calendars; nil for all of them.
  public var calendars: [String]?
  /// `--json` after the command (as `config --json`): JSON Lines whatever the global flag says.
  public var json: Bool

  public init(range: DateInterval, calendars: [String]? = nil, json: Bool = false) {
    self.range = range
    self.calendars = calendars
    self.json = json
  }
}

/// `add TITLE --at WHEN [--for DURATION | --until TIME] [--note TEXT]`, resolved to instants.
public struct AddRequest: Equatable, Sendable {
  public var title: String
  public var start: Date
  public var end: Date
  public var note: String
  public var location: String
  /// Whole days: `start` and `end` are local midnights.
  public var isAllDay: Bool
  public var recurrence: Recurrence?
  /// The `--at` time fell in a DST gap or overlap: which instant was taken (to show the user).
  public var notice: LocalTimeNotice?
  /// `--calendar NAME`: the calendar it goes in; nil for the default one.
  public var calendar: String?
  /// `--remind SPEC...`: its alarms (`[]` for `--no-remind`); nil: the calendar's default
  /// (`Settings.defaultAlarms`, which the executor and the form resolve; the store adds none).
  public var alarms: [Alarm]?

  public init(
    title: String,
    start: Date,
    end: Date,
    note: String = "",
    location: String = "",
    isAllDay: Bool = false,
    recurrence: Recurrence? = nil
  ) {
    self.title = title
    self.start = start
    self.end = end
    self.note = note
    self.location = location
    self.isAllDay = isAllDay
    self.recurrence = recurrence
  }
}

/// `edit ID [--title T] [--at WHEN] [--for DURATION] [--note TEXT]`: only the given fields change.
public struct EditRequest: Equatable, Sendable {
  public var id: String
  public var title: String?
  public var start: Date?
  public var duration: TimeInterval?
  public var note: String?
  public var location: String?
  /// Edit only the occurrence of a series on this day (a local midnight): it becomes an
  /// override of the series (RECURRENCE-ID), which keeps its place in the series.
  public var occurrence: Date?
  /// With `occurrence`: that occurrence and every later one ("this and following"): the
  /// series ends before it, and a new series, changed, goes on from it.
  public var andFollowing: Bool
  /// `--if-revision N`: change it only if it is still at revision N (nobody changed it since).
  public var ifRevision: Int?
  /// The `--at` time fell in a DST gap or overlap: which instant was taken (to show the user).
  public var notice: LocalTimeNotice?
  /// `--calendar NAME`: move it (a series with its changed occurrences) to that calendar.
  public var calendar: String?
  /// `--remind SPEC...`: its alarms from now on (`[]`, `--no-remind`: none); nil: unchanged.
  /// An alarm equal to one it has (same trigger, repeat and action) keeps its VALARM as stored.
  public var alarms: [Alarm]?
  /// The `--remind` texts, when one needs the appointment's start to be read (`at 08:00`
  /// without `--at`): the executor reads them again against the stored start into `alarms`.
  public var alarmTexts: [String]?

  public init(
    id: String,
    title: String? = nil,
    start: Date? = nil,
    duration: TimeInterval? = nil,
    note: String? = nil,
    location: String? = nil,
    occurrence: Date? = nil,
    andFollowing: Bool = false,
    ifRevision: Int? = nil
  ) {
    self.id = id
    self.title = title
    self.start = start
    self.duration = duration
    self.note = note
    self.location = location
    self.occurrence = occurrence
    self.andFollowing = andFollowing
    self.ifRevision = ifRevision
  }
}

/// `list [--from WHEN] [--to WHEN | --days N] [--all] [--include-cancelled] [--search TEXT]`.
public struct ListRequest: Equatable, Sendable {
  /// The half-open window `[start, end)`; `nil` for `--all`.
  public var range: DateInterval?
  public var includeCancelled: Bool
  public var search: String?
  /// `--calendar NAME` (repeatable): only these calendars; nil for all of them.
  public var calendars: [String]?
  /// `--format TEMPLATE`: each line as the template says, instead of the standard line.
  public var format: ListTemplate?

  public init(
    range: DateInterval?,
    includeCancelled: Bool = false,
    search: String? = nil,
    calendars: [String]? = nil,
    format: ListTemplate? = nil
  ) {
    self.range = range
    self.includeCancelled = includeCancelled
    self.search = search
    self.calendars = calendars
    self.format = format
  }
}

/// `calendars` and `calendar add|rename|color|delete|show|hide|sync|unsync`.
public enum CalendarCommand: Equatable, Sendable {
  case list
  case add(name: String, color: String?)
  case rename(old: String, new: String)
  case color(name: String, color: String)
  /// `moveTo`: the calendar its appointments go to; `withAppointments`: they are deleted.
  case delete(name: String, moveTo: String?, withAppointments: Bool)
  case setShown(name: String, shown: Bool)
  /// `calendar sync|unsync NAME`: a synced calendar syncs again, or no longer.
  case setSyncs(name: String, syncs: Bool)
}

/// Why a command line was refused. `usage` (exit 2) is an unknown command or option or a
/// missing argument; `invalid` (exit 1) is a value that does not parse or makes no sense.
public struct CommandError: Error, Equatable, Sendable, CustomStringConvertible {
  public enum Kind: Equatable, Sendable {
    case usage
    case invalid
  }

  public var kind: Kind
  public var message: String

  public init(_ kind: Kind, _ message: String) {
    self.kind = kind
    self.message = message
  }

  public static func usage(_ message: String) -> CommandError { CommandError(.usage, message) }
  public static func invalid(_ message: String) -> CommandError { CommandError(.invalid, message) }

  public var description: String { message }
}
