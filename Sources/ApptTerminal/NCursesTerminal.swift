import ApptUI
import CNCursesW
import Dispatch
import Foundation

/// The real terminal, through ncursesw. The only file in appt that imports ncurses.
///
/// Every ncurses call happens on the main thread: a dispatch read source on stdin says input
/// is ready and the main actor drains `wget_wch` without blocking (ncurses is not thread-safe;
/// a reader thread blocking in `wget_wch` races the drawing and loses keys after a resize).
@MainActor
public final class NCursesTerminal: Terminal {
  public private(set) var size = Screen.Size(rows: 24, columns: 80)
  private var window: UnsafeMutablePointer<WINDOW>?
  private var screenHandle: OpaquePointer?
  private var previous: Screen?
  private var sources: [any DispatchSourceProtocol] = []
  private var handler: (@MainActor (TerminalEvent) -> Void)?
  private let useColor: Bool

  public init(environment: [String: String] = ProcessInfo.processInfo.environment) {
    useColor = environment["NO_COLOR"].map(\.isEmpty) ?? true
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
    if let problem = Self.checkUsable(environment: ProcessInfo.processInfo.environment) { throw problem }
    setlocale(LC_ALL, "")
    if appt_locale_is_utf8() == 0 { setlocale(LC_CTYPE, "C.UTF-8") }  // no LANG (cron, env -i)

    // Signals become dispatch sources on the main queue; ignoring them first stops the default
    // action (and stops ncurses from installing its own SIGWINCH handler).
    for signalNumber in [SIGWINCH, SIGINT, SIGTERM, SIGHUP] { signal(signalNumber, SIG_IGN) }

    guard let screen = newterm(nil, appt_stdout(), appt_stdin()) else {
      throw TerminalError("cannot initialise the terminal (TERM=\(ProcessInfo.processInfo.environment["TERM"] ?? ""))")
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
    setUpColors()
    self.handler = handler
    size = Screen.Size(rows: Int(getmaxy(window)), columns: Int(getmaxx(window)))

    let input = DispatchSource.makeReadSource(fileDescriptor: 0, queue: .main)
    input.setEventHandler { [weak self] in MainActor.assumeIsolated { self?.drainInput() } }
    let resize = DispatchSource.makeSignalSource(signal: SIGWINCH, queue: .main)
    resize.setEventHandler { [weak self] in MainActor.assumeIsolated { self?.handleResize() } }
    sources = [input, resize]
    for signalNumber in [SIGINT, SIGTERM, SIGHUP] {
      let source = DispatchSource.makeSignalSource(signal: signalNumber, queue: .main)
      source.setEventHandler { [weak self] in MainActor.assumeIsolated { self?.handler?(.interrupted) } }
      sources.append(source)
    }
    for source in sources { source.resume() }
  }

  public func stop() {
    for source in sources { source.cancel() }
    sources = []
    handler = nil
    guard let screenHandle else { return }
    curs_set(1)
    endwin()
    delscreen(screenHandle)
    self.screenHandle = nil
    window = nil
  }

  // MARK: - Drawing

  public func draw(_ screen: Screen, cursor: (row: Int, column: Int)?) {
    guard let window else { return }
    let full = previous?.size != screen.size
    if full { werase(window) }
    for row in 0..<screen.size.rows where full || !rowEqual(row, screen) {
      drawRow(row, of: screen, in: window)
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

  private func rowEqual(_ row: Int, _ screen: Screen) -> Bool {
    guard let previous else { return false }
    let start = row * screen.size.columns
    return previous.cells[start..<start + screen.size.columns] == screen.cells[start..<start + screen.size.columns]
  }

  /// Writes a row as runs of equally styled cells. Cell text is already escaped and clipped by
  /// `Screen.put`; the right half of a wide character is an empty cell and adds nothing.
  private func drawRow(_ row: Int, of screen: Screen, in window: UnsafeMutablePointer<WINDOW>) {
    var column = 0
    while column < screen.size.columns {
      let style = screen[row, column].style
      var text = ""
      let runStart = column
      while column < screen.size.columns, screen[row, column].style == style {
        text += screen[row, column].text
        column += 1
      }
      let attributes = attributes(for: style)
      wattr_on(window, attributes, nil)
      // The last cell of the last row makes ncurses report ERR (the cursor cannot advance),
      // after drawing it; that is expected.
      mvwaddstr(window, Int32(row), Int32(runStart), text)
      wattr_off(window, attributes, nil)
    }
  }

  // MARK: - Colours

  private enum Pair: Int16 {
    case header = 1, status, selected, error, accent, field, focusedField, today, marked
  }

  private func setUpColors() {
    guard useColor, has_colors(), start_color() == OK else { return }
    use_default_colors()
    init_pair(Pair.header.rawValue, Int16(COLOR_WHITE), Int16(COLOR_BLUE))
    init_pair(Pair.status.rawValue, Int16(COLOR_BLACK), Int16(COLOR_CYAN))
    init_pair(Pair.selected.rawValue, Int16(COLOR_BLACK), Int16(COLOR_YELLOW))
    init_pair(Pair.error.rawValue, Int16(COLOR_WHITE), Int16(COLOR_RED))
    init_pair(Pair.accent.rawValue, Int16(COLOR_CYAN), -1)
    init_pair(Pair.field.rawValue, -1, -1)
    init_pair(Pair.focusedField.rawValue, Int16(COLOR_BLACK), Int16(COLOR_WHITE))
    init_pair(Pair.today.rawValue, Int16(COLOR_BLACK), Int16(COLOR_GREEN))
    init_pair(Pair.marked.rawValue, Int16(COLOR_YELLOW), -1)
    colorsEnabled = true
  }

  private var colorsEnabled = false

  /// Colour where the terminal has it; bold, reverse and underline where it does not.
  private func attributes(for style: Screen.Style) -> attr_t {
    if colorsEnabled {
      switch style {
      case .normal: return appt_A_NORMAL
      case .header: return appt_color_pair(Pair.header.rawValue) | appt_A_BOLD
      case .status: return appt_color_pair(Pair.status.rawValue)
      case .selected: return appt_color_pair(Pair.selected.rawValue)
      case .dim: return appt_A_DIM
      case .error: return appt_color_pair(Pair.error.rawValue) | appt_A_BOLD
      case .accent: return appt_color_pair(Pair.accent.rawValue) | appt_A_BOLD
      case .field: return appt_A_UNDERLINE
      case .focusedField: return appt_color_pair(Pair.focusedField.rawValue)
      case .today: return appt_color_pair(Pair.today.rawValue) | appt_A_BOLD
      case .marked: return appt_color_pair(Pair.marked.rawValue) | appt_A_BOLD
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
    }
  }

  // MARK: - Input

  private func drainInput() {
    guard let window else { return }
    var sawKey = false
    var character: wint_t = 0
    while true {
      let result = wget_wch(window, &character)
      if result == ERR { break }
      sawKey = true
      if let key = Self.key(result: result, character: character) { handler?(.key(key)) }
    }
    // Readable but nothing to read: the terminal hung up. Leave instead of spinning.
    if !sawKey, appt_bytes_available(0) <= 0 { handler?(.interrupted) }
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

  /// Maps what `wget_wch` returned to a key; nil for keys appt does not use.
  static func key(result: Int32, character: wint_t) -> Key? {
    if result == KEY_CODE_YES {
      switch Int32(character) {
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
    switch character {
    case 13, 10: return .enter
    case 9: return .tab
    case 27: return .escape
    case 127, 8: return .backspace
    case 1...26: return .control(Character(Unicode.Scalar(UInt8(character) + 0x60)))
    default:
      guard let scalar = Unicode.Scalar(UInt32(character)), scalar.value >= 0x20 else { return nil }
      return .character(Character(scalar))
    }
  }
}
