import ApptCore
import Foundation

/// What `deleteCalendar` does with the appointments of the calendar it deletes.
public enum CalendarDisposal: Equatable, Sendable {
  /// Refuse while it holds any.
  case refuse
  /// Move them (a series with its overrides) to the calendar with this name.
  case moveTo(String)
  /// Delete them with it.
  case deleteAppointments
}

/// Calendars: several in one store, each appointment in one of them.
/// Names are unique as `CalendarRules.folded` folds them; every change is one transaction.
@DatabaseActor
extension AppointmentDAO {
  static let calendarColumns =
    "id, name, color, source, account, shown, position, remote_url, synced_ms, remote_name, sync_off, named_by_user"
  static let calendarOrder = "position, name_folded, id"

  static func calendar(_ row: Row) -> CalendarInfo {
    CalendarInfo(
      id: row.string(at: 0),
      name: row.string(at: 1),
      color: row.string(at: 2),
      source: row.string(at: 3),
      account: row.isNull(at: 4) ? nil : row.string(at: 4),
      remoteURL: row.isNull(at: 7) ? nil : row.string(at: 7),
      remoteName: row.isNull(at: 9) ? nil : row.string(at: 9),
      syncs: row.int64(at: 10) == 0,
      isNamedByUser: row.int64(at: 11) != 0,
      syncedAt: row.isNull(at: 8) ? nil : row.date(at: 8),
      isShown: row.int64(at: 5) != 0,
      position: Int(row.int64(at: 6))
    )
  }

  static func allCalendars(in connection: any Connection) throws(StoreError) -> [CalendarInfo] {
    var calendars: [CalendarInfo] = []
    try connection.query("SELECT \(calendarColumns) FROM calendar ORDER BY \(calendarOrder)", []) {
      row throws(StoreError) in calendars.append(calendar(row))
    }
    return calendars
  }

  /// The calendar named `name` (case ignored), or an error naming it with a did-you-mean.
  static func calendar(named name: String, in connection: any Connection) throws(StoreError) -> CalendarInfo {
    let all = try allCalendars(in: connection)
    let folded = CalendarRules.folded(name.trimmingCharacters(in: .whitespaces))
    guard let found = all.first(where: { CalendarRules.folded($0.name) == folded }) else {
      throw .invalidRequest(message: CalendarRules.unknown(name, among: all.map(\.name)))
    }
    return found
  }

  /// Where `add` puts an appointment without `--calendar`: `personal`, else the first calendar.
  static func defaultCalendarID(in connection: any Connection) throws(StoreError) -> String {
    let all = try allCalendars(in: connection)
    let personal = all.first { CalendarRules.folded($0.name) == CalendarRules.defaultName }
    guard let found = personal ?? all.first else {
      throw .corrupt(path: "calendar table", reason: "no calendar at all")
    }
    return found.id
  }

  /// Puts `appointment` in its calendar before a write: an override in its stored series'
  /// calendar, a value not placed yet in the default one; a calendar that is gone is refused.
  /// `known`: a calendar known to exist, which an appointment without one goes in.
  static func place(
    _ appointment: inout Appointment,
    in connection: any Connection,
    known: String? = nil
  ) throws(StoreError) {
    if let seriesID = appointment.override?.seriesID,
      let calendar = try connection.scalar(
        "SELECT calendar_id FROM appointment WHERE id = ?",
        [.text(seriesID.description)]
      )?.string
    {
      appointment.calendarID = calendar
      return
    }
    if appointment.calendarID.isEmpty {
      if let known {
        appointment.calendarID = known
      } else {
        appointment.calendarID = try defaultCalendarID(in: connection)
      }
      return
    }
    if appointment.calendarID == known { return }
    guard try connection.scalar("SELECT 1 FROM calendar WHERE id = ?", [.text(appointment.calendarID)]) != nil else {
      throw .invalidRequest(message: "the calendar of \"\(appointment.title.prefix(40))\" no longer exists")
    }
  }

