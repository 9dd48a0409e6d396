import ApptCore
import Foundation

/// Which appointments a list or a screen shows.
public struct AppointmentQuery: Hashable, Sendable {
  /// Appointments intersecting `[start, end)`; nil for all of them.
  public var range: DateInterval?
  public var includeCancelled: Bool
  /// Text to find in the title, the note or the location, as `TextSearch` matches it (case and accents
  /// ignored).
  public var search: String?
  public var limit: Int?
  /// Only the calendars with these names (case ignored; an unknown one is an error); nil for
  /// every calendar.
  public var calendars: [String]?
  /// Only shown calendars (of `calendars`, or of all): what the calendar's screen asks for.
  public var onlyShownCalendars: Bool
  /// Only the rows that carry a VALARM (schema 9's `appointment.alarms`): what the calendar's
  /// alarm watch observes, so a commit that touches no alarm costs it almost nothing.
  public var withAlarmsOnly: Bool
  /// How much of each one-off and override the reader needs.
  public var detail: Detail

  /// How much of a row a query reads.
  public enum Detail: Hashable, Sendable {
    /// Every field.
    case full
    /// What a text `list` line shows: id, start, end, title, all day, status, and whether it
    /// is a changed occurrence; the rest of a one-off's row is not read (see
    /// `Appointment.init(lineRow:)`), nor of a series' beyond what expanding it takes
    /// (`init(seriesLineRow:)`). Overrides are read whole: they change their series.
    case listLine
  }

  public init(
    range: DateInterval?,
    includeCancelled: Bool = false,
    search: String? = nil,
    limit: Int? = nil,
    calendars: [String]? = nil,
    onlyShownCalendars: Bool = false,
    withAlarmsOnly: Bool = false,
    detail: Detail = .full
  ) {
    self.range = range
    self.includeCancelled = includeCancelled
    self.search = search
    self.limit = limit
    self.calendars = calendars
    self.onlyShownCalendars = onlyShownCalendars
    self.withAlarmsOnly = withAlarmsOnly
    self.detail = detail
  }
}

/// The app's door to its appointments (the seed's `AppointmentDAO`), on `DatabaseActor`.
///
/// Every method throws a `StoreError` a caller can show; none returns an empty list to hide a
/// failure (the seed's `catch { return [] }` is exactly what this type does not do).
public final class AppointmentDAO: Sendable {
  public let service: DatabaseService
  let clock: Clock

  public init(service: DatabaseService, clock: Clock = .system) {
    self.service = service
    self.clock = clock
  }

  /// A DAO over a database (a file, or a PostgreSQL server) with appt's schema.
  public convenience init(
    location: DatabaseConfiguration.Location,
    readOnly: Bool = false,
    clock: Clock = .system,
    pageCacheKiB: Int? = nil
  ) {
    let configuration = DatabaseConfiguration(
      location: location,
      migrations: Schema.migrations,
      readOnly: readOnly,
      pageCacheKiB: pageCacheKiB
    )
    self.init(service: DatabaseService(database: AsyncDatabase(configuration: configuration)), clock: clock)
  }

  /// The page cache of a process that runs one command and exits (`appt list ...`), in KiB.
  /// Such a command reads each page about once, so a cache of SQLite's 2,000 KiB only makes
  /// it touch fresh memory for every page it reads, a page fault each; a small one recycles
  /// its pages. A week's `list` at 1M reads the same 610 pages either way with 1,510 -> 1,100
  /// page faults, 24.7 -> 22.4 ms and 1.6 MiB less peak RSS (README, "Speed"). An import
  /// sets its own for its duration (`importCacheKiB`).
  public nonisolated static let oneCommandPageCacheKiB = 256

  /// A DAO over a database file with appt's schema.
  public convenience init(file url: URL, readOnly: Bool = false, clock: Clock = .system) {
    self.init(location: .file(url), readOnly: readOnly, clock: clock)
  }

  public var database: AsyncDatabase { service.database }
}

@DatabaseActor
extension AppointmentDAO {
  // MARK: - Reading

  public func getAllAppointments() throws(StoreError) -> [Appointment] {
    try service.findAll(type: Appointment.self, order: Self.displayOrder)
  }

  public func getAppointment(id: AppointmentID) throws(StoreError) -> Appointment {
    guard let found = try service.find(type: Appointment.self, id: id) else { throw .notFound(id: id.description) }
    return found
  }

  public func appointments(matching query: AppointmentQuery) throws(StoreError) -> [Appointment] {
    try database.read { connection throws(StoreError) in try fetch(query, in: connection) }
  }

  /// `query`'s window now, with the `AsyncDatabase.version` it reflects: what the calendar
  /// reads ahead of the selection (the next day or week), to show at once when the
  /// selection gets there and to hand back to `observeAppointments(_:known:)`.
  public func prefetchAppointments(matching query: AppointmentQuery) throws(StoreError) -> KnownWindow {
    // One actor job: no commit can come between the read and the version.
    let items = try appointments(matching: query)
    return KnownWindow(items: items, version: database.version)
  }

  /// The id a user means by `prefix` (4+ characters, like git): exactly one must match.
  public func resolveID(_ prefix: String) throws(StoreError) -> AppointmentID {
    let prefix = prefix.lowercased()
    if let full = AppointmentID(string: prefix), prefix.count == 36 { return full }
    var matches: [String] = []
    // A range over the primary key's index; '~' sorts after every character of a UUID.
    try database.read { connection throws(StoreError) in
      try connection.query(
        "SELECT id FROM appointment WHERE id >= ? AND id < ? ORDER BY id LIMIT 10",
        [.text(prefix), .text(prefix + "~")]
      ) { row throws(StoreError) in matches.append(row.string(at: 0)) }
    }
    guard let first = matches.first else { throw .notFound(id: prefix) }
    guard matches.count == 1 else { throw .ambiguousID(prefix: prefix, candidates: matches) }
    guard let id = AppointmentID(string: first) else {
      throw .corrupt(path: database.configuration.displayPath, reason: "bad id \(first)")
    }
    return id
  }

  // MARK: - Writing

  /// Inserts `appointment`, or replaces the stored one with its id, and returns it as saved.
  ///
  /// A new id is inserted at `revision + 1` (1 for a value never stored; one more for a value
  /// stored before and deleted since, as when a delete is undone). An existing row is replaced
  /// only if `appointment.revision` is the stored revision, else `.staleRevision` reports what
  /// is stored now; the row is written at the next revision. Read, check and write are one
  /// transaction, so two writers based on the same revision cannot both succeed.
  @discardableResult
  public func saveAppointment(_ appointment: Appointment) throws(StoreError) -> Appointment {
    let now = clock.now
    return try database.write { connection throws(StoreError) in
      let stored = try DatabaseService.find(Appointment.self, id: appointment.id, in: connection)
      try Self.checkRules(appointment, stored: stored)
      var saved = appointment
      saved.occurrence = nil
      if let stored {
        try Self.check(stored, expected: appointment.revision)
        try Self.moveOccurrences(of: &saved, from: stored, fallbackZone: clock.timeZone, at: now, in: connection)
      }
      saved.revision = appointment.revision + 1
      try Self.place(&saved, in: connection)
      if saved.calendarID != stored?.calendarID { try Self.checkNoCopy(of: saved, in: connection) }
      try Appointment.upsert(saved, in: connection)
      try Self.moveOverrides(of: saved, in: connection)
      try Self.touchSeries(of: saved, at: now, in: connection)
      return saved
    }
  }

