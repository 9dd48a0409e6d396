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
  /// that start on it), in display order: from the span's index (`spanIndex`), not filtered
  /// again on every call.
  public func shown(on day: Date) -> [Appointment] {
    guard let index = span?.days.firstIndex(of: day), spanIndex.days.indices.contains(index) else { return [] }
    return spanIndex.days[index]
  }

  /// The wall-clock minutes of `day` each of `shown(on: day)` takes, in the same order.
  func wallTimes(on day: Date) -> [WallTime] {
    guard let index = span?.days.firstIndex(of: day), spanIndex.wallTimes.indices.contains(index) else { return [] }
    return spanIndex.wallTimes[index]
  }

  /// The minutes of wall-clock time an appointment takes of a day, from its midnight: 0 when
  /// it starts before the day, 1440 when it ends after it (`WeekView.wallMinutes`).
  public struct WallTime: Equatable, Sendable {
    public var from: Double
    public var to: Double
  }

  /// The span's shown appointments day by day (what `shown(on:)` answers), with the wall
  /// clock minutes each takes of its day: made once for each change of what it is made of
  /// (the snapshot, the span, the filter, whether cancelled ones show), so that a frame or a
  /// click of the week or agenda view reads it instead of filtering the whole span per day.
  public struct SpanIndex: Equatable, Sendable {
    /// For each day of the span, its appointments shown.
    public internal(set) var days: [[Appointment]] = []
    /// For each of them, the minutes of its day it takes.
    public internal(set) var wallTimes: [[WallTime]] = []

    public init() {}

    /// Always equal: the index is derived from fields `State` compares itself (the
    /// appointments, the span, the filter, `showsCancelled`), so two states equal in those
    /// have equal indexes, and comparing every day's appointments again would only cost.
    public static func == (_: SpanIndex, _: SpanIndex) -> Bool { true }

    /// The index of `appointments` (in display order) over `span`, cancelled ones left out
    /// unless `showsCancelled`, only those matching `filter` (`TextSearch`).
    public init(_ appointments: [Appointment], span: Span?, filter: String, showsCancelled: Bool) {
      guard let span else { return }
      let search = TextSearch(filter)
      let midnights = span.midnights
      let count = midnights.count - 1
      days = Array(repeating: [], count: count)
      wallTimes = Array(repeating: [], count: count)
      let everything = showsCancelled && search.isEmpty
      for appointment in appointments
      where everything || ((showsCancelled || !appointment.isCancelled) && search.matches(appointment)) {
        let start = appointment.start
        let end = appointment.end
        guard start < midnights[count], end > midnights[0] || start >= midnights[0] else { continue }
        for day in 0..<count {
          let midnight = midnights[day]
          let next = midnights[day + 1]
          // The days it takes some of (a zero-length one: the day it starts on).
          guard start < next, end > midnight || start >= midnight else { continue }
          days[day].append(appointment)
          wallTimes[day].append(
            WallTime(
              from: span.wallMinutes(start, day: day),
              to: span.wallMinutes(end, day: day)
            )
          )
        }
      }
    }
  }

  /// Makes `spanIndex` again from what it is made of (each of those says when it changed),
  /// or takes the one made when the window was read ahead, if it is of the same things.
  mutating func reindex() {
    if span != nil, let prepared = readAheadIndexes[window], prepared.filter == filter,
      prepared.showsCancelled == showsCancelled, readAhead[window]?.items == appointments
    {
      spanIndex = prepared.index
      return
    }
    spanIndex = SpanIndex(appointments, span: span, filter: filter, showsCancelled: showsCancelled)
  }

  /// A window's index made when it was read ahead (off the key path), of its items in
  /// `readAhead`, and what else it was made of.
  public struct PreparedIndex: Equatable, Sendable {
    var filter: String
    var showsCancelled: Bool
    var index: SpanIndex
  }

  /// The days the week and agenda views show, as local midnights.
  public struct Span: Equatable, Sendable {
    /// The midnight starting each day, then the one ending the last.
    public var midnights: [Date]
    /// The calendar of the clock the span was made with (its zone gives the wall clock).
    var calendar: Calendar
    /// For each day, whether the zone's offset stays the same all day (no daylight-saving
    /// change): its wall-clock minutes are then the seconds since its midnight over 60.
    var isSteady: [Bool]

    public init(start: Date, days: Int, clock: Clock) {
      midnights = (0...max(1, days)).map { clock.day($0, after: start) }
      calendar = clock.calendar
      let zone = clock.timeZone
      isSteady = zip(midnights, midnights.dropFirst()).map { day, end in
        zone.nextDaylightSavingTimeTransition(after: day).map { $0 >= end } ?? true
      }
    }

    public var start: Date { midnights[0] }
    public var end: Date { midnights[midnights.count - 1] }
    public var days: ArraySlice<Date> { midnights.dropLast() }
    public func contains(_ day: Date) -> Bool { days.contains(day) }
    /// The midnight after `day`, when `day` is one of the span's.
    public func end(of day: Date) -> Date? {
      days.firstIndex(of: day).map { midnights[$0 + 1] }
    }

    /// `WeekView.wallMinutes` of `date` on the span's day number `day`, without asking the
    /// calendar on a day whose offset stays the same.
    func wallMinutes(_ date: Date, day: Int) -> Double {
      let midnight = midnights[day]
      let end = midnights[day + 1]
      if date <= midnight { return 0 }
      if date >= end { return 1440 }
      guard isSteady[day] else { return WeekView.wallMinutes(date, day: midnight, end: end, calendar: calendar) }
      return (date.timeIntervalSince(midnight)).rounded(.down) / 60
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

  /// Whether a snapshot of the window from `day` to `end` is the one on screen.
  func observes(day: Date, end: Date?) -> Bool {
    guard let span else { return end == nil && day == selectedDay }
    return day == span.start && end == span.end
  }

  /// Switches to `view` (the same again: back to the day view) and observes what it shows;
  /// the selection stays if it is still there.
  mutating func switchView(to view: CalendarView, environment: Environment) -> [Effect] {
    keepWindowOnScreen()
    self.view = self.view == view ? .day : view
    appointments = []  // first: the index is not made of the old view's appointments again
    span = span(for: self.view, day: selectedDay, environment: environment)
    isLoaded = false
    return [observeNewWindow()]
  }
}
