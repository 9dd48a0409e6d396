import Foundation

/// Parses the command grammar shared by one-shot arguments, stdin scripts and the TUI's `:`
/// line (the man page, COMMANDS) into a `Command`.
///
/// Conventions, for every command:
/// - options may come in any order, before or after positional words, as `--opt VALUE` or
///   `--opt=VALUE`; a WHEN value may be two words (`--at 2026-12-01 10:00`);
/// - a value cannot start with `--` (`--note --x` is "--note needs a value"); write
///   `--note=--x` for that. A value starting with one dash is fine (`--at -1d`);
/// - `--` ends the options: every later word is positional;
/// - `--help` or `-h` anywhere among the options means `help COMMAND`;
/// - giving an option twice is a usage error (no silent "last one wins");
/// - commands and option names are case-sensitive (like git); values are not.
///
/// `add` joins all its positional words with single spaces into the title, so
/// `add Lunch with Bob --at fri 12:30` works without quotes; the title is trimmed.
public struct CommandParser: Sendable {
  private let clock: Clock
  private let whenParser: WhenParser
  /// What `add` takes when it is not told (`[ui] default_duration`, `week_start`).
  private let defaults: Defaults

  /// The settings the grammar reads (the man page, SETTINGS).
  public struct Defaults: Sendable, Equatable {
    /// How long an `add` without `--for` or `--until` lasts (seconds).
    public var duration: TimeInterval
    /// The first day of the week: a weekly series with an interval and days (`--every 2
    /// --on sun,mon`) counts its weeks from it (WKST; Monday, RFC 5545's default, is not written).
    public var weekStart: Recurrence.Weekday

    public init(duration: TimeInterval = 3600, weekStart: Recurrence.Weekday = .monday) {
      self.duration = duration
      self.weekStart = weekStart
    }

    public init(settings: Settings) {
      self.init(duration: settings.ui.defaultDuration.value, weekStart: settings.ui.weekStart.value)
    }
  }

  public init(clock: Clock, defaults: Defaults = Defaults()) {
    self.clock = clock
    self.whenParser = WhenParser(clock: clock)
    self.defaults = defaults
  }

  /// Splits and parses one line; `nil` for a blank or comment-only line.
  public func parse(line: String) throws(CommandError) -> Command? {
    let words = try Tokenizer.split(line)
    if words.isEmpty { return nil }
    return try parse(words: words)
  }

  /// Parses already-split words (e.g. the process arguments after the global options).
  public func parse(words: [String]) throws(CommandError) -> Command {
    guard let name = words.first else { throw .usage("missing command; try 'help'") }
    let rest = Array(words.dropFirst())
    switch name {
    case "add": return try parseAdd(rest)
    case "list": return try parseList(rest)
    case "show": return try parseIDCommand("show", rest, Command.show(id:))
    case "cancel": return try parseCancel(rest)
    case "restore":
      return try parseOccurrenceCommand("restore", rest) { .restore(id: $0, occurrence: $1, ifRevision: $2) }
    case "delete": return try parseDelete(rest)
    case "edit": return try parseEdit(rest)
    case "import": return try parseImport(rest)
    case "export": return try parseExport(rest)
    case "doctor": return try parseDoctor(rest)
    case "calendars": return try parseCalendars(rest)
    case "calendar": return try parseCalendar(rest)
    case "backup": return try parseBackup(rest)
    case "help", "--help", "-h": return try parseHelp(rest)
    case "config": return try parseConfig(rest)
    case "completion": return try parseCompletion(rest)
    case "sync": return try parseSync(rest)
    case "conflicts": return try parseConflicts(rest)
    case "resolve": return try parseResolve(rest)
    case "reminders": return try parseReminders(rest)
    case "remind": return try parseRemind(rest)
    default:
      if let near = Suggestion.nearest(to: name, among: CommandHelp.names) {
        throw .usage("unknown command \(WhenParser.quoted(name)); did you mean \(near)?")
      }
      throw .usage("unknown command \(WhenParser.quoted(name)); try 'help'")
    }
  }

  // MARK: - Commands

  private func parseAdd(_ words: [String]) throws(CommandError) -> Command {
    let options: [String: OptionKind] = [
      "--at": .when, "--for": .text, "--until": .when, "--note": .text, "--location": .text, "--all-day": .flag,
      "--repeat": .text, "--every": .text, "--on": .text, "--in": .text, "--count": .text, "--until-date": .when,
      "--rrule": .repeatable, "--calendar": .text, "--remind": .remind, "--no-remind": .flag,
    ]
    let scan = try scanOptions("add", options, words)
    if scan.help { return .help(topic: "add") }
    guard !scan.positional.isEmpty else { throw .usage("add: missing TITLE") }
    guard scan.given.contains("--at") else { throw .usage("add: missing --at WHEN") }
    if scan.given.contains("--for"), scan.given.contains("--until") {
      throw .usage("add: give --for or --until, not both")
    }
    if scan.given.contains("--rrule") {
      for option in ["--repeat", "--every", "--on", "--in", "--count", "--until-date"] where scan.given.contains(option)
      {
        throw .usage("add: give --rrule or \(option), not both (an RRULE says it all)")
      }
    }
    for option in ["--every", "--on", "--in", "--count", "--until-date"] where scan.given.contains(option) {
      guard scan.given.contains("--repeat") else { throw .usage("add: \(option) needs --repeat") }
    }
    if scan.given.contains("--count"), scan.given.contains("--until-date") {
      throw .usage("add: give --count or --until-date, not both")
    }
    try Self.remindOrNot("add", scan)
    if let error = scan.deferredError { throw error }
    guard let at = scan.whens["--at"] else { throw .usage("add: missing --at WHEN") }

    let title = scan.positional.joined(separator: " ").trimmingCharacters(in: .whitespacesAndNewlines)
    guard !title.isEmpty else { throw .invalid("add: the title is empty") }
    try Self.checkLengths("add", title: title, note: scan.texts["--note"])
    let location = try Self.location("add", scan)
    // A date without a time is a whole-day appointment, as in calcurse and khal.
    let isAllDay = scan.flags.contains("--all-day") || at.parts.minutes == nil
    var (start, end) = isAllDay ? try allDayRange(scan, at: at) : try timedRange(scan, at: at)
    try Self.checkTimes("add", start: start, end: end, input: Self.timeInput(scan, at: at.text))
    let recurrence = try parseRecurrence(scan, start: start)
    var typedDay = at.parts.day ?? clock.today
    if let recurrence {
      // A series starts at its first occurrence: `--at today 10:00 --on 2nd-tue` begins on
      // the next second Tuesday (RFC 5545 leaves a DTSTART the rule does not match undefined).
      let first = try firstOccurrence(of: recurrence, start: start)
      if first != start { typedDay = clock.startOfDay(first) }
      end = first.addingTimeInterval(end.timeIntervalSince(start))
      start = first
      try Self.checkTimes("add", start: start, end: end, input: Self.timeInput(scan, at: at.text))
    }
    var request = AddRequest(
      title: title,
      start: start,
      end: end,
      note: scan.texts["--note"] ?? "",
      location: location ?? "",
      isAllDay: isAllDay,
      recurrence: recurrence
    )
    request.calendar = try Self.calendarName("add", scan.texts["--calendar"])
    if scan.flags.contains("--no-remind") {
      request.alarms = []
    } else if let texts = scan.lists["--remind"] {
      request.alarms = try Self.alarms("add", texts, start: start, zone: clock.timeZone)
    }
    // The typed time on the day the appointment starts (the first occurrence's, for a series).
    if !isAllDay { request.notice = When(day: typedDay, minutes: at.parts.minutes).resolved(in: clock).notice }
    return .add(request)
  }

