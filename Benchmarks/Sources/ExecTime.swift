// `exec-time --spec FILE [--warmup W] [--out-dir DIR] [--rss separate|wrapped]`: whole-process
// wall time (CLOCK_MONOTONIC around posix_spawnp + wait4) and peak RSS of several commands, run
// round-robin so that they share the machine's conditions.
//
// Peak RSS comes from GNU time (`/usr/bin/time -f %M`), not from our own wait4: a child of
// posix_spawn inherits this process's high-water mark (see `peakRSSKiB`), while GNU time is
// small and forks. `separate` (the default) times the runs bare and measures RSS in one extra
// run per command; `wrapped` runs every timed run under GNU time (for long runs, where its
// millisecond does not matter).
//
// The spec has one command per line, tab-separated: NAME, RUNS, then the argv (no shell).
// Each run's stdout goes to DIR/NAME.out (a file, as `cmd > file` would), whose lines and
// bytes are reported so the outputs can be compared.

import Foundation

@MainActor
func execTimeCommand(_ arguments: Arguments) {
  let specPath = arguments.required("spec")
  let warmup = arguments.int("warmup", default: 1)
  let outputDirectory = arguments.string("out-dir") ?? NSTemporaryDirectory()
  let wrapped = arguments.string("rss") == "wrapped"
  guard let spec = try? String(contentsOfFile: specPath, encoding: .utf8) else { fail("cannot read \(specPath)") }

  struct Entry {
    let name: String
    let runs: Int
    let argv: [String]
    var walls: [Double] = []
    var rss: [Int] = []
    var statuses: [Int32] = []
  }
  var entries: [Entry] = spec.split(separator: "\n").compactMap { line in
    let fields = line.split(separator: "\t", omittingEmptySubsequences: false).map(String.init)
    guard fields.count >= 3, let runs = Int(fields[1]) else { return nil }
    return Entry(name: fields[0], runs: runs, argv: Array(fields[2...]))
  }
  guard !entries.isEmpty else { fail("\(specPath) names no command") }

  /// One run; with `measureRSS`, under GNU time, whose report is the last line of its -o file.
  func runOnce(_ entry: Entry, measureRSS: Bool) -> (wall: Double, rss: Int?, status: Int32) {
    let output = "\(outputDirectory)/\(entry.name).out"
    let rssFile = "\(outputDirectory)/\(entry.name).rss"
    let argv = measureRSS ? ["/usr/bin/time", "-f", "%M", "-o", rssFile] + entry.argv : entry.argv
    let started = monotonicNanos()
    let child = spawn(argv, stdout: .file(output))
    let (status, _) = waitFor(child.pid)
    let ended = monotonicNanos()
    var rss: Int?
    if measureRSS, let text = try? String(contentsOfFile: rssFile, encoding: .utf8) {
      rss = text.split(separator: "\n").last.flatMap { Int($0.trimmingCharacters(in: .whitespaces)) }
    }
    return (Double(ended - started) / 1e9, rss, status)
  }

  for _ in 0..<warmup {
    for entry in entries where entry.runs > 0 { _ = runOnce(entry, measureRSS: false) }
  }
  let rounds = entries.map(\.runs).max() ?? 0
  for round in 0..<rounds {
    for index in entries.indices where round < entries[index].runs {
      let result = runOnce(entries[index], measureRSS: wrapped)
      entries[index].walls.append(result.wall)
      if let rss = result.rss { entries[index].rss.append(rss) }
      entries[index].statuses.append(result.status)
    }
  }
  if !wrapped {
    for index in entries.indices where entries[index].runs > 0 {
      if let rss = runOnce(entries[index], measureRSS: true).rss { entries[index].rss.append(rss) }
    }
  }

  var report: [String: Any] = [:]
  for entry in entries {
    let output = "\(outputDirectory)/\(entry.name).out"
    let data = FileManager.default.contents(atPath: output) ?? Data()
    let lines = data.reduce(0) { $0 + ($1 == UInt8(ascii: "\n") ? 1 : 0) }
    report[entry.name] = [
      "argv": entry.argv,
      "runs": entry.walls.count,
      "warmup": warmup,
      "wall_s": entry.walls.map { rounded($0, places: 5) },
      "median_s": rounded(median(entry.walls) ?? 0, places: 5),
      "min_s": rounded(entry.walls.min() ?? 0, places: 5),
      "max_s": rounded(entry.walls.max() ?? 0, places: 5),
      "rss_kib": Int(median(entry.rss.map(Double.init)) ?? 0),
      "rss_runs": entry.rss.count,
      "rss_max_kib": entry.rss.max() ?? 0,
      "statuses": entry.statuses.map(Int.init),
      "stdout_lines": lines,
      "stdout_bytes": data.count,
    ]
  }
  printJSON(report)
}
