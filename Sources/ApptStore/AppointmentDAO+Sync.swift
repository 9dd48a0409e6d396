import ApptCore
import Foundation

// The sync state (schema 8): what a two-way sync with a CalDAV server needs
// to remember between runs, kept beside the appointments so one transaction changes both.
//
// Sync key: a calendar's rows group into items, one per server resource. A master (a series
// or a one-off) keys by `uid ?? "<id>@appt"` (the UID `ICalendar.write` gives a row without
// one); an override joins its series' item, or, orphaned (no series stored), keys by its own
// uid. `sync_item` holds per key the resource's href, the server's ETag and `base`: the
// item's iCalendar text as appt wrote its rows right after the last sync, so "changed
// locally" is "the text now differs from base".

/// What the store remembers of one synced resource.
public struct SyncItem: Sendable, Equatable {
  public var calendarID: String
  /// The item's sync key (its UID).
  public var uid: String
  /// The resource's path on the server, as the server spells it.
  public var href: String
  /// The server's ETag at the last sync; nil when it did not say.
  public var etag: String?
  /// The item's iCalendar as written from the local rows right after the last sync.
  public var base: String

  public init(calendarID: String, uid: String, href: String, etag: String?, base: String) {
    self.calendarID = calendarID
    self.uid = uid
    self.href = href
    self.etag = etag
    self.base = base
  }
}

/// One item of a calendar as stored locally now.
public struct LocalItem: Sendable, Equatable {
  /// The sync key.
  public var uid: String
  /// The master first (when there is one), then its overrides by recurrence id.
  public var rows: [Appointment]
  /// `ICalendar.write(rows, fallbackZone: clock.timeZone)`: the same rows give the same text.
  public var ics: String

  public init(uid: String, rows: [Appointment], ics: String) {
    self.uid = uid
    self.rows = rows
    self.ics = ics
  }
}

/// What `applyServerItem` did to the local rows.
public enum ApplyOutcome: Sendable, Equatable {
  /// There were no local rows for the key: they were created.
  case added
  /// Some local row was written, added or deleted.
  case changed
  /// The local rows were already what the server has, field for field: nothing was written.
  case unchanged
}

/// A local version of an item that lost to the server's during a sync, kept until resolved.
public struct SyncConflict: Sendable, Equatable {
  /// The conflict's own id (what `resolve ID` and `conflicts show ID` take): each local
  /// version that lost is kept apart, a second conflict on the same event beside the first.
  /// Conflicts kept before schema 13 have their event's id.
  public var id: AppointmentID
  /// The local master's appointment id: the event in conflict.
  public var appointment: AppointmentID
  /// The calendar's name.
  public var calendar: String
  public var uid: String
  /// The local version's title.
  public var title: String
  /// The local version (iCalendar text) that lost.
  public var localICS: String
  /// When the sync found it.
  public var found: Date

  public init(
    id: AppointmentID,
    appointment: AppointmentID? = nil,
    calendar: String,
    uid: String,
    title: String,
    localICS: String,
    found: Date
  ) {
    self.id = id
    self.appointment = appointment ?? id
    self.calendar = calendar
    self.uid = uid
    self.title = title
    self.localICS = localICS
    self.found = found
  }
}

@DatabaseActor
extension AppointmentDAO {
  // MARK: - Calendars of an account

