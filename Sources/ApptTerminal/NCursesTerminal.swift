import ApptCore
import ApptUI
import CNCursesW
import Dispatch
import Foundation

/// The real terminal, through ncursesw. The only file in appt that imports ncurses.
///
/// Every ncurses call happens on the main thread: a dispatch read source on stdin says input
/// is ready and the main actor drains `wget_wch` without blocking (ncurses is not thread-safe;
/// a reader thread blocking in `wget_wch` races the drawing and loses keys after a resize).
///
/// Stopping does not depend on the main actor: signals and a hung-up terminal are heard off
/// it, by a `Watchdog`, which restores the terminal mode and exits if the loop has not
/// stopped within `stopGrace` (the main actor busy).
@MainActor
public final class NCursesTerminal: Terminal {
  public private(set) var size = Screen.Size(rows: 24, columns: 80)
  private var window: UnsafeMutablePointer<WINDOW>?
  private var screenHandle: OpaquePointer?
  private var previous: Screen?
  private var sources: [any DispatchSourceProtocol] = []
  private var handler: (@MainActor (TerminalEvent) -> Void)?
  private let useColor: Bool
  private var decoder = KeyDecoder()
  private var watchdog: Watchdog?
  /// Written to stop the hangup watcher's thread.
  private var hangupWatcherStop: Int32 = -1
  /// How long a signal may wait for the main actor before the watchdog ends the process.
  public nonisolated static let stopGrace: DispatchTimeInterval = .seconds(1)
  /// Bracketed paste on and off (DECSET 2004): terminals that do not know it ignore it.
  static let bracketedPasteOn = "\u{1B}[?2004h"
  static let bracketedPasteOff = "\u{1B}[?2004l"

  /// The colours of each style (theme and `[colors]`); NO_COLOR still turns colour off.
  private let palette: Palette

  /// Whether clicks and the wheel are reported (`[ui] mouse`); off, the terminal keeps them
  /// (selecting text with the mouse works as everywhere).
  private let reportsMouse: Bool

  public init(
    environment: [String: String] = ProcessEnvironment.variables(),
    palette: Palette = .standard,
    mouse: Bool = false
  ) {
    useColor = environment["NO_COLOR"].map(\.isEmpty) ?? true
    self.palette = palette
    reportsMouse = mouse
  }

  /// Refuses to start when there is no terminal to take over, before ncurses writes anything.
  public static func checkUsable(environment: [String: String]) -> TerminalError? {
    guard isatty(0) == 1, isatty(1) == 1 else {
      return TerminalError("the full-screen UI needs a terminal on stdin and stdout")
    }
    guard let term = environment["TERM"], !term.isEmpty else {
      return TerminalError("TERM is not set; cannot start the full-screen UI")
    }
    guard term != "dumb" else {
      return TerminalError("TERM=dumb cannot show the full-screen UI; use commands instead (appt help)")
    }
    return nil
  }

