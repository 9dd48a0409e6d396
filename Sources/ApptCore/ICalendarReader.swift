import Foundation

extension ICalendar {
  /// One `BEGIN:X` ... `END:X` block, with its properties and nested blocks.
  struct Component: Sendable {
    var name: String
    var line: Int
    /// The BEGIN and END lines as read (original spelling).
    var begin: String
    var end: String = ""
    var properties: [ContentLine] = []
    var children: [Component] = []
    /// Malformed lines met directly inside it.
    var problems: [Problem] = []

    func all(_ name: String) -> [ContentLine] { properties.filter { $0.name == name } }

    /// Its lines as read (unfolded) with their file lines: BEGIN, the properties, the nested
    /// components, END (which carries its BEGIN's line).
    var numberedLines: [(text: String, line: Int)] {
      var lines = [(text: begin, line: line)]
      lines += properties.map { (text: $0.raw, line: $0.line) }
      for child in children { lines += child.numberedLines }
      lines.append((text: end.isEmpty ? "END:" + name : end, line: line))
      return lines
    }

    var rawLines: [String] { numberedLines.map(\.text) }
  }

  /// Turns a file into appointments: structure first (components), then each VEVENT.
  struct Reader {
    let clock: Clock
    var problems: [Problem] = []
    private var notices: [Problem] = []
    /// Reading a REPLY or a CANCEL (`ICalendar.readMessage`): its events go here, as the
    /// stored events they name, instead of becoming appointments.
    var messageItems: [ITIP.Item]?
    /// The rules events are held to: a server's are kept whole (`AppointmentRules.Limits`).
    var limits = AppointmentRules.Limits.input
    /// The VTIMEZONEs of the file by TZID as written.
    private var zoneDefinitions: [String: Component] = [:]
    /// What each TZID met resolved to (nil: nothing; read as floating).
    private var zoneCache: [String: TimeZone?] = [:]
    /// Keys of notes said once per file.
    private var noted: Set<String> = []
    /// The zone floating times and dates are read in: X-WR-TIMEZONE, else the clock's.
    private var floatingZone: TimeZone
    /// The floating zone is the calendar's own (X-WR-TIMEZONE), not the reader's.
    private var floatingZoneIsTheCalendars = false
    /// Ordinal (its place among the events kept, see `ImportItem`), event line and SEQUENCE
    /// of each (UID, RECURRENCE-ID) kept and not yet handed on (all of them without a sink).
    private var kept: [Key: KeptEvent] = [:]
    /// Those of the batches handed to the sink.
    var earlierBatches: any KeptEvents = KeptEventsInMemory()
    /// How many events were kept (the next one's ordinal), and the most keys held at once.
    private var keptCount = 0
    private var mostKeysHeld = 0
    /// The events kept and not yet handed to `sink` (all of them without one), and their
    /// ordinals.
    private var appointments: [Appointment] = []
    private var ordinals: [Int] = []
    /// Where each ordinal of `appointments` is in it.
    private var positions: [Int: Int] = [:]
    /// With a sink, the events of the file's one VCALENDAR are handed to it `batchSize` at
    /// a time as they are read (`ICalendar.read(bytes:clock:batchSize:sink:)`); it returns
    /// false to stop the reading.
    var sink: (([ImportItem]) -> Bool)?
    var batchSize = Int.max
    /// Streaming: the one VCALENDAR's zones are set up (at its first event).
    private var streamingBegun = false
    private var mostHeld = 0
    /// Streaming met something that changes how earlier events read (a VTIMEZONE or an
    /// X-WR-TIMEZONE after the first event, a second VCALENDAR, one without its END), or the
    /// sink said stop: the reading stopped.
    private(set) var abandoned = false
    private(set) var stopped = false
    /// UIDs given to events without one, in the calendar read now.
    private var synthesized: [String: Int] = [:]
    /// Components skipped by kind: how many and the first line.
    private var skipped: [String: (count: Int, line: Int)] = [:]
    private var eventCount = 0
    /// Whether the file has a line that is not blank (else it is "empty").
    private var sawContent = false

    struct Key: Hashable {
      var uid: String
      var recurrenceID: Date?

      var text: String { ICalendar.keptKey(uid: uid, recurrenceID: recurrenceID) }
    }

    init(clock: Clock) {
      self.clock = clock
      floatingZone = clock.timeZone
    }

    /// Takes `bytes` (consuming): once the components are built the text is let go, so a big
    /// file is not held while its events are mapped.
    mutating func read(_ bytes: consuming [UInt8]) -> ReadResult {
      read(lines: ICalendar.UnfoldedLines(consume bytes))
    }

    /// What a file may hold without a VCALENDAR around it and still be read as one.
    static let bareComponents: Set<String> = ["VEVENT", "VTIMEZONE", "VTODO", "VJOURNAL", "VFREEBUSY"]

    /// Reads the lines (of bytes held, or read chunk by chunk from a source).
    mutating func read(lines: consuming ICalendar.UnfoldedLines) -> ReadResult {
      var lines = lines
      let roots = structure(&lines)
      problems += lines.problems
      lines = ICalendar.UnfoldedLines([])
      if abandoned || stopped { return ReadResult(appointments: [], problems: [], notices: [], eventCount: 0) }
      if roots.isEmpty, problems.isEmpty {
        let empty = !sawContent
        problems.append(
          Problem(line: 1, message: empty ? "the file is empty" : "not an iCalendar file: there is no BEGIN:VCALENDAR")
        )
      }
      if let first = roots.first, roots.allSatisfy({ Self.bareComponents.contains($0.name) }) {
        // Components without a VCALENDAR around them (an event pasted from a mail, khal's
        // test files): read as the one calendar they would be in, as Python's icalendar and
        // khal read them.
        notices.append(
          Problem(line: first.line, message: "no BEGIN:VCALENDAR around the events: read as one calendar")
        )
        readCalendar(
          Component(name: "VCALENDAR", line: first.line, begin: "BEGIN:VCALENDAR", children: roots),
          nested: false
        )
      } else {
        for root in roots {
          guard root.name == "VCALENDAR" else {
            problems.append(Problem(line: root.line, message: "BEGIN:\(root.name) outside a VCALENDAR"))
            continue
          }
          readCalendar(root, nested: false)
        }
      }
      if sink != nil, !appointments.isEmpty { flush(last: true) }
      for (kind, seen) in skipped {
        let what = seen.count == 1 ? "1 \(kind)" : "\(seen.count) \(kind)s"
        let why =
          ["VTODO", "VJOURNAL", "VFREEBUSY"].contains(kind)
          ? "appt keeps events only" : "not a component appt knows"
        notices.append(Problem(line: seen.line, message: "\(what) skipped (the first here): \(why)"))
      }
      let byLine: (Problem, Problem) -> Bool = { ($0.line, $0.message) < ($1.line, $1.message) }
      return ReadResult(
        appointments: appointments,
        problems: problems.sorted(by: byLine),
        notices: notices.sorted(by: byLine),
        eventCount: eventCount,
        count: keptCount,
        mostHeld: max(mostHeld, appointments.count),
        mostKeysHeld: max(mostKeysHeld, kept.count)
      )
    }

