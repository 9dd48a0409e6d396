// The engine's tests run against two stores: this one in memory, which keeps the DAO's
// contract as the sync needs it (items by sync key, base texts, apply with import semantics
// and conflicts), and the real AppointmentDAO on SQLite. `TestStore` is what a test does to
// either: local edits as a user makes them, and what is there afterwards.

import ApptCalDAV
import ApptCore
import ApptStore
import ApptSync
import Foundation
import Testing

/// What the tests do to a store.
protocol TestStore: Sendable {
  var store: any SyncStore { get }
  /// Adds a one-off appointment to the calendar named `calendar`; its sync key.
  func addLocal(_ calendar: String, title: String, day: Int) async throws -> String
  func editLocal(_ calendar: String, uid: String, title: String) async throws
  func deleteLocal(_ calendar: String, uid: String) async throws
  /// The calendar's appointments: sync key -> title.
  func titles(_ calendar: String) async throws -> [String: String]
  func conflictCount() async throws -> Int
  /// The id of the calendar's event with sync key `uid` (its master), if it holds one.
  func id(_ calendar: String, uid: String) async throws -> AppointmentID?
}

let testZone = TimeZone(identifier: "Europe/Berlin") ?? .current
let testClock = Clock.fixed(Date(timeIntervalSince1970: 1_796_000_000), timeZone: testZone)

func start(day: Int) -> Date { Date(timeIntervalSince1970: 1_796_000_000 + Double(day) * 86_400) }

actor FakeStore: SyncStore, TestStore {
  nonisolated var store: any SyncStore { self }
  private var calendars = [CalendarInfo(id: CalendarRules.personalID, name: CalendarRules.defaultName)]
  private var rows: [String: [String: [Appointment]]] = [:]
  private var items: [String: [String: SyncItem]] = [:]
  /// What `recordPushing` noted, by calendar and uid.
  private var pushes: [String: [String: String]] = [:]
  private var tokens: [String: String] = [:]
  private(set) var conflicts: [(uid: String, ics: String)] = []

  private func ics(_ rows: [Appointment]) -> String {
    ICalendar.write(rows, fallbackZone: testZone)
  }

  private func calendarID(named name: String) throws -> String {
    guard let found = calendars.first(where: { $0.name == name }) else {
      throw StoreError.invalidRequest(message: "no \(name)")
    }
    return found.id
  }

  // MARK: - SyncStore

  func remoteCalendar(account: String, url: String, displayName: String, color: String?) throws(StoreError)
    -> CalendarInfo?
  {
    if let index = calendars.firstIndex(where: { $0.account == account && $0.remoteURL == url }) {
      return calendars[index]
    }
    let calendar = CalendarInfo(
      id: UUID().uuidString.lowercased(),
      name: "\(account)/\(displayName)",
      color: color ?? "blue",
      source: "caldav",
      account: account,
      remoteURL: url
    )
    calendars.append(calendar)
    return calendar
  }

  func remoteCalendars(account: String) throws(StoreError) -> [CalendarInfo] {
    calendars.filter { $0.account == account }
  }

  func syncToken(calendarID: String) throws(StoreError) -> String? { tokens[calendarID] }

  func setSyncToken(calendarID: String, token: String?, syncedAt: Date?) throws(StoreError) {
    tokens[calendarID] = token
  }

  func syncItems(calendarID: String) throws(StoreError) -> [SyncItem] {
    (items[calendarID] ?? [:]).values.sorted { $0.uid < $1.uid }
  }

  func localItems(calendarID: String) throws(StoreError) -> [LocalItem] {
    (rows[calendarID] ?? [:]).sorted { $0.key < $1.key }.map {
      LocalItem(uid: $0.key, rows: $0.value, ics: ics($0.value))
    }
  }

  func localItem(calendarID: String, uid: String) throws(StoreError) -> LocalItem? {
    rows[calendarID]?[uid].map { LocalItem(uid: uid, rows: $0, ics: ics($0)) }
  }

  func applyServerItem(
    calendarID: String,
    uid: String,
    appointments: [Appointment],
    href: String,
    etag: String?,
    conflictIfChanged: Bool
  ) throws(StoreError) -> ApplyOutcome {
    // An event is (calendar, UID): the same UID in another calendar is another event.
    let old = rows[calendarID]?[uid]
    var new: [Appointment] = []
    let masterID = old?.first { $0.override == nil }?.id ?? AppointmentID()
    for var appointment in appointments {
      let previous = old?.first { $0.override?.recurrenceID == appointment.override?.recurrenceID }
      appointment.id = appointment.override == nil ? masterID : previous?.id ?? AppointmentID()
      if appointment.override != nil { appointment.override?.seriesID = masterID }
      if let previous { appointment.created = previous.created }
      appointment.calendarID = calendarID
      new.append(appointment)
    }
    new.sort { a, b in
      switch (a.override, b.override) {
      case (nil, _): return true
      case (_, nil): return false
      case (let x?, let y?): return x.recurrenceID < y.recurrenceID
      }
    }
    let outcome: ApplyOutcome
    if let old, ics(old) == ics(new) {
      outcome = .unchanged
      new = old
    } else {
      outcome = old == nil ? .added : .changed
      if conflictIfChanged, let old { conflicts.append((uid, ics(old))) }
    }
    rows[calendarID, default: [:]][uid] = new
    pushes[calendarID]?[uid] = nil
    items[calendarID, default: [:]][uid] = SyncItem(
      calendarID: calendarID,
      uid: uid,
      href: href,
      etag: etag,
      base: ics(new)
    )
    return outcome
  }

  func moveServerItem(uid: String, from: String, to: String, conflictIfChanged: Bool) throws(StoreError) -> Bool {
    items[from]?[uid] = nil
    pushes[from]?[uid] = nil
    guard let old = rows[from]?[uid], let arrived = rows[to]?[uid] else { return false }
    rows[from]?[uid] = nil
    let masterID = old.first { $0.override == nil }?.id ?? AppointmentID()
    let moved = arrived.map { row in
      var row = row
      let previous = old.first { $0.override?.recurrenceID == row.override?.recurrenceID }
      row.id = row.override == nil ? masterID : previous?.id ?? row.id
      if row.override != nil { row.override?.seriesID = masterID }
      return row
    }
    if conflictIfChanged, ics(old) != ics(arrived) { conflicts.append((uid, ics(old))) }
    rows[to]?[uid] = moved
    items[to]?[uid]?.base = ics(moved)
    return true
  }

  func removeServerItem(calendarID: String, uid: String) throws(StoreError) {
    rows[calendarID]?[uid] = nil
    items[calendarID]?[uid] = nil
    pushes[calendarID]?[uid] = nil
  }

  func recordPushing(calendarID: String, uid: String, ics: String) throws(StoreError) {
    pushes[calendarID, default: [:]][uid] = ics
  }

  func pushesInFlight(calendarID: String) throws(StoreError) -> [String: String] {
    pushes[calendarID] ?? [:]
  }

  func recordPushed(calendarID: String, uid: String, href: String, etag: String?, base: String) throws(StoreError) {
    pushes[calendarID]?[uid] = nil
    items[calendarID, default: [:]][uid] = SyncItem(
      calendarID: calendarID,
      uid: uid,
      href: href,
      etag: etag,
      base: base
    )
  }

  func forgetItem(calendarID: String, uid: String) throws(StoreError) {
    items[calendarID]?[uid] = nil
    pushes[calendarID]?[uid] = nil
  }

  func pendingChanges(calendarID: String) throws(StoreError) -> Int {
    let local = rows[calendarID] ?? [:]
    let known = items[calendarID] ?? [:]
    let changed = local.filter { known[$0.key]?.base != ics($0.value) }.count
    return changed + known.keys.filter { local[$0] == nil }.count
  }

  // MARK: - TestStore

  func addLocal(_ calendar: String, title: String, day: Int) throws -> String {
    let id = try calendarID(named: calendar)
    let appointment = Appointment(
      title: title,
      start: start(day: day),
      end: start(day: day) + 3600,
      created: testClock.now,
      timeZone: testZone.identifier,
      calendarID: id
    )
    let uid = "\(appointment.id)@appt"
    rows[id, default: [:]][uid] = [appointment]
    return uid
  }

  func editLocal(_ calendar: String, uid: String, title: String) throws {
    let id = try calendarID(named: calendar)
    guard var row = rows[id]?[uid]?.first else { throw StoreError.invalidRequest(message: "no \(uid)") }
    row.title = title
    row.revision += 1
    rows[id]?[uid]?[0] = row
  }

  func deleteLocal(_ calendar: String, uid: String) throws {
    let id = try calendarID(named: calendar)
    rows[id]?[uid] = nil
  }

  func titles(_ calendar: String) throws -> [String: String] {
    let id = try calendarID(named: calendar)
    return (rows[id] ?? [:]).compactMapValues { $0.first?.title }
  }

  func conflictCount() -> Int { conflicts.count }

  func id(_ calendar: String, uid: String) throws -> AppointmentID? {
    rows[try calendarID(named: calendar)]?[uid]?.first { $0.override == nil }?.id
  }
}

