import Foundation

/// The actions of the calendar's key map and how keys are spelled, for `[keys]`. The UI
/// layer owns both (`KeyMap.vocabulary`); the parser only checks against them.
public struct KeyVocabulary: Sendable {
  public struct ActionKeys: Sendable, Equatable {
    /// The settings name (`next_appointment`).
    public var name: String
    /// The standard keys, canonically spelled.
    public var keys: [String]

    public init(name: String, keys: [String]) {
      self.name = name
      self.keys = keys
    }
  }

  public var actions: [ActionKeys]
  /// True when `spelling` is a key's canonical spelling (`j`, `ctrl+u`, `pgdown`).
  public var isKey: @Sendable (String) -> Bool
  /// The named keys (`enter`, `pgdown`, ...), to suggest from.
  public var namedKeys: [String]

  public init(actions: [ActionKeys], namedKeys: [String], isKey: @escaping @Sendable (String) -> Bool) {
    self.actions = actions
    self.namedKeys = namedKeys
    self.isKey = isKey
  }

  /// No actions: `[keys]` then accepts nothing (a parser that does not know the calendar).
  public static let none = KeyVocabulary(actions: [], namedKeys: [], isKey: { _ in false })
}

/// One mistake in the settings file: `PATH:LINE: message`.
public struct SettingsDiagnostic: Sendable, Equatable, CustomStringConvertible {
  public var path: String
  public var line: Int
  public var message: String

  public init(path: String, line: Int, message: String) {
    self.path = path
    self.line = line
    self.message = message
  }

  public var description: String { "\(path):\(line): \(message)" }
}

/// Reads the settings file (README, "Settings file"; the man page's FILES): INI-like, `[section]` and
/// `key = value` lines, `#` or `;` starting a comment line, blank lines skipped, whitespace
/// around names and values trimmed, a value in double quotes kept as written (`\"` and `\\`
/// inside). A `#` later in a line is part of the value (colours are `#rrggbb`). Section and
/// key names are compared ignoring case; values are checked key by key.
///
/// Pure: text in, `Settings` or every mistake out, each with its line and, for a misspelt
/// name, the nearest right one.
public struct SettingsParser: Sendable {
  public let path: String
  public let vocabulary: KeyVocabulary
  /// The values when the file sets nothing (week start from the locale...).
  public let defaults: Settings

  public init(path: String, vocabulary: KeyVocabulary = .none, defaults: Settings = Settings()) {
    self.path = path
    self.vocabulary = vocabulary
    self.defaults = defaults
  }

  /// The longest file read: no settings file is this long.
  public static let maximumSize = 1 << 20

  static let uiKeys = [
    "week_start", "time_format", "date_format", "default_duration", "default_calendar", "theme", "mouse",
  ]
  static let accountKeys = [
    "url", "username", "password_command", "password_env", "ca_file", "sync_interval", "timeout",
  ]
  static let reminderKeys = ["remind_grace", "notify_command", "default_remind"]
  static let mailKeys = ["addresses"]
  static let calendarKeys = ["default_remind"]
  static let sectionNames = ["ui", "keys", "colors", "reminders", "mail", "account NAME", "calendar NAME"]

  /// A section as the file names it.
  enum Section: Hashable {
    case ui, keys, colors, reminders, mail
    case account(String)
    case calendar(String)
    /// A section that is not one of appt's: its lines are skipped (its header was reported).
    case unknown

    var shown: String {
      switch self {
      case .ui: "[ui]"
      case .keys: "[keys]"
      case .colors: "[colors]"
      case .reminders: "[reminders]"
      case .mail: "[mail]"
      case .account(let name): "[account \(name)]"
      case .calendar(let name): "[calendar \(name)]"
      case .unknown: "[?]"
      }
    }
  }

  /// One `key = value` line.
  struct Entry {
    var key: String
    var value: String
    var line: Int
  }

  // MARK: - Entry points