    /// The events of one VCALENDAR (and of a VCALENDAR nested in it, as some exporters write).
    private mutating func readCalendar(_ calendar: Component, nested: Bool) {
      problems += calendar.problems
      checkCalendarProperties(calendar)
      let outerFloating = (floatingZone, floatingZoneIsTheCalendars)
      defer { (floatingZone, floatingZoneIsTheCalendars) = outerFloating }
      // Streamed, its events are read already, with the zones set up at the first.
      if streamingBegun, !nested {
        for child in calendar.children where child.name != "VTIMEZONE" {
          let seen = skipped[child.name] ?? (0, child.line)
          skipped[child.name] = (seen.count + 1, min(seen.line, child.line))
        }
        return
      }
      let outerSynthesized = synthesized
      defer { synthesized = outerSynthesized }
      synthesized = [:]
      setUpZones(calendar)
      for child in calendar.children {
        switch child.name {
        case "VEVENT":
          eventCount += 1
          if messageItems != nil {
            if let item = messageItem(child) { messageItems?.append(item) }
          } else if let appointment = map(child) {
            keep(appointment, line: child.line)
          }
        case "VTIMEZONE":
          continue
        case "VCALENDAR":
          notices.append(
            Problem(line: child.line, message: "a VCALENDAR inside a VCALENDAR: its events are read as well")
          )
          readCalendar(child, nested: true)
        default:
          let seen = skipped[child.name] ?? (0, child.line)
          skipped[child.name] = (seen.count + 1, min(seen.line, child.line))
        }
      }
    }

    /// Learns a calendar's VTIMEZONEs and the zone of its floating times (X-WR-TIMEZONE).
    private mutating func setUpZones(_ calendar: Component) {
      for zone in calendar.children where zone.name == "VTIMEZONE" { learnZone(zone) }
      if let property = calendar.all("X-WR-TIMEZONE").first {
        let name = property.value.trimmingBlanks
        if let zone = TimeZoneResolver.zone(forTZID: name) {
          floatingZone = zone
          floatingZoneIsTheCalendars = true
          notices.append(
            Problem(
              line: property.line,
              message: "X-WR-TIMEZONE:\(name): times without a zone are read in \(zone.identifier)"
            )
          )
        } else {
          notices.append(
            Problem(line: property.line, message: "X-WR-TIMEZONE:\(name) is not a zone appt knows; ignored")
          )
        }
      }
    }

    /// Adds `appointment`, or, when an event with its UID (and RECURRENCE-ID) came before,
    /// keeps the one with the higher SEQUENCE (equal: the later), with a note.
    private mutating func keep(_ appointment: Appointment, line: Int) {
      let key = Key(uid: appointment.uid ?? "", recurrenceID: appointment.override?.recurrenceID)
      // Only a streamed read hands batches on: a whole one has every key in `kept`.
      guard let previous = kept[key] ?? (sink == nil ? nil : earlierBatches.kept(key.text)) else {
        let ordinal = keptCount
        keptCount += 1
        kept[key] = KeptEvent(ordinal: ordinal, line: line, sequence: appointment.sequence)
        hold(appointment, ordinal: ordinal)
        return
      }
      let old = (sequence: previous.sequence, ordinal: previous.ordinal)
      let which = key.recurrenceID.map { " (RECURRENCE-ID \(Recurrence.utcStamp($0)))" } ?? ""
      let newer = appointment.sequence >= old.sequence
      let reason =
        appointment.sequence == old.sequence
        ? "the same SEQUENCE (\(old.sequence)): the later one is kept"
        : "the higher SEQUENCE (\(max(old.sequence, appointment.sequence))) is kept"
      notices.append(
        Problem(
          line: line,
          message: "UID \"\(key.uid)\"\(which) is also the event at line \(previous.line); \(reason)"
            + (newer ? "" : " (the one at line \(previous.line))")
        )
      )
      if newer {
        // Handed to the sink already: it goes again under the same ordinal.
        if let position = positions[old.ordinal] {
          appointments[position] = appointment
        } else {
          hold(appointment, ordinal: old.ordinal)
        }
        kept[key] = KeptEvent(ordinal: old.ordinal, line: line, sequence: appointment.sequence)
      }
    }

    private mutating func hold(_ appointment: Appointment, ordinal: Int) {
      positions[ordinal] = appointments.count
      appointments.append(appointment)
      ordinals.append(ordinal)
    }

    /// Hands the events held to the sink and lets them go; their keys go to `earlierBatches`
    /// unless this is the `last` batch (no event follows to look for them).
    private mutating func flush(last: Bool = false) {
      guard let sink else { return }
      mostHeld = max(mostHeld, appointments.count)
      let items = zip(appointments, ordinals).map { appointment, ordinal in
        let random = Self.ownID(uid: appointment.uid ?? "", isOverride: appointment.override != nil) == nil
        return ImportItem(appointment: appointment, ordinal: ordinal, hasRandomID: random)
      }
      appointments.removeAll(keepingCapacity: true)
      ordinals.removeAll(keepingCapacity: true)
      positions.removeAll(keepingCapacity: true)
      // The batch's keys go where the earlier batches' are, before the sink: it refuses the
      // batch if keeping them failed.
      mostKeysHeld = max(mostKeysHeld, kept.count)
      if !last { earlierBatches.keep(kept.map { (key: $0.key.text, event: $0.value) }) }
      kept.removeAll(keepingCapacity: true)
      if !sink(items) { stopped = true }
    }

