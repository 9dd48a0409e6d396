import Foundation

extension ICalendar {
  /// Writes appointments as a VCALENDAR (see `ICalendar.write`).
  struct Writer {
    let fallbackZone: TimeZone
    var calendarName: String? = nil
    /// The X-WR-TIMEZONE written: the zone of the times without a zone that a calendar's
    /// X-WR-TIMEZONE placed, when they all had the same one and nothing else is floating
    /// (`calendarZone(for:)`). Such times are then written without a zone again; otherwise
    /// with a TZID, so that no reader places them elsewhere.
    var calendarZone: String? = nil

    /// The X-WR-TIMEZONE `appointments` are written under (see `calendarZone`).
    static func calendarZone(for appointments: [Appointment]) -> String? {
      var zones: Set<String> = []
      for a in appointments {
        if a.extras.zoneID == "" { return nil }
        if a.extras.zoneID == ICalendarExtras.calendarZoneTimes { zones.insert(a.timeZone) }
      }
      return zones.count == 1 ? zones.first : nil
    }

    /// Whether `a`'s times are written without a zone: floating ones, and those the
    /// X-WR-TIMEZONE written places.
    func writesFloating(_ a: Appointment) -> Bool {
      a.extras.zoneID == "" || (a.extras.zoneID == ICalendarExtras.calendarZoneTimes && a.timeZone == calendarZone)
    }

    /// Zones written as UTC (`...Z`) rather than with a TZID.
    static let utcIdentifiers: Set<String> = [
      "GMT", "UTC", "UCT", "Etc/UTC", "Etc/GMT", "Etc/UCT", "Etc/Universal", "Etc/Zulu", "Universal", "Zulu",
      "GMT0", "Etc/GMT0", "Etc/GMT+0", "Etc/GMT-0", "Greenwich", "Etc/Greenwich",
    ]

    func write(_ appointments: [Appointment]) -> String {
      var out = ""
      write(appointments, piece: 1 << 62) { piece in
        out += piece
        return true
      }
      return out
    }

    /// Writes the calendar in pieces of about `piece` bytes, each handed to `body` (whole
    /// content lines, ending after a VEVENT); stops when `body` returns false.
    func write(_ appointments: [Appointment], piece: Int, _ body: (String) -> Bool) {
      var out = ""
      var going = true
      func emit(_ line: String) { out += ICalendar.fold(Self.withoutControls(line)) }
      func handOver() {
        if going, !out.isEmpty { going = body(out) }
        out = ""
      }
      emit("BEGIN:VCALENDAR")
      emit("VERSION:2.0")
      emit("PRODID:" + ICalendar.productID)
      emit("CALSCALE:GREGORIAN")
      if let calendarName { emit("X-WR-CALNAME:" + ICalendar.escape(calendarName)) }
      if let calendarZone { emit("X-WR-TIMEZONE:" + calendarZone) }
      for line in timeZones(for: appointments) { emit(line) }
      for appointment in Self.grouped(appointments) {
        for line in event(appointment) { emit(line) }
        if out.utf8.count >= piece {
          handOver()
          guard going else { return }
        }
      }
      emit("END:VCALENDAR")
      handOver()
    }

    /// The UID an appointment is written with: its own, else its series' or its own id's.
    static func uid(of a: Appointment) -> String {
      if let uid = a.uid { return uid }
      if let series = a.override?.seriesID { return "\(series)@appt" }
      return "\(a.id)@appt"
    }

    /// Each series followed by its overridden occurrences (RECURRENCE-ID, by UID), as RFC
    /// 5545 readers expect them; overrides whose series is not written come last.
    static func grouped(_ appointments: [Appointment]) -> [Appointment] {
      var overrides: [String: [Appointment]] = [:]
      var order: [String] = []
      var masters: [Appointment] = []
      for a in appointments {
        guard a.override != nil else {
          masters.append(a)
          continue
        }
        let uid = uid(of: a)
        if overrides[uid] == nil { order.append(uid) }
        overrides[uid, default: []].append(a)
      }
      guard !overrides.isEmpty else { return appointments }
      var result: [Appointment] = []
      result.reserveCapacity(appointments.count)
      for master in masters {
        result.append(master)
        let uid = uid(of: master)
        if let mine = overrides.removeValue(forKey: uid) {
          result += mine.sorted { ($0.override?.recurrenceID ?? $0.start) < ($1.override?.recurrenceID ?? $1.start) }
        }
      }
      for uid in order { result += overrides[uid] ?? [] }
      return result
    }

