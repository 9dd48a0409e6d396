import ApptCore
import ApptTestSupport
import Foundation
import Testing

@testable import ApptStore

/// Files written by every shipped schema version must open in this build with their data
/// intact. `Fixtures/schema-vN.sqlite3` is a real file made by the build that shipped
/// schema N: four appointments (a note, CJK and emoji, a cancelled one, a two-day one), and
/// from v2 on a weekly series with one cancelled occurrence and a two-day whole-day one, and
/// from v3 on revisions (the dentist's note edited twice: revision 3), from v4 on search keys
/// (v3's file opened by v4, and "Straße ÉTÉ" added), from v5 on the calendar model (v4's
/// file opened by v5, and added: "Site visit" with a location, a SEQUENCE and extras, "Open
/// days" with RDATEs only, one of each kind, "Two rules" with two RRULEs, and an override of
/// the weekly sync's Monday 14 December moved to Tuesday 11:00, "Weekly sync (moved)"), from v6
/// on calendars (v5's file opened by v6, and added: a calendar "work", green and hidden, holding
/// "Team lunch"), from v7 on start order and series weeks (v6's file opened by v7, and added:
/// "Anniversary", yearly three times from 15 June 2026 at 18:00 UTC, and "Standup", daily at
/// 09:00 UTC from 1 December 2026 for ever), from v8 on sync state (v7's file opened by v8, and
/// added through the sync's DAO functions: a calendar "acct/Home" for the collection
/// https://dav.example/calendars/ann/home/ of account "acct", coloured #ff2968, with sync token
/// "tok-1" and last synced at TestClock.now, holding "Swim", weekly from 2 December 2026 four
/// times, as the server's /calendars/ann/home/swim.ics (ETag "e2") renamed it, "Swim (pool
/// closed)", after a local edit "Swim, lane 3", kept as a conflict), from v9 on alarms (v8's file
/// opened by v9 through `appt import`: "Call mum" on 10 December 2026 at 18:00 UTC with two
/// VALARMs, DISPLAY 15 minutes before and AUDIO at 08:00 UTC that day repeated twice every 5
/// minutes; then `appt remind --once` at 17:45:05 UTC recorded the first as fired and the
/// three AUDIO instances as missed), from v10 on series days (v9's file opened by v10), from
/// v11 on the window index (v10's file opened by v11), from v12 on the series window index
/// (v11's file opened by v12), from v13 on conflict history (v12's file opened by v13), from
/// v14 on identity per calendar (v13's file opened by v14, and added by `appt import --calendar
/// work`: a copy of "Site visit", same UID, titled "Site visit (work copy)"), from v15 on the
/// user's calendars (v14's file opened by v15, then `appt calendar rename acct/Home Family` and
/// `appt calendar unsync Family`), from v16 on the floating events' index (v15's file opened
/// by v16), from v17 on events of no length (v16's file opened by v17 through `appt import`:
/// "Call back", 1 December 2026 at 09:00 UTC without DTEND).
@Suite struct SchemaFixtureTests {
  static let fixtures: [Int: String] = [
    1: "schema-v1", 2: "schema-v2", 3: "schema-v3", 4: "schema-v4", 5: "schema-v5", 6: "schema-v6",
    7: "schema-v7", 8: "schema-v8", 9: "schema-v9", 10: "schema-v10", 11: "schema-v11",
    12: "schema-v12", 13: "schema-v13", 14: "schema-v14", 15: "schema-v15",
    16: "schema-v16", 17: "schema-v17",
  ]

