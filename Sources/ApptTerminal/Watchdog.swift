import ApptCore
import Dispatch

/// Makes sure a request to stop (SIGTERM, SIGHUP, SIGINT, the terminal hanging up) ends the
/// process even if the main actor is too busy to act on it.
///
/// The request is passed on to the main actor (`notify`), and a deadline is set
/// (`schedule`); if nothing `disarm`ed the watchdog by then (the terminal's `stop`), `expire`
/// runs: the terminal then restores the terminal mode itself and `_exit`s. Everything runs
/// off the main actor; what is shared is behind one lock.
public final class Watchdog: Sendable {
  private struct Status {
    var requested = false
    var disarmed = false
  }

  private let status = Locked(Status())
  private let notify: @Sendable () -> Void
  private let schedule: @Sendable (@escaping @Sendable () -> Void) -> Void
  private let expire: @Sendable (Int32) -> Void

  /// - Parameters:
  ///   - notify: tells the main actor to stop (once, at the first request).
  ///   - schedule: runs its argument at the deadline (e.g. one second later, on a queue).
  ///   - expire: ends the process with the exit status it is given.
  public init(
    notify: @escaping @Sendable () -> Void,
    schedule: @escaping @Sendable (@escaping @Sendable () -> Void) -> Void,
    expire: @escaping @Sendable (Int32) -> Void
  ) {
    self.notify = notify
    self.schedule = schedule
    self.expire = expire
  }

  /// A request to stop; `exitStatus` is what the process ends with if the deadline passes
  /// (128 + the signal, as a shell reports a process killed by it). Later requests add
  /// nothing: the first deadline stands.
  public func requestStop(exitStatus: Int32) {
    let first = status.withLock { status -> Bool in
      guard !status.requested, !status.disarmed else { return false }
      status.requested = true
      return true
    }
    guard first else { return }
    notify()
    schedule { [self] in
      if status.withLock({ !$0.disarmed }) { expire(exitStatus) }
    }
  }

  /// The terminal was restored in order: no deadline fires after this.
  public func disarm() {
    status.withLock { $0.disarmed = true }
  }
}