  public func start(handler: @escaping @MainActor (TerminalEvent) -> Void) throws(TerminalError) {
    if let problem = Self.checkUsable(environment: ProcessEnvironment.variables()) { throw problem }
    setlocale(LC_ALL, "")
    if appt_locale_is_utf8() == 0 { setlocale(LC_CTYPE, "C.UTF-8") }  // no LANG (cron, env -i)

    // Signals become dispatch sources; ignoring them first stops the default action (and
    // stops ncurses from installing its own SIGWINCH handler).
    for signalNumber in [SIGWINCH, SIGINT, SIGTERM, SIGHUP] { signal(signalNumber, SIG_IGN) }
    var savedMode = termios()
    let hasSavedMode = tcgetattr(0, &savedMode) == 0

    guard let screen = newterm(nil, appt_stdout(), appt_stdin()) else {
      throw TerminalError("cannot initialise the terminal (TERM=\(ProcessEnvironment.variables()["TERM"] ?? ""))")
    }
    screenHandle = screen
    window = appt_stdscr()
    raw()
    noecho()
    nonl()
    keypad(window, true)
    nodelay(window, true)
    set_escdelay(25)  // a lone Esc otherwise waits a whole second
    curs_set(0)
    if reportsMouse {
      mousemask(appt_mouse_events(), nil)
      mouseinterval(0)  // a press is a click at once: no wait for a release or a double click
    }
    setUpColors()
    self.handler = handler
    size = Screen.Size(rows: Int(getmaxy(window)), columns: Int(getmaxx(window)))
    Self.writeToTerminal(Self.bracketedPasteOn)

    let input = DispatchSource.makeReadSource(fileDescriptor: 0, queue: .main)
    input.setEventHandler { [weak self] in MainActor.assumeIsolated { self?.drainInput() } }
    let resize = DispatchSource.makeSignalSource(signal: SIGWINCH, queue: .main)
    resize.setEventHandler { [weak self] in MainActor.assumeIsolated { self?.handleResize() } }
    sources = [input, resize]
    startWatchdog(restoring: hasSavedMode ? savedMode : nil)
    for source in sources { source.resume() }
  }

  public func stop() {
    for source in sources { source.cancel() }
    sources = []
    handler = nil
    if hangupWatcherStop >= 0 {
      var byte: UInt8 = 0
      _ = write(hangupWatcherStop, &byte, 1)  // the watcher closes both ends
      hangupWatcherStop = -1
    }
    guard let screenHandle else { return }
    curs_set(1)
    endwin()
    delscreen(screenHandle)
    self.screenHandle = nil
    window = nil
    Self.writeToTerminal(Self.bracketedPasteOff)
    watchdog?.disarm()
    watchdog = nil
    // From here on a signal has its default effect: nothing is left to restore.
    for signalNumber in [SIGINT, SIGTERM, SIGHUP] { signal(signalNumber, SIG_DFL) }
  }

  /// The terminal's bell (or its visible flash, where the terminal is set so), at once.
  public func bell() {
    guard screenHandle != nil else { return }
    beep()
  }

  private static func writeToTerminal(_ text: String) {
    var bytes = Array(text.utf8)
    _ = write(1, &bytes, bytes.count)  // best effort: a terminal that is gone cannot be told
  }

  // MARK: - Stopping whatever the main actor does

  /// Hears SIGINT, SIGTERM, SIGHUP and a hung-up terminal off the main actor. The loop is
  /// told at once; if it has not stopped within `stopGrace`, the terminal mode is restored
  /// from what was saved before ncurses started (leave the alternate screen, show the cursor,
  /// bracketed paste off, the tty's own settings) and the process exits 128 + the signal.
  private func startWatchdog(restoring savedMode: termios?) {
    var restore = ""
    for capability in ["sgr0", "cnorm", "rmkx", "rmcup"] {
      guard let sequence = tigetstr(capability), Int(bitPattern: sequence) != -1 else { continue }
      restore += String(cString: sequence)
    }
    restore += Self.bracketedPasteOff + "\r\n"
    let restoreBytes = Array(restore.utf8)
    let queue = DispatchQueue(label: "appt.terminal.watchdog")
    let watchdog = Watchdog(
      notify: { [weak self] in Task { @MainActor in self?.handler?(.interrupted) } },
      schedule: { deadline in queue.asyncAfter(deadline: .now() + Self.stopGrace, execute: deadline) },
      expire: { exitStatus in
        var bytes = restoreBytes
        _ = write(1, &bytes, bytes.count)
        if var mode = savedMode { tcsetattr(0, TCSANOW, &mode) }
        var message = Array("appt: the calendar did not stop in time; the terminal was restored\n".utf8)
        _ = write(2, &message, message.count)
        _exit(exitStatus)
      }
    )
    self.watchdog = watchdog
    for signalNumber in [SIGINT, SIGTERM, SIGHUP] {
      let source = DispatchSource.makeSignalSource(signal: signalNumber, queue: queue)
      // @Sendable: it runs on the watchdog's queue, not the main actor (which it must not wait for).
      let requestStop: @Sendable () -> Void = { watchdog.requestStop(exitStatus: 128 + signalNumber) }
      source.setEventHandler(handler: requestStop)
      sources.append(source)
    }
    // poll() with no events asked for wakes only on POLLHUP/POLLERR: a closed terminal, never
    // input (which the main actor reads). The pipe stops the thread.
    var pipeEnds: [Int32] = [-1, -1]
    guard pipe(&pipeEnds) == 0 else { return }
    hangupWatcherStop = pipeEnds[1]
    let stopEnd = pipeEnds[0]
    let writeEnd = pipeEnds[1]
    let watch: @Sendable () -> Void = {
      var fds = [pollfd(fd: 0, events: 0, revents: 0), pollfd(fd: stopEnd, events: Int16(POLLIN), revents: 0)]
      while true {
        let ready = poll(&fds, 2, -1)
        if ready < 0, errno == EINTR { continue }
        if ready < 0 || fds[1].revents != 0 { break }
        if fds[0].revents & Int16(POLLHUP | POLLERR | POLLNVAL) != 0 {
          watchdog.requestStop(exitStatus: 128 + SIGHUP)
          break
        }
      }
      close(stopEnd)
      close(writeEnd)
    }
    let thread = Thread(block: watch)
    thread.name = "appt.terminal.hangup"
    thread.start()
  }