  /// After a write of a series: its overrides go where it is.
  static func moveOverrides(of series: Appointment, in connection: any Connection) throws(StoreError) {
    guard series.recurrence != nil, series.override == nil else { return }
    _ = try connection.run(
      "UPDATE appointment SET calendar_id = ? WHERE series_id = ? AND calendar_id <> ?",
      [.text(series.calendarID), .text(series.id.description), .text(series.calendarID)]
    )
  }

  /// The ids of the calendars a query is limited to, or nil when it takes them all: `names`
  /// (each must exist), and with `onlyShown` the shown ones among them (or among all).
  static func calendarFilter(names: [String]?, onlyShown: Bool, in connection: any Connection) throws(StoreError)
    -> [String]?
  {
    guard names != nil || onlyShown else { return nil }
    let all = try allCalendars(in: connection)
    var chosen = all
    if let names {
      var ids: Set<String> = []
      for name in names { ids.insert(try calendar(named: name, in: connection).id) }
      chosen = all.filter { ids.contains($0.id) }
    }
    if onlyShown { chosen = chosen.filter(\.isShown) }
    return chosen.count == all.count ? nil : chosen.map(\.id)
  }

  /// The SQL condition for `calendarFilter`'s ids (no row can match an empty list).
  nonisolated static func calendarCondition(_ ids: [String]) -> (condition: String, bindings: [SQLValue]) {
    guard !ids.isEmpty else { return ("calendar_id IS NULL", []) }
    let marks = Array(repeating: "?", count: ids.count).joined(separator: ", ")
    return ("calendar_id IN (\(marks))", ids.map { .text($0) })
  }

  // MARK: - Public

  /// Every calendar, in their order; with `counts`, how many appointments each holds.
  public func calendars(counts: Bool = false) throws(StoreError) -> [CalendarInfo] {
    try database.read { connection throws(StoreError) in
      var all = try Self.allCalendars(in: connection)
      guard counts else { return all }
      var byID: [String: Int] = [:]
      // One-offs from `appointment_by_calendar` alone, series through `appointment_series`.
      for kind in [AppointmentDAO.isOneOff, Schema.isSeries] {
        try connection.query("SELECT calendar_id, count(*) FROM appointment WHERE \(kind) GROUP BY calendar_id", []) {
          row throws(StoreError) in byID[row.string(at: 0), default: 0] += Int(row.int64(at: 1))
        }
      }
      for index in all.indices { all[index].count = byID[all[index].id] ?? 0 }
      return all
    }
  }

  /// The calendar named `name` (case ignored).
  public func calendar(named name: String) throws(StoreError) -> CalendarInfo {
    try database.read { connection throws(StoreError) in try Self.calendar(named: name, in: connection) }
  }

  /// Live calendars: the current list first, then one after each commit that changes it (by
  /// this process or another).
  public func observeCalendars() -> AsyncStream<CollectionSnapshot<CalendarInfo>> {
    database.observe(tables: ["calendar"], key: \.id) { connection throws(StoreError) in
      try Self.allCalendars(in: connection)
    }
  }

  @discardableResult
  public func addCalendar(name: String, color: String? = nil) throws(StoreError) -> CalendarInfo {
    let name = try Self.checked { () throws(CommandError) in try CalendarRules.checkName(name) }
    let color = try Self.checked { () throws(CommandError) in try CalendarRules.checkColor(color ?? "blue") }
    return try database.write { connection throws(StoreError) in
      let all = try Self.allCalendars(in: connection)
      if let same = all.first(where: { CalendarRules.folded($0.name) == CalendarRules.folded(name) }) {
        throw .invalidRequest(message: "calendar \(Self.quoted(same.name)) exists already")
      }
      let calendar = CalendarInfo(
        id: AppointmentID().description,
        name: name,
        color: color,
        position: (all.map(\.position).max() ?? -1) + 1
      )
      _ = try connection.run(
        "INSERT INTO calendar (id, name, name_folded, color, position) VALUES (?, ?, ?, ?, ?)",
        [
          .text(calendar.id), .text(name), .text(CalendarRules.folded(name)), .text(color),
          .integer(Int64(calendar.position)),
        ]
      )
      return calendar
    }
  }

