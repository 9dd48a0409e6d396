import ApptUI

/// Turns what a terminal's reader returns into keys, with no terminal: control characters,
/// ESC sequences ncurses did not recognise (swallowed, never run as keys), bracketed paste
/// (`ESC[200~ ... ESC[201~`, one `.paste`), and characters that arrive as several scalars
/// (combining marks, emoji sequences: one key). State carries over between reads, so a
/// paste may arrive in pieces.
public struct KeyDecoder: Sendable {
  /// One result of the reader (ncurses' `wget_wch`).
  public enum Input: Equatable, Sendable {
    /// A function key the reader recognised; nil for one appt does not use.
    case key(Key?)
    /// A character code: a Unicode scalar value or a control code.
    case character(UInt32)
  }

  /// A paste keeps at most this many scalars (bounded memory), what a field holds at most; a
  /// longer one is cut here, and a field's own limit then refuses to save it, so nothing cut
  /// is stored unseen.
  public static let maximumPaste = TextField.maximumLength

  private enum Mode: Sendable {
    case normal
    /// After ESC.
    case escape
    /// After ESC [: the parameter and intermediate bytes so far.
    case csi(String)
    /// After ESC O: one more character ends it.
    case ss3
    /// Inside a bracketed paste: the text so far, and how much of the end marker was seen.
    case paste(String.UnicodeScalarView, count: Int, matched: Int)
  }

  private var mode = Mode.normal
  private static let pasteEnd: [UInt32] = [27, 0x5B, 0x32, 0x30, 0x31, 0x7E]  // ESC [ 2 0 1 ~

  public init() {}

  /// Whether a paste has started and not yet ended.
  public var isInPaste: Bool {
    if case .paste = mode { return true }
    return false
  }

  /// The keys of `inputs`. At the end of a read (everything available at once), a lone ESC
  /// is the Esc key: the reader has already waited for the rest of a sequence.
  public mutating func decode(_ inputs: [Input], isEndOfRead: Bool = true) -> [Key] {
    var keys: [Key] = []
    for input in inputs { feed(input, into: &keys) }
    if isEndOfRead, case .escape = mode {
      keys.append(.escape)
      mode = .normal
    }
    return keys
  }

  private mutating func feed(_ input: Input, into keys: inout [Key]) {
    switch mode {
    case .normal:
      switch input {
      case .key(let key): if let key { keys.append(key) }
      case .character(27): mode = .escape
      case .character(let code): Self.append(code, to: &keys)
      }
    case .escape:
      switch input {
      case .character(0x5B): mode = .csi("")
      case .character(0x4F): mode = .ss3
      case .character(27): keys.append(.escape)
      default:
        keys.append(.escape)  // Esc then a key (alt+key): both
        mode = .normal
        feed(input, into: &keys)
      }
    case .csi(let parameters):
      guard case .character(let code) = input, (0x20...0x7E).contains(code) else {
        mode = .normal  // not a sequence after all: drop what was seen, keep this input
        feed(input, into: &keys)
        return
      }
      if (0x40...0x7E).contains(code) {
        mode = parameters == "200" && code == 0x7E ? .paste(String.UnicodeScalarView(), count: 0, matched: 0) : .normal
      } else {
        mode = parameters.utf8.count < 32 ? .csi(parameters + String(UnicodeScalar(UInt8(code)))) : .normal
      }
    case .ss3:
      mode = .normal
      if case .key = input { feed(input, into: &keys) }
    case .paste(var text, var count, var matched):
      guard case .character(let code) = input else { return }  // a key decoded inside a paste
      mode = .normal  // while `text` is changed, so that it is not copied
      if code == Self.pasteEnd[matched] {
        matched += 1
        if matched == Self.pasteEnd.count {
          keys.append(.paste(String(text)))
          return
        }
      } else {
        if matched > 0 {  // a partial end marker was text after all (its ESC is left out)
          for scalar in Self.pasteEnd[1..<matched] { Self.add(scalar, to: &text, count: &count) }
          matched = 0
        }
        if code == Self.pasteEnd[0] { matched = 1 } else { Self.add(code, to: &text, count: &count) }
      }
      mode = .paste(text, count: count, matched: matched)
    }
  }

  private static func add(_ code: UInt32, to text: inout String.UnicodeScalarView, count: inout Int) {
    guard count < maximumPaste, let scalar = Unicode.Scalar(code) else { return }
    text.append(scalar)
    count += 1
  }

  /// A character code outside a sequence: a control key, or text (merged with the character
  /// before when they form one, such as e + U+0301).
  private static func append(_ code: UInt32, to keys: inout [Key]) {
    switch code {
    case 13, 10: keys.append(.enter)
    case 9: keys.append(.tab)
    case 127, 8: keys.append(.backspace)
    case 1...26: keys.append(.control(Character(Unicode.Scalar(UInt8(code) + 0x60))))
    case 0, 27...31, 0x80...0x9F: return  // ctrl+@, ctrl+\ ... and C1 controls: no key
    default:
      guard let scalar = Unicode.Scalar(code) else { return }
      let character = Character(scalar)
      if case .character(let previous) = keys.last {
        var joined = String(previous)
        joined.unicodeScalars.append(scalar)
        if joined.count == 1, let merged = joined.first {
          keys[keys.count - 1] = .character(merged)
          return
        }
      }
      keys.append(.character(character))
    }
  }
}
