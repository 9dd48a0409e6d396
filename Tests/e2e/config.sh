#!/usr/bin/env bash
# End-to-end scenarios for the settings file and `appt config`.
# usage: Tests/e2e/config.sh [PATH_TO_APPT]
set -u
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
e2e_init "${1:-}"

DB=db.sqlite3   # relative to the scenario's temp dir (the working directory)

# write_config TEXT: the scenario's default settings file ($XDG_CONFIG_HOME/appt/config).
write_config() {
    mkdir -p "$XDG_CONFIG_HOME/appt"
    printf '%s\n' "$1" >"$XDG_CONFIG_HOME/appt/config"
}

# json_field KEY: KEY of the first JSON line of $OUT.
json_field() {
    printf '%s\n' "$OUT" | python3 -c 'import sys, json; print(json.loads(sys.stdin.readline())[sys.argv[1]])' "$1"
}

# ------------------------------------------------------------------ scenarios

no_file_means_defaults() {
    run_appt config
    check_status 0 "config without a file"
    check_contains "$OUT" "# settings file $XDG_CONFIG_HOME/appt/config (the default place; it does not exist"
    check_contains "$OUT" "ui.time_format = 24h"
    check_contains "$OUT" "keys.quit = q ctrl+c"
    run_appt config --path
    check_eq "$XDG_CONFIG_HOME/appt/config" "$OUT" "config --path"
    # No XDG_CONFIG_HOME: ~/.config
    unset XDG_CONFIG_HOME
    run_appt config --path
    check_eq "$HOME/.config/appt/config" "$OUT" "config --path under HOME"
    [[ ! -e $HOME/.config ]] || fail "config created $HOME/.config"
}

a_mistake_starts_nothing() {
    write_config $'[ui]\nweek_strat = sunday\ntime_format = 13h\n[keys]\nsearch = a\n[ui]\ntime_format = 12h'
    local file="$XDG_CONFIG_HOME/appt/config"
    run_appt --db "$T/new/db.sqlite3" add Dentist --at "today 10:00"
    check_status 2 "add with a bad settings file"
    check_eq "" "$OUT" "stdout"
    check_contains "$ERR" "$file:2: unknown key \"week_strat\" in [ui]; did you mean week_start?"
    check_contains "$ERR" "$file:3: time_format cannot be \"13h\"; expected 24h or 12h"
    check_contains "$ERR" "$file:5: key \"a\" is bound to both add_appointment (by default) and search (line 5)"
    check_contains "$ERR" "$file:7: time_format is set twice in [ui] (first at line 3)"
    check_contains "$ERR" "appt: 4 mistakes in the settings file $file; nothing was started"
    [[ ! -e $T/new ]] || fail "a store was created despite the bad settings file"
    # Script mode and config itself: the same.
    run_script "add Dentist --at 'today 10:00'" --db "$T/new/db.sqlite3"
    check_status 2 "script mode with a bad settings file"
    [[ ! -e $T/new ]] || fail "script mode created a store"
    run_appt config
    check_status 2 "config with a bad settings file"
    # The escape hatch the message names.
    run_appt --config /dev/null --db "$T/new/db.sqlite3" list
    check_status 0 "--config /dev/null"
}

a_named_file_must_exist() {
    run_appt --config "$T/nope" --db "$DB" list
    check_status 2 "--config of a missing file"
    check_contains "$ERR" "appt: --config names $T/nope, which does not exist"
    APPT_CONFIG="$T/nope" run_appt --db "$DB" list
    check_status 2 "APPT_CONFIG of a missing file"
    check_contains "$ERR" "appt: APPT_CONFIG names $T/nope, which does not exist"
    run_appt --config "" list
    check_status 2 "--config with an empty path"
    run_appt --config /dev/null --config=/dev/null list
    check_status 2 "--config twice"
    check_contains "$ERR" "--config given more than once"
    mkdir "$T/dir"
    run_appt --config "$T/dir" config
    check_status 2 "--config of a directory"
    check_contains "$ERR" "cannot read the settings file $T/dir: it is a directory"
    [[ ! -e $DB ]] || fail "a store was created"
}

