import Foundation

/// A date in a recurrence set given by RDATE or EXDATE: an instant (UTC or zoned DATE-TIME,
/// resolved by the reader), a wall-clock time in the set's zone, a whole day, or (RDATE only)
/// a PERIOD: an occurrence with a length of its own.
public enum RecurrenceDate: Hashable, Sendable, Codable {
  case instant(Date)
  case period(Date, TimeInterval)
  case local(CivilDateTime)
  case date(CivilDate)
}

/// A recurrence set (RFC 5545 3.8.5): DTSTART, its RRULEs, RDATEs and EXDATEs, expanded per
/// window.
///
/// How it reads the RFC, and where it chooses (as `dateutil.rrule` does, unless said):
/// - Instances are computed on the wall clock of `zone` (DTSTART's zone; for a floating time
///   or a DATE, the zone to read it in) and then placed in the zone as RFC 5545 3.3.5 says: a
///   time in a spring-forward gap moves forward by the gap, a time in an autumn overlap is the
///   first of the two. So an HOURLY rule meets the gap's missing hour as the hour after it
///   (one instant, emitted once) and the overlap's repeated hour once. (dateutil reads a gap
///   time with the offset after the gap, an hour earlier: there this type follows the RFC.)
/// - BYxxx parts expand or limit exactly as the table of RFC 5545 3.3.10 says; BYSETPOS picks
///   from each interval's full set; WKST decides the weeks of BYWEEKNO and weekly intervals.
///   An ordinal BYDAY (`2TU`) under a FREQ finer than MONTHLY counts as the plain weekday, and
///   a BYxxx the table marks N/A limits; both as dateutil does, where the RFC forbids them.
/// - Dates that do not exist (30 February, BYMONTHDAY=31 in April) are skipped, not moved.
/// - DTSTART is an occurrence when it matches the rule (as in every RFC example); a DTSTART
///   that does not match is not one, and is not counted (dateutil's choice; the RFC leaves
///   this undefined), unless `includesUnmatchedStart` (libical's reading). With no RRULE,
///   DTSTART is the first occurrence.
/// - UNTIL is inclusive. A UTC UNTIL is compared as an instant, a local one on the wall
///   clock, a DATE with the occurrence's local date (the whole day is in; dateutil takes the
///   day's midnight instead).
/// - An EXDATE given as a DATE removes every occurrence on that local day; an RDATE given as
///   a DATE is that day at DTSTART's time of day. Equal instants are one occurrence.
/// - Nothing outside `AppointmentRules.supportedTimes` is produced.
///
/// Cost: a rule without COUNT starts at the interval just before the window (any distance
/// from DTSTART costs the same). A COUNT rule must count from DTSTART, except when every
/// interval yields exactly one instance (no BYxxx part, and a day that exists in every month
/// or year), where the intervals skipped are counted arithmetically. Otherwise the work is
/// one step per interval from DTSTART to the window's end (at most `COUNT` instances, and
/// whole days or hours that a finer rule's BYxxx excludes are jumped over), and never more
/// than `maximumSteps` steps per rule per call: a rule that needs more ends there.
public struct RecurrenceSet: Hashable, Sendable {
  /// DTSTART on its wall clock.
  public var start: CivilDateTime
  /// The zone `start` is local to (for a floating time or a DATE: the zone to read it in).
  public var zone: TimeZone
  public var rules: [RecurrenceRule]
  public var rdates: [RecurrenceDate]
  public var exdates: [RecurrenceDate]
  /// Count DTSTART as an occurrence even when it does not match the rules (libical).
  public var includesUnmatchedStart: Bool
  /// DTSTART is a DATE (an all-day series): the rules' BYHOUR, BYMINUTE and BYSECOND do not apply.
  public var isDateStart: Bool

  /// The most steps (intervals) one rule may take in one call.
  public static let maximumSteps = 5_000_000

  public init(
    start: CivilDateTime,
    zone: TimeZone,
    rules: [RecurrenceRule],
    rdates: [RecurrenceDate] = [],
    exdates: [RecurrenceDate] = [],
    includesUnmatchedStart: Bool = false,
    isDateStart: Bool = false
  ) {
    self.start = start
    self.zone = zone
    self.rules = rules
    self.rdates = rdates
    self.exdates = exdates
    self.includesUnmatchedStart = includesUnmatchedStart
    self.isDateStart = isDateStart
  }