  /// The local calendar of the collection `url` of `account`: found by (account, url), else
  /// created as `ACCOUNT/Display name` (source caldav; made unique with " (2)"..., cut to 64
  /// characters; the server's colour, else the next of `syncPalette`). A found one's name
  /// follows the server's display name unless the user renamed it (`remoteName` keeps the
  /// server's either way); its colour stays the user's. Nil when the user stopped syncing it
  /// (`calendar unsync`) or deleted it: the sync leaves it alone.
  public func remoteCalendar(account: String, url: String, displayName: String, color: String?)
    throws(StoreError) -> CalendarInfo?
  {
    try database.write { connection throws(StoreError) in
      guard
        try connection.scalar(
          "SELECT 1 FROM sync_skipped WHERE account = ? AND remote_url = ?",
          [.text(account), .text(url)]
        ) == nil
      else { return nil }
      let all = try Self.allCalendars(in: connection)
      let wanted = Self.remoteName(account: account, displayName: displayName, url: url)
      if var found = all.first(where: { $0.account == account && $0.remoteURL == url }) {
        let others = all.filter { $0.id != found.id }.map(\.name)
        let name = found.isNamedByUser ? found.name : Self.uniqueName(wanted, among: others)
        if name != found.name || found.remoteName != displayName {
          _ = try connection.run(
            "UPDATE calendar SET name = ?, name_folded = ?, remote_name = ? WHERE id = ?",
            [.text(name), .text(CalendarRules.folded(name)), .text(displayName), .text(found.id)]
          )
          found.name = name
          found.remoteName = displayName
        }
        return found.syncs ? found : nil
      }
      let calendar = CalendarInfo(
        id: AppointmentID().description,
        name: Self.uniqueName(wanted, among: all.map(\.name)),
        color: Self.serverColor(color) ?? Self.syncPalette[all.count % Self.syncPalette.count],
        source: "caldav",
        account: account,
        remoteURL: url,
        remoteName: displayName,
        position: (all.map(\.position).max() ?? -1) + 1
      )
      _ = try connection.run(
        """
        INSERT INTO calendar (id, name, name_folded, color, source, account, remote_url, position, remote_name)
        VALUES (?, ?, ?, ?, 'caldav', ?, ?, ?, ?)
        """,
        [
          .text(calendar.id), .text(calendar.name), .text(CalendarRules.folded(calendar.name)),
          .text(calendar.color), .text(account), .text(url), .integer(Int64(calendar.position)), .text(displayName),
        ]
      )
      return calendar
    }
  }

  /// The calendars synced from `account`, in their order.
  public func remoteCalendars(account: String) throws(StoreError) -> [CalendarInfo] {
    try database.read { connection throws(StoreError) in
      try Self.allCalendars(in: connection).filter { $0.source == "caldav" && $0.account == account }
    }
  }

  /// Sets the calendar's sync token (nil: none, the next sync lists everything) and, when
  /// `syncedAt` is given, the time of its last good sync (else that stays as it was).
  public func setSyncToken(calendarID: String, token: String?, syncedAt: Date?) throws(StoreError) {
    try database.write { connection throws(StoreError) in
      let changed = try connection.run(
        "UPDATE calendar SET sync_token = ?, synced_ms = coalesce(?, synced_ms) WHERE id = ?",
        [
          token.map { .text($0) } ?? .null, syncedAt.map { .integer($0.millisecondsSince1970) } ?? .null,
          .text(calendarID),
        ]
      )
      guard changed == 1 else { throw Self.noCalendar(calendarID) }
    }
  }

  /// The calendar's sync token from its last sync; nil when it has none.
  public func syncToken(calendarID: String) throws(StoreError) -> String? {
    try database.read { connection throws(StoreError) in
      var token: String??
      try connection.query("SELECT sync_token FROM calendar WHERE id = ?", [.text(calendarID)]) {
        row throws(StoreError) in token = .some(row.isNull(at: 0) ? nil : row.string(at: 0))
      }
      guard let token else { throw Self.noCalendar(calendarID) }
      return token
    }
  }

  // MARK: - Items

  /// What the store remembers of the calendar's resources, by uid.
  public func syncItems(calendarID: String) throws(StoreError) -> [SyncItem] {
    try database.read { connection throws(StoreError) in try Self.syncItems(calendarID: calendarID, in: connection) }
  }

  /// The calendar's rows grouped by sync key, ordered by key.
  public func localItems(calendarID: String) throws(StoreError) -> [LocalItem] {
    let zone = clock.timeZone
    return try database.read { connection throws(StoreError) in
      try Self.localItems(calendarID: calendarID, fallbackZone: zone, in: connection)
    }
  }

  static func localItems(calendarID: String, fallbackZone: TimeZone, in connection: any Connection)
    throws(StoreError) -> [LocalItem]
  {
    let rows = try DatabaseQuery<Appointment>(
      where: "calendar_id = ?",
      bindings: [.text(calendarID)],
      order: "id"
    ).fetch(connection)
    return items(of: rows, fallbackZone: fallbackZone)
  }