the_flag_beats_the_environment_beats_the_default() {
    write_config $'[ui]\ntime_format = 12h'
    printf '[ui]\ndefault_duration = 20m\n' >"$T/env.conf"
    printf '[ui]\ndefault_duration = 35m\n' >"$T/flag.conf"
    run_appt config
    check_contains "$OUT" "ui.time_format = 12h"
    APPT_CONFIG="$T/env.conf" run_appt config
    check_contains "$OUT" "# settings file $T/env.conf (from APPT_CONFIG)"
    check_contains "$OUT" "ui.default_duration = 20m"
    check_contains "$OUT" "ui.time_format = 24h"
    APPT_CONFIG="$T/env.conf" run_appt --config "$T/flag.conf" config
    check_contains "$OUT" "ui.default_duration = 35m"
    local line
    line=$(grep '^ui.default_duration' <<<"$OUT")
    [[ $line == *"# $T/flag.conf:2" ]] || fail "origin of the flag's value: [$line]"
    APPT_CONFIG="$T/env.conf" run_appt --config "$T/flag.conf" config --path
    check_eq "$T/flag.conf" "$OUT" "config --path follows --config"
}

twelve_hour_times_in_text_not_json() {
    write_config $'[ui]\ntime_format = 12h'
    run_appt --db "$DB" add Dentist --at "2026-12-01 15:00" --for 45m
    check_status 0 "add"
    check_contains "$OUT" "Tue 2026-12-01  3:00pm-3:45pm  Dentist"
    run_appt --db "$DB" list --from 2026-12-01 --days 1
    check_contains "$OUT" "Tue 2026-12-01  3:00pm-3:45pm  Dentist"
    run_appt --db "$DB" --json list --from 2026-12-01 --days 1
    check_contains "$(json_field start)" "2026-12-01T15:00:00"
    # What is printed reads back as a WHEN.
    run_appt --db "$DB" add Tea --at "2026-12-01 4:30pm"
    check_status 0 "add at a 12-hour time"
    check_contains "$OUT" "4:30pm-5:30pm  Tea"
}

default_duration_everywhere() {
    write_config $'[ui]\ndefault_duration = 25m'
    run_appt --db "$DB" --json add Tea --at "2026-12-01 10:00"
    check_status 0 "add"
    check_contains "$(json_field end)" "2026-12-01T10:25:00"
    run_script "add Coffee --at '2026-12-01 11:00'" --db "$DB" --json
    check_contains "$(json_field end)" "2026-12-01T11:25:00"
    run_appt --db "$DB" --json add Lunch --at "2026-12-01 12:00" --for 1h
    check_contains "$(json_field end)" "2026-12-01T13:00:00"
}

# Reminders: default_remind per calendar beats the global one, for one-shot and
# script adds alike; --remind and --no-remind win; config reports it; a mistake is exit 2.
default_reminders_per_calendar() {
    write_config $'[reminders]\ndefault_remind = 15m\n[calendar Work]\ndefault_remind = 10m, 1d'
    run_appt --db "$DB" calendar add work
    run_appt --db "$DB" --json add Tea --at "2026-12-01 10:00"
    check_contains "$OUT" '"reminders":[{"trigger":"15m"' "the global default"
    run_script "add Review --at '2026-12-01 11:00' -c work
add Quiet --at '2026-12-01 12:00' -c work --no-remind
add Own --at '2026-12-01 13:00' -c work --remind 5m --remind 'at 12:00'" --db "$DB" --json
    check_status 0 "the script"
    check_contains "$(sed -n 1p <<<"$OUT")" '"reminders":[{"trigger":"10m","summary":"10 minutes before","action":"DISPLAY","repeat":0,"every":0,"description":"Reminder"},{"trigger":"1d"' "work's default"
    check_contains "$(sed -n 2p <<<"$OUT")" '"reminders":[]' "--no-remind"
    check_contains "$(sed -n 3p <<<"$OUT")" '"reminders":[{"trigger":"5m","summary":"5 minutes before"' "--remind wins"
    run_appt --db "$DB" reminders --from 2026-12-01 --to 2026-12-01 -c work
    # Own's "at 12:00 on its day" sets the column's width.
    check_eq "2026-12-01 10:50  10 minutes before    11:00 Review" "$(sed -n 1p <<<"$OUT" | sed 's/ ([0-9a-f]*)$//')" "reminders lists them"
    check_contains "$OUT" "2026-12-01 12:00  at 12:00 on its day  13:00 Own" "Own's time of day"
    check_eq 3 "$(grep -c . <<<"$OUT")" "10m before Review, 5m and at 12:00 before Own (1d before Review is the day before)"
    run_appt config
    check_contains "$OUT" "calendar.Work.default_remind = 10m, 1d" "config reports the calendar's"
    write_config $'[calendar Work]\ndefault_remind = soon'
    run_appt --db "$DB" add X --at "2026-12-01 10:00"
    check_status 2 "a bad default_remind"
    check_contains "$ERR" "config:2: default_remind: cannot understand \"soon\" as a duration"
}

