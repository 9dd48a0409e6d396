#!/usr/bin/env bash
# `make link-order`: writes Resources/link-order.txt, the functions `appt` runs for its
# everyday commands, the list of a week's first (the busiest path). The release link
# (Package.swift) lays these functions out together at the start of the code.
#
# Why: appt is an 80 MB binary (the Swift runtime, Foundation and ICU linked in; glibc,
# SQLite and ncurses shared). The kernel maps a file's pages 64 KB at a time
# around each fault, so a run that touches 700 KB of functions scattered over 17 MB of code
# had 12.8 MB of it resident (BENCHMARKS.md, `list` peak RSS). Laid out together they take
# a few hundred pages. A stale file costs memory, never correctness: functions it does not
# name are laid out after, in the linker's usual order; names it has that no longer exist
# are ignored.
#
# How: valgrind's callgrind names every function a run executes (not a sample, as perf
# would). Valgrind 3.19 cannot read the DWARF 5 Swift emits, so it runs a copy of the
# binary without debug information; the symbol names are the same.
#
# Environment: BENCH_SCRATCH (SwiftPM scratch path, default .build), as `make bench`.
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
bench_init link-order
export APPT_CONFIG=/dev/null
bench_workdir link-order

bench_install_missing valgrind binutils

log "building appt and appt-bench in release"
APPT=$(bench_release_binary appt)
BENCH=$(bench_release_binary appt-bench)
strip -g -o "$work/appt" "$APPT"

log "200,000 appointments as make bench lists them (a week is chunks of rows), and 20,000 with overrides, RDATEs and zones"
plain=$work/plain.sqlite3
db=$work/model.sqlite3
"$BENCH" generate --count 200000 --db "$plain" > /dev/null
"$BENCH" generate --count 20000 --db "$db" --model > /dev/null
week=(--from 2026-06-03 --days 7)
"$APPT" --db "$db" list "${week[@]}" > "$work/week.txt"
id=$(awk 'NR == 1 { print $1; exit }' "$work/week.txt")
if [ -z "$id" ]; then
  echo "link-order.sh: the generated calendar has no appointment in the week ${week[*]}" >&2
  exit 1
fi
"$APPT" --db "$db" export --from 2026-06-03 --to 2026-06-10 "$work/week.ics"
printf 'add "Tea" --at "2026-06-04 16:00" --for 30m\nlist --from 2026-06-04 --days 1\n' > "$work/script.appt"

# run NAME ARGS...: one profiled run of the stripped appt; its output is thrown away.
runs=()
run() {
  local name=$1
  shift
  valgrind --tool=callgrind --demangle=no --callgrind-out-file="$work/$name.out" "$work/appt" "$@" \
    > /dev/null 2> "$work/$name.log" < "${STDIN:-/dev/null}" || {
    cat "$work/$name.log" >&2
    echo "link-order.sh: appt $* failed under valgrind" >&2
    exit 1
  }
  runs+=("$name")
}

log "profiling the commands"
# `make bench` lists in UTC; most people live in a zone with daylight saving time, whose
# offsets come from ICU.
run list-week --db "$plain" list "${week[@]}"
TZ=Europe/Berlin run list-week-berlin --db "$plain" list "${week[@]}"
run list-model-week --db "$db" list "${week[@]}"
run list-json --db "$db" --json list "${week[@]}"
run list-today --db "$db" list
run version --version
run help help
run show --db "$db" show "$id"
run search --db "$db" list --from 2026-01-01 --to 2027-01-01 --search Yoga
run export --db "$db" export --from 2026-06-03 --to 2026-06-10
run import --db "$work/import.sqlite3" import "$work/week.ics"
STDIN=$work/script.appt run script --db "$db"
run edit --db "$db" edit "$id" --title "Tea with Sam"
run cancel --db "$db" cancel "$id"

# Each run's functions, costliest first, in the order of the runs; each name once. The
# annotations read "COST (PERCENT)  FILE:FUNCTION [OBJECT]"; a recursive call's copies
# carry 'N after the name.
names() {
  callgrind_annotate --threshold=100 "$work/$1.out" 2> /dev/null \
    | { grep -F " [$work/appt]" || true; } \
    | sed -E 's/^ *[0-9,]+ +\( *[0-9.]+%\) +//; s/ \[[^]]*\]$//; s/^[^:]*://; s/'"'"'[0-9]+$//'
}
for name in "${runs[@]}"; do
  names "$name" > "$work/$name.names"
  if [ ! -s "$work/$name.names" ]; then
    echo "link-order.sh: callgrind named no function of $work/appt in the run $name" >&2
    exit 1
  fi
done
out=Resources/link-order.txt
{
  echo "# The functions appt runs for its everyday commands, the busiest first: the release"
  echo "# link lays them out together (Package.swift). Written by \`make link-order\`"
  echo "# (Benchmarks/link-order.sh) from $(git describe --always --dirty 2>/dev/null || echo "this tree");"
  echo "# a stale list costs memory, never correctness."
  for name in "${runs[@]}"; do cat "$work/$name.names"; done \
    | { grep -v -E '^(0x[0-9a-f]+|\(below main\))$' || true; } | awk '!seen[$0]++'
} > "$work/link-order.txt"
count=$(grep -c -v '^#' "$work/link-order.txt" || true)
if [ "$count" -lt 1000 ]; then
  echo "link-order.sh: only $count functions named; is callgrind reading $work/appt?" >&2
  exit 1
fi
cp "$work/link-order.txt" "$out"
# SwiftPM does not know the link reads the list: the next release build must link again.
rm -f "$APPT"
log "$count functions in $out"