  /// Adds the appointment `request` describes, created now and entered in the clock's zone.
  /// The one door for every add (`appt add`, a script's or the `:` line's `add`, the
  /// calendar's form), so an appointment comes out the same whichever way it came in.
  @discardableResult
  public func addAppointment(_ request: AddRequest) throws(StoreError) -> Appointment {
    // Without --calendar, the default calendar ("": the store decides, in the write).
    let calendarID = try request.calendar.map { name throws(StoreError) in try calendar(named: name).id } ?? ""
    var appointment = Appointment(
      title: request.title,
      start: request.start,
      end: request.end,
      note: request.note,
      location: request.location,
      created: clock.now,
      timeZone: clock.timeZone.identifier,
      isAllDay: request.isAllDay,
      recurrence: request.recurrence,
      calendarID: calendarID
    )
    // nil: the defaults, which the caller resolves from the settings (the store has none).
    if let alarms = request.alarms { appointment.setAlarms(alarms) }
    return try saveAppointment(appointment)
  }

  /// Changes the fields `request` gives of the appointment it names (a unique id prefix),
  /// keeping the duration unless it gives one; with `ifRevision`, only if it is still at that
  /// revision. With `occurrence` (a local midnight), only that day's occurrence of a series,
  /// which becomes (or, when it is one already, stays) an override of the series; with
  /// `andFollowing` too, that occurrence and every later one: the series is split
  /// (`splitSeries`). The one door for every edit (`edit`, the calendar's form), series,
  /// occurrence or override. Every edit counts SEQUENCE up.
  @discardableResult
  public func editAppointment(_ request: EditRequest) throws(StoreError) -> Appointment {
    let id = try resolveID(request.id)
    if request.calendar != nil, request.occurrence != nil, !request.andFollowing {
      throw .invalidRequest(
        message: "--calendar moves a whole series (or, with --and-following, the part it splits off);"
          + " one occurrence stays in its series' calendar"
      )
    }
    let calendarID = try request.calendar.map { name throws(StoreError) in try calendar(named: name).id }
    let change: @Sendable (inout Appointment) -> Void = { appointment in
      if let calendarID { appointment.calendarID = calendarID }
      let duration = request.duration ?? appointment.duration
      if let title = request.title { appointment.title = title }
      if let note = request.note { appointment.note = note }
      if let location = request.location { appointment.location = location }
      if let start = request.start { appointment.start = start }
      appointment.end = appointment.start.addingTimeInterval(duration)
      if let alarms = request.alarms { appointment.setAlarms(alarms) }
    }
    guard let day = request.occurrence else {
      if request.andFollowing {
        throw .invalidRequest(message: "--and-following needs --occurrence DATE: the first occurrence to change")
      }
      return try updateAppointment(id: id, ifRevision: request.ifRevision, change: change)
    }
    if request.andFollowing {
      return try splitSeries(id: id, on: day, ifRevision: request.ifRevision, change: change)
    }
    return try editOccurrence(id: id, on: day, ifRevision: request.ifRevision, change: change)
  }

  /// Reads the appointment, checks it is still at `ifRevision` (when given), applies `change`
  /// and writes it at the next revision and SEQUENCE with `updated` set to now, in one
  /// transaction (an override's series is written at its next revision too: it is the
  /// resource a sync sends). The id and the revision are the store's: `change` cannot alter
  /// them.
  @discardableResult
  public func updateAppointment(
    id: AppointmentID,
    ifRevision expected: Int? = nil,
    change: @Sendable (inout Appointment) -> Void
  ) throws(StoreError) -> Appointment {
    let now = clock.now
    return try database.write { connection throws(StoreError) in
      let stored = try Self.findForChange(id: id, expected: expected, in: connection)
      var appointment = stored
      change(&appointment)
      try Self.checkRules(appointment, stored: stored)
      appointment.id = stored.id
      appointment.occurrence = nil
      appointment.updated = now
      appointment.revision = stored.revision + 1
      appointment.sequence = stored.sequence + 1
      try Self.moveOccurrences(of: &appointment, from: stored, fallbackZone: clock.timeZone, at: now, in: connection)
      try Self.place(&appointment, in: connection)
      if appointment.calendarID != stored.calendarID { try Self.checkNoCopy(of: appointment, in: connection) }
      try Appointment.upsert(appointment, in: connection)
      try Self.moveOverrides(of: appointment, in: connection)
      try Self.touchSeries(of: appointment, at: now, in: connection)
      return appointment
    }
  }

  /// The stored appointment `id`, refused as stale unless it is at revision `expected` (any
  /// revision when nil).
  static func findForChange(
    id: AppointmentID,
    expected: Int?,
    in connection: any Connection
  ) throws(StoreError) -> Appointment {
    guard let stored = try DatabaseService.find(Appointment.self, id: id, in: connection) else {
      throw .notFound(id: id.description)
    }
    if let expected { try check(stored, expected: expected) }
    return stored
  }

  /// The last gate of every write: `AppointmentRules`, whatever the caller checked before.
  /// `limits` `.server` for what a calendar server sent; `stored`, the row a change starts
  /// from (a length it keeps is not checked again).
  static func checkRules(
    _ appointment: Appointment,
    limits: AppointmentRules.Limits = .input,
    stored: Appointment? = nil
  ) throws(StoreError) {
    do throws(AppointmentRules.Violation) {
      try AppointmentRules.validate(appointment, limits: limits, stored: stored)
    } catch {
      let title = TextSafety.escapingControls(String(appointment.title.prefix(40)))
      throw .invalidRequest(message: "\"\(title)\": \(error.message)")
    }
  }

  /// Refuses to put `appointment` into a calendar that holds another copy of its event (its
  /// uid and RECURRENCE-ID): a calendar holds an event once.
  static func checkNoCopy(of appointment: Appointment, in connection: any Connection) throws(StoreError) {
    // An event appt made keeps no uid and goes out as "<id>@appt": a copy of it is found by
    // that key too (an import of appt's own export into another calendar holds it so).
    let master = appointment.override?.seriesID ?? appointment.id
    let uid = appointment.uid ?? "\(master)@appt"
    let own = uid.hasSuffix("@appt") ? String(uid.dropLast(5)) : ""
    let recurrence = SQLValue.integer(appointment.override?.recurrenceID.millisecondsSince1970 ?? -1)
    let place = [recurrence, .text(appointment.calendarID), .text(appointment.id.description)]
    var copy = try connection.scalar(copyByUID, [.text(uid)] + place)
    // For a master appt made, `own` is its own id: no other row can have its key.
    let mayHaveOwnCopy = !own.isEmpty && (appointment.override != nil || own != appointment.id.description)
    if copy == nil && mayHaveOwnCopy {
      copy = try connection.scalar(copyByOwnID, [.text(own), .text(own), .text(own)] + place)
    }
    guard let copy = copy?.string else { return }
    let name = try connection.scalar("SELECT name FROM calendar WHERE id = ?", [.text(appointment.calendarID)])?.string
    throw .invalidRequest(
      message: "calendar \(quoted(name ?? appointment.calendarID)) holds this event already (UID"
        + " \(TextSafety.escapingControls(uid)), appointment \(copy.prefix(8))): delete one copy first"
    )
  }

