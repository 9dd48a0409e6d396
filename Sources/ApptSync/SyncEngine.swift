// The two-way sync of one CalDAV account: discovery, then per calendar a
// pull (what changed on the server since the last token, else an ETag listing) and a push
// (local creates, edits and deletes under If-None-Match / If-Match).
//
// Three-way: each item's last-synced ETag and content (`base`) say which side changed. Every
// item's local change is one store transaction and the sync token is written after the items
// it covers, so a sync cut anywhere (kill -9, a lost connection, a 5xx) leaves a state the next
// one finishes: an answer that never came is found again by the item's UID, never duplicated.

public import ApptCalDAV
public import ApptCore
public import ApptStore
public import Foundation

/// What one calendar's sync did (a line of `appt sync`, an object of `--json`).
public struct CalendarSummary: Sendable, Equatable {
  public var account: String
  /// The local calendar's name (`ACCOUNT/Display name`); nil when the account failed before
  /// any calendar was known.
  public var calendar: String?
  /// The calendar's URL (the account's when `calendar` is nil), without credentials.
  public var url: String
  public var new = 0
  public var changed = 0
  public var deleted = 0
  /// Creates, updates and deletes the server took.
  public var pushed = 0
  public var conflicts = 0
  /// Local changes still waiting (0 after a good sync).
  public var pending = 0
  /// When this sync finished the calendar; nil when it failed.
  public var synced: Date?
  /// What went wrong, for the user; nil when it synced.
  public var error: String?
  /// The failure was the server's reachability or credentials (exit 3), not the data (exit 1).
  public var unavailable = false

  public init(account: String, calendar: String?, url: String) {
    self.account = account
    self.calendar = calendar
    self.url = url
  }
}

/// Something the engine reports while it works.
public enum SyncEvent: Sendable, Equatable {
  /// `fetched` of `total` objects of the calendar read so far.
  case progress(calendar: String, fetched: Int, total: Int)
  /// A warning for stderr (a calendar the server no longer has).
  case note(String)
}

public struct SyncEngine: Sendable {
  let store: any SyncStore
  let clock: Clock
  let report: @Sendable (SyncEvent) -> Void
  /// Objects per calendar-multiget.
  public var fetchChunk = 100

  public init(store: any SyncStore, clock: Clock, report: @escaping @Sendable (SyncEvent) -> Void = { _ in }) {
    self.store = store
    self.clock = clock
    self.report = report
  }

  /// Syncs every calendar (taking events) of the account `client` reaches: one summary per
  /// calendar; on a failure before the calendars are known, one per calendar synced before
  /// (or one with no calendar). Throws only for the store itself failing.
  public func sync(account: String, client: CalDAVClient) async throws(StoreError) -> [CalendarSummary] {
    let discovery: Discovery
    do {
      discovery = try await client.discover()
    } catch {
      return try await accountFailed(account, url: displayURL(client.baseURL), error: error)
    }
    var stop: CalDAVError?
    let found = Set(discovery.calendars.map(\.url.absoluteString))
    for gone in try await store.remoteCalendars(account: account) where !found.contains(gone.remoteURL ?? "") {
      report(
        .note(
          "\(gone.name): the server no longer has this calendar; it is kept here, unsynced"
            + " ('appt calendar delete' removes it)"
        )
      )
    }
    // Every calendar is pulled before any is pushed: an event another client moved between
    // two of them is then seen whole (gone from one, arrived in the other) and moves, rather
    // than being deleted in one and created anew in the other.
    var runs: [CalendarRun] = []
    for remote in discovery.calendars {
      // A calendar the user stopped syncing or deleted is left alone.
      guard
        let local = try await store.remoteCalendar(
          account: account,
          url: remote.url.absoluteString,
          displayName: remote.name,
          color: remote.colorHex
        )
      else { continue }
      let summary = CalendarSummary(account: account, calendar: local.name, url: displayURL(remote.url))
      var run = CalendarRun(engine: self, client: client, remote: remote, local: local, summary: summary)
      try await run.perform(.pull, stop: &stop)
      runs.append(run)
    }
    try await settle(&runs, stop: &stop)
    for index in runs.indices {
      try await runs[index].perform(.push, stop: &stop)
    }
    try await catchUp(&runs, stop: &stop)
    var summaries: [CalendarSummary] = []
    for run in runs {
      summaries.append(try await finished(run))
    }
    return summaries
  }

