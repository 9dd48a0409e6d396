import Foundation

extension ICalendar {
  /// One `BEGIN:X` ... `END:X` block, with its properties and nested blocks.
  struct Component: Sendable {
    var name: String
    var line: Int
    var properties: [ContentLine] = []
    var children: [Component] = []
    /// Malformed lines met directly inside it.
    var problems: [Problem] = []

    func all(_ name: String) -> [ContentLine] { properties.filter { $0.name == name } }
  }

  /// Turns a file into appointments: structure first (components), then each VEVENT.
  struct Reader {
    let clock: Clock
    private var problems: [Problem] = []
    private var notices: [Problem] = []
    /// VTIMEZONE TZIDs that are not IANA names, mapped to the IANA name they declare
    /// (`X-LIC-LOCATION`, as written by libical, Thunderbird and Evolution).
    private var zoneAliases: [String: String] = [:]
    /// UIDs seen so far and the line of their event.
    private var uids: [String: Int] = [:]
    private var eventCount = 0
    /// Whether the file has a line that is not blank (else it is "empty").
    private var sawContent = false

    init(clock: Clock) {
      self.clock = clock
    }

    /// Takes `bytes` (consuming): once the components are built the text is let go, so a big
    /// file is not held while its events are mapped.
    mutating func read(_ bytes: consuming [UInt8]) -> ReadResult {
      var lines = ICalendar.UnfoldedLines(consume bytes)
      let roots = structure(&lines)
      problems += lines.problems
      lines = ICalendar.UnfoldedLines([])
      if roots.isEmpty, problems.isEmpty {
        let empty = !sawContent
        problems.append(
          Problem(line: 1, message: empty ? "the file is empty" : "not an iCalendar file: there is no BEGIN:VCALENDAR")
        )
      }
      var appointments: [Appointment] = []
      for root in roots {
        guard root.name == "VCALENDAR" else {
          problems.append(Problem(line: root.line, message: "BEGIN:\(root.name) outside a VCALENDAR"))
          continue
        }
        problems += root.problems
        checkCalendarProperties(root)
        for zone in root.children where zone.name == "VTIMEZONE" { learnZone(zone) }
        var synthesized: [String: Int] = [:]
        for child in root.children {
          switch child.name {
          case "VEVENT":
            eventCount += 1
            if let appointment = map(child, synthesized: &synthesized) { appointments.append(appointment) }
          case "VTIMEZONE":
            continue
          case "VTODO", "VJOURNAL", "VFREEBUSY":
            notices.append(Problem(line: child.line, message: "\(child.name) ignored: appt keeps appointments only"))
          default:
            notices.append(Problem(line: child.line, message: "\(child.name) ignored: not a component appt knows"))
          }
        }
      }
      let byLine: (Problem, Problem) -> Bool = { ($0.line, $0.message) < ($1.line, $1.message) }
      return ReadResult(
        appointments: appointments,
        problems: problems.sorted(by: byLine),
        notices: notices.sorted(by: byLine),
        eventCount: eventCount
      )
    }

    // MARK: - Structure

    /// Nests the lines into components. A malformed line is a problem of the component it is
    /// in; a component without its END is dropped with a problem at its BEGIN.
    private mutating func structure(_ lines: inout ICalendar.UnfoldedLines) -> [Component] {
      var roots: [Component] = []
      var stack: [Component] = []
      func close(_ component: Component) {
        if stack.isEmpty { roots.append(component) } else { stack[stack.count - 1].children.append(component) }
      }
      func report(_ problem: Problem) {
        if stack.isEmpty { problems.append(problem) } else { stack[stack.count - 1].problems.append(problem) }
      }
      while let (text, number) = lines.next() {
        guard let text else {
          report(Problem(line: number, message: "not UTF-8 text"))
          continue
        }
        if text.allSatisfy(\.isWhitespace) { continue }
        sawContent = true
        guard let line = ICalendar.contentLine(text, line: number) else {
          let shown = TextSafety.escapingControls(String(text.prefix(40))) + (text.count > 40 ? "..." : "")
          report(Problem(line: number, message: "malformed line \"\(shown)\": not NAME:VALUE"))
          continue
        }
        switch line.name {
        case "BEGIN":
          let name = line.value.trimmingCharacters(in: .whitespaces).uppercased()
          stack.append(Component(name: name, line: number))
        case "END":
          let name = line.value.trimmingCharacters(in: .whitespaces).uppercased()
          guard let depth = stack.lastIndex(where: { $0.name == name }) else {
            report(Problem(line: number, message: "END:\(name) without BEGIN:\(name)"))
            continue
          }
          while stack.count > depth + 1, let open = stack.popLast() {
            unclosed(open, closedBy: number)
          }
          if let finished = stack.popLast() { close(finished) }
        default:
          if stack.isEmpty {
            problems.append(Problem(line: number, message: "\(line.name) outside BEGIN:VCALENDAR ... END:VCALENDAR"))
          } else {
            stack[stack.count - 1].properties.append(line)
          }
        }
      }
      while let open = stack.popLast() { unclosed(open, closedBy: nil) }
      return roots
    }