/// The real store: AppointmentDAO on a private SQLite database in memory.
struct DAOTestStore: TestStore {
  let dao: AppointmentDAO
  var store: any SyncStore { DAOSyncStore(dao: dao) }

  init(location: DatabaseConfiguration.Location) {
    dao = AppointmentDAO(location: location, clock: testClock)
  }

  func rows(_ calendar: String) async throws -> [Appointment] {
    let id = try await dao.calendar(named: calendar).id
    return try await dao.getAllAppointments().filter { $0.calendarID == id }
  }

  static func key(_ appointment: Appointment) -> String { appointment.uid ?? "\(appointment.id)@appt" }

  func addLocal(_ calendar: String, title: String, day: Int) async throws -> String {
    var request = AddRequest(title: title, start: start(day: day), end: start(day: day) + 3600)
    request.calendar = calendar
    return Self.key(try await dao.addAppointment(request))
  }

  func editLocal(_ calendar: String, uid: String, title: String) async throws {
    let row = try #require(try await rows(calendar).first { Self.key($0) == uid && $0.override == nil })
    _ = try await dao.editAppointment(EditRequest(id: row.id.description, title: title))
  }

  func deleteLocal(_ calendar: String, uid: String) async throws {
    let row = try #require(try await rows(calendar).first { Self.key($0) == uid && $0.override == nil })
    _ = try await dao.deleteAppointment(id: row.id)
  }

  func titles(_ calendar: String) async throws -> [String: String] {
    let masters = try await rows(calendar).filter { $0.override == nil }
    let titles = Dictionary(masters.map { (Self.key($0), $0.title) }, uniquingKeysWith: { first, _ in first })
    #expect(titles.count == masters.count, "a sync key twice in \(calendar): \(masters.map(Self.key))")
    return titles
  }

  func conflictCount() async throws -> Int { try await dao.conflicts().count }

  func id(_ calendar: String, uid: String) async throws -> AppointmentID? {
    try await rows(calendar).first { Self.key($0) == uid && $0.override == nil }?.id
  }
}