    /// Streaming: reads an event of the file's one VCALENDAR as soon as it ends, the
    /// calendar's zones set up at its first. False when it must wait for the calendar's end
    /// (not streaming, or not such an event).
    private mutating func stream(_ event: Component, in calendar: Component, roots: Int) -> Bool {
      guard sink != nil, event.name == "VEVENT", calendar.name == "VCALENDAR", roots == 0 else { return false }
      if !streamingBegun {
        streamingBegun = true
        setUpZones(calendar)
      }
      eventCount += 1
      if let appointment = map(event) { keep(appointment, line: event.line) }
      if appointments.count >= batchSize { flush() }
      return true
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
      while !abandoned, !stopped, let (text, number) = lines.next() {
        guard let text else {
          report(Problem(line: number, message: "not UTF-8 text"))
          continue
        }
        // A line starting with a visible ASCII character (nearly all) is not blank.
        let visible = text.utf8.first.map { $0 > 0x20 && $0 < 0x7F } ?? false
        if !visible, text.allSatisfy(\.isWhitespace) { continue }
        sawContent = true
        guard let line = ICalendar.contentLine(text, line: number) else {
          // Left out, and the component read without it, as Python's icalendar reads it (most
          // often a folded line that lost its leading space): one line does not cost an event.
          let shown = TextSafety.escapingControls(String(text.prefix(40))) + (text.count > 40 ? "..." : "")
          let problem = Problem(line: number, message: "malformed line \"\(shown)\": not NAME:VALUE")
          if stack.isEmpty { problems.append(problem) } else { notices.append(skipped(problem)) }
          continue
        }
        switch line.name {
        case "BEGIN":
          let name = line.value.trimmingBlanks.uppercased()
          // What would change how the events streamed so far read: read it all again whole.
          // So is a VCALENDAR inside the one streamed, even before its first event (its
          // events would wait for the outer one's end and be read there): rare, read whole.
          let changesStreamed = streamingBegun && (name == "VCALENDAR" || (name == "VTIMEZONE" && stack.count == 1))
          let nestedCalendar = sink != nil && name == "VCALENDAR" && !stack.isEmpty
          if changesStreamed || nestedCalendar {
            abandoned = true
            continue
          }
          stack.append(Component(name: name, line: number, begin: line.raw))
        case "END":
          let name = line.value.trimmingBlanks.uppercased()
          var matched = stack.lastIndex(where: { $0.name == name })
          if matched == nil, stack.count > 1, let open = stack.last {
            // A misspelt END (`END:VTOOD`) ends the component it stands in, as Python's
            // icalendar reads it: otherwise everything after it would be inside that one.
            notices.append(Problem(line: number, message: "END:\(name) ends BEGIN:\(open.name) (line \(open.line))"))
            matched = stack.count - 1
          }
          guard let depth = matched else {
            report(Problem(line: number, message: "END:\(name) without BEGIN:\(name)"))
            continue
          }
          while stack.count > depth + 1, let open = stack.popLast() {
            unclosed(open, closedBy: number)
          }
          if var finished = stack.popLast() {
            finished.end = finished.name == name ? line.raw : "END:" + finished.name
            if stack.count == 1, stream(finished, in: stack[0], roots: roots.count) { continue }
            close(finished)
          }
        default:
          if stack.isEmpty {
            problems.append(Problem(line: number, message: "\(line.name) outside BEGIN:VCALENDAR ... END:VCALENDAR"))
          } else {
            if streamingBegun, stack.count == 1, line.name == "X-WR-TIMEZONE" {
              abandoned = true
              continue
            }
            stack[stack.count - 1].properties.append(line)
          }
        }
      }
      if abandoned || stopped { return [] }
      while let open = stack.popLast() { unclosed(open, closedBy: nil) }
      return roots
    }

    private func skipped(_ problem: Problem) -> Problem {
      Problem(line: problem.line, message: problem.message + "; left out, the rest read")
    }

    private mutating func unclosed(_ component: Component, closedBy line: Int?) {
      // Its events streamed already would be dropped with it: read it all again whole.
      if streamingBegun, component.name == "VCALENDAR" { abandoned = true }
      let where_ = line.map { "before the END at line \($0)" } ?? "before the end of the file"
      problems.append(
        Problem(line: component.line, message: "BEGIN:\(component.name) has no END:\(component.name) \(where_)")
      )
      if component.name == "VEVENT" { eventCount += 1 }
    }

