import ApptCore
import ApptRuntime
import ApptStore
import ApptTestSupport
import ApptUI
import Foundation
import Testing

/// `conflicts` and `resolve` through the executor the CLI, scripts and the `:` line share, on
/// a conflict made the way a sync makes one (the sync's DAO functions).
@MainActor
@Suite struct ConflictsTests {
  let directory = TemporaryDirectory()

  func freshDAO() -> AppointmentDAO { TestStore.fileDAO(in: directory) }

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

  static func event(_ title: String, sequence: Int = 0) -> String {
    """
    BEGIN:VCALENDAR\r
    VERSION:2.0\r
    PRODID:-//peer//EN\r
    BEGIN:VEVENT\r
    UID:swim@example.com\r
    DTSTAMP:20261120T100000Z\r
    SEQUENCE:\(sequence)\r
    SUMMARY:\(title)\r
    DTSTART:20261129T160000Z\r
    DTEND:20261129T170000Z\r
    END:VEVENT\r
    END:VCALENDAR\r

    """
  }

  /// A calendar "acct/Home" whose "Swim" was renamed "Swim, lane 3" here and "Swim (pool
  /// closed)" on the server: the server's version stored, the local one a conflict.
  func seedConflict(_ dao: AppointmentDAO) async throws -> AppointmentID {
    let home = try await dao.syncedCalendar(
      account: "acct",
      url: "https://dav.example/home/",
      displayName: "Home",
      color: nil
    )
    let apply = { (text: String, conflict: Bool) in
      try await dao.applyServerItem(
        calendarID: home.id,
        uid: "swim@example.com",
        appointments: ICalendar.read(text, clock: TestClock.clock).appointments,
        href: "/home/swim.ics",
        etag: nil,
        conflictIfChanged: conflict
      )
    }
    _ = try await apply(Self.event("Swim"), false)
    let id = try #require(try await dao.getAllAppointments().first?.id)
    try await dao.editAppointment(EditRequest(id: id.description, title: "Swim, lane 3"))
    _ = try await apply(Self.event("Swim (pool closed)", sequence: 1), true)
    return id
  }

  @Test func conflictsListsThemAndResolveKeepsOneVersion() async throws {
    let dao = freshDAO()
    #expect(try await run("conflicts", on: dao) == "no conflicts\n")
    #expect(try await run("conflicts", json: true, on: dao) == "")
    let event = try await seedConflict(dao)
    let id = try #require(try await dao.conflicts().first?.id)
    #expect(try await run("conflicts", on: dao) == "\(id.short)  acct/Home  Swim, lane 3  found Sun 2026-11-29 15:00\n")
    #expect(
      try await run("conflicts", json: true, on: dao)
        == "{\"id\":\"\(id)\",\"appointment\":\"\(event)\",\"calendar\":\"acct/Home\",\"uid\":\"swim@example.com\","
        + "\"title\":\"Swim, lane 3\",\"found\":\"2026-11-29T15:00:00+01:00\"}\n"
    )
    // In full: yours against the server's, as a diff.
    let shown = try await run("conflicts show \(id.short)", on: dao)
    #expect(shown.hasPrefix("conflict \(id.short)  acct/Home  \"Swim, lane 3\"  found Sun 2026-11-29 15:00\n"))
    #expect(shown.contains("\n-SUMMARY:Swim\\, lane 3\n+SUMMARY:Swim (pool closed)\n"), "\(shown)")
    #expect(shown.hasSuffix("'appt resolve \(id.short) --keep local' puts yours back; '--keep server' drops it\n"))
    let json = try await run("conflicts show \(id.short)", json: true, on: dao)
    #expect(json.contains("\"diff\":[\"-SUMMARY:Swim\\\\, lane 3\",\"+SUMMARY:Swim (pool closed)\""), "\(json)")
    #expect(await failure("conflicts show", on: dao)?.kind == .usage)
    #expect(await failure("conflicts show 0000", on: dao)?.kind == .invalid)
    let unknown = await failure("resolve 0000 --keep local", on: dao)
    #expect(unknown?.kind == .invalid)
    #expect(unknown?.message == "no conflict with id 0000 ('appt conflicts' lists them)")
    #expect(await failure("resolve \(id.short) --keep mine", on: dao)?.kind == .usage)
    #expect(
      try await run("resolve \(id.short) --keep local", on: dao)
        == "resolved \(id.short): kept the local version; it goes to the server on the next sync\n"
    )
    #expect(try await freshDAO().getAppointment(id: event).title == "Swim, lane 3")
    #expect(try await run("conflicts", on: dao) == "no conflicts\n")
    _ = try await seedConflict(dao)
    let again = try #require(try await dao.conflicts().first?.id)
    #expect(
      try await run("resolve \(again.short) --keep server", json: true, on: dao)
        == "{\"id\":\"\(again)\",\"calendar\":\"acct/Home\",\"uid\":\"swim@example.com\",\"title\":\"Swim, lane 3\","
        + "\"kept\":\"server\"}\n"
    )
    #expect(try await freshDAO().getAppointment(id: event).title == "Swim (pool closed)")
  }

  @Test func theCommandLineListsAndResolvesConflicts() async throws {
    let dao = freshDAO()
    _ = try await seedConflict(dao)
    let id = try #require(try await dao.conflicts().first?.id)
    let pilot = Pilot(dao: dao)
    await pilot.start()
    #expect(pilot.shows("Swim (pool closed)"))
    pilot.press(":")
    pilot.type("conflicts")
    pilot.press("enter")
    await pilot.settle()
    #expect(pilot.rows[23].contains("\(id.short)  acct/Home  Swim, lane 3  found"))
    pilot.press(":")
    pilot.type("resolve \(id.short) --keep local")
    pilot.press("enter")
    await pilot.settle()
    #expect(pilot.rows[23].contains("resolved \(id.short): kept the local version"))
    #expect(pilot.shows("Swim, lane 3"), "the screen shows the version kept")
    #expect(try await freshDAO().conflicts().isEmpty)
  }
}

extension AppointmentDAO {
  /// `remoteCalendar`, which must give a calendar (the user has not stopped syncing it).
  func syncedCalendar(account: String, url: String, displayName: String, color: String?) async throws
    -> CalendarInfo
  {
    try #require(try await remoteCalendar(account: account, url: url, displayName: displayName, color: color))
  }
}