  private func timedRange(_ scan: Scan, at: (parts: WhenParser.Parts, text: String)) throws(CommandError) -> (
    Date, Date
  ) {
    let start = instant(of: at.parts)
    var end = start.addingTimeInterval(defaults.duration)
    if let duration = scan.texts["--for"] {
      end = start.addingTimeInterval(try DurationParser.parse(duration, allowingZero: true))
    } else if let until = scan.whens["--until"] {
      end = untilInstant(until.parts, start: start)
      guard end >= start else {
        let formatter = AppointmentFormatter(clock: clock)
        let sameDay = clock.startOfDay(end) == clock.startOfDay(start)
        let endText = sameDay ? formatter.time(end) : Self.dateTime(end, formatter)
        let startText = sameDay ? formatter.time(start) : Self.dateTime(start, formatter)
        throw .invalid("end \(endText) is before start \(startText)")
      }
      guard end.timeIntervalSince(start) <= DurationParser.maximum else {
        throw .invalid("add: an appointment cannot last more than 366 days")
      }
    }
    return (start, end)
  }

  /// Whole days: from the day's midnight, for `--for Nd` days (1 by default) or through the
  /// `--until` date.
  private func allDayRange(_ scan: Scan, at: (parts: WhenParser.Parts, text: String)) throws(CommandError) -> (
    Date, Date
  ) {
    guard at.parts.minutes == nil, let day = at.parts.day else {
      throw .invalid("add: --all-day takes a date without a time, not \(WhenParser.quoted(at.text))")
    }
    var days = 1
    if let text = scan.texts["--for"] {
      let duration = try DurationParser.parse(text)
      guard duration.truncatingRemainder(dividingBy: 86_400) == 0 else {
        throw .invalid("add: a whole-day appointment lasts whole days (1d, 2d...), not \(WhenParser.quoted(text))")
      }
      days = Int(duration / 86_400)
    } else if let until = scan.whens["--until"] {
      guard until.parts.minutes == nil, let last = until.parts.day else {
        throw .invalid("add: --until for a whole-day appointment is a date, not \(WhenParser.quoted(until.text))")
      }
      days = (clock.calendar.dateComponents([.day], from: day, to: last).day ?? 0) + 1
      guard days >= 1 else { throw .invalid("add: --until \(until.text) is before --at \(at.text)") }
    }
    guard days <= 366 else { throw .invalid("add: an appointment cannot last more than 366 days") }
    return (day, clock.day(days, after: day))
  }

  /// `--repeat daily|weekly|monthly|yearly [--every N] [--on DAYS] [--in MONTHS] [--count N |
  /// --until-date DATE]`, or any rule as `--rrule 'FREQ=...'` (repeatable: several rules).
  private func parseRecurrence(_ scan: Scan, start: Date) throws(CommandError) -> Recurrence? {
    if let texts = scan.lists["--rrule"] {
      var rules: [RecurrenceRule] = []
      for text in texts {
        do throws(RecurrenceRuleError) {
          rules.append(try RecurrenceRule(parsing: text))
        } catch {
          throw .invalid("add: --rrule \(WhenParser.quoted(text)): \(error.description)")
        }
      }
      return Recurrence(rules: rules)
    }
    guard let repeatText = scan.texts["--repeat"] else { return nil }
    guard let frequency = Recurrence.Frequency(rawValue: repeatText.lowercased()) else {
      throw .invalid("add: --repeat takes daily, weekly, monthly or yearly, not \(WhenParser.quoted(repeatText))")
    }
    var interval = 1
    if let text = scan.texts["--every"] {
      guard text.allSatisfy(WhenParser.isASCIIDigit), let n = Int(text), (1...1000).contains(n) else {
        throw .invalid("add: --every needs a whole number from 1 to 1000, not \(WhenParser.quoted(text))")
      }
      interval = n
    }
    var days: (byDay: [RecurrenceRule.WeekdayNumber], byMonthDay: [Int]) = ([], [])
    if let text = scan.texts["--on"] { days = try Self.parseOn(text, frequency: frequency) }
    var months: [Int] = []
    if let text = scan.texts["--in"] { months = try Self.parseIn(text) }
    var count: Int?
    if let text = scan.texts["--count"] {
      guard text.allSatisfy(WhenParser.isASCIIDigit), let n = Int(text), (1...100_000).contains(n) else {
        throw .invalid("add: --count needs a whole number from 1 to 100000, not \(WhenParser.quoted(text))")
      }
      count = n
    }
    var until: Date?
    if let last = scan.whens["--until-date"] {
      guard let day = last.parts.day, last.parts.minutes == nil else {
        throw .invalid("add: --until-date takes a date, not \(WhenParser.quoted(last.text))")
      }
      let end = clock.day(1, after: day).addingTimeInterval(-1)  // the whole last day counts
      guard end >= start else { throw .invalid("add: --until-date \(last.text) is before the first occurrence") }
      until = end
    }
    var recurrence = Recurrence(frequency: frequency, interval: interval, count: count, until: until)
    recurrence.rules[0].byDay = days.byDay
    recurrence.rules[0].byMonthDay = days.byMonthDay
    recurrence.rules[0].byMonth = months
    // Which week a day belongs to matters only to a weekly rule with an interval and days.
    if frequency == .weekly, interval > 1, !days.byDay.isEmpty, defaults.weekStart != .monday {
      recurrence.rules[0].weekStart = defaults.weekStart
    }
    return recurrence
  }

  /// The first occurrence of a series the user typed as starting at `start` (itself when the
  /// rule matches it); an error when the rule never produces one.
  private func firstOccurrence(of recurrence: Recurrence, start: Date) throws(CommandError) -> Date {
    let set = recurrence.set(start: start, zone: clock.timeZone, onlyRuleStarts: true)
    // Growing windows, so a daily rule costs a few days: 400 years hold every pattern of the
    // Gregorian calendar (29 February on a Monday, ...).
    var first: Date?
    for days in [62.0, 800, 12_000, 146_100] where first == nil {
      first = set.occurrences(from: start, to: start.addingTimeInterval(days * 86_400)).first
    }
    guard let first else {
      let rules = recurrence.rules.map(\.text).joined(separator: "; ")
      throw .invalid("add: the series never happens after its start (\(rules)); check --on and --in")
    }
    return first
  }

