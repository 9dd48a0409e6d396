#!/usr/bin/env bash
# Hostile files and output, end to end: what appt reads (`import` of an endless or huge input,
# in bounded memory, and still from a FIFO, /dev/stdin or a pipe), what it writes (`export`
# never writes through a symbolic link, still writes to a FIFO and /dev/stdout; `backup` writes
# only a new regular file it creates, never opens a FIFO, never removes what it did not create)
# and where results go (a write error on stdout is said and fails, and stops a script).
#
# Everything happens in the scenario's temp dir: the FIFOs, links, "dotfiles" and device nodes
# are made there (CI runs as root, so a mistake here would hit the real system). /dev/full is
# only ever written to, as a device.
#
# usage: Tests/e2e/files.sh [PATH_TO_APPT]
set -u
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
e2e_init "${1:-}"

# ------------------------------------------------------------------ helpers

# seed DB: two appointments.
seed() {
    printf '%s\n' 'add Dentist --at "2026-12-01 10:00" --for 45m' 'add Standup --at "2026-12-02 09:30"' >"$T/seed"
    run_appt --db "$1" <"$T/seed"
    [[ $STATUS == 0 ]] || { fail "seeding failed ($STATUS): $ERR"; return 1; }
}

# titles DB: the titles stored, one line.
titles() {
    "$APPT" --db "$1" --json list --all --include-cancelled | sed 's/.*"title":"\([^"]*\)".*/\1/' | paste -sd'|'
}

# calendar FILE: a small valid calendar with one event.
calendar() {
    printf 'BEGIN:VCALENDAR\r\nVERSION:2.0\r\nPRODID:-//t//t//EN\r\nBEGIN:VEVENT\r\nUID:one@test\r\n'\
'DTSTART:20261203T100000Z\r\nDTEND:20261203T110000Z\r\nSUMMARY:From a pipe\r\nEND:VEVENT\r\nEND:VCALENDAR\r\n' >"$1"
}

