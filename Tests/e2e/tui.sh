#!/usr/bin/env bash
# End-to-end scenarios for appt's full-screen UI, driven through tmux.
# usage: Tests/e2e/tui.sh [PATH_TO_APPT]
set -u
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
e2e_init "${1:-}"
command -v tmux >/dev/null || { echo "e2e tui: tmux is required" >&2; exit 2; }

STATUS_KEYS="j/k move"

# add_today TITLE HH:MM [MORE ARGS]: add through one-shot mode, on the TUI's database.
add_today() {
    local title=$1 at=$2
    shift 2
    run_appt --db "$T/db.sqlite3" add "$title" --at "today $at" "$@"
    [[ $STATUS == 0 ]] || fail "setup: add [$title] failed ($STATUS): $ERR"
}

# start_and_wait: start the TUI and wait for today's header.
start_and_wait() {
    tmux_start_appt || return 1
    wait_for_text " appt  $(day_label 0)  (today)" || return 1
}

# quit_ok: press q and expect exit status 0.
quit_ok() {
    tmux_keys q
    wait_for_exit || return 1
    check_eq 0 "$PANE_STATUS" "exit status after q"
}

# screen_line N: line N (1-based) of the screen, trailing blanks removed.
screen_line() {
    tmux_screen | sed -n "${1}p" | sed 's/[[:space:]]*$//'
}

# agenda_rows: the agenda's rows at 100 columns (right of the 23-column month panel, from
# screen line 3), without the now marker: it sits wherever the clock puts it, between any
# two rows, so a row is found by its place among the appointments, never by screen line.
agenda_rows() {
    tmux_screen | sed -n '3,$p' | cut -c24- | sed 's/[[:space:]]*$//' | grep -v '^│  ── now [0-9][0-9]:[0-9][0-9] '
}

# agenda_row N: the Nth agenda row (1-based), now marker not counted.
agenda_row() {
    agenda_rows | sed -n "${1}p"
}

# wait_for_agenda_row N TEXT [TIMEOUT_SECONDS=5]: poll until agenda row N contains TEXT.
wait_for_agenda_row() {
    local n=$1 text=$2 timeout=${3:-5} deadline
    deadline=$(($(now_us) + ${timeout%.*} * 1000000))
    while [[ $(agenda_row "$n") != *"$text"* ]]; do
        if (($(now_us) > deadline)); then
            fail "timed out after ${timeout}s waiting for [$text] on agenda row $n:
$(tmux_screen | sed 's/^/      | /')"
            return 1
        fi
        sleep 0.02
    done
}

# ------------------------------------------------------------------ scenarios

starts_with_header_and_status() {
    start_and_wait || return
    local screen
    screen=$(tmux_screen)
    [[ $(screen_line 1) == " appt  $(day_label 0)  (today)"* ]] ||
        fail "header is not on the first line: [$(screen_line 1)]"
    wait_for_line 30 "$STATUS_KEYS" || return
    check_contains "$(screen_line 30)" "q quit" "status line names q"
    pane_alive || fail "app not running"
    quit_ok
}

shows_preadded() {
    add_today "Standup" 09:30 --for 15m
    run_appt --db "$T/db.sqlite3" add "Tomorrow thing" --at "tomorrow 09:30"
    start_and_wait || return
    wait_for_text "09:30-09:45  Standup" || return
    check_not_contains "$(tmux_screen)" "Tomorrow thing" "only the selected day is shown"
    check_contains "$(screen_line 1)" "1 appointment" "header count"
    quit_ok
}