  /// A set whose DTSTART is `start` as seen in `zone`.
  public init(
    start: Date,
    zone: TimeZone,
    rules: [RecurrenceRule],
    rdates: [RecurrenceDate] = [],
    exdates: [RecurrenceDate] = [],
    includesUnmatchedStart: Bool = false,
    isDateStart: Bool = false
  ) {
    self.init(
      start: CivilDateTime(start, in: zone),
      zone: zone,
      rules: rules,
      rdates: rdates,
      exdates: exdates,
      includesUnmatchedStart: includesUnmatchedStart,
      isDateStart: isDateStart
    )
  }

  /// Every rule's UNTIL is before DTSTART (a DATE UNTIL before DTSTART's day): the rules add
  /// nothing, and DTSTART is not an occurrence of them.
  public var rulesEndBeforeStart: Bool {
    !rules.isEmpty
      && rules.allSatisfy { rule in
        switch rule.until {
        case .date(let day): return day < start.date
        case .local(let time): return time < start
        case .utc(let time): return time.instant(in: .gmt) < start.instant(in: zone)
        case nil: return false
        }
      }
  }

  /// The occurrence starts in `[from, to)`, in order, each once.
  public func occurrences(from: Date, to: Date) -> [Date] {
    let lower = max(from, AppointmentRules.earliest)
    let upper = min(to, AppointmentRules.latest.addingTimeInterval(1))
    guard lower < upper else { return [] }
    // Any zone's offset is under a day and a gap under a day: two days either side of the
    // window, on the wall clock, hold every instance that can land in it.
    let civilFrom = CivilDateTime(lower, in: .gmt).civilSeconds - 2 * 86400
    let civilTo = CivilDateTime(upper, in: .gmt).civilSeconds + 2 * 86400
    var found: [Date] = []
    // Each instance asks for two offsets or more: remembered, and shared with the window's
    // other series in the zone.
    let offsets = ZoneOffsets.shared(for: zone)
    func take(_ instant: Date) {
      if instant >= lower, instant < upper { found.append(instant) }
    }
    // An unmatched DTSTART counts, unless every rule ends before it (nothing repeats at all).
    if rules.isEmpty || (includesUnmatchedStart && !rulesEndBeforeStart) {
      if (civilFrom...civilTo).contains(start.civilSeconds) { take(start.instant(in: zone)) }
    }
    for rule in rules {
      var expander = RuleExpander(rule: rule, start: start, zone: zone, dateStart: isDateStart)
      expander.forEach(civilFrom: civilFrom, civilTo: civilTo) { local in
        take(local.instant(in: offsets))
      }
    }
    for date in rdates {
      switch date {
      case .instant(let instant), .period(let instant, _): take(instant)
      case .local(let local): take(local.instant(in: zone))
      case .date(let day):
        take(CivilDateTime(date: day, hour: start.hour, minute: start.minute, second: start.second).instant(in: zone))
      }
    }
    guard !found.isEmpty else { return [] }
    var excludedInstants = Set<Date>()
    var excludedDays = Set<CivilDate>()
    for date in exdates {
      switch date {
      case .instant(let instant), .period(let instant, _): excludedInstants.insert(instant)
      case .local(let local): excludedInstants.insert(local.instant(in: zone))
      case .date(let day): excludedDays.insert(day)
      }
    }
    found.sort()
    var result: [Date] = []
    result.reserveCapacity(found.count)
    for instant in found where instant != result.last {
      if excludedInstants.contains(instant) { continue }
      if !excludedDays.isEmpty, excludedDays.contains(CivilDateTime(instant, in: zone).date) { continue }
      result.append(instant)
    }
    return result
  }
}

