import ApptCore
import Testing

@testable import ApptTerminal

/// The watchdog, with its deadline fired by hand: deterministic, no sleeping.
@Suite struct WatchdogTests {
  final class Probe: Sendable {
    let notified = Locked(0)
    let expired = Locked<[Int32]>([])
    let deadlines = Locked<[@Sendable () -> Void]>([])

    func watchdog() -> Watchdog {
      Watchdog(
        notify: { self.notified.withLock { $0 += 1 } },
        schedule: { deadline in self.deadlines.withLock { $0.append(deadline) } },
        expire: { status in self.expired.withLock { $0.append(status) } }
      )
    }

    func fireDeadlines() {
      for deadline in deadlines.withLock({ $0 }) { deadline() }
    }
  }

  @Test func aStopNotActedOnInTimeEndsTheProcess() {
    let probe = Probe()
    let watchdog = probe.watchdog()
    watchdog.requestStop(exitStatus: 143)
    #expect(probe.notified.withLock { $0 } == 1, "the loop is told at once")
    watchdog.requestStop(exitStatus: 129)
    #expect(probe.notified.withLock { $0 } == 1, "once")
    #expect(probe.deadlines.withLock { $0.count } == 1, "the first deadline stands")
    #expect(probe.expired.withLock { $0 } == [])
    probe.fireDeadlines()  // the main actor never came round to it
    #expect(probe.expired.withLock { $0 } == [143])
  }

  @Test func aStopActedOnInTimeEndsNothing() {
    let probe = Probe()
    let watchdog = probe.watchdog()
    watchdog.requestStop(exitStatus: 143)
    watchdog.disarm()  // the terminal was restored in order
    probe.fireDeadlines()
    #expect(probe.expired.withLock { $0 } == [])
    watchdog.requestStop(exitStatus: 143)
    #expect(probe.notified.withLock { $0 } == 1, "after stopping, a signal starts nothing")
  }
}
