// ApptUI: the UI model. State, messages, `update` and the views are plain values and pure
// functions: no ncurses, no SQL, no awaiting. The runtime feeds messages in and carries out
// the effects `update` returns; tests compare states and screens as values.

import ApptCore

/// A key press, independent of the terminal that read it. `description` is its one canonical
/// spelling (`ctrl+u`, `enter`, `pgdown`), used by the key map, the help and the README.
public enum Key: Hashable, Sendable, CustomStringConvertible {
  case character(Character)
  /// Ctrl plus a letter, as the lower-case letter (`ctrl+u` is `.control("u")`).
  case control(Character)
  case up, down, left, right
  case pageUp, pageDown, home, end
  case enter, escape, tab, backTab, backspace, delete
  /// Text pasted in one go (bracketed paste): one edit in a field, never a series of commands.
  case paste(String)

  public var description: String {
    switch self {
    case .paste: "paste"
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
  /// The named keys' spellings (the others are a character as typed, or `ctrl+LETTER`).
  public static let namedSpellings = [
    "up", "down", "left", "right", "pgup", "pgdown", "home", "end", "enter", "esc", "tab", "shift+tab", "backspace",
    "delete", "space",
  ]

  /// True when `spelling` is a key's one canonical spelling (`ctrl+u`, not `ctrl+U`).
  public static func isCanonical(_ spelling: String) -> Bool {
    guard let key = Key(spelling: spelling) else { return false }
    if case .control(let letter) = key, !(letter.isASCII && letter.isLowercase) { return false }
    return key.description == spelling
  }

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
  case nextAppointment, previousAppointment, firstAppointment, lastAppointment
  case nextDay, previousDay, nextWeek, previousWeek, today
  case addAppointment, editAppointment, cancelAppointment, restoreAppointment, deleteAppointment
  case undo, search, toggleCancelled, calendars, weekView, agendaView, snoozeAlarm, commandLine, help, quit

  /// The name `[keys]` in the settings file uses: `next_appointment`.
  public var settingsName: String {
    rawValue.reduce(into: "") { name, character in
      if character.isUppercase { name += "_" + character.lowercased() } else { name.append(character) }
    }
  }

  /// The words the help overlay, the README and the man page use.
  public var summary: String {
    switch self {
    case .nextAppointment: "next appointment"
    case .previousAppointment: "previous appointment"
    case .firstAppointment: "first appointment of the day"
    case .lastAppointment: "last appointment of the day"
    case .nextDay: "next day"
    case .previousDay: "previous day"
    case .nextWeek: "next week"
    case .previousWeek: "previous week"
    case .today: "go to today"
    case .addAppointment: "add an appointment"
    case .editAppointment: "edit the selected appointment (an occurrence: asks o/f/s)"
    case .cancelAppointment: "cancel the selected appointment (asks y/n; an occurrence: o/f/s)"
    case .restoreAppointment: "restore the selected cancelled appointment"
    case .deleteAppointment: "delete the selected appointment for good (asks y/n)"
    case .undo: "undo the last add, edit, cancel, restore or delete"
    case .search: "filter the day as you type (enter keeps, esc clears)"
    case .toggleCancelled: "show or hide cancelled appointments"
    case .calendars: "the calendars: j/k choose, space shows or hides one, esc closes"
    case .weekView: "week view: seven days on a time grid (again: the day view)"
    case .agendaView: "agenda view: the next 14 days as one list (again: the day view)"
    case .snoozeAlarm: "snooze the due alarm 5 minutes (any other key dismisses it)"
    case .commandLine: "run a command (the script grammar)"
    case .help: "show this help"
    case .quit: "quit"
    }
  }
}

/// The one table from keys to actions in the calendar view. The help overlay, the README's
/// key table and the tests all read it, so a binding is defined in exactly one place.
public struct KeyMap: Sendable, Equatable {
  public struct Binding: Sendable, Equatable {
    public let keys: [Key]
    public let action: Action
  }

  public let bindings: [Binding]

  public static let standard = KeyMap(bindings: [
    Binding(keys: [.character("j"), .down], action: .nextAppointment),
    Binding(keys: [.character("k"), .up], action: .previousAppointment),
    Binding(keys: [.character("g"), .home], action: .firstAppointment),
    Binding(keys: [.character("G"), .end], action: .lastAppointment),
    Binding(keys: [.character("l"), .right], action: .nextDay),
    Binding(keys: [.character("h"), .left], action: .previousDay),
    Binding(keys: [.pageDown], action: .nextWeek),
    Binding(keys: [.pageUp], action: .previousWeek),
    Binding(keys: [.character("t")], action: .today),
    Binding(keys: [.character("a")], action: .addAppointment),
    Binding(keys: [.character("e"), .enter], action: .editAppointment),
    Binding(keys: [.character("c")], action: .cancelAppointment),
    Binding(keys: [.character("r")], action: .restoreAppointment),
    Binding(keys: [.character("D")], action: .deleteAppointment),
    Binding(keys: [.character("u")], action: .undo),
    Binding(keys: [.character("/")], action: .search),
    Binding(keys: [.character("v")], action: .toggleCancelled),
    Binding(keys: [.character("C")], action: .calendars),
    Binding(keys: [.character("w")], action: .weekView),
    Binding(keys: [.character("A")], action: .agendaView),
    Binding(keys: [.character("z")], action: .snoozeAlarm),
    Binding(keys: [.character(":")], action: .commandLine),
    Binding(keys: [.character("?")], action: .help),
    Binding(keys: [.character("q"), .control("c")], action: .quit),
  ])

  /// What `[keys]` may name and how keys are spelled: this map's actions and keys.
  public var vocabulary: KeyVocabulary {
    KeyVocabulary(
      actions: bindings.map {
        KeyVocabulary.ActionKeys(name: $0.action.settingsName, keys: $0.keys.map(\.description))
      },
      namedKeys: Key.namedSpellings,
      isKey: Key.isCanonical
    )
  }

  /// This map with the settings' keys: an action the settings file remaps has those keys
  /// instead of its own (the parser has checked that no key is on two actions).
  public func applying(_ keys: [Settings.KeyBinding]) -> KeyMap {
    let remaps = Dictionary(keys.map { ($0.action, $0.keys) }, uniquingKeysWith: { first, _ in first })
    return KeyMap(
      bindings: bindings.map { binding in
        guard let setting = remaps[binding.action.settingsName], setting.origin != .standard else { return binding }
        return Binding(keys: setting.value.compactMap(Key.init(spelling:)), action: binding.action)
      }
    )
  }

  public func action(for key: Key) -> Action? {
    bindings.first { $0.keys.contains(key) }?.action
  }

  /// The keys bound to `action`, canonically spelled ("j/down").
  public func keys(for action: Action) -> String {
    bindings.first { $0.action == action }?.keys.map(\.description).joined(separator: "/") ?? ""
  }
}