  /// The calendar's item with sync key `uid`; nil when it has no rows.
  public func localItem(calendarID: String, uid: String) throws(StoreError) -> LocalItem? {
    let zone = clock.timeZone
    return try database.read { connection throws(StoreError) in
      try Self.localItem(calendarID: calendarID, uid: uid, fallbackZone: zone, in: connection)
    }
  }

  /// In ONE transaction, the server's version of the item (`appointments`, as read) replaces
  /// the local rows of `uid` in the calendar, matched as `importAppointments` matches (ids
  /// kept by uid + RECURRENCE-ID or "<id>@appt", `created` kept, a row rewritten at its next
  /// revision only where a field differs) except that the server's copy wins whatever its
  /// SEQUENCE; a local row of the item that is not in `appointments` is deleted; an item
  /// with the same uid in another calendar is another event and stays. With `conflictIfChanged`, when local
  /// rows existed and differed (the outcome is not `.unchanged`), the local version is first
  /// kept as a `SyncConflict`. Then `sync_item(uid)` = (href, etag, base: the new rows' ics).
  /// `.unchanged` means the rows are field for field what they were: `localItem(...).ics` is
  /// the same text.
  @discardableResult
  public func applyServerItem(
    calendarID: String,
    uid: String,
    appointments: [Appointment],
    href: String,
    etag: String?,
    conflictIfChanged: Bool
  ) throws(StoreError) -> ApplyOutcome {
    let now = clock.now
    let zone = clock.timeZone
    return try database.write { connection throws(StoreError) in
      let before = try Self.localItem(calendarID: calendarID, uid: uid, fallbackZone: zone, in: connection)
      let (outcome, after) = try Self.replaceItem(
        calendarID: calendarID,
        uid: uid,
        with: appointments,
        at: now,
        fallbackZone: zone,
        in: connection
      )
      if conflictIfChanged, let before, outcome != .unchanged {
        try Self.saveConflict(before, calendarID: calendarID, at: now, in: connection)
      }
      try Self.record(
        SyncItem(calendarID: calendarID, uid: uid, href: href, etag: etag, base: after.ics),
        in: connection
      )
      return outcome
    }
  }

  /// The server deleted the item and the local rows are unchanged: they and the `sync_item`
  /// go, in one transaction.
  public func removeServerItem(calendarID: String, uid: String) throws(StoreError) {
    let zone = clock.timeZone
    try database.write { connection throws(StoreError) in
      if let item = try Self.localItem(calendarID: calendarID, uid: uid, fallbackZone: zone, in: connection) {
        for row in item.rows { try Self.deleteRow(row, in: connection) }
      }
      try Self.forget(calendarID: calendarID, uid: uid, in: connection)
    }
  }

  /// The server moved item `uid` from calendar `from` to `to` (another client did: a PUT
  /// there and a DELETE here, seen by one sync as a removal and an arrival). In ONE
  /// transaction the server's version that arrived in `to` (`applyServerItem` stored it, as
  /// new rows) takes the ids of the local rows of `from`, which go: the appointment keeps
  /// its id, its alarm records and what scripts know of it, and holds exactly what the
  /// server holds. With `conflictIfChanged` the local version (an edit not yet sent) is
  /// first kept as a conflict of the moved event, as when both sides change one event.
  /// `from`'s sync item goes; `to`'s base is the moved rows' text. Returns whether there was
  /// a local item to move (without, the arrival stays as it is and `from`'s sync item goes).
  @discardableResult
  public func moveServerItem(uid: String, from: String, to: String, conflictIfChanged: Bool) throws(StoreError) -> Bool
  {
    let zone = clock.timeZone
    return try database.write { connection throws(StoreError) in
      guard let before = try Self.localItem(calendarID: from, uid: uid, fallbackZone: zone, in: connection),
        let arrived = try Self.localItem(calendarID: to, uid: uid, fallbackZone: zone, in: connection),
        let synced = try Self.syncItem(calendarID: to, uid: uid, in: connection)
      else {
        try Self.forget(calendarID: from, uid: uid, in: connection)
        return false
      }
      for row in arrived.rows + before.rows { try Self.deleteRow(row, in: connection) }
      for row in Self.moved(arrived.rows, keeping: before.rows) { try Appointment.upsert(row, in: connection) }
      guard let after = try Self.localItem(calendarID: to, uid: uid, fallbackZone: zone, in: connection) else {
        throw .invalidRequest(message: "the moved item \(TextSafety.escapingControls(uid)) is not found after the move")
      }
      if conflictIfChanged, after.ics != before.ics {
        try Self.saveConflict(before, calendarID: to, at: clock.now, in: connection)
      }
      // Conflicts kept before of the event go with it.
      try connection.run(
        "UPDATE sync_conflict SET calendar_id = ? WHERE calendar_id = ? AND uid = ?",
        [.text(to), .text(from), .text(uid)]
      )
      try Self.forget(calendarID: from, uid: uid, in: connection)
      try Self.record(
        SyncItem(calendarID: to, uid: uid, href: synced.href, etag: synced.etag, base: after.ics),
        in: connection
      )
      return true
    }
  }