  /// Parses the bytes of a settings file: UTF-8 (a byte order mark is skipped), `\n` or
  /// `\r\n` line ends.
  public func parse(bytes: [UInt8]) -> Result<Settings, SettingsFailure> {
    guard bytes.count <= Self.maximumSize else {
      return .failure(
        SettingsFailure([diagnostic(1, "longer than \(Self.maximumSize >> 20) MiB; not a settings file")])
      )
    }
    var body = bytes[...]
    if body.starts(with: [0xEF, 0xBB, 0xBF]) { body = body.dropFirst(3) }
    var lines: [String] = []
    var problems: [SettingsDiagnostic] = []
    for (index, raw) in body.split(separator: UInt8(ascii: "\n"), omittingEmptySubsequences: false).enumerated() {
      var lineBytes = Array(raw)
      if lineBytes.last == UInt8(ascii: "\r") { lineBytes.removeLast() }
      if let problem = UTF8Check.problem(lineBytes) {
        problems.append(diagnostic(index + 1, problem))
        lines.append("")
      } else {
        lines.append(String(decoding: lineBytes, as: UTF8.self))
      }
    }
    switch parse(lines: lines) {
    case .success(let settings) where problems.isEmpty: return .success(settings)
    case .success: return .failure(SettingsFailure(problems))
    case .failure(let failure):
      return .failure(SettingsFailure((problems + failure.diagnostics).sorted { $0.line < $1.line }))
    }
  }

  /// Parses settings text.
  public func parse(text: String) -> Result<Settings, SettingsFailure> {
    parse(bytes: Array(text.utf8))
  }

  // MARK: - Lines

  private func parse(lines: [String]) -> Result<Settings, SettingsFailure> {
    var problems: [SettingsDiagnostic] = []
    var current: Section?
    var entries: [Section: [Entry]] = [:]
    var order: [Section] = []
    var accountLines: [String: Int] = [:]
    var calendarLines: [String: Int] = [:]
    /// The first line of each key of each section, for duplicates.
    var seen: [Section: [String: Int]] = [:]
    for (index, raw) in lines.enumerated() {
      let number = index + 1
      let line = raw.trimmingCharacters(in: .whitespaces)
      if line.isEmpty || line.hasPrefix("#") || line.hasPrefix(";") { continue }
      if line.hasPrefix("[") {
        switch section(line, number: number, accounts: &accountLines, calendars: &calendarLines) {
        case .success(let section):
          current = section
          if entries[section] == nil, section != .unknown {
            entries[section] = []
            order.append(section)
          }
        case .failure(let problem):
          problems.append(problem)
          current = .unknown
        }
        continue
      }
      guard let equals = line.firstIndex(of: "=") else {
        problems.append(diagnostic(number, "expected [section] or key = value, not \(quoted(line))"))
        continue
      }
      let key = line[..<equals].trimmingCharacters(in: .whitespaces).lowercased()
      guard !key.isEmpty else {
        problems.append(diagnostic(number, "a value without a key: write key = value"))
        continue
      }
      guard let section = current else {
        problems.append(diagnostic(number, "\(quoted(key)) comes before any [section]; put it under [ui], [keys]..."))
        continue
      }
      if section == .unknown { continue }
      let value: String
      switch unquote(line[line.index(after: equals)...].trimmingCharacters(in: .whitespaces), number: number) {
      case .success(let text): value = text
      case .failure(let problem):
        problems.append(problem)
        continue
      }
      if let first = seen[section]?[key] {
        problems.append(diagnostic(number, "\(key) is set twice in \(section.shown) (first at line \(first))"))
        continue
      }
      seen[section, default: [:]][key] = number
      entries[section, default: []].append(Entry(key: key, value: value, line: number))
    }
    var settings = defaults
    for section in order {
      let sectionEntries = entries[section] ?? []
      switch section {
      case .ui: readUI(sectionEntries, into: &settings.ui, problems: &problems)
      case .keys: break  // below: every section read first, so remaps are checked once
      case .colors: readColors(sectionEntries, into: &settings.colors, problems: &problems)
      case .reminders: readReminders(sectionEntries, into: &settings.reminders, problems: &problems)
      case .mail: readMail(sectionEntries, into: &settings.mail, problems: &problems)
      case .account(let name):
        if let account = readAccount(name, line: accountLines[name] ?? 0, sectionEntries, problems: &problems) {
          settings.accounts.append(account)
        }
      case .calendar(let name):
        settings.calendars.append(
          readCalendar(name, line: calendarLines[name] ?? 0, sectionEntries, problems: &problems)
        )
      case .unknown: break
      }
    }
    settings.keys = readKeys(entries[.keys] ?? [], problems: &problems)
    guard problems.isEmpty else { return .failure(SettingsFailure(problems.sorted { $0.line < $1.line })) }
    return .success(settings)
  }

