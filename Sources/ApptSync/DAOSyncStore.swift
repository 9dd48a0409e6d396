public import ApptCore
public import ApptStore
public import Foundation

/// The real store as the engine's `SyncStore`: each call one of AppointmentDAO's sync methods
/// (each a transaction of its own on the DatabaseActor).
public struct DAOSyncStore: SyncStore {
  public let dao: AppointmentDAO

  public init(dao: AppointmentDAO) { self.dao = dao }

  public func remoteCalendar(account: String, url: String, displayName: String, color: String?) async throws(StoreError)
    -> CalendarInfo?
  {
    try await dao.remoteCalendar(account: account, url: url, displayName: displayName, color: color)
  }

  public func remoteCalendars(account: String) async throws(StoreError) -> [CalendarInfo] {
    try await dao.remoteCalendars(account: account)
  }

  public func syncToken(calendarID: String) async throws(StoreError) -> String? {
    try await dao.syncToken(calendarID: calendarID)
  }

  public func setSyncToken(calendarID: String, token: String?, syncedAt: Date?) async throws(StoreError) {
    try await dao.setSyncToken(calendarID: calendarID, token: token, syncedAt: syncedAt)
  }

  public func syncItems(calendarID: String) async throws(StoreError) -> [SyncItem] {
    try await dao.syncItems(calendarID: calendarID)
  }

  public func localItems(calendarID: String) async throws(StoreError) -> [LocalItem] {
    try await dao.localItems(calendarID: calendarID)
  }

  public func localItem(calendarID: String, uid: String) async throws(StoreError) -> LocalItem? {
    try await dao.localItem(calendarID: calendarID, uid: uid)
  }

  public func applyServerItem(
    calendarID: String,
    uid: String,
    appointments: [Appointment],
    href: String,
    etag: String?,
    conflictIfChanged: Bool
  ) async throws(StoreError) -> ApplyOutcome {
    try await dao.applyServerItem(
      calendarID: calendarID,
      uid: uid,
      appointments: appointments,
      href: href,
      etag: etag,
      conflictIfChanged: conflictIfChanged
    )
  }

  public func moveServerItem(uid: String, from: String, to: String, conflictIfChanged: Bool) async throws(StoreError)
    -> Bool
  {
    try await dao.moveServerItem(uid: uid, from: from, to: to, conflictIfChanged: conflictIfChanged)
  }

  public func removeServerItem(calendarID: String, uid: String) async throws(StoreError) {
    try await dao.removeServerItem(calendarID: calendarID, uid: uid)
  }

  public func recordPushed(calendarID: String, uid: String, href: String, etag: String?, base: String)
    async throws(StoreError)
  {
    try await dao.recordPushed(calendarID: calendarID, uid: uid, href: href, etag: etag, base: base)
  }

  public func recordPushing(calendarID: String, uid: String, ics: String) async throws(StoreError) {
    try await dao.recordPushing(calendarID: calendarID, uid: uid, ics: ics)
  }

  public func pushesInFlight(calendarID: String) async throws(StoreError) -> [String: String] {
    try await dao.pushesInFlight(calendarID: calendarID)
  }

  public func forgetItem(calendarID: String, uid: String) async throws(StoreError) {
    try await dao.forgetItem(calendarID: calendarID, uid: uid)
  }

  public func pendingChanges(calendarID: String) async throws(StoreError) -> Int {
    try await dao.pendingChanges(calendarID: calendarID)
  }
}
