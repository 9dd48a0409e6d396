import ApptCore
import ApptRuntime
import ApptStore
import ApptTestSupport
import ApptUI
import Foundation
import Testing

/// The calendar's form and `appt add`/`appt edit` go through the same door: given the same
/// fields, the same clock and the same zone (not UTC), what they store is the same, field by
/// field, apart from the id. Regression: the calendar stored `time_zone: ""` where `appt add`
/// stored "Europe/Berlin" (each built its own `Appointment`).
@MainActor
@Suite struct OneDoorTests {
  let directory = TemporaryDirectory()
  static let berlin = TimeZone(identifier: "Europe/Berlin") ?? .gmt
  /// Sunday 29 November 2026, 15:00 in Berlin.
  let clock = Clock.fixed(TestClock.now, timeZone: berlin)

  func freshDAO() -> AppointmentDAO { AppointmentDAO(file: directory.file("appt.sqlite3"), clock: clock) }

  /// The command line's door: the executor `appt`, scripts and the `:` line share.
  func run(_ line: String, on dao: AppointmentDAO) async throws -> String {
    let executor = CommandExecutor(dao: dao, clock: clock, json: true)
    return try await executor.run(try #require(try executor.parse(line: line)))
  }

  func started(after lines: [String] = []) async throws -> (Pilot, AppointmentDAO) {
    #expect(Self.berlin.identifier == "Europe/Berlin")
    let dao = freshDAO()
    for line in lines { _ = try await run(line, on: dao) }
    let pilot = Pilot(dao: dao, clock: clock)
    await pilot.start()
    return (pilot, dao)
  }

  /// `show --json` of each, read back from the file by another connection, with the id
  /// taken out: the two must be the same text.
  func expectSameApartFromID(_ one: Appointment, _ other: Appointment) async throws {
    #expect(one.id != other.id)
    var renamed = other
    renamed.id = one.id
    renamed.override?.seriesID = one.override?.seriesID  // an override of each one's series
    #expect(renamed == one, "field by field apart from the id")
    let dao = freshDAO()
    var shown: [String] = []
    for appointment in [one, other] {
      var json = try await run("show \(appointment.id)", on: dao)
      json = json.replacingOccurrences(of: appointment.id.description, with: "ID")
      if let series = appointment.override?.seriesID {
        json = json.replacingOccurrences(of: series.description, with: "SERIES")
      }
      shown.append(json)
    }
    #expect(shown[0] == shown[1])
    #expect(shown[0].contains("\"time_zone\":\"Europe/Berlin\""))
  }

  @Test func anAppointmentAddedInTheFormIsTheOneAppAddAdds() async throws {
    let (pilot, dao) = try await started()
    pilot.addInForm(title: "Dentist", time: "10:00", duration: "45m", note: "bring the x-rays")
    await pilot.settle()
    let fromForm = try #require(try await freshDAO().getAllAppointments().first)
    _ = try await run("add Dentist --at \"2026-11-29 10:00\" --for 45m --note \"bring the x-rays\"", on: dao)

    let all = try await freshDAO().getAllAppointments()
    #expect(all.count == 2)
    let fromCommand = try #require(all.first { $0.id != fromForm.id })
    #expect(fromForm.timeZone == "Europe/Berlin")
    try await expectSameApartFromID(fromForm, fromCommand)
  }

  @Test func anEditInTheFormIsTheEditAppEditMakes() async throws {
    let add = "add Dentist --at \"2026-11-29 10:00\" --for 45m --note \"bring the x-rays\""
    let (pilot, dao) = try await started(after: [add, add])
    let inForm = try #require(pilot.state.selectedAppointment)
    let other = try #require(try await dao.getAllAppointments().first { $0.id != inForm.id })
    pilot.press("e", "ctrl+u")
    pilot.type("Dentist (moved)")
    pilot.press("tab", "ctrl+w")
    pilot.type("11:00")
    pilot.press("enter")
    await pilot.settle()
    _ = try await run("edit \(other.id) --title \"Dentist (moved)\" --at \"2026-11-29 11:00\" --if-revision 1", on: dao)

    let fresh = freshDAO()
    let edited = try await fresh.getAppointment(id: inForm.id)
    #expect(edited.title == "Dentist (moved)" && edited.revision == 2)
    try await expectSameApartFromID(edited, try await fresh.getAppointment(id: other.id))
  }

  @Test func anOccurrenceEditedInTheFormIsTheOneAppEditOccurrenceMakes() async throws {
    let add = "add Standup --at \"2026-11-28 09:00\" --for 15m --repeat daily --count 5"
    let (pilot, dao) = try await started(after: [add, add])
    let inForm = try #require(pilot.state.selectedAppointment)
    #expect(inForm.occurrence != nil, "an occurrence of a series")
    let other = try #require(try await dao.getAllAppointments().first { $0.id != inForm.id })
    pilot.press("e", "o", "ctrl+u")  // o: this occurrence
    pilot.type("Standup (moved)")
    pilot.press("tab", "ctrl+w")
    pilot.type("09:30")
    pilot.press("enter")
    await pilot.settle()
    _ = try await run(
      "edit \(other.id) --occurrence 2026-11-29 --title \"Standup (moved)\" --at \"2026-11-29 09:30\" --if-revision 1",
      on: dao
    )

    let all = try await freshDAO().getAllAppointments()
    let series = all.filter { $0.recurrence != nil }
    let detached = all.filter { $0.recurrence == nil }
    #expect(series.count == 2 && detached.count == 2)
    guard series.count == 2, detached.count == 2 else { return }
    #expect(series[0].exceptions.isEmpty && series[0].revision == 2)
    #expect(detached[0].override?.recurrenceID == TestClock.date(2026, 11, 29, 9))
    #expect(detached[0].title == "Standup (moved)")
    try await expectSameApartFromID(series[0], series[1])
    try await expectSameApartFromID(detached[0], detached[1])
  }
}
