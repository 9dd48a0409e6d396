// Fuzz target: Tokenizer.split, the shell-like word splitter every command line goes through.
//
// Invariants (beyond "no crash"):
// - an error is a CommandError of kind .invalid whose message is terminal-safe;
// - a line with no quote, backslash or `#` splits exactly like splitting on blanks;
// - quoting each word back ('…' with '\'' for a quote) and splitting again gives the same
//   words (what a script generator relies on);
// - only a quote can make an empty word.

import Foundation

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzTokenizer(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
  let line = Fuzz.text(data, size)
  let words: [String]
  do throws(CommandError) {
    words = try Tokenizer.split(line)
  } catch {
    Fuzz.checkError(error, input: line)
    Fuzz.check(error.kind == .invalid, "tokenizer error of kind \(error.kind)", input: line)
    let special = line.unicodeScalars.contains { $0 == "'" || $0 == "\"" || $0 == "\\" || $0 == "\0" }
    Fuzz.check(special, "error on a line without quotes or backslashes: \(error.message)", input: line)
    return 0
  }

  let blanks: Set<Unicode.Scalar> = [" ", "\t", "\r", "\n"]
  let hasSpecial = line.unicodeScalars.contains { $0 == "'" || $0 == "\"" || $0 == "\\" || $0 == "#" }
  if !hasSpecial {
    let expected = line.unicodeScalars.split(whereSeparator: { blanks.contains($0) }).map {
      String(String.UnicodeScalarView($0))
    }
    Fuzz.check(words == expected, "plain line split as \(words) instead of \(expected)", input: line)
  }
  if !line.unicodeScalars.contains(where: { $0 == "'" || $0 == "\"" }) {
    Fuzz.check(!words.contains(""), "empty word without quotes: \(words)", input: line)
  }

  let requoted = words.map(singleQuoted).joined(separator: " ")
  do throws(CommandError) {
    let again = try Tokenizer.split(requoted)
    Fuzz.check(again == words, "re-quoted words split as \(again) instead of \(words)", input: line)
  } catch {
    Fuzz.check(false, "re-quoted words do not split: \(error.message)", input: line)
  }
  return 0
}

/// `word` in single quotes, each `'` written as `'\''`. Done on Unicode scalars, as the
/// tokenizer reads them: a `'` followed by a combining mark is one Character, which a
/// Character-level replacement (`replacingOccurrences`) would miss.
private func singleQuoted(_ word: String) -> String {
  var out = String.UnicodeScalarView()
  out.append("'")
  for scalar in word.unicodeScalars {
    if scalar == "'" {
      out.append(contentsOf: "'\\''".unicodeScalars)
    } else {
      out.append(scalar)
    }
  }
  out.append("'")
  return String(out)
}
