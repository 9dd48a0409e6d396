#!/usr/bin/env bash
# End-to-end scenarios for `appt conflicts` and `appt resolve ID --keep local|server` (issue
# 14, plan15): the commands, their text and --json, exit statuses, and the same commands in a
# script, on SQLite and, when a test server is given (Tests/pg/with-server.sh sets
# APPT_TEST_PG), on PostgreSQL. A conflict is what a sync leaves when the server's version
# won over a local change; here one is seeded straight into the store's sync_conflict table
# (SQL, the local version being appt's own export with the title changed), so these run
# without a CalDAV server. Tests/e2e/sync.sh makes real ones against servers.
# usage: Tests/e2e/conflicts.sh [PATH_TO_APPT]
set -u
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
e2e_init "${1:-}"

PERSONAL=5e7a0c11-0000-4000-8000-000000000001

# use_store ENGINE: STORE (what --db takes) is a new SQLite file in $T or a new PostgreSQL
# database, dropped when the scenario ends.
use_store() {
    ENGINE=$1
    if [[ $1 == sqlite ]]; then
        STORE=$T/db.sqlite3
        return 0
    fi
    PG_DB="appt_e2e_conflicts_${BASHPID}_${RANDOM}"
    PGCONNECT_TIMEOUT=10 psql -X -q -At -v ON_ERROR_STOP=1 "$APPT_TEST_PG" -c "CREATE DATABASE \"$PG_DB\"" >/dev/null ||
        { fail "cannot create database $PG_DB"; return 1; }
    trap 'drop_database; e2e_cleanup' EXIT
    STORE=${APPT_TEST_PG%/*}/$PG_DB
}

drop_database() {
    [[ -n ${PG_DB:-} ]] || return 0
    PGCONNECT_TIMEOUT=10 psql -X -q -At "$APPT_TEST_PG" -c "DROP DATABASE IF EXISTS \"$PG_DB\" WITH (FORCE)" >/dev/null 2>&1
}

a() { run_appt --db "$STORE" "$@"; }

# seed_conflict ID TITLE: the appointment ID's local version, titled TITLE, kept as a
# conflict (as a sync keeps the version that lost), found 2026-11-29 14:00 UTC.
seed_conflict() {
    local id=$1 title=$2 ics
    a export
    ics=$(python3 -c 'import sys; t = sys.stdin.read(); print(t.replace("SUMMARY:Swim\r", "SUMMARY:" + sys.argv[1] + "\r"), end="")' "$title" <<<"$OUT")
    local insert="INSERT INTO sync_conflict (id, calendar_id, uid, title, local_ics, found_ms)"
    if [[ $ENGINE == sqlite ]]; then
        python3 - "$STORE" "$id" "$PERSONAL" "$title" "$ics" "$insert" <<'PY'
import sqlite3, sys
store, id, calendar, title, ics, insert = sys.argv[1:]
connection = sqlite3.connect(store, isolation_level=None)
connection.execute(insert + " VALUES (?, ?, ?, ?, ?, 1795960800000)", (id, calendar, id + "@appt", title, ics))
connection.close()
PY
    else
        psql -X -q -At -v ON_ERROR_STOP=1 -v id="$id" -v cal="$PERSONAL" -v title="$title" -v ics="$ics" "$STORE" \
            <<<"$insert VALUES (:'id', :'cal', :'id' || '@appt', :'title', :'ics', 1795960800000);" >/dev/null ||
            fail "cannot seed the conflict"
    fi
}

commands_list_and_resolve() {
    use_store "$1" || return
    a conflicts
    check_status 0 "conflicts on a new store"
    check_eq "no conflicts" "$OUT" "nothing to resolve"
    a --json conflicts
    check_eq "" "$OUT" "--json: no line"
    a add Swim --at "$(e2e_date 1) 07:00"
    a --json list --all
    local id short
    id=$(python3 -c 'import json,sys; print(json.loads(sys.stdin.readline())["id"])' <<<"$OUT")
    short=${id:0:6}
    seed_conflict "$id" "Swim, lane 3"
    a conflicts
    check_status 0 "conflicts"
    check_contains "$OUT" "$short  personal  Swim, lane 3  found " "one line per conflict"
    a --json conflicts
    # Seeded as a store before conflict history kept it: the conflict's id is its event's.
    check_contains "$OUT" "{\"id\":\"$id\",\"appointment\":\"$id\",\"calendar\":\"personal\",\"uid\":\"$id@appt\",\"title\":\"Swim, lane 3\",\"found\":\"" "JSON"
    a conflicts show "$short"
    check_status 0 "conflicts show"
    check_contains "$OUT" "-SUMMARY:Swim, lane 3
+SUMMARY:Swim" "conflicts show: yours against the server's"
    a --json conflicts show "$short"
    check_contains "$OUT" '"diff":["-SUMMARY:Swim, lane 3","+SUMMARY:Swim"]' "conflicts show --json"
    a resolve 0000 --keep local
    check_status 1 "an unknown id"
    check_contains "$ERR" "no conflict with id 0000" "says which"
    a resolve "$short" --keep both
    check_status 2 "a bad --keep"
    check_contains "$ERR" "--keep takes local or server" "names the choices"
    a resolve "$short"
    check_status 2 "no --keep"
    a conflicts
    check_contains "$OUT" "Swim, lane 3" "refusals change nothing"
    a resolve "$short" --keep local
    check_status 0 "resolve --keep local"
    check_eq "resolved $short: kept the local version; it goes to the server on the next sync" "$OUT"
    a show "$short"
    check_contains "$OUT" "Swim, lane 3" "the local version is stored"
    a conflicts
    check_eq "no conflicts" "$OUT" "resolved"
    # The same in a script: list, then keep the server's version (what is stored).
    seed_conflict "$id" "Swim, lane 5"
    run_script "conflicts
resolve $short --keep server
conflicts" --db "$STORE"
    check_status 0 "the script"
    check_contains "$OUT" "$short  personal  Swim, lane 5  found " "script: conflicts"
    check_contains "$OUT" "resolved $short: kept the server's version" "script: resolve"
    check_contains "$OUT" "no conflicts" "script: resolved"
    a show "$short"
    check_contains "$OUT" "Swim, lane 3" "--keep server leaves the stored version"
    a resolve "$short" --keep server
    check_status 1 "resolved twice"
}

engines=(sqlite)
[[ -n ${APPT_TEST_PG:-} ]] && engines+=(postgres)
for engine in "${engines[@]}"; do
    eval "commands_list_and_resolve_$engine() { commands_list_and_resolve $engine; }"
    run_scenario "commands_list_and_resolve_$engine"
done
e2e_finish "e2e conflicts"