  /// `--on`: weekdays (`mon,wed`), ordinal weekdays (`2nd-tue`, `last-fri`, `2nd-last-mon`)
  /// for monthly and yearly rules, or days of the month (`15,-1`: -1 is the last day).
  static func parseOn(
    _ text: String,
    frequency: Recurrence.Frequency
  ) throws(CommandError) -> (byDay: [RecurrenceRule.WeekdayNumber], byMonthDay: [Int]) {
    var byDay: [RecurrenceRule.WeekdayNumber] = []
    var byMonthDay: [Int] = []
    let items = text.split(separator: ",", omittingEmptySubsequences: false).map {
      $0.trimmingCharacters(in: .whitespaces).lowercased()
    }
    let monthly = frequency == .monthly || frequency == .yearly
    for item in items {
      let shown = "--on \(TextSafety.escapingControls(item))"
      guard !item.isEmpty else {
        throw .invalid("add: --on \(WhenParser.quoted(text)) has an empty item; separate days with single commas")
      }
      if let day = Recurrence.Weekday(name: item) {
        byDay.append(RecurrenceRule.WeekdayNumber(day))
        continue
      }
      if let number = Int(item), item.allSatisfy({ $0.isASCII && ($0.isNumber || $0 == "-") }) {
        guard monthly else {
          throw .invalid("add: \(shown): a day of the month goes with --repeat monthly or yearly")
        }
        guard number != 0, abs(number) <= 31 else {
          throw .invalid("add: \(shown): a month has at most 31 days; write 1 to 31, or -1 for the last day")
        }
        byMonthDay.append(number)
        continue
      }
      guard let (ordinal, day) = try ordinalWeekday(item, shown: shown) else {
        throw .invalid(
          "add: \(shown): not a weekday (mon), an ordinal weekday (2nd-tue, last-fri) or a day of the month (15, -1)"
        )
      }
      guard monthly else {
        throw .invalid("add: \(shown): an ordinal weekday goes with --repeat monthly or yearly")
      }
      byDay.append(RecurrenceRule.WeekdayNumber(day, ordinal))
    }
    if !byDay.isEmpty, !byMonthDay.isEmpty {
      throw .invalid("add: --on \(WhenParser.quoted(text)): give weekdays or days of the month, not both")
    }
    // Canonical: each once, weekdays in week order (as RRULE text is compared and stored).
    let days = Array(Set(byDay)).sorted {
      ($0.weekday.rawValue, $0.ordinal ?? 0) < ($1.weekday.rawValue, $1.ordinal ?? 0)
    }
    var seen = Set<Int>()
    return (days, byMonthDay.filter { seen.insert($0).inserted })
  }

  /// `2nd-tue` -> (2, .tuesday), `last-fri` -> (-1, .friday), `2nd-last-mon` -> (-2, .monday);
  /// nil when `item` is not of that shape; an error for an ordinal no month has.
  private static func ordinalWeekday(_ item: String, shown: String) throws(CommandError) -> (Int, Recurrence.Weekday)? {
    let parts = item.split(separator: "-", omittingEmptySubsequences: false).map(String.init)
    guard parts.count == 2 || parts.count == 3, let day = Recurrence.Weekday(name: parts[parts.count - 1]) else {
      return nil
    }
    let plural = dayNames[day.rawValue] + "s"
    func number(_ word: String) -> Int? {
      let digits = word.prefix { $0.isASCII && $0.isNumber }
      guard !digits.isEmpty, let n = Int(digits) else { return nil }
      let suffix = word.dropFirst(digits.count)
      return ["st", "nd", "rd", "th", ""].contains(String(suffix)) ? n : nil
    }
    let fromEnd: Bool
    let position: Int
    if parts.count == 3 {
      guard parts[1] == "last", let n = number(parts[0]) else { return nil }
      (fromEnd, position) = (true, n)
    } else if parts[0] == "last" {
      (fromEnd, position) = (true, 1)
    } else {
      guard let n = number(parts[0]) else { return nil }
      (fromEnd, position) = (false, n)
    }
    guard (1...5).contains(position) else {
      throw .invalid("add: \(shown): a month has at most 5 \(plural); write 1st-5th or last")
    }
    return (fromEnd ? -position : position, day)
  }

  static let dayNames = ["Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday"]

  /// `--in nov`, `--in 3,6,9,12`, `--in mar,sep`: months by name or number.
  static func parseIn(_ text: String) throws(CommandError) -> [Int] {
    var months: [Int] = []
    for item in text.split(separator: ",", omittingEmptySubsequences: false) {
      let word = item.trimmingCharacters(in: .whitespaces).lowercased()
      if let n = Int(word), word.allSatisfy({ $0.isASCII && $0.isNumber }) {
        guard (1...12).contains(n) else {
          throw .invalid("add: --in \(word): months are 1 to 12, or names such as nov")
        }
        months.append(n)
      } else if let index = monthNames.firstIndex(where: { word.count >= 3 && $0.hasPrefix(word) }) {
        months.append(index + 1)
      } else {
        throw .invalid(
          "add: --in \(TextSafety.escapingControls(word)): not a month; write names (jan, november) or numbers 1 to 12"
        )
      }
    }
    return months
  }

  static let monthNames = [
    "january", "february", "march", "april", "may", "june", "july", "august", "september", "october", "november",
    "december",
  ]

  /// `--location TEXT`, checked as a note is (no NUL), at most `maximumLocationLength`.
  private static func location(_ command: String, _ scan: Scan) throws(CommandError) -> String? {
    guard let text = scan.texts["--location"] else { return nil }
    try checkLocation(command, text)
    return text
  }

  static func checkLocation(_ command: String, _ text: String) throws(CommandError) {
    if text.count > maximumLocationLength {
      throw .invalid("\(command): the location is \(text.count) characters long; at most \(maximumLocationLength)")
    }
    if text.unicodeScalars.contains("\0") { throw .invalid("\(command): the location contains a NUL character") }
  }

