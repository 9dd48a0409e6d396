#!/usr/bin/env bash
# End-to-end scenarios for appt's one-shot and script (stdin) modes.
# usage: Tests/e2e/script_mode.sh [PATH_TO_APPT]
set -u
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
e2e_init "${1:-}"

DB=db.sqlite3   # relative to the scenario's temp dir (the working directory)

# ids_of: the full ids, one per line, of every appointment (cancelled included).
ids_of() {
    "$APPT" --db "$1" --json list --all --include-cancelled |
        python3 -c 'import sys, json
for l in sys.stdin:
    if l.strip(): print(json.loads(l)["id"])'
}

# ------------------------------------------------------------------ scenarios

issue_example() {
    run_script $'add "Dentist" --at "2026-12-01 10:00" --for 45m\nlist --from 2026-12-01 --days 1' --db "$DB"
    check_status 0 "add + list"
    check_eq "" "$ERR" "stderr"
    local listed
    listed=$(printf '%s\n' "$OUT" | sed -n 2p)
    [[ $listed =~ ^[0-9a-f]{6}\ .*Tue\ 2026-12-01.*10:00-10:45.*Dentist$ ]] ||
        fail "list line should be '<6-hex id>  Tue 2026-12-01  10:00-10:45  Dentist', got [$listed]"

    run_appt --db "$DB" --json list --all
    check_status 0 "--json list --all"
    printf '%s\n' "$OUT" | python3 -c '
import sys, json, datetime
lines = [l for l in sys.stdin.read().splitlines() if l.strip()]
assert len(lines) == 1, f"expected 1 JSON line, got {len(lines)}: {lines}"
o = json.loads(lines[0])
# The eight base keys first, in order, then the four series and whole-day keys, the
# revision and the location (README; an override adds series and recurrence_id), and the
# calendar, the reminders.
keys = ["id", "title", "start", "end", "note", "status", "created", "updated", "all_day", "repeat", "occurrence", "time_zone", "revision", "location", "calendar", "reminders", "uid", "organizer", "attendees"]
assert list(o) == keys, f"keys {list(o)} != {keys}"
assert o["all_day"] is False and o["repeat"] is None and o["occurrence"] is None, o
assert o["title"] == "Dentist", o
assert o["status"] == "scheduled", o
import uuid
assert str(uuid.UUID(o["id"])) == o["id"], "id not a lower-case UUID: " + o["id"]
for k in ("start", "end", "created", "updated"):
    t = datetime.datetime.fromisoformat(o[k])
    assert t.tzinfo is not None, f"{k} has no UTC offset: {o[k]}"
import os, zoneinfo
local = zoneinfo.ZoneInfo(os.environ["TZ"])  # the zone of the run (E2E_TZ): times are local
assert datetime.datetime.fromisoformat(o["start"]) == datetime.datetime(2026, 12, 1, 10, 0, tzinfo=local), o["start"]
assert datetime.datetime.fromisoformat(o["end"]) == datetime.datetime(2026, 12, 1, 10, 45, tzinfo=local), o["end"]
' 2>&1 || fail "JSON line check failed (output: $OUT)"
}

second_process_sees_data() {
    run_appt --db "$DB" --json add "Shared" --at "2026-12-02 09:00"
    check_status 0 "add in process 1"
    local id
    id=$(printf '%s\n' "$OUT" | python3 -c 'import sys, json; print(json.loads(sys.stdin.readline())["id"])' 2>/dev/null)
    [[ -n $id ]] || { fail "add --json printed no id: $OUT"; return; }
    run_appt --db "$DB" show "$id"
    check_status 0 "show in process 2"
    check_contains "$OUT" "Shared" "show"
    run_appt --db "$DB" --json list --all
    check_contains "$OUT" "\"id\":\"$id\"" "list --json in process 3"
    # A long-lived script process sees a commit made by another process meanwhile.
    coproc READER { exec "$APPT" --db "$DB" 2>&1; }
    E2E_BG_PIDS+=("$READER_PID")
    "$APPT" --db "$DB" add "Later" --at "2026-12-02 11:00" >/dev/null
    echo 'list --from 2026-12-02 --days 1' >&"${READER[1]}"
    local l1 l2
    read -t 5 -r l1 <&"${READER[0]}"
    read -t 5 -r l2 <&"${READER[0]}"
    check_contains "$l1$l2" "Later" "running script process sees the other process's add"
    exec {READER[1]}>&-
    wait "$READER_PID" 2>/dev/null
}