  /// Another row of an event by its uid, RECURRENCE-ID and calendar: through `appointment_by_uid`.
  static let copyByUID = """
    SELECT id FROM appointment WHERE uid = ? AND coalesce(recurrence_ms, -1) = ? AND calendar_id = ? AND id <> ?
    """

  /// Another row of an event appt made (no uid, known as "<id>@appt"): its master by the
  /// primary key, an override by `appointment_by_series`. Both probes are indexed: a scan
  /// here would read the whole table on every add (and, on PostgreSQL, lock all of it for
  /// serializable writers).
  static let copyByOwnID = """
    SELECT id FROM appointment WHERE (id = ? OR series_id = ?) AND uid IS NULL AND coalesce(series_id, id) = ?
      AND coalesce(recurrence_ms, -1) = ? AND calendar_id = ? AND id <> ?
    """

  static func check(_ stored: Appointment, expected: Int) throws(StoreError) {
    guard stored.revision == expected else { throw .staleRevision(current: stored) }
  }

  /// After a write of `appointment`, an override of a stored series: writes the series at its
  /// next revision (and `updated`), since a series and its overrides are one iCalendar
  /// resource (one UID) that a sync sends whole.
  static func touchSeries(of appointment: Appointment, at now: Date, in connection: any Connection)
    throws(StoreError)
  {
    guard let seriesID = appointment.override?.seriesID else { return }
    try connection.run(
      "UPDATE appointment SET revision = revision + 1, updated_ms = ? WHERE id = ?",
      [.integer(now.millisecondsSince1970), .text(seriesID.description)]
    )
  }

  /// Saves imported appointments in ONE transaction (all or nothing), upserting by UID and
  /// RECURRENCE-ID: one whose (uid, recurrence id) is stored already (or, for an event appt
  /// wrote, "<id>@appt", whose id is stored without a uid) keeps its id and `created`, and is
  /// rewritten only if a field differs and its SEQUENCE is not lower than the stored one's
  /// (a lower one is an older copy: kept as stored, counted unchanged). An override is linked
  /// to the series with its UID, in the file or stored; one stored before its series (an
  /// invitation to one occurrence) is linked when the series arrives. Returns how many were
  /// added, updated and found unchanged. With `calendar` (a name), they are that calendar's
  /// events (a copy of one in another calendar is another event: an event is its calendar,
  /// uid and RECURRENCE-ID); without, a new one goes into the default calendar and a stored
  /// one, in any calendar, is updated where it is. An override is in its series' calendar.
  public func importAppointments(
    _ appointments: [Appointment],
    calendar name: String? = nil
  ) throws(StoreError) -> (added: Int, updated: Int, unchanged: Int, superseded: Int) {
    let now = clock.now
    return try database.write { connection throws(StoreError) in
      // As `importCalendar`'s: the rows go all over the table and its indexes.
      let restoreCache = try Self.enlargeCache(connection)
      defer { restoreCache() }
      let target = try name.map { name throws(StoreError) in try Self.calendar(named: name, in: connection).id }
      // The import's own store (`ImportBatches`), each appointment an event of its own: one
      // way from parsed events to rows, whichever way they were read.
      let deferred = try DeferredIndexes.dropIfEmpty(connection)
      var store = ImportBatches(target: target, now: now)
      try store.take(
        appointments.enumerated().map { ICalendar.ImportItem(appointment: $0.element, ordinal: $0.offset) },
        in: connection
      )
      try deferred?.rebuild(connection)
      try store.finish(in: connection)
      return store.counts
    }
  }

  /// What `merge` did with one incoming row.
  enum MergeUpshot: Equatable {
    case added, updated, unchanged
    /// Not stored: an override its series, newer, no longer has (`isSuperseded`).
    case superseded
  }

  /// Matches one incoming appointment (from a file or a server; series and one-offs before
  /// overrides) with the stored one it is a copy of, and writes it: the matching of
  /// `importAppointments`, shared with the sync's `applyServerItem`. An event is (calendar,
  /// uid, RECURRENCE-ID): with a `target` only that calendar's rows match (the same UID in
  /// another calendar is another event); without, a stored copy in any calendar does. A
  /// stored match (by uid and RECURRENCE-ID, or "<id>@appt" for a row appt wrote without a
  /// uid) keeps its id,
  /// `created` and revision, and is rewritten (at its next revision, `updated` now) only if a
  /// field differs; with `olderSequenceLoses`, not when the incoming SEQUENCE is lower than
  /// the stored one's (an import's older copy). `target` is the calendar id it goes to (a
  /// stored one stays where it is without); an override goes where its series is. Returns the
  /// row as stored now.
  /// `hints`: what the caller (an import) already found out about it in the store.
  static func merge(
    _ appointment: Appointment,
    into target: String?,
    olderSequenceLoses: Bool,
    limits: AppointmentRules.Limits = .input,
    at now: Date,
    hints: MergeHints = MergeHints(),
    in connection: any Connection
  ) throws(StoreError) -> (stored: Appointment, upshot: MergeUpshot) {
    var incoming = appointment
    try checkRules(incoming, limits: limits)
    incoming.calendarID = target ?? ""
    incoming.occurrence = nil
    let existing: Appointment?
    if var override = incoming.override {
      let series = try importedSeries(uid: incoming.uid, calendar: target, in: connection)
      if let series, isSuperseded(incoming, by: series) { return (incoming, .superseded) }
      override.seriesID = series?.id
      incoming.override = override
      // appt's own export of a series without a uid: its overrides stay without one.
      if let series, series.uid == nil { incoming.uid = nil }
      existing = try storedOverride(
        uid: incoming.uid,
        seriesID: series?.id,
        recurrenceID: override.recurrenceID,
        calendar: target ?? series?.calendarID,
        in: connection
      )
      if existing == nil, try DatabaseService.find(Appointment.self, id: incoming.id, in: connection) != nil {
        incoming.id = AppointmentID()
      }
    } else if hints.isNew {
      existing = nil
    } else {
      existing = try storedMaster(of: &incoming, calendar: target, in: connection)
    }
    let upshot: MergeUpshot
    if let existing {
      // appt's own export of an appointment without a uid: it stays without one.
      if existing.uid == nil, incoming.uid == "\(existing.id)@appt" { incoming.uid = nil }
      incoming.id = existing.id
      incoming.created = existing.created
      incoming.updated = existing.updated
      incoming.revision = existing.revision  // a file carries no revision: not a change
      if target == nil { incoming.calendarID = existing.calendarID }
      try place(&incoming, in: connection, known: hints.calendar)
      // The same zone written another way (a server's re-serialisation) is no change.
      if incoming.extras.zoneDefinition != existing.extras.zoneDefinition,
        ICalendarExtras.sameZoneDefinition(incoming.extras.zoneDefinition, existing.extras.zoneDefinition)
      {
        incoming.extras.zoneDefinition = existing.extras.zoneDefinition
      }
      if incoming == existing || (olderSequenceLoses && incoming.sequence < existing.sequence) {
        return (existing, .unchanged)
      }
      incoming.updated = now
      incoming.revision = existing.revision + 1
      upshot = .updated
    } else {
      incoming.revision = 1
      upshot = .added
      try place(&incoming, in: connection, known: hints.calendar)
    }
    // An added row's id is stored nowhere (a stored one was given up for a new one above).
    if upshot == .added {
      try Appointment.insert(incoming, in: connection)
    } else {
      try Appointment.upsert(incoming, in: connection)
    }
    try moveOverrides(of: incoming, in: connection)
    if incoming.override == nil, incoming.recurrence != nil, let uid = incoming.uid {
      try linkOrphans(uid: uid, to: incoming.id, calendar: incoming.calendarID, at: now, in: connection)
    }
    return (incoming, upshot)
  }

