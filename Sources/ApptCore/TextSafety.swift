/// Makes stored text safe to show on a terminal: control characters and invisible format
/// characters are shown escaped.
///
/// A title comes from a file anyone may have written. Written raw, an ESC sequence could clear
/// the screen, move the cursor or set the window title; C1 controls do the same on some
/// terminals. C0 controls and DEL are shown in caret notation (`^[`, `^?`), C1 as `\u{9b}`.
///
/// Invisible format characters (Unicode category Cf: the bidirectional embeddings, overrides,
/// isolates and marks U+202A-U+202E, U+2066-U+2069, U+200E, U+200F, U+061C; zero-width
/// spaces, U+FEFF, soft hyphens, tag characters...) and the line and paragraph separators
/// U+2028/U+2029 can make a listing show something other than what is stored ("Trojan
/// Source": U+202E turns `evil.exe` into what reads as a harmless name): they are shown as
/// `\u{202e}`. Kept raw, because they are part of how text is written and change no order:
/// ZWJ and ZWNJ (U+200D, U+200C: emoji sequences, Persian and Indic scripts), variation
/// selectors (not Cf), and tag characters inside an emoji tag sequence (the flag of England
/// is U+1F3F4, tags, U+E007F).
public enum TextSafety {
  public static func escapingControls(_ text: String) -> String {
    guard needsEscaping(text) else { return text }
    var out = String.UnicodeScalarView()
    forEachScalar(of: text) { scalar, hidden in
      guard hidden else {
        out.append(scalar)
        return
      }
      switch scalar.value {
      case 0x00...0x1F:
        out.append("^")
        out.append(Unicode.Scalar(UInt8(scalar.value + 0x40)))
      case 0x7F:
        out.append(contentsOf: "^?".unicodeScalars)
      default:
        out.append(contentsOf: "\\u{\(String(scalar.value, radix: 16))}".unicodeScalars)
      }
    }
    return String(out)
  }

  /// Whether a scalar is a C0, DEL or C1 control (tab and newline included: one-line fields).
  public static func isControl(_ scalar: Unicode.Scalar) -> Bool {
    scalar.value < 0x20 || (0x7F...0x9F).contains(scalar.value)
  }

  /// Whether a scalar is an invisible format character that `escapingControls` shows escaped
  /// wherever it appears (tag characters are decided per character: see `forEachScalar`).
  public static func isInvisibleFormat(_ scalar: Unicode.Scalar) -> Bool {
    let value = scalar.value
    // Fast path: nothing below the soft hyphen is a format character.
    guard value >= 0xAD else { return false }
    if value == 0x200C || value == 0x200D { return false }
    if value == 0x2028 || value == 0x2029 { return true }
    return scalar.properties.generalCategory == .format
  }

  /// Calls `body` with each scalar of `text` and whether it must be shown escaped: a control,
  /// or an invisible format character other than the tags of an emoji tag sequence.
  public static func forEachScalar(of text: String, _ body: (Unicode.Scalar, _ hidden: Bool) -> Void) {
    guard needsEscaping(text) else {
      for scalar in text.unicodeScalars { body(scalar, false) }
      return
    }
    for character in text {
      let scalars = character.unicodeScalars
      let isEmojiTagSequence = scalars.first?.value == 0x1F3F4 && scalars.last?.value == 0xE007F
      for scalar in scalars {
        if isEmojiTagSequence, (0xE0020...0xE007F).contains(scalar.value) {
          body(scalar, false)
        } else {
          body(scalar, isControl(scalar) || isInvisibleFormat(scalar))
        }
      }
    }
  }

  /// Whether any scalar of `text` may need escaping (a quick scan; most text has none).
  static func needsEscaping(_ text: String) -> Bool {
    // Printable ASCII, as most text is, holds nothing to escape: its bytes say so at once.
    var text = text
    if text.withUTF8(isPrintableASCII) { return false }
    return text.unicodeScalars.contains { isControl($0) || isInvisibleFormat($0) }
  }

  /// `escapingControls(text)`, appended as UTF-8 (a `list` line's title): text with nothing
  /// to escape is copied as it is, with no String made.
  public static func appendEscapingControls(_ text: String, to out: inout [UInt8]) {
    var text = text
    let copied = text.withUTF8 { bytes in
      guard isPrintableASCII(bytes) else { return false }
      out.append(contentsOf: bytes)
      return true
    }
    if !copied { out.append(contentsOf: escapingControls(text).utf8) }
  }

  private static func isPrintableASCII(_ bytes: UnsafeBufferPointer<UInt8>) -> Bool {
    for byte in bytes where byte < 0x20 || byte >= 0x7F { return false }
    return true
  }
}
