import Foundation

/// What the settings file says (the man page, SETTINGS), each value with where it
/// came from: the default, or a line of the file. `SettingsParser` makes one from the file's
/// text; `Settings()` is every default (no file is needed).
///
/// Only values are kept here; the layers that act on them read them: the command parser
/// (default duration, week start), the formatter (12-hour times), the calendar (key map,
/// month panel) and the terminal (colours). Accounts and reminders are parsed and checked
/// for the sync and the reminder daemon.
public struct Settings: Sendable, Equatable {
  public var ui = UI()
  /// The calendar's key bindings, one per action of the key map in its order, each with its
  /// keys (canonical spellings) and where they came from; empty when parsed without a key
  /// vocabulary (the standard key map then applies).
  public var keys: [KeyBinding] = []
  /// The colours the file sets, by element; the theme gives the others.
  public var colors: [ColorElement: Setting<ColorPair>] = [:]
  public var accounts: [AccountSettings] = []
  public var reminders = ReminderSettings()
  public var mail = MailSettings()
  /// `[calendar NAME]` sections, in the file's order: settings of one calendar.
  public var calendars: [CalendarSettings] = []
  /// The file these settings were read from, or would have been (nil: parsed from text).
  public var source: SettingsSource?

  public init() {}

  /// The values of `[ui]`.
  public struct UI: Sendable, Equatable {
    public var weekStart = Setting(Recurrence.Weekday.monday)
    public var timeFormat = Setting(TimeFormat.hours24)
    public var dateFormat = Setting(DateTemplate.standardDay)
    /// Seconds; the DURATION grammar's default, 1h.
    public var defaultDuration = Setting(TimeInterval(3600))
    public var defaultCalendar = Setting("personal")
    public var theme = Setting(Theme.standard)
    public var mouse = Setting(true)

    public init() {}
  }

  /// The keys of one action of the calendar's key map.
  public struct KeyBinding: Sendable, Equatable {
    /// The action's settings name (`next_appointment`).
    public var action: String
    public var keys: Setting<[String]>

    public init(action: String, keys: Setting<[String]>) {
      self.action = action
      self.keys = keys
    }
  }

  /// The week starts of `[ui] week_start`.
  public static let weekStarts: [Recurrence.Weekday] = [.monday, .sunday, .saturday]

  /// The reminders (seconds before the start) a new appointment in `calendar` gets: the
  /// calendar's `default_remind` (`[calendar NAME]`, its name compared ignoring case, as
  /// calendar names are), else `[reminders] default_remind`.
  public func defaultAlarms(calendar: String) -> [TimeInterval] {
    let name = calendar.lowercased()
    if let own = calendars.first(where: { $0.name.lowercased() == name })?.defaultRemind { return own.value }
    return reminders.defaultRemind.value
  }

  /// The colours of `element`: the file's, else the theme's (nil: no colour, the terminal
  /// shows the element with attributes only, as without colour).
  public func color(for element: ColorElement) -> Setting<ColorPair>? {
    if let set = colors[element] { return set }
    return ui.theme.value.pair(for: element).map { Setting($0) }
  }
}

/// Where a value came from.
public enum SettingOrigin: Sendable, Equatable, CustomStringConvertible {
  /// Nothing set it: the default.
  case standard
  /// The settings file at `path`, on line `line` (1-based).
  case file(path: String, line: Int)

  /// `default`, or `PATH:LINE`.
  public var description: String {
    switch self {
    case .standard: "default"
    case .file(let path, let line): "\(path):\(line)"
    }
  }
}

/// A value and where it came from. `Equatable` where the value is, not required of it: a
/// generic requirement is checked each time the runtime makes a `Setting` type, by a search
/// of every conformance in the binary (0.1 ms of every command for `Setting<Weekday>`).
public struct Setting<Value: Sendable>: Sendable {
  public var value: Value
  public var origin: SettingOrigin

  public init(_ value: Value, origin: SettingOrigin = .standard) {
    self.value = value
    self.origin = origin
  }

  /// The value when the settings file set it; nil when it is the default.
  public var configured: Value? { origin == .standard ? nil : value }
}