    private mutating func unclosed(_ component: Component, closedBy line: Int?) {
      let where_ = line.map { "before the END at line \($0)" } ?? "before the end of the file"
      problems.append(
        Problem(line: component.line, message: "BEGIN:\(component.name) has no END:\(component.name) \(where_)")
      )
      if component.name == "VEVENT" { eventCount += 1 }
    }

    private mutating func checkCalendarProperties(_ calendar: Component) {
      for property in calendar.properties {
        let value = property.value.trimmingCharacters(in: .whitespaces).uppercased()
        switch property.name {
        case "VERSION" where value != "2.0":
          problems.append(
            Problem(line: property.line, message: "VERSION:\(value) is not supported (iCalendar 2.0 only)")
          )
        case "CALSCALE" where value != "GREGORIAN":
          problems.append(
            Problem(line: property.line, message: "CALSCALE:\(value) is not supported (GREGORIAN only)")
          )
        default:
          continue
        }
      }
    }

    private mutating func learnZone(_ component: Component) {
      guard let tzid = component.all("TZID").first?.value,
        let location = component.all("X-LIC-LOCATION").first?.value
      else { return }
      zoneAliases[tzid] = location
    }

    // MARK: - Events

    /// The appointment for one VEVENT, or nil after recording why it cannot be imported.
    private mutating func map(_ event: Component, synthesized: inout [String: Int]) -> Appointment? {
      var errors = event.problems
      func fail(_ line: Int, _ message: String) { errors.append(Problem(line: line, message: message)) }
      func failing<T>(_ line: Int, _ result: Result<T, Problem.Text>) -> T? {
        switch result {
        case .success(let value): return value
        case .failure(let text):
          fail(line, text.message)
          return nil
        }
      }

      for child in event.children {
        if child.name == "VALARM" {
          notices.append(Problem(line: child.line, message: "VALARM ignored: appt has no alarms"))
        } else {
          notices.append(Problem(line: child.line, message: "\(child.name) inside a VEVENT ignored"))
        }
      }

      // Properties that may appear once.
      var single: [String: ContentLine] = [:]
      for name in ["UID", "SUMMARY", "DESCRIPTION", "LOCATION", "DTSTART", "DTEND", "DURATION", "STATUS", "RRULE"] {
        let found = event.all(name)
        if found.count > 1 {
          fail(found[1].line, "more than one \(name) in the event (the first is at line \(found[0].line))")
        }
        single[name] = found.first
      }
      for property in event.properties {
        switch property.name {
        case "RECURRENCE-ID":
          fail(
            property.line,
            "RECURRENCE-ID (one changed occurrence of a series) is not supported; appt cannot import this change"
          )
        case "RDATE": fail(property.line, "RDATE (extra occurrences of a series) is not supported")
        case "EXRULE": fail(property.line, "EXRULE is not supported")
        default: continue
        }
      }

      // UID: as given, else derived from the event's content so a re-import finds it.
      var uid = single["UID"].map { ICalendar.unescape($0.value).trimmingCharacters(in: .whitespaces) } ?? ""
      let isOverride = !event.all("RECURRENCE-ID").isEmpty
      if uid.isEmpty {
        let base = "appt-import-" + Self.fingerprint(event)
        let seen = synthesized[base, default: 0] + 1
        synthesized[base] = seen
        uid = seen == 1 ? base : "\(base)-\(seen)"
      } else if !isOverride {
        if let first = uids[uid] {
          fail(single["UID"]?.line ?? event.line, "UID \"\(uid)\" is already used by the event at line \(first)")
        } else {
          uids[uid] = event.line
        }
      }

      // Times.
      guard let startLine = single["DTSTART"] else {
        fail(event.line, "VEVENT without DTSTART")
        return reject(errors)
      }
      guard let start = failing(startLine.line, moment(startLine)) else { return reject(errors) }
      let isAllDay = start.value.isDate
      let hasRule = single["RRULE"] != nil
      // The zone the event lives (and repeats) in.
      let zone: TimeZone
      switch start.kind {
      case .zoned(let tz): zone = tz
      case .utc: zone = hasRule ? .gmt : clock.timeZone
      case .floating, .date: zone = clock.timeZone
      }

      var end: Date?
      if let endLine = single["DTEND"] {
        if single["DURATION"] != nil {
          fail(endLine.line, "both DTEND and DURATION; give one")
        } else if let value = failing(endLine.line, moment(endLine)) {
          if value.value.isDate != isAllDay {
            fail(
              endLine.line,
              isAllDay
                ? "DTEND has a time but DTSTART is a date (VALUE=DATE): give both as dates"
                : "DTEND is a date but DTSTART has a time: give both with a time"
            )
          } else {
            end = value.instant
          }
        }
      } else if let durationLine = single["DURATION"] {
        if let duration = failing(durationLine.line, DurationValue.parse(durationLine.value)) {
          if isAllDay, duration.seconds != 0 {
            fail(durationLine.line, "DURATION:\(durationLine.value) is not whole days, but the event is (VALUE=DATE)")
          } else {
            end = duration.end(from: start.instant, in: zone)
          }
        }
      } else if isAllDay {
        end = clock.calendar.date(byAdding: .day, value: 1, to: start.instant)
      } else {
        fail(
          startLine.line,
          "no DTEND or DURATION: a zero-length event, which appt cannot represent (give it an end)"
        )
      }
      if let endInstant = end {
        let endLine = single["DTEND"]?.line ?? single["DURATION"]?.line ?? startLine.line
        if endInstant <= start.instant {
          fail(
            endLine,
            endInstant == start.instant
              ? "the event ends when it starts: a zero-length event, which appt cannot represent"
              : "the event ends before it starts (DTEND is not after DTSTART)"
          )
          end = nil
        } else if endInstant.timeIntervalSince(start.instant) > DurationParser.maximum {
          fail(endLine, "the event lasts more than 366 days, which appt does not allow")
          end = nil
        } else {
          do throws(AppointmentRules.Violation) {
            try AppointmentRules.checkTimes(start: start.instant, end: endInstant)
          } catch {
            fail(error.field == .start ? startLine.line : endLine, error.message)
            end = nil
          }
        }
      }

      // Recurrence and exceptions.
      var recurrence: Recurrence?
      if let ruleLine = single["RRULE"] {
        if let text = failing(ruleLine.line, untilInUTC(ruleLine.value, zone: zone)) {
          do {
            recurrence = try Recurrence(rrule: text)
          } catch {
            fail(ruleLine.line, error.message)
          }
        }
      }
      var exceptions: [Date] = []
      if let recurrence, let end {
        let duration = end.timeIntervalSince(start.instant)
        let first = recurrence.occurrences(
          start: start.instant,
          duration: duration,
          zone: zone,
          in: DateInterval(start: start.instant, duration: 1)
        ).first
        if let until = recurrence.until, until < start.instant {
          fail(single["RRULE"]?.line ?? startLine.line, "RRULE UNTIL is before DTSTART: the series has no occurrence")
        } else if first != start.instant {
          fail(
            single["RRULE"]?.line ?? startLine.line,
            "DTSTART \(start.value.text) is not an occurrence of its RRULE (\(recurrence.rrule)); "
              + "appt's series start with their first occurrence"
          )
        }
        for line in event.all("EXDATE") {
          for value in line.value.split(separator: ",") {
            let text = String(value).trimmingCharacters(in: .whitespaces)
            guard let instant = exceptionInstant(text, line: line, start: start, zone: zone, fail: fail) else {
              continue
            }
            let hit = recurrence.occurrences(
              start: start.instant,
              duration: duration,
              zone: zone,
              in: DateInterval(start: instant, duration: 1)
            ).contains(instant)
            if hit {
              exceptions.append(instant)
            } else {
              notices.append(
                Problem(line: line.line, message: "EXDATE \(text) is not an occurrence of the series; ignored")
              )
            }
          }
        }
      } else if let line = event.all("EXDATE").first, single["RRULE"] == nil {
        fail(line.line, "EXDATE on an event that does not repeat is not supported")
      }

      guard errors.isEmpty, let end else { return reject(errors) }

      // Text fields.
      var title = single["SUMMARY"].map { ICalendar.unescape($0.value) } ?? ""
      title = title.trimmingCharacters(in: .whitespacesAndNewlines)
      if title.isEmpty { title = "(no title)" }
      var note = single["DESCRIPTION"].map { ICalendar.unescape($0.value) } ?? ""
      if let location = single["LOCATION"].map({ ICalendar.unescape($0.value) })?
        .trimmingCharacters(in: .whitespacesAndNewlines), !location.isEmpty
      {
        note += (note.isEmpty ? "" : "\n") + "Location: " + location
      }
      let status: Appointment.Status =
        single["STATUS"]?.value.trimmingCharacters(in: .whitespaces).uppercased() == "CANCELLED"
        ? .cancelled : .scheduled

      let now = clock.now
      let created = stamp(event.all("CREATED").first) ?? stamp(event.all("DTSTAMP").first) ?? now
      let modified = stamp(event.all("LAST-MODIFIED").first) ?? stamp(event.all("DTSTAMP").first) ?? created

      // An event appt wrote ("<id>@appt") keeps its id, so a round trip gives the same ids.
      var id = AppointmentID()
      if uid.hasSuffix("@appt"), let own = AppointmentID(string: String(uid.dropLast(5))) { id = own }

      let appointment = Appointment(
        id: id,
        title: title,
        start: start.instant,
        end: end,
        note: note,
        status: status,
        created: created,
        updated: max(created, modified),
        timeZone: zone.identifier,
        isAllDay: isAllDay,
        recurrence: recurrence,
        exceptions: exceptions,
        uid: uid
      )
      // The rules every way in applies (`add`'s limits, no NUL...), reported at the property.
      do throws(AppointmentRules.Violation) {
        try AppointmentRules.validate(appointment)
      } catch {
        let property: ContentLine?
        switch error.field {
        case .title: property = single["SUMMARY"]
        case .note: property = single["DESCRIPTION"] ?? single["LOCATION"]
        case .uid: property = single["UID"]
        case .exceptions: property = event.all("EXDATE").first
        case .start, .timeZone: property = startLine
        case .end: property = single["DTEND"] ?? single["DURATION"] ?? startLine
        }
        let name = property?.name ?? "VEVENT"
        return reject([Problem(line: property?.line ?? event.line, message: "\(name): \(error.message)")])
      }
      return appointment
    }

