// The calendar, in process and headless: the real RenderLoop drawing into a HeadlessTerminal
// (as Tests/ApptTestSupport/Pilot.swift drives it), with a fixed clock inside the dataset.
//
// `BenchTerminal` forwards everything to a `HeadlessTerminal` and also timestamps each frame
// the moment the loop draws it, checking the loop's state against what a measurement waits
// for ("the next day, loaded", "contains this appointment"). So a latency ends exactly at the
// frame that shows the result: no polling, no sleeps. `RenderLoop.settle()` is timed too.

import ApptCore
import ApptRuntime
import ApptStore
import ApptTerminal
import ApptUI
import Foundation

let utc = TimeZone(identifier: "UTC") ?? .gmt

/// `YYYY-MM-DD` as UTC midnight.
func utcDay(_ text: String) -> Date {
  let parts = text.split(separator: "-").compactMap { Int($0) }
  guard parts.count == 3 else { fail("bad day \(text)") }
  var calendar = Calendar(identifier: .gregorian)
  calendar.timeZone = utc
  guard let date = calendar.date(from: DateComponents(year: parts[0], month: parts[1], day: parts[2])) else {
    fail("bad day \(text)")
  }
  return date
}

/// A frame the benchmark waits for: the first drawn while `condition` holds for the loop's state.
@MainActor
final class FrameExpectation {
  let condition: (State) -> Bool
  private(set) var time: UInt64?
  private var continuation: CheckedContinuation<UInt64, Never>?

  init(_ condition: @escaping (State) -> Bool) { self.condition = condition }

  func fulfil(at time: UInt64) {
    self.time = time
    continuation?.resume(returning: time)
    continuation = nil
  }

  /// The frame's timestamp (monotonic nanoseconds), waiting for it if it is not drawn yet.
  func wait() async -> UInt64 {
    if let time { return time }
    return await withCheckedContinuation { continuation = $0 }
  }
}

/// A HeadlessTerminal that also tells the benchmark when a frame is drawn.
@MainActor
final class BenchTerminal: Terminal {
  let headless: HeadlessTerminal
  weak var loop: RenderLoop?
  private var expectations: [FrameExpectation] = []

  init(size: Screen.Size = Screen.Size(rows: 24, columns: 80)) {
    headless = HeadlessTerminal(size: size)
  }

  var size: Screen.Size { headless.size }
  var frameCount: Int { headless.frameCount }

  func start(handler: @escaping @MainActor (TerminalEvent) -> Void) throws(TerminalError) {
    try headless.start(handler: handler)
  }

  func draw(_ screen: Screen, cursor: (row: Int, column: Int)?) {
    headless.draw(screen, cursor: cursor)
    let now = monotonicNanos()
    guard !expectations.isEmpty, let state = loop?.state else { return }
    expectations.removeAll { expectation in
      guard expectation.condition(state) else { return false }
      expectation.fulfil(at: now)
      return true
    }
  }

  func stop() { headless.stop() }

  func press(_ key: Key) { headless.press(key) }

  /// Registers what the next awaited frame must show; call before causing it.
  func expect(_ condition: @escaping (State) -> Bool) -> FrameExpectation {
    let expectation = FrameExpectation(condition)
    expectations.append(expectation)
    return expectation
  }

  var headerRow: String { headless.screen.rows.first ?? "" }
}

/// A running calendar over `dao` on a fixed clock.
@MainActor
struct RunningCalendar {
  let dao: AppointmentDAO
  let terminal: BenchTerminal
  let loop: RenderLoop
  let running: Task<Void, Never>

