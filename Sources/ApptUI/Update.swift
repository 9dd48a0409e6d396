import ApptCore
import Foundation

/// The whole behaviour of the calendar: a pure function from a state and a message to the
/// next state and the effects to carry out. No awaiting, no I/O, no terminal.
public enum UI {
  /// The first state and the effects that start the app (observe today and its month).
  public static func start(size: Screen.Size, environment: Environment) -> (State, [Effect]) {
    let clock = environment.clock
    let today = clock.today
    let month = State.firstOfMonth(today, clock: clock)
    var state = State(size: size, selectedDay: today, now: clock.now, month: month)
    state.sync = SyncState(settings: environment.settings)
    let sync = syncDue(&state)
    return (state, [.observeDay(today), .observeMonth(month)] + sync)
  }

  public static func update(_ state: inout State, _ message: Message, environment: Environment) -> [Effect] {
    if message.reportsAStoreChange { state.forgetReadAhead() }
    switch message {
    case .keyPressed(let key):
      return handleKey(key, state: &state, environment: environment)

    case .snapshotArrived(let day, let end, let appointments, let fromOtherProcess, let interruption, let version):
      // Any day's snapshot says whether the store is reachable (they come in order); the first
      // one after an interruption says "Reconnected", not "Updated by another process".
      let reconnected = interruption == nil && state.storeInterruption != nil
      state.storeInterruption = interruption
      if reconnected { state.report("Reconnected: the calendar is up to date") }
      guard state.observes(day: day, end: end) else { return [] }  // a late snapshot of a day we left
      let wasLoaded = state.isLoaded
      state.storeVersion = max(state.storeVersion, version)
      state.shownVersion = version
      state.applySnapshot(appointments)
      if fromOtherProcess, !reconnected, interruption == nil, wasLoaded, state.status?.isError != true {
        state.report("Updated by another process")
      }
      let typed = state.typeahead
      state.typeahead = []
      let lookUps = seriesToLookUp(state)
      let readAhead = state.readAheadEffects(environment: environment)
      return lookUps + readAhead + typed.flatMap { handleKey($0, state: &state, environment: environment) }

    case .readAheadArrived(let day, let end, let known):
      state.readAheadArrived(State.Window(day: day, end: end), known, environment: environment)
      return []

    case .seriesFound(let titles):
      state.seriesTitles.merge(titles) { _, new in new }
      return []

    case .busyDaysArrived(let month, let days):
      if month == state.month { state.busyDays = days }
      return []

    case .calendarsArrived(let calendars):
      state.calendars = calendars
      if case .calendars(let index) = state.mode { state.mode = .calendars(min(index, max(0, calendars.count - 1))) }
      return []

    case .calendarShown(let calendar):
      let name = TextSafety.escapingControls(calendar.name)
      state.report(calendar.isShown ? "Showing calendar \(name)" : "Hiding calendar \(name)")
      return []

    case .terminalResized(let size):
      state.size = size
      return []

    case .clockTicked(let now):
      // A calendar left open on today follows today past midnight (as a wall calendar is
      // turned over); one showing another day stays where the user put it.
      let clock = environment.clock
      let wasToday = state.selectedDay == clock.startOfDay(state.now)
      state.now = now
      let today = clock.startOfDay(now)
      guard wasToday, today != state.selectedDay, state.mode == .browsing else { return [] }
      return state.selectDay(today, environment: environment)

    case .appointmentAdded(let appointment):
      state.mode = .browsing
      state.recordUndo(.remove(appointment))
      state.report("Added \"\(appointment.title)\" (\(appointment.id.short))")
      return syncSoon(state) + show(appointment, state: &state, environment: environment)

    case .appointmentUpdated(let old, let new):
      state.mode = .browsing
      // Undo puts the old fields back over the version just saved, and only over that one.
      var previous = old
      previous.revision = new.revision
      if old.occurrence != nil {
        state.recordUndo(.removeOverride(new))  // an occurrence became a changed occurrence
      } else if old.id != new.id {
        state.recordUndo(.unsplit(series: old, split: new))  // "this and following"
      } else {
        state.recordUndo(.put(previous))
      }
      state.report("Saved \"\(new.title)\"")
      return syncSoon(state) + show(new, state: &state, environment: environment)

    case .appointmentCancelled(let appointment):
      state.recordUndo(.setStatus(appointment, .scheduled))
      state.report("Cancelled \"\(appointment.title)\" (u undoes)")
      return syncSoon(state)

    case .followingCancelled(let series, let split):
      state.recordUndo(.unsplit(series: series, split: split))
      state.report("Cancelled \"\(split.title)\" from this occurrence on (u undoes)")
      return syncSoon(state)

    case .appointmentRestored(let appointment):
      state.recordUndo(.setStatus(appointment, .cancelled))
      state.report("Restored \"\(appointment.title)\"")
      return syncSoon(state)

    case .appointmentDeleted(let appointment):
      state.recordUndo(.put(appointment))
      state.report("Deleted \"\(appointment.title)\" (u undoes)")
      return syncSoon(state)

    case .undone(let what):
      state.report("Undid: \(what)")
      return syncSoon(state)

    case .commandFinished(let output, let isError):
      let lines = output.split(separator: "\n", omittingEmptySubsequences: true).map(String.init)
      // More than a line: all of it, in a pane that scrolls (unless something else was
      // opened meanwhile: then the first line, as a line alone is shown).
      if lines.count > 1, state.mode == .browsing {
        state.mode = .output(State.OutputPane(lines: lines, isError: isError))
        return []
      }
      var text = lines.first ?? (isError ? "failed" : "done")
      if lines.count > 1 { text += "  (+\(lines.count - 1) more lines)" }
      state.report(text, isError: isError)
      return isError ? [] : syncSoon(state)

    case .mouse(let event):
      return handleMouse(event, state: &state, environment: environment)

    case .searchResultsArrived(let query, let results):
      guard state.mode == .browsing else { return [] }  // something else was opened meanwhile
      guard !results.isEmpty else {
        state.report("Nothing matches \"\(query)\" on any day")
        return []
      }
      state.status = nil
      state.mode = .results(State.SearchResults(query: query, items: results))
      return []

    case .interrupted:
      return quit(&state)

    case .syncDue:
      return syncDue(&state)

    case .syncFinished(let report):
      return syncFinished(report, state: &state)

    case .syncReported(let report):
      state.sync?.last = report
      return []

    case .conflictsRead(let conflicted, let count):
      return conflictsRead(conflicted, count: count, state: &state)

    case .alarmDue(let instance):
      return alarmDue(instance, state: &state, environment: environment)

    case .changeRefused(let change, let current):
      let formatter = environment.formatter
      if change == .save, case .form(var form) = state.mode, form.isSaving, var base = form.editing,
        base.id == current.id
      {
        // Keep what was typed; the next Enter saves it over the version stored now.
        if base.occurrence == nil {
          base = current
        } else {
          base.revision = current.revision  // an occurrence: the series' revision
        }
        form.editing = base
        form.isSaving = false
        form.notice = [
          "Changed by someone else; it is now",
          "\"\(current.title)\" \(formatter.day(current.start)) \(formatter.timeRange(current))",
          "enter saves yours over it, esc discards yours",
        ]
        state.mode = .form(form)
        state.report("\"\(current.title)\" was changed by someone else; nothing saved", isError: true)
        return []
      }
      state.report("\"\(current.title)\" was changed by someone else; \(change.refusal)", isError: true)
      return []

    case .storeFailed(let reason):
      state.typeahead = []  // the day they were meant for may never load
      if case .form(var form) = state.mode {
        form.isSaving = false
        state.mode = .form(form)
      }
      state.report(reason, isError: true)
      return []
    }
  }

