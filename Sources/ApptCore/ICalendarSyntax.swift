import Foundation

/// RFC 5545's lexical layer: content lines (unfolding, parameters), TEXT escaping, folding,
/// and the DATE, DATE-TIME and DURATION value types.
extension ICalendar {
  /// One unfolded property line: `NAME;PARAM=VALUE;...:VALUE`.
  struct ContentLine: Sendable {
    /// Upper-cased.
    var name: String
    /// Upper-cased names; values without their quotes.
    var parameters: [String: String]
    var value: String
    /// The file line where it starts.
    var line: Int
    /// The whole line as read (unfolded, original spelling): what extras keep.
    var raw: String

    func parameter(_ name: String) -> String? { parameters[name] }

    /// The same parameters and value under another property's name.
    func renamed(_ newName: String) -> ContentLine {
      ContentLine(
        name: newName,
        parameters: parameters,
        value: value,
        line: line,
        raw: newName + raw.dropFirst(min(name.count, raw.count))
      )
    }
  }

  // MARK: - Lines

  /// The logical lines of `bytes`, one at a time: LF or CRLF ends a line, and a line
  /// starting with a space or a tab continues the previous one (the leading blank is
  /// dropped). Folds are joined as bytes, so a writer that folded inside a UTF-8 sequence
  /// still reads correctly. Each line is its text (nil when it is not UTF-8) and first line
  /// number; `problems` collects those of the line structure itself.
  ///
  /// Lazy, so reading a file holds the bytes and one line at a time, not every line again
  /// as bytes and then as text (a 60 MB calendar took 490 MB before). With a `source`, not
  /// even the bytes: they come in chunks, and the buffer holds the logical line being read
  /// and what follows it in its chunk, so a file of any size is read in flat memory.
  struct UnfoldedLines: Sequence, IteratorProtocol {
    private var bytes: [UInt8]
    /// The next chunk of the text, nil at its end (nil: `bytes` is all of it).
    private var source: (() -> [UInt8]?)?
    /// Where the next physical line starts.
    private var start: Int
    /// Physical lines consumed so far.
    private var number = 0
    private var started = false
    /// Whether a byte order mark was looked for (at the first line, once 3 bytes are in).
    private var checkedMark = false
    /// The bytes of a folded line being joined (reused).
    private var joined: [UInt8] = []
    private(set) var problems: [Problem] = []

    init(_ bytes: [UInt8]) {
      self.bytes = bytes
      start = 0
    }

    /// The lines of the text `source` hands over chunk by chunk (nil at its end).
    init(source: @escaping () -> [UInt8]?) {
      bytes = []
      self.source = source
      start = 0
    }

    mutating func next() -> (text: String?, line: Int)? {
      bufferLogicalLine()
      if !checkedMark {
        checkedMark = true
        if bytes.starts(with: [0xEF, 0xBB, 0xBF]) { start = 3 }
      }
      while !started, continues(), physical() != nil {
        problems.append(
          Problem(line: number, message: "a continuation line (starting with a blank) with no line before it")
        )
        bufferLogicalLine()
      }
      guard let first = physical() else { return nil }
      started = true
      let line = number
      guard continues() else { return (String(validating: bytes[first], as: UTF8.self), line) }
      joined.removeAll(keepingCapacity: true)
      joined += bytes[first]
      while continues(), let more = physical() { joined += bytes[more].dropFirst() }
      return (String(validating: joined, as: UTF8.self), line)
    }

    /// With a source: reads chunks until the buffer holds the whole logical line at `start`
    /// (its physical lines and the first byte after them, which says whether it goes on),
    /// or the text ends. What was read before `start` is dropped first.
    private mutating func bufferLogicalLine() {
      guard source != nil else { return }
      var scan = start
      while true {
        if let end = bytes[scan...].firstIndex(of: 0x0A) {
          scan = end + 1
          if scan < bytes.count {
            guard bytes[scan] == 0x20 || bytes[scan] == 0x09 else { return }
            continue
          }
        } else {
          scan = bytes.count
        }
        let read = scan - start
        if read > Self.longestLine {
          // A file read a piece at a time has no size limit; its lines have one, so memory
          // stays bounded whatever the file holds (a multi-gigabyte file without line ends).
          problems.append(
            Problem(
              line: number + 1,
              message: "a line longer than \(Self.longestLine >> 20) MiB: the file is not read past it"
            )
          )
          (bytes, start, source) = ([], 0, nil)
          return
        }
        guard readChunk() else { return }
        scan = start + read
      }
    }

