import ApptCore
import ApptTestSupport
import Foundation
import Testing

@testable import ApptStore

/// The calendar model in the store (schema 5): overrides as rows of their own, found where
/// they are and replacing their occurrence; THISANDFUTURE; RDATE-only series; splitting a
/// series ("this and following"); SEQUENCE on import; overrides linked to their series by
/// UID; every new field kept; the old detached occurrences migrated to overrides.
@Suite struct CalendarModelStoreTests {
  /// Daily at 09:00 Paris from Monday 7 December 2026, ten times (7 to 16 December).
  func savedDaily(_ dao: AppointmentDAO, uid: String? = nil) async throws -> Appointment {
    try await dao.saveAppointment(
      Appointment(
        title: "Daily",
        start: december(7, 9),
        end: december(7, 10),
        created: TestClock.now,
        timeZone: "Europe/Paris",
        recurrence: Recurrence(frequency: .daily, count: 10),
        uid: uid
      )
    )
  }

  func list(_ dao: AppointmentDAO, _ from: Date, _ to: Date, cancelled: Bool = false) async throws -> [Appointment] {
    try await dao.appointments(matching: AppointmentQuery(range: window(from, to), includeCancelled: cancelled))
  }

  /// The month panel's marks for December, as its first snapshot has them.
  func busyDays(_ dao: AppointmentDAO) async throws -> [BusyDay] {
    var marks = await dao.observeBusyDays(in: window(december(1), december(31))).makeAsyncIterator()
    return try #require(await marks.next()).items
  }

  func override(
    of series: Appointment,
    at slot: Date,
    title: String,
    start: Date,
    minutes: Int = 60,
    thisAndFuture: Bool = false
  ) -> Appointment {
    Appointment(
      title: title,
      start: start,
      end: start.addingTimeInterval(TimeInterval(minutes * 60)),
      created: TestClock.now,
      timeZone: series.timeZone,
      uid: series.uid,
      override: .init(seriesID: series.id, recurrenceID: slot, thisAndFuture: thisAndFuture)
    )
  }

  // MARK: - Persistence

  @Test(arguments: StoreKind.allCases)
  func everyNewFieldIsKept(kind: StoreKind) async throws {
    try await withStore(kind) { dao in
      let series = try await savedDaily(dao, uid: "daily@example.com")
      let stored = try await dao.saveAppointment(
        Appointment(
          title: "Visit",
          start: december(8, 14),
          end: december(8, 15),
          note: "ring twice",
          location: "Quai de la Tournelle",
          created: TestClock.now,
          timeZone: "Europe/Paris",
          recurrence: Recurrence(
            rules: [
              try RecurrenceRule(parsing: "FREQ=WEEKLY;BYDAY=TU;COUNT=3"),
              try RecurrenceRule(parsing: "FREQ=MONTHLY;BYMONTHDAY=20;UNTIL=20270301T000000Z"),
            ],
            dates: [
              .instant(december(9, 14)), .period(december(10, 14), 5400), .local(CivilDateTime(2026, 12, 11, 14)),
              .date(CivilDate(year: 2026, month: 12, day: 12)),
            ]
          ),
          uid: "visit@example.com",
          sequence: 4,
          extras: ICalendarExtras(
            lines: ["ATTENDEE;CN=Ann:mailto:ann@example.com", "X-THING;A=\"b,c\":d\\,e", "BEGIN:VALARM", "END:VALARM"],
            zoneID: "W. Europe Standard Time",
            zoneDefinition: ["BEGIN:VTIMEZONE", "TZID:W. Europe Standard Time", "END:VTIMEZONE"]
          )
        )
      )
      #expect(try await dao.getAppointment(id: stored.id) == stored)
      let moved = try await dao.saveAppointment(
        override(of: series, at: december(9, 9), title: "Later", start: december(9, 11), thisAndFuture: true)
      )
      #expect(try await dao.getAppointment(id: moved.id) == moved)
      #expect(moved.override?.thisAndFuture == true)
    }
  }

