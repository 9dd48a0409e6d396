// `exec-time --spec FILE [--warmup W] [--out-dir DIR]`: whole-process wall time (CLOCK_MONOTONIC
// around posix_spawnp + wait4) and peak RSS (wait4's ru_maxrss of that child alone) of several
// commands, run round-robin so that they share the machine's conditions.
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

  func runOnce(_ entry: Entry) -> (wall: Double, rss: Int, status: Int32) {
    let output = "\(outputDirectory)/\(entry.name).out"
    let started = monotonicNanos()
    let child = spawn(entry.argv, stdout: .file(output))
    let (status, rss) = waitFor(child.pid)
    let ended = monotonicNanos()
    return (Double(ended - started) / 1e9, rss, status)
  }

  for _ in 0..<warmup {
    for entry in entries where entry.runs > 0 { _ = runOnce(entry) }
  }
  let rounds = entries.map(\.runs).max() ?? 0
  for round in 0..<rounds {
    for index in entries.indices where round < entries[index].runs {
      let result = runOnce(entries[index])
      entries[index].walls.append(result.wall)
      entries[index].rss.append(result.rss)
      entries[index].statuses.append(result.status)
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
      "rss_max_kib": entry.rss.max() ?? 0,
      "statuses": entry.statuses.map(Int.init),
      "stdout_lines": lines,
      "stdout_bytes": data.count,
    ]
  }
  printJSON(report)
}