    private mutating func checkCalendarProperties(_ calendar: Component) {
      for property in calendar.properties {
        let value = property.value.trimmingBlanks.uppercased()
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
      guard let tzid = component.all("TZID").first?.value.trimmingBlanks else { return }
      if zoneDefinitions[tzid] == nil { zoneDefinitions[tzid] = component }
    }

    // MARK: - Events

    /// The properties appt models (once each); every other line of a VEVENT, and its
    /// sub-components, are kept verbatim in its extras.
    static let modelled: Set<String> = [
      "UID", "SUMMARY", "DESCRIPTION", "LOCATION", "DTSTART", "DTEND", "DURATION", "STATUS", "RECURRENCE-ID",
      "SEQUENCE", "CREATED", "LAST-MODIFIED", "DTSTAMP",
    ]

    /// Text properties written as they came while their field keeps its value.
    static let textProperties = ["SUMMARY", "DESCRIPTION", "LOCATION"]

    /// Whether `end` (a DTEND) names an earlier instant than `start` (a DTSTART) of the same
    /// value type. What either says wrong is told when it is read for the event.
    private mutating func endsBeforeStart(_ start: ContentLine, _ end: ContentLine) -> Bool {
      guard case .success(let from) = moment(start, note: { _ in }),
        case .success(let to) = moment(end, note: { _ in })
      else { return false }
      return from.value.isDate == to.value.isDate && to.instant < from.instant
    }

    /// The appointment for one VEVENT, or nil after recording why it cannot be imported.
    private mutating func map(_ event: Component) -> Appointment? {
      var errors = event.problems
      func fail(_ line: Int, _ message: String) { errors.append(Problem(line: line, message: message)) }
      var notes: [Problem] = []
      func failing<T>(_ line: Int, _ result: Result<T, Problem.Text>) -> T? {
        switch result {
        case .success(let value): return value
        case .failure(let text):
          fail(line, text.message)
          return nil
        }
      }

      var single: [String: ContentLine] = [:]
      var ruleLines: [ContentLine] = []
      var rdateLines: [ContentLine] = []
      var exdateLines: [ContentLine] = []
      var extraLines: [String] = []
      for property in event.properties {
        switch property.name {
        case "RRULE": ruleLines.append(property)
        case "RDATE": rdateLines.append(property)
        case "EXDATE": exdateLines.append(property)
        case let name where Self.modelled.contains(name):
          if let first = single[name] {
            notes.append(
              Problem(
                line: property.line,
                message: "a second \(name) (the first is at line \(first.line)): the first is used, this one kept as is"
              )
            )
            extraLines.append(property.raw)
          } else {
            single[name] = property
          }
        case "EXRULE":
          notes.append(
            Problem(line: property.line, message: "EXRULE (withdrawn from RFC 5545) is kept but not applied")
          )
          extraLines.append(property.raw)
        default:
          extraLines.append(property.raw)
        }
      }
      if let status = single["STATUS"], status.value.trimmingBlanks.uppercased() != "CANCELLED" {
        extraLines.append(status.raw)
      }
      for child in event.children { extraLines += child.rawLines }
      // A text property with parameters (LANGUAGE, ALTREP) or an empty value, or the first of
      // several, is kept as written too: the writer writes that line again while the field
      // still has its value (ICalendar.Writer.textLine).
      var shadows: [String] = []
      for name in Self.textProperties {
        guard let first = single[name] else { continue }
        let repeated = event.properties.contains { $0.name == name && $0.line != first.line }
        if !first.parameters.isEmpty || first.value.isEmpty || repeated { shadows.append(first.raw) }
      }
      extraLines.insert(contentsOf: shadows, at: 0)

      // UID: as given, else derived from the event's content so a re-import finds it.
      var uid = single["UID"].map { ICalendar.unescape($0.value).trimmingBlanks } ?? ""
      if uid.isEmpty {
        let base = "appt-import-" + Self.fingerprint(event)
        let seen = synthesized[base, default: 0] + 1
        synthesized[base] = seen
        uid = seen == 1 ? base : "\(base)-\(seen)"
        notes.append(Problem(line: event.line, message: "an event without a UID: it is given \(uid)"))
      }

      // Times.
      guard var startLine = single["DTSTART"] else {
        fail(event.line, "VEVENT without DTSTART")
        return reject(errors)
      }
      let repeats = !ruleLines.isEmpty || !rdateLines.isEmpty || single["RECURRENCE-ID"] != nil
      if !repeats, let endLine = single["DTEND"], endsBeforeStart(startLine, endLine) {
        // Written the wrong way round: read swapped, as Python's icalendar and
        // recurring-ical-events do. (A series is anchored at its DTSTART: it keeps it.)
        notes.append(Problem(line: endLine.line, message: "DTEND is before DTSTART: the two are read swapped"))
        single["DTEND"] = startLine.renamed("DTEND")
        startLine = endLine.renamed("DTSTART")
      }
      func noting(_ line: Int) -> (String) -> Void { { notes.append(Problem(line: line, message: $0)) } }
      guard let start = failing(startLine.line, moment(startLine, note: noting(startLine.line))) else {
        return reject(errors)
      }
      let isAllDay = start.value.isDate
      // The zone the event lives (and repeats) in.
      let zone: TimeZone
      switch start.kind {
      case .zoned(let tz): zone = tz
      case .utc: zone = start.tzidZone ?? .gmt
      case .floating: zone = floatingZone
      case .date: zone = clock.timeZone
      }
      var calendar = Calendar(identifier: .gregorian)
      calendar.timeZone = zone
      // An event without a length: a date lasts its day, a time is a moment (RFC 5545 3.6.1).
      let shortest = isAllDay ? calendar.date(byAdding: .day, value: 1, to: start.instant) : start.instant
      let shortestText = isAllDay ? "the event lasts one day" : "an event of no length"

      var end: Date?
      var endLine: String?
      if let dtend = single["DTEND"] {
        if let duration = single["DURATION"] {
          notes.append(
            Problem(line: duration.line, message: "both DTEND and DURATION: DTEND is used, DURATION kept as is")
          )
          extraLines.append(duration.raw)
        }
        if let value = failing(dtend.line, moment(dtend, note: noting(dtend.line))) {
          var instant = value.instant
          if value.value.isDate != isAllDay {
            endLine = dtend.raw
            if isAllDay {
              let day = DateValue.local(instant, in: zone, dateOnly: true).instant(in: zone) ?? instant
              instant = day < instant ? calendar.date(byAdding: .day, value: 1, to: day) ?? instant : day
              notes.append(
                Problem(
                  line: dtend.line,
                  message: "DTEND has a time but DTSTART is a date: the event ends with its day"
                )
              )
            } else {
              instant = value.value.instant(in: zone) ?? instant
              notes.append(
                Problem(line: dtend.line, message: "DTEND is a date but DTSTART has a time: it ends as that day begins")
              )
            }
          }
          if instant < start.instant || (isAllDay && instant == start.instant) {
            notes.append(
              Problem(
                line: dtend.line,
                message: (instant == start.instant ? "DTEND is DTSTART: " : "DTEND is before DTSTART: ") + shortestText
              )
            )
            endLine = dtend.raw
            instant = shortest ?? instant
          } else if instant == start.instant {
            // Written back as it came (appt writes a moment without DTEND).
            endLine = dtend.raw
          }
          end = instant
        }
      } else if let durationLine = single["DURATION"] {
        let text = durationLine.value.trimmingBlanks
        endLine = durationLine.raw
        if text.hasPrefix("-"), case .success = DurationValue.parse(String(text.dropFirst())) {
          notes.append(Problem(line: durationLine.line, message: "DURATION:\(text) is negative: \(shortestText)"))
          end = shortest
        } else if var duration = failing(durationLine.line, DurationValue.parse(text)) {
          if isAllDay, duration.seconds != 0 {
            notes.append(
              Problem(
                line: durationLine.line,
                message: "DURATION:\(text) is not whole days, but the event is (VALUE=DATE): rounded up to days"
              )
            )
            duration = DurationValue(days: duration.days + (duration.seconds + 86399) / 86400, seconds: 0)
          }
          end = duration.end(from: start.instant, in: zone)
          if isAllDay, let instant = end, instant <= start.instant {
            notes.append(Problem(line: durationLine.line, message: "DURATION:\(text) is no time: \(shortestText)"))
            end = shortest
          }
        }
      } else {
        // A date without an end lasts its day, a time is a moment (RFC 5545 3.6.1): no
        // assumption to say. A day is written back without an end as it came; a moment is
        // written without one anyway.
        endLine = isAllDay ? "" : nil
        end = shortest
      }
      if let endInstant = end {
        let endAt = single["DTEND"]?.line ?? single["DURATION"]?.line ?? startLine.line
        if limits == .input, endInstant.timeIntervalSince(start.instant) > DurationParser.maximum {
          fail(endAt, "the event lasts more than 366 days, which appt does not allow")
          end = nil
        } else {
          do throws(AppointmentRules.Violation) {
            try AppointmentRules.checkTimes(start: start.instant, end: endInstant, longest: limits == .input)
          } catch {
            fail(error.field == .start ? startLine.line : endAt, error.message)
            end = nil
          }
        }
      }

      // Recurrence: every RRULE, every RDATE.
      var rules: [RecurrenceRule] = []
      for line in ruleLines {
        switch Self.readRule(line.value) {
        case .rule(let rule, let note):
          rules.append(rule)
          if let note { notes.append(Problem(line: line.line, message: note)) }
          // Written back as it came (INTERVAL=1, the parts' order) while the rule is unchanged.
          if rule.text != line.value.trimmingBlanks { extraLines.append(line.raw) }
        case .nothing(let note):
          // Repeats nothing (as other readers take it): kept, and written back, as it came.
          notes.append(Problem(line: line.line, message: note))
          extraLines.append(line.raw)
        case .error(let error):
          fail(line.line, error.description)
        }
      }
      var dates: [RecurrenceDate] = []
      for line in rdateLines {
        for item in line.value.split(separator: ",") {
          let text = item.trimmingCharacters(in: .whitespaces)
          if let date = recurrenceDate(text, line: line, zone: zone, fail: fail, note: noting(line.line)) {
            dates.append(date)
          }
        }
      }

      // An overridden occurrence (RECURRENCE-ID).
      var override: Appointment.Override?
      if let idLine = single["RECURRENCE-ID"],
        let moment = failing(idLine.line, moment(idLine, note: noting(idLine.line)))
      {
        let range = idLine.parameter("RANGE")?.uppercased()
        if let range, range != "THISANDFUTURE" {
          notes.append(
            Problem(
              line: idLine.line,
              message: "RANGE=\(range) is not RFC 5545's (THISANDFUTURE): only this occurrence"
            )
          )
        }
        override = Appointment.Override(
          seriesID: nil,
          recurrenceID: Self.recurrenceID(moment, allDay: isAllDay, zone: zone),
          thisAndFuture: range == "THISANDFUTURE"
        )
        if !rules.isEmpty || !dates.isEmpty || !exdateLines.isEmpty {
          notes.append(
            Problem(
              line: idLine.line,
              message: "an overridden occurrence with its own RRULE, RDATE or EXDATE: kept as they are, not applied"
            )
          )
          extraLines += (ruleLines + rdateLines + exdateLines).sorted { $0.line < $1.line }.map(\.raw)
          rules = []
          dates = []
          exdateLines = []
        }
      }

      var recurrence: Recurrence?
      if !rules.isEmpty || !dates.isEmpty { recurrence = Recurrence(rules: rules, dates: dates) }
      var exceptions: [Date] = []
      if let recurrence, let end {
        let duration = end.timeIntervalSince(start.instant)
        if !rules.isEmpty {
          let ruleLine = ruleLines.first?.line ?? startLine.line
          let ruleSet = Recurrence(rules: rules)
            .set(start: start.instant, zone: zone, allDay: isAllDay, onlyRuleStarts: true)
          let first = ruleSet.occurrences(from: start.instant, to: start.instant + 1).first
          if ruleSet.rulesEndBeforeStart {
            notes.append(Problem(line: ruleLine, message: "RRULE UNTIL is before DTSTART: the rule adds no occurrence"))
          } else if first != start.instant {
            notes.append(
              Problem(
                line: ruleLine,
                message: "DTSTART \(start.value.text) is not an occurrence of its RRULE: "
                  + "it is the first occurrence still"
              )
            )
          }
        }
        for line in exdateLines {
          for item in line.value.split(separator: ",") {
            let text = item.trimmingCharacters(in: .whitespaces)
            exceptions += exceptionInstants(
              text,
              line: line,
              start: start,
              zone: zone,
              recurrence: recurrence,
              duration: duration,
              fail: fail,
              note: noting(line.line)
            )
          }
        }
      } else if !exdateLines.isEmpty {
        notes.append(
          Problem(
            line: exdateLines[0].line,
            message: "EXDATE on an event that does not repeat: kept as it is, it removes nothing"
          )
        )
        extraLines += exdateLines.map(\.raw)
      }

      var sequence = 0
      if let line = single["SEQUENCE"] {
        let text = line.value.trimmingBlanks
        if let value = Int(text), value >= 0 {
          sequence = value
        } else {
          notes.append(Problem(line: line.line, message: "SEQUENCE:\(text) is not a whole number: taken as 0"))
        }
      }

      guard errors.isEmpty, let end else { return reject(errors) }

      // Text fields.
      var title = single["SUMMARY"].map { ICalendar.unescape($0.value) } ?? ""
      // Spaces are kept as written (a title is text the organiser wrote); line breaks at
      // either end are not part of a one-line title.
      title = title.trimmingCharacters(in: .newlines)
      if title.allSatisfy(\.isWhitespace) { title = "(no title)" }
      let note = single["DESCRIPTION"].map { ICalendar.unescape($0.value) } ?? ""
      var location = single["LOCATION"].map { ICalendar.unescape($0.value) } ?? ""
      if location.allSatisfy(\.isWhitespace) { location = "" }
      let status: Appointment.Status =
        single["STATUS"]?.value.trimmingBlanks.uppercased() == "CANCELLED"
        ? .cancelled : .scheduled

      let now = clock.now
      let created = stamp(single["CREATED"]) ?? stamp(single["DTSTAMP"]) ?? now
      let modified = stamp(single["LAST-MODIFIED"]) ?? stamp(single["DTSTAMP"]) ?? created

      let id = Self.ownID(uid: uid, isOverride: override != nil) ?? AppointmentID()

      var extras = ICalendarExtras(lines: extraLines)
      // The TZID as written when appt keeps another name, and the file's VTIMEZONE for it
      // (an IANA zone's too: written back as it came, not as appt would generate it).
      // Not one appt generated (its mark): it is generated again on export.
      if case .floating = start.kind, start.tzid == nil {
        extras.zoneID = floatingZoneIsTheCalendars ? ICalendarExtras.calendarZoneTimes : ""
      }
      if let tzid = start.tzid, !isAllDay {
        if tzid != zone.identifier { extras.zoneID = tzid }
        if let definition = zoneDefinitions[tzid],
          !definition.properties.contains(where: { $0.raw == ICalendar.Writer.generatedMark })
        {
          extras.zoneDefinition = definition.rawLines
        }
      }
      if let endLine {
        extras.endLine = endLine
        extras.derivedEnd = end
      }

      var appointment = Appointment(
        id: id,
        title: title,
        start: start.instant,
        end: end,
        note: note,
        location: location,
        status: status,
        created: created,
        updated: max(created, modified),
        timeZone: zone.identifier,
        isAllDay: isAllDay,
        recurrence: recurrence,
        exceptions: exceptions,
        uid: uid,
        sequence: sequence,
        override: override,
        extras: extras
      )
      appointment.extras.asRead = Self.asRead(
        appointment,
        start: startLine,
        dates: recurrence == nil ? [] : (rdateLines + exdateLines).sorted { $0.line < $1.line },
        summary: single["SUMMARY"],
        recurrenceID: single["RECURRENCE-ID"]
      )
      // The rules every way in applies (`add`'s limits, no NUL...), reported at the property.
      do throws(AppointmentRules.Violation) {
        try AppointmentRules.validate(appointment, limits: limits)
      } catch {
        let property: ContentLine?
        switch error.field {
        case .title: property = single["SUMMARY"]
        case .note: property = single["DESCRIPTION"]
        case .uid: property = single["UID"]
        case .exceptions: property = exdateLines.first
        case .start, .timeZone: property = startLine
        case .end: property = single["DTEND"] ?? single["DURATION"] ?? startLine
        }
        let name = property?.name ?? "VEVENT"
        return reject([Problem(line: property?.line ?? event.line, message: "\(name): \(error.message)")])
      }
      notices += notes
      return appointment
    }

    enum RuleReading {
      case rule(RecurrenceRule, note: String?)
      case nothing(note: String)
      case error(RecurrenceRuleError)
    }

    /// An RRULE value as other readers take it: one without FREQ (an empty `RRULE:` in a
    /// holiday feed) repeats nothing, and a COUNT that is not a count (`COUNT=-1`) is left out.
    static func readRule(_ value: String) -> RuleReading {
      let text = value.trimmingBlanks
      let nothing = "an RRULE without FREQ adds no occurrence; kept as it came"
      guard !text.isEmpty else { return .nothing(note: nothing) }
      do throws(RecurrenceRuleError) {
        return .rule(try RecurrenceRule(parsing: text), note: nil)
      } catch .missingFrequency {
        return .nothing(note: nothing)
      } catch .invalidValue(part: "COUNT", value: let count, expected: _) where (Int(count) ?? 1) <= 0 {
        let rest = text.split(separator: ";").filter { !$0.uppercased().hasPrefix("COUNT=") }
        do throws(RecurrenceRuleError) {
          let rule = try RecurrenceRule(parsing: rest.joined(separator: ";"))
          return .rule(rule, note: "RRULE COUNT=\(count) is not a count: the rule is read without it, kept as it came")
        } catch {
          return .error(error)
        }
      } catch {
        return .error(error)
      }
    }

    /// The modelled lines to write back as they came (`ICalendarExtras.asRead`): DTSTART and
    /// the RDATE and EXDATE lines when the writer would write them otherwise (what appt
    /// writes itself is read back without any), and the absence of a SUMMARY.
    static func asRead(
      _ appointment: Appointment,
      start: ContentLine,
      dates: [ContentLine],
      summary: ContentLine?,
      recurrenceID: ContentLine?
    ) -> [ICalendarExtras.AsRead]? {
      var kept: [ICalendarExtras.AsRead] = []
      // What the writer would write (`Writer.event`, without anything kept as read): its
      // DTSTART, RDATE and EXDATE lines, and the extras lines of those names it writes back.
      let writer = ICalendar.Writer(fallbackZone: .gmt, calendarZone: ICalendar.Writer.calendarZone(for: [appointment]))
      let zone = appointment.zone(fallback: .gmt)
      var writtenStart = [writer.startLine(appointment, zone)]
      var writtenDates = appointment.recurrence.map { writer.dateLines(appointment, $0, zone) } ?? []
      for line in appointment.extras.lines {
        switch ICalendar.Writer.propertyName(line) {
        case "DTSTART": writtenStart.append(line)
        case "RDATE", "EXDATE": writtenDates.append(line)
        default: continue
        }
      }
      if writtenStart != [start.raw] {
        kept.append(.init(name: "DTSTART", lines: [start.raw], meaning: ICalendar.Writer.startMeaning(appointment)))
      }
      if writtenDates.sorted() != dates.map(\.raw).sorted() {
        kept.append(.init(name: "RDATE", lines: dates.map(\.raw), meaning: ICalendar.Writer.datesMeaning(appointment)))
      }
      if summary == nil { kept.append(.init(name: "SUMMARY", lines: [], meaning: appointment.title)) }
      if let recurrenceID, let meaning = ICalendar.Writer.recurrenceMeaning(appointment),
        writer.recurrenceIDLine(appointment, zone) != recurrenceID.raw
      {
        kept.append(.init(name: "RECURRENCE-ID", lines: [recurrenceID.raw], meaning: meaning))
      }
      return kept.isEmpty ? nil : kept
    }

    /// The occurrence a RECURRENCE-ID names. Exchange writes an all-day occurrence's as the
    /// midnight that starts its day in a zone (`TZID=GMT Standard Time:20200416T000000`, or
    /// `...T000000Z`): that is the date's occurrence, wherever the calendar is read.
    static func recurrenceID(_ moment: Moment, allDay: Bool, zone: TimeZone) -> Date {
      guard allDay, let time = moment.value.time, time.hour == 0, time.minute == 0, time.second == 0 else {
        return moment.instant
      }
      let day = CivilDate(year: moment.value.year, month: moment.value.month, day: moment.value.day)
      return CivilDateTime(date: day).instant(in: zone)
    }

    /// The id an event appt wrote ("<id>@appt", not an override) keeps, so a round trip gives
    /// the same ids; nil for any other event, which gets a new random one.
    static func ownID(uid: String, isOverride: Bool) -> AppointmentID? {
      guard !isOverride, uid.hasSuffix("@appt") else { return nil }
      return AppointmentID(string: String(uid.dropLast(5)))
    }

    private mutating func reject(_ errors: [Problem]) -> Appointment? {
      problems += errors
      return nil
    }

    // MARK: - Values

    /// A DTSTART, DTEND, RECURRENCE-ID, RDATE or EXDATE value and the instant it names.
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
      /// The TZID as written, if any (also when it was not used: on a UTC value, or naming a
      /// zone appt does not know).
      var tzid: String?
      /// The zone the TZID names, when appt knows it.
      var tzidZone: TimeZone?
    }

