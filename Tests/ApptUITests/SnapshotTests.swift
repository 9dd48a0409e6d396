import ApptCore
import ApptTestSupport
import Foundation
import Testing

@testable import ApptUI

/// Every view at the sizes people use and the degenerate ones, as plain-text snapshots beside
/// this file (`Snapshots/VIEW-COLSxROWS.txt`). A mismatch fails with a row-by-row diff.
/// `RECORD_SNAPSHOTS=1 swift test` rewrites them, and fails, so recording is always deliberate.
@Suite struct SnapshotTests {
  static let directory = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("Snapshots")
  static let sizes = [(80, 24), (120, 40), (20, 5), (1, 1)]
  static let views = ["agenda", "empty", "form", "edit-errors", "help", "confirm", "search", "command"]

  let environment = Environment(clock: TestClock.clock)

  func appointment(
    _ title: String,
    _ hour: Int,
    _ minute: Int = 0,
    minutes: Int = 60,
    uuid: String,
    note: String = "",
    status: Appointment.Status = .scheduled
  ) -> Appointment {
    var appointment = TestStore.appointment(
      title,
      TestClock.date(2026, 11, 29, hour, minute),
      minutes: minutes,
      note: note,
      status: status
    )
    if let id = AppointmentID(string: uuid) { appointment.id = id }
    return appointment
  }

  var day: [Appointment] {
    [
      appointment("Standup", 9, minutes: 15, uuid: "00000000-0000-4000-8000-000000000001", status: .cancelled),
      appointment("Dentist", 10, minutes: 45, uuid: "00000000-0000-4000-8000-000000000002", note: "bring the x-rays"),
      appointment("Call with 東京 office 🎉", 10, 30, uuid: "00000000-0000-4000-8000-000000000003"),
      appointment("\u{1B}]0;pwned\u{07}Evil title", 16, uuid: "00000000-0000-4000-8000-000000000004"),
    ]
  }

  func state(_ view: String, columns: Int, rows: Int) -> State {
    var state = UI.start(size: Screen.Size(rows: rows, columns: columns), environment: environment).0
    let items = view == "empty" ? [] : day
    _ = UI.update(&state, .snapshotArrived(day: state.selectedDay, appointments: items), environment: environment)
    state.busyDays = [TestClock.clock.dayNumber(of: TestClock.date(2026, 11, 30))]
    let keys: [Key]
    switch view {
    case "form": keys = [.character("a")] + "Lunch".map(Key.character) + [.tab] + "12:30".map(Key.character)
    case "edit-errors": keys = [.character("j"), .character("e"), .tab, .control("w")] + "25:99".map(Key.character)
    case "help": keys = [.character("?")]
    case "confirm": keys = [.character("j"), .character("c")]
    case "search": keys = [.character("/")] + "den".map(Key.character)
    case "command": keys = [.character(":")] + "list --all".map(Key.character)
    default: keys = [.character("j")]
    }
    for key in keys { _ = UI.update(&state, .keyPressed(key), environment: environment) }
    return state
  }

  @Test(arguments: views)
  func viewMatchesItsSnapshots(view: String) throws {
    for (columns, rows) in Self.sizes {
      let screen = Views.render(state(view, columns: columns, rows: rows), environment: environment)
      #expect(screen.rows.count == rows)
      #expect(screen.rows.allSatisfy { TextWidth.of($0) == columns }, "every row is exactly \(columns) columns")
      #expect(!screen.rows.joined().unicodeScalars.contains { TextSafety.isControl($0) }, "no raw control characters")
      let text = screen.rows.map { String($0.reversed().drop { $0 == " " }.reversed()) }.joined(separator: "\n") + "\n"
      let file = Self.directory.appendingPathComponent("\(view)-\(columns)x\(rows).txt")
      if ProcessInfo.processInfo.environment["RECORD_SNAPSHOTS"] == "1" {
        try FileManager.default.createDirectory(at: Self.directory, withIntermediateDirectories: true)
        try text.write(to: file, atomically: true, encoding: .utf8)
        Issue.record("recorded \(file.lastPathComponent); run again without RECORD_SNAPSHOTS")
        continue
      }
      let expected = try String(contentsOf: file, encoding: .utf8)
      if let difference = screenDifference(screen.rows, String(expected.dropLast())) {
        Issue.record(Comment(rawValue: "\(file.lastPathComponent):\n\(difference)"))
      }
    }
  }

  @Test func zeroSizeRendersNothingAndDoesNotCrash() {
    for view in Self.views {
      #expect(Views.render(state(view, columns: 0, rows: 0), environment: environment).rows.isEmpty)
    }
  }
}
