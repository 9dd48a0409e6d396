import ApptCore
import ApptStore
import Foundation

extension CommandExecutor {
  /// `import` of a REPLY or a CANCEL: applied to the events it names (`AppointmentDAO.apply`),
  /// never stored as an event. A message with an event appt cannot read changes nothing. The
  /// output says what changed, one line each; why an event changed nothing is a note.
  func applyMessage(_ message: ITIP.Message, from path: String) async throws(StoreError) -> Outcome {
    let shown = TextSafety.escapingControls(path)
    let method = message.method == .reply ? "REPLY" : "CANCEL"
    if !message.problems.isEmpty {
      let count = message.problems.count
      let problems = message.problems.map { "\(shown):\($0.line): \(TextSafety.escapingControls($0.message))" }
      throw .invalidRequest(
        message: "import: \(shown): a \(method) with \(count) problem\(count == 1 ? "" : "s"); nothing changed\n"
          + problems.joined(separator: "\n")
      )
    }
    let outcome: MessageOutcome
    do throws(StoreError) {
      outcome = try await dao.apply(message)
    } catch .invalidRequest(let why) {
      throw .invalidRequest(message: "import: \(shown): \(why)")
    }
    let notes = outcome.unchanged.map { "\(shown): note: \($0)" }
    if json {
      let ids = outcome.changed.map { AppointmentFormatter.jsonString($0.id.description) }.joined(separator: ",")
      let noticeList = notes.map(AppointmentFormatter.jsonString).joined(separator: ",")
      let output =
        "{\"imported\":0,\"added\":0,\"updated\":\(outcome.changed.count),\"unchanged\":\(outcome.unchanged.count),"
        + "\"method\":\"\(method)\",\"changed\":[\(ids)],"
        + "\"file\":\(AppointmentFormatter.jsonString(path)),\"notices\":[\(noticeList)]}\n"
      return Outcome(output: output, notes: [])
    }
    var lines = outcome.changed.map { row in
      "\(method == "REPLY" ? "answer recorded on" : "cancelled") \(Self.named(row))"
    }
    let count = outcome.changed.count
    lines.append("applied the \(method) from \(shown) (\(count) updated, \(outcome.unchanged.count) unchanged)")
    return Outcome(output: lines.joined(separator: "\n") + "\n", notes: notes)
  }

  /// `"Title" (abc123)`, or for an override `"Title" on 2027-01-05 (abc123)`.
  private static func named(_ row: Appointment) -> String {
    let title = TextSafety.escapingControls(String(row.title.prefix(60)))
    let day = row.override.map { " (occurrence \(Recurrence.utcStamp($0.recurrenceID)))" } ?? ""
    return "\"\(title)\"\(day) \(row.id.short)"
  }
}
