import Foundation
import Testing

@testable import ApptCore

/// The settings file: every key, every mistake with its line.
@Suite("Settings file")
struct SettingsParserTests {
  static let path = "/home/u/.config/appt/config"

  /// A key map like the calendar's, small enough to read (the real one is tested in ApptUI).
  static let vocabulary = KeyVocabulary(
    actions: [
      .init(name: "next_appointment", keys: ["j", "down"]),
      .init(name: "add_appointment", keys: ["a"]),
      .init(name: "search", keys: ["/"]),
      .init(name: "quit", keys: ["q", "ctrl+c"]),
    ],
    namedKeys: ["up", "down", "enter", "esc", "pgdown", "pgup", "space"],
    isKey: { spelling in
      ["up", "down", "enter", "esc", "pgdown", "pgup", "space"].contains(spelling)
        || spelling.count == 1
        || (spelling.hasPrefix("ctrl+") && spelling.count == 6 && spelling.last?.isLowercase == true)
    }
  )

  let parser = SettingsParser(path: path, vocabulary: vocabulary)

  func settings(_ text: String) throws -> Settings {
    switch parser.parse(text: text) {
    case .success(let settings): return settings
    case .failure(let failure): throw failure
    }
  }

  /// Every diagnostic, as printed (`PATH:LINE: message`).
  func mistakes(_ text: String) -> [String] {
    switch parser.parse(text: text) {
    case .success: return []
    case .failure(let failure): return failure.diagnostics.map(\.description)
    }
  }

  func at(_ line: Int, _ message: String) -> String { "\(Self.path):\(line): \(message)" }

  func origin(_ line: Int) -> SettingOrigin { .file(path: Self.path, line: line) }

  // MARK: - Values

  @Test func anEmptyFileIsEveryDefault() throws {
    let parsed = try settings("")
    var expected = Settings()
    expected.keys = Self.vocabulary.actions.map { Settings.KeyBinding(action: $0.name, keys: Setting($0.keys)) }
    #expect(parsed == expected)
    #expect(parsed.ui.defaultDuration.value == 3600)
    #expect(parsed.ui.timeFormat.value == .hours24)
    #expect(parsed.reminders.remindGrace.value == 3600)
  }