  @discardableResult
  public func renameCalendar(_ old: String, to new: String) throws(StoreError) -> CalendarInfo {
    let new = try Self.checked { () throws(CommandError) in try CalendarRules.checkName(new) }
    return try database.write { connection throws(StoreError) in
      var calendar = try Self.calendar(named: old, in: connection)
      let all = try Self.allCalendars(in: connection)
      if let same = all.first(where: { CalendarRules.folded($0.name) == CalendarRules.folded(new) }),
        same.id != calendar.id
      {
        throw .invalidRequest(message: "calendar \(Self.quoted(same.name)) exists already")
      }
      // A synced calendar's new name is the user's: a sync no longer renames it.
      let synced = calendar.source == "caldav"
      _ = try connection.run(
        "UPDATE calendar SET name = ?, name_folded = ?, named_by_user = ? WHERE id = ?",
        [.text(new), .text(CalendarRules.folded(new)), .integer(synced ? 1 : 0), .text(calendar.id)]
      )
      calendar.name = new
      calendar.isNamedByUser = synced
      return calendar
    }
  }

  @discardableResult
  public func setCalendarColor(_ name: String, _ color: String) throws(StoreError) -> CalendarInfo {
    let color = try Self.checked { () throws(CommandError) in try CalendarRules.checkColor(color) }
    return try database.write { connection throws(StoreError) in
      var calendar = try Self.calendar(named: name, in: connection)
      _ = try connection.run("UPDATE calendar SET color = ? WHERE id = ?", [.text(color), .text(calendar.id)])
      calendar.color = color
      return calendar
    }
  }

  /// Shows or hides a calendar; kept in the store, so it stays so across restarts.
  @discardableResult
  public func setCalendarShown(_ name: String, _ shown: Bool) throws(StoreError) -> CalendarInfo {
    try database.write { connection throws(StoreError) in
      var calendar = try Self.calendar(named: name, in: connection)
      guard calendar.isShown != shown else { return calendar }
      _ = try connection.run(
        "UPDATE calendar SET shown = ? WHERE id = ?",
        [.integer(shown ? 1 : 0), .text(calendar.id)]
      )
      calendar.isShown = shown
      return calendar
    }
  }

  /// Stops or starts syncing the synced calendar `name` (its events and what the sync knows
  /// of them stay: a sync started again sends what changed meanwhile). `name` may also be a
  /// synced calendar the user deleted: syncing it again lets the next sync bring it back.
  public func setCalendarSyncs(_ name: String, _ syncs: Bool) throws(StoreError) -> CalendarInfo {
    try database.write { connection throws(StoreError) in
      let all = try Self.allCalendars(in: connection)
      let folded = CalendarRules.folded(name.trimmingCharacters(in: .whitespaces))
      guard var calendar = all.first(where: { CalendarRules.folded($0.name) == folded }) else {
        if syncs, let skipped = try Self.skippedCalendar(named: name, in: connection) { return skipped }
        throw .invalidRequest(message: CalendarRules.unknown(name, among: all.map(\.name)))
      }
      guard calendar.source == "caldav" else {
        throw .invalidRequest(message: "calendar \(Self.quoted(calendar.name)) is not synced with a server")
      }
      guard calendar.syncs != syncs else { return calendar }
      _ = try connection.run(
        "UPDATE calendar SET sync_off = ? WHERE id = ?",
        [.integer(syncs ? 0 : 1), .text(calendar.id)]
      )
      calendar.syncs = syncs
      return calendar
    }
  }

