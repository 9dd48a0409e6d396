import ApptCore
import ApptTestSupport
import Foundation
import Testing

@testable import ApptUI

/// Reading ahead (ReadAhead.swift): the windows beside the one on screen are read once it has
/// loaded, and a move into one shows it at once, while the store is at the version it was read at.
@Suite struct ReadAheadTests: UIModelTest {
  let environment = Environment(clock: TestClock.clock)
  let clock = TestClock.clock
  let today = TestClock.clock.today
  let dentist = TestStore.appointment("Dentist", TestClock.date(2026, 11, 29, 10))
  let tomorrowsLunch = TestStore.appointment("Lunch", TestClock.date(2026, 11, 30, 12))

  /// Today loaded at store version `version`, with the effects its snapshot asked for.
  func loadedToday(version: UInt64 = 3) -> (State, [Effect]) {
    var state = UI.start(size: Screen.Size(rows: 24, columns: 80), environment: environment).0
    let effects = UI.update(
      &state,
      .snapshotArrived(day: today, appointments: [dentist], version: version),
      environment: environment
    )
    return (state, effects)
  }

  /// Delivers what the runtime read of the window from `day` to `end` (nil: the day).
  func arrive(_ known: KnownWindow, day: Date, end: Date? = nil, on state: inout State) {
    _ = UI.update(&state, .readAheadArrived(day: day, end: end, known: known), environment: environment)
  }

  @Test func theDaysEitherSideAreReadOnceTheDayHasLoaded() {
    let (state, effects) = loadedToday()
    #expect(
      effects == [
        .readAhead(day: clock.day(1, after: today), end: nil), .readAhead(day: clock.day(-1, after: today), end: nil),
      ]
    )
    var again = state
    let twice = UI.update(
      &again,
      .snapshotArrived(day: today, appointments: [dentist], version: 3),
      environment: environment
    )
    #expect(twice.isEmpty, "asked once while the first read is on its way")
  }

  @Test func theNextDayReadAheadShowsAtOnceAndIsObservedFromWhatWasRead() {
    var (state, _) = loadedToday()
    let tomorrow = clock.day(1, after: today)
    let read = KnownWindow(items: [tomorrowsLunch], version: 3)
    arrive(read, day: tomorrow, on: &state)
    let effects = press("l", on: &state)
    #expect(effects == [.observeDay(tomorrow, known: read)])
    #expect(state.isLoaded, "no wait for the store")
    #expect(state.appointments == [tomorrowsLunch] && state.selectedID == tomorrowsLunch.id)
    // Its snapshot (the same) keeps the selection and asks for the day after; the day left is kept.
    let next = UI.update(
      &state,
      .snapshotArrived(day: tomorrow, appointments: [tomorrowsLunch], version: 3),
      environment: environment
    )
    #expect(next == [.readAhead(day: clock.day(2, after: today), end: nil)])
    #expect(state.readAhead[State.Window(day: today, end: nil)] == KnownWindow(items: [dentist], version: 3))
  }

  @Test func aNewerVersionForgetsWhatWasReadAndReadsAgain() {
    var (state, _) = loadedToday()
    let tomorrow = clock.day(1, after: today)
    arrive(KnownWindow(items: [], version: 3), day: tomorrow, on: &state)
    // A commit changed today: its snapshot is of version 4, so tomorrow as read may be old.
    let effects = UI.update(
      &state,
      .snapshotArrived(day: today, appointments: [dentist, tomorrowsLunch], version: 4),
      environment: environment
    )
    #expect(effects.contains(.readAhead(day: tomorrow, end: nil)))
    #expect(state.readAhead.isEmpty)
    #expect(press("l", on: &state) == [.observeDay(tomorrow)])
    #expect(!state.isLoaded, "waits for the store's snapshot")
  }

  @Test func aReadOfAnOlderVersionThanTheScreensIsNotKept() {
    var (state, _) = loadedToday(version: 5)
    let tomorrow = clock.day(1, after: today)
    arrive(KnownWindow(items: [], version: 4), day: tomorrow, on: &state)
    #expect(state.readAhead.isEmpty)
  }

  @Test func theCalendarsOwnChangeForgetsWhatWasRead() {
    var (state, _) = loadedToday()
    let tomorrow = clock.day(1, after: today)
    arrive(KnownWindow(items: [], version: 3), day: tomorrow, on: &state)
    var added = tomorrowsLunch
    added.title = "Added"
    // The add lands on tomorrow: the day must come from the store, not from the read before it.
    let effects = UI.update(&state, .appointmentAdded(added), environment: environment)
    #expect(effects.contains(.observeDay(tomorrow)))
    #expect(!state.isLoaded && state.readAhead.isEmpty)
  }

  @Test func theWeekViewReadsTheWeeksEitherSide() {
    var (state, _) = loadedToday()
    let week = press("w", on: &state)
    let start = TestClock.date(2026, 11, 23)
    let end = TestClock.date(2026, 11, 30)
    #expect(week == [.observeDays(start: start, end: end)])
    let effects = UI.update(
      &state,
      .snapshotArrived(day: start, end: end, appointments: [dentist], version: 3),
      environment: environment
    )
    let nextWeek = TestClock.date(2026, 12, 7)
    #expect(
      effects == [
        .readAhead(day: end, end: nextWeek), .readAhead(day: TestClock.date(2026, 11, 16), end: start),
      ]
    )
    let read = KnownWindow(items: [tomorrowsLunch], version: 3)
    arrive(read, day: end, end: nextWeek, on: &state)
    #expect(press("l", on: &state) == [.observeDays(start: end, end: nextWeek, known: read)])
    #expect(state.isLoaded && state.selectedAppointment == tomorrowsLunch)
  }

  @Test func aWeekReadAheadUnderAnotherFilterIsIndexedAgain() {
    var (state, _) = loadedToday()
    _ = press("w", on: &state)
    let start = TestClock.date(2026, 11, 23)
    let end = TestClock.date(2026, 11, 30)
    _ = UI.update(
      &state,
      .snapshotArrived(day: start, end: end, appointments: [dentist], version: 3),
      environment: environment
    )
    let nextWeek = TestClock.date(2026, 12, 7)
    let read = KnownWindow(items: [tomorrowsLunch], version: 3)
    arrive(read, day: end, end: nextWeek, on: &state)
    // The week's index was made without a filter; the filter typed since leaves Lunch out.
    state.filter = "dentist"
    _ = press("l", on: &state)
    #expect(state.isLoaded && state.shown(on: end).isEmpty)
    state.filter = ""
    #expect(state.shown(on: end) == [tomorrowsLunch])
  }

  @Test func nothingIsReadWhileTheStoreIsAway() {
    var state = UI.start(size: Screen.Size(rows: 24, columns: 80), environment: environment).0
    let away = StoreInterruption(server: nil, reason: "server closed the connection")
    let effects = UI.update(
      &state,
      .snapshotArrived(day: today, appointments: [dentist], interruption: away, version: 3),
      environment: environment
    )
    #expect(effects.isEmpty)
    _ = press("l", on: &state)
    #expect(state.readAhead.isEmpty, "the day left was not kept: it may be out of date")
  }
}