  private func parseList(_ words: [String]) throws(CommandError) -> Command {
    let options: [String: OptionKind] = [
      "--from": .when, "--to": .when, "--days": .text, "--all": .flag,
      "--include-cancelled": .flag, "--search": .text, "--calendar": .repeatable,
      "--week": .flag, "--month": .flag, "--format": .text,
    ]
    let scan = try scanOptions("list", options, words)
    if scan.help { return .help(topic: "list") }
    if let extra = scan.positional.first {
      throw .usage("list: unexpected argument \(WhenParser.quoted(extra))")
    }
    if scan.given.contains("--all"), !scan.given.isDisjoint(with: ["--from", "--to", "--days", "--week", "--month"]) {
      throw .usage("list: --all cannot be combined with --from, --to, --days, --week or --month")
    }
    if scan.given.contains("--week"), scan.given.contains("--month") {
      throw .usage("list: give --week or --month, not both")
    }
    for span in ["--week", "--month"] where scan.given.contains(span) {
      for other in ["--to", "--days"] where scan.given.contains(other) {
        throw .usage("list: \(span) is a whole range; give it or \(other), not both")
      }
    }
    let format = try scan.texts["--format"].map { text throws(CommandError) in try ListTemplate(parsing: text) }
    if scan.given.contains("--to"), scan.given.contains("--days") {
      throw .usage("list: give --to or --days, not both")
    }
    if let error = scan.deferredError { throw error }
    let from = scan.whens["--from"]
    let to = scan.whens["--to"]
    let days = scan.texts["--days"]

    var search: String?
    if let text = scan.texts["--search"] {
      guard !text.trimmingCharacters(in: .whitespacesAndNewlines).isEmpty else {
        throw .invalid("list: --search needs some text")
      }
      search = text
    }
    let includeCancelled = scan.flags.contains("--include-cancelled")
    var calendars: [String]?
    if let names = scan.lists["--calendar"] {
      calendars = []
      for name in names { calendars?.append(try Self.calendarName("list", name) ?? name) }
    }
    if scan.flags.contains("--all") {
      return .list(
        ListRequest(
          range: nil,
          includeCancelled: includeCancelled,
          search: search,
          calendars: calendars,
          format: format
        )
      )
    }

    var start = from.map { instant(of: $0.parts) } ?? clock.today
    var end: Date
    if scan.flags.contains("--week") || scan.flags.contains("--month") {
      // The week (from `week_start`) or the calendar month holding --from, else today.
      let day = clock.dayNumber(of: start)
      let first: Int
      let next: Int
      if scan.flags.contains("--week") {
        first = day - ((CivilDate.weekday(ofDayNumber: day) - defaults.weekStart.rawValue) % 7 + 7) % 7
        next = first + 7
      } else {
        let date = CivilDate(dayNumber: day)
        first = CivilDate.dayNumber(year: date.year, month: date.month, day: 1)
        next =
          date.month == 12
          ? CivilDate.dayNumber(year: date.year + 1, month: 1, day: 1)
          : CivilDate.dayNumber(year: date.year, month: date.month + 1, day: 1)
      }
      end = clock.day(next - day, after: start)
      start = clock.day(first - day, after: start)
    } else if let to {
      if let day = to.parts.day, to.parts.minutes == nil {
        end = clock.day(1, after: day)  // a bare date is inclusive: up to the next midnight
      } else {
        end = instant(of: to.parts)
      }
      guard start < end else {
        let toText = TextSafety.escapingControls(to.text)
        if let from {
          let fromText = TextSafety.escapingControls(from.text)
          if start == end, to.parts.minutes != nil {
            throw .invalid("empty range: --from \(fromText) and --to \(toText) are the same instant")
          }
          throw .invalid("reversed range: --from \(fromText) is after --to \(toText)")
        }
        let today = AppointmentFormatter(clock: clock).day(start)
        throw .invalid(
          "reversed range: --to \(toText) is before today (\(today)), where the list starts; give --from too"
        )
      }
    } else {
      var count = 7
      if let days {
        guard days.allSatisfy(WhenParser.isASCIIDigit), let n = Int(days), (1...100_000).contains(n) else {
          throw .invalid("list: --days needs a whole number from 1 to 100000, not \(WhenParser.quoted(days))")
        }
        count = n
      }
      if from?.parts.minutes == nil {
        // Whole days from a day's start (no `Calendar` made: `Clock.day`).
        end = clock.day(count, after: start)
      } else {
        // From a time of day, the same time `count` days on, on the wall clock.
        end =
          clock.calendar.date(byAdding: .day, value: count, to: start)
          ?? start.addingTimeInterval(Double(count) * 86_400)
      }
    }
    return .list(
      ListRequest(
        range: DateInterval(start: start, end: end),
        includeCancelled: includeCancelled,
        search: search,
        calendars: calendars,
        format: format
      )
    )
  }

  private func parseEdit(_ words: [String]) throws(CommandError) -> Command {
    let options: [String: OptionKind] = [
      "--title": .text, "--at": .when, "--for": .text, "--note": .text, "--location": .text, "--occurrence": .when,
      "--and-following": .flag, "--if-revision": .text, "--calendar": .text, "--remind": .remind, "--no-remind": .flag,
    ]
    let scan = try scanOptions("edit", options, words)
    if scan.help { return .help(topic: "edit") }
    let id = try onlyID("edit", scan.positional)
    guard !scan.given.subtracting(["--occurrence", "--and-following", "--if-revision"]).isEmpty else {
      throw .usage("edit: nothing to change; give --title, --at, --for, --note, --location, --calendar or --remind")
    }
    try Self.remindOrNot("edit", scan)
    try Self.andFollowingNeedsOccurrence("edit", scan)
    let ifRevision = try Self.revision("edit", scan)
    if let error = scan.deferredError { throw error }
    var request = EditRequest(id: id)
    if let title = scan.texts["--title"] {
      let trimmed = title.trimmingCharacters(in: .whitespacesAndNewlines)
      guard !trimmed.isEmpty else { throw .invalid("edit: the title is empty") }
      try Self.checkLengths("edit", title: trimmed, note: nil)
      request.title = trimmed
    }
    if let at = scan.whens["--at"] {
      let start = instant(of: at.parts)
      // The end is known once the stored duration is: the store checks it (AppointmentRules).
      try Self.checkTimes("edit", start: start, end: nil, input: "--at \(WhenParser.quoted(at.text))")
      request.start = start
      request.notice = dstNotice(of: at.parts)
    }
    if let duration = scan.texts["--for"] { request.duration = try DurationParser.parse(duration, allowingZero: true) }
    if let note = scan.texts["--note"] {
      try Self.checkLengths("edit", title: nil, note: note)
      request.note = note
    }
    request.location = try Self.location("edit", scan)
    request.occurrence = try occurrenceDay("edit", scan)
    request.andFollowing = scan.flags.contains("--and-following")
    request.ifRevision = ifRevision
    request.calendar = try Self.calendarName("edit", scan.texts["--calendar"])
    if scan.flags.contains("--no-remind") {
      request.alarms = []
    } else if let texts = scan.lists["--remind"] {
      // `at 08:00` is read against the start: the new one, else the stored one (which the
      // executor reads); checked here against now, so a mistake stops before the store.
      request.alarms = try Self.alarms("edit", texts, start: request.start ?? clock.now, zone: clock.timeZone)
      if request.start == nil, texts.contains(where: Self.needsStart) { request.alarmTexts = texts }
    }
    return .edit(request)
  }