  /// The server's rows of a moved item with the ids of the local rows they replace: the
  /// master's, and each override's of the same RECURRENCE-ID (a revision above both); an
  /// event appt made keeps no uid, as before the move.
  nonisolated static func moved(_ arrived: [Appointment], keeping local: [Appointment]) -> [Appointment] {
    guard let master = local.first(where: { $0.override == nil }),
      arrived.contains(where: { $0.override == nil })
    else { return arrived }
    return arrived.map { row in
      var row = row
      let previous =
        row.override == nil ? master : local.first { $0.override?.recurrenceID == row.override?.recurrenceID }
      if let previous {
        row.id = previous.id
        row.revision = max(row.revision, previous.revision) + 1
      }
      if row.override != nil { row.override?.seriesID = master.id }
      if master.uid == nil, row.uid == "\(master.id)@appt" { row.uid = nil }
      return row
    }
  }

  /// The item was written to the server: `sync_item(uid)` = (href, etag, base).
  public func recordPushed(calendarID: String, uid: String, href: String, etag: String?, base: String)
    throws(StoreError)
  {
    try database.write { connection throws(StoreError) in
      try Self.record(SyncItem(calendarID: calendarID, uid: uid, href: href, etag: etag, base: base), in: connection)
    }
  }

  /// Drops `sync_item(uid)` only (the local rows stay).
  public func forgetItem(calendarID: String, uid: String) throws(StoreError) {
    try database.write { connection throws(StoreError) in
      try Self.forget(calendarID: calendarID, uid: uid, in: connection)
    }
  }

  /// How many local changes wait for the server: local items whose ics differs from base,
  /// sync items with no local rows, and local items with no sync item.
  public func pendingChanges(calendarID: String) throws(StoreError) -> Int {
    let zone = clock.timeZone
    return try database.read { connection throws(StoreError) in
      let local = try Self.localItems(calendarID: calendarID, fallbackZone: zone, in: connection)
      let known = try Self.syncItems(calendarID: calendarID, in: connection)
      let bases = Dictionary(known.map { ($0.uid, $0.base) }, uniquingKeysWith: { first, _ in first })
      let keys = Set(local.map(\.uid))
      return local.filter { bases[$0.uid] != $0.ics }.count + known.filter { !keys.contains($0.uid) }.count
    }
  }

  // MARK: - Conflicts

  /// The conflict whose id starts with `prefix`, and the item as stored now (the server's
  /// version, or what was made of it since; nil when the event is gone).
  public func conflict(id prefix: String) throws(StoreError) -> (conflict: SyncConflict, now: LocalItem?) {
    let clock = self.clock
    return try database.read { connection throws(StoreError) in
      let (conflict, calendarID) = try Self.conflict(prefix: prefix.lowercased(), in: connection)
      let now = try Self.localItem(
        calendarID: calendarID,
        uid: conflict.uid,
        fallbackZone: clock.timeZone,
        in: connection
      )
      return (conflict, now)
    }
  }

