import Foundation

/// What `appt config` prints: every effective setting, where it came from, never a password
/// (`password_command` shows the command, `password_env` the variable's name).
extension Settings {
  /// One effective setting: `ui.week_start`, its value as the file would spell it, its origin.
  public struct ReportLine: Sendable, Equatable {
    public var key: String
    public var value: String
    public var origin: SettingOrigin
  }

  /// Every setting, section by section, in the order the man page lists them.
  public var reportLines: [ReportLine] {
    var lines: [ReportLine] = []
    func add<V>(_ key: String, _ setting: Setting<V>, _ text: (V) -> String) {
      lines.append(ReportLine(key: key, value: text(setting.value), origin: setting.origin))
    }
    add("ui.week_start", ui.weekStart, SettingsParser.weekdayName)
    add("ui.time_format", ui.timeFormat, \.rawValue)
    add("ui.date_format", ui.dateFormat, \.text)
    add("ui.default_duration", ui.defaultDuration, DurationParser.format)
    add("ui.default_calendar", ui.defaultCalendar) { $0 }
    add("ui.theme", ui.theme, \.rawValue)
    add("ui.mouse", ui.mouse) { $0 ? "on" : "off" }
    for binding in keys { add("keys.\(binding.action)", binding.keys) { $0.joined(separator: " ") } }
    for element in ColorElement.allCases {
      let color = self.color(for: element)
      lines.append(
        ReportLine(
          key: "colors.\(element.rawValue)",
          value: color?.value.description ?? "none",
          origin: color?.origin ?? .standard
        )
      )
    }
    for account in accounts {
      let prefix = "account.\(account.name)."
      add(prefix + "url", account.url) { $0 }
      add(prefix + "username", account.username) { $0 }
      if let command = account.passwordCommand { add(prefix + "password_command", command) { $0 } }
      if let variable = account.passwordEnv { add(prefix + "password_env", variable) { $0 } }
      if let file = account.caFile { add(prefix + "ca_file", file) { $0 } }
      add(prefix + "sync_interval", account.syncInterval, DurationParser.format)
      add(prefix + "timeout", account.timeout, AccountSettings.formatTimeout)
    }
    add("reminders.remind_grace", reminders.remindGrace, DurationParser.format)
    if let command = reminders.notifyCommand {
      add("reminders.notify_command", command) { $0 }
    } else {
      lines.append(ReportLine(key: "reminders.notify_command", value: "", origin: .standard))
    }
    add("reminders.default_remind", reminders.defaultRemind) { $0.map(DurationParser.format).joined(separator: ", ") }
    add("mail.addresses", mail.addresses) { $0.joined(separator: ", ") }
    for calendar in calendars {
      if let remind = calendar.defaultRemind {
        add("calendar.\(calendar.name).default_remind", remind) {
          $0.map(DurationParser.format).joined(separator: ", ")
        }
      }
    }
    return lines
  }

  /// `appt config`: a comment naming the file, then `key = value    # origin` per setting.
  public func reportText() -> String {
    let lines = reportLines
    let shown = lines.map { "\($0.key) = \(TextSafety.escapingControls($0.value.isEmpty ? "\"\"" : $0.value))" }
    let width = min(56, shown.map(\.count).max() ?? 0)
    var out = ""
    if let source {
      let why = source.chosenBy == .standard ? "the default place" : "from \(source.chosenBy.rawValue)"
      let state = source.exists ? "" : "; it does not exist, so every value is a default"
      out += "# settings file \(TextSafety.escapingControls(source.path)) (\(why)\(state))\n"
    }
    for (text, line) in zip(shown, lines) {
      let padding = String(repeating: " ", count: max(1, width - text.count + 4))
      out += "\(text)\(padding)# \(TextSafety.escapingControls(line.origin.description))\n"
    }
    return out
  }

  /// `appt --json config`: one object, `{"file":PATH|null,"chosen_by":...,"exists":...,`
  /// `"settings":{"ui.week_start":{"value":"monday","origin":"default"},`
  /// `"ui.time_format":{"value":"12h","origin":"file","line":3},...}}`.
  public func reportJSON() -> String {
    let quote = AppointmentFormatter.jsonString
    var out = "{\"file\":" + (source.map { quote($0.path) } ?? "null")
    out += ",\"chosen_by\":" + (source.map { quote($0.chosenBy.rawValue) } ?? "null")
    out += ",\"exists\":" + (source?.exists == true ? "true" : "false")
    let entries = reportLines.map { line in
      var entry = quote(line.key) + ":{\"value\":" + quote(line.value)
      switch line.origin {
      case .standard: entry += ",\"origin\":\"default\"}"
      case .file(_, let number): entry += ",\"origin\":\"file\",\"line\":\(number)}"
      }
      return entry
    }
    out += ",\"settings\":{" + entries.joined(separator: ",") + "}}\n"
    return out
  }
}