    private mutating func reject(_ errors: [Problem]) -> Appointment? {
      problems += errors
      return nil
    }

    // MARK: - Values

    /// A DTSTART, DTEND or EXDATE value and the instant it names.
    struct Moment {
      enum Kind {
        case date
        case utc
        case floating
        case zoned(TimeZone)
      }

      var value: DateValue
      var kind: Kind
      var instant: Date
    }

    /// Reads a date or date-time property: VALUE=DATE (or 8 digits) is a date, midnight in
    /// the clock's zone; `Z` is UTC; TZID names the zone; otherwise floating (the clock's zone).
    private func moment(_ property: ContentLine, text: String? = nil) -> Result<Moment, Problem.Text> {
      let raw = (text ?? property.value).trimmingCharacters(in: .whitespaces)
      let valueType = property.parameter("VALUE")?.uppercased()
      guard valueType == nil || valueType == "DATE" || valueType == "DATE-TIME" else {
        return .failure(.init("\(property.name);VALUE=\(valueType ?? "") is not supported (DATE or DATE-TIME)"))
      }
      let value: DateValue
      switch DateValue.parse(raw) {
      case .success(let parsed): value = parsed
      case .failure(let text): return .failure(.init("\(property.name): \(text.message)"))
      }
      if valueType == "DATE", !value.isDate {
        return .failure(.init("\(property.name) is VALUE=DATE but \(WhenParser.quoted(raw)) has a time"))
      }
      if valueType == "DATE-TIME", value.isDate {
        return .failure(.init("\(property.name) is VALUE=DATE-TIME but \(WhenParser.quoted(raw)) has no time"))
      }
      let kind: Moment.Kind
      if value.isDate {
        kind = .date
      } else if value.isUTC {
        kind = .utc
      } else if let tzid = property.parameter("TZID") {
        guard let zone = resolveZone(tzid) else {
          return .failure(
            .init(
              "\(property.name): unknown time zone \(WhenParser.quoted(tzid)) (TZID); appt knows IANA names like "
                + "Europe/Paris"
            )
          )
        }
        kind = .zoned(zone)
      } else {
        kind = .floating
      }
      let zone: TimeZone
      switch kind {
      case .zoned(let tz): zone = tz
      case .utc: zone = .gmt
      case .date, .floating: zone = clock.timeZone
      }
      guard let instant = value.instant(in: zone) else {
        return .failure(.init("\(property.name): \(WhenParser.quoted(raw)) cannot be placed in time"))
      }
      return .success(Moment(value: value, kind: kind, instant: instant))
    }