  /// Whether `override` names an occurrence its series took back: one the series excludes
  /// (EXDATE), or, from an older SEQUENCE, one its rules no longer make (an UNTIL brought
  /// before it). A file or server that still carries it is read as the series says, as
  /// Google and Python's recurring-ical-events read it.
  static func isSuperseded(_ override: Appointment, by series: Appointment) -> Bool {
    guard let value = override.override, let recurrence = series.recurrence else { return false }
    if series.exceptions.contains(value.recurrenceID) { return true }
    guard override.sequence < series.sequence, !value.thisAndFuture else { return false }
    let id = value.recurrenceID
    let set = recurrence.set(start: series.start, zone: series.zone(fallback: .gmt), allDay: series.isAllDay)
    return set.occurrences(from: id, to: id + 1).first != id
  }

  /// What an import found out before it merges an event, so `merge` need not ask again.
  struct MergeHints {
    /// A calendar that exists: where an event without one goes (the default calendar, or the
    /// import's own), taken without looking it up.
    var calendar: String?
    /// No stored row has the event's uid or its id: it is added, without looking for it.
    var isNew = false
  }

  /// The stored series or one-off an imported one (not an override) replaces, in `calendar`
  /// (nil: any): by uid (a row without RECURRENCE-ID), else by id when that row has no uid
  /// or the same one; an id taken by another is given up for a new one.
  private static func storedMaster(of incoming: inout Appointment, calendar: String?, in connection: any Connection)
    throws(StoreError) -> Appointment?
  {
    let (inCalendar, calendarBinding) = scope(calendar)
    if let uid = incoming.uid,
      let found = try DatabaseQuery<Appointment>(
        where: "uid = ? AND recurrence_ms IS NULL" + inCalendar,
        bindings: [.text(uid)] + calendarBinding,
        order: "id",
        limit: 1
      ).fetch(connection).first
    {
      return found
    }
    if let sameID = try DatabaseService.find(Appointment.self, id: incoming.id, in: connection) {
      if sameID.override == nil, sameID.uid == nil || sameID.uid == incoming.uid,
        calendar == nil || sameID.calendarID == calendar
      {
        return sameID
      }
      incoming.id = AppointmentID()
    }
    return nil
  }

  /// The stored series an imported override with `uid` belongs to, in `calendar` (nil: any):
  /// the series with that uid, or for "<id>@appt" (appt's export of a series without a uid)
  /// the series with that id.
  private static func importedSeries(uid: String?, calendar: String?, in connection: any Connection)
    throws(StoreError) -> Appointment?
  {
    guard let uid else { return nil }
    let (inCalendar, calendarBinding) = scope(calendar)
    let byUID = try DatabaseQuery<Appointment>(
      where: "uid = ? AND recurrence_ms IS NULL AND \(Schema.isSeries)" + inCalendar,
      bindings: [.text(uid)] + calendarBinding,
      order: "id",
      limit: 1
    ).fetch(connection).first
    if let byUID { return byUID }
    guard uid.hasSuffix("@appt"), let id = AppointmentID(string: String(uid.dropLast(5))),
      let series = try DatabaseService.find(Appointment.self, id: id, in: connection),
      series.uid == nil, series.recurrence != nil, calendar == nil || series.calendarID == calendar
    else { return nil }
    return series
  }

  /// The SQL term and binding that limit a uid lookup to `calendar` (nil: none).
  static func scope(_ calendar: String?) -> (term: String, bindings: [SQLValue]) {
    guard let calendar else { return ("", []) }
    return (" AND calendar_id = ?", [.text(calendar)])
  }

  /// The stored override of (series or uid, RECURRENCE-ID).
  private static func storedOverride(
    uid: String?,
    seriesID: AppointmentID?,
    recurrenceID: Date,
    calendar: String?,
    in connection: any Connection
  ) throws(StoreError) -> Appointment? {
    let instant = SQLValue.integer(recurrenceID.millisecondsSince1970)
    if let seriesID {
      let found = try DatabaseQuery<Appointment>(
        where: "series_id = ? AND recurrence_ms = ?",
        bindings: [.text(seriesID.description), instant],
        order: "id",
        limit: 1
      ).fetch(connection).first
      if let found { return found }
    }
    guard let uid else { return nil }
    let (inCalendar, calendarBinding) = scope(calendar)
    return try DatabaseQuery<Appointment>(
      where: "uid = ? AND recurrence_ms = ?" + inCalendar,
      bindings: [.text(uid), instant] + calendarBinding,
      order: "id",
      limit: 1
    ).fetch(connection).first
  }

  /// Links the stored overrides with `uid` in `calendar` that have no series (they came
  /// before it) to the series `seriesID`, each written at its next revision.
  private static func linkOrphans(
    uid: String,
    to seriesID: AppointmentID,
    calendar: String,
    at now: Date,
    in connection: any Connection
  ) throws(StoreError) {
    let orphans = try DatabaseQuery<Appointment>(
      where: "uid = ? AND recurrence_ms IS NOT NULL AND series_id IS NULL AND calendar_id = ?",
      bindings: [.text(uid), .text(calendar)],
      order: "id"
    ).fetch(connection)
    for var orphan in orphans {
      orphan.override?.seriesID = seriesID
      try place(&orphan, in: connection)
      orphan.updated = now
      orphan.revision += 1
      try Appointment.upsert(orphan, in: connection)
    }
  }

  /// What `export` writes for `range` (nil: everything), rows as stored (series not
  /// expanded): the one-offs overlapping it, the series reaching it (`ICalendar.reaches`) or
  /// with an override in it, and every override of those series, wherever it is, so the
  /// calendar written has each series whole. In display order.
  public func exportAppointments(in range: DateInterval?, calendar name: String? = nil) throws(StoreError)
    -> [Appointment]
  {
    var all = try getAllAppointments()
    if let name {
      let id = try calendar(named: name).id
      all.removeAll { $0.calendarID != id }
    }
    guard let range else { return all }
    let fallbackZone = clock.timeZone
    let ids = Set(all.map(\.id))
    // An override of a stored series goes with it; any other row stands alone.
    func series(of appointment: Appointment) -> AppointmentID? {
      appointment.override?.seriesID.flatMap { ids.contains($0) ? $0 : nil }
    }
    var included: Set<AppointmentID> = []
    for appointment in all where ICalendar.reaches(appointment, range, fallbackZone: fallbackZone) {
      included.insert(series(of: appointment) ?? appointment.id)
    }
    return all.filter { included.contains(series(of: $0) ?? $0.id) }
  }