extension Setting: Equatable where Value: Equatable {}

/// The settings file appt reads, and why that one.
public struct SettingsSource: Sendable, Equatable {
  public enum ChosenBy: String, Sendable, Equatable {
    /// `--config FILE`.
    case option = "--config"
    /// `APPT_CONFIG`.
    case environment = "APPT_CONFIG"
    /// `$XDG_CONFIG_HOME/appt/config`, else `~/.config/appt/config`.
    case standard = "default"
  }

  public var path: String
  public var chosenBy: ChosenBy
  /// False when the default file does not exist (defaults serve); a file chosen by
  /// `--config` or `APPT_CONFIG` must exist.
  public var exists: Bool

  public init(path: String, chosenBy: ChosenBy, exists: Bool = true) {
    self.path = path
    self.chosenBy = chosenBy
    self.exists = exists
  }

  /// The file to read: `--config FILE`, else `APPT_CONFIG`, else
  /// `$XDG_CONFIG_HOME/appt/config` (an absolute XDG_CONFIG_HOME only, as the XDG base
  /// directory rule says), else `$HOME/.config/appt/config`.
  public static func locate(option: String?, environment: [String: String]) -> SettingsSource {
    if let option { return SettingsSource(path: option, chosenBy: .option) }
    if let named = environment["APPT_CONFIG"], !named.isEmpty {
      return SettingsSource(path: named, chosenBy: .environment)
    }
    let base: String
    if let config = environment["XDG_CONFIG_HOME"], config.hasPrefix("/") {
      base = config
    } else {
      let home = environment["HOME"].flatMap { $0.isEmpty ? nil : $0 } ?? NSHomeDirectory()
      base = (home.hasSuffix("/") ? String(home.dropLast()) : home) + "/.config"
    }
    return SettingsSource(
      path: (base.hasSuffix("/") ? String(base.dropLast()) : base) + "/appt/config",
      chosenBy: .standard
    )
  }

  /// Whether the file must exist: a file the user named.
  public var isRequired: Bool { chosenBy != .standard }
}

// MARK: - Values

/// `[ui] time_format`: how times of day are shown in the calendar and in text output (JSON
/// keeps ISO 8601).
public enum TimeFormat: String, Sendable, Equatable, CaseIterable {
  case hours24 = "24h"
  case hours12 = "12h"
}

/// `[ui] theme`: the colours the calendar starts from; `[colors]` changes single elements.
public enum Theme: String, Sendable, Equatable, CaseIterable {
  /// For dark and default terminal backgrounds (the colours appt always had).
  case standard = "default"
  /// For light backgrounds: blue instead of cyan, magenta instead of yellow.
  case light
  /// No colour: bold, reverse and underline only, as with NO_COLOR.
  case mono

  /// The colours of `element` in this theme; nil for none.
  public func pair(for element: ColorElement) -> ColorPair? {
    switch (self, element) {
    case (.mono, _), (_, .field): nil
    case (_, .header): ColorPair(.white, on: .blue)
    case (_, .status): ColorPair(.black, on: .cyan)
    case (_, .selected): ColorPair(.black, on: .yellow)
    case (_, .error): ColorPair(.white, on: .red)
    case (.light, .accent): ColorPair(.blue)
    case (_, .accent): ColorPair(.cyan)
    case (.light, .focusedField): ColorPair(.white, on: .black)
    case (_, .focusedField): ColorPair(.black, on: .white)
    case (_, .today): ColorPair(.black, on: .green)
    case (.light, .marked): ColorPair(.magenta)
    case (_, .marked): ColorPair(.yellow)
    }
  }
}

/// The parts of the calendar `[colors]` can colour.
public enum ColorElement: String, Sendable, Equatable, Hashable, CaseIterable {
  /// The top line.
  case header
  /// The bottom line: key hints and messages.
  case status
  /// The selected appointment, and the selected day in the month panel.
  case selected
  /// Error messages on the status line.
  case error
  /// Titles, the "now" line, questions.
  case accent
  /// A form's fields (underlined).
  case field
  /// The form field being typed into.
  case focusedField = "focused_field"
  /// Today in the month panel.
  case today
  /// Days with appointments in the month panel.
  case marked
}

