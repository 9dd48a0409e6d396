import ApptCore
import Foundation

// Reading ahead: once the window on screen (a day, or the week or agenda view's span) has
// loaded, the runtime reads the windows either side of it (`Effect.readAhead`), so that `l`
// into the next day or week shows it at once instead of waiting for the store's query; the
// observation of the new window then starts from what was read (`KnownWindow`), which the
// store does not read again unless a commit came since.
//
// What was read stays usable while the store's version is the one it was read at, as far as
// the calendar knows: a snapshot of a newer version, and the calendar's own changes, forget
// it. Another process's commit that changes only a window read ahead is not seen until the
// move there; the observation then finds the version moved, reads the window again, and its
// snapshot follows the first frame at once.

extension State {
  /// A window the calendar observes: from the local midnight `day` to `end` (nil: the day).
  public struct Window: Hashable, Sendable {
    public var day: Date
    public var end: Date?

    public init(day: Date, end: Date?) {
      self.day = day
      self.end = end
    }
  }

  /// The window on screen.
  var window: Window {
    guard let span else { return Window(day: selectedDay, end: nil) }
    return Window(day: span.start, end: span.end)
  }

  /// The windows either side of the one on screen: the day before and after, or the spans
  /// the view shows from the day before its first and after its last.
  func neighbours(environment: Environment) -> [Window] {
    let clock = environment.clock
    guard let span else {
      return [
        Window(day: clock.day(1, after: selectedDay), end: nil),
        Window(day: clock.day(-1, after: selectedDay), end: nil),
      ]
    }
    return [span.end, clock.day(-1, after: span.start)].compactMap { day in
      self.span(for: view, day: day, environment: environment).map { Window(day: $0.start, end: $0.end) }
    }
  }

  /// The effect observing the window on screen, with what was read of it.
  func observation(known: KnownWindow? = nil) -> Effect {
    guard let span else { return .observeDay(selectedDay, known: known) }
    return .observeDays(start: span.start, end: span.end, known: known)
  }

  /// Called before the window on screen is replaced: keeps what it shows as the window
  /// behind the new one.
  mutating func keepWindowOnScreen() {
    guard isLoaded, storeInterruption == nil, let shownVersion, shownVersion == storeVersion else { return }
    readAhead[window] = KnownWindow(items: appointments, version: shownVersion)
    if span != nil {
      readAheadIndexes[window] = PreparedIndex(
        filter: filter,
        showsCancelled: showsCancelled,
        index: spanIndex
      )
    }
  }

  /// Called once the new window is set: shows it at once if it was read ahead at the store's
  /// version, and returns the effect observing it.
  mutating func observeNewWindow() -> Effect {
    guard let known = readAhead[window], known.version == storeVersion else { return observation() }
    shownVersion = known.version
    applySnapshot(known.items)
    return observation(known: known)
  }

  /// After a snapshot of the window on screen (of `version`): forgets what is older or no
  /// longer beside it, and asks for the neighbours not read (nor being read) at this version.
  mutating func readAheadEffects(environment: Environment) -> [Effect] {
    guard storeInterruption == nil else { return [] }
    let wanted = neighbours(environment: environment)
    readAhead = readAhead.filter { wanted.contains($0.key) && $0.value.version == storeVersion }
    readAheadIndexes = readAheadIndexes.filter { readAhead[$0.key] != nil }
    readAheadAsked = readAheadAsked.filter { wanted.contains($0.key) && $0.value == storeVersion }
    var effects: [Effect] = []
    for window in wanted where readAhead[window] == nil && readAheadAsked[window] == nil {
      readAheadAsked[window] = storeVersion
      effects.append(.readAhead(day: window.day, end: window.end))
    }
    return effects
  }

  /// A window read ahead arrived: kept if it is still beside the one on screen and no
  /// newer version has been seen.
  mutating func readAheadArrived(_ window: Window, _ known: KnownWindow, environment: Environment) {
    readAheadAsked[window] = nil
    storeVersion = max(storeVersion, known.version)
    guard known.version == storeVersion, neighbours(environment: environment).contains(window) else { return }
    readAhead[window] = known
    // The week's index too, now rather than on the key that goes there.
    if let span = span(for: view, day: window.day, environment: environment) {
      readAheadIndexes[window] = PreparedIndex(
        filter: filter,
        showsCancelled: showsCancelled,
        index: SpanIndex(known.items, span: span, filter: filter, showsCancelled: showsCancelled)
      )
    }
  }

  /// The calendar changed the store (or a `:` command or a sync did): what was read ahead,
  /// and what is on screen until its next snapshot, may be out of date.
  mutating func forgetReadAhead() {
    readAhead = [:]
    readAheadIndexes = [:]
    readAheadAsked = [:]
    shownVersion = nil
  }
}

extension Message {
  /// Whether the calendar, a `:` command or a sync changed the store: what was read ahead may
  /// be out of date then, even where the snapshot on screen did not change.
  var reportsAStoreChange: Bool {
    switch self {
    case .appointmentAdded, .appointmentUpdated, .appointmentCancelled, .followingCancelled, .appointmentRestored,
      .appointmentDeleted,
      .undone, .calendarShown, .commandFinished, .syncFinished:
      true
    default: false
    }
  }
}
