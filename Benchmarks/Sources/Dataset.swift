// The deterministic datasets: N appointments over three years (2025-2027, UTC), 30-90
// minutes, starting on quarter hours between 07:00 and 19:30, weekdays four times as busy as
// weekend days, realistic titles, a quarter with a note, 3% cancelled, 1% of them series
// (weekly 4-26 times, daily 3-10 times, monthly 3-12 times: COUNT-bounded, no BYDAY, so that
// calcurse's `{1W -> date}` says exactly the same). A fixed seed gives the same file on every
// machine. Appointments come out in random order of time, which is what "shuffled" means for
// the .ics the `--ics` option writes alongside.

import ApptCore
import ApptStore
import Foundation

struct DatasetGenerator {
  /// 2025-01-01 00:00 UTC, in days since 1970-01-01.
  static let firstDay: Int64 = 20_089
  /// Three years: 2025-01-01 through 2027-12-31.
  static let dayCount: Int64 = 1_095
  /// When every generated appointment was "created" (2024-12-01 00:00 UTC).
  static let created = Date(timeIntervalSince1970: 1_733_011_200)

  static let names = [
    "Alice", "Bob", "Chen", "Dana", "Élodie", "François", "Grace", "Hiro", "Ingrid", "Jamal", "Kofi", "Lena",
    "María", "Nils", "Olga", "Priya", "Quentin", "Rosa", "Sven", "Tomás", "Uma", "Victor", "Wen", "Yusuf", "Zoë",
  ]
  static let companies = [
    "Acme", "Globex", "Initech", "Umbrella", "Hooli", "Stark Industries", "Wayne Enterprises", "Soylent", "Vandelay",
  ]
  /// `{n}` is replaced by a name, `{c}` by a company.
  static let titles = [
    "Team standup", "1:1 with {n}", "Lunch with {n}", "Dentist", "Doctor's appointment", "Code review",
    "Sprint planning", "Retrospective", "Design review", "Call with {n}", "Coffee with {n}", "Gym", "Yoga class",
    "Haircut", "Parent-teacher meeting", "Car service", "Budget review", "Interview: {n}", "Project kickoff",
    "Client meeting: {c}", "Quarterly review with {c}", "Piano lesson", "Physiotherapy", "Book club",
    "Architecture sync", "Customer demo for {c}", "Onboarding {n}", "Vet appointment", "Tax advisor",
    "Weekly planning", "Dinner with {n}", "Swimming", "Pick up {n} from school", "Board meeting",
    "Training: incident response", "Hiring committee", "Office hours", "Release go/no-go", "Massage",
    "Language class (Spanish)",
  ]
  static let notes = [
    "Room 4B", "Bring the x-rays", "Video link in the invite", "Prepare the slides", "Call if running late",
    "Second floor, ask at the desk", "Agenda: roadmap, hiring, budget", "Bring the laptop charger",
    "Parking on Rue de la Paix", "Send the notes afterwards",
  ]

  private var rng: SplitMix64

  init(seed: UInt64) { rng = SplitMix64(seed: seed) }

  /// What every appointment of both datasets draws first, in this order (the plain dataset's
  /// stream of random numbers must stay as it was: its files are the same on every machine).
  private struct Draw {
    let day: Int64
    let startMS: Int64
    let endMS: Int64
    let title: String
    let note: String
    let status: Appointment.Status
  }

  private mutating func draw() -> Draw {
    var day: Int64
    repeat {
      day = Int64.random(in: 0..<Self.dayCount, using: &rng)
      // 1970-01-01 was a Thursday: (days + 3) % 7 is 0 for Monday ... 5, 6 for the weekend.
    } while (Self.firstDay + day + 3) % 7 >= 5 && Int.random(in: 0..<4, using: &rng) != 0
    let slot = Int64.random(in: 28...78, using: &rng)  // quarter hours: 07:00 ... 19:30
    let minutes = Int64([30, 45, 60, 75, 90][Int.random(in: 0..<5, using: &rng)])
    let startMS = ((Self.firstDay + day) * 86_400 + slot * 900) * 1_000
    let endMS = startMS + minutes * 60_000

    let title = randomTitle()
    let note =
      Int.random(in: 0..<4, using: &rng) == 0 ? Self.notes[Int.random(in: 0..<Self.notes.count, using: &rng)] : ""
    let status: Appointment.Status = Int.random(in: 0..<100, using: &rng) < 3 ? .cancelled : .scheduled
    return Draw(day: day, startMS: startMS, endMS: endMS, title: title, note: note, status: status)
  }

