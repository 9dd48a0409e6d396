// The PostgreSQL part of `make bench` (Benchmarks/postgres.sh drives it), and the concurrent
// writers it compares on both engines.
//
//   pg-load      --from FILE --db URL [--batch B]: copies an SQLite dataset, row by row in the
//                order it was generated (rowid), into a PostgreSQL database through appt's own
//                schema and DAO (`DatabaseService.save(all:)`, one transaction per batch).
//   write-load   --db FILE|URL [--writers W] [--adds N]: W processes, each with its own
//                AppointmentDAO (its own connection), add N appointments each, one commit per
//                add, all at once; adds per second over the whole burst.
//   write-worker --db FILE|URL --adds N --seed S (a child of write-load).

import ApptCore
import ApptStore
import Foundation

// MARK: - pg-load

@MainActor
func pgLoadCommand(_ arguments: Arguments) async {
  let from = arguments.required("from")
  let url = arguments.required("db")
  let batchSize = max(1, arguments.int("batch", default: 50_000))
  guard FileManager.default.fileExists(atPath: from) else { fail("no dataset \(from)") }
  let source = AppointmentDAO(file: URL(fileURLWithPath: from), readOnly: true)
  let target = AppointmentDAO(location: .named(url))
  let started = monotonicNanos()
  var readNanos: UInt64 = 0
  var insertNanos: UInt64 = 0
  var copied = 0
  do {
    try await target.database.prepare()
    guard try await target.service.fetch(DatabaseQuery<Appointment>(order: "id", limit: 1)).isEmpty else {
      fail("pg-load: the target holds appointments already")
    }
    var lastID: AppointmentID?
    while true {
      // The generation order (SQLite's rowid), so that PostgreSQL's heap is as shuffled in
      // time as the SQLite file's table.
      let query =
        if let lastID {
          DatabaseQuery<Appointment>(
            where: "rowid > (SELECT rowid FROM appointment WHERE id = ?)",
            bindings: [.text(lastID.description)],
            order: "rowid",
            limit: batchSize
          )
        } else {
          DatabaseQuery<Appointment>(order: "rowid", limit: batchSize)
        }
      let before = monotonicNanos()
      let batch = try await source.service.fetch(query)
      let read = monotonicNanos()
      guard let last = batch.last else { break }
      try await target.service.save(all: batch)
      insertNanos += monotonicNanos() - read
      readNanos += read - before
      copied += batch.count
      lastID = last.id
      if copied >= 200_000 { writeError("  copied \(copied)\r") }
    }
  } catch {
    fail("pg-load: \(error)")
  }
  await source.database.close()
  await target.database.close()
  let total = monotonicNanos() - started
  if copied >= 200_000 { writeError("\n") }
  printJSON([
    "count": copied, "batch": batchSize, "seconds": rounded(Double(total) / 1e9),
    "read_seconds": rounded(Double(readNanos) / 1e9), "insert_seconds": rounded(Double(insertNanos) / 1e9),
  ])
}

// MARK: - write-load

/// Starts the writers, waits until each has connected (and migrated), then says "go" to all;
/// the figure runs from "go" to the last writer's last commit.
@MainActor
func writeLoadCommand(_ arguments: Arguments) {
  let database = arguments.required("db")
  let writers = max(1, arguments.int("writers", default: 8))
  let adds = max(1, arguments.int("adds", default: 200))
  let executable = ownExecutablePath()
  alarm(UInt32(arguments.int("watchdog", default: 600)))

  var children: [Child] = []
  for index in 0..<writers {
    let child = spawn(
      [executable, "write-worker", "--db", database, "--adds", "\(adds)", "--seed", "\(7_000 + index)"],
      stdout: .pipe,
      pipeStdin: true
    )
    children.append(child)
  }
  for child in children {
    guard let output = child.output, readLine(from: output) == "ready" else { fail("a writer did not start") }
  }
  let go = monotonicNanos()
  for child in children {
    if let input = child.input { writeAll("go\n", to: input) }
  }
  var latencies: [Double] = []
  var lastCommit = go
  var perWriter: [Double] = []
  for child in children {
    guard let output = child.output, let line = readLine(from: output), let data = line.data(using: .utf8),
      let object = (try? JSONSerialization.jsonObject(with: data)) as? [String: Any],
      let last = (object["last_ns"] as? NSNumber)?.uint64Value,
      let each = object["latencies_ms"] as? [NSNumber]
    else { fail("a writer failed") }
    if let input = child.input { close(input) }
    close(output)
    let (status, _) = waitFor(child.pid)
    guard status == 0 else { fail("a writer exited with \(status)") }
    latencies += each.map(\.doubleValue)
    lastCommit = max(lastCommit, last)
    perWriter.append(milliseconds(from: go, to: last))
  }
  let seconds = Double(lastCommit - go) / 1e9
  printJSON([
    "writers": writers, "adds_per_writer": adds, "adds": latencies.count,
    "seconds": rounded(seconds, places: 5),
    "adds_per_second": rounded(Double(latencies.count) / seconds, places: 1),
    "add": latencySummary(latencies),
    "writer_done_ms": perWriter.map { rounded($0) },
  ])
}

/// One writer: connects, says "ready", waits for "go", then adds N appointments (each its own
/// durable commit through `AppointmentDAO.saveAppointment`) and prints its latencies.
@MainActor
func writeWorkerCommand(_ arguments: Arguments) async {
  let dao = AppointmentDAO(location: .named(arguments.required("db")))
  let adds = arguments.int("adds", default: 200)
  var rng = SplitMix64(seed: UInt64(arguments.int("seed", default: 7_000)))
  do {
    try await dao.database.prepare()
  } catch {
    fail("write-worker: \(error)")
  }
  writeOutput("ready\n")
  guard readLine(from: 0) == "go" else { fail("write-worker: no go") }
  var latencies: [Double] = []
  latencies.reserveCapacity(adds)
  for index in 0..<adds {
    let day = Int64.random(in: 0..<DatasetGenerator.dayCount, using: &rng)
    let slot = Int64.random(in: 28...78, using: &rng)
    let start = Date(timeIntervalSince1970: Double((DatasetGenerator.firstDay + day) * 86_400 + slot * 900))
    let appointment = Appointment(
      title: "Concurrent add \(index)",
      start: start,
      end: start.addingTimeInterval(45 * 60),
      created: DatasetGenerator.created
    )
    let before = monotonicNanos()
    do {
      try await dao.saveAppointment(appointment)
    } catch {
      fail("write-worker: \(error)")
    }
    latencies.append(milliseconds(from: before, to: monotonicNanos()))
  }
  let last = monotonicNanos()
  await dao.database.close()
  printJSON(["last_ns": last, "latencies_ms": latencies.map { rounded($0) }])
}
