import ApptCore
import ApptRuntime
import ApptStore
import ApptTerminal
import ApptTestSupport
import ApptUI
import Foundation
import Testing

/// `RenderLoop.settle()` gives up when nothing moves, and says what it still waited for (it
/// used to spin forever, and the run hung with no clue).
@MainActor
@Suite struct SettleTests {
  static let day = DateInterval(start: TestClock.date(2026, 11, 29), end: TestClock.date(2026, 11, 30))

  @Test func aMessageNobodyHandlesIsNamed() async throws {
    // The loop is not running, so the message it is sent stays queued for good.
    let loop = RenderLoop(
      dao: TestStore.memoryDAO(),
      terminal: HeadlessTerminal(size: Screen.Size(rows: 24, columns: 80)),
      environment: Environment(clock: TestClock.clock)
    )
    loop.send(.clockTicked(TestClock.now))
    do {
      try await loop.settle(giveUpAfter: .milliseconds(100))
      Issue.record("settled with a message nobody handled")
    } catch {
      #expect(error.queuedMessages == 1)
      #expect(error.storeCallsInFlight == 0)
      #expect(error.horizon == nil, "never idle, so the store was never asked")
      #expect(error.description.hasPrefix("settle() gave up after "))
      #expect(error.description.contains("1 message(s) queued, not yet handled"))
    }
  }

  @Test func aSnapshotNobodyTakesIsNamed() async throws {
    let dao = TestStore.memoryDAO()
    let pilot = Pilot(dao: dao)
    await pilot.start()
    // An observation of the same store that nobody reads: after a commit, its snapshot waits
    // to be taken, so the store is never quiet.
    let stray = await dao.observeAppointments(AppointmentQuery(range: Self.day))
    try await dao.saveAppointment(TestStore.appointment("Dentist", TestClock.date(2026, 11, 29, 10)))
    // The commit's snapshot makes the calendar read the days beside it again: store calls
    // that end, unlike the stray snapshot. Ask again while they are what it waits for (on a
    // loaded machine they can outlast one 100 ms try); 600 tries bound a hang.
    for _ in 0..<600 {
      do {
        try await pilot.loop.settle(giveUpAfter: .milliseconds(100))
        Issue.record("settled while a snapshot was pending")
        break
      } catch  where error.storeCallsInFlight > 0 {
        continue
      } catch {
        break
      }
    }
    do {
      try await pilot.loop.settle(giveUpAfter: .milliseconds(100))
      Issue.record("settled while a snapshot was pending")
    } catch {
      #expect(error.queuedMessages == 0)
      #expect(error.storeCallsInFlight == 0)
      #expect(error.horizonPending)
      #expect(error.description.contains("a snapshot pending delivery to an observer"))
    }
    withExtendedLifetime(stray) {}
    // The loop itself got there: its screen shows the commit.
    #expect(pilot.agenda.contains("  10:00-11:00  Dentist"))
  }
}