  private mutating func randomTitle() -> String {
    var title = Self.titles[Int.random(in: 0..<Self.titles.count, using: &rng)]
    if title.contains("{n}") {
      title = title.replacingOccurrences(of: "{n}", with: Self.names[Int.random(in: 0..<Self.names.count, using: &rng)])
    }
    if title.contains("{c}") {
      title = title.replacingOccurrences(
        of: "{c}",
        with: Self.companies[Int.random(in: 0..<Self.companies.count, using: &rng)]
      )
    }
    return title
  }

  /// The plain dataset's next appointment.
  mutating func next() -> Appointment {
    let draw = draw()
    var recurrence: Recurrence?
    if Int.random(in: 0..<100, using: &rng) == 0 {
      let kind = Int.random(in: 0..<10, using: &rng)
      let dayOfMonth = ICSWriter.civil(days: Self.firstDay + draw.day).2
      if kind < 2 {
        recurrence = Recurrence(frequency: .daily, count: Int.random(in: 3...10, using: &rng))
      } else if kind < 4, dayOfMonth <= 28 {
        recurrence = Recurrence(frequency: .monthly, count: Int.random(in: 3...12, using: &rng))
      } else {
        recurrence = Recurrence(frequency: .weekly, count: Int.random(in: 4...26, using: &rng))
      }
    }
    return Appointment(
      id: nextID(),
      title: draw.title,
      start: Date(timeIntervalSince1970: Double(draw.startMS) / 1_000),
      end: Date(timeIntervalSince1970: Double(draw.endMS) / 1_000),
      note: draw.note,
      status: draw.status,
      created: Self.created,
      timeZone: recurrence == nil ? "" : "UTC",
      recurrence: recurrence,
      revision: 1  // stored as is through the generic layer: as a first save would
    )
  }

  /// A one-off of the plain dataset's kind (the model's: `ModelGenerator`).
  mutating func nextOneOff() -> Appointment {
    let draw = draw()
    return Appointment(
      id: nextID(),
      title: draw.title,
      start: Date(timeIntervalSince1970: Double(draw.startMS) / 1_000),
      end: Date(timeIntervalSince1970: Double(draw.endMS) / 1_000),
      note: draw.note,
      status: draw.status,
      created: Self.created,
      revision: 1
    )
  }

  mutating func nextTitle() -> String { randomTitle() }

  /// A version-4 UUID from the seeded generator.
  mutating func nextID() -> AppointmentID {
    let high = rng.next()
    let low = rng.next()
    func byte(_ value: UInt64, _ index: Int) -> UInt8 { UInt8(truncatingIfNeeded: value >> (8 * (7 - index))) }
    let uuid: uuid_t = (
      byte(high, 0), byte(high, 1), byte(high, 2), byte(high, 3), byte(high, 4), byte(high, 5),
      (byte(high, 6) & 0x0F) | 0x40, byte(high, 7),
      (byte(low, 0) & 0x3F) | 0x80, byte(low, 1), byte(low, 2), byte(low, 3), byte(low, 4), byte(low, 5),
      byte(low, 6), byte(low, 7)
    )
    return AppointmentID(UUID(uuid: uuid))
  }
}

// MARK: - The calendar model