  // MARK: - Drawing

  /// Writes `screen.changes(from:)` the previous frame: the same runs a `HeadlessTerminal`
  /// applies. Cell text is already escaped and clipped by `Screen.put`.
  public func draw(_ screen: Screen, cursor: (row: Int, column: Int)?) {
    guard let window else { return }
    if previous?.size != screen.size { werase(window) }
    for run in screen.changes(from: previous) {
      let attributes = attributes(for: run.style)
      wattr_on(window, attributes, nil)
      // The last cell of the last row makes ncurses report ERR (the cursor cannot advance),
      // after drawing it; that is expected.
      mvwaddstr(window, Int32(run.row), Int32(run.column), run.text)
      wattr_off(window, attributes, nil)
    }
    previous = screen
    if let cursor {
      curs_set(1)
      wmove(window, Int32(cursor.row), Int32(cursor.column))
    } else {
      curs_set(0)
    }
    wnoutrefresh(window)
    doupdate()
  }

  // MARK: - Colours

  /// The colour pair of each style that has one: 1 to 9 in the order `setUpColors` lists them
  /// (the calendar colours take 16-23: colour i on colour i, a block).
  private var pairNumbers: [Screen.Style: Int16] = [:]
  /// The first of the eight calendar colours' pairs.
  private static let calendarPairBase: Int16 = 16
  private var calendarColors = false

  private func setUpColors() {
    guard useColor, !palette.pairs.isEmpty, has_colors(), start_color() == OK else { return }
    use_default_colors()
    let colors = Int(appt_colors())
    let styles: [Screen.Style] = [.header, .status, .selected, .error, .accent, .field, .focusedField, .today, .marked]
    for (index, style) in styles.enumerated() {
      guard let pair = palette.pairs[style] else { continue }
      let number = Int16(index + 1)
      init_pair(
        number,
        Int16(pair.foreground.number(terminalColors: colors)),
        Int16(pair.background.number(terminalColors: colors))
      )
      pairNumbers[style] = number
    }
    for color in Int16(0)..<8 { init_pair(Self.calendarPairBase + color, color, color) }
    calendarColors = true
  }