    // MARK: - Events

    /// The content lines of one VEVENT (unfolded).
    func event(_ a: Appointment) -> [String] {
      let zone = a.zone(fallback: fallbackZone)
      var lines = ["BEGIN:VEVENT"]
      lines.append("UID:" + ICalendar.escape(Self.uid(of: a)))
      lines.append("DTSTAMP:" + utc(a.updated))
      lines.append("CREATED:" + utc(a.created))
      lines.append("LAST-MODIFIED:" + utc(a.updated))
      lines.append("SEQUENCE:\(a.sequence)")
      let names = Self.topLevelNames(a.extras.lines)
      var shadowed = Set<String>()
      if let line = textLine("SUMMARY", a.title, a, names, &shadowed) { lines.append(line) }
      if let line = textLine("LOCATION", a.location, a, names, &shadowed) { lines.append(line) }
      // A series' DTSTART keeps its TZID (the zone it repeats in) even for a wall-clock time
      // that names two instants (the hour repeated when clocks go back).
      // DTSTART as it came (a wall-clock time in a DST gap) while the start is the same.
      if let asRead = a.extras.lines(asRead: "DTSTART", meaning: Self.startMeaning(a)) {
        lines += asRead
      } else {
        lines.append(startLine(a, zone))
      }
      // An end given as a DURATION, or not given, is written back as it came while the
      // appointment still ends where the reader put it.
      if let endLine = a.extras.endLine, let derived = a.extras.derivedEnd,
        abs(derived.timeIntervalSince(a.end)) < 0.001
      {
        if !endLine.isEmpty { lines.append(endLine) }
      } else if a.isAllDay || a.end != a.start {
        lines.append("DTEND" + time(a.end, a, zone).joined(separator: ":"))
      }
      // A moment has no DTEND: RFC 5545 wants DTEND after DTSTART (Cyrus refuses one at it),
      // and a time without an end is an event of no length.
      if let meaning = Self.recurrenceMeaning(a) {
        // As it came (another zone's midnight for an all-day occurrence) while it names the same one.
        if let asRead = a.extras.lines(asRead: "RECURRENCE-ID", meaning: meaning) {
          lines += asRead
        } else if let line = recurrenceIDLine(a, zone) {
          lines.append(line)
        }
      }
      if let recurrence = a.recurrence {
        for rule in recurrence.rules {
          // The rule as it was read, while it is the same rule.
          let asRead = zip(a.extras.lines, names).first { line, name in
            name == "RRULE" && Self.rule(of: line) == rule
          }?.0
          lines.append(asRead ?? "RRULE:" + self.rule(rule, a, zone))
        }
        // The RDATE and EXDATE lines as they came (grouped, zoned, typed their own way) while
        // they are the same dates.
        if let asRead = a.extras.lines(asRead: "RDATE", meaning: Self.datesMeaning(a)) {
          lines += asRead
        } else {
          lines += dateLines(a, recurrence, zone)
        }
      }
      if a.isCancelled { lines.append("STATUS:CANCELLED") }
      if let line = textLine("DESCRIPTION", a.note, a, names, &shadowed) { lines.append(line) }
      for (line, name) in zip(a.extras.lines, names) {
        // A STATUS kept as read (TENTATIVE, CONFIRMED) gives way to a cancellation.
        if a.isCancelled, name == "STATUS" { continue }
        // The RRULEs as read stand in for the rules above; only an override keeps its own.
        if name == "RRULE", a.override == nil { continue }
        // The first SUMMARY, DESCRIPTION, LOCATION as read stand in for the field's line.
        if shadowed.contains(name) {
          shadowed.remove(name)
          continue
        }
        lines.append(line)
      }
      lines.append("END:VEVENT")
      return lines
    }