  /// Settles every run's departures, then stores its token (`CalendarRun.settle`).
  func settle(_ runs: inout [CalendarRun], stop: inout CalDAVError?) async throws(StoreError) {
    var arrivals = CalendarRun.arrivals(of: runs)
    let allPulled = !runs.contains(where: \.failed)
    for index in runs.indices {
      try await runs[index].perform(.settle(arrivals, allPulled: allPulled), stop: &stop)
      // An arrival takes one departure.
      for uid in runs[index].movedAway { arrivals[uid] = nil }
      for target in runs[index].conflictsMovedTo {
        if let to = runs.firstIndex(where: { $0.calendarID == target }) { runs[to].summary.conflicts += 1 }
      }
    }
    // Counted and settled: a second settle (after a catch-up) starts from what it pulls.
    for index in runs.indices {
      runs[index].arrived = []
      runs[index].movedAway = []
      runs[index].conflictsMovedTo = []
    }
  }

  /// After a push that wrote to a server with sync tokens, every calendar of the account is
  /// pulled again from the tokens just stored and settled, so the stored tokens cover appt's
  /// own writes (they come back with the ETags recorded: nothing is fetched). Else an item
  /// appt made and another client removed before the next sync may never be reported gone.
  func catchUp(_ runs: inout [CalendarRun], stop: inout CalDAVError?) async throws(StoreError) {
    guard stop == nil, runs.contains(where: { $0.wroteToServer && $0.remote.syncToken != nil }) else { return }
    // A calendar with an object it could not read kept its older token: the next sync reads again.
    for index in runs.indices
    where runs[index].storedToken != nil && runs[index].remote.syncToken != nil && runs[index].unreadable == 0 {
      runs[index].prepareCatchUp()
      try await runs[index].perform(.pull, stop: &stop)
    }
    try await settle(&runs, stop: &stop)
  }

  /// The summary of a calendar's run once every phase is over: its item errors, and what
  /// still waits to be sent.
  func finished(_ run: CalendarRun) async throws(StoreError) -> CalendarSummary {
    var summary = run.summary
    guard !run.failed else {
      summary.pending = try await store.pendingChanges(calendarID: run.calendarID)
      return summary
    }
    summary.synced = clock.now
    if let itemError = run.itemErrors.first {
      let more = run.itemErrors.count - 1
      summary.error = itemError + (more > 0 ? " (and \(more) more)" : "")
      summary.unavailable = run.itemsUnavailable
      summary.synced = nil
    }
    if let unsent = run.unsent {
      summary.pending = unsent
    } else {
      summary.pending = try await store.pendingChanges(calendarID: run.calendarID)
    }
    return summary
  }

  /// The summaries of an account that failed before its calendars were known.
  func accountFailed(_ account: String, url: String, error: CalDAVError) async throws(StoreError) -> [CalendarSummary] {
    try await accountFailed(account, url: url, message: error.description, unavailable: Self.isUnavailable(error))
  }

  /// The summaries of an account that could not be synced at all (its server, or its
  /// password): one per calendar a sync made before, or one without a calendar.
  public func accountFailed(_ account: String, url: String, message: String, unavailable: Bool)
    async throws(StoreError) -> [CalendarSummary]
  {
    func failed(_ calendar: String?, _ url: String) -> CalendarSummary {
      var summary = CalendarSummary(account: account, calendar: calendar, url: url)
      summary.error = message
      summary.unavailable = unavailable
      return summary
    }
    let known = try await store.remoteCalendars(account: account)
    guard !known.isEmpty else { return [failed(nil, url)] }
    var summaries: [CalendarSummary] = []
    for calendar in known {
      var summary = failed(calendar.name, calendar.remoteURL.flatMap(URL.init(string:)).map(displayURL) ?? url)
      summary.pending = try await store.pendingChanges(calendarID: calendar.id)
      summaries.append(summary)
    }
    return summaries
  }

