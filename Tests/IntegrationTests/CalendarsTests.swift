import ApptCore
import ApptRuntime
import ApptStore
import ApptTestSupport
import ApptUI
import Foundation
import Testing

/// Several calendars end to end: the commands (`calendars`, `calendar ...`, `--calendar`)
/// through the executor the CLI, scripts and the `:` line share, and the calendar's screen
/// (markers, `C`, the form's Calendar field) driven headlessly against a real file.
@MainActor
@Suite struct CalendarsTests {
  let directory = TemporaryDirectory()

  func freshDAO() -> AppointmentDAO { TestStore.fileDAO(in: directory) }

  @discardableResult
  func run(_ line: String, json: Bool = false, on dao: AppointmentDAO) async throws(CommandExecutor.Failure) -> String {
    let executor = CommandExecutor(dao: dao, clock: TestClock.clock, json: json)
    guard let command = try executor.parse(line: line) else { return "" }
    return try await executor.run(command)
  }

  func failure(_ line: String, on dao: AppointmentDAO) async -> CommandExecutor.Failure? {
    do throws(CommandExecutor.Failure) {
      _ = try await run(line, on: dao)
      return nil
    } catch {
      return error
    }
  }

  // MARK: - Commands

  @Test func commandsListAddMoveAndDelete() async throws {
    let dao = freshDAO()
    #expect(try await run("calendar add Work --color red", on: dao) == "added calendar Work (red)\n")
    let added = try await run("add Standup --at 2026-11-30 09:00 -c work", json: true, on: dao)
    #expect(added.contains(",\"calendar\":\"Work\",\"reminders\":[],"), "JSON names the calendar")
    let id = try #require(try await dao.getAllAppointments().first?.id.short)
    #expect(try await run("show \(id)", on: dao).contains("\ncalendar: Work\n"))
    try await run("add Dentist --at 2026-11-30 10:00", on: dao)
    #expect(
      try await run("calendars", on: dao)
        == """
        personal  blue     local   1 appointment     shown
        Work      red      local   1 appointment     shown

        """
    )
    #expect(
      try await run("calendars", json: true, on: dao).split(separator: "\n").last
        == "{\"name\":\"Work\",\"color\":\"red\",\"source\":\"local\",\"account\":null,\"shown\":true,\"appointments\":1}"
    )
    #expect(try await run("list --from 2026-11-30 -c personal", on: dao).contains("Dentist"))
    #expect(!(try await run("list --from 2026-11-30 -c personal", on: dao)).contains("Standup"))
    #expect(try await run("list --from 2026-11-30 -c personal -c work", on: dao).split(separator: "\n").count == 2)
    try await run("edit \(id) -c personal", on: dao)
    #expect(try await run("list --from 2026-11-30 -c work", on: dao).isEmpty, "edit -c moved it")
    try await run("calendar rename work Job", on: dao)
    try await run("calendar color job '#00ff00'", on: dao)
    try await run("calendar hide job", on: dao)
    #expect(
      try await dao.calendars().last
        == CalendarInfo(
          id: try await dao.calendar(named: "job").id,
          name: "Job",
          color: "#00ff00",
          isShown: false,
          position: 1
        )
    )
    #expect(try await run("calendar delete job", on: dao) == "deleted calendar Job\n", "empty: nothing to refuse")
  }

  @Test func unknownCalendarsAreNamedWithADidYouMean() async throws {
    let dao = freshDAO()
    try await run("calendar add work", on: dao)
    for line in [
      "add X --at 10:00 -c wrok", "list -c wrok", "export -c wrok", "calendar hide wrok",
      "import /nonexistent.ics -c wrok",
    ] {
      let refused = await failure(line, on: dao)
      #expect(refused?.kind == .invalid, "\(line)")
      #expect(refused?.message.contains("no calendar \"wrok\"; did you mean \"work\"?") == true, "\(line)")
    }
    #expect(try await dao.getAllAppointments().isEmpty)
    let refusal = await failure("calendar delete personal --move-to nowhere", on: dao)
    #expect(refusal?.message.hasPrefix("no calendar \"nowhere\"") == true)
    #expect(await failure("calendar add Work", on: dao)?.message == "calendar \"work\" exists already")
    try await run("add X --at 2026-11-30 10:00 -c work", on: dao)
    #expect(await failure("calendar delete work", on: dao)?.message.contains("holds 1 appointment") == true)
    #expect(
      try await run("calendar delete work --with-appointments", on: dao)
        == "deleted calendar work and its 1 appointment\n"
    )
    #expect(await failure("calendar delete personal", on: dao)?.message.contains("only one") == true)
  }

  @Test func exportOfOneCalendarIsNamedAndImportGoesWhereAsked() async throws {
    let dao = freshDAO()
    try await run("calendar add work", on: dao)
    try await run("add Standup --at 2026-11-30 09:00 -c work", on: dao)
    try await run("add Dentist --at 2026-11-30 10:00", on: dao)
    let file = directory.file("work.ics").path
    try await run("export -c work \(file)", on: dao)
    let text = try String(contentsOfFile: file, encoding: .utf8)
    #expect(text.contains("X-WR-CALNAME:work\r\n"))
    #expect(text.contains("SUMMARY:Standup") && !text.contains("SUMMARY:Dentist"))
    let other = TestStore.fileDAO(in: directory, name: "other.sqlite3")
    try await run("calendar add imported", on: other)
    try await run("import \(file) -c imported", on: other)
    #expect(try await run("list --from 2026-11-30 -c imported", on: other).contains("Standup"))
  }

  // MARK: - The calendar's screen

  /// Two calendars, one appointment in each, on the pilot's today (29 November).
  func startedWithTwoCalendars() async throws -> (Pilot, AppointmentDAO) {
    let dao = freshDAO()
    try await run("calendar add work --color red", on: dao)
    try await run("add Standup --at 2026-11-29 09:00 -c work", on: dao)
    try await run("add Dentist --at 2026-11-29 10:00", on: dao)
    let pilot = Pilot(dao: dao)
    await pilot.start()
    await pilot.settle()
    return (pilot, dao)
  }

  func row(_ pilot: Pilot, containing text: String) -> Int? { pilot.rows.firstIndex { $0.contains(text) } }

  @Test func rowsCarryTheirCalendarsMarker() async throws {
    let (pilot, _) = try await startedWithTwoCalendars()
    let standup = try #require(row(pilot, containing: "Standup"))
    let dentist = try #require(row(pilot, containing: "Dentist"))
    #expect(pilot.agenda[standup].hasPrefix("  W 09:00-10:00  Standup"))
    #expect(pilot.agenda[dentist].hasPrefix("  P 10:00-11:00  Dentist"))
    #expect(pilot.screen[standup, 26].style == .calendar(1), "work is red")
    #expect(pilot.screen[dentist, 26].style == .calendar(4), "personal is blue")
    pilot.press("j")
    await pilot.settle()
    #expect(pilot.shows("Calendar: personal"), "the detail pane names the calendar")
  }

  @Test func aSingleCalendarNeedsNoMarker() async throws {
    let dao = freshDAO()
    try await run("add Dentist --at 2026-11-29 10:00", on: dao)
    let pilot = Pilot(dao: dao)
    await pilot.start()
    await pilot.settle()
    #expect(pilot.agenda.contains { $0.hasPrefix("  10:00-11:00  Dentist") })
  }

  @Test func theCalendarListHidesAndTheStoreRemembers() async throws {
    let (pilot, dao) = try await startedWithTwoCalendars()
    // A day that only work's appointment marks.
    try await run("add Offsite --at 2026-11-30 09:00 -c work", on: dao)
    await pilot.settle()
    let (sunday, monday) = (
      TestClock.clock.dayNumber(of: TestClock.date(2026, 11, 29)),
      TestClock.clock.dayNumber(of: TestClock.date(2026, 11, 30))
    )
    #expect(pilot.state.busyDays == [sunday, monday])
    pilot.press("C")
    await pilot.settle()
    #expect(pilot.shows("Calendars"))
    #expect(pilot.shows("[x] W work"))
    pilot.press("j", "space")
    await pilot.settle()
    #expect(pilot.shows("[ ] W work  (hidden)"))
    #expect(try await freshDAO().calendar(named: "work").isShown == false, "kept in the store")
    pilot.press("esc")
    await pilot.settle()
    #expect(!pilot.shows("Standup"), "a hidden calendar's appointments leave the day")
    #expect(pilot.shows("Dentist"))
    #expect(pilot.state.busyDays == [sunday], "and the day only work marked leaves the month panel")
    pilot.press("q")
    await pilot.waitUntilFinished()

    // Started again: still hidden. Another process shows it: it comes back, live.
    let again = Pilot(dao: dao)
    await again.start()
    await again.settle()
    #expect(!again.shows("Standup"))
    try await run("calendar show work", on: freshDAO())
    try await run("calendar add travel", on: freshDAO())
    await again.checkForExternalChanges()
    await again.settle()
    #expect(again.shows("Standup"))
    #expect(again.state.calendars.map(\.name) == ["personal", "work", "travel"])
  }

  @Test func theFormsCalendarFieldCyclesAndChecks() async throws {
    let (pilot, dao) = try await startedWithTwoCalendars()
    pilot.press("a")
    pilot.type("Lunch")
    pilot.press("tab")
    pilot.type("12:00")
    pilot.press("tab", "tab", "tab", "tab")
    await pilot.settle()
    #expect(pilot.shows("Calendar"))
    #expect(try #require(formOf(pilot))[.calendar].text == "personal")
    pilot.press("right")
    await pilot.settle()
    #expect(try #require(formOf(pilot))[.calendar].text == "work")
    pilot.press("right")
    await pilot.settle()
    #expect(try #require(formOf(pilot))[.calendar].text == "personal", "it wraps")
    pilot.press("ctrl+u")
    pilot.type("wrk")
    pilot.press("enter")
    await pilot.settle()
    #expect(pilot.shows("no calendar \"wrk\"; did you mean work?"))
    pilot.press("ctrl+u")
    pilot.type("WORK")
    pilot.press("enter")
    await pilot.settle()
    let lunch = try #require(try await dao.getAllAppointments().first { $0.title == "Lunch" })
    #expect(lunch.calendarID == (try await dao.calendar(named: "work").id))

    // Edit moves it: the field holds its calendar; left goes back to personal.
    let lunchRow = try #require(row(pilot, containing: "Lunch"))
    #expect(pilot.agenda[lunchRow].hasPrefix("  W 12:00-13:00  Lunch"))
    pilot.press("e", "tab", "tab", "tab", "tab", "tab")
    await pilot.settle()
    #expect(try #require(formOf(pilot))[.calendar].text == "work")
    pilot.press("left", "enter")
    await pilot.settle()
    #expect(try await dao.getAppointment(id: lunch.id).calendarID == CalendarRules.personalID)
  }

  func formOf(_ pilot: Pilot) -> Form? {
    if case .form(let form) = pilot.state.mode { return form }
    return nil
  }
}
