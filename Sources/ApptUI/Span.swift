import ApptCore
import Foundation

// The week and agenda views observe several days at once (a span); the selected day moves
// inside it without a new observation.

/// How the calendar shows its appointments.
public enum CalendarView: Equatable, Sendable {
  /// The selected day's list and the detail pane.
  case day
  /// Seven day columns on a time grid (`w`).
  case week
  /// The next days as one list with a header per day (`A`).
  case agenda
}

extension State {
  /// Of the span's appointments, those to list or draw (cancelled hidden, the filter applied).
  public var shownInSpan: [Appointment] {
    let search = TextSearch(filter)
    guard !showsCancelled || !search.isEmpty else { return appointments }
    return appointments.filter { (showsCancelled || !$0.isCancelled) && search.matches($0) }
  }

  /// Of the span's appointments shown, those that take some of `day` (a zero-length one:
  /// that start on it), in display order.
  public func shown(on day: Date) -> [Appointment] {
    guard let span, let end = span.end(of: day) else { return [] }
    return shownInSpan.filter { $0.start < end && ($0.end > day || $0.start >= day) }
  }

  /// The days the week and agenda views show, as local midnights.
  public struct Span: Equatable, Sendable {
    /// The midnight starting each day, then the one ending the last.
    public var midnights: [Date]

    public init(start: Date, days: Int, clock: Clock) {
      midnights = (0...max(1, days)).map { clock.day($0, after: start) }
    }

    public var start: Date { midnights[0] }
    public var end: Date { midnights[midnights.count - 1] }
    public var days: ArraySlice<Date> { midnights.dropLast() }
    public func contains(_ day: Date) -> Bool { days.contains(day) }
    /// The midnight after `day`, when `day` is one of the span's.
    public func end(of day: Date) -> Date? {
      days.firstIndex(of: day).map { midnights[$0 + 1] }
    }
  }

  /// The week containing `day`, from the settings' first weekday.
  static func weekSpan(_ day: Date, weekStart: Recurrence.Weekday, clock: Clock) -> Span {
    // Monday = 0 ... Sunday = 6 (1970-01-01, day 0, was a Thursday).
    let weekday = ((clock.dayNumber(of: day) + 3) % 7 + 7) % 7
    let back = (weekday - weekStart.rawValue + 7) % 7
    return Span(start: clock.day(-back, after: day), days: 7, clock: clock)
  }

  /// How many days the agenda view lists, from the selected day.
  public static let agendaDays = 14

  /// The span `view` observes when `day` is selected (nil for the day view).
  func span(for view: CalendarView, day: Date, environment: Environment) -> Span? {
    switch view {
    case .day: nil
    case .week: State.weekSpan(day, weekStart: environment.weekStart, clock: environment.clock)
    case .agenda: Span(start: day, days: State.agendaDays, clock: environment.clock)
    }
  }

  /// The effect observing what the view shows.
  var observation: Effect {
    guard let span else { return .observeDay(selectedDay) }
    return .observeDays(start: span.start, end: span.end)
  }

  /// Whether a snapshot of the window from `day` to `end` is the one on screen.
  func observes(day: Date, end: Date?) -> Bool {
    guard let span else { return end == nil && day == selectedDay }
    return day == span.start && end == span.end
  }

  /// Switches to `view` (the same again: back to the day view) and observes what it shows;
  /// the selection stays if it is still there.
  mutating func switchView(to view: CalendarView, environment: Environment) -> [Effect] {
    self.view = self.view == view ? .day : view
    span = span(for: self.view, day: selectedDay, environment: environment)
    appointments = []
    isLoaded = false
    return [observation]
  }
}