  /// Creates the loop, starts it and waits for the first frame showing `today`'s appointments.
  static func start(database: String, clock: Clock) async -> (RunningCalendar, firstFrame: UInt64) {
    let dao = AppointmentDAO(location: .named(database), clock: clock)
    let terminal = BenchTerminal()
    let loop = RenderLoop(dao: dao, terminal: terminal, environment: Environment(clock: clock))
    terminal.loop = loop
    let today = clock.today
    let first = terminal.expect { $0.isLoaded && $0.selectedDay == today }
    let running = Task { @MainActor in
      do {
        try await loop.run()
      } catch {
        fail("the headless terminal failed to start: \(error)")
      }
    }
    let frame = await first.wait()
    return (RunningCalendar(dao: dao, terminal: terminal, loop: loop, running: running), frame)
  }

  func quit() async {
    terminal.press(.character("q"))
    await running.value
    await dao.database.close()
  }
}

func fixedClock(today: Date) -> Clock {
  Clock.fixed(today.addingTimeInterval(12 * 3_600), timeZone: utc)
}

// MARK: - first-frame (a child of `tui`)

/// `first-frame --db FILE --today DAY`: one cold process that opens the calendar, prints the
/// monotonic time of the first frame showing today's appointments, of the moment everything
/// the first screen asked for is drawn (`settle()`: the month panel too), its peak RSS, and quits.
@MainActor
func firstFrameCommand(_ arguments: Arguments) async {
  let started = monotonicNanos()
  let clock = fixedClock(today: utcDay(arguments.required("today")))
  let (calendar, frame) = await RunningCalendar.start(database: arguments.required("db"), clock: clock)
  let rssAtFrame = peakRSSKiB()
  let shown = calendar.loop.state.appointments.count
  let header = calendar.terminal.headerRow
  // Everything the first screen asked for (the month panel's markers too) is on screen.
  await calendar.loop.settled()
  let settled = monotonicNanos()
  let rss = peakRSSKiB()
  await calendar.quit()
  printJSON([
    "started_ns": started, "frame_ns": frame, "settled_ns": settled, "rss_at_frame_kib": rssAtFrame, "rss_kib": rss,
    "appointments": shown, "header": header,
  ])
}

// MARK: - writer (a child of `tui`: another process committing to the same database)

/// `writer --db FILE|URL`: reads `add ID START_MS` / `delete ID` lines; commits each through its
/// own AppointmentDAO (its own connection) and answers with the monotonic time after COMMIT.
@MainActor
func writerCommand(_ arguments: Arguments) async {
  let dao = AppointmentDAO(location: .named(arguments.required("db")))
  do {
    try await dao.database.prepare()
  } catch {
    fail("writer: \(error)")
  }
  writeOutput("ready\n")
  while let line = readLine(from: 0) {
    let words = line.split(separator: " ").map(String.init)
    guard let verb = words.first else { continue }
    do {
      switch verb {
      case "add":
        guard words.count == 3, let id = AppointmentID(string: words[1]), let startMS = Double(words[2]) else {
          fail("writer: bad line \(line)")
        }
        let start = Date(timeIntervalSince1970: startMS / 1_000)
        try await dao.saveAppointment(
          Appointment(
            id: id,
            title: "External commit",
            start: start,
            end: start.addingTimeInterval(45 * 60),
            created: DatasetGenerator.created
          )
        )
      case "delete":
        guard words.count == 2, let id = AppointmentID(string: words[1]) else { fail("writer: bad line \(line)") }
        try await dao.deleteAppointment(id: id)
      default:
        await dao.database.close()
        return
      }
    } catch {
      fail("writer: \(error)")
    }
    writeOutput("\(monotonicNanos())\n")
  }
  await dao.database.close()
}

// MARK: - tui