    /// The longest logical line read from a source (a long Teams invitation's DESCRIPTION is
    /// a few hundred KiB; an inline ATTACH a few MiB).
    static let longestLine = 32 << 20

    /// Moves what is left of the buffer to its front and appends the source's next chunk;
    /// false at the end of the text (the source is then let go).
    private mutating func readChunk() -> Bool {
      guard let next = source?() else {
        source = nil
        return false
      }
      if start > 0 {
        bytes.removeSubrange(0..<start)
        start = 0
      }
      bytes += next
      return true
    }

    /// True when the next physical line starts with a blank: it continues the one before.
    private func continues() -> Bool {
      start < bytes.count && (bytes[start] == 0x20 || bytes[start] == 0x09)
    }

    /// The next physical line without its line end, consumed; nil at the end.
    private mutating func physical() -> Range<Int>? {
      guard start < bytes.count else { return nil }
      number += 1
      var end = bytes[start...].firstIndex(of: 0x0A) ?? bytes.count
      let next = end + 1
      if end > start, bytes[end - 1] == 0x0D { end -= 1 }
      defer { start = next }
      return start..<end
    }
  }

  /// Every logical line of `bytes` at once (see `UnfoldedLines`), and the problems of the
  /// line structure.
  static func unfold(_ bytes: [UInt8]) -> (lines: [(text: String?, line: Int)], problems: [Problem]) {
    var iterator = UnfoldedLines(bytes)
    var lines: [(text: String?, line: Int)] = []
    while let line = iterator.next() { lines.append(line) }
    return (lines, iterator.problems)
  }

  /// Parses `NAME *(";" PARAM "=" VALUE) ":" VALUE`; nil when the line has another shape.
  static func contentLine(_ text: String, line: Int) -> ContentLine? {
    var contiguous = text
    // Over the UTF-8 bytes: every delimiter is ASCII, and no byte of a multi-byte character
    // is, so the pieces cut between delimiters are whole characters.
    return contiguous.withUTF8 { bytes in
      var index = 0
      func piece(_ range: Range<Int>) -> String {
        String(decoding: UnsafeBufferPointer(rebasing: bytes[range]), as: UTF8.self)
      }
      /// A name (letters, digits, `-`), upper-cased.
      func name() -> String? {
        let begin = index
        while index < bytes.count {
          let byte = bytes[index]
          guard
            (0x41...0x5A).contains(byte) || (0x61...0x7A).contains(byte) || (0x30...0x39).contains(byte)
              || byte == 0x2D
          else { break }
          index += 1
        }
        guard index > begin else { return nil }
        let upper = bytes[begin..<index].map { (0x61...0x7A).contains($0) ? $0 - 0x20 : $0 }
        return String(decoding: upper, as: UTF8.self)
      }
      let semicolon: UInt8 = 0x3B
      let colon: UInt8 = 0x3A
      let quote: UInt8 = 0x22
      guard let propertyName = name() else { return nil }
      var parameters: [String: String] = [:]
      while index < bytes.count, bytes[index] == semicolon {
        index += 1
        guard let parameterName = name(), index < bytes.count, bytes[index] == 0x3D else { return nil }
        index += 1
        // A parameter value: quoted strings and plain text, comma-separated.
        let begin = index
        var unquoted: [UInt8]?  // only when a quote is left out
        while index < bytes.count, bytes[index] != semicolon, bytes[index] != colon {
          if bytes[index] == quote {
            if unquoted == nil { unquoted = Array(bytes[begin..<index]) }
            index += 1
            let opened = index
            while index < bytes.count, bytes[index] != quote { index += 1 }
            guard index < bytes.count else { return nil }  // an unterminated quote
            unquoted?.append(contentsOf: bytes[opened..<index])
            index += 1
          } else {
            unquoted?.append(bytes[index])
            index += 1
          }
        }
        parameters[parameterName] = unquoted.map { String(decoding: $0, as: UTF8.self) } ?? piece(begin..<index)
      }
      guard index < bytes.count, bytes[index] == colon else { return nil }
      return ContentLine(
        name: propertyName,
        parameters: parameters,
        value: piece((index + 1)..<bytes.count),
        line: line,
        raw: text
      )
    }
  }

  // MARK: - TEXT