  /// `[ui]`, `[account work]`, `[account "My server"]`.
  private func section(
    _ line: String,
    number: Int,
    accounts: inout [String: Int],
    calendars: inout [String: Int]
  ) -> Result<Section, SettingsDiagnostic> {
    guard line.hasSuffix("]"), line.count >= 2 else {
      return .failure(diagnostic(number, "a section header ends with ]: \(quoted(line))"))
    }
    let inside = line.dropFirst().dropLast().trimmingCharacters(in: .whitespaces)
    let words = inside.split(separator: " ", maxSplits: 1).map(String.init)
    let name = words.first?.lowercased() ?? ""
    switch (name, words.count) {
    case ("ui", 1): return .success(.ui)
    case ("keys", 1): return .success(.keys)
    case ("colors", 1): return .success(.colors)
    case ("reminders", 1): return .success(.reminders)
    case ("mail", 1): return .success(.mail)
    case ("account", 1):
      return .failure(diagnostic(number, "[account] needs a name: [account NAME]"))
    case ("account", _):
      var account = words[1].trimmingCharacters(in: .whitespaces)
      if account.count >= 2, account.hasPrefix("\""), account.hasSuffix("\"") {
        account = String(account.dropFirst().dropLast())
      }
      if let problem = Self.accountNameProblem(account) {
        return .failure(diagnostic(number, "[account \(TextSafety.escapingControls(account))]: \(problem)"))
      }
      if let other = accounts.keys.first(where: { $0 != account && $0.lowercased() == account.lowercased() }) {
        return .failure(
          diagnostic(
            number,
            "account \(quoted(account)) differs from account \(quoted(other)) (line \(accounts[other] ?? 0))"
              + " only in case; account names are compared ignoring case"
          )
        )
      }
      if accounts[account] == nil { accounts[account] = number }
      return .success(.account(account))
    case ("calendar", 1):
      return .failure(diagnostic(number, "[calendar] needs a calendar's name: [calendar NAME]"))
    case ("calendar", _):
      var calendar = words[1].trimmingCharacters(in: .whitespaces)
      if calendar.count >= 2, calendar.hasPrefix("\""), calendar.hasSuffix("\"") {
        calendar = String(calendar.dropFirst().dropLast())
      }
      if let problem = Self.calendarNameProblem(calendar) {
        return .failure(diagnostic(number, "[calendar \(TextSafety.escapingControls(calendar))]: \(problem)"))
      }
      // Calendar names are unique ignoring case: `[calendar Work]` and `[calendar work]` are one.
      let same = calendars.keys.first { $0.lowercased() == calendar.lowercased() }
      if let same { return .success(.calendar(same)) }
      calendars[calendar] = number
      return .success(.calendar(calendar))
    default:
      let shown = "[\(TextSafety.escapingControls(inside))]"
      var message = "unknown section \(shown)"
      let names = ["ui", "keys", "colors", "reminders", "mail", "account", "calendar"]
      if let near = Suggestion.nearest(to: name, among: names) {
        message += "; did you mean [\(near == "account" || near == "calendar" ? near + " NAME" : near)]?"
      } else {
        message += "; the sections are [ui], [keys], [colors], [reminders], [mail], [account NAME] and [calendar NAME]"
      }
      return .failure(diagnostic(number, message))
    }
  }