add_via_form() {
    start_and_wait || return
    tmux_keys a
    wait_for_text "New appointment" || return
    wait_for_text "$(e2e_date)" || return   # Start is prefilled with the selected day
    tmux_type "Lunch with Ana"
    wait_for_text "Lunch with Ana" || return
    tmux_keys Tab
    # The prefilled day is selected: typing replaces it, and a time alone is on that day.
    tmux_type "10:00"
    wait_for_text "Start     10:00" || return
    wait_for_text "$(e2e_date), 10:00-11:00" || return
    tmux_keys Enter
    wait_for_text "10:00-11:00  Lunch with Ana" || return
    wait_for_no_text "New appointment" || return
    quit_ok
    run_appt --db "$T/db.sqlite3" list
    check_status 0 "list after the TUI"
    check_contains "$OUT" "10:00-11:00  Lunch with Ana" "the TUI's add is stored"
}

form_escape_discards() {
    start_and_wait || return
    tmux_keys a
    wait_for_text "New appointment" || return
    tmux_type "Never saved"
    wait_for_text "Never saved" || return
    tmux_keys Escape
    wait_for_no_text "New appointment" || return
    check_not_contains "$(tmux_screen)" "Never saved" "Esc discards the form"
    # ctrl+u clears the field being edited
    tmux_keys a
    wait_for_text "New appointment" || return
    tmux_type "Wrong title"
    wait_for_text "Wrong title" || return
    tmux_keys C-u
    wait_for_no_text "Wrong title" || return
    tmux_type "Right title"
    tmux_keys Tab End
    tmux_type "11:00"
    wait_for_text "$(e2e_date) 11:00" || return   # End kept the prefilled day
    tmux_keys Enter
    wait_for_text "11:00-12:00  Right title" || return
    quit_ok
    run_appt --db "$T/db.sqlite3" list --all --include-cancelled
    check_not_contains "$OUT" "Never saved" "discarded form stored nothing"
    check_not_contains "$OUT" "Wrong" "cleared text not stored"
    check_eq 1 "$(printf '%s\n' "$OUT" | grep -c .)" "exactly one appointment"
}

cancel_yes() {
    add_today "Dentist" 10:00
    start_and_wait || return
    wait_for_text "10:00-11:00  Dentist" || return
    tmux_keys c
    wait_for_text "(y/n)" || return
    tmux_keys y
    wait_for_text "Dentist  (cancelled)" || return
    run_appt --db "$T/db.sqlite3" list --include-cancelled
    check_contains "$OUT" "[cancelled]" "list --include-cancelled"
    run_appt --db "$T/db.sqlite3" list
    check_not_contains "$OUT" "Dentist" "plain list hides it"
    quit_ok
}

cancel_no() {
    add_today "Dentist" 10:00
    start_and_wait || return
    wait_for_text "10:00-11:00  Dentist" || return
    tmux_keys c
    wait_for_text "(y/n)" || return
    tmux_keys n
    wait_for_no_text "(y/n)" || return
    check_not_contains "$(tmux_screen)" "(cancelled)" "n keeps it"
    quit_ok
    run_appt --db "$T/db.sqlite3" --json list --all --include-cancelled
    check_contains "$OUT" '"status":"scheduled"' "still scheduled in the store"
}

jk_selects() {
    add_today "First one" 09:00
    add_today "Second one" 10:00
    start_and_wait || return
    wait_for_text "Second one" || return
    tmux_keys j c
    wait_for_text "(y/n)" || return
    check_contains "$(screen_line 30)" "Second one" "after j the second is selected"
    tmux_keys n
    wait_for_no_text "(y/n)" || return
    tmux_keys k c
    wait_for_text "(y/n)" || return
    check_contains "$(screen_line 30)" "First one" "after k the first is selected"
    tmux_keys y
    wait_for_text "First one  (cancelled)" || return
    check_not_contains "$(tmux_screen)" "Second one  (cancelled)" "only the selected one is cancelled"
    quit_ok
}

