import ApptCore
import Foundation

/// The add/edit form: labelled fields, the error under a bad one, what appt understood, and a
/// warning when the time overlaps another appointment.
enum FormView {
  static let labelWidth = 12

  static func fieldWidth(_ area: Views.Area) -> Int { max(1, min(60, area.width - labelWidth - 2)) }

  /// The columns a form needs: a label and a field a time fits in.
  static let minimumColumns = labelWidth + 18

  /// The rows a form needs: its heading and every field.
  static func minimumRows(_ form: Form) -> Int { 3 + form.shownFields.count }

  /// Whether the form can be shown in `area`; below, it says so and takes only Esc.
  static func fits(_ form: Form, in area: Views.Area) -> Bool {
    area.rows.count >= minimumRows(form) && area.width >= minimumColumns
  }

  /// Whether the form can be shown on a terminal of `size` (where the layout puts it).
  static func fits(_ form: Form, on size: Screen.Size) -> Bool {
    size.rows >= Views.minimumSize.rows && size.columns >= Views.minimumSize.columns
      && fits(form, in: Views.Layout(size: size).agenda)
  }

  static func draw(_ form: Form, state: State, environment: Environment, in area: Views.Area, into screen: inout Screen)
  {
    let x = area.columns.lowerBound
    guard fits(form, in: area) else {
      let message = "Too small for the form (\(minimumColumns)x\(minimumRows(form) + 2)): esc discards"
      for (index, line) in errorLines(message, width: area.width).enumerated() where index < area.rows.count {
        screen.put(line, row: area.rows.lowerBound + index, column: x, width: area.width, style: .error)
      }
      return
    }
    var row = area.rows.lowerBound + 1
    screen.put("  " + title(of: form), row: row, column: x, style: .accent)
    row += 2
    let width = fieldWidth(area)
    for field in form.shownFields where row < area.rows.upperBound {
      let focused = field == form.focus
      screen.put("  \(field.label)", row: row, column: x, style: focused ? .accent : .normal)
      screen.fill(row: row, column: x + labelWidth, count: width, style: focused ? .focusedField : .field)
      // The focused field's selection (a prefilled field, which typing replaces) shows as such.
      let selectedText = focused && form[field].isSelected
      screen.put(
        visibleText(of: form[field], width: width),
        row: row,
        column: x + labelWidth,
        width: width,
        style: selectedText ? .selected : focused ? .focusedField : .field
      )
      row += 1
      if let error = form.errors[field] {
        // An error wraps under its field rather than being cut.
        for line in errorLines(error, width: area.width - labelWidth) where row < area.rows.upperBound {
          screen.put(line, row: row, column: x + labelWidth, width: area.width - labelWidth, style: .error)
          row += 1
        }
      }
    }
    row += 1
    for (index, line) in form.notice.enumerated() where row < area.rows.upperBound {
      screen.put((index == 0 ? "  ! " : "    ") + line, row: row, column: x, width: area.width, style: .error)
      row += 1
    }
    if row < area.rows.upperBound, let meaning = form.interpretation(environment: environment) {
      screen.put("  → \(meaning)", row: row, column: x, width: area.width, style: .accent)
      row += 1
      if row < area.rows.upperBound, let notice = form.dstNotice(clock: environment.clock) {
        screen.put("    \(notice.preview)", row: row, column: x, width: area.width, style: .accent)
        row += 1
      }
    }
    let overlaps = form.overlaps(with: state.appointments, clock: environment.clock)
    if row < area.rows.upperBound, !overlaps.isEmpty {
      let names = overlaps.map { "\($0.title) \(environment.formatter.timeRange($0))" }.joined(separator: ", ")
      screen.put("  ! overlaps \(names)", row: row, column: x, width: area.width, style: .error)
    }
  }

  /// "New appointment", "Edit appointment", "Edit this occurrence", ...
  static func title(of form: Form) -> String {
    guard form.editing != nil else { return "New appointment" }
    switch form.scope {
    case nil: return "Edit appointment"
    case .occurrence: return "Edit this occurrence"
    case .andFollowing: return "Edit this and the following occurrences"
    case .series: return "Edit the whole series"
    }
  }

  /// The start of the part of a field that fits, scrolled so the cursor stays visible: found
  /// walking back from the cursor, so it costs the field's width, not its length.
  static func scrollOffset(of field: TextField, width: Int) -> Int {
    var start = field.cursor
    var used = 0
    let stop = max(0, field.cursor - (4 * width + 4))  // zero-width characters count too
    while start > stop {
      let w = TextWidth.of(field.characters[start - 1])
      if used + w >= width { break }
      used += w
      start -= 1
    }
    return start
  }

  /// The characters from the scroll offset that can show in `width` columns (and one more, so
  /// that a field going on past the edge ends in "…").
  static func visibleText(of field: TextField, width: Int) -> String {
    let start = scrollOffset(of: field, width: width)
    var end = start
    var used = 0
    while end < field.characters.count, used <= width, end - start < 4 * width + 4 {
      used += TextWidth.of(field.characters[end])
      end += 1
    }
    return String(field.characters[start..<end])
  }

  /// `error` in lines of at most `width` columns, broken at spaces where it can be (a word
  /// longer than a line is broken where the line ends).
  static func errorLines(_ error: String, width: Int) -> [String] {
    let width = max(1, width)
    var lines: [String] = []
    var line = ""
    var used = 0
    for word in error.split(separator: " ", omittingEmptySubsequences: false) {
      var word = Substring(word)
      var wordWidth = TextWidth.of(String(word))
      if used > 0, used + 1 + wordWidth <= width {
        line += " " + word
        used += 1 + wordWidth
        continue
      }
      if used > 0 {
        lines.append(line)
        line = ""
        used = 0
      }
      while wordWidth > width {
        var piece = ""
        var pieceWidth = 0
        while let next = word.first, pieceWidth + TextWidth.of(next) <= width {
          piece.append(next)
          pieceWidth += TextWidth.of(next)
          word.removeFirst()
        }
        if piece.isEmpty, let next = word.first {  // wider than the line itself
          piece.append(next)
          word.removeFirst()
        }
        lines.append(piece)
        wordWidth = TextWidth.of(String(word))
      }
      line = String(word)
      used = wordWidth
    }
    if used > 0 || lines.isEmpty { lines.append(line) }
    return lines
  }

  static func cursorPosition(_ form: Form, in area: Views.Area) -> (row: Int, column: Int)? {
    guard fits(form, in: area) else { return nil }
    var row = area.rows.lowerBound + 3
    for field in form.shownFields {
      if field == form.focus { break }
      row += 1 + (form.errors[field].map { errorLines($0, width: area.width - labelWidth).count } ?? 0)
    }
    guard row < area.rows.upperBound else { return nil }
    let field = form[form.focus]
    let start = scrollOffset(of: field, width: fieldWidth(area))
    return (row, area.columns.lowerBound + labelWidth + TextWidth.of(String(field.characters[start..<field.cursor])))
  }
}
