import ApptCore
import Foundation

/// One occurrence of a series as a change finds it: an override row, or a slot of the
/// series (the occurrence as a window shows it, `occurrence` set to its original start).
enum FoundOccurrence {
  case override(Appointment)
  case slot(Appointment)

  /// The start the occurrence has in its series (RECURRENCE-ID).
  var recurrenceID: Date {
    switch self {
    case .override(let row): return row.override?.recurrenceID ?? row.start
    case .slot(let occurrence): return occurrence.occurrence ?? occurrence.start
    }
  }
}

@DatabaseActor
extension AppointmentDAO {
  // MARK: - Occurrences

  /// Cancels only the occurrence of series `id` on `day` (a local midnight): an exception of
  /// the series, or, for an overridden occurrence, the override's status. `ifRevision` is the
  /// series' revision the change is based on (occurrences carry their series').
  @discardableResult
  public func cancelOccurrence(id: AppointmentID, on day: Date, ifRevision: Int? = nil) throws(StoreError)
    -> Appointment
  {
    try setOccurrenceStatus(.cancelled, id: id, on: day, ifRevision: ifRevision)
  }

  /// Undoes `cancelOccurrence`.
  @discardableResult
  public func restoreOccurrence(id: AppointmentID, on day: Date, ifRevision: Int? = nil) throws(StoreError)
    -> Appointment
  {
    try setOccurrenceStatus(.scheduled, id: id, on: day, ifRevision: ifRevision)
  }

  private func setOccurrenceStatus(_ status: Appointment.Status, id: AppointmentID, on day: Date, ifRevision: Int?)
    throws(StoreError) -> Appointment
  {
    let now = clock.now
    let clock = self.clock
    return try database.write { connection throws(StoreError) in
      var series = try Self.findForChange(id: id, expected: ifRevision, in: connection)
      switch try Self.occurrence(of: series, on: day, clock: clock, in: connection) {
      case .override(var row):
        guard row.status != status else { return row }
        row.status = status
        row.updated = now
        row.revision += 1
        row.sequence += 1
        try Appointment.upsert(row, in: connection)
        try Self.touchSeries(of: row, at: now, in: connection)
        return row
      case .slot(var occurrence):
        let slot = occurrence.occurrence ?? occurrence.start
        let excluded = series.exceptions.contains(slot)
        if status == .cancelled, excluded { return occurrence }
        if status == .cancelled {
          series.exceptions = (series.exceptions + [slot]).sorted()
        } else {
          series.exceptions.removeAll { $0 == slot }
        }
        occurrence.status = status
        series.updated = now
        series.revision += 1
        series.sequence += 1
        try Appointment.upsert(series, in: connection)
        occurrence.revision = series.revision
        return occurrence
      }
    }
  }

  /// Changes only the occurrence of series `id` on `day` (a local midnight): it becomes an
  /// override of the series (a row of its own, keeping its place in the series: RECURRENCE-ID
  /// = its start in the series), or, when it is one already, that override is changed. The
  /// override (returned) and the series (at its next revision: a sync sends them together)
  /// are written in one transaction. A cancelled occurrence stays cancelled (its exception
  /// becomes the override's status).
  @discardableResult
  public func editOccurrence(
    id: AppointmentID,
    on day: Date,
    ifRevision: Int? = nil,
    change: @Sendable (inout Appointment) -> Void
  ) throws(StoreError) -> Appointment {
    let now = clock.now
    let clock = self.clock
    return try database.write { connection throws(StoreError) in
      var series = try Self.findForChange(id: id, expected: ifRevision, in: connection)
      var override: Appointment
      // What the change starts from: lengths kept from it are not checked again.
      let before: Appointment
      switch try Self.occurrence(of: series, on: day, clock: clock, in: connection) {
      case .override(let row):
        override = row
        before = row
        change(&override)
        override.revision = row.revision + 1
        override.sequence = row.sequence + 1
      case .slot(let occurrence):
        let slot = occurrence.occurrence ?? occurrence.start
        override = occurrence
        override.id = AppointmentID()
        override.recurrence = nil
        override.exceptions = []
        override.occurrence = nil
        override.override = Appointment.Override(seriesID: series.id, recurrenceID: slot)
        override.created = now
        override.sequence = series.sequence + 1
        if series.exceptions.contains(slot) {
          series.exceptions.removeAll { $0 == slot }
          override.status = .cancelled
        }
        before = override
        change(&override)
        override.revision = 1
      }
      override.updated = now
      try Self.checkRules(override, stored: before)
      series.updated = now
      series.revision += 1
      override.calendarID = series.calendarID  // an override is in its series' calendar
      try Appointment.upsert(series, in: connection)
      try Appointment.upsert(override, in: connection)
      return override
    }
  }