  /// Colour where the terminal has it and the palette gives the style a pair; bold, reverse
  /// and underline where it does not.
  private func attributes(for style: Screen.Style) -> attr_t {
    if case .calendar(let color) = style, calendarColors {
      return appt_color_pair(Self.calendarPairBase + Int16(max(0, min(7, color))))
    }
    if let pair = pairNumbers[style] {
      let color = appt_color_pair(pair)
      switch style {
      case .header, .error, .accent, .today, .marked: return color | appt_A_BOLD
      case .field: return color | appt_A_UNDERLINE
      default: return color
      }
    }
    switch style {
    case .normal: return appt_A_NORMAL
    case .header, .status, .focusedField: return appt_A_REVERSE
    case .selected: return appt_A_REVERSE | appt_A_BOLD
    case .dim: return appt_A_DIM
    case .error, .accent: return appt_A_BOLD
    case .field: return appt_A_UNDERLINE
    case .today: return appt_A_BOLD | appt_A_UNDERLINE
    case .marked: return appt_A_BOLD
    case .calendar: return appt_A_BOLD  // the calendar's letter stands for its colour
    }
  }

  // MARK: - Input

  /// Reads what is available and hands its keys on, in pieces of bounded size (a long paste
  /// without bracketed paste is a long burst of keys).
  private func drainInput() {
    guard let window else { return }
    var sawInput = false
    var inputs: [KeyDecoder.Input] = []
    var character: wint_t = 0
    while true {
      let result = wget_wch(window, &character)
      if result == ERR { break }
      sawInput = true
      if result == KEY_CODE_YES, Int32(character) == KEY_MOUSE {
        // The keys before it first, then the click, in the order they came.
        deliver(decoder.decode(inputs, isEndOfRead: false))
        inputs.removeAll(keepingCapacity: true)
        var event = MEVENT()
        if getmouse(&event) == OK, let mouse = Self.mouse(event) { handler?(.mouse(mouse)) }
        continue
      }
      inputs.append(Self.input(result: result, character: character))
      if inputs.count == 4096 {
        deliver(decoder.decode(inputs, isEndOfRead: false))
        inputs.removeAll(keepingCapacity: true)
      }
    }
    deliver(decoder.decode(inputs))
    // Readable but nothing to read: the terminal hung up. Leave instead of spinning.
    if !sawInput, appt_bytes_available(0) <= 0 { handler?(.interrupted) }
  }

  private func deliver(_ keys: [Key]) {
    for key in keys { handler?(.key(key)) }
  }

  private func handleResize() {
    var rows: Int32 = 0
    var columns: Int32 = 0
    guard appt_terminal_size(1, &rows, &columns) == 0 else { return }
    resizeterm(rows, columns)
    size = Screen.Size(rows: Int(rows), columns: Int(columns))
    previous = nil  // everything is redrawn at the new size
    handler?(.resized(size))
  }

  /// What ncurses reports of a mouse event, as the calendar takes it (nil: not one it uses).
  nonisolated static func mouse(_ event: MEVENT) -> MouseEvent? {
    let kind: MouseEvent.Kind
    switch appt_mouse_kind(event.bstate) {
    case 1: kind = .click
    case 4: kind = .wheelUp
    case 5: kind = .wheelDown
    default: return nil
    }
    return MouseEvent(kind, row: Int(event.y), column: Int(event.x))
  }

  /// What `wget_wch` returned, for the `KeyDecoder`: a function key (nil for one appt does
  /// not use) or a character code.
  public nonisolated static func input(result: Int32, character: wint_t) -> KeyDecoder.Input {
    guard result == KEY_CODE_YES else { return .character(UInt32(character)) }
    return .key(functionKey(Int32(character)))
  }

  nonisolated static func functionKey(_ code: Int32) -> Key? {
    switch code {
    case KEY_UP: return .up
    case KEY_DOWN: return .down
    case KEY_LEFT: return .left
    case KEY_RIGHT: return .right
    case KEY_PPAGE: return .pageUp
    case KEY_NPAGE: return .pageDown
    case KEY_HOME: return .home
    case KEY_END: return .end
    case KEY_BACKSPACE: return .backspace
    case KEY_DC: return .delete
    case KEY_BTAB: return .backTab
    case KEY_ENTER: return .enter
    default: return nil
    }
  }
}
