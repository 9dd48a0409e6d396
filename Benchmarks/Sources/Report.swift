// `report --raw DIR --json FILE --markdown FILE`: merges the raw results of one run.sh run
// into one JSON file and writes BENCHMARKS.md from it, ending with the verdict on each goal.
// Nothing here measures; every number comes from the raw files.

import Foundation

// MARK: - Reading raw results

private func loadJSON(_ path: String) -> [String: Any]? {
  guard let data = FileManager.default.contents(atPath: path) else { return nil }
  return (try? JSONSerialization.jsonObject(with: data)) as? [String: Any]
}

/// The value at a dotted path (`"list.appt.median_s"`) as a number.
private func number(_ object: Any?, _ path: String) -> Double? {
  var current = object
  for key in path.split(separator: ".") {
    guard let dictionary = current as? [String: Any] else { return nil }
    current = dictionary[String(key)]
  }
  return (current as? NSNumber)?.doubleValue
}

private func value(_ object: Any?, _ path: String) -> Any? {
  var current = object
  for key in path.split(separator: ".") {
    guard let dictionary = current as? [String: Any] else { return nil }
    current = dictionary[String(key)]
  }
  return current
}

// MARK: - Formatting

/// A duration given in seconds: `0.8 ms`, `12.3 ms`, `1.24 s`.
private func seconds(_ value: Double?) -> String {
  guard let value else { return "n/a" }
  return value < 1 ? milliseconds(value * 1_000) : String(format: "%.2f s", value)
}

/// A duration given in milliseconds.
private func milliseconds(_ value: Double?) -> String {
  guard let value else { return "n/a" }
  switch value {
  case ..<1: return String(format: "%.2f ms", value)
  case ..<100: return String(format: "%.1f ms", value)
  case ..<1_000: return String(format: "%.0f ms", value)
  default: return String(format: "%.2f s", value / 1_000)
  }
}

private func mebibytes(_ kib: Double?) -> String {
  guard let kib else { return "n/a" }
  return String(format: "%.1f MiB", kib / 1_024)
}

private func ratio(_ value: Double?) -> String {
  guard let value, value.isFinite else { return "n/a" }
  return value >= 100 ? String(format: "%.0f×", value) : String(format: "%.1f×", value)
}

private func count(_ value: Int) -> String {
  switch value {
  case 1_000_000...: return value % 1_000_000 == 0 ? "\(value / 1_000_000)M" : "\(value)"
  case 1_000...: return value % 1_000 == 0 ? "\(value / 1_000)k" : "\(value)"
  default: return "\(value)"
  }
}

// MARK: - Goals

private struct Goal {
  let text: String
  /// nil: not measurable in this run.
  let met: Bool?
  let measured: String
  /// Why it is not met and what would close it (shown only when it is not met).
  let note: String
}

/// Why a goal is not met, as analysed on this code base. Shown only while the goal is unmet;
/// when the code changes, the numbers above are what count.
private enum GoalNotes {
  static let listVersusSQLite = """
    The minimal query's three columns read from appt's own file take about what they take \
    from the minimal table (rows are stored in start order). The sqlite3 CLI running appt's \
    own window queries (the one-offs' nine line columns from the window index, the series' \
    eleven from the series index, without the `series_week` test that spares appt most \
    series) takes the time shown. On top of that appt starts its runtime (`appt --version`), \
    opens and checks the store (an empty week), decodes the rows, expands the series that \
    reach the week, and sorts and formats the lines; see "Where `list`'s time and memory go".
    """
  static let listVersusCalcurse = """
    calcurse reads and parses its whole file on every run, so its time grows with the file \
    while appt's grows only with the week; but 100× at this size asks appt to print the week \
    in about the time the sqlite3 CLI alone takes (the floor above), so appt's fixed start-up \
    and its per-row costs (rows read from the table, ids parsed by Foundation, series \
    expanded with `Calendar`) all have to go; see "Where `list`'s time and memory go" \
    and "Where the calendar's time goes".
    """
  static let listRSS = """
    The floor is the runtime, not the data (see "Where `list`'s time and memory go"): \
    `appt --version` opens no database; most of what it takes is appt's own 80 MB binary, \
    whose pages the kernel maps 64 KB at a time around each one touched, of those in the page \
    cache. So the figure depends on the cache: measured as for a program in use (its pages \
    dropped from the cache once, after the build: what runs read comes back), and in \
    parentheses with the whole binary cached, as just after it is written (the same code, \
    more pages mapped around each one touched). The release link lays out the functions everyday commands run together \
    (Resources/link-order.txt, `make link-order`); a stale list, or code the list does not \
    name, spreads them out again.
    """
  static let firstFrame = """
    The first screen runs the day's window (every row of the day read from the table, every \
    series that reaches it expanded) and the month panel's marks (one index probe a day); see \
    "Where the calendar's time goes".
    """
  static let firstFrameRSS = """
    As for `list`: the process floor (`appt --version` in "Where `list`'s time and memory go") \
    comes before appt does anything; ICU's data comes on top once dates are computed.
    """
  static let keyLatency = """
    The calendar reads the days either side of the one on screen once it has loaded (and the \
    weeks either side in the week view), so a key into one of them only draws; what is left in \
    the p99 is a key whose day was not read ahead yet (the first after a commit, which forgets \
    what was read) and the draw itself on a loaded machine. A key entering a new month also \
    starts the month panel's count (off the key path: the day's snapshot does not wait for it).
    """
  static let commitLatency = """
    After our own commit the day's window is patched with the rows the write changed (not \
    read again), windows are refreshed before the month panel, and the snapshot leaves as \
    soon as it is ready; SQLite copies a long WAL back into the file after that (not inside \
    the COMMIT, where its auto-checkpoint made one commit in a few hundred wait); what \
    remains is the durable commit itself, an fdatasync of the WAL, whose own p99 on this disk \
    in the same run is in the speed goals below, and drawing the day.
    """
  static let streaming = """
    Each line is written as bytes into its chunk's buffer; an occurrence is a copy of its \
    series sharing the series' text and rules (one reference); the zone's offsets are \
    remembered between its transitions. What is left per line is expanding the occurrence \
    on the wall clock, sorting the slice and writing the line; see section 4.
    """
  static let importTime = """
    The floor is SQLite's: the sqlite3 CLI alone, inserting the same rows at the rowids appt \
    gave them (in start order) in an order as shuffled as the file's, into appt's schema in \
    one durable transaction, with the indexes built after the rows as appt builds them in an \
    empty table (all but the primary key's, the uid's and the series', which its lookups \
    read), takes the time shown. appt stores each batch of 10,000 events in the order SQLite \
    keeps the rows, so the table takes a batch in one sweep, not a page an event; at 1M a \
    batch still lands all over the file (the import's 16 MiB page cache spills to the WAL \
    and reads it back). The file is parsed on a thread of its own while the store writes \
    the batch before (`ImportReader`), so the parsing time in the table mostly overlaps the \
    storing; each event is an INSERT of its own after its keys are looked up, and a schema \
    whose rows are smaller is what would close more of it.
    """
  static let importMemory = """
    An import holds one 1 MiB piece of the file and two batches of 10,000 events (the one \
    being stored, the one being read); the keys of the events read so far (to find a later \
    copy of one) are in the reader's private temporary SQLite database behind a fixed 2 MiB \
    Bloom filter, and SQLite's page cache for the import is 16 MiB.
    """
  static let externalCommit = """
    Other processes' commits are noticed by polling `PRAGMA data_version` every 250 ms, then \
    re-queried like a commit of our own.
    """
}

// MARK: - Speed goals

/// The speed goals (import, `list`, streaming and the calendar at scale), each with what this
/// run measured and, where it is not met, the floor measured beside it in the same run.
private struct SpeedGoals {
  let raw: String
  let largest: Int
  let sizes: [Int]
  let list: [String: Any]
  let tui: [String: Any]
  let baseline: [String: Any]?
  let probe: [String: Any]?
  let importWall: Double?
  let importRSS: Double?

  /// How a time compares with its floor, and whether the floor alone is over the goal.
  static func againstFloor(_ measured: Double?, _ floor: Double?, goal: Double) -> String {
    guard let measured, let floor, floor > 0 else { return "" }
    let over = floor >= goal ? "; the floor alone is over the goal, which cannot be met on this machine" : ""
    return "; appt takes \(ratio(measured / floor)) the floor's time\(over)"
  }