/// A colour of `[colors]`: one of the 8 curses colours, `#rrggbb`, or the terminal's own.
public enum SettingsColor: Sendable, Equatable, Hashable, CustomStringConvertible {
  case terminalDefault
  case named(NamedColor)
  case rgb(red: UInt8, green: UInt8, blue: UInt8)

  public static let black = SettingsColor.named(.black)
  public static let red = SettingsColor.named(.red)
  public static let green = SettingsColor.named(.green)
  public static let yellow = SettingsColor.named(.yellow)
  public static let blue = SettingsColor.named(.blue)
  public static let magenta = SettingsColor.named(.magenta)
  public static let cyan = SettingsColor.named(.cyan)
  public static let white = SettingsColor.named(.white)

  /// The 8 curses colours, numbered as curses numbers them (COLOR_BLACK = 0 ... COLOR_WHITE = 7).
  public enum NamedColor: Int, Sendable, CaseIterable {
    case black, red, green, yellow, blue, magenta, cyan, white

    public var name: String { String(describing: self) }

    /// xterm's default RGB for the colour, to find the nearest one to a `#rrggbb`.
    var rgb: (Int, Int, Int) {
      switch self {
      case .black: (0, 0, 0)
      case .red: (205, 0, 0)
      case .green: (0, 205, 0)
      case .yellow: (205, 205, 0)
      case .blue: (0, 0, 238)
      case .magenta: (205, 0, 205)
      case .cyan: (0, 205, 205)
      case .white: (229, 229, 229)
      }
    }
  }

  /// `red`, `#1e90ff`, `default`: as written in the file.
  public var description: String {
    switch self {
    case .terminalDefault: return "default"
    case .named(let color): return color.name
    case .rgb(let r, let g, let b):
      return "#"
        + [r, g, b].map {
          let hex = String($0, radix: 16); return hex.count == 1 ? "0" + hex : hex
        }.joined()
    }
  }

  /// `red`, `Red`, `#1E90FF`, `default`; nil for anything else.
  public init?(parsing text: String) {
    let word = text.lowercased()
    if word == "default" {
      self = .terminalDefault
    } else if let named = NamedColor.allCases.first(where: { $0.name == word }) {
      self = .named(named)
    } else if word.hasPrefix("#"), word.count == 7, let value = UInt32(word.dropFirst(), radix: 16),
      word.dropFirst().allSatisfy(\.isHexDigit)
    {
      self = .rgb(red: UInt8(value >> 16), green: UInt8(value >> 8 & 0xFF), blue: UInt8(value & 0xFF))
    } else {
      return nil
    }
  }

  /// The curses colour number on a terminal with `colors` colours: -1 for the terminal's
  /// own; a `#rrggbb` becomes the nearest of xterm's 256 colours where the terminal has them,
  /// else the nearest of the 8.
  public func number(terminalColors colors: Int) -> Int {
    switch self {
    case .terminalDefault: return -1
    case .named(let color): return color.rawValue
    case .rgb(let r, let g, let b):
      return colors >= 256 ? Self.xterm256(Int(r), Int(g), Int(b)) : nearestNamed.rawValue
    }
  }

  /// The nearest of the 8 colours (for a named one, itself).
  public var nearestNamed: NamedColor {
    switch self {
    case .terminalDefault: return .white
    case .named(let color): return color
    case .rgb(let r, let g, let b):
      return NamedColor.allCases.min { a, b2 in
        Self.distance(a.rgb, (Int(r), Int(g), Int(b))) < Self.distance(b2.rgb, (Int(r), Int(g), Int(b)))
      } ?? .white
    }
  }

  private static func distance(_ a: (Int, Int, Int), _ b: (Int, Int, Int)) -> Int {
    (a.0 - b.0) * (a.0 - b.0) + (a.1 - b.1) * (a.1 - b.1) + (a.2 - b.2) * (a.2 - b.2)
  }

