import ApptCore
import ApptTestSupport
import Foundation
import Testing

@testable import ApptUI

/// The week view (`w`) and the agenda view (`A`): their keys as values, and their screens as
/// plain-text snapshots (`Snapshots/week-COLSxROWS.txt`, `agenda-list-...`), recorded with
/// `RECORD_SNAPSHOTS=1 swift test --filter WeekAgendaTests`.
@Suite struct WeekAgendaTests: UIModelTest {
  let environment = Environment(clock: TestClock.clock)
  let clock = TestClock.clock
  static let sizes = [(80, 24), (120, 40), (200, 50), (40, 12)]

  static func appointment(
    _ title: String,
    _ day: Int,
    _ hour: Int,
    _ minute: Int = 0,
    minutes: Int = 60,
    month: Int = 11,
    uuid: Int,
    status: Appointment.Status = .scheduled,
    allDay: Bool = false
  ) -> Appointment {
    var appointment = TestStore.appointment(
      title,
      TestClock.date(2026, month, day, hour, minute),
      minutes: minutes,
      status: status
    )
    appointment.isAllDay = allDay
    let spelled = String(uuid, radix: 16)
    let id = "00000000-0000-4000-8000-" + String(repeating: "0", count: 12 - spelled.count) + spelled
    if let id = AppointmentID(string: id) { appointment.id = id }
    return appointment
  }

  /// Monday 23 November to Thursday 10 December 2026 (today, the test clock's, is Sunday 29).
  static let items: [Appointment] = [
    appointment("Team sync", 23, 9, uuid: 1),
    appointment("1:1 Alice", 23, 9, 30, uuid: 2),
    appointment("Design review", 23, 14, minutes: 90, uuid: 3),
    appointment("Holiday", 25, 0, minutes: 24 * 60, uuid: 4, allDay: true),
    appointment("Call with 東京 office 🎉", 26, 11, minutes: 90, uuid: 5),
    appointment("Standup", 27, 9, minutes: 15, uuid: 6, status: .cancelled),
    appointment("Dentist", 29, 10, minutes: 45, uuid: 7),
    appointment("Lunch", 29, 12, uuid: 8),
    appointment("Evening run", 29, 19, uuid: 9),
    appointment("Dinner with Bea", 1, 19, minutes: 120, month: 12, uuid: 10),
    appointment("Flight to 大阪", 8, 7, minutes: 180, month: 12, uuid: 11),
  ]

  /// What the store's window query returns: the items that take some of the window.
  static func window(_ start: Date, _ end: Date?) -> [Appointment] {
    let end = end ?? TestClock.clock.day(1, after: start)
    return items.filter { $0.start < end && ($0.end > start || $0.start >= start) }
  }

  /// Carries out the observations among `effects` as the runtime would (the snapshot comes).
  func deliver(_ effects: [Effect], to state: inout State) {
    for effect in effects {
      let message: Message
      switch effect {
      case .observeDay(let day, _): message = .snapshotArrived(day: day, appointments: Self.window(day, nil))
      case .observeDays(let start, let end, _):
        message = .snapshotArrived(day: start, end: end, appointments: Self.window(start, end))
      default: continue
      }
      deliver(UI.update(&state, message, environment: environment), to: &state)
    }
  }

  func state(_ keys: String..., columns: Int = 80, rows: Int = 24) -> State {
    var (state, effects) = UI.start(size: Screen.Size(rows: rows, columns: columns), environment: environment)
    deliver(effects, to: &state)
    for key in keys { deliver(press(key, on: &state), to: &state) }
    return state
  }

  // MARK: - Keys

  @Test func wObservesTheWeekFromTheWeekStartAndWAgainTheDay() throws {
    var state = state()
    let effects = press("w", on: &state)
    #expect(effects == [.observeDays(start: TestClock.date(2026, 11, 23), end: TestClock.date(2026, 11, 30))])
    #expect(state.view == .week && !state.isLoaded)
    deliver(effects, to: &state)
    #expect(state.visible.map(\.title) == ["Dentist", "Lunch", "Evening run"])
    #expect(state.selectedAppointment?.title == "Dentist")
    #expect(press("w", on: &state) == [.observeDay(clock.today)])
    #expect(state.view == .day)
  }

