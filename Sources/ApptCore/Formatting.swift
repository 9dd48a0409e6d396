import Foundation

/// Turns appointments into the text and JSON that `list`, `show` and `--json` print.
///
/// No `DateFormatter` is involved: local fields come from the zone's UTC offset at the
/// instant and a civil-date computation, which is fast (a `list` of a million rows) and keeps
/// the formatter a plain `Sendable` value. Seconds are truncated, never rounded. Text from the
/// database is escaped with `TextSafety` in text output and with JSON escapes in JSON.
public struct AppointmentFormatter: Sendable {
  /// The clock zone's offsets, shared by copies of the formatter (each line asks for several).
  let offsets: ZoneOffsets
  private var timeZone: TimeZone { clock.timeZone }
  /// For reminders' words (an absolute trigger is shown in its zone).
  private let clock: Clock
  /// How times of day show in text (`[ui] time_format`); ISO 8601 and JSON keep 24 hours.
  public let timeFormat: TimeFormat
  /// The user's mail addresses (`[mail] addresses`, lower-cased): which attendee is the user.
  public let addresses: Set<String>

  public init(clock: Clock, timeFormat: TimeFormat = .hours24, addresses: Set<String> = []) {
    self.offsets = ZoneOffsets(clock.timeZone)
    self.clock = clock
    self.timeFormat = timeFormat
    self.addresses = addresses
  }

  // MARK: - Text

  /// `"10:00-10:45"` in local time. An end at the next midnight prints `24:00`; an end on a
  /// later day carries the day count: `"23:00-01:00+1d"`. A time in the hour a fall-back
  /// change repeats carries its UTC offset, so the two 02:30s differ: `"02:30+02-03:00+01"`.
  /// With 12-hour times: `"9:00am-10:45am"`, and an end at the next midnight is `12:00am`.
  public func timeRange(_ a: Appointment) -> String {
    Self.text { appendTimeRange(a, to: &$0) }
  }

  /// `timeRange` as UTF-8 bytes, appended.
  func appendTimeRange(_ a: Appointment, to out: inout [UInt8]) {
    appendTimeRange(a, start: a.isAllDay ? nil : local(a.start), to: &out)
  }

  /// `appendTimeRange` with the start's local time, when the caller has it already.
  private func appendTimeRange(_ a: Appointment, start: LocalTime?, to out: inout [UInt8]) {
    guard !a.isAllDay, let start else {
      let days = Int((a.duration / 86_400).rounded())
      out.append(contentsOf: (days > 1 ? "all day (\(days) days)" : "all day").utf8)
      return
    }
    let end = local(a.end)
    let dayDelta = end.dayNumber - start.dayNumber
    appendClock(start, to: &out)
    appendOverlapMark(a.start, start, to: &out)
    out.append(0x2D)  // -
    if dayDelta == 1, end.hour == 0, end.minute == 0, end.second == 0 {
      out.append(contentsOf: (timeFormat == .hours12 ? "12:00am" : "24:00").utf8)
      return
    }
    appendClock(end, to: &out)
    appendOverlapMark(a.end, end, to: &out)
    if dayDelta != 0 { out.append(contentsOf: "\(dayDelta > 0 ? "+" : "")\(dayDelta)d".utf8) }
  }

  /// `"Tue 2026-12-01"`: the local day containing `date`.
  public func day(_ date: Date) -> String {
    Self.text { appendDay(local(date), to: &$0) }
  }

  /// `day` as UTF-8 bytes, appended.
  private func appendDay(_ time: LocalTime, to out: inout [UInt8]) {
    out.append(contentsOf: Self.weekdayBytes[time.weekday])
    out.append(0x20)
    Self.appendDate(time, to: &out)
  }

  /// `"Tue 2026-12-01 10:00"`: local day and time (`02:30+02` in a fall-back overlap).
  public func dayAndTime(_ date: Date) -> String {
    let time = local(date)
    return Self.text { out in
      appendDay(time, to: &out)
      out.append(0x20)
      appendClock(time, to: &out)
      appendOverlapMark(date, time, to: &out)
    }
  }

