import CLinuxEvents
import Foundation
import Synchronization

/// What the reminder daemon sleeps on: one `poll(2)` over
/// - a timerfd on CLOCK_REALTIME armed at the next alarm's instant (TFD_TIMER_ABSTIME), with
///   TFD_TIMER_CANCEL_ON_SET, so a step of the clock (settimeofday, an NTP jump, a resume
///   from suspend that resets it) wakes it to plan again instead of firing late or early;
/// - an inotify watch on the SQLite file's directory (the file and its `-wal`), or the
///   socket of the PostgreSQL connection that LISTENs for `appt_changes`: another process's
///   commit;
/// - a self-pipe the signal handlers write to (SIGTERM, SIGINT, SIGHUP end the daemon;
///   SIGCHLD says a notify_command finished).
/// Nothing else wakes it: no polling, so an idle daemon costs nothing but its memory.
///
/// The descriptors are plain numbers (Sendable), so the blocking wait runs on a thread of
/// its own and the async loop awaits it without holding a thread of the cooperative pool.
public final class WakeSource: Sendable {
  /// What woke the daemon (several at once are possible).
  public struct Events: OptionSet, Sendable {
    public let rawValue: Int
    public init(rawValue: Int) { self.rawValue = rawValue }
    /// The armed instant passed.
    public static let timer = Events(rawValue: 1)
    /// The realtime clock was set (the armed instant means something else now).
    public static let clockChanged = Events(rawValue: 2)
    /// The store's file changed (some process wrote), or the change socket is readable.
    public static let store = Events(rawValue: 4)
    /// SIGTERM, SIGINT or SIGHUP.
    public static let stop = Events(rawValue: 8)
    /// SIGCHLD: a child finished.
    public static let child = Events(rawValue: 16)
    /// The wait's own timeout (a child's deadline, a reconnection) passed.
    public static let timeout = Events(rawValue: 32)
  }

  private let timer: Int32
  private let inotify: Int32
  /// Names in the watched directory whose changes count (the database file and its WAL).
  private let watchedNames: Set<String>
  private let signalRead: Int32
  private let signalWrite: Int32

  /// A wake source watching the directory of `file` (nil: no file to watch, e.g. PostgreSQL).
  public init(watching file: URL?) throws(RemindError) {
    timer = timerfd_create(CLOCK_REALTIME, Int32(TFD_CLOEXEC | TFD_NONBLOCK))
    guard timer >= 0 else { throw .system("timerfd_create", errno) }
    if let file {
      inotify = inotify_init1(Int32(IN_CLOEXEC | IN_NONBLOCK))
      guard inotify >= 0 else { throw .system("inotify_init1", errno) }
      let directory = file.deletingLastPathComponent().path
      let mask = UInt32(IN_MODIFY | IN_CLOSE_WRITE | IN_MOVED_TO | IN_CREATE | IN_DELETE)
      guard inotify_add_watch(inotify, directory, mask) >= 0 else {
        throw .system("inotify_add_watch \(directory)", errno)
      }
      let name = file.lastPathComponent
      watchedNames = [name, name + "-wal", name + "-journal"]
    } else {
      inotify = -1
      watchedNames = []
    }
    var fds: [Int32] = [0, 0]
    guard pipe2(&fds, O_CLOEXEC | O_NONBLOCK) == 0 else { throw .system("pipe2", errno) }
    signalRead = fds[0]
    signalWrite = fds[1]
  }

  deinit {
    for fd in [timer, inotify, signalRead, signalWrite] where fd >= 0 { close(fd) }
  }

  // MARK: - Signals

  /// The write end of the self-pipe, for the signal handler (which may only do async-signal-
  /// safe things: an atomic load and a write).
  private static let signalPipe = Atomic<Int32>(-1)

  /// Routes SIGCHLD, and with `stopping` SIGTERM, SIGINT and SIGHUP, to this source's pipe
  /// (one byte: the signal number). Once per process.
  public func installSignalHandlers(stopping: Bool = true) {
    Self.signalPipe.store(signalWrite, ordering: .sequentiallyConsistent)
    for signal in stopping ? [SIGTERM, SIGINT, SIGHUP, SIGCHLD] : [SIGCHLD] {
      var action = sigaction()
      action.__sigaction_handler.sa_handler = { number in
        var byte = UInt8(truncatingIfNeeded: number)
        let saved = errno
        _ = write(WakeSource.signalPipe.load(ordering: .relaxed), &byte, 1)
        errno = saved
      }
      action.sa_flags = SA_RESTART | SA_NOCLDSTOP
      sigemptyset(&action.sa_mask)
      sigaction(signal, &action, nil)
    }
  }

  // MARK: - The timer