/// Expands one RRULE on the wall clock: the instances of each interval, in order.
struct RuleExpander {
  let rule: RecurrenceRule
  let start: CivilDateTime
  let zone: TimeZone
  let weekStart: Int
  let months: SmallSet  // 1...12
  let plainWeekdays: SmallSet  // 0...6
  let ordinalWeekdays: [(weekday: Int, ordinal: Int)]
  let monthDays: [Int]
  /// The times of day each day yields, ascending.
  let hours: SmallSet
  let minutes: SmallSet
  let seconds: SmallSet
  /// For HOURLY and finer: the BYHOUR (BYMINUTE, BYSECOND) limit; every value without one.
  let hourFilter: SmallSet
  let minuteFilter: SmallSet
  let secondFilter: SmallSet
  /// Every interval yields exactly one instance, so skipped intervals can be counted.
  let onePerInterval: Bool
  let untilUTC: Date?
  /// An all-day series' UTC UNTIL as a date (its UTC date): the same last day in every zone.
  let untilUTCDay: CivilDate?

  /// `dateStart`: DTSTART is a DATE, so BYHOUR, BYMINUTE and BYSECOND (which RFC 5545 forbids
  /// there) are ignored, as libical does: each day yields its one all-day instance.
  init(rule: RecurrenceRule, start: CivilDateTime, zone: TimeZone, dateStart: Bool = false) {
    var rule = rule
    if dateStart, rule.frequency >= .daily {
      rule.byHour = []
      rule.byMinute = []
      rule.bySecond = []
    }
    self.rule = rule
    self.start = start
    self.zone = zone
    weekStart = rule.effectiveWeekStart.rawValue
    let freq = rule.frequency
    let noDayParts =
      rule.byWeekNo.isEmpty && rule.byYearDay.isEmpty && rule.byMonthDay.isEmpty && rule.byDay.isEmpty
    // The RFC's defaults: the parts DTSTART supplies when the rule names no day. A yearly
    // rule that names weeks only takes DTSTART's weekday, and one that names days of the month
    // only takes DTSTART's month (libical's reading: "yearly on the 29th" is not monthly).
    var byMonth = rule.byMonth
    var monthDays = rule.byMonthDay
    var byDay = rule.byDay
    if noDayParts {
      switch freq {
      case .yearly:
        if byMonth.isEmpty { byMonth = [start.date.month] }
        monthDays = [start.date.day]
      case .monthly: monthDays = [start.date.day]
      case .weekly: byDay = [.init(start.date.weekday)]
      default: break
      }
    } else if freq == .yearly, rule.byYearDay.isEmpty, rule.byDay.isEmpty {
      if !rule.byWeekNo.isEmpty, rule.byMonthDay.isEmpty { byDay = [.init(start.date.weekday)] }
      if rule.byWeekNo.isEmpty, byMonth.isEmpty { byMonth = [start.date.month] }
    }
    months = byMonth.isEmpty ? SmallSet(all: 1...12) : SmallSet(byMonth)
    var plain = SmallSet()
    var ordinals: [(Int, Int)] = []
    for day in byDay {
      if let ordinal = day.ordinal, freq == .monthly || freq == .yearly {
        ordinals.append((day.weekday.rawValue, ordinal))
      } else {
        plain.insert(day.weekday.rawValue)
      }
    }
    plainWeekdays = byDay.isEmpty ? SmallSet(all: 0...6) : plain
    ordinalWeekdays = ordinals
    self.monthDays = monthDays
    // A leap second (BYSECOND=60) counts as 59, as DTSTART's would.
    let bySecond = rule.bySecond.map { min($0, 59) }
    hourFilter = rule.byHour.isEmpty ? SmallSet(all: 0...23) : SmallSet(rule.byHour)
    minuteFilter = rule.byMinute.isEmpty ? SmallSet(all: 0...59) : SmallSet(rule.byMinute)
    secondFilter = bySecond.isEmpty ? SmallSet(all: 0...59) : SmallSet(bySecond)
    hours = rule.byHour.isEmpty ? SmallSet(single: start.hour) : SmallSet(rule.byHour)
    minutes = rule.byMinute.isEmpty ? SmallSet(single: start.minute) : SmallSet(rule.byMinute)
    seconds = bySecond.isEmpty ? SmallSet(single: start.second) : SmallSet(bySecond)
    let noParts =
      noDayParts && rule.byMonth.isEmpty && rule.byHour.isEmpty && rule.byMinute.isEmpty
      && rule.bySecond.isEmpty && rule.bySetPos.isEmpty
    switch freq {
    case .yearly: onePerInterval = noParts && !(start.date.month == 2 && start.date.day == 29)
    case .monthly: onePerInterval = noParts && start.date.day <= 28
    default: onePerInterval = noParts
    }
    if case .utc(let time) = rule.until {
      untilUTC = time.instant(in: .gmt)
      untilUTCDay = dateStart ? time.date : nil
    } else {
      untilUTC = nil
      untilUTCDay = nil
    }
  }

