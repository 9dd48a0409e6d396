/// Makes stored text safe to show on a terminal: control characters are shown escaped.
///
/// A title comes from a file anyone may have written. Written raw, an ESC sequence could clear
/// the screen, move the cursor or set the window title; C1 controls do the same on some
/// terminals. C0 controls and DEL are shown in caret notation (`^[`, `^?`), C1 as `\u{9b}`.
public enum TextSafety {
  public static func escapingControls(_ text: String) -> String {
    guard text.unicodeScalars.contains(where: isControl) else { return text }
    var out = String.UnicodeScalarView()
    for scalar in text.unicodeScalars {
      switch scalar.value {
      case 0x00...0x1F:
        out.append("^")
        out.append(Unicode.Scalar(UInt8(scalar.value + 0x40)))
      case 0x7F:
        out.append(contentsOf: "^?".unicodeScalars)
      case 0x80...0x9F:
        out.append(contentsOf: "\\u{\(String(scalar.value, radix: 16))}".unicodeScalars)
      default:
        out.append(scalar)
      }
    }
    return String(out)
  }

  /// Whether a scalar is a C0, DEL or C1 control (tab and newline included: one-line fields).
  public static func isControl(_ scalar: Unicode.Scalar) -> Bool {
    scalar.value < 0x20 || (0x7F...0x9F).contains(scalar.value)
  }
}
