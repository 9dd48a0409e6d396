#!/usr/bin/env bash
# A throwaway PostgreSQL server for the tests: one private cluster in a directory.
#
#   server.sh start DIR    initdb DIR/data, start it on a free 127.0.0.1 port, create the
#                          role and database "appt", write DIR/env
#   server.sh stop DIR     stop it (fast: open sessions are cut); quiet if already stopped
#   server.sh resume DIR   start the same cluster again, on the same port
#   server.sh status DIR   prints "running on 127.0.0.1:PORT" (exit 0) or "stopped" (exit 3)
#
# DIR/env is sourceable and exports:
#   APPT_TEST_PG         postgresql://appt:PASSWORD@127.0.0.1:PORT/appt (TCP, SCRAM password)
#   APPT_TEST_PG_ADMIN   the superuser "postgres" through the Unix socket in DIR (trust)
#   APPT_TEST_PG_DIR     DIR, absolute
#   APPT_TEST_PG_SERVER  this script, absolute: "$APPT_TEST_PG_SERVER" stop "$APPT_TEST_PG_DIR"
#
# initdb and postgres refuse to run as root. As root, the cluster belongs to the system user
# "postgres" (or "appt-pg", created when there is none) and every command here runs as that
# user, so tests running as root (CI) can stop and resume it too.
set -euo pipefail

SELF=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)/$(basename "${BASH_SOURCE[0]}")
START_TIMEOUT=30

die() {
    echo "pg server: $*" >&2
    exit 1
}

usage() {
    echo "usage: $0 start|stop|resume|status DIR | $0 free-port" >&2
    exit 2
}