cancel_by_prefix() {
    run_appt --db "$DB" add "Haircut" --at "2026-12-03 15:00"
    check_status 0 "add"
    run_appt --db "$DB" add "Keep me" --at "2026-12-03 16:00"
    run_appt --db "$DB" list --all
    local prefix
    prefix=$(printf '%s\n' "$OUT" | awk '/Haircut/ {print $1}')
    [[ $prefix =~ ^[0-9a-f]{6}$ ]] || { fail "no 6-char id for Haircut in: $OUT"; return; }
    run_appt --db "$DB" cancel "$prefix"
    check_status 0 "cancel $prefix"
    run_appt --db "$DB" list --all
    check_not_contains "$OUT" "Haircut" "list --all after cancel"
    check_contains "$OUT" "Keep me" "list --all after cancel"
    run_appt --db "$DB" list --all --include-cancelled
    local line
    line=$(printf '%s\n' "$OUT" | grep Haircut)
    check_contains "$line" "cancelled" "list --include-cancelled marks it"
    check_not_contains "$(printf '%s\n' "$OUT" | grep 'Keep me')" "cancelled" "the other one"
    run_appt --db "$DB" --json list --all --include-cancelled
    check_contains "$(printf '%s\n' "$OUT" | grep Haircut)" '"status":"cancelled"' "JSON status"
}

bad_line_in_middle() {
    run_script $'add "Alpha" --at "2026-12-04 09:00"\nadd "X" --at "2026-13-45 25:99"\nadd "Gamma" --at "2026-12-04 11:00"' --db "$DB"
    check_status 1 "script with one bad line"
    [[ $ERR =~ ^line\ 2:\  ]] || fail "stderr should start with 'line 2: ', got [$ERR]"
    check_contains "$ERR" "2026-13-45" "the error names the bad value"
    check_eq 1 "$(printf '%s\n' "$ERR" | grep -c .)" "exactly one error line"
    check_eq 2 "$(printf '%s\n' "$OUT" | grep -c .)" "two acknowledged adds on stdout"
    run_appt --db "$DB" list --all --include-cancelled
    check_contains "$OUT" "Alpha" "line 1 kept"
    check_contains "$OUT" "Gamma" "line 3 applied"
    check_eq 0 "$(printf '%s\n' "$OUT" | grep -c '  X$')" "bad line changed nothing"
    check_eq 2 "$(printf '%s\n' "$OUT" | grep -c .)" "exactly two appointments"
}

unknown_command() {
    run_appt --db "$DB" frobnicate
    check_status 2 "one-shot unknown command"
    [[ -n $ERR ]] || fail "unknown command: no message on stderr"
    run_script $'add "A" --at "2026-12-05 09:00"\nfrobnicate' --db "$DB"
    check_status 2 "script with an unknown command"
    check_contains "$ERR" "line 2:" "script error line number"
}

unknown_option() {
    run_appt --db "$DB" list --frobnicate
    check_status 2 "one-shot unknown option"
    check_contains "$ERR" "--frobnicate" "message names the option"
    run_appt --db "$DB" --frobnicate list
    check_status 2 "unknown global option"
    run_script 'add "A" --at "2026-12-05 09:00" --colour red' --db "$DB"
    check_status 2 "script with an unknown option"
    run_appt --db "$DB" list --all
    check_eq "" "$OUT" "the line with an unknown option changed nothing"
}

