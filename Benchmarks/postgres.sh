#!/usr/bin/env bash
# The PostgreSQL part of `make bench`: run.sh starts it under a throwaway server
# (`Tests/pg/with-server.sh bash Benchmarks/postgres.sh`), once the SQLite datasets and figures
# of the same run exist. For each size of PG_SIZES it loads the SAME dataset into a fresh
# database through appt's schema and DAO, then measures side by side with SQLite:
#   - `appt list` of the week (SQLite, PostgreSQL), the sqlite3 CLI and the psql floors;
#   - the headless calendar (first frame, `l`, `j`, commits, another process's commits);
#   - 8 writer processes x 200 adds at once, on a copy of the SQLite file and on PostgreSQL
#     (then one process making all 1,600 alone, and PostgreSQL with fsync off, for scale).
#
# From run.sh: APPT, BENCH, DATA, RAW, LIST_FROM, TUI_TODAY, PG_SIZES, SIZES, and
# $DATA/list-window.sql (appt's window queries, as the sqlite3 floor runs them).
# From with-server.sh: APPT_TEST_PG (a role that may CREATE DATABASE), APPT_TEST_PG_ADMIN,
# APPT_TEST_PG_DIR. Optional: BENCH_PG_LIST_RUNS (default 20), BENCH_PG_FSYNC (on|off,
# default on: durable commits, as SQLite's synchronous=FULL), BENCH_PG_WRITERS (8),
# BENCH_PG_ADDS (200 per writer).
set -euo pipefail

LIST_RUNS=${BENCH_PG_LIST_RUNS:-20}
FSYNC=${BENCH_PG_FSYNC:-on}
WRITERS=${BENCH_PG_WRITERS:-8}
ADDS=${BENCH_PG_ADDS:-200}
: "${APPT:?} ${BENCH:?} ${DATA:?} ${RAW:?} ${LIST_FROM:?} ${TUI_TODAY:?} ${PG_SIZES:?}"
: "${APPT_TEST_PG:?run me under Tests/pg/with-server.sh} ${APPT_TEST_PG_ADMIN:?}"

log() { printf '\n==> postgres: %s  [%ds]\n' "$*" "$SECONDS" >&2; }