# free-port: print a TCP port on 127.0.0.1 nobody listens on (tests use it for "server down").
if (($# == 1)) && [[ $1 == free-port ]]; then
    set -- free-port /nonexistent
fi
(($# == 2)) || usage
COMMAND=$1
DIR=$(realpath -m -- "$2")
DATA=$DIR/data
LOG=$DIR/postgres.log
# DIR goes into postgresql.conf, a URL and a shell file unquoted by anything but '...'.
[[ $DIR =~ ^[A-Za-z0-9_./+-]+$ ]] || die "DIR must be a plain path (letters, digits, _ . / + -): $DIR"
# A Unix socket path is at most 107 bytes; PostgreSQL appends "/.s.PGSQL.NNNNN".
((${#DIR} <= 85)) || die "DIR is too long for a Unix socket path: $DIR"

# The caller's libpq settings must not redirect this script's own psql and pg_isready.
unset PGHOST PGHOSTADDR PGPORT PGUSER PGDATABASE PGPASSWORD PGPASSFILE PGSERVICE \
    PGSERVICEFILE PGOPTIONS PGSSLMODE PGCONNECT_TIMEOUT PGDATA
# The postgres user may not be able to enter the caller's directory (e.g. /root/...).
cd /
# useradd lives in sbin, which a stripped-down PATH (sudo, CI) may lack.
PATH=$PATH:/usr/sbin:/sbin

# ---------------------------------------------------------------- helpers

# find_bindir: pg_config's if it has the server, else the newest Debian server.
find_bindir() {
    local dir=""
    if command -v pg_config >/dev/null; then
        dir=$(pg_config --bindir 2>/dev/null || true)
    fi
    if [[ -z $dir || ! -x $dir/initdb ]]; then
        dir=$(printf '%s\n' /usr/lib/postgresql/*/bin | sort -V | tail -1)
    fi
    [[ -x $dir/initdb ]] || die "no PostgreSQL server binaries (install the Debian package postgresql)"
    echo "$dir"
}

# system_user: the user that owns clusters started by root.
system_user() {
    if id -u postgres >/dev/null 2>&1; then
        echo postgres
        return
    fi
    # another start may be creating it at the same time: only its existence matters
    useradd --system --no-create-home --user-group --home-dir /nonexistent \
        --shell /usr/sbin/nologin appt-pg 2>/dev/null || true
    id -u appt-pg >/dev/null 2>&1 || die "could not create the system user appt-pg"
    echo appt-pg
}

# as_owner CMD...: run CMD as the cluster's owner ($OWNER) when we are root, else as ourselves.
# setpriv, unlike su/runuser, needs no PAM session and leaves the environment alone.
as_owner() {
    if ((EUID == 0)); then
        setpriv --reuid="$OWNER" --regid="$(id -g "$OWNER")" --init-groups -- "$@"
    else
        "$@"
    fi
}

# load_cluster: BIN, OWNER and PORT of the existing cluster in DIR. PORT may be empty: a start
# interrupted between initdb and the first launch (stop must still work then).
load_cluster() {
    [[ -f $DATA/PG_VERSION && -f $DIR/bindir ]] || die "no cluster in $DIR (use: $0 start $DIR)"
    BIN=$(<"$DIR/bindir")
    OWNER=$(stat -c %U "$DATA")
    PORT=$(sed -n 's/^port = //p' "$DATA/port.conf" 2>/dev/null || true)
}

running() {
    as_owner "$BIN/pg_ctl" -D "$DATA" status >/dev/null 2>&1
}

show_log() {
    echo "pg server: last lines of $LOG:" >&2
    tail -n 20 "$LOG" 2>/dev/null | sed 's/^/  | /' >&2 || true
}

# launch: start the cluster on $PORT; pg_ctl -w returns early if the postmaster dies.
launch() {
    as_owner "$BIN/pg_ctl" -D "$DATA" -l "$LOG" -w -t "$START_TIMEOUT" -s start >/dev/null 2>&1
}

# wait_ready: until pg_isready accepts on TCP, which is what the tests use (bounded).
wait_ready() {
    local deadline=$((SECONDS + START_TIMEOUT))
    until "$BIN/pg_isready" -q -h 127.0.0.1 -p "$PORT" -d postgres -U postgres; do
        ((SECONDS < deadline)) || return 1
        sleep 0.1
    done
}

# random_port: one nobody listens on, below Linux's ephemeral range (32768+) so that outgoing
# connections do not take it between a stop and a resume. launch() retries if it was taken.
random_port() {
    local port
    while :; do
        port=$((20000 + RANDOM % 12000))
        # bash's /dev/tcp: a refused connection means nobody listens there
        if ! (exec 3<>"/dev/tcp/127.0.0.1/$port") 2>/dev/null; then
            echo "$port"
            return
        fi
    done
}

# quote: TEXT as one single-quoted shell word.
quote() {
    printf "'%s'" "${1//\'/\'\\\'\'}"
}

# ---------------------------------------------------------------- commands

cmd_start() {
    [[ ! -e $DATA ]] || die "$DATA exists already (use: $0 resume $DIR)"
    BIN=$(find_bindir)
    mkdir -p "$DIR"
    chmod 700 "$DIR" # the socket is trust-authenticated: only its owner (and root) may reach it
    echo "$BIN" >"$DIR/bindir"
    if ((EUID == 0)); then
        OWNER=$(system_user)
        chown -R "$OWNER:" "$DIR"
        as_owner test -x "$DIR" ||
            die "user $OWNER cannot enter $DIR (a private parent directory? try TMPDIR=/tmp)"
    else
        OWNER=$(id -un)
    fi

    # --no-sync, and fsync off below: a crash of the machine loses a cluster we throw away anyway.
    as_owner "$BIN/initdb" -D "$DATA" -U postgres --encoding=UTF8 --locale=C.UTF-8 \
        --auth-local=trust --auth-host=scram-sha-256 --no-sync >"$DIR/initdb.log" 2>&1 || {
        sed 's/^/  | /' "$DIR/initdb.log" >&2
        die "initdb failed"
    }
    # The port lives in its own file so that a retry can change it and resume keeps it.
    # max_connections: the Swift suite runs its PostgreSQL tests side by side, each on its own
    # database with a writer, readers and a listener; 200 was once exhausted on a loaded machine.
    cat >>"$DATA/postgresql.conf" <<EOF

# Tests/pg/server.sh
listen_addresses = '127.0.0.1'
unix_socket_directories = '$DIR'
max_connections = 600
fsync = off
full_page_writes = off
include 'port.conf'
EOF

    local attempt
    for attempt in 1 2 3 4 5; do
        PORT=$(random_port)
        echo "port = $PORT" >"$DATA/port.conf"
        ((EUID != 0)) || chown "$OWNER:" "$DATA/port.conf"
        if launch; then break; fi
        # taken between our probe and postgres's bind: another port; anything else is fatal
        if ((attempt < 5)) && grep -q 'could not bind\|could not create any TCP/IP' "$LOG" 2>/dev/null; then
            continue
        fi
        show_log
        die "postgres did not start"
    done
    wait_ready || {
        show_log
        die "postgres did not accept connections on 127.0.0.1:$PORT within ${START_TIMEOUT}s"
    }

    # A random password, so that every test connection goes through SCRAM authentication.
    # The SQL goes through stdin: the password never appears in a process list.
    local password
    password=$(od -An -N16 -tx1 /dev/urandom | tr -d ' \n')
    # pg_signal_backend: each test drops its database WITH (FORCE), which must be allowed to
    # end every session on it. An autovacuum worker visiting the database belongs to no role,
    # so without this grant the drop fails at random with 42501 ("must be a member of the role
    # whose process is being terminated"), as it did in a CI run under ASan.
    "$BIN/psql" -X -q -v ON_ERROR_STOP=1 -h "$DIR" -p "$PORT" -U postgres -d postgres <<EOF
CREATE ROLE appt LOGIN CREATEDB PASSWORD '$password';
GRANT pg_signal_backend TO appt;
CREATE DATABASE appt OWNER appt;
EOF

    {
        echo "export APPT_TEST_PG=$(quote "postgresql://appt:$password@127.0.0.1:$PORT/appt")"
        echo "export APPT_TEST_PG_ADMIN=$(quote "postgresql:///postgres?host=$DIR&port=$PORT&user=postgres")"
        echo "export APPT_TEST_PG_DIR=$(quote "$DIR")"
        echo "export APPT_TEST_PG_SERVER=$(quote "$SELF")"
    } >"$DIR/env"
}

cmd_stop() {
    [[ -f $DATA/PG_VERSION ]] || return 0
    load_cluster
    running || return 0
    as_owner "$BIN/pg_ctl" -D "$DATA" -m fast -w -t 30 -s stop && return 0
    echo "pg server: fast shutdown timed out; immediate shutdown" >&2
    as_owner "$BIN/pg_ctl" -D "$DATA" -m immediate -w -t 30 -s stop && return 0
    local pid
    pid=$(head -n 1 "$DATA/postmaster.pid" 2>/dev/null || true)
    if [[ $pid =~ ^[0-9]+$ ]]; then
        echo "pg server: immediate shutdown failed; killing postmaster $pid" >&2
        kill -KILL "$pid" 2>/dev/null || true
    fi
    return 1
}

cmd_resume() {
    load_cluster
    [[ -n $PORT ]] || die "the cluster in $DIR was never started (use: $0 start DIR)"
    if running; then return 0; fi
    launch || {
        show_log
        die "postgres did not start again on 127.0.0.1:$PORT"
    }
    wait_ready || {
        show_log
        die "postgres did not accept connections on 127.0.0.1:$PORT within ${START_TIMEOUT}s"
    }
}

cmd_status() {
    if [[ -f $DATA/PG_VERSION ]]; then
        load_cluster
        if running; then
            echo "running on 127.0.0.1:$PORT"
            return 0
        fi
    fi
    echo "stopped"
    return 3
}

case $COMMAND in
free-port) random_port ;;
start) cmd_start ;;
stop) cmd_stop ;;
resume) cmd_resume ;;
status) cmd_status ;;
*) usage ;;
esac