  /// The nearest colour of xterm's 6x6x6 cube (16...231) or grey ramp (232...255).
  static func xterm256(_ r: Int, _ g: Int, _ b: Int) -> Int {
    let levels = [0, 95, 135, 175, 215, 255]
    func nearestLevel(_ value: Int) -> Int {
      levels.indices.min { abs(levels[$0] - value) < abs(levels[$1] - value) } ?? 0
    }
    let (ri, gi, bi) = (nearestLevel(r), nearestLevel(g), nearestLevel(b))
    let cube = (levels[ri], levels[gi], levels[bi])
    let greyIndex = min(23, max(0, ((r + g + b) / 3 - 8 + 5) / 10))
    let greyLevel = 8 + 10 * greyIndex
    let grey = (greyLevel, greyLevel, greyLevel)
    if distance(grey, (r, g, b)) < distance(cube, (r, g, b)) { return 232 + greyIndex }
    return 16 + 36 * ri + 6 * gi + bi
  }
}

/// A foreground and a background colour (`black on yellow`; `cyan` alone keeps the
/// terminal's background).
public struct ColorPair: Sendable, Equatable, Hashable, CustomStringConvertible {
  public var foreground: SettingsColor
  public var background: SettingsColor

  public init(_ foreground: SettingsColor, on background: SettingsColor = .terminalDefault) {
    self.foreground = foreground
    self.background = background
  }

  public var description: String {
    background == .terminalDefault ? foreground.description : "\(foreground) on \(background)"
  }
}

/// `[account NAME]`: a CalDAV account (the sync reads it; appt only checks it).
public struct AccountSettings: Sendable, Equatable {
  public var name: String
  public var url: Setting<String>
  public var username: Setting<String>
  /// A command whose first line of output is the password; or `passwordEnv`, never both.
  public var passwordCommand: Setting<String>?
  /// The name of an environment variable holding the password.
  public var passwordEnv: Setting<String>?
  /// A file of CA certificates to verify the server with (a private CA).
  public var caFile: Setting<String>?
  /// Seconds between background syncs (default 5m).
  public var syncInterval: Setting<TimeInterval>
  /// Seconds one request to the server may take (default 30 s; `timeout = 30`, `30s`, `2m`).
  public var timeout: Setting<TimeInterval>
  /// The line of the `[account NAME]` header.
  public var line: Int

  public init(
    name: String,
    url: Setting<String>,
    username: Setting<String>,
    passwordCommand: Setting<String>? = nil,
    passwordEnv: Setting<String>? = nil,
    caFile: Setting<String>? = nil,
    syncInterval: Setting<TimeInterval> = Setting(300),
    timeout: Setting<TimeInterval> = Setting(AccountSettings.defaultTimeout),
    line: Int = 0
  ) {
    self.name = name
    self.url = url
    self.username = username
    self.passwordCommand = passwordCommand
    self.passwordEnv = passwordEnv
    self.caFile = caFile
    self.syncInterval = syncInterval
    self.timeout = timeout
    self.line = line
  }

  /// `timeout`'s default: 30 seconds a request.
  public static let defaultTimeout: TimeInterval = 30
  /// The longest `timeout` taken: an hour.
  public static let maximumTimeout: TimeInterval = 3600

  /// `timeout`'s value: seconds (`30`, `30s`), minutes (`2m`) or both (`1m30s`), 1 s to 1 h;
  /// a message saying what is accepted otherwise.
  public static func parseTimeout(_ text: String) -> Result<TimeInterval, CommandError> {
    let body = text.trimmingCharacters(in: .whitespaces).lowercased()
    let refusal = CommandError.invalid(
      "cannot understand \(WhenParser.quoted(text)) as a timeout: try 30 (seconds), 30s, 2m or 1m30s"
    )
    var seconds = 0
    var rest = Substring(body)
    var lastUnit: Character?
    while !rest.isEmpty {
      let digits = rest.prefix { WhenParser.isASCIIDigit($0) }
      guard !digits.isEmpty, digits.count <= 5, let number = Int(digits) else { return .failure(refusal) }
      rest = rest.dropFirst(digits.count)
      let unit = rest.first.flatMap { "ms".contains($0) ? $0 : nil }
      if unit != nil { rest = rest.dropFirst() }
      // Minutes before seconds, each once; a bare number only alone.
      switch (lastUnit, unit) {
      case (nil, "m"): seconds += number * 60
      case (nil, "s"), ("m", "s"): seconds += number
      case (nil, nil) where rest.isEmpty && seconds == 0: seconds = number
      default: return .failure(refusal)
      }
      lastUnit = unit ?? "s"
    }
    guard !body.isEmpty else { return .failure(refusal) }
    guard seconds >= 1, TimeInterval(seconds) <= maximumTimeout else {
      return .failure(.invalid("the timeout \(WhenParser.quoted(text)) is out of range: 1 second to 1 hour"))
    }
    return .success(TimeInterval(seconds))
  }