/// The "calendar model" dataset: the plain dataset's one-offs (same days, times, titles, notes
/// and 3% cancelled), a location on 30% of them, and 5% of all rows series of the kinds real
/// calendars hold, with overrides, RDATEs and EXDATEs stored as schema 5 keeps them.
/// `next()` gives one row, or a series followed by its override rows (own ids, the series'
/// uid, `Override(seriesID:recurrenceID:)`). Series, all in UTC (as the plain dataset's):
/// - 40% weekly on the start's weekday and one more (BYDAY), COUNT 4-26 or UNTIL 4-26 weeks;
/// - 20% monthly on the start's ordinal weekday (2TU; -1FR for a last one), COUNT 3-12;
/// - 10% yearly, COUNT 2-3;
/// - 28% daily, UNTIL 2-9 days after the start;
/// - 2% endless: weekly (half of them), monthly on the ordinal weekday, or yearly.
/// Half of the series carry 1-3 overrides (each on an occurrence of the rules: moved by a day
/// or retimed by 1-3 hours; the first also gets a new title), a third carry 1-2 RDATEs (1-3
/// days after an occurrence, same time), a tenth one EXDATE (an occurrence not overridden).
/// One series is drawn per 19 one-offs, and each carries one override on average, so 5% of
/// the rows are series and 5% overrides.
struct ModelGenerator {
  static let locations = [
    "Room 4B", "Main office, 3rd floor", "Café Central", "Zoom", "Clinic on Elm Street", "Gym, Rue de la Paix",
    "Conference room Ada", "Home", "Town hall", "Studio 2",
  ]

  private var base: DatasetGenerator
  private var rng: SplitMix64
  private(set) var stats: [String: Int] = [
    "one_offs": 0, "series": 0, "endless": 0, "overrides": 0, "rdate_series": 0, "rdates": 0, "exdates": 0,
    "with_location": 0, "series_weekly": 0, "series_monthly": 0, "series_yearly": 0, "series_daily": 0,
  ]

  init(seed: UInt64) {
    base = DatasetGenerator(seed: seed)
    rng = SplitMix64(seed: seed ^ 0x5EED_CA1E_0D15_0013)
  }

  mutating func next() -> [Appointment] {
    var appointment = base.nextOneOff()
    if Int.random(in: 0..<10, using: &rng) < 3 {
      appointment.location = Self.locations[Int.random(in: 0..<Self.locations.count, using: &rng)]
    }
    var rows = [appointment]
    if Int.random(in: 0..<19, using: &rng) == 0 {
      rows = series(from: appointment)
    } else {
      stats["one_offs", default: 0] += 1
    }
    stats["with_location", default: 0] += rows.filter { !$0.location.isEmpty }.count  // overrides keep it
    return rows
  }

