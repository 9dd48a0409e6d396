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

  mutating func next() -> Appointment {
    var day: Int64
    repeat {
      day = Int64.random(in: 0..<Self.dayCount, using: &rng)
      // 1970-01-01 was a Thursday: (days + 3) % 7 is 0 for Monday ... 5, 6 for the weekend.
    } while (Self.firstDay + day + 3) % 7 >= 5 && Int.random(in: 0..<4, using: &rng) != 0
    let slot = Int64.random(in: 28...78, using: &rng)  // quarter hours: 07:00 ... 19:30
    let minutes = Int64([30, 45, 60, 75, 90][Int.random(in: 0..<5, using: &rng)])
    let startMS = ((Self.firstDay + day) * 86_400 + slot * 900) * 1_000
    let endMS = startMS + minutes * 60_000

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
    let note =
      Int.random(in: 0..<4, using: &rng) == 0 ? Self.notes[Int.random(in: 0..<Self.notes.count, using: &rng)] : ""
    let status: Appointment.Status = Int.random(in: 0..<100, using: &rng) < 3 ? .cancelled : .scheduled
    var recurrence: Recurrence?
    if Int.random(in: 0..<100, using: &rng) == 0 {
      let kind = Int.random(in: 0..<10, using: &rng)
      let dayOfMonth = ICSWriter.civil(days: Self.firstDay + day).2
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
      title: title,
      start: Date(timeIntervalSince1970: Double(startMS) / 1_000),
      end: Date(timeIntervalSince1970: Double(endMS) / 1_000),
      note: note,
      status: status,
      created: Self.created,
      timeZone: recurrence == nil ? "" : "UTC",
      recurrence: recurrence,
      revision: 1  // stored as is through the generic layer: as a first save would
    )
  }

  /// A version-4 UUID from the seeded generator.
  private mutating func nextID() -> AppointmentID {
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

/// `generate --count N --db FILE [--seed S] [--batch B] [--ics FILE]`: a fresh appt database
/// filled through the DAO layer (`DatabaseService.save(all:)`, one transaction per batch).
@MainActor
func generateCommand(_ arguments: Arguments) async {
  let count = arguments.int("count", default: 10_000)
  let path = arguments.required("db")
  let batchSize = max(1, arguments.int("batch", default: 50_000))
  if FileManager.default.fileExists(atPath: path) { fail("\(path) exists; remove it first") }
  var generator = DatasetGenerator(seed: UInt64(arguments.int("seed", default: 20_250_205)))
  var ics = arguments.string("ics").map { ICSWriter(path: $0) }

  let dao = AppointmentDAO(file: URL(fileURLWithPath: path))
  let started = monotonicNanos()
  var insertNanos: UInt64 = 0
  var written = 0
  do {
    try await dao.database.prepare()
    while written < count {
      let batch = (0..<min(batchSize, count - written)).map { _ in generator.next() }
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
  printJSON([
    "count": count, "batch": batchSize, "seconds": rounded(Double(total) / 1e9),
    "insert_seconds": rounded(Double(insertNanos) / 1e9), "db_bytes": size,
  ])
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
