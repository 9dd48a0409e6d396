import Foundation

/// The rules of one VTIMEZONE (RFC 5545 3.6.5), read from the component's own lines: how a
/// zone known only by its VTIMEZONE (a TZID that no IANA or Windows name resolves, such as
/// `Custom Berlin`) is placed in time. `offset(at:)` and `transitions(from:to:)` apply the
/// observances; `matchingZone(near:years:)` finds the IANA zone that keeps the same clock.
///
/// How it reads the RFC:
/// - Each STANDARD or DAYLIGHT observance has onsets: its DTSTART (always, as libical reads
///   it, even when the RRULE does not match it: Exchange writes `DTSTART:16010101T030000`
///   beside a last-Sunday-of-October rule), its RRULE instances and its RDATEs. An onset is a
///   wall-clock time read with TZOFFSETFROM; from that instant on the offset is TZOFFSETTO.
/// - RRULEs expand as `RecurrenceSet` expands them (the YEARLY shapes every writer uses are
///   computed year by year, with the same result). UNTIL in UTC (as the RFC requires here) is
///   an instant; a local UNTIL, which some writers put, is read with TZOFFSETFROM like the
///   onsets; a DATE UNTIL keeps its whole day. A rule with more than one onset a day (FREQ
///   finer than DAILY, several BYHOUR, BYMINUTE or BYSECOND) is refused: no zone has one.
/// - The offset at an instant is TZOFFSETTO of the latest onset at or before it (the
///   observance written later when two coincide); before every onset, TZOFFSETFROM of the
///   earliest observance.
/// - A DTSTART or RDATE in UTC (`Z`, which the RFC forbids but writers put) is that instant; a
///   DATE is midnight (DTSTART) or DTSTART's time of day (RDATE); an RDATE PERIOD is its start.
/// - A missing TZOFFSETFROM is taken from an observance of the other kind (its TZOFFSETTO),
///   else from its own TZOFFSETTO, and said in `assumptions`.
/// - Refused with a `VTimeZoneError` naming the line: no TZID, no observance, an observance
///   without DTSTART or TZOFFSETTO, an offset that is not `±HHMM[SS]`, a date that is not one,
///   an RRULE `RecurrenceRule` refuses, a line that is not `NAME:VALUE`, a BEGIN:STANDARD or
///   BEGIN:DAYLIGHT without its END (or inside another).
public struct VTimeZoneRules: Hashable, Sendable {
  /// One STANDARD or DAYLIGHT sub-component.
  public struct Observance: Hashable, Sendable {
    public enum Kind: String, Hashable, Sendable {
      case standard = "STANDARD"
      case daylight = "DAYLIGHT"
    }

    public var kind: Kind
    /// DTSTART, the first onset, on the wall clock before it (TZOFFSETFROM).
    public var start: CivilDateTime
    /// TZOFFSETFROM, seconds east of UTC.
    public var offsetFrom: Int
    /// TZOFFSETTO, seconds east of UTC.
    public var offsetTo: Int
    public var rules: [RecurrenceRule]
    /// RDATEs: `.local` wall-clock times (read with TZOFFSETFROM) or `.instant`s (UTC).
    public var rdates: [RecurrenceDate]
    /// TZNAMEs, unescaped.
    public var names: [String]
    /// The line of its `BEGIN:STANDARD` or `BEGIN:DAYLIGHT`.
    public var line: Int

    public init(
      kind: Kind,
      start: CivilDateTime,
      offsetFrom: Int,
      offsetTo: Int,
      rules: [RecurrenceRule] = [],
      rdates: [RecurrenceDate] = [],
      names: [String] = [],
      line: Int = 0
    ) {
      self.kind = kind
      self.start = start
      self.offsetFrom = offsetFrom
      self.offsetTo = offsetTo
      self.rules = rules
      self.rdates = rdates
      self.names = names
      self.line = line
    }

    /// The instant of DTSTART.
    public var startInstant: Date { Date(timeIntervalSince1970: TimeInterval(start.civilSeconds - offsetFrom)) }
  }

  /// A change of offset: from `instant` on, the clock is `offsetAfter` seconds east of UTC.
  public struct Transition: Hashable, Sendable, CustomStringConvertible {
    public var instant: Date
    public var offsetBefore: Int
    public var offsetAfter: Int

    public init(instant: Date, offsetBefore: Int, offsetAfter: Int) {
      self.instant = instant
      self.offsetBefore = offsetBefore
      self.offsetAfter = offsetAfter
    }

    public var description: String {
      "\(CivilDateTime(instant, in: .gmt))Z \(VTimeZoneRules.offsetText(offsetBefore))"
        + " -> \(VTimeZoneRules.offsetText(offsetAfter))"
    }
  }

  /// TZID as written (trimmed).
  public var tzid: String
  /// X-LIC-LOCATION (libical, Thunderbird, Evolution): the IANA name the writer meant.
  public var location: String?
  public var observances: [Observance]
  /// What was assumed while reading (a missing TZOFFSETFROM), one line each.
  public var assumptions: [ICalendar.Problem]

  public init(
    tzid: String,
    location: String? = nil,
    observances: [Observance],
    assumptions: [ICalendar.Problem] = []
  ) {
    self.tzid = tzid
    self.location = location
    self.observances = observances
    self.assumptions = assumptions
  }

  // MARK: - Reading

  /// Reads the unfolded content lines of one VTIMEZONE: `NAME;PARAMS:VALUE` each, with or
  /// without its own `BEGIN:VTIMEZONE`/`END:VTIMEZONE`, the observances' BEGIN and END
  /// included. Line `i` of `lines` is numbered `firstLine + i` in errors.
  public init(lines: [String], firstLine: Int = 1) throws(VTimeZoneError) {
    try self.init(numberedLines: lines.enumerated().map { (text: $0.element, line: firstLine + $0.offset) })
  }