  var goals: [Goal] {
    var goals: [Goal] = []
    let importLarge = loadJSON("\(raw)/import-large.json")
    let largeWall = number(importLarge, "wall_s")
    let largeRSS = number(importLarge, "rss_kib")
    let importFloor = loadJSON("\(raw)/import-floor.json")
    let importFloorLarge = loadJSON("\(raw)/import-floor-large.json")
    let importProbe = loadJSON("\(raw)/import-probe.json")
    // Each import target is two goals here, time and memory: they have different
    // floors (SQLite's inserts; none for memory).
    goals.append(
      Goal(
        text: "`import` of 100k shuffled events into a fresh file under 1 s",
        met: importWall.map { $0 < 1 },
        measured: "\(seconds(importWall)) (in process: parsing "
          + "\(milliseconds(number(importProbe, "parse_ms"))), storing \(milliseconds(number(importProbe, "store_ms")))"
          + "; the sqlite3 CLI inserting the same rows into appt's schema: "
          + "\(milliseconds(number(importFloor, "insert_s").map { $0 * 1_000 })))"
          + Self.againstFloor(importWall, number(importFloor, "insert_s"), goal: 1),
        note: GoalNotes.importTime
      )
    )
    goals.append(
      Goal(
        text: "`import` of 100k shuffled events: peak RSS under 60 MiB",
        met: importRSS.map { $0 < 60 * 1_024 },
        measured: mebibytes(importRSS),
        note: GoalNotes.importMemory
      )
    )
    goals.append(
      Goal(
        text: "`import` of 1M under 10 s",
        met: largeWall.map { $0 < 10 },
        measured: "\(seconds(largeWall)); `appt import FILE` itself, peak RSS \(mebibytes(largeRSS)); "
          + "the sqlite3 CLI inserting the same rows into appt's schema: "
          + "\(seconds(number(importFloorLarge, "insert_s")))"
          + Self.againstFloor(largeWall, number(importFloorLarge, "insert_s"), goal: 10),
        note: GoalNotes.importTime
      )
    )
    goals.append(
      Goal(
        text: "`import` of 1M: memory flat in N (peak RSS within 1.5× of 100k's)",
        met: largeRSS.flatMap { rss in importRSS.map { rss <= $0 * 1.5 } },
        measured: "\(mebibytes(largeRSS)) (100k: \(mebibytes(importRSS)))",
        note: GoalNotes.importMemory
      )
    )
    let week = number(baseline, "appt-week.median_s")
    let minimal = number(baseline, "sqlite3-minimal-week.median_s")
    let vsMinimal = week.flatMap { w in minimal.map { w / $0 } }
    let ownSchema = number(baseline, "sqlite3-week.median_s")
    let threeColumns = number(baseline, "sqlite3-three-columns.median_s")
    let files = loadJSON("\(raw)/file-sizes.json")
    let rows = number(files, "rows")
    let perRow = { (key: String) in
      number(files, key).flatMap { b in rows.map { "\(Int((b / $0).rounded())) B" } } ?? "n/a"
    }
    goals.append(
      Goal(
        text: "`list` of one week at \(count(largest)) within 3× of the sqlite3 CLI on a minimal table "
          + "(start, end, title; an index on start)",
        met: vsMinimal.map { $0 <= 3 },
        measured: "\(seconds(week)) vs \(seconds(minimal)): \(ratio(vsMinimal)); bytes per appointment: "
          + "appt's file \(perRow("appt_bytes")), the minimal table's \(perRow("minimal_bytes")); "
          + "the sqlite3 CLI running appt's own window queries on appt's file: \(seconds(ownSchema)) "
          + "(\(ratio(ownSchema.flatMap { own in minimal.map { own / $0 } })) the minimal table); "
          + "the minimal query's three columns from appt's file: \(seconds(threeColumns)) "
          + "(\(ratio(threeColumns.flatMap { three in minimal.map { three / $0 } })) the minimal table)",
        note: GoalNotes.listVersusSQLite
      )
    )
    let rss = sizes.compactMap { number(list["\($0)"], "appt.rss_max_kib") }.max()
    goals.append(
      Goal(
        text: "`list` peak RSS under 20 MiB at any size",
        met: rss.map { $0 < 20 * 1_024 },
        measured: "worst \(mebibytes(rss)) (the week at \(count(largest)) with all of the binary in the page "
          + "cache, as just after it is written: "
          + "\(mebibytes(number(loadJSON("\(raw)/list-rss-cached.json"), "rss_kib")))); the floor in this run: `appt --version` "
          + "\(mebibytes(number(baseline, "appt-version.rss_kib"))), `appt help` "
          + "\(mebibytes(number(baseline, "appt-help.rss_kib"))), `list` of an empty week "
          + "\(mebibytes(number(baseline, "appt-empty-week.rss_kib")))",
        note: GoalNotes.listRSS
      )
    )
    let stream = loadJSON("\(raw)/stream.json")
    let firstLine = number(loadJSON("\(raw)/stream-first-line.json"), "first_line_ms")
    let streamWall = number(stream, "stream-text.median_s")
    let streamLines = number(stream, "stream-text.stdout_lines")
    let perSecond = streamWall.flatMap { wall in streamLines.map { $0 / wall } }
    let streamRSS = [number(stream, "stream-text.rss_max_kib"), number(stream, "stream-json.rss_max_kib")]
      .compactMap { $0 }.max()
    goals.append(
      Goal(
        text: "`list --from 1970 --to 9999` over an endless daily series streams: first line under 50 ms, "
          + "RSS under 30 MiB, over 1M lines/s",
        met: firstLine.flatMap { first in
          streamRSS.flatMap { rss in perSecond.map { first < 50 && rss < 30 * 1_024 && $0 > 1_000_000 } }
        },
        measured: "first line \(milliseconds(firstLine)), RSS \(mebibytes(streamRSS)), "
          + (perSecond.map { String(format: "%.2fM lines/s", $0 / 1_000_000) } ?? "n/a"),
        note: GoalNotes.streaming
      )
    )
    let key = number(tui["\(largest)"], "key_next_day.p99_ms")
    goals.append(
      Goal(
        text: "Calendar: `l` next day at \(count(largest)), p99 under 5 ms",
        met: key.map { $0 < 5 },
        measured: "p99 \(milliseconds(key))",
        note: GoalNotes.keyLatency
      )
    )
    let commit = number(tui["\(largest)"], "commit_to_frame.p99_ms")
    let commitMedian = number(tui["\(largest)"], "commit_to_frame.p50_ms")
    let sync = number(tui["\(largest)"], "fsync_floor.p99_ms")
    let syncMedian = number(tui["\(largest)"], "fsync_floor.p50_ms")
    goals.append(
      Goal(
        text: "Calendar: own commit → frame at \(count(largest)), p99 under 5 ms (durable commit included)",
        met: commit.map { $0 < 5 },
        measured: "p50 \(milliseconds(commitMedian)), p99 \(milliseconds(commit)); the disk's own fdatasync "
          + "of a 4 KiB write in the same run (the floor of a durable commit): p50 \(milliseconds(syncMedian)), "
          + "p99 \(milliseconds(sync))",
        note: GoalNotes.commitLatency
      )
    )
    let markers = number(probe, "month_busy_days_ms")
    let modelMarkers = number(loadJSON("\(raw)/model-probe.json"), "month_busy_days_ms")
    goals.append(
      Goal(
        text: "Month panel markers, 31 days at \(count(largest)), under 5 ms and off the key path",
        met: markers.map { plain in plain < 5 && (modelMarkers.map { $0 < 5 } ?? true) },
        measured: "\(milliseconds(markers)) (the calendar model: \(milliseconds(modelMarkers))); refreshed after "
          + "the windows a commit concerns (`ObservationPriority.summary`)",
        note: "One EXISTS probe of the start index a day, series expanded only for the days no row marked."
      )
    )
    let calendars = loadJSON("\(raw)/tui-calendars.json")
    let calendarsFirst = number(calendars, "first_frame.process_ms")
    goals.append(
      Goal(
        text: "Calendar: first frame at \(count(largest)) under 20 ms with several calendars",
        met: calendarsFirst.map { $0 < 20 },
        measured: "\(milliseconds(calendarsFirst)) with three calendars, one hidden ("
          + "\(Int(number(calendars, "first_frame.day_appointments") ?? 0)) appointments shown); one calendar: "
          + "\(milliseconds(number(tui["\(largest)"], "first_frame.process_ms")))",
        note: GoalNotes.firstFrame
      )
    )
    return goals
  }
}

// MARK: - The command