week_start_counts_weeks_of_a_series() {
    write_config $'[ui]\nweek_start = sunday'
    run_appt --db "$DB" --json add Swim --at "2026-12-06 10:00" --repeat weekly --every 2 --on sun,mon
    check_status 0 "add a series"
    check_eq "FREQ=WEEKLY;INTERVAL=2;BYDAY=MO,SU;WKST=SU" "$(json_field repeat)" "the rule"
    run_appt --db "$DB" list --from 2026-12-06 --days 16
    check_eq 4 "$(grep -c Swim <<<"$OUT")" "occurrences in 16 days"
    check_contains "$OUT" "Mon 2026-12-07"
}

json_report_and_no_password() {
    write_config $'[ui]\ntheme = light\n[account work]\nurl = https://dav.example.com/\nusername = me\npassword_env = WORK_DAV_PASSWORD'
    WORK_DAV_PASSWORD=hunter2-secret run_appt --json config
    check_status 0 "--json config"
    check_not_contains "$OUT" "hunter2" "the password"
    printf '%s\n' "$OUT" | python3 -c '
import sys, json
lines = sys.stdin.read().splitlines()
assert len(lines) == 1, lines
o = json.loads(lines[0])
s = o["settings"]
assert s["ui.theme"] == {"value": "light", "origin": "file", "line": 2}, s["ui.theme"]
assert s["ui.week_start"] == {"value": "monday", "origin": "default"}, s["ui.week_start"]
assert s["account.work.password_env"]["value"] == "WORK_DAV_PASSWORD", s
assert s["colors.accent"]["value"] == "blue", s["colors.accent"]
assert o["exists"] is True and o["chosen_by"] == "default", o
' || fail "config --json: $OUT"
    run_appt config --json
    check_status 0 "config --json"
    check_contains "$OUT" '"ui.theme":{"value":"light","origin":"file","line":2}'
}

the_calendar_follows_the_file() {
    command -v tmux >/dev/null || { fail "tmux is required"; return; }
    write_config $'[ui]\nweek_start = sunday\ntime_format = 12h\n[keys]\nadd_appointment = n\n[colors]\nheader = red on green'
    tmux_start_appt || return
    wait_for_text " appt  $(day_label 0)  (today)" || return
    wait_for_line 3 " Su Mo Tu We Th Fr Sa" || return
    wait_for_text "n add" || return
    tm capture-pane -ep | head -1 | grep -q $'\e\\[31m\e\\[42m appt' ||
        fail "the header is not red on green: $(tm capture-pane -ep | head -1 | cat -v)"
    tmux_keys '?'
    wait_for_text "  n             add an appointment" || return
    tmux_keys Escape
    tmux_keys n
    wait_for_text "New appointment" || return
    tmux_type "Dentist"
    tmux_keys Tab
    tmux_type "4pm"
    tmux_keys Enter
    wait_for_text "4:00pm-5:00pm  Dentist" || return
    tmux_keys q
    wait_for_exit || return
    check_eq 0 "$PANE_STATUS" "exit status"
}

# week_start = sunday: the week view's first column is Sunday's.
the_week_view_starts_on_the_settings_day() {
    command -v tmux >/dev/null || { fail "tmux is required"; return; }
    write_config $'[ui]\nweek_start = sunday'
    tmux_start_appt || return
    wait_for_text " appt  $(day_label 0)  (today)" || return
    tmux_keys w
    wait_for_text "  (today)  week" || return
    wait_for_line 2 "       Sun " || return
    tmux_keys q
    wait_for_exit || return
    check_eq 0 "$PANE_STATUS" "exit status"
}