  /// `"+02"` for a time in the hour a fall-back change repeats (its UTC offset tells the two
  /// apart), nothing for every other time.
  private func appendOverlapMark(_ date: Date, _ time: LocalTime, to out: inout [UInt8]) {
    if twin(of: date) != nil { out.append(contentsOf: Self.offsetText(time.offset).utf8) }
  }

  /// Seconds east of UTC at `date` in this formatter's zone.
  func zoneOffset(_ date: Date) -> Int { offsets.offset(at: date) }

  /// `"10:00"` (`"10:00am"` with 12-hour times): the local time of day.
  public func time(_ date: Date) -> String {
    let time = local(date)
    return Self.text { appendClock(time, to: &$0) }
  }

  /// `"15:00"` whatever `timeFormat` says: the form's Start field, next to an ISO day.
  public func time24(_ date: Date) -> String {
    let time = local(date)
    return Self.text { Self.appendClock24(time, to: &$0) }
  }

  /// `"09:05"`, or `"9:05am"` with 12-hour times (as the WHEN grammar reads it back).
  private func appendClock(_ t: LocalTime, to out: inout [UInt8]) {
    guard timeFormat == .hours12 else { return Self.appendClock24(t, to: &out) }
    let hour = t.hour % 12 == 0 ? 12 : t.hour % 12
    if hour >= 10 { out.append(0x31) }  // 1
    out.append(0x30 + UInt8(hour % 10))
    Self.appendTwoDigits(t.minute, after: 0x3A, to: &out)
    out.append(t.hour < 12 ? 0x61 : 0x70)  // a or p
    out.append(0x6D)  // m
  }

  /// One `list` line: `"1a2b3c  Tue 2026-12-01  10:00-10:45  Dentist"`, then `"  [repeats]"`
  /// for a series' occurrence, `"  [changed]"` for a changed occurrence of one (an override)
  /// and `"  [cancelled]"` for a cancelled one. The title is escaped for the terminal.
  public func textLine(_ a: Appointment) -> String {
    Self.text { appendTextLine(a, to: &$0) }
  }

  /// `textLine` as UTF-8 bytes, appended (no newline): `list` writes its lines into one
  /// buffer a chunk at a time, with no String made for each line or each field.
  public func appendTextLine(_ a: Appointment, to out: inout [UInt8]) {
    if !appendCommonLineHead(a, to: &out) {
      a.id.appendShort(to: &out)
      Self.appendGap(to: &out)
      let start = local(a.start)
      appendDay(start, to: &out)
      Self.appendGap(to: &out)
      appendTimeRange(a, start: start, to: &out)
      Self.appendGap(to: &out)
    }
    TextSafety.appendEscapingControls(a.title, to: &out)
    if a.recurrence != nil { out.append(contentsOf: "  [repeats]".utf8) }
    if a.override != nil { out.append(contentsOf: "  [changed]".utf8) }
    if a.isCancelled { out.append(contentsOf: "  [cancelled]".utf8) }
    // The user's answer to an invitation (`[mail] addresses`; needs the row's extras).
    if !addresses.isEmpty, !a.extras.lines.isEmpty, let me = a.attendee(among: addresses) {
      out.append(contentsOf: "  [\(me.statusWords)]".utf8)
    }
  }