  /// Undoes TEXT escaping: `\n` or `\N` is a newline; `\\`, `\;`, `\,` (and the common but
  /// non-standard `\:`) are the character itself. Another backslash is kept as it is.
  static func unescape(_ text: String) -> String {
    // On the bytes: Foundation's `contains` goes through NSString.
    guard text.utf8.contains(UInt8(ascii: "\\")) else { return text }
    var out = String.UnicodeScalarView()
    var scalars = text.unicodeScalars.makeIterator()
    while let scalar = scalars.next() {
      guard scalar == "\\" else {
        out.append(scalar)
        continue
      }
      guard let next = scalars.next() else {
        out.append(scalar)
        break
      }
      switch next {
      case "n", "N": out.append("\n")
      case "\\", ";", ",", ":": out.append(next)
      default:
        out.append(scalar)
        out.append(next)
      }
    }
    return String(out)
  }

  /// TEXT escaping. A line break (CRLF, LF or CR) becomes `\n`; a tab stays. Other control
  /// characters have no place in iCalendar TEXT, so they are written visibly in caret
  /// notation (as appt shows them on a terminal): `^[` for ESC.
  static func escape(_ text: String) -> String {
    var out = String.UnicodeScalarView()
    var previousWasCR = false
    for scalar in text.unicodeScalars {
      defer { previousWasCR = scalar == "\r" }
      switch scalar {
      case "\\": out.append(contentsOf: "\\\\".unicodeScalars)
      case ";": out.append(contentsOf: "\\;".unicodeScalars)
      case ",": out.append(contentsOf: "\\,".unicodeScalars)
      case "\r": out.append(contentsOf: "\\n".unicodeScalars)
      case "\n":
        if !previousWasCR { out.append(contentsOf: "\\n".unicodeScalars) }
      case "\t": out.append(scalar)
      default:
        if TextSafety.isControl(scalar) {
          // Caret notation can hold a backslash (0x1C is `^\`), which TEXT must escape too.
          let caret = TextSafety.escapingControls(String(scalar)).replacingOccurrences(of: "\\", with: "\\\\")
          out.append(contentsOf: caret.unicodeScalars)
        } else {
          out.append(scalar)
        }
      }
    }
    return String(out)
  }

  /// A parameter value, quoted when it holds `:`, `;` or `,`. A quote, which cannot be
  /// written, is spelled `^'` (RFC 6868's escape for it), and a control character in caret
  /// notation, as in the rest of the file; neither is left out, which can make a TZID no zone
  /// has into one a zone has (`Europ<NUL>e/Paris` read as floating, written back as
  /// `Europe/Paris`) and so move the times (a fuzz find).
  static func parameterValue(_ text: String) -> String {
    let clean = TextSafety.escapingControls(text.replacingOccurrences(of: "\"", with: "^'"))
    return clean.contains(where: { ":;,".contains($0) }) ? "\"\(clean)\"" : clean
  }

  // MARK: - Folding

  /// `line` folded so that no physical line exceeds 75 octets (not counting CRLF): each
  /// continuation starts with a space. A fold never falls inside a UTF-8 sequence. Each
  /// physical line ends in CRLF.
  static func fold(_ line: String) -> String {
    if line.utf8.count <= 75 { return line + "\r\n" }
    var out = ""
    var current = String.UnicodeScalarView()
    var octets = 0
    var limit = 75
    func append(_ scalars: String.UnicodeScalarView, width: Int) {
      if octets + width > limit {
        out += String(current) + "\r\n "
        current = String.UnicodeScalarView()
        octets = 0
        limit = 74  // the leading space counts
      }
      current.append(contentsOf: scalars)
      octets += width
    }
    // Whole characters where they fit (an emoji with its modifiers stays on one line), else
    // scalar by scalar: a fold may split a character, never a UTF-8 sequence.
    for character in line {
      let width = character.utf8.count
      if width <= 74 {
        append(character.unicodeScalars, width: width)
      } else {
        for scalar in character.unicodeScalars {
          append(String.UnicodeScalarView([scalar]), width: UTF8.width(scalar))
        }
      }
    }
    return out + String(current) + "\r\n"
  }

  // MARK: - DATE and DATE-TIME

  /// A DATE or DATE-TIME value as written, validated (no 30 February, no hour 24).
  struct DateValue: Hashable, Sendable {
    var year: Int
    var month: Int
    var day: Int
    /// Nil for a DATE.
    var time: Time?
    /// A DATE-TIME ending in `Z`.
    var isUTC: Bool

