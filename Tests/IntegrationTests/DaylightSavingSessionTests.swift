import ApptCore
import ApptStore
import ApptTestSupport
import ApptUI
import Foundation
import Testing

/// The calendar's `:` line says which instant a typed time in a DST gap became, as the
/// command line does on stderr.
@MainActor
@Suite struct DaylightSavingSessionTests {
  let directory = TemporaryDirectory()

  @Test func theCommandLineSaysWhereATimeInTheGapWent() async throws {
    let dao = TestStore.fileDAO(in: directory)
    let pilot = Pilot(dao: dao)
    await pilot.start()
    pilot.press(":")
    pilot.type("add Early --at \"2027-03-28 02:30\"")
    pilot.press("enter")
    await pilot.settle()
    #expect(
      pilot.rows.contains { $0.hasPrefix(" 02:30 does not exist on 28 March 2027 in Europe/Paris; saved at 03:30") },
      "\(pilot.rows)"
    )
    let stored = try await dao.getAllAppointments()
    #expect(stored.map(\.start) == [TestClock.date(2027, 3, 28, 3, 30)])
  }
}