  /// A value as written, or the text inside its double quotes.
  private func unquote(_ text: String, number: Int) -> Result<String, SettingsDiagnostic> {
    guard text.hasPrefix("\"") else { return .success(text) }
    var out = ""
    var escaped = false
    var index = text.index(after: text.startIndex)
    while index < text.endIndex {
      let character = text[index]
      index = text.index(after: index)
      if escaped {
        guard character == "\"" || character == "\\" else {
          return .failure(diagnostic(number, "in a quoted value, \\ goes before \" or \\ only"))
        }
        out.append(character)
        escaped = false
      } else if character == "\\" {
        escaped = true
      } else if character == "\"" {
        guard text[index...].allSatisfy(\.isWhitespace) else {
          return .failure(diagnostic(number, "text after the closing quote: \(quoted(String(text[index...])))"))
        }
        return .success(out)
      } else {
        out.append(character)
      }
    }
    return .failure(diagnostic(number, "the quoted value has no closing \""))
  }

  // MARK: - Sections

  private func readUI(_ entries: [Entry], into ui: inout Settings.UI, problems: inout [SettingsDiagnostic]) {
    for entry in entries {
      let origin = self.origin(entry)
      let value = entry.value
      do throws(SettingsDiagnostic) {
        switch entry.key {
        case "week_start":
          let starts = Settings.weekStarts.map(Self.weekdayName)
          guard let index = starts.firstIndex(of: value.lowercased()) else {
            throw bad(entry, accepted: "monday, sunday or saturday")
          }
          ui.weekStart = Setting(Settings.weekStarts[index], origin: origin)
        case "time_format":
          guard let format = TimeFormat(rawValue: value.lowercased()) else { throw bad(entry, accepted: "24h or 12h") }
          ui.timeFormat = Setting(format, origin: origin)
        case "date_format":
          guard !value.isEmpty else { throw bad(entry, accepted: "a template such as \"%a %-d %b %Y\"") }
          ui.dateFormat = Setting(
            try checked(entry) { () throws(CommandError) in try DateTemplate(parsing: value) },
            origin: origin
          )
        case "default_duration":
          ui.defaultDuration = Setting(try duration(entry), origin: origin)
        case "default_calendar":
          if let problem = Self.calendarNameProblem(value) {
            throw diagnostic(entry.line, "default_calendar: \(problem)")
          }
          ui.defaultCalendar = Setting(value, origin: origin)
        case "theme":
          guard let theme = Theme(rawValue: value.lowercased()) else {
            throw bad(entry, accepted: "default, light or mono")
          }
          ui.theme = Setting(theme, origin: origin)
        case "mouse":
          guard let on = ["on": true, "off": false][value.lowercased()] else { throw bad(entry, accepted: "on or off") }
          ui.mouse = Setting(on, origin: origin)
        default:
          throw unknownKey(entry, in: .ui, keys: Self.uiKeys)
        }
      } catch {
        problems.append(error)
      }
    }
  }

  private func readColors(
    _ entries: [Entry],
    into colors: inout [ColorElement: Setting<ColorPair>],
    problems: inout [SettingsDiagnostic]
  ) {
    for entry in entries {
      guard let element = ColorElement(rawValue: entry.key) else {
        problems.append(unknownKey(entry, in: .colors, keys: ColorElement.allCases.map(\.rawValue)))
        continue
      }
      do throws(SettingsDiagnostic) {
        colors[element] = Setting(try colorPair(entry), origin: origin(entry))
      } catch {
        problems.append(error)
      }
    }
  }