  @Test func recurrenceDatesRoundTripThroughTheirText() throws {
    let dates: [RecurrenceDate] = [
      .instant(Date(millisecondsSince1970: -86_400_123)), .instant(december(1, 9)),
      .period(december(2, 9), 5400.5), .local(CivilDateTime(2026, 12, 24, 23, 59, 58)),
      .date(CivilDate(year: 2026, month: 12, day: 31)),
    ]
    let text = RecurrenceDateText.encode(dates)
    #expect(text == "-86400123,1796112000000,1796198400000/5400500,L20261224T235958,D20261231")
    #expect(RecurrenceDateText.decode(text) == dates)
    #expect(RecurrenceDateText.decode("") == [])
    for bad in ["x", "1,", "L2026", "D20261332", "5/0", "5/-1", "L20261224T250000"] {
      #expect(RecurrenceDateText.decode(bad) == nil, "\(bad)")
    }
  }

  @Test(arguments: StoreKind.allCases)
  func searchFindsTheLocation(kind: StoreKind) async throws {
    try await withStore(kind) { dao in
      var visit = TestStore.appointment("Visit", december(8, 14))
      visit.location = "Straße der Pariser Kommune"
      visit = try await dao.saveAppointment(visit)
      _ = try await dao.saveAppointment(TestStore.appointment("Other", december(8, 16)))
      let found = try await dao.appointments(matching: AppointmentQuery(range: nil, search: "STRASSE"))
      #expect(found.map(\.id) == [visit.id])
      let inWindow = try await dao.appointments(
        matching: AppointmentQuery(range: window(december(8), december(9)), search: "pariser")
      )
      #expect(inWindow.map(\.id) == [visit.id])
    }
  }

  // MARK: - Windows

  @Test(arguments: StoreKind.allCases)
  func aMovedOverrideIsFoundOnItsNewDayAndNotOnItsOldOne(kind: StoreKind) async throws {
    try await withStore(kind) { dao in
      let series = try await savedDaily(dao)
      let moved = try await dao.saveAppointment(
        override(of: series, at: december(9, 9), title: "Daily (moved)", start: december(20, 15))
      )
      let old = try await list(dao, december(9), december(10), cancelled: true)
      #expect(old.isEmpty, "the occurrence of the 9th is replaced")
      let new = try await list(dao, december(20), december(21))
      #expect(new.map(\.id) == [moved.id])
      #expect(new.first?.occurrence == nil && new.first?.override?.seriesID == series.id)
      let week = try await list(dao, december(7), december(14))
      #expect(week.count == 6, "seven days, one moved away")
      let days = try await busyDays(dao)
      let clock = TestClock.clock
      #expect(!days.contains { $0.id == clock.dayNumber(of: december(9)) })
      #expect(days.contains(BusyDay(id: clock.dayNumber(of: december(20)))))
      #expect(days.count == 10)
    }
  }

  @Test(arguments: StoreKind.allCases)
  func thisAndFutureChangesTheLaterOccurrencesInAWindow(kind: StoreKind) async throws {
    try await withStore(kind) { dao in
      let series = try await savedDaily(dao)
      _ = try await dao.saveAppointment(
        override(of: series, at: december(10, 9), title: "Later", start: december(10, 11), thisAndFuture: true)
      )
      // A window well after the override: found by the THISANDFUTURE index, not the slot's.
      let friday = try await list(dao, december(14), december(15))
      #expect(friday.map(\.title) == ["Later"])
      #expect(friday.map(\.start) == [december(14, 11)])
      #expect(friday.first?.id == series.id && friday.first?.occurrence == december(14, 9))
      let before = try await list(dao, december(8), december(9))
      #expect(before.map(\.start) == [december(8, 9)], "earlier occurrences are as they were")
    }
  }

