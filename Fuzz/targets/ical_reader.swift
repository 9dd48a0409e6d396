// Fuzz target: ICalendar.read (any bytes, as `appt import` reads a file), with two stopped
// clocks (UTC; New York on a DST night), and a write-then-read round trip of what it imports.
//
// Invariants (beyond "no crash"):
// - every problem and notice has a line from 1 to the file's line count + 1 and a non-empty
//   message (which quotes the file raw: CommandExecutor.importFile escapes it for printing);
// - eventCount counts at least the imported appointments;
// - an imported appointment has a non-empty title, ends after it starts (whole days: not
//   before), and lasts at most 366 days (plus an hour of DST);
// - writing the imported appointments and reading the result back gives as many appointments,
//   with the same titles (as the export writes control characters), starts and ends (in
//   any order: the export writes each series before its overrides), and no problem.

import Foundation

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzICalendarReader(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
  let bytes = Fuzz.bytes(data, size)
  let shown = Fuzz.text(data, size)
  let lineCount = bytes.reduce(1) { $1 == 10 ? $0 + 1 : $0 }
  for clock in Fuzz.clocks {
    let result = ICalendar.read(bytes: bytes, clock: clock)
    for problem in result.problems + result.notices {
      Fuzz.check(
        (1...lineCount + 1).contains(problem.line),
        "problem on line \(problem.line) of \(lineCount): \(problem.message)",
        input: shown
      )
      // Messages quote the file as it is; `appt import` escapes them when it prints them.
      Fuzz.check(!problem.message.isEmpty, "empty problem message on line \(problem.line)", input: shown)
    }
    Fuzz.check(
      result.eventCount >= result.appointments.count,
      "\(result.appointments.count) appointments from \(result.eventCount) events",
      input: shown
    )
    for appointment in result.appointments {
      Fuzz.check(!appointment.title.isEmpty, "imported an appointment with an empty title", input: shown)
      Fuzz.check(
        // A time without a length is a moment (RFC 5545): its end is its start.
        appointment.end >= appointment.start,
        "imported \(appointment.title.debugDescription) ending before it starts",
        input: shown
      )
      Fuzz.check(
        appointment.duration <= 366 * 86_400 + 3600,
        "imported \(appointment.title.debugDescription) lasting \(appointment.duration) s",
        input: shown
      )
    }
    roundTrip(result.appointments, clock: clock, input: shown)
  }
  return 0
}

private func roundTrip(_ appointments: [Appointment], clock: Clock, input: String) {
  guard !appointments.isEmpty else { return }
  let written = ICalendar.write(appointments, fallbackZone: clock.timeZone)
  let again = ICalendar.read(written, clock: clock)
  Fuzz.check(
    again.problems.isEmpty,
    "appt's own export does not import: \(again.problems.prefix(3).map(\.description))",
    input: input
  )
  Fuzz.check(
    again.appointments.count == appointments.count,
    "export/import kept \(again.appointments.count) of \(appointments.count) appointments",
    input: input
  )
  // The export puts each series before its overrides (as RFC 5545 readers expect), so an
  // override read before its series comes back after it: compared in one order.
  let expected = appointments.map { Written(title: exported($0.title), start: $0.start, end: $0.end) }.sorted()
  let found = again.appointments.map { Written(title: $0.title, start: $0.start, end: $0.end) }.sorted()
  for (before, after) in zip(expected, found) {
    Fuzz.check(
      before == after,
      "export/import changed \(before.title.debugDescription) (\(before.start)-\(before.end)) into "
        + "\(after.title.debugDescription) (\(after.start)-\(after.end))",
      input: input
    )
  }
}

/// What the round trip must keep of an appointment, in an order independent of the file's.
private struct Written: Comparable {
  var title: String
  var start: Date
  var end: Date

  static func < (a: Written, b: Written) -> Bool {
    (a.start, a.end, a.title) < (b.start, b.end, b.title)
  }
}

/// What a title becomes in appt's export, by design (ICalendar.escape): line breaks are one
/// `\n`, and other control characters are written in caret notation (`^[` for ESC).
private func exported(_ title: String) -> String {
  var out = String.UnicodeScalarView()
  var previousWasCR = false
  for scalar in title.unicodeScalars {
    defer { previousWasCR = scalar == "\r" }
    switch scalar {
    case "\r": out.append("\n")
    case "\n": if !previousWasCR { out.append(scalar) }
    case "\t": out.append(scalar)
    default:
      if TextSafety.isControl(scalar) {
        out.append(contentsOf: TextSafety.escapingControls(String(scalar)).unicodeScalars)
      } else {
        out.append(scalar)
      }
    }
  }
  return String(out)
}
