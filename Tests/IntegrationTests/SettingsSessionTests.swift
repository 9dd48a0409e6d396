import ApptCore
import ApptStore
import ApptTestSupport
import ApptUI
import Foundation
import Testing

/// The calendar run with a settings file, through the runtime and a headless terminal: what
/// each setting changes on screen and in the file.
@MainActor
@Suite struct SettingsSessionTests {
  let directory = TemporaryDirectory()

  func freshDAO() -> AppointmentDAO { TestStore.fileDAO(in: directory) }

  func settings(_ text: String) throws -> Settings {
    let parser = SettingsParser(path: "/c", vocabulary: KeyMap.standard.vocabulary)
    switch parser.parse(text: text) {
    case .success(let settings): return settings
    case .failure(let failure): throw failure
    }
  }

  func started(_ text: String, with appointments: [Appointment] = []) async throws -> Pilot {
    let dao = freshDAO()
    for appointment in appointments { try await dao.saveAppointment(appointment) }
    let pilot = Pilot(dao: dao, settings: try settings(text))
    await pilot.start()
    return pilot
  }

  @Test func aWeekStartingSundayInTheMonthPanel() async throws {
    let pilot = try await started("[ui]\nweek_start = sunday")
    #expect(pilot.rows[2].hasPrefix(" Su Mo Tu We Th Fr Sa"))
    #expect(pilot.rows[3].hasPrefix("  1  2  3  4  5  6  7"))
    pilot.press("l")  // Monday 30 November: still in the second column
    await pilot.settle()
    #expect(pilot.rows[7].hasPrefix(" 29 30"))
    pilot.press("q")
    await pilot.waitUntilFinished()
  }

  @Test func aRemappedKeyWorksAndTheHelpSaysSo() async throws {
    let pilot = try await started("[keys]\nadd_appointment = n")
    pilot.press("a")  // no longer anything
    await pilot.settle()
    #expect(pilot.state.mode == .browsing)
    pilot.press("n")
    pilot.type("Dentist")
    pilot.press("tab")
    pilot.type("10:00")
    pilot.press("enter")
    await pilot.settle()
    #expect(try await freshDAO().getAllAppointments().map(\.title) == ["Dentist"])
    pilot.press("?")
    await pilot.settle()
    #expect(pilot.shows("  n             add an appointment"))
    pilot.press("esc")
    await pilot.settle()
    #expect(pilot.rows[23].contains("n add"))
    pilot.press("q")
    await pilot.waitUntilFinished()
  }

  @Test func theDefaultDurationInTheFormAndOnTheCommandLine() async throws {
    let pilot = try await started("[ui]\ndefault_duration = 25m")
    pilot.press("a")
    pilot.type("Tea")
    pilot.press("tab")
    pilot.type("10:00")
    pilot.press("enter")
    await pilot.settle()
    #expect(pilot.agenda[2] == "  10:00-10:25  Tea")
    pilot.press(":")
    pilot.type("add Coffee --at 12:00")
    pilot.press("enter")
    await pilot.settle()
    let stored = try await freshDAO().getAllAppointments()
    #expect(stored.map { $0.end.timeIntervalSince($0.start) } == [25 * 60, 25 * 60])
    pilot.press("q")
    await pilot.waitUntilFinished()
  }

  @Test func twelveHourTimesInTheCalendar() async throws {
    let pilot = try await started(
      "[ui]\ntime_format = 12h",
      with: [TestStore.appointment("Dentist", TestClock.date(2026, 11, 29, 16), minutes: 45)]
    )
    #expect(pilot.agenda.contains("  ── now 3:00pm ────────────────────────────────────────"))
    #expect(pilot.agenda.contains("  4:00pm-4:45pm  Dentist"))
    pilot.press(":")
    pilot.type("list")
    pilot.press("enter")
    await pilot.settle()
    #expect(pilot.rows[23].contains("4:00pm-4:45pm  Dentist"))
    pilot.press("q")
    await pilot.waitUntilFinished()
  }
}
