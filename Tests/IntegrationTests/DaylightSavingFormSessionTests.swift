import ApptCore
import ApptStore
import ApptTestSupport
import ApptUI
import Foundation
import Testing

/// Daylight saving through the whole calendar: a Start typed in the form in a DST gap
/// or overlap shows, before Enter, which instant it will be; the store then holds exactly
/// that one, and the agenda shows an overlap time with its offset. Berlin and New York.
@MainActor
@Suite struct DaylightSavingFormSessionTests {
  let directory = TemporaryDirectory()

  struct Case: Sendable, CustomStringConvertible {
    var zone: String
    /// The change day, "today" for the session.
    var now: String
    var time: String
    var stored: String
    var preview: String
    var agenda: String
    var description: String { "\(zone) \(now)" }
  }

  nonisolated static let cases = [
    Case(
      zone: "Europe/Berlin",
      now: "2027-03-28T12:00:00+02:00",
      time: "02:30",
      stored: "2027-03-28T03:30:00+02:00",
      preview: "02:30 does not exist that day: it will be 03:30",
      agenda: "03:30-04:30  Early"
    ),
    Case(
      zone: "Europe/Berlin",
      now: "2027-10-31T12:00:00+01:00",
      time: "02:30",
      stored: "2027-10-31T02:30:00+02:00",
      preview: "02:30 happens twice that day: the first (+02:00)",
      agenda: "02:30+02-02:30+01  Early"
    ),
    Case(
      zone: "America/New_York",
      now: "2027-03-14T12:00:00-04:00",
      time: "02:30",
      stored: "2027-03-14T03:30:00-04:00",
      preview: "02:30 does not exist that day: it will be 03:30",
      agenda: "03:30-04:30  Early"
    ),
    Case(
      zone: "America/New_York",
      now: "2027-11-07T12:00:00-05:00",
      time: "01:30",
      stored: "2027-11-07T01:30:00-04:00",
      preview: "01:30 happens twice that day: the first (-04:00)",
      agenda: "01:30-04-01:30-05  Early"
    ),
  ]

  @Test(arguments: cases)
  func theFormSaysWhichInstantAndSavesThatOne(_ c: Case) async throws {
    let formatter = ISO8601DateFormatter()
    let now = try #require(formatter.date(from: c.now))
    let clock = Clock.fixed(now, timeZone: try #require(TimeZone(identifier: c.zone)))
    let dao = AppointmentDAO(file: directory.file("appt.sqlite3"), clock: clock)
    let pilot = Pilot(dao: dao, clock: clock)
    await pilot.start()
    pilot.press("a")
    pilot.type("Early")
    pilot.press("tab")
    pilot.type(c.time)
    await pilot.settle()
    #expect(pilot.shows(c.preview), "\(pilot.rows.joined(separator: "\n"))")
    pilot.press("enter")
    await pilot.settle()
    let stored = try await dao.getAllAppointments()
    #expect(stored.map(\.start) == [try #require(formatter.date(from: c.stored))])
    #expect(pilot.shows(c.agenda), "\(pilot.rows.joined(separator: "\n"))")
  }
}
