// ApptUI: the UI model. State, messages, `update` and the views are plain values and pure
// functions: no ncurses, no SQL, no awaiting. The runtime feeds messages in and carries out
// the effects `update` returns; tests compare states and screens as values.

/// A key press, independent of the terminal that read it. `description` is its one canonical
/// spelling (`ctrl+u`, `enter`, `pgdown`), used by the key map, the help and the README.
public enum Key: Hashable, Sendable, CustomStringConvertible {
  case character(Character)
  /// Ctrl plus a letter, as the lower-case letter (`ctrl+u` is `.control("u")`).
  case control(Character)
  case up, down, left, right
  case pageUp, pageDown, home, end
  case enter, escape, tab, backTab, backspace, delete

  public var description: String {
    switch self {
    case .character(" "): "space"
    case .character(let c): String(c)
    case .control(let c): "ctrl+\(c)"
    case .up: "up"
    case .down: "down"
    case .left: "left"
    case .right: "right"
    case .pageUp: "pgup"
    case .pageDown: "pgdown"
    case .home: "home"
    case .end: "end"
    case .enter: "enter"
    case .escape: "esc"
    case .tab: "tab"
    case .backTab: "shift+tab"
    case .backspace: "backspace"
    case .delete: "delete"
    }
  }
}

extension Key {
  /// The key with this canonical spelling (`"j"`, `"ctrl+u"`, `"pgdown"`, `"space"`).
  public init?(spelling: String) {
    let named: [String: Key] = [
      "up": .up, "down": .down, "left": .left, "right": .right, "pgup": .pageUp, "pgdown": .pageDown,
      "home": .home, "end": .end, "enter": .enter, "esc": .escape, "tab": .tab, "shift+tab": .backTab,
      "backspace": .backspace, "delete": .delete, "space": .character(" "),
    ]
    if let key = named[spelling] {
      self = key
    } else if spelling.hasPrefix("ctrl+"), spelling.count == 6, let letter = spelling.last {
      self = .control(letter)
    } else if spelling.count == 1, let character = spelling.first {
      self = .character(character)
    } else {
      return nil
    }
  }
}

/// What a user can ask the calendar to do, whatever key they used.
public enum Action: String, Hashable, Sendable, CaseIterable {
  case nextAppointment, previousAppointment
  case nextDay, previousDay, nextWeek, previousWeek, today
  case addAppointment, cancelAppointment
  case quit

  /// The words the help and the status line use.
  public var summary: String {
    switch self {
    case .nextAppointment: "next appointment"
    case .previousAppointment: "previous appointment"
    case .nextDay: "next day"
    case .previousDay: "previous day"
    case .nextWeek: "next week"
    case .previousWeek: "previous week"
    case .today: "go to today"
    case .addAppointment: "add an appointment"
    case .cancelAppointment: "cancel the selected appointment (asks y/n)"
    case .quit: "quit"
    }
  }
}

/// The one table from keys to actions in the calendar view. The help, the README's key table
/// and the tests all read it, so a binding is defined in exactly one place.
public struct KeyMap: Sendable {
  public struct Binding: Sendable, Equatable {
    public let keys: [Key]
    public let action: Action
  }

  public let bindings: [Binding]

  public static let standard = KeyMap(bindings: [
    Binding(keys: [.character("j"), .down], action: .nextAppointment),
    Binding(keys: [.character("k"), .up], action: .previousAppointment),
    Binding(keys: [.character("l"), .right], action: .nextDay),
    Binding(keys: [.character("h"), .left], action: .previousDay),
    Binding(keys: [.pageDown], action: .nextWeek),
    Binding(keys: [.pageUp], action: .previousWeek),
    Binding(keys: [.character("t")], action: .today),
    Binding(keys: [.character("a")], action: .addAppointment),
    Binding(keys: [.character("c")], action: .cancelAppointment),
    Binding(keys: [.character("q"), .control("c")], action: .quit),
  ])

  public func action(for key: Key) -> Action? {
    bindings.first { $0.keys.contains(key) }?.action
  }

  /// The keys bound to `action`, canonically spelled ("j/down").
  public func keys(for action: Action) -> String {
    bindings.first { $0.action == action }?.keys.map(\.description).joined(separator: "/") ?? ""
  }
}