# Keys typed ahead of a day's data must act on that day's list: "l j" typed
# quickly moves to tomorrow AND selects its second appointment, so the cancel
# prompt that follows names that one (not the first, not "nothing selected").
typeahead_after_day_change() {
    run_appt --db "$T/db.sqlite3" add "Tomorrow first" --at "tomorrow 09:00"
    run_appt --db "$T/db.sqlite3" add "Tomorrow second" --at "tomorrow 10:00"
    start_and_wait || return
    wait_for_text "$STATUS_KEYS" || return
    tmux_keys l j          # one write: both keys arrive before tomorrow's data
    wait_for_text "Tomorrow second" || return
    tmux_keys c
    wait_for_text "Cancel" || return
    check_contains "$(screen_line 30)" "Tomorrow second" "j typed right after l selects the second row"
    tmux_keys n
    wait_for_no_text "(y/n)" || return
    tmux_keys h
    wait_for_text " appt  $(day_label 0)  (today)" || return
    tmux_keys l c          # one write: c must see tomorrow's appointments
    wait_for_text "Tomorrow first" || return
    wait_for_text "(y/n)" 2 || return
    tmux_keys n
    quit_ok
}

quit_with_q() {
    start_and_wait || return
    tmux_keys q
    wait_for_exit || return
    check_eq 0 "$PANE_STATUS" "pane_dead_status after q"
    check_eq 1 "$(pane_field '#{pane_dead}')" "pane is dead"
    # the terminal is restored: the app's screen is gone from the pane
    check_not_contains "$(tmux_screen)" "$STATUS_KEYS" "screen after exit"
}

quit_with_ctrl_c() {
    start_and_wait || return
    tmux_keys C-c
    wait_for_exit || return
    check_eq 0 "$PANE_STATUS" "exit status after ctrl+c"
}

day_navigation() {
    start_and_wait || return
    tmux_keys l
    wait_for_text " appt  $(day_label 1)" || return
    check_not_contains "$(screen_line 1)" "(today)" "tomorrow is not today"
    tmux_keys h h
    wait_for_text " appt  $(day_label -1)" || return
    tmux_keys t
    wait_for_text " appt  $(day_label 0)  (today)" || return
    quit_ok
}

sees_other_process() {
    start_and_wait || return
    wait_for_text "$STATUS_KEYS" || return
    run_appt --db "$T/db.sqlite3" add "From elsewhere" --at "today 16:00"
    check_status 0 "add from another process"
    wait_for_text "16:00-17:00  From elsewhere" 3 || return
    run_appt --db "$T/db.sqlite3" cancel "${OUT:6:6}"
    check_status 0 "cancel from another process"
    wait_for_text "From elsewhere  (cancelled)" 3 || return
    quit_ok
}