  @Test(arguments: StoreKind.allCases)
  func anRDateOnlySeriesIsInItsWindows(kind: StoreKind) async throws {
    try await withStore(kind) { dao in
      let series = try await dao.saveAppointment(
        Appointment(
          title: "Open days",
          start: december(3, 10),
          end: december(3, 11),
          created: TestClock.now,
          timeZone: "Europe/Paris",
          recurrence: Recurrence(rules: [], dates: [.instant(december(17, 10)), .period(december(28, 10), 7200)])
        )
      )
      #expect(try await dao.getAppointment(id: series.id).recurrence?.rules == [])
      let late = try await list(dao, december(15), december(31))
      #expect(late.map(\.start) == [december(17, 10), december(28, 10)])
      #expect(late.map(\.duration) == [3600, 7200])
      #expect(late.allSatisfy { $0.id == series.id })
      #expect(try await list(dao, december(4), december(16)).isEmpty)
      let days = try await busyDays(dao)
      #expect(days.count == 3)
    }
  }

  @Test(arguments: StoreKind.allCases)
  func anOverrideOfACancelledSeriesIsCancelled(kind: StoreKind) async throws {
    try await withStore(kind) { dao in
      let series = try await savedDaily(dao)
      let moved = try await dao.saveAppointment(
        override(of: series, at: december(9, 9), title: "Daily (moved)", start: december(20, 15))
      )
      try await dao.cancelAppointment(id: series.id)
      #expect(try await list(dao, december(20), december(21)).isEmpty)
      let shown = try await list(dao, december(20), december(21), cancelled: true)
      #expect(shown.map(\.id) == [moved.id] && shown.map(\.status) == [.cancelled])
      let all = try await dao.appointments(matching: AppointmentQuery(range: nil))
      #expect(all.isEmpty, "list --all leaves it out too")
      try await dao.restoreAppointment(id: series.id)
      #expect(try await list(dao, december(20), december(21)).map(\.status) == [.scheduled])
      #expect(try await dao.getAppointment(id: moved.id).revision == moved.revision, "not written itself")
    }
  }

  // MARK: - Edits

  @Test(arguments: StoreKind.allCases)
  func editingAnOccurrenceTwiceUpdatesOneOverride(kind: StoreKind) async throws {
    try await withStore(kind) { dao in
      let series = try await savedDaily(dao)
      let first = try await dao.editAppointment(
        EditRequest(id: series.id.description, title: "Moved", start: december(9, 15), occurrence: december(9))
      )
      #expect(first.override == Appointment.Override(seriesID: series.id, recurrenceID: december(9, 9)))
      #expect(first.revision == 1 && first.sequence == 1)
      let second = try await dao.editAppointment(
        EditRequest(id: series.id.description, location: "Room 4", occurrence: december(9))
      )
      #expect(second.id == first.id)
      #expect(second.title == "Moved" && second.location == "Room 4" && second.start == december(9, 15))
      #expect(second.revision == 2 && second.sequence == 2)
      let moved = try await dao.editAppointment(
        EditRequest(id: series.id.description, start: december(20, 18), occurrence: december(9))
      )
      #expect(moved.id == first.id)
      // Named by its original day, where it no longer is, it is the same override again.
      let fourth = try await dao.editAppointment(
        EditRequest(id: series.id.description, note: "fourth", occurrence: december(9))
      )
      #expect(fourth.id == first.id && fourth.note == "fourth")
      let all = try await dao.getAllAppointments()
      #expect(all.filter { $0.override != nil }.count == 1)
      let stored = try await dao.getAppointment(id: series.id)
      #expect(stored.revision == series.revision + 4, "each change writes the series too")
      #expect(stored.exceptions.isEmpty)
      #expect(try await list(dao, december(20), december(21)).map(\.title) == ["Moved"])
      #expect(try await list(dao, december(9), december(10), cancelled: true).isEmpty)
    }
  }

  @Test(arguments: StoreKind.allCases)
  func deletingAnOverrideGivesTheOccurrenceBack(kind: StoreKind) async throws {
    try await withStore(kind) { dao in
      let series = try await savedDaily(dao)
      let moved = try await dao.editAppointment(
        EditRequest(id: series.id.description, title: "Moved", start: december(9, 15), occurrence: december(9))
      )
      #expect(try await list(dao, december(9), december(10)).map(\.title) == ["Moved"])
      try await dao.deleteAppointment(id: moved.id)
      let day = try await list(dao, december(9), december(10))
      #expect(day.map(\.title) == ["Daily"] && day.map(\.start) == [december(9, 9)])
      #expect(try await dao.getAppointment(id: series.id).revision == series.revision + 2)
    }
  }