  /// `red`, `black on yellow`, `#1e90ff on default`, `on blue`.
  private func colorPair(_ entry: Entry) throws(SettingsDiagnostic) -> ColorPair {
    let words = entry.value.split(whereSeparator: \.isWhitespace).map(String.init)
    let shape = "a colour, or FOREGROUND on BACKGROUND (black on yellow)"
    func color(_ word: String) throws(SettingsDiagnostic) -> SettingsColor {
      if let color = SettingsColor(parsing: word) { return color }
      let names = SettingsColor.NamedColor.allCases.map(\.name) + ["default"]
      var message = "\(entry.key): \(quoted(word)) is not a colour"
      if let near = Suggestion.nearest(to: word.lowercased(), among: names) { message += "; did you mean \(near)?" }
      throw diagnostic(
        entry.line,
        message + " (colours: black, red, green, yellow, blue, magenta, cyan, white, default or #rrggbb)"
      )
    }
    switch words.count {
    case 1: return ColorPair(try color(words[0]))
    case 2 where words[0].lowercased() == "on": return ColorPair(.terminalDefault, on: try color(words[1]))
    case 3 where words[1].lowercased() == "on": return ColorPair(try color(words[0]), on: try color(words[2]))
    default: throw diagnostic(entry.line, "\(entry.key): expected \(shape), not \(quoted(entry.value))")
    }
  }

  /// `[mail] addresses = ann@example.com, ann@work.example`: mail addresses, `mailto:` allowed.
  private func readMail(_ entries: [Entry], into mail: inout MailSettings, problems: inout [SettingsDiagnostic]) {
    for entry in entries {
      do throws(SettingsDiagnostic) {
        guard entry.key == "addresses" else { throw unknownKey(entry, in: .mail, keys: Self.mailKeys) }
        var addresses: [String] = []
        for item in entry.value.split(separator: ",") {
          var address = item.trimmingCharacters(in: .whitespaces).lowercased()
          if address.hasPrefix("mailto:") { address = String(address.dropFirst(7)) }
          guard address.contains("@"), !address.contains(where: { $0.isWhitespace || $0 == "<" || $0 == ">" }) else {
            throw bad(entry, accepted: "mail addresses separated by commas (ann@example.com, ann@work.example)")
          }
          addresses.append(address)
        }
        mail.addresses = Setting(addresses, origin: origin(entry))
      } catch {
        problems.append(error)
      }
    }
  }

  private func readReminders(
    _ entries: [Entry],
    into reminders: inout ReminderSettings,
    problems: inout [SettingsDiagnostic]
  ) {
    for entry in entries {
      let origin = self.origin(entry)
      do throws(SettingsDiagnostic) {
        switch entry.key {
        case "remind_grace": reminders.remindGrace = Setting(try duration(entry), origin: origin)
        case "notify_command":
          guard !entry.value.isEmpty else {
            throw bad(entry, accepted: "a command (leave the line out for the default)")
          }
          reminders.notifyCommand = Setting(entry.value, origin: origin)
        case "default_remind":
          reminders.defaultRemind = Setting(try durations(entry), origin: origin)
        default:
          throw unknownKey(entry, in: .reminders, keys: Self.reminderKeys)
        }
      } catch {
        problems.append(error)
      }
    }
  }

  /// `[calendar NAME]`: `default_remind` (the calendar need not exist yet: a sync makes
  /// calendars, and a settings file is read before any store is opened).
  private func readCalendar(
    _ name: String,
    line: Int,
    _ entries: [Entry],
    problems: inout [SettingsDiagnostic]
  ) -> CalendarSettings {
    var calendar = CalendarSettings(name: name, line: line)
    for entry in entries {
      do throws(SettingsDiagnostic) {
        switch entry.key {
        case "default_remind": calendar.defaultRemind = Setting(try durations(entry), origin: origin(entry))
        default: throw unknownKey(entry, in: .calendar(name), keys: Self.calendarKeys)
        }
      } catch {
        problems.append(error)
      }
    }
    return calendar
  }

  /// `15m, 1d`: DURATIONs separated by commas; an empty value is none.
  private func durations(_ entry: Entry) throws(SettingsDiagnostic) -> [TimeInterval] {
    var durations: [TimeInterval] = []
    for item in entry.value.split(separator: ",", omittingEmptySubsequences: false) where !entry.value.isEmpty {
      let text = item.trimmingCharacters(in: .whitespaces)
      durations.append(try checked(entry) { () throws(CommandError) in try DurationParser.parse(text) })
    }
    return durations
  }