  /// The series of the day's changed occurrences that are neither on the day nor looked up.
  /// The ids of the day are hashed only when it holds a changed occurrence: a day of a
  /// thousand one-offs is looked through, not hashed, after every snapshot.
  private static func seriesToLookUp(_ state: State) -> [Effect] {
    let wanted = Set(state.appointments.compactMap(\.override?.seriesID)).filter { state.seriesTitles[$0] == nil }
    guard !wanted.isEmpty else { return [] }
    let onTheDay = Set(state.appointments.lazy.map(\.id).filter(wanted.contains))
    let missing = wanted.subtracting(onTheDay)
    return missing.isEmpty ? [] : [.lookUpSeries(missing.sorted { $0.description < $1.description })]
  }

  /// Shows the day of `appointment` with it selected, whichever of the result message and the
  /// snapshot that contains it arrives first.
  private static func show(_ appointment: Appointment, state: inout State, environment: Environment) -> [Effect] {
    let effects = state.selectDay(environment.clock.startOfDay(appointment.start), environment: environment)
    state.selectedID = appointment.id
    return effects
  }

  // MARK: - Mouse

  /// A click chooses what is under it (a day of the month panel; in the day view an
  /// appointment of the day; in the week and agenda views a day, or an appointment and its
  /// day; a search result); the wheel moves as j/k do, in every view.
  /// Only where nothing is being typed.
  private static func handleMouse(_ event: MouseEvent, state: inout State, environment: Environment) -> [Effect] {
    guard state.size.rows >= Views.minimumSize.rows, state.size.columns >= Views.minimumSize.columns else { return [] }
    switch (state.mode, event.kind) {
    case (.browsing, .wheelDown), (.help, .wheelDown), (.output, .wheelDown), (.results, .wheelDown),
      (.calendars, .wheelDown):
      return handleKey(.down, state: &state, environment: environment)
    case (.browsing, .wheelUp), (.help, .wheelUp), (.output, .wheelUp), (.results, .wheelUp), (.calendars, .wheelUp):
      return handleKey(.up, state: &state, environment: environment)
    case (.browsing, .click):
      let layout = Views.Layout(size: state.size)
      let area = Views.dayArea(state, layout)
      if let panel = layout.month, panel.columns.contains(event.column), panel.rows.contains(event.row),
        !area.columns.contains(event.column)
      {
        guard let day = MonthView.day(at: event.row, event.column, state, environment: environment, in: panel) else {
          return []
        }
        return state.selectDay(day, environment: environment)
      }
      guard area.columns.contains(event.column), area.rows.contains(event.row) else { return [] }
      let hit: (day: Date, appointment: Appointment?)?
      if Views.showsWeek(state) {
        hit = WeekView.layout(state, environment: environment, in: area)?
          .hit(row: event.row, column: event.column, selectedID: state.selectedID)
      } else if state.view == .agenda {
        hit = AgendaListView.hit(row: event.row, state, in: area)
      } else {
        let rows = AgendaView.shownRows(state, environment: environment, in: area, selectedIndex: state.selectedIndex)
        if let row = rows.first(where: { $0.y == event.row }), case .appointment(let index) = row.row {
          state.selectedID = state.visible[index].id
        }
        return []
      }
      // A day of the week or agenda, and the appointment clicked on that day, if any.
      guard let hit else { return [] }
      let effects = state.selectDay(hit.day, environment: environment)
      if let appointment = hit.appointment { state.selectedID = appointment.id }
      return effects
    case (.results(var results), .click):
      let shown = max(1, Views.Layout(size: state.size).body.rows.count - 1)
      let first = (results.selected / shown) * shown
      let index = first + event.row - (Views.Layout(size: state.size).body.rows.lowerBound + 1)
      guard event.row > Views.Layout(size: state.size).body.rows.lowerBound, results.items.indices.contains(index)
      else { return [] }
      results.selected = index
      state.mode = .results(results)
      return []
    default:
      return []
    }
  }