  @Test(arguments: StoreKind.allCases)
  func deletingOrCancellingASeriesCoversItsOverrides(kind: StoreKind) async throws {
    try await withStore(kind) { dao in
      let series = try await savedDaily(dao)
      _ = try await dao.editAppointment(
        EditRequest(id: series.id.description, start: december(20, 15), occurrence: december(9))
      )
      let cancelled = try await dao.cancelOccurrence(id: series.id, on: december(20))
      #expect(cancelled.override != nil && cancelled.status == .cancelled, "the override's own status")
      #expect(try await dao.getAppointment(id: series.id).exceptions.isEmpty)
      try await dao.restoreOccurrence(id: series.id, on: december(20))
      #expect(try await list(dao, december(20), december(21)).count == 1)
      try await dao.deleteAppointment(id: series.id)
      #expect(try await dao.getAllAppointments().isEmpty)
    }
  }

  @Test(arguments: StoreKind.allCases)
  func editingAndFollowingSplitsTheSeries(kind: StoreKind) async throws {
    try await withStore(kind) { dao in
      let series = try await savedDaily(dao, uid: "daily@example.com")
      try await dao.cancelOccurrence(id: series.id, on: december(8))
      try await dao.cancelOccurrence(id: series.id, on: december(14))
      let moved = try await dao.editAppointment(
        EditRequest(id: series.id.description, title: "Moved", start: december(15, 17), occurrence: december(15))
      )
      let rest = try await dao.editAppointment(
        EditRequest(
          id: series.id.description,
          title: "Daily, new room",
          location: "Room 9",
          occurrence: december(11),
          andFollowing: true
        )
      )
      #expect(rest.id != series.id && rest.uid != series.uid && rest.uid != nil)
      #expect(rest.start == december(11, 9) && rest.recurrence?.count == 6)
      #expect(rest.exceptions == [december(14, 9)], "the exceptions from the split on go with it")
      let head = try await dao.getAppointment(id: series.id)
      #expect(head.title == "Daily" && head.recurrence?.count == 4)
      #expect(head.exceptions == [december(8, 9)])
      #expect(head.sequence == series.sequence + 3)
      let override = try await dao.getAppointment(id: moved.id)
      #expect(override.override?.seriesID == rest.id && override.uid == rest.uid, "the override goes with it")
      let listed = try await list(dao, december(1), december(31))
      #expect(
        listed.map(\.title) == [
          "Daily", "Daily", "Daily", "Daily, new room", "Daily, new room", "Daily, new room", "Moved",
          "Daily, new room",
        ]
      )
      #expect(listed.filter { $0.title == "Daily, new room" }.allSatisfy { $0.location == "Room 9" })
    }
  }

  @Test(arguments: StoreKind.allCases)
  func cancellingAndFollowingSplitsOffACancelledSeries(kind: StoreKind) async throws {
    try await withStore(kind) { dao in
      let series = try await savedDaily(dao)
      let rest = try await dao.setStatus(.cancelled, id: series.id, occurrenceOn: december(12), andFollowing: true)
      #expect(rest.id != series.id && rest.isCancelled)
      #expect(try await list(dao, december(1), december(31)).map(\.start) == (7...11).map { december($0, 9) })
      try await dao.setStatus(.scheduled, id: rest.id, occurrenceOn: nil)
      #expect(try await list(dao, december(1), december(31)).map(\.start) == (7...16).map { december($0, 9) })
      // From the first occurrence on, "and following" is the whole series.
      let whole = try await dao.setStatus(.cancelled, id: series.id, occurrenceOn: december(7), andFollowing: true)
      #expect(whole.id == series.id && whole.isCancelled)
    }
  }

  @Test(arguments: StoreKind.allCases)
  func splittingAnEndlessSeriesEndsItJustBeforeTheSplit(kind: StoreKind) async throws {
    try await withStore(kind) { dao in
      let series = try await dao.saveAppointment(
        Appointment(
          title: "Weekly",
          start: december(7, 9),
          end: december(7, 10),
          created: TestClock.now,
          timeZone: "Europe/Paris",
          recurrence: Recurrence(
            rules: [try RecurrenceRule(parsing: "FREQ=WEEKLY")],
            dates: [.instant(december(10, 9)), .instant(december(24, 9))]
          )
        )
      )
      let rest = try await dao.editAppointment(
        EditRequest(id: series.id.description, title: "Weekly, later", occurrence: december(21), andFollowing: true)
      )
      let head = try await dao.getAppointment(id: series.id)
      #expect(
        head.recurrence?.rules.first?.until == .utc(CivilDateTime(december(21, 9).addingTimeInterval(-1), in: .gmt))
      )
      #expect(head.recurrence?.dates == [.instant(december(10, 9))])
      #expect(rest.recurrence?.rules.first?.until == nil && rest.recurrence?.dates == [.instant(december(24, 9))])
      let listed = try await list(dao, december(1), TestClock.date(2027, 1, 5))
      #expect(listed.map(\.start) == [7, 10, 14, 21, 24, 28].map { december($0, 9) } + [TestClock.date(2027, 1, 4, 9)])
      #expect(listed.map(\.title) == ["Weekly", "Weekly", "Weekly"] + Array(repeating: "Weekly, later", count: 4))
    }
  }

  // MARK: - Import

  @Test(arguments: StoreKind.allCases)
  func importKeepsTheHigherSequence(kind: StoreKind) async throws {
    try await withStore(kind) { dao in
      var event = TestStore.appointment("Board", december(8, 14))
      event.uid = "board@example.com"
      event.sequence = 2
      #expect(try await dao.importAppointments([event]) == (1, 0, 0, 0))
      var older = event
      older.title = "Board (old)"
      older.sequence = 1
      #expect(try await dao.importAppointments([older]) == (0, 0, 1, 0), "an older copy changes nothing")
      let stored = try await dao.getAllAppointments()
      #expect(stored.map(\.title) == ["Board"] && stored.first?.revision == 1)
      var newer = event
      newer.title = "Board (new)"
      newer.sequence = 3
      #expect(try await dao.importAppointments([newer, older]) == (0, 1, 1, 0), "the higher wins, whatever the order")
      #expect(try await dao.getAllAppointments().map(\.title) == ["Board (new)"])
    }
  }

  @Test(arguments: StoreKind.allCases)
  func anOverrideImportedBeforeItsSeriesIsLinkedWhenTheSeriesComes(kind: StoreKind) async throws {
    try await withStore(kind) { dao in
      let uid = "daily@example.com"
      var orphan = TestStore.appointment("Daily (moved)", december(9, 15))
      orphan.uid = uid
      orphan.override = .init(seriesID: nil, recurrenceID: december(9, 9))
      #expect(try await dao.importAppointments([orphan]) == (1, 0, 0, 0))
      #expect(try await list(dao, december(9), december(10)).map(\.title) == ["Daily (moved)"], "on its own")
      var series = Appointment(
        title: "Daily",
        start: december(7, 9),
        end: december(7, 10),
        created: TestClock.now,
        timeZone: "Europe/Paris",
        recurrence: Recurrence(frequency: .daily, count: 10),
        uid: uid
      )
      series.id = AppointmentID()
      #expect(try await dao.importAppointments([series]) == (1, 0, 0, 0))
      let stored = try await dao.getAllAppointments()
      let master = try #require(stored.first { $0.recurrence != nil })
      let linked = try #require(stored.first { $0.override != nil })
      #expect(linked.override?.seriesID == master.id)
      #expect(try await list(dao, december(9), december(10)).map(\.title) == ["Daily (moved)"], "replacing the 9th")
      #expect(try await list(dao, december(1), december(31)).count == 10)
    }
  }

  @Test(arguments: StoreKind.allCases)
  func reimportingTheSameCalendarChangesNothing(kind: StoreKind) async throws {
    try await withStore(kind) { dao in
      let uid = "daily@example.com"
      var override = TestStore.appointment("Daily (moved)", december(9, 15))
      override.uid = uid
      override.sequence = 1
      override.override = .init(seriesID: nil, recurrenceID: december(9, 9))
      override.extras = ICalendarExtras(lines: ["ATTENDEE:mailto:ann@example.com"])
      let series = Appointment(
        title: "Daily",
        start: december(7, 9),
        end: december(7, 10),
        location: "Room 1",
        created: TestClock.now,
        timeZone: "Europe/Paris",
        recurrence: Recurrence(frequency: .daily, count: 10),
        uid: uid,
        extras: ICalendarExtras(lines: ["X-A:1"])
      )
      // The override first, as a file may have it.
      #expect(try await dao.importAppointments([override, series]) == (2, 0, 0, 0))
      let before = try await dao.getAllAppointments()
      #expect(before.first { $0.override != nil }?.override?.seriesID == before.first { $0.recurrence != nil }?.id)
      var again = override
      again.id = AppointmentID()  // a reader makes new ids
      var againSeries = series
      againSeries.id = AppointmentID()
      #expect(try await dao.importAppointments([again, againSeries]) == (0, 0, 2, 0))
      #expect(try await dao.getAllAppointments() == before, "no revision bump either")
    }
  }

  @Test(arguments: StoreKind.allCases)
  func anExportHasEachSeriesWithAllItsOverrides(kind: StoreKind) async throws {
    try await withStore(kind) { dao in
      let series = try await savedDaily(dao)
      let far = try await dao.saveAppointment(
        override(of: series, at: december(16, 9), title: "Far", start: TestClock.date(2027, 3, 1, 9))
      )
      let other = try await dao.saveAppointment(TestStore.appointment("Other", december(20, 9)))
      let first = try await dao.exportAppointments(in: window(december(7), december(8)))
      #expect(Set(first.map(\.id)) == [series.id, far.id], "the override wherever it is")
      let march = try await dao.exportAppointments(in: window(TestClock.date(2027, 3, 1), TestClock.date(2027, 3, 2)))
      #expect(Set(march.map(\.id)) == [series.id, far.id], "the series of an override in the range")
      #expect(try await dao.exportAppointments(in: nil).count == 3)
      #expect(try await dao.exportAppointments(in: window(december(20), december(21))).map(\.id) == [other.id])
    }
  }

  // MARK: - Migration

  /// Writes rows as schema 4 held them (the old `editOccurrence`'s way), then opens the store
  /// with schema 5.
  @Test(arguments: StoreKind.shared)
  func detachedOccurrencesBecomeOverrides(kind: StoreKind) async throws {
    try await withSharedStore(kind) { store in
      let old = store.dao(migrations: Array(Schema.migrations.prefix(4)))
      let series = "00000000-0000-4000-8000-000000000001"
      let detachedID = "00000000-0000-4000-8000-000000000002"
      let decoyID = "00000000-0000-4000-8000-000000000003"
      let lateID = "00000000-0000-4000-8000-000000000004"
      let ms = { (date: Date) in SQLValue.integer(date.millisecondsSince1970) }
      let created = TestClock.now
      let edited = created.addingTimeInterval(3600)
      try await old.database.write { connection throws(StoreError) in
        let insert = """
          INSERT INTO appointment (id, title, start_ms, end_ms, created_ms, updated_ms, time_zone, recurrence,
            exceptions, series_end_ms, revision, uid)
          VALUES (?, ?, ?, ?, ?, ?, 'Europe/Paris', ?, ?, ?, ?, ?)
          """
        // Daily from the 7th; the 9th detached (and moved within its day), the 11th cancelled.
        let exceptions = "\(december(9, 9).millisecondsSince1970),\(december(11, 9).millisecondsSince1970)"
        _ = try connection.run(
          insert,
          [
            .text(series), .text("Daily"), ms(december(7, 9)), ms(december(7, 10)), ms(created), ms(edited),
            .text("FREQ=DAILY;COUNT=10"), .text(exceptions), ms(december(16, 10)), .integer(3), .text("d@example"),
          ]
        )
        let oneOff: [(String, String, Date, Date)] = [
          (detachedID, "Daily", december(9, 14), edited),  // what editOccurrence wrote
          (decoyID, "Lunch", december(9, 12), created.addingTimeInterval(60)),  // added that day: another title
          (lateID, "Call", december(11, 12), edited.addingTimeInterval(60)),  // added after the series' last write
        ]
        for (id, title, start, at) in oneOff {
          _ = try connection.run(
            insert,
            [
              .text(id), .text(title), ms(start), ms(start.addingTimeInterval(3600)), ms(at), ms(at), .null, .text(""),
              .null, .integer(1), .null,
            ]
          )
        }
      }
      await old.database.close()
      let dao = store.dao()
      let all = try await dao.getAllAppointments()
      let byID = Dictionary(uniqueKeysWithValues: all.map { ($0.id.description, $0) })
      let migrated = try #require(byID[detachedID])
      #expect(migrated.override == Appointment.Override(seriesID: try craftedID(series), recurrenceID: december(9, 9)))
      #expect(migrated.uid == "d@example" && migrated.revision == 1)
      #expect(byID[decoyID]?.override == nil, "the same title is preferred")
      #expect(byID[lateID]?.override == nil, "created after the series' last write: not detached from it")
      #expect(byID[series]?.exceptions == [december(11, 9)], "the cancelled occurrence stays an exception")
      #expect(byID[series]?.revision == 3)
      let ninth = try await list(dao, december(9), december(10), cancelled: true)
      #expect(ninth.map(\.title) == ["Lunch", "Daily"] && ninth.map(\.start) == [december(9, 12), december(9, 14)])
    }
  }

  /// A real schema-4 file in which the build of cc2a6b1 (`appt edit --occurrence`) detached
  /// two occurrences of the weekly sync (TZ=GMT): Monday 14 December retitled "Weekly sync,
  /// room B" at 10:00 on 1 December; Wednesday 16 December moved to 14:00 at 10:30, after
  /// "Call with Bob" was added on that day at 10:20; then "Lunch" was added at 11:00 on
  /// Wednesday 9 December, whose occurrence was cancelled (an exception) when the file was made.
  @Test func theOldBuildsDetachedOccurrencesBecomeOverrides() async throws {
    let source = try #require(Bundle.module.url(forResource: "Fixtures/schema-v4-detached", withExtension: "sqlite3"))
    let directory = TemporaryDirectory()
    let copy = directory.file("detached.sqlite3")
    try FileManager.default.copyItem(at: source, to: copy)
    let dao = AppointmentDAO(file: copy, clock: TestClock.clock)
    let all = try await dao.getAllAppointments()
    let sync = try #require(all.first { $0.title == "Weekly sync" && $0.recurrence != nil })
    let gmt = { (day: Int, hour: Int) in CivilDateTime(2026, 12, day, hour).instant(in: .gmt) }
    #expect(sync.exceptions == [gmt(9, 9)], "the cancelled Wednesday stays cancelled")
    let roomB = try #require(all.first { $0.title == "Weekly sync, room B" })
    #expect(roomB.override == Appointment.Override(seriesID: sync.id, recurrenceID: gmt(14, 9)))
    let wednesday = try #require(all.first { $0.title == "Weekly sync" && $0.recurrence == nil })
    #expect(wednesday.override == Appointment.Override(seriesID: sync.id, recurrenceID: gmt(16, 9)))
    #expect(wednesday.start == gmt(16, 14))
    for title in ["Call with Bob", "Lunch"] {
      #expect(all.first { $0.title == title }?.override == nil, "\(title) stays an appointment of its own")
    }
    let week = try await dao.appointments(
      matching: AppointmentQuery(range: DateInterval(start: gmt(14, 0), end: gmt(21, 0)), includeCancelled: true)
    )
    #expect(
      week.map(\.title) == ["Weekly sync, room B", "Weekly sync", "Call with Bob"],
      "Monday's and Wednesday's overrides, no copy of them in the series"
    )
    #expect(try await dao.database.integrityCheck() == ["ok"])
  }
}
