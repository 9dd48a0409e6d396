#!/usr/bin/env bash
# Hostile input, end to end: a table of bad command lines, each fed to the binary as a stdin
# script line (script mode) and, where the shell can pass it, as one-shot arguments.
#
# For every case and mode: the exit status is the one in the table (1: bad value, 2: usage),
# stderr names the bad input (a substring from the table; script mode also says "line 1: "),
# nothing is printed on stdout, nothing crashed (status < 128, no "Fatal error"/"crashed"),
# stderr carries no raw control character, no file appeared, and the database holds exactly
# what it held before (`appt --json list --all --include-cancelled`, compared byte for byte).
#
# usage: Tests/e2e/hostile.sh [PATH_TO_APPT]
set -u
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
e2e_init "${1:-}"

# ------------------------------------------------------------------ the table
#
# hostile NAME STATUS NEEDLE LINE [ARG...]
#   STATUS  the exit status expected in both modes (1 or 2)
#   NEEDLE  a substring stderr must contain in both modes
#   LINE    the script-mode line ('-': not run in script mode); @NUL@ becomes a NUL byte
#   ARG...  the one-shot words after `appt --db DB`; none: not run as a one-shot command
# In NEEDLE, LINE and ARGs, @ID@ is the full id of a seeded appointment ("Dentist"), @PFX@ its first
# 8 characters and @T@ the scenario's temp dir.
H_NAME=()
H_STATUS=()
H_NEEDLE=()
H_LINE=()
H_ARGS=()
hostile() {
    H_NAME+=("$1")
    H_STATUS+=("$2")
    H_NEEDLE+=("$3")
    H_LINE+=("$4")
    shift 4
    if (($# > 0)); then H_ARGS+=("$(printf '%q ' "$@")"); else H_ARGS+=(""); fi
}

BIG_2MB=$(head -c 2000000 /dev/zero | tr '\0' x)
# One argv string can be at most 128 KiB (MAX_ARG_STRLEN): one-shot cases stay below it.
BIG_100KB=$(head -c 100000 /dev/zero | tr '\0' y)
BIG_1MB=$(head -c 1000000 /dev/zero | tr '\0' z)
BIG_4MB=$(head -c 4000000 /dev/zero | tr '\0' q)
ESC=$'\e'

# --- the shell-like word splitting (script mode only: in one-shot mode the shell already split)
hostile unbalanced_single_quote 1 "unterminated single quote" "add 'Lunch --at 2026-12-01 10:00"
hostile unbalanced_double_quote 1 "unterminated double quote" 'add "Lunch --at 2026-12-01 10:00'
hostile trailing_backslash 1 "trailing backslash" 'add Lunch --at 2026-12-01 10:00 \'
hostile backslash_in_a_value 1 'cannot understand "today\"' 'add Lunch --at today\\' \
    add Lunch --at 'today\'
hostile long_unterminated_quote_4mb 1 "longer than 1048576 bytes; skipped" "add \"$BIG_4MB --at today"

# --- titles
hostile empty_title 1 "the title is empty" 'add "" --at "2026-12-01 10:00"' \
    add "" --at "2026-12-01 10:00"
hostile blank_title 1 "the title is empty" "add '   ' --at '2026-12-01 10:00'" \
    add "   " --at "2026-12-01 10:00"
hostile title_2mb 1 "longer than 1048576 bytes; skipped" "add $BIG_2MB --at '2026-12-01 10:00'"
hostile title_100kb_one_shot 1 "title" - \
    add "$BIG_100KB" --at "2026-12-01 10:00"
hostile nul_byte_in_title 1 "NUL" 'add Lunch@NUL@break --at "2026-12-01 10:00"'
hostile nul_byte_in_id 1 'NUL byte at column' 'show @PFX@@NUL@'
hostile invalid_utf8_in_title 1 "UTF-8" $'add Caf\xe9 --at "2026-12-01 10:00"' \
    add $'Caf\xe9' --at "2026-12-01 10:00"

# --- impossible dates and times
hostile feb_30 1 'invalid date "2026-02-30 10:00": day 30 is out of range' \
    'add Dentist --at 2026-02-30 10:00' add Dentist --at 2026-02-30 10:00
hostile feb_29_not_a_leap_year 1 "February 2027 has 28 days" \
    'add Dentist --at 2027-02-29' add Dentist --at 2027-02-29
hostile natural_feb_30 1 "has no day 30" 'add Dentist --at feb 30' add Dentist --at feb 30
hostile time_24_01 1 "hour 24 is out of range" \
    'add Dentist --at "2026-12-01 24:01"' add Dentist --at "2026-12-01 24:01"
hostile minute_60 1 "minute 60 is out of range" \
    'add Dentist --at 2026-12-01 10:60' add Dentist --at 2026-12-01 10:60
hostile month_13 1 "month 13 is out of range" 'add Dentist --at 2026-13-01' add Dentist --at 2026-13-01
hostile year_1969 1 "year 1969 is out of range" 'add Dentist --at 1969-12-31' add Dentist --at 1969-12-31
hostile relative_date_too_far 1 "too far away" 'add Dentist --at +99999999d' add Dentist --at +99999999d
# Found by Fuzz/targets/when_duration: 2,000,000 days back is 3451 BC, whose `.year` (3450,
# counted within the BC era) passed the 1970-9999 check.
hostile relative_date_before_1970 1 "out of range (1970-9999)" 'add Dentist --at -2000000d' add Dentist --at -2000000d
hostile invalid_utf8_in_date 1 "not valid UTF-8 text: byte 0xFF" $'add Dentist --at 2026-12-01\xff' \
    add Dentist --at $'2026-12-01\xff'

# --- durations and ends
hostile negative_duration 1 'invalid duration "-30m": must be zero or more' \
    'add Dentist --at "2026-12-01 10:00" --for -30m' add Dentist --at "2026-12-01 10:00" --for -30m
hostile zero_days 1 "must be more than zero" \
    'add Holiday --at 2026-12-01 --all-day --for 0d' add Holiday --at 2026-12-01 --all-day --for 0d
hostile enormous_duration 1 "longer than the limit of 366 days" \
    'add Dentist --at "2026-12-01 10:00" --for 99999999999999999999m' \
    add Dentist --at "2026-12-01 10:00" --for 99999999999999999999m
hostile duration_367_days 1 "longer than the limit of 366 days" \
    'add Dentist --at "2026-12-01 10:00" --for 367d' add Dentist --at "2026-12-01 10:00" --for 367d
hostile until_before_start 1 "is before start" \
    'add Dentist --at "2026-12-01 10:00" --until 09:00' add Dentist --at "2026-12-01 10:00" --until 09:00
hostile for_and_until 2 "not both" \
    'add Dentist --at "2026-12-01 10:00" --for 1h --until 12:00' \
    add Dentist --at "2026-12-01 10:00" --for 1h --until 12:00

# --- ranges
hostile reversed_range 1 "reversed range: --from 2026-12-07 is after --to 2026-12-01" \
    'list --from 2026-12-07 --to 2026-12-01' list --from 2026-12-07 --to 2026-12-01
hostile reversed_range_before_today 1 "reversed range: --to 2020-01-01" \
    'list --to 2020-01-01' list --to 2020-01-01
hostile empty_range 1 "empty range" \
    'list --from "2026-12-01 10:00" --to "2026-12-01 10:00"' \
    list --from "2026-12-01 10:00" --to "2026-12-01 10:00"
hostile days_zero 1 'not "0"' 'list --days 0' list --days 0
hostile days_enormous 1 'not "99999999999"' 'list --days 99999999999' list --days 99999999999
hostile days_negative 1 'not "-1"' 'list --days -1' list --days -1
hostile days_not_a_number 1 'not "1e3"' 'list --days 1e3' list --days 1e3
hostile all_with_a_range 2 "cannot be combined" 'list --all --from 2026-12-01' list --all --from 2026-12-01
hostile blank_search 1 "--search needs some text" "list --search '  '" list --search "  "

# --- unknown things, missing things, things given twice
hostile unknown_command 2 'unknown command "frobnicate"' 'frobnicate --now' frobnicate --now
hostile unknown_option 2 "unknown option --colour" 'list --colour' list --colour
hostile unknown_short_option 2 "unknown option -x" 'add Lunch -x --at today' add Lunch -x --at today
hostile unknown_global_option 2 "unknown option --bogus" - --bogus list
hostile control_chars_in_option 2 "unknown option --^[[31m" "list --${ESC}[31m" list "--${ESC}[31m"
hostile flag_with_a_value 2 "--all takes no value" 'list --all=yes' list --all=yes
hostile missing_at 2 "missing --at" 'add Lunch' add Lunch
hostile missing_at_value 2 "--at needs a value" 'add Lunch --at' add Lunch --at
hostile missing_days_value 2 "--days needs a value" 'list --days' list --days
hostile missing_note_value 2 "--note needs a value" \
    'add Lunch --at "2026-12-01 10:00" --note' add Lunch --at "2026-12-01 10:00" --note
hostile missing_id 2 "missing ID" 'show' show
hostile missing_db_path 2 "--db needs a path" - --db
hostile option_given_twice 2 "--days given more than once" 'list --days 3 --days 4' list --days 3 --days 4
hostile at_given_twice 2 "--at given more than once" \
    'add Lunch --at today --at tomorrow' add Lunch --at today --at tomorrow
hostile db_given_twice 2 "--db given more than once" - \
    --db @T@/other.sqlite3 add Lunch --at "2026-12-01 10:00"
hostile lone_double_dash_script 2 'unknown command "--"' '--'
hostile lone_double_dash_one_shot 2 "missing command" - --
hostile whitespace_only_command 2 'unknown command "   "' - "   "
hostile help_unknown_topic 2 'unknown command "nope"' 'help nope' help nope
hostile list_extra_argument 2 'unexpected argument "tomorrow"' 'list tomorrow' list tomorrow
hostile invalid_utf8_command 1 "not valid UTF-8 text: byte 0xFF at column 1" $'\xff\xfe list' $'\xff\xfe' list
hostile very_long_line_1mb 2 'unknown command "zzzz' "$BIG_1MB"
hostile very_long_word_100kb 2 'unknown command "yyyy' - "$BIG_100KB"

# --- ids
hostile sql_looking_id 1 "invalid id \"'; DROP TABLE appointment; --\"" "show \"'; DROP TABLE appointment; --\"" \
    show "'; DROP TABLE appointment; --"
hostile sql_looking_id_delete 1 "invalid id \"1a2b' OR '1'='1\"" "delete \"1a2b' OR '1'='1\"" delete "1a2b' OR '1'='1"
hostile like_wildcard_id 1 'invalid id "1a2%"' 'cancel 1a2%' cancel 1a2%
hostile id_too_short 1 'invalid id "abc"' 'show abc' show abc
hostile id_with_non_hex 1 'invalid id "zzzz"' 'delete zzzz' delete zzzz
hostile id_too_long 1 'invalid id "@ID@0": longer than a full id' \
    'show @ID@0' show @ID@0
hostile id_not_found 1 "no appointment with id ffffffff" 'cancel ffffffff' cancel ffffffff

# --- edits of a real appointment
hostile edit_negative_duration 1 "must be zero or more" 'edit @PFX@ --for -5m' edit @PFX@ --for -5m
hostile edit_empty_title 1 "the title is empty" 'edit @PFX@ --title ""' edit @PFX@ --title ""
hostile edit_impossible_date 1 "day 31 is out of range" 'edit @PFX@ --at 2026-04-31' edit @PFX@ --at 2026-04-31
hostile edit_nothing 2 "nothing to change" 'edit @PFX@' edit @PFX@

# ------------------------------------------------------------------ checks

ID=""
PFX=""

# seed DB: three appointments, the last one cancelled; sets ID and PFX (the first one's).
seed() {
    local db=$1 third
    run_appt --db "$db" --json <<'EOF'
add "Dentist" --at "2026-12-01 10:00" --for 45m --note "bring card"
add "Standup" --at "2026-12-02 09:30" --for 15m
add "Review" --at "2026-12-03 12:00"
EOF
    [[ $STATUS == 0 ]] || { fail "seeding failed ($STATUS): $ERR"; return 1; }
    ID=$(printf '%s\n' "$OUT" | sed -n '1s/^{"id":"\([0-9a-f-]*\)".*/\1/p')
    third=$(printf '%s\n' "$OUT" | sed -n '3s/^{"id":"\([0-9a-f-]*\)".*/\1/p')
    [[ ${#ID} == 36 && ${#third} == 36 ]] || { fail "seeding printed no ids: $OUT"; return 1; }
    PFX=${ID:0:8}
    run_appt --db "$db" cancel "$third"
    [[ $STATUS == 0 ]] || { fail "seeding: cancel failed ($STATUS): $ERR"; return 1; }
}

# state DB: everything the database holds, as JSON Lines.
state() {
    timeout -k 2 "$E2E_WATCHDOG" "$APPT" --db "$1" --json list --all --include-cancelled 2>&1
    echo "status $?"
}

# files: the scenario's files, except the run's own (stdout/stderr captures, the script,
# SQLite's -wal/-shm companions).
files() {
    (cd "$T" && find . -type f ! -name .out ! -name .err ! -name script ! -name '*-wal' ! -name '*-shm' | sort)
}

# excerpt TEXT: at most 300 characters of TEXT, for failure messages.
excerpt() {
    local text=$1
    if ((${#text} > 300)); then text="${text:0:300}... (${#1} characters)"; fi
    printf '%s' "$text"
}

# check_outcome MODE STATUS NEEDLE: the last run_appt refused the input as expected.
check_outcome() {
    local mode=$1 status=$2 needle=$3
    if ((STATUS >= 128)); then
        fail "$mode: killed by a signal (status $STATUS); stderr: $(excerpt "$ERR")"
    elif [[ $STATUS != "$status" ]]; then
        fail "$mode: exit status $STATUS, expected $status; stderr: $(excerpt "$ERR")"
    fi
    [[ $ERR == *"$needle"* ]] || fail "$mode: stderr does not contain [$needle]: $(excerpt "$ERR")"
    if [[ $mode == script ]]; then
        [[ $ERR == "line 1: "* ]] || fail "$mode: stderr does not start with [line 1: ]: $(excerpt "$ERR")"
    fi
    [[ -z $OUT ]] || fail "$mode: something was printed on stdout: $(excerpt "$OUT")"
    if [[ $ERR$OUT == *"Fatal error"* || $ERR$OUT == *[Cc]rash* ]]; then
        fail "$mode: crash report in the output: $(excerpt "$ERR")"
    fi
    if LC_ALL=C grep -qaP '[\x00-\x08\x0b-\x1f\x7f]|\xc2[\x80-\x9f]' "$T/.err"; then
        fail "$mode: raw control character on stderr: $(excerpt "$ERR")"
    fi
}

# run_case INDEX: one row of the table, in script mode then as a one-shot command.
run_case() {
    local i=$1 db="$T/db.sqlite3" before after files_before line args arg k
    seed "$db" || return
    local status=${H_STATUS[$i]} needle=${H_NEEDLE[$i]//@ID@/$ID}
    needle=${needle//@PFX@/$PFX}
    files_before=$(files)
    before=$(state "$db")
    [[ $before == *"status 0" ]] || { fail "cannot list the seeded database: $before"; return; }

    if [[ ${H_LINE[$i]} != "-" ]]; then
        line=${H_LINE[$i]//@ID@/$ID}
        line=${line//@PFX@/$PFX}
        line=${line//@T@/$T}
        printf '%s\n' "$line" | LC_ALL=C sed 's/@NUL@/\x00/g' >"$T/script"
        run_appt --db "$db" <"$T/script"
        check_outcome script "$status" "$needle"
        after=$(state "$db")
        [[ $after == "$before" ]] || fail "script: the database changed:
$(diff <(printf '%s\n' "$before") <(printf '%s\n' "$after") | cut -c1-200 | head -10)"
        check_eq "$files_before" "$(files)" "script: files created"
    fi

    if [[ -n ${H_ARGS[$i]} ]]; then
        # Judge this mode on its own, even if script mode (wrongly) changed something.
        files_before=$(files)
        before=$(state "$db")
        eval "args=(${H_ARGS[$i]})"
        for k in "${!args[@]}"; do
            arg=${args[$k]//@ID@/$ID}
            arg=${arg//@PFX@/$PFX}
            args[k]=${arg//@T@/$T}
        done
        run_appt --db "$db" "${args[@]}" </dev/null
        check_outcome one-shot "$status" "$needle"
        after=$(state "$db")
        [[ $after == "$before" ]] || fail "one-shot: the database changed:
$(diff <(printf '%s\n' "$before") <(printf '%s\n' "$after") | cut -c1-200 | head -10)"
        check_eq "$files_before" "$(files)" "one-shot: files created"
    fi
}

echo "e2e hostile ($APPT, ${#H_NAME[@]} cases)"
for i in "${!H_NAME[@]}"; do
    eval "hostile_${H_NAME[$i]}() { run_case $i; }"
    run_scenario "hostile_${H_NAME[$i]}"
done
# ------------------------------------------------------------------ text and values
#
# Scenarios of their own (not table rows): each class is checked where it shows, in the
# output of `list`, `show`, `--json`, `export` and `import`.

# Trojan Source: U+202E (right-to-left override), U+2066/U+2069 (isolates), U+200F (RLM).
text_bidi_controls_are_escaped() {
    local db="$T/db.sqlite3" title=$'invoice\u202efdp.exe \u2066x\u2069\u200f'
    run_appt --db "$db" add "$title" --at "2026-12-01 10:00"
    check_status 0 "add"
    local raw
    for raw in $'\u202e' $'\u2066' $'\u2069' $'\u200f'; do
        check_not_contains "$OUT" "$raw" "add's acknowledgement carries a raw bidi control"
    done
    run_appt --db "$db" list --all
    check_status 0 "list"
    check_contains "$OUT" 'invoice\u{202e}fdp.exe \u{2066}x\u{2069}\u{200f}' "list shows the controls escaped"
    run_appt --db "$db" --json list --all
    check_contains "$OUT" '"title":"invoice\u202efdp.exe \u2066x\u2069\u200f"' "JSON escapes them"
    for raw in $'\u202e' $'\u2066' $'\u2069' $'\u200f'; do
        check_not_contains "$OUT" "$raw" "--json list carries a raw bidi control"
    done
    local decoded
    decoded=$(printf '%s\n' "$OUT" | python3 -c 'import json,sys; print(json.loads(sys.stdin.readline())["title"].encode("unicode_escape").decode())')
    check_eq 'invoice\u202efdp.exe \u2066x\u2069\u200f' "$decoded" "the JSON decodes to the stored title"
    # An emoji ZWJ sequence and a variation selector are text, not controls: shown as they are.
    run_appt --db "$db" add $'Family \U1F469\u200d\U1F467 \u2764\ufe0f' --at "2026-12-02 10:00"
    check_contains "$OUT" $'Family \U1F469\u200d\U1F467 \u2764\ufe0f' "emoji sequences stay whole"
}

# A UTF-8 BOM before the first line of a script (as some editors save) is skipped; anywhere
# else it is shown, escaped, in the message about the line.
text_bom_before_the_first_script_line() {
    local db="$T/db.sqlite3"
    printf '\xef\xbb\xbfadd Lunch --at "2026-12-01 12:00"\n\xef\xbb\xbflist --all\n' >"$T/script"
    run_appt --db "$db" <"$T/script"
    check_status 2 "the BOM on line 2 is not skipped"
    check_contains "$OUT" "added " "line 1 ran"
    check_contains "$ERR" 'line 2: unknown command "\u{feff}list"' "line 2 names the BOM"
    printf '\xef\xbb\xbflist --all\n' >"$T/script"
    run_appt --db "$db" <"$T/script"
    check_status 0 "a script starting with a BOM"
    check_contains "$OUT" "Lunch" "its first line ran"
    # A .ics file with a BOM imports too (ICalendarReader skips it).
    printf '\xef\xbb\xbfBEGIN:VCALENDAR\r\nVERSION:2.0\r\nBEGIN:VEVENT\r\nUID:bom@example.com\r\nDTSTART:20261203T100000Z\r\nDTEND:20261203T110000Z\r\nSUMMARY:From a BOM file\r\nEND:VEVENT\r\nEND:VCALENDAR\r\n' >"$T/bom.ics"
    run_appt --db "$db" import "$T/bom.ics"
    check_status 0 "import of a file with a BOM"
    run_appt --db "$db" list --all
    check_contains "$OUT" "From a BOM file" "the event was imported"
}

# Times outside the supported range (an end in year 10000 made an export appt could not
# import) are refused with a message naming the input; the edge itself works end to end.
text_times_at_the_edge_of_the_range() {
    local db="$T/db.sqlite3" before
    export TZ=UTC   # the edges below are written in UTC, whatever zone the run uses
    before=$(state "$db")
    run_appt --db "$db" add Late --at "9999-12-31 23:30" --for 1h
    check_status 1 "an end in year 10000"
    check_contains "$ERR" 'add: --at "9999-12-31 23:30" --for "1h": the start 9999-12-31 23:30 UTC is out of range' "message"
    run_appt --db "$db" add Late --at "9999-12-30 23:30" --for 1h
    check_status 1 "an end after 9999-12-31 00:00 UTC"
    check_contains "$ERR" "the end 9999-12-31 00:30 UTC is out of range" "message"
    check_eq "$before" "$(state "$db")" "nothing stored"
    run_appt --db "$db" add Last --at "9999-12-30 23:00" --for 1h
    check_status 0 "ending at the last instant"
    local id=${OUT#added }
    id=${id%% *}
    run_appt --db "$db" edit "$id" --for 2h
    check_status 1 "edit past the range"
    check_contains "$ERR" '"Last": the end 9999-12-31 01:00 UTC is out of range' "the store's gate names it"
    run_appt --db "$db" add Daily --at "9999-12-25 10:00" --repeat daily
    check_status 0 "a series near the end"
    run_appt --db "$db" list --from 9999-12-20 --days 100000
    check_status 0 "list far past the range"
    check_eq 6 "$(grep -c Daily <<<"$OUT")" "25 to 30 December, then the range ends"
    local listed=$OUT
    run_appt --db "$db" export "$T/edge.ics"
    check_status 0 "export"
    check_eq "" "$(grep -aE '^(DTSTART|DTEND|EXDATE|RRULE)[^:]*:([0-9]{9}|.*UNTIL=[0-9]{9})' "$T/edge.ics")" \
        "no time with a five-digit year in the export"
    run_appt --db "$T/copy.sqlite3" import "$T/edge.ics"
    check_status 0 "appt imports its own export of the edge"
    run_appt --db "$T/copy.sqlite3" list --from 9999-12-20 --days 100000
    check_eq "$listed" "$OUT" "the copy lists the same"
}

# import applies add's rules, per event, as FILE:LINE problems; --partial keeps the others.
text_import_applies_the_rules() {
    local db="$T/db.sqlite3" long note
    long=$(head -c 5000 /dev/zero | tr '\0' s)
    note=$(head -c 50000 /dev/zero | tr '\0' d)
    {
        printf 'BEGIN:VCALENDAR\r\nVERSION:2.0\r\n'
        printf 'BEGIN:VEVENT\r\nUID:a\r\nDTSTART:20261201T100000Z\r\nDTEND:20261201T110000Z\r\nSUMMARY:%s\r\nEND:VEVENT\r\n' "$long"
        printf 'BEGIN:VEVENT\r\nUID:b\r\nDTSTART:20261201T100000Z\r\nDTEND:20261201T110000Z\r\nDESCRIPTION:%s\r\nEND:VEVENT\r\n' "$note"
        printf 'BEGIN:VEVENT\r\nUID:c\r\nDTSTART:20261201T100000Z\r\nDTEND:20261201T110000Z\r\nSUMMARY:a\0b\r\nEND:VEVENT\r\n'
        printf 'BEGIN:VEVENT\r\nUID:ok\r\nDTSTART:20261201T100000Z\r\nDTEND:20261201T110000Z\r\nSUMMARY:Fine\r\nEND:VEVENT\r\n'
        printf 'END:VCALENDAR\r\n'
    } >"$T/rules.ics"
    run_appt --db "$db" import "$T/rules.ics"
    check_status 1 "import with events breaking the rules"
    check_contains "$ERR" "rules.ics:7: SUMMARY: the title is 5000 characters long; at most 500" "the long SUMMARY"
    check_contains "$ERR" "rules.ics:13: DESCRIPTION: the note is 50000 characters long; at most 10000" "the long DESCRIPTION"
    check_contains "$ERR" "rules.ics:19: SUMMARY: the title holds a NUL byte at character 2" "the NUL"
    run_appt --db "$db" --json list --all
    check_eq "" "$OUT" "nothing imported"
    run_appt --db "$db" import --partial "$T/rules.ics"
    check_status 1 "--partial"
    run_appt --db "$db" list --all
    check_eq 1 "$(grep -c . <<<"$OUT")" "only the good event"
    check_contains "$OUT" "Fine" "the good event"
}

# A 32 MB line is refused at once (it took 6 s, quadratic), and the script goes on.
text_a_32mb_line_is_skipped() {
    local db="$T/db.sqlite3"
    { printf 'add '; head -c 32000000 /dev/zero | tr '\0' x; printf ' --at "2026-12-01 10:00"\nadd After --at "2026-12-01 11:00"\n'; } >"$T/big"
    run_appt --db "$db" <"$T/big"
    check_status 1 "the long line fails"
    check_eq "line 1: longer than 1048576 bytes; skipped" "$ERR" "the message"
    check_contains "$OUT" "added " "line 2 ran"
    check_contains "$OUT" "After" "line 2 ran"
}

# 100 MB without a newline (more than a minute before) is counted, not buffered.
text_100mb_without_a_newline() {
    local db="$T/db.sqlite3" rss=""
    head -c 100000000 /dev/zero | tr '\0' x >"$T/huge"
    if [[ -x /usr/bin/time ]]; then
        timeout -k 2 "$E2E_WATCHDOG" /usr/bin/time -f 'maxrss_kb %M' -o "$T/time" "$APPT" --db "$db" <"$T/huge" >"$T/.out" 2>"$T/.err"
        STATUS=$?
        OUT=$(cat "$T/.out")
        ERR=$(cat "$T/.err")
        rss=$(sed -n 's/^maxrss_kb //p' "$T/time")
    else
        run_appt --db "$db" <"$T/huge"
    fi
    check_status 1 "the endless line fails"
    check_eq "line 1: longer than 1048576 bytes; skipped" "$ERR" "the message"
    # A report, not an assert (memory depends on the build): see the scenario's output.
    [[ -n $rss ]] && echo "    peak RSS reading 100 MB without a newline: $((rss / 1024)) MiB"
}

echo "e2e hostile: text and values"
for scenario in text_bidi_controls_are_escaped text_bom_before_the_first_script_line \
    text_times_at_the_edge_of_the_range text_import_applies_the_rules text_a_32mb_line_is_skipped \
    text_100mb_without_a_newline; do
    run_scenario "$scenario"
done

e2e_finish "e2e hostile"