  func fail(_ summary: inout CalendarSummary, _ error: CalDAVError) {
    summary.error = error.description
    summary.unavailable = Self.isUnavailable(error)
    summary.synced = nil
  }

  /// Exit 3: unreachable, timed out, TLS refused, credentials refused, a 5xx.
  static func isUnavailable(_ error: CalDAVError) -> Bool {
    if case .serverError = error { return true }
    return error.isUnavailable
  }

  /// The account's other calendars are not tried after this (the connection is gone or the
  /// credentials refused); a 5xx or a bad answer ends only its calendar.
  static func endsAccount(_ error: CalDAVError) -> Bool { error.isUnavailable }
}

/// Sync items by UID and by href (compared whatever their percent-encoding).
struct KnownItems {
  private(set) var byUID: [String: SyncItem] = [:]
  private var uidByHref: [String: String] = [:]

  init(_ items: [SyncItem] = []) {
    for item in items { set(item) }
  }

  func item(at href: String) -> SyncItem? {
    uidByHref[CalendarRun.key(href)].flatMap { byUID[$0] }
  }

  mutating func set(_ item: SyncItem) {
    remove(item.uid)
    byUID[item.uid] = item
    uidByHref[CalendarRun.key(item.href)] = item.uid
  }

  mutating func remove(_ uid: String) {
    guard let old = byUID.removeValue(forKey: uid) else { return }
    if uidByHref[CalendarRun.key(old.href)] == uid { uidByHref[CalendarRun.key(old.href)] = nil }
  }
}

/// Why a calendar's sync stopped.
enum SyncFailure: Error {
  case server(CalDAVError)
  case store(StoreError)
}

/// One calendar's sync: its state while it runs.
struct CalendarRun {
  let engine: SyncEngine
  let client: CalDAVClient
  let remote: RemoteCalendar
  let local: CalendarInfo
  var summary: CalendarSummary
  /// Failures of single items (a 4xx on a PUT); the others went on.
  var itemErrors: [String] = []
  var itemsUnavailable = false
  /// Server objects appt could not read in this sync (each one of `itemErrors`).
  var unreadable = 0
  /// The store's sync items while the pull runs, kept up to date as it records them (read
  /// once: a first sync of 10,000 events must not read them 10,000 times).
  var known = KnownItems()
  /// The texts of PUTs whose answers were not recorded (a sync killed meanwhile), by uid.
  var pushes: [String: String] = [:]
  /// After a push that ran to its end: how many local changes it could not send (the
  /// summary's `pending`, without reading and writing every item again to count them).
  var unsent: Int?
  /// A phase failed (the summary says why) or the account stopped first: no phase runs.
  var failed = false
  /// Items the server no longer has here, settled once every calendar is pulled (a move to
  /// another calendar keeps the event).
  var departures: [SyncItem] = []
  /// The pull's sync token, stored once every calendar of the account is pulled and the
  /// departures settled: a sync cut before then (a kill, a failed calendar) reads the same
  /// changes again, departures and arrivals together.
  var deferredToken: String??
  /// UIDs this pull found new or changed here (where a moved event arrives): what a
  /// sync-collection report listed, or, from a listing, what was added.
  var arrived: Set<String> = []
  /// The pull reads a sync-collection report: what it lists changed since the last sync.
  var readsChanges = false
  /// UIDs that moved away from here to another calendar in this sync.
  var movedAway: Set<String> = []
  /// The calendars that a moved event took an unsent local edit to, as a conflict.
  var conflictsMovedTo: [String] = []
  /// The token this run stored (the pull's): a catch-up after the push reads changes since it.
  var storedToken: String?
  /// The stored token no longer covers what appt holds: cleared before the first write
  /// ahead of it (see `leaveTokenBehind`), until a newer one is stored.
  var tokenCleared = false
  /// The push wrote to the server (a PUT or a DELETE was sent).
  var wroteToServer = false
  /// A pull after the push (`SyncEngine.catchUp`): changes since `storedToken`.
  var catchingUp = false

  init(engine: SyncEngine, client: CalDAVClient, remote: RemoteCalendar, local: CalendarInfo, summary: CalendarSummary)
  {
    self.engine = engine
    self.client = client
    self.remote = remote
    self.local = local
    self.summary = summary
  }

