import ApptCore
import ApptStore
import Foundation

extension CommandExecutor {
  /// `conflicts show ID`: the version kept against the event as stored now (the server's, or
  /// what was made of it since), as `diff -u` shows two texts: each iCalendar line of both,
  /// `-` only in yours, `+` only in the server's (DTSTAMP, which every write renews, left
  /// out). --json: the conflict's fields, both texts whole, and the changed lines.
  func conflictShown(_ conflict: SyncConflict, now: LocalItem?) -> String {
    let diff = LineDiff.compare(Self.comparedLines(conflict.localICS), Self.comparedLines(now?.ics ?? ""))
    let changed = diff.filter { $0.mark != .same }.map { String($0.mark.rawValue) + $0.line }
    let quote = AppointmentFormatter.jsonString
    if json {
      return "{\"id\":\(quote(conflict.id.description)),\"appointment\":\(quote(conflict.appointment.description))"
        + ",\"calendar\":\(quote(conflict.calendar)),\"uid\":\(quote(conflict.uid))"
        + ",\"title\":\(quote(conflict.title)),\"found\":\(quote(formatter.iso8601(conflict.found)))"
        + ",\"local\":\(quote(conflict.localICS)),\"server\":\(now.map { quote($0.ics) } ?? "null")"
        + ",\"diff\":[\(changed.map(quote).joined(separator: ","))]}\n"
    }
    let id = conflict.id.short
    var lines = [
      "conflict \(id)  \(TextSafety.escapingControls(conflict.calendar))  "
        + "\"\(TextSafety.escapingControls(conflict.title))\"  found \(formatter.dayAndTime(conflict.found))",
      "--- yours (kept when the sync found the conflict)",
      now == nil ? "+++ the server's: gone (the event was deleted since)" : "+++ the server's (stored and shown now)",
    ]
    lines += diff.map { String($0.mark.rawValue) + TextSafety.escapingControls($0.line) }
    if changed.isEmpty { lines.append("(the two are the same now)") }
    lines.append("'appt resolve \(id) --keep local' puts yours back; '--keep server' drops it")
    return lines.joined(separator: "\n") + "\n"
  }

  /// The unfolded lines of an item's text (CRLF or LF, the last one ended or not), DTSTAMP
  /// left out.
  private static func comparedLines(_ text: String) -> [String] {
    text.replacingOccurrences(of: "\r\n", with: "\n").replacingOccurrences(of: "\n ", with: "")
      .replacingOccurrences(of: "\n\t", with: "").split(separator: "\n")
      .map { String($0.hasSuffix("\r") ? $0.dropLast() : $0) }
      .filter { !$0.isEmpty && !$0.uppercased().hasPrefix("DTSTAMP") }
  }
}