  /// Cancels (`.cancelled`) or restores (`.scheduled`) the appointment; for a series with
  /// `occurrenceOn` (a local midnight), only that day's occurrence (an exception of the
  /// series, or the override's own status when it has one), and with `andFollowing` that one
  /// and every later one (cancel: the series is split and its new part cancelled, so
  /// restoring that brings them back; restore: every exception and override from that one
  /// on is restored). A series' status covers its overrides. What `cancel`/`restore` and the
  /// calendar's `c`/`r` and undo all come down to.
  @discardableResult
  public func setStatus(
    _ status: Appointment.Status,
    id: AppointmentID,
    occurrenceOn day: Date?,
    andFollowing: Bool = false,
    ifRevision: Int? = nil
  ) throws(StoreError) -> Appointment {
    switch (status, day, andFollowing) {
    case (.cancelled, let day?, true):
      try splitSeries(id: id, on: day, ifRevision: ifRevision, status: .cancelled) { _ in }
    case (.scheduled, let day?, true): try restoreFollowing(id: id, on: day, ifRevision: ifRevision)
    case (.cancelled, let day?, false): try cancelOccurrence(id: id, on: day, ifRevision: ifRevision)
    case (.scheduled, let day?, false): try restoreOccurrence(id: id, on: day, ifRevision: ifRevision)
    case (_, nil, _): try setStatus(status, id: id, ifRevision: ifRevision)
    }
  }

  /// Marks the appointment cancelled; it stays stored and can be restored. With `ifRevision`,
  /// only if it is still at that revision (else `.staleRevision`); without, whatever is stored.
  @discardableResult
  public func cancelAppointment(id: AppointmentID, ifRevision: Int? = nil) throws(StoreError) -> Appointment {
    try setStatus(.cancelled, id: id, ifRevision: ifRevision)
  }

  /// Undoes a cancellation (with `ifRevision`, only if it is still at that revision).
  @discardableResult
  public func restoreAppointment(id: AppointmentID, ifRevision: Int? = nil) throws(StoreError) -> Appointment {
    try setStatus(.scheduled, id: id, ifRevision: ifRevision)
  }

  /// Removes the appointment for good (with `ifRevision`, only if it is still at that
  /// revision), a series with its overrides; returns what was removed. Removing an override
  /// gives its series the occurrence back.
  @discardableResult
  public func deleteAppointment(id: AppointmentID, ifRevision: Int? = nil) throws(StoreError) -> Appointment {
    let now = clock.now
    return try database.write { connection throws(StoreError) in
      let existing = try Self.findForChange(id: id, expected: ifRevision, in: connection)
      if try connection.run("DELETE FROM appointment WHERE id = ?", [.text(id.description)]) > 0 {
        connection.journal?.note(Appointment.table.name, key: id.description)
      }
      if existing.recurrence != nil {
        try connection.run("DELETE FROM appointment WHERE series_id = ?", [.text(id.description)])
      }
      try Self.touchSeries(of: existing, at: now, in: connection)
      return existing
    }
  }

  /// Sets the status and writes the next revision and SEQUENCE; an appointment already in
  /// `status` is left as it is (no write, same revision). A series' overrides follow its
  /// status without a write of their own (a window shows them cancelled with it).
  private func setStatus(_ status: Appointment.Status, id: AppointmentID, ifRevision: Int?) throws(StoreError)
    -> Appointment
  {
    let now = clock.now
    return try database.write { connection throws(StoreError) in
      var appointment = try Self.findForChange(id: id, expected: ifRevision, in: connection)
      guard appointment.status != status else { return appointment }
      appointment.status = status
      appointment.updated = now
      appointment.revision += 1
      appointment.sequence += 1
      try Appointment.upsert(appointment, in: connection)
      try Self.touchSeries(of: appointment, at: now, in: connection)
      return appointment
    }
  }

  // MARK: - Observing

  /// Snapshots of `query`'s window: the current one first (fetched in the same actor job that
  /// registers the observer), then a new one after each commit that changes the window.
  /// With `known`, the window as the caller already has it (`prefetchAppointments`): when no
  /// commit came since (the version is the same), it is the first snapshot and the query is
  /// not run again; otherwise the query runs as without it. After our own write of a few
  /// one-offs, the window is patched with their rows instead (`patch(_:of:with:in:)`).
  public func observeAppointments(
    _ query: AppointmentQuery,
    known: KnownWindow? = nil
  ) -> AsyncStream<AppointmentSnapshot> {
    database.observe(
      tables: [Appointment.table.name, "calendar"],
      key: \.key,
      known: known.map { ($0.items, $0.version) },
      patch: { items, rows, connection throws(StoreError) in
        try Self.patch(items, of: query, with: rows, in: connection)
      }
    ) { [self] connection throws(StoreError) in
      try fetch(query, in: connection)
    }
  }

  // MARK: - Queries

  static let displayOrder = "start_ms, end_ms, title, id"

  /// A row that is not a series: a one-off, or an override (found where it now is).
  static let isOneOff = "recurrence IS NULL AND rdates = ''"

  /// True of every row (`all_day` is 0 or 1), and part of `appointment_window`'s condition, so
  /// only a query that names it may read that index: one that reads nothing else (a `list`
  /// line's columns). SQLite's planner would otherwise take it for whole rows too, whose
  /// entries are three times the start index's: a week's rows 10% slower.
  static let lineTerm = "all_day >= 0"

  /// An override whose series is cancelled is cancelled with it: it is left out where
  /// cancelled appointments are (and marked cancelled where they are shown, by
  /// `markCancelledSeries`).
  static let seriesNotCancelled = """
    (series_id IS NULL OR NOT EXISTS (SELECT 1 FROM appointment AS master \
    WHERE master.id = appointment.series_id AND master.status = 'cancelled'))
    """

  /// The longest appointment's duration (one lookup in the length index), which bounds how
  /// far before a window a start index scan must begin.
  static func longestDuration(_ connection: any Connection) throws(StoreError) -> Int64 {
    try connection.scalar("SELECT end_ms - start_ms FROM appointment ORDER BY end_ms - start_ms DESC LIMIT 1")?
      .int64 ?? 0
  }

  /// The window query: one-offs and overrides through the start index (bounded below by the
  /// longest appointment, one lookup in the length index, so nothing scans the table), and
  /// the series that reach the window (a partial index) expanded to their occurrences in it,
  /// with their overrides (`overrideBounds` and `overrides(within:)`: two more indexed queries,
  /// however many series there are). Without a range (`list --all`) series and overrides are
  /// listed once each, as stored. `stream` reads it; this collects the chunks.
  func fetch(_ query: AppointmentQuery, in connection: any Connection) throws(StoreError) -> [Appointment] {
    var all: [Appointment] = []
    try stream(query, chunkSize: Self.streamChunkSize, boundedSlices: false, in: connection) {
      chunk throws(StoreError) in
      all += chunk
      return .more
    }
    return all
  }