  var store: any SyncStore { engine.store }
  var calendarID: String { local.id }

  // MARK: - Pull

  mutating func pull() async throws(SyncFailure) {
    let stored =
      catchingUp
      ? storedToken
      : try await run { () async throws(StoreError) in try await store.syncToken(calendarID: calendarID) }
    storedToken = stored
    // The collection's token (from discovery) is the one stored: nothing changed on the server.
    if !catchingUp, let stored, let current = remote.syncToken, stored == current { return }
    if remote.syncToken != nil {
      var token = stored
      // Without a token the report lists every item: one appt holds and it does not list is
      // gone (a server need not report what was made and removed after the last token).
      var listed: Set<String>? = token == nil ? [] : nil
      while true {
        let changes: SyncChanges
        do {
          changes = try await client.changes(in: remote.url, since: token)
        } catch .invalidSyncToken, .unexpectedStatus {
          // The token is refused, or sync-collection is not offered after all: list everything.
          break
        } catch {
          throw .server(error)
        }
        readsChanges = true
        try await apply(changed: changes.changed, removed: changes.removed)
        listed?.formUnion(changes.changed.map { Self.key($0.href) })
        // Only a whole listing tells what is gone (a page the server cut short does not).
        if let listed, !changes.truncated { try await removeUnlisted(listed) }
        readsChanges = false
        // An object appt could not read is asked for again next time: the token stays where
        // it was before it (the later pages are read all the same).
        if unreadable == 0 { try await saveToken(changes.token) }
        if !changes.truncated || changes.token == token { return }
        token = changes.token
      }
    }
    let listing = try await server { () async throws(CalDAVError) in try await client.list(remote.url) }
    try await apply(changed: listing, removed: [])
    try await removeUnlisted(Set(listing.map { Self.key($0.href) }))
    // Discovery's token is older than the push a catch-up follows: none is stored then (the
    // next sync lists everything).
    guard unreadable == 0, !catchingUp else { return }
    // The token of discovery (taken before the listing): a change after it shows next time.
    try await saveToken(remote.syncToken)
  }

  /// Removes the items appt holds that a full list of the server's (`listed`, by `key`) lacks.
  mutating func removeUnlisted(_ listed: Set<String>) async throws(SyncFailure) {
    try await loadKnown()
    let removed = known.byUID.values.filter { !listed.contains(Self.key($0.href)) }.map(\.href).sorted()
    if !removed.isEmpty { try await apply(changed: [], removed: removed) }
  }

  /// Before the first write that puts what appt holds ahead of the stored token (an item
  /// pulled, a PUT or a DELETE sent), the token is cleared, until a newer one is stored. A
  /// server need not report an item made and removed after a token (Xandikos does not): a
  /// sync cut after such a write would otherwise never learn that the item is gone. Without
  /// a token, the next sync lists everything and removes what is not listed.
  mutating func leaveTokenBehind() async throws(SyncFailure) {
    guard !tokenCleared else { return }
    tokenCleared = true
    try await run { () async throws(StoreError) in
      try await store.setSyncToken(calendarID: calendarID, token: nil, syncedAt: nil)
    }
  }

  /// Readies a pull of what changed since the token this run stored: after a push, whose
  /// writes are newer than it.
  mutating func prepareCatchUp() {
    catchingUp = true
    arrived = []
    movedAway = []
    conflictsMovedTo = []
  }

  /// Keeps the pull's token until the account's departures are settled (`settle`).
  mutating func saveToken(_ token: String?) async throws(SyncFailure) {
    deferredToken = .some(token)
  }

  /// Stores the token the pull kept.
  mutating func storeToken() async throws(SyncFailure) {
    guard let token = deferredToken else { return }
    deferredToken = nil
    try await run { () async throws(StoreError) in
      try await store.setSyncToken(calendarID: calendarID, token: token, syncedAt: engine.clock.now)
    }
    storedToken = token
    tokenCleared = false
  }

  /// Hrefs compared whatever their percent-encoding (`%40` or `@`).
  static func key(_ href: String) -> String { href.removingPercentEncoding ?? href }