  /// Reads unfolded content lines, each with its line number in the file.
  public init(numberedLines: [(text: String, line: Int)]) throws(VTimeZoneError) {
    var parsed: [ICalendar.ContentLine] = []
    for (text, number) in numberedLines where !text.allSatisfy(\.isWhitespace) {
      guard let line = ICalendar.contentLine(text, line: number) else {
        throw .malformedLine(line: number, text: String(text.prefix(40)))
      }
      parsed.append(line)
    }
    try self.init(contentLines: parsed, fallbackLine: numberedLines.first?.line ?? 1)
  }

  /// Reads content lines as the iCalendar reader has them (BEGIN and END lines included).
  init(contentLines: [ICalendar.ContentLine], fallbackLine: Int = 1) throws(VTimeZoneError) {
    var tzid: String?
    var location: String?
    var pieces: [ObservancePieces] = []
    var open: ObservancePieces?
    /// An unknown component being skipped (its name and nesting depth).
    var skipping: (name: String, depth: Int)?
    let componentLine =
      contentLines.first(where: { $0.name == "BEGIN" && $0.value.uppercased() == "VTIMEZONE" })?.line
      ?? contentLines.first?.line ?? fallbackLine
    for line in contentLines {
      let isBoundary = line.name == "BEGIN" || line.name == "END"
      let value = isBoundary ? line.value.trimmingCharacters(in: .whitespaces).uppercased() : ""
      if let skip = skipping {
        if line.name == "BEGIN", value == skip.name { skipping?.depth += 1 }
        if line.name == "END", value == skip.name {
          skipping = skip.depth == 0 ? nil : (skip.name, skip.depth - 1)
        }
        continue
      }
      switch line.name {
      case "BEGIN" where value == "VTIMEZONE" && open == nil:
        continue
      case "BEGIN":
        if let kind = Observance.Kind(rawValue: value) {
          if let open { throw .nestedObservance(name: value, inside: open.kind.rawValue, line: line.line) }
          open = ObservancePieces(kind: kind, line: line.line)
        } else {
          skipping = (value, 0)
        }
      case "END" where value == "STANDARD" || value == "DAYLIGHT":
        guard let finished = open, finished.kind.rawValue == value else {
          throw .unmatchedEnd(name: value, line: line.line)
        }
        pieces.append(finished)
        open = nil
      case "END":
        continue
      default:
        if open != nil {
          open?.properties.append(line)
        } else if line.name == "TZID", tzid == nil {
          tzid = line.value.trimmingCharacters(in: .whitespaces)
        } else if line.name == "X-LIC-LOCATION", location == nil {
          location = line.value.trimmingCharacters(in: .whitespaces)
        }
      }
    }
    if let open { throw .unclosedObservance(name: open.kind.rawValue, line: open.line) }
    guard let tzid, !tzid.isEmpty else { throw .missingTZID(line: componentLine) }
    guard !pieces.isEmpty else { throw .noObservance(tzid: tzid, line: componentLine) }
    var read: [ReadObservance] = []
    for piece in pieces { read.append(try piece.read()) }
    var assumptions: [ICalendar.Problem] = []
    var observances: [Observance] = []
    for item in read {
      let offsetFrom: Int
      if let given = item.offsetFrom {
        offsetFrom = given
      } else {
        let other = read.first(where: { $0.kind != item.kind })
        offsetFrom = other?.offsetTo ?? item.offsetTo
        assumptions.append(
          ICalendar.Problem(
            line: item.line,
            message: "\(item.kind.rawValue) of \(tzid) has no TZOFFSETFROM: assumed \(Self.offsetText(offsetFrom))"
          )
        )
      }
      observances.append(item.observance(offsetFrom: offsetFrom))
    }
    self.init(tzid: tzid, location: location, observances: observances, assumptions: assumptions)
  }

  /// The lines of one observance, before they are read.
  private struct ObservancePieces {
    var kind: Observance.Kind
    var line: Int
    var properties: [ICalendar.ContentLine] = []

    func read() throws(VTimeZoneError) -> ReadObservance {
      func first(_ name: String) -> ICalendar.ContentLine? { properties.first(where: { $0.name == name }) }
      guard let offsetToLine = first("TZOFFSETTO") else {
        throw .missingProperty(name: "TZOFFSETTO", component: kind.rawValue, line: line)
      }
      let offsetTo = try VTimeZoneRules.parseOffset(offsetToLine)
      var offsetFrom: Int?
      if let offsetFromLine = first("TZOFFSETFROM") { offsetFrom = try VTimeZoneRules.parseOffset(offsetFromLine) }
      guard let startLine = first("DTSTART") else {
        throw .missingProperty(name: "DTSTART", component: kind.rawValue, line: line)
      }
      let start = try VTimeZoneRules.parseDate(startLine.value, property: startLine)
      var rules: [RecurrenceRule] = []
      for ruleLine in properties where ruleLine.name == "RRULE" {
        let rule: RecurrenceRule
        do {
          rule = try RecurrenceRule(parsing: ruleLine.value)
        } catch {
          throw .invalidRule(error, line: ruleLine.line)
        }
        if let error = VTimeZoneRules.unreasonable(rule) { throw .invalidRule(error, line: ruleLine.line) }
        rules.append(rule)
      }
      var rdates: [ICalendar.DateValue] = []
      for rdateLine in properties where rdateLine.name == "RDATE" {
        for item in rdateLine.value.split(separator: ",") {
          // A PERIOD (`start/end` or `start/duration`, VALUE=PERIOD) begins at its start.
          let text = String(item.prefix(while: { $0 != "/" }))
          rdates.append(try VTimeZoneRules.parseDate(text, property: rdateLine))
        }
      }
      let names = properties.filter { $0.name == "TZNAME" }.map { ICalendar.unescape($0.value) }
      return ReadObservance(
        kind: kind,
        line: line,
        start: start,
        offsetFrom: offsetFrom,
        offsetTo: offsetTo,
        rules: rules,
        rdates: rdates,
        names: names
      )
    }
  }