  @Test func everyKeyOfEverySection() throws {
    let parsed = try settings(
      """
      [ui]
      week_start = sunday
      time_format = 12h
      date_format = %A %-d %B %Y
      default_duration = 45m
      default_calendar = work/Team
      theme = light
      mouse = off
      [keys]
      add_appointment = n i
      [colors]
      selected = white on blue
      today = #1e90ff
      marked = on red
      [account work]
      url = https://dav.example.com/remote.php/dav
      username = me
      password_command = pass show dav
      ca_file = ~/ca.pem
      sync_interval = 15m
      [account home]
      url = http://localhost:5232/
      username = me
      password_env = HOME_DAV_PASSWORD
      [reminders]
      remind_grace = 2h
      notify_command = notify-send appt
      default_remind = 15m, 1h, 1d
      """
    )
    #expect(parsed.ui.weekStart == Setting(.sunday, origin: origin(2)))
    #expect(parsed.ui.timeFormat == Setting(.hours12, origin: origin(3)))
    #expect(parsed.ui.dateFormat.value.text == "%A %-d %B %Y")
    #expect(parsed.ui.defaultDuration == Setting(45 * 60, origin: origin(5)))
    #expect(parsed.ui.defaultCalendar == Setting("work/Team", origin: origin(6)))
    #expect(parsed.ui.theme == Setting(.light, origin: origin(7)))
    #expect(parsed.ui.mouse == Setting(false, origin: origin(8)))
    #expect(
      parsed.keys[1] == Settings.KeyBinding(action: "add_appointment", keys: Setting(["n", "i"], origin: origin(10)))
    )
    #expect(parsed.keys[0].keys == Setting(["j", "down"]))
    #expect(parsed.colors[.selected] == Setting(ColorPair(.white, on: .blue), origin: origin(12)))
    #expect(parsed.colors[.today]?.value == ColorPair(.rgb(red: 0x1E, green: 0x90, blue: 0xFF)))
    #expect(parsed.colors[.marked]?.value == ColorPair(.terminalDefault, on: .red))
    #expect(parsed.accounts.map(\.name) == ["work", "home"])
    let work = parsed.accounts[0]
    #expect(work.url == Setting("https://dav.example.com/remote.php/dav", origin: origin(16)))
    #expect(work.username.value == "me")
    #expect(work.passwordCommand == Setting("pass show dav", origin: origin(18)))
    #expect(work.passwordEnv == nil)
    #expect(work.caFile?.value == "~/ca.pem")
    #expect(work.syncInterval == Setting(15 * 60, origin: origin(20)))
    #expect(work.line == 15)
    #expect(parsed.accounts[1].passwordEnv?.value == "HOME_DAV_PASSWORD")
    #expect(parsed.accounts[1].syncInterval == Setting(300))
    #expect(parsed.reminders.remindGrace == Setting(7200, origin: origin(26)))
    #expect(parsed.reminders.notifyCommand?.value == "notify-send appt")
    #expect(parsed.reminders.defaultRemind.value == [900, 3600, 86_400])
  }

  @Test func commentsBlankLinesWhitespaceAndQuotes() throws {
    let parsed = try settings(
      "\u{FEFF}# a comment\r\n; another\r\n\r\n  [ UI ]  \r\n  Time_Format   =   12H  \r\n"
        + "date_format = \"  %d # %m  \"\n[reminders]\nnotify_command = \"say \\\"hi\\\" \\\\ there\"\n"
    )
    #expect(parsed.ui.timeFormat == Setting(.hours12, origin: origin(5)))
    #expect(parsed.ui.dateFormat.value.text == "  %d # %m  ")
    #expect(parsed.reminders.notifyCommand?.value == "say \"hi\" \\ there")
  }

  @Test func aHashInsideAValueIsNotAComment() throws {
    #expect(
      try settings("[colors]\nheader = #102030 on black").colors[.header]?.value.foreground.description == "#102030"
    )
  }

  @Test func aRepeatedSectionAddsToTheFirst() throws {
    let parsed = try settings("[ui]\ntheme = mono\n[keys]\nsearch = f\n[ui]\nmouse = off")
    #expect(parsed.ui.theme.value == .mono)
    #expect(parsed.ui.mouse.value == false)
  }

  @Test("week_start takes the three days, in any case", arguments: [("monday", 0), ("SUNDAY", 6), ("Saturday", 5)])
  func weekStarts(text: String, day: Int) throws {
    #expect(try settings("[ui]\nweek_start = \(text)").ui.weekStart.value.rawValue == day)
  }

  @Test func anEmptyDefaultRemindIsNone() throws {
    #expect(try settings("[reminders]\ndefault_remind =").reminders.defaultRemind == Setting([], origin: origin(2)))
  }

  @Test("[mail] addresses: lower-cased, mailto: dropped; what is not an address is refused")
  func mailAddresses() throws {
    let parsed = try settings("[mail]\naddresses = Ann@Example.com, mailto:ann@work.example")
    #expect(parsed.mail.addresses == Setting(["ann@example.com", "ann@work.example"], origin: origin(2)))
    #expect(parsed.mail.addressSet == ["ann@example.com", "ann@work.example"])
    #expect(
      mistakes("[mail]\naddresses = Ann <ann@example.com>\nsend = x")
        == [
          at(
            2,
            "addresses cannot be \"Ann <ann@example.com>\"; expected mail addresses separated by commas"
              + " (ann@example.com, ann@work.example)"
          ),
          at(3, "unknown key \"send\" in [mail]; the keys are addresses"),
        ]
    )
  }

  // MARK: - Mistakes

  @Test func unknownSectionsAndKeysSuggestTheNearest() {
    #expect(
      mistakes("[colour]\nx = 1\n[ui]\nweek_strat = monday\ntimeformat = 12h\nzzz = 1\n[acount work]\n[frobs]")
        == [
          at(1, "unknown section [colour]; did you mean [colors]?"),
          at(4, "unknown key \"week_strat\" in [ui]; did you mean week_start?"),
          at(5, "unknown key \"timeformat\" in [ui]; did you mean time_format?"),
          at(
            6,
            "unknown key \"zzz\" in [ui]; the keys are week_start, time_format, date_format, default_duration,"
              + " default_calendar, theme, mouse"
          ),
          at(7, "unknown section [acount work]; did you mean [account NAME]?"),
          at(
            8,
            "unknown section [frobs]; the sections are [ui], [keys], [colors], [reminders], [mail], [account NAME] and [calendar NAME]"
          ),
        ]
    )
  }

  @Test(
    "a bad value names the accepted ones",
    arguments: [
      ("week_start = tuesday", "week_start cannot be \"tuesday\"; expected monday, sunday or saturday"),
      ("time_format = 13h", "time_format cannot be \"13h\"; expected 24h or 12h"),
      ("theme = dark", "theme cannot be \"dark\"; expected default, light or mono"),
      ("mouse = yes please", "mouse cannot be \"yes please\"; expected on or off"),
      ("mouse =", "mouse is empty; expected on or off"),
      (
        "default_duration = 1x",
        "default_duration: cannot understand \"1x\" as a duration: try 45m, 1h, 1h30m, 90 (minutes)"
      ),
      ("default_duration = 0m", "default_duration: invalid duration \"0m\": must be more than zero"),
      (
        "default_calendar = /x",
        "default_calendar: a / in a calendar name only separates an account from a calendar (ACCOUNT/Name)"
      ),
      ("default_calendar = \"\"", "default_calendar: a calendar name cannot be empty"),
      (
        "date_format = %Q",
        "date_format: \"%Q\" is not a field appt knows; the fields are %a %A %b %B %d %-d %e %m %-m %y %Y %F %j %u"
          + " %H %-H %I %-I %M %p %P %R %%"
      ),
      ("date_format = 100%", "date_format: \"100%\" ends in a lone %; write %% for a percent sign"),
    ]
  )
  func badValues(line: String, message: String) {
    #expect(mistakes("[ui]\n\(line)") == [at(2, message)])
  }

  @Test func aDuplicateKeyNamesTheFirstLine() {
    #expect(
      mistakes("[ui]\ntheme = light\n\n[keys]\n[ui]\nTHEME = mono")
        == [at(6, "theme is set twice in [ui] (first at line 2)")]
    )
    #expect(
      mistakes("[account a]\nurl = https://x\nusername = u\npassword_env = P\nurl = https://y")
        == [at(5, "url is set twice in [account a] (first at line 2)")]
    )
  }

  @Test func linesThatAreNeitherSectionNorKey() {
    #expect(
      mistakes("theme = mono\n[ui]\njust words\n= 3\n[ui\n[account]\n[account a/b]")
        == [
          at(1, "\"theme\" comes before any [section]; put it under [ui], [keys]..."),
          at(3, "expected [section] or key = value, not \"just words\""),
          at(4, "a value without a key: write key = value"),
          at(5, "a section header ends with ]: \"[ui\""),
          at(6, "[account] needs a name: [account NAME]"),
          at(7, "[account a/b]: an account name cannot hold / (its calendars are ACCOUNT/Name)"),
        ]
    )
  }

  @Test func quotesMustClose() {
    #expect(
      mistakes("[reminders]\nnotify_command = \"say hi\n[ui]\ntheme = \"mono\" x\ndate_format = \"a\\qb\"")
        == [
          at(2, "the quoted value has no closing \""),
          at(4, "text after the closing quote: \" x\""),
          at(5, "in a quoted value, \\ goes before \" or \\ only"),
        ]
    )
  }

  @Test func aLineThatIsNotUTF8IsNamed() {
    let bytes = Array("[ui]\ntheme = mono\n".utf8) + [0x74, 0xFF, 0x0A]
    guard case .failure(let failure) = parser.parse(bytes: bytes) else {
      Issue.record("accepted bytes that are not UTF-8")
      return
    }
    #expect(failure.diagnostics.map(\.description) == [at(3, "not valid UTF-8 text: byte 0xFF at column 2")])
  }

  @Test func keysNameActionsAndKeysAsTheKeyMapSpellsThem() {
    #expect(
      mistakes("[keys]\nnext_apointment = n\nsearch = Enter\nquit = ctrl-q\nadd_appointment = pagedown\nsearch2 =")
        == [
          at(2, "unknown key \"next_apointment\" in [keys]; did you mean next_appointment?"),
          at(
            3,
            "search: \"Enter\" is not a key; did you mean \"enter\"? (a key is a character as typed, ctrl+LETTER,"
              + " or a name: up down enter esc pgdown pgup space)"
          ),
          at(
            4,
            "quit: \"ctrl-q\" is not a key; did you mean \"ctrl+q\"? (a key is a character as typed, ctrl+LETTER,"
              + " or a name: up down enter esc pgdown pgup space)"
          ),
          at(
            5,
            "add_appointment: \"pagedown\" is not a key; did you mean \"pgdown\"? (a key is a character as typed,"
              + " ctrl+LETTER, or a name: up down enter esc pgdown pgup space)"
          ),
          at(6, "unknown key \"search2\" in [keys]; did you mean search?"),
        ]
    )
    #expect(
      mistakes("[keys]\nsearch =") == [at(2, "search is empty; expected one key or more, separated by spaces (j down)")]
    )
  }

  @Test func twoActionsOnOneKeyNameBoth() {
    #expect(
      mistakes("[keys]\nsearch = a")
        == [
          at(
            2,
            "key \"a\" is bound to both add_appointment (by default) and search (line 2); give one of them other keys"
          )
        ]
    )
    #expect(
      mistakes("[keys]\nsearch = x\nquit = x")
        == [at(3, "key \"x\" is bound to both search (line 2) and quit (line 3); give one of them other keys")]
    )
  }

  @Test func aRemapThatFreesAKeyLetsAnotherTakeIt() throws {
    let parsed = try settings("[keys]\nsearch = a\nadd_appointment = n")
    #expect(parsed.keys.map(\.keys.value) == [["j", "down"], ["n"], ["a"], ["q", "ctrl+c"]])
  }

  @Test func colorsAreNamesHexOrDefault() {
    #expect(
      mistakes("[colors]\nselected = purple on yellow\ntoday = gren\nheader = red on\nmarked = #12345\nbody = red")
        == [
          at(
            2,
            "selected: \"purple\" is not a colour (colours: black, red, green, yellow, blue, magenta, cyan, white,"
              + " default or #rrggbb)"
          ),
          at(
            3,
            "today: \"gren\" is not a colour; did you mean green? (colours: black, red, green, yellow, blue, magenta,"
              + " cyan, white, default or #rrggbb)"
          ),
          at(4, "header: expected a colour, or FOREGROUND on BACKGROUND (black on yellow), not \"red on\""),
          at(
            5,
            "marked: \"#12345\" is not a colour (colours: black, red, green, yellow, blue, magenta, cyan, white,"
              + " default or #rrggbb)"
          ),
          at(
            6,
            "unknown key \"body\" in [colors]; the keys are header, status, selected, error, accent, field,"
              + " focused_field, today, marked"
          ),
        ]
    )
  }

  /// An account with a mistake reports it alone (what it lacks is said once it is right).
  @Test func accountsNeedAURLAUsernameAndExactlyOnePassword() {
    #expect(
      mistakes(
        """
        [account a]
        username = me
        [account b]
        url = https://x.example/
        username = me
        password_command = pass b
        password_env = B_PASSWORD
        [account c]
        url = ftp://x.example/
        password_env = 1ABC
        passwd = x
        [account d]
        url = https://me:secret@x.example/
        [account e]
        url = not a url
        [account f]
        url = https:///nohost
        [account Work]
        url = https://x
        username = u
        password_env = P
        [account work]
        """
      ) == [
        at(1, "[account a] needs url, password_command or password_env"),
        at(7, "[account b] has both password_command (line 6) and password_env (line 7); keep one"),
        at(9, "url: the URL must start with https:// or http://"),
        at(10, "password_env: \"1ABC\" is not an environment variable's name (letters, digits, _)"),
        at(
          11,
          "unknown key \"passwd\" in [account c]; the keys are url, username, password_command, password_env, ca_file,"
            + " sync_interval, timeout"
        ),
        at(13, "url: the URL holds a password; put it in password_command or password_env instead"),
        at(15, "url: \"not a url\" is not a URL (https://host/path)"),
        at(17, "url: the URL has no host"),
        at(
          22,
          "account \"work\" differs from account \"Work\" (line 18) only in case; account names are compared ignoring case"
        ),
      ]
    )
  }

  @Test func accountTimeoutTakesSecondsOrMinutes() throws {
    let base = "[account a]\nurl = https://x.example/\nusername = u\npassword_env = P\n"
    #expect(try settings(base).accounts[0].timeout == Setting(30))
    for (text, seconds) in [("45", 45.0), ("30s", 30), ("2m", 120), ("1m30s", 90), ("1M", 60), ("60m", 3600)] {
      #expect(try settings(base + "timeout = \(text)").accounts[0].timeout == Setting(seconds, origin: origin(5)))
    }
    #expect(
      mistakes(base + "timeout = soon\n") == [
        at(5, "timeout: cannot understand \"soon\" as a timeout: try 30 (seconds), 30s, 2m or 1m30s")
      ]
    )
    for text in ["30s2m", "1h", "5 s", "2m30", "-1"] {
      #expect(mistakes(base + "timeout = \(text)\n").count == 1, "\(text)")
    }
    #expect(
      mistakes(base + "timeout = 0\n") == [at(5, "timeout: the timeout \"0\" is out of range: 1 second to 1 hour")]
    )
    #expect(mistakes(base + "timeout = 61m\n").count == 1)
    var parsed = try settings(base + "timeout = 90")
    parsed.source = SettingsSource(path: "/c", chosenBy: .option)
    #expect(parsed.reportText().contains("account.a.timeout = 1m30s "))
    #expect(AccountSettings.formatTimeout(30) == "30s" && AccountSettings.formatTimeout(120) == "2m")
  }

  @Test func remindersTakeDurations() {
    #expect(
      mistakes("[reminders]\nremind_grace = soon\ndefault_remind = 15m,,1h\nnotify_command =\nnotify = x")
        == [
          at(2, "remind_grace: cannot understand \"soon\" as a duration: try 45m, 1h, 1h30m, 90 (minutes)"),
          at(3, "default_remind: missing duration: try 45m, 1h, 1h30m, 90 (minutes)"),
          at(4, "notify_command is empty; expected a command (leave the line out for the default)"),
          at(5, "unknown key \"notify\" in [reminders]; the keys are remind_grace, notify_command, default_remind"),
        ]
    )
  }

  @Test func aFileLongerThanAnySettingsFileIsRefused() {
    let bytes = [UInt8](repeating: UInt8(ascii: "#"), count: SettingsParser.maximumSize + 1)
    guard case .failure(let failure) = parser.parse(bytes: bytes) else {
      Issue.record("accepted a file over the limit")
      return
    }
    #expect(failure.diagnostics.map(\.description) == [at(1, "longer than 1 MiB; not a settings file")])
  }

  // MARK: - Did you mean

  @Test(
    "suggestions",
    arguments: [
      ("week_strat", "week_start"), ("weekstart", "week_start"), ("Week-Start", "week_start"), ("theem", "theme"),
      ("colour", "colors"), ("mouse", "mouse"),
    ]
  )
  func near(word: String, expected: String) {
    #expect(Suggestion.nearest(to: word, among: ["week_start", "theme", "colors", "mouse"]) == expected)
  }

  @Test("nothing near enough", arguments: ["x", "zzz", "timezone", "ui"])
  func far(word: String) {
    #expect(Suggestion.nearest(to: word, among: ["week_start", "theme", "colors", "mouse"]) == nil)
  }
}

