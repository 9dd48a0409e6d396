#!/usr/bin/env bash
# End-to-end scenarios for appt on PostgreSQL: live updates between two full-screen clients,
# concurrent writers, optimistic edits, a server restart under a running TUI, a server that is
# not there at all, and what the schema looks like from psql.
# usage: Tests/e2e/postgres.sh [PATH_TO_APPT [SCENARIO...]]   (scenario names: only those)
#
# Needs a server: run it under Tests/pg/with-server.sh (APPT_TEST_PG, APPT_TEST_PG_DIR and
# APPT_TEST_PG_SERVER). Without APPT_TEST_PG the suite is skipped, unless APPT_REQUIRE_PG=1.
# Every scenario works in a database of its own (CREATE DATABASE with a unique name), dropped
# when the scenario ends. server_restart_under_tui stops the shared server and always starts it
# again before it ends, whatever failed.
set -u
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
e2e_init "${1:-}"

if [[ -z ${APPT_TEST_PG:-} ]]; then
    if [[ ${APPT_REQUIRE_PG:-} == 1 ]]; then
        echo "e2e postgres: APPT_REQUIRE_PG=1 but APPT_TEST_PG is not set: no server to test against" >&2
        echo "e2e postgres: 0 passed, 1 failed"
        exit 1
    fi
    echo "e2e postgres: skipped (APPT_TEST_PG is not set; run it under Tests/pg/with-server.sh)"
    e2e_finish "e2e postgres"
fi
for tool in tmux psql script; do
    command -v "$tool" >/dev/null || { echo "e2e postgres: $tool is required" >&2; exit 2; }
done
if [[ -z ${APPT_TEST_PG_SERVER:-} || -z ${APPT_TEST_PG_DIR:-} ]]; then
    echo "e2e postgres: APPT_TEST_PG_SERVER and APPT_TEST_PG_DIR are required (Tests/pg/with-server.sh sets them)" >&2
    echo "e2e postgres: 0 passed, 1 failed"
    exit 1
fi