  /// The one conflict whose id starts with `key` (lower-cased), and its calendar's id.
  static func conflict(prefix key: String, in connection: any Connection) throws(StoreError)
    -> (SyncConflict, String)
  {
    let found = try conflicts(where: "c.id >= ? AND c.id < ?", [.text(key), .text(key + "~")], in: connection)
    guard let conflict = found.first else {
      throw .invalidRequest(
        message: "no conflict with id \(TextSafety.escapingControls(key)) ('appt conflicts' lists them)"
      )
    }
    guard found.count == 1 else { throw .ambiguousID(prefix: key, candidates: found.map(\.id.description)) }
    let calendarID =
      try connection.scalar("SELECT calendar_id FROM sync_conflict WHERE id = ?", [.text(conflict.id.description)])?
      .string ?? ""
    return (conflict, calendarID)
  }

  /// Every unresolved conflict, oldest first.
  public func conflicts() throws(StoreError) -> [SyncConflict] {
    try database.read { connection throws(StoreError) in try Self.conflicts(where: "TRUE", [], in: connection) }
  }

  /// Resolves the conflict whose id starts with `prefix` (4+ characters, like `resolveID`):
  /// `.server` drops it; `.local` puts the kept local version back as the item's rows (each
  /// changed row at its next revision and a SEQUENCE above the server's, so the next sync
  /// sends it with If-Match), then drops it. One transaction; returns the conflict resolved.
  @discardableResult
  public func resolveConflict(id prefix: String, keep: ConflictChoice) throws(StoreError) -> SyncConflict {
    let now = clock.now
    let clock = self.clock
    let key = prefix.lowercased()
    return try database.write { connection throws(StoreError) in
      let (conflict, calendarID) = try Self.conflict(prefix: key, in: connection)
      if keep == .local {
        let read = ICalendar.read(conflict.localICS, clock: clock, limits: .server)
        guard !read.appointments.isEmpty else {
          throw .corrupt(path: "sync_conflict table", reason: "conflict \(conflict.id): unreadable local version")
        }
        let current = try Self.localItem(
          calendarID: calendarID,
          uid: conflict.uid,
          fallbackZone: clock.timeZone,
          in: connection
        )
        var kept = read.appointments
        if let current, current.ics != conflict.localICS {
          let above = (current.rows.map(\.sequence).max() ?? 0) + 1
          for index in kept.indices { kept[index].sequence = max(kept[index].sequence, above) }
        }
        _ = try Self.replaceItem(
          calendarID: calendarID,
          uid: conflict.uid,
          with: kept,
          at: now,
          fallbackZone: clock.timeZone,
          in: connection
        )
      }
      try connection.run("DELETE FROM sync_conflict WHERE id = ?", [.text(conflict.id.description)])
      return conflict
    }
  }

  // MARK: - Building blocks

  /// The colours a new synced calendar gets in turn when the server gives none.
  nonisolated static let syncPalette = ["green", "magenta", "cyan", "yellow", "red", "blue"]

  /// `ACCOUNT/Display name`: the display name without control characters (the URL's last
  /// segment when it is blank), the whole cut to 64 characters.
  nonisolated static func remoteName(account: String, displayName: String, url: String) -> String {
    var display = String(String.UnicodeScalarView(displayName.unicodeScalars.filter { !TextSafety.isControl($0) }))
      .trimmingCharacters(in: .whitespaces)
    if display.isEmpty {
      display = url.split(separator: "/").last.map { $0.removingPercentEncoding ?? String($0) } ?? "calendar"
    }
    let name = "\(account)/\(display)".trimmingCharacters(in: .whitespaces)
    return String(name.prefix(CalendarRules.maximumNameLength)).trimmingCharacters(in: .whitespaces)
  }

  /// `name`, or `name (2)`, `name (3)`... (cut so it stays within 64 characters), the first
  /// that no name of `taken` folds to.
  nonisolated static func uniqueName(_ name: String, among taken: [String]) -> String {
    let folded = Set(taken.map(CalendarRules.folded))
    guard folded.contains(CalendarRules.folded(name)) else { return name }
    var number = 2
    while true {
      let suffix = " (\(number))"
      let candidate = String(name.prefix(CalendarRules.maximumNameLength - suffix.count)) + suffix
      if !folded.contains(CalendarRules.folded(candidate)) { return candidate }
      number += 1
    }
  }