# listing DIR: every entry of DIR (and DIR itself) with its type, size, mtime and inode, and
# the contents of its regular files.
listing() {
    (cd "$1" && stat -c '%n %F %s %Y %i' . * dir/* 2>/dev/null && find . -maxdepth 1 -type f -exec sha256sum {} +)
}

# no_crash WHAT: the last run was not killed and printed no crash report.
no_crash() {
    ((STATUS < 124)) || fail "$1: killed or timed out (status $STATUS); stderr: ${ERR:0:300}"
    [[ $ERR != *"Fatal error"* && $ERR != *[Cc]rash* ]] || fail "$1: crash report: ${ERR:0:300}"
}

# ------------------------------------------------------------------ import

# An endless input is refused at the limit, in bounded memory (the address space is capped at
# 1 GB: the old reader grew past 3 GB and died), and nothing is imported.
scenario_import_dev_zero_is_refused_at_the_limit() {
    local db="$T/db.sqlite3"
    seed "$db" || return
    (ulimit -v 1000000 && run_appt --db "$db" import /dev/zero && declare -p STATUS OUT ERR >"$T/run") </dev/null
    source "$T/run" || { fail "no result"; return; }
    no_crash "import /dev/zero"
    check_status 1 "import /dev/zero"
    check_eq "appt: import: /dev/zero is larger than 64 MiB, the most appt reads whole (a pipe, or a file that must be read whole); nothing imported" \
        "$ERR" "import /dev/zero: stderr"
    check_eq "Dentist|Standup" "$(titles "$db")" "the database after import /dev/zero"
}

# A regular file is read a piece at a time, whatever its size; a line is bounded instead: a
# 200 MB file whose calendar is followed by one endless line (sparse: no disk used) is read up
# to that line, in bounded memory, and refused with the line's number.
scenario_import_huge_line_is_refused() {
    local db="$T/db.sqlite3"
    seed "$db" || return
    calendar "$T/huge.ics"
    truncate -s 200M "$T/huge.ics"
    (ulimit -v 1000000 && run_appt --db "$db" import "$T/huge.ics" && declare -p STATUS OUT ERR >"$T/run") </dev/null
    source "$T/run" || { fail "no result"; return; }
    no_crash "import of a 200 MB file"
    check_status 1 "import of a 200 MB file"
    check_contains "$ERR" "a line longer than 32 MiB: the file is not read past it"
    check_contains "$ERR" "nothing imported"
    check_eq "Dentist|Standup" "$(titles "$db")" "the database after the refused import"
}

# A pipe, /dev/stdin and a FIFO still import, and a pipe that goes on past the limit is cut
# off with the same message.
scenario_import_from_pipes_and_fifos() {
    local db="$T/db.sqlite3"
    calendar "$T/cal.ics"
    run_appt --db "$db" import /dev/stdin <"$T/cal.ics"
    check_status 0 "import /dev/stdin (a file)"
    run_appt --db "$db" import /dev/stdin < <(timeout 20 cat "$T/cal.ics")
    check_status 0 "import /dev/stdin (a pipe)"
    check_contains "$OUT" "1 unchanged"
    mkfifo "$T/fifo"
    (timeout 20 cat "$T/cal.ics" >"$T/fifo" &)
    run_appt --db "$db" import "$T/fifo"
    check_status 0 "import FIFO"
    check_contains "$OUT" "imported 1 appointment"
    check_eq "From a pipe" "$(titles "$db")" "imported from pipes"
    (ulimit -v 1000000 && run_appt --db "$db" import /dev/stdin < <(timeout 20 cat /dev/zero) &&
        declare -p STATUS OUT ERR >"$T/run") </dev/null
    source "$T/run" || { fail "no result"; return; }
    no_crash "an endless pipe"
    check_status 1 "an endless pipe"
    check_contains "$ERR" "/dev/stdin is larger than 64 MiB"
}

# ------------------------------------------------------------------ export

# A symbolic link planted where the calendar goes (the /tmp attack on a dotfile): the link is
# replaced by the calendar, the file it pointed to is untouched, and so is a dangling link's
# target (not created).
scenario_export_replaces_a_symlink_never_its_target() {
    local db="$T/db.sqlite3"
    seed "$db" || return
    mkdir -p "$T/home"
    printf 'export PATH=/usr/bin\n' >"$T/home/.profile"
    chmod 644 "$T/home/.profile"
    local before
    before=$(stat -c '%s %a %Y' "$T/home/.profile"; sha256sum <"$T/home/.profile")
    ln -s "$T/home/.profile" "$T/calendar.ics"
    run_appt --db "$db" export "$T/calendar.ics"
    check_status 0 "export to a symlink"
    check_eq "$before" "$(stat -c '%s %a %Y' "$T/home/.profile"; sha256sum <"$T/home/.profile")" "the dotfile"
    check_eq "export PATH=/usr/bin" "$(cat "$T/home/.profile")" "the dotfile's text"
    [[ -f $T/calendar.ics && ! -L $T/calendar.ics ]] || fail "the path is not a regular file now"
    check_contains "$(head -1 "$T/calendar.ics")" "BEGIN:VCALENDAR"
    check_eq 600 "$(stat -c %a "$T/calendar.ics")" "the calendar's mode"
    check_contains "$(cat "$T/calendar.ics")" "SUMMARY:Dentist"

    ln -s "$T/home/.newrc" "$T/dangling.ics"
    run_appt --db "$db" export "$T/dangling.ics"
    check_status 0 "export to a dangling symlink"
    [[ ! -e $T/home/.newrc ]] || fail "export created the dangling link's target"
    [[ -f $T/dangling.ics && ! -L $T/dangling.ics ]] || fail "the dangling link was not replaced"
    check_eq "" "$(find "$T" -name '.appt-export-*')" "temporary files left"
}

# A FIFO, /dev/stdout (a pipe, and a file stdout is redirected to) are written in place; a
# link to a device other than appt's own output and a directory are refused. (Replacing in
# /dev is refused too: ExportTargetTests, which create nothing there.)
scenario_export_to_fifo_stdout_and_refusals() {
    local db="$T/db.sqlite3"
    seed "$db" || return
    mkfifo "$T/fifo"
    (timeout 20 cat "$T/fifo" >"$T/from-fifo" &)
    run_appt --db "$db" export "$T/fifo"
    check_status 0 "export to a FIFO"
    [[ -p $T/fifo ]] || fail "the FIFO was replaced"
    local i
    for i in $(seq 100); do [[ -s $T/from-fifo ]] && grep -q END:VCALENDAR "$T/from-fifo" && break; sleep 0.05; done
    check_contains "$(cat "$T/from-fifo")" "SUMMARY:Dentist" "what the FIFO's reader got"

    local piped
    piped=$(timeout 20 "$APPT" --db "$db" export /dev/stdout 2>"$T/err" | cat)
    check_contains "$piped" "SUMMARY:Standup" "export /dev/stdout through a pipe"
    printf 'kept\n' >"$T/out.ics"
    timeout 20 "$APPT" --db "$db" export /dev/stdout >>"$T/out.ics" 2>"$T/err"
    check_eq 0 "$?" "export /dev/stdout >> file: status"
    check_eq kept "$(head -1 "$T/out.ics")" "export /dev/stdout >> file: appended, not truncated"
    check_contains "$(cat "$T/out.ics")" "SUMMARY:Dentist"
    [[ -c /dev/stdout || -L /dev/stdout ]] || fail "/dev/stdout is gone"

    ln -s /dev/null "$T/to-null.ics"
    run_appt --db "$db" export "$T/to-null.ics"
    check_status 1 "export to a link to a device"
    check_contains "$ERR" "symbolic link to a device"
    mkdir "$T/dir"
    run_appt --db "$db" export "$T/dir"
    check_status 1 "export to a directory"
    check_contains "$ERR" "Is a directory"
}

# ------------------------------------------------------------------ stdout

# A full stdout (/dev/full) is a failure with a message, one-shot and --json, and in a script
# it stops the script: the line after the one whose result was lost does not run.
scenario_write_error_on_stdout() {
    local db="$T/db.sqlite3"
    seed "$db" || return
    timeout 20 "$APPT" --db "$db" list --all >/dev/full 2>"$T/err"
    check_eq 1 "$?" "list > /dev/full: status"
    check_eq "appt: write error on standard output: No space left on device" "$(cat "$T/err")" "list > /dev/full"
    timeout 20 "$APPT" --db "$db" --json list --all >/dev/full 2>"$T/err"
    check_eq 1 "$?" "--json list > /dev/full: status"
    check_eq "appt: write error on standard output: No space left on device" "$(cat "$T/err")" "--json list"
    timeout 20 "$APPT" --db "$db" export >/dev/full 2>"$T/err"
    check_eq 1 "$?" "export > /dev/full: status"
    # Written as a file appt was named (here its stdout, /dev/full): a full disk is exit 3.
    timeout 20 "$APPT" --db "$db" export /dev/stdout >/dev/full 2>"$T/err"
    check_eq 3 "$?" "export /dev/stdout > /dev/full: status"
    check_eq "appt: disk full: cannot write /dev/stdout" "$(cat "$T/err")" "export FILE on a full disk"

    printf '%s\n' 'add First --at "2026-12-05 10:00"' 'add Second --at "2026-12-06 10:00"' >"$T/script"
    timeout 20 "$APPT" --db "$db" <"$T/script" >/dev/full 2>"$T/err"
    check_eq 1 "$?" "script > /dev/full: status"
    check_eq "appt: write error on standard output: No space left on device" "$(cat "$T/err")" "script > /dev/full"
    check_eq "Dentist|Standup|First" "$(titles "$db")" "only the first line ran"
    timeout 20 "$APPT" --db "$db" --json <"$T/script" >/dev/full 2>"$T/err"
    check_eq 1 "$?" "--json script > /dev/full: status"
    check_eq "ok" "$(sql "$db" 'PRAGMA integrity_check')" "the database after the lost output"
    check_eq "" "$(ls "$T" | grep -- '-wal$')" "a WAL left behind: the store was not closed"
}

# ------------------------------------------------------------------ backup

# A FIFO, a device node, a symbolic link, a directory and an existing (even empty) file are
# refused with a message, at once, and left exactly as they were; no journal or temp file
# is left beside them.
scenario_backup_refuses_every_existing_path() {
    local db="$T/db.sqlite3"
    seed "$db" || return
    mkdir "$T/b"
    mkfifo "$T/b/fifo"
    printf 'mine\n' >"$T/b/target"
    ln -s "$T/b/target" "$T/b/link"
    mkdir "$T/b/dir"
    : >"$T/b/empty"
    printf 'not empty\n' >"$T/b/file"
    local names="fifo link dir empty file"
    if [[ $(id -u) == 0 ]] && mknod "$T/b/null" c 1 3 2>/dev/null; then
        names="$names null"
    else
        echo "SKIPPED: the device node case (mknod needs root)"
    fi
    local before name
    before=$(listing "$T/b")
    for name in $names; do
        run_appt --db "$db" backup "$T/b/$name"
        no_crash "backup to $name"
        check_status 3 "backup to $name"
        check_contains "$ERR" "it exists" "backup to $name: stderr"
        check_contains "$ERR" "refusing to overwrite" "backup to $name: stderr"
    done
    check_eq "$before" "$(listing "$T/b")" "the paths after the refused backups"
    [[ ! -e $T/b/null ]] || [[ -c $T/b/null ]] || fail "the device node is gone"

    run_appt --db "$db" backup "$T/b/new.sqlite3"
    check_status 0 "backup to a new path"
    check_eq 600 "$(stat -c %a "$T/b/new.sqlite3")" "backup file mode"
    check_eq "Dentist|Standup" "$(titles "$T/b/new.sqlite3")" "the backup's appointments"
    check_eq "" "$(ls -A "$T/b" | grep -e '^\.appt-backup' -e 'journal$')" "temporary files left"
}

echo "e2e files ($APPT)"
for name in $(declare -F | awk '{print $3}' | grep '^scenario_'); do
    run_scenario "$name"
done
e2e_finish "e2e files"
