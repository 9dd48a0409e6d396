// A byte-level reader for the RRULE text the store keeps (`RecurrenceRule.text`: upper case,
// no spaces, no `RRULE:`), which every window decodes once per distinct rule. The general
// reader (`RecurrenceRule(parsingGeneral:)`) splits into Substrings, builds a String per part
// and name, and checks digits Character by Character: about a third of decoding a series row
// at 1M. This one reads the bytes once, and gives up (nil) on anything it does not take
// exactly as the general reader would: lower case, spaces, an `X-` part, an empty or repeated
// part, a bad value. The general reader then decides, with its error messages; the two agree
// on every text this one takes (RecurrenceRuleTests holds them equal).

extension RecurrenceRule {
  /// The rule of canonical `text`, or nil for the general reader to decide.
  static func parsingCanonical(_ text: String) -> RecurrenceRule? {
    var text = text
    return text.withUTF8 { bytes -> RecurrenceRule? in
      var reader = CanonicalRuleReader(bytes: bytes)
      return reader.rule()
    }
  }
}

private struct CanonicalRuleReader {
  let bytes: UnsafeBufferPointer<UInt8>
  var index = 0

  init(bytes: UnsafeBufferPointer<UInt8>) { self.bytes = bytes }

  /// The parts, each once; FREQ required; COUNT and UNTIL not both.
  mutating func rule() -> RecurrenceRule? {
    var rule = RecurrenceRule(frequency: .daily)
    var frequency: RecurrenceRule.Frequency?
    var seen: UInt32 = 0
    while index < bytes.count {
      guard let (part, valueStart) = name() else { return nil }
      guard seen & (1 << part.rawValue) == 0 else { return nil }
      seen |= 1 << part.rawValue
      let valueEnd = endOfValue()
      guard valueEnd > valueStart else { return nil }
      let value = UnsafeBufferPointer(rebasing: bytes[valueStart..<valueEnd])
      switch part {
      case .freq:
        guard let parsed = Self.frequency(value) else { return nil }
        frequency = parsed
      case .interval:
        guard let number = Self.integer(value, signed: false), (1...RecurrenceRule.maximumInterval).contains(number)
        else { return nil }
        rule.interval = number
      case .count:
        guard let number = Self.integer(value, signed: false), (1...RecurrenceRule.maximumCount).contains(number)
        else { return nil }
        rule.count = number
      case .until:
        guard let until = Self.until(value) else { return nil }
        rule.until = until
      case .bySecond:
        guard let list = Self.numbers(value, 0...60, signed: false) else { return nil }
        rule.bySecond = list
      case .byMinute:
        guard let list = Self.numbers(value, 0...59, signed: false) else { return nil }
        rule.byMinute = list
      case .byHour:
        guard let list = Self.numbers(value, 0...23, signed: false) else { return nil }
        rule.byHour = list
      case .byMonthDay:
        guard let list = Self.numbers(value, 1...31, signed: true) else { return nil }
        rule.byMonthDay = list
      case .byYearDay:
        guard let list = Self.numbers(value, 1...366, signed: true) else { return nil }
        rule.byYearDay = list
      case .byWeekNo:
        guard let list = Self.numbers(value, 1...53, signed: true) else { return nil }
        rule.byWeekNo = list
      case .byMonth:
        guard let list = Self.numbers(value, 1...12, signed: false) else { return nil }
        rule.byMonth = list
      case .bySetPos:
        guard let list = Self.numbers(value, 1...366, signed: true) else { return nil }
        rule.bySetPos = list
      case .byDay:
        guard let days = Self.weekdayNumbers(value) else { return nil }
        rule.byDay = days
      case .wkst:
        guard value.count == 2, let day = Self.weekday(value[0], value[1]) else { return nil }
        rule.weekStart = day
      }
      // Past the `;`, which must be followed by another part.
      if index < bytes.count {
        index += 1
        guard index < bytes.count else { return nil }
      }
    }
    guard let frequency, rule.count == nil || rule.until == nil else { return nil }
    rule.frequency = frequency
    return rule
  }

  enum Part: UInt32 {
    case freq, interval, count, until, bySecond, byMinute, byHour, byMonthDay, byYearDay, byWeekNo
    case byMonth, bySetPos, byDay, wkst
  }

  static let names: [(name: [UInt8], part: Part)] = {
    let spelled: [(String, Part)] = [
      ("FREQ", .freq), ("INTERVAL", .interval), ("COUNT", .count), ("UNTIL", .until), ("BYSECOND", .bySecond),
      ("BYMINUTE", .byMinute), ("BYHOUR", .byHour), ("BYMONTHDAY", .byMonthDay), ("BYYEARDAY", .byYearDay),
      ("BYWEEKNO", .byWeekNo), ("BYMONTH", .byMonth), ("BYSETPOS", .bySetPos), ("BYDAY", .byDay), ("WKST", .wkst),
    ]
    return spelled.map { (Array($0.0.utf8), $0.1) }
  }()

