#!/usr/bin/env bash
# `list` and `export` stream: each chunk is written as it is read, so memory stays flat however
# long the output, the first line comes before the store is read through, and a reader that
# goes away (`appt list | head -1`) ends the reading at once.
#
# Memory is measured as the peak RSS (getrusage's ru_maxrss of the appt process, from
# wait4), never as a time; the watchdog below only turns a hang into a failure.
#
# usage: Tests/e2e/streaming.sh [PATH_TO_APPT]
set -u
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
e2e_init "${1:-}"

# ------------------------------------------------------------------ helpers

# endless DB: a daily series from 1 January 2000, for ever, and a few one-offs among it.
endless() {
    printf '%s\n' \
        'add Daily --at "2000-01-01 09:00" --for 30m --repeat daily' \
        'add Dentist --at "2000-01-03 10:00" --for 45m' \
        'add Late --at "2400-06-01 12:00"' >"$T/seed"
    run_appt --db "$1" <"$T/seed"
    [[ $STATUS == 0 ]] || { fail "seeding failed ($STATUS): $ERR"; return 1; }
}

# peak LINES ARGS...: runs appt ARGS (stdin: the file $PEAK_STDIN, else nothing) with stdout
# on a pipe, reads LINES lines of it (all of them for 0) and closes the pipe; prints "STATUS
# PEAK_KIB LINES_READ FIRST_LINE". A run that outlives the watchdog (a hang, never a slowness
# bound) is killed and reported as 124.
peak() {
    python3 - "$APPT" "$@" <<'PY'
import os, subprocess, sys, threading
appt, lines, args = sys.argv[1], int(sys.argv[2]), sys.argv[3:]
script = os.environ.get("PEAK_STDIN")
stdin = open(script, "rb") if script else subprocess.DEVNULL
child = subprocess.Popen([appt] + args, stdin=stdin, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
killed = []
def watchdog():
    killed.append(1)
    child.kill()
timer = threading.Timer(600, watchdog)
timer.start()
count, first = 0, ""
for line in child.stdout:
    if count == 0:
        first = line.decode().rstrip("\n")
    count += 1
    if lines and count >= lines:
        break
child.stdout.close()
_, status, usage = os.wait4(child.pid, 0)
timer.cancel()
code = 124 if killed else (os.waitstatus_to_exitcode(status))
print(code, usage.ru_maxrss, count, first)
PY
}

# ------------------------------------------------------------------ scenarios

# 10k and 1M lines of an endless series: the larger run's peak memory is within a few MiB of
# the smaller one's (holding 1M lines would take hundreds of MiB), text and JSON alike.
scenario_memory_is_flat_in_the_output() {
    local db=$T/appt.sqlite3
    endless "$db" || return
    local small large small_status large_status small_lines large_lines json
    for json in "" "--json"; do
        # 10 000 and 1 000 000 days from 2000 (`--to` includes its day), and the one-offs.
        read -r small_status small small_lines _ < <(peak 0 --db "$db" $json list --from 2000-01-01 --to 2027-05-18)
        read -r large_status large large_lines _ < <(peak 0 --db "$db" $json list --from 2000-01-01 --to 4737-11-27)
        check_eq "0 0" "$small_status $large_status" "list $json exit statuses"
        check_eq 10001 "$small_lines" "list $json: lines over 10 000 days"
        check_eq 1000002 "$large_lines" "list $json: lines over 1 000 000 days"
        if ((large > small + 6 * 1024)); then
            fail "list $json: peak RSS $small KiB for 10k lines, $large KiB for 1M lines"
        fi
        echo "list $json peak RSS: $small KiB (10k lines), $large KiB (1M lines)"
    done
}

# `appt list | head -1` over 8000 years: the first line arrives, appt stops at the closed pipe
# quietly (exit 0) without reading the rest of the store (its memory stays what a chunk needs).
scenario_a_closed_pipe_stops_the_reading() {
    local db=$T/appt.sqlite3
    endless "$db" || return
    local status small rss count first mode
    read -r status small _ first < <(peak 0 --db "$db" list --from 2000-01-01 --to 2000-02-01)
    check_eq 0 "$status" "a month's list"
    for mode in "" "--json"; do
        read -r status rss count first < <(peak 1 --db "$db" $mode list --from 1970-01-01 --to 9999-12-31)
        check_eq 0 "$status" "list $mode into a pipe closed after one line: exit status"
        check_eq 1 "$count" "lines read"
        check_contains "$first" "Daily" "list $mode: the first line"
        check_contains "$first" "2000-01-01" "list $mode: the first line"
        if ((rss > small + 6 * 1024)); then
            fail "list $mode | head -1: peak RSS $rss KiB, a month's list $small KiB"
        fi
    done
    # In script mode too: the script stops at the closed pipe (and runs no more lines).
    printf '%s\n' 'list --from 1970-01-01 --to 9999-12-31' 'add After --at "2030-01-01 10:00"' >"$T/script"
    read -r status rss count first < <(PEAK_STDIN=$T/script peak 1 --db "$db")
    check_eq "0 1" "$status $count" "a script's list into a pipe closed after one line"
    check_contains "$first" "Daily" "the script's first line"
    if ((rss > small + 6 * 1024)); then
        fail "a script's list | head -1: peak RSS $rss KiB, a month's list $small KiB"
    fi
    run_appt --db "$db" list --all
    check_not_contains "$OUT" "After" "the line after the list in the script"
}

# A store that fails midway (the pages of its latest rows damaged): the lines read
# before stay written, the failure is said on stderr, and the exit status is 3.
scenario_a_failure_midway_keeps_what_was_written() {
    local db=$T/appt.sqlite3
    python3 - "$T/seed.ics" <<'PY'
import datetime, sys
start = datetime.date(2000, 1, 1)
with open(sys.argv[1], "w", newline="") as f:
    f.write("BEGIN:VCALENDAR\r\nVERSION:2.0\r\nPRODID:-//e2e//streaming//EN\r\n")
    for day in range(4000):
        d = (start + datetime.timedelta(days=day)).strftime("%Y%m%d")
        f.write(f"BEGIN:VEVENT\r\nUID:m{day}@e2e\r\nDTSTAMP:20260101T000000Z\r\n"
                f"DTSTART:{d}T090000Z\r\nDTEND:{d}T093000Z\r\n"
                f"SUMMARY:Meeting {day:04d} {'x' * 60}\r\nEND:VEVENT\r\n")
    f.write("END:VCALENDAR\r\n")
PY
    run_appt --db "$db" import "$T/seed.ics"
    check_status 0 "importing 4000 appointments"
    run_appt --db "$db" list --from 2000-01-01 --to 2011-12-31
    check_status 0 "the list before the damage"
    check_eq 4000 "$(grep -c Meeting <<<"$OUT")" "lines before the damage"
    # Zero the leaf pages holding the last thousand (their titles say "Meeting 3..."): the
    # table's rows, and their entries in the window index, which a text `list` reads. Interior
    # pages stay, though an index's hold some titles as keys: the reading must get going.
    [[ ! -s $db-wal ]] || fail "the WAL was left after appt closed the store"
    python3 - "$db" <<'PY'
import sys
path, page = sys.argv[1], 4096
data = bytearray(open(path, "rb").read())
leaves = (0x0A, 0x0D)  # index leaf, table leaf (SQLite's b-tree page types)
for start in range(page, len(data), page):
    if data[start] in leaves and b"Meeting 3" in data[start:start + page]:
        data[start:start + page] = bytes(page)
open(path, "wb").write(data)
PY
    run_appt --db "$db" list --from 2000-01-01 --to 2011-12-31
    check_status 3 "a list that fails midway"
    check_contains "$ERR" "appt: " "the failure on stderr"
    local written
    written=$(grep -c Meeting <<<"$OUT")
    if ((written == 0 || written >= 4000)); then
        fail "lines written before the failure: $written of 4000"
    fi
    check_contains "$OUT" "Meeting 0000" "the first line written"
}

# export to stdout writes the calendar a piece at a time: the same calendar as to a file.
scenario_export_to_stdout_is_the_calendar() {
    local db=$T/appt.sqlite3
    endless "$db" || return
    run_appt --db "$db" export "$T/file.ics"
    check_status 0 "export to a file"
    run_appt --db "$db" export
    check_status 0 "export to stdout"
    check_eq "$(cat "$T/file.ics")" "$OUT" "export to stdout and to a file"
    run_appt --db "$db" --json export
    check_status 0 "export --json"
    check_eq "$(cat "$T/file.ics")" "$(python3 -c 'import json,sys; d=json.load(sys.stdin); assert d["exported"]==3; sys.stdout.write(d["ical"])' <<<"$OUT")" \
        "export --json's calendar"
}

echo "e2e streaming ($APPT)"
for name in $(declare -F | awk '{print $3}' | grep '^scenario_'); do
    run_scenario "$name"
done
e2e_finish "e2e streaming"
