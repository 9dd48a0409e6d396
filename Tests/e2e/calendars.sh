#!/usr/bin/env bash
# End-to-end scenarios for several calendars: add, list, move and
# hide from the command line and scripts, and the calendar's colour markers under tmux, on
# SQLite and, when a test server is given (Tests/pg/with-server.sh sets APPT_TEST_PG), on
# PostgreSQL: every scenario runs once per engine.
# usage: Tests/e2e/calendars.sh [PATH_TO_APPT]
set -u
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
e2e_init "${1:-}"
command -v tmux >/dev/null || { echo "e2e calendars: tmux is required" >&2; exit 2; }

# ---------------------------------------------------------------- the store of a scenario

# use_store ENGINE: sets STORE (what --db takes) to a new SQLite file in $T or a new
# PostgreSQL database (dropped when the scenario ends, with lib.sh's cleanup after it).
use_store() {
    if [[ $1 == sqlite ]]; then
        STORE=$T/db.sqlite3
        return 0
    fi
    PG_DB="appt_e2e_cal_${BASHPID}_${RANDOM}"
    PGCONNECT_TIMEOUT=10 psql -X -q -At -v ON_ERROR_STOP=1 "$APPT_TEST_PG" -c "CREATE DATABASE \"$PG_DB\"" >/dev/null ||
        { fail "cannot create database $PG_DB"; return 1; }
    trap 'drop_database; e2e_cleanup' EXIT
    STORE=${APPT_TEST_PG%/*}/$PG_DB
}

drop_database() {
    [[ -n ${PG_DB:-} ]] || return 0
    tmux -L "${E2E_TMUX_SOCKET:-none}" kill-server 2>/dev/null
    E2E_TMUX_SOCKET=""
    PGCONNECT_TIMEOUT=10 psql -X -q -At "$APPT_TEST_PG" -c "DROP DATABASE IF EXISTS \"$PG_DB\" WITH (FORCE)" >/dev/null 2>&1
}

# a ARGS...: appt on the scenario's store.
a() { run_appt --db "$STORE" "$@"; }

# ---------------------------------------------------------------- scenarios

cli_add_list_move_hide() {
    use_store "$1" || return
    local today
    today=$(e2e_date 0)
    a calendars
    check_eq "personal  blue     local   0 appointments    shown" "$OUT" "a new store has personal"
    a calendar add work --color red
    check_status 0 "calendar add"
    a add Standup --at "$today 09:00" -c work
    a add Dentist --at "$today 10:00"
    a --json list --from "$today" -c work
    check_contains "$OUT" '"title":"Standup"' "list -c work"
    check_contains "$OUT" '"calendar":"work"' "JSON names the calendar"
    check_not_contains "$OUT" "Dentist" "list -c work leaves personal out"
    a list --from "$today" -c wrok
    check_status 1 "an unknown calendar"
    check_contains "$ERR" 'no calendar "wrok"; did you mean "work"?' "did you mean"
    # A script moves it, hides work, and lists the calendars.
    local id
    id=$(a --json list --from "$today" -c work; python3 -c 'import json,sys; print(json.loads(sys.stdin.readline())["id"][:8])' <<<"$OUT")
    run_script "edit $id -c personal
calendar hide work
calendars" --db "$STORE"
    check_status 0 "the script"
    check_contains "$OUT" "work      red      local   0 appointments    hidden" "hidden, and emptied by the move"
    a show "$id"
    check_contains "$OUT" "calendar: personal" "show names the calendar"
    a calendar delete personal
    check_status 1 "a calendar holding appointments is not deleted"
    check_contains "$ERR" "holds 2 appointments; give --move-to OTHER or --with-appointments" "why not"
    a calendar delete personal --move-to work
    check_eq "deleted calendar personal, its 2 appointments moved to work" "$OUT" "moved"
    a calendar delete work
    check_status 1 "the last calendar stays"
    a export -c work
    check_contains "$OUT" "X-WR-CALNAME:work" "export of one calendar names it"
}

# `[ui] default_calendar` is where add and import put what has no --calendar; a name that
# is not a calendar makes add fail, naming it.
default_calendar_setting() {
    use_store "$1" || return
    local today
    today=$(e2e_date 0)
    a calendar add work
    printf '[ui]\ndefault_calendar = work\n' > "$T/settings.ini"
    APPT_CONFIG=$T/settings.ini a --json add Standup --at "$today 09:00"
    check_contains "$OUT" '"calendar":"work"' "add without -c goes to default_calendar"
    APPT_CONFIG=$T/settings.ini a --json add Dentist --at "$today 10:00" -c personal
    check_contains "$OUT" '"calendar":"personal"' "-c wins over the setting"
    printf 'BEGIN:VCALENDAR\r\nBEGIN:VEVENT\r\nUID:x1@example.com\r\nDTSTART:20270105T100000Z\r\nDTEND:20270105T110000Z\r\nSUMMARY:Imported\r\nEND:VEVENT\r\nEND:VCALENDAR\r\n' > "$T/one.ics"
    APPT_CONFIG=$T/settings.ini a import "$T/one.ics"
    check_status 0 "import"
    check_contains "$OUT" "1 added" "import added it"
    a --json list --all
    check_contains "$(grep '"title":"Imported"' <<<"$OUT")" '"calendar":"work"' "import without -c goes to default_calendar"
    printf '[ui]\ndefault_calendar = wrok\n' > "$T/settings.ini"
    APPT_CONFIG=$T/settings.ini a add Other --at "$today 11:00"
    check_status 1 "default_calendar names no calendar"
    check_contains "$ERR" 'no calendar "wrok"; did you mean "work"?' "the message names it"
}

# The markers under tmux: each row a block of its calendar's colour (red work, blue
# personal); C hides work; with NO_COLOR the calendar's letter stands for it.
tui_colours_and_hiding() {
    use_store "$1" || return
    local today screen
    today=$(e2e_date 0)
    a calendar add work --color red
    a add Standup --at "$today 09:00" -c work
    a add Dentist --at "$today 10:00"
    tmux_start "$APPT" --db "$STORE" || return
    wait_for_text "Dentist" || return
    screen=$(tm capture-pane -e -p)
    python3 - "$screen" <<'PY' || fail "no red block before Standup or no blue one before Dentist:
$(printf '%s\n' "$screen" | cat -v | grep -E 'Standup|Dentist')"
import re, sys
screen = sys.argv[1]
def colours(letter, title):
    # The SGR sequences right before the row's marker: the colours it is drawn in.
    m = re.search(r"((?:\x1b\[[0-9;]*m)+)" + letter + r"(?:\x1b\[[0-9;]*m)* \d\d:\d\d-\d\d:\d\d  " + title, screen)
    return {p for group in re.findall(r"\[([0-9;]*)m", m.group(1)) for p in group.split(";")} if m else set()
ok = {"31", "41"} <= colours("W", "Standup") and {"34", "44"} <= colours("P", "Dentist")
sys.exit(0 if ok else 1)
PY
    tmux_keys C
    wait_for_text "[x] W work" || return
    tmux_keys j Space
    wait_for_text "(hidden)" || return
    tmux_keys Escape
    wait_for_no_text "Standup" || return
    tmux_keys q
    wait_for_exit || return
    a calendars
    check_contains "$OUT" "hidden" "hidden in the store"
    # Started again, with NO_COLOR: still hidden; shown again, a letter marks each row.
    tm kill-server 2>/dev/null
    a calendar show work
    tmux_start env NO_COLOR=1 "$APPT" --db "$STORE" || return
    wait_for_text "W 09:00-10:00  Standup" || return
    wait_for_text "P 10:00-11:00  Dentist" || return
    screen=$(tm capture-pane -e -p)
    if grep -q $'\e\[[0-9;]*4[14][;m]' <<<"$screen"; then fail "NO_COLOR still paints the blocks"; fi
    tmux_keys q
    wait_for_exit
}

engines=(sqlite)
[[ -n ${APPT_TEST_PG:-} ]] && engines+=(postgres)
for engine in "${engines[@]}"; do
    for s in cli_add_list_move_hide default_calendar_setting tui_colours_and_hiding; do
        eval "${s}_$engine() { $s $engine; }"
        run_scenario "${s}_$engine"
    done
done
e2e_finish "e2e calendars"
