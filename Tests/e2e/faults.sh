#!/usr/bin/env bash
# Faults, end to end: a full disk and a file size limit (exit 3, "disk full", earlier data
# intact), the database deleted or replaced under a running TUI (a clear message, no crash,
# q still quits), SIGTERM/SIGHUP/SIGINT to the TUI in the middle of an add (terminal restored,
# the add all there or not at all) and to a script writer (every acknowledged add kept), and
# stdout closed early (`appt list | head -1` exits quietly).
#
# The disk-full scenarios mount a small tmpfs, which needs root (as in CI); elsewhere they
# say SKIPPED and pass.
#
# usage: Tests/e2e/faults.sh [PATH_TO_APPT]
set -u
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
e2e_init "${1:-}"
command -v tmux >/dev/null || { echo "e2e faults: tmux is required" >&2; exit 2; }

# ------------------------------------------------------------------ helpers

# seed_three DB: three appointments, "Early 1".."Early 3", on 1-3 December.
seed_three() {
    local i
    for i in 1 2 3; do echo "add \"Early $i\" --at \"2026-12-0$i 10:00\" --for 30m"; done >"$T/seed"
    run_appt --db "$1" <"$T/seed"
    [[ $STATUS == 0 ]] || { fail "seeding failed ($STATUS): $ERR"; return 1; }
}

# check_early_data_intact DB [WHAT]: exactly the three seeded appointments, and a sound file.
check_early_data_intact() {
    local db=$1 what=${2:-after the failure}
    run_appt --db "$db" list --all --include-cancelled
    check_status 0 "list $what"
    check_eq "Early 1|Early 2|Early 3" "$(printf '%s\n' "$OUT" | sed 's/.*10:00-10:30  //' | paste -sd'|')" \
        "appointments $what"
    check_eq ok "$(sql "$db" 'PRAGMA integrity_check' 2>&1)" "integrity_check $what"
}

MOUNTED=""

# mount_small_disk DIR SIZE: a tmpfs of SIZE at DIR, unmounted when the scenario ends.
# Returns 1 (after printing SKIPPED) when this machine does not let us mount.
mount_small_disk() {
    local dir=$1 size=$2
    mkdir -p "$dir"
    if [[ $(id -u) != 0 ]] || ! mount -t tmpfs -o "size=$size,mode=0700" tmpfs "$dir" 2>"$T/mount.err"; then
        echo "SKIPPED: cannot mount a tmpfs here ($(cat "$T/mount.err" 2>/dev/null)); needs root"
        return 1
    fi
    MOUNTED=$dir
    # Unmount before lib.sh's cleanup removes $T (rm -rf would stop at the mount point).
    trap 'umount -l "$MOUNTED" 2>/dev/null; e2e_cleanup' EXIT
}

# fill_disk DIR: take every free block of DIR's file system.
fill_disk() {
    dd if=/dev/zero of="$1/filler" bs=4k status=none 2>/dev/null
    local free
    free=$(df -k --output=avail "$1" | tail -1 | tr -d ' ')
    [[ $free == 0 ]] || fail "the disk is not full after filling it ($free KiB free)"
}

# wait_for_file_lines FILE N [TIMEOUT_SECONDS=10]: poll until FILE has N lines.
wait_for_file_lines() {
    local file=$1 n=$2 timeout=${3:-10} deadline
    deadline=$(($(now_us) + timeout * 1000000))
    while (($(wc -l <"$file" 2>/dev/null || echo 0) < n)); do
        if (($(now_us) > deadline)); then
            fail "timed out waiting for $n lines in $file: $(cat "$file" 2>/dev/null)"
            return 1
        fi
        sleep 0.02
    done
}