  /// The part named up to the next `=`, and where its value starts.
  mutating func name() -> (Part, Int)? {
    let start = index
    while index < bytes.count, bytes[index] != UInt8(ascii: "=") {
      guard bytes[index] != UInt8(ascii: ";") else { return nil }
      index += 1
    }
    guard index < bytes.count else { return nil }
    let name = UnsafeBufferPointer(rebasing: bytes[start..<index])
    index += 1
    for entry in Self.names where entry.name.elementsEqual(name) { return (entry.part, index) }
    return nil
  }

  /// Moves to the `;` after the value (or the end), returning where the value ends.
  mutating func endOfValue() -> Int {
    while index < bytes.count, bytes[index] != UInt8(ascii: ";") { index += 1 }
    return index
  }

  static func frequency(_ value: UnsafeBufferPointer<UInt8>) -> RecurrenceRule.Frequency? {
    for frequency in RecurrenceRule.Frequency.allCases where frequency.rawValue.utf8.elementsEqual(value) {
      return frequency
    }
    return nil
  }

  /// Digits (at most nine) with a sign where `signed`, as the general reader takes them.
  static func integer(_ value: UnsafeBufferPointer<UInt8>, signed: Bool) -> Int? {
    var start = 0
    var sign = 1
    if signed, let first = value.first, first == UInt8(ascii: "+") || first == UInt8(ascii: "-") {
      sign = first == UInt8(ascii: "-") ? -1 : 1
      start = 1
    }
    let digits = value.count - start
    guard digits > 0, digits <= 9 else { return nil }
    var number = 0
    for byte in value[start...] {
      guard byte >= UInt8(ascii: "0"), byte <= UInt8(ascii: "9") else { return nil }
      number = number * 10 + Int(byte - UInt8(ascii: "0"))
    }
    return sign * number
  }

  static func numbers(_ value: UnsafeBufferPointer<UInt8>, _ range: ClosedRange<Int>, signed: Bool) -> [Int]? {
    var result: [Int] = []
    var start = 0
    for end in 0...value.count where end == value.count || value[end] == UInt8(ascii: ",") {
      guard let number = integer(UnsafeBufferPointer(rebasing: value[start..<end]), signed: signed),
        range.contains(abs(number)), number != 0 || range.lowerBound == 0
      else { return nil }
      result.append(number)
      start = end + 1
    }
    return result
  }

  static func weekday(_ first: UInt8, _ second: UInt8) -> Recurrence.Weekday? {
    switch (first, second) {
    case (UInt8(ascii: "M"), UInt8(ascii: "O")): return .monday
    case (UInt8(ascii: "T"), UInt8(ascii: "U")): return .tuesday
    case (UInt8(ascii: "W"), UInt8(ascii: "E")): return .wednesday
    case (UInt8(ascii: "T"), UInt8(ascii: "H")): return .thursday
    case (UInt8(ascii: "F"), UInt8(ascii: "R")): return .friday
    case (UInt8(ascii: "S"), UInt8(ascii: "A")): return .saturday
    case (UInt8(ascii: "S"), UInt8(ascii: "U")): return .sunday
    default: return nil
    }
  }

  /// `MO`, `2TU`, `-1FR`, ... separated by commas.
  static func weekdayNumbers(_ value: UnsafeBufferPointer<UInt8>) -> [RecurrenceRule.WeekdayNumber]? {
    var result: [RecurrenceRule.WeekdayNumber] = []
    var start = 0
    for end in 0...value.count where end == value.count || value[end] == UInt8(ascii: ",") {
      guard end - start >= 2, let day = weekday(value[end - 2], value[end - 1]) else { return nil }
      if end - start == 2 {
        result.append(RecurrenceRule.WeekdayNumber(day))
      } else {
        guard let ordinal = integer(UnsafeBufferPointer(rebasing: value[start..<(end - 2)]), signed: true),
          (1...53).contains(abs(ordinal))
        else { return nil }
        result.append(RecurrenceRule.WeekdayNumber(day, ordinal))
      }
      start = end + 1
    }
    return result
  }

  /// `YYYYMMDD`, or `YYYYMMDDTHHMMSS` with or without `Z`.
  static func until(_ value: UnsafeBufferPointer<UInt8>) -> RecurrenceRule.Until? {
    let isUTC = value.last == UInt8(ascii: "Z")
    let length = isUTC ? value.count - 1 : value.count
    func field(_ from: Int, _ count: Int) -> Int? {
      integer(UnsafeBufferPointer(rebasing: value[from..<(from + count)]), signed: false)
    }
    guard length == 8 || length == 15 else { return nil }
    guard let year = field(0, 4), let month = field(4, 2), let day = field(6, 2) else { return nil }
    let date = CivilDate(year: year, month: month, day: day)
    guard date.isValid else { return nil }
    if length == 8 { return isUTC ? nil : .date(date) }
    guard value[8] == UInt8(ascii: "T"), let hour = field(9, 2), let minute = field(11, 2),
      let second = field(13, 2), hour < 24, minute < 60, second <= 60
    else { return nil }
    let time = CivilDateTime(date: date, hour: hour, minute: minute, second: min(second, 59))
    return isUTC ? .utc(time) : .local(time)
  }
}