survives_resize() {
    add_today "Resize me" 10:00
    start_and_wait || return
    wait_for_text "Resize me" || return
    local size
    for size in "20 5" "10 3" "200 60" "1 1" "100 30"; do
        tm resize-window -x "${size% *}" -y "${size#* }"
        # wait until the pane has the new size, then make sure the app is alive
        local deadline=$(($(now_us) + 3000000))
        while [[ $(pane_field '#{pane_width} #{pane_height}') != "$size" ]]; do
            (($(now_us) > deadline)) && { fail "pane never became $size"; break; }
            sleep 0.02
        done
        pane_alive || { fail "app died after resizing to $size:
$(tmux_screen)"; return; }
    done
    wait_for_line 1 " appt  $(day_label 0)  (today)" || return
    wait_for_agenda_row 1 "10:00-11:00  Resize me" || return
    wait_for_line 30 "$STATUS_KEYS" || return
    # a burst of resizes with no waiting in between
    local i
    for i in 1 2 3 4 5 6 7 8; do
        tm resize-window -x $((10 + i * 9)) -y $((3 + i * 3))
    done
    tm resize-window -x 100 -y 30
    pane_alive || { fail "app died during a burst of resizes"; return; }
    # frames from the intermediate sizes may still be on screen: wait for the
    # full-size layout (status line on the 30th row, header on the first)
    wait_for_line 30 "$STATUS_KEYS" || return
    wait_for_line 1 " appt  $(day_label 0)  (today)" || return
    pane_alive || fail "app died after the burst of resizes"
    # still responsive
    tmux_keys l
    wait_for_text " appt  $(day_label 1)" || return
    quit_ok
}

escaped_title() {
    add_today $'\e]0;pwned\a\e[2J evil' 10:00
    add_today "Below" 11:00
    start_and_wait || return
    local title_before
    title_before=$(pane_field '#{pane_title}')
    wait_for_text '10:00-11:00  ^[]0;pwned^G^[[2J evil' || return
    wait_for_text "11:00-12:00  Below" || return
    check_eq "$title_before" "$(pane_field '#{pane_title}')" "pane title unchanged"
    check_not_contains "$(pane_field '#{pane_title}')" "pwned" "pane title"
    check_contains "$(screen_line 1)" "(today)" "screen not cleared by the title"
    quit_ok
}

# cjk_layout_check: reads a 40-column screen on stdin; silent when the layout is right.
cjk_layout_check() {
    python3 -c '
import sys, unicodedata
def width(s):
    return sum(2 if unicodedata.east_asian_width(c) in "WF" else 1 for c in s)
rows = [l.rstrip() for l in sys.stdin.read().split("\n")]
bad = [(width(r), r) for r in rows if width(r) > 40]
assert not bad, f"rows wider than the 40-column window: {bad}"
cjk = [r for r in rows if r.startswith("  10:00-11:00  ")]
asc = [r for r in rows if r.startswith("  11:00-12:00  ")]
assert cjk and asc, rows
assert cjk[0].endswith("…") and asc[0].endswith("…"), (cjk, asc)
assert width(cjk[0]) == width(asc[0]), f"truncated rows end at different columns: {width(cjk[0])} vs {width(asc[0])}: {cjk[0]!r} {asc[0]!r}"
'
}

cjk_alignment() {
    add_today "会議の予定" 09:00
    add_today "会議の予定会議の予定会議の予定会議の予定" 10:00
    add_today "Plain meeting title that is long" 11:00
    start_and_wait || return
    wait_for_text "09:00-10:00  会議の予定" || return
    # at 100 columns the month panel takes the first 24 columns; the agenda starts after it
    check_eq "│  09:00-10:00  会議の予定" "$(agenda_row 1)" "CJK row"
    check_contains "$(agenda_row 3)" "  11:00-12:00  Plain meeting" "the row after a wide one"
    wait_for_line 30 "$STATUS_KEYS" || return
    # narrow window: both long titles are cut at the same column, no overflow
    tm resize-window -x 40 -y 10
    wait_for_text "…" || return
    # the frame may still be arriving: retry the layout check for up to 3 s
    local deadline=$(($(now_us) + 3000000)) verdict
    while :; do
        verdict=$(tmux_screen | cjk_layout_check 2>&1) && break
        (($(now_us) > deadline)) && break
        sleep 0.05
    done
    [[ -z $verdict ]] || fail "CJK alignment in a 40-column window: $verdict
$(tmux_screen)"
    tm resize-window -x 100 -y 30
    wait_for_text "会議の予定会議の予定会議の予定会議の予定" || return
    quit_ok
}

edit_via_form() {
    add_today "Dentist" 10:00
    start_and_wait || return
    wait_for_text "10:00-11:00  Dentist" || return
    tmux_keys e
    wait_for_text "Edit appointment" || return
    tmux_keys C-u
    tmux_type "Orthodontist"
    tmux_keys Tab C-w
    tmux_type "14:15"
    tmux_keys Enter
    wait_for_text "14:15-15:15  Orthodontist" || return
    run_appt --db "$T/db.sqlite3" list
    check_contains "$OUT" "14:15-15:15  Orthodontist" "the edit is in the file"
    quit_ok
}

cancel_then_undo() {
    add_today "Dentist" 10:00
    start_and_wait || return
    wait_for_text "10:00-11:00  Dentist" || return
    tmux_keys c
    wait_for_text "(y/n)" || return
    tmux_keys y
    wait_for_text "Dentist  (cancelled)" || return
    tmux_keys u
    wait_for_text "Undid: cancelled" || return
    check_not_contains "$(tmux_screen)" "(cancelled)" "undo restored it on screen"
    run_appt --db "$T/db.sqlite3" --json list --all --include-cancelled
    check_contains "$OUT" '"status":"scheduled"' "undo restored it in the file"
    quit_ok
}

delete_then_undo() {
    add_today "Dentist" 10:00 --note "keep me"
    start_and_wait || return
    wait_for_text "10:00-11:00  Dentist" || return
    tmux_keys D
    wait_for_text "for good? (y/n)" || return
    tmux_keys y
    wait_for_text "Nothing on this day" || return
    run_appt --db "$T/db.sqlite3" list --all --include-cancelled
    check_eq "" "$OUT" "deleted from the file"
    tmux_keys u
    wait_for_text "10:00-11:00  Dentist" || return
    run_appt --db "$T/db.sqlite3" --json list --all
    check_contains "$OUT" '"note":"keep me"' "undo put it back whole"
    quit_ok
}

search_filters_live() {
    add_today "Dentist" 10:00
    add_today "Lunch with Sam" 12:00
    start_and_wait || return
    wait_for_text "12:00-13:00  Lunch with Sam" || return
    tmux_keys /
    tmux_type "lun"
    wait_for_no_text "Dentist" || return
    check_contains "$(tmux_screen)" "Lunch with Sam" "the match stays"
    tmux_keys Enter
    wait_for_text "filter: lun" || return
    tmux_keys Escape
    wait_for_text "10:00-11:00  Dentist" || return
    quit_ok
}

help_overlay() {
    start_and_wait || return
    tmux_keys '?'
    wait_for_text "undo the last add, edit, cancel, restore or delete" || return
    check_contains "$(tmux_screen)" "show or hide cancelled appointments"
    tmux_keys x
    wait_for_no_text "show or hide cancelled appointments" || return
    quit_ok
}

command_line() {
    start_and_wait || return
    tmux_keys :
    tmux_type "add Standup --at 09:00 --for 15m"
    tmux_keys Enter
    wait_for_text "09:00-09:15  Standup" || return
    check_contains "$(screen_line 30)" "added" "the command's output on the status line"
    tmux_keys :
    tmux_type "frobnicate"
    tmux_keys Enter
    wait_for_text 'unknown command "frobnicate"' || return
    quit_ok
}

dumb_terminal_exits_2() {
    # stderr goes to a file: tmux may drop what a pane prints just before it dies.
    tmux_start sh -c 'TERM=dumb "$1" --db "$2" 2>"$3"' sh "$APPT" "$T/db.sqlite3" "$T/dumb.err" || return
    wait_for_exit || return
    check_eq 2 "$PANE_STATUS" "exit status on TERM=dumb"
    check_contains "$(cat "$T/dumb.err")" "TERM=dumb cannot show the full-screen UI" "the message says why"
    [[ ! -e $T/db.sqlite3 ]] || fail "the database was touched before the terminal check"
}

remaining_keys() {
    add_today "First" 08:00
    add_today "Middle" 12:00
    add_today "Last" 18:00
    start_and_wait || return
    wait_for_text "18:00-19:00  Last" || return
    tmux_keys G c
    wait_for_text 'Cancel "Last"' || return
    tmux_keys n g c
    wait_for_text 'Cancel "First"' || return
    tmux_keys y
    wait_for_text "First  (cancelled)" || return
    tmux_keys v
    wait_for_no_text "First" || return
    wait_for_text "cancelled hidden" || return
    tmux_keys v
    wait_for_text "First  (cancelled)" || return
    tmux_keys g r
    wait_for_text 'Restored "First"' || return
    check_not_contains "$(tmux_screen)" "(cancelled)" "r restored it"
    tmux_keys NPage
    wait_for_text " appt  $(day_label 7)" || return
    tmux_keys PPage PPage
    wait_for_text " appt  $(day_label -7)" || return
    tmux_keys t
    wait_for_text " appt  $(day_label 0)  (today)" || return
    quit_ok
    run_appt --db "$T/db.sqlite3" --json list --include-cancelled
    check_not_contains "$OUT" '"status":"cancelled"' "nothing left cancelled in the file"
}

# Midnight passes under a running calendar (its clock started at 23:59:55 by APPT_NOW, the
# scripts' today): the calendar, open on today, turns to the new day, whose now marker reads
# 00:00 above its first appointment; a day the user moves to is not "(today)".
midnight_passes() {
    local day
    day=$(e2e_date 0)
    e2e_set_now "${day}T23:59:55" || return
    add_today "Late call" 23:00 --for 30m
    run_appt --db "$T/db.sqlite3" add "Breakfast" --at "tomorrow 08:00"
    start_and_wait || return
    wait_for_text "── now 23:59 " || return
    check_contains "$(agenda_row 1)" "23:00-23:30  Late call" "the evening's appointment"
    # the clock ticks on the minute: at midnight a calendar left on today turns to the new day
    wait_for_text " appt  $(day_label 1)  (today)" 20 || return
    wait_for_text "── now 00:00 " || return
    wait_for_agenda_row 1 "08:00-09:00  Breakfast" || return
    local screen marker first
    screen=$(tmux_screen)
    marker=$(grep -n -m1 '── now 00:00' <<<"$screen" | cut -d: -f1)
    first=$(grep -n -m1 'Breakfast' <<<"$screen" | cut -d: -f1)
    ((marker < first)) || fail "the now marker (line $marker) is not above the first appointment (line $first)"
    # the day that ended is one h away, and no longer "(today)"
    tmux_keys h
    wait_for_text " appt  $(day_label 0)" || return
    check_not_contains "$(screen_line 1)" "(today)" "yesterday is not today"
    quit_ok
}

# e and c on an occurrence of a series ask which (o this one, f this and following, s the
# whole series); editing one makes a changed occurrence (marked ✎), undo gives it back.
occurrence_asks_which() {
    add_today "Standup" 09:00 --for 15m --repeat daily --count 5
    start_and_wait || return
    wait_for_text "09:00-09:15  Standup ↻" || return
    tmux_keys e
    wait_for_text "o this occurrence, f this and following, s the whole series" || return
    tmux_keys o
    wait_for_text "Edit this occurrence" || return
    tmux_keys C-u
    tmux_type "Standup (moved)"
    tmux_keys Enter
    wait_for_text "Standup (moved) ✎" || return
    run_appt --db "$T/db.sqlite3" --json list --all
    check_contains "$OUT" '"recurrence_id":' "an override in the file"
    tmux_keys u
    wait_for_text "Undid: changes to an occurrence" || return
    wait_for_text "09:00-09:15  Standup ↻" || return
    tmux_keys c
    wait_for_text 'Cancel "Standup": o this occurrence' || return
    tmux_keys s
    wait_for_text "Standup ↻  (cancelled)" || return
    run_appt --db "$T/db.sqlite3" --json list --all --include-cancelled
    check_contains "$OUT" '"status":"cancelled"' "the whole series cancelled"
    quit_ok
}

# w shows the week (seven columns from Monday, the default week_start) and w again the day;
# A the agenda (a heading per day with appointments) and A again the day.
week_and_agenda_views() {
    add_today "Dentist" 10:00
    start_and_wait || return
    wait_for_text "10:00-11:00  Dentist" || return
    tmux_keys w
    wait_for_text "  (today)  week" || return
    wait_for_line 2 "       Mon " || return
    check_contains "$(tmux_screen)" "┆Dentist" "the appointment in its column"
    tmux_keys w
    wait_for_no_text "  (today)  week" || return
    wait_for_text "10:00-11:00  Dentist" || return
    tmux_keys A
    wait_for_text "  (today)  agenda" || return
    wait_for_text " $(day_label 0)  (today)" || return
    wait_for_text "  10:00-11:00  Dentist" || return
    tmux_keys e
    wait_for_text "Edit appointment" || return
    tmux_keys Escape A
    wait_for_no_text "  (today)  agenda" || return
    quit_ok
}

for s in starts_with_header_and_status shows_preadded add_via_form form_escape_discards \
    cancel_yes cancel_no jk_selects typeahead_after_day_change quit_with_q quit_with_ctrl_c day_navigation \
    sees_other_process survives_resize escaped_title cjk_alignment edit_via_form cancel_then_undo \
    delete_then_undo search_filters_live help_overlay command_line dumb_terminal_exits_2 remaining_keys \
    midnight_passes occurrence_asks_which week_and_agenda_views; do
    run_scenario "$s"
done
# ------------------------------------------------------- one door per action

# What the calendar's form adds is what `appt add` adds from the same fields: `--json show`
# of the two differs only in the id and the created/updated stamps, in a zone that is not
# UTC (the form stored time_zone "" where `appt add` stored the zone).
form_add_is_the_cli_add() {
    tmux_start env TZ=Europe/Berlin "$APPT" --db "$T/db.sqlite3" || return
    wait_for_text "$STATUS_KEYS" || return
    tmux_keys a
    wait_for_text "New appointment" || return
    tmux_type "Dentist"
    tmux_keys Tab C-u
    tmux_type "2026-12-24 10:00"
    tmux_keys Tab C-u
    tmux_type "45m"
    tmux_keys Tab
    tmux_type "Room 4"
    tmux_keys Tab
    tmux_type "bring the x-rays"
    wait_for_text "bring the x-rays" || return
    tmux_keys Enter
    wait_for_no_text "New appointment" || return
    quit_ok
    TZ=Europe/Berlin run_appt --db "$T/db.sqlite3" add Dentist --at "2026-12-24 10:00" --for 45m \
        --location "Room 4" --note "bring the x-rays"
    check_status 0 "appt add"
    TZ=Europe/Berlin run_appt --db "$T/db.sqlite3" --json list --all
    check_status 0 "list --all"
    local ids id shown=()
    ids=$(printf '%s\n' "$OUT" | python3 -c 'import json, sys; [print(json.loads(l)["id"]) for l in sys.stdin]')
    check_eq 2 "$(printf '%s\n' "$ids" | grep -c .)" "two appointments"
    for id in $ids; do
        TZ=Europe/Berlin run_appt --db "$T/db.sqlite3" --json show "$id"
        check_status 0 "show $id"
        shown+=("$(printf '%s\n' "$OUT" | python3 -c '
import json, sys
o = json.loads(sys.stdin.read())
for k in ("id", "uid", "created", "updated"): o.pop(k)
print(json.dumps(o, sort_keys=True, ensure_ascii=False))')")
    done
    check_eq "${shown[0]}" "${shown[1]}" "the form's add and appt add store the same"
    check_contains "${shown[0]}" '"time_zone": "Europe/Berlin"' "in the zone it was entered in"
}

run_scenario form_add_is_the_cli_add

# ----------------------------------------------------------------- reminders

# A reminder comes due while the calendar runs (APPT_NOW puts the clock 8 s before it): the
# row carries the bell marker, the status line says so with one bell (tmux sets the window's
# bell flag, the session being detached), z snoozes it 5 minutes, another key dismisses it.
# The VALARM comes in by import, as a peer's would.
reminder_rings() {
    local day compact
    day=$(e2e_date 0)
    compact=${day//-/}
    e2e_set_now "${day}T08:44:52" || return
    printf '%s\r\n' BEGIN:VCALENDAR VERSION:2.0 "PRODID:-//appt e2e//EN" BEGIN:VEVENT \
        UID:standup-e2e@example.com DTSTAMP:20260101T000000Z "DTSTART:${compact}T090000" \
        "DTEND:${compact}T093000" SUMMARY:Standup BEGIN:VALARM ACTION:DISPLAY DESCRIPTION:Standup \
        TRIGGER:-PT15M END:VALARM END:VEVENT END:VCALENDAR >"$T/standup.ics"
    run_appt --db "$T/db.sqlite3" import "$T/standup.ics"
    check_status 0 "import" || return
    start_and_wait || return
    wait_for_text "09:00-09:30  Standup 🔔" || return
    check_eq 0 "$(pane_field '#{window_bell_flag}')" "no bell before the alarm"
    wait_for_text "🔔 09:00 Standup in 15 min  z snooze" 20 || return
    check_eq 1 "$(pane_field '#{window_bell_flag}')" "the bell rang"
    tmux_keys z
    wait_for_text "Snoozed \"Standup\" until 08:50" || return
    check_not_contains "$(screen_line 30)" "🔔" "snoozed: off the status line"
    pane_alive || fail "z ended the calendar"
    quit_ok
}

run_scenario reminder_rings

# ------------------------------------------- paste, signals and a huge note

# tmux_paste TEXT: paste TEXT as a terminal does (bracketed when the app asked for it).
tmux_paste() {
    tm set-buffer -b appt-e2e -- "$1" && tm paste-buffer -p -b appt-e2e
}

bracketed_paste() {
    add_today "Dentist" 09:00
    start_and_wait || return
    wait_for_text "09:00-10:00  Dentist" || return
    tmux_paste "Dq"   # while browsing: neither D (delete) nor q (quit) runs
    wait_for_text "Pasting does nothing here" || return
    pane_alive || fail "a pasted q quit the calendar"
    check_not_contains "$(tmux_screen)" "for good? (y/n)" "a pasted D asked to delete"
    tmux_keys a
    wait_for_text "New appointment" || return
    tmux_paste $'Lunch\nwith Ana'   # one edit; a line break is a space in the Title
    wait_for_text "Lunch with Ana" || return
    tmux_keys Tab C-e
    tmux_type "12:30"
    tmux_keys Enter
    wait_for_text "12:30-13:30  Lunch with Ana" || return
    quit_ok
}

# huge_note: a 20 MB note, stored past appt's checks, on today's appointment.
huge_note() {
    add_today "Dentist" 09:00
    sql "$T/db.sqlite3" "UPDATE appointment SET note = hex(zeroblob(10485760))"
}

huge_note_then_sigterm() {
    huge_note
    start_and_wait || return
    wait_for_text "09:00-10:00  Dentist" || return
    tmux_keys e
    wait_for_text "The note is longer than 10000 characters" || return
    kill -TERM "$(pane_field '#{pane_pid}')"
    wait_for_exit || return
    check_eq 0 "$PANE_STATUS" "exit status after SIGTERM"
    check_not_contains "$(tmux_screen)" "Edit appointment" "the terminal is restored"
}

huge_note_then_hangup() {
    huge_note
    start_and_wait || return
    wait_for_text "09:00-10:00  Dentist" || return
    tmux_keys e
    wait_for_text "The note is longer than 10000 characters" || return
    local pid i
    pid=$(pane_field '#{pane_pid}')
    tm kill-server   # the terminal goes away: SIGHUP, then EIO on reads
    for ((i = 0; i < 250; i++)); do
        kill -0 "$pid" 2>/dev/null || return 0
        sleep 0.02
    done
    fail "appt $pid still runs 5 s after its terminal went away"
    kill -KILL "$pid" 2>/dev/null
}

for s in bracketed_paste huge_note_then_sigterm huge_note_then_hangup; do
    run_scenario "$s"
done
e2e_finish "e2e tui"