  /// An observance read, its TZOFFSETFROM perhaps still missing.
  private struct ReadObservance {
    var kind: Observance.Kind
    var line: Int
    var start: ICalendar.DateValue
    var offsetFrom: Int?
    var offsetTo: Int
    var rules: [RecurrenceRule]
    var rdates: [ICalendar.DateValue]
    var names: [String]

    func observance(offsetFrom: Int) -> Observance {
      let startTime = Self.civil(start, offsetFrom: offsetFrom, timeOfDay: nil)
      let rdateValues: [RecurrenceDate] = rdates.map { value in
        if value.isUTC {
          return .instant(
            Date(timeIntervalSince1970: TimeInterval(Self.civil(value, offsetFrom: 0, timeOfDay: nil).civilSeconds))
          )
        }
        return .local(Self.civil(value, offsetFrom: offsetFrom, timeOfDay: startTime))
      }
      return Observance(
        kind: kind,
        start: startTime,
        offsetFrom: offsetFrom,
        offsetTo: offsetTo,
        rules: rules,
        rdates: rdateValues,
        names: names,
        line: line
      )
    }

    /// The wall-clock time a value names: a UTC one moved onto the `offsetFrom` clock, a DATE
    /// at `timeOfDay`'s time (midnight when nil).
    static func civil(_ value: ICalendar.DateValue, offsetFrom: Int, timeOfDay: CivilDateTime?) -> CivilDateTime {
      let date = CivilDate(year: value.year, month: value.month, day: value.day)
      guard let time = value.time else {
        return CivilDateTime(
          date: date,
          hour: timeOfDay?.hour ?? 0,
          minute: timeOfDay?.minute ?? 0,
          second: timeOfDay?.second ?? 0
        )
      }
      let local = CivilDateTime(date: date, hour: time.hour, minute: time.minute, second: time.second)
      return value.isUTC ? CivilDateTime(civilSeconds: local.civilSeconds + offsetFrom) : local
    }
  }

  /// Why an observance's RRULE is refused although RFC 5545 allows it: an onset more than once
  /// a day (FREQ finer than DAILY, or more than one BYHOUR, BYMINUTE or BYSECOND) is no real
  /// zone, and a file holding one would cost millions of onsets to apply.
  static func unreasonable(_ rule: RecurrenceRule) -> RecurrenceRuleError? {
    if rule.frequency < .daily {
      return .invalidValue(
        part: "FREQ",
        value: rule.frequency.rawValue,
        expected: "DAILY, WEEKLY, MONTHLY or YEARLY in a VTIMEZONE (a zone changes its offset at most once a day)"
      )
    }
    for (part, values) in [("BYHOUR", rule.byHour), ("BYMINUTE", rule.byMinute), ("BYSECOND", rule.bySecond)]
    where values.count > 1 {
      return .invalidValue(
        part: part,
        value: values.map(String.init).joined(separator: ","),
        expected: "one value in a VTIMEZONE (a zone changes its offset at most once a day)"
      )
    }
    return nil
  }

  /// `±HHMM` or `±HHMMSS` (RFC 5545 3.3.14) in seconds east of UTC.
  static func parseOffset(_ line: ICalendar.ContentLine) throws(VTimeZoneError) -> Int {
    let text = line.value.trimmingCharacters(in: .whitespaces)
    let bytes = Array(text.utf8)
    let invalid = VTimeZoneError.invalidOffset(name: line.name, value: text, line: line.line)
    guard bytes.count == 5 || bytes.count == 7, bytes[0] == UInt8(ascii: "+") || bytes[0] == UInt8(ascii: "-"),
      bytes.dropFirst().allSatisfy({ (0x30...0x39).contains($0) })
    else { throw invalid }
    func field(_ at: Int) -> Int { Int(bytes[at] - 0x30) * 10 + Int(bytes[at + 1] - 0x30) }
    let hours = field(1)
    let minutes = field(3)
    let seconds = bytes.count == 7 ? field(5) : 0
    guard hours < 24, minutes < 60, seconds < 60 else { throw invalid }
    let magnitude = hours * 3600 + minutes * 60 + seconds
    return bytes[0] == UInt8(ascii: "-") ? -magnitude : magnitude
  }

  private static func parseDate(_ text: String, property: ICalendar.ContentLine) throws(VTimeZoneError)
    -> ICalendar.DateValue
  {
    switch ICalendar.DateValue.parse(text.trimmingCharacters(in: .whitespaces)) {
    case .success(let value): return value
    case .failure(let problem):
      throw .invalidDate(name: property.name, message: problem.message, line: property.line)
    }
  }

  /// `+01:00`, `-05:00`, `+05:30`, `+00:19:32`.
  public static func offsetText(_ seconds: Int) -> String {
    let magnitude = abs(seconds)
    var text = (seconds < 0 ? "-" : "+") + pad(magnitude / 3600, 2) + ":" + pad(magnitude % 3600 / 60, 2)
    if magnitude % 60 != 0 { text += ":" + pad(magnitude % 60, 2) }
    return text
  }

  // MARK: - Applying the rules

  /// Seconds east of UTC at `instant`.
  public func offset(at instant: Date) -> Int {
    guard let latest = latestOnset(atOrBefore: instant, strictly: false) else { return offsetBeforeEveryOnset }
    return observances[latest].offsetTo
  }