    struct Time: Hashable, Sendable {
      var hour: Int
      var minute: Int
      var second: Int
    }

    var isDate: Bool { time == nil }

    /// `YYYYMMDD` or `YYYYMMDDTHHMMSS[Z]`; the message says what is wrong.
    static func parse(_ text: String) -> Result<DateValue, Problem.Text> {
      let bytes = Array(text.utf8)
      // Only a failure shows it: not made for every value read.
      var quoted: String { WhenParser.quoted(text) }
      func number(_ range: Range<Int>) -> Int? {
        guard range.upperBound <= bytes.count else { return nil }
        var value = 0
        for byte in bytes[range] {
          guard (0x30...0x39).contains(byte) else { return nil }
          value = value * 10 + Int(byte - 0x30)
        }
        return value
      }
      guard bytes.count == 8 || bytes.count == 15 || (bytes.count == 16 && bytes[15] == UInt8(ascii: "Z")),
        let year = number(0..<4), let month = number(4..<6), let day = number(6..<8)
      else {
        return .failure(.init("\(quoted) is not a date (YYYYMMDD) or a date-time (YYYYMMDDTHHMMSS, Z for UTC)"))
      }
      guard (1...12).contains(month) else { return .failure(.init("\(quoted): there is no month \(month)")) }
      let length = daysIn(month: month, year: year)
      guard (1...length).contains(day) else {
        return .failure(.init("\(quoted): \(monthNames[month - 1]) \(year) has \(length) days, not \(day)"))
      }
      guard year >= 1 else { return .failure(.init("\(quoted): there is no year 0")) }
      guard bytes.count > 8 else {
        return .success(DateValue(year: year, month: month, day: day, time: nil, isUTC: false))
      }
      guard bytes[8] == UInt8(ascii: "T"), let hour = number(9..<11), let minute = number(11..<13),
        let second = number(13..<15)
      else {
        return .failure(.init("\(quoted) is not a date (YYYYMMDD) or a date-time (YYYYMMDDTHHMMSS, Z for UTC)"))
      }
      guard hour < 24, minute < 60, second < 60 else {
        return .failure(.init("\(quoted): there is no time \(pad(hour)):\(pad(minute)):\(pad(second))"))
      }
      return .success(
        DateValue(
          year: year,
          month: month,
          day: day,
          time: Time(hour: hour, minute: minute, second: second),
          isUTC: bytes.count == 16
        )
      )
    }

    /// The instant in `zone` (a UTC value ignores it). A wall time skipped by a
    /// daylight-saving change moves forward by the gap, as RFC 5545 says.
    func instant(in zone: TimeZone) -> Date? {
      if let instant = steadyInstant(in: isUTC ? .gmt : zone) { return instant }
      var calendar = Calendar(identifier: .gregorian)
      calendar.timeZone = isUTC ? .gmt : zone
      let components = DateComponents(
        year: year,
        month: month,
        day: day,
        hour: time?.hour ?? 0,
        minute: time?.minute ?? 0,
        second: time?.second ?? 0
      )
      return calendar.date(from: components)
    }

    /// The instant by integer arithmetic, the same as `Calendar`'s when `zone` has one offset
    /// from a day before to a day after the wall-clock time (it names one instant; a zone
    /// changes its offset at most once in two days) and the year is one where Foundation's
    /// Gregorian calendar is the proleptic one (long after 1582); else nil. An import reads
    /// most times this way, without building a `Calendar` for each.
    private func steadyInstant(in zone: TimeZone) -> Date? {
      guard (1900...9999).contains(year) else { return nil }
      let clock = time.map { $0.hour * 3600 + $0.minute * 60 + $0.second } ?? 0
      let local = CivilDate.dayNumber(year: year, month: month, day: day) * 86400 + clock
      let before = zone.secondsFromGMT(for: Date(timeIntervalSince1970: TimeInterval(local - 86400)))
      guard zone.secondsFromGMT(for: Date(timeIntervalSince1970: TimeInterval(local + 86400))) == before else {
        return nil
      }
      return Date(timeIntervalSince1970: TimeInterval(local - before))
    }