  // MARK: - Intervals

  private var step: Int { rule.interval }

  /// The first interval's anchor: a year, a month index (year * 12 + month - 1), the day
  /// number of a week's first day, a day number, or wall-clock seconds.
  private var firstAnchor: Int {
    switch rule.frequency {
    case .yearly: return start.date.year
    case .monthly: return start.date.year * 12 + start.date.month - 1
    case .weekly:
      let day = start.date.dayNumber
      return day - ((CivilDate.weekday(ofDayNumber: day) - weekStart) % 7 + 7) % 7
    case .daily: return start.date.dayNumber
    case .hourly, .minutely, .secondly: return start.civilSeconds
    }
  }

  /// Units of the anchor per interval.
  private var anchorStep: Int {
    switch rule.frequency {
    case .yearly, .monthly, .daily: return step
    case .weekly: return 7 * step
    case .hourly: return 3600 * step
    case .minutely: return 60 * step
    case .secondly: return step
    }
  }

  /// The anchor of the interval holding wall-clock time `civil` (not aligned to the steps).
  private func anchor(ofCivil civil: Int) -> Int {
    let time = CivilDateTime(civilSeconds: civil)
    switch rule.frequency {
    case .yearly: return time.date.year
    case .monthly: return time.date.year * 12 + time.date.month - 1
    case .weekly:
      let day = time.date.dayNumber
      return day - ((CivilDate.weekday(ofDayNumber: day) - weekStart) % 7 + 7) % 7
    case .daily: return time.date.dayNumber
    case .hourly, .minutely, .secondly: return civil
    }
  }

  /// The wall-clock seconds where an interval's anchor begins.
  private func civilStart(ofAnchor anchor: Int) -> Int {
    switch rule.frequency {
    case .yearly: return CivilDate.dayNumber(year: anchor, month: 1, day: 1) * 86400
    case .monthly: return CivilDate.dayNumber(year: floorDiv(anchor, 12), month: mod(anchor, 12) + 1, day: 1) * 86400
    case .weekly, .daily: return anchor * 86400
    case .hourly, .minutely, .secondly: return anchor
    }
  }

  /// Calls `body` with each instance whose wall-clock time lies in `[civilFrom, civilTo]`, in
  /// order (UNTIL and COUNT applied).
  mutating func forEach(civilFrom: Int, civilTo: Int, _ body: (CivilDateTime) -> Void) {
    let first = firstAnchor
    let unit = anchorStep
    let latest = CivilDateTime(AppointmentRules.latest, in: .gmt).civilSeconds + 86400
    var index = 0
    var emitted = 0
    if rule.count == nil || onePerInterval {
      let skip = max(0, floorDiv(anchor(ofCivil: civilFrom) - first, unit) - 1)
      if let count = rule.count {
        guard skip < count else { return }
        emitted = skip
      }
      index = skip
    }
    var steps = 0
    var candidates: [CivilDateTime] = []
    while steps < RecurrenceSet.maximumSteps {
      steps += 1
      let anchor = first + index * unit
      let periodStart = civilStart(ofAnchor: anchor)
      if periodStart > civilTo || periodStart > latest { return }
      candidates.removeAll(keepingCapacity: true)
      if let skipTo = instances(ofAnchor: anchor, into: &candidates) {
        // A finer rule's day or hour is excluded: go to the first interval past it.
        index = max(index + 1, ceilDiv(skipTo - first, unit))
        continue
      }
      index += 1
      for local in candidates where local >= start {
        if let until = rule.until {
          switch until {
          case .date(let day): if local.date > day { return }
          case .local(let time): if local > time { return }
          case .utc:
            if let untilUTCDay {
              if local.date > untilUTCDay { return }
            } else if let untilUTC, local.instant(in: zone) > untilUTC {
              return
            }
          }
        }
        if let count = rule.count {
          if emitted >= count { return }
          emitted += 1
        }
        let civil = local.civilSeconds
        if civil > civilTo { return }
        if civil >= civilFrom { body(local) }
      }
      if let count = rule.count, emitted >= count { return }
    }
  }