  /// A server's colour as appt keeps it: `#rrggbb` (Apple's `#rrggbbaa` without its alpha),
  /// or a colour name; nil for anything else.
  nonisolated static func serverColor(_ color: String?) -> String? {
    guard var color = color?.trimmingCharacters(in: .whitespaces).lowercased(), !color.isEmpty else { return nil }
    if color.count == 9, color.hasPrefix("#") { color = String(color.prefix(7)) }
    do throws(CommandError) { return try CalendarRules.checkColor(color) } catch { return nil }
  }

  nonisolated static func noCalendar(_ id: String) -> StoreError {
    .invalidRequest(message: "no calendar with id \(id)")
  }

  /// The sync key of a row: a master's `uid ?? "<id>@appt"`; an override's series' key when
  /// `masters` holds its series, else the UID `ICalendar.write` gives it.
  nonisolated static func syncKey(of row: Appointment, masters: [AppointmentID: Appointment]) -> String {
    guard let override = row.override else { return row.uid ?? "\(row.id)@appt" }
    if let seriesID = override.seriesID, let series = masters[seriesID] { return syncKey(of: series, masters: [:]) }
    if let uid = row.uid { return uid }
    return "\(override.seriesID ?? row.id)@appt"
  }

  /// `rows` (of one calendar) grouped by sync key, ordered by key; in each, the master first,
  /// then the overrides by recurrence id (then id), and the text `ICalendar.write` makes of
  /// them.
  nonisolated static func items(of rows: [Appointment], fallbackZone: TimeZone) -> [LocalItem] {
    var masters: [AppointmentID: Appointment] = [:]
    for row in rows where row.override == nil { masters[row.id] = row }
    var groups: [String: [Appointment]] = [:]
    for row in rows { groups[syncKey(of: row, masters: masters), default: []].append(row) }
    return groups.keys.sorted().map { key in
      let ordered = (groups[key] ?? []).sorted { a, b in
        if (a.override == nil) != (b.override == nil) { return a.override == nil }
        let (x, y) = (a.override?.recurrenceID ?? a.start, b.override?.recurrenceID ?? b.start)
        if x != y { return x < y }
        return a.id.description < b.id.description
      }
      return LocalItem(uid: key, rows: ordered, ics: ICalendar.write(ordered, fallbackZone: fallbackZone))
    }
  }

  /// The calendar's item with key `uid`: the rows that could have that key (masters with
  /// that uid or, for "<id>@appt", that id; their overrides; overrides with that uid and
  /// their series), grouped as `items(of:)` groups a whole calendar.
  static func localItem(calendarID: String, uid: String, fallbackZone: TimeZone, in connection: any Connection)
    throws(StoreError) -> LocalItem?
  {
    let calendar = SQLValue.text(calendarID)
    var rows = try DatabaseQuery<Appointment>(
      where: "calendar_id = ? AND uid = ?",
      bindings: [calendar, .text(uid)],
      order: "id"
    ).fetch(connection)
    if uid.hasSuffix("@appt"), let id = AppointmentID(string: String(uid.dropLast(5))) {
      rows += try DatabaseQuery<Appointment>(
        where: "calendar_id = ? AND (id = ? OR series_id = ?) AND uid IS NULL",
        bindings: [calendar, .text(id.description), .text(id.description)],
        order: "id"
      ).fetch(connection)
    }
    var seen = Set(rows.map(\.id))
    // The overrides of the masters found, and the series of the overrides found.
    let masterIDs = rows.filter { $0.override == nil && $0.recurrence != nil }.map(\.id)
    let seriesIDs = rows.compactMap(\.override?.seriesID).filter { !seen.contains($0) }
    for id in masterIDs {
      for row in try DatabaseQuery<Appointment>(
        where: "calendar_id = ? AND series_id = ?",
        bindings: [calendar, .text(id.description)],
        order: "id"
      ).fetch(connection) where seen.insert(row.id).inserted {
        rows.append(row)
      }
    }
    for id in Set(seriesIDs) {
      if let series = try DatabaseService.find(Appointment.self, id: id, in: connection),
        series.calendarID == calendarID, seen.insert(series.id).inserted
      {
        rows.append(series)
      }
    }
    return items(of: rows, fallbackZone: fallbackZone).first { $0.uid == uid }
  }

