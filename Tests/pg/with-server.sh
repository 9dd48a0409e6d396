#!/usr/bin/env bash
# with-server.sh CMD [ARGS...]: run CMD with a throwaway PostgreSQL server (server.sh).
#
# CMD gets the variables of server.sh's DIR/env (APPT_TEST_PG, APPT_TEST_PG_ADMIN,
# APPT_TEST_PG_DIR, APPT_TEST_PG_SERVER) and APPT_REQUIRE_PG=1: tests that need PostgreSQL
# fail instead of skipping. The server and its directory are removed however this ends
# (CMD's exit, a failure, INT/TERM/HUP); the exit status is CMD's. If the server cannot
# start, CMD is not run and the status is 1: never a run that silently skips PostgreSQL.
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
if (($# == 0)); then
    echo "usage: $0 CMD [ARGS...]" >&2
    exit 2
fi

dir=""
child=""

cleanup() {
    local status=$?
    trap '' INT TERM HUP # a second Ctrl-C must not leave the server behind
    if [[ -n $child ]] && kill -0 "$child" 2>/dev/null; then
        kill -TERM "$child" 2>/dev/null || true
        wait "$child" 2>/dev/null || true
    fi
    if [[ -n $dir ]]; then
        "$here/server.sh" stop "$dir" || status=1
        rm -rf "$dir"
    fi
    exit "$status"
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM
trap 'exit 129' HUP

dir=$(mktemp -d "${TMPDIR:-/tmp}/appt-pg.XXXXXX")
if ! "$here/server.sh" start "$dir"; then
    echo "with-server: PostgreSQL did not start; not running: $*" >&2
    exit 1
fi
# shellcheck source=/dev/null
source "$dir/env"
export APPT_REQUIRE_PG=1

# shellcheck source=../lib/run-forwarding.sh
source "$here/../lib/run-forwarding.sh"
run_forwarding "$@"