  /// "This and following": the occurrence of series `id` on `day` and every later one get
  /// `change` (and `status`, when given), by splitting the series, in one transaction. The
  /// series' rules end just before that occurrence (an UNTIL, or a COUNT of the occurrences
  /// before it; its RDATEs, exceptions and overrides from it on leave it), and a new series
  /// (new id; a new UID when the series has one) starts at it with the rest of each rule,
  /// those RDATEs, exceptions and overrides, changed. From the first occurrence on, that is
  /// the whole series, changed in place. Returns the new series (or the series changed).
  @discardableResult
  public func splitSeries(
    id: AppointmentID,
    on day: Date,
    ifRevision: Int? = nil,
    status: Appointment.Status? = nil,
    change: @Sendable (inout Appointment) -> Void
  ) throws(StoreError) -> Appointment {
    let now = clock.now
    let clock = self.clock
    return try database.write { connection throws(StoreError) in
      var series = try Self.findForChange(id: id, expected: ifRevision, in: connection)
      let before = series
      let split = try Self.occurrence(of: series, on: day, clock: clock, in: connection).recurrenceID
      guard let recurrence = series.recurrence else {
        throw .invalidRequest(message: "\"\(series.title)\" does not repeat; leave out --occurrence")
      }
      if split <= series.start {
        change(&series)
        if let status { series.status = status }
        try Self.checkRules(series, stored: before)
        series.updated = now
        series.revision += 1
        series.sequence += 1
        try Self.moveOccurrences(of: &series, from: before, fallbackZone: clock.timeZone, at: now, in: connection)
        try Self.place(&series, in: connection)
        try Appointment.upsert(series, in: connection)
        try Self.moveOverrides(of: series, in: connection)
        return series
      }
      let zone = series.zone(fallback: clock.timeZone)
      let (head, tail) = Self.split(recurrence, of: series, at: split, zone: zone)
      var rest = series
      rest.id = AppointmentID()
      rest.uid = series.uid.map { _ in "\(rest.id)@appt" }
      rest.start = split
      rest.end = split.addingTimeInterval(series.duration)
      rest.recurrence = tail
      rest.exceptions = series.exceptions.filter { $0 >= split }
      rest.created = now
      rest.updated = now
      rest.sequence = 0
      rest.revision = 1
      change(&rest)
      if let status { rest.status = status }
      try Self.checkRules(rest, stored: before)
      series.recurrence = head
      series.exceptions = series.exceptions.filter { $0 < split }
      series.updated = now
      series.revision += 1
      series.sequence += 1
      try Self.checkRules(series, stored: before)
      try Self.place(&rest, in: connection)
      try Appointment.upsert(series, in: connection)
      try Appointment.upsert(rest, in: connection)
      let moving = try DatabaseQuery<Appointment>(
        where: "series_id = ? AND recurrence_ms >= ?",
        bindings: [.text(series.id.description), .integer(split.millisecondsSince1970)],
        order: "recurrence_ms, id"
      ).fetch(connection)
      for var override in moving {
        override.override?.seriesID = rest.id
        override.uid = rest.uid
        override.calendarID = rest.calendarID
        override.updated = now
        override.revision += 1
        try Appointment.upsert(override, in: connection)
      }
      return rest
    }
  }

  /// Restores the occurrence of series `id` on `day` and every later one: their exceptions
  /// go, and their overrides are scheduled again.
  @discardableResult
  public func restoreFollowing(id: AppointmentID, on day: Date, ifRevision: Int? = nil) throws(StoreError)
    -> Appointment
  {
    let now = clock.now
    let clock = self.clock
    return try database.write { connection throws(StoreError) in
      var series = try Self.findForChange(id: id, expected: ifRevision, in: connection)
      let from = try Self.occurrence(of: series, on: day, clock: clock, in: connection).recurrenceID
      series.exceptions.removeAll { $0 >= from }
      series.updated = now
      series.revision += 1
      series.sequence += 1
      try Appointment.upsert(series, in: connection)
      let cancelled = try DatabaseQuery<Appointment>(
        where: "series_id = ? AND recurrence_ms >= ? AND status = 'cancelled'",
        bindings: [.text(series.id.description), .integer(from.millisecondsSince1970)],
        order: "recurrence_ms, id"
      ).fetch(connection)
      for var override in cancelled {
        override.status = .scheduled
        override.updated = now
        override.revision += 1
        override.sequence += 1
        try Appointment.upsert(override, in: connection)
      }
      return series
    }
  }