  /// A line up to its title, as the general path makes it, in one append, for the line most
  /// lines are: 24-hour times, not all day, ending on the day it starts, with no change of
  /// offset within `twinWindow` of either end (so neither shows its offset). One offset
  /// look-up where the general path makes four, and one append where it makes nine: these
  /// lines were a sixth of a week's `list` at 1M. False, with nothing appended, otherwise.
  private func appendCommonLineHead(_ a: Appointment, to out: inout [UInt8]) -> Bool {
    guard timeFormat == .hours24, !a.isAllDay,
      let offset = offsets.offset(
        throughout: a.start.addingTimeInterval(-Self.twinWindow),
        a.end.addingTimeInterval(Self.twinWindow)
      )
    else { return false }
    let start = local(a.start, offset: offset)
    let end = local(a.end, offset: offset)
    guard start.dayNumber == end.dayNumber else { return false }
    let id = a.id.shortBytes
    let weekday = Self.weekdayLetters(start.weekday)
    let date = Self.dateBytes(start)
    let from = Self.clockBytes(start)
    let to = Self.clockBytes(end)
    let space = UInt8(ascii: " ")
    // `"1a2b3c  Tue 2026-12-01  10:00-10:45  "` on the stack, from the general path's parts.
    let text = (
      id.0, id.1, id.2, id.3, id.4, id.5, space, space, weekday.0, weekday.1, weekday.2, space,
      date.0, date.1, date.2, date.3, date.4, date.5, date.6, date.7, date.8, date.9, space, space,
      from.0, from.1, from.2, from.3, from.4, UInt8(ascii: "-"), to.0, to.1, to.2, to.3, to.4, space, space
    )
    withUnsafeBytes(of: text) { out.append(contentsOf: $0) }
    return true
  }

  /// The three letters of `weekdayNames[weekday]`, with no array read.
  private static func weekdayLetters(_ weekday: Int) -> (UInt8, UInt8, UInt8) {
    let letters: StaticString = "MonTueWedThuFriSatSun"
    let first = letters.utf8Start + 3 * weekday
    return (first[0], first[1], first[2])
  }

  /// `show`'s lines, one `key: value` each: id, title, start, end, duration, status, note,
  /// created, updated, revision, then what applies (location, all day, repeats in words, the
  /// series a changed occurrence belongs to, ...). Values are escaped for the terminal (a
  /// newline in a note shows `^J`); an empty value leaves no trailing space. `series` is the
  /// series of an override, when it is stored.
  public func details(_ a: Appointment, series: Appointment? = nil, calendar: String? = nil) -> [String] {
    let fields: [(String, String)] = [
      ("id", a.id.description),
      ("title", TextSafety.escapingControls(a.title)),
      ("start", dayAndTime(a.start)),
      ("end", dayAndTime(a.end)),
      ("duration", DurationParser.format(a.duration)),
      ("status", a.status.rawValue),
      ("note", TextSafety.escapingControls(a.note)),
      ("created", dayAndTime(a.created)),
      ("updated", dayAndTime(a.updated)),
      ("revision", String(a.revision)),
    ]
    var extra: [(String, String)] = []
    if let calendar { extra.append(("calendar", TextSafety.escapingControls(calendar))) }
    if !a.location.isEmpty { extra.append(("location", TextSafety.escapingControls(a.location))) }
    if a.isAllDay { extra.append(("all day", "yes")) }
    if let recurrence = a.recurrence {
      extra.append(("repeats", recurrence.summary(in: a.zone(fallback: timeZone))))
    }
    if let override = a.override { extra.append(("series", overrideWords(override, seriesTitle: series?.title))) }
    if !a.exceptions.isEmpty { extra.append(("cancelled occurrences", a.exceptions.map(day).joined(separator: ", "))) }
    if !a.timeZone.isEmpty { extra.append(("time zone", a.timeZone)) }
    if let uid = a.uid { extra.append(("uid", TextSafety.escapingControls(uid))) }
    if let organizer = a.organizer { extra.append(("organizer", organizer.displayName)) }
    // One line per attendee, in the event's order; the user's own answer once more.
    let attendees = a.attendees
    for attendee in attendees { extra.append(("attendee", attendeeWords(attendee))) }
    if let me = attendees.first(where: { $0.isOne(of: addresses) }) { extra.append(("your answer", me.statusWords)) }
    // One line per alarm, in the order the VALARMs are kept.
    for alarm in a.alarms {
      extra.append(("reminder", TextSafety.escapingControls(alarm.summary(clock: clock))))
    }
    return (fields + extra).map { key, value in value.isEmpty ? "\(key):" : "\(key): \(value)" }
  }

  /// `Bob <bob@example.com> (required, accepted)`; `, answer asked` when RSVP=TRUE awaits one.
  public func attendeeWords(_ attendee: Participant) -> String {
    let asked = attendee.rsvp && attendee.status == "NEEDS-ACTION" ? ", answer asked" : ""
    return "\(attendee.displayName) (\(attendee.roleWords), \(attendee.statusWords)\(asked))"
  }