  // MARK: - Keys

  /// Where a scrolling key moves the help overlay's (or an output pane's) first line; nil
  /// for any other key.
  private static func helpScroll(_ key: Key, from scroll: Int, page: Int, last: Int) -> Int? {
    let target: Int
    switch key {
    case .character("j"), .down: target = scroll + 1
    case .character("k"), .up: target = scroll - 1
    case .pageDown, .character(" "): target = scroll + max(1, page - 1)
    case .pageUp: target = scroll - max(1, page - 1)
    case .home: target = 0
    case .end: target = last
    default: return nil
    }
    return min(max(0, target), last)
  }

  private static func handleKey(_ key: Key, state: inout State, environment: Environment) -> [Effect] {
    if let effects = alarmKey(key, state: &state, environment: environment) { return effects }
    switch state.mode {
    case .browsing:
      return handleBrowsingKey(key, state: &state, environment: environment)
    case .form(var form):
      // Out of the mode while it is edited, so its text changes in place: a copy per key would
      // make typing (or a paste without bracketed paste) quadratic in the field's length.
      state.mode = .browsing
      var isOpen = true
      let effects = handleFormKey(key, form: &form, isOpen: &isOpen, state: &state, environment: environment)
      if isOpen { state.mode = .form(form) }
      return effects
    case .confirm(let confirmation):
      return handleConfirmation(key, confirmation, state: &state)
    case .chooseScope(let question):
      return handleScope(key, question, state: &state, environment: environment)
    case .search(var field):
      return handleSearchKey(key, field: &field, state: &state)
    case .command(var field):
      state.mode = .browsing  // edited in place, as the form is
      return handleCommandKey(key, field: &field, state: &state)
    case .help:
      // Taller than the terminal, it scrolls (j/k, arrows, pages, home/end); any other key
      // closes it, as does every key when it fits.
      let lines = HelpView.lines(environment.keyMap, width: state.size.columns).count
      let shown = HelpView.visibleRows(state.size)
      let last = max(0, lines - shown)
      if last > 0, let scroll = helpScroll(key, from: state.helpScroll, page: shown, last: last) {
        state.helpScroll = scroll
        return []
      }
      state.mode = .browsing
      return key == .control("c") ? quit(&state) : []
    case .calendars(let index):
      return handleCalendarsKey(key, index: index, state: &state)
    case .results(var results):
      if key == .control("c") { return quit(&state) }
      let last = results.items.count - 1
      let page = max(1, ResultsView.visibleRows(state.size) - 1)
      switch key {
      case .character("j"), .down: results.selected = min(last, results.selected + 1)
      case .character("k"), .up: results.selected = max(0, results.selected - 1)
      case .pageDown, .character(" "): results.selected = min(last, results.selected + page)
      case .pageUp: results.selected = max(0, results.selected - page)
      case .home: results.selected = 0
      case .end: results.selected = last
      case .enter:
        state.mode = .browsing
        return show(results.items[results.selected], state: &state, environment: environment)
      case .escape, .character("q"):
        state.mode = .browsing
        return []
      default:
        return []
      }
      state.mode = .results(results)
      return []
    case .output(var pane):
      if key == .control("c") { return quit(&state) }
      let shown = OutputView.visibleRows(state.size)
      let last = max(0, pane.lines.count - shown)
      if let scroll = helpScroll(key, from: pane.scroll, page: shown, last: last) {
        pane.scroll = scroll
        state.mode = .output(pane)
      } else if [.escape, .enter, .character("q")].contains(key) {
        state.mode = .browsing
      }
      return []
    }
  }