  /// The occurrence of `series` a user means by local `day`: the series' own occurrence on
  /// that day (as a window shows it: not overridden), else an override of it now on that
  /// day, else an override whose original start was on that day (it moved away). An
  /// override is changed by its own id as well.
  static func occurrence(of series: Appointment, on day: Date, clock: Clock, in connection: any Connection)
    throws(StoreError) -> FoundOccurrence
  {
    let dayText = AppointmentFormatter(clock: clock).day(day)
    guard series.recurrence != nil else {
      throw .invalidRequest(message: "\"\(series.title)\" does not repeat; leave out --occurrence")
    }
    let overrides = try DatabaseQuery<Appointment>(
      where: "series_id = ?",
      bindings: [.text(series.id.description)],
      order: "recurrence_ms, id"
    ).fetch(connection)
    let window = DateInterval(start: day, end: clock.day(1, after: day))
    let occurrences = series.occurrences(
      in: window,
      fallbackZone: clock.timeZone,
      includeCancelled: true,
      overrides: overrides
    )
    if let slot = occurrences.first(where: { clock.startOfDay($0.start) == day }) { return .slot(slot) }
    if let moved = overrides.first(where: { clock.startOfDay($0.start) == day }) { return .override(moved) }
    if let away = overrides.first(where: { $0.override.map { clock.startOfDay($0.recurrenceID) == day } ?? false }) {
      return .override(away)
    }
    throw .invalidRequest(message: "\"\(series.title)\" has no occurrence on \(dayText)")
  }

  /// `recurrence` cut at `split` (an occurrence after the series' first): the part before it
  /// and the part from it on. A COUNT rule counts the occurrences each part keeps; another
  /// rule ends (UNTIL, in the form its DTSTART calls for) just before `split` in the first
  /// part and goes on as it was in the second. RDATEs go to the part they fall in. A part
  /// without rules or dates is nil (a single appointment).
  static func split(_ recurrence: Recurrence, of series: Appointment, at split: Date, zone: TimeZone)
    -> (head: Recurrence?, tail: Recurrence?)
  {
    var headRules: [RecurrenceRule] = []
    var tailRules: [RecurrenceRule] = []
    let splitDay = CivilDateTime(split, in: zone).date
    for rule in recurrence.rules {
      if let count = rule.count {
        let before = Recurrence(rules: [rule])
          .set(start: series.start, zone: zone, allDay: series.isAllDay, onlyRuleStarts: true)
          .occurrences(from: series.start, to: split).count
        var head = rule
        head.count = before
        if before > 0 { headRules.append(head) }
        var tail = rule
        tail.count = count - before
        if count - before > 0 { tailRules.append(tail) }
        continue
      }
      let end: RecurrenceRule.Until
      switch rule.until {
      case .date?: end = .date(CivilDate(dayNumber: splitDay.dayNumber - 1))
      case .local?: end = .local(CivilDateTime(split.addingTimeInterval(-1), in: zone))
      case .utc?, nil:
        end =
          series.isAllDay
          ? .date(CivilDate(dayNumber: splitDay.dayNumber - 1))
          : .utc(CivilDateTime(split.addingTimeInterval(-1), in: .gmt))
      }
      if let until = rule.until, until.instant(in: zone) < split {
        headRules.append(rule)  // it ends before the split: nothing of it goes on
        continue
      }
      var head = rule
      head.until = end
      headRules.append(head)
      tailRules.append(rule)
    }
    func isLater(_ date: RecurrenceDate) -> Bool {
      switch date {
      case .instant(let instant), .period(let instant, _): return instant >= split
      case .local(let time): return time.instant(in: zone) >= split
      case .date(let day): return day >= splitDay
      }
    }
    let headDates = recurrence.dates.filter { !isLater($0) }
    let tailDates = recurrence.dates.filter(isLater)
    let head = headRules.isEmpty && headDates.isEmpty ? nil : Recurrence(rules: headRules, dates: headDates)
    let tail = tailRules.isEmpty && tailDates.isEmpty ? nil : Recurrence(rules: tailRules, dates: tailDates)
    return (head, tail)
  }
}
