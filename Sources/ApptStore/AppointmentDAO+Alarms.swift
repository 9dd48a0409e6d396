import ApptCore
import Foundation

@DatabaseActor
extension AppointmentDAO {
  /// The alarm instances firing in `[range.start, range.end)`, by firing time then key:
  /// what `appt reminders` lists, the reminder daemon fires and the calendar rings for.
  ///
  /// Cancelled appointments and cancelled occurrences have none; a series has one per
  /// occurrence (an overridden occurrence has the override's own alarms, wherever it moved),
  /// and an absolute trigger on a series fires once. With `calendars` (names), only theirs.
  public func alarmInstances(in range: DateInterval, calendars: [String]? = nil) throws(StoreError)
    -> [AlarmInstance]
  {
    try database.read { connection throws(StoreError) in
      try Self.alarmInstances(in: range, calendars: calendars, fallbackZone: clock.timeZone, connection: connection)
    }
  }

  /// Rows that carry a VALARM: the condition the alarm queries start from. Schema 9's count
  /// (`appointment.alarms`, written with every row), read through its partial index instead
  /// of a scan of every row's extras.
  nonisolated static let carriesAlarms = "alarms > 0"
  /// The same of a series row found through another index (`appointment_series`): the unary
  /// `+` (SQLite and PostgreSQL alike) keeps it from choosing the alarms' index instead.
  nonisolated static let seriesCarryAlarms = "+alarms > 0"

  static func alarmInstances(
    in range: DateInterval,
    calendars: [String]?,
    fallbackZone: TimeZone,
    connection: any Connection
  ) throws(StoreError) -> [AlarmInstance] {
    var conditions = [carriesAlarms]
    var bindings: [SQLValue] = []
    if let ids = try calendarFilter(names: calendars, onlyShown: false, in: connection) {
      let filter = calendarCondition(ids)
      conditions.append(filter.condition)
      bindings += filter.bindings
    }
    let withAlarms = try DatabaseQuery<Appointment>(
      where: conditions.joined(separator: " AND "),
      bindings: bindings,
      order: displayOrder
    ).fetch(connection)
    var found: [AlarmInstance] = []
    // Series with alarms: their occurrences. Their overrides replace some (and a
    // THISANDFUTURE one changes the later ones), so all of them are read.
    let series = withAlarms.filter { $0.recurrence != nil && $0.override == nil }
    var overridesBySeries: [AppointmentID: [Appointment]] = [:]
    if !series.isEmpty {
      let marks = Array(repeating: "?", count: series.count).joined(separator: ", ")
      let overrides = try DatabaseQuery<Appointment>(
        where: "series_id IN (\(marks))",
        bindings: series.map { .text($0.id.description) },
        order: "recurrence_ms, id"
      ).fetch(connection)
      for value in overrides {
        if let seriesID = value.override?.seriesID { overridesBySeries[seriesID, default: []].append(value) }
      }
    }
    let seriesIDs = Set(series.map(\.id))
    for master in series where !master.isCancelled {
      // Read once: every occurrence carries the series' extras (an override is a row of its own).
      let alarms = master.alarms
      found += master.alarmInstances(in: range, zone: fallbackZone, alarms: alarms).filter { instance in
        if case .absolute = instance.alarm.trigger { return true }
        return false
      }
      let window = occurrenceWindow(for: alarms, duration: master.duration, firing: range)
      for occurrence in master.occurrences(
        in: window,
        fallbackZone: fallbackZone,
        includeCancelled: false,
        overrides: overridesBySeries[master.id] ?? []
      ) {
        found += occurrence.alarmInstances(in: range, zone: fallbackZone, includeAbsolute: false, alarms: alarms)
      }
    }
    // One-offs and overrides: an override is a row of its own in a window (found where it
    // now is, its own alarms), left out with its series when that is cancelled.
    var cancelledSeries = Set(series.filter(\.isCancelled).map(\.id))
    let others = Array(Set(withAlarms.compactMap { $0.override?.seriesID }).subtracting(seriesIDs))
    if !others.isEmpty {
      let marks = Array(repeating: "?", count: others.count).joined(separator: ", ")
      try connection.query(
        "SELECT id FROM appointment WHERE status = 'cancelled' AND id IN (\(marks))",
        others.map { .text($0.description) }
      ) { row throws(StoreError) in
        if let id = AppointmentID(string: row.string(at: 0)) { cancelledSeries.insert(id) }
      }
    }
    for single in withAlarms where single.recurrence == nil {
      if let seriesID = single.override?.seriesID, cancelledSeries.contains(seriesID) { continue }
      found += single.alarmInstances(in: range, zone: fallbackZone)
    }
    var seen: Set<String> = []
    return found.filter { seen.insert($0.key).inserted }.sorted(by: AlarmInstance.ordered)
  }

  /// The occurrences whose relative alarms can fire in `firing`: those starting up to the
  /// longest lead after it (a reminder a day ahead of tomorrow's meeting fires today) and up
  /// to the longest lag before it, widened by the duration for alarms related to the end.
  nonisolated static func occurrenceWindow(for alarms: [Alarm], duration: TimeInterval, firing: DateInterval)
    -> DateInterval
  {
    var earliest: TimeInterval = 0
    var latest: TimeInterval = 0
    for alarm in alarms {
      if case .timeOfDay = alarm.trigger {
        // On the occurrence's own day: within a day (and an hour) of its start either way.
        earliest = min(earliest, -90_000)
        latest = max(latest, 90_000 + Double(alarm.repeatCount) * alarm.repeatInterval)
        continue
      }
      guard case .relative(let offset, let toEnd) = alarm.trigger else { continue }
      // Whole days may be 23 or 25 hours: an hour of slack either way.
      let fromStart = offset + (toEnd ? duration : 0)
      let repeats = Double(alarm.repeatCount) * alarm.repeatInterval
      earliest = min(earliest, fromStart - 3600)
      latest = max(latest, fromStart + repeats + 3600)
    }
    return DateInterval(
      start: firing.start.addingTimeInterval(-latest),
      end: max(firing.end.addingTimeInterval(-earliest), firing.start.addingTimeInterval(-latest))
    )
  }
}
