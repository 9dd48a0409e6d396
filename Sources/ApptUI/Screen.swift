import ApptCore

/// A terminal-sized grid of styled cells that views draw into. Views never touch a terminal;
/// a backend writes only `changes(from:)` the previous frame (ratatui's `Buffer`).
///
/// Wide characters: a cell holding a two-column character is followed by a continuation cell
/// (text "") of the same style, and a continuation cell always follows one. `put`, `fill`
/// and `apply` keep this so; overwriting half of a wide character blanks the other half, as
/// terminals do.
public struct Screen: Equatable, Sendable {
  public struct Size: Hashable, Sendable {
    public var rows: Int
    public var columns: Int
    public init(rows: Int, columns: Int) {
      self.rows = max(0, rows)
      self.columns = max(0, columns)
    }
  }

  /// How a cell looks, by meaning; the terminal maps roles to colours or attributes.
  public enum Style: Hashable, Sendable {
    case normal, header, status, selected, dim, error, accent, field, focusedField
    /// The month panel: today, and days that have appointments.
    case today, marked
    /// A calendar's marker in its colour (0-7, curses' order): a block of colour where the
    /// terminal has colours, the cell's letter (the calendar's first) where it has none.
    case calendar(Int)
  }

  public struct Cell: Equatable, Sendable {
    /// One grapheme; "" for the right half of a wide character.
    public var text: String
    public var style: Style
    public static let blank = Cell(text: " ", style: .normal)

    public init(text: String, style: Style) {
      self.text = text
      self.style = style
    }

    var isContinuation: Bool { text.isEmpty }
  }

  /// What a terminal is told to write: `text` from (`row`, `column`) in one `style`, covering
  /// `width` columns (a wide character counts two).
  public struct Run: Equatable, Sendable, CustomStringConvertible {
    public var row: Int
    public var column: Int
    public var text: String
    public var style: Style
    public var width: Int

    public init(row: Int, column: Int, text: String, style: Style, width: Int) {
      self.row = row
      self.column = column
      self.text = text
      self.style = style
      self.width = width
    }

    public var description: String { "(\(row),\(column)) \(style) \"\(text)\"" }
  }

  public let size: Size
  public private(set) var cells: [Cell]

  public init(size: Size) {
    self.size = size
    cells = Array(repeating: .blank, count: size.rows * size.columns)
  }

  public subscript(row: Int, column: Int) -> Cell {
    cells[row * size.columns + column]
  }

  /// Writes `text` at (`row`, `column`), clipped to `width` columns (default: to the edge).
  /// Control characters are shown escaped; a wide character that does not fit is replaced by
  /// a space and a truncated text ends in "…" — a character is never split. Only the start of
  /// `text` that can show is looked at, so drawing a 20 MB note costs what drawing a line does.
  @discardableResult
  public mutating func put(_ text: String, row: Int, column: Int, width: Int? = nil, style: Style = .normal) -> Int {
    guard row >= 0, row < size.rows, column >= 0, column < size.columns else { return 0 }
    let limit = min(width ?? size.columns - column, size.columns - column)
    guard limit > 0 else { return 0 }
    let head = TextWidth.head(text, columns: limit)
    let safe = TextWidth.clip(TextSafety.escapingControls(head.text), to: limit, isCut: head.isCut)
    var x = column
    for character in safe {
      let w = TextWidth.of(character)
      if w == 0 { continue }
      write(character, width: w, row: row, column: x, style: style)
      x += w
    }
    return x - column
  }

  /// Paints `count` cells from (`row`, `column`) with `style`, keeping their text (and both
  /// halves of a wide character the range cuts through).
  public mutating func fill(row: Int, column: Int = 0, count: Int? = nil, style: Style) {
    guard row >= 0, row < size.rows else { return }
    var start = max(0, column)
    var end = min(size.columns, start + (count ?? size.columns))
    guard start < end else { return }
    let base = row * size.columns
    if cells[base + start].isContinuation, start > 0 { start -= 1 }
    if end < size.columns, cells[base + end].isContinuation { end += 1 }
    for x in start..<end { cells[base + x].style = style }
  }

  /// Writes a run as a terminal would: character by character from its column, clipped at
  /// the right edge, blanking the other half of any wide character it overwrites half of.
  /// A headless terminal keeps its grid with this, from the same runs ncurses is given.
  public mutating func apply(_ run: Run) {
    guard run.row >= 0, run.row < size.rows else { return }
    var x = max(0, run.column)
    for character in run.text {
      let w = TextWidth.of(character)
      if w == 0 { continue }
      guard x + w <= size.columns else {
        if x < size.columns { write(" ", width: 1, row: run.row, column: x, style: run.style) }
        return
      }
      write(character, width: w, row: run.row, column: x, style: run.style)
      x += w
    }
  }

  /// One character of `width` columns at (`row`, `column`), keeping wide characters whole.
  private mutating func write(_ character: Character, width: Int, row: Int, column: Int, style: Style) {
    let base = row * size.columns
    if cells[base + column].isContinuation, column > 0 {
      cells[base + column - 1].text = " "  // the left half of a wide character we cut
    }
    let after = column + width
    if after < size.columns, cells[base + after].isContinuation {
      cells[base + after].text = " "  // the right half of a wide character we cut
    }
    cells[base + column] = Cell(text: String(character), style: style)
    if width == 2, column + 1 < size.columns { cells[base + column + 1] = Cell(text: "", style: style) }
  }

  /// What to write to turn `previous` (what the terminal shows) into this screen: the changed
  /// stretches of each row, each in one style. A wide character and its continuation change
  /// together, and a run never starts on a continuation. With no previous frame, or one of
  /// another size, every cell is written (the terminal is cleared first).
  public func changes(from previous: Screen?) -> [Run] {
    let old = previous?.size == size ? previous : nil
    var runs: [Run] = []
    for row in 0..<size.rows {
      let base = row * size.columns
      if let old, old.cells[base..<base + size.columns] == cells[base..<base + size.columns] { continue }
      var current: Run?
      var x = 0
      while x < size.columns {
        var end = x + 1  // the cell and its continuation cells
        while end < size.columns, cells[base + end].isContinuation { end += 1 }
        let lead = cells[base + x]
        let changed = old.map { $0.cells[base + x..<base + end] != cells[base + x..<base + end] } ?? true
        if changed {
          if var run = current, run.style == lead.style, run.column + run.width == x {
            run.text += lead.text
            run.width += end - x
            current = run
          } else {
            if let run = current { runs.append(run) }
            current = Run(row: row, column: x, text: lead.text, style: lead.style, width: end - x)
          }
        }
        x = end
      }
      if let run = current { runs.append(run) }
    }
    return runs
  }

  /// The screen as plain text rows (trailing spaces kept), for tests and debugging.
  public var rows: [String] {
    (0..<size.rows).map { row in
      (0..<size.columns).map { self[row, $0].text }.joined()
    }
  }

  public var text: String { rows.joined(separator: "\n") }
}