@MainActor
func reportCommand(_ arguments: Arguments) {
  let raw = arguments.required("raw")
  let jsonPath = arguments.required("json")
  let markdownPath = arguments.required("markdown")

  var environment: [String: String] = [:]
  if let text = try? String(contentsOfFile: "\(raw)/env.txt", encoding: .utf8) {
    for line in text.split(separator: "\n") {
      guard let equals = line.firstIndex(of: "=") else { continue }
      environment[String(line[..<equals])] = String(line[line.index(after: equals)...])
    }
  }
  let sizes = (environment["sizes"] ?? "").split(separator: " ").compactMap { Int($0) }

  var merged: [String: Any] = ["environment": environment, "sizes": sizes]
  var generate: [String: Any] = [:]
  var list: [String: Any] = [:]
  var tui: [String: Any] = [:]
  for size in sizes {
    generate["\(size)"] = loadJSON("\(raw)/generate-\(size).json")
    list["\(size)"] = loadJSON("\(raw)/list-\(size).json")
    tui["\(size)"] = loadJSON("\(raw)/tui-\(size).json")
  }
  merged["generate"] = generate
  merged["list"] = list
  merged["tui"] = tui
  let importAppt = loadJSON("\(raw)/import-appt.json")
  let importCalcurse = loadJSON("\(raw)/import-calcurse.json")
  let importCLI = loadJSON("\(raw)/import-appt-cli.json")
  let importProbe = loadJSON("\(raw)/import-probe.json")
  let importFloor = loadJSON("\(raw)/import-floor.json")
  let stream = loadJSON("\(raw)/stream.json")
  let streamFirstLine = loadJSON("\(raw)/stream-first-line.json")
  merged["list_streaming"] = ["runs": stream ?? [:], "first_line": streamFirstLine ?? [:]]
  // `appt import` ran once per fresh file (appt-import-1...3): the median of those runs.
  let importRuns = (importCLI ?? [:]).keys.sorted().compactMap { number(importCLI, "\($0).median_s") }
  let importWall = median(importRuns)
  let importRSS = (importCLI ?? [:]).keys.compactMap { number(importCLI, "\($0).rss_kib") }.max()
  merged["import"] = [
    "appt_import": [
      "runs_s": importRuns, "median_s": importWall.map { $0 as Any } ?? NSNull(),
      "rss_kib": importRSS.map { $0 as Any } ?? NSNull(), "raw": importCLI ?? [:],
    ],
    "appt_import_in_process": importProbe ?? [:], "sqlite3_storing_floor": importFloor ?? [:],
    "appt_bulk_insert": importAppt ?? [:], "calcurse": importCalcurse ?? [:],
  ]
  let baseline = loadJSON("\(raw)/baseline.json")
  merged["baseline"] = baseline ?? [:]
  let probe = loadJSON("\(raw)/probe.json")
  merged["probe"] = probe ?? [:]
  let postgres = PostgresReport(raw: raw, sqliteTUI: tui, generate: generate)
  if let postgres { merged["postgres"] = postgres.json }
  let model = ModelReport(raw: raw, environment: environment, plainTUI: tui)
  if let model { merged["calendar_model"] = model.json }

  let largest = sizes.max() ?? 0
  let importTimeout = Double(environment["import_timeout"] ?? "300") ?? 300

  // MARK: Goals
  var goals: [Goal] = []
  do {
    let appt = number(list["\(largest)"], "appt.median_s")
    let floor = number(list["\(largest)"], "sqlite3.median_s")
    let calcurse = number(list["\(largest)"], "calcurse.median_s")
    let vsFloor = appt.flatMap { a in floor.map { a / $0 } }
    let vsCalcurse = appt.flatMap { a in calcurse.map { $0 / a } }
    goals.append(
      Goal(
        text: "`appt list` of one week at \(count(largest)) within 3× of the sqlite3 CLI floor",
        met: vsFloor.map { $0 <= 3 },
        measured: "\(seconds(appt)) vs \(seconds(floor)): \(ratio(vsFloor))",
        note: GoalNotes.listVersusSQLite
      )
    )
    goals.append(
      Goal(
        text: "`appt list` of one week at \(count(largest)) at least 100× faster than `calcurse -Q`",
        met: vsCalcurse.map { $0 >= 100 },
        measured: "\(seconds(calcurse)) vs \(seconds(appt)): \(ratio(vsCalcurse))",
        note: GoalNotes.listVersusCalcurse
      )
    )
    let rss = sizes.compactMap { number(list["\($0)"], "appt.rss_max_kib") }
    let worst = rss.max()
    goals.append(
      Goal(
        text: "`appt list` peak RSS under 20 MiB at every size",
        met: worst.map { $0 < 20 * 1_024 },
        measured: "worst \(mebibytes(worst)) ("
          + sizes.map { "\(count($0)): \(mebibytes(number(list["\($0)"], "appt.rss_max_kib")))" }
          .joined(separator: ", ") + ")",
        note: GoalNotes.listRSS
      )
    )
  }
  do {
    let first = number(tui["\(largest)"], "first_frame.process_ms")
    let inProcess = number(tui["\(largest)"], "first_frame.in_process_ms")
    goals.append(
      Goal(
        text: "Calendar first frame at \(count(largest)) under 100 ms",
        met: first.map { $0 < 100 },
        measured:
          "\(milliseconds(first)) from spawning the process (\(milliseconds(inProcess)) from creating the DAO and RenderLoop)",
        note: GoalNotes.firstFrame
      )
    )
    let rss = number(tui["\(largest)"], "first_frame.rss_kib")
    goals.append(
      Goal(
        text: "Calendar at its first frame at \(count(largest)) under 30 MiB",
        met: rss.map { $0 < 30 * 1_024 },
        measured: mebibytes(rss),
        note: GoalNotes.firstFrameRSS
      )
    )
    var worstKey: Double?
    var worstLabel = ""
    for size in sizes {
      for (key, label) in [("key_next_day", "l"), ("key_next_appointment", "j")] {
        if let p99 = number(tui["\(size)"], "\(key).p99_ms"), p99 > (worstKey ?? -1) {
          worstKey = p99
          worstLabel = "`\(label)` at \(count(size))"
        }
      }
    }
    goals.append(
      Goal(
        text: "Key → frame p99 under 5 ms at every size (`l` next day, `j` next appointment)",
        met: worstKey.map { $0 < 5 },
        measured: "worst p99 \(milliseconds(worstKey)) (\(worstLabel))",
        note: GoalNotes.keyLatency
      )
    )
    // The week view keeps to the day view's key -> frame goal.
    let weekWorst = sizes.compactMap { number(tui["\($0)"], "week_next_day.p99_ms") }.max()
    let dayWorst = sizes.compactMap { number(tui["\($0)"], "key_next_day.p99_ms") }.max()
    goals.append(
      Goal(
        text: "Week view: `l` next day p99 within the day view's goal (under 5 ms) at every size",
        met: weekWorst.map { $0 < 5 },
        measured: "worst p99 \(milliseconds(weekWorst)) (day view's `l`: \(milliseconds(dayWorst)))",
        note:
          "A press inside the week only re-selects; every seventh moves to the next week, which is shown from what was read ahead (with its index made when it came) and then observed: what is left is drawing seven columns of a busy week."
      )
    )
    let commit = number(tui["\(largest)"], "commit_to_frame.p99_ms")
    let commitWorst = sizes.compactMap { number(tui["\($0)"], "commit_to_frame.p99_ms") }.max()
    goals.append(
      Goal(
        text: "Commit → frame p99 under 5 ms (at \(count(largest)); durable commit included)",
        met: commit.map { $0 < 5 },
        measured: "p99 \(milliseconds(commit)) at \(count(largest)); worst size \(milliseconds(commitWorst))",
        note: GoalNotes.commitLatency
      )
    )
    let external = sizes.compactMap { number(tui["\($0)"], "external_commit_to_frame.p99_ms") }.max()
    goals.append(
      Goal(
        text: "Another process's commit → frame p99 under 1 s",
        met: external.map { $0 < 1_000 },
        measured: "worst p99 \(milliseconds(external)) (polling every 250 ms)",
        note: GoalNotes.externalCommit
      )
    )
  }
  do {
    let calcurseWall = number(importCalcurse, "calcurse.median_s")
    let timedOut = (value(importCalcurse, "calcurse.statuses") as? [NSNumber])?.first?.intValue == 124
    let calcurseText = timedOut ? "> \(Int(importTimeout)) s" : seconds(calcurseWall)
    goals.append(
      Goal(
        text: "Import of 100k shuffled .ics under 1 s (calcurse: \(calcurseText) in this run)",
        met: importWall.map { $0 < 1 },
        measured: "`appt import` \(seconds(importWall)) (in process: parsing "
          + "\(milliseconds(number(importProbe, "parse_ms"))), storing \(milliseconds(number(importProbe, "store_ms")))"
          + "; the sqlite3 CLI alone inserts the same rows into appt's schema in "
          + "\(milliseconds(number(importFloor, "insert_s").map { $0 * 1_000 })))",
        note: GoalNotes.importTime
      )
    )
  }
  merged["goals"] = goals.map { goal -> [String: Any] in
    ["goal": goal.text, "met": goal.met.map { $0 as Any } ?? NSNull(), "measured": goal.measured]
  }
  let speedGoals = SpeedGoals(
    raw: raw,
    largest: largest,
    sizes: sizes,
    list: list,
    tui: tui,
    baseline: baseline,
    probe: probe,
    importWall: importWall,
    importRSS: importRSS
  ).goals
  merged["speed_goals"] = speedGoals.map { goal -> [String: Any] in
    ["goal": goal.text, "met": goal.met.map { $0 as Any } ?? NSNull(), "measured": goal.measured]
  }

  // MARK: Markdown
  var md: [String] = []
  func line(_ text: String = "") { md.append(text) }
  let env = { (key: String) in environment[key] ?? "n/a" }

  line("# Benchmarks")
  line()
  line("Written by `make bench` (`Benchmarks/run.sh`); do not edit by hand, rerun it. Raw numbers:")
  line("`Benchmarks/results/latest.json`. The goals and their verdicts are at the end.")
  line()
  line("| | |")
  line("|---|---|")
  line("| Date | \(env("date")) |")
  line("| Commit | `\(env("commit"))` |")
  line(
    "| Machine | \(env("cpu")), \(env("nproc")) cores (`nproc`), \(env("memory")) RAM, \(env("os")), kernel \(env("kernel")) |"
  )
  line("| Tools | \(env("swift")); appt \(env("appt")); sqlite3 \(env("sqlite3")); calcurse \(env("calcurse")) |")
  line("| run.sh took | \(env("elapsed")) (building, generating the datasets, every measurement) |")
  line("| Load average (1, 5, 15 min) | \(env("load")) |")
  line()
  line("## How it is measured")
  line()
  line("- **Datasets**: \(sizes.map(count).joined(separator: ", ")) appointments over three years (2025-2027),")
  line("  30-90 min, starting on quarter hours 07:00-19:30, weekdays four times as busy as weekends,")
  line("  realistic titles, a quarter with a note, 3% cancelled, 1% series (weekly ×4-26, daily ×3-10,")
  line("  monthly ×3-12); generated in random order of time by `appt-bench generate` from a fixed seed")
  line("  through `DatabaseService.save(all:)` (50k per transaction). calcurse gets the same scheduled")
  line("  appointments as an `apts` file (sorted, as calcurse saves it; a series as `{1W -> last day}`).")
  line("- Everything runs with `TZ=UTC`, warm page cache (one untimed warm-up run per command), stdout to")
  line("  a file. Whole-process wall time is CLOCK_MONOTONIC around `posix_spawnp` + `wait4`, commands")
  line("  round-robin, the figure is the median of the runs. Peak RSS comes from GNU time (`%M`) in one")
  line("  extra run per command (a child of a big process would inherit its high-water mark); the")
  line("  headless calendar reads its own `VmHWM`. The machine is shared: see the load average above.")
  line("- `list`: the week from \(env("list_from")) (7 days, \(env("list_from_weekday"))).")
  line("  sqlite3 floor: the sqlite3 CLI running appt's own two window queries (one-offs through the")
  line("  window index, series through their partial index; same bounds, same order) on the same file.")
  line("- Headless calendar: `appt-bench tui` runs the real `RenderLoop` drawing into a `HeadlessTerminal`")
  line("  (as the tests' Pilot does), clock fixed on \(env("tui_today")) (a Wednesday) 12:00 UTC. A latency")
  line("  ends at the frame that shows the result, timestamped inside `Terminal.draw`; `settle()` is")
  line("  timed too (in the JSON). First frame: a fresh process per run, from `posix_spawn` to the first")
  line("  frame listing the day's appointments, median of \(Int(number(tui["\(largest)"], "first_frame.runs") ?? 0)).")
  line("  `l`: next day, 1,000 times forward through the dataset, each press after the previous one's")
  line("  `settle()`: the calendar has then read the days either side of the one on screen (it reads")
  line("  ahead once a window has loaded), as it has between the keys of a user, so a press shows the")
  line("  day read ahead; the time until `settle()` returns, reading ahead included, is in the JSON and")
  line("  below the table. `j`: next appointment 1,000 times")
  line("  (`k` back up at the end of a short day). Commit: the calendar's DAO inserts then deletes an")
  line("  appointment of the selected day (durable `synchronous=FULL` commits), until the frame shows")
  line("  it. Another process: a child process with its own connection commits, and the latency runs from")
  line("  its COMMIT to the frame (both clocks are CLOCK_MONOTONIC), pauses seeded at random 0-250 ms.")
  line()

  line("## 1. `list` one week: appt vs the sqlite3 floor vs calcurse")
  line()
  line(
    "| appointments | rows | appt | sqlite3 CLI | calcurse -Q | appt / sqlite3 | calcurse / appt | runs (appt, sqlite3, calcurse) |"
  )
  line("|---|---|---|---|---|---|---|---|")
  for size in sizes {
    let entry = list["\(size)"]
    let appt = number(entry, "appt.median_s")
    let floor = number(entry, "sqlite3.median_s")
    let calcurse = number(entry, "calcurse.median_s")
    let rows = Int(number(entry, "appt.stdout_lines") ?? 0)
    let runs = ["appt", "sqlite3", "calcurse"].map { "\(Int(number(entry, "\($0).runs") ?? 0))" }.joined(
      separator: ", "
    )
    line(
      "| \(count(size)) | \(rows) | \(seconds(appt)) | \(seconds(floor)) | \(seconds(calcurse)) | "
        + "\(ratio(appt.flatMap { a in floor.map { a / $0 } })) | \(ratio(appt.flatMap { a in calcurse.map { $0 / a } })) | \(runs) |"
    )
  }
  line()
  var printed: [String: String] = [:]
  for tool in ["appt", "sqlite3"] {
    printed[tool] = sizes.map { "\(Int(number(list["\($0)"], "\(tool).stdout_lines") ?? 0))" }.joined(separator: " / ")
  }
  line("Rows: appt prints \(printed["appt"] ?? "") lines and calcurse the same number of appointments at")
  line(
    "\(sizes.map(count).joined(separator: " / ")) (run.sh stops if they differ); the sqlite3 CLI prints \(printed["sqlite3"] ?? "") rows, a series"
  )
  line("once (appt and calcurse expand it into its occurrences in the week).")
  line()
  if let baseline {
    line("### Where `list`'s time and memory go")
    line()
    line(
      "Same runner, at \(count(largest)) unless said otherwise; each a median of \(Int(number(baseline, "appt-version.runs") ?? 0)) runs."
    )
    line()
    line("| command | wall | peak RSS |")
    line("|---|---|---|")
    let rows: [(String, String)] = [
      ("true", "`/bin/true` (spawning any process)"),
      ("sqlite3-version", "`sqlite3 -version`"),
      ("appt-version", "`appt --version` (Swift runtime + Foundation loaded, no database)"),
      ("appt-help", "`appt help` (+ the command parser, no database)"),
      ("appt-empty-week", "`appt list` of an empty week at \(count(largest)) (+ opening the file, one query)"),
      ("appt-week", "`appt list` of the week at \(count(largest))"),
      ("sqlite3-week", "the sqlite3 CLI, same query, same file"),
      ("sqlite3-minimal-week", "the sqlite3 CLI, the week from the minimal table (start, end, title)"),
      ("sqlite3-three-columns", "the sqlite3 CLI, the minimal query's three columns from appt's file"),
    ]
    for (key, label) in rows where value(baseline, key) != nil {
      line(
        "| \(label) | \(seconds(number(baseline, "\(key).median_s"))) | \(mebibytes(number(baseline, "\(key).rss_kib"))) |"
      )
    }
    line()
    let order = loadJSON("\(raw)/link-order.json")
    if let listed = number(order, "listed"), let absent = number(order, "absent") {
      let stale = absent > 0 ? " (many: a stale list, `make link-order` writes it anew)" : ""
      line(
        "The release link's order (Resources/link-order.txt, Package.swift) names \(Int(listed)) functions; "
          + "\(Int(absent)) of them are not in this binary\(stale)."
      )
      line()
    }
  }

  line("## 2. Import of 100k appointments, shuffled")
  line()
  line("| what | wall | peak RSS |")
  line("|---|---|---|")
  let calcurseStatus = (value(importCalcurse, "calcurse.statuses") as? [NSNumber])?.first?.intValue
  let calcurseImport =
    calcurseStatus == 124
    ? "> \(Int(importTimeout)) s (stopped by `timeout`)" : seconds(number(importCalcurse, "calcurse.median_s"))
  line(
    "| `calcurse -i` of the shuffled 100k .ics (one run) | \(calcurseImport) | \(mebibytes(number(importCalcurse, "calcurse.rss_kib"))) |"
  )
  let importStatuses = (importCLI ?? [:]).keys.compactMap {
    (value(importCLI, "\($0).statuses") as? [NSNumber])?.first?.intValue
  }
  let importFailed = importStatuses.contains { $0 != 0 }
  line(
    "| `appt import` of the same .ics into a fresh file (median of \(importRuns.count))"
      + "\(importFailed ? " **(a run failed)**" : "") | \(seconds(importWall)) | \(mebibytes(importRSS)) |"
  )
  line("| … in process: reading the file | \(milliseconds(number(importProbe, "read_ms"))) | |")
  line("| … in process: parsing it (`ICalendar.read`) | \(milliseconds(number(importProbe, "parse_ms"))) | |")
  line(
    "| … in process: storing it (`AppointmentDAO.importAppointments`, one transaction) | "
      + "\(milliseconds(number(importProbe, "store_ms"))) | |"
  )
  line(
    "| storing floor: the sqlite3 CLI inserting the same \(Int(number(importFloor, "rows") ?? 0)) rows into appt's schema "
      + "(shuffled, at appt's rowids, indexes built after as appt does, one durable transaction) | \(milliseconds(number(importFloor, "insert_s").map { $0 * 1_000 })) | |"
  )
  line(
    "| for comparison: `DatabaseService.save(all:)` of 100k generated appointments, one transaction "
      + "(median of \(Int(number(importAppt, "runs") ?? 0))) | \(seconds(number(importAppt, "insert_seconds"))) | "
      + "\(mebibytes(number(importAppt, "rss_kib"))) |"
  )
  line()
  line("The .ics is the 100k dataset's, written by `appt-bench generate --ics` in generation order (random")
  line("in time), floating local times, RRULE for the series, DESCRIPTION for notes, STATUS:CANCELLED.")
  line("calcurse sorts each event into a linked list as it reads it, which is quadratic for shuffled")
  line("input. `appt < script` of 100k `add` lines is a different test (each line its own durable commit).")
  line()

  line("## 3. Headless calendar: first frame and latencies")
  line()
  line(
    "| appointments | day shown | first frame (process) | all of the first screen (month panel too) | first frame (in process) | `l` next day p50 / p99 | `j` next appt p50 / p99 | commit → frame p50 / p99 | other process's commit → frame p50 / p99 |"
  )
  line("|---|---|---|---|---|---|---|---|---|")
  for size in sizes {
    let entry = tui["\(size)"]
    func pair(_ key: String) -> String {
      "\(milliseconds(number(entry, "\(key).p50_ms"))) / \(milliseconds(number(entry, "\(key).p99_ms")))"
    }
    line(
      "| \(count(size)) | \(Int(number(entry, "first_frame.day_appointments") ?? 0)) appts | "
        + "\(milliseconds(number(entry, "first_frame.process_ms"))) | \(milliseconds(number(entry, "first_frame.settled_ms"))) | "
        + "\(milliseconds(number(entry, "first_frame.in_process_ms"))) | "
        + "\(pair("key_next_day")) | \(pair("key_next_appointment")) | \(pair("commit_to_frame")) | \(pair("external_commit_to_frame")) |"
    )
  }
  line()
  line(
    "Keys: \(Int(number(tui["\(largest)"], "key_next_day.count") ?? 0)) each; commits: \(Int(number(tui["\(largest)"], "commit_to_frame.count") ?? 0)) (half inserts, half deletes);"
  )
  line(
    "other process: \(Int(number(tui["\(largest)"], "external_commit_to_frame.count") ?? 0)) commits. The commit column includes the durable commit itself"
  )
  line(
    "(the DAO call alone: p50 / p99 "
      + sizes.map { size in
        "\(count(size)) \(milliseconds(number(tui["\(size)"], "commit_to_frame.commit_call.p50_ms"))) / \(milliseconds(number(tui["\(size)"], "commit_to_frame.commit_call.p99_ms")))"
      }.joined(separator: ", ") + ")."
  )
  line(
    "Week view (`w`, seven days observed at once): `l` next day p50 / p99 "
      + sizes.map { size in
        "\(count(size)) \(milliseconds(number(tui["\(size)"], "week_next_day.p50_ms"))) / \(milliseconds(number(tui["\(size)"], "week_next_day.p99_ms")))"
      }.joined(separator: ", ") + " (the day view's `l` is in the table); switching to it: "
      + sizes.map { size in "\(count(size)) \(milliseconds(number(tui["\(size)"], "week_next_day.toggle_ms")))" }
      .joined(separator: ", ")
      + ". Of those presses, the six in seven inside the week on screen (drawing only) p50 / p99 "
      + sizes.map { size in
        "\(count(size)) \(milliseconds(number(tui["\(size)"], "week_next_day.inside_week.p50_ms"))) / \(milliseconds(number(tui["\(size)"], "week_next_day.inside_week.p99_ms")))"
      }.joined(separator: ", ") + "; into the next week (read ahead: shown from what was read, then observed) "
      + sizes.map { size in
        "\(count(size)) \(milliseconds(number(tui["\(size)"], "week_next_day.into_next_week.p50_ms"))) / \(milliseconds(number(tui["\(size)"], "week_next_day.into_next_week.p99_ms")))"
      }.joined(separator: ", ") + "."
  )
  line(
    "Until `settle()` returns (its own polling included), p99: `l` "
      + sizes.map { size in
        "\(count(size)) \(milliseconds(number(tui["\(size)"], "key_next_day.settle.p99_ms")))"
      }.joined(separator: ", ") + "; `j` "
      + sizes.map { size in
        "\(count(size)) \(milliseconds(number(tui["\(size)"], "key_next_appointment.settle.p99_ms")))"
      }.joined(separator: ", ") + "."
  )
  line()
  line("calcurse for reference (an earlier measurement on the same kind of machine, not rerun here): TUI ready")
  line("0.11 / 0.74 / 6.9 s, next-day redraw 16 / 93 / 870 ms at 10k / 100k / 1M.")
  line()

  if let probe {
    line("### Where the calendar's time goes at \(count(largest))")
    line()
    line(
      "`appt-bench probe`: in process, an open connection, each step over \(Int(number(probe, "repeat") ?? 0)) consecutive days from"
    )
    line("\(env("tui_today")) (a new day each time, as `l` does; the OS cache is warm, SQLite's 2 MB cache is not);")
    line("medians. A day holds about \(Int(number(probe, "rows_median") ?? 0)) appointments at this size.")
    line()
    line("| step | time |")
    line("|---|---|")
    let steps: [(String, String)] = [
      ("count_only_ms", "SQLite counts the day's rows in the start index (no row read)"),
      ("step_only_ms", "SQLite steps the calendar's window query (each row read from the table, sorted)"),
      ("read_columns_ms", "… and Swift reads the eight columns (Strings made)"),
      ("parse_ids_ms", "… and parses each id (`AppointmentID(string:)`, Foundation's UUID parser)"),
      ("fetch_appointments_ms", "the whole `AppointmentDAO.appointments(matching:)` (`Appointment` values built)"),
      ("compare_snapshots_ms", "an observer comparing two snapshots of the day (`==`)"),
      ("diff_snapshots_ms", "`ChangeSet.diff` between two snapshots of the day"),
      ("month_busy_days_ms", "the month panel's markers: busy days of 31 days (`observeBusyDays`, first snapshot)"),
      ("week_fetch_ms", "`list`'s week (\(Int(number(probe, "week_rows") ?? 0)) rows): `appointments(matching:)`"),
      ("week_singles_ms", "… of which the one-offs: read and decoded"),
      (
        "week_series_rows_ms",
        "… the series rows: \(Int(number(probe, "week_series_scanned") ?? 0)) series start before the week's end, "
          + "\(Int(number(probe, "week_series_reaching") ?? 0)) reach it, "
          + "\(Int(number(probe, "week_series_read") ?? 0)) listed in its weeks (`series_week`): read and decoded"
      ),
      (
        "week_series_expand_ms",
        "… expanding those into their \(Int(number(probe, "week_series_occurrences") ?? 0)) occurrences "
          + "(`Appointment.occurrences(in:)`, Foundation `Calendar` arithmetic)"
      ),
      ("week_format_ms", "`list`'s week: `AppointmentFormatter.textLine` for each row, joined"),
    ]
    for (key, label) in steps where value(probe, key) != nil {
      line("| \(label) | \(milliseconds(number(probe, key))) |")
    }
    line()
  }

  line("## 4. Peak RSS")
  line()
  line(
    "| appointments | appt list | sqlite3 CLI | calcurse -Q | calendar at first frame | calendar after the whole headless run |"
  )
  line("|---|---|---|---|---|---|")
  for size in sizes {
    line(
      "| \(count(size)) | \(mebibytes(number(list["\(size)"], "appt.rss_max_kib"))) | \(mebibytes(number(list["\(size)"], "sqlite3.rss_max_kib"))) | "
        + "\(mebibytes(number(list["\(size)"], "calcurse.rss_max_kib"))) | \(mebibytes(number(tui["\(size)"], "first_frame.rss_kib"))) | "
        + "\(mebibytes(number(tui["\(size)"], "rss_kib"))) |"
    )
  }
  line()
  line("The last column is the benchmark process itself (its bookkeeping included) after 2,000 keys and")
  line("the commits; the first-frame column is a process that only opened the calendar.")
  line()
  if let stream {
    line("### `list` streaming: an endless daily series")
    line()
    line("One daily series from 1970-01-01 (`add --repeat daily`, no end), listed to the end of a range;")
    line("each line is written as its chunk of occurrences is expanded, so memory stays flat in the lines.")
    line()
    line("| what | lines | wall | lines per second | peak RSS |")
    line("|---|---|---|---|---|")
    for (key, label) in [
      ("stream-text", "`list --from 1970-01-01 --to 9999-12-31`"),
      ("stream-json", "`--json list --from 1970-01-01 --to 2969-12-31`"),
      ("stream-10k", "`list --from 1970-01-01 --to 1997-05-18` (median of 3)"),
    ] {
      let lines = number(stream, "\(key).stdout_lines")
      let wall = number(stream, "\(key).median_s")
      let rate = lines.flatMap { lines in wall.map { lines / $0 } }
      line(
        "| \(label) | \(lines.map { String(Int($0)) } ?? "n/a") | \(seconds(wall)) | "
          + "\(rate.map { String(format: "%.2fM", $0 / 1e6) } ?? "n/a") | \(mebibytes(number(stream, "\(key).rss_kib"))) |"
      )
    }
    line()
    line(
      "First line, from starting the process to reading it on a pipe (median of 5): "
        + "\(milliseconds(number(streamFirstLine, "first_line_ms"))). The speed goals: first line < 50 ms, "
        + "RSS < 30 MiB, > 1M lines/s."
    )
  }
  line()

  line("## 5. Datasets")
  line()
  line("| appointments | file | generate (total) | of which inserts | inserts per second |")
  line("|---|---|---|---|---|")
  for size in sizes {
    let entry = generate["\(size)"]
    let insert = number(entry, "insert_seconds")
    line(
      "| \(count(size)) | \(mebibytes((number(entry, "db_bytes") ?? 0) / 1_024)) | \(seconds(number(entry, "seconds"))) | \(seconds(insert)) | "
        + "\(insert.map { String(format: "%.0fk", Double(size) / $0 / 1_000) } ?? "n/a") |"
    )
  }
  line()

  if let postgres {
    md += postgres.markdown
    line()
  }

  if let model {
    md += model.markdown
    line()
  }

  for (title, list) in [("## Goals", goals), ("## Speed goals", speedGoals)] {
    line(title)
    line()
    for goal in list {
      let verdict = goal.met.map { $0 ? "**met**" : "**not met**" } ?? "**not measurable yet**"
      line("- \(verdict): \(goal.text). Measured: \(goal.measured).")
      if goal.met == false, !goal.note.isEmpty { line("  Why: \(goal.note)") }
      if goal.met == nil, !goal.note.isEmpty { line("  \(goal.note)") }
    }
    line()
  }

  do {
    try jsonText(merged, pretty: true).appending("\n").write(toFile: jsonPath, atomically: true, encoding: .utf8)
    try md.joined(separator: "\n").appending("\n").write(toFile: markdownPath, atomically: true, encoding: .utf8)
  } catch {
    fail("cannot write the report: \(error)")
  }
  writeError("wrote \(jsonPath) and \(markdownPath)\n")
}

