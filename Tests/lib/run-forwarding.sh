# run-forwarding.sh: sourced by the with-server scripts (Tests/pg/with-server.sh,
# Tests/caldav/with-servers.sh). `run_forwarding CMD [ARGS...]` runs CMD and exits with its
# status, passing INT, TERM and HUP on to it; the caller's EXIT trap then stops its servers.
#
# CMD runs in the background so that a signal to the script is handled now (bash runs traps
# only between commands, and `wait` is interruptible) and passed on to CMD. The explicit <&0
# keeps its stdin (a background command's is /dev/null otherwise), and `trap -` undoes the
# SIGINT/SIGQUIT ignoring bash gives background commands, so Ctrl-C still reaches it. The
# caller's cleanup reads `child` to stop CMD if the script itself is ended first.

run_forwarding() {
    trap 'kill -s INT "$child" 2>/dev/null || true' INT
    trap 'kill -s TERM "$child" 2>/dev/null || true' TERM
    trap 'kill -s HUP "$child" 2>/dev/null || true' HUP
    (
        trap - INT QUIT
        exec "$@"
    ) <&0 &
    child=$!

    local status=0
    while :; do
        wait "$child" && status=0 || status=$?
        # interrupted by a forwarded signal: CMD is still running (or not yet reaped)
        kill -0 "$child" 2>/dev/null || break
    done
    exit "$status"
}