  /// The list of calendars: j/k (or arrows) choose, space shows or hides the chosen one (in
  /// the store: it stays so across restarts), esc (or C, q) closes.
  private static func handleCalendarsKey(_ key: Key, index: Int, state: inout State) -> [Effect] {
    let count = state.calendars.count
    switch key {
    case .control("c"):
      return quit(&state)
    case .character("j"), .down:
      state.mode = .calendars(min(index + 1, max(0, count - 1)))
    case .character("k"), .up:
      state.mode = .calendars(max(index - 1, 0))
    case .character(" "), .enter:
      guard index < count else { return [] }
      let calendar = state.calendars[index]
      return [.setCalendarShown(name: calendar.name, shown: !calendar.isShown)]
    case .escape, .character("C"), .character("q"):
      state.mode = .browsing
    default:
      state.report("\(key) does nothing here; j/k choose, space shows or hides, esc closes")
    }
    return []
  }

  /// The one way to stop: the runtime ends the loop when it carries out `.quit`.
  private static func quit(_ state: inout State) -> [Effect] {
    state.typeahead = []
    return [.quit]
  }

  private static func handleBrowsingKey(_ key: Key, state: inout State, environment: Environment) -> [Effect] {
    if key == .escape, !state.filter.isEmpty {
      state.filter = ""
      state.report("Filter cleared")
      return []
    }
    let action = environment.keyMap.action(for: key)
    if !state.isLoaded, action != .quit {
      // Everything waits, text after `a` included; a store that does not answer loses keys
      // past the limit, and says so.
      guard state.typeahead.count < State.maximumTypeahead else {
        state.report("The day is still loading; keys typed meanwhile were dropped", isError: true)
        return []
      }
      state.typeahead.append(key)
      return []
    }
    if case .paste = key {
      state.report("Pasting does nothing here; paste into a form (a, e), a filter (/) or a command (:)")
      return []
    }
    guard let action else {
      state.report("\(key) does nothing here; ? shows the keys")
      return []
    }
    state.status = nil
    let clock = environment.clock
    switch action {
    case .nextAppointment:
      if state.view == .agenda, let effects = AgendaListView.step(1, state: &state, environment: environment) {
        return effects
      }
      state.moveSelection(by: 1)
    case .previousAppointment:
      if state.view == .agenda, let effects = AgendaListView.step(-1, state: &state, environment: environment) {
        return effects
      }
      state.moveSelection(by: -1)
    case .weekView: return state.switchView(to: .week, environment: environment)
    case .agendaView: return state.switchView(to: .agenda, environment: environment)
    case .firstAppointment: state.moveSelection(by: -state.visible.count)
    case .lastAppointment: state.moveSelection(by: state.visible.count)
    case .nextDay: return state.selectDay(clock.day(1, after: state.selectedDay), environment: environment)
    case .previousDay: return state.selectDay(clock.day(-1, after: state.selectedDay), environment: environment)
    case .nextWeek: return state.selectDay(clock.day(7, after: state.selectedDay), environment: environment)
    case .previousWeek: return state.selectDay(clock.day(-7, after: state.selectedDay), environment: environment)
    case .today: return state.selectDay(clock.startOfDay(state.now), environment: environment)
    case .addAppointment:
      let calendar = state.defaultCalendarName(preferring: environment.settings.ui.defaultCalendar.configured)
      state.mode = .form(
        Form(
          day: state.selectedDay,
          formatter: environment.formatter,
          duration: environment.settings.ui.defaultDuration.value,
          calendars: state.formCalendars,
          calendar: calendar,
          remind: defaultRemind(environment.settings, calendar: calendar ?? state.calendars.first?.name),
          remindDefaults: state.formCalendars.map { ($0, defaultRemind(environment.settings, calendar: $0)) }
        )
      )
    case .editAppointment:
      guard let appointment = selected(&state, for: "edit") else { return [] }
      if appointment.occurrence != nil {
        state.mode = .chooseScope(.init(.edit, appointment))
      } else {
        state.mode = .form(
          Form(
            editing: appointment,
            formatter: environment.formatter,
            calendars: state.formCalendars,
            calendar: state.calendar(of: appointment)?.name
          )
        )
      }
    case .cancelAppointment:
      guard let appointment = selected(&state, for: "cancel") else { return [] }
      guard !appointment.isCancelled else {
        state.report("\"\(appointment.title)\" is already cancelled; r restores it")
        return []
      }
      state.mode =
        appointment.occurrence == nil ? .confirm(.cancel(appointment)) : .chooseScope(.init(.cancel, appointment))
    case .restoreAppointment:
      guard let appointment = selected(&state, for: "restore") else { return [] }
      guard appointment.isCancelled else {
        state.report("\"\(appointment.title)\" is not cancelled")
        return []
      }
      return [.restoreAppointment(appointment)]
    case .deleteAppointment:
      guard let appointment = selected(&state, for: "delete") else { return [] }
      state.mode = .confirm(.delete(appointment))
    case .undo:
      guard let step = state.undoSteps.popLast() else {
        state.report("Nothing to undo")
        return []
      }
      return [.undo(step)]
    case .search:
      state.mode = .search(TextField(state.filter))
    case .toggleCancelled:
      let previous = state.selectedIndex
      state.showsCancelled.toggle()
      state.clampSelection(previousIndex: previous)
      state.report(state.showsCancelled ? "Showing cancelled appointments" : "Hiding cancelled appointments")
    case .calendars:
      state.mode = .calendars(0)
    case .snoozeAlarm:
      state.report(
        "No alarm to snooze: \(environment.keyMap.keys(for: .snoozeAlarm)) snoozes one the status line shows"
      )
    case .commandLine:
      state.mode = .command(TextField())
    case .help:
      state.mode = .help
      state.helpScroll = 0
    case .quit:
      return quit(&state)
    }
    return []
  }