    /// Whether a line holds a control character other than tab: a CR or LF kept inside a line
    /// read verbatim (a malformed file's bare CR), or another control (an ESC in a title).
    static func hasControl(_ line: String) -> Bool {
      // One pass over the bytes: C0 and DEL directly; 0xC2 leads the C1 controls (U+0080-9F),
      // which the scalars then tell from the other characters it leads.
      guard line.utf8.contains(where: { ($0 < 0x20 && $0 != 0x09) || $0 == 0x7F || $0 == 0xC2 }) else { return false }
      return line.unicodeScalars.contains { $0 != "\t" && TextSafety.isControl($0) }
    }

    /// A content line as written. A CR or LF inside a line read verbatim would end the line
    /// early for every reader, so it is written as the TEXT escape for a line break (a
    /// backslash and `n`); any other control character (but tab) is written visibly in caret
    /// notation, as everywhere in appt's export, so a file appt writes never holds one raw.
    static func withoutControls(_ line: String) -> String {
      guard hasControl(line) else { return line }
      let broken = line.replacingOccurrences(of: "\r\n", with: "\\n").replacingOccurrences(of: "\r", with: "\\n")
        .replacingOccurrences(of: "\n", with: "\\n")
      var out = String.UnicodeScalarView()
      for scalar in broken.unicodeScalars {
        if scalar != "\t", TextSafety.isControl(scalar) {
          out.append(contentsOf: TextSafety.escapingControls(String(scalar)).unicodeScalars)
        } else {
          out.append(scalar)
        }
      }
      return String(out)
    }

    /// The SUMMARY, DESCRIPTION or LOCATION line of `value`: as it was read (with its
    /// parameters, or empty) while the field still has that value, else written afresh;
    /// nil for an empty field read without one. `shadowed` collects the names whose first
    /// line in extras stood in (and is not written again).
    private func textLine(
      _ name: String,
      _ value: String,
      _ a: Appointment,
      _ names: [String],
      _ shadowed: inout Set<String>
    ) -> String? {
      let asRead = zip(a.extras.lines, names).first { $0.1 == name }?.0
      if let asRead {
        shadowed.insert(name)
        var read = ICalendar.unescape(Self.value(asRead))
        if name == "SUMMARY" {
          read = read.trimmingCharacters(in: .whitespacesAndNewlines)
          if read.isEmpty { read = "(no title)" }
        }
        // A line that held a control character (a malformed file's bare CR, an ESC) is written
        // afresh: escaped, as the value it was read as, so the export is well formed and
        // reads back as appt's export of that value.
        if read == value, !Self.hasControl(asRead) { return asRead }
      }
      // An event read without a SUMMARY gets none while its title is still the default.
      if name == "SUMMARY", asRead == nil, a.extras.lines(asRead: "SUMMARY", meaning: value) != nil { return nil }
      return value.isEmpty && name != "SUMMARY" ? nil : name + ":" + ICalendar.escape(value)
    }

    /// The DTSTART line written for `a` when none is kept as read. A series' DTSTART keeps its
    /// TZID (the zone it repeats in) even for a wall-clock time that names two instants.
    func startLine(_ a: Appointment, _ zone: TimeZone) -> String {
      "DTSTART" + time(a.start, a, zone, keepZone: a.recurrence != nil).joined(separator: ":")
    }

    /// The RDATE and EXDATE lines written for a series when none are kept as read: one line
    /// per form (all with the TZID, but for a time the TZID cannot name).
    func dateLines(_ a: Appointment, _ recurrence: Recurrence, _ zone: TimeZone) -> [String] {
      grouped("RDATE", recurrence.dates.map { date(of: $0, a, zone) })
        + grouped("EXDATE", a.exceptions.map { time($0, a, zone) })
    }

    /// What a DTSTART kept as read stands for: the start instant, in the zone, timed or not.
    /// The RECURRENCE-ID of an override; a date only when the occurrence it names starts a
    /// day (an all-day occurrence of a timed series keeps its series' time).
    func recurrenceIDLine(_ a: Appointment, _ zone: TimeZone) -> String? {
      guard let override = a.override else { return nil }
      let range = override.thisAndFuture ? ";RANGE=THISANDFUTURE" : ""
      let local = CivilDateTime(override.recurrenceID, in: zone)
      let allDay = a.isAllDay && local.hour == 0 && local.minute == 0 && local.second == 0
      return "RECURRENCE-ID" + range
        + time(override.recurrenceID, a, zone, keepZone: true, allDay: allDay).joined(separator: ":")
    }