// MARK: - PostgreSQL (Benchmarks/postgres.sh)

/// The PostgreSQL section: its raw files (`pg-*.json`, `writes-*.json`, `pg-env.txt`) merged,
/// and its Markdown. nil when the run had no PostgreSQL part.
private struct PostgresReport {
  let json: [String: Any]
  let markdown: [String]

  init?(raw: String, sqliteTUI: [String: Any], generate: [String: Any]) {
    guard let text = try? String(contentsOfFile: "\(raw)/pg-env.txt", encoding: .utf8) else { return nil }
    var environment: [String: String] = [:]
    for line in text.split(separator: "\n") {
      guard let equals = line.firstIndex(of: "=") else { continue }
      environment[String(line[..<equals])] = String(line[line.index(after: equals)...])
    }
    let sizes = (environment["pg_sizes"] ?? "").split(separator: " ").compactMap { Int($0) }.filter {
      FileManager.default.fileExists(atPath: "\(raw)/pg-list-\($0).json")
    }
    guard !sizes.isEmpty else { return nil }
    var perSize: [String: Any] = [:]
    for size in sizes {
      var entry: [String: Any] = [:]
      for (key, file) in [
        ("load", "pg-load"), ("database", "pg-db"), ("list", "pg-list"), ("tui", "pg-tui"),
        ("writes_sqlite", "writes-sqlite"), ("writes_postgres", "writes-pg"),
        ("writes_postgres_rollbacks", "writes-pg-rollbacks"), ("writes_postgres_fsync_off", "writes-pg-nofsync"),
        ("writes_sqlite_one_writer", "writes-sqlite-serial"), ("writes_postgres_one_writer", "writes-pg-serial"),
      ] {
        if let object = loadJSON("\(raw)/\(file)-\(size).json") { entry[key] = object }
      }
      // p95 of each list command's runs (nearest rank), next to exec-time's median.
      if let list = entry["list"] as? [String: Any] {
        var p95: [String: Any] = [:]
        for (name, value) in list {
          let walls = ((value as? [String: Any])?["wall_s"] as? [NSNumber])?.map(\.doubleValue) ?? []
          if let p = percentile(walls, 95) { p95[name] = rounded(p, places: 5) }
        }
        entry["list_p95_s"] = p95
      }
      perSize["\(size)"] = entry
    }
    json = ["environment": environment, "sizes": sizes, "results": perSize]

    var md: [String] = []
    func line(_ text: String = "") { md.append(text) }
    let env = { (key: String) in environment[key] ?? "n/a" }
    func entry(_ size: Int) -> [String: Any] { perSize["\(size)"] as? [String: Any] ?? [:] }
    let writers = env("writers")
    let adds = env("adds")

    line("## 6. PostgreSQL")
    line()
    line("`Benchmarks/postgres.sh`, in the same run, against a throwaway server (`Tests/pg/with-server.sh`:")
    line("PostgreSQL \(env("server")), on this machine, TCP to 127.0.0.1 with SCRAM authentication, `shared_buffers`")
    line(
      "\(env("shared_buffers")); the benchmark sets `fsync` = \(env("fsync")), `full_page_writes` = \(env("full_page_writes")),"
    )
    line(
      "`synchronous_commit` = \(env("synchronous_commit")), so a commit waits for the disk as SQLite's `synchronous=FULL` does)."
    )
    line("Load average (1, 5, 15 min) \(env("load_start")) when this part started, \(env("load_end")) when it ended:")
    line("the server, appt and the measuring process share this machine's cores with whatever else runs, so")
    line("these figures say how the two engines compare here, side by side in one run, not what a")
    line("dedicated database server would do (nor a server across a network: every round trip here is local).")
    line()
    line("Each size's dataset is the SQLite file's, copied row by row in generation order into a fresh")
    line("database through appt's own schema and DAO (`appt-bench pg-load`: `DatabaseService.save(all:)`,")
    line("50k per transaction), then `VACUUM (ANALYZE)` (what autovacuum would do shortly after such a load).")
    line("appt connects afresh for every `list` (authentication, the schema check and `LISTEN` included).")
    line()
    line(
      "| appointments | load into PostgreSQL (inserts) | rows per second | SQLite's inserts of the same rows | VACUUM ANALYZE | PostgreSQL database | SQLite file |"
    )
    line("|---|---|---|---|---|---|---|")
    for size in sizes {
      let load = entry(size)["load"]
      let insert = number(load, "insert_seconds")
      line(
        "| \(count(size)) | \(seconds(insert)) | \(insert.map { String(format: "%.0fk", Double(size) / $0 / 1_000) } ?? "n/a") | "
          + "\(seconds(number(generate["\(size)"], "insert_seconds"))) | "
          + "\(milliseconds(number(entry(size)["database"], "vacuum_analyze_ms"))) | "
          + "\(mebibytes(number(entry(size)["database"], "database_bytes").map { $0 / 1_024 })) | "
          + "\(mebibytes(number(generate["\(size)"], "db_bytes").map { $0 / 1_024 })) |"
      )
    }
    line()

    line("### `list` one week")
    line()
    line("The same week as section 1, the four commands round-robin, \(env("list_runs")) runs each after a warm-up;")
    line("median / p95. The psql floor runs the same two window queries as the sqlite3 floor (`psql -X -A -t -f`,")
    line("a fresh connection each run, the same URL); run.sh stops if appt's output differs between the")
    line("engines, or psql's rows from sqlite3's.")
    line()
    line(
      "| appointments | rows | appt, SQLite | appt, PostgreSQL | sqlite3 CLI | psql | PostgreSQL / SQLite (appt) | appt / psql | peak RSS appt (SQLite, PostgreSQL) |"
    )
    line("|---|---|---|---|---|---|---|---|---|")
    for size in sizes {
      let list = entry(size)["list"]
      let p95 = entry(size)["list_p95_s"]
      func pair(_ name: String) -> String {
        "\(seconds(number(list, "\(name).median_s"))) / \(seconds(number(p95, name)))"
      }
      let sqlite = number(list, "appt-sqlite.median_s")
      let postgres = number(list, "appt-postgres.median_s")
      let psql = number(list, "psql.median_s")
      line(
        "| \(count(size)) | \(Int(number(list, "appt-postgres.stdout_lines") ?? 0)) | \(pair("appt-sqlite")) | \(pair("appt-postgres")) | "
          + "\(pair("sqlite3")) | \(pair("psql")) | \(ratio(postgres.flatMap { p in sqlite.map { p / $0 } })) | "
          + "\(ratio(postgres.flatMap { p in psql.map { p / $0 } })) | "
          + "\(mebibytes(number(list, "appt-sqlite.rss_kib"))), \(mebibytes(number(list, "appt-postgres.rss_kib"))) |"
      )
    }
    if let first = sizes.first, let connect = number(entry(first)["list"], "psql-connect.median_s") {
      line()
      line(
        "A fresh connection alone (`psql -c 'SELECT 1'`, TCP and SCRAM, same runs at \(count(first))): "
          + "\(seconds(connect)) (p95 \(seconds(number(entry(first)["list_p95_s"], "psql-connect")))); "
          + "`sqlite3 -version` and `appt --version` are in section 1."
      )
    }
    line()

    line("### Headless calendar")
    line()
    line("As section 3 (same clock, same keys, same counts), on PostgreSQL; the SQLite rows are section 3's")
    line("figures of this run. Commit: the calendar's own DAO inserts then deletes, durable on both engines.")
    line("Another process: a child with its own connection commits; SQLite's calendar notices by polling")
    line("`PRAGMA data_version`, PostgreSQL's reads the NOTIFY that the schema's trigger sends at commit, both")
    line("at the poll interval shown (the defaults), so the p50 is about half of it plus a re-query.")
    line()
    line(
      "| appointments | engine | first frame (process) | `l` next day p50 / p99 | `j` next appt p50 / p99 | commit → frame p50 / p99 | the DAO's commit call p50 / p99 | other process's commit → frame p50 / p99 | poll interval |"
    )
    line("|---|---|---|---|---|---|---|---|---|")
    for size in sizes {
      for (engine, tui) in [("SQLite", sqliteTUI["\(size)"]), ("PostgreSQL", entry(size)["tui"])] {
        func pair(_ key: String) -> String {
          "\(milliseconds(number(tui, "\(key).p50_ms"))) / \(milliseconds(number(tui, "\(key).p99_ms")))"
        }
        line(
          "| \(count(size)) | \(engine) | \(milliseconds(number(tui, "first_frame.process_ms"))) | \(pair("key_next_day")) | "
            + "\(pair("key_next_appointment")) | \(pair("commit_to_frame")) | \(pair("commit_to_frame.commit_call")) | "
            + "\(pair("external_commit_to_frame")) | \(milliseconds(number(tui, "external_commit_to_frame.poll_interval_ms"))) |"
        )
      }
    }
    line()

    line("### Concurrent writers")
    line()
    line("\(writers) processes, each with its own `AppointmentDAO` (its own connection), add \(adds) one-off")
    line("appointments each at random times of the three years, one commit per add (`saveAppointment`), all")
    line("started together once every writer has connected; adds per second from that start to the last")
    line("commit. SQLite: a copy of the dataset's file (WAL, `synchronous=FULL`, writers queue on its lock")
    line("retrying after 0.1 ms, backing off to 5 ms); PostgreSQL: the loaded database (SERIALIZABLE,")
    line("retried on a serialization failure: the rollbacks column, from `pg_stat_database`). \"One writer")
    line("alone\": a single process")
    let total = Int(writers).flatMap { w in Int(adds).map { w * $0 } }
    line("making all \(total.map(String.init) ?? "the") adds in a row, the same")
    line("durability: what one connection's commits cost without contention. The last row is the server as")
    line("the tests start it (`fsync` off: a commit does not wait for the disk), for scale only.")
    line()
    line("| appointments | engine | adds per second | burst | one add p50 / p99 / max | rollbacks |")
    line("|---|---|---|---|---|---|")
    for size in sizes {
      let rows: [(String, String)] = [
        ("SQLite, `synchronous=FULL`", "writes_sqlite"),
        ("PostgreSQL, `fsync` \(env("fsync"))", "writes_postgres"),
        ("SQLite, one writer alone", "writes_sqlite_one_writer"),
        ("PostgreSQL, one writer alone", "writes_postgres_one_writer"),
        ("PostgreSQL, `fsync` off", "writes_postgres_fsync_off"),
      ]
      for (label, key) in rows {
        guard let writes = entry(size)[key] else { continue }
        let rollbacks =
          key == "writes_postgres"
          ? number(entry(size)["writes_postgres_rollbacks"], "xact_rollback").map { "\(Int($0))" } ?? "n/a" : ""
        line(
          "| \(count(size)) | \(label) | \(number(writes, "adds_per_second").map { String(format: "%.0f", $0) } ?? "n/a") | "
            + "\(seconds(number(writes, "seconds"))) | \(milliseconds(number(writes, "add.p50_ms"))) / "
            + "\(milliseconds(number(writes, "add.p99_ms"))) / \(milliseconds(number(writes, "add.max_ms"))) | \(rollbacks) |"
        )
      }
    }
    markdown = md
  }
}