    /// The local date and time of `date` in `zone`: by integer arithmetic from the zone's
    /// offset at that instant within 1900-9999 (`Calendar`'s answer there), else by `Calendar`.
    static func local(_ date: Date, in zone: TimeZone, dateOnly: Bool) -> DateValue {
      let seconds = date.timeIntervalSince1970
      if seconds >= -2_208_988_800, seconds < 253_402_300_800 {
        let civil = CivilDateTime(date, in: zone)
        return DateValue(
          year: civil.date.year,
          month: civil.date.month,
          day: civil.date.day,
          time: dateOnly ? nil : Time(hour: civil.hour, minute: civil.minute, second: civil.second),
          isUTC: false
        )
      }
      var calendar = Calendar(identifier: .gregorian)
      calendar.timeZone = zone
      let c = calendar.dateComponents([.year, .month, .day, .hour, .minute, .second], from: date)
      return DateValue(
        year: c.year ?? 1970,
        month: c.month ?? 1,
        day: c.day ?? 1,
        time: dateOnly ? nil : Time(hour: c.hour ?? 0, minute: c.minute ?? 0, second: c.second ?? 0),
        isUTC: false
      )
    }

    /// The value as written: `20261201`, `20261201T100000`, `20261201T090000Z`.
    var text: String {
      var out = String(repeating: "0", count: max(0, 4 - String(year).count)) + String(year)
      out += Self.pad(month) + Self.pad(day)
      if let time { out += "T" + Self.pad(time.hour) + Self.pad(time.minute) + Self.pad(time.second) }
      if isUTC { out += "Z" }
      return out
    }

    static func daysIn(month: Int, year: Int) -> Int {
      switch month {
      case 2: return (year % 4 == 0 && year % 100 != 0) || year % 400 == 0 ? 29 : 28
      case 4, 6, 9, 11: return 30
      default: return 31
      }
    }

    static let monthNames = [
      "January", "February", "March", "April", "May", "June", "July", "August", "September", "October", "November",
      "December",
    ]

    static func pad(_ n: Int) -> String { n < 10 ? "0\(n)" : "\(n)" }
  }

  // MARK: - DURATION

  /// A DURATION value: nominal days (a day is the same wall-clock time the next day, so 23 or
  /// 25 hours across a daylight-saving change) and exact seconds.
  struct DurationValue: Hashable, Sendable {
    var days: Int
    var seconds: Int

    /// `[+]P[nW]` or `[+]P[nD][T[nH][nM][nS]]`; negative durations are refused.
    static func parse(_ text: String) -> Result<DurationValue, Problem.Text> {
      let failure = Result<DurationValue, Problem.Text>.failure(
        .init("\(WhenParser.quoted(text)) is not a duration like PT1H30M, P1D or P2W")
      )
      var scalars = Substring(text.uppercased())
      if scalars.hasPrefix("-") {
        return .failure(.init("\(WhenParser.quoted(text)) is a negative duration"))
      }
      if scalars.hasPrefix("+") { scalars = scalars.dropFirst() }
      guard scalars.hasPrefix("P") else { return failure }
      scalars = scalars.dropFirst()
      var days = 0
      var seconds = 0
      var inTime = false
      var digits = ""
      var sawUnit = false
      var lastUnitRank = -1
      for character in scalars {
        if character.isASCII, character.isNumber {
          digits.append(character)
          continue
        }
        if character == "T" {
          guard !inTime, digits.isEmpty else { return failure }
          inTime = true
          continue
        }
        guard let value = Int(digits), value <= 1_000_000 else { return failure }
        digits = ""
        let rank: Int
        switch (character, inTime) {
        case ("W", false):
          rank = 0
          days += value * 7
        case ("D", false):
          rank = 1
          days += value
        case ("H", true):
          rank = 2
          seconds += value * 3600
        case ("M", true):
          rank = 3
          seconds += value * 60
        case ("S", true):
          rank = 4
          seconds += value
        default: return failure
        }
        guard rank > lastUnitRank else { return failure }
        lastUnitRank = rank
        sawUnit = true
      }
      guard sawUnit, digits.isEmpty else { return failure }
      return .success(DurationValue(days: days, seconds: seconds))
    }

    /// The end of something starting at `start` that lasts this long, days counted in `zone`.
    func end(from start: Date, in zone: TimeZone) -> Date? {
      var calendar = Calendar(identifier: .gregorian)
      calendar.timeZone = zone
      guard let shifted = days == 0 ? start : calendar.date(byAdding: .day, value: days, to: start) else { return nil }
      return shifted.addingTimeInterval(TimeInterval(seconds))
    }
  }
}

extension ICalendar.Problem {
  /// A message waiting for its line number.
  struct Text: Error, Hashable, Sendable {
    var message: String
    init(_ message: String) { self.message = message }
  }
}
