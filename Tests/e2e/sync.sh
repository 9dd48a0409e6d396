#!/usr/bin/env bash
# End-to-end scenarios for `appt sync` against real CalDAV servers,
# Radicale and Xandikos, on SQLite and (a subset) on PostgreSQL when a test server is given
# (Tests/pg/with-server.sh sets APPT_TEST_PG).
# usage: Tests/e2e/sync.sh [PATH_TO_APPT [SCENARIO...]]   (scenario names: only those)
#
# Needs what Tests/caldav/with-servers.sh gives (APPT_TEST_RADICALE_URL, APPT_TEST_XANDIKOS_URL,
# APPT_TEST_HTTPS_URL with APPT_TEST_CA_FILE): without them the suite is skipped with a line,
# unless APPT_REQUIRE_CALDAV=1, when it fails. `make test` runs it so.
#
# Isolation. appt-sync syncs every calendar of an account, and with-servers.sh's servers are
# shared (seeded with a "work" calendar, written to by the Swift CalDAV tests). So every
# scenario starts servers of its own, in its own temp dir, on free loopback ports: Radicale
# with `[auth] type = none` (any username is its own principal; the scenarios log in as
# alice) or Xandikos (one principal, /user/), each behind Tests/caldav/faultproxy.py. That
# way a scenario knows every calendar the account has (so "a sync with no change makes only
# discovery and sync-collection requests" can be asserted on the proxy's log), can kill and
# restart its server, and leaves nothing to the next one. The shared servers are used where
# they are the point: the https one (a private CA, reached through ca_file) and the shared
# Radicale's real Basic authentication (refused credentials); there each scenario makes a
# calendar with a unique name and asserts only on it. The peer (Tests/caldav/peer.py,
# Python's caldav) talks to the server directly, never through the proxy, so the proxy's log
# holds appt-sync's requests only.
#
# APPT_SYNC_KEEP=DIR keeps a failed kill_nine_points scenario's temp dir (store, server, proxy
# log, journal) in DIR.
#
# Fault scenarios: the server killed in the middle of a 1,000-event first sync (pull, and
# push on Radicale) then restarted; appt-sync kill -9'd at 20 points drawn from a seeded RNG
# (APPT_SYNC_KILL_SEED, default 14), exact because the proxy pauses at that request (before
# or after forwarding it); the server answering 412 (a real race, and one made up), 500,
# 401, a malformed body, or nothing (`timeout = 2`). After each, one more sync must give
# identical sets on both sides, no duplicates, nothing lost.
set -u
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
e2e_init "${1:-}"
shift $(($# > 0 ? 1 : 0))
ONLY=("$@")

CALDAV_DIR=$E2E_ROOT/Tests/caldav
PEER=$CALDAV_DIR/peer.py
PROXY=$CALDAV_DIR/faultproxy.py
APPT_SYNC=$(dirname "$APPT")/appt-sync

if [[ -z ${APPT_TEST_RADICALE_URL:-} || -z ${APPT_TEST_XANDIKOS_URL:-} || -z ${APPT_TEST_HTTPS_URL:-} ]]; then
    if [[ ${APPT_REQUIRE_CALDAV:-} == 1 ]]; then
        echo "e2e sync: APPT_REQUIRE_CALDAV=1 but no CalDAV servers are given (APPT_TEST_RADICALE_URL...)" >&2
        echo "e2e sync: 0 passed, 1 failed"
        exit 1
    fi
    echo "e2e sync: skipped (no CalDAV servers; run it under Tests/caldav/with-servers.sh, as make test does)"
    e2e_finish "e2e sync"
fi
for module in radicale xandikos caldav icalendar; do
    python3 -c "import $module" 2>/dev/null || { echo "e2e sync: Python's $module is missing (make test-tools)" >&2; echo "e2e sync: 0 passed, 1 failed"; exit 1; }
done
if [[ ! -x $APPT_SYNC ]]; then
    echo "e2e sync: no appt-sync next to $APPT (build it: swift build --product appt-sync)" >&2
    echo "e2e sync: 0 passed, 1 failed"
    exit 1
fi

ACCOUNT=cloud
KILL_SEED=${APPT_SYNC_KILL_SEED:-14}
SYNC_WATCHDOG=${APPT_SYNC_WATCHDOG:-600} # seconds one sync may take before it counts as hung: a
# watchdog, never a timing (600 PUTs to Radicale took over 180 s at a load average of 17)

# ---------------------------------------------------------------- the store of a scenario

# use_store ENGINE: STORE (what --db takes) is a new SQLite file in $T or a new PostgreSQL
# database, dropped when the scenario ends (then lib.sh's cleanup).
use_store() {
    ENGINE=$1
    trap 'stop_processes; e2e_cleanup' EXIT
    if [[ $1 == sqlite ]]; then
        STORE=$T/db.sqlite3
        return 0
    fi
    PG_DB="appt_e2e_sync_${BASHPID}_${RANDOM}"
    PGCONNECT_TIMEOUT=10 psql -X -q -At -v ON_ERROR_STOP=1 "$APPT_TEST_PG" -c "CREATE DATABASE \"$PG_DB\"" >/dev/null ||
        { fail "cannot create database $PG_DB"; return 1; }
    trap 'stop_processes; drop_database; e2e_cleanup' EXIT
    STORE=${APPT_TEST_PG%/*}/$PG_DB
}

drop_database() {
    [[ -n ${PG_DB:-} ]] || return 0
    PGCONNECT_TIMEOUT=10 psql -X -q -At "$APPT_TEST_PG" -c "DROP DATABASE IF EXISTS \"$PG_DB\" WITH (FORCE)" >/dev/null 2>&1
}

# a ARGS...: appt on the scenario's store.
a() { run_appt --db "$STORE" "$@"; }

# sync_run [--json] ARGS...: `appt [--json] sync ARGS` on the store (as a user runs it: appt
# execs appt-sync), with a longer watchdog than run_appt's; OUT, ERR, STATUS. No output may
# hold the password.
sync_run() {
    local json=()
    if [[ ${1:-} == --json ]]; then
        json=(--json)
        shift
    fi
    timeout -k 2 "$SYNC_WATCHDOG" "$APPT" --db "$STORE" "${json[@]}" sync "$@" >"$T/.out" 2>"$T/.err"
    STATUS=$?
    OUT=$(cat "$T/.out")
    ERR=$(cat "$T/.err")
    check_not_contains "$OUT$ERR" "$APPT_TEST_SYNC_PASSWORD" "the password is never printed"
    if [[ $STATUS == 124 ]]; then fail "appt sync $* hung (${SYNC_WATCHDOG}s)"; fi
    return 0
}

# sync_ok WHAT [ARGS...]: a sync that must succeed.
sync_ok() {
    local what=$1
    shift
    sync_run "$@"
    check_status 0 "$what"
}

# summary_line: the text summary of the account's Work calendar from the last sync.
summary_line() { grep -F "$ACCOUNT/Work:" <<<"$OUT" | head -1; }

# check_summary NEW CHANGED DELETED PUSHED CONFLICTS [CALENDAR]
check_summary() {
    local calendar=${6:-Work} line
    line=$(grep -F "$ACCOUNT/$calendar:" <<<"$OUT" | head -1)
    check_eq "$ACCOUNT/$calendar: ↓ $1 new, $2 changed, $3 deleted; ↑ $4; $5 conflicts" "$line" "the summary of $ACCOUNT/$calendar"
}

# json_summary [CALENDAR]: the --json object of $ACCOUNT/CALENDAR (default Work) from the last
# sync, as "new=N changed=N deleted=N pushed=N conflicts=N pending=N error=E synced=yes|no".
json_summary() {
    python3 -c '
import json, sys
account, name = sys.argv[1], sys.argv[2]
found = []
for line in sys.stdin:
    line = line.strip()
    if not line:
        continue
    try:
        o = json.loads(line)
    except ValueError:
        print(f"not JSON: {line}")
        sys.exit(0)
    if o.get("account") == account and o.get("calendar") in (name, f"{account}/{name}"):
        found.append(o)
if len(found) != 1:
    print(f"{len(found)} objects for {account}/{name}")
    sys.exit(0)
o = found[0]
error = "null" if o.get("error") is None else "text"
synced = "yes" if o.get("synced") else "no"
print(" ".join(f"{k}={o.get(k)}" for k in ("new", "changed", "deleted", "pushed", "conflicts", "pending")) + f" error={error} synced={synced}")
' "$ACCOUNT" "${1:-Work}" <<<"$OUT"
}

# ---------------------------------------------------------------- servers and the proxy

free_port() {
    python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'
}

# wait_port PORT PID NAME: until 127.0.0.1:PORT accepts, PID died, or 30 s.
wait_port() {
    local port=$1 pid=$2 name=$3 tries=300
    while ((tries-- > 0)); do
        kill -0 "$pid" 2>/dev/null || { fail "$name exited at start: $(tail -5 "$T/srv/server.log" 2>/dev/null)"; return 1; }
        python3 -c "import socket; socket.create_connection(('127.0.0.1', $port), 0.2)" 2>/dev/null && return 0
        sleep 0.1
    done
    fail "$name did not listen on 127.0.0.1:$port"
    return 1
}

# server_start KIND: Radicale (auth none) or Xandikos in $T/srv, on SRV_PORT (a free port the
# first time; the same port again after server_kill, with the data it had). SRV_PID, SRV_URL
# (the server's root, for the peer), SRV_USER; PEER_ENV for the peer's credentials.
server_start() {
    SRV_KIND=$1
    SRV_PORT=${SRV_PORT:-$(free_port)}
    SRV_USER=alice
    mkdir -p "$T/srv"
    case $SRV_KIND in
    radicale)
        printf '[server]\nhosts = 127.0.0.1:%s\n[auth]\ntype = none\n[storage]\nfilesystem_folder = %s\n[logging]\nlevel = warning\n' \
            "$SRV_PORT" "$T/srv/collections" >"$T/srv/radicale.conf"
        python3 -m radicale --config "$T/srv/radicale.conf" >>"$T/srv/server.log" 2>&1 &
        ;;
    xandikos)
        python3 -m xandikos serve -d "$T/srv/collections" --autocreate -l 127.0.0.1 -p "$SRV_PORT" \
            --state-dir "$T/srv/state" --no-detect-systemd >>"$T/srv/server.log" 2>&1 &
        ;;
    *) fail "no server $SRV_KIND"; return 1 ;;
    esac
    SRV_PID=$!
    E2E_BG_PIDS+=("$SRV_PID")
    SRV_URL=http://127.0.0.1:$SRV_PORT/
    wait_port "$SRV_PORT" "$SRV_PID" "$SRV_KIND"
}

# server_collections: where the server keeps the principal's calendars on disk.
server_collection_dir() { # CAL_ID
    case $SRV_KIND in
    radicale) echo "$T/srv/collections/collection-root/$SRV_USER/$1" ;;
    xandikos) echo "$T/srv/collections/user/calendars/$1" ;;
    esac
}

# server_kill: kill -9 the server (its data stays in $T/srv).
server_kill() {
    kill -9 "$SRV_PID" 2>/dev/null
    wait "$SRV_PID" 2>/dev/null
    forget_pid "$SRV_PID"
}

# forget_pid PID: a process that is gone leaves the list the cleanup kills (its pid may be
# another process's by then).
forget_pid() {
    local pid kept=()
    for pid in "${E2E_BG_PIDS[@]}"; do [[ $pid == "$1" ]] || kept+=("$pid"); done
    E2E_BG_PIDS=("${kept[@]}")
}

# proxy_start: the fault proxy in front of the server, on PROXY_PORT (a free port the first
# time, the same again after proxy_stop). PROXY_LOG, PROXY_CONTROL.
proxy_start() {
    PROXY_CONTROL=$T/proxy.control
    PROXY_LOG=$T/proxy.log
    [[ -e $PROXY_CONTROL ]] || python3 "$PROXY" rules "$PROXY_CONTROL"
    rm -f "$T/proxy.port"
    python3 "$PROXY" serve --upstream "http://127.0.0.1:$SRV_PORT/" --control "$PROXY_CONTROL" --log "$PROXY_LOG" \
        --port-file "$T/proxy.port" --port "${PROXY_PORT:-0}" >>"$T/proxy.err" 2>&1 &
    PROXY_PID=$!
    E2E_BG_PIDS+=("$PROXY_PID")
    local tries=300
    while [[ ! -s $T/proxy.port ]] && ((tries-- > 0)); do
        kill -0 "$PROXY_PID" 2>/dev/null || { fail "the proxy exited at start: $(cat "$T/proxy.err")"; return 1; }
        sleep 0.05
    done
    PROXY_PORT=$(cat "$T/proxy.port")
    PROXY_URL=http://127.0.0.1:$PROXY_PORT/
}

proxy_stop() {
    kill -9 "$PROXY_PID" 2>/dev/null
    wait "$PROXY_PID" 2>/dev/null
    forget_pid "$PROXY_PID"
}

# wait_paused PID MARK [TIMEOUT]: until the proxy holds a request (its "paused" line after
# MARK is printed, status 0) or the process PID has ended (status 1), at most TIMEOUT seconds.
wait_paused() {
    local pid=$1 mark=$2 deadline=$((SECONDS + ${3:-$SYNC_WATCHDOG})) line
    while ((SECONDS < deadline)); do
        if line=$(python3 "$PROXY" wait "$PROXY_LOG" paused --after "$mark" --timeout 0.3); then
            echo "$line"
            return 0
        fi
        kill -0 "$pid" 2>/dev/null || return 1
    done
    return 1
}

# stop_processes: the scenario's servers and proxies, by pid (lib.sh's cleanup does it too).
stop_processes() {
    local pid
    for pid in "${E2E_BG_PIDS[@]}"; do
        kill "$pid" 2>/dev/null
    done
    for pid in "${E2E_BG_PIDS[@]}"; do
        wait "$pid" 2>/dev/null
    done
    E2E_BG_PIDS=()
}

proxy_rules() { python3 "$PROXY" rules "$PROXY_CONTROL" "$@"; } # JSON (none: no faults)
proxy_mark() { python3 "$PROXY" lines "$PROXY_LOG"; }
proxy_requests() { python3 "$PROXY" requests "$PROXY_LOG" --after "${1:-0}"; }

# peer ARGS...: Tests/caldav/peer.py against the scenario's server (directly, not proxied).
peer() { APPT_CALDAV_USER=$SRV_USER APPT_CALDAV_PASSWORD=x timeout -k 2 120 python3 "$PEER" "$@"; }

# write_config [LINE...]: the settings file ($XDG_CONFIG_HOME/appt/config) with the account
# `cloud` at URL (default: the proxy), password from the environment; LINEs go into it.
write_config() {
    mkdir -p "$XDG_CONFIG_HOME/appt"
    {
        echo "[account $ACCOUNT]"
        echo "url = ${CONFIG_URL:-$PROXY_URL}"
        echo "username = ${CONFIG_USER:-$SRV_USER}"
        echo "password_env = APPT_TEST_SYNC_PASSWORD"
        local line
        for line in "$@"; do echo "$line"; done
    } >"$XDG_CONFIG_HOME/appt/config"
}

# setup SERVER ENGINE [home]: store, server, proxy, the calendar Work (CAL; and Home, HOME_CAL),
# and the settings file.
setup() {
    use_store "$2" || return 1
    server_start "$1" || return 1
    proxy_start || return 1
    CAL=$(peer mkcal "$SRV_URL" work Work '#FF8800FF') || { fail "could not make the calendar Work"; return 1; }
    if [[ ${3:-} == home ]]; then
        HOME_CAL=$(peer mkcal "$SRV_URL" home Home '#3366CCFF') || { fail "could not make the calendar Home"; return 1; }
    fi
    write_config
}

export APPT_TEST_SYNC_PASSWORD
APPT_TEST_SYNC_PASSWORD="pw-$(python3 -c 'import secrets; print(secrets.token_hex(8))')"

# ---------------------------------------------------------------- comparing the two sides

# local_ics [CALENDAR]: export the account's calendar to $T/local.ics.
local_ics() {
    rm -f "$T/local.ics"
    a export -c "$ACCOUNT/${1:-Work}" "$T/local.ics"
    [[ $STATUS == 0 ]] || fail "export -c $ACCOUNT/${1:-Work}: exit $STATUS: $ERR"
}

# local_list / server_list [CAL_URL]: UID, RECURRENCE-ID, STATUS, SUMMARY of every component.
local_list() { local_ics "${1:-Work}" && python3 "$PEER" list-file "$T/local.ics"; }
server_list() { peer list "${1:-$CAL}"; }
titles_of() { cut -f4 | sort; } # the SUMMARY column of a list

# check_same_sets [LOCAL_NAME CAL_URL]: what the server holds and what appt exports are the
# same events, property by property (CREATED and LAST-MODIFIED aside: appt stamps them on an
# event that came without), with no UID held twice on either side.
check_same_sets() {
    local name=${1:-Work} url=${2:-$CAL} server local dups
    local_ics "$name" || return 1
    server=$(peer dump "$url" --ignore CREATED,LAST-MODIFIED) || { fail "peer dump failed"; return 1; }
    local=$(python3 "$PEER" dump-file "$T/local.ics" --ignore CREATED,LAST-MODIFIED)
    if [[ $server != "$local" ]]; then
        fail "the server and appt differ (< server, > appt):
$(diff <(echo "$server") <(echo "$local") | head -40 | sed 's/^/      /')"
    fi
    dups=$(peer dups "$url")
    check_eq "" "$dups" "no UID is held by two resources on the server"
    dups=$(python3 "$PEER" list-file "$T/local.ics" | cut -f1,2 | sort | uniq -d)
    check_eq "" "$dups" "no event is twice in appt"
}

# check_every_property_kept: every line of the server's canonical form is in appt's export
# (appt may add CREATED, LAST-MODIFIED where they were missing; nothing else).
check_every_property_kept() {
    local server local lost added
    local_ics "${1:-Work}" || return 1
    server=$(peer dump "${2:-$CAL}")
    local=$(python3 "$PEER" dump-file "$T/local.ics")
    lost=$(comm -23 <(echo "$server" | LC_ALL=C sort) <(echo "$local" | LC_ALL=C sort))
    added=$(comm -13 <(echo "$server" | LC_ALL=C sort) <(echo "$local" | LC_ALL=C sort) | grep -Ev $'\t(CREATED|LAST-MODIFIED)[;:]')
    check_eq "" "$lost" "every property of the server's events is in appt (lost on the way)"
    check_eq "" "$added" "appt adds nothing but CREATED/LAST-MODIFIED"
}

# check_no_change_requests MARK CALENDARS: since MARK the proxy saw only the token exchange:
# discovery (PROPFIND, OPTIONS; a calendar's sync-token comes with it) and at most one
# sync-collection REPORT per calendar: nothing fetched (GET, multiget, calendar-query),
# nothing written.
check_no_change_requests() {
    local requests others reports
    requests=$(proxy_requests "$1")
    others=$(awk '$1 != "PROPFIND" && $1 != "OPTIONS" && !($1 == "REPORT" && $4 == "sync-collection")' <<<"$requests")
    reports=$(awk '$1 == "REPORT" && $4 == "sync-collection"' <<<"$requests" | wc -l)
    check_eq "" "$others" "a sync with no change fetches and writes nothing (requests: $(tr '\n' ';' <<<"$requests"))"
    if ((reports > $2)); then
        fail "more than one sync-collection per calendar ($reports for $2): $(tr '\n' ';' <<<"$requests")"
    fi
}

# local_id TITLE [CALENDAR]: the id of the one appointment titled TITLE in the calendar.
local_id() {
    a --json list --all --include-cancelled -c "$ACCOUNT/${2:-Work}"
    python3 -c '
import json, sys
ids = {o["id"] for o in map(json.loads, filter(str.strip, sys.stdin)) if o.get("title") == sys.argv[1]}
if len(ids) != 1:
    sys.exit(f"{len(ids)} appointments titled {sys.argv[1]!r}")
print(ids.pop())
' "$1" <<<"$OUT"
}

# json_id: the id in the JSON object that `appt --json add` printed ($OUT).
json_id() { python3 -c 'import json, sys; print(json.loads(sys.stdin.readline())["id"])' <<<"$OUT"; }

# check_message WHAT: the last sync failed with a message naming the account and its URL.
check_message() {
    check_contains "$ERR" "$ACCOUNT" "$1: the message names the account"
    check_contains "$ERR" "127.0.0.1:${2:-$PROXY_PORT}" "$1: the message names the server"
}

# ---------------------------------------------------------------- Both ways

# An event made by another client (every property a phone writes), a series with an override
# and an EXDATE, a whole-day one, a cancelled one, in two calendars: all arrive, nothing lost.
peer_events_arrive() {
    setup "$1" "$2" home || return
    peer create "$CAL" full-1 --kind full --summary Dentist >/dev/null || fail "peer create"
    peer create "$CAL" series-1 --kind series --summary Standup >/dev/null
    peer create "$CAL" allday-1 --kind allday --summary Holiday >/dev/null
    peer create "$CAL" gone-1 --summary "Called off" >/dev/null
    peer cancel "$CAL" gone-1
    peer create "$HOME_CAL" home-1 --summary Groceries >/dev/null
    sync_ok "the first sync" --json
    check_eq "new=4 changed=0 deleted=0 pushed=0 conflicts=0 pending=0 error=null synced=yes" "$(json_summary Work)" "JSON of Work"
    check_eq "new=1 changed=0 deleted=0 pushed=0 conflicts=0 pending=0 error=null synced=yes" "$(json_summary Home)" "JSON of Home"
    a calendars
    check_contains "$OUT" "$ACCOUNT/Work" "one local calendar per remote one"
    check_contains "$OUT" "$ACCOUNT/Home" "one local calendar per remote one"
    check_every_property_kept Work
    check_every_property_kept Home "$HOME_CAL"
    check_same_sets Work
    a list --from 2026-12-07 --days 30 -c "$ACCOUNT/Work"
    check_contains "$OUT" "Standup (moved)" "the override is listed"
    check_contains "$OUT" "Dentist" "the full event is listed"
    # A second sync with no change transfers nothing but the token exchange.
    local mark
    mark=$(proxy_mark)
    sync_ok "the second sync"
    check_summary 0 0 0 0 0
    check_summary 0 0 0 0 0 Home
    check_no_change_requests "$mark" 2
}

# What another client put on the server is stored whole, whatever appt's input limits: a long
# meeting invitation (a DESCRIPTION over 10,000 characters), a SUMMARY over 500, an event of a
# year and a half. Each is listed; a sync after changes nothing; the server making a known
# event long updates it, and a local edit of it goes out (it used to be refused on every sync).
server_events_kept_whole() {
    setup "$1" "$2" || return
    local note title
    note=$(python3 -c 'print("Join by phone: +1 555 0100 then ID 123 456 789#. " * 300)')
    title=$(python3 -c 'print("Quarterly planning and " * 40 + "the rest")')
    server_event long-note "Teams call" "DTSTART:20261210T100000Z" "DTEND:20261210T110000Z" "DESCRIPTION:$note" >"$T/note.ics"
    server_event long-title "$title" "DTSTART:20261211T100000Z" "DTEND:20261211T110000Z" >"$T/title.ics"
    server_event long-days Sabbatical "DTSTART;VALUE=DATE:20261212" "DTEND;VALUE=DATE:20280601" >"$T/days.ics"
    server_event plain Standup "DTSTART:20261214T090000Z" "DTEND:20261214T091500Z" >"$T/plain.ics"
    local name
    for name in note title days plain; do peer put "$CAL" "$name.ics" "$T/$name.ics" >/dev/null || fail "peer put $name"; done
    sync_ok "the first sync"
    check_summary 4 0 0 0 0
    a list --from 2026-12-10 --days 7 -c "$ACCOUNT/Work"
    check_contains "$OUT" "Teams call" "the long invitation is listed"
    check_contains "$OUT" "Quarterly planning and Quarterly" "the long title is listed"
    check_contains "$OUT" "Sabbatical" "the year and a half is listed"
    a --json list --from 2026-12-10 --days 1 -c "$ACCOUNT/Work"
    check_eq "${#note}" "$(python3 -c 'import json,sys; print(len(json.loads(sys.stdin.readline())["note"]))' <<<"$OUT")" \
        "the whole DESCRIPTION is stored"
    sync_ok "the second sync"
    check_summary 0 0 0 0 0
    # The server makes a known event long; a local edit of it goes out.
    peer edit "$CAL" plain DESCRIPTION="$note" || fail "peer edit"
    sync_ok "the sync after the server's change"
    check_summary 0 1 0 0 0
    a --json list --from 2026-12-14 --days 1 -c "$ACCOUNT/Work" --search Standup
    local id
    id=$(json_id)
    a edit "${id:0:8}" --title "Standup, moved"
    check_status 0 "a local edit of the long event"
    sync_ok "the sync that sends the edit"
    check_summary 0 0 0 1 0
    check_eq "plain	-	CONFIRMED	Standup, moved" "$(server_list | grep '^plain')" "the server has the edit"
    check_same_sets
}

# A series the phone made (weekly, six times, the fourth cancelled, the third moved two hours
# later) is moved an hour later in appt: the server's copy keeps five occurrences, its
# RECURRENCE-ID and EXDATE an hour later, read by Python's icalendar and dateutil as the
# independent reader (it listed seven before).
series_moved_keeps_its_exceptions() {
    setup "$1" "$2" || return
    peer create "$CAL" weekly-1 --kind series --summary Standup >/dev/null || fail "peer create"
    sync_ok "the first sync"
    a --json list --from 2026-12-07 --days 1 -c "$ACCOUNT/Work" --search Standup
    local id
    id=$(json_id)
    TZ=Europe/Berlin a edit "${id:0:8}" --at "2026-12-07 11:00"
    check_status 0 "the series moved an hour later"
    sync_ok "the sync that sends it"
    check_summary 0 0 0 1 0
    peer get "$CAL" weekly-1 >"$T/server.ics" || fail "peer get"
    check_eq "EXDATE;TZID=Europe/Berlin:20261228T110000
RECURRENCE-ID;TZID=Europe/Berlin:20261221T110000" "$(tr -d '\r' <"$T/server.ics" | grep -E '^(EXDATE|RECURRENCE-ID)' | sort)" \
        "the server's exceptions moved with the series"
    check_eq "2026-12-07T11:00:00+01:00 Standup
2026-12-14T11:00:00+01:00 Standup
2026-12-21T12:00:00+01:00 Standup (moved)
2027-01-04T11:00:00+01:00 Standup
2027-01-11T11:00:00+01:00 Standup" "$(occurrences_of "$T/server.ics")" "the server's series, as dateutil expands it"
    check_same_sets
}

# The same event in conflict twice (the phone and the laptop each edit it, twice): both of
# the laptop's losing versions are kept, each under its own id, `conflicts show` gives each in
# full against the server's, and keeping the first sends it to the server.
conflict_twice_keeps_both() {
    setup "$1" "$2" || return
    peer create "$CAL" twice-1 --summary "Review" >/dev/null || fail "peer create"
    sync_ok "the first sync"
    local id round
    id=$(local_id Review) || return
    for round in first second; do
        peer edit "$CAL" twice-1 SUMMARY="Review (phone, $round)"
        a edit "${id:0:8}" --title "Review (laptop, $round)"
        sync_ok "the sync that finds the $round conflict"
        check_eq "$ACCOUNT/Work: ↓ 0 new, 1 changed, 0 deleted; ↑ 0; 1 conflict" "$(summary_line)" "the $round conflict"
    done
    a --json conflicts
    local listed
    listed=$(python3 -c '
import json, sys
for o in sorted(map(json.loads, sys.stdin), key=lambda o: o["title"]):
    print(o["title"], o["appointment"][:8], o["id"])' <<<"$OUT")
    check_eq "Review (laptop, first) ${id:0:8}
Review (laptop, second) ${id:0:8}" "$(cut -d' ' -f1-4 <<<"$listed")" "both losing versions, of one event"
    local first
    first=$(awk 'NR == 1 { print $5 }' <<<"$listed")
    a conflicts show "${first:0:8}"
    check_status 0 "conflicts show"
    check_contains "$OUT" "-SUMMARY:Review (laptop\, first)" "yours in the diff"
    check_contains "$OUT" "+SUMMARY:Review (phone\, second)" "the server's in the diff"
    a resolve "${first:0:8}" --keep local
    check_status 0 "keep the first"
    sync_ok "the sync that sends it"
    check_summary 0 0 0 1 0
    check_eq "Review (laptop, first)" "$(server_list | titles_of)" "the kept version is on the server"
    a conflicts
    check_contains "$OUT" "Review (laptop, second)" "the other stays until settled"
}

# One UID in two calendars (an invitation sent to the work and the home address) is two events:
# both listed, each synced to its own calendar, neither deleted by the next sync; an edit of
# one goes to its calendar only.
one_uid_in_two_calendars() {
    setup "$1" "$2" home || return
    peer create "$CAL" board-1 --summary "Board (work)" >/dev/null || fail "peer create in Work"
    peer create "$HOME_CAL" board-1 --summary "Board (home)" >/dev/null || fail "peer create in Home"
    sync_ok "the first sync"
    check_summary 1 0 0 0 0
    check_summary 1 0 0 0 0 Home
    local id
    id=$(local_id "Board (home)" Home) || return
    a edit "${id:0:8}" --title "Board (home, with Ada)"
    check_status 0 "edit the Home copy"
    sync_ok "the sync that sends the edit"
    check_summary 0 0 0 0 0
    check_summary 0 0 0 1 0 Home
    check_eq "Board (work)" "$(server_list | titles_of)" "Work's copy is untouched on the server"
    check_eq "Board (home, with Ada)" "$(server_list "$HOME_CAL" | titles_of)" "Home's copy took the edit"
    a list --from 2026-12-07 --days 1
    check_contains "$OUT" "Board (work)" "Work's copy listed"
    check_contains "$OUT" "Board (home, with Ada)" "Home's copy listed"
    sync_ok "a sync after"
    check_summary 0 0 0 0 0
    check_summary 0 0 0 0 0 Home
}

# remind_once ISO: `appt remind --once` at ISO (UTC), printing on stdout; the count of
# "reminder: TITLE" lines in $OUT for TITLE $2.
remind_once() {
    APPT_NOW=$1 PATH=/usr/bin:/bin run_appt --db "$STORE" remind --once
    check_status 0 "remind --once at $1"
    grep -c "reminder: $2" <<<"$OUT" || true
}

# The phone moves an event to another calendar: appt moves it too, keeping its id (a script's
# id still works) and its alarm record (the reminder that fired does not fire again).
moved_by_phone_keeps_id_and_alarm() {
    setup "$1" "$2" home || return
    # Its DISPLAY alarm: 15 minutes before 10:00 Berlin, 08:45 UTC.
    peer create "$CAL" trip-1 --kind full --summary Trip >/dev/null || fail "peer create"
    sync_ok "the first sync"
    local id
    id=$(local_id Trip) || return
    check_eq 1 "$(remind_once 2026-12-07T08:45:05Z Trip)" "the reminder fires"
    peer move "$CAL" trip-1 "$HOME_CAL" || fail "peer move"
    sync_ok "the sync that sees the move"
    check_summary 0 0 0 0 0
    check_summary 1 0 0 0 0 Home
    check_eq "$id" "$(local_id Trip Home)" "the same appointment, now in Home"
    a show "${id:0:8}"
    check_contains "$OUT" "$ACCOUNT/Home" "show finds it by its old id"
    check_eq 0 "$(remind_once 2026-12-07T08:45:10Z Trip)" "the reminder does not fire again"
    check_eq "" "$(server_list | titles_of)" "nothing sent back to Work"
    check_eq "Trip" "$(server_list "$HOME_CAL" | titles_of)" "Home holds it once"
    check_every_property_kept Home "$HOME_CAL"
}

# The phone moves an event while appt holds an edit of it not yet sent: the edit is a conflict
# of the moved event, nothing is lost, nothing is sent back to where it was.
move_meets_unsent_edit() {
    setup "$1" "$2" home || return
    peer create "$CAL" trip-2 --summary Trip >/dev/null || fail "peer create"
    sync_ok "the first sync"
    local id
    id=$(local_id Trip) || return
    a edit "${id:0:8}" --title "Trip, with the tickets"
    check_status 0 "the laptop's edit"
    peer move "$CAL" trip-2 "$HOME_CAL" || fail "peer move"
    sync_ok "the sync that meets the move"
    check_summary 0 0 0 0 0
    check_eq "$ACCOUNT/Home: ↓ 1 new, 0 changed, 0 deleted; ↑ 0; 1 conflict" "$(grep -F "$ACCOUNT/Home:" <<<"$OUT")" \
        "the conflict is the moved event's"
    check_eq "$id" "$(local_id Trip Home)" "the same appointment, in Home with the phone's version"
    a --json conflicts
    check_contains "$OUT" '"title":"Trip, with the tickets"' "the edit kept as a conflict"
    check_contains "$OUT" "\"appointment\":\"$id\"" "of the moved event"
    check_eq "" "$(server_list | titles_of)" "nothing sent back to Work"
    check_eq "Trip" "$(server_list "$HOME_CAL" | titles_of)" "the phone's version stays on the server"
}

# The user's organisation sticks: a synced calendar renamed keeps the user's name (the
# server's shown beside it) and goes on syncing; `calendar unsync` stops it both ways until
# `calendar sync`; a deleted one (--move-to) is not brought back by the next sync.
local_organisation_sticks() {
    setup "$1" "$2" || return
    peer create "$CAL" org-1 --summary Planning >/dev/null || fail "peer create"
    sync_ok "the first sync"
    a calendar rename "$ACCOUNT/Work" Job
    check_status 0 "rename"
    sync_ok "the sync after the rename"
    check_contains "$OUT" "Job: ↓ 0 new" "synced under the user's name"
    a calendars
    check_contains "$OUT" "(on the server: Work)" "the server's name beside it"
    a add "Retro" --at "2026-12-08 15:00" -c Job
    sync_ok "the sync that sends an add from Job"
    check_eq "Planning
Retro" "$(server_list | titles_of)" "Job still syncs with Work"
    a calendar unsync Job
    check_status 0 "unsync"
    peer create "$CAL" org-2 --summary "Phone's" >/dev/null || fail "peer create"
    a add "Laptop's" --at "2026-12-09 15:00" -c Job
    sync_ok "a sync with Job unsynced"
    check_not_contains "$OUT" "Job:" "Job is left alone"
    a list --all -c Job
    check_not_contains "$OUT" "Phone's" "nothing pulled"
    check_not_contains "$(server_list | titles_of)" "Laptop's" "nothing pushed"
    a calendars
    check_contains "$OUT" "sync off" "calendars says so"
    a calendar sync Job
    check_status 0 "sync again"
    sync_ok "the sync after sync again"
    check_contains "$OUT" "Job: ↓ 1 new, 0 changed, 0 deleted; ↑ 1" "what waited goes both ways"
    a calendar delete Job --move-to personal
    check_status 0 "delete --move-to"
    check_contains "$OUT" "no longer synced" "says the server's calendar stays unsynced"
    sync_ok "the sync after the delete"
    a calendars
    check_not_contains "$OUT" "$ACCOUNT/" "the deleted calendar is not brought back"
    a list --all -c personal
    check_eq 4 "$(grep -c . <<<"$OUT")" "its four events are in personal, once each: $OUT"
    check_eq 4 "$(server_list | titles_of | grep -c .)" "the server keeps its four"
}

# Floating times stay floating: a phone's 09:00 with no zone, synced in UTC, is 09:00 in Tokyo
# too; moved to 11:00 in New York it reaches the server as a floating 11:00; a sync from
# another zone after that sends nothing.
floating_times_stay_floating() {
    setup "$1" "$2" || return
    server_event float-1 Breakfast "DTSTART:20261208T090000" "DTEND:20261208T100000" >"$T/float.ics"
    peer put "$CAL" float-1.ics "$T/float.ics" || fail "peer put"
    TZ=UTC sync_ok "the first sync, in UTC"
    TZ=Asia/Tokyo a list --from 2026-12-08 --days 1
    check_contains "$OUT" "09:00-10:00  Breakfast" "09:00 in Tokyo too"
    local id
    id=$(local_id Breakfast) || return
    TZ=America/New_York a edit "${id:0:8}" --at "2026-12-08 11:00"
    check_status 0 "moved to 11:00 in New York"
    TZ=America/New_York sync_ok "the sync that sends it, from New York"
    check_summary 0 0 0 1 0
    check_eq "DTSTART:20261208T110000
DTEND:20261208T120000" "$(peer get "$CAL" float-1 | tr -d '\r' | grep -E '^(DTSTART|DTEND)')" \
        "the server has a floating 11:00"
    TZ=Asia/Tokyo sync_ok "a sync from Tokyo"
    check_summary 0 0 0 0 0
    TZ=Asia/Tokyo a list --from 2026-12-08 --days 1
    check_contains "$OUT" "11:00-12:00  Breakfast" "11:00 in Tokyo"
}

# occurrences_of FILE: each occurrence of FILE's one series (RRULE, EXDATE, overrides) as
# Python's icalendar and dateutil read it: "START SUMMARY", in order.
occurrences_of() {
    python3 - "$1" <<'PY'
import sys
from dateutil.rrule import rrulestr
from icalendar import Calendar
events = Calendar.from_ical(open(sys.argv[1], "rb").read()).walk("VEVENT")
master = next(e for e in events if "RECURRENCE-ID" not in e)
start = master.decoded("DTSTART")
rules = rrulestr(master["RRULE"].to_ical().decode(), dtstart=start, forceset=True)
exdates = master.get("EXDATE", [])
for group in exdates if isinstance(exdates, list) else [exdates]:
    for when in group.dts:
        rules.exdate(when.dt)
moved = {e.decoded("RECURRENCE-ID"): e for e in events if "RECURRENCE-ID" in e}
for when in rules:
    event = moved.get(when, master)
    begin = event.decoded("DTSTART") if event is not master else when
    print(begin.isoformat(), event["SUMMARY"])
PY
}

# server_event UID SUMMARY LINE...: one event as another client writes it, unfolded.
server_event() {
    local uid=$1 summary=$2
    shift 2
    printf 'BEGIN:VCALENDAR\r\nVERSION:2.0\r\nPRODID:-//tests//peer//EN\r\nBEGIN:VEVENT\r\n'
    printf 'UID:%s\r\nDTSTAMP:20261201T120000Z\r\nSUMMARY:%s\r\n' "$uid" "$summary"
    printf '%s\r\n' "$@"
    printf 'END:VEVENT\r\nEND:VCALENDAR\r\n'
}

# Events made in appt (a one-off with location and note, a series with a changed occurrence,
# a whole-day one) go to the server, created with If-None-Match: *.
appt_events_arrive() {
    setup "$1" "$2" || return
    sync_ok "the first sync (makes the local calendar)"
    check_summary 0 0 0 0 0
    a add "Team lunch" --at "2026-12-08 12:00" --for 1h30m --location "Canteen, 2nd floor" --note "Bring cake; and plates" -c "$ACCOUNT/Work"
    check_status 0 "add"
    a add "Weekly review" --at "2026-12-09 15:00" --repeat weekly --count 5 -c "$ACCOUNT/Work"
    local review
    review=$(local_id "Weekly review") || { fail "no Weekly review"; return; }
    a edit "$review" --occurrence 2026-12-16 --title "Weekly review (short)" --for 30m
    check_status 0 "edit an occurrence"
    a add Offsite --at 2026-12-10 --all-day -c "$ACCOUNT/Work"
    local mark
    mark=$(proxy_mark)
    sync_ok "the sync that pushes"
    check_summary 0 0 0 3 0
    local puts
    puts=$(proxy_requests "$mark" | awk '$1 == "PUT"')
    check_eq 3 "$(wc -l <<<"$puts")" "three PUTs"
    check_eq "" "$(awk '$7 != "if-none-match:*"' <<<"$puts")" "every create carries If-None-Match: *"
    local listed
    listed=$(server_list | titles_of)
    check_eq "Offsite
Team lunch
Weekly review
Weekly review (short)" "$listed" "the server holds what appt made"
    check_same_sets
    check_contains "$(peer dump "$CAL")" 'LOCATION:Canteen\, 2nd floor' "the location"
    check_contains "$(peer dump "$CAL")" 'DESCRIPTION:Bring cake\; and plates' "the note"
    mark=$(proxy_mark)
    sync_ok "a sync with no change"
    check_summary 0 0 0 0 0
    check_no_change_requests "$mark" 1
}

# Edits, cancels, deletes and changed occurrences of series, on each side, all in one sync.
edits_both_ways() {
    setup "$1" "$2" || return
    local uid
    for uid in p-edit p-cancel p-delete p-local-edit p-local-cancel p-local-delete; do
        peer create "$CAL" "$uid" --summary "Peer $uid" >/dev/null || fail "peer create $uid"
    done
    peer create "$CAL" series-peer --kind series --summary "Peer series" >/dev/null
    peer create "$CAL" series-local --kind series --summary "Local series" --start 20261208T090000 >/dev/null
    sync_ok "the first sync"
    check_summary 8 0 0 0 0
    a add "Local A" --at "2026-12-11 09:00" -c "$ACCOUNT/Work"
    a add "Local B" --at "2026-12-11 10:00" -c "$ACCOUNT/Work"
    sync_ok "the sync that sends appt's two"
    check_summary 0 0 0 2 0
    # the server's side
    peer edit "$CAL" p-edit SUMMARY="Edited on the server" DTSTART=20261207T140000 DTEND=20261207T150000 || fail "peer edit"
    peer cancel "$CAL" p-cancel
    peer delete "$CAL" p-delete
    peer edit "$CAL" series-peer --rid 20261221T100000 SUMMARY="Moved by the peer"
    peer override "$CAL" series-peer 20261214T100000 SUMMARY="Changed by the peer"
    uid=$(peer uid "$CAL" "Local A") || fail "no Local A on the server"
    peer edit "$CAL" "$uid" SUMMARY="Local A, edited on the server"
    # appt's side
    local id
    id=$(local_id "Peer p-local-edit") && a edit "$id" --title "Edited in appt" --at "2026-12-07 11:00"
    check_status 0 "edit"
    id=$(local_id "Peer p-local-cancel") && a cancel "$id"
    check_status 0 "cancel"
    id=$(local_id "Peer p-local-delete") && a delete "$id"
    check_status 0 "delete"
    id=$(local_id "Local series") && a edit "$id" --occurrence 2027-01-05 --title "Local series (appt)"
    check_status 0 "edit an occurrence"
    id=$(local_id "Local B") && a delete "$id"
    sync_ok "the sync both ways"
    check_summary 0 4 1 5 0
    check_same_sets
    local listed
    listed=$(server_list)
    check_contains "$listed" $'p-cancel\t-\tCANCELLED' "the peer's cancel arrived"
    check_contains "$listed" $'p-local-cancel\t-\tCANCELLED' "appt's cancel went out"
    check_contains "$listed" $'\tMoved by the peer' "the peer's changed occurrence"
    check_contains "$listed" $'series-local\t20270105T090000\tCONFIRMED\tLocal series (appt)' "appt's changed occurrence"
    check_not_contains "$listed" "p-delete" "the peer's delete"
    check_not_contains "$listed" "p-local-delete" "appt's delete"
    check_not_contains "$listed" "Local B" "appt's delete of its own"
    a list --from 2026-12-07 --days 1 -c "$ACCOUNT/Work"
    check_contains "$OUT" "Edited on the server" "the peer's edit is listed"
    local mark
    mark=$(proxy_mark)
    sync_ok "a sync with no change"
    check_summary 0 0 0 0 0
    check_no_change_requests "$mark" 1
}

# https with a private CA: ca_file in the account reaches it; without it, the certificate is
# refused (verification always on), exit 3. The shared https server: a calendar of its own.
https_with_ca_file() {
    use_store "$2" || return
    SRV_USER=$APPT_TEST_CALDAV_USER
    local id="sync-e2e-$BASHPID-$RANDOM" url
    url=$(APPT_CALDAV_USER=$APPT_TEST_CALDAV_USER APPT_CALDAV_PASSWORD=$APPT_TEST_CALDAV_PASSWORD APPT_CALDAV_CA_FILE=$APPT_TEST_CA_FILE \
        python3 "$PEER" mkcal "$APPT_TEST_HTTPS_URL" "$id" "Tls $id") || { fail "could not make a calendar on the https server"; return; }
    APPT_CALDAV_USER=$APPT_TEST_CALDAV_USER APPT_CALDAV_PASSWORD=$APPT_TEST_CALDAV_PASSWORD APPT_CALDAV_CA_FILE=$APPT_TEST_CA_FILE \
        python3 "$PEER" create "$url" "tls-$id" --kind full --summary "Over TLS" >/dev/null || fail "peer create over https"
    local saved=$APPT_TEST_SYNC_PASSWORD
    APPT_TEST_SYNC_PASSWORD=$APPT_TEST_CALDAV_PASSWORD
    CONFIG_URL=$APPT_TEST_HTTPS_URL CONFIG_USER=$APPT_TEST_CALDAV_USER write_config
    sync_run
    check_status 3 "an https server whose CA is not trusted"
    check_contains "$ERR" "$ACCOUNT" "the message names the account"
    check_contains "$ERR" "localhost" "the message names the server"
    CONFIG_URL=$APPT_TEST_HTTPS_URL CONFIG_USER=$APPT_TEST_CALDAV_USER write_config "ca_file = $APPT_TEST_CA_FILE"
    sync_ok "with ca_file"
    check_contains "$OUT" "$ACCOUNT/Tls $id: ↓ 1 new" "the event came over https"
    a list --all -c "$ACCOUNT/Tls $id"
    check_contains "$OUT" "Over TLS" "listed"
    a add "Back over TLS" --at "2026-12-09 09:00" -c "$ACCOUNT/Tls $id"
    sync_ok "a push over https"
    local listed
    listed=$(APPT_CALDAV_USER=$APPT_TEST_CALDAV_USER APPT_CALDAV_PASSWORD=$APPT_TEST_CALDAV_PASSWORD APPT_CALDAV_CA_FILE=$APPT_TEST_CA_FILE \
        python3 "$PEER" list "$url")
    check_contains "$listed" "Back over TLS" "appt's event is on the https server"
    APPT_TEST_SYNC_PASSWORD=$saved
}

# The shared Radicale's real Basic authentication: a wrong password is exit 3 naming the account
# and URL (never the password); password_command gives the right one.
credentials() {
    use_store "$2" || return
    local id="sync-e2e-$BASHPID-$RANDOM" url
    url=$(APPT_CALDAV_USER=$APPT_TEST_CALDAV_USER APPT_CALDAV_PASSWORD=$APPT_TEST_CALDAV_PASSWORD \
        python3 "$PEER" mkcal "$APPT_TEST_RADICALE_URL" "$id" "Auth $id") || { fail "could not make a calendar"; return; }
    CONFIG_URL=$APPT_TEST_RADICALE_URL CONFIG_USER=$APPT_TEST_CALDAV_USER write_config
    sync_run # APPT_TEST_SYNC_PASSWORD is not this server's password
    check_status 3 "refused credentials"
    check_contains "$ERR" "$ACCOUNT" "the message names the account"
    local hostport=${APPT_TEST_RADICALE_URL#http://}
    check_contains "$ERR" "${hostport%/}" "the message names the server"
    mkdir -p "$XDG_CONFIG_HOME/appt"
    printf '[account %s]\nurl = %s\nusername = %s\npassword_command = printf "%%s\\n" "$APPT_TEST_CALDAV_PASSWORD"\n' \
        "$ACCOUNT" "$APPT_TEST_RADICALE_URL" "$APPT_TEST_CALDAV_USER" >"$XDG_CONFIG_HOME/appt/config"
    sync_ok "password_command"
    check_contains "$OUT" "$ACCOUNT/Auth $id:" "the calendar is synced"
    check_not_contains "$OUT$ERR" "$APPT_TEST_CALDAV_PASSWORD" "the password is never printed"
    printf '[account %s]\nurl = %s\nusername = %s\npassword_command = exit 7\n' \
        "$ACCOUNT" "$APPT_TEST_RADICALE_URL" "$APPT_TEST_CALDAV_USER" >"$XDG_CONFIG_HOME/appt/config"
    sync_run
    check_status 3 "a password_command that fails"
    check_contains "$ERR" "$ACCOUNT" "the message names the account"
}

# What the command line promises around a sync: an unknown account, a missing appt-sync, a
# second sync while one runs (the lock).
command_line() {
    setup "$1" "$2" || return
    sync_run nope
    check_status 1 "an unknown account"
    check_contains "$ERR" "no [account nope] in" "names the account"
    mkdir -p "$T/alone"
    cp "$APPT" "$T/alone/appt"
    timeout -k 2 "$E2E_WATCHDOG" env PATH=/usr/bin:/bin "$T/alone/appt" --db "$STORE" sync >"$T/.out" 2>"$T/.err"
    STATUS=$?
    ERR=$(cat "$T/.err")
    check_status 1 "appt-sync missing"
    check_contains "$ERR" "sync needs the appt-sync program next to appt" "says what is missing"
    # one sync at a time: the first is held at its first request; a second one waits for it
    # and runs once it has ended (told not to wait, APPT_SYNC_WAIT=0, it is refused at once)
    proxy_rules '{"rules": [{"n": 1, "action": "pause"}]}'
    local mark pid second i
    mark=$(proxy_mark)
    "$APPT" --db "$STORE" sync >"$T/first.out" 2>&1 &
    pid=$!
    wait_paused "$pid" "$mark" 30 >/dev/null || fail "the first sync never reached the server"
    APPT_SYNC_WAIT=0 sync_run
    check_status 1 "a second sync at the same time, not waiting"
    check_contains "$ERR" "is running; try again when it has finished" "says a sync runs"
    "$APPT" --db "$STORE" sync >"$T/second.out" 2>"$T/second.err" &
    second=$!
    for ((i = 0; i < 600; i++)); do
        grep -q "waiting for it to finish" "$T/second.err" && break
        sleep 0.1
    done
    check_contains "$(cat "$T/second.err")" "is running; waiting for it to finish" \
        "the second sync says it waits (60 s guard)"
    proxy_rules
    wait "$pid"
    check_eq 0 "$?" "the first sync finishes"
    wait "$second"
    check_eq 0 "$?" "then the second one runs: $(cat "$T/second.err")"
}

# ---------------------------------------------------------------- Conflicts

# The same event edited on both sides: the server's version is kept, appt's is listed by
# `appt conflicts`; resolve keeps either.
conflict_both_edited() {
    setup "$1" "$2" || return
    peer create "$CAL" c-keep-local --summary "Meeting" >/dev/null
    peer create "$CAL" c-keep-server --summary "Call" >/dev/null
    sync_ok "the first sync"
    peer edit "$CAL" c-keep-local SUMMARY="Meeting (server)"
    peer edit "$CAL" c-keep-server SUMMARY="Call (server)" LOCATION="Phone"
    local id_meeting id_call
    id_meeting=$(local_id Meeting) && a edit "$id_meeting" --title "Meeting (local)"
    id_call=$(local_id Call) && a edit "$id_call" --title "Call (local)" --at "2026-12-07 16:00"
    sync_ok "the sync that finds two conflicts"
    check_summary 0 2 0 0 2
    local listed
    listed=$(server_list | titles_of)
    check_eq "Call (server)
Meeting (server)" "$listed" "the server's versions stay on the server"
    check_same_sets
    a conflicts
    check_status 0 "conflicts"
    check_eq 2 "$(grep -c . <<<"$OUT")" "two conflicts listed: $OUT"
    check_contains "$OUT" "Meeting (local)" "the local version is listed"
    check_contains "$OUT" "Call (local)" "the local version is listed"
    check_contains "$OUT" "$ACCOUNT/Work" "with its calendar"
    a --json conflicts
    local ids
    ids=$(python3 -c '
import json, sys
for line in sys.stdin:
    o = json.loads(line)
    assert set(o) >= {"id", "calendar", "uid", "title", "found"}, o
    print(o["title"], o["id"])' <<<"$OUT") || fail "conflicts --json: $OUT"
    local c_meeting c_call
    c_meeting=$(awk '$1 == "Meeting" { print $3 }' <<<"$ids")
    c_call=$(awk '$1 == "Call" { print $3 }' <<<"$ids")
    a resolve "${c_meeting:0:8}" --keep local
    check_status 0 "resolve --keep local"
    check_contains "$OUT" "kept the local version; it goes to the server on the next sync" "what resolve says"
    a resolve "${c_call:0:8}" --keep server
    check_status 0 "resolve --keep server"
    a resolve "${c_call:0:8}" --keep server
    check_status 1 "resolving it twice"
    check_contains "$ERR" "no conflict with id ${c_call:0:8}" "names the id"
    a --json conflicts
    check_eq "" "$OUT" "no conflicts left"
    sync_ok "the sync after resolving"
    check_summary 0 0 0 1 0
    listed=$(server_list | titles_of)
    check_eq "Call (server)
Meeting (local)" "$listed" "the kept local version went out; the server's stayed"
    check_same_sets
}

# The same change made on both sides (the title, and SEQUENCE + 1 as both appt and a phone
# do) is no conflict: the plan's "`.unchanged` means both sides made the same change".
same_change_twice() {
    setup "$1" "$2" || return
    peer create "$CAL" c-same --summary "Same change" >/dev/null
    sync_ok "the first sync"
    peer edit "$CAL" c-same SUMMARY="Same change, twice"
    a edit "$(local_id "Same change")" --title "Same change, twice"
    sync_ok "the same change on both sides"
    check_contains "$(summary_line)" "; 0 conflicts" "the same change is no conflict"
    a --json conflicts
    check_eq "" "$OUT" "no conflict for the same change"
    check_same_sets
}

# Deleted on one side, edited on the other: the edit wins and comes back.
delete_against_edit() {
    setup "$1" "$2" || return
    peer create "$CAL" d-server-edit --summary "Edited on the server" >/dev/null
    peer create "$CAL" d-local-edit --summary "Edited in appt" >/dev/null
    sync_ok "the first sync"
    peer edit "$CAL" d-server-edit SUMMARY="Edited on the server, v2"
    a delete "$(local_id "Edited on the server")"
    check_status 0 "delete in appt"
    a edit "$(local_id "Edited in appt")" --title "Edited in appt, v2"
    peer delete "$CAL" d-local-edit
    sync_ok "the sync"
    local listed
    listed=$(server_list | titles_of)
    check_eq "Edited in appt, v2
Edited on the server, v2" "$listed" "both edits won over the deletes"
    check_same_sets
    a --json conflicts
    check_eq "" "$OUT" "no conflicts"
    sync_ok "one more"
    check_summary 0 0 0 0 0
}

# ---------------------------------------------------------------- Faults

# The server killed in the middle of a 1,000-event first sync (the events on the server, put
# there straight into its storage before it starts), then started again: the next sync
# finishes, 1,000 events, none twice.
server_killed_pull() {
    use_store "$2" || return
    SRV_KIND=$1
    SRV_USER=alice
    mkdir -p "$T/srv"
    case $1 in
    radicale) python3 "$PEER" prefill-radicale "$T/srv/collections/collection-root/alice/work" 1000 --name Work ;;
    xandikos) python3 "$PEER" prefill-xandikos "$T/srv/collections/user/calendars/work" 1000 --name Work ;;
    esac
    server_start "$1" || return
    proxy_start || return
    CAL=${SRV_URL}$([[ $1 == radicale ]] && echo alice/work/ || echo user/calendars/work/)
    peer count "$CAL" >/dev/null # the server's own first scan of the files (its cache)
    write_config
    # held at the fifth fetch of events (a multiget of 100, or the 500th GET), then the server and its
    # proxy die: the connection drops and the next ones are refused
    proxy_rules '{"rules": [{"kind": "calendar-multiget", "nth": 5, "action": "pause"}, {"method": "GET", "nth": 500, "action": "pause"}]}'
    local mark pid
    mark=$(proxy_mark)
    "$APPT" --db "$STORE" sync >"$T/first.out" 2>"$T/first.err" &
    pid=$!
    if ! wait_paused "$pid" "$mark" >/dev/null; then
        fail "the first sync never reached its fifth fetch: $(proxy_requests "$mark" | tail -3)"
    fi
    server_kill
    proxy_stop
    wait "$pid"
    STATUS=$?
    ERR=$(cat "$T/first.err")
    check_status 3 "the server died"
    check_message "the server died"
    a --json list --all -c "$ACCOUNT/Work"
    local partial
    partial=$(grep -c . <<<"$OUT")
    if ((partial >= 1000)); then fail "the first sync had all 1000 before the server died ($partial)"; fi
    sync_run
    check_status 3 "the server is still down"
    check_message "the server is down"
    server_start "$1" || return
    proxy_start || return
    proxy_rules
    sync_ok "the sync after the restart"
    a --json list --all -c "$ACCOUNT/Work"
    check_eq 1000 "$(grep -c . <<<"$OUT")" "all 1000 events, none twice"
    check_same_sets
    sync_ok "one more"
    check_summary 0 0 0 0 0
}

# The same the other way: 1,000 events made in appt, the server killed while they go out.
server_killed_push() {
    setup "$1" "$2" || return
    sync_ok "the first sync (makes the local calendar)"
    python3 - "$T/thousand.ics" <<'PY'
import datetime, sys
lines = ["BEGIN:VCALENDAR", "VERSION:2.0", "PRODID:-//appt tests//sync.sh//EN"]
base = datetime.datetime(2026, 1, 5, 8, 0)
for i in range(1, 1001):
    start = base + datetime.timedelta(days=i % 700, minutes=15 * (i % 40))
    end = start + datetime.timedelta(minutes=45)
    lines += ["BEGIN:VEVENT", f"UID:push-{i}@sync.test", "DTSTAMP:20261201T120000Z",
              f"DTSTART:{start:%Y%m%dT%H%M%S}Z", f"DTEND:{end:%Y%m%dT%H%M%S}Z", f"SUMMARY:Pushed {i}", "END:VEVENT"]
lines.append("END:VCALENDAR")
open(sys.argv[1], "w").write("\r\n".join(lines) + "\r\n")
PY
    a import "$T/thousand.ics" -c "$ACCOUNT/Work"
    check_status 0 "import 1000"
    proxy_rules '{"rules": [{"method": "PUT", "nth": 400, "action": "pause", "when": "after"}]}'
    local mark pid
    mark=$(proxy_mark)
    "$APPT" --db "$STORE" sync >"$T/first.out" 2>"$T/first.err" &
    pid=$!
    wait_paused "$pid" "$mark" >/dev/null || fail "the sync never reached its 400th PUT"
    server_kill
    proxy_stop
    wait "$pid"
    STATUS=$?
    ERR=$(cat "$T/first.err")
    check_status 3 "the server died"
    check_message "the server died"
    server_start "$1" || return
    proxy_start || return
    proxy_rules
    # The 400th PUT was answered (its answer then lost at the proxy), but a server killed right
    # after answering has once (under a load of 11) not kept it: 400 on the server, or 399.
    # Either way the next sync sends exactly what is missing, and nothing twice.
    local held
    held=$(peer count "$CAL")
    [[ $held == 400 || $held == 399 ]] || fail "the server had $held when it died, not 400 (or 399)"
    sync_ok "the sync after the restart"
    check_summary 0 0 0 $((1000 - held)) 0
    check_eq 1000 "$(peer count "$CAL")" "1000 on the server"
    check_same_sets
    sync_ok "one more"
    check_summary 0 0 0 0 0
}

# kill -9 of appt sync at 20 points of a sync, drawn from a seeded RNG: each round makes
# changes on both sides (never to the same event: no conflicts, so the end state is known),
# starts a sync held by the proxy at request K (before forwarding it, or after: the server
# acted and the answer is lost), and kills it there. Then one more sync: both sides hold
# exactly the events made and not deleted, with their last titles, none twice.
kill_nine_points() {
    setup "$1" "$2" || return
    RANDOM=$KILL_SEED
    declare -A model=()   # key -> title; key: a peer UID (s-N) or an appt id (L-N -> id in lids)
    declare -A lids=()
    local n_server=0 n_local=0 round=0 kills=0 points=() last_point=none i key id title
    # the start: 8 events on each side, synced
    # (the peer's lines are written to a file first: a pipe would run this shell's part in a
    # subshell, and its changes to the model would be lost)
    for i in 1 2 3 4 5 6 7 8; do
        echo "create s-$i 'S$i v0'"
        model[s-$i]="S$i v0"
    done >"$T/ops"
    peer batch "$CAL" <"$T/ops" || fail "peer batch"
    n_server=8
    sync_ok "the first sync (makes the local calendar)"
    for i in 1 2 3 4 5 6 7 8; do
        a --json add "L$i v0" --at "2026-12-1$((i % 10)) 0$i:00" -c "$ACCOUNT/Work"
        id=$(json_id)
        lids[L-$i]=$id
        model[L-$i]="L$i v0"
    done
    n_local=8
    sync_ok "the sync that sends appt's first eight"
    : >"$T/journal"
    for key in "${!lids[@]}"; do echo "start: $key is ${lids[$key]}" >>"$T/journal"; done
    while ((kills < 20 && round < 40)); do
        round=$((round + 1))
        # changes on the server: two new, an edit, a delete (of the peer's own events)
        local server_keys=() local_keys=()
        for key in "${!model[@]}"; do
            if [[ $key == s-* ]]; then server_keys+=("$key"); else local_keys+=("$key"); fi
        done
        {
            for i in 1 2; do
                n_server=$((n_server + 1))
                echo "create s-$n_server 'S$n_server v0'"
                model[s-$n_server]="S$n_server v0"
            done
            if ((${#server_keys[@]} > 2)); then
                key=${server_keys[RANDOM % ${#server_keys[@]}]}
                title="${model[$key]%% v*} v$round"
                echo "edit $key 'SUMMARY=$title'"
                model[$key]=$title
                local victim=${server_keys[RANDOM % ${#server_keys[@]}]}
                if [[ $victim != "$key" ]]; then
                    echo "delete $victim"
                    unset "model[$victim]"
                fi
            fi
        } >"$T/ops"
        peer batch "$CAL" <"$T/ops" || fail "peer batch in round $round"
        sed "s/^/round $round: peer: /" "$T/ops" >>"$T/journal"
        # changes in appt: three new, an edit, a delete (of appt's own events)
        for i in 1 2 3; do
            n_local=$((n_local + 1))
            a --json add "L$n_local v0" --at "2027-01-0$((n_local % 9 + 1)) 10:00" -c "$ACCOUNT/Work"
            id=$(json_id)
            lids[L-$n_local]=$id
            model[L-$n_local]="L$n_local v0"
            echo "round $round: appt: add L$n_local v0 ($id)" >>"$T/journal"
        done
        if ((${#local_keys[@]} > 2)); then
            key=${local_keys[RANDOM % ${#local_keys[@]}]}
            title="${model[$key]%% v*} v$round"
            a edit "${lids[$key]}" --title "$title"
            [[ $STATUS == 0 ]] && model[$key]=$title
            [[ $STATUS == 0 ]] || fail "round $round: edit ${lids[$key]}: $ERR"
            echo "round $round: appt: edit $key (${lids[$key]}) -> $title" >>"$T/journal"
            local victim=${local_keys[RANDOM % ${#local_keys[@]}]}
            if [[ $victim != "$key" ]]; then
                a delete "${lids[$victim]}"
                [[ $STATUS == 0 ]] || fail "round $round: delete ${lids[$victim]}: $ERR"
                echo "round $round: appt: delete $victim (${lids[$victim]}, ${model[$victim]})" >>"$T/journal"
                unset "model[$victim]"
            fi
        fi
        # the sync, held at request K and killed there
        local k=$((RANDOM % 14 + 1)) when=before
        ((RANDOM % 2)) && when=after
        proxy_rules "{\"rules\": [{\"n\": $k, \"action\": \"pause\", \"when\": \"$when\"}]}"
        local mark pid paused
        mark=$(proxy_mark)
        "$APPT" --db "$STORE" sync >"$T/round.out" 2>"$T/round.err" &
        pid=$!
        if paused=$(wait_paused "$pid" "$mark"); then
            kill -9 "$pid"
            wait "$pid" 2>/dev/null
            kills=$((kills + 1))
            last_point="round $round: request $k $when: $(python3 -c 'import json,sys; o=json.loads(sys.stdin.read()); print(o["method"], o["path"])' <<<"$paused")"
            points+=("$last_point")
        else
            wait "$pid"
            local rc=$?
            [[ $rc == 0 ]] || fail "round $round: the sync (not killed: it made fewer than $k requests) exited $rc: $(cat "$T/round.err")"
            echo "round $round: the sync ended before request $k (exit $rc): $(tr '\n' ' ' <"$T/round.out")" >>"$T/journal"
        fi
        proxy_requests "$mark" | sed "s/^/round $round: request: /" >>"$T/journal"
        [[ -n $paused ]] && echo "killed: $last_point" >>"$T/journal"
        proxy_rules
        local dups
        dups=$(peer dups "$CAL")
        [[ -z $dups ]] || fail "round $round (last kill: $last_point): a UID twice on the server: $dups"
    done
    check_eq 20 "$kills" "20 kill points (in $round rounds)"
    local mark
    mark=$(proxy_mark)
    sync_ok "the sync after the last kill"
    { echo "last sync: $OUT $ERR"; proxy_requests "$mark" | sed "s/^/last sync: request: /"; } >>"$T/journal"
    a --json conflicts
    check_eq "" "$OUT" "no conflicts (no event was changed on both sides)"
    local expected server local
    expected=$(for key in "${!model[@]}"; do echo "${model[$key]}"; done | sort)
    server=$(server_list | titles_of)
    local=$(local_list | titles_of)
    check_eq "$expected" "$server" "the server holds what was made and not deleted, last titles (seed $KILL_SEED)"
    check_eq "$expected" "$local" "appt holds the same (seed $KILL_SEED)"
    check_same_sets
    sync_ok "one more"
    check_summary 0 0 0 0 0
    if ((E2E_SCENARIO_FAILED)); then
        printf '    kill points (APPT_SYNC_KILL_SEED=%s):\n' "$KILL_SEED"
        printf '      %s\n' "${points[@]}"
        printf '    what each round did (appt ids, the peer'"'"'s lines, the requests of its sync):\n'
        sed 's/^/      /' "$T/journal"
        if [[ -n ${APPT_SYNC_KEEP:-} ]]; then
            mkdir -p "$APPT_SYNC_KEEP" && cp -r "$T" "$APPT_SYNC_KEEP/" && echo "    kept in $APPT_SYNC_KEEP/$(basename "$T")"
        fi
    fi
}

# kill_at_push WHAT: a sync held right after its first PUT reached the server (the server
# stored it, the answer is held back) and kill -9'd there.
kill_at_push() {
    proxy_rules '{"rules": [{"method": "PUT", "nth": 1, "action": "pause", "when": "after"}]}'
    local mark pid
    mark=$(proxy_mark)
    "$APPT" --db "$STORE" sync >"$T/killed.out" 2>"$T/killed.err" &
    pid=$!
    if wait_paused "$pid" "$mark" >/dev/null; then
        kill -9 "$pid"
    else
        fail "$1: the sync made no PUT"
    fi
    wait "$pid" 2>/dev/null
    proxy_rules
}

# The kill -9 points that matter most, one by one: appt's PUT reached the server but appt was
# killed before the answer, and then the event changed again in appt before the next sync.
# That change is appt's own and must win: a delete stays deleted, a second edit goes out (no
# conflict with appt's own first edit).
interrupted_push_then_change() {
    setup "$1" "$2" || return
    sync_ok "the first sync (makes the local calendar)"
    # made in appt, its create's answer lost, then deleted in appt
    a --json add "Made, then deleted" --at "2026-12-17 09:00" -c "$ACCOUNT/Work"
    local made
    made=$(json_id)
    kill_at_push "the create"
    check_contains "$(server_list)" "Made, then deleted" "the server stored the create"
    a delete "$made"
    check_status 0 "delete"
    sync_ok "the sync after the delete"
    check_not_contains "$(server_list)" "Made, then deleted" "appt's delete went out (the create's answer was lost)"
    check_not_contains "$(local_list)" "Made, then deleted" "and it did not come back"
    # synced, edited in appt, the edit's answer lost, then deleted in appt
    a --json add "Edited" --at "2026-12-17 10:00" -c "$ACCOUNT/Work"
    local edited
    edited=$(json_id)
    sync_ok "the sync of Edited"
    a edit "$edited" --title "Edited, v2"
    kill_at_push "the edit"
    check_contains "$(server_list)" "Edited, v2" "the server stored the edit"
    a delete "$edited"
    sync_ok "the sync after the delete"
    check_not_contains "$(server_list)" "Edited" "appt's delete went out (the edit's answer was lost)"
    check_not_contains "$(local_list)" "Edited" "and it did not come back"
    # synced, edited in appt, the edit's answer lost, edited again in appt
    a --json add "Twice" --at "2026-12-17 11:00" -c "$ACCOUNT/Work"
    local twice
    twice=$(json_id)
    sync_ok "the sync of Twice"
    a edit "$twice" --title "Twice, v2"
    kill_at_push "the first edit"
    a edit "$twice" --title "Twice, v3"
    sync_ok "the sync after the second edit"
    check_contains "$(server_list | titles_of)" "Twice, v3" "appt's second edit went out"
    a --json conflicts
    check_eq "" "$OUT" "appt's own first edit is no conflict"
    check_same_sets
}

# An event appt made and sent, deleted by another client before appt's next sync: gone from
# appt too. A server need not report an item made and removed after a token (Xandikos does
# not), so the token stored at the end of a sync must be one taken after its own PUTs. Then a
# sync cut before it stored a token (simulated: the token cleared): the next one lists
# everything, and an event the server no longer lists is removed.
deleted_after_own_push() {
    setup "$1" "$2" || return
    peer create "$CAL" kept --summary "Kept" >/dev/null || fail "peer create"
    peer create "$CAL" dropped --summary "Dropped" >/dev/null
    sync_ok "the first sync"
    a --json add "Made here" --at "2026-12-17 09:00" -c "$ACCOUNT/Work"
    local id
    id=$(json_id)
    sync_ok "the sync that sends it"
    peer delete "$CAL" "$id@appt" || fail "peer delete"
    sync_ok "the sync after the peer's delete"
    check_summary 0 0 1 0 0
    check_not_contains "$(local_list)" "Made here" "the peer's delete reached appt"
    if [[ $2 == sqlite ]]; then
        sqlite3 "$STORE" "UPDATE calendar SET sync_token = NULL" || fail "clear the token"
        peer delete "$CAL" dropped || fail "peer delete"
        sync_ok "the sync without a token"
        check_not_contains "$(local_list)" "Dropped" "an event the server no longer lists is removed"
        check_contains "$(local_list)" "Kept" "the others stay"
    fi
    check_same_sets
    local mark
    mark=$(proxy_mark)
    sync_ok "one more"
    check_summary 0 0 0 0 0
    check_no_change_requests "$mark" 1
}

# 412: a real race (the peer changes the event between appt's pull and its PUT, and creates
# one at the href appt is about to create), and one made up by the proxy.
precondition_failed() {
    setup "$1" "$2" || return
    peer create "$CAL" race --summary "Race" >/dev/null
    peer create "$CAL" spurious --summary "Spurious" >/dev/null
    sync_ok "the first sync"
    a edit "$(local_id Race)" --title "Race (appt)"
    proxy_rules '{"rules": [{"method": "PUT", "nth": 1, "action": "pause"}]}'
    local mark pid
    mark=$(proxy_mark)
    "$APPT" --db "$STORE" sync >"$T/race.out" 2>"$T/race.err" &
    pid=$!
    wait_paused "$pid" "$mark" 60 >/dev/null || fail "the PUT never came"
    peer edit "$CAL" race SUMMARY="Race (peer)" # while appt's PUT waits
    proxy_rules
    wait "$pid"
    check_eq 0 "$?" "the sync that met a 412: $(cat "$T/race.err")"
    check_contains "$(proxy_requests "$mark")" "PUT /" "the PUT went"
    check_contains "$(proxy_requests "$mark" | awk '$1 == "PUT"')" " 412 " "and got 412"
    check_eq "Race (peer)
Spurious" "$(server_list | titles_of)" "the server's version stays"
    a conflicts
    check_contains "$OUT" "Race (appt)" "appt's version is a conflict"
    check_same_sets
    # a create that meets an event the peer put at the same href meanwhile
    a add "Both made it" --at "2026-12-12 09:00" -c "$ACCOUNT/Work"
    proxy_rules '{"rules": [{"method": "PUT", "nth": 1, "action": "pause"}]}'
    mark=$(proxy_mark)
    "$APPT" --db "$STORE" sync >"$T/race.out" 2>"$T/race.err" &
    pid=$!
    local paused href uid
    paused=$(wait_paused "$pid" "$mark" 60) || { fail "the PUT never came"; proxy_rules; return; }
    href=$(python3 -c 'import json,sys; print(json.loads(sys.stdin.read())["path"].rsplit("/", 1)[1])' <<<"$paused")
    uid=$(python3 -c 'import sys, urllib.parse; print(urllib.parse.unquote(sys.argv[1])[:-4])' "$href")
    python3 - "$uid" >"$T/peer-made.ics" <<'PY'
import sys
print(f"BEGIN:VCALENDAR\r\nVERSION:2.0\r\nPRODID:-//peer//EN\r\nBEGIN:VEVENT\r\nUID:{sys.argv[1]}\r\nDTSTAMP:20261201T120000Z\r\nDTSTART:20261212T080000Z\r\nDTEND:20261212T090000Z\r\nSUMMARY:Both made it (peer)\r\nEND:VEVENT\r\nEND:VCALENDAR\r", end="")
PY
    peer put "$CAL" "$href" "$T/peer-made.ics" || fail "the peer's PUT at $href"
    proxy_rules
    wait "$pid"
    check_eq 0 "$?" "the sync whose create met a 412: $(cat "$T/race.err")"
    check_contains "$(server_list | titles_of)" "Both made it (peer)" "the server's version stays"
    check_not_contains "$(server_list | titles_of)" "Both made it
" "not twice"
    a conflicts
    check_contains "$OUT" "Both made it" "appt's version is a conflict"
    check_same_sets
    # a 412 the server never sent: nothing is lost (the edit goes out, or is a conflict)
    a edit "$(local_id Spurious)" --title "Spurious (appt)"
    proxy_rules '{"rules": [{"method": "PUT", "nth": 1, "action": "status", "status": 412}]}'
    sync_run
    proxy_rules
    sync_ok "the sync after a made-up 412"
    a conflicts
    local conflicts=$OUT
    if [[ $(server_list | titles_of) != *"Spurious (appt)"* && $conflicts != *"Spurious (appt)"* ]]; then
        fail "the edit met by a made-up 412 is lost: neither on the server nor a conflict"
    fi
    check_same_sets
}

# 500 on a PUT (not applied), 500 after the server applied it, 500 on the sync-collection:
# exit 3 naming the account and URL; the next sync finishes; nothing twice.
server_errors() {
    setup "$1" "$2" || return
    peer create "$CAL" e-1 --summary "Before" >/dev/null
    sync_ok "the first sync"
    local i
    for i in 1 2 3 4; do a add "Local $i" --at "2026-12-1$i 09:00" -c "$ACCOUNT/Work"; done
    proxy_rules '{"rules": [{"method": "PUT", "nth": 2, "action": "status", "status": 500}]}'
    sync_run
    check_status 3 "a 500 on a PUT"
    check_message "500"
    proxy_rules '{"rules": [{"method": "PUT", "nth": 1, "action": "status", "status": 500, "forward": true}]}'
    sync_run
    check_status 3 "a 500 after the server applied the PUT"
    check_message "500 after"
    # a change on the server, so that the next sync asks for it
    peer create "$CAL" e-2 --summary "Meanwhile" >/dev/null || fail "peer create"
    proxy_rules '{"rules": [{"kind": "sync-collection", "action": "status", "status": 503}]}'
    sync_run
    check_status 3 "a 503 on the sync-collection"
    check_message "503"
    proxy_rules
    sync_ok "the sync after the errors"
    check_eq "Before
Local 1
Local 2
Local 3
Local 4
Meanwhile" "$(server_list | titles_of)" "every event once on the server"
    check_same_sets
    a --json conflicts
    check_eq "" "$OUT" "no conflicts"
    sync_ok "one more"
    check_summary 0 0 0 0 0
}

# 401 from the proxy (the credentials refused now): exit 3, naming the account, never the
# password; on every request and in the middle of a push.
unauthorized() {
    setup "$1" "$2" || return
    sync_ok "the first sync"
    proxy_rules '{"rules": [{"action": "status", "status": 401}]}'
    sync_run
    check_status 3 "401 on everything"
    check_message "401"
    a add "Waiting" --at "2026-12-14 09:00" -c "$ACCOUNT/Work"
    a add "Waiting too" --at "2026-12-14 10:00" -c "$ACCOUNT/Work"
    proxy_rules '{"rules": [{"method": "PUT", "nth": 2, "action": "status", "status": 401}]}'
    sync_run
    check_status 3 "401 in the middle of a push"
    check_message "401 in the middle"
    proxy_rules
    sync_ok "with the credentials taken again"
    check_eq "Waiting
Waiting too" "$(server_list | titles_of)" "both went out, once each"
    check_same_sets
}

# A malformed body (XML cut off) on the sync-collection and on the multiget: exit 1 with a
# message, nothing changed; the next sync finishes.
malformed_bodies() {
    setup "$1" "$2" || return
    peer create "$CAL" m-1 --summary "First" >/dev/null
    sync_ok "the first sync"
    peer create "$CAL" m-2 --summary "Second" >/dev/null
    peer edit "$CAL" m-1 SUMMARY="First, edited"
    proxy_rules '{"rules": [{"kind": "sync-collection", "action": "malformed"}]}'
    sync_run
    check_status 1 "a malformed sync-collection answer"
    check_contains "$ERR" "$ACCOUNT" "the message names the account"
    check_eq "First" "$(local_list | titles_of)" "nothing changed"
    proxy_rules '{"rules": [{"kind": "calendar-multiget", "action": "malformed"}, {"method": "GET", "action": "malformed"}]}'
    sync_run
    check_status 1 "a malformed multiget answer"
    check_contains "$ERR" "$ACCOUNT" "the message names the account"
    proxy_rules
    sync_ok "the sync after"
    check_eq "First, edited
Second" "$(local_list | titles_of)" "all arrived"
    check_same_sets
}

# A server that answers nothing: `timeout = 2` ends the request, exit 3 naming the account;
# on discovery, on the sync-collection (something changed on the server) and on a PUT. The
# next sync finishes, nothing twice.
silent_server() {
    setup "$1" "$2" || return
    write_config "timeout = 2"
    peer create "$CAL" t-1 --summary "Server" >/dev/null
    sync_ok "the first sync"
    proxy_rules '{"rules": [{"n": 1, "action": "silence", "seconds": 60}]}'
    SYNC_WATCHDOG=30 sync_run
    check_status 3 "no answer to the first request"
    check_message "timeout at discovery"
    peer create "$CAL" t-2 --summary "Server too" >/dev/null
    proxy_rules '{"rules": [{"kind": "sync-collection", "action": "silence", "seconds": 60}]}'
    SYNC_WATCHDOG=30 sync_run
    check_status 3 "no answer to the sync-collection"
    check_message "timeout on the sync-collection"
    check_contains "$(proxy_requests 0)" "sync-collection None silence" "the sync-collection was the one not answered"
    a add "Local" --at "2026-12-15 09:00" -c "$ACCOUNT/Work"
    a add "Local too" --at "2026-12-15 10:00" -c "$ACCOUNT/Work"
    proxy_rules '{"rules": [{"method": "PUT", "nth": 1, "action": "silence", "seconds": 60}]}'
    SYNC_WATCHDOG=30 sync_run
    check_status 3 "no answer to a PUT"
    check_message "timeout on a PUT"
    proxy_rules
    sync_ok "the sync after"
    check_eq "Local
Local too
Server
Server too" "$(server_list | titles_of)" "each once"
    check_same_sets
}

# Offline: the server is down, local changes wait (pending in --json, exit 3), and go out
# when it is back.
offline_changes_wait() {
    setup "$1" "$2" || return
    peer create "$CAL" o-1 --summary "Kept" >/dev/null
    sync_ok "the first sync"
    server_kill
    proxy_stop
    a add "Made offline" --at "2026-12-16 09:00" -c "$ACCOUNT/Work"
    a edit "$(local_id Kept)" --title "Kept, edited offline"
    sync_run --json
    check_status 3 "the server is down"
    check_contains "$(json_summary)" "pending=2 error=text" "two changes waiting, and the error"
    check_contains "$ERR$OUT" "127.0.0.1:$PROXY_PORT" "names the server"
    server_start "$1" || return
    proxy_start || return
    sync_ok "back online"
    check_summary 0 0 0 2 0
    check_eq "Kept, edited offline
Made offline" "$(server_list | titles_of)" "the offline changes went out"
    check_same_sets
}

# Reminders: appt's --remind reaches the server as VALARMs; a peer's alarms (an
# X-WR-ALARMUID, an EMAIL one) come back in show and reminders; an edit that keeps one alarm
# keeps its VALARM as the peer wrote it, and drops the other, on the server too.
reminders_round_trip() {
    setup "$1" "$2" || return
    peer create "$CAL" full-1 --kind full --summary Dentist >/dev/null || fail "peer create"
    sync_ok "the first sync"
    check_summary 1 0 0 0 0
    a add Standup --at "2026-12-08 09:00" --remind 15m --remind at 08:00 -c "$ACCOUNT/Work"
    check_status 0 "add --remind"
    sync_ok "the sync that pushes the alarms"
    check_summary 0 0 0 1 0
    local uid alarms
    uid=$(peer uid "$CAL" Standup) || { fail "no Standup on the server"; return; }
    alarms=$(peer dump "$CAL" | grep -F "$uid" | grep -F $'\tVALARM.' | cut -f3 | sort)
    check_eq "VALARM.1/ACTION:DISPLAY
VALARM.1/DESCRIPTION:Reminder
VALARM.1/TRIGGER:-PT15M
VALARM.2/ACTION:DISPLAY
VALARM.2/DESCRIPTION:Reminder
VALARM.2/TRIGGER:-PT1H
VALARM.2/X-APPT-TIME-OF-DAY;X-TRIGGER=-PT1H:08:00" "$alarms" "appt's two alarms on the server (at 08:00: an hour before for others)"
    local id
    id=$(local_id Dentist) || return
    a show "$id"
    check_contains "$OUT" "reminder: 15 minutes before" "the peer's DISPLAY alarm in show"
    check_contains "$OUT" "reminder: 1 day before (email)" "the peer's EMAIL alarm in show"
    a --json show "$id"
    check_contains "$OUT" '"trigger":"1d","summary":"1 day before (email)","action":"EMAIL"' "the EMAIL alarm in JSON"
    a reminders --from 2026-12-06 --to 2026-12-08 -c "$ACCOUNT/Work"
    check_eq 4 "$(grep -c . <<<"$OUT")" "four reminders due: $OUT"
    check_contains "$(tr -s ' ' <<<"$OUT")" "2026-12-07 08:45 15 minutes before 09:00 Dentist" "the peer's alarm, 15 minutes before 10:00 Berlin (09:00 UTC, the zone here)"
    check_contains "$(tr -s ' ' <<<"$OUT")" "2026-12-08 08:00 at 08:00 on its day 09:00 Standup" "appt's at 08:00"
    a edit "$id" --remind 15m
    check_status 0 "edit --remind keeps one of the peer's alarms"
    sync_ok "the sync that pushes the edit"
    check_summary 0 0 0 1 0
    alarms=$(peer dump "$CAL" | grep -F "full-1" | grep -F $'\tVALARM.' | cut -f3 | sort)
    check_eq "VALARM.1/ACTION:DISPLAY
VALARM.1/DESCRIPTION:Dentist in 15 minutes
VALARM.1/TRIGGER:-PT15M
VALARM.1/X-WR-ALARMUID:full-1-alarm-1" "$alarms" "the kept alarm as the peer wrote it; the EMAIL one gone"
    check_same_sets
}

# ---------------------------------------------------------------- running them

selected() {
    ((${#ONLY[@]} == 0)) && return 0
    local s
    for s in "${ONLY[@]}"; do [[ $1 == "$s" || $1 == "$s"_* ]] && return 0; done
    return 1
}

run() { # SCENARIO SERVER ENGINE
    local name="$1_$2_$3"
    selected "$name" || selected "$1" || return 0
    eval "${name}() { $1 $2 $3; }"
    run_scenario "$name"
}

ALL=(peer_events_arrive appt_events_arrive edits_both_ways conflict_both_edited same_change_twice delete_against_edit
    deleted_after_own_push
    server_killed_pull kill_nine_points interrupted_push_then_change precondition_failed server_errors unauthorized malformed_bodies
    silent_server offline_changes_wait command_line reminders_round_trip server_events_kept_whole
    series_moved_keeps_its_exceptions conflict_twice_keeps_both one_uid_in_two_calendars moved_by_phone_keeps_id_and_alarm
    move_meets_unsent_edit local_organisation_sticks floating_times_stay_floating)
PG_SUBSET=(peer_events_arrive edits_both_ways conflict_both_edited kill_nine_points interrupted_push_then_change server_errors
    deleted_after_own_push
    reminders_round_trip server_events_kept_whole series_moved_keeps_its_exceptions conflict_twice_keeps_both
    one_uid_in_two_calendars moved_by_phone_keeps_id_and_alarm move_meets_unsent_edit local_organisation_sticks
    floating_times_stay_floating)

for server in radicale xandikos; do
    for s in "${ALL[@]}"; do run "$s" "$server" sqlite; done
done
run server_killed_push radicale sqlite
run https_with_ca_file radicale sqlite
run credentials radicale sqlite
if [[ -n ${APPT_TEST_PG:-} ]]; then
    for s in "${PG_SUBSET[@]}"; do run "$s" radicale postgres; done
    run https_with_ca_file radicale postgres
    run peer_events_arrive xandikos postgres
fi
e2e_finish "e2e sync"