  /// The selected appointment, or a message saying there is none to act on.
  private static func selected(_ state: inout State, for verb: String) -> Appointment? {
    guard let appointment = state.selectedAppointment else {
      state.report("Nothing selected to \(verb)", isError: true)
      return nil
    }
    return appointment
  }

  private static func handleConfirmation(_ key: Key, _ confirmation: State.Confirmation, state: inout State) -> [Effect]
  {
    state.mode = .browsing
    if key == .control("c") { return quit(&state) }
    let confirmed = key == .character("y") || key == .character("Y")
    switch confirmation {
    case .cancel(let appointment):
      guard confirmed else {
        state.report("Kept \"\(appointment.title)\"")
        return []
      }
      state.report("Cancelling \"\(appointment.title)\"…")
      return [.cancelAppointment(appointment)]
    case .delete(let appointment):
      guard confirmed else {
        state.report("Kept \"\(appointment.title)\"")
        return []
      }
      state.report("Deleting \"\(appointment.title)\"…")
      return [.deleteAppointment(appointment)]
    }
  }

  /// The answer to "which occurrences?": `o` this one, `f` this and the following, `s` the
  /// whole series; esc (or any other key) asks nothing more and changes nothing.
  private static func handleScope(
    _ key: Key,
    _ question: State.ScopeQuestion,
    state: inout State,
    environment: Environment
  ) -> [Effect] {
    state.mode = .browsing
    if key == .control("c") { return quit(&state) }
    let occurrence = question.occurrence
    let scope: Form.Scope
    switch key {
    case .character("o"): scope = .occurrence
    case .character("f"): scope = .andFollowing
    case .character("s"): scope = .series
    default:
      state.report(question.purpose == .edit ? "Nothing edited" : "Kept \"\(occurrence.title)\"")
      return []
    }
    switch question.purpose {
    case .edit:
      state.mode = .form(
        Form(
          editing: occurrence,
          formatter: environment.formatter,
          scope: scope,
          calendars: state.formCalendars,
          calendar: state.calendar(of: occurrence)?.name
        )
      )
      return []
    case .cancel:
      let day = occurrence.occurrence.map(environment.clock.startOfDay)
      let what = ["this occurrence of ", "this and the following occurrences of ", "the whole series "]
      state.report(
        "Cancelling \(what[scope == .occurrence ? 0 : scope == .andFollowing ? 1 : 2])\"\(occurrence.title)\"…"
      )
      return [
        .cancelAppointment(occurrence, occurrence: scope == .series ? nil : day, andFollowing: scope == .andFollowing)
      ]
    }
  }

