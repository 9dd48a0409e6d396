import ApptCore
import ApptTestSupport
import Foundation
import Testing

@testable import ApptStore

/// The sync state (schema 8, plan15 "Store"): what a CalDAV sync keeps between runs, and the
/// DAO functions the engine works through, on every engine.
@Suite("Sync state in the store", .hangBackstop)
struct SyncStateTests {
  /// A server's object: a weekly series with `overrides` (RECURRENCE-ID on these December
  /// Mondays, each moved an hour later), or a one-off when `weekly` is false.
  static func object(
    uid: String,
    title: String,
    weekly: Bool = true,
    overrides: [Int] = [],
    sequence: Int = 0,
    stamp: String = "20261120T100000Z"
  ) -> String {
    var lines = ["BEGIN:VCALENDAR", "VERSION:2.0", "PRODID:-//peer//EN"]
    lines += [
      "BEGIN:VEVENT", "UID:\(uid)", "DTSTAMP:\(stamp)", "CREATED:20261101T100000Z", "SEQUENCE:\(sequence)",
      "SUMMARY:\(title)", "DTSTART:20261207T090000Z", "DTEND:20261207T100000Z",
    ]
    if weekly { lines.append("RRULE:FREQ=WEEKLY;COUNT=6") }
    lines.append("END:VEVENT")
    for day in overrides {
      lines += [
        "BEGIN:VEVENT", "UID:\(uid)", "DTSTAMP:\(stamp)", "SEQUENCE:\(sequence)", "SUMMARY:\(title) (moved)",
        "RECURRENCE-ID:202612\(String(format: "%02d", day))T090000Z",
        "DTSTART:202612\(String(format: "%02d", day))T100000Z", "DTEND:202612\(String(format: "%02d", day))T110000Z",
        "END:VEVENT",
      ]
    }
    lines.append("END:VCALENDAR")
    return lines.joined(separator: "\r\n") + "\r\n"
  }

  static func read(_ text: String) throws -> [Appointment] {
    let result = ICalendar.read(text, clock: TestClock.clock)
    try #require(result.problems.isEmpty, "\(result.problems)")
    return result.appointments
  }

  static func calendar(_ dao: AppointmentDAO, _ name: String = "acct/Home") async throws -> CalendarInfo {
    try await dao.syncedCalendar(account: "acct", url: "https://dav.example/cal/home/", displayName: "Home", color: nil)
  }

  @discardableResult
  static func apply(
    _ dao: AppointmentDAO,
    _ calendar: CalendarInfo,
    _ text: String,
    uid: String,
    etag: String = "\"1\"",
    conflict: Bool = false
  ) async throws -> ApplyOutcome {
    try await dao.applyServerItem(
      calendarID: calendar.id,
      uid: uid,
      appointments: try read(text),
      href: "/cal/home/\(uid).ics",
      etag: etag,
      conflictIfChanged: conflict
    )
  }

  static func add(_ dao: AppointmentDAO, _ title: String, to calendar: CalendarInfo) async throws -> Appointment {
    var request = AddRequest(title: title, start: december(3, 10), end: december(3, 11))
    request.calendar = calendar.name
    return try await dao.addAppointment(request)
  }

  // MARK: - Migration

  @Test(
    "schema 8 migrates a schema-7 store: no sync state yet, then the sync's functions work",
    arguments: StoreKind.shared
  )
  func migratesFromSchema7(kind: StoreKind) async throws {
    try await withSharedStore(kind) { store in
      // Rows as schema 7 held them (written with SQL: this build's DAO reads schema 8).
      let old = store.dao(migrations: Array(Schema.migrations.prefix(7)))
      let workID = "00000000-0000-4000-8000-0000000000aa"
      var standup = Appointment(
        title: "Standup",
        start: december(3, 9),
        end: december(3, 10),
        created: TestClock.now,
        calendarID: workID
      )
      standup.revision = 1
      try await old.database.write { connection throws(StoreError) in
        try connection.run(
          "INSERT INTO calendar (id, name, name_folded, position) VALUES (?, 'work', 'work', 1)",
          [.text(workID)]
        )
        // Schema 7's columns only (this build's row writer adds later ones).
        try connection.run(
          """
          INSERT INTO appointment (id, title, start_ms, end_ms, created_ms, updated_ms, title_folded, calendar_id)
          VALUES (?, 'Standup', ?, ?, ?, ?, 'standup', ?)
          """,
          [
            .text(standup.id.description), .integer(standup.start.millisecondsSince1970),
            .integer(standup.end.millisecondsSince1970), .integer(standup.created.millisecondsSince1970),
            .integer(standup.updated.millisecondsSince1970), .text(workID),
          ]
        )
      }
      await old.database.close()
      let dao = store.dao()
      let calendars = try await dao.calendars()
      #expect(calendars.map(\.name) == ["personal", "work"])
      #expect(calendars.allSatisfy { $0.syncedAt == nil && $0.remoteURL == nil })
      #expect(try await dao.conflicts().isEmpty)
      #expect(try await dao.syncItems(calendarID: calendars[1].id).isEmpty)
      #expect(try await dao.pendingChanges(calendarID: calendars[1].id) == 1, "never synced: it all waits")
      #expect(try await dao.localItems(calendarID: calendars[1].id).map(\.uid) == ["\(standup.id)@appt"])
      let home = try await Self.calendar(dao)
      #expect(try await Self.apply(dao, home, Self.object(uid: "s@peer", title: "Sync"), uid: "s@peer") == .added)
      let version = try await dao.database.read { connection throws(StoreError) in
        try connection.scalar(kind == .postgres ? "SELECT count(*) FROM appt_schema" : "PRAGMA user_version")?.int64
      }
      #expect(version == Int64(Schema.migrations.count))
    }
  }