  /// Replaces the rows of item `uid` of the calendar by `appointments` (`merge`, the server's
  /// copy winning whatever its SEQUENCE), deleting the item's rows none of them matched;
  /// returns what changed and the item as stored now.
  static func replaceItem(
    calendarID: String,
    uid: String,
    with appointments: [Appointment],
    at now: Date,
    fallbackZone: TimeZone,
    in connection: any Connection
  ) throws(StoreError) -> (outcome: ApplyOutcome, item: LocalItem) {
    guard !appointments.isEmpty else {
      throw .invalidRequest(message: "the server's item \(TextSafety.escapingControls(uid)) holds no event")
    }
    guard try connection.scalar("SELECT 1 FROM calendar WHERE id = ?", [.text(calendarID)]) != nil else {
      throw noCalendar(calendarID)
    }
    let before = try localItem(calendarID: calendarID, uid: uid, fallbackZone: fallbackZone, in: connection)
    let ordered = appointments.filter { $0.override == nil } + appointments.filter { $0.override != nil }
    var matched: Set<AppointmentID> = []
    var changed = false
    var existed = before != nil
    for incoming in ordered {
      let (stored, upshot) = try merge(
        incoming,
        into: calendarID,
        olderSequenceLoses: false,
        limits: .server,
        at: now,
        in: connection
      )
      matched.insert(stored.id)
      if upshot == .added || upshot == .updated { changed = true }
      if upshot == .updated || upshot == .unchanged { existed = true }
    }
    // What the item holds now (overrides that followed a moved series included), less what
    // the server's copy no longer has.
    if let now = try localItem(calendarID: calendarID, uid: uid, fallbackZone: fallbackZone, in: connection) {
      for row in now.rows where !matched.contains(row.id) {
        try deleteRow(row, in: connection)
        changed = true
      }
    }
    guard let after = try localItem(calendarID: calendarID, uid: uid, fallbackZone: fallbackZone, in: connection)
    else {
      throw .invalidRequest(message: "the server's item \(TextSafety.escapingControls(uid)) has another UID inside")
    }
    return (!existed ? .added : changed ? .changed : .unchanged, after)
  }

  static func deleteRow(_ row: Appointment, in connection: any Connection) throws(StoreError) {
    try connection.run("DELETE FROM appointment WHERE id = ?", [.text(row.id.description)])
  }

  static func syncItem(calendarID: String, uid: String, in connection: any Connection) throws(StoreError)
    -> SyncItem?
  {
    var found: SyncItem?
    try connection.query(
      "SELECT href, etag, base FROM sync_item WHERE calendar_id = ? AND uid = ?",
      [.text(calendarID), .text(uid)]
    ) { row throws(StoreError) in
      found = SyncItem(
        calendarID: calendarID,
        uid: uid,
        href: row.string(at: 0),
        etag: row.isNull(at: 1) ? nil : row.string(at: 1),
        base: row.string(at: 2)
      )
    }
    return found
  }

  static func syncItems(calendarID: String, in connection: any Connection) throws(StoreError) -> [SyncItem] {
    var items: [SyncItem] = []
    try connection.query(
      "SELECT uid, href, etag, base FROM sync_item WHERE calendar_id = ? ORDER BY uid",
      [.text(calendarID)]
    ) { row throws(StoreError) in
      items.append(
        SyncItem(
          calendarID: calendarID,
          uid: row.string(at: 0),
          href: row.string(at: 1),
          etag: row.isNull(at: 2) ? nil : row.string(at: 2),
          base: row.string(at: 3)
        )
      )
    }
    return items
  }

  /// Writes `item`; another uid of the calendar at the same href (the server reused it)
  /// gives it up.
  static func record(_ item: SyncItem, in connection: any Connection) throws(StoreError) {
    guard try connection.scalar("SELECT 1 FROM calendar WHERE id = ?", [.text(item.calendarID)]) != nil else {
      throw noCalendar(item.calendarID)
    }
    try connection.run(
      "DELETE FROM sync_item WHERE calendar_id = ? AND href = ? AND uid <> ?",
      [.text(item.calendarID), .text(item.href), .text(item.uid)]
    )
    try forgetPush(calendarID: item.calendarID, uid: item.uid, in: connection)
    try connection.run(
      """
      INSERT INTO sync_item (calendar_id, uid, href, etag, base) VALUES (?, ?, ?, ?, ?)
      ON CONFLICT (calendar_id, uid) DO UPDATE SET href = excluded.href, etag = excluded.etag, base = excluded.base
      """,
      [
        .text(item.calendarID), .text(item.uid), .text(item.href), item.etag.map { .text($0) } ?? .null,
        .text(item.base),
      ]
    )
  }

