#!/usr/bin/env bash
# End-to-end scenarios for `make install` / `make uninstall` and `appt completion`:
# what is installed where, the completions working in bash (and parsing in zsh and fish), and
# uninstall leaving the tree exactly as it found it.
# usage: Tests/e2e/install.sh [PATH_TO_APPT]
set -u
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
e2e_init "${1:-}"

BUILD=$(dirname "$APPT")

# tree DIR: every path under DIR with its type, sorted (what "as it was" compares).
tree() { (cd "$1" && find . -printf '%y %p\n' | sort); }

install_into() {
    make -s -C "$E2E_ROOT" install DESTDIR="$1" PREFIX=/usr/local INSTALL_FROM="$BUILD" >"$T/.out" 2>"$T/.err"
    STATUS=$?
    OUT=$(cat "$T/.out")
    ERR=$(cat "$T/.err")
}

uninstall_from() {
    make -s -C "$E2E_ROOT" uninstall DESTDIR="$1" PREFIX=/usr/local INSTALL_FROM="$BUILD" >"$T/.out" 2>"$T/.err"
    STATUS=$?
    OUT=$(cat "$T/.out")
    ERR=$(cat "$T/.err")
}

install_and_uninstall_leave_the_tree_as_it_was() {
    local root="$T/root"
    # Something there already: a share/man of someone else's, which must survive.
    mkdir -p "$root/usr/local/share/man/man5"
    echo keep >"$root/usr/local/share/man/man5/other.5"
    local before
    before=$(tree "$root")
    install_into "$root"
    check_status 0 "make install"
    local prefix="$root/usr/local"
    for file in bin/appt share/man/man1/appt.1 share/bash-completion/completions/appt \
        share/zsh/site-functions/_appt share/fish/vendor_completions.d/appt.fish \
        lib/systemd/user/appt-remind.service; do
        [[ -s $prefix/$file ]] || fail "make install did not put $file"
    done
    # The reminder daemon's unit runs the installed appt (its path as on the installed system).
    check_contains "$(cat "$prefix/lib/systemd/user/appt-remind.service")" "ExecStart=/usr/local/bin/appt remind" \
        "the unit's ExecStart"
    check_not_contains "$(cat "$prefix/lib/systemd/user/appt-remind.service")" "@BINDIR@" "no placeholder left"
    [[ -x $prefix/bin/appt ]] || fail "bin/appt is not executable"
    if [[ -x $BUILD/appt-sync ]]; then
        [[ -x $prefix/bin/appt-sync ]] || fail "make install did not put bin/appt-sync"
    fi
    "$prefix/bin/appt" --version >/dev/null || fail "the installed appt does not run"
    install_into "$root"
    check_status 2 "a second make install"
    check_contains "$ERR" "appt is installed in $prefix already; make uninstall first"
    uninstall_from "$root"
    check_status 0 "make uninstall"
    check_eq "$before" "$(tree "$root")" "the tree after uninstall"
    uninstall_from "$root"
    check_status 2 "uninstall with nothing installed"
}

bash_completes_commands_options_calendars_and_ids() {
    run_appt --db "$T/db.sqlite3" calendar add "Team Days"
    run_appt --db "$T/db.sqlite3" add Dentist --at "today 10:00"
    run_appt --db "$T/db.sqlite3" list --format '{short_id}'
    local id=$OUT
    [[ $id =~ ^[0-9a-f]{6}$ ]] || fail "no short id listed: [$id]"
    "$APPT" completion bash >"$T/appt.bash"
    # What bash-completion would do: source it, then ask as the shell asks on Tab.
    local results
    results=$(
        PATH="$BUILD:$PATH" bash -c '
            source "$1"
            complete -p appt
            ask() { COMP_WORDS=("$@"); COMP_CWORD=$((${#COMP_WORDS[@]} - 1)); COMPREPLY=(); _appt; echo "${COMPREPLY[*]}"; }
            ask appt li
            ask appt list --fr
            ask appt --db "$2" show "${3:0:3}"
            ask appt --db "$2" add X -c Te
            ask appt add X --repeat mon
            ask appt completion f
        ' _ "$T/appt.bash" "$T/db.sqlite3" "$id"
    )
    check_eq "complete -F _appt appt
list
--from
$id
Team\\ Days
monthly
fish" "$results" "bash completions"
}

other_shells_parse_their_completion() {
    local shell
    for shell in zsh fish; do
        run_appt completion "$shell"
        check_status 0 "completion $shell"
        check_contains "$OUT" "appt" "completion $shell"
        if command -v "$shell" >/dev/null; then
            printf '%s\n' "$OUT" >"$T/completion.$shell"
            "$shell" -n "$T/completion.$shell" || fail "$shell cannot parse its completion"
        else
            echo "  note: $shell is not installed; its completion was not parsed"
        fi
    done
    run_appt completion tcsh
    check_status 2 "completion of a shell appt does not know"
    check_contains "$ERR" "completion: appt completes bash, zsh, fish, not \"tcsh\""
}

for s in install_and_uninstall_leave_the_tree_as_it_was bash_completes_commands_options_calendars_and_ids \
    other_shells_parse_their_completion; do
    run_scenario "$s"
done
e2e_finish "e2e install"