@Suite("Settings: where the file is, the locale's week, the report")
struct SettingsSourceTests {
  @Test func theFlagBeatsTheEnvironmentWhichBeatsTheDefault() {
    let environment = ["APPT_CONFIG": "/env/config", "XDG_CONFIG_HOME": "/xdg", "HOME": "/home/u"]
    #expect(
      SettingsSource.locate(option: "/flag", environment: environment)
        == SettingsSource(path: "/flag", chosenBy: .option)
    )
    #expect(
      SettingsSource.locate(option: nil, environment: environment)
        == SettingsSource(path: "/env/config", chosenBy: .environment)
    )
    var rest = environment
    rest["APPT_CONFIG"] = ""
    #expect(
      SettingsSource.locate(option: nil, environment: rest)
        == SettingsSource(path: "/xdg/appt/config", chosenBy: .standard)
    )
    rest["XDG_CONFIG_HOME"] = "relative/dir"  // ignored, as the XDG rule says
    #expect(SettingsSource.locate(option: nil, environment: rest).path == "/home/u/.config/appt/config")
    #expect(SettingsSource.locate(option: nil, environment: rest).isRequired == false)
    #expect(SettingsSource.locate(option: "x", environment: rest).isRequired)
  }

  @Test(
    "the locale's first weekday: LC_ALL, then LC_TIME, then LANG",
    arguments: [
      ([String: String](), Recurrence.Weekday.monday),
      (["LANG": "C.UTF-8"], .monday),
      (["LANG": "POSIX"], .monday),
      (["LANG": "en_US.UTF-8"], .sunday),
      (["LANG": "de_DE.UTF-8"], .monday),
      (["LANG": "ar_EG.UTF-8"], .saturday),
      (["LANG": "en_US.UTF-8", "LC_TIME": "en_GB.UTF-8"], .monday),
      (["LANG": "de_DE.UTF-8", "LC_TIME": "en_US.UTF-8"], .sunday),
      (["LC_ALL": "de_DE@euro", "LC_TIME": "en_US.UTF-8"], .monday),
      (["LC_ALL": "", "LC_TIME": "en_US"], .sunday),
    ]
  )
  func localeWeekStart(environment: [String: String], expected: Recurrence.Weekday) {
    #expect(Settings.localeWeekStart(environment: environment) == expected)
  }

  static let parser = SettingsParser(path: "/c", vocabulary: SettingsParserTests.vocabulary)

  func parsed(_ text: String) throws -> Settings {
    switch Self.parser.parse(text: text) {
    case .success(let settings): return settings
    case .failure(let failure): throw failure
    }
  }

  @Test func theReportNamesEveryOriginAndNoPassword() throws {
    var settings = try parsed(
      "[ui]\ntime_format = 12h\n[account work]\nurl = https://x.example/\nusername = me\npassword_command = pass show x\n"
        + "[account home]\nurl = https://y.example/\nusername = me\npassword_env = HOME_PW"
    )
    settings.source = SettingsSource(path: "/c", chosenBy: .option)
    let text = settings.reportText()
    let lines = text.split(separator: "\n").map(String.init)
    #expect(lines.first == "# settings file /c (from --config)")
    #expect(lines.contains { $0.hasPrefix("ui.time_format = 12h ") && $0.hasSuffix("# /c:2") })
    #expect(lines.contains { $0.hasPrefix("ui.week_start = monday ") && $0.hasSuffix("# default") })
    #expect(lines.contains { $0.hasPrefix("keys.quit = q ctrl+c ") && $0.hasSuffix("# default") })
    #expect(lines.contains { $0.hasPrefix("account.work.password_command = pass show x ") && $0.hasSuffix("# /c:6") })
    #expect(lines.contains { $0.hasPrefix("account.home.password_env = HOME_PW ") })
    #expect(lines.contains { $0.hasPrefix("account.home.sync_interval = 5m ") && $0.hasSuffix("# default") })
    #expect(lines.contains { $0.hasPrefix("colors.selected = black on yellow ") })
    let json = settings.reportJSON()
    let object = try #require(try JSONSerialization.jsonObject(with: Data(json.utf8)) as? [String: Any])
    #expect(object["file"] as? String == "/c")
    #expect(object["chosen_by"] as? String == "--config")
    let values = try #require(object["settings"] as? [String: [String: Any]])
    #expect(values["ui.time_format"]?["value"] as? String == "12h")
    #expect(values["ui.time_format"]?["origin"] as? String == "file")
    #expect(values["ui.time_format"]?["line"] as? Int == 2)
    #expect(values["ui.theme"]?["origin"] as? String == "default")
    #expect(values["account.work.password_command"]?["value"] as? String == "pass show x")
    #expect(json.hasSuffix("}\n") && json.filter { $0 == "\n" }.count == 1)
  }

  @Test func aMissingDefaultFileSaysSo() {
    var settings = Settings()
    settings.source = SettingsSource(path: "/h/.config/appt/config", chosenBy: .standard, exists: false)
    #expect(
      settings.reportText().hasPrefix(
        "# settings file /h/.config/appt/config (the default place; it does not exist, so every value is a default)\n"
      )
    )
  }

  @Test func themesAndColors() throws {
    let mono = try parsed("[ui]\ntheme = mono\n[colors]\nselected = red")
    #expect(mono.color(for: .header) == nil)
    #expect(mono.color(for: .selected)?.value == ColorPair(.red))
    let light = try parsed("[ui]\ntheme = light")
    #expect(light.color(for: .marked)?.value == ColorPair(.magenta))
    #expect(Settings().color(for: .marked)?.value == ColorPair(.yellow))
    #expect(Settings().color(for: .field) == nil)
  }

  @Test func hexColorsBecomeTheNearestTheTerminalHas() throws {
    let dodger = try #require(SettingsColor(parsing: "#1E90FF"))
    #expect(dodger.description == "#1e90ff")
    #expect(dodger.number(terminalColors: 8) == SettingsColor.NamedColor.cyan.rawValue)
    #expect(dodger.number(terminalColors: 256) == 33)  // xterm's 0087ff
    #expect(try #require(SettingsColor(parsing: "#808080")).number(terminalColors: 256) == 244)
    #expect(try #require(SettingsColor(parsing: "#ff0000")).number(terminalColors: 256) == 196)
    #expect(SettingsColor.red.number(terminalColors: 256) == 1)
    #expect(SettingsColor.terminalDefault.number(terminalColors: 8) == -1)
    #expect(SettingsColor(parsing: "#12345g") == nil)
  }
}

