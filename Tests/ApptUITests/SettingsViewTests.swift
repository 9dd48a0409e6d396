import ApptCore
import ApptTestSupport
import Foundation
import Testing

@testable import ApptUI

/// What the settings file changes in the calendar: the month panel's first day, the key map
/// (help overlay and hints), 12-hour times, the header's date, the form's duration, colours.
@Suite struct SettingsViewTests {
  let today = TestClock.clock.today  // Sunday 29 November 2026

  func settings(_ text: String) throws -> Settings {
    let parser = SettingsParser(path: "/c", vocabulary: KeyMap.standard.vocabulary)
    switch parser.parse(text: text) {
    case .success(let settings): return settings
    case .failure(let failure): throw failure
    }
  }

  func screen(
    _ environment: Environment,
    items: [Appointment] = [],
    mode: State.Mode? = nil,
    rows: Int = 24
  ) -> [String] {
    var state = UI.start(size: Screen.Size(rows: rows, columns: 80), environment: environment).0
    _ = UI.update(&state, .snapshotArrived(day: today, appointments: items), environment: environment)
    if let mode { state.mode = mode }
    return Views.render(state, environment: environment).rows
  }

  @Test func aWeekStartingSundayPutsSundayFirst() throws {
    let sunday = Environment(clock: TestClock.clock, settings: try settings("[ui]\nweek_start = sunday"))
    let rows = screen(sunday).map { String($0.prefix(24)) }
    #expect(
      Array(rows[1...8]) == [
        " November 2026         │",
        " Su Mo Tu We Th Fr Sa  │",
        "  1  2  3  4  5  6  7  │",
        "  8  9 10 11 12 13 14  │",
        " 15 16 17 18 19 20 21  │",
        " 22 23 24 25 26 27 28  │",
        " 29 30                 │",
        "                       │",
      ]
    )
    let saturday = Environment(clock: TestClock.clock, settings: try settings("[ui]\nweek_start = saturday"))
    #expect(screen(saturday)[2].hasPrefix(" Sa Su Mo Tu We Th Fr"))
    #expect(screen(saturday)[3].hasPrefix("     1  2  3  4  5  6"))
    #expect(screen(Environment(clock: TestClock.clock))[2].hasPrefix(" Mo Tu We Th Fr Sa Su"))
  }

  @Test func aRemapShowsInTheHelpOverlayAndTheHints() throws {
    let environment = Environment(
      clock: TestClock.clock,
      settings: try settings("[keys]\nadd_appointment = n\nsearch = a f\nquit = x")
    )
    let help = screen(environment, mode: .help, rows: 30)  // all of the overlay
    #expect(help.contains { $0.hasPrefix("  n             add an appointment") })
    #expect(help.contains { $0.hasPrefix("  a f           filter the day as you type") })
    #expect(help.contains { $0.hasPrefix("  x             quit") })
    #expect(!help.contains { $0.contains("q ctrl+c") })
    let browsing = screen(environment)
    #expect(browsing[23].contains("n add"))
    #expect(browsing[23].contains("a search"))
    #expect(browsing[23].contains("x quit"))
    #expect(browsing.contains { $0.contains("Nothing on this day. Press n to add an appointment.") })
  }

  @Test func aRemappedKeyDoesTheActionAndTheOldOneNothing() throws {
    let environment = Environment(clock: TestClock.clock, settings: try settings("[keys]\nadd_appointment = n"))
    var state = UI.start(size: Screen.Size(rows: 24, columns: 80), environment: environment).0
    _ = UI.update(&state, .snapshotArrived(day: today, appointments: []), environment: environment)
    _ = UI.update(&state, .keyPressed(.character("a")), environment: environment)
    #expect(state.mode == .browsing)
    _ = UI.update(&state, .keyPressed(.character("n")), environment: environment)
    guard case .form = state.mode else {
      Issue.record("n did not open the form: \(state.mode)")
      return
    }
  }

  @Test func theVocabularyIsTheKeyMap() {
    let vocabulary = KeyMap.standard.vocabulary
    #expect(vocabulary.actions.count == Action.allCases.count)
    #expect(vocabulary.actions.first == KeyVocabulary.ActionKeys(name: "next_appointment", keys: ["j", "down"]))
    #expect(vocabulary.actions.last == KeyVocabulary.ActionKeys(name: "quit", keys: ["q", "ctrl+c"]))
    for spelling in ["j", "G", ":", "ctrl+u", "enter", "pgdown", "space", "shift+tab"] {
      #expect(vocabulary.isKey(spelling), "\(spelling)")
    }
    for spelling in ["Enter", "ctrl+U", "ctrl-u", "pagedown", "paste", "jj", ""] {
      #expect(!vocabulary.isKey(spelling), "\(spelling)")
    }
    #expect(Action.toggleCancelled.settingsName == "toggle_cancelled")
  }

  @Test func twelveHourTimesAndTheDateFormatInTheCalendar() throws {
    let environment = Environment(
      clock: TestClock.clock,
      settings: try settings("[ui]\ntime_format = 12h\ndate_format = %A %-d %B")
    )
    let dentist = TestStore.appointment("Dentist", TestClock.date(2026, 11, 29, 16), minutes: 45)
    let rows = screen(environment, items: [dentist])
    #expect(rows[0].hasPrefix(" appt  Sunday 29 November  (today)"))
    #expect(rows.contains { $0.contains("│  ── now 3:00pm ──") })
    #expect(rows.contains { $0.contains("│  4:00pm-4:45pm  Dentist") })
    #expect(rows.contains { $0.contains(" Sunday 29 November, 4:00pm-4:45pm (45m)") })
  }

  @Test func theFormOpensWithTheDefaultDuration() throws {
    let environment = Environment(clock: TestClock.clock, settings: try settings("[ui]\ndefault_duration = 25m"))
    var state = UI.start(size: Screen.Size(rows: 24, columns: 80), environment: environment).0
    _ = UI.update(&state, .snapshotArrived(day: today, appointments: []), environment: environment)
    _ = UI.update(&state, .keyPressed(.character("a")), environment: environment)
    guard case .form(let form) = state.mode else {
      Issue.record("a did not open the form")
      return
    }
    #expect(form[.duration].text == "25m")
  }

  @Test func thePaletteIsTheThemeWithTheColorsOnTop() throws {
    #expect(Palette.standard.pairs[.selected] == ColorPair(.black, on: .yellow))
    #expect(Palette.standard.pairs[.field] == nil)
    let mono = Palette(settings: try settings("[ui]\ntheme = mono\n[colors]\nerror = red"))
    #expect(mono.pairs == [.error: ColorPair(.red)])
    let light = Palette(settings: try settings("[ui]\ntheme = light\n[colors]\nselected = white on #000080"))
    #expect(light.pairs[.accent] == ColorPair(.blue))
    #expect(light.pairs[.selected] == ColorPair(.white, on: .rgb(red: 0, green: 0, blue: 0x80)))
    #expect(light.pairs[.header] == ColorPair(.white, on: .blue))
  }
}