  private mutating func series(from oneOff: Appointment) -> [Appointment] {
    var master = oneOff
    let startDay = CivilDateTime(master.start, in: .gmt).date
    let weekday = startDay.weekday
    // The start's ordinal weekday in its month: the last one (-1) when no later one fits.
    let last = startDay.day + 7 > CivilDate.daysInMonth(year: startDay.year, month: startDay.month)
    let ordinal = last && Int.random(in: 0..<2, using: &rng) == 0 ? -1 : (startDay.day - 1) / 7 + 1
    func until(days: Int) -> RecurrenceRule.Until {
      .utc(CivilDateTime(master.start.addingTimeInterval(Double(days) * 86_400), in: .gmt))
    }
    let rule: RecurrenceRule
    let kind = Int.random(in: 0..<100, using: &rng)
    switch kind {
    case 0..<40:
      var other: Recurrence.Weekday
      repeat {
        other = Recurrence.Weekday(rawValue: Int.random(in: 0..<5, using: &rng)) ?? .monday
      } while other == weekday
      let days = [weekday, other].sorted().map { RecurrenceRule.WeekdayNumber($0) }
      let weeks = Int.random(in: 4...26, using: &rng)
      rule =
        Int.random(in: 0..<10, using: &rng) < 7
        ? RecurrenceRule(frequency: .weekly, count: weeks, byDay: days)
        : RecurrenceRule(frequency: .weekly, until: until(days: 7 * weeks), byDay: days)
      stats["series_weekly", default: 0] += 1
    case 40..<60:
      rule = RecurrenceRule(
        frequency: .monthly,
        count: Int.random(in: 3...12, using: &rng),
        byDay: [RecurrenceRule.WeekdayNumber(weekday, ordinal)]
      )
      stats["series_monthly", default: 0] += 1
    case 60..<70:
      rule = RecurrenceRule(frequency: .yearly, count: Int.random(in: 2...3, using: &rng))
      stats["series_yearly", default: 0] += 1
    case 70..<98:
      rule = RecurrenceRule(frequency: .daily, until: until(days: Int.random(in: 2...9, using: &rng)))
      stats["series_daily", default: 0] += 1
    default:
      switch Int.random(in: 0..<4, using: &rng) {
      case 0, 1:
        rule = RecurrenceRule(frequency: .weekly)
        stats["series_weekly", default: 0] += 1
      case 2:
        rule = RecurrenceRule(frequency: .monthly, byDay: [RecurrenceRule.WeekdayNumber(weekday, ordinal)])
        stats["series_monthly", default: 0] += 1
      default:
        rule = RecurrenceRule(frequency: .yearly)
        stats["series_yearly", default: 0] += 1
      }
      stats["endless", default: 0] += 1
    }
    master.recurrence = Recurrence(rules: [rule])
    master.timeZone = "UTC"
    master.uid = "\(master.id)@appt-bench"
    stats["series", default: 0] += 1

    // The rules' occurrences within the dataset's three years (and a little after).
    let horizon = DateInterval(
      start: master.start,
      end: Date(timeIntervalSince1970: Double((DatasetGenerator.firstDay + DatasetGenerator.dayCount + 7) * 86_400))
    )
    let slots = master.occurrences(in: horizon, fallbackZone: .gmt, includeCancelled: true).map(\.start)
    guard !slots.isEmpty else { return [master] }

    var rows: [Appointment] = []
    var overridden: Set<Date> = []
    if Int.random(in: 0..<2, using: &rng) == 0 {
      let wanted = min(slots.count, Int.random(in: 1...3, using: &rng))
      while overridden.count < wanted {
        let slot = slots[Int.random(in: 0..<slots.count, using: &rng)]
        guard overridden.insert(slot).inserted else { continue }
        var override = master
        override.id = base.nextID()
        override.recurrence = nil
        override.override = Appointment.Override(seriesID: master.id, recurrenceID: slot)
        override.sequence = 1
        let shift: TimeInterval
        if Int.random(in: 0..<2, using: &rng) == 0 {
          shift = Int.random(in: 0..<2, using: &rng) == 0 ? 86_400 : -86_400  // moved by a day
        } else {
          shift =
            Double(Int.random(in: 1...3, using: &rng)) * (Int.random(in: 0..<2, using: &rng) == 0 ? 3_600 : -3_600)
        }
        override.start = slot.addingTimeInterval(shift)
        override.end = override.start.addingTimeInterval(master.duration)
        if rows.isEmpty { override.title = base.nextTitle() + " (moved)" }
        rows.append(override)
      }
      stats["overrides", default: 0] += rows.count
    }
    if Int.random(in: 0..<3, using: &rng) == 0 {
      let dates = (0..<Int.random(in: 1...2, using: &rng)).map { _ in
        let slot = slots[Int.random(in: 0..<slots.count, using: &rng)]
        return RecurrenceDate.instant(slot.addingTimeInterval(Double(Int.random(in: 1...3, using: &rng)) * 86_400))
      }
      master.recurrence?.dates = Array(Set(dates)).sorted { $0.sortKey < $1.sortKey }
      stats["rdate_series", default: 0] += 1
      stats["rdates", default: 0] += master.recurrence?.dates.count ?? 0
    }
    if Int.random(in: 0..<10, using: &rng) == 0, let slot = slots.dropFirst().first(where: { !overridden.contains($0) })
    {
      master.exceptions = [slot]
      stats["exdates", default: 0] += 1
    }
    return [master] + rows
  }
}