# The server's address, as appt names it in its messages (127.0.0.1:PORT).
PG_HOSTPORT=${APPT_TEST_PG#*@}
PG_HOSTPORT=${PG_HOSTPORT%%/*}
PG_HOST=${PG_HOSTPORT%:*}
PG_PORT=${PG_HOSTPORT##*:}
# The test role's password, which no message may show.
PG_PASSWORD=${APPT_TEST_PG#*://*:}
PG_PASSWORD=${PG_PASSWORD%%@*}

STATUS_KEYS="j/k move"

# ---------------------------------------------------------------- helpers

# pg URL SQL: one statement through psql, unaligned and tuples only ("a|b" per row).
pg() {
    PGCONNECT_TIMEOUT=10 timeout -k 2 30 psql -X -q -At -v ON_ERROR_STOP=1 "$1" -c "$2"
}

# new_database: a fresh, empty database for this scenario; sets DB (its URL) and DB_NAME.
# Dropped when the scenario ends: this replaces the scenario's EXIT trap (lib.sh's
# e2e_cleanup) with pg_scenario_cleanup, which calls it.
new_database() {
    trap pg_scenario_cleanup EXIT
    DB_NAME="appt_e2e_${FUNCNAME[1]:-x}_${BASHPID}_${RANDOM}"
    DB_NAME=${DB_NAME:0:63}
    pg "$APPT_TEST_PG" "CREATE DATABASE \"$DB_NAME\"" >/dev/null || {
        fail "setup: CREATE DATABASE $DB_NAME failed"
        return 1
    }
    PG_DATABASES+=("$DB_NAME")
    local base=${APPT_TEST_PG%%\?*} query=""
    [[ $APPT_TEST_PG == *\?* ]] && query="?${APPT_TEST_PG#*\?}"
    DB="${base%/*}/$DB_NAME$query"
}

# The scenario's EXIT trap: the server runs again (if this scenario stopped it), then the
# scenario's processes and tmux server go (lib.sh), then its databases.
PG_DATABASES=()
PG_SERVER_STOPPED=0
pg_scenario_cleanup() {
    if ((PG_SERVER_STOPPED)); then
        "$APPT_TEST_PG_SERVER" resume "$APPT_TEST_PG_DIR" ||
            echo "    e2e postgres: COULD NOT RESUME THE SHARED SERVER" >&2
    fi
    e2e_cleanup
    local name
    for name in "${PG_DATABASES[@]}"; do
        pg "$APPT_TEST_PG" "DROP DATABASE IF EXISTS \"$name\" WITH (FORCE)" >/dev/null 2>&1
    done
}


# lib.sh's screen helpers read "the" session; with two TUIs they read the pane named by PANE.
# in_pane A CMD...: run CMD (wait_for_text, tmux_keys, ...) against session A.
PANE=""
tmux_screen() { tm capture-pane -p ${PANE:+-t "$PANE"} 2>/dev/null; }
pane_field() { tm list-panes ${PANE:+-t "$PANE"} -F "$1" 2>/dev/null | head -1; }
tmux_keys() { tm send-keys ${PANE:+-t "$PANE"} "$@"; }
tmux_type() { tm send-keys ${PANE:+-t "$PANE"} -l -- "$1"; }
in_pane() {
    local PANE=$1
    shift
    "$@"
}

# start_tui NAME [ARGS...]: appt's full screen on $DB in tmux session NAME (the first one
# starts the scenario's private tmux server); waits for today's header and the key help.
start_tui() {
    local name=$1
    shift
    if [[ -z $E2E_TMUX_SOCKET ]]; then
        tmux_start "$APPT" --db "$DB" "$@" || return 1
        tm rename-session "$name"
    else
        tm new-session -d -s "$name" -x 100 -y 30 -- \
            env -u LANG -u LC_ALL -u LC_CTYPE -u LC_TIME -u APPT_CONFIG $(e2e_clock_env) \
            SWIFT_BACKTRACE=interactive=no HOME="$HOME" XDG_DATA_HOME="$XDG_DATA_HOME" \
            XDG_CONFIG_HOME="$XDG_CONFIG_HOME" \
            "$APPT" --db "$DB" "$@" || { fail "tmux could not start session $name"; return 1; }
    fi
    in_pane "$name" wait_for_text " appt  $(day_label 0)  (today)" 15 || return 1
    in_pane "$name" wait_for_line 30 "$STATUS_KEYS" 15 || return 1
}

# colon NAME LINE: type LINE on session NAME's ':' command line and press Enter.
colon() {
    in_pane "$1" tmux_keys :
    in_pane "$1" tmux_type "$2"
    in_pane "$1" tmux_keys Enter
}

# quit_tui NAME: q, and the app exits 0.
quit_tui() {
    in_pane "$1" tmux_keys q
    in_pane "$1" wait_for_exit 10 || return 1
    check_eq 0 "$PANE_STATUS" "exit status of TUI $1 after q"
}

# live_latency NAME TEXT T0_US: polls session NAME every 10 ms until TEXT is on its screen;
# sets LATENCY_MS to the time since T0_US (printed, never asserted: how fast lives in
# `make bench`). Fails only when TEXT never comes, after a guard no loaded machine reaches.
live_latency() {
    local name=$1 text=$2 t0=$3 screen
    LATENCY_MS=""
    while :; do
        screen=$(in_pane "$name" tmux_screen)
        if [[ $screen == *"$text"* ]]; then
            LATENCY_MS=$((($(now_us) - t0) / 1000))
            break
        fi
        if (($(now_us) - t0 > 60000000)); then
            fail "[$text] never reached TUI $name (60 s):
$(printf '%s\n' "$screen" | cat -s | sed 's/^/      | /')"
            return 1
        fi
        sleep 0.01
    done
}

# json_field JSON KEY: one top-level field of a JSON object (strings and numbers).
json_field() {
    python3 -c 'import json, sys; v = json.loads(sys.argv[1])[sys.argv[2]]; print(v)' "$1" "$2" 2>/dev/null
}

# count_lines TEXT: non-empty lines.
count_lines() {
    if [[ -z $1 ]]; then echo 0; else printf '%s\n' "$1" | grep -c .; fi
}

# ---------------------------------------------------------------- scenarios

# Two full-screen clients on one database: an add typed in A is on B's screen within a
# second, and a cancel in B is on A's within a second.
two_clients_see_each_other() {
    new_database || return
    run_appt --db "$DB" list # the schema exists before either TUI opens
    check_status 0 "setup: list on the new database"
    start_tui A || return
    start_tui B || return

    local t0
    colon A 'add "Live from A" --at "today 10:00" --for 30m'
    t0=$(now_us)
    live_latency B "10:00-10:30  Live from A" "$t0" || return
    echo "    add in A -> on B's screen: ${LATENCY_MS} ms"
    # What is waited for stays on the screen (a status-line message such as "Updated by
    # another process" is replaced by the next one, so a loaded machine can miss it), each
    # with a guard far beyond any machine's latency.
    in_pane B wait_for_text "10:00-10:30  Live from A" 60 || return

    # B has one appointment, selected: c asks about it, y cancels it
    in_pane B tmux_keys c
    in_pane B wait_for_text 'Cancel "Live from A"' 60 || return
    in_pane B wait_for_text "(y/n)" 60 || return
    in_pane B tmux_keys y
    t0=$(now_us)
    live_latency A "Live from A  (cancelled)" "$t0" || return
    echo "    cancel in B -> on A's screen: ${LATENCY_MS} ms"
    in_pane B wait_for_text "Live from A  (cancelled)" 60 || return

    run_appt --db "$DB" --json list --all --include-cancelled
    check_status 0 "list after the two TUIs"
    check_eq 1 "$(count_lines "$OUT")" "one appointment stored"
    check_contains "$OUT" '"title":"Live from A"' "A's add is stored"
    check_contains "$OUT" '"status":"cancelled"' "B's cancel is stored"
    quit_tui A
    quit_tui B
}

# Eight script-mode processes add 200 appointments each at once, on a database nobody has
# opened yet (so they also race to create the schema): all succeed, nothing is lost or doubled.
eight_writers() {
    new_database || return
    local p i pids=() status started elapsed
    for p in 1 2 3 4 5 6 7 8; do
        for i in $(seq 1 200); do
            echo "add \"w$p-$i\" --at \"2026-12-0$p $((8 + i % 10)):00\" --for 30m"
        done >"$T/script$p"
    done
    started=$(now_us)
    for p in 1 2 3 4 5 6 7 8; do
        timeout -k 2 300 "$APPT" --db "$DB" <"$T/script$p" >"$T/out$p" 2>"$T/err$p" &
        pids+=($!)
    done
    for p in 1 2 3 4 5 6 7 8; do
        wait "${pids[$((p - 1))]}"
        status=$?
        check_eq 0 "$status" "writer $p exit status (stderr: $(head -3 "$T/err$p"))"
        check_eq 200 "$(grep -c '^added [0-9a-f]\{6\}  ' "$T/out$p")" "writer $p: adds acknowledged"
    done
    elapsed=$((($(now_us) - started) / 1000))
    echo "    8 x 200 concurrent adds: ${elapsed} ms"

    run_appt --db "$DB" --json list --all --include-cancelled
    check_status 0 "list --all after the writers"
    check_eq 1600 "$(count_lines "$OUT")" "appointments listed"
    check_eq 1600 "$(printf '%s\n' "$OUT" | grep -o '"id":"[^"]*"' | sort -u | wc -l)" "distinct ids listed"
    check_eq 1600 "$(printf '%s\n' "$OUT" | grep -o '"title":"w[1-8]-[0-9]*"' | sort -u | wc -l)" \
        "distinct titles listed"
    check_eq "1600|1600" "$(pg "$DB" 'SELECT count(*), count(DISTINCT id) FROM appointment')" \
        "rows and distinct ids in the table"
    # every acknowledged id is stored, once: the multiset of acknowledged 6-character prefixes
    # is the multiset of the stored ids' prefixes (prefixes may collide; multisets still match)
    cat "$T"/out? | grep -o '^added [0-9a-f]\{6\}' | cut -c7- | sort >"$T/acked"
    printf '%s\n' "$OUT" | grep -o '"id":"[0-9a-f]\{6\}' | cut -c7- | sort >"$T/stored"
    cmp -s "$T/acked" "$T/stored" || fail "acknowledged ids differ from stored ids:
$(diff "$T/acked" "$T/stored" | head -10)"
    check_eq t "$(pg "$DB" 'SELECT count(DISTINCT version) = count(*) AND min(version) = 1 AND max(version) = count(*) FROM appt_schema')" \
        "schema steps applied once each"
}

# One appointment at revision 1; eight processes edit it at once with --if-revision 1: exactly
# one wins, the others are told it changed, and what is stored is the winner's, at revision 2.
concurrent_edits_one_wins() {
    new_database || return
    run_appt --db "$DB" --json add "Original" --at "2026-12-07 09:00" --for 1h
    check_status 0 "setup: add"
    local id n status winner="" wins=0 losses=0 losers=()
    id=$(json_field "$OUT" id)
    [[ $id =~ ^[0-9a-f-]{36}$ ]] || { fail "setup: no id in [$OUT]"; return; }
    check_eq 1 "$(pg "$DB" "SELECT revision FROM appointment WHERE id = '$id'")" "revision after add"

    # a barrier: each writer waits for the go file, so that all eight start together
    for n in 1 2 3 4 5 6 7 8; do
        (
            : >"$T/ready$n"
            deadline=$((SECONDS + 30))
            until [[ -e $T/go ]] || ((SECONDS > deadline)); do sleep 0.005; done
            exec timeout -k 2 60 "$APPT" --db "$DB" edit "$id" --if-revision 1 --title "Writer $n" \
                >"$T/out$n" 2>"$T/err$n"
        ) &
        E2E_BG_PIDS+=($!)
    done
    local deadline=$((SECONDS + 30))
    while (($(ls "$T" | grep -c '^ready') < 8)) && ((SECONDS < deadline)); do sleep 0.01; done
    : >"$T/go"
    for n in 1 2 3 4 5 6 7 8; do
        wait "${E2E_BG_PIDS[$((n - 1))]}"
        status=$?
        case $status in
        0)
            wins=$((wins + 1))
            winner=$n
            ;;
        1)
            losses=$((losses + 1))
            losers+=("$n")
            check_contains "$(cat "$T/err$n")" "${id:0:8} was changed by someone else" "writer $n's stderr"
            ;;
        *) fail "writer $n exited $status (stderr: $(cat "$T/err$n"))" ;;
        esac
    done
    E2E_BG_PIDS=()
    check_eq 1 "$wins" "writers that exited 0"
    check_eq 7 "$losses" "writers that exited 1"
    [[ -n $winner ]] || return
    echo "    writer $winner won"
    check_contains "$(cat "$T/out$winner")" "updated" "the winner's stdout"
    # a refused edit shows what is stored now: the winner's title, revision 2
    for n in "${losers[@]}"; do
        check_contains "$(cat "$T/out$n")" "title: Writer $winner" "writer $n's stdout shows the stored title"
        check_contains "$(cat "$T/out$n")" "revision: 2" "writer $n's stdout shows the stored revision"
    done
    check_eq "Writer $winner|2" "$(pg "$DB" "SELECT title, revision FROM appointment WHERE id = '$id'")" \
        "stored title and revision"
    run_appt --db "$DB" --json show "$id"
    check_status 0 "show after the edits"
    check_eq "Writer $winner" "$(json_field "$OUT" title)" "title shown"
    check_eq 2 "$(json_field "$OUT" revision)" "revision shown"
    check_eq 1 "$(pg "$DB" 'SELECT count(*) FROM appointment')" "still one appointment"
}

# The shared server stops under a running TUI and comes back: the TUI says it is reconnecting,
# one-shot commands fail with exit 3 meanwhile, and after the restart the TUI is live again,
# its own adds work, and nothing acknowledged before the stop is lost.
server_restart_under_tui() {
    new_database || return
    local title ids=() stopped_at
    for title in "Before one|09:00" "Before two|11:00" "Before three|13:00"; do
        run_appt --db "$DB" add "${title%|*}" --at "today ${title#*|}" --for 30m
        check_status 0 "setup: add ${title%|*}"
        ids+=("${OUT:6:6}")
    done
    run_script 'add "Before four" --at "today 14:00" --for 30m
add "Before tomorrow" --at "tomorrow 09:00"' --db "$DB"
    check_status 0 "setup: script adds"
    ids+=($(printf '%s\n' "$OUT" | grep -o '^added [0-9a-f]\{6\}' | cut -c7-))
    check_eq 5 "${#ids[@]}" "adds acknowledged before the stop"

    start_tui A || return
    wait_for_text "13:00-13:30  Before three" 10 || return

    PG_SERVER_STOPPED=1
    stopped_at=$(now_us)
    "$APPT_TEST_PG_SERVER" stop "$APPT_TEST_PG_DIR" || fail "server.sh stop failed"
    if wait_for_line 30 "Reconnecting to PostgreSQL at " 10; then
        echo "    Reconnecting on the status line $((($(now_us) - stopped_at) / 1000)) ms after the stop began"
        check_contains "$(tmux_screen | sed -n 30p)" "$PG_HOSTPORT" "the status line names the server"
    fi
    pane_alive || fail "the TUI exited when the server stopped"

    run_appt --db "$DB" add "While down" --at "today 16:00"
    check_status 3 "one-shot add while the server is down"
    check_contains "$ERR" "$PG_HOSTPORT" "the message names the server"
    check_contains "$ERR" "PostgreSQL" "the message says what it could not reach"
    check_not_contains "$ERR" "$PG_PASSWORD" "the message hides the password"
    check_eq "" "$OUT" "stdout of the failed add"

    "$APPT_TEST_PG_SERVER" resume "$APPT_TEST_PG_DIR" || fail "server.sh resume failed"
    PG_SERVER_STOPPED=0
    local resumed_at
    resumed_at=$(now_us)
    wait_for_no_text "Reconnecting" 15 || return
    echo "    Reconnecting gone $((($(now_us) - resumed_at) / 1000)) ms after the server was back;" \
        "status line: [$(tmux_screen | sed -n 30p | sed 's/[[:space:]]*$//;s/^ *//')]"
    pane_alive || { fail "the TUI exited after the restart"; return; }
    wait_for_line 30 "Reconnected: the calendar is up to date" 5 ||
        fail "the status line does not say it reconnected"

    run_appt --db "$DB" add "After restart" --at "today 15:00" --for 30m
    check_status 0 "add from another process after the restart"
    wait_for_text "15:00-15:30  After restart" 10 || return

    colon A 'add "Typed after restart" --at "today 17:00" --for 30m'
    wait_for_text "17:00-17:30  Typed after restart" 10 || return
    wait_for_line 30 "added" 5
    check_not_contains "$(tmux_screen)" "While down" "the refused add is nowhere"

    quit_tui A
    run_appt --db "$DB" list --all
    check_status 0 "list after the restart"
    check_contains "$OUT" "17:00-17:30  Typed after restart" "the TUI's add after the restart is stored"
    check_contains "$OUT" "15:00-15:30  After restart" "the other process's add is stored"
    check_not_contains "$OUT" "While down" "the refused add was not stored"
    local id
    for id in "${ids[@]}"; do
        check_contains "$OUT" "$id  " "appointment $id, acknowledged before the stop"
    done
    check_eq 7 "$(count_lines "$OUT")" "appointments after the restart"
}

# No server at the URL: one-shot and full-screen both exit 3 with libpq's reason, name the
# server, hide the password; the full screen never starts. A wrong password is refused alike.
server_down_at_start() {
    local port url
    port=$("$APPT_TEST_PG_SERVER" free-port)
    url="postgresql://appt:SECRET@127.0.0.1:$port/x"
    # libpq's key=value form is refused, unechoed, and never becomes a file of that name.
    run_appt --db "host=127.0.0.1 port=$port password=SECRET" list
    check_status 2 "a key=value connection string"
    check_contains "$ERR" "postgresql:// URL" "the message says what to give instead"
    check_not_contains "$ERR" "SECRET" "the refusal hides the password"
    check_eq "home" "$(ls)" "no file named after the connection string (only the scenario's HOME)"
    run_appt --db "sslmode =require dbname = appt" list
    check_status 2 "a key=value string with spaces around ="
    run_appt --db "ghost=1.sqlite3" list
    check_status 0 "a file name that only contains a keyword is a file"
    rm -f ghost=1.sqlite3*

    run_appt --db "$url" list
    check_status 3 "list with no server"
    check_contains "$ERR" "127.0.0.1:$port" "the message names the server"
    check_contains "$ERR" "Connection refused" "the message gives libpq's reason"
    check_not_contains "$ERR" "SECRET" "the message hides the password"
    check_eq "" "$OUT" "stdout with no server"
    APPT_DB=$url run_appt list
    check_status 3 "list with no server, URL from APPT_DB"
    check_contains "$ERR" "127.0.0.1:$port" "the message names the server (APPT_DB)"
    check_not_contains "$ERR" "SECRET" "the message hides the password (APPT_DB)"

    # the full screen, under script(1) so that every byte it writes to the terminal is kept
    local cmd
    printf -v cmd '%q ' "$APPT" --db "$url"
    tmux_start script -q -e -c "$cmd" "$T/typescript" || return
    wait_for_exit 15 || return
    check_eq 3 "$PANE_STATUS" "exit status of the full screen with no server"
    # the typescript's first and last lines are script's own (the first quotes the command)
    local written
    written=$(python3 -c '
import sys
data = open(sys.argv[1], "rb").read()
start = data.index(b"\n") + 1
end = data.rfind(b"\nScript done on")
sys.stdout.write(repr(data[start:end if end >= start else len(data)])[2:-1])' "$T/typescript")
    check_contains "$written" "cannot connect to PostgreSQL at appt@127.0.0.1:$port/x" "the full screen's message"
    check_contains "$written" "Connection refused" "the full screen's message gives libpq's reason"
    check_not_contains "$written" "SECRET" "the full screen's message hides the password"
    check_not_contains "$written" '\x1b' "escape sequences written: the screen was taken over"
    check_not_contains "$(tmux_screen)" "$STATUS_KEYS" "the full screen was never drawn"

    # the real server, a wrong password
    url="postgresql://appt:WRONG-PASSWORD-42@$PG_HOSTPORT/appt"
    run_appt --db "$url" list
    check_status 3 "list with a wrong password"
    check_contains "$ERR" "password authentication failed" "libpq's reason"
    check_contains "$ERR" "$PG_HOSTPORT" "the message names the server"
    check_not_contains "$ERR" "WRONG-PASSWORD-42" "the message hides the wrong password"
    check_not_contains "$ERR" "$PG_PASSWORD" "the message shows no password"
    run_appt --db "$url" --json add "Refused" --at "2026-12-01 10:00"
    check_status 3 "add with a wrong password, JSON"
    check_not_contains "$ERR$OUT" "WRONG-PASSWORD-42" "the JSON-mode message hides the password"
}

# From psql: appt_schema lists the migration steps, starts_at/ends_at are timestamptz equal
# to the instants added (whatever appt's time zone), and doctor is content.
schema_and_timestamptz() {
    new_database || return
    TZ=UTC run_appt --db "$DB" add "Check-up" --at "2026-12-03 14:30" --for 45m   # whatever E2E_TZ is
    check_status 0 "add"
    TZ=America/New_York run_appt --db "$DB" add "New York call" --at "2026-12-03 09:30" --for 1h
    check_status 0 "add in New York time"

    check_eq "t" "$(pg "$DB" "SELECT to_regclass('public.appt_schema') IS NOT NULL")" "table appt_schema exists"
    local steps
    steps=$(pg "$DB" 'SELECT version, name FROM appt_schema ORDER BY version')
    echo "    appt_schema: $(printf '%s\n' "$steps" | tr '\n' ';')"
    [[ -n $steps ]] || fail "appt_schema is empty"
    check_eq "$(seq 1 "$(count_lines "$steps")")" "$(printf '%s\n' "$steps" | cut -d'|' -f1)" \
        "steps numbered 1..N, once each"
    check_eq 0 "$(pg "$DB" "SELECT count(*) FROM appt_schema WHERE name = '' OR applied_at IS NULL")" \
        "every step has a name and a time"

    check_eq "timestamp with time zone|timestamp with time zone" \
        "$(pg "$DB" "SELECT format_type(atttypid, atttypmod) FROM pg_attribute
                      WHERE attrelid = 'appointment'::regclass AND attname IN ('starts_at', 'ends_at')
                      ORDER BY attname DESC" | tr '\n' '|' | sed 's/|$//')" \
        "starts_at and ends_at are timestamptz"
    check_eq "t|t" "$(pg "$DB" "SELECT starts_at = timestamptz '2026-12-03 14:30:00+00',
                                      ends_at = timestamptz '2026-12-03 15:15:00+00'
                                 FROM appointment WHERE title = 'Check-up'")" \
        "Check-up's starts_at and ends_at"
    check_eq "t|t" "$(pg "$DB" "SELECT starts_at = timestamptz '2026-12-03 09:30:00-05',
                                      ends_at = timestamptz '2026-12-03 10:30:00-05'
                                 FROM appointment WHERE title = 'New York call'")" \
        "the New York call's starts_at and ends_at (14:30 UTC)"
    check_eq "2026-12-03 14:30:00+00" \
        "$(PGTZ=UTC pg "$DB" "SELECT starts_at FROM appointment WHERE title = 'Check-up'")" \
        "starts_at as psql prints it"

    run_appt --db "$DB" doctor
    check_status 0 "doctor on PostgreSQL"
    check_contains "$OUT" "2 appointments" "doctor counts them"
    # opening again applies nothing twice
    check_eq "$steps" "$(pg "$DB" 'SELECT version, name FROM appt_schema ORDER BY version')" \
        "appt_schema unchanged by later runs"
}

echo "e2e postgres ($APPT, server $PG_HOSTPORT)"
# Scenario names after the binary run only those: postgres.sh .build/debug/appt eight_writers
scenarios=("${@:2}")
if ((${#scenarios[@]} == 0)); then
    scenarios=(two_clients_see_each_other eight_writers concurrent_edits_one_wins server_restart_under_tui
        server_down_at_start schema_and_timestamptz)
fi
for s in "${scenarios[@]}"; do
    run_scenario "$s"
done
e2e_finish "e2e postgres"
