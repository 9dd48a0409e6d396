import ApptCore
import Foundation

// The calendar's background sync (docs/decisions.md and README, "Sync"). When the settings
// have accounts, the calendar syncs after it starts, every `sync_interval` (the smallest of
// its accounts'), and `commitDelay` after each change made in it, each time by running
// `appt-sync --json --quiet` off the main actor (the runtime's `.runSync`), never two at
// once: a sync wanted while one runs starts when it ends. The status line's right end says
// how the last one went. The policy is here, pure; the runtime only runs the program and
// keeps one timer (`.scheduleSync`).

/// How the last background sync went, as the runtime read it from the program and the store.
public struct SyncReport: Equatable, Sendable {
  public enum Outcome: Equatable, Sendable {
    /// Every calendar synced.
    case synced
    /// A server could not be reached or refused the credentials (exit 3): changes wait.
    case offline
    /// Anything else (exit 1 or 2, the program missing): the first line of what it said.
    case failed(String)
  }

  public var outcome: Outcome
  /// When it ended.
  public var finished: Date
  /// Local changes still waiting for a server.
  public var pending: Int
  /// Unresolved conflicts in the store (`appt conflicts` lists them).
  public var conflicts: Int
  /// The events they belong to: the calendar marks them.
  public var conflicted: Set<AppointmentID>

  public init(
    outcome: Outcome,
    finished: Date,
    pending: Int = 0,
    conflicts: Int = 0,
    conflicted: Set<AppointmentID> = []
  ) {
    self.outcome = outcome
    self.finished = finished
    self.pending = pending
    self.conflicts = conflicts
    self.conflicted = conflicted
  }

  /// What the status line says: `sync: 1 conflict (appt conflicts)` while there are any,
  /// else `offline: 3 changes waiting`, `sync failed: ...` (its first 40 columns) or
  /// `synced 10:42`.
  public func statusText(_ formatter: AppointmentFormatter) -> String {
    if conflicts > 0 { return "sync: \(conflicts) conflict\(conflicts == 1 ? "" : "s") (appt conflicts)" }
    switch outcome {
    case .offline:
      return pending == 0 ? "offline" : "offline: \(pending) change\(pending == 1 ? "" : "s") waiting"
    // Cut to fit beside the key hints: `:sync` shows the whole of it.
    case .failed(let message): return "sync failed: " + TextWidth.clip(TextSafety.escapingControls(message), to: 40)
    case .synced: return "synced \(formatter.time(finished))"
    }
  }
}

/// The background sync's part of the state; nil in `State.sync` when there is no account.
public struct SyncState: Equatable, Sendable {
  /// A sync is running now.
  public var isRunning = false
  /// A sync was asked for while one ran: it starts when that one ends.
  public var isWanted = false
  /// Seconds between syncs: the smallest `sync_interval` of the accounts.
  public var interval: TimeInterval
  public var last: SyncReport?

  /// How long after a change made in the calendar it syncs (changes made in a row go together).
  public static let commitDelay: TimeInterval = 5

  public init(interval: TimeInterval) {
    self.interval = interval
  }

  /// The background sync the settings ask for: nil without accounts.
  public init?(settings: Settings) {
    guard let interval = settings.accounts.map(\.syncInterval.value).min() else { return nil }
    self.init(interval: max(1, interval))
  }

  /// The status line's words for it, nil before the first sync has ended or begun.
  public func statusText(_ formatter: AppointmentFormatter) -> String? {
    if let last { return last.statusText(formatter) }
    return isRunning ? "syncing…" : nil
  }
}

extension State {
  /// Whether the appointment (or the series it is an occurrence or a changed occurrence of)
  /// has a conflict waiting: a version of it a sync kept aside.
  public func isInConflict(_ appointment: Appointment) -> Bool {
    guard let conflicted = sync?.last?.conflicted, !conflicted.isEmpty else { return false }
    return conflicted.contains(appointment.id) || appointment.override?.seriesID.map(conflicted.contains) == true
  }
}

extension UI {
  /// The store's conflicts, read again after one was settled: the marks and the count follow.
  static func conflictsRead(_ conflicted: Set<AppointmentID>, count: Int, state: inout State) -> [Effect] {
    state.sync?.last?.conflicts = count
    state.sync?.last?.conflicted = conflicted
    return []
  }

  /// Starts a sync now, or when the running one ends.
  static func syncDue(_ state: inout State) -> [Effect] {
    guard var sync = state.sync else { return [] }
    defer { state.sync = sync }
    guard !sync.isRunning else {
      sync.isWanted = true
      return []
    }
    sync.isRunning = true
    return [.runSync]
  }

  /// A sync ended: shows how, then runs the one wanted meanwhile or waits for the next.
  static func syncFinished(_ report: SyncReport, state: inout State) -> [Effect] {
    guard var sync = state.sync else { return [] }
    sync.last = report
    sync.isRunning = false
    let wanted = sync.isWanted
    sync.isWanted = false
    state.sync = sync
    return wanted ? syncDue(&state) : [.scheduleSync(after: sync.interval)]
  }

  /// After a change made in the calendar: sync `commitDelay` from now (the periodic timer
  /// starts over after that sync).
  static func syncSoon(_ state: State) -> [Effect] {
    state.sync == nil ? [] : [.scheduleSync(after: SyncState.commitDelay)]
  }
}