extension RecurrenceDate {
  fileprivate var sortKey: Date {
    if case .instant(let instant) = self { return instant }
    return .distantPast
  }
}

// MARK: - iCalendar (for calcurse -i)

/// Writes VEVENTs in the order given (the generator's: shuffled in time), floating local
/// times (the benchmark runs with TZ=UTC), CRLF line ends as RFC 5545 wants.
struct ICSWriter {
  private let handle: FileHandle
  private var buffer = ""

  init(path: String) {
    guard FileManager.default.createFile(atPath: path, contents: nil),
      let handle = FileHandle(forWritingAtPath: path)
    else { fail("cannot create \(path)") }
    self.handle = handle
    buffer = "BEGIN:VCALENDAR\r\nVERSION:2.0\r\nPRODID:-//appt//appt-bench//EN\r\n"
  }

  mutating func add(_ appointment: Appointment) {
    buffer += "BEGIN:VEVENT\r\nUID:\(appointment.id)@appt-bench\r\nDTSTAMP:20241201T000000Z\r\n"
    buffer += "DTSTART:\(Self.stamp(appointment.start))\r\nDTEND:\(Self.stamp(appointment.end))\r\n"
    buffer += "SUMMARY:\(Self.escape(appointment.title))\r\n"
    if !appointment.note.isEmpty { buffer += "DESCRIPTION:\(Self.escape(appointment.note))\r\n" }
    if let recurrence = appointment.recurrence { buffer += "RRULE:\(recurrence.rrule)\r\n" }
    if appointment.isCancelled { buffer += "STATUS:CANCELLED\r\n" }
    buffer += "END:VEVENT\r\n"
    if buffer.utf8.count > 1 << 20 { flush() }
  }

  mutating func finish() {
    buffer += "END:VCALENDAR\r\n"
    flush()
    try? handle.close()
  }

  private mutating func flush() {
    handle.write(Data(buffer.utf8))
    buffer = ""
  }

  static func escape(_ text: String) -> String {
    text.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: ",", with: "\\,")
      .replacingOccurrences(of: ";", with: "\\;")
  }

  /// `20261201T100000` in UTC.
  static func stamp(_ date: Date) -> String {
    let seconds = Int64(date.timeIntervalSince1970.rounded(.down))
    let days = seconds >= 0 ? seconds / 86_400 : (seconds - 86_399) / 86_400
    let secondOfDay = seconds - days * 86_400
    let (year, month, day) = civil(days: days)
    func pad(_ value: Int64, _ width: Int) -> String {
      let text = String(value)
      return String(repeating: "0", count: max(0, width - text.count)) + text
    }
    return "\(pad(year, 4))\(pad(month, 2))\(pad(day, 2))T\(pad(secondOfDay / 3_600, 2))"
      + "\(pad(secondOfDay % 3_600 / 60, 2))\(pad(secondOfDay % 60, 2))"
  }

  /// Year, month and day of the date `days` after 1970-01-01 (ApptCore's `CivilDate`).
  static func civil(days: Int64) -> (Int64, Int64, Int64) {
    let date = CivilDate(dayNumber: Int(days))
    return (Int64(date.year), Int64(date.month), Int64(date.day))
  }
}

// MARK: - Commands

