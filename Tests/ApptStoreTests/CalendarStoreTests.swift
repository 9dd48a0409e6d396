import ApptCore
import ApptTestSupport
import Foundation
import Testing

@testable import ApptStore

/// Several calendars in one store, on every engine.
@Suite("Calendars in the store", .hangBackstop)
struct CalendarStoreTests {
  static let day = window(december(1), december(2))

  func add(_ dao: AppointmentDAO, _ title: String, hour: Int, calendar: String? = nil) async throws -> Appointment {
    var request = AddRequest(title: title, start: december(1, hour), end: december(1, hour + 1))
    request.calendar = calendar
    return try await dao.addAppointment(request)
  }

  func titles(_ dao: AppointmentDAO, _ query: AppointmentQuery) async throws -> [String] {
    try await dao.appointments(matching: query).map(\.title)
  }

  @Test("a new store has personal; add puts appointments there unless --calendar says", arguments: StoreKind.allCases)
  func addAndList(kind: StoreKind) async throws {
    try await withStore(kind) { dao in
      #expect(try await dao.calendars().map(\.name) == ["personal"])
      let work = try await dao.addCalendar(name: "Work", color: "RED")
      #expect(work.color == "red")
      let dentist = try await add(dao, "Dentist", hour: 10)
      let standup = try await add(dao, "Standup", hour: 9, calendar: "work")
      #expect(dentist.calendarID == Schema.personalCalendarID)
      #expect(standup.calendarID == work.id, "names are found whatever their case")
      #expect(try await titles(dao, AppointmentQuery(range: Self.day, calendars: ["WORK"])) == ["Standup"])
      #expect(try await titles(dao, AppointmentQuery(range: nil, calendars: ["personal"])) == ["Dentist"])
      #expect(try await titles(dao, AppointmentQuery(range: Self.day)) == ["Standup", "Dentist"])
      let counts = try await dao.calendars(counts: true)
      #expect(counts.map(\.name) == ["personal", "Work"])
      #expect(counts.map(\.count) == [1, 1])
      await #expect(
        throws: StoreError.invalidRequest(message: CalendarRules.unknown("wrok", among: ["personal", "Work"]))
      ) {
        try await self.titles(dao, AppointmentQuery(range: Self.day, calendars: ["wrok"]))
      }
      #expect(CalendarRules.unknown("wrok", among: ["personal", "Work"]).contains("did you mean \"Work\"?"))
      await #expect(throws: StoreError.self) { try await dao.addCalendar(name: "WORK") }
      await #expect(throws: StoreError.self) { try await dao.addCalendar(name: "x", color: "purple") }
      #expect(try await dao.calendars().count == 2, "refused adds change nothing")
    }
  }

  @Test("rename, recolour, hide: kept in the store", arguments: StoreKind.allCases)
  func renameRecolorHide(kind: StoreKind) async throws {
    try await withStore(kind) { dao in
      try await dao.addCalendar(name: "work")
      let standup = try await add(dao, "Standup", hour: 9, calendar: "work")
      _ = try await add(dao, "Dentist", hour: 10)
      let renamed = try await dao.renameCalendar("personal", to: "Home")
      #expect(renamed.id == Schema.personalCalendarID)
      await #expect(throws: StoreError.self) { try await dao.renameCalendar("home", to: "WORK") }
      try await dao.renameCalendar("home", to: "HOME")  // its own name in another case
      try await dao.setCalendarColor("work", "#00ff00")
      try await dao.setCalendarShown("work", false)
      let calendars = try await dao.calendars()
      #expect(calendars.map(\.name) == ["HOME", "work"])
      #expect(calendars.map(\.colorIndex) == [4, 2])
      #expect(calendars.map(\.isShown) == [true, false])
      // Hidden: out of what the calendar's screen asks for, still in what the CLI lists.
      let screen = AppointmentQuery(range: Self.day, onlyShownCalendars: true)
      #expect(try await titles(dao, screen) == ["Dentist"])
      #expect(try await titles(dao, AppointmentQuery(range: Self.day)) == ["Standup", "Dentist"])
      // A day only the hidden calendar's appointment touches is not marked; one the shown
      // calendar also touches is.
      var offsite = AddRequest(title: "Offsite", start: december(2, 9), end: december(2, 10))
      offsite.calendar = "work"
      _ = try await dao.addAppointment(offsite)
      var month = await dao.observeBusyDays(in: window(december(1), december(3)), onlyShownCalendars: true)
        .makeAsyncIterator()
      let clock = TestClock.clock
      #expect(
        try await nextSnapshot(&month).items.map(\.id) == [clock.dayNumber(of: december(1))],
        "the month marks only what shown calendars touch"
      )
      var all = await dao.observeBusyDays(in: window(december(1), december(3))).makeAsyncIterator()
      #expect(try await nextSnapshot(&all).items.count == 2, "all calendars: both days")
      #expect(try await dao.getAppointment(id: standup.id).calendarID == calendars[1].id)
    }
  }

  @Test("a series moves with its overrides; an occurrence alone cannot move", arguments: StoreKind.allCases)
  func seriesMoveWithOverrides(kind: StoreKind) async throws {
    try await withStore(kind) { dao in
      let work = try await dao.addCalendar(name: "work")
      var request = AddRequest(title: "Standup", start: december(1, 9), end: december(1, 10))
      request.recurrence = Recurrence(frequency: .daily, count: 5)
      let series = try await dao.addAppointment(request)
      let moved = try await dao.editAppointment(
        EditRequest(id: series.id.description, title: "Late", occurrence: december(2))
      )
      #expect(moved.calendarID == Schema.personalCalendarID, "an override is in its series' calendar")
      var move = EditRequest(id: series.id.description)
      move.calendar = "work"
      try await dao.editAppointment(move)
      #expect(try await dao.getAppointment(id: series.id).calendarID == work.id)
      #expect(try await dao.getAppointment(id: moved.id).calendarID == work.id, "its override moved with it")
      var occurrenceOnly = EditRequest(id: series.id.description, occurrence: december(3))
      occurrenceOnly.calendar = "personal"
      await #expect(throws: StoreError.self) { try await dao.editAppointment(occurrenceOnly) }
      let week = AppointmentQuery(range: window(december(1), december(8)), calendars: ["work"])
      #expect(try await titles(dao, week) == ["Standup", "Late", "Standup", "Standup", "Standup"])
      #expect(
        try await titles(dao, AppointmentQuery(range: window(december(1), december(8)), calendars: ["personal"])) == []
      )
    }
  }

  @Test(
    "delete: refused while it holds appointments, else moves or deletes them in one go",
    arguments: StoreKind.allCases
  )
  func deleteCalendar(kind: StoreKind) async throws {
    try await withStore(kind) { dao in
      try await dao.addCalendar(name: "work")
      try await dao.addCalendar(name: "old")
      let standup = try await add(dao, "Standup", hour: 9, calendar: "work")
      _ = try await add(dao, "Gone", hour: 11, calendar: "old")
      await #expect(throws: StoreError.self) { try await dao.deleteCalendar("work", disposal: .refuse) }
      await #expect(throws: StoreError.self) { try await dao.deleteCalendar("work", disposal: .moveTo("nope")) }
      await #expect(throws: StoreError.self) { try await dao.deleteCalendar("work", disposal: .moveTo("WORK")) }
      #expect(try await dao.calendars().count == 3, "refusals change nothing")
      let deleted = try await dao.deleteCalendar("work", disposal: .moveTo("personal"))
      #expect(deleted.count == 1)
      let after = try await dao.getAppointment(id: standup.id)
      #expect(after.calendarID == Schema.personalCalendarID)
      #expect(after.revision == standup.revision + 1, "a moved row is a change")
      try await dao.deleteCalendar("old", disposal: .deleteAppointments)
      #expect(try await dao.getAllAppointments().map(\.title) == ["Standup"])
      try await dao.addCalendar(name: "other")
      try await dao.deleteCalendar("personal", disposal: .moveTo("other"))  // personal is not special
      await #expect(throws: StoreError.self) { try await dao.deleteCalendar("other", disposal: .deleteAppointments) }
      #expect(try await dao.calendars().map(\.name) == ["other"], "the last calendar stays")
      // With personal gone, add without --calendar goes to the first calendar.
      let next = try await add(dao, "Next", hour: 12)
      #expect(next.calendarID == (try await dao.calendars().first?.id))
    }
  }

  @Test("import into a calendar; a re-import without one leaves it where it is", arguments: StoreKind.allCases)
  func importIntoCalendar(kind: StoreKind) async throws {
    try await withStore(kind) { dao in
      let work = try await dao.addCalendar(name: "work")
      let event = Appointment(
        title: "Review",
        start: december(1, 14),
        end: december(1, 15),
        created: TestClock.now,
        uid: "review-1@example.com"
      )
      #expect(try await dao.importAppointments([event], calendar: "work").added == 1)
      var changed = event
      changed.title = "Review (moved)"
      #expect(try await dao.importAppointments([changed]).updated == 1)
      let stored = try #require(try await dao.getAllAppointments().first)
      #expect(stored.calendarID == work.id)
      await #expect(throws: StoreError.self) { try await dao.importAppointments([event], calendar: "nope") }
      #expect(try await dao.exportAppointments(in: nil, calendar: "personal").isEmpty)
      #expect(try await dao.exportAppointments(in: nil, calendar: "work").map(\.title) == ["Review (moved)"])
    }
  }

  @Test(
    "an import into another calendar adds a copy; a calendar never holds one event twice",
    arguments: StoreKind.allCases
  )
  func oneEventInTwoCalendars(kind: StoreKind) async throws {
    try await withStore(kind) { dao in
      _ = try await dao.addCalendar(name: "work")
      let event = Appointment(
        title: "Review",
        start: december(1, 14),
        end: december(1, 15),
        created: TestClock.now,
        uid: "review-1@example.com"
      )
      #expect(try await dao.importAppointments([event]).added == 1)
      var copy = event
      copy.title = "Review (work)"
      #expect(try await dao.importAppointments([copy], calendar: "work").added == 1)
      #expect(try await dao.importAppointments([copy], calendar: "work").unchanged == 1)
      #expect(try await dao.exportAppointments(in: nil, calendar: "personal").map(\.title) == ["Review"])
      #expect(try await dao.exportAppointments(in: nil, calendar: "work").map(\.title) == ["Review (work)"])
      let before = try await dao.getAllAppointments()
      let refused = await #expect(throws: StoreError.self) {
        try await dao.deleteCalendar("work", disposal: .moveTo("personal"))
      }
      #expect(refused?.description.contains("both hold the event with UID review-1@example.com") == true)
      #expect(try await dao.getAllAppointments() == before, "nothing changed")
      #expect(try await dao.calendars().map(\.name) == ["personal", "work"])
    }
  }

  @Test("the calendar list and the screen's window follow another connection's commits", arguments: StoreKind.shared)
  func observationAcrossConnections(kind: StoreKind) async throws {
    try await withTimeout {
      try await withSharedStore(kind) { store in
        let a = store.dao()
        let b = store.dao()
        try await b.addCalendar(name: "work")
        _ = try await add(b, "Standup", hour: 9, calendar: "work")
        var calendars = await a.observeCalendars().makeAsyncIterator()
        #expect(try await nextSnapshot(&calendars).items.map(\.name) == ["personal", "work"])
        var day = await a.observeAppointments(AppointmentQuery(range: Self.day, onlyShownCalendars: true))
          .makeAsyncIterator()
        #expect(try await nextSnapshot(&day).items.map(\.title) == ["Standup"])
        try await b.setCalendarShown("work", false)
        await a.database.checkForExternalChanges()
        #expect(try await nextSnapshot(&calendars).items.map(\.isShown) == [true, false])
        #expect(try await nextSnapshot(&day).items.isEmpty, "hiding a calendar empties its appointments from the day")
        try await b.renameCalendar("work", to: "job")
        await a.database.checkForExternalChanges()
        #expect(try await nextSnapshot(&calendars).items.map(\.name) == ["personal", "job"])
      }
    }
  }
}