@Suite("Date templates")
struct DateTemplateTests {
  let formatter = AppointmentFormatter(clock: Fixture.clock)
  let day = Fixture.instant("2026-12-01T09:05:00+01:00")

  @Test(
    "fields",
    arguments: [
      ("%a %-d %b %Y", "Tue 1 Dec 2026"), ("%A %d %B", "Tuesday 01 December"), ("%e|%m|%-m|%y", " 1|12|12|26"),
      ("%F", "2026-12-01"), ("%j %u", "335 2"), ("%H %-H %I %-I %M", "09 9 09 9 05"), ("%p %P %R", "AM am 09:05"),
      ("100%% sure", "100% sure"), ("", ""),
    ]
  )
  func fields(template: String, expected: String) throws {
    #expect(formatter.format(day, as: try DateTemplate(parsing: template)) == expected)
  }

  @Test func theStandardIsTheHeadersFormat() {
    #expect(formatter.format(day, as: .standardDay) == formatter.longDay(day))
  }

  @Test("unknown fields are refused", arguments: ["%Q", "%-a", "%", "%-"])
  func refused(template: String) {
    #expect(commandError { () throws(CommandError) in try DateTemplate(parsing: template) } != nil)
  }
}

@Suite("Settings in the grammar and the formatter")
struct SettingsWiringTests {
  @Test func twelveHourTimesInTextButNotInJSON() {
    let formatter = AppointmentFormatter(clock: Fixture.clock, timeFormat: .hours12)
    let morning = Fixture.appointment(start: "2026-12-01T09:05:00+01:00", end: "2026-12-01T12:30:00+01:00")
    #expect(formatter.timeRange(morning) == "9:05am-12:30pm")
    #expect(formatter.textLine(morning) == "1a2b3c  Tue 2026-12-01  9:05am-12:30pm  Dentist")
    let late = Fixture.appointment(start: "2026-12-01T00:00:00+01:00", end: "2026-12-02T00:00:00+01:00")
    #expect(formatter.timeRange(late) == "12:00am-12:00am")
    let evening = Fixture.appointment(start: "2026-12-01T23:00:00+01:00", end: "2026-12-02T00:00:00+01:00")
    #expect(formatter.timeRange(evening) == "11:00pm-12:00am")
    #expect(formatter.dayAndTime(morning.start) == "Tue 2026-12-01 9:05am")
    #expect(formatter.iso8601(morning.start) == "2026-12-01T09:05:00+01:00")
    #expect(formatter.jsonObject(morning).contains("\"start\":\"2026-12-01T09:05:00+01:00\""))
    #expect(formatter.time24(evening.start) == "23:00")
    // The standard formatter is unchanged.
    #expect(AppointmentFormatter(clock: Fixture.clock).timeRange(evening) == "23:00-24:00")
  }