  // MARK: - Calendars of an account

  @Test(
    "a collection gets one calendar ACCOUNT/Name, found again by its URL, renamed with it",
    arguments: StoreKind.allCases
  )
  func remoteCalendars(kind: StoreKind) async throws {
    try await withStore(kind) { dao in
      let home = try await dao.syncedCalendar(
        account: "acct",
        url: "https://dav.example/cal/home/",
        displayName: "Home",
        color: "#FF2968FF"
      )
      #expect(home.name == "acct/Home" && home.source == "caldav" && home.account == "acct")
      #expect(home.color == "#ff2968", "Apple's #rrggbbaa loses its alpha")
      #expect(home.remoteURL == "https://dav.example/cal/home/")
      let again = try await dao.syncedCalendar(
        account: "acct",
        url: "https://dav.example/cal/home/",
        displayName: "Home",
        color: "red"
      )
      #expect(again == home, "found by (account, url): nothing changes, the colour stays the user's")
      try await dao.addCalendar(name: "other")
      // Another collection with the same display name, and one with none and a long name.
      let twin = try await dao.syncedCalendar(
        account: "acct",
        url: "https://dav.example/cal/h2/",
        displayName: "home",
        color: nil
      )
      #expect(twin.name == "acct/home (2)")
      #expect(CalendarRules.colorNames.contains(twin.color))
      let long = String(repeating: "x", count: 80)
      let cut = try await dao.syncedCalendar(
        account: "acct",
        url: "https://dav.example/cal/work%20stuff/",
        displayName: long,
        color: "no"
      )
      #expect(cut.name == "acct/" + String(repeating: "x", count: 59))
      let unnamed = try await dao.syncedCalendar(
        account: "acct",
        url: "https://dav.example/cal/work%20stuff/x/",
        displayName: " ",
        color: nil
      )
      #expect(unnamed.name == "acct/x")
      let renamed = try await dao.syncedCalendar(
        account: "acct",
        url: "https://dav.example/cal/home/",
        displayName: "Family\u{7}",
        color: nil
      )
      #expect(renamed.id == home.id && renamed.name == "acct/Family", "the display name followed, controls dropped")
      #expect(
        try await dao.remoteCalendars(account: "acct").map(\.name) == [
          "acct/Family", "acct/home (2)", cut.name, "acct/x",
        ]
      )
      #expect(try await dao.remoteCalendars(account: "other").isEmpty)
      #expect(try await dao.calendars().count == 6)
    }
  }

  @Test("a synced calendar's name, its sync and its deletion are the user's", arguments: StoreKind.allCases)
  func calendarsOfTheUser(kind: StoreKind) async throws {
    try await withStore(kind) { dao in
      let url = "https://dav.example/cal/work/"
      let sync = { (display: String) async throws -> CalendarInfo? in
        try await dao.remoteCalendar(account: "acct", url: url, displayName: display, color: nil)
      }
      let work = try #require(try await sync("Work"))
      #expect(work.remoteName == "Work" && work.syncs)
      try await dao.renameCalendar("acct/Work", to: "Job")
      let renamed = try #require(try await sync("Work (team)"))
      #expect(renamed.id == work.id && renamed.name == "Job", "the user's name stays")
      #expect(renamed.remoteName == "Work (team)", "the server's is kept beside it")
      let off = try await dao.setCalendarSyncs("job", false)
      #expect(off.id == work.id && !off.syncs)
      #expect(try await sync("Work (team)") == nil, "a sync leaves it alone")
      #expect(try await dao.calendars().first { $0.id == work.id }?.syncs == false)
      #expect(try await dao.setCalendarSyncs("Job", true).syncs)
      #expect(try await sync("Work (team)")?.id == work.id)
      await #expect(throws: StoreError.self) { try await dao.setCalendarSyncs("personal", false) }
      // Deleted, it stays deleted until synced again by the name it had.
      try await dao.deleteCalendar("Job", disposal: .refuse)
      #expect(try await sync("Work (team)") == nil)
      #expect(try await dao.calendars().map(\.name) == ["personal"])
      let skipped = try await dao.setCalendarSyncs("JOB", true)
      #expect(skipped.name == "Job" && skipped.remoteURL == url && skipped.syncs)
      let back = try #require(try await sync("Work (team)"))
      #expect(back.name == "acct/Work (team)" && back.id != work.id)
      await #expect(throws: StoreError.self) { try await dao.setCalendarSyncs("Job", true) }
    }
  }

  @Test("the sync token and the time of the last good sync are kept per calendar", arguments: StoreKind.allCases)
  func syncToken(kind: StoreKind) async throws {
    try await withStore(kind) { dao in
      let home = try await Self.calendar(dao)
      #expect(try await dao.syncToken(calendarID: home.id) == nil)
      #expect(home.syncedAt == nil)
      try await dao.setSyncToken(calendarID: home.id, token: "t1", syncedAt: TestClock.now)
      #expect(try await dao.syncToken(calendarID: home.id) == "t1")
      try await dao.setSyncToken(calendarID: home.id, token: nil, syncedAt: nil)
      #expect(try await dao.syncToken(calendarID: home.id) == nil)
      let stored = try #require(try await dao.remoteCalendars(account: "acct").first)
      #expect(stored.syncedAt == TestClock.now, "nil leaves the last sync's time as it was")
      await #expect(throws: StoreError.noCalendarForTest) {
        try await dao.setSyncToken(calendarID: "00000000-0000-4000-8000-00000000dead", token: "x", syncedAt: nil)
      }
    }
  }

  // MARK: - Local items

  @Test("local items: one per sync key, master then overrides, deterministic text", arguments: StoreKind.allCases)
  func localItems(kind: StoreKind) async throws {
    try await withStore(kind) { dao in
      let home = try await Self.calendar(dao)
      _ = try await dao.importAppointments(
        try Self.read(Self.object(uid: "s@peer", title: "Sync", overrides: [21, 14])),
        calendar: home.name
      )
      let plain = try await Self.add(dao, "Dentist", to: home)
      let elsewhere = try await dao.addAppointment(
        AddRequest(title: "Not synced", start: december(3, 12), end: december(3, 13))
      )
      let items = try await dao.localItems(calendarID: home.id)
      #expect(items.map(\.uid) == ["\(plain.id)@appt", "s@peer"].sorted())
      let series = try #require(items.first { $0.uid == "s@peer" })
      #expect(series.rows.map(\.title) == ["Sync", "Sync (moved)", "Sync (moved)"])
      #expect(series.rows.compactMap(\.override?.recurrenceID) == [december(14, 10), december(21, 10)])
      #expect(series.ics == ICalendar.write(series.rows, fallbackZone: TestClock.paris))
      #expect(try await dao.localItems(calendarID: home.id) == items, "the same rows give the same text")
      #expect(try await dao.localItem(calendarID: home.id, uid: "s@peer") == series)
      #expect(try await dao.localItem(calendarID: home.id, uid: "\(plain.id)@appt")?.rows.map(\.id) == [plain.id])
      #expect(try await dao.localItem(calendarID: home.id, uid: "\(elsewhere.id)@appt") == nil, "another calendar's")
      #expect(try await dao.localItem(calendarID: home.id, uid: "nope") == nil)
      // An occurrence edited locally joins its series' item, whatever uid it has.
      try await dao.editAppointment(
        EditRequest(id: series.rows[0].id.description, title: "Sync, room B", occurrence: december(28))
      )
      let edited = try #require(try await dao.localItem(calendarID: home.id, uid: "s@peer"))
      #expect(edited.rows.count == 4 && edited.ics != series.ics)
      #expect(try await dao.localItems(calendarID: home.id).map(\.uid) == items.map(\.uid))
    }
  }

  // MARK: - Applying the server's version

  @Test(
    "apply: added, then unchanged (field for field), then changed with ids and created kept",
    arguments: StoreKind.allCases
  )
  func applyOutcomes(kind: StoreKind) async throws {
    try await withStore(kind) { dao in
      let home = try await Self.calendar(dao)
      #expect(
        try await Self.apply(dao, home, Self.object(uid: "s@peer", title: "Sync", overrides: [14]), uid: "s@peer")
          == .added
      )
      let first = try #require(try await dao.localItem(calendarID: home.id, uid: "s@peer"))
      var known = try await dao.syncItems(calendarID: home.id)
      #expect(
        known == [
          SyncItem(calendarID: home.id, uid: "s@peer", href: "/cal/home/s@peer.ics", etag: "\"1\"", base: first.ics)
        ]
      )
      #expect(try await dao.pendingChanges(calendarID: home.id) == 0)
      // The same object again (a new DTSTAMP, another ETag): nothing written.
      let again = Self.object(uid: "s@peer", title: "Sync", overrides: [14], stamp: "20261125T100000Z")
      #expect(try await Self.apply(dao, home, again, uid: "s@peer", etag: "\"2\"", conflict: true) == .unchanged)
      let same = try #require(try await dao.localItem(calendarID: home.id, uid: "s@peer"))
      #expect(same == first, "rows and text as they were")
      #expect(try await dao.conflicts().isEmpty)
      known = try await dao.syncItems(calendarID: home.id)
      #expect(known.map(\.etag) == ["\"2\""])
      // appt's own text read back is unchanged too (what a PUT's echo is).
      #expect(
        try await dao.applyServerItem(
          calendarID: home.id,
          uid: "s@peer",
          appointments: Self.read(first.ics),
          href: "/cal/home/s@peer.ics",
          etag: "\"3\"",
          conflictIfChanged: true
        ) == .unchanged
      )
      // The server changed the title: rows rewritten in place at their next revision.
      let changed = Self.object(uid: "s@peer", title: "Standup", overrides: [14], sequence: 1)
      #expect(try await Self.apply(dao, home, changed, uid: "s@peer", etag: "\"4\"") == .changed)
      let now = try #require(try await dao.localItem(calendarID: home.id, uid: "s@peer"))
      #expect(now.rows.map(\.id) == first.rows.map(\.id))
      #expect(now.rows.map(\.created) == first.rows.map(\.created))
      #expect(now.rows.map(\.revision) == first.rows.map { $0.revision + 1 })
      #expect(now.rows.map(\.title) == ["Standup", "Standup (moved)"])
      #expect(try await dao.syncItems(calendarID: home.id).map(\.base) == [now.ics])
      // A lower SEQUENCE from the server still wins (an import would keep the stored copy).
      let older = Self.object(uid: "s@peer", title: "Sync", overrides: [14], sequence: 0)
      #expect(try await Self.apply(dao, home, older, uid: "s@peer") == .changed)
      #expect(try await dao.localItem(calendarID: home.id, uid: "s@peer")?.rows.first?.title == "Sync")
      // The series weeks follow every write: the series is found in its window.
      let week = try await dao.appointments(matching: AppointmentQuery(range: window(december(28), december(29))))
      #expect(week.map(\.title) == ["Sync"])
    }
  }

  @Test("apply with conflictIfChanged: a differing local version is kept as a conflict", arguments: StoreKind.allCases)
  func applyConflict(kind: StoreKind) async throws {
    try await withStore(kind) { dao in
      let home = try await Self.calendar(dao)
      try await Self.apply(dao, home, Self.object(uid: "s@peer", title: "Sync"), uid: "s@peer")
      let series = try #require(try await dao.localItem(calendarID: home.id, uid: "s@peer")?.rows.first)
      try await dao.editAppointment(EditRequest(id: series.id.description, title: "Mine"))
      let local = try #require(try await dao.localItem(calendarID: home.id, uid: "s@peer"))
      #expect(try await dao.pendingChanges(calendarID: home.id) == 1)
      // Both sides made the same change: no conflict.
      let same = try Self.read(local.ics)
      #expect(
        try await dao.applyServerItem(
          calendarID: home.id,
          uid: "s@peer",
          appointments: same,
          href: "/cal/home/s@peer.ics",
          etag: "\"2\"",
          conflictIfChanged: true
        ) == .unchanged
      )
      #expect(try await dao.conflicts().isEmpty)
      #expect(try await dao.pendingChanges(calendarID: home.id) == 0, "base is the common version now")
      try await dao.editAppointment(EditRequest(id: series.id.description, title: "Mine again"))
      let mine = try #require(try await dao.localItem(calendarID: home.id, uid: "s@peer"))
      #expect(
        try await Self.apply(
          dao,
          home,
          Self.object(uid: "s@peer", title: "Theirs", sequence: 3),
          uid: "s@peer",
          conflict: true
        ) == .changed
      )
      let conflicts = try await dao.conflicts()
      #expect(
        conflicts == [
          SyncConflict(
            id: try #require(conflicts.first?.id),
            appointment: series.id,
            calendar: "acct/Home",
            uid: "s@peer",
            title: "Mine again",
            localICS: mine.ics,
            found: TestClock.now
          )
        ]
      )
      #expect(try await dao.getAppointment(id: series.id).title == "Theirs", "the server's version is stored")
    }
  }

  /// A second conflict on the same event keeps the first: every losing version stays until
  /// the user settles it, each with an id of its own; `conflict(id:)` gives one with the
  /// event as stored now; keeping one puts it back and leaves the other listed.
  @Test("a second conflict on one event keeps the first beside it", arguments: StoreKind.allCases)
  func conflictHistory(kind: StoreKind) async throws {
    try await withStore(kind) { dao in
      let home = try await Self.calendar(dao)
      try await Self.apply(dao, home, Self.object(uid: "s@peer", title: "Sync"), uid: "s@peer")
      let series = try #require(try await dao.localItem(calendarID: home.id, uid: "s@peer")?.rows.first)
      try await dao.editAppointment(EditRequest(id: series.id.description, title: "Mine, first"))
      let first = try #require(try await dao.localItem(calendarID: home.id, uid: "s@peer"))
      let theirs = Self.object(uid: "s@peer", title: "Theirs", sequence: 3)
      try await Self.apply(dao, home, theirs, uid: "s@peer", etag: "\"2\"", conflict: true)
      try await dao.editAppointment(EditRequest(id: series.id.description, title: "Mine, second"))
      let second = try #require(try await dao.localItem(calendarID: home.id, uid: "s@peer"))
      let theirsAgain = Self.object(uid: "s@peer", title: "Theirs again", sequence: 5)
      try await Self.apply(dao, home, theirsAgain, uid: "s@peer", etag: "\"3\"", conflict: true)
      // Found at the same (test) moment: in no particular order between them.
      let conflicts = try await dao.conflicts().sorted { $0.title < $1.title }
      #expect(conflicts.map(\.title) == ["Mine, first", "Mine, second"])
      #expect(conflicts.map(\.localICS) == [first.ics, second.ics])
      #expect(conflicts.map(\.appointment) == [series.id, series.id])
      #expect(Set(conflicts.map(\.id)).count == 2 && !conflicts.map(\.id).contains(series.id))
      let shown = try await dao.conflict(id: String(conflicts[0].id.description.prefix(8)))
      #expect(shown.conflict == conflicts[0])
      #expect(shown.now?.rows.first?.title == "Theirs again")
      try await dao.resolveConflict(id: conflicts[0].id.description, keep: .local)
      #expect(try await dao.getAppointment(id: series.id).title == "Mine, first")
      #expect(try await dao.conflicts().map(\.title) == ["Mine, second"])
    }
  }

  @Test("apply: the same UID in another calendar is another event, and stays", arguments: StoreKind.allCases)
  func applyKeepsOtherCalendarsCopy(kind: StoreKind) async throws {
    try await withStore(kind) { dao in
      let home = try await Self.calendar(dao)
      let text = Self.object(uid: "s@peer", title: "Sync", overrides: [14])
      _ = try await dao.importAppointments(try Self.read(text))  // into personal
      let before = try #require(try await dao.localItem(calendarID: Schema.personalCalendarID, uid: "s@peer"))
      #expect(try await Self.apply(dao, home, text, uid: "s@peer") == .added)
      #expect(try await dao.localItem(calendarID: Schema.personalCalendarID, uid: "s@peer") == before)
      let copy = try #require(try await dao.localItem(calendarID: home.id, uid: "s@peer"))
      #expect(copy.rows.count == 2 && copy.rows.allSatisfy { $0.calendarID == home.id })
      #expect(Set(copy.rows.map(\.id)).isDisjoint(with: before.rows.map(\.id)))
      // A calendar holds an event once: the copy cannot be moved where the other is.
      let master = try #require(copy.rows.first)
      let refused = await #expect(throws: StoreError.self) {
        var request = EditRequest(id: master.id.description)
        request.calendar = CalendarRules.defaultName
        try await dao.editAppointment(request)
      }
      #expect(
        refused?.description.contains("holds this event already (UID s@peer") == true,
        "\(String(describing: refused))"
      )
    }
  }

  @Test(
    "moveServerItem: the local rows move and take the server's copy, keeping their ids",
    arguments: StoreKind.allCases
  )
  func moveServerItemKeepsIDs(kind: StoreKind) async throws {
    try await withStore(kind) { dao in
      let work = try await dao.syncedCalendar(
        account: "acct",
        url: "https://dav.example/cal/work/",
        displayName: "Work",
        color: nil
      )
      let home = try await Self.calendar(dao)
      let text = Self.object(uid: "s@peer", title: "Sync", overrides: [14])
      #expect(try await Self.apply(dao, work, text, uid: "s@peer") == .added)
      let before = try #require(try await dao.localItem(calendarID: work.id, uid: "s@peer"))
      // A local edit not yet sent, then the server's copy arrives in Home.
      _ = try await dao.editAppointment(EditRequest(id: before.rows[0].id.description, title: "Sync, mine"))
      let moved = Self.object(uid: "s@peer", title: "Sync (moved)", overrides: [14])
      #expect(try await Self.apply(dao, home, moved, uid: "s@peer") == .added)
      #expect(try await dao.moveServerItem(uid: "s@peer", from: work.id, to: home.id, conflictIfChanged: true))
      #expect(try await dao.localItem(calendarID: work.id, uid: "s@peer") == nil)
      #expect(try await dao.syncItems(calendarID: work.id).isEmpty)
      let after = try #require(try await dao.localItem(calendarID: home.id, uid: "s@peer"))
      #expect(after.rows.map(\.id) == before.rows.map(\.id))
      #expect(after.rows.first?.title == "Sync (moved)")
      #expect(try await dao.syncItems(calendarID: home.id).map(\.base) == [after.ics])
      let conflicts = try await dao.conflicts()
      #expect(conflicts.map(\.title) == ["Sync, mine"] && conflicts.map(\.appointment) == [before.rows[0].id])
      #expect(conflicts.map(\.calendar) == [home.name])
      // Nothing here to move: the arrival stays as it is.
      #expect(
        try await dao.moveServerItem(uid: "s@peer", from: work.id, to: home.id, conflictIfChanged: false) == false
      )
    }
  }

  @Test("apply: an override the server's copy no longer has is deleted", arguments: StoreKind.allCases)
  func applyRemovesOverride(kind: StoreKind) async throws {
    try await withStore(kind) { dao in
      let home = try await Self.calendar(dao)
      try await Self.apply(dao, home, Self.object(uid: "s@peer", title: "Sync", overrides: [14, 21]), uid: "s@peer")
      let before = try #require(try await dao.localItem(calendarID: home.id, uid: "s@peer"))
      #expect(
        try await Self.apply(dao, home, Self.object(uid: "s@peer", title: "Sync", overrides: [21]), uid: "s@peer")
          == .changed
      )
      let after = try #require(try await dao.localItem(calendarID: home.id, uid: "s@peer"))
      #expect(after.rows.map(\.id) == [before.rows[0].id, before.rows[2].id])
      #expect(try await dao.getAllAppointments().count == 2)
      let monday = try await dao.appointments(matching: AppointmentQuery(range: window(december(14), december(15))))
      #expect(monday.map(\.start) == [december(14, 10)], "the occurrence is back in its place")
      #expect(try await dao.syncItems(calendarID: home.id).map(\.base) == [after.ics])
    }
  }

  @Test("apply: an orphan override (stored before its series) joins the series' item", arguments: StoreKind.allCases)
  func applyLinksOrphan(kind: StoreKind) async throws {
    try await withStore(kind) { dao in
      let home = try await Self.calendar(dao)
      // The server first had only an invitation to one occurrence.
      let full = try Self.read(Self.object(uid: "s@peer", title: "Sync", overrides: [14]))
      let orphan = try #require(full.first { $0.override != nil })
      #expect(
        try await dao.applyServerItem(
          calendarID: home.id,
          uid: "s@peer",
          appointments: [orphan],
          href: "/h/s.ics",
          etag: nil,
          conflictIfChanged: false
        ) == .added
      )
      let alone = try #require(try await dao.localItem(calendarID: home.id, uid: "s@peer"))
      #expect(alone.rows.count == 1 && alone.rows[0].override?.seriesID == nil)
      #expect(
        try await dao.applyServerItem(
          calendarID: home.id,
          uid: "s@peer",
          appointments: full,
          href: "/h/s.ics",
          etag: "\"2\"",
          conflictIfChanged: false
        ) == .changed
      )
      let joined = try #require(try await dao.localItem(calendarID: home.id, uid: "s@peer"))
      #expect(joined.rows.count == 2 && joined.rows[1].id == alone.rows[0].id)
      #expect(joined.rows[1].override?.seriesID == joined.rows[0].id)
      #expect(try await dao.conflicts().isEmpty, "local unchanged since the last sync: the engine asks for no conflict")
      #expect(try await dao.pendingChanges(calendarID: home.id) == 0)
      // The series goes on the server; the orphan that stays is its own item again.
      #expect(
        try await dao.applyServerItem(
          calendarID: home.id,
          uid: "s@peer",
          appointments: [orphan],
          href: "/h/s.ics",
          etag: "\"3\"",
          conflictIfChanged: false
        ) == .changed
      )
      #expect(try await dao.localItem(calendarID: home.id, uid: "s@peer")?.rows.map(\.id) == [alone.rows[0].id])
    }
  }

  @Test("an empty server item is refused, changing nothing", arguments: StoreKind.allCases)
  func applyEmpty(kind: StoreKind) async throws {
    try await withStore(kind) { dao in
      let home = try await Self.calendar(dao)
      await #expect(throws: StoreError.self) {
        try await dao.applyServerItem(
          calendarID: home.id,
          uid: "x",
          appointments: [],
          href: "/x.ics",
          etag: nil,
          conflictIfChanged: false
        )
      }
      #expect(try await dao.syncItems(calendarID: home.id).isEmpty)
    }
  }

  // MARK: - Removing, pushing, forgetting, pending

  @Test("removeServerItem, recordPushed, forgetItem and pendingChanges", arguments: StoreKind.allCases)
  func itemBookkeeping(kind: StoreKind) async throws {
    try await withStore(kind) { dao in
      let home = try await Self.calendar(dao)
      try await Self.apply(dao, home, Self.object(uid: "s@peer", title: "Sync", overrides: [14]), uid: "s@peer")
      let added = try await Self.add(dao, "Dentist", to: home)
      let key = "\(added.id)@appt"
      #expect(try await dao.pendingChanges(calendarID: home.id) == 1, "a local item with no sync item")
      let item = try #require(try await dao.localItem(calendarID: home.id, uid: key))
      try await dao.recordPushed(calendarID: home.id, uid: key, href: "/h/\(key).ics", etag: "\"a\"", base: item.ics)
      #expect(try await dao.pendingChanges(calendarID: home.id) == 0)
      try await dao.deleteAppointment(id: added.id)
      #expect(try await dao.pendingChanges(calendarID: home.id) == 1, "a sync item with no local rows")
      try await dao.forgetItem(calendarID: home.id, uid: key)
      #expect(try await dao.pendingChanges(calendarID: home.id) == 0)
      #expect(try await dao.syncItems(calendarID: home.id).map(\.uid) == ["s@peer"])
      try await dao.removeServerItem(calendarID: home.id, uid: "s@peer")
      #expect(try await dao.getAllAppointments().isEmpty, "the series and its override")
      #expect(try await dao.syncItems(calendarID: home.id).isEmpty)
      #expect(try await dao.appointments(matching: AppointmentQuery(range: window(december(7), december(8)))).isEmpty)
      // A server that reuses an href for another uid: the old record gives it up.
      try await dao.recordPushed(calendarID: home.id, uid: "a", href: "/h/same.ics", etag: nil, base: "")
      try await dao.recordPushed(calendarID: home.id, uid: "b", href: "/h/same.ics", etag: nil, base: "")
      #expect(try await dao.syncItems(calendarID: home.id).map(\.uid) == ["b"])
    }
  }

  @Test("deleting a calendar deletes its sync items and conflicts", arguments: StoreKind.allCases)
  func deleteCalendarForgetsSync(kind: StoreKind) async throws {
    try await withStore(kind) { dao in
      let home = try await Self.calendar(dao)
      try await Self.apply(dao, home, Self.object(uid: "s@peer", title: "Sync"), uid: "s@peer")
      let id = try #require(try await dao.localItem(calendarID: home.id, uid: "s@peer")?.rows.first?.id)
      try await dao.editAppointment(EditRequest(id: id.description, title: "Mine"))
      try await Self.apply(
        dao,
        home,
        Self.object(uid: "s@peer", title: "Theirs", sequence: 1),
        uid: "s@peer",
        conflict: true
      )
      #expect(try await dao.conflicts().count == 1)
      try await dao.deleteCalendar(home.name, disposal: .deleteAppointments)
      #expect(try await dao.syncItems(calendarID: home.id).isEmpty)
      #expect(try await dao.conflicts().isEmpty)
      let rows = try await dao.database.read { connection throws(StoreError) in
        try connection.scalar("SELECT (SELECT count(*) FROM sync_item) + (SELECT count(*) FROM sync_conflict)")?.int64
      }
      #expect(rows == 0)
    }
  }

  // MARK: - Conflicts

  @Test(
    "resolve --keep server drops the conflict; --keep local puts the local version back",
    arguments: StoreKind.allCases
  )
  func resolve(kind: StoreKind) async throws {
    try await withStore(kind) { dao in
      let home = try await Self.calendar(dao)
      try await Self.apply(dao, home, Self.object(uid: "s@peer", title: "Sync", overrides: [14]), uid: "s@peer")
      try await Self.apply(dao, home, Self.object(uid: "o@peer", title: "Other", weekly: false), uid: "o@peer")
      let series = try #require(try await dao.localItem(calendarID: home.id, uid: "s@peer"))
      let other = try #require(try await dao.localItem(calendarID: home.id, uid: "o@peer"))
      try await dao.editAppointment(EditRequest(id: series.rows[0].id.description, title: "Mine"))
      try await dao.editAppointment(EditRequest(id: other.rows[0].id.description, note: "my note"))
      let mine = try #require(try await dao.localItem(calendarID: home.id, uid: "s@peer"))
      try await Self.apply(
        dao,
        home,
        Self.object(uid: "s@peer", title: "Theirs", overrides: [14], sequence: 5),
        uid: "s@peer",
        conflict: true
      )
      try await Self.apply(
        dao,
        home,
        Self.object(uid: "o@peer", title: "Other theirs", weekly: false),
        uid: "o@peer",
        conflict: true
      )
      let found = try await dao.conflicts()
      #expect(found.map(\.title).sorted() == ["Mine", "Other"])
      #expect(try await dao.pendingChanges(calendarID: home.id) == 0)
      let otherConflict = try #require(found.first { $0.appointment == other.rows[0].id }?.id)
      let seriesConflict = try #require(found.first { $0.appointment == series.rows[0].id }?.id)

      await #expect(
        throws: StoreError.invalidRequest(message: "no conflict with id 0000dead ('appt conflicts' lists them)")
      ) {
        try await dao.resolveConflict(id: "0000dead", keep: .local)
      }
      let server = try await dao.resolveConflict(id: String(otherConflict.description.prefix(8)), keep: .server)
      #expect(server.title == "Other")
      #expect(try await dao.localItem(calendarID: home.id, uid: "o@peer")?.rows.first?.title == "Other theirs")

      let theirs = try #require(try await dao.localItem(calendarID: home.id, uid: "s@peer"))
      let local = try await dao.resolveConflict(id: seriesConflict.description.uppercased(), keep: .local)
      #expect(local.id == seriesConflict && local.appointment == series.rows[0].id)
      #expect(try await dao.conflicts().isEmpty)
      let kept = try #require(try await dao.localItem(calendarID: home.id, uid: "s@peer"))
      #expect(kept.rows.map(\.id) == mine.rows.map(\.id))
      #expect(kept.rows.map(\.title) == ["Mine", "Sync (moved)"])
      #expect(kept.rows.map(\.revision) == theirs.rows.map { $0.revision + 1 }, "written at the next revision")
      #expect(kept.rows.allSatisfy { $0.sequence > 5 }, "above the server's SEQUENCE")
      #expect(try await dao.pendingChanges(calendarID: home.id) == 1, "it goes to the server next")
      await #expect(throws: StoreError.self) { try await dao.resolveConflict(id: local.id.description, keep: .local) }
    }
  }

  @Test("a conflict found again for the same item is kept beside the older one")
  func conflictAgain() async throws {
    try await withStore(.memory) { dao in
      let home = try await Self.calendar(dao)
      try await Self.apply(dao, home, Self.object(uid: "s@peer", title: "Sync"), uid: "s@peer")
      let id = try #require(try await dao.localItem(calendarID: home.id, uid: "s@peer")?.rows.first?.id)
      for (round, title) in ["first", "second"].enumerated() {
        try await dao.editAppointment(EditRequest(id: id.description, title: title))
        try await Self.apply(
          dao,
          home,
          Self.object(uid: "s@peer", title: "Theirs \(round)"),
          uid: "s@peer",
          conflict: true
        )
      }
      // Found at the same (test) moment: in no particular order between them.
      #expect(try await dao.conflicts().map(\.title).sorted() == ["first", "second"])
    }
  }
}