  /// `changed occurrence of "Standup" (was Tue 2026-12-08 09:00)`; `... and the ones after it`
  /// for a THISANDFUTURE one; a series not stored is said so; without its title (not known
  /// yet, or gone) `changed occurrence (was ...)`.
  public func overrideWords(_ override: Appointment.Override, seriesTitle: String?) -> String {
    let name =
      seriesTitle.map { " of \"\(TextSafety.escapingControls($0))\"" }
      ?? (override.seriesID == nil ? " of a series not in appt" : "")
    let following = override.thisAndFuture ? " and the ones after it" : ""
    return "changed occurrence\(name) (was \(dayAndTime(override.recurrenceID)))\(following)"
  }

  // MARK: - ISO 8601 and JSON

  /// `"2026-12-01T10:00:00+01:00"`: local time with the zone's offset at that instant (never
  /// `Z`; an offset with seconds, as in some pre-1972 zones, prints them: `+00:09:21`).
  public func iso8601(_ date: Date) -> String {
    let time = local(date)
    let offset = abs(time.offset)
    // In place (`ascii`): `list --json` writes five of these per line. `local` keeps the
    // year in 1...9999, so four digits always hold it.
    return Self.ascii(28) { put in
      put(time.year / 100, nil)
      put(time.year % 100, nil)
      put(time.month, 0x2D)  // -
      put(time.day, 0x2D)
      put(time.hour, 0x54)  // T
      put(time.minute, 0x3A)  // :
      put(time.second, 0x3A)
      put(offset / 3600, time.offset < 0 ? 0x2D : 0x2B)  // - or +
      put(offset % 3600 / 60, 0x3A)
      if offset % 60 != 0 { put(offset % 60, 0x3A) }
    }
  }

  /// One line of JSON with keys in a fixed order:
  /// `{"id":…,"title":…,"start":…,"end":…,"note":…,"status":…,"created":…,"updated":…,`
  /// `"all_day":…,"repeat":RRULE|null,"occurrence":…|null,"time_zone":…,"revision":…,`
  /// `"location":…}`; an override (a changed occurrence) then has `"series":ID|null,`
  /// `"recurrence_id":…` (the start it had in its series); with `calendar`, then
  /// `"calendar":NAME`; then `"reminders":[...]` (`jsonObject(_:)` of each alarm, [] when none);
  /// then `"uid":…,"organizer":{"name":…,"email":…}|null,"attendees":[...]`.
  public func jsonObject(_ a: Appointment, calendar: String? = nil) -> String {
    var out = "{\"id\":"
    out += Self.jsonString(a.id.description)
    // An event that came without a SUMMARY has none in data; "(no title)" is for people.
    out += ",\"title\":" + Self.jsonString(a.extras.isUntitled(a.title) ? "" : a.title)
    out += ",\"start\":" + Self.jsonString(iso8601(a.start))
    out += ",\"end\":" + Self.jsonString(iso8601(a.end))
    out += ",\"note\":" + Self.jsonString(a.note)
    out += ",\"status\":" + Self.jsonString(a.status.rawValue)
    out += ",\"created\":" + Self.jsonString(iso8601(a.created))
    out += ",\"updated\":" + Self.jsonString(iso8601(a.updated))
    // Beyond the first eight keys (which keep their order): whole days and series.
    out += ",\"all_day\":" + (a.isAllDay ? "true" : "false")
    out += ",\"repeat\":" + (a.recurrence.map { Self.jsonString($0.rrule) } ?? "null")
    out += ",\"occurrence\":" + (a.occurrence.map { Self.jsonString(iso8601($0)) } ?? "null")
    out += ",\"time_zone\":" + Self.jsonString(a.timeZone)
    // Revisions (a later addition): what `--if-revision` compares with.
    out += ",\"revision\":" + String(a.revision)
    // The calendar model: where, and which occurrence of which series it changes.
    out += ",\"location\":" + Self.jsonString(a.location)
    if let override = a.override {
      out += ",\"series\":" + (override.seriesID.map { Self.jsonString($0.description) } ?? "null")
      out += ",\"recurrence_id\":" + Self.jsonString(iso8601(override.recurrenceID))
    }
    // Calendars: the name of the calendar it is in.
    if let calendar { out += ",\"calendar\":" + Self.jsonString(calendar) }
    // Reminders: its alarms, [] when none.
    out += ",\"reminders\":[" + a.alarms.map(jsonObject).joined(separator: ",") + "]"
    // Invitations: the UID it is known by outside appt, who organizes it and who attends.
    out += ",\"uid\":" + Self.jsonString(a.iCalendarUID)
    out +=
      ",\"organizer\":"
      + (a.organizer.map { person in
        "{\"name\":" + Self.jsonString(person.name) + ",\"email\":" + Self.jsonString(person.email) + "}"
      } ?? "null")
    out += ",\"attendees\":[" + a.attendees.map(jsonObject).joined(separator: ",") + "]"
    out += "}"
    return out
  }

