#!/usr/bin/env bash
# Shared helpers for the end-to-end scenarios. Source it; do not run it.
#
#   APPT            absolute path of the binary under test (set by e2e_init)
#   E2E_TZ          the zone every appt process runs in (default UTC)
#   APPT_NOW        when set, the instant every appt process's clock starts at;
#                   the scripts' own "today" and "now" come from it too (e2e_date, day_label).
#                   Unset: the real clock, for appt and for the scripts.
#   T               the current scenario's private temp dir (removed on exit)
#   OUT ERR STATUS  what the last run_appt printed and returned
#
# Every scenario runs in its own subshell (run_scenario) with its own temp dir,
# HOME, XDG_DATA_HOME, XDG_CONFIG_HOME (so no user's settings file is read; APPT_CONFIG
# unset, LC_TIME=C so the locale's week start is Monday) and, for TUI scenarios, its own
# tmux server on a private socket; the EXIT trap of that subshell removes the dir and kills
# only that server.
set -u

E2E_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
E2E_ROOT=$(cd "$E2E_DIR/../.." && pwd)
E2E_PASSED=0
E2E_FAILED=0
E2E_FAILED_NAMES=()

# e2e_init [BINARY]: resolve the binary (argument, $APPT, then .build release/debug).
e2e_init() {
    local bin=${1:-${APPT:-}}
    if [[ -z $bin ]]; then
        local c
        for c in "$E2E_ROOT/.build/release/appt" "$E2E_ROOT/.build/debug/appt"; do
            if [[ -x $c ]]; then bin=$c; break; fi
        done
    fi
    if [[ -z $bin || ! -x $bin ]]; then
        echo "e2e: no appt binary (pass its path as the first argument)" >&2
        exit 2
    fi
    APPT=$(cd "$(dirname "$bin")" && pwd)/$(basename "$bin")
    export APPT
    command -v python3 >/dev/null || { echo "e2e: python3 is required" >&2; exit 2; }
    E2E_TZ=${E2E_TZ:-UTC}
    export E2E_TZ
    if [[ -n ${APPT_NOW:-} ]]; then
        TZ=$E2E_TZ e2e_set_now "$APPT_NOW" || exit 2
    else
        unset APPT_NOW E2E_NOW_EPOCH
    fi
}

# e2e_set_now ISO: from now on (in this shell and its children) every appt process starts its
# clock at ISO, and the scripts' "today" is ISO's day. ISO is read as appt reads APPT_NOW
# (local in $TZ unless it ends in Z or an offset; a time in a DST gap moves forward, one that
# happens twice is the first) and exported with its offset, so a scenario that changes TZ
# still means the same instant.
e2e_set_now() {
    local epoch
    epoch=$(python3 - "$1" <<'PY'
import datetime, re, sys, zoneinfo, os
m = re.fullmatch(r"(\d{4})-(\d{2})-(\d{2})[Tt ](\d{2}):(\d{2})(?::(\d{2})(\.\d{1,9})?)?(Z|z|[+-]\d{2}(?::?\d{2})?)?", sys.argv[1])
if not m:
    sys.exit(1)
y, mo, d, h, mi = (int(m.group(i)) for i in range(1, 6))
s = int(m.group(6) or 0)
off = m.group(8)
if off is None:
    name = os.environ.get("TZ", "UTC").lstrip(":") or "UTC"
    tz = zoneinfo.ZoneInfo(name.removeprefix("/usr/share/zoneinfo/"))
elif off in "Zz":
    tz = datetime.timezone.utc
else:
    digits = off[1:].replace(":", "")
    delta = datetime.timedelta(hours=int(digits[:2]), minutes=int(digits[2:] or 0))
    tz = datetime.timezone(delta if off[0] == "+" else -delta)
# fold=0: in an overlap the first time; in a gap the offset before it (moves forward)
local = datetime.datetime(y, mo, d, h, mi, s, tzinfo=tz)
print(int(local.timestamp()))
PY
    ) || { echo "e2e: APPT_NOW=$1 is not a time the scripts can read (use e.g. 2026-12-01T09:51)" >&2; return 1; }
    E2E_NOW_EPOCH=$epoch
    APPT_NOW=$(date -d "@$epoch" +%FT%T%:z)
    export E2E_NOW_EPOCH APPT_NOW
}