/// The calendar condition keeps each window query on its index, on both engines: the series
/// query on `appointment_series` (a full calendar index would make the planner read every row
/// of the calendars), the one-off query on an index too, never a table scan.
@Suite struct CalendarQueryPlanTests {
  static let calendars = "calendar_id IN ('5e7a0c11-0000-4000-8000-000000000001', 'x')"

  @Test("with a calendar condition the series query still uses appointment_series", arguments: StoreKind.allCases)
  func seriesQuery(kind: StoreKind) async throws {
    try await withStore(kind) { dao in
      let sql =
        "SELECT \(Appointment.table.columnList) FROM appointment WHERE \(WindowQueryPlanTests.condition)"
        + " AND status = 'scheduled' AND \(Self.calendars)"
      let plan = try await WindowQueryPlanTests.plan(sql, on: dao, kind: kind)
      #expect(plan.contains("appointment_series"), "\(plan)")
      #expect(!plan.contains("SCAN appointment") && !plan.contains("Seq Scan"), "\(plan)")
    }
  }

  @Test("with a calendar condition the one-off query reads an index", arguments: StoreKind.allCases)
  func oneOffQuery(kind: StoreKind) async throws {
    try await withStore(kind) { dao in
      let sql =
        "SELECT \(Appointment.table.columnList) FROM appointment WHERE start_ms >= 1780444800000"
        + " AND start_ms < 1781049600000 AND end_ms > 1780444800000 AND recurrence IS NULL AND rdates = ''"
        + " AND status = 'scheduled' AND \(Self.calendars)"
      let plan = try await WindowQueryPlanTests.plan(sql, on: dao, kind: kind)
      #expect(plan.contains("appointment_by_calendar") || plan.contains("appointment_by_start"), "\(plan)")
      #expect(!plan.contains("SCAN appointment") && !plan.contains("Seq Scan"), "\(plan)")
    }
  }
}