    /// A TZID as appt knows it (TimeZoneResolver: IANA, Windows and prefixed names), or a
    /// VTIMEZONE's declared location.
    private func resolveZone(_ tzid: String) -> TimeZone? {
      if let zone = TimeZoneResolver.zone(forTZID: tzid) { return zone }
      if let alias = zoneAliases[tzid], let zone = TimeZoneResolver.zone(forTZID: alias) { return zone }
      return nil
    }

    /// The instant an EXDATE value names. A date on a timed series means that day's
    /// occurrence (the series' wall-clock time); a floating time is read in the series' zone.
    private func exceptionInstant(
      _ text: String,
      line: ContentLine,
      start: Moment,
      zone: TimeZone,
      fail: (Int, String) -> Void
    ) -> Date? {
      let valueType = line.parameter("VALUE")?.uppercased()
      guard valueType == nil || valueType == "DATE" || valueType == "DATE-TIME" else {
        fail(line.line, "EXDATE;VALUE=\(valueType ?? "") is not supported (DATE or DATE-TIME)")
        return nil
      }
      let value: DateValue
      switch DateValue.parse(text) {
      case .success(let parsed): value = parsed
      case .failure(let problem):
        fail(line.line, "EXDATE: \(problem.message)")
        return nil
      }
      if value.isDate {
        if start.value.isDate { return value.instant(in: zone) }
        var wall = DateValue.local(start.instant, in: zone, dateOnly: false)
        wall.year = value.year
        wall.month = value.month
        wall.day = value.day
        return wall.instant(in: zone)
      }
      if value.isUTC { return value.instant(in: .gmt) }
      if let tzid = line.parameter("TZID") {
        guard let exceptionZone = resolveZone(tzid) else {
          fail(line.line, "EXDATE: unknown time zone \(WhenParser.quoted(tzid)) (TZID)")
          return nil
        }
        return value.instant(in: exceptionZone)
      }
      return value.instant(in: zone)
    }