    /// Reads a date or date-time property: VALUE=DATE (or 8 digits) is a date, midnight in
    /// the floating zone; `Z` is UTC; TZID names the zone; otherwise floating.
    mutating func moment(_ property: ContentLine, note: (String) -> Void) -> Result<Moment, Problem.Text> {
      let raw = property.value.trimmingBlanks
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
        note("\(property.name) is VALUE=DATE but \(WhenParser.quoted(raw)) has a time: read as a date-time")
      }
      if valueType == "DATE-TIME", value.isDate {
        note("\(property.name) is VALUE=DATE-TIME but \(WhenParser.quoted(raw)) has no time: read as a date")
      }
      return place(value, raw: raw, property: property, note: note)
    }

    /// The instant of `value`, a value of `property` (whose TZID applies).
    private mutating func place(
      _ value: DateValue,
      raw: String,
      property: ContentLine,
      note: (String) -> Void
    ) -> Result<Moment, Problem.Text> {
      let tzid = property.parameter("TZID")?.trimmingBlanks
      var tzidZone: TimeZone?
      if let tzid, !value.isDate {
        tzidZone = resolveZone(tzid, line: property.line, near: value.instant(in: .gmt))
      }
      let kind: Moment.Kind
      if value.isDate {
        kind = .date
      } else if value.isUTC {
        kind = .utc
        if let tzid {
          note("\(property.name) has TZID=\(tzid) and a UTC time (\(raw), ending in Z): read as UTC")
        }
      } else if let tzidZone {
        kind = .zoned(tzidZone)
      } else {
        kind = .floating
      }
      let zone: TimeZone
      switch kind {
      case .zoned(let tz): zone = tz
      case .utc: zone = .gmt
      case .floating: zone = floatingZone
      case .date: zone = clock.timeZone
      }
      guard let instant = value.instant(in: zone) else {
        return .failure(.init("\(property.name): \(WhenParser.quoted(raw)) cannot be placed in time"))
      }
      return .success(Moment(value: value, kind: kind, instant: instant, tzid: tzid, tzidZone: tzidZone))
    }

