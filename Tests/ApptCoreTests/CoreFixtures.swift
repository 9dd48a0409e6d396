import Foundation
import Testing

@testable import ApptCore

/// Fixed clocks and instants for ApptCore tests (no dependency on ApptTestSupport).
enum Fixture {
  static let paris = zone("Europe/Paris")
  static let newYork = zone("America/New_York")

  static func zone(_ identifier: String) -> TimeZone {
    guard let zone = TimeZone(identifier: identifier) else {
      preconditionFailure("no zone \(identifier): install tzdata")
    }
    return zone
  }

  /// "Now" for most tests: Sunday 2026-11-29 15:00 in Paris (UTC+1).
  static let now = instant("2026-11-29T15:00:00+01:00")
  static let clock = Clock.fixed(now, timeZone: paris)

  /// An instant from an ISO 8601 string with an explicit offset (independent of the code
  /// under test).
  static func instant(_ text: String) -> Date {
    let formatter = ISO8601DateFormatter()
    formatter.formatOptions = [.withInternetDateTime]
    guard let date = formatter.date(from: text) else { preconditionFailure("bad fixture date \(text)") }
    return date
  }

  static func appointment(
    id: String = "1a2b3c4d-0000-4000-8000-00000000abcd",
    title: String = "Dentist",
    start: String = "2026-12-01T10:00:00+01:00",
    end: String = "2026-12-01T10:45:00+01:00",
    note: String = "",
    status: Appointment.Status = .scheduled
  ) -> Appointment {
    guard let appointmentID = AppointmentID(string: id) else { preconditionFailure("bad fixture id \(id)") }
    return Appointment(
      id: appointmentID,
      title: title,
      start: instant(start),
      end: instant(end),
      note: note,
      status: status,
      created: instant("2026-11-29T15:00:00+01:00"),
      updated: instant("2026-11-29T15:30:00+01:00")
    )
  }
}

/// The error `body` throws, or `nil` if it returns.
func commandError<T>(_ body: () throws(CommandError) -> T) -> CommandError? {
  do {
    _ = try body()
    return nil
  } catch {
    return error
  }
}

/// The WHEN suites' helpers: parse with the fixed clock, to an instant or to the error.
protocol WhenParsing {}

extension WhenParsing {
  var parser: WhenParser { WhenParser(clock: Fixture.clock) }

  func instant(_ text: String) throws(CommandError) -> Date {
    try parser.parse(text).instant(in: Fixture.clock)
  }

  func failure(_ text: String) -> CommandError? {
    commandError { () throws(CommandError) in try parser.parse(text) }
  }
}