  @Test func weekStartsOnTheSettingsFirstWeekday() throws {
    var settings = Settings()
    settings.ui.weekStart = Setting(.sunday, origin: .file(path: "config", line: 1))
    let sunday = Environment(clock: TestClock.clock, settings: settings)
    var state = UI.start(size: Screen.Size(rows: 24, columns: 80), environment: sunday).0
    _ = UI.update(&state, .snapshotArrived(day: clock.today, appointments: []), environment: sunday)
    let effects = UI.update(&state, .keyPressed(.character("w")), environment: sunday)
    #expect(effects == [.observeDays(start: TestClock.date(2026, 11, 29), end: TestClock.date(2026, 12, 6))])
  }

  @Test func weekViewCanBeRemapped() throws {
    let parser = SettingsParser(path: "/c", vocabulary: KeyMap.standard.vocabulary)
    guard case .success(let settings) = parser.parse(text: "[keys]\nweek_view = W\nagenda_view = ctrl+a") else {
      Issue.record("week_view and agenda_view are [keys] actions")
      return
    }
    let remapped = Environment(clock: TestClock.clock, settings: settings)
    #expect(remapped.keyMap.action(for: .character("W")) == .weekView)
    #expect(remapped.keyMap.action(for: .control("a")) == .agendaView)
    #expect(remapped.keyMap.action(for: .character("w")) == nil)
  }

  @Test func hAndLMoveInsideTheWeekWithoutObservingAndTheSelectionFollows() {
    var state = state("w")
    let effects = press("h", "h", "h", on: &state)
    #expect(effects.isEmpty)
    #expect(state.selectedDay == TestClock.date(2026, 11, 26))
    #expect(state.selectedAppointment?.title == "Call with 東京 office 🎉")
    _ = press("h", "h", "h", on: &state)
    #expect(state.selectedDay == TestClock.date(2026, 11, 23))
    #expect(state.selectedAppointment?.title == "Team sync")
    _ = press("j", on: &state)
    #expect(state.selectedAppointment?.title == "1:1 Alice")
    _ = press("j", "j", "j", on: &state)
    #expect(state.selectedAppointment?.title == "Design review", "j stops at the day's last")
  }