extension StoreError {
  static let noCalendarForTest = StoreError.invalidRequest(
    message: "no calendar with id 00000000-0000-4000-8000-00000000dead"
  )
}

extension SyncStateTests {
  @Test(
    "appt's own text of what the user added, read back as a server's echo, is unchanged",
    arguments: StoreKind.allCases
  )
  func echoOfLocalAdds(kind: StoreKind) async throws {
    try await withStore(kind) { dao in
      let home = try await Self.calendar(dao)
      var requests = [
        AddRequest(title: "Dentist", start: december(3, 10), end: december(3, 11), note: "x-rays", location: "Rue 1"),
        AddRequest(title: "Holiday", start: december(24), end: december(26), isAllDay: true),
        AddRequest(
          title: "Standup",
          start: december(1, 9),
          end: december(1, 9, 15),
          recurrence: Recurrence(frequency: .weekly, weekdays: [.monday, .wednesday], count: 10)
        ),
      ]
      for index in requests.indices { requests[index].calendar = home.name }
      for request in requests { try await dao.addAppointment(request) }
      let standup = try #require(try await dao.getAllAppointments().first { $0.title == "Standup" })
      try await dao.editAppointment(
        EditRequest(id: standup.id.description, title: "Standup, room B", occurrence: december(7))
      )
      let items = try await dao.localItems(calendarID: home.id)
      #expect(items.count == 3)
      for item in items {
        let outcome = try await dao.applyServerItem(
          calendarID: home.id,
          uid: item.uid,
          appointments: Self.read(item.ics),
          href: "/h/\(item.uid).ics",
          etag: nil,
          conflictIfChanged: true
        )
        #expect(outcome == .unchanged, "\(item.rows.map(\.title))")
      }
      #expect(try await dao.localItems(calendarID: home.id) == items)
      #expect(try await dao.conflicts().isEmpty)
    }
  }
}