  /// Appends the instances of one interval in order (BYSETPOS applied). For HOURLY and finer
  /// rules whose day (or hour) is excluded, returns the wall-clock seconds to skip to instead.
  private func instances(ofAnchor anchor: Int, into out: inout [CivilDateTime]) -> Int? {
    switch rule.frequency {
    case .yearly:
      let firstDay = CivilDate.dayNumber(year: anchor, month: 1, day: 1)
      let length = CivilDate.isLeapYear(anchor) ? 366 : 365
      var context = YearContext(year: anchor, firstDay: firstDay, length: length, weekStart: weekStart)
      // Only the months BYMONTH (or DTSTART's month) allows: `matches` refuses every other day
      // first, so this finds the same days, in the same order, without visiting the year's 365.
      for month in months {
        let monthFirst = CivilDate.dayNumber(year: anchor, month: month, day: 1)
        for offset in 0..<CivilDate.daysInMonth(year: anchor, month: month) {
          let date = CivilDate(year: anchor, month: month, day: offset + 1)
          if matches(monthFirst + offset, date, &context) { addTimes(date, &out) }
        }
      }
    case .monthly:
      let year = floorDiv(anchor, 12)
      let month = mod(anchor, 12) + 1
      let firstDay = CivilDate.dayNumber(year: year, month: month, day: 1)
      var context = YearContext(year: year, weekStart: weekStart)
      for offset in 0..<CivilDate.daysInMonth(year: year, month: month) {
        let date = CivilDate(year: year, month: month, day: offset + 1)
        if matches(firstDay + offset, date, &context) { addTimes(date, &out) }
      }
    case .weekly:
      var context = YearContext(year: CivilDate(dayNumber: anchor).year, weekStart: weekStart)
      for day in anchor..<(anchor + 7) where matches(day, &context) { addTimes(CivilDate(dayNumber: day), &out) }
    case .daily:
      var context = YearContext(year: CivilDate(dayNumber: anchor).year, weekStart: weekStart)
      if matches(anchor, &context) { addTimes(CivilDate(dayNumber: anchor), &out) }
    case .hourly, .minutely, .secondly:
      let time = CivilDateTime(civilSeconds: anchor)
      let day = time.date.dayNumber
      var context = YearContext(year: time.date.year, weekStart: weekStart)
      guard matches(day, time.date, &context) else { return (day + 1) * 86400 }
      guard hourFilter.contains(time.hour) else { return anchor - time.minute * 60 - time.second + 3600 }
      switch rule.frequency {
      case .hourly:
        for minute in minutes {
          for second in seconds {
            out.append(CivilDateTime(date: time.date, hour: time.hour, minute: minute, second: second))
          }
        }
      case .minutely:
        guard minuteFilter.contains(time.minute) else { return anchor - time.second + 60 }
        for second in seconds {
          out.append(CivilDateTime(date: time.date, hour: time.hour, minute: time.minute, second: second))
        }
      default:
        guard minuteFilter.contains(time.minute) else { return anchor - time.second + 60 }
        if secondFilter.contains(time.second) { out.append(time) }
      }
    }
    applySetPositions(&out)
    return nil
  }

  private func addTimes(_ date: CivilDate, _ out: inout [CivilDateTime]) {
    for hour in hours {
      for minute in minutes {
        for second in seconds { out.append(CivilDateTime(date: date, hour: hour, minute: minute, second: second)) }
      }
    }
  }

  private func applySetPositions(_ out: inout [CivilDateTime]) {
    guard !rule.bySetPos.isEmpty, !out.isEmpty else { return }
    var picked = Set<Int>()
    for position in rule.bySetPos {
      let index = position > 0 ? position - 1 : out.count + position
      if out.indices.contains(index) { picked.insert(index) }
    }
    out = picked.sorted().map { out[$0] }
  }

  // MARK: - Day filters

  /// Facts about the year of the day being tested, computed once per year.
  struct YearContext {
    var year: Int
    var firstDay: Int
    var length: Int
    let weekStart: Int