  /// Fetches the changed items whose ETag is not the one known, applies them, and the removals.
  mutating func apply(changed: [RemoteItem], removed: [String]) async throws(SyncFailure) {
    try await loadKnown()
    let wanted = changed.filter { item in
      guard let etag = known.item(at: item.href)?.etag, let listed = item.etag else { return true }
      return etag != listed
    }.map(\.href)
    if !wanted.isEmpty || !removed.isEmpty { try await leaveTokenBehind() }
    if readsChanges {
      for item in changed { if let uid = known.item(at: item.href)?.uid { arrived.insert(uid) } }
    }
    var fetched = 0
    var start = 0
    let chunk = max(1, engine.fetchChunk)
    while start < wanted.count {
      let hrefs = Array(wanted[start..<min(start + chunk, wanted.count)])
      start += hrefs.count
      let result = try await server { () async throws(CalDAVError) in try await client.fetch(hrefs, from: remote.url) }
      for object in result.objects {
        try await pulled(object)
      }
      for href in result.missing {
        try await removedOnServer(href)
      }
      fetched += hrefs.count
      if wanted.count > 100 {
        engine.report(.progress(calendar: local.name, fetched: fetched, total: wanted.count))
      }
    }
    for href in removed {
      try await removedOnServer(href)
    }
  }

  /// The server's version of one object, read and applied by its UID.
  mutating func pulled(_ object: RemoteObject) async throws(SyncFailure) {
    guard let (uid, appointments) = read(object) else { return }
    // Here after all (at another href): not a departure.
    departures.removeAll { $0.uid == uid }
    if readsChanges { arrived.insert(uid) }
    // The object at this href held another UID before: that item is gone from the server.
    if let previous = known.item(at: object.href), previous.uid != uid {
      try await removed(previous)
    }
    let item = known.byUID[uid]
    let localItem = try await run { () async throws(StoreError) in
      try await store.localItem(calendarID: calendarID, uid: uid)
    }
    if let item, sameContent(object, appointments, item.base) {
      // The server holds what was last synced (a new ETag only): nothing to take.
      try await record(uid, href: object.href, etag: object.etag, base: item.base)
      return
    }
    if let pushed = pushes[uid], sameContent(object, appointments, pushed) {
      // What appt PUT in a sync killed before the answer came: appt's own, the base from now
      // on, so a local edit or delete made since goes out in the push (never a conflict with
      // itself, never a delete undone).
      pushes[uid] = nil
      try await record(uid, href: object.href, etag: object.etag, base: pushed)
      return
    }
    if let localItem, sameContent(object, appointments, localItem.ics) {
      // What a PUT whose answer was lost stored (or the same change made on both sides): the
      // server holds what appt holds.
      try await record(uid, href: object.href, etag: object.etag, base: localItem.ics)
      return
    }
    let localChanged = localItem != nil && (item == nil || localItem?.ics != item?.base)
    try await take(uid, appointments, object, conflictIfChanged: localChanged, hadLocal: localItem != nil)
  }

  /// Applies the server's version; counts it (and a conflict when the local one differed).
  mutating func take(
    _ uid: String,
    _ appointments: [Appointment],
    _ object: RemoteObject,
    conflictIfChanged: Bool,
    hadLocal: Bool
  ) async throws(SyncFailure) {
    let outcome = try await run { () async throws(StoreError) in
      try await store.applyServerItem(
        calendarID: calendarID,
        uid: uid,
        appointments: appointments,
        href: object.href,
        etag: object.etag,
        conflictIfChanged: conflictIfChanged
      )
    }
    // Its base is the store's now (the new rows' text); the pull needs only where it is.
    known.set(SyncItem(calendarID: calendarID, uid: uid, href: object.href, etag: object.etag, base: ""))
    switch outcome {
    case .added:
      summary.new += 1
      arrived.insert(uid)
    case .changed:
      summary.changed += 1
      if conflictIfChanged, hadLocal { summary.conflicts += 1 }
    case .unchanged: break
    }
  }

  /// An href the server no longer has.
  mutating func removedOnServer(_ href: String) async throws(SyncFailure) {
    guard let item = known.item(at: href) else { return }
    try await removed(item)
  }