    /// The RRULE with its UNTIL in UTC, as `Recurrence` reads it: a date means the end of that
    /// day and a floating time is local, both in the series' zone.
    private func untilInUTC(_ rule: String, zone: TimeZone) -> Result<String, Problem.Text> {
      var parts = rule.split(separator: ";", omittingEmptySubsequences: false).map(String.init)
      for (index, part) in parts.enumerated() where part.uppercased().hasPrefix("UNTIL=") {
        let text = String(part.dropFirst(6))
        let value: DateValue
        switch DateValue.parse(text) {
        case .success(let parsed): value = parsed
        case .failure(let problem): return .failure(.init("RRULE UNTIL: \(problem.message)"))
        }
        let until: Date?
        if value.isDate {
          var calendar = Calendar(identifier: .gregorian)
          calendar.timeZone = zone
          until = value.instant(in: zone).flatMap { calendar.date(byAdding: .day, value: 1, to: $0) }
            .map { $0.addingTimeInterval(-1) }
        } else {
          until = value.instant(in: zone)
        }
        guard let until else { return .failure(.init("RRULE UNTIL=\(text) cannot be placed in time")) }
        // No occurrence can be later than the supported times (and a later instant has no
        // four-digit UTC year to write it with).
        parts[index] = "UNTIL=" + Recurrence.utcStamp(min(until, AppointmentRules.latest))
      }
      return .success(parts.joined(separator: ";"))
    }

    /// A CREATED, DTSTAMP or LAST-MODIFIED instant; nil when missing or unreadable (these are
    /// bookkeeping, not worth refusing an event for).
    private func stamp(_ property: ContentLine?) -> Date? {
      guard let property,
        case .success(let value) = DateValue.parse(property.value.trimmingCharacters(in: .whitespaces)),
        !value.isDate
      else { return nil }
      return value.instant(in: value.isUTC ? .gmt : clock.timeZone)
    }

    /// 16 hex digits of FNV-1a over the event's properties, leaving out the ones that change
    /// each time a calendar is exported (DTSTAMP, CREATED, LAST-MODIFIED, SEQUENCE).
    static func fingerprint(_ event: Component) -> String {
      var hash: UInt64 = 0xcbf2_9ce4_8422_2325
      let skipped: Set<String> = ["DTSTAMP", "CREATED", "LAST-MODIFIED", "SEQUENCE"]
      for property in event.properties where !skipped.contains(property.name) {
        var text = property.name
        for key in property.parameters.keys.sorted() { text += ";\(key)=\(property.parameters[key] ?? "")" }
        text += ":" + property.value + "\n"
        for byte in text.utf8 {
          hash ^= UInt64(byte)
          hash = hash &* 0x0000_0100_0000_01b3
        }
      }
      let hex = String(hash, radix: 16)
      return String(repeating: "0", count: 16 - hex.count) + hex
    }
  }
}