  /// Arms the timer at `date` of the real clock (an absolute CLOCK_REALTIME instant).
  public func arm(at date: Date) throws(RemindError) {
    let seconds = max(date.timeIntervalSince1970, 0.000_001)
    var spec = itimerspec()
    spec.it_value.tv_sec = Int(seconds.rounded(.down))
    spec.it_value.tv_nsec = Int((seconds - seconds.rounded(.down)) * 1e9)
    if spec.it_value.tv_sec == 0 && spec.it_value.tv_nsec == 0 { spec.it_value.tv_nsec = 1 }  // 0 disarms
    let flags = Int32(TFD_TIMER_ABSTIME) | Int32(TFD_TIMER_CANCEL_ON_SET)
    guard timerfd_settime(timer, flags, &spec, nil) == 0 else { throw .system("timerfd_settime", errno) }
  }

  // MARK: - Waiting

  /// Waits until something happens: the timer, a store change, a signal, or `timeout`
  /// seconds (nil: none) for what has its own deadline (a child, a reconnection). `socket` is
  /// the PostgreSQL change connection's descriptor, when there is one.
  /// Runs on the caller's actor (the daemon's is the main actor): a hop to the global pool
  /// would start libdispatch's workqueue monitor, a timer that wakes the process every second.
  public func wait(
    timeout: TimeInterval?,
    socket: Int32?,
    isolation: isolated (any Actor)? = #isolation
  ) async -> Events {
    let descriptors = Descriptors(
      timer: timer,
      inotify: inotify,
      signals: signalRead,
      socket: socket ?? -1,
      names: watchedNames
    )
    let milliseconds: Int32 = timeout.map { Int32(min(max(($0 * 1000).rounded(.up), 0), 86_400_000)) } ?? -1
    return await withCheckedContinuation { continuation in
      let thread = Thread {
        continuation.resume(returning: descriptors.wait(milliseconds: milliseconds))
      }
      thread.name = "appt-remind-wait"
      thread.start()
    }
  }

  /// The numbers a waiting thread needs (no reference to the source itself).
  private struct Descriptors: Sendable {
    let timer: Int32
    let inotify: Int32
    let signals: Int32
    let socket: Int32
    let names: Set<String>

    /// Polls until something relevant happens (an event on another file of the directory
    /// is drained and waited past) or `milliseconds` pass (-1: never).
    func wait(milliseconds: Int32) -> Events {
      let deadline = milliseconds < 0 ? nil : ContinuousClock.now + .milliseconds(Int64(milliseconds))
      while true {
        var timeout: Int32 = -1
        if let deadline {
          let left = (deadline - ContinuousClock.now).components
          timeout = Int32(max(0, (Double(left.seconds) * 1000 + Double(left.attoseconds) / 1e15).rounded(.up)))
        }
        var fds = [timer, inotify, signals, socket].map { pollfd(fd: $0, events: Int16(POLLIN), revents: 0) }
        let ready = poll(&fds, nfds_t(fds.count), timeout)
        if ready < 0 && errno == EINTR { continue }  // a signal: its byte is in the pipe now
        if ready == 0 { return .timeout }
        var events: Events = []
        if fds[0].revents != 0 { events.formUnion(readTimer()) }
        if fds[1].revents != 0, readInotify() { events.insert(.store) }
        if fds[2].revents != 0 { events.formUnion(readSignals()) }
        if fds[3].revents != 0 { events.insert(.store) }
        if !events.isEmpty { return events }
      }
    }

    /// The expiration count, or ECANCELED when the clock was set under an armed timer.
    private func readTimer() -> Events {
      var expirations: UInt64 = 0
      let count = read(timer, &expirations, MemoryLayout<UInt64>.size)
      if count < 0 && errno == ECANCELED { return .clockChanged }
      return count == MemoryLayout<UInt64>.size ? .timer : []
    }

    /// Drains the inotify queue; true when an event named the database file or its WAL (or
    /// the queue overflowed, which may have hidden one).
    private func readInotify() -> Bool {
      var relevant = false
      let size = 16 * 1024
      let buffer = UnsafeMutableRawPointer.allocate(byteCount: size, alignment: 8)
      defer { buffer.deallocate() }
      while true {
        let count = read(inotify, buffer, size)
        if count <= 0 { return relevant }
        var offset = 0
        while offset + MemoryLayout<inotify_event>.size <= count {
          let event = buffer.load(fromByteOffset: offset, as: inotify_event.self)
          let nameStart = buffer.advanced(by: offset + MemoryLayout<inotify_event>.size)
          if event.mask & UInt32(IN_Q_OVERFLOW) != 0 { relevant = true }
          if event.len > 0 {
            let name = String(cString: nameStart.assumingMemoryBound(to: CChar.self))
            if names.contains(name) { relevant = true }
          }
          offset += MemoryLayout<inotify_event>.size + Int(event.len)
        }
      }
    }

    private func readSignals() -> Events {
      var events: Events = []
      var bytes = [UInt8](repeating: 0, count: 64)
      while true {
        let count = read(signals, &bytes, bytes.count)
        if count <= 0 { return events }
        for byte in bytes.prefix(count) {
          events.insert(Int32(byte) == SIGCHLD ? .child : .stop)
        }
      }
    }
  }
}