  @Test(arguments: fixtures.keys.sorted())
  func migratesForwardWithDataIntact(version: Int) async throws {
    #expect(Self.fixtures.count == Schema.migrations.count, "add a fixture for every new schema version")
    let name = try #require(Self.fixtures[version])
    let source = try #require(Bundle.module.url(forResource: "Fixtures/\(name)", withExtension: "sqlite3"))
    let directory = TemporaryDirectory()
    let copy = directory.file("\(name).sqlite3")
    try FileManager.default.copyItem(at: source, to: copy)

    let dao = AppointmentDAO(file: copy, clock: TestClock.clock)
    let all = try await dao.getAllAppointments()
    let byTitle = Dictionary(all.map { ($0.title, $0) }, uniquingKeysWith: { first, _ in first })
    for title in ["Dentist", "会議 🎉", "Cancelled one", "Multi-day conference"] {
      #expect(byTitle[title] != nil, "\(title) is missing")
    }
    #expect(byTitle["Cancelled one"]?.status == .cancelled)
    #expect(byTitle["Dentist"]?.note == "bring the x-rays")
    #expect(byTitle["Dentist"]?.duration == TimeInterval(45 * 60))
    #expect(byTitle["Multi-day conference"]?.duration == TimeInterval(2 * 86_400))
    if version >= 2 {
      let series = try #require(byTitle["Weekly sync"])
      #expect(series.recurrence == Recurrence(frequency: .weekly, weekdays: [.monday, .wednesday], count: 10))
      #expect(series.exceptions.count == 1)
      #expect(byTitle["Holiday"]?.isAllDay == true)
      let week = DateInterval(start: TestClock.date(2026, 12, 7), end: TestClock.date(2026, 12, 14))
      let listed = try await dao.appointments(matching: AppointmentQuery(range: week, includeCancelled: true))
      let occurrences = listed.filter { $0.title == "Weekly sync" }
      #expect(occurrences.map(\.status) == [.scheduled, .cancelled], "Mon, and Wed cancelled alone")
    } else {
      #expect(all.allSatisfy { $0.recurrence == nil && !$0.isAllDay && $0.timeZone.isEmpty })
    }
    if version >= 3 {
      #expect(byTitle["Dentist"]?.revision == 3)
      #expect(byTitle["Cancelled one"]?.revision == 2)
      #expect(byTitle["Weekly sync"]?.revision == 2, "one occurrence cancelled")
    } else {
      #expect(all.allSatisfy { $0.revision == 1 }, "rows from before revisions start at 1")
    }
    // Search keys are filled in for rows written before they existed.
    let search = { (text: String) async throws in
      try await dao.appointments(matching: AppointmentQuery(range: nil, includeCancelled: true, search: text))
        .map(\.title)
    }
    #expect(try await search("DENTIST") == ["Dentist"])
    #expect(try await search("X-RAYS") == ["Dentist"], "the note too")
    #expect(try await search("会議") == ["会議 🎉"])
    if version >= 4 { #expect(try await search("strasse ete") == ["Straße ÉTÉ"]) }
    if version >= 5 {
      let visit = try #require(byTitle["Site visit"])
      #expect(visit.location == "Quai de la Tournelle, Paris")
      #expect(visit.sequence == 2)
      #expect(visit.uid == "visit-1@example.com")
      #expect(visit.extras.lines.first == "ATTENDEE;CN=Ann:mailto:ann@example.com")
      #expect(visit.extras.lines.count == 5)
      #expect(visit.extras.zoneID == "W. Europe Standard Time")
      #expect(visit.extras.zoneDefinition.count == 3)
      #expect(
        try await search("TOURNELLE") == ["Site visit"] + (version >= 14 ? ["Site visit (work copy)"] : []),
        "the location too"
      )
      let open = try #require(byTitle["Open days"]?.recurrence)
      #expect(open.rules.isEmpty)
      #expect(
        open.dates == [
          .instant(TestClock.date(2026, 12, 10, 10)), .period(TestClock.date(2026, 12, 17, 10), 7200),
          .local(CivilDateTime(2026, 12, 24, 10)), .date(CivilDate(year: 2026, month: 12, day: 31)),
        ]
      )
      #expect(byTitle["Two rules"]?.recurrence?.rules.count == 2)
      let sync = try #require(byTitle["Weekly sync"])
      let moved = try #require(byTitle["Weekly sync (moved)"])
      let slot = Date(timeIntervalSince1970: 1_797_238_800)  // Mon 14 Dec 2026 09:00 UTC
      #expect(moved.override == Appointment.Override(seriesID: sync.id, recurrenceID: slot))
      let week = DateInterval(start: TestClock.date(2026, 12, 14), end: TestClock.date(2026, 12, 21))
      let listed = try await dao.appointments(matching: AppointmentQuery(range: week))
      #expect(
        listed.filter { $0.title.hasPrefix("Weekly sync") }.map(\.start)
          == [slot.addingTimeInterval(86400 + 7200), slot.addingTimeInterval(2 * 86400)],
        "Monday's occurrence is where its override moved it; Wednesday's is in its place"
      )
      let december = DateInterval(start: TestClock.date(2026, 12, 1), end: TestClock.date(2027, 1, 1))
      let openDays = try await dao.appointments(matching: AppointmentQuery(range: december))
        .filter { $0.title == "Open days" }
      #expect(openDays.count == 5, "DTSTART and four RDATEs")
      #expect(openDays.map(\.duration) == [3600, 3600, 7200, 3600, 3600])
    }
    // Calendars: every row of an older file is in `personal`, the one calendar it has.
    let calendars = try await dao.calendars(counts: true)
    let personal = try #require(calendars.first { $0.name == "personal" })
    #expect(personal.id == Schema.personalCalendarID)
    #expect(personal.isShown && personal.color == "blue" && personal.source == "local")
    if version >= 6 {
      let work = try #require(calendars.first { $0.name == "work" })
      #expect(work.color == "green" && !work.isShown)
      let synced = calendars.filter { $0.source == "caldav" }
      let held = all.filter { row in !synced.contains { $0.id == row.calendarID } }
      let home = version >= 15 ? ["Family"] : version >= 8 ? ["acct/Home"] : []
      #expect(calendars.map(\.name) == ["personal", "work"] + home)
      let workTitles = ["Team lunch"] + (version >= 14 ? ["Site visit (work copy)"] : [])
      #expect(all.filter { $0.calendarID == work.id }.map(\.title).sorted() == workTitles.sorted())
      #expect(held.filter { $0.calendarID != work.id }.allSatisfy { $0.calendarID == personal.id })
      #expect(work.count == workTitles.count && personal.count == held.count - workTitles.count)
      if version >= 14 {
        // One UID in two calendars: two events, each its calendar's.
        let copies = all.filter { $0.uid == "visit-1@example.com" }
        #expect(Set(copies.map(\.calendarID)) == [personal.id, work.id] && Set(copies.map(\.id)).count == 2)
      }
    } else {
      #expect(calendars.map(\.name) == ["personal"])
      #expect(all.allSatisfy { $0.calendarID == personal.id }, "every row moved into personal")
      #expect(personal.count == all.count)
    }
    if version >= 7 {
      // The series weeks: a yearly series is found in its third year and not between its
      // occurrences, and a series without end far ahead (a "wide" one, every window reads it).
      let titles = { (from: Date, days: Double) async throws in
        try await dao.appointments(matching: AppointmentQuery(range: DateInterval(start: from, duration: days * 86400)))
          .map(\.title).filter { $0 == "Anniversary" || $0 == "Standup" }
      }
      #expect(try await titles(TestClock.date(2028, 6, 15), 1) == ["Standup", "Anniversary"])
      #expect(try await titles(TestClock.date(2027, 12, 15), 7).filter { $0 == "Anniversary" }.isEmpty)
      #expect(try await titles(TestClock.date(2041, 3, 1), 1) == ["Standup"])
    }
    // The sync state: none before v8; v8's calendar, item and conflict.
    let synced = try await dao.remoteCalendars(account: "acct")
    if version >= 8 {
      let home = try #require(synced.first)
      #expect(synced.map(\.name) == [version >= 15 ? "Family" : "acct/Home"])
      // The server's name: read from the local one by the migration to v15.
      #expect(home.remoteName == "Home")
      #expect(home.syncs == (version < 15), "v15's file: sync turned off")
      if version >= 15 {
        let sync = try await dao.remoteCalendar(
          account: "acct",
          url: home.remoteURL ?? "",
          displayName: "Home",
          color: nil
        )
        #expect(sync == nil, "a sync leaves it alone")
      }
      #expect(home.remoteURL == "https://dav.example/calendars/ann/home/" && home.color == "#ff2968")
      #expect(home.syncedAt == TestClock.now)
      #expect(try await dao.syncToken(calendarID: home.id) == "tok-1")
      let items = try await dao.syncItems(calendarID: home.id)
      #expect(items.map(\.href) == ["/calendars/ann/home/swim.ics"] && items.map(\.etag) == ["\"e2\""])
      let swim = try #require(try await dao.localItem(calendarID: home.id, uid: "swim@example.com"))
      #expect(swim.rows.map(\.title) == ["Swim (pool closed)"])
      let conflicts = try await dao.conflicts()
      #expect(conflicts.map(\.title) == ["Swim, lane 3"] && conflicts.map(\.id) == [swim.rows[0].id])
      // A conflict kept before its own ids is its event's, under both names.
      #expect(conflicts.map(\.appointment) == [swim.rows[0].id])
      #expect(conflicts.first?.localICS.contains("SUMMARY:Swim\\, lane 3") == true)
      #expect(try await dao.pendingChanges(calendarID: home.id) == 0)
    } else {
      #expect(synced.isEmpty)
      #expect(try await dao.conflicts().isEmpty)
      #expect(calendars.allSatisfy { $0.syncedAt == nil && $0.remoteURL == nil })
    }
    // Alarms: every row's count of VALARMs (v5's "Site visit" has one in its extras), and
    // v9's fired records.
    let counted = try await dao.database.read { connection throws(StoreError) in
      var counts: [String: Int64] = [:]
      try connection.query("SELECT title, alarms FROM appointment WHERE alarms > 0", []) { row throws(StoreError) in
        counts[row.string(at: 0)] = row.int64(at: 1)
      }
      return counts
    }
    let copied: [String: Int64] = version >= 14 ? ["Site visit (work copy)": 1] : [:]
    let alarmed: [String: Int64] =
      version >= 9 ? ["Site visit": 1, "Call mum": 2] : version >= 5 ? ["Site visit": 1] : [:]
    #expect(counted == alarmed.merging(copied) { a, _ in a })
    let december10 = DateInterval(start: TestClock.date(2026, 12, 10), end: TestClock.date(2026, 12, 11))
    let instances = try await dao.alarmInstances(in: december10)
    let records = try await dao.recordedAlarmKeys(from: december10.start)
    if version >= 9 {
      #expect(instances.map(\.appointment.title) == Array(repeating: "Call mum", count: 4))
      #expect(records == Set(instances.map(\.key)), "all four handled")
      let display = try #require(instances.last)
      let outcome = try await dao.recordedAlarmOutcome(key: display.key)
      #expect(outcome == .fired)
    } else {
      #expect(records.isEmpty)
    }
    // Every stored series has its weeks (the migration wrote them for older files).
    let unlisted = try await dao.database.read { connection throws(StoreError) in
      try connection.scalar(
        "SELECT count(*) FROM appointment WHERE \(Schema.isSeries) AND id NOT IN (SELECT series_id FROM series_week)"
      )?.int64
    }
    #expect(unlisted == 0)
    if version >= 7 {
      // The rows were written again with their days: the anniversary's on its one day of
      // each of its three weeks, the endless daily standup's on all seven.
      let days = try await dao.database.read { connection throws(StoreError) in
        var days: [String: [Int64]] = [:]
        try connection.query(
          """
          SELECT a.title, w.days FROM series_week AS w JOIN appointment AS a ON a.id = w.series_id
          WHERE a.title IN ('Anniversary', 'Standup') ORDER BY w.week
          """,
          []
        ) { row throws(StoreError) in days[row.string(at: 0), default: []].append(row.int64(at: 1)) }
        return days
      }
      #expect(days["Anniversary"] == [16, 32, 1], "Monday 15 June 2026, Tuesday 2027, Thursday 2028")
      #expect(days["Standup"] == [SeriesWeeks.allDays])
    }
    // The rows are in start order in the file, the series after the one-offs (the migration
    // rebuilt the table that way).
    let outOfOrder = try await dao.database.read { connection throws(StoreError) in
      try connection.scalar(
        """
        SELECT count(*) FROM (SELECT start_ms, \(Schema.isSeries) AS series,
          lag(start_ms) OVER (ORDER BY rowid) AS previous, lag(\(Schema.isSeries)) OVER (ORDER BY rowid) AS previous_series
          FROM appointment)
        WHERE series < previous_series OR (series = previous_series AND start_ms < previous)
        """
      )?.int64
    }
    #expect(outOfOrder == 0)
    // Every file has the window index once opened (integrity_check holds its entries to the
    // rows: the one-offs and overrides, each once).
    let windowIndex = try await dao.database.read { connection throws(StoreError) in
      try connection.scalar("SELECT count(*) FROM sqlite_master WHERE type = 'index' AND name = 'appointment_window'")?
        .int64
    }
    #expect(windowIndex == 1)
    #expect(try await dao.database.integrityCheck() == ["ok"])
    let current = try await dao.database.read { connection throws(StoreError) in
      try connection.scalar("PRAGMA user_version")?.int64
    }
    #expect(current == Int64(Schema.migrations.count))
    if version >= 17 {
      // Imported without a DTEND: an event of no length.
      #expect(byTitle["Call back"]?.duration == 0)
      #expect(byTitle["Call back"]?.start == Date(timeIntervalSince1970: 1_796_115_600))
    }
    // Every file, once opened, takes an event of no length.
    let noon = TestClock.date(2026, 12, 2, 12)
    let moment = try await dao.saveAppointment(
      Appointment(title: "Moment", start: noon, end: noon, created: TestClock.now)
    )
    #expect(try await dao.getAllAppointments().first { $0.id == moment.id }?.duration == 0)
  }
}