no_color_still_wins() {
    command -v tmux >/dev/null || { fail "tmux is required"; return; }
    write_config $'[colors]\nheader = red on green'
    tmux_start env NO_COLOR=1 "$APPT" --db "$T/db.sqlite3" || return
    wait_for_text " appt  $(day_label 0)  (today)" || return
    if tm capture-pane -ep | head -1 | grep -q $'\e\\[3[0-7]m'; then
        fail "NO_COLOR: the header has a colour: $(tm capture-pane -ep | head -1 | cat -v)"
    fi
    tmux_keys q
    wait_for_exit
}

a_bad_file_keeps_the_terminal() {
    command -v tmux >/dev/null || { fail "tmux is required"; return; }
    write_config $'[ui]\ntheme = dark'
    # stderr to a file: what a process writes before tmux has sized its pane can be lost.
    tmux_start sh -c 'exec "$0" --db "$1" 2>"$2"' "$APPT" "$T/db.sqlite3" "$T/stderr" || return
    wait_for_exit || return
    check_eq 2 "$PANE_STATUS" "exit status"
    check_contains "$(cat "$T/stderr")" "config:2: theme cannot be \"dark\"; expected default, light or mono"
    check_eq "" "$(tmux_screen | grep -v '^Pane is dead' | tr -d '[:space:]')" "nothing drawn on the terminal"
    [[ ! -e $T/db.sqlite3 ]] || fail "the calendar created its store despite the bad settings file"
}

list_format_week_and_month() {
    write_config $'[ui]\nweek_start = sunday'
    run_appt --db "$DB" calendar add work
    run_appt --db "$DB" add Standup --at "2026-12-06 09:00" --for 15m --location "Room 1" -c work
    run_appt --db "$DB" add Review --at "2026-12-12 14:00"
    run_appt --db "$DB" add Later --at "2026-12-13 14:00"
    # The week from Sunday 6 to Saturday 12 holds the first two (week_start = sunday).
    run_appt --db "$DB" list --week --from 2026-12-09 --format '{start:%a %H:%M}-{end:%R}\t{title}\t{calendar}\t{location}'
    check_status 0 "list --week --format"
    check_eq $'Sun 09:00-09:15\tStandup\twork\tRoom 1\nSat 14:00-15:00\tReview\tpersonal\t' "$OUT" "the lines"
    run_script "list --month --from 2026-12-31 --format '{title} {duration}'" --db "$DB"
    check_eq $'Standup 15m\nReview 1h\nLater 1h' "$OUT" "list --month in a script"
    run_appt --db "$DB" list --format '{titel}'
    check_status 2 "a field that does not exist"
    check_contains "$ERR" "{titel} is not a field appt knows; did you mean {title}?"
    run_appt --db "$DB" --json list --format '{title}'
    check_status 2 "--format with --json"
    check_eq "" "$OUT" "nothing printed"
}