  /// One attendee as JSON: `{"name":"Bob","email":"bob@example.com","role":"REQ-PARTICIPANT",`
  /// `"status":"ACCEPTED","rsvp":false}` (RFC 5545's values, upper-cased); `"me":true` for the
  /// one `addresses` names.
  public func jsonObject(_ attendee: Participant) -> String {
    var out = "{\"name\":" + Self.jsonString(attendee.name)
    out += ",\"email\":" + Self.jsonString(attendee.email)
    out += ",\"role\":" + Self.jsonString(attendee.role)
    out += ",\"status\":" + Self.jsonString(attendee.status)
    out += ",\"rsvp\":" + (attendee.rsvp ? "true" : "false")
    if attendee.isOne(of: addresses) { out += ",\"me\":true" }
    return out + "}"
  }

  /// One alarm as JSON: `{"trigger":"15m","summary":"15 minutes before","action":"DISPLAY",`
  /// `"repeat":0,"every":0,"description":"Reminder"}` (`trigger` reads back as `--remind`;
  /// `every` in seconds; `description` the VALARM's DESCRIPTION).
  public func jsonObject(_ alarm: Alarm) -> String {
    "{\"trigger\":" + Self.jsonString(alarm.spec)
      + ",\"summary\":" + Self.jsonString(alarm.summary(clock: clock))
      + ",\"action\":" + Self.jsonString(alarm.action)
      + ",\"repeat\":\(alarm.repeatCount),\"every\":\(Int(alarm.repeatInterval))"
      + ",\"description\":" + Self.jsonString(alarm.description) + "}"
  }

  /// One firing of an alarm as JSON, the one spelling of `appt reminders --json` and of what
  /// the reminder daemon gives notify_command: `{"fire_at","id","title","start","end",`
  /// `"calendar","location","reminder":{...},"repetition"` then `more` (the daemon's
  /// `"late_seconds"` and `"outcome"`, each starting with a comma), then `}`.
  public func jsonObject(_ instance: AlarmInstance, calendar: String?, more: String = "") -> String {
    let a = instance.appointment
    return "{\"fire_at\":" + Self.jsonString(iso8601(instance.fireAt))
      + ",\"id\":" + Self.jsonString(a.id.description)
      + ",\"title\":" + Self.jsonString(a.extras.isUntitled(a.title) ? "" : a.title)
      + ",\"start\":" + Self.jsonString(iso8601(a.start))
      + ",\"end\":" + Self.jsonString(iso8601(a.end))
      + ",\"calendar\":" + (calendar.map(Self.jsonString) ?? "null")
      + ",\"location\":" + Self.jsonString(a.location)
      + ",\"reminder\":" + jsonObject(instance.alarm)
      + ",\"repetition\":\(instance.repetition)" + more + "}"
  }