  /// `--remind` and `--no-remind` say opposite things.
  private static func remindOrNot(_ command: String, _ scan: Scan) throws(CommandError) {
    if scan.given.contains("--remind"), scan.given.contains("--no-remind") {
      throw .usage("\(command): give --remind or --no-remind, not both")
    }
  }

  /// Whether a `--remind` text is read against the appointment's start (`at 08:00`).
  static func needsStart(_ text: String) -> Bool {
    text.trimmingCharacters(in: .whitespaces).lowercased().hasPrefix("at ")
  }

  /// `--remind` texts as alarms of an appointment starting at `start`, each once, in order;
  /// a text that is not one is `COMMAND: --remind TEXT: why`. Shared with the form.
  public static func alarms(
    _ command: String,
    _ texts: [String],
    start: Date,
    zone: TimeZone
  ) throws(CommandError) -> [Alarm] {
    var alarms: [Alarm] = []
    for text in texts {
      let alarm: Alarm
      do throws(CommandError) {
        alarm = try Alarm.parse(text, start: start, zone: zone)
      } catch {
        // `Alarm.parse` names the text too: said once.
        let named = "invalid reminder \(WhenParser.quoted(text)): "
        let why = error.message.hasPrefix(named) ? String(error.message.dropFirst(named.count)) : error.message
        throw .invalid("\(command): --remind \(WhenParser.quoted(text)): \(why)")
      }
      if !alarms.contains(where: { $0.key == alarm.key }) { alarms.append(alarm) }
    }
    return alarms
  }

  /// `reminders [--from WHEN] [--to WHEN] [--calendar NAME...] [--json]`: from now (or
  /// `--from`: a date alone is its midnight) to a day later (or `--to`: a date alone is
  /// inclusive, up to the next midnight, as in `list`).
  private func parseReminders(_ words: [String]) throws(CommandError) -> Command {
    let options: [String: OptionKind] = ["--from": .when, "--to": .when, "--calendar": .repeatable, "--json": .flag]
    let scan = try scanOptions("reminders", options, words)
    if scan.help { return .help(topic: "reminders") }
    if let extra = scan.positional.first { throw .usage("reminders: unexpected argument \(WhenParser.quoted(extra))") }
    if let error = scan.deferredError { throw error }
    let from = scan.whens["--from"]
    let start = from.map { instant(of: $0.parts) } ?? clock.now
    var end = clock.calendar.date(byAdding: .day, value: 1, to: start) ?? start.addingTimeInterval(86_400)
    if let to = scan.whens["--to"] {
      end = to.parts.minutes == nil ? clock.day(1, after: to.parts.day ?? clock.today) : instant(of: to.parts)
      guard start < end else {
        let toText = TextSafety.escapingControls(to.text)
        guard let from else {
          throw .invalid(
            "reminders: reversed range: --to \(toText) is before now, where the list starts; give --from too"
          )
        }
        let fromText = TextSafety.escapingControls(from.text)
        if start == end {
          throw .invalid("reminders: empty range: --from \(fromText) and --to \(toText) are the same instant")
        }
        throw .invalid("reminders: reversed range: --from \(fromText) is after --to \(toText)")
      }
    }
    var calendars: [String]?
    if let names = scan.lists["--calendar"] {
      calendars = []
      for name in names { calendars?.append(try Self.calendarName("reminders", name) ?? name) }
    }
    return .reminders(
      RemindersRequest(
        range: DateInterval(start: start, end: end),
        calendars: calendars,
        json: scan.flags.contains("--json")
      )
    )
  }

  /// `cancel ID [--occurrence DATE] [--if-revision N]`, `restore ID [--occurrence DATE]
  /// [--if-revision N]`.
  private func parseOccurrenceCommand(
    _ command: String,
    _ words: [String],
    _ make: (String, Date?, Int?) -> Command
  ) throws(CommandError) -> Command {
    let scan = try scanOptions(command, ["--occurrence": .when, "--if-revision": .text], words)
    if scan.help { return .help(topic: command) }
    let id = try onlyID(command, scan.positional)
    let ifRevision = try Self.revision(command, scan)
    if let error = scan.deferredError { throw error }
    return make(id, try occurrenceDay(command, scan), ifRevision)
  }

  /// `cancel ID [--occurrence DATE [--and-following]] [--if-revision N]`.
  private func parseCancel(_ words: [String]) throws(CommandError) -> Command {
    let options: [String: OptionKind] = ["--occurrence": .when, "--and-following": .flag, "--if-revision": .text]
    let scan = try scanOptions("cancel", options, words)
    if scan.help { return .help(topic: "cancel") }
    let id = try onlyID("cancel", scan.positional)
    try Self.andFollowingNeedsOccurrence("cancel", scan)
    let ifRevision = try Self.revision("cancel", scan)
    if let error = scan.deferredError { throw error }
    return .cancel(
      id: id,
      occurrence: try occurrenceDay("cancel", scan),
      andFollowing: scan.flags.contains("--and-following"),
      ifRevision: ifRevision
    )
  }

  /// `--and-following` says "this occurrence and the later ones": it needs the occurrence.
  private static func andFollowingNeedsOccurrence(_ command: String, _ scan: Scan) throws(CommandError) {
    if scan.given.contains("--and-following"), !scan.given.contains("--occurrence") {
      throw .usage("\(command): --and-following needs --occurrence DATE (the first occurrence it changes)")
    }
  }

  /// `delete ID [--if-revision N]`.
  private func parseDelete(_ words: [String]) throws(CommandError) -> Command {
    let scan = try scanOptions("delete", ["--if-revision": .text], words)
    if scan.help { return .help(topic: "delete") }
    let id = try onlyID("delete", scan.positional)
    return .delete(id: id, ifRevision: try Self.revision("delete", scan))
  }

  /// `--if-revision N`, if given: a revision is a whole number from 1 up, and anything else is
  /// a usage error (a script computing a revision wrongly is a bug to stop at, like a typo in
  /// an option name).
  private static func revision(_ command: String, _ scan: Scan) throws(CommandError) -> Int? {
    guard let text = scan.texts["--if-revision"] else { return nil }
    guard !text.isEmpty, text.allSatisfy(WhenParser.isASCIIDigit), let n = Int(text), n >= 1 else {
      throw .usage("\(command): --if-revision needs a revision number (1 or more), not \(WhenParser.quoted(text))")
    }
    return n
  }

  /// The day `--occurrence DATE` names (a local midnight), if given.
  private func occurrenceDay(_ command: String, _ scan: Scan) throws(CommandError) -> Date? {
    guard let occurrence = scan.whens["--occurrence"] else { return nil }
    guard let day = occurrence.parts.day, occurrence.parts.minutes == nil else {
      throw .invalid("\(command): --occurrence takes a date, not \(WhenParser.quoted(occurrence.text))")
    }
    return day
  }

