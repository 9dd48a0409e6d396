import ApptCore
import ApptTestSupport
import ApptUI
import Foundation
import Testing

/// The calendar's `/` filters by the same definition as `list --search` (`TextSearch`).
@Suite struct SearchFilterTests {
  @Test(arguments: SearchCases.table)
  func theFilterMatchesAsTheTableSays(_ example: SearchCases.Case) {
    let start = TestClock.date(2026, 11, 29, 10)
    let end = start.addingTimeInterval(3600)
    let byTitle = Appointment(title: example.text, start: start, end: end, created: TestClock.now)
    let byNote = Appointment(title: "#", start: start, end: end, note: example.text, created: TestClock.now)
    var state = State(size: Screen.Size(rows: 24, columns: 80), selectedDay: start, now: start, month: start)
    state.appointments = [byTitle, byNote]
    state.filter = example.search
    #expect(state.visible.map(\.id) == (example.matches ? [byTitle.id, byNote.id] : []))
  }
}