    /// The zone a TZID names (TimeZoneResolver: IANA, Windows and prefixed names), else the
    /// zone its VTIMEZONE declares (X-LIC-LOCATION) or keeps (its rules: the IANA zone with
    /// the same offsets and changes, else a fixed offset); nil when nothing defines it.
    /// Decided once per file and TZID, each assumption said once.
    private mutating func resolveZone(_ tzid: String, line: Int, near: Date?) -> TimeZone? {
      if let known = zoneCache[tzid] { return known }
      var zone = TimeZoneResolver.zone(forTZID: tzid)
      if zone == nil, let definition = zoneDefinitions[tzid] {
        if let location = definition.all("X-LIC-LOCATION").first?.value,
          let named = TimeZoneResolver.zone(forTZID: location)
        {
          zone = named
        } else {
          zone = zoneFromRules(definition, tzid: tzid, near: near ?? clock.now)
        }
      }
      if zone == nil {
        notices.append(
          Problem(
            line: line,
            message: "unknown time zone \(WhenParser.quoted(tzid)) (TZID, and no VTIMEZONE defines it): "
              + "its times are read as floating, in \(floatingZone.identifier)"
          )
        )
      }
      zoneCache[tzid] = .some(zone)
      return zone
    }

    /// The zone a VTIMEZONE of its own defines: the IANA zone that keeps the same clock
    /// around `near`, else the fixed offset it has then.
    private mutating func zoneFromRules(_ definition: Component, tzid: String, near: Date) -> TimeZone? {
      let rules: VTimeZoneRules
      do throws(VTimeZoneError) {
        rules = try VTimeZoneRules(numberedLines: definition.numberedLines)
      } catch {
        notices.append(
          Problem(
            line: error.line,
            message: "the VTIMEZONE of \(WhenParser.quoted(tzid)) cannot be read: \(error.message)"
          )
        )
        return nil
      }
      notices += rules.assumptions
      if let zone = rules.matchingZone(near: near), TimeZone.knownTimeZoneIdentifiers.contains(zone.identifier) {
        notices.append(
          Problem(
            line: definition.line,
            message:
              "time zone \(WhenParser.quoted(tzid)) is defined only by its VTIMEZONE: read as \(zone.identifier), "
              + "which has the same offsets and changes"
          )
        )
        return zone
      }
      let offset = rules.offset(at: near)
      guard let zone = VTimeZoneRules.fixedZone(offset: offset) else { return nil }
      notices.append(
        Problem(
          line: definition.line,
          message: "time zone \(WhenParser.quoted(tzid)) is defined only by its VTIMEZONE, like no zone appt knows: "
            + "read as the fixed offset \(VTimeZoneRules.offsetText(offset))"
        )
      )
      return zone
    }

