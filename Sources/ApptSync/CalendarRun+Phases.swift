// The phases of a calendar's run and how an event another client moved between two of the
// account's calendars is told from a delete and a create: the server's DELETE here and its
// PUT there are both seen before anything is settled or pushed.

import ApptCalDAV
import ApptStore

extension CalendarRun {
  enum Phase {
    var isSettle: Bool {
      if case .settle = self { true } else { false }
    }

    case pull
    /// The departures, with where each UID arrived in this sync (a calendar id), and
    /// whether every calendar of the account was pulled (else the tokens wait: the next
    /// sync reads the same changes again).
    case settle([String: String], allPulled: Bool)
    case push
  }

  /// Runs `phase` unless the calendar failed before or the account stopped (then the
  /// summary says so); a failure becomes the summary's and ends the calendar's run, and
  /// one that ends the account (`SyncEngine.endsAccount`) is kept in `stop`. Throws only
  /// for the store itself failing.
  mutating func perform(_ phase: Phase, stop: inout CalDAVError?) async throws(StoreError) {
    guard !failed else { return }
    // Settling needs no server: a calendar pulled before the server went away settles.
    if let stop, !phase.isSettle {
      // The server went away: the other calendars are not tried (each would wait for it).
      engine.fail(&summary, stop)
      failed = true
      return
    }
    do throws(SyncFailure) {
      switch phase {
      case .pull: try await pull()
      case .settle(let arrivals, let allPulled): try await settle(arrivals, allPulled: allPulled)
      case .push: try await push()
      }
    } catch {
      failed = true
      switch error {
      case .store(let storeError) where storeError.isStorageFailure: throw storeError
      case .store(let storeError): summary.error = storeError.description
      case .server(let serverError):
        engine.fail(&summary, serverError)
        if SyncEngine.endsAccount(serverError) { stop = serverError }
      }
    }
  }

  /// Where each UID the runs' pulls added arrived (the first calendar, in discovery order).
  static func arrivals(of runs: [CalendarRun]) -> [String: String] {
    var arrivals: [String: String] = [:]
    for run in runs {
      for uid in run.arrived where arrivals[uid] == nil { arrivals[uid] = run.calendarID }
    }
    return arrivals
  }

  /// Settles the departures: one that arrived in another of the account's calendars moved
  /// there (the local event follows, keeping its id; an unsent local edit is kept as a
  /// conflict there); the others were deleted. Then the pull's token is stored. Not when a
  /// calendar of the account could not be pulled (`allPulled` false): where a departure
  /// went may be in what it did not read, so the departures wait, untouched and not pushed,
  /// for the next sync, which reads them again (no token was stored).
  mutating func settle(_ arrivals: [String: String], allPulled: Bool) async throws(SyncFailure) {
    guard allPulled else { return }
    let leaving = departures
    departures = []
    for item in leaving {
      // Recorded again at another href of this calendar since: still here.
      if let now = known.byUID[item.uid], CalendarRun.key(now.href) != CalendarRun.key(item.href) { continue }
      if let target = arrivals[item.uid], target != calendarID, try await moved(item, to: target) {
        movedAway.insert(item.uid)
        continue
      }
      try await deleted(item)
    }
    try await storeToken()
  }

  /// Moves the local event of `item` to `target`; false when there is none here.
  private mutating func moved(_ item: SyncItem, to target: String) async throws(SyncFailure) -> Bool {
    let calendarID = calendarID
    let localItem = try await run { () async throws(StoreError) in
      try await store.localItem(calendarID: calendarID, uid: item.uid)
    }
    guard let localItem else { return false }
    let edited = localItem.ics != item.base
    let moved = try await run { () async throws(StoreError) in
      try await store.moveServerItem(uid: item.uid, from: calendarID, to: target, conflictIfChanged: edited)
    }
    if moved, edited { conflictsMovedTo.append(target) }
    return moved
  }
}