  /// The indices of `rows` in display order (`displaySorted`'s), into `order` (emptied
  /// first): for a few rows (those sharing a start), read through the indices; no row is
  /// copied or moved (an `Appointment` is a few hundred bytes).
  nonisolated static func displayOrder(of rows: [Appointment], into order: inout [Int]) {
    order.removeAll(keepingCapacity: true)
    order += rows.indices
    guard rows.count > 1 else { return }
    rows.withUnsafeBufferPointer { rows in
      order.sort { a, b in
        if rows[a].start != rows[b].start { return rows[a].start < rows[b].start }
        if rows[a].end != rows[b].end { return rows[a].end < rows[b].end }
        return Appointment.displayOrder(rows[a], rows[b])
      }
    }
  }

  /// The first `limit` of `rows` (all without one) in `Appointment.displayOrder`. It sorts
  /// indices, comparing the times read once into arrays (the whole order only on a tie), and
  /// moves each row once, instead of moving whole `Appointment`s on every step of the sort.
  nonisolated static func displaySorted(_ rows: [Appointment], limit: Int?) -> [Appointment] {
    let starts = rows.map(\.start)
    let ends = rows.map(\.end)
    var order = Array(rows.indices)
    rows.withUnsafeBufferPointer { rows in
      order.sort { a, b in
        if starts[a] != starts[b] { return starts[a] < starts[b] }
        if ends[a] != ends[b] { return ends[a] < ends[b] }
        return Appointment.displayOrder(rows[a], rows[b])
      }
    }
    var sorted: [Appointment] = []
    sorted.reserveCapacity(min(limit ?? rows.count, rows.count))
    for index in order.prefix(limit ?? rows.count) { sorted.append(rows[index]) }
    return sorted
  }

  /// The series that reach a window (bound: its end, then its start): they start before its
  /// end and end after its start, or at it (a moment), or never. `appointment_series` holds both times, so the
  /// series that ended before the window are passed over in the index, their rows never read.
  nonisolated static let seriesReaching =
    "\(Schema.isSeries) AND start_ms < ? AND (series_end_ms IS NULL OR series_end_ms >= ?)"

  /// The occurrences in `range` of the series that reach it (and match `conditions`), each
  /// expanded with its overrides. Only the series `series_week` lists in the window's weeks
  /// are read (those with an instance there, and the wide ones), widened by as far as a
  /// THISANDFUTURE override moves later occurrences.
  static func seriesOccurrences(
    in range: DateInterval,
    conditions: [String],
    bindings: [SQLValue],
    includeCancelled: Bool,
    longest: Int64,
    fallbackZone: TimeZone,
    connection: any Connection
  ) throws(StoreError) -> [Appointment] {
    var slices = try SeriesSlices(
      range: range,
      conditions: conditions,
      bindings: bindings,
      includeCancelled: includeCancelled,
      longest: longest,
      fallbackZone: fallbackZone,
      sliceSize: nil,
      connection: connection
    )
    return slices.all()
  }

  /// The THISANDFUTURE overrides before a window's end (a partial index), and how far they
  /// widen the original starts that may land in the window (`lower`, `upper`, in
  /// milliseconds; without them: the window, from `longest` before it). Read before the
  /// series, because those bounds choose the weeks whose series are read.
  static func overrideBounds(for range: DateInterval, longest: Int64, connection: any Connection)
    throws(StoreError) -> (future: [Appointment], lower: Int64, upper: Int64)
  {
    let future = try DatabaseQuery<Appointment>(
      where: "range_future = 1 AND series_id IS NOT NULL AND recurrence_ms < ?",
      bindings: [.integer(range.end.millisecondsSince1970)],
      order: "recurrence_ms, id"
    ).fetch(connection)
    var lower = range.start.millisecondsSince1970 - longest
    var upper = range.end.millisecondsSince1970
    for value in future {
      guard let override = value.override else { continue }
      let shift = value.start.millisecondsSince1970 - override.recurrenceID.millisecondsSince1970
      lower = min(lower, range.start.millisecondsSince1970 - longest - max(0, shift))
      upper = max(upper, range.end.millisecondsSince1970 + max(0, -shift))
    }
    return (future, lower, upper)
  }

  /// The stored overrides a window's expansion needs, by series: the THISANDFUTURE ones of
  /// `bounds`, and those whose original start is within its bounds (another partial index).
  /// Whatever their status: an overridden occurrence is replaced even by a cancelled override.
  static func overrides(
    within bounds: (future: [Appointment], lower: Int64, upper: Int64),
    connection: any Connection
  ) throws(StoreError) -> [AppointmentID: [Appointment]] {
    let plain = try DatabaseQuery<Appointment>(
      where: "series_id IS NOT NULL AND recurrence_ms >= ? AND recurrence_ms < ?",
      bindings: [.integer(bounds.lower), .integer(bounds.upper)],
      order: "recurrence_ms, id"
    ).fetch(connection)
    var seen: Set<AppointmentID> = []
    var grouped: [AppointmentID: [Appointment]] = [:]
    for value in bounds.future + plain where seen.insert(value.id).inserted {
      guard let seriesID = value.override?.seriesID else { continue }
      grouped[seriesID, default: []].append(value)
    }
    return grouped
  }

  /// Marks cancelled the overrides in `rows` whose series is cancelled (one query).
  static func markCancelledSeries(_ rows: inout [Appointment], connection: any Connection) throws(StoreError) {
    let seriesIDs = Array(Set(rows.compactMap { $0.override?.seriesID }))
    guard !seriesIDs.isEmpty else { return }
    var cancelled: Set<String> = []
    let placeholders = Array(repeating: "?", count: seriesIDs.count).joined(separator: ", ")
    try connection.query(
      "SELECT id FROM appointment WHERE status = 'cancelled' AND id IN (\(placeholders))",
      seriesIDs.map { .text($0.description) }
    ) { row throws(StoreError) in cancelled.insert(row.string(at: 0)) }
    for index in rows.indices {
      if let seriesID = rows[index].override?.seriesID, cancelled.contains(seriesID.description) {
        rows[index].status = .cancelled
      }
    }
  }
}

// MARK: - Appointment as a stored value

extension Appointment: Persistable {
  public static let table = TableDescription(
    name: "appointment",
    columns: [
      "id", "title", "start_ms", "end_ms", "note", "status", "created_ms", "updated_ms",
      "time_zone", "all_day", "recurrence", "exceptions", "series_end_ms", "uid", "revision",
      "location", "rdates", "sequence", "series_id", "recurrence_ms", "range_future", "extras", "calendar_id",
    ],
    // The search keys (a search compares them in SQL, a row never reads them back: each read
    // column costs every row of a window) and, schema 9, how many VALARMs `extras` holds
    // (the reminder daemon's index).
    derived: ["title_folded", "note_folded", "location_folded", "alarms"]
  )

  public static func databaseValue(of id: AppointmentID) -> SQLValue { .text(id.description) }

  /// Where a row read by `init(row:)` has `series_end_ms` (`seriesEnd` as written), which the
  /// value itself does not keep.
  static let seriesEndColumn: Int32 = {
    guard let index = table.readColumns.firstIndex(of: "series_end_ms") else {
      preconditionFailure("the appointment table reads series_end_ms")
    }
    return Int32(index)
  }()

