import Foundation

extension ICalendar {
  /// Writes appointments as a VCALENDAR (see `ICalendar.write`).
  struct Writer {
    let fallbackZone: TimeZone

    /// Zones written as UTC (`...Z`) rather than with a TZID.
    static let utcIdentifiers: Set<String> = [
      "GMT", "UTC", "UCT", "Etc/UTC", "Etc/GMT", "Etc/UCT", "Etc/Universal", "Etc/Zulu", "Universal", "Zulu",
      "GMT0", "Etc/GMT0", "Etc/GMT+0", "Etc/GMT-0", "Greenwich", "Etc/Greenwich",
    ]

    func write(_ appointments: [Appointment]) -> String {
      var out = ""
      func emit(_ line: String) { out += ICalendar.fold(line) }
      emit("BEGIN:VCALENDAR")
      emit("VERSION:2.0")
      emit("PRODID:" + ICalendar.productID)
      emit("CALSCALE:GREGORIAN")
      for line in timeZones(for: appointments) { emit(line) }
      for appointment in appointments {
        for line in event(appointment) { emit(line) }
      }
      emit("END:VCALENDAR")
      return out
    }

    // MARK: - Events

    /// The content lines of one VEVENT (unfolded).
    func event(_ a: Appointment) -> [String] {
      let zone = a.zone(fallback: fallbackZone)
      var lines = ["BEGIN:VEVENT"]
      lines.append("UID:" + ICalendar.escape(a.uid ?? "\(a.id)@appt"))
      lines.append("DTSTAMP:" + utc(a.updated))
      lines.append("CREATED:" + utc(a.created))
      lines.append("LAST-MODIFIED:" + utc(a.updated))
      lines.append("SUMMARY:" + ICalendar.escape(a.title))
      // A series' DTSTART keeps its TZID (the zone it repeats in) even for a wall-clock time
      // that names two instants (the hour repeated when clocks go back).
      lines.append("DTSTART" + time(a.start, a, zone, keepZone: a.recurrence != nil).joined(separator: ":"))
      lines.append("DTEND" + time(a.end, a, zone).joined(separator: ":"))
      if let recurrence = a.recurrence {
        lines.append("RRULE:" + rule(recurrence, a, zone))
        // One EXDATE line per form (all with the TZID, but for a time the TZID cannot name).
        var forms: [String: [String]] = [:]
        var order: [String] = []
        for exception in a.exceptions {
          let parts = time(exception, a, zone)
          if forms[parts[0]] == nil { order.append(parts[0]) }
          forms[parts[0], default: []].append(parts[1])
        }
        for form in order { lines.append("EXDATE" + form + ":" + (forms[form] ?? []).joined(separator: ",")) }
      }
      if a.isCancelled { lines.append("STATUS:CANCELLED") }
      if !a.note.isEmpty { lines.append("DESCRIPTION:" + ICalendar.escape(a.note)) }
      lines.append("END:VEVENT")
      return lines
    }

    /// The parameters and the value of a DTSTART, DTEND or EXDATE: `[";VALUE=DATE", "20261201"]`,
    /// `["", "20261201T090000Z"]` or `[";TZID=Europe/Paris", "20261201T100000"]`.
    /// A wall-clock time that does not name `date` alone (the repeated hour when clocks go
    /// back) is written in UTC instead, unless `keepZone`.
    private func time(_ date: Date, _ a: Appointment, _ zone: TimeZone, keepZone: Bool = false) -> [String] {
      if a.isAllDay { return [";VALUE=DATE", DateValue.local(date, in: zone, dateOnly: true).text] }
      if Self.isUTC(zone) { return ["", utc(date)] }
      let local = DateValue.local(date, in: zone, dateOnly: false)
      if !keepZone, let back = local.instant(in: zone), abs(back.timeIntervalSince(date)) >= 1 {
        return ["", utc(date)]
      }
      return [";TZID=" + ICalendar.parameterValue(zone.identifier), local.text]
    }

    private func utc(_ date: Date) -> String {
      var value = DateValue.local(date, in: .gmt, dateOnly: false)
      value.isUTC = true
      return value.text
    }

    /// The RRULE text; a whole-day series ends on a DATE, as RFC 5545 wants for a DATE DTSTART.
    private func rule(_ recurrence: Recurrence, _ a: Appointment, _ zone: TimeZone) -> String {
      guard a.isAllDay, let until = recurrence.until else { return recurrence.rrule }
      let date = DateValue.local(until, in: zone, dateOnly: true).text
      return recurrence.rrule.split(separator: ";").map { $0.hasPrefix("UNTIL=") ? "UNTIL=" + date : String($0) }
        .joined(separator: ";")
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
      for a in appointments where !a.isAllDay {
        let zone = a.zone(fallback: fallbackZone)
        if Self.isUTC(zone) { continue }
        var last = a.end
        if let recurrence = a.recurrence {
          last = recurrence.seriesEnd(start: a.start, duration: a.duration, zone: zone) ?? a.end
        }
        let span = spans[zone.identifier] ?? (zone, a.start, last)
        spans[zone.identifier] = (zone, min(span.first, a.start), max(span.last, last))
      }
      var lines: [String] = []
      for identifier in spans.keys.sorted() {
        guard let span = spans[identifier] else { continue }
        lines += Self.vtimezone(span.zone, from: span.first, through: span.last)
      }
      return lines
    }

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

    static func vtimezone(_ zone: TimeZone, from first: Date, through last: Date) -> [String] {
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

      var lines = ["BEGIN:VTIMEZONE", "TZID:" + zone.identifier, "X-LIC-LOCATION:" + zone.identifier]
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