# e2e_now_epoch: "now" in seconds since 1970 as appt sees it: APPT_NOW's instant when set
# (every appt process of the run starts there), else the real clock.
e2e_now_epoch() {
    if [[ -n ${E2E_NOW_EPOCH:-} ]]; then echo "$E2E_NOW_EPOCH"; else date +%s; fi
}

# e2e_date [DAY_OFFSET] [FORMAT]: today (+ DAY_OFFSET days) in $TZ, as appt's "today" is,
# formatted by date(1) (default +%F). DST-safe: counts from that day's noon.
e2e_date() {
    local today noon
    today=$(date -d "@$(e2e_now_epoch)" +%F)
    noon=$(date -d "$today 12:00" +%s)
    LC_ALL=C date -d "@$((noon + ${1:-0} * 86400))" "${2:-+%F}"
}

# e2e_instant DAY_OFFSET HH:MM: that local time as ISO 8601 with its offset, as appt's --json
# prints it (e.g. 2026-12-01T11:00:00+01:00).
e2e_instant() {
    date -d "$(e2e_date "$1") $2" +%FT%T%:z
}

# ---------------------------------------------------------------- checks

# fail MESSAGE...: record a failed check in the current scenario (does not stop it).
fail() {
    # control bytes (from the app's output) are shown as '?' so a failure report
    # cannot garble the terminal running the tests
    printf '    FAIL: %s\n' "$*" | LC_ALL=C sed $'s/[\x01-\x08\x0b-\x1f\x7f]/?/g' >&2
    E2E_SCENARIO_FAILED=1
    return 1
}

# check_eq EXPECTED ACTUAL [WHAT]
check_eq() {
    if [[ "$1" == "$2" ]]; then return 0; fi
    fail "${3:-values differ}: expected [$1], got [$2]"
}

# check_contains HAYSTACK NEEDLE [WHAT]
check_contains() {
    if [[ "$1" == *"$2"* ]]; then return 0; fi
    fail "${3:-missing text}: [$2] not found in:
$(printf '%s\n' "$1" | sed 's/^/      | /')"
}

# check_not_contains HAYSTACK NEEDLE [WHAT]
check_not_contains() {
    if [[ "$1" != *"$2"* ]]; then return 0; fi
    fail "${3:-unexpected text}: [$2] found in:
$(printf '%s\n' "$1" | sed 's/^/      | /')"
}

# check_status EXPECTED [WHAT]: compare with $STATUS from the last run_appt.
check_status() {
    if [[ "$STATUS" == "$1" ]]; then return 0; fi
    fail "${2:-exit status}: expected $1, got $STATUS (stderr: $ERR)"
}

# ---------------------------------------------------------------- running the app

# The environment every appt process of a scenario gets (set by run_scenario).
e2e_app_env() {
    export SWIFT_BACKTRACE=interactive=no
    export TZ=$E2E_TZ
    export HOME="$T/home"
    export XDG_DATA_HOME="$T/xdg"
    export XDG_CONFIG_HOME="$T/config"
    unset APPT_DB APPT_CONFIG LC_ALL
    export LC_TIME=C
    mkdir -p "$HOME"
}

# How long one appt command may run before it counts as hung: a watchdog, never a timing
# (a debug build beside other work: a 1 MB script line once took 94 s at a load average of 17).
E2E_WATCHDOG=${E2E_WATCHDOG:-120}

# run_appt ARGS...: run the binary with the caller's stdin; sets OUT, ERR, STATUS.
# A watchdog timeout turns a hang into a failure (status 124) instead of a stuck run.
run_appt() {
    timeout -k 2 "$E2E_WATCHDOG" "$APPT" "$@" >"$T/.out" 2>"$T/.err"
    STATUS=$?
    OUT=$(cat "$T/.out")
    ERR=$(cat "$T/.err")
    return 0
}

# run_script TEXT ARGS...: feed TEXT (printf %b is NOT applied) as stdin to appt ARGS.
run_script() {
    local text=$1
    shift
    run_appt "$@" <<<"$text"
}

# sql FILE STATEMENT: run SQL with Python's sqlite3 (the sqlite3 CLI may not be installed).
sql() {
    python3 - "$1" "$2" <<'PY'
import sqlite3, sys
connection = sqlite3.connect(sys.argv[1], isolation_level=None)
for row in connection.execute(sys.argv[2]):
    print("|".join(str(value) for value in row))
connection.close()
PY
}

# ---------------------------------------------------------------- scenarios