  // Every row of a window comes through here: the columns most rows leave empty, the id and
  // the status are read from the engine's bytes, with no String made for them.
  public init(row: Row) throws(StoreError) {
    func corrupt(_ reason: String) -> StoreError { Self.corrupt(row, reason) }
    let (id, status) = try Self.identity(row, id: 0, status: 5)
    let recurrence = try Self.recurrence(row, rules: 10, dates: 16)
    let override = try Self.override(row, seriesID: 18, recurrenceID: 19, thisAndFuture: 20)
    var extras = ICalendarExtras.none
    if !row.isEmptyText(at: 21) {
      do {
        extras = try JSONDecoder().decode(ICalendarExtras.self, from: Data(row.string(at: 21).utf8))
      } catch {
        throw corrupt("unreadable extras")
      }
    }
    self.init(
      id: id,
      title: row.string(at: 1),
      start: row.date(at: 2),
      end: row.date(at: 3),
      note: row.string(at: 4),
      location: row.string(at: 15),
      status: status,
      created: row.date(at: 6),
      updated: row.date(at: 7),
      timeZone: row.string(at: 8),
      isAllDay: row.int64(at: 9) != 0,
      recurrence: recurrence,
      exceptions: Self.exceptions(row, at: 11),
      uid: row.isNull(at: 13) ? nil : row.string(at: 13),
      revision: Int(row.int64(at: 14)),
      sequence: Int(row.int64(at: 17)),
      override: override,
      extras: extras,
      calendarID: row.string(at: 22)
    )
  }

  /// The columns a `list` line shows of a one-off (`AppointmentQuery.Detail.listLine`), in the
  /// order `init(lineRow:)` reads them.
  static let lineColumns = "id, title, start_ms, end_ms, status, all_day, series_id, recurrence_ms, range_future"

  /// A one-off (or override) as a `list` line shows it, from `lineColumns`: what the line
  /// prints is read, the rest is left empty (note, location, zone, uid, extras, calendar;
  /// created and updated are its start). A third of the columns, and no String for most.
  init(lineRow row: Row) throws(StoreError) {
    try self.init(
      lineHead: row,
      override: try Self.override(row, seriesID: 6, recurrenceID: 7, thisAndFuture: 8)
    )
  }

  /// The columns a `list` line needs of a series (`AppointmentQuery.Detail.listLine`), in the
  /// order `init(seriesLineRow:)` reads them: a one-off's line columns, and what expanding it
  /// takes (zone, rules, EXDATEs, RDATEs) and `series_end_ms` last. All of them, and the
  /// series condition's, are in `appointment_series` (Schema, "series window index"), so on
  /// SQLite a list's series come from that index alone.
  static let seriesLineColumns =
    "id, title, start_ms, end_ms, status, all_day, time_zone, recurrence, exceptions, rdates, series_end_ms"
  /// Where a row read by `init(seriesLineRow:)` has `series_end_ms`.
  static let seriesLineEndColumn: Int32 = 10

  /// A series as a `list` line shows its occurrences, from `seriesLineColumns`: what the
  /// lines print and what expanding them takes; the rest is left empty (note, location, uid,
  /// extras, calendar; created and updated are its start), as `init(lineRow:)` leaves it.
  init(seriesLineRow row: Row) throws(StoreError) {
    try self.init(
      lineHead: row,
      timeZone: row.string(at: 6),
      recurrence: try Self.recurrence(row, rules: 7, dates: 9),
      exceptions: Self.exceptions(row, at: 8)
    )
  }

  /// A line's appointment from the six columns both line reads start with (id, title,
  /// start_ms, end_ms, status, all_day) and what the caller read after them.
  private init(
    lineHead row: Row,
    timeZone: String = "",
    recurrence: Recurrence? = nil,
    exceptions: [Date] = [],
    override: Override? = nil
  ) throws(StoreError) {
    let (id, status) = try Self.identity(row, id: 0, status: 4)
    self.init(
      id: id,
      title: row.string(at: 1),
      start: row.date(at: 2),
      end: row.date(at: 3),
      status: status,
      created: row.date(at: 2),
      timeZone: timeZone,
      isAllDay: row.int64(at: 5) != 0,
      recurrence: recurrence,
      exceptions: exceptions,
      override: override,
      calendarID: ""
    )
  }

  /// The recurrence the RRULE and RDATE columns given describe (nil when both are empty).
  private static func recurrence(_ row: Row, rules rulesColumn: Int32, dates datesColumn: Int32)
    throws(StoreError) -> Recurrence?
  {
    var rules: [RecurrenceRule] = []
    if !row.isNull(at: rulesColumn) {
      do {
        rules = try RuleTextCache.rules(row.string(at: rulesColumn))
      } catch {
        throw corrupt(row, error.message)
      }
    }
    var dates: [RecurrenceDate] = []
    if !row.isEmptyText(at: datesColumn) {
      guard let decoded = RecurrenceDateText.decode(row.string(at: datesColumn)) else {
        throw corrupt(row, "unreadable rdates \"\(row.string(at: datesColumn))\"")
      }
      dates = decoded
    }
    return rules.isEmpty && dates.isEmpty ? nil : Recurrence(rules: rules, dates: dates)
  }

  /// The EXDATEs in the column given (milliseconds, comma-separated).
  private static func exceptions(_ row: Row, at column: Int32) -> [Date] {
    guard !row.isEmptyText(at: column) else { return [] }
    return row.string(at: column).split(separator: ",").compactMap { Int64($0) }.map(Date.init(millisecondsSince1970:))
  }

  private static func corrupt(_ row: Row, _ reason: String) -> StoreError {
    .corrupt(path: "appointment table", reason: "row \(row.string(at: 0)): \(reason)")
  }

  /// The id and status in the columns given, read from their bytes.
  private static func identity(_ row: Row, id: Int32, status: Int32) throws(StoreError) -> (AppointmentID, Status) {
    guard let value = row.withUTF8(at: id, StoredID.parse), let status = row.withUTF8(at: status, Status.init(stored:))
    else {
      throw .corrupt(path: "appointment table", reason: "unreadable row \(row.string(at: id))")
    }
    return (value, status)
  }

  /// The override the columns given describe (nil when `recurrenceID`'s is NULL).
  private static func override(
    _ row: Row,
    seriesID: Int32,
    recurrenceID: Int32,
    thisAndFuture: Int32
  ) throws(StoreError) -> Override? {
    guard !row.isNull(at: recurrenceID) else { return nil }
    var series: AppointmentID?
    if !row.isNull(at: seriesID) {
      guard let id = row.withUTF8(at: seriesID, StoredID.parse) else { throw corrupt(row, "unreadable series_id") }
      series = id
    }
    return Override(
      seriesID: series,
      recurrenceID: row.date(at: recurrenceID),
      thisAndFuture: row.int64(at: thisAndFuture) != 0
    )
  }