# wait_for_status_line REGEX [TIMEOUT_SECONDS=5]: poll until the TUI's last line matches
# REGEX (extended, case-insensitive).
wait_for_status_line() {
    local regex=$1 timeout=${2:-5} deadline line
    deadline=$(($(now_us) + timeout * 1000000))
    while :; do
        line=$(tmux_screen | sed -n '30p')
        if grep -qiE "$regex" <<<"$line"; then return 0; fi
        if (($(now_us) > deadline)); then
            fail "timed out after ${timeout}s waiting for a status line matching /$regex/; it says: [$line]"
            return 1
        fi
        sleep 0.02
    done
}

# check_terminal_restored WHAT: after the app exited, no UI is left on the pane and the
# terminal modes it set are undone (alternate screen left, keypad mode off).
check_terminal_restored() {
    local what=$1 screen modes
    screen=$(tmux_screen)
    [[ $screen != *" appt  "* && $screen != *"q quit"* && $screen != *"New appointment"* ]] ||
        fail "$what: the UI is still on the screen:
$(printf '%s\n' "$screen" | cat -s | sed 's/^/      | /')"
    modes=$(pane_field 'alternate=#{alternate_on} keypad=#{keypad_flag} keypad_cursor=#{keypad_cursor_flag}')
    check_eq "alternate=0 keypad=0 keypad_cursor=0" "$modes" "$what: terminal modes after exit"
}

# start_tui_on DB: the TUI on DB, waiting for today's header.
start_tui_on() {
    tmux_start "$APPT" --db "$1" || return 1
    wait_for_text " appt  $(day_label 0)  (today)" || return 1
}

# form_add TITLE HH:MM: fill the add form and leave it ready for Enter.
form_add() {
    tmux_keys a
    wait_for_text "New appointment" || return 1
    tmux_type "$1"
    tmux_keys Tab
    tmux_type "$2"
    wait_for_text "$(e2e_date), $2-" || return 1   # the time alone is on the prefilled day
}

# quit_and_check_restored WHAT: Escape (a form may be open), q, exit 0, terminal restored.
quit_and_check_restored() {
    tmux_keys Escape
    sleep 0.05
    tmux_keys q
    wait_for_exit || return 1
    check_eq 0 "$PANE_STATUS" "$1: exit status after q"
    check_terminal_restored "$1"
}

# ------------------------------------------------------------------ (a) disk full

# The disk fills up while a script is running: the next add fails with exit 3 and
# "disk full", the script stops there, and what was stored before is intact.
scenario_disk_full_during_a_script_write() {
    local disk="$T/disk" db pid status
    mount_small_disk "$disk" 1m || return 0
    db="$disk/db.sqlite3"
    seed_three "$db" || return
    mkfifo "$T/in"
    "$APPT" --db "$db" <"$T/in" >"$T/script.out" 2>"$T/script.err" &
    pid=$!
    E2E_BG_PIDS+=("$pid")
    exec 7>"$T/in"
    echo "list --all" >&7
    wait_for_file_lines "$T/script.out" 3 || { exec 7>&-; return; }
    fill_disk "$disk"
    echo "add \"Late\" --at \"2026-12-05 10:00\" --note \"$(head -c 3000 /dev/zero | tr '\0' n)\"" >&7
    echo 'add "Later" --at "2026-12-06 10:00"' >&7
    exec 7>&-
    wait "$pid"
    status=$?
    check_eq 3 "$status" "exit status of the script whose add hit a full disk"
    check_contains "$(cat "$T/script.err")" "line 2: disk full" "message for the failed add"
    check_not_contains "$(cat "$T/script.out")" "added" "nothing acknowledged on a full disk"
    rm -f "$disk/filler"
    check_early_data_intact "$db" "after the disk was freed"
}

# The disk is already full when a one-shot add starts.
scenario_disk_full_before_a_one_shot_add() {
    local disk="$T/disk" db
    mount_small_disk "$disk" 1m || return 0
    db="$disk/db.sqlite3"
    seed_three "$db" || return
    fill_disk "$disk"
    run_appt --db "$db" add "Late" --at "2026-12-05 10:00"
    check_status 3 "add on a full disk"
    check_contains "$ERR" "disk full" "message for an add on a full disk"
    check_not_contains "$OUT" "added" "nothing acknowledged on a full disk"
    rm -f "$disk/filler"
    check_early_data_intact "$db" "after the disk was freed"
}