# run_scenario NAME: run function NAME in a subshell with a fresh temp dir.
# Its stdout and stderr (the FAIL lines) are shown after the verdict.
run_scenario() {
    local name=$1 rc log
    log=$(mktemp "${TMPDIR:-/tmp}/appt-e2e-log.XXXXXX")
    (
        E2E_SCENARIO_FAILED=0
        T=$(mktemp -d "${TMPDIR:-/tmp}/appt-e2e.XXXXXX") || exit 99
        E2E_TMUX_SOCKET=""
        E2E_TMUX_SERVER_PID=""
        E2E_TMUX_SOCKET_PATH=""
        E2E_BG_PIDS=()
        trap e2e_cleanup EXIT
        e2e_app_env
        cd "$T" || exit 99
        "$name" </dev/null
        exit "$E2E_SCENARIO_FAILED"
    ) >"$log" 2>&1
    rc=$?
    if [[ $rc -eq 0 ]]; then
        printf '  %-44s ok\n' "$name"
        E2E_PASSED=$((E2E_PASSED + 1))
    else
        printf '  %-44s FAILED\n' "$name"
        E2E_FAILED=$((E2E_FAILED + 1))
        E2E_FAILED_NAMES+=("$name")
    fi
    if [[ -s $log ]]; then
        sed 's/^/  /' "$log"
    fi
    rm -f "$log"
}

# e2e_finish LABEL: print "LABEL: N passed, M failed" and exit accordingly.
e2e_finish() {
    if ((E2E_FAILED > 0)); then
        echo "  failed: ${E2E_FAILED_NAMES[*]}"
    fi
    echo "$1: $E2E_PASSED passed, $E2E_FAILED failed"
    if ((E2E_FAILED > 0)); then exit 1; fi
    exit 0
}

e2e_cleanup() {
    local pid
    for pid in "${E2E_BG_PIDS[@]}"; do
        kill "$pid" 2>/dev/null
    done
    if [[ -n ${E2E_TMUX_SOCKET:-} ]]; then
        tmux -L "$E2E_TMUX_SOCKET" kill-server 2>/dev/null
        # tmux leaves its socket file behind; remove ours (and only ours)
        [[ -n ${E2E_TMUX_SOCKET_PATH:-} && -S $E2E_TMUX_SOCKET_PATH ]] && rm -f "$E2E_TMUX_SOCKET_PATH"
    fi
    if [[ -n ${T:-} && -d $T ]]; then
        rm -rf "$T"
    fi
}

