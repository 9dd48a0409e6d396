// Shared by every fuzz target: compiled into the same module as ApptCore's sources and one
// harness (see Fuzz/run.sh), so internal ApptCore API is reachable without @testable.

import Foundation

#if canImport(Glibc)
  import Glibc
#endif

enum Fuzz {
  /// The fuzzer's bytes as text, repaired the way appt repairs stdin lines and arguments
  /// (invalid UTF-8 becomes U+FFFD).
  static func text(_ data: UnsafePointer<UInt8>?, _ size: Int) -> String {
    guard let data, size > 0 else { return "" }
    return String(decoding: UnsafeBufferPointer(start: data, count: size), as: UTF8.self)
  }

  /// The raw bytes (for targets that read numbers from the input).
  static func bytes(_ data: UnsafePointer<UInt8>?, _ size: Int) -> [UInt8] {
    guard let data, size > 0 else { return [] }
    return Array(UnsafeBufferPointer(start: data, count: size))
  }

  /// Two stopped clocks: a plain UTC one, and New York on the night clocks spring forward
  /// (2026-03-08 01:30 EST), so wall-clock arithmetic crosses a DST gap.
  static let clocks: [Clock] = {
    let utc = TimeZone(identifier: "UTC") ?? TimeZone(secondsFromGMT: 0) ?? .current
    let newYork = TimeZone(identifier: "America/New_York") ?? utc
    return [
      Clock.fixed(Date(timeIntervalSince1970: 1_795_946_400), timeZone: utc),  // 2026-11-29 10:00Z (a Sunday)
      Clock.fixed(Date(timeIntervalSince1970: 1_772_951_400), timeZone: newYork),  // 2026-03-08 06:30Z
    ]
  }()

  /// An invariant the harness relies on. On failure: say what and on which input, then
  /// abort so libFuzzer records the input as a crash artifact.
  static func check(_ condition: @autoclosure () -> Bool, _ what: @autoclosure () -> String, input: String) {
    if condition() { return }
    let shown = input.unicodeScalars.prefix(300).map { $0.escaped(asASCII: true) }.joined()
    fputs("INVARIANT BROKEN: \(what())\n  input: \"\(shown)\"\n", stderr)
    abort()
  }

  /// A message meant for a terminal carries no raw control character (DESIGN.md: escaped).
  static func isTerminalSafe(_ text: String) -> Bool {
    !text.unicodeScalars.contains(where: TextSafety.isControl)
  }

  /// A thrown parse error: a message, printable as it is.
  static func checkError(_ error: CommandError, input: String) {
    check(!error.message.isEmpty, "empty error message (\(error.kind))", input: input)
    check(
      isTerminalSafe(error.message),
      "raw control character in error: \(error.message.debugDescription)",
      input: input
    )
  }
}
