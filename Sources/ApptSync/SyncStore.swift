// What the engine needs of the store: the DAO's sync API (ApptStore's
// AppointmentDAO+Sync.swift) as a protocol, so the engine runs against the real store and,
// in tests, against a fake one. Every call that changes something is one transaction.

public import ApptCore
public import ApptStore
public import Foundation

public protocol SyncStore: Sendable {
  /// The local calendar of a remote one, made (`ACCOUNT/Display name`) the first time; nil
  /// when the user stopped syncing it or deleted it.
  func remoteCalendar(account: String, url: String, displayName: String, color: String?) async throws(StoreError)
    -> CalendarInfo?
  /// The account's calendars that a sync made.
  func remoteCalendars(account: String) async throws(StoreError) -> [CalendarInfo]
  func syncToken(calendarID: String) async throws(StoreError) -> String?
  func setSyncToken(calendarID: String, token: String?, syncedAt: Date?) async throws(StoreError)

  func syncItems(calendarID: String) async throws(StoreError) -> [SyncItem]
  func localItems(calendarID: String) async throws(StoreError) -> [LocalItem]
  func localItem(calendarID: String, uid: String) async throws(StoreError) -> LocalItem?
  /// The server's version replaces the local rows of `uid` (the local version saved as a
  /// conflict first when `conflictIfChanged` and it differed); then the sync item is recorded.
  func applyServerItem(
    calendarID: String,
    uid: String,
    appointments: [Appointment],
    href: String,
    etag: String?,
    conflictIfChanged: Bool
  ) async throws(StoreError) -> ApplyOutcome
  /// The server moved the item between two of the account's calendars: the local rows move
  /// and take the version that arrived (keeping their ids); an unsent local edit is kept as
  /// a conflict. False when `from` held no local rows of it.
  func moveServerItem(uid: String, from: String, to: String, conflictIfChanged: Bool) async throws(StoreError) -> Bool
  /// The server deleted it and the local rows are unchanged: rows and sync item go.
  func removeServerItem(calendarID: String, uid: String) async throws(StoreError)
  func recordPushed(calendarID: String, uid: String, href: String, etag: String?, base: String) async throws(StoreError)
  /// Drops the sync item only.
  func forgetItem(calendarID: String, uid: String) async throws(StoreError)
  /// Notes the text about to be PUT for `uid`; recording or forgetting the item drops it.
  func recordPushing(calendarID: String, uid: String, ics: String) async throws(StoreError)
  /// The texts PUT whose answers were not recorded, by uid.
  func pushesInFlight(calendarID: String) async throws(StoreError) -> [String: String]
  func pendingChanges(calendarID: String) async throws(StoreError) -> Int
}
