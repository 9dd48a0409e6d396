import ApptCore
import ApptTestSupport
import Foundation
import Testing

@testable import ApptUI

/// What the `update` suites share: a state loaded with a day's appointments, and keys pressed
/// by their canonical spellings.
protocol UIModelTest {
  var environment: Environment { get }
}

extension UIModelTest {
  /// Today (the test clock's) on an 80x24 screen, its snapshot already arrived.
  func loaded(_ items: [Appointment]) -> State {
    var state = UI.start(size: Screen.Size(rows: 24, columns: 80), environment: environment).0
    _ = UI.update(&state, .snapshotArrived(day: state.selectedDay, appointments: items), environment: environment)
    return state
  }

  /// Presses keys by spelling (`"j"`, `"ctrl+u"`, `"enter"`) and returns every effect.
  @discardableResult
  func press(_ spellings: String..., on state: inout State) -> [Effect] {
    spellings.flatMap { spelling -> [Effect] in
      guard let key = Key(spelling: spelling) else {
        Issue.record("no key \(spelling)")
        return []
      }
      return UI.update(&state, .keyPressed(key), environment: environment)
    }
  }

  /// Types `text` one character at a time.
  func type(_ text: String, on state: inout State) {
    for character in text { _ = UI.update(&state, .keyPressed(.character(character)), environment: environment) }
  }
}