  /// `text` as a quoted JSON string.
  ///
  /// Escapes `"` and `\`, `\n` and `\t` by name, every other C0 control, DEL and the C1
  /// controls as `\u00XX` (so JSON Lines on a terminal carry no raw ESC or CSI), U+2028 /
  /// U+2029 (so the line is also valid JavaScript), and the invisible format characters that
  /// `TextSafety` shows escaped (bidirectional overrides and isolates, zero-width spaces...:
  /// `\u202e`, a pair of surrogates above U+FFFF). A JSON escape is lossless, so the data
  /// stays exact while `appt --json list` on a terminal cannot be reordered by it.
  public static func jsonString(_ text: String) -> String {
    // Most values (ids, times, plain titles) are printable ASCII without a quote or a
    // backslash: nothing in them to escape, so no scalar-by-scalar copy.
    if text.utf8.allSatisfy({ $0 >= 0x20 && $0 < 0x7F && $0 != 0x22 && $0 != 0x5C }) { return "\"" + text + "\"" }
    var out = String.UnicodeScalarView()
    out.append("\"")
    TextSafety.forEachScalar(of: text) { scalar, hidden in
      switch scalar {
      case "\"": out.append(contentsOf: "\\\"".unicodeScalars)
      case "\\": out.append(contentsOf: "\\\\".unicodeScalars)
      case "\n": out.append(contentsOf: "\\n".unicodeScalars)
      case "\t": out.append(contentsOf: "\\t".unicodeScalars)
      default:
        if hidden {
          out.append(contentsOf: unicodeEscape(scalar.value).unicodeScalars)
        } else {
          out.append(scalar)
        }
      }
    }
    out.append("\"")
    return String(out)
  }

  /// `\u00XX`; above U+FFFF, the UTF-16 surrogate pair JSON spells it with.
  private static func unicodeEscape(_ value: UInt32) -> String {
    guard value > 0xFFFF else { return hex4(value) }
    let offset = value - 0x10000
    return hex4(0xD800 + (offset >> 10)) + hex4(0xDC00 + (offset & 0x3FF))
  }

  private static func hex4(_ value: UInt32) -> String {
    let hex = String(value, radix: 16)
    return "\\u" + String(repeating: "0", count: max(0, 4 - hex.count)) + hex
  }

  // MARK: - Local fields

  /// The local wall-clock fields of an instant.
  struct LocalTime: Equatable {
    var year: Int
    var month: Int
    var day: Int
    var hour: Int
    var minute: Int
    var second: Int
    /// 0 = Monday ... 6 = Sunday.
    var weekday: Int
    /// Days since 1970-01-01 of the local date (to compare days).
    var dayNumber: Int
    /// Seconds east of UTC.
    var offset: Int
  }

  /// Local fields of `date` in this formatter's zone, seconds truncated toward the past.
  func local(_ date: Date) -> LocalTime {
    local(date, offset: offsets.offset(at: date))
  }

  /// `local(date)` when the zone's offset at `date` is known to be `offset`.
  private func local(_ date: Date, offset: Int) -> LocalTime {
    // Dates outside years 1...9999 are clamped: they cannot come from our parsers, and the
    // clamp keeps the conversion to Int safe for any Date.
    let seconds = date.timeIntervalSince1970
    let bounded = seconds.isFinite ? min(max(seconds, -62_135_596_800), 253_402_300_799) : 0
    let localSeconds = Int(bounded.rounded(.down)) + offset
    let dayNumber = Self.floorDiv(localSeconds, 86_400)
    let secondOfDay = localSeconds - dayNumber * 86_400
    let (year, month, day) = Self.civil(fromDays: dayNumber)
    return LocalTime(
      year: year,
      month: month,
      day: day,
      hour: secondOfDay / 3600,
      minute: secondOfDay % 3600 / 60,
      second: secondOfDay % 60,
      weekday: Self.floorMod(dayNumber + 3, 7),  // 1970-01-01 was a Thursday
      dayNumber: dayNumber,
      offset: offset
    )
  }

  /// Year, month and day of the proleptic Gregorian date `days` after 1970-01-01.
  static func civil(fromDays days: Int) -> (year: Int, month: Int, day: Int) {
    let date = CivilDate(dayNumber: days)
    return (date.year, date.month, date.day)
  }