unknown_id() {
    run_appt --db "$DB" add "Only" --at "2026-12-06 09:00"
    local id prefix
    id=$(ids_of "$DB")
    # a prefix that cannot match: flip the first hex digit
    prefix=$(printf '%x' $(( (16#${id:0:1} + 8) % 16 )))${id:1:7}
    run_appt --db "$DB" show "$prefix"
    check_status 1 "show unknown id"
    check_contains "$ERR" "$prefix" "message names the id"
    run_appt --db "$DB" cancel "$prefix"
    check_status 1 "cancel unknown id"
    run_appt --db "$DB" cancel "00000000-0000-4000-8000-000000000000"
    check_status 1 "cancel unknown full uuid"
    run_appt --db "$DB" list --all
    check_contains "$OUT" "Only" "nothing changed"
}

ambiguous_prefix() {
    # ~1500 ids give about 17 pairs sharing a 4-hex-digit prefix (birthday bound).
    local n prefix
    for n in 1500 1500 3000; do
        seq 1 "$n" | awk '{printf "add \"Bulk %d\" --at \"2026-12-07 09:00\"\n", $1}' |
            "$APPT" --db "$DB" >/dev/null 2>&1
        prefix=$(ids_of "$DB" | cut -c1-4 | sort | uniq -d | head -1)
        [[ -n $prefix ]] && break
    done
    [[ -n $prefix ]] || { fail "no 4-char prefix collision found"; return; }
    local matching
    matching=$(ids_of "$DB" | grep "^$prefix")
    run_appt --db "$DB" show "$prefix"
    check_status 1 "show ambiguous prefix $prefix"
    check_contains "$ERR" "ambiguous" "message says ambiguous"
    local id
    while read -r id; do
        check_contains "$ERR" "$id" "candidates listed"
    done <<<"$matching"
    run_appt --db "$DB" cancel "$prefix"
    check_status 1 "cancel ambiguous prefix"
    run_appt --db "$DB" --json list --all --include-cancelled
    check_not_contains "$OUT" '"status":"cancelled"' "nothing was cancelled"
    # a longer, unique prefix of one of them works
    id=$(head -1 <<<"$matching")
    run_appt --db "$DB" show "${id:0:8}"
    check_status 0 "show with a unique 8-char prefix"
}

bail_stops() {
    run_script $'add "First" --at "2026-12-08 09:00"\nadd "Bad" --at "nonsense o\'clock"\nadd "Third" --at "2026-12-08 11:00"' --db "$DB" --bail
    check_status 1 "--bail exit status"
    check_contains "$ERR" "line 2:" "--bail reports the failing line"
    run_appt --db "$DB" list --all
    check_contains "$OUT" "First" "line before the error kept"
    check_not_contains "$OUT" "Third" "line after the error NOT applied with --bail"
    # without --bail the same script goes on
    run_script $'add "Fourth" --at "2026-12-08 12:00"\nadd "Bad" --at "nonsense"\nadd "Fifth" --at "2026-12-08 13:00"' --db "$DB"
    check_status 1 "no --bail exit status"
    run_appt --db "$DB" list --all
    check_contains "$OUT" "Fifth" "line after the error applied without --bail"
}

blank_and_comments() {
    local script
    script=$'# a comment\n\n   \nadd "One" --at "2026-12-09 09:00"\n    # indented comment\n\t\nadd "Two" --at "2026-12-09 10:00"   \n\nshow zz\n'
    run_script "$script" --db "$DB"
    check_status 1 "script whose only bad line is line 9"
    check_eq "line 9:" "${ERR:0:7}" "line numbers count blank and comment lines"
    check_eq 1 "$(printf '%s\n' "$ERR" | grep -c .)" "comments and blanks give no errors"
    run_appt --db "$DB" list --all
    check_eq 2 "$(printf '%s\n' "$OUT" | grep -c .)" "two appointments"
    check_contains "$OUT" "One"
    check_contains "$OUT" "Two"
    run_script $'# only comments\n\n# and blanks\n' --db "$DB"
    check_status 0 "comments-only script"
    check_eq "" "$OUT$ERR" "comments-only script prints nothing"
}

oneshot_equals_script() {
    local cmds=(
        'add "Standup" --at "2026-12-10 09:15" --for 15m'
        'add "Review" --at "2026-12-10T14:00" --until 15:30 --note "bring notes"'
        'add "Lunch" --at "2026-12-11 12:00" --for 1h30m'
        'list --from 2026-12-10 --days 2'
    )
    local c one="" scr="" tmp
    for c in "${cmds[@]}"; do
        eval "run_appt --db one.sqlite3 $c"
        [[ $STATUS == 0 ]] || fail "one-shot [$c] exit $STATUS: $ERR"
        one+="$OUT"$'\n'
    done
    run_script "$(printf '%s\n' "${cmds[@]}")" --db script.sqlite3
    check_status 0 "script"
    scr="$OUT"$'\n'
    # same output except for the ids
    strip() { sed -E 's/\b[0-9a-f]{6}\b/ID/g'; }
    check_eq "$(strip <<<"$one")" "$(strip <<<"$scr")" "one-shot vs script stdout"
    local j1 j2
    norm='import sys, json
for l in sys.stdin:
    if l.strip():
        o = json.loads(l)
        for k in ("id", "uid", "created", "updated"): o.pop(k, None)
        print(json.dumps(o, sort_keys=True))'
    j1=$("$APPT" --db one.sqlite3 --json list --all | python3 -c "$norm")
    j2=$("$APPT" --db script.sqlite3 --json list --all | python3 -c "$norm")
    check_eq "$j1" "$j2" "stored appointments (JSON without ids/timestamps)"
    check_eq 3 "$(printf '%s\n' "$j1" | grep -c .)" "three appointments"
}

flush_per_command() {
    coproc APP { exec "$APPT" --db "$DB" 2>&1; }
    E2E_BG_PIDS+=("$APP_PID")
    echo 'add "Flushed" --at "2026-12-12 10:00"' >&"${APP[1]}"
    local line=""
    if read -t 5 -r line <&"${APP[0]}"; then
        check_contains "$line" "Flushed" "first command's output"
    else
        fail "no output for the first command within 5 s while stdin is still open (not flushed per command)"
    fi
    echo 'list --from 2026-12-12 --days 1' >&"${APP[1]}"
    if read -t 5 -r line <&"${APP[0]}"; then
        check_contains "$line" "Flushed" "second command's output"
    else
        fail "no output for the second command within 5 s"
    fi
    echo 'show zzzz' >&"${APP[1]}"
    if read -t 5 -r line <&"${APP[0]}"; then
        check_contains "$line" "line 3:" "an error is flushed too"
    else
        fail "no error output within 5 s"
    fi
    exec {APP[1]}>&-
    local pid=$APP_PID
    wait "$pid"
    check_eq 1 "$?" "exit status after the stream ends (worst line failed)"
}

default_path() {
    run_appt add "Default" --at "2026-12-13 10:00"
    check_status 0 "add with no --db"
    local f="$T/xdg/appt/appointments.sqlite3"
    [[ -f $f ]] || { fail "no database at $f"; return; }
    check_eq 600 "$(stat -c %a "$f")" "file mode"
    check_eq 700 "$(stat -c %a "$T/xdg/appt")" "directory mode"
    run_appt list --all
    check_contains "$OUT" "Default" "second process finds it at the default path"
    # XDG_DATA_HOME unset: ~/.local/share/appt
    unset XDG_DATA_HOME
    run_appt add "Home" --at "2026-12-13 11:00"
    check_status 0 "add with XDG_DATA_HOME unset"
    f="$HOME/.local/share/appt/appointments.sqlite3"
    [[ -f $f ]] || fail "no database at $f"
    [[ -f $f ]] && check_eq 600 "$(stat -c %a "$f")" "file mode (HOME)"
    [[ -d $HOME/.local/share/appt ]] && check_eq 700 "$(stat -c %a "$HOME/.local/share/appt")" "directory mode (HOME)"
}

appt_db_env() {
    export APPT_DB="$T/env/place.sqlite3"
    mkdir -p "$T/env"
    run_appt add "Env" --at "2026-12-14 10:00"
    check_status 0 "add with APPT_DB"
    [[ -f $APPT_DB ]] || fail "APPT_DB file not created"
    [[ -e $T/xdg/appt/appointments.sqlite3 ]] && fail "default path used although APPT_DB is set"
    run_appt list --all
    check_contains "$OUT" "Env" "list via APPT_DB"
    run_appt --db other.sqlite3 list --all
    check_status 0 "--db with APPT_DB set"
    check_not_contains "$OUT" "Env" "--db takes precedence over APPT_DB"
    unset APPT_DB
}

pipe_to_head() {
    seq 1 3000 | awk '{printf "add \"Row %d with some padding text\" --at \"today 08:00\"\n", $1}' |
        "$APPT" --db "$DB" >/dev/null 2>&1
    local first rc
    first=$("$APPT" --db "$DB" list 2>"$T/err" | head -1; echo "rc=${PIPESTATUS[0]}")
    rc=${first##*rc=}
    first=${first%%$'\n'rc=*}
    check_contains "$first" "Row 1 " "first line"
    [[ $rc == 0 || $rc == 141 ]] || fail "appt list | head -1: exit status $rc (expected 0 or 141)"
    check_eq "" "$(cat "$T/err")" "no error message when the reader goes away"
    first=$("$APPT" --db "$DB" --json list 2>"$T/err" | head -1; echo "rc=${PIPESTATUS[0]}")
    rc=${first##*rc=}
    [[ $rc == 0 || $rc == 141 ]] || fail "appt --json list | head -1: exit status $rc"
    check_eq "" "$(cat "$T/err")" "no error message (json)"
}

escaped_title() {
    printf 'add "\033]0;pwned\007\033[2J evil\x7f" --at "2026-12-15 10:00"\nlist --all\n' |
        "$APPT" --db "$DB" >"$T/out" 2>"$T/err"
    check_eq 0 "$?" "add + list of a title with control bytes"
    check_eq 0 "$(grep -c $'\x1b' "$T/out")" "raw ESC bytes in stdout"
    check_eq 0 "$(grep -c $'\x07' "$T/out")" "raw BEL bytes in stdout"
    check_eq 0 "$(grep -c $'\x7f' "$T/out")" "raw DEL bytes in stdout"
    check_contains "$(cat "$T/out")" "^[]0;pwned" "escaped form shown"
    run_appt --db "$DB" show "$(ids_of "$DB")"
    check_eq 0 "$(grep -c $'\x1b' <<<"$OUT")" "raw ESC bytes in show"
    # the data itself is stored intact: JSON escapes it and parses back to the bytes
    "$APPT" --db "$DB" --json list --all >"$T/json"
    check_eq 0 "$(grep -c $'\x1b' "$T/json")" "raw ESC bytes in --json output"
    python3 -c '
import sys, json
o = json.loads(open(sys.argv[1]).readline())
want = "\x1b]0;pwned\x07\x1b[2J evil\x7f"
assert o["title"] == want, repr(o["title"])' "$T/json" 2>&1 || fail "title not stored intact"
}

garbage_db() {
    head -c 8192 /dev/urandom >garbage.bin
    cp garbage.bin garbage.orig
    run_appt --db garbage.bin list --all
    check_status 3 "random bytes as --db"
    [[ -n $ERR ]] || fail "no message on stderr"
    cmp -s garbage.bin garbage.orig || fail "garbage file was modified"
    [[ -e garbage.bin-wal || -e garbage.bin-shm || -e garbage.bin-journal ]] &&
        fail "side files created: $(ls garbage.bin-* 2>/dev/null)"
    run_appt --db garbage.bin add "X" --at "2026-12-16 10:00"
    check_status 3 "add into random bytes"
    cmp -s garbage.bin garbage.orig || fail "garbage file was modified by add"
    printf 'this is my shopping list\nmilk\neggs\n' >notes.txt
    cp notes.txt notes.orig
    run_script 'add "X" --at "2026-12-16 10:00"' --db notes.txt
    check_status 3 "a text file as --db (script mode)"
    cmp -s notes.txt notes.orig || fail "text file was modified"
    [[ -e notes.txt-wal || -e notes.txt-shm || -e notes.txt-journal ]] && fail "side files created for notes.txt"
    return 0
}

version_and_help() {
    run_appt --version
    check_status 0 "--version"
    [[ $OUT =~ ^appt\ [0-9]+\.[0-9]+ ]] || fail "--version output: [$OUT]"
    run_appt help
    check_status 0 "help"
    check_contains "$OUT" "usage: appt" "help text"
    run_appt --help
    check_status 0 "--help"
}

# An edit based on an old revision (someone else changed it since) is refused: exit 1, the
# message on stderr, the version stored now on stdout (as `show` prints it, or one JSON object).
stale_revision() {
    run_appt --db "$DB" --json add "Dentist" --at "2026-12-01 10:00"
    check_status 0 "add"
    local id
    id=$(printf '%s\n' "$OUT" | python3 -c 'import sys, json; print(json.loads(sys.stdin.readline())["id"])' 2>/dev/null)
    [[ -n $id ]] || { fail "add --json printed no id: $OUT"; return; }
    check_contains "$OUT" '"revision":1,' "a new appointment is at revision 1"
    run_appt --db "$DB" show "${id:0:8}"
    check_contains "$OUT" "revision: 1" "show prints the revision"

    run_appt --db "$DB" edit "${id:0:8}" --title "Theirs" --if-revision 1
    check_status 0 "edit at the current revision"
    check_contains "$OUT" "updated" "edit output"

    # Text mode: a one-shot stale edit.
    run_appt --db "$DB" edit "${id:0:8}" --title "Mine" --if-revision 1
    check_status 1 "stale edit"
    check_eq "appt: ${id:0:8} was changed by someone else (now revision 2); nothing changed" "$ERR" "stderr"
    check_contains "$OUT" "id: $id" "stdout shows the stored version"
    check_contains "$OUT" "title: Theirs" "stdout shows the stored version"
    check_contains "$OUT" "revision: 2" "stdout shows the stored revision"

    # JSON mode, in a script: line N: on stderr, the stored appointment as one JSON object.
    run_script "cancel ${id:0:8} --if-revision 2"$'\n'"edit ${id:0:8} --note x --if-revision 2"$'\n'"delete ${id:0:8} --if-revision 1" --db "$DB" --json
    check_status 1 "script with stale lines"
    check_eq "line 2: ${id:0:8} was changed by someone else (now revision 3); nothing changed"$'\n'"line 3: ${id:0:8} was changed by someone else (now revision 3); nothing changed" "$ERR" "stderr"
    printf '%s\n' "$OUT" | python3 -c '
import sys, json
lines = [json.loads(l) for l in sys.stdin.read().splitlines() if l.strip()]
assert len(lines) == 3, lines
assert lines[0]["status"] == "cancelled" and lines[0]["revision"] == 3, lines[0]
for stale in lines[1:]:
    assert stale == lines[0], (stale, lines[0])
' 2>&1 || fail "JSON output of stale lines (output: $OUT)"

    run_appt --db "$DB" show "$id"
    check_contains "$OUT" "title: Theirs" "nothing changed by the stale lines"
    check_contains "$OUT" "status: cancelled" "nothing changed by the stale lines"
    check_contains "$OUT" "note:" "nothing changed by the stale lines"
    check_not_contains "$OUT" "note: x" "nothing changed by the stale lines"
    check_contains "$OUT" "revision: 3" "nothing changed by the stale lines"

    # Without --if-revision, a change applies to whatever is stored now.
    run_appt --db "$DB" restore "${id:0:8}"
    check_status 0 "restore without --if-revision"
    run_appt --db "$DB" delete "${id:0:8}" --if-revision 4
    check_status 0 "delete at the current revision"

    # A bad revision is a usage error.
    run_appt --db "$DB" delete "${id:0:8}" --if-revision 0
    check_status 2 "--if-revision 0"
    check_contains "$ERR" 'delete: --if-revision needs a revision number (1 or more), not "0"' "usage message"
}

# json_field FIELD: that field of the first JSON line of $OUT.
json_field() {
    printf '%s\n' "$OUT" | python3 -c 'import sys, json; print(json.loads(sys.stdin.readline())[sys.argv[1]])' "$1" 2>/dev/null
}

# APPT_NOW starts the clock (local in TZ unless it carries an offset or Z; seconds optional):
# "today" and created/updated come from it, in one-shot and script mode alike.
appt_now_sets_the_clock() {
    TZ=Europe/Berlin APPT_NOW=2026-12-01T09:51 run_appt --db "$DB" --json add "Dentist" --at "today 10:00"
    check_status 0 "add under APPT_NOW"
    check_eq "2026-12-01T10:00:00+01:00" "$(json_field start)" "today is APPT_NOW's day"
    check_eq "2026-12-01T09:51:00+01:00" "$(json_field created)" "created is APPT_NOW"
    TZ=Europe/Berlin APPT_NOW=2026-12-01T23:30:00-05:00 run_script 'add "Early" --at "today 06:00"' --json --db "$DB"
    check_status 0 "script under an APPT_NOW with an offset"
    check_eq "2026-12-02T06:00:00+01:00" "$(json_field start)" "23:30 in New York is the next morning in Berlin"
    TZ=UTC APPT_NOW=2027-03-28T00:59:30Z run_appt --db "$DB" --json add "Zulu" --at tomorrow
    check_eq "2027-03-29T00:00:00+00:00" "$(json_field start)" "Z: UTC"
    # 02:30 does not happen in Berlin that night: read as 03:30 (summer time), like --at
    TZ=Europe/Berlin APPT_NOW=2027-03-28T02:30 run_appt --db "$DB" --json add "Gap" --at today
    check_eq "2027-03-28T03:30:00+02:00" "$(json_field created)" "a time in the DST gap moves forward"
    TZ=Europe/Berlin APPT_NOW=2026-12-01T09:51 run_appt --db "$DB" list
    check_eq 1 "$(grep -c Dentist <<<"$OUT")" "list's default range starts at APPT_NOW's today"
    APPT_NOW= run_appt --db "$DB" list --from 2026-12-01 --days 1
    check_status 0 "an empty APPT_NOW is unset"
}

# An APPT_NOW appt cannot read is refused (exit 2, the variable named), before anything is
# opened or created; never silently replaced by the real time.
appt_now_refused() {
    local value
    for value in garbage 2026-12-01 2026-02-30T10:00 "2026-12-01T25:00" "2026-12-01T10:00 Europe/Berlin"; do
        APPT_NOW=$value run_appt --db "$DB" add "X" --at today
        check_status 2 "APPT_NOW=$value"
        check_eq "appt: APPT_NOW=$value is not a date and time appt can read (use ISO 8601 such as 2026-12-01T09:51:00, optionally ending in Z or an offset like +01:00)" "$ERR" "message for APPT_NOW=$value"
        check_eq "" "$OUT" "stdout for APPT_NOW=$value"
        APPT_NOW=$value run_script 'list' --db "$DB"
        check_status 2 "script mode, APPT_NOW=$value"
    done
    [[ ! -e $DB ]] || fail "the database was created under an unreadable APPT_NOW"
}

# TZ is honoured as the C library reads it (an IANA name, with glibc's leading colon, or a
# path under /usr/share/zoneinfo) and the zone stored is the one named; anything else is
# refused with exit 2 rather than read as UTC (or, for GMT+3, as UTC+3 where date says UTC-3).
tz_honoured_or_refused() {
    local value
    for value in Europe/Berlin :Europe/Berlin /usr/share/zoneinfo/Europe/Berlin; do
        TZ=$value run_appt --db "$DB" --json add "Call" --at "2026-12-01 10:00"
        check_status 0 "TZ=$value"
        check_eq "2026-12-01T10:00:00+01:00" "$(json_field start)" "TZ=$value: 10:00 in Berlin"
        check_eq "Europe/Berlin" "$(json_field time_zone)" "TZ=$value: the zone stored"
    done
    for value in Nowhere/Foo EST5EDT,M3.2.0,M11.1.0 GMT+3 europe/berlin; do
        TZ=$value run_appt --db other.sqlite3 add "X" --at "2026-12-01 10:00"
        check_status 2 "TZ=$value"
        check_eq "appt: TZ=$value is not a time zone name appt knows (use an IANA name such as Europe/Berlin, or UTC)" "$ERR" "message for TZ=$value"
        TZ=$value run_script 'list' --db other.sqlite3
        check_status 2 "script mode, TZ=$value"
    done
    [[ ! -e other.sqlite3 ]] || fail "a database was created under an unknown TZ"
}

for s in issue_example second_process_sees_data cancel_by_prefix bad_line_in_middle \
    unknown_command unknown_option unknown_id ambiguous_prefix bail_stops \
    blank_and_comments oneshot_equals_script flush_per_command default_path \
    appt_db_env pipe_to_head escaped_title garbage_db version_and_help stale_revision \
    appt_now_sets_the_clock appt_now_refused tz_honoured_or_refused; do
    run_scenario "$s"
done
# ------------------------------------------------------------------ zones and DST

# A typed time in a DST gap or overlap is saved with a note on stderr saying which instant was
# chosen (`appt: note: ...` one-shot, `line N: note: ...` in a script; stdout and JSON as
# ever); `list` tells the two 02:30s of the autumn change apart; an Outlook export with
# Windows zone names imports at the right instants.
dst_notes_and_windows_zones() {
    export TZ=Europe/Berlin APPT_NOW=2027-03-01T10:00
    run_appt --db "$DB" add "Gap" --at "2027-03-28 02:30"
    check_status 0 "add in the spring gap"
    check_contains "$OUT" "Sun 2027-03-28  03:30-04:30  Gap" "saved at 03:30"
    check_eq "appt: note: 02:30 does not exist on 28 March 2027 in Europe/Berlin; saved at 03:30" "$ERR" "gap note"
    run_appt --db "$DB" --json add "First" --at "2027-10-31 02:30" --for 30m
    check_status 0 "add in the autumn overlap"
    check_eq "2027-10-31T02:30:00+02:00" "$(json_field start)" "the first 02:30 (CEST)"
    check_eq "appt: note: 02:30 happens twice on 31 October 2027 in Europe/Berlin; saved the first (+02:00)" "$ERR" "overlap note"
    run_script $'add "Plain" --at "2027-10-31 10:00"\nadd "Again" --at "2027-10-31 02:15"\nlist --from 2027-10-31 --days 1' --db "$DB"
    check_status 0 "script"
    check_eq "line 2: note: 02:15 happens twice on 31 October 2027 in Europe/Berlin; saved the first (+02:00)" "$ERR" "script note names its line"
    check_contains "$OUT" "02:30+02-02:00+01  First" "list marks the overlap"
    check_contains "$OUT" "10:00-11:00  Plain" "other times as ever"
    local id
    id=$(printf '%s\n' "$OUT" | grep -E '^[0-9a-f]{6}  .*  Plain$' | head -1 | cut -c1-6)
    run_appt --db "$DB" edit "$id" --at "2027-03-28 02:45"
    check_status 0 "edit into the gap"
    check_eq "appt: note: 02:45 does not exist on 28 March 2027 in Europe/Berlin; saved at 03:45" "$ERR" "edit note"
    TZ=America/New_York run_appt --db ny.sqlite3 add "NY" --at "2027-11-07 1:30am"
    check_eq "appt: note: 01:30 happens twice on 7 November 2027 in America/New_York; saved the first (-04:00)" "$ERR" "New York overlap"

    printf '%s\r\n' BEGIN:VCALENDAR VERSION:2.0 "PRODID:Microsoft Exchange Server 2010" \
        BEGIN:VTIMEZONE "TZID:W. Europe Standard Time" BEGIN:STANDARD DTSTART:16010101T030000 \
        TZOFFSETFROM:+0200 TZOFFSETTO:+0100 "RRULE:FREQ=YEARLY;INTERVAL=1;BYDAY=-1SU;BYMONTH=10" END:STANDARD \
        BEGIN:DAYLIGHT DTSTART:16010101T020000 TZOFFSETFROM:+0100 TZOFFSETTO:+0200 \
        "RRULE:FREQ=YEARLY;INTERVAL=1;BYDAY=-1SU;BYMONTH=3" END:DAYLIGHT END:VTIMEZONE \
        BEGIN:VEVENT UID:outlook-1 "SUMMARY:Summer review" "DTSTART;TZID=W. Europe Standard Time:20270715T140000" \
        "DTEND;TZID=W. Europe Standard Time:20270715T153000" END:VEVENT \
        BEGIN:VEVENT UID:outlook-2 "SUMMARY:Sydney sync" "DTSTART;TZID=AUS Eastern Standard Time:20270115T090000" \
        "DTEND;TZID=AUS Eastern Standard Time:20270115T093000" END:VEVENT END:VCALENDAR >outlook.ics
    TZ=UTC run_appt --db outlook.sqlite3 import outlook.ics
    check_status 0 "import an Outlook export"
    TZ=UTC run_appt --db outlook.sqlite3 list --from 2027-01-01 --to 2027-12-31
    check_contains "$OUT" "Thu 2027-07-15  12:00-13:30  Summer review" "W. Europe Standard Time is Berlin"
    check_contains "$OUT" "Thu 2027-01-14  22:00-22:30  Sydney sync" "AUS Eastern Standard Time is Sydney (summer time)"
}
run_scenario dst_notes_and_windows_zones

# New York's changes (2nd Sunday of March, 1st of November) for add and edit, one-shot and in
# a script; the overlap shows its offset in `list`.
dst_new_york() {
    export TZ=America/New_York APPT_NOW=2027-03-01T10:00
    run_appt --db "$DB" --json add "Gap" --at "2027-03-14 02:30"
    check_status 0 "add in the New York gap"
    check_eq "2027-03-14T03:30:00-04:00" "$(json_field start)" "saved at 03:30 EDT"
    check_eq "appt: note: 02:30 does not exist on 14 March 2027 in America/New_York; saved at 03:30" "$ERR" "gap note"
    local id
    id=$(json_field id)
    run_appt --db "$DB" --json edit "$id" --at "2027-11-07 01:30" --for 30m
    check_status 0 "edit into the New York overlap"
    check_eq "2027-11-07T01:30:00-04:00" "$(json_field start)" "the first 01:30 (EDT)"
    check_eq "appt: note: 01:30 happens twice on 7 November 2027 in America/New_York; saved the first (-04:00)" "$ERR" "edit note"
    run_script $'add "Later" --at "2027-11-07 01:45"\nedit '"$id"$' --at "2027-03-14 02:10"\nlist --from 2027-03-14 --days 1\nlist --from 2027-11-07 --days 1' --db "$DB"
    check_status 0 "script"
    check_contains "$ERR" "line 1: note: 01:45 happens twice on 7 November 2027 in America/New_York; saved the first (-04:00)" "script add note"
    check_contains "$ERR" "line 2: note: 02:10 does not exist on 14 March 2027 in America/New_York; saved at 03:10" "script edit note"
    check_contains "$OUT" "Sun 2027-11-07  01:45-04-01:45-05  Later" "list shows the overlap's offsets"
    check_contains "$OUT" "Sun 2027-03-14  03:10-03:40  Gap" "moved into the gap, saved after it"
}
run_scenario dst_new_york

# The series grammar: ordinal weekdays, month days, months, any RRULE; show says
# in words when it repeats; location; this-and-following; the JSON keys.
series_grammar() {
    export TZ=Europe/Berlin APPT_NOW=2026-12-01T09:00
    run_appt --db "$DB" --json add "Board" --at "2026-12-01 10:00" --repeat monthly --on 2nd-tue --until-date 2027-06-30 --location "Room 4"
    check_status 0 "add --on 2nd-tue"
    check_eq "2026-12-08T10:00:00+01:00" "$(json_field start)" "starts at the first 2nd Tuesday"
    check_eq "Room 4" "$(json_field location)" "location in JSON"
    local board
    board=$(json_field id)
    run_appt --db "$DB" show "$board"
    check_contains "$OUT" "repeats: every 2nd Tuesday of the month, until 30 June 2027" "show says it in words"
    check_contains "$OUT" "location: Room 4" "show says where"
    run_appt --db "$DB" add "Turkey" --at 2026-12-01 --repeat yearly --on 4th-thu --in nov
    check_status 0 "add --on 4th-thu --in nov"
    check_contains "$OUT" "Thu 2027-11-25  all day  Turkey  [repeats]" "Thanksgiving"
    run_appt --db "$DB" add "Rent" --at "2026-12-01 08:00" --repeat monthly --on 15,-1
    check_contains "$OUT" "Tue 2026-12-15  08:00-09:00  Rent" "month days"
    run_appt --db "$DB" add "Close" --at "2026-12-01 17:00" --rrule 'FREQ=MONTHLY;BYDAY=MO,TU,WE,TH,FR;BYSETPOS=-1'
    check_contains "$OUT" "Thu 2026-12-31  17:00-18:00  Close" "any RRULE"
    run_appt --db "$DB" add "X" --at "2026-12-01 10:00" --repeat monthly --on 6th-tue
    check_status 1 "a 6th Tuesday"
    check_eq "appt: add: --on 6th-tue: a month has at most 5 Tuesdays; write 1st-5th or last" "$ERR" "names the input"
    run_appt --db "$DB" add "X" --at "2026-12-01 10:00" --rrule FREQ=DAILY --repeat daily
    check_status 2 "--rrule with --repeat"
    run_appt --db "$DB" cancel "$board" --and-following
    check_status 2 "--and-following without --occurrence"
    check_eq "appt: cancel: --and-following needs --occurrence DATE (the first occurrence it changes)" "$ERR" "says what it needs"
    run_appt --db "$DB" --json edit "$board" --occurrence 2027-01-12 --at "2027-01-13 15:00" --location "Lab"
    check_status 0 "edit one occurrence"
    check_eq "$board" "$(json_field series)" "an override names its series"
    check_eq "2027-01-12T10:00:00+01:00" "$(json_field recurrence_id)" "and the start it had"
    local moved
    moved=$(json_field id)
    run_appt --db "$DB" show "$moved"
    check_contains "$OUT" 'series: changed occurrence of "Board" (was Tue 2027-01-12 10:00)' "show of an override"
    run_appt --db "$DB" cancel "$board" --occurrence 2027-03-09 --and-following
    check_status 0 "cancel this and following"
    run_appt --db "$DB" list --from 2027-01-01 --to 2027-06-30
    check_contains "$OUT" "Tue 2027-02-09  10:00-11:00  Board  [repeats]" "before the split"
    check_contains "$OUT" "Wed 2027-01-13  15:00-16:00  Board  [changed]" "the changed occurrence where it now is"
    check_not_contains "$OUT" "Tue 2027-03-09  10:00-11:00  Board" "cancelled from the split on"
}
run_scenario series_grammar
e2e_finish "e2e script mode"
