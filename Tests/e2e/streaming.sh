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

# peak LINES ARGS...: runs appt ARGS with stdout on a pipe, reads LINES lines of it (all of
# them for 0) and closes the pipe; prints "STATUS PEAK_KIB LINES_READ FIRST_LINE". A run that
# outlives the watchdog (a hang, never a slowness bound) is killed and reported as 124.
peak() {
    python3 - "$APPT" "$@" <<'PY'
import os, subprocess, sys, threading
appt, lines, args = sys.argv[1], int(sys.argv[2]), sys.argv[3:]
child = subprocess.Popen([appt] + args, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
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
    # In script mode too: the script stops at the closed pipe.
    read -r status rss count first < <(peak 1 --db "$db" <<<'list --from 1970-01-01 --to 9999-12-31')
    check_eq 0 "$status" "a script's list into a closed pipe"
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