  private func readAccount(
    _ name: String,
    line: Int,
    _ entries: [Entry],
    problems: inout [SettingsDiagnostic]
  ) -> AccountSettings? {
    var url: Setting<String>?
    var username: Setting<String>?
    var account = AccountSettings(name: name, url: Setting(""), username: Setting(""), line: line)
    let count = problems.count
    for entry in entries {
      let origin = self.origin(entry)
      let value = entry.value
      do throws(SettingsDiagnostic) {
        if value.isEmpty, Self.accountKeys.contains(entry.key) { throw bad(entry, accepted: "a value") }
        switch entry.key {
        case "url":
          if let problem = Self.urlProblem(value) { throw diagnostic(entry.line, "url: \(problem)") }
          url = Setting(value, origin: origin)
        case "username": username = Setting(value, origin: origin)
        case "password_command": account.passwordCommand = Setting(value, origin: origin)
        case "password_env":
          guard Self.isVariableName(value) else {
            throw diagnostic(
              entry.line,
              "password_env: \(quoted(value)) is not an environment variable's name (letters, digits, _)"
            )
          }
          account.passwordEnv = Setting(value, origin: origin)
        case "ca_file": account.caFile = Setting(value, origin: origin)
        case "sync_interval": account.syncInterval = Setting(try duration(entry), origin: origin)
        case "timeout":
          switch AccountSettings.parseTimeout(value) {
          case .success(let seconds): account.timeout = Setting(seconds, origin: origin)
          case .failure(let error): throw diagnostic(entry.line, "timeout: \(error.message)")
          }
        default: throw unknownKey(entry, in: .account(name), keys: Self.accountKeys)
        }
      } catch {
        problems.append(error)
      }
    }
    let shown = "[account \(TextSafety.escapingControls(name))]"
    if case .file(_, let commandLine) = account.passwordCommand?.origin,
      case .file(_, let envLine) = account.passwordEnv?.origin
    {
      problems.append(
        diagnostic(
          max(commandLine, envLine),
          "\(shown) has both password_command (line \(commandLine)) and password_env (line \(envLine)); keep one"
        )
      )
    }
    guard problems.count == count else { return nil }
    var missing: [String] = []
    if url == nil { missing.append("url") }
    if username == nil { missing.append("username") }
    if account.passwordCommand == nil, account.passwordEnv == nil { missing.append("password_command or password_env") }
    guard missing.isEmpty, let url, let username else {
      problems.append(diagnostic(line, "\(shown) needs \(missing.joined(separator: ", "))"))
      return nil
    }
    account.url = url
    account.username = username
    return account
  }

  /// Every action's keys: the standard ones, or the file's for the actions it remaps; a key
  /// that ends up on two actions is a mistake naming both.
  private func readKeys(_ entries: [Entry], problems: inout [SettingsDiagnostic]) -> [Settings.KeyBinding] {
    var bindings = vocabulary.actions.map { Settings.KeyBinding(action: $0.name, keys: Setting($0.keys)) }
    let names = vocabulary.actions.map(\.name)
    var remapped = false
    for entry in entries {
      guard let index = names.firstIndex(of: entry.key) else {
        problems.append(unknownKey(entry, in: .keys, keys: names))
        continue
      }
      let spellings = entry.value.split(whereSeparator: \.isWhitespace).map(String.init)
      guard !spellings.isEmpty else {
        problems.append(bad(entry, accepted: "one key or more, separated by spaces (j down)"))
        continue
      }
      var keys: [String] = []
      for spelling in spellings {
        guard vocabulary.isKey(spelling) else {
          problems.append(diagnostic(entry.line, "\(entry.key): \(keyProblem(spelling))"))
          continue
        }
        if !keys.contains(spelling) { keys.append(spelling) }
      }
      // A remap with a mistake is not applied: the action keeps its keys, so what clashes
      // with them is still found.
      guard keys.count == Set(spellings).count else { continue }
      bindings[index].keys = Setting(keys, origin: origin(entry))
      remapped = true
    }
    guard remapped else { return bindings }
    // Two actions on one key: reported at the line of a remap (a remap caused it).
    var owner: [String: Int] = [:]
    for (index, binding) in bindings.enumerated() {
      for key in binding.keys.value {
        guard let other = owner[key] else {
          owner[key] = index
          continue
        }
        let (first, second) = (bindings[other], binding)
        let line =
          [first.keys.origin, second.keys.origin].compactMap { origin -> Int? in
            if case .file(_, let line) = origin { return line }
            return nil
          }.max() ?? 0
        func place(_ binding: Settings.KeyBinding) -> String {
          if case .file(_, let line) = binding.keys.origin { return "line \(line)" }
          return "by default"
        }
        problems.append(
          diagnostic(
            line,
            "key \(quoted(key)) is bound to both \(first.action) (\(place(first))) and \(second.action)"
              + " (\(place(second))); give one of them other keys"
          )
        )
      }
    }
    return bindings
  }