    /// What a RECURRENCE-ID kept as read stands for: the occurrence and its range.
    static func recurrenceMeaning(_ a: Appointment) -> String? {
      a.override.map { "\(milliseconds($0.recurrenceID)) \($0.thisAndFuture)" }
    }

    static func startMeaning(_ a: Appointment) -> String {
      "\(milliseconds(a.start)) \(a.timeZone) \(a.isAllDay)"
    }

    /// What RDATE and EXDATE lines kept as read stand for: the set of recurrence dates (each
    /// with its kind) and of exception instants.
    static func datesMeaning(_ a: Appointment) -> String {
      let dates = (a.recurrence?.dates ?? []).map { date -> String in
        switch date {
        case .instant(let instant): return "i\(milliseconds(instant))"
        case .period(let start, let length): return "p\(milliseconds(start))+\(Int64((length * 1000).rounded()))"
        case .local(let local): return "l\(local.description)"
        case .date(let day): return "d\(day.description)"
        }
      }
      let exceptions = a.exceptions.map { "x\(milliseconds($0))" }
      return (Set(dates).sorted() + Set(exceptions).sorted()).joined(separator: ",")
    }

    private static func milliseconds(_ date: Date) -> Int64 { Int64((date.timeIntervalSince1970 * 1000).rounded()) }

    /// The rule an RRULE line kept in extras holds; nil when it holds none.
    static func rule(of line: String) -> RecurrenceRule? {
      do throws(RecurrenceRuleError) {
        return try RecurrenceRule(parsing: value(line))
      } catch {
        return nil
      }
    }

    /// The name of each extras line when it is a property of the event itself; "" for the
    /// lines of its sub-components (a VALARM's DESCRIPTION is the alarm's).
    static func topLevelNames(_ lines: [String]) -> [String] {
      var depth = 0
      return lines.map { line in
        let name = propertyName(line)
        switch name {
        case "BEGIN":
          depth += 1
          return ""
        case "END":
          depth -= 1
          return ""
        default: return depth == 0 ? name : ""
        }
      }
    }

    /// The value of a content line (after the first `:` outside quotes).
    static func value(_ line: String) -> String {
      var quoted = false
      for index in line.indices {
        switch line[index] {
        case "\"": quoted.toggle()
        case ":" where !quoted: return String(line[line.index(after: index)...])
        default: continue
        }
      }
      return ""
    }

    /// The name of a content line, upper-cased (`ATTENDEE` of `attendee;CN=Ann:...`).
    static func propertyName(_ line: String) -> String {
      String(line.prefix { $0 != ";" && $0 != ":" }).uppercased()
    }

    /// `name` lines, one per form (`[parameters, value]` pairs), values joined by commas.
    private func grouped(_ name: String, _ values: [[String]]) -> [String] {
      var forms: [String: [String]] = [:]
      var order: [String] = []
      for parts in values {
        if forms[parts[0]] == nil { order.append(parts[0]) }
        forms[parts[0], default: []].append(parts[1])
      }
      return order.map { name + $0 + ":" + (forms[$0] ?? []).joined(separator: ",") }
    }

    /// The parameters and value of one RDATE, in the form of DTSTART.
    private func date(of date: RecurrenceDate, _ a: Appointment, _ zone: TimeZone) -> [String] {
      switch date {
      case .instant(let instant): return time(instant, a, zone)
      // A date and a floating time are written as they came (a date is DTSTART's time that
      // day, a floating time is read in the series' zone).
      case .date(let day): return [";VALUE=DATE", day.description]
      case .local(let local):
        if a.isAllDay { return [";VALUE=DATE", local.date.description] }
        return ["", local.description]
      case .period(let start, let length):
        let from = time(start, a, zone)
        let to = time(start.addingTimeInterval(length), a, zone)
        if a.isAllDay || from[0] != to[0] {
          return [";VALUE=PERIOD", utc(start) + "/" + utc(start.addingTimeInterval(length))]
        }
        return [";VALUE=PERIOD" + from[0], from[1] + "/" + to[1]]
      }
    }