  static let weekdayNames = ["Mon", "Tue", "Wed", "Thu", "Fri", "Sat", "Sun"]
  /// `weekdayNames` as bytes: every `list` line appends one.
  private static let weekdayBytes = weekdayNames.map { Array($0.utf8) }

  private static func floorDiv(_ a: Int, _ b: Int) -> Int {
    let q = a / b
    return (a % b != 0 && (a < 0) != (b < 0)) ? q - 1 : q
  }

  private static func floorMod(_ a: Int, _ b: Int) -> Int {
    a - floorDiv(a, b) * b
  }

  /// The text of the UTF-8 bytes `body` appends (ASCII, and escaped text, so always valid).
  private static func text(_ body: (inout [UInt8]) -> Void) -> String {
    var bytes: [UInt8] = []
    bytes.reserveCapacity(64)
    body(&bytes)
    return String(decoding: bytes, as: UTF8.self)
  }

  /// The two spaces between the fields of a line.
  private static func appendGap(to out: inout [UInt8]) {
    withUnsafeBytes(of: (UInt8(ascii: " "), UInt8(ascii: " "))) { out.append(contentsOf: $0) }
  }

  /// `n` in 0...99 as two digits, after `separator` when given.
  private static func appendTwoDigits(_ n: Int, after separator: UInt8? = nil, to out: inout [UInt8]) {
    if let separator { out.append(separator) }
    out.append(0x30 + UInt8(n / 10 % 10))
    out.append(0x30 + UInt8(n % 10))
  }

  /// `2026-12-01`; `local` keeps the year in 1...9999. Made on the stack and appended at
  /// once, as `appendClock24`: every `list` line has both, byte-wise appends cost more.
  private static func appendDate(_ t: LocalTime, to out: inout [UInt8]) {
    withUnsafeBytes(of: dateBytes(t)) { out.append(contentsOf: $0) }
  }

  /// `appendDate`'s ten bytes, for a caller that puts them in a longer run.
  private static func dateBytes(
    _ t: LocalTime
  ) -> (UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8) {
    (
      digit(t.year / 1000), digit(t.year / 100), digit(t.year / 10), digit(t.year), UInt8(ascii: "-"),
      digit(t.month / 10), digit(t.month), UInt8(ascii: "-"), digit(t.day / 10), digit(t.day)
    )
  }

  /// `10:05`.
  private static func appendClock24(_ t: LocalTime, to out: inout [UInt8]) {
    withUnsafeBytes(of: clockBytes(t)) { out.append(contentsOf: $0) }
  }

  /// `appendClock24`'s five bytes, for a caller that puts them in a longer run.
  private static func clockBytes(_ t: LocalTime) -> (UInt8, UInt8, UInt8, UInt8, UInt8) {
    (digit(t.hour / 10), digit(t.hour), UInt8(ascii: ":"), digit(t.minute / 10), digit(t.minute))
  }

  /// The last decimal digit of `n` (not negative), as its ASCII byte.
  private static func digit(_ n: Int) -> UInt8 { UInt8(ascii: "0") + UInt8(truncatingIfNeeded: n % 10) }

  /// A short ASCII text of at most `length` bytes made in a stack buffer (one of up to 15
  /// is then kept inline in the String, not allocated): `body` puts numbers 0...99 as two
  /// digits, each after its separator byte if it has one.
  private static func ascii(_ length: Int, _ body: ((Int, UInt8?) -> Void) -> Void) -> String {
    withUnsafeTemporaryAllocation(of: UInt8.self, capacity: length) { buffer in
      var count = 0
      body { number, separator in
        precondition(count + (separator == nil ? 2 : 3) <= length, "ascii: more than \(length) bytes")
        if let separator {
          buffer[count] = separator
          count += 1
        }
        buffer[count] = 0x30 + UInt8(number / 10 % 10)
        buffer[count + 1] = 0x30 + UInt8(number % 10)
        count += 2
      }
      return String(decoding: UnsafeBufferPointer(rebasing: buffer[..<count]), as: UTF8.self)
    }
  }
}
