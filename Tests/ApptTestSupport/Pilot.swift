import ApptCore
import ApptRuntime
import ApptStore
import ApptTerminal
import ApptUI
import Foundation

/// Drives the real runtime through a headless terminal, like a user at the keyboard
/// (Textual's Pilot): `press`, `type`, `settle`, then read `rows`.
@MainActor
public final class Pilot {
  public let terminal: HeadlessTerminal
  public let loop: RenderLoop
  private var running: Task<Void, Never>?

  public init(
    dao: AppointmentDAO,
    size: Screen.Size = Screen.Size(rows: 24, columns: 80),
    clock: Clock = TestClock.clock,
    settings: Settings = Settings()
  ) {
    terminal = HeadlessTerminal(size: size)
    loop = RenderLoop(dao: dao, terminal: terminal, environment: Environment(clock: clock, settings: settings))
  }

  /// A pilot of a loop the test built itself (with a sync runner of its own...) on `terminal`.
  public init(terminal: HeadlessTerminal, loop: RenderLoop) {
    self.terminal = terminal
    self.loop = loop
  }

  /// Starts the loop and waits for the first settled frame.
  public func start(
    fileID: String = #fileID,
    filePath: String = #filePath,
    line: Int = #line,
    column: Int = #column
  ) async {
    let loop = self.loop
    running = Task { @MainActor in
      do {
        try await loop.run()
      } catch {
        preconditionFailure("the headless terminal cannot fail to start: \(error)")
      }
    }
    let starting = ContinuousClock.now
    while !terminal.isStarted {
      guard ContinuousClock.now - starting < HangGuard.limit else {
        let message = "the loop did not start the headless terminal in \(HangGuard.limit)"
        return recordFailure(message, fileID: fileID, filePath: filePath, line: line, column: column)
      }
      await Task.yield()
    }
    await settle(fileID: fileID, filePath: filePath, line: line, column: column)
  }

  /// Presses keys by their canonical spellings: `press("a")`, `press("ctrl+u", "enter")`.
  public func press(_ spellings: String...) {
    for spelling in spellings {
      guard let key = Key(spelling: spelling) else { preconditionFailure("no key is spelled \"\(spelling)\"") }
      terminal.press(key)
    }
  }

  public func type(_ text: String) { terminal.type(text) }

  /// Adds an appointment through the form as a user does: `a`, the title, the time after
  /// the prefilled day, the duration over the default, the location, the note, `enter`.
  public func addInForm(title: String, time: String, duration: String, location: String = "", note: String) {
    press("a")
    type(title)
    press("tab")
    type(time)
    press("tab", "ctrl+u")
    type(duration)
    press("tab")
    type(location)
    press("tab")
    type(note)
    press("enter")
  }

  public func resize(rows: Int, columns: Int) { terminal.resize(to: Screen.Size(rows: rows, columns: columns)) }

  /// Waits until all keys are handled, the store is idle and its snapshots are on screen. If
  /// nothing moves for `HangGuard.limit`, the test fails with what the loop still waited for.
  public func settle(
    fileID: String = #fileID,
    filePath: String = #filePath,
    line: Int = #line,
    column: Int = #column
  ) async {
    do {
      try await loop.settle(giveUpAfter: HangGuard.limit)
    } catch {
      recordFailure(error.description, fileID: fileID, filePath: filePath, line: line, column: column)
    }
  }

  /// Does now what the store's next poll would, so another connection's (another process's)
  /// commits reach the observations without waiting for the poll interval; `settle()` then
  /// waits until they are on screen.
  public func checkForExternalChanges() async {
    await loop.dao.database.checkForExternalChanges()
  }

  /// Waits for the loop to end (after `q`), with the terminal restored.
  public func waitUntilFinished() async { await running?.value }

  public var isRunning: Bool { terminal.isStarted }
  public var screen: Screen { terminal.screen }
  public var rows: [String] { terminal.screen.rows.map { String($0.reversed().drop { $0 == " " }.reversed()) } }
  public var state: State { loop.state }

  /// The rows right of the month panel (when the terminal is wide enough to have one), so
  /// agenda assertions do not depend on which panels the layout shows.
  public var agenda: [String] {
    rows.map { row in
      guard row.count > 24, row.dropFirst(23).first == "│" else { return row }
      return String(row.dropFirst(24))
    }
  }

  /// Whether any row contains `text`.
  public func shows(_ text: String) -> Bool { rows.contains { $0.contains(text) } }
}

/// A readable, row-by-row comparison of a screen against expected rows (trailing spaces
/// ignored). Returns nil when they match, else a diff to show in the failure.
public func screenDifference(_ actual: [String], _ expected: String) -> String? {
  let trim: (String) -> String = { String($0.reversed().drop { $0 == " " }.reversed()) }
  let wanted = expected.split(separator: "\n", omittingEmptySubsequences: false).map { trim(String($0)) }
  let got = actual.map(trim)
  guard got != wanted else { return nil }
  var lines = ["screen differs (- expected, + actual):"]
  for index in 0..<max(got.count, wanted.count) {
    let a = index < wanted.count ? wanted[index] : "<none>"
    let b = index < got.count ? got[index] : "<none>"
    if a == b { lines.append("  \(index): \(a)") } else { lines += ["- \(index): \(a)", "+ \(index): \(b)"] }
  }
  return lines.joined(separator: "\n")
}