  /// The changes of offset at instants in `[from, to)`, in order. An onset that leaves the
  /// offset as it was (a first DTSTART, a new TZNAME) is no transition. `offsetBefore` is the
  /// offset the rules give just before (the previous onset's TZOFFSETTO), which is the
  /// TZOFFSETFROM written when the VTIMEZONE is consistent.
  public func transitions(from: Date, to: Date) -> [Transition] {
    guard from < to else { return [] }
    var current =
      latestOnset(atOrBefore: from, strictly: true).map { observances[$0].offsetTo } ?? offsetBeforeEveryOnset
    let lower = Self.seconds(from, rounding: .up)
    let upper = Self.seconds(to, rounding: .up)
    var onsets: [(instant: Int, index: Int)] = []
    for (index, observance) in observances.enumerated() {
      for instant in OnsetClock(observance).onsets(from: lower, to: upper) { onsets.append((instant, index)) }
    }
    onsets.sort { ($0.instant, $0.index) < ($1.instant, $1.index) }
    var result: [Transition] = []
    for onset in onsets {
      let after = observances[onset.index].offsetTo
      guard after != current else { continue }
      result.append(
        Transition(
          instant: Date(timeIntervalSince1970: TimeInterval(onset.instant)),
          offsetBefore: current,
          offsetAfter: after
        )
      )
      current = after
    }
    return result
  }

  /// The instant a wall-clock time names under these rules, as `CivilDateTime.instant(in:)`
  /// reads one in an IANA zone (RFC 5545 3.3.5): a time that occurs twice is the first of the
  /// two; a time in a gap is read with the offset before it, so it lands as much later as the
  /// gap is long. For a caller that found no `matchingZone` and still wants the zone's clock.
  public func instant(of local: CivilDateTime) -> Date {
    let civil = local.civilSeconds
    // The offsets a day either side: no zone changes twice within two days.
    let before = offset(at: Date(timeIntervalSince1970: TimeInterval(civil - 86400)))
    let after = offset(at: Date(timeIntervalSince1970: TimeInterval(civil + 86400)))
    let early = Date(timeIntervalSince1970: TimeInterval(civil - before))
    if before == after { return early }
    let late = Date(timeIntervalSince1970: TimeInterval(civil - after))
    switch (offset(at: early) == before, offset(at: late) == after) {
    case (true, true): return min(early, late)
    case (false, true): return late
    default: return early  // in the gap: the offset before it
    }
  }

  /// TZOFFSETFROM of the observance that starts first.
  private var offsetBeforeEveryOnset: Int {
    observances.min(by: { $0.startInstant < $1.startInstant })?.offsetFrom ?? 0
  }

  /// The index of the observance with the latest onset at (unless `strictly`) or before
  /// `instant`; the later-written one of two at the same instant.
  private func latestOnset(atOrBefore instant: Date, strictly: Bool) -> Int? {
    // Onsets fall on whole seconds: "at or before" is "before the next whole second".
    let bound = strictly ? Self.seconds(instant, rounding: .up) : Self.seconds(instant, rounding: .down) + 1
    var best: (instant: Int, index: Int)?
    for (index, observance) in observances.enumerated() {
      guard let onset = OnsetClock(observance).latestOnset(before: bound) else { continue }
      if onset >= (best?.instant ?? onset) { best = (onset, index) }
    }
    return best?.index
  }

  /// Whole seconds since 1970, within the times appt keeps (and two days either side), so
  /// `distantPast` costs no more than the year 1583.
  private static func seconds(_ date: Date, rounding rule: FloatingPointRoundingRule) -> Int {
    let lowest = AppointmentRules.earliest.timeIntervalSince1970 - 2 * 86400
    let highest = AppointmentRules.latest.timeIntervalSince1970 + 2 * 86400
    return Int(min(max(date.timeIntervalSince1970, lowest), highest).rounded(rule))
  }
}

/// One observance's onsets as whole seconds since 1970 (UTC). Its rules run on the clock of
/// TZOFFSETFROM: a rule's wall-clock instance minus TZOFFSETFROM is the onset, and a UTC
/// UNTIL plus TZOFFSETFROM is the same moment on that clock, so it cuts where the RFC says.
struct OnsetClock {
  let observance: VTimeZoneRules.Observance
  /// The rules with UNTIL on the TZOFFSETFROM clock.
  let rules: [RecurrenceRule]

  init(_ observance: VTimeZoneRules.Observance) {
    self.observance = observance
    rules = observance.rules.map { rule in
      var rule = rule
      if case .utc(let time) = rule.until {
        rule.until = .local(CivilDateTime(civilSeconds: time.civilSeconds + observance.offsetFrom))
      }
      return rule
    }
  }

  var offset: Int { observance.offsetFrom }
  var start: Int { observance.start.civilSeconds - offset }

  /// The onsets in `[from, to)`, in order, each once.
  func onsets(from: Int, to: Int) -> [Int] {
    guard from < to else { return [] }
    var found: [Int] = []
    if (from..<to).contains(start) { found.append(start) }
    for rule in rules {
      found += Self.instances(of: rule, start: observance.start, civilFrom: from + offset, civilTo: to + offset)
        .map { $0 - offset }
    }
    for date in observance.rdates {
      let onset = rdate(date)
      if (from..<to).contains(onset) { found.append(onset) }
    }
    return Array(Set(found)).sorted()
  }

