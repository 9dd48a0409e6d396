#!/usr/bin/env bash
# The sync part of `make bench`: a 10,000-event calendar on a Radicale server on loopback, its
# first `appt sync` into an empty SQLite file (time and peak memory) and a sync with no change;
# the numbers go to Benchmarks/results/sync.json and into BENCHMARKS.md as the section "8. Sync"
# (put in place of an earlier one, the other sections left as they are). run.sh runs it after
# its report; alone it measures and writes only this.
#
# The calendar is written straight into Radicale's storage before the server starts (peer.py
# prefill-radicale: fast, and the same events every run), then the server's own first scan of
# the files (its item cache) is done by an untimed listing, so the timed syncs measure appt
# against a warm server. The syncs run as a user runs them (`appt --config FILE sync`: appt
# execs appt-sync, so GNU time's peak RSS is appt-sync's); the wall time is CLOCK_MONOTONIC
# around each run, the figure the median. One more pair of syncs through
# Tests/caldav/faultproxy.py counts the requests.
#
# Environment (all optional):
#   APPT                 the appt binary (appt-sync next to it); default: a release build
#   BENCH_SCRATCH        SwiftPM scratch path (default .build)
#   BENCH_DATA           scratch files (default $BENCH_SCRATCH/bench-data); the store goes there
#   BENCH_SYNC_SIZE      events in the calendar (default 10000)
#   BENCH_SYNC_FIRST_RUNS  first syncs measured, each into a new file (default 3)
#   BENCH_SYNC_RUNS      syncs with no change measured (default 5)
#   BENCH_SYNC_REPORT    the markdown file to put the section into (default BENCHMARKS.md)
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
bench_init sync

SIZE=${BENCH_SYNC_SIZE:-10000}
FIRST_RUNS=${BENCH_SYNC_FIRST_RUNS:-3}
RUNS=${BENCH_SYNC_RUNS:-5}
REPORT=${BENCH_SYNC_REPORT:-BENCHMARKS.md}

for module in radicale caldav icalendar; do
  python3 -c "import $module" 2>/dev/null || { echo "sync.sh: Python's $module is missing (make test-tools)" >&2; exit 1; }
done
[ -x /usr/bin/time ] || { echo "sync.sh: GNU time (/usr/bin/time) is missing (apt-get install time)" >&2; exit 1; }

if [ -z "${APPT:-}" ]; then
  log "building appt and appt-sync (release, scratch path $SCRATCH)"
  bench_release_binary appt-sync >/dev/null
  APPT=$(bench_release_binary appt)
else
  bin=$(dirname "$APPT")
  if [ ! -x "$bin/appt-sync" ]; then
    log "building appt-sync beside $APPT"
    swift build -c release --static-swift-stdlib --scratch-path "$SCRATCH" --product appt-sync
  fi
fi
[ -x "$(dirname "$APPT")/appt-sync" ] || { echo "sync.sh: no appt-sync next to $APPT" >&2; exit 1; }

bench_workdir sync
DATA=$(cd "$DATA" && pwd)