  /// `show ID`: one id and no options.
  private func parseIDCommand(
    _ command: String,
    _ words: [String],
    _ make: (String) -> Command
  ) throws(CommandError) -> Command {
    let scan = try scanOptions(command, [:], words)
    if scan.help { return .help(topic: command) }
    return make(try onlyID(command, scan.positional))
  }

  /// `import FILE.ics [--partial]`.
  private func parseImport(_ words: [String]) throws(CommandError) -> Command {
    let scan = try scanOptions("import", ["--partial": .flag, "--calendar": .text], words)
    if scan.help { return .help(topic: "import") }
    guard let path = scan.positional.first else { throw .usage("import: missing FILE") }
    guard scan.positional.count == 1 else {
      throw .usage("import: unexpected argument \(WhenParser.quoted(scan.positional[1]))")
    }
    guard !path.isEmpty else { throw .invalid("import: the file name is empty") }
    return .importFile(
      path: path,
      partial: scan.flags.contains("--partial"),
      calendar: try Self.calendarName("import", scan.texts["--calendar"])
    )
  }

  /// `export [--from WHEN] [--to WHEN] [FILE]`: `--from` alone runs to the end of time, `--to`
  /// alone from its beginning; `--to DATE` includes that day, as in `list`.
  private func parseExport(_ words: [String]) throws(CommandError) -> Command {
    let scan = try scanOptions("export", ["--from": .when, "--to": .when, "--calendar": .text], words)
    if scan.help { return .help(topic: "export") }
    guard scan.positional.count <= 1 else {
      throw .usage("export: unexpected argument \(WhenParser.quoted(scan.positional[1]))")
    }
    if let error = scan.deferredError { throw error }
    let path = scan.positional.first
    if path?.isEmpty == true { throw .invalid("export: the file name is empty") }
    let from = scan.whens["--from"]
    let to = scan.whens["--to"]
    let calendar = try Self.calendarName("export", scan.texts["--calendar"])
    guard from != nil || to != nil else { return .export(range: nil, path: path, calendar: calendar) }
    let start = from.map { instant(of: $0.parts) } ?? .distantPast
    var end = Date.distantFuture
    if let to {
      // A bare date is inclusive: up to the next midnight.
      end = to.parts.minutes == nil ? clock.day(1, after: to.parts.day ?? clock.today) : instant(of: to.parts)
    }
    guard start < end else {
      let fromText = TextSafety.escapingControls(from?.text ?? "")
      let toText = TextSafety.escapingControls(to?.text ?? "")
      if start == end {
        throw .invalid("export: empty range: --from \(fromText) and --to \(toText) are the same instant")
      }
      throw .invalid("export: reversed range: --from \(fromText) is after --to \(toText)")
    }
    return .export(range: DateInterval(start: start, end: end), path: path, calendar: calendar)
  }

  /// A calendar's name as a command refers to it (trimmed, not empty); nil stays nil.
  static func calendarName(_ command: String, _ text: String?, option: String = "--calendar") throws(CommandError)
    -> String?
  {
    guard let text else { return nil }
    let trimmed = text.trimmingCharacters(in: .whitespaces)
    guard !trimmed.isEmpty else { throw .invalid("\(command): \(option) needs a calendar's name") }
    return trimmed
  }

  private func parseCalendars(_ words: [String]) throws(CommandError) -> Command {
    let scan = try scanOptions("calendars", [:], words)
    if scan.help { return .help(topic: "calendars") }
    if let extra = scan.positional.first {
      throw .usage("calendars: unexpected argument \(WhenParser.quoted(extra))")
    }
    return .calendar(.list)
  }

  /// `calendar add NAME [--color C] | rename OLD NEW | color NAME C | delete NAME [--move-to
  /// OTHER | --with-appointments] | show NAME | hide NAME | sync NAME | unsync NAME`.
  private func parseCalendar(_ words: [String]) throws(CommandError) -> Command {
    let actions = ShellCompletion.calendarSubcommands
    guard let action = words.first, action != "--help", action != "-h" else {
      if words.isEmpty { throw .usage("calendar: missing action; one of \(actions.joined(separator: ", "))") }
      return .help(topic: "calendar")
    }
    guard actions.contains(action) else {
      throw .usage("calendar: unknown action \(WhenParser.quoted(action)); one of \(actions.joined(separator: ", "))")
    }
    let command = "calendar \(action)"
    var options: [String: OptionKind] = [:]
    if action == "add" { options["--color"] = .text }
    if action == "delete" { options = ["--move-to": .text, "--with-appointments": .flag] }
    let scan = try scanOptions(command, options, Array(words.dropFirst()))
    if scan.help { return .help(topic: "calendar") }
    let needed = ["rename": 2, "color": 2][action] ?? 1
    let shape = ["rename": "OLD NEW", "color": "NAME COLOR"][action] ?? "NAME"
    guard scan.positional.count >= needed else { throw .usage("\(command): missing \(shape)") }
    guard scan.positional.count == needed else {
      throw .usage(
        "\(command): unexpected argument \(WhenParser.quoted(scan.positional[needed])) (quote a name with spaces)"
      )
    }
    func checked(_ name: String) throws(CommandError) -> String {
      do throws(CommandError) { return try CalendarRules.checkName(name) } catch {
        throw .invalid("\(command): \(error.message)")
      }
    }
    func color(_ text: String) throws(CommandError) -> String {
      do throws(CommandError) { return try CalendarRules.checkColor(text) } catch {
        throw .invalid("\(command): \(error.message)")
      }
    }
    let name = scan.positional[0].trimmingCharacters(in: .whitespaces)
    guard !name.isEmpty else { throw .invalid("\(command): the calendar's name is empty") }
    switch action {
    case "add": return .calendar(.add(name: try checked(name), color: try scan.texts["--color"].map(color)))
    case "rename": return .calendar(.rename(old: name, new: try checked(scan.positional[1])))
    case "color": return .calendar(.color(name: name, color: try color(scan.positional[1])))
    case "delete":
      if scan.given.contains("--move-to"), scan.given.contains("--with-appointments") {
        throw .usage("calendar delete: give --move-to OTHER or --with-appointments, not both")
      }
      let moveTo = try Self.calendarName(command, scan.texts["--move-to"], option: "--move-to")
      return .calendar(
        .delete(name: name, moveTo: moveTo, withAppointments: scan.flags.contains("--with-appointments"))
      )
    case "sync", "unsync": return .calendar(.setSyncs(name: name, syncs: action == "sync"))
    default: return .calendar(.setShown(name: name, shown: action == "show"))
    }
  }

  private func parseDoctor(_ words: [String]) throws(CommandError) -> Command {
    let scan = try scanOptions("doctor", [:], words)
    if scan.help { return .help(topic: "doctor") }
    if let extra = scan.positional.first { throw .usage("doctor: unexpected argument \(WhenParser.quoted(extra))") }
    return .doctor
  }