  /// The item is gone from this calendar on the server: settled after every calendar's pull.
  mutating func removed(_ item: SyncItem) async throws(SyncFailure) {
    known.remove(item.uid)
    departures.append(item)
  }

  /// The server deleted the item: the local rows go unless they changed since the last sync.
  mutating func deleted(_ item: SyncItem) async throws(SyncFailure) {
    let localItem = try await run { () async throws(StoreError) in
      try await store.localItem(calendarID: calendarID, uid: item.uid)
    }
    if let localItem, localItem.ics == item.base {
      try await run { () async throws(StoreError) in
        try await store.removeServerItem(calendarID: calendarID, uid: item.uid)
      }
      summary.deleted += 1
    } else {
      // Deleted on both sides, or edited here: the edit wins (the push creates it again).
      try await run { () async throws(StoreError) in try await store.forgetItem(calendarID: calendarID, uid: item.uid) }
    }
  }

  /// The object's UID and appointments, or nil when appt cannot read it: an item error (the
  /// sync fails, naming it, and the rest goes on), and the pull keeps its token so that the
  /// next sync reads it again.
  mutating func read(_ object: RemoteObject) -> (String, [Appointment])? {
    let result = ICalendar.read(object.ics, clock: engine.clock, limits: .server)
    // The calendar's name is the failure's own prefix (appt-sync says it first).
    let where_ = TextSafety.escapingControls(object.href)
    if let problem = result.problems.first {
      cannotRead("\(where_): \(problem.line): \(TextSafety.escapingControls(problem.message))")
      return nil
    }
    let uids = Set(result.appointments.compactMap(\.uid))
    if uids.isEmpty {
      // A task or a journal entry in a calendar that also holds events: not an event, not
      // a failure (appt keeps events only).
      engine.report(.note("\(local.name): \(where_): 1: it holds no event; left on the server"))
      return nil
    }
    guard uids.count == 1, let uid = uids.first else {
      cannotRead("\(where_): 1: it holds \(uids.count) UIDs, a CalDAV object holds one")
      return nil
    }
    return (uid, result.appointments)
  }

  mutating func cannotRead(_ what: String) {
    itemErrors.append("\(what); appt cannot read it, left on the server")
    unreadable += 1
  }

  /// Whether the server's object is `text` (as appt wrote it, or as appt would write what it
  /// holds): then neither side's change is in it.
  func sameContent(_ object: RemoteObject, _ appointments: [Appointment], _ text: String) -> Bool {
    if Self.normalized(object.ics) == Self.normalized(text) { return true }
    return ICalendar.write(Self.ordered(appointments), fallbackZone: engine.clock.timeZone) == text
  }

  static func normalized(_ text: String) -> String {
    text.replacingOccurrences(of: "\r\n", with: "\n")
  }

  /// Masters first, then overrides by recurrence id: the order of a LocalItem's rows.
  static func ordered(_ appointments: [Appointment]) -> [Appointment] {
    appointments.enumerated().sorted { a, b in
      switch (a.element.override, b.element.override) {
      case (nil, nil): return a.offset < b.offset
      case (nil, _): return true
      case (_, nil): return false
      case (let x?, let y?): return x.recurrenceID < y.recurrenceID
      }
    }.map(\.element)
  }

  mutating func record(_ uid: String, href: String, etag: String?, base: String) async throws(SyncFailure) {
    try await run { () async throws(StoreError) in
      try await store.recordPushed(calendarID: calendarID, uid: uid, href: href, etag: etag, base: base)
    }
    known.set(SyncItem(calendarID: calendarID, uid: uid, href: href, etag: etag, base: base))
  }

  /// Notes what is about to be PUT, before the request: if its answer never comes (a kill, a
  /// lost connection), the next sync knows the server's copy for appt's own.
  mutating func notePushing(_ localItem: LocalItem) async throws(SyncFailure) {
    try await leaveTokenBehind()
    wroteToServer = true
    try await run { () async throws(StoreError) in
      try await store.recordPushing(calendarID: calendarID, uid: localItem.uid, ics: localItem.ics)
    }
  }

