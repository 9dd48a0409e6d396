import ApptCore
import Foundation

/// Everything the calendar shows, in one value with exactly one writer (the runtime's loop).
public struct State: Equatable, Sendable {
  public enum Mode: Equatable, Sendable {
    case browsing
    /// The add form is open.
    case form(Form)
    /// Waiting for y/n before cancelling this appointment.
    case confirmCancel(Appointment)
  }

  public struct StatusMessage: Equatable, Sendable {
    public var text: String
    public var isError: Bool
  }

  public var size: Screen.Size
  /// Local midnight of the day on screen.
  public var selectedDay: Date
  /// The day's appointments as of the last snapshot, in display order.
  public var appointments: [Appointment] = []
  /// False until the first snapshot of the selected day arrives.
  public var isLoaded = false
  public var selectedID: AppointmentID?
  public var mode: Mode = .browsing
  public var status: StatusMessage?
  public var isQuitting = false
  /// Keys typed while the selected day was still loading, replayed when its snapshot comes:
  /// `l j` typed in one go must move in the new day's list, not in the empty one between.
  public var typeahead: [Key] = []

  public init(size: Screen.Size, selectedDay: Date) {
    self.size = size
    self.selectedDay = selectedDay
  }

  /// The index of the selected appointment in `appointments`, if any.
  public var selectedIndex: Int? {
    guard let selectedID else { return nil }
    return appointments.firstIndex { $0.id == selectedID }
  }

  public var selectedAppointment: Appointment? { selectedIndex.map { appointments[$0] } }

  // MARK: - Helpers shared by update (mutations, not extra messages)

  /// Shows `day` and asks the runtime to observe it; the list empties until its snapshot comes.
  mutating func selectDay(_ day: Date) -> [Effect] {
    guard day != selectedDay else { return [] }
    selectedDay = day
    appointments = []
    isLoaded = false
    selectedID = nil
    return [.observeDay(day)]
  }

  /// Moves the selection by `offset`, stopping at the ends.
  mutating func moveSelection(by offset: Int) {
    guard !appointments.isEmpty else { return }
    let current = selectedIndex ?? (offset > 0 ? -1 : appointments.count)
    let next = min(max(current + offset, 0), appointments.count - 1)
    selectedID = appointments[next].id
  }

  /// Replaces the list with a snapshot's, keeping the selection on the same appointment, or on
  /// the same row when that appointment left the window.
  mutating func applySnapshot(_ items: [Appointment]) {
    let previousIndex = selectedIndex
    appointments = items
    isLoaded = true
    if selectedIndex != nil { return }
    guard !items.isEmpty else {
      selectedID = nil
      return
    }
    selectedID = items[min(previousIndex ?? 0, items.count - 1)].id
  }

  mutating func report(_ text: String, isError: Bool = false) {
    status = StatusMessage(text: text, isError: isError)
  }
}

/// Facts the loop hears about, in the order it hears them.
public enum Message: Sendable, Equatable {
  case keyPressed(Key)
  /// A snapshot of the observed window of `day` from the DAO's stream.
  case snapshotArrived(day: Date, appointments: [Appointment])
  case terminalResized(Screen.Size)
  case appointmentAdded(Appointment)
  case appointmentCancelled(Appointment)
  /// A store operation failed; the text says what and why.
  case storeFailed(String)
  /// The terminal was interrupted (SIGINT, SIGTERM, SIGHUP) or hung up.
  case interrupted
}

/// Side effects `update` asks the runtime to carry out; results come back as messages.
public enum Effect: Equatable, Sendable {
  /// Observe the appointments of the day starting at this local midnight (replacing the
  /// current observation).
  case observeDay(Date)
  case addAppointment(AddRequest)
  case cancelAppointment(AppointmentID)
  case quit
}

/// What `update` and the views need from the outside world: time and formatting.
public struct Environment: Sendable {
  public var clock: Clock
  public var keyMap: KeyMap
  public var formatter: AppointmentFormatter

  public init(clock: Clock, keyMap: KeyMap = .standard) {
    self.clock = clock
    self.keyMap = keyMap
    self.formatter = AppointmentFormatter(clock: clock)
  }
}