    /// The TZID an appointment's times are written with: the one it was read with (a
    /// Windows name, a zone defined by its VTIMEZONE), else its zone's IANA name.
    private func zoneName(_ a: Appointment, _ zone: TimeZone) -> String {
      guard let name = a.extras.zoneID, name != ICalendarExtras.calendarZoneTimes, !writesFloating(a) else {
        return zone.identifier
      }
      // Still the zone it was read as (an edit to another zone leaves the old name behind).
      if Self.definedName(a.extras.zoneDefinition) == name { return name }
      // A name no zone has was read as floating: kept.
      guard let named = TimeZoneResolver.zone(forTZID: name) else { return name }
      return named.identifier == zone.identifier ? name : zone.identifier
    }

    /// The TZID a VTIMEZONE kept in extras defines.
    static func definedName(_ definition: [String]) -> String? {
      for line in definition where propertyName(line) == "TZID" {
        guard let colon = line.firstIndex(of: ":") else { return nil }
        return line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)
      }
      return nil
    }

    /// The parameters and the value of a DTSTART, DTEND or EXDATE: `[";VALUE=DATE", "20261201"]`,
    /// `["", "20261201T090000Z"]` or `[";TZID=Europe/Paris", "20261201T100000"]`.
    /// A wall-clock time that does not name `date` alone (the repeated hour when clocks go
    /// back) is written in UTC instead, unless `keepZone`.
    private func time(
      _ date: Date,
      _ a: Appointment,
      _ zone: TimeZone,
      keepZone: Bool = false,
      allDay: Bool? = nil
    ) -> [String] {
      if allDay ?? a.isAllDay { return [";VALUE=DATE", DateValue.local(date, in: zone, dateOnly: true).text] }
      let local = DateValue.local(date, in: zone, dateOnly: false)
      // A floating time (read without a zone) is written without one.
      if writesFloating(a), let back = local.instant(in: zone), abs(back.timeIntervalSince(date)) < 1 {
        return ["", local.text]
      }
      if Self.isUTC(zone) { return ["", utc(date)] }
      if !keepZone, let back = local.instant(in: zone), abs(back.timeIntervalSince(date)) >= 1 {
        return ["", utc(date)]
      }
      return [";TZID=" + ICalendar.parameterValue(zoneName(a, zone)), local.text]
    }

    private func utc(_ date: Date) -> String {
      var value = DateValue.local(date, in: .gmt, dateOnly: false)
      value.isUTC = true
      return value.text
    }

    /// One RRULE's text; a whole-day series ends on a DATE, as RFC 5545 wants for a DATE
    /// DTSTART: the UTC UNTIL's own date, the last day the series has in every zone.
    private func rule(_ rule: RecurrenceRule, _ a: Appointment, _ zone: TimeZone) -> String {
      guard a.isAllDay, case .utc(let time) = rule.until else { return rule.text }
      var dated = rule
      dated.until = .date(time.date)
      return dated.text
    }

    static func isUTC(_ zone: TimeZone) -> Bool { utcIdentifiers.contains(zone.identifier) }

    // MARK: - VTIMEZONE