# A file size limit (ulimit -f) with SIGXFSZ at its default action (which is to kill):
# the add must fail like a full disk (exit 3, a message that says so), not kill appt.
scenario_file_size_limit_fails_like_a_full_disk() {
    local db="$T/db.sqlite3" note
    seed_three "$db" || return
    # Notes are at most 10,000 characters: 40 adds of 9,000 each make 360 KB.
    note=$(head -c 9000 /dev/zero | tr '\0' n)
    for i in $(seq 1 40); do printf 'add "Big %s" --at "2026-12-05 10:00" --note %s\n' "$i" "$note"; done >"$T/big"
    (
        ulimit -f 100 # 100 KiB: 360 KB of notes cannot all be written
        exec env --default-signal=XFSZ "$APPT" --db "$db" <"$T/big" >"$T/.out" 2>"$T/.err"
    )
    STATUS=$?
    ERR=$(cat "$T/.err")
    echo "note: under ulimit -f, appt exited with status $STATUS: $ERR"
    ((STATUS < 128)) || fail "appt was killed by signal $((STATUS - 128)) (SIGXFSZ is 25) instead of failing cleanly"
    check_status 3 "add beyond the file size limit"
    if ! grep -qiE 'disk full|file size limit|too large' <<<"$ERR"; then
        fail "the message does not say the disk is full or the file too large: $ERR"
    fi
    # Exactly what was acknowledged before the limit was hit is stored, nothing more or less.
    local acknowledged stored
    acknowledged=$(grep -c '^added ' "$T/.out")
    run_appt --db "$db" list --all --include-cancelled
    stored=$(printf '%s\n' "$OUT" | grep -c 'Big ')
    check_eq "$acknowledged" "$stored" "appointments acknowledged vs stored"
    check_contains "$OUT" "Early 3" "earlier data"
    check_eq ok "$(sql "$db" 'PRAGMA integrity_check' 2>&1)" "integrity_check after the failed add"
}

# ------------------------------------------------------------------ (b) the file goes away

# The file is deleted while the TUI runs; an add must not be "Added" into a file nobody can
# see any more (it would vanish when appt quits): a clear message instead, and q still quits.
scenario_database_deleted_while_the_tui_runs() {
    local db="$T/db.sqlite3"
    run_appt --db "$db" add "Morning" --at "today 09:00"
    start_tui_on "$db" || return
    wait_for_text "09:00-10:00  Morning" || return
    rm -f "$db" "$db-wal" "$db-shm"
    form_add "After delete" "11:00" || return
    tmux_keys Enter
    wait_for_status_line 'deleted|replaced|moved|missing|no longer|gone' || true
    check_not_contains "$(tmux_screen | sed -n '30p')" 'Added "After delete"' \
        "an add into the deleted file was acknowledged"
    pane_alive || fail "the TUI died after its file was deleted"
    quit_and_check_restored "after the file was deleted"
}

# The file is replaced (renamed over, as sync tools and editors do) by a non-database.
scenario_database_replaced_by_rename_while_the_tui_runs() {
    local db="$T/db.sqlite3"
    run_appt --db "$db" add "Morning" --at "today 09:00"
    start_tui_on "$db" || return
    wait_for_text "09:00-10:00  Morning" || return
    yes "this is not a database" | head -c 20000 >"$T/other"
    cp "$T/other" "$T/other.orig"
    mv -f "$T/other" "$db"
    form_add "After replace" "11:00" || return
    tmux_keys Enter
    wait_for_status_line 'deleted|replaced|moved|not an SQLite database|corrupt' || true
    check_not_contains "$(tmux_screen | sed -n '30p')" 'Added "After replace"' \
        "an add into the replaced file was acknowledged"
    pane_alive || fail "the TUI died after its file was replaced"
    quit_and_check_restored "after the file was replaced"
    cmp -s "$db" "$T/other.orig" || fail "the file that replaced the database was modified"
}