  private func parseBackup(_ words: [String]) throws(CommandError) -> Command {
    let scan = try scanOptions("backup", [:], words)
    if scan.help { return .help(topic: "backup") }
    guard let path = scan.positional.first else { throw .usage("backup: missing FILE") }
    guard scan.positional.count == 1 else {
      throw .usage("backup: unexpected argument \(WhenParser.quoted(scan.positional[1]))")
    }
    guard !path.isEmpty else { throw .invalid("backup: the file name is empty") }
    return .backup(path: path)
  }

  private func parseConflicts(_ words: [String]) throws(CommandError) -> Command {
    let scan = try scanOptions("conflicts", [:], words)
    if scan.help { return .help(topic: "conflicts") }
    guard let first = scan.positional.first else { return .conflicts }
    guard first == "show" else { throw .usage("conflicts: unexpected argument \(WhenParser.quoted(first))") }
    guard scan.positional.count > 1 else { throw .usage("conflicts show: missing ID ('appt conflicts' lists them)") }
    guard scan.positional.count == 2 else {
      throw .usage("conflicts show: unexpected argument \(WhenParser.quoted(scan.positional[2]))")
    }
    return .conflictShow(id: scan.positional[1])
  }

  private func parseResolve(_ words: [String]) throws(CommandError) -> Command {
    let scan = try scanOptions("resolve", ["--keep": .text], words)
    if scan.help { return .help(topic: "resolve") }
    guard let id = scan.positional.first else { throw .usage("resolve: missing ID ('appt conflicts' lists them)") }
    guard scan.positional.count == 1 else {
      throw .usage("resolve: unexpected argument \(WhenParser.quoted(scan.positional[1]))")
    }
    guard let keep = scan.texts["--keep"] else { throw .usage("resolve: missing --keep local|server") }
    guard let choice = ConflictChoice(rawValue: keep.lowercased()) else {
      throw .usage("resolve: --keep takes local or server, not \(WhenParser.quoted(keep))")
    }
    return .resolve(id: id, keep: choice)
  }

  private func parseConfig(_ words: [String]) throws(CommandError) -> Command {
    let scan = try scanOptions("config", ["--path": .flag, "--json": .flag], words)
    if scan.help { return .help(topic: "config") }
    if let word = scan.positional.first { throw .usage("config: unexpected \(WhenParser.quoted(word))") }
    if let error = scan.deferredError { throw error }
    return .config(path: scan.flags.contains("--path"), json: scan.flags.contains("--json"))
  }

  /// `remind [--once]`: the reminder daemon.
  private func parseRemind(_ words: [String]) throws(CommandError) -> Command {
    let scan = try scanOptions("remind", ["--once": .flag], words)
    if scan.help { return .help(topic: "remind") }
    if let word = scan.positional.first { throw .usage("remind: unexpected \(WhenParser.quoted(word))") }
    if let error = scan.deferredError { throw error }
    return .remind(once: scan.flags.contains("--once"))
  }

  private func parseCompletion(_ words: [String]) throws(CommandError) -> Command {
    let scan = try scanOptions("completion", [:], words)
    if scan.help { return .help(topic: "completion") }
    let shells = ShellCompletion.allCases.map(\.rawValue).joined(separator: ", ")
    guard let name = scan.positional.first else { throw .usage("completion: name a shell: \(shells)") }
    guard scan.positional.count == 1 else {
      throw .usage("completion: unexpected argument \(WhenParser.quoted(scan.positional[1]))")
    }
    guard let shell = ShellCompletion(rawValue: name) else {
      throw .usage("completion: appt completes \(shells), not \(WhenParser.quoted(name))")
    }
    return .completion(shell)
  }

  /// `sync [ACCOUNT...]`: account names as the settings file spells them (`--` before one that
  /// starts with `-`).
  private func parseSync(_ words: [String]) throws(CommandError) -> Command {
    var accounts: [String] = []
    var index = 0
    while index < words.count {
      let word = words[index]
      index += 1
      if word == "--" {
        accounts += words[index...]
        break
      }
      if word == "--help" || word == "-h" { return .help(topic: "sync") }
      if word.hasPrefix("-"), word.count > 1 {
        throw .usage("sync: unknown option \(WhenParser.quoted(word)) (sync takes account names only)")
      }
      accounts.append(word)
    }
    for account in accounts where account.isEmpty { throw .invalid("sync: an account's name is empty") }
    var seen: Set<String> = []
    return .sync(accounts: accounts.filter { seen.insert($0.lowercased()).inserted })
  }

  private func parseHelp(_ words: [String]) throws(CommandError) -> Command {
    guard let topic = words.first else { return .help(topic: nil) }
    guard words.count == 1 else { throw .usage("help: unexpected argument \(WhenParser.quoted(words[1]))") }
    let name = (topic == "--help" || topic == "-h") ? "help" : topic
    guard CommandHelp.usage(for: name) != nil else {
      throw .usage("help: unknown command \(WhenParser.quoted(topic)); try 'help'")
    }
    return .help(topic: name)
  }

  /// The limits of `AppointmentRules`, where they are defined (kept here for the form).
  public static let maximumTitleLength = AppointmentRules.maximumTitleLength
  public static let maximumNoteLength = AppointmentRules.maximumNoteLength
  /// The longest location `--location` and the form take.
  public static let maximumLocationLength = 1_000

  /// `AppointmentRules` on the given fields, as a message of `command`.
  static func checkLengths(_ command: String, title: String?, note: String?) throws(CommandError) {
    do throws(AppointmentRules.Violation) {
      if let title { try AppointmentRules.checkTitle(title) }
      if let note { try AppointmentRules.checkNote(note) }
    } catch {
      throw .invalid("\(command): \(error.message)")
    }
  }

  /// `AppointmentRules.checkTimes` for what `--at` (`input`) and its length or end gave.
  static func checkTimes(_ command: String, start: Date, end: Date?, input: String) throws(CommandError) {
    do throws(AppointmentRules.Violation) {
      if let end {
        try AppointmentRules.checkTimes(start: start, end: end)
      } else {
        try AppointmentRules.checkInstant(start, .start)
      }
    } catch {
      throw .invalid("\(command): \(input): \(error.message)")
    }
  }

  // MARK: - Ids

  /// Exactly one positional word, validated as an id prefix.
  private func onlyID(_ command: String, _ positional: [String]) throws(CommandError) -> String {
    guard let word = positional.first else { throw .usage("\(command): missing ID") }
    guard positional.count == 1 else {
      throw .usage("\(command): unexpected argument \(WhenParser.quoted(positional[1]))")
    }
    return try Self.validID(word)
  }