# The password goes to libpq through PGPASSWORD, so that no URL written to the results (the
# argv in the JSON) carries it.
if [[ ! $APPT_TEST_PG =~ ^postgresql://([^:@/]+):([^@/]+)@([^/]+)/[^/?]+$ ]]; then
  echo "postgres.sh: APPT_TEST_PG is not postgresql://USER:PASSWORD@HOST:PORT/DB" >&2
  exit 1
fi
export PGPASSWORD=${BASH_REMATCH[2]}
BASE=postgresql://${BASH_REMATCH[1]}@${BASH_REMATCH[3]}
unset PGHOST PGPORT PGUSER PGDATABASE PGSERVICE PGOPTIONS
# The real psql, not Debian's /usr/bin/psql (a Perl wrapper that picks a version first).
PGBIN=$(cat "$APPT_TEST_PG_DIR/bindir" 2>/dev/null || pg_config --bindir)
PSQL=$PGBIN/psql
admin() { PGOPTIONS="-c client_min_messages=warning" "$PSQL" -X -q -A -t -v ON_ERROR_STOP=1 "$APPT_TEST_PG_ADMIN" "$@"; }
# admin_on DB ARGS...: the same, connected to DB (APPT_TEST_PG_ADMIN is postgresql:///postgres?...).
admin_on() {
  local db=$1
  shift
  PGOPTIONS="-c client_min_messages=warning" "$PSQL" -X -q -A -t -v ON_ERROR_STOP=1 "${APPT_TEST_PG_ADMIN/\/\/\/postgres?//\/\/$db?}" "$@"
}
now_ns() { date +%s%N; }

# Durability like SQLite's synchronous=FULL: the test server runs with fsync off.
set_fsync() {
  admin -c "ALTER SYSTEM SET fsync = $1" -c "ALTER SYSTEM SET full_page_writes = $1" -c "SELECT pg_reload_conf()" >/dev/null
  local tries=0
  until [ "$(admin -c 'SHOW fsync')" = "$1" ]; do
    ((++tries < 50)) || { echo "postgres.sh: fsync did not turn $1" >&2; exit 1; }
    sleep 0.1
  done
}
set_fsync "$FSYNC"

{
  echo "pg_sizes=$PG_SIZES"
  echo "server=$(admin -c 'SHOW server_version')"
  echo "psql=$("$PSQL" --version | awk '{ print $3 }')"
  for setting in fsync synchronous_commit full_page_writes shared_buffers max_connections; do
    echo "$setting=$(admin -c "SHOW $setting")"
  done
  echo "list_runs=$LIST_RUNS"
  echo "writers=$WRITERS"
  echo "adds=$ADDS"
  echo "load_start=$(cut -d' ' -f1-3 /proc/loadavg)"
} > "$RAW/pg-env.txt"

for size in $PG_SIZES; do
  sqlite_db=$DATA/appt-$size.sqlite3
  if ! [[ " $SIZES " == *" $size "* ]] || [ ! -s "$sqlite_db" ]; then
    echo "postgres.sh: no SQLite dataset of $size in this run (BENCH_SIZES=\"$SIZES\"); skipping it" >&2
    continue
  fi
  name=appt_bench_$size
  url=$BASE/$name

  log "loading the $size dataset into a fresh database $name"
  admin -c "DROP DATABASE IF EXISTS $name" -c "CREATE DATABASE $name OWNER appt" >/dev/null
  "$BENCH" pg-load --from "$sqlite_db" --db "$url" > "$RAW/pg-load-$size.json"
  cat "$RAW/pg-load-$size.json" >&2
  # What autovacuum would do shortly after such a load anyway: planner statistics and the
  # visibility map, so that the figures do not depend on when it happens to run.
  started=$(now_ns)
  admin_on "$name" -c "VACUUM (ANALYZE) appointment" >/dev/null
  vacuum_ms=$((($(now_ns) - started) / 1000000))
  pg_rows=$(admin_on "$name" -c "SELECT count(*) FROM appointment")
  sqlite_rows=$(sqlite3 "$sqlite_db" "SELECT count(*) FROM appointment")
  if [ "$pg_rows" != "$sqlite_rows" ]; then
    echo "postgres.sh: $pg_rows rows in PostgreSQL, $sqlite_rows in SQLite at $size" >&2
    exit 1
  fi
  db_bytes=$(admin -c "SELECT pg_database_size('$name')")
  table_bytes=$(admin_on "$name" -c "SELECT pg_total_relation_size('appointment')")
  printf '{"rows": %s, "vacuum_analyze_ms": %s, "database_bytes": %s, "table_bytes": %s}\n' \
    "$pg_rows" "$vacuum_ms" "$db_bytes" "$table_bytes" > "$RAW/pg-db-$size.json"

  log "list one week at $size: appt on SQLite and PostgreSQL, sqlite3 and psql ($LIST_RUNS runs each)"
  out=$DATA/out-pg-list-$size
  mkdir -p "$out"
  {
    printf 'appt-sqlite\t%s\t%s\t--db\t%s\tlist\t--from\t%s\t--days\t7\n' "$LIST_RUNS" "$APPT" "$sqlite_db" "$LIST_FROM"
    printf 'appt-postgres\t%s\t%s\t--db\t%s\tlist\t--from\t%s\t--days\t7\n' "$LIST_RUNS" "$APPT" "$url" "$LIST_FROM"
    printf 'sqlite3\t%s\tsqlite3\t%s\t%s\n' "$LIST_RUNS" "$sqlite_db" "$(cat "$DATA/list-window.sql")"
    printf 'psql\t%s\t%s\t-X\t-q\t-A\t-t\t-f\t%s\t%s\n' "$LIST_RUNS" "$PSQL" "$DATA/list-window.sql" "$url"
    printf 'psql-connect\t%s\t%s\t-X\t-q\t-A\t-t\t-c\tSELECT 1\t%s\n' "$LIST_RUNS" "$PSQL" "$url"
  } > "$out/spec.tsv"
  "$BENCH" exec-time --spec "$out/spec.tsv" --warmup 1 --out-dir "$out" > "$RAW/pg-list-$size.json"
  if ! cmp -s "$out/appt-sqlite.out" "$out/appt-postgres.out"; then
    echo "postgres.sh: appt lists a different week on PostgreSQL than on SQLite at $size:" >&2
    diff "$out/appt-sqlite.out" "$out/appt-postgres.out" | head -20 >&2 || true
    exit 1
  fi
  # Sorted: the one-offs come in start order, and rows that share a start in whatever order the
  # engine reads them (appt sorts those itself, as the appt-* comparison above holds).
  if ! cmp -s <(sort "$out/sqlite3.out") <(sort "$out/psql.out"); then
    echo "postgres.sh: psql and sqlite3 print different rows for the window at $size:" >&2
    diff "$out/sqlite3.out" "$out/psql.out" | head -20 >&2 || true
    exit 1
  fi
  echo "rows: appt $(wc -l < "$out/appt-postgres.out") on both engines; psql $(wc -l < "$out/psql.out") as sqlite3" >&2

  log "headless calendar on PostgreSQL at $size"
  "$BENCH" tui --db "$url" --today "$TUI_TODAY" > "$RAW/pg-tui-$size.json"

  log "$WRITERS writers x $ADDS adds at $size: SQLite (a copy of the file), then PostgreSQL"
  copy=$DATA/writes-$size.sqlite3
  rm -f "$copy" "$copy-wal" "$copy-shm"
  cp "$sqlite_db" "$copy"
  "$BENCH" write-load --db "$copy" --writers "$WRITERS" --adds "$ADDS" > "$RAW/writes-sqlite-$size.json"
  cut -c1-300 "$RAW/writes-sqlite-$size.json" >&2
  # The same adds from one process alone: one connection's durable commits without contention.
  "$BENCH" write-load --db "$copy" --writers 1 --adds $((WRITERS * ADDS)) > "$RAW/writes-sqlite-serial-$size.json"
  rm -f "$copy" "$copy-wal" "$copy-shm"
  cut -c1-300 "$RAW/writes-sqlite-serial-$size.json" >&2
  rollbacks() { admin -c "SELECT xact_rollback FROM pg_stat_database WHERE datname = '$name'"; }
  before=$(rollbacks)
  "$BENCH" write-load --db "$url" --writers "$WRITERS" --adds "$ADDS" > "$RAW/writes-pg-$size.json"
  sleep 1.5 # backends report their counters when they exit, at most once a second
  echo "{\"xact_rollback\": $(($(rollbacks) - before))}" > "$RAW/writes-pg-rollbacks-$size.json"
  cut -c1-300 "$RAW/writes-pg-$size.json" >&2
  "$BENCH" write-load --db "$url" --writers 1 --adds $((WRITERS * ADDS)) > "$RAW/writes-pg-serial-$size.json"
  cut -c1-300 "$RAW/writes-pg-serial-$size.json" >&2
  if [ "$FSYNC" = on ]; then
    # The same on the server as the tests run it (fsync off: a commit does not wait for the disk).
    set_fsync off
    "$BENCH" write-load --db "$url" --writers "$WRITERS" --adds "$ADDS" > "$RAW/writes-pg-nofsync-$size.json"
    set_fsync on
    cut -c1-300 "$RAW/writes-pg-nofsync-$size.json" >&2
  fi
  admin -c "DROP DATABASE $name" >/dev/null
done
echo "load_end=$(cut -d' ' -f1-3 /proc/loadavg)" >> "$RAW/pg-env.txt"
