import ApptCore
import Foundation

// The sync state (plan15 "Store", schema 8): what a two-way sync with a CalDAV server needs
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
  /// The local master's appointment id (what `resolve ID` takes).
  public var id: AppointmentID
  /// The calendar's name.
  public var calendar: String
  public var uid: String
  /// The local version's title.
  public var title: String
  /// The local version (iCalendar text) that lost.
  public var localICS: String
  /// When the sync found it.
  public var found: Date

  public init(id: AppointmentID, calendar: String, uid: String, title: String, localICS: String, found: Date) {
    self.id = id
    self.calendar = calendar
    self.uid = uid
    self.title = title
    self.localICS = localICS
    self.found = found
  }
}

/// Which version `resolveConflict` keeps.
public enum ConflictChoice: String, Sendable, CaseIterable {
  /// The local version that lost: it replaces the item's rows and goes to the server next.
  case local
  /// The server's version, already stored: the conflict is dropped.
  case server
}

@DatabaseActor
extension AppointmentDAO {
  // MARK: - Calendars of an account

  /// The local calendar of the collection `url` of `account`: found by (account, url), else
  /// created as `ACCOUNT/Display name` (source caldav; made unique, cut to 64 characters;
  /// the server's colour, else the next of the palette). A found one's display name follows
  /// the server's (renamed when it changed, unless taken).
  public func remoteCalendar(account: String, url: String, displayName: String, color: String?)
    throws(StoreError) -> CalendarInfo
  {
    throw .invalidRequest(message: "remoteCalendar is not built yet")
  }

  /// The calendars synced from `account`, in their order.
  public func remoteCalendars(account: String) throws(StoreError) -> [CalendarInfo] {
    throw .invalidRequest(message: "remoteCalendars is not built yet")
  }

  /// Sets the calendar's sync token (nil: none, the next sync lists everything) and, when
  /// given, the time of its last good sync.
  public func setSyncToken(calendarID: String, token: String?, syncedAt: Date?) throws(StoreError) {
    throw .invalidRequest(message: "setSyncToken is not built yet")
  }

  /// The calendar's sync token from its last sync; nil when it has none.
  public func syncToken(calendarID: String) throws(StoreError) -> String? {
    throw .invalidRequest(message: "syncToken is not built yet")
  }

  // MARK: - Items

  /// What the store remembers of the calendar's resources, by uid.
  public func syncItems(calendarID: String) throws(StoreError) -> [SyncItem] {
    throw .invalidRequest(message: "syncItems is not built yet")
  }

  /// The calendar's rows grouped by sync key, ordered by key.
  public func localItems(calendarID: String) throws(StoreError) -> [LocalItem] {
    throw .invalidRequest(message: "localItems is not built yet")
  }

  /// The calendar's item with sync key `uid`; nil when it has no rows.
  public func localItem(calendarID: String, uid: String) throws(StoreError) -> LocalItem? {
    throw .invalidRequest(message: "localItem is not built yet")
  }

  /// In ONE transaction, the server's version of the item (`appointments`, as read) replaces
  /// the local rows of `uid` in the calendar, with the import's semantics: ids kept by uid +
  /// RECURRENCE-ID, `created` kept, a local row not in `appointments` deleted, the revision
  /// bumped only where something differs; an item stored under `uid` in another calendar
  /// moves here. With `conflictIfChanged`, when local rows existed and differed (the outcome
  /// is not `.unchanged`), the local version is first kept as a `SyncConflict`. Then
  /// `sync_item(uid)` = (href, etag, base: the new rows' ics).
  @discardableResult
  public func applyServerItem(
    calendarID: String,
    uid: String,
    appointments: [Appointment],
    href: String,
    etag: String?,
    conflictIfChanged: Bool
  ) throws(StoreError) -> ApplyOutcome {
    throw .invalidRequest(message: "applyServerItem is not built yet")
  }

  /// The server deleted the item and the local rows are unchanged: they and the `sync_item`
  /// go, in one transaction.
  public func removeServerItem(calendarID: String, uid: String) throws(StoreError) {
    throw .invalidRequest(message: "removeServerItem is not built yet")
  }

  /// The item was written to the server: `sync_item(uid)` = (href, etag, base).
  public func recordPushed(calendarID: String, uid: String, href: String, etag: String?, base: String)
    throws(StoreError)
  {
    throw .invalidRequest(message: "recordPushed is not built yet")
  }

  /// Drops `sync_item(uid)` only (the local rows stay).
  public func forgetItem(calendarID: String, uid: String) throws(StoreError) {
    throw .invalidRequest(message: "forgetItem is not built yet")
  }

  /// How many local changes wait for the server: local items whose ics differs from base,
  /// sync items with no local rows, and local items with no sync item.
  public func pendingChanges(calendarID: String) throws(StoreError) -> Int {
    throw .invalidRequest(message: "pendingChanges is not built yet")
  }

  // MARK: - Conflicts

  /// Every unresolved conflict, oldest first.
  public func conflicts() throws(StoreError) -> [SyncConflict] {
    throw .invalidRequest(message: "conflicts is not built yet")
  }

  /// Resolves the conflict whose id starts with `prefix`: `.server` drops it; `.local` puts
  /// the kept local version back as the item's rows (at their next revision, so the next
  /// sync sends it with If-Match), then drops it. Returns the conflict resolved.
  @discardableResult
  public func resolveConflict(id prefix: String, keep: ConflictChoice) throws(StoreError) -> SyncConflict {
    throw .invalidRequest(message: "resolveConflict is not built yet")
  }
}
