import ApptCore
import ApptTestSupport
import Foundation
import Testing

@testable import ApptUI

/// Daylight saving in the form: a Start in a spring-forward gap or an autumn overlap
/// says, under "what appt understood", which instant Enter saves, and Enter saves that one,
/// at the Berlin and New York changes, when adding and when editing.
@Suite struct DaylightSavingFormTests {
  struct Case: Sendable, CustomStringConvertible {
    var zone: String
    var typed: String
    var instant: Date
    var understood: String
    var preview: String
    var description: String { "\(zone) \(typed)" }
  }

  static func instant(_ text: String) -> Date {
    let formatter = ISO8601DateFormatter()
    return formatter.date(from: text) ?? .distantPast
  }

  static let cases = [
    Case(
      zone: "Europe/Berlin",
      typed: "2027-03-28 02:30",
      instant: instant("2027-03-28T03:30:00+02:00"),
      understood: "→ Sun 2027-03-28, 03:30-04:30",
      preview: "02:30 does not exist that day: it will be 03:30"
    ),
    Case(
      zone: "Europe/Berlin",
      typed: "2027-10-31 02:30",
      instant: instant("2027-10-31T02:30:00+02:00"),
      understood: "→ Sun 2027-10-31, 02:30+02-02:30+01",
      preview: "02:30 happens twice that day: the first (+02:00)"
    ),
    Case(
      zone: "America/New_York",
      typed: "2027-03-14 02:30",
      instant: instant("2027-03-14T03:30:00-04:00"),
      understood: "→ Sun 2027-03-14, 03:30-04:30",
      preview: "02:30 does not exist that day: it will be 03:30"
    ),
    Case(
      zone: "America/New_York",
      typed: "2027-11-07 01:30",
      instant: instant("2027-11-07T01:30:00-04:00"),
      understood: "→ Sun 2027-11-07, 01:30-04-01:30-05",
      preview: "01:30 happens twice that day: the first (-04:00)"
    ),
  ]

  func environment(_ zone: String) -> Environment {
    Environment(clock: Clock.fixed(Self.instant("2027-01-15T12:00:00Z"), timeZone: TimeZone(identifier: zone) ?? .gmt))
  }

  func typeStart(_ text: String, into state: inout State, environment: Environment) {
    _ = UI.update(&state, .keyPressed(.control("u")), environment: environment)
    for character in text { _ = UI.update(&state, .keyPressed(.character(character)), environment: environment) }
  }

  @Test("adding", arguments: cases)
  func add(_ c: Case) {
    let environment = environment(c.zone)
    var state = UI.start(size: Screen.Size(rows: 24, columns: 80), environment: environment).0
    _ = UI.update(&state, .snapshotArrived(day: state.selectedDay, appointments: []), environment: environment)
    for key: Key in [.character("a"), .character("X"), .tab] {
      _ = UI.update(&state, .keyPressed(key), environment: environment)
    }
    typeStart(c.typed, into: &state, environment: environment)
    let rows = Views.render(state, environment: environment).rows
    let understood = rows.firstIndex { $0.contains(c.understood) }
    #expect(understood != nil, "\(rows.joined(separator: "\n"))")
    if let understood { #expect(rows[understood + 1].contains(c.preview)) }
    let effects = UI.update(&state, .keyPressed(.enter), environment: environment)
    guard case .addAppointment(let request) = effects.first else {
      Issue.record("expected an add, got \(effects)")
      return
    }
    #expect(request.start == c.instant, "saved at the instant the form said")
  }

  @Test("editing", arguments: cases)
  func edit(_ c: Case) {
    let environment = environment(c.zone)
    let day = environment.clock.startOfDay(c.instant)
    var state = UI.start(size: Screen.Size(rows: 24, columns: 80), environment: environment).0
    let noon = day.addingTimeInterval(12 * 3600)
    let meeting = Appointment(title: "Meeting", start: noon, end: noon.addingTimeInterval(3600), created: noon)
    _ = UI.update(&state, .snapshotArrived(day: state.selectedDay, appointments: [meeting]), environment: environment)
    for key: Key in [.character("e"), .tab] { _ = UI.update(&state, .keyPressed(key), environment: environment) }
    typeStart(c.typed, into: &state, environment: environment)
    let rows = Views.render(state, environment: environment).rows
    #expect(rows.contains { $0.contains(c.preview) }, "\(rows.joined(separator: "\n"))")
    let effects = UI.update(&state, .keyPressed(.enter), environment: environment)
    guard case .editAppointment(_, let request) = effects.first else {
      Issue.record("expected an edit, got \(effects)")
      return
    }
    #expect(request.start == c.instant)
  }
}
