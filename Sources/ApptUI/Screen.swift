import ApptCore

/// A terminal-sized grid of styled cells that views draw into. Views never touch a terminal;
/// a backend diffs two screens and writes only what changed (ratatui's `Buffer`).
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
  }

  public struct Cell: Equatable, Sendable {
    /// One grapheme; "" for the right half of a wide character.
    public var text: String
    public var style: Style
    public static let blank = Cell(text: " ", style: .normal)
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
  /// a space and a truncated text ends in "…" — a character is never split.
  @discardableResult
  public mutating func put(_ text: String, row: Int, column: Int, width: Int? = nil, style: Style = .normal) -> Int {
    guard row >= 0, row < size.rows, column >= 0, column < size.columns else { return 0 }
    let limit = min(width ?? size.columns - column, size.columns - column)
    guard limit > 0 else { return 0 }
    let safe = TextWidth.clip(TextSafety.escapingControls(text), to: limit)
    var x = column
    for character in safe {
      let w = TextWidth.of(character)
      if w == 0 { continue }
      cells[row * size.columns + x] = Cell(text: String(character), style: style)
      if w == 2 { cells[row * size.columns + x + 1] = Cell(text: "", style: style) }
      x += w
    }
    return x - column
  }

  /// Paints `count` cells from (`row`, `column`) with `style`, keeping their text.
  public mutating func fill(row: Int, column: Int = 0, count: Int? = nil, style: Style) {
    guard row >= 0, row < size.rows else { return }
    let start = max(0, column)
    let end = min(size.columns, start + (count ?? size.columns))
    guard start < end else { return }
    for x in start..<end { cells[row * size.columns + x].style = style }
  }

  /// The screen as plain text rows (trailing spaces kept), for tests and debugging.
  public var rows: [String] {
    (0..<size.rows).map { row in
      (0..<size.columns).map { self[row, $0].text }.joined()
    }
  }

  public var text: String { rows.joined(separator: "\n") }
}