free_port() { python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'; }
wait_port() {
  local tries=300
  while ((tries-- > 0)); do
    kill -0 "$2" 2>/dev/null || { echo "sync.sh: $3 exited at start" >&2; tail -20 "$work"/*.log >&2; exit 1; }
    python3 -c "import socket; socket.create_connection(('127.0.0.1', $1), 0.2)" 2>/dev/null && return 0
    sleep 0.1
  done
  echo "sync.sh: $3 did not listen on 127.0.0.1:$1" >&2
  exit 1
}
now_ns() { date +%s%N; }

log "a $SIZE-event calendar in Radicale's storage"
python3 Tests/caldav/peer.py prefill-radicale "$work/collections/collection-root/bench/work" "$SIZE" --name Work
port=$(free_port)
printf '[server]\nhosts = 127.0.0.1:%s\n[auth]\ntype = none\n[storage]\nfilesystem_folder = %s\n[logging]\nlevel = warning\n' \
  "$port" "$work/collections" >"$work/radicale.conf"
python3 -m radicale --config "$work/radicale.conf" >"$work/radicale.log" 2>&1 &
pids+=($!)
wait_port "$port" "$!" Radicale
calendar_url=http://127.0.0.1:$port/bench/work/
log "the server's own first scan of the files (untimed)"
t0=$(now_ns)
count=$(APPT_CALDAV_USER=bench APPT_CALDAV_PASSWORD=x APPT_CALDAV_TIMEOUT=1800 python3 Tests/caldav/peer.py count "$calendar_url")
server_scan_ms=$((($(now_ns) - t0) / 1000000))
[ "$count" = "$SIZE" ] || { echo "sync.sh: the server holds $count events, not $SIZE" >&2; exit 1; }

export BENCH_SYNC_PASSWORD=bench
# timeout = 10m: Radicale answers a PROPFIND of the home (the calendars with their sync
# tokens) over 10,000 items in more than the default 30 s on this machine
config=$work/config
write_config() { # URL
  printf '[account bench]\nurl = %s\nusername = bench\npassword_env = BENCH_SYNC_PASSWORD\ntimeout = 10m\n' "$1" >"$config"
}
write_config "http://127.0.0.1:$port/"
db=$DATA/sync-$SIZE.sqlite3

# run_sync LABEL: one timed sync; appends "LABEL WALL_US PEAK_KIB CPU_S" to $work/runs and keeps its
# stdout in $work/LABEL.out
run_sync() {
  local label=$1 t0 t1
  t0=$(now_ns)
  /usr/bin/time -f '%M %U %S' -o "$work/time.txt" "$APPT" --db "$db" --config "$config" sync >"$work/$label.out" 2>"$work/$label.err" ||
    { echo "sync.sh: appt sync failed ($label):" >&2; cat "$work/$label.err" >&2; exit 1; }
  t1=$(now_ns)
  echo "$label $(((t1 - t0) / 1000)) $(tail -1 "$work/time.txt" | awk '{ print $1, $2 + $3 }')" >>"$work/runs"
  cat "$work/$label.out" >&2
}
: >"$work/runs"
for run in $(seq "$FIRST_RUNS"); do
  log "first sync $run of $FIRST_RUNS (a new file)"
  rm -f "$db" "$db-wal" "$db-shm"
  run_sync "first-$run"
  grep -q "↓ $SIZE new, 0 changed, 0 deleted; ↑ 0; 0 conflicts" "$work/first-$run.out" ||
    { echo "sync.sh: the first sync did not bring $SIZE new events" >&2; exit 1; }
done
file_kib=$(($(stat -c %s "$db") / 1024))
for run in $(seq "$RUNS"); do
  log "sync with no change $run of $RUNS"
  run_sync "again-$run"
  grep -q "↓ 0 new, 0 changed, 0 deleted; ↑ 0; 0 conflicts" "$work/again-$run.out" ||
    { echo "sync.sh: a sync with no change changed something" >&2; exit 1; }
done

log "the requests of a first sync and of one with no change (through faultproxy.py, untimed)"
python3 Tests/caldav/faultproxy.py rules "$work/control"
python3 Tests/caldav/faultproxy.py serve --upstream "http://127.0.0.1:$port/" --control "$work/control" \
  --log "$work/proxy.log" --port-file "$work/proxy.port" >"$work/proxy.err" 2>&1 &
pids+=($!)
for _ in $(seq 100); do [ -s "$work/proxy.port" ] && break; sleep 0.05; done
write_config "http://127.0.0.1:$(cat "$work/proxy.port")/"
rm -f "$db" "$db-wal" "$db-shm"
"$APPT" --db "$db" --config "$config" sync >/dev/null
first_lines=$(python3 Tests/caldav/faultproxy.py lines "$work/proxy.log")
"$APPT" --db "$db" --config "$config" sync >/dev/null
python3 Tests/caldav/faultproxy.py requests "$work/proxy.log" --after 0 >"$work/all.requests"
head -n "$first_lines" "$work/all.requests" >"$work/first.requests"
python3 Tests/caldav/faultproxy.py requests "$work/proxy.log" --after "$first_lines" >"$work/again.requests"

commit=$(git rev-parse --short HEAD 2>/dev/null || echo unknown)
if [ -n "$(git status --porcelain --untracked-files=no -- . ':!Benchmarks' ':!BENCHMARKS.md' 2>/dev/null || true)" ]; then
  commit="$commit + uncommitted changes"
fi
python3 - "$work" "$RESULTS/sync.json" "$REPORT" <<PY
import json, statistics, sys, re, collections
work, out_json, report = sys.argv[1:]
runs = collections.defaultdict(list)
for line in open(f"{work}/runs"):
    label, wall_us, peak_kib, cpu_s = line.split()
    runs[label.split("-")[0]].append((int(wall_us) / 1e6, int(peak_kib), float(cpu_s)))
def kinds(path):
    c = collections.Counter()
    for line in open(path):
        f = line.split()
        c[f"{f[0]} {f[3]}" if f[0] in ("REPORT", "PROPFIND") else f[0]] += 1
    return dict(sorted(c.items()))
result = {
    "date": "$(date -u '+%Y-%m-%d %H:%M UTC')",
    "commit": "$commit",
    "machine": "$(grep -m1 '^model name' /proc/cpuinfo | cut -d: -f2- | sed 's/^ *//'), $(nproc) cores",
    "radicale": "$(python3 -c 'import radicale; print(radicale.VERSION)')",
    "load": "$LOAD_START at the start, $(cut -d' ' -f1-3 /proc/loadavg) at the end",
    "events": $SIZE,
    "server_first_scan_s": $server_scan_ms / 1000,
    "file_kib": $file_kib,
    "first": [{"wall_s": w, "peak_kib": p, "cpu_s": c} for w, p, c in runs["first"]],
    "again": [{"wall_s": w, "peak_kib": p, "cpu_s": c} for w, p, c in runs["again"]],
    "first_requests": kinds(f"{work}/first.requests"),
    "again_requests": kinds(f"{work}/again.requests"),
}
json.dump(result, open(out_json, "w"), indent=2)
def fmt_s(s):
    return f"{s * 1000:.0f} ms" if s < 1 else f"{s:.2f} s"
def mib(k):
    return f"{k / 1024:.1f} MiB"
first_wall = statistics.median(w for w, _, _ in runs["first"])
first_peak = max(p for _, p, _ in runs["first"])
first_cpu = statistics.median(c for _, _, c in runs["first"])
again_wall = statistics.median(w for w, _, _ in runs["again"])
again_peak = max(p for _, p, _ in runs["again"])
again_cpu = statistics.median(c for _, _, c in runs["again"])
def req(d):
    return ", ".join(f"{n} × {k}" for k, n in d.items())
n = result["events"]
section = f"""## 8. Sync: a {n:,}-event calendar on a CalDAV server

Written by \`Benchmarks/sync.sh\` (part of \`make bench\`; alone it rewrites only this section), {result["date"]},
commit \`{result["commit"]}\`, Radicale {result["radicale"]} on loopback, load average {result["load"]}.
Raw numbers: \`Benchmarks/results/sync.json\`.

| what | wall | appt-sync's CPU (user + sys) | peak RSS | runs |
|---|---|---|---|---|
| first \`appt sync\` of {n:,} events into an empty SQLite file | {fmt_s(first_wall)} ({n / first_wall:,.0f} events/s) | {fmt_s(first_cpu)} | {mib(first_peak)} | {len(runs["first"])} |
| \`appt sync\` again, nothing changed on either side | {fmt_s(again_wall)} | {fmt_s(again_cpu)} | {mib(again_peak)} | {len(runs["again"])} |

- The calendar: {n:,} one-off events over two years (UTC times, a title, a description, one
  X- property each), written into Radicale's storage before it starts; its own first scan of
  them (building its cache, untimed) took {result["server_first_scan_s"]:.1f} s.
- Requests of the first sync: {req(result["first_requests"])}.
  Of the sync with no change: {req(result["again_requests"])}.
- The store after the first sync: {result["file_kib"] / 1024:.1f} MiB. Wall is the median, peak RSS the
  largest of the runs (GNU time; \`appt\` execs \`appt-sync\`, so it is appt-sync's). Wall includes
  the server's time: the difference between wall and appt-sync's CPU is mostly Radicale (on
  the same two cores) answering; with no change, its PROPFIND of the calendars (each with its
  sync token, which it derives from all the items) is nearly all of it.
"""
text = open(report).read() if __import__("os").path.exists(report) else "# Benchmarks\n"
pattern = re.compile(r"^## 8\. Sync.*?(?=^## |\Z)", re.S | re.M)
if pattern.search(text):
    text = pattern.sub(lambda m: section + "\n", text, count=1)
elif "\n## Goals" in text:
    i = text.index("\n## Goals") + 1
    text = text[:i] + section + "\n" + text[i:]
else:
    text = text.rstrip("\n") + "\n\n" + section
open(report, "w").write(text)
print(json.dumps(result, indent=2), file=sys.stderr)
PY
log "done: $RESULTS/sync.json and the section in $REPORT"
