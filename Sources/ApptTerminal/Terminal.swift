// ApptTerminal: where screens meet a real (or pretend) terminal. `NCursesTerminal` is the only
// file in appt that imports ncurses; `HeadlessTerminal` is the same contract in memory, for
// tests and benchmarks.

import ApptUI

/// Something that happened at the terminal.
public enum TerminalEvent: Sendable, Equatable {
  case key(Key)
  case resized(Screen.Size)
  /// A click or a wheel turn (where the terminal reports the mouse).
  case mouse(MouseEvent)
  /// SIGINT, SIGTERM or SIGHUP: time to restore the terminal and leave.
  case interrupted
}

/// A terminal the runtime draws on and hears keys from. Main-actor bound: ncurses must be
/// driven from one thread, and the render loop lives there.
@MainActor
public protocol Terminal: AnyObject {
  var size: Screen.Size { get }
  /// Takes over the terminal and starts delivering events to `handler` (on the main actor).
  func start(handler: @escaping @MainActor (TerminalEvent) -> Void) throws(TerminalError)
  /// Shows `screen`, writing only what differs from the previous frame.
  func draw(_ screen: Screen, cursor: (row: Int, column: Int)?)
  /// Gives the terminal back as it was.
  func stop()
  /// Rings the terminal's bell once (an alarm came due).
  func bell()
}

extension Terminal {
  /// A terminal without a bell rings none.
  public func bell() {}
}

/// Why the full-screen UI cannot start.
public struct TerminalError: Error, Equatable, Sendable, CustomStringConvertible {
  public let description: String
  public init(_ description: String) { self.description = description }
}

/// A terminal in memory: tests and benchmarks type into it and read what it shows. It keeps
/// its own grid of cells and applies to it the same `Screen.changes(from:)` runs that
/// `NCursesTerminal` writes, so `screen` is what a terminal would show, not merely the frame.
@MainActor
public final class HeadlessTerminal: Terminal {
  public private(set) var size: Screen.Size
  /// What the terminal shows: its grid after every draw's changes were applied.
  public private(set) var screen: Screen
  /// The last frame it was given (`screen` should equal it).
  public private(set) var frame: Screen?
  public private(set) var cursor: (row: Int, column: Int)?
  public private(set) var frameCount = 0
  /// How many runs all draws wrote (what a terminal would have been sent).
  public private(set) var runCount = 0
  public private(set) var isStarted = false
  /// How many times the bell rang.
  public private(set) var bellCount = 0
  private var handler: (@MainActor (TerminalEvent) -> Void)?

  public init(size: Screen.Size = Screen.Size(rows: 24, columns: 80)) {
    self.size = size
    screen = Screen(size: size)
  }

  public func start(handler: @escaping @MainActor (TerminalEvent) -> Void) throws(TerminalError) {
    self.handler = handler
    isStarted = true
  }

  public func draw(_ screen: Screen, cursor: (row: Int, column: Int)?) {
    let runs = screen.changes(from: frame)
    if self.screen.size != screen.size { self.screen = Screen(size: screen.size) }  // cleared, as ncurses does
    for run in runs { self.screen.apply(run) }
    runCount += runs.count
    frame = screen
    self.cursor = cursor
    frameCount += 1
  }

  public func stop() {
    handler = nil
    isStarted = false
  }

  public func bell() { bellCount += 1 }

  /// Delivers a key as if it were typed.
  public func press(_ key: Key) { handler?(.key(key)) }

  /// Types each character of `text` as a key.
  public func type(_ text: String) {
    for character in text { press(.character(character)) }
  }

  /// Pastes `text` as a terminal with bracketed paste delivers it: one key.
  public func paste(_ text: String) { press(.paste(text)) }

  /// A click (or a wheel turn) at a cell, as the ncurses terminal reports one.
  public func mouse(_ kind: MouseEvent.Kind, row: Int, column: Int) {
    handler?(.mouse(MouseEvent(kind, row: row, column: column)))
  }

  public func resize(to size: Screen.Size) {
    self.size = size
    handler?(.resized(size))
  }

  public func interrupt() { handler?(.interrupted) }
}
