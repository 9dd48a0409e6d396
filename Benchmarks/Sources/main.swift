// appt-bench: the benchmark executable behind `make bench` (Benchmarks/run.sh drives it).
//
//   generate     --count N --db FILE [--seed S] [--batch B] [--ics FILE] [--model]
//   bulk-insert  --count N --dir DIR [--runs R]
//   exec-time    --spec FILE [--warmup W] [--out-dir DIR]
//   tui          --db FILE|URL --today YYYY-MM-DD [--first-frames N] [--keys N] [--commits N] [--external N]
//   first-frame  --db FILE|URL --today YYYY-MM-DD  (a child of tui)
//   writer       --db FILE|URL                     (a child of tui: another process committing)
//   pg-load      --from FILE --db URL [--batch B]  (an SQLite dataset copied into PostgreSQL)
//   write-load   --db FILE|URL [--writers W] [--adds N]
//   write-worker --db FILE|URL --adds N --seed S   (a child of write-load)
//   probe        --db FILE --day YYYY-MM-DD [--week YYYY-MM-DD] [--repeat N] [--pragma SQL]
//   probe-import --ics FILE --dir DIR [--runs R]
//   report       --raw DIR --json FILE --markdown FILE
//
// Every measuring command prints one JSON object on stdout.

import Foundation

let words = Array(CommandLine.arguments.dropFirst())
guard let command = words.first else {
  fail(
    "usage: appt-bench generate|bulk-insert|exec-time|tui|first-frame|writer|pg-load|write-load|write-worker|probe|"
      + "probe-import|report [options]"
  )
}
let arguments = Arguments(Array(words.dropFirst()), flags: ["model"])

switch command {
case "generate": await generateCommand(arguments)
case "bulk-insert": await bulkInsertCommand(arguments)
case "exec-time": execTimeCommand(arguments)
case "tui": await tuiCommand(arguments)
case "first-frame": await firstFrameCommand(arguments)
case "writer": await writerCommand(arguments)
case "pg-load": await pgLoadCommand(arguments)
case "write-load": writeLoadCommand(arguments)
case "write-worker": await writeWorkerCommand(arguments)
case "probe": await probeCommand(arguments)
case "probe-import": await probeImportCommand(arguments)
case "report": reportCommand(arguments)
default: fail("unknown command \(command)")
}
exit(0)