  public var databaseValues: [SQLValue] {
    [
      .text(id.description), .text(title), .integer(start.millisecondsSince1970), .integer(end.millisecondsSince1970),
      .text(note), .text(status.rawValue), .integer(created.millisecondsSince1970),
      .integer(updated.millisecondsSince1970), .text(timeZone), .integer(isAllDay ? 1 : 0),
      recurrence.flatMap { $0.rules.isEmpty ? nil : .text($0.rrule) } ?? .null,
      .text(exceptions.map { String($0.millisecondsSince1970) }.joined(separator: ",")),
      seriesEnd.map { .integer($0.millisecondsSince1970) } ?? .null,
      uid.map { .text($0) } ?? .null,
      .integer(Int64(revision)),
      .text(location),
      .text(RecurrenceDateText.encode(recurrence?.dates ?? [])),
      .integer(Int64(sequence)),
      override?.seriesID.map { .text($0.description) } ?? .null,
      override.map { .integer($0.recurrenceID.millisecondsSince1970) } ?? .null,
      .integer(override?.thisAndFuture == true ? 1 : 0),
      .text(Self.extrasText(extras)),
      .text(calendarID),
      // Derived: the search keys, and how many VALARMs `extras` holds.
      .text(TextSearch.folded(title)), .text(TextSearch.folded(note)), .text(TextSearch.folded(location)),
      .integer(Int64(Self.alarmBlockCount(extras.lines))),
    ]
  }

  /// `extras` as the `extras` column keeps it: JSON with sorted keys, '' when empty; what
  /// `JSONEncoder` (`.sortedKeys`, `.withoutEscapingSlashes`) writes for `ICalendarExtras`,
  /// and `JSONDecoder` reads back, written by hand: every saved row makes one, and the
  /// encoder cost more than the rest of the row together (ExtrasJSONTests holds them equal).
  static func extrasText(_ extras: ICalendarExtras) -> String {
    guard !extras.isEmpty else { return "" }
    var json = ExtrasJSON()
    json.object { json in
      if let asRead = extras.asRead {
        json.key("asRead")
        json.array(asRead) { json, item in
          json.object { json in
            json.field("lines", item.lines)
            json.field("meaning", item.meaning)
            json.field("name", item.name)
          }
        }
      }
      if let derivedEnd = extras.derivedEnd { json.field("derivedEnd", derivedEnd.timeIntervalSinceReferenceDate) }
      if let endLine = extras.endLine { json.field("endLine", endLine) }
      json.field("lines", extras.lines)
      json.field("zoneDefinition", extras.zoneDefinition)
      if let zoneID = extras.zoneID { json.field("zoneID", zoneID) }
    }
    return json.text
  }

  /// No occurrence of a series ends after this; nil for a series without end (and a one-off).
  var seriesEnd: Date? {
    guard let recurrence else { return nil }
    return recurrence.seriesEnd(start: start, duration: duration, zone: zone(fallback: .gmt), allDay: isAllDay)
  }
}

/// The rules of the `recurrence` texts read lately: many series share one (`FREQ=WEEKLY;
/// BYDAY=MO`), and parsing is most of what decoding a series row costs. Bounded: it starts
/// over past `capacity` texts. Shared by every connection of the process (a lock: rows are
/// decoded on the database actor, but `init(row:)` is not isolated to it).
enum RuleTextCache {
  static let capacity = 8192
  private static let parsed = Locked<[String: [RecurrenceRule]]>([:])

  /// What `Recurrence(rrule:)` reads from `text` (its error when it cannot).
  static func rules(_ text: String) throws(CommandError) -> [RecurrenceRule] {
    if let rules = parsed.withLock({ $0[text] }) { return rules }
    let rules = try Recurrence(rrule: text).rules
    parsed.withLock { cache in
      if cache.count >= capacity { cache.removeAll(keepingCapacity: true) }
      cache[text] = rules
    }
    return rules
  }
}

extension Appointment.Status {
  /// The status a row's bytes spell; nil for anything else.
  init?(stored bytes: UnsafeBufferPointer<UInt8>) {
    func spells(_ word: StaticString) -> Bool {
      guard bytes.count == word.utf8CodeUnitCount, let base = bytes.baseAddress else { return false }
      return memcmp(base, word.utf8Start, bytes.count) == 0
    }
    if spells("scheduled") {
      self = .scheduled
    } else if spells("cancelled") {
      self = .cancelled
    } else {
      return nil
    }
  }
}

/// Ids as the store writes them (`AppointmentID.description`: 36 characters, lower-case hex
/// and dashes), read without Foundation's `UUID(uuidString:)` (sscanf per row, a few percent
/// of a window's decoding). Anything else goes to `AppointmentID(string:)`, which decides.
enum StoredID {
  static func parse(_ text: String) -> AppointmentID? {
    var text = text
    return text.withUTF8(parse)
  }

  /// `parse` on the column's bytes as the engine holds them: no String made for an id.
  static func parse(_ bytes: UnsafeBufferPointer<UInt8>) -> AppointmentID? {
    if bytes.count == 36, let base = bytes.baseAddress,
      base[8] == dash, base[13] == dash, base[18] == dash, base[23] == dash
    {
      // Straight-line over the 16 digit pairs of `8-4-4-4-12`: a loop over a table of
      // offsets cost about 600 instructions an id, the most of any one function in a
      // week's `list` at 1M. Any byte that is not a lower-case hex digit leaves a bit
      // above the pair's eight (`pair`), collected in `stray`.
      let p = (
        pair(base, 0), pair(base, 2), pair(base, 4), pair(base, 6), pair(base, 9), pair(base, 11),
        pair(base, 14), pair(base, 16), pair(base, 19), pair(base, 21), pair(base, 24), pair(base, 26),
        pair(base, 28), pair(base, 30), pair(base, 32), pair(base, 34)
      )
      let stray =
        p.0 | p.1 | p.2 | p.3 | p.4 | p.5 | p.6 | p.7 | p.8 | p.9 | p.10 | p.11 | p.12 | p.13 | p.14 | p.15
      if stray & 0xFF00 == 0 {
        func byte(_ pair: UInt16) -> UInt8 { UInt8(truncatingIfNeeded: pair) }
        let value: uuid_t = (
          byte(p.0), byte(p.1), byte(p.2), byte(p.3), byte(p.4), byte(p.5), byte(p.6), byte(p.7),
          byte(p.8), byte(p.9), byte(p.10), byte(p.11), byte(p.12), byte(p.13), byte(p.14), byte(p.15)
        )
        return AppointmentID(UUID(uuid: value))
      }
    }
    return AppointmentID(string: String(decoding: bytes, as: UTF8.self))
  }

  private static let dash = UInt8(ascii: "-")

  /// The byte of the two digits at `offset`, with a bit above its eight for a stray digit.
  @inline(__always)
  private static func pair(_ base: UnsafePointer<UInt8>, _ offset: Int) -> UInt16 {
    let high = UInt16(nibble(base[offset]))
    let low = UInt16(nibble(base[offset + 1]))
    return high << 4 | low | (low & 0xF0) << 4
  }

  /// The value of a lower-case hex digit; 0xFF for any other byte.
  @inline(__always)
  private static func nibble(_ character: UInt8) -> UInt8 {
    let digit = character &- UInt8(ascii: "0")
    if digit < 10 { return digit }
    let letter = character &- UInt8(ascii: "a")
    return letter < 6 ? letter + 10 : 0xFF
  }
}
