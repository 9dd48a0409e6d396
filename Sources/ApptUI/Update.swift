import ApptCore
import Foundation

/// The whole behaviour of the calendar: a pure function from a state and a message to the
/// next state and the effects to carry out. No awaiting, no I/O, no terminal.
public enum UI {
  /// The first state and the effects that start the app (observe today).
  public static func start(size: Screen.Size, environment: Environment) -> (State, [Effect]) {
    let today = environment.clock.today
    return (State(size: size, selectedDay: today), [.observeDay(today)])
  }

  public static func update(_ state: inout State, _ message: Message, environment: Environment) -> [Effect] {
    switch message {
    case .keyPressed(let key):
      return handleKey(key, state: &state, environment: environment)

    case .snapshotArrived(let day, let appointments):
      guard day == state.selectedDay else { return [] }  // a late snapshot of a day we left
      state.applySnapshot(appointments)
      let typed = state.typeahead
      state.typeahead = []
      return typed.flatMap { handleKey($0, state: &state, environment: environment) }

    case .terminalResized(let size):
      state.size = size
      return []

    case .appointmentAdded(let appointment):
      state.mode = .browsing
      state.report("Added \"\(appointment.title)\" (\(appointment.id.short))")
      // Show the day of the new appointment with it selected, whichever of this message and
      // the snapshot that contains it arrives first.
      let effects = state.selectDay(environment.clock.startOfDay(appointment.start))
      state.selectedID = appointment.id
      return effects

    case .appointmentCancelled(let appointment):
      state.report("Cancelled \"\(appointment.title)\"")
      return []

    case .interrupted:
      state.isQuitting = true
      return [.quit]

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

  // MARK: - Keys

  private static func handleKey(_ key: Key, state: inout State, environment: Environment) -> [Effect] {
    switch state.mode {
    case .browsing:
      return handleBrowsingKey(key, state: &state, environment: environment)
    case .form(var form):
      let effects = handleFormKey(key, form: &form, state: &state, environment: environment)
      if case .form = state.mode { state.mode = .form(form) }
      return effects
    case .confirmCancel(let appointment):
      state.mode = .browsing
      if key == .character("y") || key == .character("Y") {
        state.report("Cancelling \"\(appointment.title)\"…")
        return [.cancelAppointment(appointment.id)]
      }
      state.report("Kept \"\(appointment.title)\"")
      return []
    }
  }

  private static func handleBrowsingKey(_ key: Key, state: inout State, environment: Environment) -> [Effect] {
    guard let action = environment.keyMap.action(for: key) else { return [] }
    if !state.isLoaded, action != .quit {
      state.typeahead.append(key)
      return []
    }
    state.status = nil
    let clock = environment.clock
    switch action {
    case .nextAppointment: state.moveSelection(by: 1)
    case .previousAppointment: state.moveSelection(by: -1)
    case .nextDay: return state.selectDay(clock.day(1, after: state.selectedDay))
    case .previousDay: return state.selectDay(clock.day(-1, after: state.selectedDay))
    case .nextWeek: return state.selectDay(clock.day(7, after: state.selectedDay))
    case .previousWeek: return state.selectDay(clock.day(-7, after: state.selectedDay))
    case .today: return state.selectDay(clock.today)
    case .addAppointment:
      state.mode = .form(Form(day: state.selectedDay, formatter: environment.formatter))
    case .cancelAppointment:
      guard let appointment = state.selectedAppointment else {
        state.report("Nothing selected to cancel", isError: true)
        return []
      }
      guard !appointment.isCancelled else {
        state.report("\"\(appointment.title)\" is already cancelled")
        return []
      }
      state.mode = .confirmCancel(appointment)
    case .quit:
      state.isQuitting = true
      return [.quit]
    }
    return []
  }

  private static func handleFormKey(
    _ key: Key,
    form: inout Form,
    state: inout State,
    environment: Environment
  ) -> [Effect] {
    if key == .control("c") {
      state.isQuitting = true
      return [.quit]
    }
    guard !form.isSaving else { return [] }
    switch key {
    case .escape:
      state.mode = .browsing
      state.report("Discarded the new appointment")
    case .tab, .down:
      form.focusNext()
    case .backTab, .up:
      form.focusPrevious()
    case .enter:
      state.status = nil
      guard let request = form.validate(clock: environment.clock) else { return [] }
      form.isSaving = true
      return [.addAppointment(request)]
    default:
      var field = form[form.focus]
      if field.apply(key) {
        form[form.focus] = field
        form.errors[form.focus] = nil
      }
    }
    return []
  }
}
