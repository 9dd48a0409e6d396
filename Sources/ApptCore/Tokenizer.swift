/// Splits one command line into words the way a POSIX shell does, without expanding anything.
///
/// The rules are the subset of `sh` a script writer relies on:
/// - spaces, tabs, carriage returns and newlines separate words (a `\r` from a CRLF script
///   is whitespace, so it never sticks to the last word);
/// - `'…'` keeps everything literally, backslashes included;
/// - `"…"` keeps everything literally except that a backslash escapes `"`, `\`, `$` and
///   `` ` `` (and a backslash-newline disappears); before any other character the backslash
///   stays, as in `sh`;
/// - outside quotes a backslash escapes the next character (a backslash-newline disappears);
/// - `#` at the start of a word comments out the rest of the line; elsewhere it is literal;
/// - quotes join with what touches them (`a"b c"d` is one word) and `""` is an empty word.
///
/// Nothing is expanded: `$HOME`, `~` and `*` are plain text.
public enum Tokenizer {
  /// Returns the words of `line`; a blank line or a comment gives `[]`.
  public static func split(_ line: String) throws(CommandError) -> [String] {
    if let nul = line.unicodeScalars.firstIndex(of: "\u{0}") {
      let column = line.unicodeScalars.distance(from: line.unicodeScalars.startIndex, to: nul) + 1
      throw .invalid("NUL byte at column \(column): a command line is text")
    }
    var words: [String] = []
    var word = String.UnicodeScalarView()
    // A word exists once any character or quote of it was seen: `""` is a word, `` is not.
    var inWord = false
    var scalars = line.unicodeScalars.makeIterator()

    func finishWord() {
      if inWord { words.append(String(word)) }
      word = String.UnicodeScalarView()
      inWord = false
    }

    while let scalar = scalars.next() {
      switch scalar {
      case " ", "\t", "\r", "\n":
        finishWord()
      case "#" where !inWord:
        // A comment runs to the end of the line.
        finishWord()
        return words
      case "'":
        inWord = true
        var closed = false
        while let next = scalars.next() {
          if next == "'" {
            closed = true
            break
          }
          word.append(next)
        }
        guard closed else { throw .invalid("unterminated single quote in: \(TextSafety.escapingControls(line))") }
      case "\"":
        inWord = true
        var closed = false
        while let next = scalars.next() {
          if next == "\"" {
            closed = true
            break
          }
          if next == "\\" {
            guard let escaped = scalars.next() else { break }
            switch escaped {
            case "\"", "\\", "$", "`":
              word.append(escaped)
            case "\n":
              break  // line continuation: both characters vanish
            default:
              word.append(next)
              word.append(escaped)
            }
          } else {
            word.append(next)
          }
        }
        guard closed else { throw .invalid("unterminated double quote in: \(TextSafety.escapingControls(line))") }
      case "\\":
        guard let escaped = scalars.next() else {
          throw .invalid("trailing backslash escapes nothing in: \(TextSafety.escapingControls(line))")
        }
        if escaped == "\n" { continue }  // line continuation
        inWord = true
        word.append(escaped)
      default:
        inWord = true
        word.append(scalar)
      }
    }
    finishWord()
    return words
  }
}