/// `tui --db FILE|URL --today DAY [--first-frames N] [--keys N] [--commits N] [--external N]`: an
/// SQLite file, or a PostgreSQL database by URL (`DatabaseConfiguration.Location.named`).
@MainActor
func tuiCommand(_ arguments: Arguments) async {
  let database = arguments.required("db")
  let todayText = arguments.required("today")
  let today = utcDay(todayText)
  let clock = fixedClock(today: today)
  let firstFrames = arguments.int("first-frames", default: 5)
  let keyCount = arguments.int("keys", default: 1_000)
  let commitCount = arguments.int("commits", default: 200)
  let externalCount = arguments.int("external", default: 50)
  let executable = ownExecutablePath()
  alarm(UInt32(arguments.int("watchdog", default: 600)))  // a hang must not stall the run
  var report: [String: Any] = [:]

  // 1. First frame, in fresh processes: spawn -> first frame showing today (the process
  //    start and library loading included), and from creating the DAO and RenderLoop.
  var processMS: [Double] = []
  var settledMS: [Double] = []
  var inProcessMS: [Double] = []
  var firstRSS: [Double] = []
  var dayCount = 0
  var header = ""
  for _ in 0..<firstFrames {
    let spawned = monotonicNanos()
    let child = spawn([executable, "first-frame", "--db", database, "--today", todayText], stdout: .pipe)
    guard let output = child.output, let line = readLine(from: output) else { fail("first-frame printed nothing") }
    close(output)
    let (status, _) = waitFor(child.pid)
    guard status == 0, let data = line.data(using: .utf8),
      let object = (try? JSONSerialization.jsonObject(with: data)) as? [String: Any],
      let started = (object["started_ns"] as? NSNumber)?.uint64Value,
      let frame = (object["frame_ns"] as? NSNumber)?.uint64Value,
      let settled = (object["settled_ns"] as? NSNumber)?.uint64Value
    else { fail("first-frame failed: \(line)") }
    processMS.append(milliseconds(from: spawned, to: frame))
    settledMS.append(milliseconds(from: spawned, to: settled))
    inProcessMS.append(milliseconds(from: started, to: frame))
    firstRSS.append((object["rss_kib"] as? NSNumber)?.doubleValue ?? 0)
    dayCount = (object["appointments"] as? NSNumber)?.intValue ?? 0
    header = object["header"] as? String ?? ""
  }
  report["first_frame"] = [
    "runs": firstFrames,
    "process_ms": rounded(median(processMS) ?? 0),
    "process_ms_all": processMS.map { rounded($0) },
    "settled_ms": rounded(median(settledMS) ?? 0),
    "settled_ms_all": settledMS.map { rounded($0) },
    "in_process_ms": rounded(median(inProcessMS) ?? 0),
    "in_process_ms_all": inProcessMS.map { rounded($0) },
    "rss_kib": Int(median(firstRSS) ?? 0),
    "day_appointments": dayCount,
    "header": header,
  ]

  // 2. This process's calendar, for keys and commits.
  let (calendar, _) = await RunningCalendar.start(database: database, clock: clock)
  await calendar.loop.settled()
  let terminal = calendar.terminal
  let pollInterval = calendar.dao.database.configuration.externalChangePollInterval.components
  let pollIntervalMS = Double(pollInterval.seconds) * 1_000 + Double(pollInterval.attoseconds) / 1e15
  let loop = calendar.loop

  /// Presses `key` and times the frame satisfying `condition`, then settle().
  func timeKey(_ key: Key, until condition: @escaping (State) -> Bool) async -> (frame: Double, settled: Double) {
    let expectation = terminal.expect(condition)
    let pressed = monotonicNanos()
    terminal.press(key)
    let frame = await expectation.wait()
    await loop.settled()
    let settled = monotonicNanos()
    return (milliseconds(from: pressed, to: frame), milliseconds(from: pressed, to: settled))
  }

  // Next day, `l`, N times (the day must be loaded on screen).
  var nextDayFrame: [Double] = []
  var nextDaySettle: [Double] = []
  var nextDayRows = 0
  for _ in 0..<keyCount {
    let target = clock.day(1, after: loop.state.selectedDay)
    let timing = await timeKey(.character("l")) { $0.selectedDay == target && $0.isLoaded }
    nextDayFrame.append(timing.frame)
    nextDaySettle.append(timing.settled)
    nextDayRows += loop.state.appointments.count
  }
  report["key_next_day"] = latencySummary(nextDayFrame).merging(
    ["settle": latencySummary(nextDaySettle), "mean_day_appointments": keyCount > 0 ? nextDayRows / keyCount : 0],
    uniquingKeysWith: { $1 }
  )
  _ = await timeKey(.character("t")) { $0.selectedDay == today && $0.isLoaded }

  // The week view (`w`): switching to it, then `l` next day N times inside it
  // (every seventh press moves the week, to the one read ahead), then back.
  let weekToggle = await timeKey(.character("w")) { $0.view == .week && $0.isLoaded }
  var weekFrame: [Double] = []
  var weekSettle: [Double] = []
  // The same presses apart: those inside the week on screen (drawing only) and those into the
  // next week (read ahead during the previous press's settle(), then observed from there).
  var insideFrame: [Double] = []
  var crossingFrame: [Double] = []
  for _ in 0..<keyCount {
    let target = clock.day(1, after: loop.state.selectedDay)
    let inside = loop.state.span?.contains(target) ?? false
    let timing = await timeKey(.character("l")) { $0.selectedDay == target && $0.isLoaded }
    weekFrame.append(timing.frame)
    weekSettle.append(timing.settled)
    if inside { insideFrame.append(timing.frame) } else { crossingFrame.append(timing.frame) }
  }
  report["week_next_day"] = latencySummary(weekFrame).merging(
    [
      "settle": latencySummary(weekSettle), "toggle_ms": rounded(weekToggle.frame),
      "inside_week": latencySummary(insideFrame), "into_next_week": latencySummary(crossingFrame),
    ],
    uniquingKeysWith: { $1 }
  )
  _ = await timeKey(.character("w")) { $0.view == .day && $0.isLoaded }
  _ = await timeKey(.character("t")) { $0.selectedDay == today && $0.isLoaded }

  // Next appointment, `j`, N times (`k` back up at the end of a short day's list).
  var nextFrame: [Double] = []
  var nextSettle: [Double] = []
  var downward = true
  var reversals = 0
  for _ in 0..<keyCount {
    let state = loop.state
    let list = state.visible
    guard list.count >= 2 else { break }
    let index = state.selectedIndex ?? 0
    if downward, index == list.count - 1 {
      downward = false
      reversals += 1
    } else if !downward, index == 0 {
      downward = true
    }
    let expected = list[downward ? index + 1 : index - 1].id
    let timing = await timeKey(.character(downward ? "j" : "k")) { $0.selectedID == expected }
    nextFrame.append(timing.frame)
    nextSettle.append(timing.settled)
  }
  report["key_next_appointment"] = latencySummary(nextFrame).merging(
    ["settle": latencySummary(nextSettle), "reversals": reversals],
    uniquingKeysWith: { $1 }
  )

  // 3. Commit -> frame, this process: save through the same DAO (insert, then delete it
  //    again, so the database keeps its content), until the frame shows the change.
  var commitFrame: [Double] = []
  var commitDuration: [Double] = []
  var lastAdded: AppointmentID?
  let commitStart = today.addingTimeInterval(12 * 3_600 + 5 * 60)  // 12:05, inside the day
  for index in 0..<commitCount {
    let adding = index % 2 == 0
    let id: AppointmentID
    if adding {
      id = AppointmentID()
      lastAdded = id
    } else {
      guard let last = lastAdded else { fail("nothing to delete") }
      id = last
    }
    let expectation = terminal.expect { state in state.appointments.contains { $0.id == id } == adding }
    let started = monotonicNanos()
    do {
      if adding {
        try await calendar.dao.saveAppointment(
          Appointment(
            id: id,
            title: "Bench commit \(index)",
            start: commitStart,
            end: commitStart.addingTimeInterval(30 * 60),
            created: clock.now
          )
        )
      } else {
        try await calendar.dao.deleteAppointment(id: id)
      }
    } catch {
      fail("commit: \(error)")
    }
    let acknowledged = monotonicNanos()
    let frame = await expectation.wait()
    commitFrame.append(milliseconds(from: started, to: frame))
    commitDuration.append(milliseconds(from: started, to: acknowledged))
    await loop.settled()
  }
  report["commit_to_frame"] = latencySummary(commitFrame).merging(
    ["commit_call": latencySummary(commitDuration)],
    uniquingKeysWith: { $1 }
  )
  // The floor under a durable commit on this disk, in the same run: a 4 KiB write and its
  // fdatasync (a WAL commit's one sync), beside the database file, as many times as commits.
  if commitCount > 0, !database.contains("://") {
    report["fsync_floor"] = latencySummary(fdatasyncLatencies(beside: database, count: commitCount))
  }

  // 4. Another process's commit -> frame: a `writer` child with its own connection commits;
  //    the calendar sees it by polling (SQLite's PRAGMA data_version, every 250 ms by default;
  //    PostgreSQL's notifications, read every 100 ms by default). A
  //    seeded random pause before each commit spreads them over the polling phase.
  var externalFrame: [Double] = []
  if externalCount > 0 {
    let writer = spawn([executable, "writer", "--db", database], stdout: .pipe, pipeStdin: true)
    guard let toWriter = writer.input, let fromWriter = writer.output, readLine(from: fromWriter) == "ready" else {
      fail("the writer did not start")
    }
    var rng = SplitMix64(seed: 250)
    var added: AppointmentID?
    for _ in 0..<externalCount {
      try? await Task.sleep(for: .milliseconds(Int.random(in: 0..<250, using: &rng)))
      let expectation: FrameExpectation
      if let id = added {
        expectation = terminal.expect { state in !state.appointments.contains { $0.id == id } }
        writeAll("delete \(id)\n", to: toWriter)
        added = nil
      } else {
        let id = AppointmentID()
        expectation = terminal.expect { state in state.appointments.contains { $0.id == id } }
        writeAll("add \(id) \(Int64(commitStart.timeIntervalSince1970 * 1_000))\n", to: toWriter)
        added = id
      }
      let frame = await expectation.wait()
      guard let line = readLine(from: fromWriter), let committed = UInt64(line) else { fail("the writer failed") }
      externalFrame.append(milliseconds(from: committed, to: frame))
      await loop.settled()
    }
    writeAll("quit\n", to: toWriter)
    close(toWriter)
    close(fromWriter)
    _ = waitFor(writer.pid)
  }
  report["external_commit_to_frame"] = latencySummary(externalFrame).merging(
    ["poll_interval_ms": pollIntervalMS],
    uniquingKeysWith: { $1 }
  )

  report["rss_kib"] = peakRSSKiB()
  report["frames"] = terminal.frameCount
  report["today"] = todayText
  await calendar.quit()
  printJSON(report)
}

extension RenderLoop {
  /// `settle()`, or the benchmark stops with what the loop still waited for.
  func settled() async {
    do { try await settle() } catch { fail("\(error)") }
  }
}

/// `count` 4 KiB writes to a scratch file next to `path`, each followed by `fdatasync`: what
/// one durable commit waits for on this disk at the least (milliseconds each).
func fdatasyncLatencies(beside path: String, count: Int) -> [Double] {
  let probe = path + ".fsync-probe"
  let descriptor = open(probe, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o600)
  guard descriptor >= 0 else { fail("cannot create \(probe)") }
  defer {
    close(descriptor)
    unlink(probe)
  }
  let page = [UInt8](repeating: 0x61, count: 4_096)
  var latencies: [Double] = []
  for index in 0..<count {
    let written = page.withUnsafeBytes { pwrite(descriptor, $0.baseAddress, 4_096, off_t(index % 64) * 4_096) }
    guard written == 4_096 else { fail("cannot write \(probe)") }
    let started = monotonicNanos()
    guard fdatasync(descriptor) == 0 else { fail("fdatasync failed on \(probe)") }
    latencies.append(milliseconds(from: started, to: monotonicNanos()))
  }
  return latencies
}