  /// The deleted synced calendar once named `name`, made syncable again (its mark removed).
  private static func skippedCalendar(named name: String, in connection: any Connection) throws(StoreError)
    -> CalendarInfo?
  {
    var found: CalendarInfo?
    try connection.query("SELECT account, remote_url, name FROM sync_skipped ORDER BY account, remote_url", []) {
      row throws(StoreError) in
      let wanted = CalendarRules.folded(name.trimmingCharacters(in: .whitespaces))
      guard found == nil, CalendarRules.folded(row.string(at: 2)) == wanted else { return }
      found = CalendarInfo(
        id: "",
        name: row.string(at: 2),
        source: "caldav",
        account: row.string(at: 0),
        remoteURL: row.string(at: 1)
      )
    }
    guard let found, let account = found.account, let url = found.remoteURL else { return nil }
    try connection.run(
      "DELETE FROM sync_skipped WHERE account = ? AND remote_url = ?",
      [.text(account), .text(url)]
    )
    return found
  }

  /// Deletes a calendar, in one transaction with what `disposal` does with its appointments;
  /// refused while it holds some (`.refuse`), and for the last calendar. Returns it, with
  /// `count` the number of appointments moved or deleted.
  @discardableResult
  public func deleteCalendar(_ name: String, disposal: CalendarDisposal) throws(StoreError) -> CalendarInfo {
    let now = clock.now
    return try database.write { connection throws(StoreError) in
      var calendar = try Self.calendar(named: name, in: connection)
      let all = try Self.allCalendars(in: connection)
      guard all.count > 1 else {
        throw .invalidRequest(message: "calendar \(Self.quoted(calendar.name)) is the only one; it cannot be deleted")
      }
      let held =
        try connection.scalar(
          "SELECT count(*) FROM appointment WHERE calendar_id = ?",
          [.text(calendar.id)]
        )?.int64 ?? 0
      switch disposal {
      case .refuse:
        if held > 0 {
          throw .invalidRequest(
            message: "calendar \(Self.quoted(calendar.name)) holds \(held) appointment\(held == 1 ? "" : "s");"
              + " give --move-to OTHER or --with-appointments"
          )
        }
      case .moveTo(let other):
        let target = try Self.calendar(named: other, in: connection)
        guard target.id != calendar.id else {
          throw .invalidRequest(message: "--move-to \(Self.quoted(other)) is the calendar being deleted")
        }
        if let uid = try connection.scalar(
          """
          SELECT a.uid FROM appointment a JOIN appointment b
            ON b.uid = a.uid AND coalesce(b.recurrence_ms, -1) = coalesce(a.recurrence_ms, -1)
          WHERE a.calendar_id = ? AND b.calendar_id = ? LIMIT 1
          """,
          [.text(calendar.id), .text(target.id)]
        )?.string {
          throw .invalidRequest(
            message: "\(Self.quoted(calendar.name)) and \(Self.quoted(target.name)) both hold the event with UID"
              + " \(TextSafety.escapingControls(uid)); delete one copy first: nothing changed"
          )
        }
        // Each moved row is written at its next revision: a sync sends it to its new place.
        _ = try connection.run(
          "UPDATE appointment SET calendar_id = ?, revision = revision + 1, updated_ms = ? WHERE calendar_id = ?",
          [.text(target.id), .integer(now.millisecondsSince1970), .text(calendar.id)]
        )
      case .deleteAppointments:
        _ = try connection.run("DELETE FROM appointment WHERE calendar_id = ?", [.text(calendar.id)])
      }
      _ = try connection.run("DELETE FROM calendar WHERE id = ?", [.text(calendar.id)])
      // A synced calendar the user deleted stays deleted: the next sync does not bring it back.
      if calendar.source == "caldav", let account = calendar.account, let url = calendar.remoteURL {
        try connection.run(
          """
          INSERT INTO sync_skipped (account, remote_url, name) VALUES (?, ?, ?)
          ON CONFLICT (account, remote_url) DO UPDATE SET name = excluded.name
          """,
          [.text(account), .text(url), .text(calendar.name)]
        )
      }
      calendar.count = Int(held)
      return calendar
    }
  }

  private static func checked<T>(_ body: () throws(CommandError) -> T) throws(StoreError) -> T {
    do throws(CommandError) { return try body() } catch { throw .invalidRequest(message: error.message) }
  }

  nonisolated static func quoted(_ name: String) -> String {
    "\"\(TextSafety.escapingControls(name))\""
  }
}