// MARK: - The calendar model

/// The "Calendar model" section: `model-generate.json`, `model-list.json` (the week's `list`
/// on the model and on the plain dataset of the same size, round-robin, and the sqlite3 floor
/// on the model) and `model-tui.json`, beside the plain dataset's `tui-N.json` of the same run,
/// with the verdict on its bar. nil when the run had no calendar model part.
private struct ModelReport {
  /// The previous report's figures at 1M (BENCHMARKS.md of 2026-11-29, commit 20c2043,
  /// before the calendar model): "today's figures".
  static let previousList = 0.0622
  static let previousFirstFrame = 19.8
  static let previousNextDayP99 = 32.5

  let json: [String: Any]
  let markdown: [String]

  init?(raw: String, environment: [String: String], plainTUI: [String: Any]) {
    guard let size = Int(environment["model_size"] ?? ""), let list = loadJSON("\(raw)/model-list.json") else {
      return nil
    }
    let generate = loadJSON("\(raw)/model-generate.json")
    let tui = loadJSON("\(raw)/model-tui.json")
    let plain = plainTUI["\(size)"]
    let probe = loadJSON("\(raw)/model-probe.json")
    // Section 6's probe ran on the largest plain dataset: the same size only when it is this one.
    let sizes = (environment["sizes"] ?? "").split(separator: " ").compactMap { Int($0) }
    let plainProbe = sizes.max() == size ? loadJSON("\(raw)/probe.json") : nil
    // `l`'s p99 compares only over the same days (the same number of keys from the same day).
    let sameKeys = number(tui, "key_next_day.count") == number(plain, "key_next_day.count")
    func whole(_ value: Double?) -> String { value.map { String(Int($0)) } ?? "n/a" }

    let listModel = number(list, "appt-model.median_s")
    let listPlain = number(list, "appt-plain.median_s")
    let firstModel = number(tui, "first_frame.process_ms")
    let firstPlain = number(plain, "first_frame.process_ms")
    let nextModel = number(tui, "key_next_day.p99_ms")
    let nextPlain = number(plain, "key_next_day.p99_ms")
    /// Met when `value` is at most each bar (a missing figure: not measured).
    func noSlower(_ value: Double?, _ bars: [Double?]) -> Bool? {
      guard let value else { return nil }
      let known = bars.compactMap { $0 }
      return known.isEmpty ? nil : known.allSatisfy { value <= $0 }
    }
    // The calendar model's bar is "today's figures": the previous report's, measured at 1M. At
    // another size there are none, and the plain dataset of this run stands in. The plain dataset
    // is shown beside in any case: its week and day hold fewer rows (1% series, not 5%).
    let compareToPrevious = size == 1_000_000
    func bar(_ plain: Double?, _ previous: Double) -> [Double?] { compareToPrevious ? [previous] : [plain] }
    /// The model's figure against its bar, the plain dataset's beside it.
    func compared(_ model: String, _ plain: String, _ previous: String) -> String {
      compareToPrevious
        ? "\(model) vs \(previous) in the previous report; the plain dataset of this run: \(plain)"
        : "\(model) vs \(plain) on the plain dataset"
    }
    let checks: [(String, Bool?, String)] = [
      (
        "`list` of the week",
        noSlower(listModel, bar(listPlain, Self.previousList)),
        compared(seconds(listModel), seconds(listPlain), seconds(Self.previousList))
      ),
      (
        "`l` next day p99",
        sameKeys ? noSlower(nextModel, bar(nextPlain, Self.previousNextDayP99)) : nil,
        compared(milliseconds(nextModel), milliseconds(nextPlain), milliseconds(Self.previousNextDayP99))
      ),
      (
        "first frame",
        noSlower(firstModel, bar(firstPlain, Self.previousFirstFrame)),
        compared(milliseconds(firstModel), milliseconds(firstPlain), milliseconds(Self.previousFirstFrame))
      ),
    ]
    let verdict: Bool? = checks.contains { $0.1 == false } ? false : checks.contains { $0.1 == nil } ? nil : true
    json = [
      "size": size, "generate": generate ?? [:], "list": list, "tui": tui ?? [:], "probe": probe ?? [:],
      "previous": [
        "list_median_s": Self.previousList, "first_frame_ms": Self.previousFirstFrame,
        "key_next_day_p99_ms": Self.previousNextDayP99,
      ],
      "goal": [
        "goal": "the calendar model: a week's list and a day's drawing no slower than on the plain dataset",
        "met": verdict.map { $0 as Any } ?? NSNull(),
        "measured": checks.map { "\($0.0): \($0.2)" }.joined(separator: "; "),
      ],
    ]

    var md: [String] = []
    func line(_ text: String = "") { md.append(text) }
    let stats = value(generate, "model") as? [String: Any]
    func stat(_ key: String) -> String { number(stats, key).map { String(Int($0)) } ?? "n/a" }
    line("## 7. Calendar model at \(count(size))")
    line()
    line("The bar: a store of \(count(size)) rows with 5% series carrying overrides and RDATEs lists a week")
    line("and draws a day no slower than today's figures: those of the previous report (at 1M; at another size,")
    line("the plain dataset of this run). The plain dataset of this run (sections 1 and 3) is beside them.")
    line("The dataset (`appt-bench generate --model`, the same seed, through `DatabaseService.save(all:)`): the")
    line("plain dataset's one-offs, 30% with a location; one series per 19 one-offs, all in UTC: weekly on")
    line("two weekdays (BYDAY, COUNT or UNTIL, 4-26 weeks) 40%, monthly on an ordinal weekday (2TU, -1FR;")
    line("×3-12) 20%, yearly ×2-3 10%, daily with UNTIL (3-10 days) 28%, endless (weekly, monthly ordinal,")
    line("yearly) 2%. Half of the series carry 1-3 overrides (rows of their own with the series' UID and")
    line("RECURRENCE-ID: moved by a day or by 1-3 hours; the first also retitled), a third 1-2 RDATEs, a")
    line("tenth an EXDATE.")
    line()
    line(
      "| rows | series | of which endless | overrides | series with RDATEs (RDATEs) | EXDATEs | with a location | file | generate (inserts) |"
    )
    line("|---|---|---|---|---|---|---|---|---|")
    line(
      "| \(Int(number(generate, "count") ?? 0)) | \(stat("series")) (weekly \(stat("series_weekly")), monthly "
        + "\(stat("series_monthly")), yearly \(stat("series_yearly")), daily \(stat("series_daily"))) | \(stat("endless")) | "
        + "\(stat("overrides")) | \(stat("rdate_series")) (\(stat("rdates"))) | \(stat("exdates")) | \(stat("with_location")) | "
        + "\(mebibytes(number(generate, "db_bytes").map { $0 / 1_024 })) | \(seconds(number(generate, "seconds"))) "
        + "(\(seconds(number(generate, "insert_seconds")))) |"
    )
    line()
    line("`list` of the week from \(environment["list_from"] ?? "n/a"): the two files round-robin in one `exec-time`")
    line(
      "(\(Int(number(list, "appt-model.runs") ?? 0)) runs each after a warm-up; median, peak RSS as section 1), and the sqlite3"
    )
    line("floor on the model's file (appt's four window queries: one-offs and overrides, series, and the two")
    line("override lookups). The calendar: `appt-bench tui` on each file, as section 3 (the plain figures are")
    line("section 3's). Previous report: BENCHMARKS.md of 2026-11-29 (commit 20c2043), plain dataset at 1M.")
    line()
    line("| measure | plain dataset | calendar model | model / plain | previous report (plain, 1M) |")
    line("|---|---|---|---|---|")
    func relative(_ model: Double?, _ plain: Double?) -> String {
      guard let model, let plain, plain > 0 else { return "n/a" }
      return String(format: "%.2f×", model / plain)
    }
    let previous = { (text: String) in compareToPrevious ? text : "" }
    let rowsModel = number(list, "appt-model.stdout_lines")
    let rowsPlain = number(list, "appt-plain.stdout_lines")
    line(
      "| `list`: rows printed | \(whole(rowsPlain)) | \(whole(rowsModel)) | \(relative(rowsModel, rowsPlain)) | "
        + "\(previous("6709")) |"
    )
    line(
      "| `list`: wall (median) | \(seconds(listPlain)) | \(seconds(listModel)) | \(relative(listModel, listPlain)) | "
        + "\(previous(seconds(Self.previousList))) |"
    )
    let perRow = { (wall: Double?, rows: Double?) -> Double? in
      guard let wall, let rows, rows > 0 else { return nil }
      return wall * 1e6 / rows
    }
    let perRowPlain = perRow(listPlain, rowsPlain)
    let perRowModel = perRow(listModel, rowsModel)
    line(
      "| `list`: wall per row printed | \(perRowPlain.map { String(format: "%.1f µs", $0) } ?? "n/a") | "
        + "\(perRowModel.map { String(format: "%.1f µs", $0) } ?? "n/a") | \(relative(perRowModel, perRowPlain)) | |"
    )
    let rssPlain = number(list, "appt-plain.rss_max_kib")
    let rssModel = number(list, "appt-model.rss_max_kib")
    line(
      "| `list`: peak RSS | \(mebibytes(rssPlain)) | \(mebibytes(rssModel)) | \(relative(rssModel, rssPlain)) | "
        + "\(previous("28.7 MiB")) |"
    )
    line(
      "| sqlite3 floor, the same queries: wall (rows) | (section 1) | \(seconds(number(list, "sqlite3-model.median_s"))) "
        + "(\(Int(number(list, "sqlite3-model.stdout_lines") ?? 0))) | | |"
    )
    let dayPlain = number(plain, "first_frame.day_appointments")
    let dayModel = number(tui, "first_frame.day_appointments")
    line(
      "| calendar: appointments on \(environment["tui_today"] ?? "the day shown") | \(whole(dayPlain)) | "
        + "\(whole(dayModel)) | \(relative(dayModel, dayPlain)) | \(previous("1222")) |"
    )
    line(
      "| calendar: first frame (process) | \(milliseconds(firstPlain)) | \(milliseconds(firstModel)) | "
        + "\(relative(firstModel, firstPlain)) | \(previous(milliseconds(Self.previousFirstFrame))) |"
    )
    line(
      "| calendar: all of the first screen (month panel too) | \(milliseconds(number(plain, "first_frame.settled_ms"))) | "
        + "\(milliseconds(number(tui, "first_frame.settled_ms"))) | "
        + "\(relative(number(tui, "first_frame.settled_ms"), number(plain, "first_frame.settled_ms"))) | \(previous("65.5 ms")) |"
    )
    for (key, label, previousText) in [
      ("key_next_day.p50_ms", "`l` next day p50", "23.8 ms"), ("key_next_day.p99_ms", "`l` next day p99", "32.5 ms"),
      ("key_next_appointment.p99_ms", "`j` next appointment p99", "0.48 ms"),
      ("commit_to_frame.p99_ms", "commit → frame p99", "12.1 ms"),
    ] {
      line(
        "| calendar: \(label) | \(milliseconds(number(plain, key))) | \(milliseconds(number(tui, key))) | "
          + "\(relative(number(tui, key), number(plain, key))) | \(previous(previousText)) |"
      )
    }
    line(
      "| calendar: peak RSS at the first frame | \(mebibytes(number(plain, "first_frame.rss_kib"))) | "
        + "\(mebibytes(number(tui, "first_frame.rss_kib"))) | "
        + "\(relative(number(tui, "first_frame.rss_kib"), number(plain, "first_frame.rss_kib"))) | \(previous("24.6 MiB")) |"
    )
    if !sameKeys, number(tui, "key_next_day.count") != nil, number(plain, "key_next_day.count") != nil {
      line()
      line(
        "`l` and `j` ran \(Int(number(tui, "key_next_day.count") ?? 0)) keys here and \(Int(number(plain, "key_next_day.count") ?? 0)) on the"
      )
      line("plain dataset (BENCH_MODEL_KEYS): other days, so their p99 are not compared.")
    }
    if let probe {
      line()
      line("Where the time goes (`appt-bench probe`, as section 3's probe, on each file; medians):")
      line()
      line("| step | plain dataset | calendar model |")
      line("|---|---|---|")
      let steps: [(String, String)] = [
        (
          "fetch_appointments_ms",
          "a day's window (`appointments(matching:)`), from \(environment["tui_today"] ?? "the day")"
        ),
        ("month_busy_days_ms", "the month panel's markers (31 days)"),
        ("week_fetch_ms", "`list`'s week: `appointments(matching:)`"),
        ("week_singles_ms", "… the one-offs (and overrides): read and decoded"),
        ("week_series_rows_ms", "… the series listed in the week's `series_week` rows: read and decoded"),
        ("week_series_expand_ms", "… expanding them into their occurrences"),
        ("week_format_ms", "`list`'s week: the text lines"),
      ]
      for (key, label) in steps {
        line("| \(label) | \(milliseconds(number(plainProbe, key))) | \(milliseconds(number(probe, key))) |")
      }
      func counts(_ object: [String: Any]?) -> String {
        guard let object else { return "n/a" }
        return
          "\(Int(number(object, "week_series_scanned") ?? 0)) / \(Int(number(object, "week_series_reaching") ?? 0)) / "
          + "\(Int(number(object, "week_series_read") ?? 0)) / \(Int(number(object, "week_series_occurrences") ?? 0))"
      }
      line(
        "| the week's series: starting before its end / reaching it / listed in its weeks (read) / their occurrences in it | "
          + "\(counts(plainProbe)) | \(counts(probe)) |"
      )
    }
    line()
    let verdictText = verdict.map { $0 ? "**met**" : "**not met**" } ?? "**not measurable in this run**"
    line(
      "Verdict (the calendar model no slower than "
        + (compareToPrevious ? "the previous report" : "the plain dataset of this run") + "): \(verdictText). "
        + checks.map { check in
          "\(check.0) \(check.1.map { $0 ? "met" : "not met" } ?? "n/a") (\(check.2))"
        }.joined(separator: "; ") + "."
    )
    line("The model's week and day hold more rows than the plain dataset's (5% series instead of 1%): the")
    line("per-row line says what each costs. The load average of the run is in the table at the top.")
    markdown = md
  }
}
