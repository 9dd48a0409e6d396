#!/bin/bash
# Measures libical against appt: docs/codec-choice.md has the method and the results.
#
#   Resources/tools/libical-compare/run.sh [APPT] [WORK]      (from the repository root)
#
# APPT: appt's release build (default .build/release/appt; build it with
# `swift build -c release --static-swift-stdlib`; appt-bench beside it gives parse-only times).
# WORK: a scratch directory (default /tmp/libical-compare). Needs libical-dev (apt-get install
# libical-dev), a C compiler, python3 and /usr/bin/time. Sections: build, recurrence, parse,
# link, errors; pass SECTIONS="recurrence errors" to run some.
set -euo pipefail
HERE=$(cd "$(dirname "$0")" && pwd)
ROOT=$(cd "$HERE/../../.." && pwd)
APPT=$(realpath "${1:-$ROOT/.build/release/appt}")
WORK=${2:-/tmp/libical-compare}
SECTIONS=${SECTIONS:-"recurrence parse link errors"}
RUNS=${RUNS:-3}
mkdir -p "$WORK"
LIBICAL=$(pkg-config --cflags --libs libical)

echo "## machine: $(nproc) cores, $(uptime | sed 's/.*load/load/'), $(date -u +%FT%TZ)"
echo "## libical $(pkg-config --modversion libical), $(cc --version | head -1)"
cc -O2 -Wall -Wextra -o "$WORK/expand" "$HERE/expand.c" $LIBICAL
cc -O2 -Wall -Wextra -o "$WORK/parse" "$HERE/parse.c" $LIBICAL
cc -O2 -Wall -o "$WORK/tiny-plain" "$HERE/tiny.c"
cc -O2 -Wall -DTINY_LIBICAL -o "$WORK/tiny-linked" "$HERE/tiny.c" $LIBICAL
cc -O2 -Wall -DTINY_DLOPEN -o "$WORK/tiny-dlopen" "$HERE/tiny.c" -ldl
cc -O2 -Wall -o "$WORK/spawn-time" "$HERE/spawn-time.c"

median() { sort -n | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }

for section in $SECTIONS; do
  case $section in
  recurrence)
    echo "## recurrence: icalrecur_iterator (the harness builds the set)"
    python3 "$HERE/compare.py" "$WORK/expand"
    echo "## recurrence: icalcomponent_foreach_recurrence on a VEVENT"
    python3 "$HERE/compare.py" "$WORK/expand" --component
    echo "## recurrence: foreach_recurrence, zero-length event (no DTEND/DURATION), first case"
    "$WORK/expand" --zone Europe/Berlin --start 20240101T090000 --rule 'FREQ=DAILY;COUNT=3' --component --zero-length
    ;;
  parse)
    [ -s "$WORK/big.ics" ] || python3 "$HERE/gen-ics.py" 100000 >"$WORK/big.ics"
    echo "## parse: $(wc -c <"$WORK/big.ics") bytes, $(grep -c '^BEGIN:VEVENT' "$WORK/big.ics") VEVENTs; $RUNS runs each"
    for i in $(seq "$RUNS"); do
      /usr/bin/time -f "libical parse+walk: wall %e s, user %U s, sys %S s, peak RSS %M KiB" "$WORK/parse" "$WORK/big.ics"
      rm -f "$WORK"/import.sqlite3*
      /usr/bin/time -f "appt import: wall %e s, user %U s, sys %S s, peak RSS %M KiB" \
        "$APPT" --db "$WORK/import.sqlite3" import "$WORK/big.ics"
    done 2>&1
    if [ -x "$(dirname "$APPT")/appt-bench" ]; then
      echo "## parse: appt in process (appt-bench probe-import: ICalendar.read alone, then the DAO)"
      /usr/bin/time -f "appt-bench probe-import ($RUNS runs): peak RSS %M KiB" \
        "$(dirname "$APPT")/appt-bench" probe-import --ics "$WORK/big.ics" --dir "$WORK" --runs "$RUNS" 2>&1
    fi
    ;;
  link)
    echo "## link: what libical pulls in"
    ldd "$WORK/tiny-linked"
    for lib in $(ldd "$WORK/tiny-linked" | awk '/=>/ {print $3}'); do
      printf '%-44s %10d bytes\n' "$(readlink -f "$lib")" "$(stat -Lc %s "$lib")"
    done
    echo "## link: appt itself"
    ldd "$APPT"
    echo "## link: start-up, 4 rounds of 50 runs each (medians in us; rss in KiB)"
    [ -s "$WORK/empty.sqlite3" ] || "$APPT" --db "$WORK/empty.sqlite3" list >/dev/null
    for round in 1 2 3 4; do
      for what in tiny-plain tiny-linked tiny-dlopen "tiny-dlopen load"; do
        echo "$what: $("$WORK/spawn-time" 50 $WORK/$what)"
      done
      echo "appt --version: $("$WORK/spawn-time" 50 "$APPT" --version)"
      echo "appt --version, libical preloaded: $(LD_PRELOAD=/lib/x86_64-linux-gnu/libical.so.3 "$WORK/spawn-time" 50 "$APPT" --version)"
      echo "appt list (empty): $("$WORK/spawn-time" 50 "$APPT" --db "$WORK/empty.sqlite3" list)"
      echo "appt list (empty), libical preloaded: $(LD_PRELOAD=/lib/x86_64-linux-gnu/libical.so.3 "$WORK/spawn-time" 50 "$APPT" --db "$WORK/empty.sqlite3" list)"
    done | tee "$WORK/link.log"
    echo "## link: summary (median over the rounds of each round's median; rss: largest)"
    python3 - "$WORK/link.log" <<'PY'
import json, re, statistics as st, sys
rows = {}
for line in open(sys.argv[1]):
    m = re.match(r"(.*?): (\{.*\})$", line.strip())
    if m:
        rows.setdefault(m.group(1), []).append(json.loads(m.group(2)))
for name, runs in rows.items():
    med = lambda key: st.median(r[key] for r in runs) / 1000
    print(f"{name:38s} wall {med('median_us'):6.2f} ms (p10 {med('p10_us'):5.2f})  cpu {med('cpu_median_us'):5.2f} ms"
          f"  peak RSS {max(r['max_rss_kib'] for r in runs) / 1024:5.1f} MiB")
PY
    ;;
  errors)
    mkdir -p "$WORK/malformed"
    sh "$HERE/malformed.sh" "$WORK/malformed"
    for f in "$WORK"/malformed/*.ics; do
      echo "## errors: $(basename "$f")"
      echo "### libical"
      "$WORK/parse" --errors "$f"
      echo "### appt import"
      rm -f "$WORK"/errors.sqlite3*
      status=0
      (cd "$WORK/malformed" && TZ=Europe/Berlin "$APPT" --db "$WORK/errors.sqlite3" import "$(basename "$f")" 2>&1) || status=$?
      echo "exit $status"
    done
    ;;
  esac
done