  func add(_ line: String, defaults: CommandParser.Defaults) throws -> AddRequest {
    guard case .add(let request) = try CommandParser(clock: Fixture.clock, defaults: defaults).parse(line: line) else {
      throw CommandError.invalid("not an add")
    }
    return request
  }

  @Test func addLastsTheDefaultDuration() throws {
    let request = try add("add Tea --at 2026-12-01 10:00", defaults: .init(duration: 25 * 60))
    #expect(request.end.timeIntervalSince(request.start) == 25 * 60)
    let given = try add("add Tea --at 2026-12-01 10:00 --for 2h", defaults: .init(duration: 25 * 60))
    #expect(given.end.timeIntervalSince(given.start) == 7200)
    let allDay = try add("add Trip --at 2026-12-01", defaults: .init(duration: 25 * 60))
    #expect(allDay.end.timeIntervalSince(allDay.start) == 86_400)
  }

  @Test func aWeekStartingSundayCountsTheWeeksOfAWeeklySeriesFromSunday() throws {
    let line = "add Swim --at 2026-12-06 10:00 --repeat weekly --every 2 --on sun,mon"
    let sunday = try add(line, defaults: .init(weekStart: .sunday))
    #expect(sunday.recurrence?.rules.map(\.text) == ["FREQ=WEEKLY;INTERVAL=2;BYDAY=MO,SU;WKST=SU"])
    let zone = Fixture.paris
    let days = try #require(sunday.recurrence).set(start: sunday.start, zone: zone)
      .occurrences(from: sunday.start, to: sunday.start.addingTimeInterval(16 * 86_400))
      .map { AppointmentFormatter(clock: Fixture.clock).isoDay($0) }
    #expect(days == ["2026-12-06", "2026-12-07", "2026-12-20", "2026-12-21"])
    let monday = try add(line, defaults: .init(weekStart: .monday))
    #expect(monday.recurrence?.rules.map(\.text) == ["FREQ=WEEKLY;INTERVAL=2;BYDAY=MO,SU"])
    // Where the week start changes nothing, the rule says nothing about it.
    let everyWeek = try add(
      "add Swim --at 2026-12-06 10:00 --repeat weekly --on sun,mon",
      defaults: .init(weekStart: .sunday)
    )
    #expect(everyWeek.recurrence?.rules.map(\.text) == ["FREQ=WEEKLY;BYDAY=MO,SU"])
  }