  /// A lower-cased id prefix: 4 to 36 characters of hex digits and dashes.
  static func validID(_ word: String) throws(CommandError) -> String {
    let isIDCharacter: (Character) -> Bool = { $0.isASCII && ($0.isHexDigit || $0 == "-") }
    guard word.count >= 4, word.allSatisfy(isIDCharacter) else {
      throw .invalid("invalid id \(WhenParser.quoted(word)): use 4 or more hex characters of the id")
    }
    guard word.count <= 36 else {
      throw .invalid("invalid id \(WhenParser.quoted(word)): longer than a full id (36 characters)")
    }
    return word.lowercased()
  }

  // MARK: - Times

  private func instant(of parts: WhenParser.Parts) -> Date {
    When(day: parts.day ?? clock.today, minutes: parts.minutes).instant(in: clock)
  }

  /// Which instant a typed time in a DST gap or overlap became, or nil.
  private func dstNotice(of parts: WhenParser.Parts) -> LocalTimeNotice? {
    When(day: parts.day ?? clock.today, minutes: parts.minutes).resolved(in: clock).notice
  }

  /// `--until`: a time alone is on the start's day; a bare date means up to its end (the
  /// next midnight, as `list --to`); a date and time is that instant.
  private func untilInstant(_ parts: WhenParser.Parts, start: Date) -> Date {
    switch (parts.day, parts.minutes) {
    case (nil, let minutes):
      return When(day: clock.startOfDay(start), minutes: minutes).instant(in: clock)
    case (let day?, nil):
      return clock.day(1, after: day)
    case (let day?, let minutes?):
      return When(day: day, minutes: minutes).instant(in: clock)
    }
  }

  /// How the user gave an appointment's times, for messages: `--at "9999-12-31 23:30" --for 1h`.
  private static func timeInput(_ scan: Scan, at: String) -> String {
    var text = "--at \(WhenParser.quoted(at))"
    if let duration = scan.texts["--for"] { text += " --for \(WhenParser.quoted(duration))" }
    if let until = scan.whens["--until"] { text += " --until \(WhenParser.quoted(until.text))" }
    return text
  }

  private static func dateTime(_ date: Date, _ formatter: AppointmentFormatter) -> String {
    String(formatter.iso8601(date).prefix(16)).replacingOccurrences(of: "T", with: " ")
  }

  // MARK: - Options

  private enum OptionKind {
    case flag
    case text
    case when
    /// A text option that may be given several times (`--rrule`), in order.
    case repeatable
    /// `--remind`: repeatable, and `at` takes the next word too (`--remind at 08:00`).
    case remind
  }

  /// The result of scanning a command's words.
  private struct Scan {
    var positional: [String] = []
    var flags: Set<String> = []
    var texts: [String: String] = [:]
    /// The values of repeatable options, in the order given.
    var lists: [String: [String]] = [:]
    /// WHEN options: what was parsed and the words it came from (for messages).
    var whens: [String: (parts: WhenParser.Parts, text: String)] = [:]
    /// Every option given, even one whose value did not parse.
    var given: Set<String> = []
    /// The first WHEN that did not parse. Thrown by the command after its usage checks, so
    /// an unknown option or a missing argument is reported (exit 2) before a bad value.
    var deferredError: CommandError?
    var help = false
  }

  private func scanOptions(
    _ command: String,
    _ options: [String: OptionKind],
    _ words: [String]
  ) throws(CommandError) -> Scan {
    var scan = Scan()
    var index = 0
    var optionsEnded = false
    while index < words.count {
      // `-c NAME` is `--calendar NAME` wherever a command takes --calendar.
      let word = words[index] == "-c" && !optionsEnded && options["--calendar"] != nil ? "--calendar" : words[index]
      index += 1
      if optionsEnded {
        scan.positional.append(word)
        continue
      }
      if word == "--" {
        optionsEnded = true
        continue
      }
      if word == "--help" || word == "-h" {
        scan.help = true
        return scan
      }
      if word.hasPrefix("--") {
        let name: String
        var inline: String?
        if let equals = word.firstIndex(of: "=") {
          name = String(word[..<equals])
          inline = String(word[word.index(after: equals)...])
        } else {
          name = word
        }
        let shownName = TextSafety.escapingControls(name)
        guard let kind = options[name] else { throw .usage("\(command): unknown option \(shownName)") }
        guard scan.given.insert(name).inserted || kind == .repeatable || kind == .remind else {
          throw .usage("\(command): \(shownName) given more than once")
        }
        switch kind {
        case .flag:
          guard inline == nil else { throw .usage("\(command): \(shownName) takes no value") }
          scan.flags.insert(name)
        case .remind:
          var value: String
          if let inline {
            value = inline
          } else {
            guard index < words.count, !words[index].hasPrefix("--") else {
              throw .usage("\(command): \(shownName) needs a value")
            }
            value = words[index]
            index += 1
          }
          if value.lowercased() == "at", index < words.count, !words[index].hasPrefix("--") {
            value += " " + words[index]
            index += 1
          }
          scan.lists[name, default: []].append(value)
        case .repeatable:
          if let inline {
            scan.lists[name, default: []].append(inline)
          } else {
            guard index < words.count, !words[index].hasPrefix("--") else {
              throw .usage("\(command): \(shownName) needs a value")
            }
            scan.lists[name, default: []].append(words[index])
            index += 1
          }
        case .text:
          if let inline {
            scan.texts[name] = inline
          } else {
            guard index < words.count, !words[index].hasPrefix("--") else {
              throw .usage("\(command): \(shownName) needs a value")
            }
            scan.texts[name] = words[index]
            index += 1
          }
        case .when:
          var candidates: [String]
          if let inline {
            candidates = [inline]
          } else {
            guard index < words.count, !words[index].hasPrefix("--") else {
              throw .usage("\(command): \(shownName) needs a value")
            }
            candidates = [words[index]]
            index += 1
          }
          // A WHEN may take up to two more words (`dec 1 10:00`, `2026-12-01 10:00`).
          let inlineCount = candidates.count
          for offset in 0..<2 where index + offset < words.count && !words[index + offset].hasPrefix("--") {
            candidates.append(words[index + offset])
          }
          do {
            let (parts, consumed) = try whenParser.parseParts(words: candidates)
            index += consumed - inlineCount
            scan.whens[name] = (parts, candidates.prefix(consumed).joined(separator: " "))
          } catch {
            // Skip what the value would have taken, and report it once usage is checked.
            if candidates.count >= 2, WhenParser.isDayPhrase(candidates[0].lowercased(), candidates[1].lowercased()) {
              index += min(candidates.count, 3) - inlineCount
            } else if candidates.count >= 2, WhenParser.takesTimeWord(candidates[0], candidates[1]) {
              index += 2 - inlineCount
            }
            scan.deferredError = scan.deferredError ?? error
          }
        }
        continue
      }
      if word.count >= 2, word.hasPrefix("-"), word.dropFirst().first?.isLetter == true {
        throw .usage("\(command): unknown option \(TextSafety.escapingControls(word))")
      }
      scan.positional.append(word)
    }
    return scan
  }
}