  /// Why `spelling` is not a key, with the nearest spelling that is.
  private func keyProblem(_ spelling: String) -> String {
    var message = "\(quoted(spelling)) is not a key"
    let lower = spelling.lowercased()
    let candidates =
      vocabulary.namedKeys
      + (lower.count == 6 && lower.hasPrefix("ctrl") ? ["ctrl+" + String(lower.suffix(1))] : [])
    if vocabulary.isKey(lower), lower != spelling {
      message += "; did you mean \(quoted(lower))?"
    } else if let near = Suggestion.nearest(to: lower, among: candidates) {
      message += "; did you mean \(quoted(near))?"
    }
    return message
      + " (a key is a character as typed, ctrl+LETTER, or a name: \(vocabulary.namedKeys.joined(separator: " ")))"
  }

  // MARK: - Values

  private func duration(_ entry: Entry) throws(SettingsDiagnostic) -> TimeInterval {
    try checked(entry) { () throws(CommandError) in try DurationParser.parse(entry.value) }
  }

  /// `body`'s value, or its error as this line's mistake.
  private func checked<T>(_ entry: Entry, _ body: () throws(CommandError) -> T) throws(SettingsDiagnostic) -> T {
    do throws(CommandError) {
      return try body()
    } catch {
      throw diagnostic(entry.line, "\(entry.key): \(error.message)")
    }
  }

  static func weekdayName(_ day: Recurrence.Weekday) -> String { CommandParser.dayNames[day.rawValue].lowercased() }

  /// A calendar name's problem (the calendars' rule: 1-64 characters, no control characters,
  /// no `/` but the sync's `ACCOUNT/Display name`), or nil.
  static func calendarNameProblem(_ name: String) -> String? {
    guard !name.isEmpty else { return "a calendar name cannot be empty" }
    guard name.count <= 64 else { return "a calendar name has at most 64 characters" }
    if TextSafety.escapingControls(name) != name { return "a calendar name cannot hold control characters" }
    if let slash = name.firstIndex(of: "/") {
      let account = name[..<slash]
      let rest = name[name.index(after: slash)...]
      guard !account.isEmpty, !rest.isEmpty else {
        return "a / in a calendar name only separates an account from a calendar (ACCOUNT/Name)"
      }
    }
    return nil
  }

  static func accountNameProblem(_ name: String) -> String? {
    guard !name.isEmpty else { return "an account needs a name" }
    guard name.count <= 64 else { return "an account name has at most 64 characters" }
    if TextSafety.escapingControls(name) != name { return "an account name cannot hold control characters" }
    if name.contains("/") { return "an account name cannot hold / (its calendars are ACCOUNT/Name)" }
    return nil
  }

  /// An account URL's problem, or nil: http or https, with a host, and no password in it.
  static func urlProblem(_ text: String) -> String? {
    guard let url = URL(string: text), let scheme = url.scheme?.lowercased() else {
      return "\(WhenParser.quoted(text)) is not a URL (https://host/path)"
    }
    guard scheme == "https" || scheme == "http" else { return "the URL must start with https:// or http://" }
    guard let host = url.host, !host.isEmpty else { return "the URL has no host" }
    if url.password != nil {
      return "the URL holds a password; put it in password_command or password_env instead"
    }
    return nil
  }