    init(year: Int, firstDay: Int? = nil, length: Int? = nil, weekStart: Int) {
      self.year = year
      self.firstDay = firstDay ?? CivilDate.dayNumber(year: year, month: 1, day: 1)
      self.length = length ?? (CivilDate.isLeapYear(year) ? 366 : 365)
      self.weekStart = weekStart
    }

    mutating func move(to year: Int) {
      guard year != self.year else { return }
      self = YearContext(year: year, weekStart: weekStart)
    }

    /// The first day of the week (per WKST) holding `day`.
    func weekFirstDay(_ day: Int) -> Int { day - ((CivilDate.weekday(ofDayNumber: day) - weekStart) % 7 + 7) % 7 }

    /// Week number and the weeks of its year: week 1 is the first week (from WKST) with at
    /// least four days in the year; a week belongs to the year holding its fourth day.
    func weekNumber(_ day: Int) -> (number: Int, weeksInYear: Int) {
      let fourth = weekFirstDay(day) + 3
      let weekYear = CivilDate(dayNumber: fourth).year
      let yearStart = CivilDate.dayNumber(year: weekYear, month: 1, day: 1)
      let number = (fourth - yearStart) / 7 + 1
      let lastFourth = weekFirstDay(CivilDate.dayNumber(year: weekYear, month: 12, day: 28)) + 3
      return (number, (lastFourth - yearStart) / 7 + 1)
    }
  }

  /// `matches(_:_:_:)` for a day known by its number only: a day whose weekday BYDAY leaves
  /// out (with no ordinal weekday that could take it) is refused before its date is computed.
  private func matches(_ day: Int, _ context: inout YearContext) -> Bool {
    if ordinalWeekdays.isEmpty, !plainWeekdays.contains(CivilDate.weekday(ofDayNumber: day)) { return false }
    return matches(day, CivilDate(dayNumber: day), &context)
  }

  /// Whether day number `day` (whose date is `date`) is a day of the rule.
  private func matches(_ day: Int, _ date: CivilDate, _ context: inout YearContext) -> Bool {
    guard months.contains(date.month) else { return false }
    let weekday = CivilDate.weekday(ofDayNumber: day)
    if ordinalWeekdays.isEmpty, !plainWeekdays.contains(weekday) { return false }
    context.move(to: date.year)
    if !rule.byWeekNo.isEmpty {
      let week = context.weekNumber(day)
      guard rule.byWeekNo.contains(where: { ($0 > 0 ? $0 : week.weeksInYear + 1 + $0) == week.number }) else {
        return false
      }
    }
    if !rule.byYearDay.isEmpty {
      let index = day - context.firstDay
      guard rule.byYearDay.contains(where: { $0 > 0 ? $0 - 1 == index : context.length + $0 == index }) else {
        return false
      }
    }
    if !monthDays.isEmpty {
      let length = CivilDate.daysInMonth(year: date.year, month: date.month)
      guard monthDays.contains(where: { $0 > 0 ? $0 == date.day : length + 1 + $0 == date.day }) else { return false }
    }
    if plainWeekdays.contains(weekday) { return true }
    guard !ordinalWeekdays.isEmpty else { return false }
    // An ordinal counts within the month (MONTHLY, or YEARLY with BYMONTH) or the year.
    let rangeStart: Int
    let rangeEnd: Int
    if rule.frequency == .monthly || !rule.byMonth.isEmpty {
      rangeStart = day - date.day + 1
      rangeEnd = rangeStart + CivilDate.daysInMonth(year: date.year, month: date.month) - 1
    } else {
      rangeStart = context.firstDay
      rangeEnd = context.firstDay + context.length - 1
    }
    let fromStart = (day - rangeStart) / 7 + 1
    let fromEnd = -((rangeEnd - day) / 7 + 1)
    return ordinalWeekdays.contains { $0.weekday == weekday && ($0.ordinal == fromStart || $0.ordinal == fromEnd) }
  }
}

func floorDiv(_ a: Int, _ b: Int) -> Int { a >= 0 ? a / b : -((-a + b - 1) / b) }
func ceilDiv(_ a: Int, _ b: Int) -> Int { -floorDiv(-a, b) }
func mod(_ a: Int, _ b: Int) -> Int { a - floorDiv(a, b) * b }