  @Test func crossingTheWeekBoundaryObservesTheNextWeek() {
    var state = state("w")
    let next = press("l", on: &state)
    #expect(next == [.observeDays(start: TestClock.date(2026, 11, 30), end: TestClock.date(2026, 12, 7))])
    #expect(state.selectedDay == TestClock.date(2026, 11, 30))
    deliver(next, to: &state)
    #expect(state.isLoaded && state.appointments.map(\.title) == ["Dinner with Bea"])
    let back = press("pgup", on: &state)
    // The week just left is shown at once from what it showed, and observed from there.
    let before = TestClock.date(2026, 11, 23)
    let shown = Self.window(before, TestClock.date(2026, 11, 30))
    #expect(
      back.first
        == .observeDays(start: before, end: TestClock.date(2026, 11, 30), known: KnownWindow(items: shown, version: 0))
    )
    #expect(state.selectedDay == before && state.isLoaded)
  }

  @Test func aLateSnapshotOfTheDayIsNotTakenForTheWeek() {
    var state = state()
    _ = press("w", on: &state)
    let day = clock.today
    _ = UI.update(&state, .snapshotArrived(day: day, appointments: []), environment: environment)
    #expect(!state.isLoaded, "the day view's snapshot is not the week's")
  }

  @Test func everyActionWorksOnTheWeeksSelection() {
    var state = state("w", "h", "h", "h")
    _ = press("a", on: &state)
    guard case .form(let form) = state.mode else {
      Issue.record("a opens the form")
      return
    }
    #expect(form.fields[1].text.hasPrefix("2026-11-26"), "the selected day")
    _ = press("esc", "c", on: &state)
    #expect(state.mode == .confirm(.cancel(Self.items[4])))
    _ = press("n", "e", on: &state)
    guard case .form = state.mode else {
      Issue.record("e edits")
      return
    }
  }

  @Test func agendaListsTheNextDaysAndJMovesAcrossThem() {
    var state = state()
    let effects = press("A", on: &state)
    #expect(effects == [.observeDays(start: TestClock.date(2026, 11, 29), end: TestClock.date(2026, 12, 13))])
    deliver(effects, to: &state)
    #expect(state.selectedAppointment?.title == "Dentist")
    _ = press("j", "j", "j", on: &state)
    #expect(state.selectedDay == TestClock.date(2026, 12, 1))
    #expect(state.selectedAppointment?.title == "Dinner with Bea")
    _ = press("j", on: &state)
    #expect(state.selectedAppointment?.title == "Flight to 大阪")
    _ = press("j", on: &state)
    #expect(state.selectedAppointment?.title == "Flight to 大阪", "the last of the span stays")
    _ = press("k", "k", on: &state)
    #expect(state.selectedDay == clock.today && state.selectedAppointment?.title == "Evening run")
    #expect(press("A", on: &state) == [.observeDay(clock.today)])
  }

  /// Where `text` is on the screen: its row and first column (the text left of it is ASCII).
  func place(of text: String, in state: State) -> (row: Int, column: Int)? {
    let rows = Views.render(state, environment: environment).rows
    guard let row = rows.firstIndex(where: { $0.contains(text) }), let range = rows[row].range(of: text) else {
      return nil
    }
    return (row, rows[row].distance(from: rows[row].startIndex, to: range.lowerBound))
  }

  func click(_ place: (row: Int, column: Int)?, on state: inout State) -> [Effect] {
    guard let place else {
      Issue.record("not on the screen")
      return []
    }
    return UI.update(&state, .mouse(MouseEvent(.click, row: place.row, column: place.column)), environment: environment)
  }

  /// A click in the week view chooses a block (and its day), a whole day on top,
  /// or a day by its header or an empty slot of its column; in the agenda view a line.
  @Test func clicksInTheWeekAndTheAgendaChooseWhatIsUnderThem() {
    for (columns, rows) in [(120, 40), (80, 24)] {
      var state = state("w", columns: columns, rows: rows)
      #expect(click(place(of: "Design", in: state), on: &state).isEmpty, "inside the week: nothing to observe")
      #expect(state.selectedDay == TestClock.date(2026, 11, 23))
      #expect(state.selectedAppointment?.title == "Design review", "\(columns)x\(rows)")
      _ = click(place(of: "Holiday", in: state), on: &state)
      #expect(state.selectedDay == TestClock.date(2026, 11, 25))
      #expect(state.selectedAppointment?.title == "Holiday")
      let header = place(of: "Thu 26", in: state).map { (row: $0.row, column: $0.column + 1) }
      _ = click(header, on: &state)
      #expect(state.selectedDay == TestClock.date(2026, 11, 26))
      #expect(state.selectedAppointment?.title == "Call with 東京 office 🎉", "the day's first, as h/l choose")
    }
    var agenda = state("A", columns: 120, rows: 40)
    _ = click(place(of: "Dinner with Bea", in: agenda), on: &agenda)
    #expect(agenda.selectedDay == TestClock.date(2026, 12, 1))
    #expect(agenda.selectedAppointment?.title == "Dinner with Bea")
    _ = click(place(of: "Tue 8 Dec 2026", in: agenda), on: &agenda)
    #expect(agenda.selectedDay == TestClock.date(2026, 12, 8))
    #expect(agenda.selectedAppointment?.title == "Flight to 大阪")
  }

  @Test func wFromTheAgendaShowsTheWeek() {
    var state = state("A")
    #expect(
      press("w", on: &state).first
        == .observeDays(start: TestClock.date(2026, 11, 23), end: TestClock.date(2026, 11, 30))
    )
    #expect(state.view == .week)
  }

  @Test func aDaylightSavingDayKeepsItsHoursInTheirRows() {
    // Paris falls back at 03:00 on Sunday 25 October 2026: that day has 25 hours.
    let day = TestClock.date(2026, 10, 25)
    let end = TestClock.date(2026, 10, 26)
    let ten = TestStore.appointment("Brunch", TestClock.date(2026, 10, 25, 10))
    #expect(WeekView.slots(of: ten, day: day, end: end, slotMinutes: 60, calendar: clock.calendar) == 10..<11)
    let late = TestStore.appointment("Late", TestClock.date(2026, 10, 25, 23), minutes: 120)
    #expect(WeekView.slots(of: late, day: day, end: end, slotMinutes: 30, calendar: clock.calendar) == 46..<48)
  }

  @Test func overlappingOnesShareLanesAndTheNextGroupHasItsOwn() {
    let day = TestClock.date(2026, 11, 23)
    let blocks = WeekView.blocks(
      Self.window(day, nil),
      day: day,
      end: clock.day(1, after: day),
      slotMinutes: 30,
      calendar: clock.calendar
    )
    #expect(blocks.map(\.appointment.title) == ["Team sync", "1:1 Alice", "Design review"])
    #expect(blocks.map(\.lane) == [0, 1, 0])
    #expect(blocks.map(\.lanes) == [2, 2, 1])
  }

  // MARK: - Screens

  @Test(arguments: ["week", "agenda-list"])
  func viewMatchesItsSnapshots(view: String) throws {
    for (columns, rows) in Self.sizes {
      let keys = view == "week" ? ["w", "h", "h", "h", "h", "h", "h", "j"] : ["A", "j"]
      var state = state(columns: columns, rows: rows)
      for key in keys { deliver(press(key, on: &state), to: &state) }
      let screen = Views.render(state, environment: environment)
      #expect(screen.rows.count == rows)
      #expect(screen.rows.allSatisfy { TextWidth.of($0) == columns }, "every row is exactly \(columns) columns")
      let text = screen.rows.map { String($0.reversed().drop { $0 == " " }.reversed()) }.joined(separator: "\n") + "\n"
      let file = SnapshotTests.directory.appendingPathComponent("\(view)-\(columns)x\(rows).txt")
      if ProcessInfo.processInfo.environment["RECORD_SNAPSHOTS"] == "1" {
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

  @Test func theWeekShowsTodayTheNowLineAndTheWholeDay() {
    let screen = Views.render(state("w", columns: 120, rows: 40), environment: environment)
    let text = screen.rows.joined(separator: "\n")
    #expect(text.contains("Sun 29 •"), "today's column is marked")
    #expect(text.contains("───"), "the now line")
    // The now line (15:00 on the test clock) keeps the rule of today's column: seven rules on
    // the hour's row, one per day, whatever the hour.
    let hourRow = screen.rows.first { $0.contains("15:00 ┆") }
    #expect(hourRow?.filter { $0 == "┆" }.count == 7, "\(hourRow ?? "no 15:00 row")")
    #expect(text.contains("Holiday"))
    #expect(text.contains("✗ Standup"), "a cancelled one is marked")
  }

  @Test(arguments: ["w", "A"])
  func everySizeDrawsWhole(key: String) {
    var settings = Settings()
    settings.ui.timeFormat = Setting(.hours12, origin: .file(path: "config", line: 1))
    for environment in [environment, Environment(clock: TestClock.clock, settings: settings)] {
      for (columns, rows) in [
        (0, 0), (1, 1), (20, 5), (49, 6), (50, 5), (50, 7), (57, 9), (79, 13), (81, 14), (119, 50),
      ] {
        var state = UI.start(size: Screen.Size(rows: rows, columns: columns), environment: environment).0
        _ = UI.update(&state, .snapshotArrived(day: clock.today, appointments: []), environment: environment)
        let effects = UI.update(&state, .keyPressed(Key(spelling: key) ?? .escape), environment: environment)
        if case .observeDays(let start, let end, _) = effects.first {
          let items = Self.window(start, end)
          _ = UI.update(&state, .snapshotArrived(day: start, end: end, appointments: items), environment: environment)
        }
        let screen = Views.render(state, environment: environment)
        #expect(screen.rows.count == rows)
        #expect(screen.rows.allSatisfy { TextWidth.of($0) == columns }, "\(columns)x\(rows)")
      }
    }
  }

  @Test func withSeveralCalendarsABlockStartsWithItsCalendarsMarker() {
    var state = state("w", columns: 200, rows: 50)
    let personal = CalendarInfo(id: Self.items[0].calendarID, name: "personal", color: "blue")
    let work = CalendarInfo(id: "work-id", name: "work", color: "red")
    _ = UI.update(&state, .calendarsArrived([personal, work]), environment: environment)
    let screen = Views.render(state, environment: environment)
    #expect(screen.rows.contains { $0.contains("┆P 10:00 Dentist") }, "the marker, then the time and title")
  }

  @Test func belowFiftyColumnsTheDayViewStandsInAndSaysSo() {
    let state = state("w", columns: 40, rows: 12)
    #expect(Views.statusLine(state, environment: environment).0.contains("The week needs 50 columns"))
    let text = Views.render(state, environment: environment).rows.joined(separator: "\n")
    #expect(text.contains("10:00-10:45  Dentist"))
  }
}