  static func isVariableName(_ text: String) -> Bool {
    guard let first = text.first, first == "_" || (first.isASCII && first.isLetter) else { return false }
    return text.allSatisfy { $0 == "_" || ($0.isASCII && ($0.isLetter || $0.isNumber)) }
  }

  // MARK: - Messages

  private func origin(_ entry: Entry) -> SettingOrigin { .file(path: path, line: entry.line) }

  private func diagnostic(_ line: Int, _ message: String) -> SettingsDiagnostic {
    SettingsDiagnostic(path: path, line: line, message: message)
  }

  private func bad(_ entry: Entry, accepted: String) -> SettingsDiagnostic {
    let what = entry.value.isEmpty ? "is empty" : "cannot be \(quoted(entry.value))"
    return diagnostic(entry.line, "\(entry.key) \(what); expected \(accepted)")
  }

  private func unknownKey(_ entry: Entry, in section: Section, keys: [String]) -> SettingsDiagnostic {
    var message = "unknown key \(quoted(entry.key)) in \(section.shown)"
    if let near = Suggestion.nearest(to: entry.key, among: keys) {
      message += "; did you mean \(near)?"
    } else if !keys.isEmpty {
      message += "; the keys are \(keys.joined(separator: ", "))"
    }
    return diagnostic(entry.line, message)
  }

  private func quoted(_ text: String) -> String { WhenParser.quoted(text) }
}

/// Every mistake of a settings file, in line order.
public struct SettingsFailure: Error, Sendable, Equatable {
  public var diagnostics: [SettingsDiagnostic]

  public init(_ diagnostics: [SettingsDiagnostic]) {
    self.diagnostics = diagnostics
  }
}

extension SettingsDiagnostic: Error {}

/// The nearest of some names to a misspelt one (git's "did you mean").
public enum Suggestion {
  /// The candidate nearest to `word` (Damerau-Levenshtein, case and `_`/`-` ignored), when it
  /// is near enough to be what was meant: at most 2 edits, and fewer than half the word.
  public static func nearest(to word: String, among candidates: [String]) -> String? {
    func folded(_ text: String) -> [Character] { Array(text.lowercased().filter { $0 != "_" && $0 != "-" }) }
    let typed = folded(word)
    guard !typed.isEmpty else { return nil }
    var best: (name: String, distance: Int)?
    for candidate in candidates {
      let other = folded(candidate)
      // More than 2 letters longer or shorter is more than 2 edits: not measured (a 1 MB
      // word against every name would take seconds).
      guard abs(typed.count - other.count) <= 2 else { continue }
      let distance = self.distance(typed, other)
      if distance < (best?.distance ?? Int.max) { best = (candidate, distance) }
    }
    guard let best, best.distance <= 2, best.distance * 2 < max(typed.count, 2) || best.distance == 0 else {
      return nil
    }
    return best.name
  }

  /// Optimal string alignment distance: insertions, deletions, substitutions and swaps of
  /// two neighbours each cost one.
  static func distance(_ a: [Character], _ b: [Character]) -> Int {
    if a.isEmpty { return b.count }
    if b.isEmpty { return a.count }
    var previous2 = [Int](repeating: 0, count: b.count + 1)
    var previous = Array(0...b.count)
    for i in 1...a.count {
      var current = [Int](repeating: 0, count: b.count + 1)
      current[0] = i
      for j in 1...b.count {
        let cost = a[i - 1] == b[j - 1] ? 0 : 1
        current[j] = min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + cost)
        if i > 1, j > 1, a[i - 1] == b[j - 2], a[i - 2] == b[j - 1] {
          current[j] = min(current[j], previous2[j - 2] + 1)
        }
      }
      previous2 = previous
      previous = current
    }
    return previous[b.count]
  }
}