  /// The latest onset before `bound`. The rules are searched backwards in windows growing
  /// fourfold from about a year, so the cost is a few years of expansion even when the last
  /// onset is decades back.
  func latestOnset(before bound: Int) -> Int? {
    var best = observance.rdates.map(rdate).filter { $0 < bound }.max()
    guard start < bound else { return best }
    // Past the last UNTIL (when every rule has one) nothing is left to find.
    var upper = min(bound, untilBound ?? bound)
    var span = 400 * 86400
    while upper > start {
      let lower = max(upper - span, start)
      if let last = onsets(from: lower, to: upper).last {
        best = max(best ?? last, last)
        return best
      }
      upper = lower
      span *= 4
    }
    return max(best ?? start, start)
  }

  private func rdate(_ date: RecurrenceDate) -> Int {
    switch date {
    case .instant(let instant), .period(let instant, _): return Int(instant.timeIntervalSince1970.rounded(.down))
    case .local(let time): return time.civilSeconds - offset
    case .date(let day):
      let start = observance.start
      return CivilDateTime(date: day, hour: start.hour, minute: start.minute, second: start.second).civilSeconds
        - offset
    }
  }

  /// Just past the last onset any RRULE can give when each has an UNTIL (just past DTSTART
  /// when there is no RRULE); nil when one runs on.
  private var untilBound: Int? {
    var bound = start
    for rule in rules {
      switch rule.until {
      case nil: return nil
      case .utc(let time): bound = max(bound, time.civilSeconds)
      case .local(let time): bound = max(bound, time.civilSeconds - offset)
      case .date(let day): bound = max(bound, (day.dayNumber + 1) * 86400 - 1 - offset)
      }
    }
    return bound + 1
  }

  // MARK: - Rule instances

  /// The wall-clock instances (civil seconds) of `rule` from `start` in `[civilFrom,
  /// civilTo)`, DTSTART itself left out. The shape every VTIMEZONE writer uses (YEARLY with
  /// BYMONTH and BYDAY or BYMONTHDAY, no COUNT) is computed year by year; anything else is
  /// `RecurrenceSet`'s expansion, with the same result (tested).
  static func instances(of rule: RecurrenceRule, start: CivilDateTime, civilFrom: Int, civilTo: Int) -> [Int] {
    if let yearly = YearlyDays(rule, start: start) {
      return yearly.instances(start: start, until: rule.until, civilFrom: civilFrom, civilTo: civilTo)
    }
    return expanded(rule, start: start, civilFrom: civilFrom, civilTo: civilTo)
  }

  /// `RecurrenceSet`'s instances on a clock with no offset (UTC), DTSTART left out.
  static func expanded(_ rule: RecurrenceRule, start: CivilDateTime, civilFrom: Int, civilTo: Int) -> [Int] {
    let set = RecurrenceSet(start: start, zone: .gmt, rules: [rule])
    return set.occurrences(
      from: Date(timeIntervalSince1970: TimeInterval(civilFrom)),
      to: Date(timeIntervalSince1970: TimeInterval(civilTo))
    ).map { Int($0.timeIntervalSince1970) }.filter { $0 != start.civilSeconds }
  }

  /// A YEARLY rule whose instances are days of given months at DTSTART's time of day.
  struct YearlyDays {
    var interval: Int
    var months: [Int]
    var monthDays: [Int]
    /// BYDAY: weekday 0 (Monday) ... 6, and an ordinal within the month or nil.
    var weekdays: [(weekday: Int, ordinal: Int?)]

    init?(_ rule: RecurrenceRule, start: CivilDateTime) {
      guard rule.frequency == .yearly, rule.count == nil, rule.byWeekNo.isEmpty, rule.byYearDay.isEmpty,
        rule.bySetPos.isEmpty, rule.byHour.isEmpty, rule.byMinute.isEmpty, rule.bySecond.isEmpty,
        rule.byDay.isEmpty || !rule.byMonth.isEmpty
      else { return nil }
      let noDayParts = rule.byMonthDay.isEmpty && rule.byDay.isEmpty
      interval = rule.interval
      // RFC 5545's defaults, as RecurrenceSet applies them: DTSTART gives what is not named
      // (a yearly rule naming days of the month only is in DTSTART's month).
      months = rule.byMonth.isEmpty ? [start.date.month] : Array(Set(rule.byMonth)).sorted()
      monthDays = noDayParts ? [start.date.day] : rule.byMonthDay
      weekdays = rule.byDay.map { ($0.weekday.rawValue, $0.ordinal) }
    }

    func instances(start: CivilDateTime, until: RecurrenceRule.Until?, civilFrom: Int, civilTo: Int) -> [Int] {
      let timeOfDay = start.hour * 3600 + start.minute * 60 + start.second
      let firstYear = max(start.date.year, CivilDateTime(civilSeconds: civilFrom).date.year)
      let lastYear = CivilDateTime(civilSeconds: civilTo).date.year
      guard firstYear <= lastYear else { return [] }
      let startSeconds = start.civilSeconds
      var result: [Int] = []
      for year in firstYear...lastYear where (year - start.date.year) % interval == 0 {
        for month in months {
          for day in days(year: year, month: month) {
            let civil = day * 86400 + timeOfDay
            guard civil > startSeconds else { continue }
            switch until {
            case .date(let last): if day > last.dayNumber { return result }
            case .local(let last), .utc(let last): if civil > last.civilSeconds { return result }
            case nil: break
            }
            if civil >= civilTo { return result }
            if civil >= civilFrom { result.append(civil) }
          }
        }
      }
      return result
    }