/// `generate --count N --db FILE [--seed S] [--batch B] [--ics FILE] [--model]`: a fresh appt
/// database of N rows filled through the DAO layer (`DatabaseService.save(all:)`, one
/// transaction per batch). `--model`: the calendar model dataset (`ModelGenerator`; no .ics).
@MainActor
func generateCommand(_ arguments: Arguments) async {
  let count = arguments.int("count", default: 10_000)
  let path = arguments.required("db")
  let batchSize = max(1, arguments.int("batch", default: 50_000))
  if FileManager.default.fileExists(atPath: path) { fail("\(path) exists; remove it first") }
  let seed = UInt64(arguments.int("seed", default: 20_250_205))
  let isModel = arguments.flags.contains("model")
  if isModel, arguments.string("ics") != nil { fail("--ics writes the plain dataset only") }
  var generator = DatasetGenerator(seed: seed)
  var model = ModelGenerator(seed: seed)
  var pending: [Appointment] = []  // a series' override rows that did not fit in the last batch
  var ics = arguments.string("ics").map { ICSWriter(path: $0) }

  let dao = AppointmentDAO(file: URL(fileURLWithPath: path))
  let started = monotonicNanos()
  var insertNanos: UInt64 = 0
  var written = 0
  do {
    try await dao.database.prepare()
    while written < count {
      let size = min(batchSize, count - written)
      var batch: [Appointment]
      if isModel {
        batch = pending
        while batch.count < size { batch += model.next() }
        pending = Array(batch.dropFirst(size))
        batch.removeLast(batch.count - size)
      } else {
        batch = (0..<size).map { _ in generator.next() }
      }
      if ics != nil { for appointment in batch { ics?.add(appointment) } }
      let before = monotonicNanos()
      try await dao.service.save(all: batch)
      insertNanos += monotonicNanos() - before
      written += batch.count
      if count >= 200_000 { writeError("  generated \(written) of \(count)\r") }
    }
  } catch {
    fail("generate: \(error)")
  }
  ics?.finish()
  await dao.database.close()  // the last connection closing checkpoints and removes the WAL
  let total = monotonicNanos() - started
  if count >= 200_000 { writeError("\n") }
  let size = (try? FileManager.default.attributesOfItem(atPath: path)[.size] as? Int) ?? 0
  var result: [String: Any] = [
    "count": count, "batch": batchSize, "seconds": rounded(Double(total) / 1e9),
    "insert_seconds": rounded(Double(insertNanos) / 1e9), "db_bytes": size,
  ]
  if isModel {
    var stats = model.stats
    stats["overrides_dropped"] = pending.count  // the last series' overrides past N rows
    result["model"] = stats
  }
  printJSON(result)
}

/// `bulk-insert --count N --dir DIR [--runs R]`: the import stand-in. N shuffled
/// appointments built in memory, then saved into a fresh database in ONE transaction through
/// `DatabaseService.save(all:)`; reports the median of R fresh files.
@MainActor
func bulkInsertCommand(_ arguments: Arguments) async {
  let count = arguments.int("count", default: 100_000)
  let directory = arguments.required("dir")
  let runs = max(1, arguments.int("runs", default: 3))
  var insertSeconds: [Double] = []
  var buildSeconds: [Double] = []
  var totalSeconds: [Double] = []
  for run in 0..<runs {
    let path = "\(directory)/bulk-\(run).sqlite3"
    for suffix in ["", "-wal", "-shm"] { unlink(path + suffix) }
    let started = monotonicNanos()
    var generator = DatasetGenerator(seed: 100_000 + UInt64(run))
    let items = (0..<count).map { _ in generator.next() }
    let built = monotonicNanos()
    let dao = AppointmentDAO(file: URL(fileURLWithPath: path))
    do {
      try await dao.database.prepare()
      let before = monotonicNanos()
      try await dao.service.save(all: items)
      let after = monotonicNanos()
      insertSeconds.append(Double(after - before) / 1e9)
    } catch {
      fail("bulk-insert: \(error)")
    }
    await dao.database.close()
    totalSeconds.append(Double(monotonicNanos() - started) / 1e9)
    buildSeconds.append(Double(built - started) / 1e9)
    for suffix in ["", "-wal", "-shm"] { unlink(path + suffix) }
  }
  printJSON([
    "count": count, "runs": runs,
    "insert_seconds": rounded(median(insertSeconds) ?? 0),
    "insert_seconds_all": insertSeconds.map { rounded($0) },
    "build_seconds": rounded(median(buildSeconds) ?? 0),
    "total_seconds": rounded(median(totalSeconds) ?? 0),
    "rss_kib": peakRSSKiB(),
  ])
}