# The file is overwritten in place by a non-database after the TUI wrote to it (so its WAL
# holds frames): the next write reports it, and quitting must not checkpoint the old WAL
# into the stranger's bytes.
scenario_database_overwritten_in_place_while_the_tui_runs() {
    local db="$T/db.sqlite3"
    run_appt --db "$db" add "Morning" --at "today 09:00"
    start_tui_on "$db" || return
    wait_for_text "09:00-10:00  Morning" || return
    form_add "Before overwrite" "10:00" || return
    tmux_keys Enter
    wait_for_text 'Added "Before overwrite"' || return
    yes "this is not a database" | head -c 20000 >"$T/garbage"
    cat "$T/garbage" >"$db"   # same inode, new content
    form_add "After overwrite" "11:00" || return
    tmux_keys Enter
    wait_for_status_line 'not an SQLite database|corrupt|malformed|replaced' || true
    check_not_contains "$(tmux_screen | sed -n '30p')" 'Added "After overwrite"' \
        "an add into the overwritten file was acknowledged"
    pane_alive || fail "the TUI died after its file was overwritten"
    quit_and_check_restored "after the file was overwritten"
    cmp -s "$db" "$T/garbage" || fail "appt wrote into the file that overwrote its database (a checkpoint on close?)"
}

# ------------------------------------------------------------------ (c) signals

# signal_during_add SIGNAL: three rounds of "add through the form, SIGNAL right after Enter"
# (at once, 5 ms later, and after "Added" was shown). Each time the app exits, restores the
# terminal, and the appointment is either complete or absent (present once acknowledged).
signal_during_add() {
    local sig=$1 round db="$T/db.sqlite3" pid title count
    for round in now 5ms acknowledged; do
        title="Signal $sig $round"
        start_tui_on "$db" || return
        pid=$(pane_field '#{pane_pid}')
        form_add "$title" "11:00" || return
        tmux_keys Enter
        case $round in
            5ms) sleep 0.005 ;;
            acknowledged) wait_for_text "Added \"$title\"" || return ;;
        esac
        kill -"$sig" "$pid"
        wait_for_exit || return
        echo "note: SIG$sig ($round after Enter): exit status $PANE_STATUS"
        [[ $PANE_STATUS != sig* ]] || fail "SIG$sig ($round): killed by the signal instead of exiting"
        check_terminal_restored "SIG$sig ($round)"
        # This round's tmux server goes now (lib.sh's cleanup knows only the last one).
        tm kill-server 2>/dev/null
        [[ -S $E2E_TMUX_SOCKET_PATH ]] && rm -f "$E2E_TMUX_SOCKET_PATH"
        # shellcheck disable=SC2034 # read by e2e_cleanup in lib.sh
        E2E_TMUX_SOCKET=""

        run_appt --db "$db" --json list --all --include-cancelled --search "$title"
        check_status 0 "list after SIG$sig ($round)"
        count=$(printf '%s\n' "$OUT" | grep -c '"id"')
        if [[ $round == acknowledged ]]; then
            check_eq 1 "$count" "SIG$sig: the acknowledged add is stored"
        else
            [[ $count == 0 || $count == 1 ]] || fail "SIG$sig ($round): $count copies of the add"
        fi
        if [[ $count == 1 ]]; then
            check_contains "$OUT" "\"title\":\"$title\",\"start\":\"$(e2e_instant 0 11:00)\",\"end\":\"$(e2e_instant 0 12:00)\"" \
                "SIG$sig ($round): the stored add is complete"
        fi
        check_eq ok "$(sql "$db" 'PRAGMA integrity_check' 2>&1)" "integrity_check after SIG$sig ($round)"
    done
}