    /// The day numbers of `month` in `year` the rule names, in order.
    private func days(year: Int, month: Int) -> [Int] {
      let first = CivilDate.dayNumber(year: year, month: month, day: 1)
      let length = CivilDate.daysInMonth(year: year, month: month)
      var result: [Int] = []
      for day in 1...length {
        if !monthDays.isEmpty, !monthDays.contains(where: { ($0 > 0 ? $0 : length + 1 + $0) == day }) { continue }
        if !weekdays.isEmpty {
          let number = first + day - 1
          let weekday = CivilDate.weekday(ofDayNumber: number)
          let fromStart = (day - 1) / 7 + 1
          let fromEnd = -((length - day) / 7 + 1)
          guard
            weekdays.contains(where: {
              $0.weekday == weekday && ($0.ordinal == nil || $0.ordinal == fromStart || $0.ordinal == fromEnd)
            })
          else { continue }
        }
        result.append(first + day - 1)
      }
      return result
    }
  }
}

extension VTimeZoneRules {

  // MARK: - Matching an IANA zone

  /// The IANA zone whose offsets agree with the rules over `years` calendar years (UTC) from
  /// the year of `near`: the same offset at the start, and the same transitions, each at the
  /// same instant with the same offsets either side. Rules with no transition there (a fixed
  /// offset) give the zone the TZID or X-LIC-LOCATION names when it keeps that offset, else
  /// `fixedZone(offset:)`. Nil when no zone agrees; the caller then keeps a fixed offset
  /// (`offset(at:)`), or places times with `instant(of:)`, and says so.
  ///
  /// Among zones that agree, the choice is deterministic: first the zone the TZID or
  /// X-LIC-LOCATION names (`TimeZoneResolver`), then one whose CLDR Windows name the text
  /// holds (`Custom W. Europe` gives Europe/Berlin; the longest name wins), then one whose
  /// identifier shares words with it (`Sydney (custom)`), the TZNAMEs counting less; among
  /// equals a well-known zone (`wellKnownZones`, in its order), then CLDR's territory-001
  /// zones, then any, each alphabetically.
  ///
  /// Cost: the named, hinted and well-known zones are tried first, best first, and the first
  /// that agrees is the answer (nothing else can outrank it); only when none does are the other
  /// zones loaded (once per process, a few milliseconds) and tried in order. Each zone is checked at
  /// a few instants before its transitions are compared.
  public func matchingZone(near: Date, years: Int = 3) -> TimeZone? {
    let year = CivilDateTime(near, in: .gmt).date.year
    let from = Self.utcInstant(year: year)
    let to = Self.utcInstant(year: year + max(1, years))
    let changes = transitions(from: from, to: to)
    let startOffset = offset(at: from)
    if changes.isEmpty {
      // A fixed offset: the zone the TZID or X-LIC-LOCATION names when it keeps that offset.
      let named = ZoneHints.namedZones(of: self).first {
        $0.secondsFromGMT(for: from) == startOffset && Self.zoneTransitions($0, from: from, to: to).isEmpty
      }
      return named ?? Self.fixedZone(offset: startOffset)
    }
    // Cheap checks first: just before and at each change, and the middle of each period.
    var checks: [(instant: Date, offset: Int)] = []
    var periodStart = from
    var periodOffset = startOffset
    for change in changes {
      checks.append((periodStart.addingTimeInterval(change.instant.timeIntervalSince(periodStart) / 2), periodOffset))
      checks.append((change.instant.addingTimeInterval(-1), change.offsetBefore))
      checks.append((change.instant, change.offsetAfter))
      periodStart = change.instant
      periodOffset = change.offsetAfter
    }
    checks.append((periodStart.addingTimeInterval(to.timeIntervalSince(periodStart) / 2), periodOffset))
    func agrees(_ zone: TimeZone) -> Bool {
      zone.secondsFromGMT(for: from) == startOffset
        && checks.allSatisfy({ zone.secondsFromGMT(for: $0.instant) == $0.offset })
    }
    func keepsTheClock(_ zone: TimeZone) -> Bool {
      agrees(zone) && Self.zoneTransitions(zone, from: from, to: to) == changes
    }
    let hints = ZoneHints(rules: self)
    if let named = hints.namedZones.first(where: keepsTheClock) { return named }
    // A hinted or well-known zone outranks every other: those are tried first, best first,
    // loading only them, so the common case never loads every zone.
    let catalog = ZoneCatalog.shared
    let preferred = Set(hints.scores.keys).union(catalog.wellKnownIndices).map {
      (index: $0, rank: catalog.entries[$0].rank(score: hints.scores[$0] ?? 0))
    }
    for candidate in preferred.sorted(by: { $0.rank < $1.rank }) {
      if let zone = TimeZone(identifier: catalog.entries[candidate.index].identifier), keepsTheClock(zone) {
        return zone
      }
    }
    // Then the others, none hinted: CLDR's zones, then the rest, each alphabetically.
    for index in catalog.fallbackOrder where hints.scores[index] == nil {
      if let zone = ZoneCatalog.zones[index], keepsTheClock(zone) { return zone }
    }
    return nil
  }

  /// A zone with a fixed offset: `Etc/GMT-1` for +01:00 (the IANA names' sign is inverted),
  /// `GMT` for 0, else `TimeZone(secondsFromGMT:)` (`GMT+0530`). Nil beyond ±18 hours.
  public static func fixedZone(offset: Int) -> TimeZone? {
    if offset == 0 { return .gmt }
    let hours = offset / 3600
    if offset % 3600 == 0, (-12...14).contains(hours),
      let zone = TimeZone(identifier: "Etc/GMT" + (hours > 0 ? "-" : "+") + String(abs(hours)))
    {
      return zone
    }
    return TimeZone(secondsFromGMT: offset)
  }

