import Foundation

/// Where a store is, from what the user typed (`--db`, `APPT_DB`): shared by appt and
/// appt-sync, so both open the same store from the same words.
extension DatabaseConfiguration.Location {
  /// Why a `--db` text cannot be a location, or nil. The message never echoes it: it may
  /// hold a password.
  public static func problem(of text: String) -> String? {
    if looksLikeConnectionString(text) {
      // Taken as a file name it would create a file named after it, password and all.
      return "--db (or APPT_DB) looks like a PostgreSQL key=value string; give a postgresql:// URL"
    }
    return nil
  }

  /// libpq's `key=value ...` form (`host=db dbname=appt`), which appt does not take.
  /// A keyword at the start or after a space, then `=` (spaces allowed before it). Scanned by
  /// hand: a regular expression here cost every command 3 ms of start-up (NSRegularExpression).
  public static func looksLikeConnectionString(_ text: String) -> Bool {
    // An array, not a Set: eight words, and the first Set<Substring> of a process costs the
    // runtime a search of every protocol conformance in the binary (0.1 ms, every command).
    let keywords: [Substring] = ["host", "hostaddr", "port", "dbname", "user", "password", "service", "sslmode"]
    var previous: Substring = ""
    for word in text.split(whereSeparator: \.isWhitespace) {
      if let equals = word.firstIndex(of: "=") {
        let key = word[..<equals]
        if keywords.contains(key) || (key.isEmpty && keywords.contains(previous)) { return true }
      }
      previous = word
    }
    return false
  }

  /// `$XDG_DATA_HOME/appt/appointments.sqlite3`, or `~/.local/share/...` when it is unset
  /// (the XDG base directory rule: a relative XDG_DATA_HOME is ignored).
  public static func defaultDatabaseURL(environment: [String: String]) -> URL {
    let base: URL
    if let data = environment["XDG_DATA_HOME"], data.hasPrefix("/") {
      base = URL(fileURLWithPath: data)
    } else {
      let home = environment["HOME"].flatMap { $0.isEmpty ? nil : $0 } ?? NSHomeDirectory()
      base = URL(fileURLWithPath: home).appendingPathComponent(".local/share")
    }
    return base.appendingPathComponent("appt/appointments.sqlite3")
  }

  /// The location `--db TEXT` names (nil: `APPT_DB`, else the default file), or why not.
  public static func resolve(_ text: String?, environment: [String: String]) -> Result<Self, LocationProblem> {
    let given = text ?? environment["APPT_DB"].flatMap { $0.isEmpty ? nil : $0 }
    if let given, let problem = problem(of: given) { return .failure(LocationProblem(message: problem)) }
    return .success(given.map(named) ?? .file(defaultDatabaseURL(environment: environment)))
  }
}

/// Why a `--db` text names no store.
public struct LocationProblem: Error, Equatable, Sendable {
  public var message: String
}
