import Foundation

extension ICalendar {
  /// Reads a REPLY or CANCEL (`method`): each VEVENT as the stored event it names (UID,
  /// RECURRENCE-ID, SEQUENCE) and the attendees it speaks for. A reply carries no SUMMARY or
  /// DTEND, so it is never read as an appointment. `clock` places a floating RECURRENCE-ID.
  public static func readMessage(bytes: consuming [UInt8], method: ITIP.Method, clock: Clock) -> ITIP.Message {
    var reader = Reader(clock: clock)
    reader.messageItems = []
    let result = reader.read(consume bytes)
    return ITIP.Message(method: method, items: reader.messageItems ?? [], problems: result.problems)
  }
}

extension ICalendar.Reader {
  /// One VEVENT of a REPLY or CANCEL, or nil with its problem recorded.
  mutating func messageItem(_ event: ICalendar.Component) -> ITIP.Item? {
    problems += event.problems
    guard let uid = event.all("UID").first?.value.trimmingBlanks, !uid.isEmpty else {
      problems.append(ICalendar.Problem(line: event.line, message: "VEVENT without a UID: it names no event"))
      return nil
    }
    var item = ITIP.Item(uid: uid, line: event.line)
    if let sequence = event.all("SEQUENCE").first {
      guard let number = Int(sequence.value.trimmingBlanks), number >= 0 else {
        problems.append(
          ICalendar.Problem(line: sequence.line, message: "SEQUENCE:\(sequence.value) is not a whole number")
        )
        return nil
      }
      item.sequence = number
    }
    if let idLine = event.all("RECURRENCE-ID").first {
      switch moment(idLine, note: { _ in }) {
      case .success(let moment): item.recurrenceID = moment.instant
      case .failure(let text):
        problems.append(ICalendar.Problem(line: idLine.line, message: text.message))
        return nil
      }
    }
    item.attendees = event.all("ATTENDEE").map(\.raw)
    return item
  }
}
