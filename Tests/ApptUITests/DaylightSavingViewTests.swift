import ApptCore
import ApptTestSupport
import Foundation
import Testing

@testable import ApptUI

/// The day clocks go back, on screen: the agenda tells the two 02:30s apart, and the form
/// says which instant an ambiguous Start will be saved at.
@Suite struct DaylightSavingViewTests {
  static let berlin = TimeZone(identifier: "Europe/Berlin") ?? .gmt
  // Sunday 2027-10-31 12:00 in Berlin (CET, after the change).
  let environment = Environment(clock: Clock.fixed(Date(timeIntervalSince1970: 1_824_980_400), timeZone: berlin))

  func state(_ items: [Appointment]) -> State {
    var state = UI.start(size: Screen.Size(rows: 24, columns: 80), environment: environment).0
    _ = UI.update(&state, .snapshotArrived(day: state.selectedDay, appointments: items), environment: environment)
    return state
  }

  func rows(_ state: State) -> [String] { Views.render(state, environment: environment).rows }

  func appointment(_ title: String, _ start: TimeInterval, minutes: Int) -> Appointment {
    let date = Date(timeIntervalSince1970: start)
    return Appointment(
      title: title,
      start: date,
      end: date.addingTimeInterval(TimeInterval(minutes * 60)),
      created: date
    )
  }

  @Test func agendaTellsTheTwoHalfPastTwosApart() {
    let first = appointment("First", 1_824_942_600, minutes: 30)  // 00:30Z = 02:30 CEST
    let second = appointment("Second", 1_824_946_200, minutes: 30)  // 01:30Z = 02:30 CET
    let later = appointment("Later", 1_824_976_800, minutes: 60)  // 10:00Z = 11:00 CET
    let screen = rows(state([first, second, later]))
    #expect(screen.contains { $0.contains("02:30+02-02:00+01  First") }, "\(screen.joined(separator: "\n"))")
    #expect(screen.contains { $0.contains("02:30+01-03:00  Second") })
    #expect(screen.contains { $0.contains("11:00-12:00  Later") })
  }

  @Test func formSaysWhichInstantAnAmbiguousStartBecomes() {
    var state = state([])
    _ = UI.update(&state, .keyPressed(.character("a")), environment: environment)
    _ = UI.update(&state, .keyPressed(.character("X")), environment: environment)
    _ = UI.update(&state, .keyPressed(.tab), environment: environment)
    _ = UI.update(&state, .keyPressed(.control("u")), environment: environment)
    for character in "2027-10-31 02:30" {
      _ = UI.update(&state, .keyPressed(.character(character)), environment: environment)
    }
    let screen = rows(state)
    let understood = screen.firstIndex { $0.contains("→ Sun 2027-10-31, 02:30+02-02:30+01") }
    #expect(understood != nil, "\(screen.joined(separator: "\n"))")
    if let understood {
      #expect(
        screen[understood + 1].contains(
          "02:30 happens twice that day: the first (+02:00)"
        )
      )
    }
    _ = UI.update(&state, .keyPressed(.control("u")), environment: environment)
    for character in "2027-10-31 10:00" {
      _ = UI.update(&state, .keyPressed(.character(character)), environment: environment)
    }
    #expect(!rows(state).contains { $0.contains("happens twice") })
  }

  @Test func editingTheSecondHalfPastTwoKeepsItThere() {
    let second = appointment("Second", 1_824_946_200, minutes: 30)  // 01:30Z = 02:30 CET
    var state = state([second])
    _ = UI.update(&state, .keyPressed(.character("e")), environment: environment)
    #expect(!rows(state).contains { $0.contains("happens twice") }, "an unchanged start is not ambiguous")
    #expect(rows(state).contains { $0.contains("→ Sun 2027-10-31, 02:30+01-03:00") })
    let effects = UI.update(&state, .keyPressed(.enter), environment: environment)
    guard case .editAppointment(_, let request)? = effects.first else {
      Issue.record("no edit: \(effects)")
      return
    }
    #expect(request.start == second.start)
  }
}