  @Test func aMisspeltCommandGetsTheNearest() {
    let parser = CommandParser(clock: Fixture.clock)
    #expect(
      commandError { () throws(CommandError) in try parser.parse(line: "lsit") }
        == .usage("unknown command \"lsit\"; did you mean list?")
    )
    #expect(
      commandError { () throws(CommandError) in try parser.parse(line: "confg") }
        == .usage("unknown command \"confg\"; did you mean config?")
    )
    #expect(
      commandError { () throws(CommandError) in try parser.parse(line: "frobnicate") }
        == .usage("unknown command \"frobnicate\"; try 'help'")
    )
  }

  @Test func syncParses() throws {
    let parser = CommandParser(clock: Fixture.clock)
    #expect(try parser.parse(line: "sync") == .sync(accounts: []))
    #expect(try parser.parse(line: "sync work home Work") == .sync(accounts: ["work", "home"]))
    #expect(try parser.parse(line: "sync -- -odd") == .sync(accounts: ["-odd"]))
    #expect(try parser.parse(line: "sync --help") == .help(topic: "sync"))
    #expect(
      commandError { () throws(CommandError) in try parser.parse(line: "sync --all") }
        == .usage("sync: unknown option \"--all\" (sync takes account names only)")
    )
    #expect(
      commandError { () throws(CommandError) in try parser.parse(line: "sync ''") }
        == .invalid("sync: an account's name is empty")
    )
    #expect(CommandHelp.usage(for: "sync")?.hasPrefix("usage: sync [ACCOUNT...]") == true)
  }

  @Test func configParses() throws {
    let parser = CommandParser(clock: Fixture.clock)
    #expect(try parser.parse(line: "config") == .config(path: false, json: false))
    #expect(try parser.parse(line: "config --path") == .config(path: true, json: false))
    #expect(try parser.parse(line: "config --json") == .config(path: false, json: true))
    #expect(try parser.parse(line: "config --help") == .help(topic: "config"))
    #expect(
      commandError { () throws(CommandError) in try parser.parse(line: "config x") }
        == .usage("config: unexpected \"x\"")
    )
    #expect(CommandHelp.usage(for: "config")?.hasPrefix("usage: config [--path] [--json]") == true)
  }
}