  static func forget(calendarID: String, uid: String, in connection: any Connection) throws(StoreError) {
    try connection.run("DELETE FROM sync_item WHERE calendar_id = ? AND uid = ?", [.text(calendarID), .text(uid)])
    try forgetPush(calendarID: calendarID, uid: uid, in: connection)
  }

  static func forgetPush(calendarID: String, uid: String, in connection: any Connection) throws(StoreError) {
    try connection.run("DELETE FROM sync_push WHERE calendar_id = ? AND uid = ?", [.text(calendarID), .text(uid)])
  }

  /// Notes that `ics` is about to be PUT for `uid` (before the request: its answer may never
  /// come). Recording the item (`recordPushed`, `applyServerItem`) or forgetting it drops it.
  public func recordPushing(calendarID: String, uid: String, ics: String) throws(StoreError) {
    try database.write { connection throws(StoreError) in
      try connection.run(
        """
        INSERT INTO sync_push (calendar_id, uid, ics) VALUES (?, ?, ?)
        ON CONFLICT (calendar_id, uid) DO UPDATE SET ics = excluded.ics
        """,
        [.text(calendarID), .text(uid), .text(ics)]
      )
    }
  }

  /// The texts PUT for the calendar's items whose answers were not recorded, by uid.
  public func pushesInFlight(calendarID: String) throws(StoreError) -> [String: String] {
    try database.read { connection throws(StoreError) in
      var pushes: [String: String] = [:]
      try connection.query("SELECT uid, ics FROM sync_push WHERE calendar_id = ?", [.text(calendarID)]) {
        row throws(StoreError) in pushes[row.string(at: 0)] = row.string(at: 1)
      }
      return pushes
    }
  }

  /// Keeps `item`, the local version that lost, as a conflict of its master (its first row)
  /// with an id of its own: a conflict kept before for the same event stays beside it, so no
  /// losing version is thrown away before the user settles it.
  static func saveConflict(_ item: LocalItem, calendarID: String, at now: Date, in connection: any Connection)
    throws(StoreError)
  {
    guard let first = item.rows.first else { return }
    try connection.run(
      """
      INSERT INTO sync_conflict (id, appointment_id, calendar_id, uid, title, local_ics, found_ms)
      VALUES (?, ?, ?, ?, ?, ?, ?)
      """,
      [
        .text(AppointmentID().description), .text(first.id.description), .text(calendarID), .text(item.uid),
        .text(first.title), .text(item.ics), .integer(now.millisecondsSince1970),
      ]
    )
  }

  static func conflicts(where condition: String, _ bindings: [SQLValue], in connection: any Connection)
    throws(StoreError) -> [SyncConflict]
  {
    var found: [SyncConflict] = []
    try connection.query(
      """
      SELECT c.id, coalesce(k.name, ''), c.uid, c.title, c.local_ics, c.found_ms, coalesce(c.appointment_id, c.id)
      FROM sync_conflict AS c LEFT JOIN calendar AS k ON k.id = c.calendar_id
      WHERE \(condition) ORDER BY c.found_ms, c.id LIMIT 1000
      """,
      bindings
    ) { row throws(StoreError) in
      guard let id = StoredID.parse(row.string(at: 0)), let appointment = StoredID.parse(row.string(at: 6)) else {
        throw .corrupt(path: "sync_conflict table", reason: "unreadable id \(row.string(at: 0))")
      }
      found.append(
        SyncConflict(
          id: id,
          appointment: appointment,
          calendar: row.string(at: 1),
          uid: row.string(at: 2),
          title: row.string(at: 3),
          localICS: row.string(at: 4),
          found: row.date(at: 5)
        )
      )
    }
    return found
  }
}