  mutating func loadKnown() async throws(SyncFailure) {
    pushes = try await run { () async throws(StoreError) in try await store.pushesInFlight(calendarID: calendarID) }
    let items = try await run { () async throws(StoreError) in try await store.syncItems(calendarID: calendarID) }
    known = KnownItems(items)
  }

  // MARK: - Push

  mutating func push() async throws(SyncFailure) {
    let items = try await run { () async throws(StoreError) in try await store.syncItems(calendarID: calendarID) }
    let locals = try await run { () async throws(StoreError) in try await store.localItems(calendarID: calendarID) }
    let byUID = Dictionary(items.map { ($0.uid, $0) }, uniquingKeysWith: { first, _ in first })
    let localUIDs = Set(locals.map(\.uid))
    // Gone from the server here and not settled yet (`settle`): left for the next sync.
    let unsettled = Set(departures.map(\.uid))
    // An item that could not be sent notes exactly one item error.
    let failedBefore = itemErrors.count
    for localItem in locals where !unsettled.contains(localItem.uid) {
      if let item = byUID[localItem.uid] {
        if localItem.ics != item.base { try await pushUpdate(localItem, item) }
      } else {
        try await pushCreate(localItem)
      }
    }
    for item in items where !localUIDs.contains(item.uid) {
      try await pushDelete(item)
    }
    unsent = itemErrors.count - failedBefore
  }

  /// The href appt gives a new item: the calendar's path, the UID percent-encoded, `.ics`.
  func href(for uid: String) -> String {
    let allowed = CharacterSet(charactersIn: "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-._~@")
    let name = uid.addingPercentEncoding(withAllowedCharacters: allowed) ?? uid
    return (remote.href.hasSuffix("/") ? remote.href : remote.href + "/") + name + ".ics"
  }

  /// Runs one item's requests; a failure that is the item's own (a 4xx, a 5xx on it, a body
  /// that cannot be read) is noted and the others go on; the connection lost stops the calendar.
  mutating func perItem(
    _ body: (inout CalendarRun) async throws(SyncFailure) -> Void
  ) async throws(SyncFailure) {
    do {
      try await body(&self)
    } catch {
      guard case .server(let serverError) = error, !SyncEngine.endsAccount(serverError) else { throw error }
      itemErrors.append(serverError.description)
      if SyncEngine.isUnavailable(serverError) { itemsUnavailable = true }
    }
  }

  mutating func pushCreate(_ localItem: LocalItem) async throws(SyncFailure) {
    let href = href(for: localItem.uid)
    try await perItem { (run: inout CalendarRun) async throws(SyncFailure) in
      try await run.create(localItem, at: href, retries: 1)
    }
  }

  /// `base`: the last synced version when the item was synced before (a 404 sent it here).
  mutating func create(_ localItem: LocalItem, at href: String, base: String? = nil, retries: Int)
    async throws(SyncFailure)
  {
    let etag: String?
    try await notePushing(localItem)
    do {
      etag = try await client.put(href, ics: localItem.ics, .create)
    } catch .preconditionFailed {
      // Something is there already (our PUT whose answer was lost, or the same event made on
      // both sides): read it and take it as the server's version.
      try await settle(localItem.uid, at: href, local: localItem, base: base, retries: retries)
      return
    } catch {
      throw .server(error)
    }
    try await record(localItem.uid, href: href, etag: etag, base: localItem.ics)
    summary.pushed += 1
  }

  mutating func pushUpdate(_ localItem: LocalItem, _ item: SyncItem) async throws(SyncFailure) {
    try await perItem { (run: inout CalendarRun) async throws(SyncFailure) in
      guard let etag = item.etag else {
        // No ETag known: read it first, so a server edit is never overwritten blind.
        try await run.settle(localItem.uid, at: item.href, local: localItem, base: item.base, retries: 1)
        return
      }
      try await run.update(localItem, item, etag: etag, retries: 1)
    }
  }