    /// One RDATE value: a DATE, a DATE-TIME (UTC, with a TZID, or floating: the series' zone)
    /// or a PERIOD (start/end or start/duration).
    private mutating func recurrenceDate(
      _ text: String,
      line: ContentLine,
      zone: TimeZone,
      fail: (Int, String) -> Void,
      note: (String) -> Void
    ) -> RecurrenceDate? {
      func instant(_ part: String) -> Moment? {
        switch DateValue.parse(part) {
        case .success(let value):
          switch place(value, raw: part, property: line, note: note) {
          case .success(let moment): return moment
          case .failure(let problem):
            fail(line.line, problem.message)
            return nil
          }
        case .failure(let problem):
          fail(line.line, "RDATE: \(problem.message)")
          return nil
        }
      }
      if let slash = text.firstIndex(of: "/") {
        let first = String(text[..<slash])
        let second = String(text[text.index(after: slash)...])
        guard let start = instant(first) else { return nil }
        let startInstant = local(start, zone: zone)
        let end: Date?
        if second.hasPrefix("P") || second.hasPrefix("+") {
          switch DurationValue.parse(second) {
          case .success(let duration): end = duration.end(from: startInstant, in: zone)
          case .failure(let problem):
            fail(line.line, "RDATE period \(WhenParser.quoted(text)): \(problem.message)")
            return nil
          }
        } else {
          end = instant(second).map { local($0, zone: zone) }
        }
        guard let end else { return nil }
        guard end > startInstant else {
          note("RDATE period \(text) ends when or before it starts: it lasts as long as the event")
          return .instant(startInstant)
        }
        return .period(startInstant, end.timeIntervalSince(startInstant))
      }
      guard let moment = instant(text) else { return nil }
      switch moment.kind {
      case .date:
        return .date(CivilDate(year: moment.value.year, month: moment.value.month, day: moment.value.day))
      case .floating:
        let time = moment.value.time
        return .local(
          CivilDateTime(
            moment.value.year,
            moment.value.month,
            moment.value.day,
            time?.hour ?? 0,
            time?.minute ?? 0,
            time?.second ?? 0
          )
        )
      case .utc, .zoned: return .instant(moment.instant)
      }
    }