    /// One VTIMEZONE per zone that a timed appointment is written in: the zone's offsets and
    /// daylight-saving rules over the years its appointments span (from the year before the
    /// first), as Foundation's tz database has them, and the last rules carried on (RRULE).
    /// Readers that know the IANA name (Python icalendar, calcurse, Google) use the name;
    /// this is for the others, and because RFC 5545 requires one for each TZID.
    func timeZones(for appointments: [Appointment]) -> [String] {
      var spans: [String: (zone: TimeZone, first: Date, last: Date)] = [:]
      // Zones written as they were read (a Windows name, a VTIMEZONE-only zone), by TZID.
      var definitions: [String: [String]] = [:]
      // A floating event's times name no zone (they are written without a TZID).
      for a in appointments where !a.isAllDay && !writesFloating(a) {
        let zone = a.zone(fallback: fallbackZone)
        if Self.isUTC(zone) { continue }
        let name = zoneName(a, zone)
        if Self.definedName(a.extras.zoneDefinition) == name {
          if definitions[name] == nil { definitions[name] = a.extras.zoneDefinition }
          continue
        }
        var last = a.end
        if let recurrence = a.recurrence {
          last = recurrence.seriesEnd(start: a.start, duration: a.duration, zone: zone, allDay: a.isAllDay) ?? a.end
        }
        let span = spans[name] ?? (zone, a.start, last)
        spans[name] = (zone, min(span.first, a.start), max(span.last, last))
        // RDATEs and EXDATEs written as they came may name zones of their own.
        for (tzid, other) in keptDateZones(a) where spans[tzid] == nil && definitions[tzid] == nil {
          spans[tzid] = (other, a.start, last)
        }
      }
      var lines: [String] = []
      for name in Set(spans.keys).union(definitions.keys).sorted() {
        if let definition = definitions[name] {
          lines += definition
        } else if let span = spans[name] {
          lines += Self.vtimezone(span.zone, from: span.first, through: span.last, tzid: name)
        }
      }
      return lines
    }

    /// The zones (by TZID as written) of the RDATE and EXDATE lines `a` is written with as they
    /// came, other than UTC: each needs its VTIMEZONE too (RFC 5545), or a reader that does
    /// not know the name places those dates elsewhere.
    private func keptDateZones(_ a: Appointment) -> [(String, TimeZone)] {
      guard a.recurrence != nil, let kept = a.extras.lines(asRead: "RDATE", meaning: Self.datesMeaning(a)) else {
        return []
      }
      return kept.compactMap { raw in
        guard let tzid = ICalendar.contentLine(raw, line: 0)?.parameter("TZID"),
          let zone = TimeZoneResolver.zone(forTZID: tzid), !Self.isUTC(zone)
        else { return nil }
        return (tzid, zone)
      }
    }

    /// The line that marks a VTIMEZONE appt generated.
    static let generatedMark = "X-APPT-GENERATED:TRUE"

    /// One change of offset, as a VTIMEZONE observance describes it.
    struct Observance: Hashable {
      var isDaylight: Bool
      var from: Int
      var to: Int
      /// BYMONTH and BYDAY of the yearly rule (`2SU`, `-1SU`).
      var month: Int
      var byDay: String
      /// The wall-clock time (before the change) it happens at.
      var hour: Int
      var minute: Int
      var second: Int
    }