  mutating func update(_ localItem: LocalItem, _ item: SyncItem, etag: String, retries: Int) async throws(SyncFailure) {
    let newETag: String?
    try await notePushing(localItem)
    do {
      newETag = try await client.put(item.href, ics: localItem.ics, .replace(etag: etag))
    } catch .preconditionFailed {
      try await settle(localItem.uid, at: item.href, local: localItem, base: item.base, retries: retries)
      return
    } catch .notFound {
      // Gone from the server meanwhile: the edit wins, it is created again.
      try await create(localItem, at: item.href, base: item.base, retries: retries)
      return
    } catch {
      throw .server(error)
    }
    try await record(localItem.uid, href: item.href, etag: newETag, base: localItem.ics)
    summary.pushed += 1
  }

  /// After a 412 (or with no ETag known): what the server holds at `href` decides. Still the
  /// base: send ours again with its ETag. Ours already: record it. Gone: create (or, for a
  /// delete, done). Otherwise the server's version is taken and ours kept as a conflict.
  mutating func settle(
    _ uid: String,
    at href: String,
    local localItem: LocalItem?,
    base: String?,
    retries: Int
  ) async throws(SyncFailure) {
    let object: RemoteObject
    do {
      object = try await client.get(href)
    } catch .notFound {
      if let localItem {
        guard retries > 0 else { throw .server(.preconditionFailed(url: displayURL(remote.url))) }
        try await create(localItem, at: href, base: base, retries: retries - 1)
      } else {
        try await run { () async throws(StoreError) in try await store.forgetItem(calendarID: calendarID, uid: uid) }
      }
      return
    } catch {
      throw .server(error)
    }
    guard let (serverUID, appointments) = read(object), serverUID == uid else {
      itemErrors.append(
        "\(local.name): \(TextSafety.escapingControls(href)) holds another item on the server; \(uid) not sent"
      )
      return
    }
    if let localItem, sameContent(object, appointments, localItem.ics) {
      try await record(uid, href: href, etag: object.etag, base: localItem.ics)
      return
    }
    if let base, sameContent(object, appointments, base) {
      // The server still holds the last synced version, yet refused the condition: send it
      // again with the ETag it has now, once; then leave the change waiting (never a conflict
      // where nothing changed there).
      guard let etag = object.etag, retries > 0 else {
        itemErrors.append(
          "\(local.name): \(TextSafety.escapingControls(href)): the server refused the change (HTTP 412)"
            + " though it holds the last synced version; it waits for the next sync"
        )
        return
      }
      if let localItem {
        let item = SyncItem(calendarID: calendarID, uid: uid, href: href, etag: etag, base: base)
        try await update(localItem, item, etag: etag, retries: retries - 1)
      } else {
        try await delete(uid, href: href, etag: etag, base: base, retries: retries - 1)
      }
      return
    }
    try await take(uid, appointments, object, conflictIfChanged: localItem != nil, hadLocal: localItem != nil)
  }

  mutating func pushDelete(_ item: SyncItem) async throws(SyncFailure) {
    try await perItem { (run: inout CalendarRun) async throws(SyncFailure) in
      guard let etag = item.etag else {
        try await run.settle(item.uid, at: item.href, local: nil, base: item.base, retries: 1)
        return
      }
      try await run.delete(item.uid, href: item.href, etag: etag, base: item.base, retries: 1)
    }
  }

  mutating func delete(_ uid: String, href: String, etag: String, base: String, retries: Int) async throws(SyncFailure)
  {
    try await leaveTokenBehind()
    wroteToServer = true
    do {
      try await client.delete(href, ifMatch: etag)
      summary.pushed += 1
    } catch .notFound {
      // Gone already: done.
    } catch .preconditionFailed {
      // Edited on the server since: the edit wins and comes back.
      try await settle(uid, at: href, local: nil, base: base, retries: retries)
      return
    } catch {
      throw .server(error)
    }
    try await run { () async throws(StoreError) in try await store.forgetItem(calendarID: calendarID, uid: uid) }
  }

  // MARK: - Plumbing

  func run<T>(_ body: () async throws(StoreError) -> T) async throws(SyncFailure) -> T {
    do {
      return try await body()
    } catch {
      throw .store(error)
    }
  }

  func server<T>(_ body: () async throws(CalDAVError) -> T) async throws(SyncFailure) -> T {
    do {
      return try await body()
    } catch {
      throw .server(error)
    }
  }
}
