import ApptCore
import ApptTestSupport
import Foundation
import Testing

@testable import ApptUI

/// The week and agenda views read the span's appointments day by day from an index
/// (`State.spanIndex`) made once per snapshot, span, filter or `v` change, not filtered again
/// on every frame; and a column draws only the lanes it has room for ("+N" for the rest).
@Suite struct SpanIndexTests: UIModelTest {
  let environment = Environment(clock: TestClock.clock)
  let clock = TestClock.clock
  typealias Week = WeekAgendaTests

  /// What `shown(on:)` answered before the index: every day filters all the appointments.
  func filteredByHand(_ state: State) -> [[Appointment]] {
    guard let span = state.span else { return [] }
    let search = TextSearch(state.filter)
    return span.days.map { day in
      let end = span.end(of: day) ?? day
      return state.appointments.filter {
        (state.showsCancelled || !$0.isCancelled) && search.matches($0) && $0.start < end
          && ($0.end > day || $0.start >= day)
      }
    }
  }

  func snapshot(_ items: [Appointment], of state: inout State) {
    guard let span = state.span else { return }
    _ = UI.update(
      &state,
      .snapshotArrived(day: span.start, end: span.end, appointments: items),
      environment: environment
    )
  }

  func weekState(columns: Int = 80, rows: Int = 24) -> State {
    var (state, effects) = UI.start(size: Screen.Size(rows: rows, columns: columns), environment: environment)
    Week().deliver(effects, to: &state)
    Week().deliver(press("w", on: &state), to: &state)
    return state
  }

  @Test func theIndexIsKeptAcrossSnapshotsTheFilterAndHidingCancelledOnes() throws {
    var state = weekState()
    let week = try #require(state.span)
    #expect(state.spanIndex.days == filteredByHand(state))
    #expect(state.spanIndex.days.map(\.count) == [3, 0, 1, 1, 1, 0, 3], "Mon 23 ... Sun 29")

    // A new snapshot (another process added one on Friday, and one across Tuesday night).
    var items = Week.window(week.start, week.end)
    items.append(Week.appointment("Added", 27, 15, uuid: 20))
    items.append(Week.appointment("Night shift", 24, 22, minutes: 240, uuid: 21))
    snapshot(items, of: &state)
    #expect(state.spanIndex.days == filteredByHand(state))
    #expect(state.shown(on: TestClock.date(2026, 11, 27)).map(\.title) == ["Standup", "Added"])
    #expect(state.shown(on: TestClock.date(2026, 11, 25)).map(\.title) == ["Holiday", "Night shift"])
    // Its minutes on each day it takes: 22:00 to midnight, then midnight to 02:00.
    let tuesday = state.wallTimes(on: TestClock.date(2026, 11, 24))
    #expect(tuesday == [State.WallTime(from: 22 * 60, to: 1440)])
    #expect(state.wallTimes(on: TestClock.date(2026, 11, 25)).last == State.WallTime(from: 0, to: 120))

    // `v` hides the cancelled Standup, and shows it again.
    _ = press("v", on: &state)
    #expect(state.spanIndex.days == filteredByHand(state))
    #expect(state.shown(on: TestClock.date(2026, 11, 27)).map(\.title) == ["Added"])
    _ = press("v", on: &state)
    #expect(state.shown(on: TestClock.date(2026, 11, 27)).map(\.title) == ["Standup", "Added"])

    // A filter as it is typed, then cleared.
    _ = press("/", on: &state)
    type("dent", on: &state)
    #expect(state.spanIndex.days == filteredByHand(state))
    #expect(state.spanIndex.days.flatMap { $0 }.map(\.title) == ["Dentist"])
    _ = press("esc", on: &state)
    #expect(state.filter.isEmpty)
    #expect(state.spanIndex.days == filteredByHand(state))
    #expect(state.shown(on: TestClock.date(2026, 11, 29)).map(\.title) == ["Dentist", "Lunch", "Evening run"])

    // The next week: the index is of the new span (empty until its snapshot comes).
    _ = press("l", on: &state)
    #expect(state.span?.start == TestClock.date(2026, 11, 30))
    #expect(state.spanIndex.days.allSatisfy { $0.isEmpty })
    snapshot(Week.window(TestClock.date(2026, 11, 30), TestClock.date(2026, 12, 7)), of: &state)
    #expect(state.spanIndex.days == filteredByHand(state))
    #expect(state.shown(on: TestClock.date(2026, 12, 1)).map(\.title) == ["Dinner with Bea"])
  }