  /// The changes of offset of `zone` in `[from, to)`, as `transitions(from:to:)` gives them.
  private static func zoneTransitions(_ zone: TimeZone, from: Date, to: Date) -> [Transition] {
    var result: [Transition] = []
    var cursor = from.addingTimeInterval(-1)
    while let next = zone.nextDaylightSavingTimeTransition(after: cursor), next < to, result.count < 1000 {
      let before = zone.secondsFromGMT(for: next.addingTimeInterval(-1))
      let after = zone.secondsFromGMT(for: next)
      if before != after { result.append(Transition(instant: next, offsetBefore: before, offsetAfter: after)) }
      cursor = next
    }
    return result
  }

  private static func utcInstant(year: Int) -> Date {
    Date(timeIntervalSince1970: TimeInterval(CivilDate.dayNumber(year: year, month: 1, day: 1) * 86400))
  }

  /// Zones preferred, in this order, among zones that agree equally with a VTIMEZONE: the zone
  /// most people on that clock name.
  public static let wellKnownZones = [
    "America/New_York", "America/Chicago", "America/Denver", "America/Phoenix", "America/Los_Angeles",
    "America/Anchorage", "Pacific/Honolulu", "America/Halifax", "America/St_Johns", "America/Mexico_City",
    "America/Sao_Paulo", "America/Argentina/Buenos_Aires", "America/Santiago", "Europe/London", "Europe/Berlin",
    "Europe/Paris", "Europe/Athens", "Europe/Istanbul", "Europe/Moscow", "Africa/Cairo", "Africa/Johannesburg",
    "Africa/Lagos", "Africa/Nairobi", "Asia/Jerusalem", "Asia/Dubai", "Asia/Tehran", "Asia/Karachi", "Asia/Kolkata",
    "Asia/Dhaka", "Asia/Bangkok", "Asia/Shanghai", "Asia/Singapore", "Asia/Tokyo", "Asia/Seoul", "Australia/Perth",
    "Australia/Darwin", "Australia/Adelaide", "Australia/Brisbane", "Australia/Sydney", "Pacific/Auckland",
  ]
}

// MARK: - Zone catalog and hints

/// Every zone Foundation knows, by name, with what ranking needs (built once per process).
private struct ZoneCatalog: Sendable {
  struct Entry: Sendable {
    var identifier: String
    /// Lower-cased words of the identifier (`america`, `new`, `york`).
    var words: Set<String>
    /// 0: well known (`index` is its place), 1: CLDR territory 001, 2: any other.
    var tier: Int
    var index: Int

    func rank(score: Int) -> Rank { Rank(score: score, tier: tier, index: index, identifier: identifier) }
  }

  /// Lower is preferred: a higher hint score, then the tier, then the identifier.
  struct Rank: Comparable {
    var score: Int
    var tier: Int
    var index: Int
    var identifier: String

    static func < (lhs: Rank, rhs: Rank) -> Bool {
      (-lhs.score, lhs.tier, lhs.index, lhs.identifier) < (-rhs.score, rhs.tier, rhs.index, rhs.identifier)
    }

  }

  /// A Windows zone name's distinctive part (`w. europe` for `W. Europe Standard Time`), lower
  /// case, and the IANA zone CLDR maps it to.
  struct WindowsName: Sendable {
    var text: String
    var iana: String
    /// Its first run of letters (`w`), to skip names a text cannot hold.
    var firstWord: String
  }

  let entries: [Entry]
  let windowsNames: [WindowsName]
  let indexByIdentifier: [String: Int]
  /// The entries holding each word.
  let wordIndex: [String: [Int]]
  /// The well-known entries.
  let wellKnownIndices: [Int]
  /// The other entries, in rank order for an unhinted VTIMEZONE: tier, then identifier.
  let fallbackOrder: [Int]

  static let shared = ZoneCatalog()

  /// The zone of each entry, loaded (about 450 of them) the first time a VTIMEZONE matches no
  /// hinted or well-known zone.
  static let zones: [TimeZone?] = shared.entries.map { TimeZone(identifier: $0.identifier) }

  init() {
    let wellKnown = Dictionary(
      VTimeZoneRules.wellKnownZones.enumerated().map { ($0.element, $0.offset) },
      uniquingKeysWith: { first, _ in first }
    )
    let golden = Set(WindowsZones.ianaByWindowsName.values)
    let entries = TimeZone.knownTimeZoneIdentifiers.sorted().map { identifier in
      let tier = wellKnown[identifier] != nil ? 0 : golden.contains(identifier) ? 1 : 2
      return Entry(
        identifier: identifier,
        words: Set(ZoneHints.words(identifier)),
        tier: tier,
        index: wellKnown[identifier] ?? 0
      )
    }
    self.entries = entries
    indexByIdentifier = Dictionary(
      entries.enumerated().map { ($0.element.identifier, $0.offset) },
      uniquingKeysWith: { first, _ in first }
    )
    var wordIndex: [String: [Int]] = [:]
    for (index, entry) in entries.enumerated() {
      for word in entry.words { wordIndex[word, default: []].append(index) }
    }
    self.wordIndex = wordIndex
    wellKnownIndices = entries.indices.filter { entries[$0].tier == 0 }
    fallbackOrder = entries.indices.filter { entries[$0].tier != 0 }.sorted {
      (entries[$0].tier, entries[$0].identifier) < (entries[$1].tier, entries[$1].identifier)
    }
    windowsNames = WindowsZones.ianaByWindowsName.sorted(by: { $0.key < $1.key }).map { name, iana in
      var text = name.lowercased()
      if text.hasSuffix(" standard time"), text.count > 14 { text.removeLast(14) }
      let firstWord = text.split(whereSeparator: { !$0.isLetter }).first.map(String.init) ?? text
      return WindowsName(text: text, iana: iana, firstWord: firstWord)
    }
  }
}

