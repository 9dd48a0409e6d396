#!/usr/bin/env bash
# Durability and refusal, end to end: nothing acknowledged is lost to kill -9, concurrent
# writers all succeed, and files that are not appt's (or are newer, or read-only) are
# refused with exit 3 and left byte-for-byte as they were.
set -u
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
e2e_init "${1:-}"

# A writer is killed with SIGKILL at 20 random moments while adding; every appointment it
# acknowledged (printed "added ...") must be in the file, and the file must be intact.
scenario_kill_9_never_loses_an_acknowledged_add() {
    local db="$T/crash.sqlite3" round i acked stored missing delay
    for round in $(seq 1 20); do
        for i in $(seq 1 3000); do echo "add \"r$round-$i\" --at \"2026-12-01 10:00\" --for 30m"; done >"$T/script"
        "$APPT" --db "$db" <"$T/script" >"$T/acks" 2>/dev/null &
        local pid=$!
        delay=$(( (RANDOM % 400) + 20 ))
        sleep "0.$(printf '%03d' "$delay")"
        kill -9 "$pid" 2>/dev/null
        wait "$pid" 2>/dev/null
        # Only complete lines were acknowledged; each is written after its commit.
        grep -o '^added [0-9a-f]\{6\}' "$T/acks" | cut -c7- | sort >"$T/acked-$round"
        "$APPT" --db "$db" list --all >"$T/list" 2>&1 || fail "round $round: list after the crash failed: $(cat "$T/list")"
        cut -c1-6 "$T/list" | sort >"$T/stored"
        missing=$(comm -23 "$T/acked-$round" "$T/stored" | wc -l)
        acked=$(wc -l <"$T/acked-$round")
        check_eq 0 "$missing" "round $round (killed after ${delay} ms, $acked acknowledged): acknowledged adds missing"
    done
    check_eq ok "$(sql "$db" 'PRAGMA integrity_check')" "integrity_check after 20 crashes"
    run_appt --db "$db" doctor
    check_status 0 "appt doctor after 20 crashes"
    stored=$(wc -l <"$T/stored")
    [[ $stored -gt 0 ]] || fail "no writer got to commit anything: the kill points were all too early"
}

# Four processes add 150 appointments each to one file at the same time.
scenario_four_concurrent_writers_all_succeed() {
    local db="$T/shared.sqlite3" p i pids=() status
    run_appt --db "$db" list  # create the file first, so all four open an existing database
    for p in 1 2 3 4; do
        for i in $(seq 1 150); do echo "add \"p$p-$i\" --at \"2026-12-0$p 10:00\" --for 30m"; done >"$T/script$p"
    done
    for p in 1 2 3 4; do
        "$APPT" --db "$db" <"$T/script$p" >/dev/null 2>"$T/err$p" &
        pids+=($!)
    done
    for p in 1 2 3 4; do
        wait "${pids[$((p - 1))]}"
        status=$?
        check_eq 0 "$status" "writer $p exit status ($(head -3 "$T/err$p"))"
    done
    run_appt --db "$db" list --all
    check_eq 600 "$(printf '%s\n' "$OUT" | grep -c .)" "appointments stored by 4 x 150 concurrent adds"
}

# Eight processes opening a file that does not exist yet, at once: they all find it
# unmigrated, and must all end up on one schema, none failing with "table already exists".
scenario_eight_processes_create_one_new_file_at_once() {
    local db="$T/new.sqlite3" p i pids=() status
    for p in $(seq 1 8); do
        for i in $(seq 1 20); do echo "add \"p$p-$i\" --at \"2026-12-01 10:00\" --for 30m"; done >"$T/script$p"
    done
    for p in $(seq 1 8); do
        "$APPT" --db "$db" <"$T/script$p" >/dev/null 2>"$T/err$p" &
        pids+=($!)
    done
    for p in $(seq 1 8); do
        wait "${pids[$((p - 1))]}"
        status=$?
        check_eq 0 "$status" "process $p exit status ($(head -3 "$T/err$p"))"
    done
    run_appt --db "$db" list --all
    check_eq 160 "$(printf '%s\n' "$OUT" | grep -c .)" "appointments stored by 8 x 20 adds on a new file"
    check_eq "$(known_schema)" "$(sql "$db" 'PRAGMA user_version')" "schema version"
}

# The schema version this appt writes, as it says itself (a store of a newer schema is refused
# with "this build knows N"): the next migration needs no edit here.
known_schema() {
    local db="$T/probe-schema.sqlite3"
    run_script 'add "Probe" --at "2026-12-01 10:00"' --db "$db"
    sql "$db" 'PRAGMA user_version=1000000' >/dev/null
    run_appt --db "$db" list --all
    printf '%s\n' "$ERR" | sed -n 's/.*this build knows \([0-9][0-9]*\)).*/\1/p' | head -1
}