# mouse KIND X Y: a mouse event at column X, row Y (0-based) as an xterm reports it (X10
# encoding, what tmux's TERM announces): a press and release of the first button, or a wheel turn.
mouse() {
    local x y
    x=$(printf '\\x%x' $((33 + $2)))
    y=$(printf '\\x%x' $((33 + $3)))
    case $1 in
    click) tm send-keys -l "$(printf "\e[M %b%b\e[M#%b%b" "$x" "$y" "$x" "$y")" ;;
    wheel-up) tm send-keys -l "$(printf "\e[M\x60%b%b" "$x" "$y")" ;;
    wheel-down) tm send-keys -l "$(printf "\e[Ma%b%b" "$x" "$y")" ;;
    esac
}

# cell_of TEXT: "X Y" of TEXT's first cell on the screen (0-based), for clicking it.
cell_of() {
    tmux_screen | python3 -c 'import sys
text = sys.argv[1]
for y, line in enumerate(sys.stdin.read().split("\n")):
    x = line.find(text)
    if x >= 0:
        print(x, y)
        break' "$1"
}

mouse_clicks_days_and_appointments() {
    command -v tmux >/dev/null || { fail "tmux is required"; return; }
    run_appt --db "$T/db.sqlite3" add First --at "today 10:00"
    run_appt --db "$T/db.sqlite3" add Second --at "today 12:00"
    tmux_start_appt || return
    wait_for_text " appt  $(day_label 0)  (today)" || return
    wait_for_text "12:00-13:00  Second" || return
    # A click on an appointment selects it (the detail pane shows it); the wheel moves up.
    mouse click $(cell_of "12:00-13:00  Second")
    wait_for_text "│ Second" || return
    mouse wheel-up $(cell_of "12:00-13:00  Second")
    wait_for_text "│ First" || return
    check_eq 1 "$(tm display-message -p '#{mouse_any_flag}')" "the calendar asked for mouse events"
    # A click on a day of the month panel shows that day (the 28th: in every month).
    local cell
    cell=$(tmux_screen | python3 -c 'import sys
for y, line in enumerate(sys.stdin.read().split("\n")[:10]):
    x = line[:23].find("28")
    if x >= 0:
        print(x, y)
        break')
    mouse click $cell
    wait_for_text " appt  $(e2e_date "$(( 28 - 10#$(e2e_date 0 +%d) ))" '+%a %-d %b %Y')" || return
    tmux_keys q
    wait_for_exit
}

mouse_clicks_in_the_week_view() {
    command -v tmux >/dev/null || { fail "tmux is required"; return; }
    write_config $'[ui]\nweek_start = monday'
    run_appt --db "$T/db.sqlite3" add First --at "today 10:00"
    run_appt --db "$T/db.sqlite3" add Second --at "today 14:00"
    tmux_start_appt || return
    wait_for_text " appt  $(day_label 0)  (today)" || return
    tmux_keys w
    wait_for_text "  (today)  week" || return
    wait_for_text "10:00-11:00 (1h)" || return
    # A click on a block selects it (the detail pane under the week shows it).
    mouse click $(cell_of "┆Second" | awk '{ print $1 + 1, $2 }')
    wait_for_text "14:00-15:00 (1h)" || return
    # A click on the first day's header shows that day (the week's Monday).
    local monday=$(( 1 - 10#$(e2e_date 0 +%u) ))
    mouse click $(tmux_screen | sed -n 2p | python3 -c 'import sys
line = sys.stdin.read()
print(line.find("Mon") + 1, 1)')
    wait_for_text " appt  $(day_label "$monday")" || return
    tmux_keys q
    wait_for_exit
}

mouse_off_leaves_clicks_to_the_terminal() {
    command -v tmux >/dev/null || { fail "tmux is required"; return; }
    write_config $'[ui]\nmouse = off'
    run_appt --db "$T/db.sqlite3" add First --at "today 10:00"
    run_appt --db "$T/db.sqlite3" add Second --at "today 12:00"
    run_appt --db "$T/db.sqlite3" add Third --at "today 14:00"
    tmux_start_appt || return
    wait_for_text "│ First" || return
    mouse click $(cell_of "14:00-15:00  Third")
    # A key after the click: from First it selects Second; had the click selected Third, it
    # would stay there.
    tmux_keys j
    wait_for_text "│ Second" || return
    check_eq "" "$(tm display-message -p '#{mouse_any_flag}' | tr -d 0)" "the calendar asked for no mouse events"
    tmux_keys q
    wait_for_exit
}

for s in no_file_means_defaults a_mistake_starts_nothing a_named_file_must_exist \
    the_flag_beats_the_environment_beats_the_default twelve_hour_times_in_text_not_json \
    default_duration_everywhere week_start_counts_weeks_of_a_series json_report_and_no_password \
    the_calendar_follows_the_file the_week_view_starts_on_the_settings_day no_color_still_wins \
    a_bad_file_keeps_the_terminal list_format_week_and_month \
    mouse_clicks_days_and_appointments mouse_clicks_in_the_week_view mouse_off_leaves_clicks_to_the_terminal \
    default_reminders_per_calendar; do
    run_scenario "$s"
done
e2e_finish "e2e config"
