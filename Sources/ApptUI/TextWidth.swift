/// Display width of text in terminal columns, measured per grapheme.
///
/// The UI model cannot ask ncurses (`wcwidth`), and `wcwidth` disagrees with terminals on
/// emoji sequences anyway; this follows what terminals do: East Asian wide and fullwidth
/// characters and emoji-presentation graphemes take two columns, combining marks none.
public enum TextWidth {
  public static func of(_ character: Character) -> Int {
    let scalars = character.unicodeScalars
    guard let first = scalars.first else { return 0 }
    if first.value < 0x7F { return first.value < 0x20 ? 0 : 1 }  // ASCII fast path
    if scalars.contains(where: { $0.value == 0xFE0F }) || first.properties.isEmojiPresentation { return 2 }
    if isZeroWidth(first) { return 0 }
    return isWide(first.value) ? 2 : 1
  }

  public static func of(_ text: String) -> Int {
    text.reduce(0) { $0 + of($1) }
  }

  /// `text` cut to at most `width` columns, ending in "…" when something was cut (or when
  /// `isCut` says `text` is itself the start of something longer).
  public static func clip(_ text: String, to width: Int, isCut: Bool = false) -> String {
    guard width > 0 else { return "" }
    if !isCut {
      if text.utf8.count <= width, text.utf8.allSatisfy({ $0 >= 0x20 && $0 < 0x7F }) { return text }
      if of(text) <= width { return text }
    }
    var result = ""
    var used = 0
    for character in text {
      let w = of(character)
      if used + w > width - 1 { break }
      result.append(character)
      used += w
    }
    return result + "…"
  }

  /// The start of `text` that can matter on `columns` columns, and whether more followed:
  /// at most `4 * columns + 4` scalars (escaping only widens, and the rest is clipped
  /// anyway). Drawing a 20 MB note then costs what drawing a short one does.
  public static func head(_ text: String, columns: Int) -> (text: String, isCut: Bool) {
    let bound = max(0, columns) * 4 + 4
    guard text.utf8.count > bound else { return (text, false) }
    let scalars = text.unicodeScalars
    guard let end = scalars.index(scalars.startIndex, offsetBy: bound, limitedBy: scalars.endIndex),
      end != scalars.endIndex
    else { return (text, false) }
    return (String(scalars[..<end]), true)
  }

  /// `text` padded with spaces (or clipped) to exactly `width` columns.
  public static func pad(_ text: String, to width: Int) -> String {
    let clipped = clip(text, to: width)
    return clipped + String(repeating: " ", count: max(0, width - of(clipped)))
  }

  private static func isZeroWidth(_ scalar: Unicode.Scalar) -> Bool {
    switch scalar.properties.generalCategory {
    case .nonspacingMark, .enclosingMark, .format: return true
    default: return scalar.value == 0x200B
    }
  }

  private static func isWide(_ value: UInt32) -> Bool {
    switch value {
    case 0x1100...0x115F, 0x2E80...0x303E, 0x3041...0x33FF, 0x3400...0x4DBF, 0x4E00...0x9FFF,
      0xA000...0xA4CF, 0xAC00...0xD7A3, 0xF900...0xFAFF, 0xFE30...0xFE4F, 0xFF00...0xFF60,
      0xFFE0...0xFFE6, 0x1F300...0x1F64F, 0x1F900...0x1F9FF, 0x20000...0x2FFFD, 0x30000...0x3FFFD:
      return true
    default:
      return false
    }
  }
}
