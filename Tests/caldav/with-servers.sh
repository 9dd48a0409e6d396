#!/usr/bin/env bash
# with-servers.sh CMD [ARGS...]: run CMD with throwaway CalDAV servers on 127.0.0.1.
#
# Three servers, each on a free port with its own temp directory, from PyPI (`make test-tools`):
#   Radicale 3 over http, Basic auth (htpasswd, plain) as user "appt" with a random password;
#   Xandikos over http without authentication: its own --htpasswd needs its --autocert https,
#     so plain-http Xandikos is run the way its docs describe behind a proxy, with no auth
#     (the tests check credentials on Radicale);
#   Radicale over https with a certificate signed by a CA made here with openssl (private CA).
# Each server gets one calendar, "work" (display name "Work", colour #FF8800), made with
# Python's caldav (client.py seed) so the servers are seeded by another client.
#
# CMD gets:
#   APPT_TEST_RADICALE_URL   http://127.0.0.1:PORT/          (user below)
#   APPT_TEST_XANDIKOS_URL   http://127.0.0.1:PORT/          (no auth)
#   APPT_TEST_HTTPS_URL      https://localhost:PORT/          (Radicale, user below)
#   APPT_TEST_CA_FILE        the CA certificate (PEM) that signed the https server's
#   APPT_TEST_CALDAV_USER / APPT_TEST_CALDAV_PASSWORD   the Radicale credentials
#   APPT_TEST_CALDAV_CLIENT  client.py (absolute), APPT_TEST_CALDAV_DIR the temp dir
#   APPT_REQUIRE_CALDAV=1    tests that need these servers fail instead of skipping
# The servers are stopped (by their pids) and the directory removed however this ends (CMD's
# exit, a failure, INT/TERM/HUP); the status is CMD's. If a server does not start, CMD is not
# run and the status is 1: never a run that silently skips the CalDAV tests.
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
if (($# == 0)); then
    echo "usage: $0 CMD [ARGS...]" >&2
    exit 2
fi

START_TIMEOUT=30
dir=""
child=""
pids=()

cleanup() {
    local status=$?
    trap '' INT TERM HUP # a second Ctrl-C must not leave the servers behind
    if [[ -n $child ]] && kill -0 "$child" 2>/dev/null; then
        kill -TERM "$child" 2>/dev/null || true
        wait "$child" 2>/dev/null || true
    fi
    local pid
    for pid in "${pids[@]}"; do
        kill -TERM "$pid" 2>/dev/null || true
    done
    for pid in "${pids[@]}"; do
        wait "$pid" 2>/dev/null || true
    done
    if [[ -n $dir ]]; then
        rm -rf "$dir"
    fi
    exit "$status"
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM
trap 'exit 129' HUP

die() {
    echo "with-servers: $*; not running: ${COMMAND_LINE}" >&2
    if [[ -n $dir ]]; then
        local log
        for log in "$dir"/*.log; do
            [[ -f $log ]] && { echo "--- $log" >&2; tail -20 "$log" >&2; }
        done
    fi
    exit 1
}
COMMAND_LINE="$*"

for module in radicale xandikos caldav; do
    python3 -c "import $module" 2>/dev/null || die "Python's $module is missing (make test-tools)"
done
command -v openssl >/dev/null || die "openssl is missing"

free_port() {
    python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'
}

# wait_for PID PORT NAME: until 127.0.0.1:PORT accepts a connection, or PID died, or timeout.
wait_for() {
    local pid=$1 port=$2 name=$3 tries=$((START_TIMEOUT * 10))
    while ((tries-- > 0)); do
        kill -0 "$pid" 2>/dev/null || die "$name exited at start"
        if python3 -c "import socket, sys; socket.create_connection(('127.0.0.1', $port), 0.2)" 2>/dev/null; then
            return 0
        fi
        sleep 0.1
    done
    die "$name did not listen on 127.0.0.1:$port within ${START_TIMEOUT}s"
}

dir=$(mktemp -d "${TMPDIR:-/tmp}/appt-caldav.XXXXXX")
user=appt
password=$(python3 -c 'import secrets; print(secrets.token_urlsafe(18))')
printf '%s:%s\n' "$user" "$password" >"$dir/htpasswd"
chmod 600 "$dir/htpasswd"

# radicale_config NAME PORT [SSL]: a config file in $dir/NAME.conf
radicale_config() {
    local name=$1 port=$2 ssl=${3:-}
    mkdir -p "$dir/$name"
    {
        echo "[server]"
        echo "hosts = 127.0.0.1:$port"
        if [[ -n $ssl ]]; then
            echo "ssl = True"
            echo "certificate = $dir/tls/server.pem"
            echo "key = $dir/tls/server.key"
        fi
        echo "[auth]"
        echo "type = htpasswd"
        echo "htpasswd_filename = $dir/htpasswd"
        echo "htpasswd_encryption = plain"
        echo "delay = 0"
        echo "[storage]"
        echo "filesystem_folder = $dir/$name/collections"
        echo "[logging]"
        echo "level = warning"
    } >"$dir/$name.conf"
}

# The private CA and the https server's certificate (127.0.0.1 and localhost).
mkdir -p "$dir/tls"
(
    cd "$dir/tls"
    openssl req -x509 -newkey rsa:2048 -nodes -days 2 -subj "/CN=appt test CA" \
        -keyout ca.key -out ca.pem -addext "basicConstraints=critical,CA:TRUE" \
        -addext "keyUsage=critical,keyCertSign,cRLSign"
    openssl req -newkey rsa:2048 -nodes -subj "/CN=localhost" -keyout server.key -out server.csr
    printf 'subjectAltName=DNS:localhost,IP:127.0.0.1\nbasicConstraints=CA:FALSE\nextendedKeyUsage=serverAuth\n' >ext.cnf
    openssl x509 -req -in server.csr -CA ca.pem -CAkey ca.key -CAcreateserial -days 2 \
        -extfile ext.cnf -out server.pem
) >"$dir/openssl.log" 2>&1 || die "openssl could not make the test CA"

radicale_port=$(free_port)
radicale_config radicale "$radicale_port"
python3 -m radicale --config "$dir/radicale.conf" >"$dir/radicale.log" 2>&1 &
pids+=($!)
wait_for "$!" "$radicale_port" Radicale

https_port=$(free_port)
radicale_config https "$https_port" ssl
python3 -m radicale --config "$dir/https.conf" >"$dir/https.log" 2>&1 &
pids+=($!)
wait_for "$!" "$https_port" "Radicale (https)"

xandikos_port=$(free_port)
mkdir -p "$dir/xandikos"
python3 -m xandikos serve -d "$dir/xandikos/collections" --defaults -l 127.0.0.1 -p "$xandikos_port" \
    --state-dir "$dir/xandikos/state" --no-detect-systemd >"$dir/xandikos.log" 2>&1 &
pids+=($!)
wait_for "$!" "$xandikos_port" Xandikos

export APPT_TEST_RADICALE_URL="http://127.0.0.1:$radicale_port/"
export APPT_TEST_XANDIKOS_URL="http://127.0.0.1:$xandikos_port/"
export APPT_TEST_HTTPS_URL="https://localhost:$https_port/"
export APPT_TEST_CA_FILE="$dir/tls/ca.pem"
export APPT_TEST_CALDAV_USER=$user
export APPT_TEST_CALDAV_PASSWORD=$password
export APPT_TEST_CALDAV_CLIENT="$here/client.py"
export APPT_TEST_CALDAV_DIR=$dir

seed() { # URL USER PASSWORD CA
    APPT_CALDAV_USER=$2 APPT_CALDAV_PASSWORD=$3 APPT_CALDAV_CA_FILE=$4 \
        python3 "$here/client.py" seed "$1" work Work '#FF8800FF' >>"$dir/seed.log" 2>&1
}
seed "$APPT_TEST_RADICALE_URL" "$user" "$password" "" || die "could not seed Radicale"
seed "$APPT_TEST_XANDIKOS_URL" "" "" "" || die "could not seed Xandikos"
seed "$APPT_TEST_HTTPS_URL" "$user" "$password" "$APPT_TEST_CA_FILE" || die "could not seed Radicale (https)"
export APPT_REQUIRE_CALDAV=1

# shellcheck source=../lib/run-forwarding.sh
source "$here/../lib/run-forwarding.sh"
run_forwarding "$@"