/// What a VTIMEZONE's own text says about the zone it means.
private struct ZoneHints {
  /// The zones the TZID or X-LIC-LOCATION name outright (`TimeZoneResolver`).
  var namedZones: [TimeZone] = []
  /// Catalog entries a hint points at, and how strongly: a Windows name found in the text
  /// (10 per letter beyond 50 for the TZID and location, 3 for the TZNAMEs), and 10 (TZNAMEs:
  /// 3) per word shared with the identifier.
  var scores: [Int: Int] = [:]

  init(rules: VTimeZoneRules) {
    let catalog = ZoneCatalog.shared
    let primary = [rules.tzid] + (rules.location.map { [$0] } ?? [])
    namedZones = Self.namedZones(of: rules)
    var windows: [String: Int] = [:]
    var words: [String: Int] = [:]
    let names = Array(Set(rules.observances.flatMap(\.names))).sorted()
    for (texts, weight) in [(primary, 10), (names, 3)] {
      for text in texts {
        let lowered = text.lowercased().split(whereSeparator: \.isWhitespace).joined(separator: " ")
        let present = Set(lowered.split(whereSeparator: { !$0.isLetter }).map(String.init))
        for name in catalog.windowsNames
        where present.contains(name.firstWord) && Self.containsWord(lowered, name.text) {
          windows[name.iana] = max(windows[name.iana] ?? 0, weight * (50 + name.text.count))
        }
        for word in Self.words(text) { words[word] = max(words[word] ?? 0, weight) }
      }
    }
    for (iana, score) in windows {
      if let index = catalog.indexByIdentifier[iana] { scores[index, default: 0] += score }
    }
    for (word, weight) in words {
      for index in catalog.wordIndex[word] ?? [] { scores[index, default: 0] += weight }
    }
  }

  static func namedZones(of rules: VTimeZoneRules) -> [TimeZone] {
    ([rules.tzid] + (rules.location.map { [$0] } ?? [])).compactMap(TimeZoneResolver.zone(forTZID:))
  }

  /// Words that say nothing about a place.
  static let stopWords: Set<String> = [
    "standard", "daylight", "summer", "winter", "time", "zone", "timezone", "custom", "gmt", "utc", "the", "and",
  ]

  /// Lower-cased runs of letters, three or more long, other than stop words.
  static func words(_ text: String) -> [String] {
    text.lowercased().split(whereSeparator: { !$0.isLetter }).map(String.init).filter {
      $0.count >= 3 && !stopWords.contains($0)
    }
  }

  /// `needle` in `haystack` with no letter either side (`eastern` in ` us eastern `, not in
  /// ` northeastern `).
  static func containsWord(_ haystack: String, _ needle: String) -> Bool {
    var searchStart = haystack.startIndex
    while let found = haystack.range(of: needle, range: searchStart..<haystack.endIndex) {
      let before = found.lowerBound == haystack.startIndex ? nil : haystack[haystack.index(before: found.lowerBound)]
      let after = found.upperBound == haystack.endIndex ? nil : haystack[found.upperBound]
      if !(before?.isLetter ?? false), !(after?.isLetter ?? false) { return true }
      searchStart = haystack.index(after: found.lowerBound)
    }
    return false
  }
}

// MARK: - Errors

/// Why a VTIMEZONE cannot be read: what is wrong, and on which line.
public enum VTimeZoneError: Error, Hashable, Sendable, CustomStringConvertible {
  case malformedLine(line: Int, text: String)
  case missingTZID(line: Int)
  case noObservance(tzid: String, line: Int)
  case nestedObservance(name: String, inside: String, line: Int)
  case unclosedObservance(name: String, line: Int)
  case unmatchedEnd(name: String, line: Int)
  /// `line` is that of the observance's BEGIN.
  case missingProperty(name: String, component: String, line: Int)
  case invalidOffset(name: String, value: String, line: Int)
  case invalidDate(name: String, message: String, line: Int)
  case invalidRule(RecurrenceRuleError, line: Int)

  /// The 1-based line of the file the error is about.
  public var line: Int {
    switch self {
    case .malformedLine(let line, _), .missingTZID(let line), .noObservance(_, let line),
      .nestedObservance(_, _, let line), .unclosedObservance(_, let line), .unmatchedEnd(_, let line),
      .missingProperty(_, _, let line), .invalidOffset(_, _, let line), .invalidDate(_, _, let line),
      .invalidRule(_, let line):
      return line
    }
  }

  /// What is wrong, without the line.
  public var message: String {
    switch self {
    case .malformedLine(_, let text):
      return "malformed line \"\(TextSafety.escapingControls(text))\" in a VTIMEZONE: not NAME:VALUE"
    case .missingTZID: return "VTIMEZONE has no TZID"
    case .noObservance(let tzid, _): return "VTIMEZONE \(tzid) has no STANDARD or DAYLIGHT"
    case .nestedObservance(let name, let inside, _): return "BEGIN:\(name) inside \(inside)"
    case .unclosedObservance(let name, _): return "BEGIN:\(name) has no END:\(name)"
    case .unmatchedEnd(let name, _): return "END:\(name) without BEGIN:\(name)"
    case .missingProperty(let name, let component, _): return "\(component) has no \(name)"
    case .invalidOffset(let name, let value, _):
      return "\(name):\(TextSafety.escapingControls(value)) is not a UTC offset like +0100, -0500 or +053000"
    case .invalidDate(let name, let message, _): return "\(name): \(message)"
    case .invalidRule(let error, _): return error.description
    }
  }

  /// `LINE: message`, as `ICalendar.Problem` writes it.
  public var description: String { "\(line): \(message)" }

  /// The error as the iCalendar reader reports problems.
  public var problem: ICalendar.Problem { ICalendar.Problem(line: line, message: message) }
}