  /// A key in the form; `isOpen` becomes false when the form closes.
  private static func handleFormKey(
    _ key: Key,
    form: inout Form,
    isOpen: inout Bool,
    state: inout State,
    environment: Environment
  ) -> [Effect] {
    if key == .control("c") { return quit(&state) }
    guard !form.isSaving else { return [] }
    // Too small to be seen, the form takes no key but Esc (nothing is typed blind).
    if !FormView.fits(form, on: state.size), key != .escape { return [] }
    switch key {
    case .escape:
      isOpen = false
      state.report(form.editing == nil ? "Discarded the new appointment" : "Discarded the changes")
    case .tab, .down:
      form.focusNext()
    case .backTab, .up:
      form.focusPrevious()
    case .enter:
      state.status = nil
      guard let values = form.check(clock: environment.clock, requireAll: true) else { return [] }
      form.isSaving = true
      guard let old = form.editing else {
        var request = AddRequest(
          title: values.title,
          start: values.start,
          end: values.end,
          note: values.note,
          location: values.location
        )
        request.calendar = values.calendar
        // None is nil, as for `add` without `--remind` once its default is resolved.
        request.alarms = values.alarms.flatMap { $0.isEmpty ? nil : $0 }
        return [.addAppointment(request)]
      }
      // An occurrence: the day names it, unless the whole series is edited (the runtime then
      // moves the series' start by as much as this occurrence's moved).
      let day = form.scope == .series ? nil : old.occurrence.map(environment.clock.startOfDay)
      var request = EditRequest(
        id: old.id.description,
        title: values.title,
        start: values.start,
        duration: values.end.timeIntervalSince(values.start),
        note: values.note,
        location: values.location,
        occurrence: day,
        andFollowing: day != nil && form.scope == .andFollowing,
        ifRevision: old.revision
      )
      // A changed Calendar moves it (the whole series; the store refuses one occurrence).
      if let calendar = values.calendar, calendar != state.calendar(of: old)?.name { request.calendar = calendar }
      request.alarms = values.alarms
      return [.editAppointment(old: old, request: request)]
    default:
      if form.apply(key) { _ = form.check(clock: environment.clock, requireAll: false) }
    }
    return []
  }