    /// A moment's instant, a floating (or date) one read in the series' `zone`.
    private func local(_ moment: Moment, zone: TimeZone) -> Date {
      switch moment.kind {
      case .utc, .zoned: return moment.instant
      case .date, .floating: return moment.value.instant(in: zone) ?? moment.instant
      }
    }

    /// The instants an EXDATE value removes. A date on a timed series removes that local
    /// day's occurrences (the series' wall-clock time when it has none); a floating time is
    /// read in the series' zone.
    private mutating func exceptionInstants(
      _ text: String,
      line: ContentLine,
      start: Moment,
      zone: TimeZone,
      recurrence: Recurrence,
      duration: TimeInterval,
      fail: (Int, String) -> Void,
      note: (String) -> Void
    ) -> [Date] {
      let value: DateValue
      switch DateValue.parse(text) {
      case .success(let parsed): value = parsed
      case .failure(let problem):
        fail(line.line, "EXDATE: \(problem.message)")
        return []
      }
      if value.isDate {
        guard let midnight = value.instant(in: zone) else { return [] }
        if start.value.isDate { return [midnight] }
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = zone
        let nextMidnight = calendar.date(byAdding: .day, value: 1, to: midnight) ?? midnight.addingTimeInterval(86400)
        let onThatDay = recurrence.occurrences(
          start: start.instant,
          duration: duration,
          zone: zone,
          in: DateInterval(start: midnight, end: nextMidnight)
        ).filter { $0 >= midnight && $0 < nextMidnight }
        if !onThatDay.isEmpty { return onThatDay }
        var wall = DateValue.local(start.instant, in: zone, dateOnly: false)
        wall.year = value.year
        wall.month = value.month
        wall.day = value.day
        return wall.instant(in: zone).map { [$0] } ?? []
      }
      switch place(value, raw: text, property: line, note: note) {
      case .success(let moment): return [local(moment, zone: zone)]
      case .failure(let problem):
        fail(line.line, problem.message)
        return []
      }
    }

    /// A CREATED, DTSTAMP or LAST-MODIFIED instant; nil when missing or unreadable (these are
    /// bookkeeping, not worth refusing an event for).
    private func stamp(_ property: ContentLine?) -> Date? {
      guard let property,
        case .success(let value) = DateValue.parse(property.value.trimmingBlanks),
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

extension String {
  /// `trimmingCharacters(in: .whitespaces)` without Foundation's bridging for the common
  /// value that starts and ends with a visible ASCII character (most of a file's values).
  var trimmingBlanks: String {
    guard let first = unicodeScalars.first, let last = unicodeScalars.last else { return self }
    func visibleASCII(_ s: Unicode.Scalar) -> Bool { s.value > 0x20 && s.value < 0x7F }
    if visibleASCII(first), visibleASCII(last) { return self }
    // `.whitespaces`: Unicode Zs and the tab.
    return trimming { $0 == "\t" || $0.properties.generalCategory == .spaceSeparator }
  }

  /// `trimmingCharacters(in: .whitespacesAndNewlines)`: Unicode Z*, the tab, U+000A-U+000D
  /// and NEL.
  var trimmingBlanksAndNewlines: String {
    trimming { scalar in
      switch scalar.value {
      case 0x09...0x0D, 0x85: return true
      default:
        switch scalar.properties.generalCategory {
        case .spaceSeparator, .lineSeparator, .paragraphSeparator: return true
        default: return false
        }
      }
    }
  }

  /// Without the `blank` scalars at either end, done on the scalars: Foundation's
  /// `trimmingCharacters` copies the text through NSString, which an import paid per event.
  private func trimming(_ blank: (Unicode.Scalar) -> Bool) -> String {
    let scalars = unicodeScalars
    guard let first = scalars.first, let last = scalars.last else { return self }
    if !blank(first), !blank(last) { return self }
    guard let from = scalars.firstIndex(where: { !blank($0) }), let to = scalars.lastIndex(where: { !blank($0) })
    else { return "" }
    return String(scalars[from...to])
  }
}