scenario_newer_schema_is_refused_untouched() {
    local db="$T/newer.sqlite3"
    run_script 'add "Kept" --at "2026-12-01 10:00"' --db "$db"
    sql "$db" 'PRAGMA journal_mode=DELETE' >/dev/null
    sql "$db" 'PRAGMA user_version=99' >/dev/null
    cp "$db" "$T/before"
    run_appt --db "$db" list --all
    check_status 3 "newer schema"
    check_contains "$ERR" "created by a newer appt (schema 99, this build knows "
    cmp -s "$db" "$T/before" || fail "the newer file was modified"
    [[ ! -e $db-wal && ! -e $db-shm ]] || fail "WAL/SHM files were created beside the newer file"
}

scenario_foreign_sqlite_database_is_refused_untouched() {
    local db="$T/theirs.sqlite3"
    sql "$db" 'CREATE TABLE recipes (name TEXT)' >/dev/null
    sql "$db" "INSERT INTO recipes VALUES ('bread')" >/dev/null
    cp "$db" "$T/before"
    run_script 'add "Mine" --at "2026-12-01 10:00"' --db "$db"
    check_status 3 "foreign database"
    check_contains "$ERR" "without appt's schema"
    check_contains "$ERR" "$db"
    cmp -s "$db" "$T/before" || fail "the foreign database was modified"
    [[ ! -e $db-wal && ! -e $db-shm && ! -e $db-journal ]] || fail "files were created beside the foreign database"
}

scenario_corrupt_header_is_refused_untouched() {
    local db="$T/corrupt.sqlite3"
    run_script 'add "Kept" --at "2026-12-01 10:00"' --db "$db"
    sql "$db" 'PRAGMA journal_mode=DELETE' >/dev/null
    printf 'NOT SQLITE AT ALL' | dd of="$db" bs=1 seek=0 conv=notrunc status=none
    cp "$db" "$T/before"
    run_appt --db "$db" list --all
    check_status 3 "damaged header"
    check_contains "$ERR" "not an SQLite database"
    cmp -s "$db" "$T/before" || fail "the damaged file was modified"
}

scenario_read_only_file_reads_but_refuses_writes() {
    local db="$T/ro.sqlite3"
    run_script 'add "Readable" --at "2026-12-01 10:00"' --db "$db"
    chmod 0444 "$db"
    run_appt --db "$db" list --all
    check_status 0 "list on a read-only file"
    check_contains "$OUT" "Readable"
    run_appt --db "$db" add "Refused" --at "2026-12-01 11:00"
    check_status 3 "add on a read-only file"
    check_contains "$ERR" "read-only"
    run_appt --db "$db" list --all
    check_not_contains "$OUT" "Refused"
}

scenario_backup_is_a_consistent_copy() {
    local db="$T/main.sqlite3"
    run_script 'add "One" --at "2026-12-01 10:00"
add "Two" --at "2026-12-02 10:00"' --db "$db"
    run_appt --db "$db" backup "$T/copy.sqlite3"
    check_status 0 "backup"
    check_contains "$OUT" "backed up 2 appointments"
    check_eq 600 "$(stat -c %a "$T/copy.sqlite3")" "backup file mode"
    run_appt --db "$T/copy.sqlite3" list --all
    check_eq 2 "$(printf '%s\n' "$OUT" | grep -c .)" "appointments in the backup"
    run_appt --db "$db" backup "$T/copy.sqlite3"
    check_status 3 "backup over an existing file"
    check_contains "$ERR" "refusing to overwrite"
}

# Regression: appt once opened and closed the database file itself (to check its header) while
# SQLite had it open. Closing any descriptor drops every POSIX lock the process holds on the
# file, so another process closing its connection believed it was the last one, checkpointed
# and deleted the WAL, and the first process went on writing into a deleted file.
scenario_another_process_never_deletes_a_live_wal() {
    local db="$T/live.sqlite3" line
    coproc WRITER { "$APPT" --db "$db" 2>&1; }
    echo 'add "One" --at "2026-12-01 10:00"' >&"${WRITER[1]}"
    read -t 10 -r line <&"${WRITER[0]}" || fail "the writer did not acknowledge the first add"
    run_appt --db "$db" list --all
    check_contains "$OUT" "One" "a second process sees the first add"
    echo 'add "Two" --at "2026-12-01 11:00"' >&"${WRITER[1]}"
    read -t 10 -r line <&"${WRITER[0]}" || fail "the writer did not acknowledge the second add"
    check_contains "$line" "added" "second add"
    run_appt --db "$db" list --all
    check_contains "$OUT" "Two" "a third process sees the add made after the second process closed"
    [[ -e "$db-wal" ]] || fail "the WAL of the running writer was deleted"
    exec {WRITER[1]}>&-
    wait "$WRITER_PID" 2>/dev/null
    run_appt --db "$db" list --all
    check_eq 2 "$(printf '%s\n' "$OUT" | grep -c .)" "both adds are in the file after the writer ended"
}

echo "e2e durability ($APPT)"
for scenario in $(declare -F | awk '{print $3}' | grep '^scenario_'); do
    run_scenario "$scenario"
done
e2e_finish "e2e durability"