  private static func handleSearchKey(_ key: Key, field: inout TextField, state: inout State) -> [Effect] {
    switch key {
    case .control("c"):
      return quit(&state)
    case .escape:
      state.mode = .browsing
      state.filter = ""
      state.clampSelection(previousIndex: nil)
    case .enter:
      state.mode = .browsing
      if !state.filter.isEmpty { state.report("Filter \"\(state.filter)\" (esc clears)") }
    case .tab:
      // Every day, not only this one: the day's filter goes, a list of results comes.
      let text = field.trimmedText
      guard !text.isEmpty else {
        state.mode = .search(field)
        return []
      }
      state.mode = .browsing
      state.filter = ""
      state.clampSelection(previousIndex: nil)
      state.report("Searching every day for \"\(text)\"…")
      return [.searchAllDays(text)]
    default:
      guard field.apply(key) else { return [] }
      state.mode = .search(field)
      state.filter = field.text
      state.clampSelection(previousIndex: nil)
    }
    return []
  }

  private static func handleCommandKey(_ key: Key, field: inout TextField, state: inout State) -> [Effect] {
    switch key {
    case .control("c"):
      return quit(&state)
    case .escape:
      break  // closed: the mode is already .browsing
    case .enter:
      let line = field.text.trimmingCharacters(in: .whitespaces)
      guard !line.isEmpty else { return [] }
      state.report("Running \(line)…")
      return [.runCommand(line)]
    default:
      _ = field.apply(key)  // a paste is one edit, its line breaks spaces: it never runs
      state.mode = .command(field)
    }
    return []
  }
}