  /// `30s`, `2m`, `1m30s`: `timeout` as the settings file spells it.
  public static func formatTimeout(_ seconds: TimeInterval) -> String {
    let whole = Int(seconds)
    switch (whole / 60, whole % 60) {
    case (0, let s): return "\(s)s"
    case (let m, 0): return "\(m)m"
    case (let m, let s): return "\(m)m\(s)s"
    }
  }
}

/// `[reminders]` (the reminder daemon reads it; appt only checks it).
public struct ReminderSettings: Sendable, Equatable {
  /// How late a missed alarm may still fire (seconds; default 1h).
  public var remindGrace = Setting(TimeInterval(3600))
  /// The command run for each alarm; nil: `notify-send` when present, else a line on stdout.
  public var notifyCommand: Setting<String>?
  /// Reminders a new appointment gets (seconds before its start); none by default.
  public var defaultRemind = Setting([TimeInterval]())

  public init() {}
}

/// `[mail]`: who the user is in invitations.
public struct MailSettings: Sendable, Equatable {
  /// The user's addresses (lower-cased): the attendee of an invitation that is the user.
  public var addresses = Setting([String]())

  public init() {}

  /// `addresses` as a set, to find the user among attendees.
  public var addressSet: Set<String> { Set(addresses.value) }
}

/// `[calendar NAME]`: settings of one calendar (NAME as `appt calendars` lists it).
public struct CalendarSettings: Sendable, Equatable {
  public var name: String
  /// The reminders a new appointment in this calendar gets (seconds before its start),
  /// instead of `[reminders] default_remind`; nil when the section does not set it.
  public var defaultRemind: Setting<[TimeInterval]>?
  /// The line of the `[calendar NAME]` header.
  public var line: Int

  public init(name: String, defaultRemind: Setting<[TimeInterval]>? = nil, line: Int = 0) {
    self.name = name
    self.defaultRemind = defaultRemind
    self.line = line
  }
}

// MARK: - The locale's week start

extension Settings {
  /// The first day of the week of the user's locale, for `[ui] week_start`'s default.
  ///
  /// Foundation on Linux (6.3) does not read the environment for `Locale.current` (it is
  /// `en_001` whatever LANG says, so `Calendar.current.firstWeekday` is always Monday): the
  /// locale is taken as the C library takes LC_TIME: the first of `LC_ALL`, `LC_TIME`, `LANG`
  /// that is set and not empty, less its `.codeset` and `@modifier`; Foundation's locale data
  /// (ICU) then gives its first weekday (`en_US` Sunday, `de_DE` Monday, `ar_EG` Saturday).
  /// No locale, `C` and `POSIX` mean Monday (ISO 8601), and so does a locale whose week starts
  /// on a day `week_start` does not offer.
  public static func localeWeekStart(environment: [String: String]) -> Recurrence.Weekday {
    let name = ["LC_ALL", "LC_TIME", "LANG"].lazy.compactMap { environment[$0] }.first { !$0.isEmpty } ?? ""
    let identifier = String(name.prefix { $0 != "." && $0 != "@" })
    guard !identifier.isEmpty, identifier != "C", identifier != "POSIX" else { return .monday }
    switch Locale(identifier: identifier).firstDayOfWeek {
    case .sunday: return .sunday
    case .saturday: return .saturday
    default: return .monday
    }
  }
}