  @Test func theViewsDrawAndHitWhatTheIndexHolds() throws {
    var state = weekState()
    // An index made with a filter stands in for the real one: the week draws what it holds.
    state.spanIndex = State.SpanIndex(state.appointments, span: state.span, filter: "lunch", showsCancelled: true)
    let rows = Views.render(state, environment: environment).rows.joined(separator: "\n")
    #expect(rows.contains("Lunch"))
    #expect(!rows.contains("Dentist") && !rows.contains("Design"))
    #expect(state.visible.map(\.title) == ["Lunch"], "the selected day's list is the index's too")
  }

  /// Many overlapping ones in a column a few cells wide: the lanes that fit, and the rest
  /// counted in the last lane ("+N"), which a click chooses the first of.
  @Test func aCrowdedColumnSumsUpWhatItHasNoLaneFor() throws {
    var state = weekState()
    let crowd = (0..<12).map { Week.appointment("Crowd \($0)", 24, 10, minutes: 60, uuid: 100 + $0) }
    let week = try #require(state.span)
    snapshot(Week.window(week.start, week.end) + crowd, of: &state)
    let layout = try #require(
      WeekView.layout(state, environment: environment, in: Views.dayArea(state, Views.Layout(size: state.size)))
    )
    let tuesday = 1
    let lanes = layout.maximumLanes
    #expect(lanes < 12)
    #expect(layout.blocks[tuesday].count == lanes - 1, "the last lane is the summary")
    for (index, blocks) in layout.blocks.enumerated() {
      for block in blocks {
        let place = layout.lane(of: block, day: index)
        #expect(place.x >= layout.columnX(index) + 1 && place.x + place.width <= layout.columnX(index + 1))
      }
    }
    let summary = try #require(layout.summaries[tuesday].first)
    #expect(summary.count == 12 - (lanes - 1))
    #expect(summary.first.title == "Crowd \(lanes - 1)")
    let row = layout.row(ofSlot: summary.slot)
    let screen = Views.render(state, environment: environment)
    let x = layout.summaryLane(day: tuesday).x
    #expect(screen.rows[row].dropFirst(x).hasPrefix("+\(summary.count)"))
    let hit = layout.hit(row: row, column: x, selectedID: nil)
    #expect(hit?.day == TestClock.date(2026, 11, 24))
    #expect(hit?.appointment?.title == "Crowd \(lanes - 1)")
    // The blocks the full layout would give the first lanes are the ones drawn.
    let all = WeekView.blocks(
      state.shown(on: TestClock.date(2026, 11, 24)),
      day: TestClock.date(2026, 11, 24),
      end: TestClock.date(2026, 11, 25),
      slotMinutes: layout.slotMinutes,
      calendar: clock.calendar
    )
    #expect(
      all.filter { $0.lane < lanes - 1 }.map(\.appointment.title) == layout.blocks[tuesday].map(\.appointment.title)
    )
  }

  /// The agenda list makes only the lines it shows: the same ones, at every height and
  /// selection, as cutting them from the whole list (as it did before).
  @Test func theAgendaShowsTheLinesTheWholeListWouldAtEveryHeight() {
    var (state, effects) = UI.start(size: Screen.Size(rows: 24, columns: 80), environment: environment)
    Week().deliver(effects, to: &state)
    Week().deliver(press("A", on: &state), to: &state)
    for step in 0..<12 {
      let (all, items) = AgendaListView.lines(state)
      for height in 0..<(all.count + 3) {
        let selectedLine =
          all.firstIndex {
            if case .appointment(let day, let index) = $0 {
              day == state.selectedDay && items[day]?[index].id == state.selectedID
            } else {
              false
            }
          } ?? all.firstIndex(of: .day(state.selectedDay)) ?? 0
        var first = max(0, min(selectedLine - height + 1, all.count - height))
        if let header = all[..<min(selectedLine + 1, all.count)].lastIndex(where: {
          if case .day = $0 { true } else { false }
        }),
          header < first, selectedLine - header < height
        {
          first = header
        }
        let expected = Array(all.dropFirst(first).prefix(height))
        let shown = AgendaListView.shownLines(state, height: height)
        #expect(Array(shown.lines) == expected, "step \(step), height \(height)")
        #expect(shown.items == items)
      }
      Week().deliver(press("j", on: &state), to: &state)
    }
  }
}