scenario_sigterm_during_a_tui_add() { signal_during_add TERM; }
scenario_sighup_during_a_tui_add() { signal_during_add HUP; }
scenario_sigint_during_a_tui_add() { signal_during_add INT; }

# SIGTERM to a script-mode writer at 8 random moments: every add it acknowledged is stored.
scenario_sigterm_to_a_script_writer_keeps_acknowledged_adds() {
    local db="$T/db.sqlite3" round i pid delay status missing acked
    for i in $(seq 1 2000); do echo "add \"w-$i\" --at \"2026-12-01 10:00\" --for 30m"; done >"$T/script"
    for round in $(seq 1 8); do
        "$APPT" --db "$db" <"$T/script" >"$T/acks" 2>"$T/script.err" &
        pid=$!
        delay=$(((RANDOM % 300) + 30))
        sleep "0.$(printf '%03d' "$delay")"
        kill -TERM "$pid" 2>/dev/null
        wait "$pid"
        status=$?
        [[ $status == 0 || $status == 143 ]] || fail "round $round: exit status $status after SIGTERM: $(head -3 "$T/script.err")"
        grep -o '^added [0-9a-f]\{6\}' "$T/acks" | cut -c7- | sort >"$T/acked"
        run_appt --db "$db" list --all
        check_status 0 "round $round: list after SIGTERM"
        printf '%s\n' "$OUT" | cut -c1-6 | sort >"$T/stored"
        missing=$(comm -23 "$T/acked" "$T/stored" | wc -l)
        acked=$(wc -l <"$T/acked")
        check_eq 0 "$missing" "round $round (SIGTERM after ${delay} ms, $acked acknowledged): acknowledged adds missing"
    done
    echo "note: a script writer exits with status $status on SIGTERM"
    check_eq ok "$(sql "$db" 'PRAGMA integrity_check' 2>&1)" "integrity_check after 8 SIGTERMs"
    [[ -s $T/stored ]] || fail "no round got to commit anything: the signals all came too early"
}

# ------------------------------------------------------------------ (d) stdout closed early

# `appt list | head -1` and friends with far more output than a pipe buffer holds: appt
# exits 0 and says nothing on stderr.
scenario_stdout_closed_early_exits_quietly() {
    local db="$T/db.sqlite3" i statuses first
    for i in $(seq 1 2000); do
        echo "add \"Row $i with a title long enough to fill the pipe buffer quickly\" --at \"2026-12-01 10:00\""
    done >"$T/rows"
    run_appt --db "$db" <"$T/rows"
    check_status 0 "adding 2000 rows"

    "$APPT" --db "$db" list --all 2>"$T/err1" | head -1 >"$T/first"
    statuses=${PIPESTATUS[*]}
    first=$(cat "$T/first")
    check_eq "0 0" "$statuses" "appt list | head -1: exit statuses"
    check_eq "" "$(cat "$T/err1")" "appt list | head -1: stderr"
    check_contains "$first" "Row " "appt list | head -1: the first line"

    "$APPT" --db "$db" --json list --all 2>"$T/err2" | head -c 10 >"$T/first"
    statuses=${PIPESTATUS[*]}
    first=$(cat "$T/first")
    check_eq "0 0" "$statuses" "appt --json list --all | head -c 10: exit statuses"
    check_eq "" "$(cat "$T/err2")" "appt --json list --all | head -c 10: stderr"
    check_eq '{"id":"' "${first:0:7}" "appt --json list --all | head -c 10: the first bytes"

    echo "list --all" | "$APPT" --db "$db" 2>"$T/err3" | head -1 >"$T/first"
    statuses=${PIPESTATUS[*]}
    check_eq "0 0 0" "$statuses" "script mode list | head -1: exit statuses"
    check_eq "" "$(cat "$T/err3")" "script mode list | head -1: stderr"
}

echo "e2e faults ($APPT)"
for scenario in $(declare -F | awk '{print $3}' | grep '^scenario_'); do
    run_scenario "$scenario"
done
e2e_finish "e2e faults"