# now_us: wall clock in microseconds (bash 5's EPOCHREALTIME, no fork).
now_us() {
    local t=$EPOCHREALTIME
    echo $((10#${t/./}))
}

# ---------------------------------------------------------------- tmux

# tm ARGS...: tmux on this scenario's private socket.
tm() {
    tmux -f /dev/null -L "$E2E_TMUX_SOCKET" "$@"
}

# tmux_start CMD [ARGS...]: start CMD (argv, not a shell string) in a detached
# 100x30 session on a new private server, in the scenario's app environment.
# Panes stay after exit so the exit status can be read.
tmux_start() {
    E2E_TMUX_SOCKET="appt-e2e-$$-$BASHPID-$RANDOM"
    tm start-server \; \
        set-option -g remain-on-exit on \; \
        set-option -g status off \; \
        new-session -d -x 100 -y 30 -- \
        env -u LANG -u LC_ALL -u LC_CTYPE -u LC_TIME -u APPT_CONFIG $(e2e_clock_env) \
        SWIFT_BACKTRACE=interactive=no HOME="$HOME" XDG_DATA_HOME="$XDG_DATA_HOME" \
        XDG_CONFIG_HOME="$XDG_CONFIG_HOME" "$@" || { fail "tmux could not start: $*"; return 1; }
    E2E_TMUX_SERVER_PID=$(tm display-message -p '#{pid}')
    E2E_TMUX_SOCKET_PATH=$(tm display-message -p '#{socket_path}')
}

# e2e_clock_env: env(1) arguments that give a process this shell's TZ and APPT_NOW (or
# none), for processes started with an explicit environment (tmux panes). Neither value
# holds a blank (e2e_set_now writes APPT_NOW; a TZ is a zone name).
e2e_clock_env() {
    # env(1) takes its -u options before the first NAME=VALUE
    if [[ -n ${APPT_NOW:-} ]]; then echo "TZ=${TZ:-UTC} APPT_NOW=$APPT_NOW"; else echo "-u APPT_NOW TZ=${TZ:-UTC}"; fi
}

# tmux_start_appt [ARGS...]: the app on the scenario's database ($T/db.sqlite3).
tmux_start_appt() {
    tmux_start "$APPT" --db "$T/db.sqlite3" "$@"
}

tmux_keys() { tm send-keys "$@"; }          # named keys: Tab Enter Escape C-c ...
tmux_type() { tm send-keys -l -- "$1"; }    # literal text
tmux_screen() { tm capture-pane -p 2>/dev/null; }

# pane_field FORMAT: one list-panes format value.
pane_field() { tm list-panes -F "$1" 2>/dev/null | head -1; }

# wait_for_text TEXT [TIMEOUT_SECONDS=5]: poll the screen every 20 ms.
wait_for_text() {
    local text=$1 timeout=${2:-5} deadline screen
    deadline=$(($(now_us) + ${timeout%.*} * 1000000))
    while :; do
        screen=$(tmux_screen)
        if [[ $screen == *"$text"* ]]; then return 0; fi
        if (($(now_us) > deadline)); then
            fail "timed out after ${timeout}s waiting for [$text] on screen:
$(printf '%s\n' "$screen" | cat -s | sed 's/^/      | /')"
            return 1
        fi
        sleep 0.02
    done
}

# wait_for_no_text TEXT [TIMEOUT_SECONDS=5]
wait_for_no_text() {
    local text=$1 timeout=${2:-5} deadline screen
    deadline=$(($(now_us) + ${timeout%.*} * 1000000))
    while :; do
        screen=$(tmux_screen)
        if [[ $screen != *"$text"* ]]; then return 0; fi
        if (($(now_us) > deadline)); then
            fail "timed out after ${timeout}s waiting for [$text] to go away:
$(printf '%s\n' "$screen" | cat -s | sed 's/^/      | /')"
            return 1
        fi
        sleep 0.02
    done
}

# wait_for_line N TEXT [TIMEOUT_SECONDS=5]: poll until screen line N (1-based) contains TEXT.
wait_for_line() {
    local n=$1 text=$2 timeout=${3:-5} deadline screen
    deadline=$(($(now_us) + ${timeout%.*} * 1000000))
    while :; do
        screen=$(tmux_screen)
        if [[ $(sed -n "${n}p" <<<"$screen") == *"$text"* ]]; then return 0; fi
        if (($(now_us) > deadline)); then
            fail "timed out after ${timeout}s waiting for [$text] on line $n:
$(printf '%s\n' "$screen" | sed 's/^/      | /')"
            return 1
        fi
        sleep 0.02
    done
}

# wait_for_exit [TIMEOUT_SECONDS=5]: wait until the pane's process has exited;
# sets PANE_STATUS to its exit status ("sig N" when killed by a signal).
#
# tmux 3.3a linked with libutempter sometimes misses the SIGCHLD of a pane's
# process (tmux/tmux#311: utempter's own SIGCHLD handler is installed while the
# pane is torn down), leaving the pane dead with an empty #{pane_dead_status}
# and the process a zombie. When the pane is dead but has no status yet, nudge
# OUR server (and only ours) with a SIGCHLD so it reaps the child.
wait_for_exit() {
    local timeout=${1:-5} deadline line dead st sig
    deadline=$(($(now_us) + ${timeout%.*} * 1000000))
    PANE_STATUS=""
    while :; do
        line=$(pane_field '#{pane_dead}|#{pane_dead_status}|#{pane_dead_signal}')
        IFS='|' read -r dead st sig <<<"$line"
        if [[ $dead == 1 ]]; then
            if [[ -n $st ]]; then PANE_STATUS=$st; return 0; fi
            if [[ -n $sig ]]; then PANE_STATUS="sig $sig"; return 0; fi
            [[ -n $E2E_TMUX_SERVER_PID ]] && kill -CHLD "$E2E_TMUX_SERVER_PID" 2>/dev/null
        fi
        if (($(now_us) > deadline)); then
            fail "timed out after ${timeout}s waiting for the app to exit (pane: $line):
$(tmux_screen | cat -s | sed 's/^/      | /')"
            return 1
        fi
        sleep 0.02
    done
}

# pane_alive: the app is still running in the pane.
pane_alive() {
    [[ $(pane_field '#{pane_dead}') == 0 ]]
}

# day_label [DAY_OFFSET]: the header date as the TUI prints it, e.g. "Sun 29 Nov 2026".
day_label() {
    e2e_date "${1:-0}" '+%a %-d %b %Y'
}
