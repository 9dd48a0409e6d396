import Glibc

/// The process's environment variables, read from `environ`. Foundation's
/// `ProcessInfo.processInfo.environment` took 1.5M instructions for 39 variables, about a
/// quarter of `appt --version`; this loop takes a few thousand per variable.
public enum ProcessEnvironment {
  /// This process's variables (`variables(in: environ)`).
  public static func variables() -> [String: String] { variables(in: environ) }

  /// Every `NAME=value` entry of a NULL-terminated list such as `environ`, by name. A name
  /// given twice keeps its first value, as `getenv` (and so every C library appt uses) reads
  /// it; Foundation's kept the last. An entry without `=` is not a variable. Bytes that are not
  /// UTF-8 are replaced (U+FFFD), as Foundation does. No lock: appt never sets a variable.
  public static func variables(in entries: UnsafePointer<UnsafeMutablePointer<CChar>?>) -> [String: String] {
    var variables: [String: String] = [:]
    var entry = entries
    while let text = entry.pointee {
      let bytes = UnsafeRawBufferPointer(start: text, count: strlen(text))
      if let equals = bytes.firstIndex(of: UInt8(ascii: "=")) {
        let name = String(decoding: bytes[..<equals], as: UTF8.self)
        if variables[name] == nil {
          variables[name] = String(decoding: bytes[(equals + 1)...], as: UTF8.self)
        }
      }
      entry += 1
    }
    return variables
  }
}