    static func vtimezone(_ zone: TimeZone, from first: Date, through last: Date, tzid: String? = nil) -> [String] {
      var gmt = Calendar(identifier: .gregorian)
      gmt.timeZone = .gmt
      let firstYear = gmt.component(.year, from: first) - 1
      let lastYear = max(firstYear + 1, min(gmt.component(.year, from: last), firstYear + 200))

      // Each year's changes, and a signature to group years that follow the same rules.
      typealias Change = (instant: Date, observance: Observance)
      var years: [(year: Int, changes: [Change], fixed: Int)] = []
      for year in firstYear...lastYear {
        guard let yearStart = gmt.date(from: DateComponents(year: year, month: 1, day: 1)),
          let yearEnd = gmt.date(from: DateComponents(year: year + 1, month: 1, day: 1))
        else { continue }
        var changes: [Change] = []
        var cursor = yearStart.addingTimeInterval(-1)
        while let next = zone.nextDaylightSavingTimeTransition(after: cursor), next < yearEnd {
          cursor = next
          let from = zone.secondsFromGMT(for: next.addingTimeInterval(-1))
          let to = zone.secondsFromGMT(for: next)
          guard from != to else { continue }
          let wall = gmt.dateComponents(
            [.month, .day, .hour, .minute, .second, .weekday],
            from: next.addingTimeInterval(TimeInterval(from))
          )
          let month = wall.month ?? 1
          let day = wall.day ?? 1
          let nth = day + 7 > DateValue.daysIn(month: month, year: year) ? -1 : (day - 1) / 7 + 1
          let weekday = ["SU", "MO", "TU", "WE", "TH", "FR", "SA"][((wall.weekday ?? 1) + 6) % 7]
          let observance = Observance(
            isDaylight: zone.isDaylightSavingTime(for: next),
            from: from,
            to: to,
            month: month,
            byDay: "\(nth)\(weekday)",
            hour: wall.hour ?? 0,
            minute: wall.minute ?? 0,
            second: wall.second ?? 0
          )
          changes.append((next, observance))
        }
        years.append((year, changes, zone.secondsFromGMT(for: yearStart)))
      }

      // The mark tells appt's reader not to keep this definition with the events (it is
      // generated again on export); one a file brought is kept and written back as it came.
      var lines = [
        "BEGIN:VTIMEZONE", "TZID:" + (tzid ?? zone.identifier), "X-LIC-LOCATION:" + zone.identifier,
        Self.generatedMark,
      ]
      var index = 0
      while index < years.count {
        // The run of years with the same rules as this one.
        let signature = years[index].changes.map(\.observance)
        var end = index
        while end + 1 < years.count, years[end + 1].changes.map(\.observance) == signature,
          signature.isEmpty ? years[end + 1].fixed == years[index].fixed : true
        {
          end += 1
        }
        let isLast = end == years.count - 1
        let run = years[index...end]
        if signature.isEmpty {
          let year = years[index].year
          let before =
            index == 0 ? years[index].fixed : (years[index - 1].changes.last?.observance.to ?? years[index - 1].fixed)
          lines += observance(
            kind: "STANDARD",
            start: "\(pad(year, 4))0101T000000",
            from: before,
            to: years[index].fixed,
            rule: nil
          )
        } else if signature.count == 2 && (run.count > 1 || isLast) {
          for (position, change) in years[index].changes.enumerated() {
            var rule = "FREQ=YEARLY;BYMONTH=\(change.observance.month);BYDAY=\(change.observance.byDay)"
            if !isLast, let lastChange = years[end].changes[safe: position] {
              rule += ";UNTIL=" + Recurrence.utcStamp(lastChange.instant)
            }
            lines += observance(change, rule: rule)
          }
        } else {
          for year in run {
            for change in year.changes { lines += observance(change, rule: nil) }
          }
        }
        index = end + 1
      }
      lines.append("END:VTIMEZONE")
      return lines
    }

    private static func observance(_ change: (instant: Date, observance: Observance), rule: String?) -> [String] {
      let o = change.observance
      var gmt = Calendar(identifier: .gregorian)
      gmt.timeZone = .gmt
      let year = gmt.component(.year, from: change.instant.addingTimeInterval(TimeInterval(o.from)))
      let start =
        "\(pad(year, 4))\(pad(o.month, 2))"
        + "\(pad(gmt.component(.day, from: change.instant.addingTimeInterval(TimeInterval(o.from))), 2))"
        + "T\(pad(o.hour, 2))\(pad(o.minute, 2))\(pad(o.second, 2))"
      return observance(kind: o.isDaylight ? "DAYLIGHT" : "STANDARD", start: start, from: o.from, to: o.to, rule: rule)
    }

    private static func observance(kind: String, start: String, from: Int, to: Int, rule: String?) -> [String] {
      var lines = ["BEGIN:\(kind)", "DTSTART:" + start, "TZOFFSETFROM:" + offset(from), "TZOFFSETTO:" + offset(to)]
      if let rule { lines.append("RRULE:" + rule) }
      lines.append("END:\(kind)")
      return lines
    }

    /// `+0100`, `-0430`, `+003452` (seconds only when there are some).
    static func offset(_ seconds: Int) -> String {
      let magnitude = abs(seconds)
      var text = (seconds < 0 ? "-" : "+") + pad(magnitude / 3600, 2) + pad(magnitude % 3600 / 60, 2)
      if magnitude % 60 != 0 { text += pad(magnitude % 60, 2) }
      return text
    }

    static func pad(_ n: Int, _ width: Int) -> String {
      let text = String(n)
      return String(repeating: "0", count: max(0, width - text.count)) + text
    }
  }
}

extension Array {
  fileprivate subscript(safe index: Int) -> Element? { indices.contains(index) ? self[index] : nil }
}
