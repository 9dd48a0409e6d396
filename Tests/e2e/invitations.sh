#!/usr/bin/env bash
# End-to-end scenarios for iTIP messages read by `import` (RFC 5546's METHOD): real
# invitations, replies and cancellations as Exchange, Google and Thunderbird write them
# (fixtures/itip, origins in its README). A REPLY changes one attendee's answer and never the
# meeting; a CANCEL cancels; COUNTER and DECLINECOUNTER are refused; the same from a script
# and a pipe. Python's icalendar reads what appt exports afterwards, as an independent check.
# Every scenario runs on SQLite and, under Tests/pg/with-server.sh, on PostgreSQL.
# usage: Tests/e2e/invitations.sh [PATH_TO_APPT]
set -u
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
e2e_init "${1:-}"
FIXTURES=$(cd "$(dirname "${BASH_SOURCE[0]}")/fixtures/itip" && pwd)

# ---------------------------------------------------------------- the store of a scenario

# use_store ENGINE: sets STORE (what --db takes) to a new SQLite file in $T or a new
# PostgreSQL database (dropped when the scenario ends, with lib.sh's cleanup after it).
use_store() {
    if [[ $1 == sqlite ]]; then
        STORE=$T/db.sqlite3
        return 0
    fi
    PG_DB="appt_e2e_itip_${BASHPID}_${RANDOM}"
    PGCONNECT_TIMEOUT=10 psql -X -q -At -v ON_ERROR_STOP=1 "$APPT_TEST_PG" -c "CREATE DATABASE \"$PG_DB\"" >/dev/null ||
        { fail "cannot create database $PG_DB"; return 1; }
    trap 'drop_database; e2e_cleanup' EXIT
    STORE=${APPT_TEST_PG%/*}/$PG_DB
}

drop_database() {
    [[ -n ${PG_DB:-} ]] || return 0
    PGCONNECT_TIMEOUT=10 psql -X -q -At "$APPT_TEST_PG" -c "DROP DATABASE IF EXISTS \"$PG_DB\" WITH (FORCE)" >/dev/null 2>&1
}

# a ARGS...: appt on the scenario's store, at a moment before the fixtures' meetings.
a() { APPT_NOW=2015-03-30T12:00 run_appt --db "$STORE" "$@"; }

# export_to FILE: the store's export, written to FILE.
export_to() {
    a export
    printf '%s\n' "$OUT" >"$1"
}

# event_facts FILE UID: what Python's icalendar reads of that event in an exported FILE:
# summary|start|end|location|alarms|status, then one "email PARTSTAT" per attendee.
event_facts() {
    python3 - "$1" "$2" <<'PY'
import sys
from icalendar import Calendar
calendar = Calendar.from_ical(open(sys.argv[1], "rb").read())
for event in calendar.walk("VEVENT"):
    if str(event.get("UID")) != sys.argv[2]:
        continue
    alarms = len(event.walk("VALARM"))
    start = event.decoded("DTSTART").isoformat()
    end = event.decoded("DTEND").isoformat() if "DTEND" in event else "-"
    print("|".join([str(event.get("SUMMARY")), start, end, str(event.get("LOCATION", "-")), str(alarms),
                    str(event.get("STATUS", "-"))]))
    attendees = event.get("ATTENDEE", [])
    if not isinstance(attendees, list):
        attendees = [attendees]
    for attendee in attendees:
        print(str(attendee).lower().removeprefix("mailto:"), attendee.params.get("PARTSTAT", "NEEDS-ACTION"))
PY
}

EXCHANGE_UID=040000008200E00074C5B7101A82E00800000000F9125A30B06BD0010000000000000000100000009D791C7548BFD144BFA54F14213CAD25

# ---------------------------------------------------------------- scenarios

# Exchange's invitation, then Google's reply from one attendee (same UID and SEQUENCE, no
# DTEND, no alarm, a SUMMARY "Accepted: ..."): the meeting keeps its title, times, alarm and
# the other attendee; only the answering attendee's PARTSTAT changes.
reply_changes_only_the_answer() {
    use_store "$1" || return
    a import "$FIXTURES/exchange-request.ics"
    check_status 0 "import of the Exchange invitation"
    export_to "$T/before.ics"
    a import "$FIXTURES/google-reply-to-exchange-request.ics"
    check_status 0 "import of Google's reply"
    check_contains "$OUT" 'answer recorded on "Spot le chien"' "the reply says which meeting"
    check_contains "$OUT" "(1 updated, 0 unchanged)" "the reply's counts"
    export_to "$T/after.ics"
    local before after
    before=$(event_facts "$T/before.ics" "$EXCHANGE_UID")
    after=$(event_facts "$T/after.ics" "$EXCHANGE_UID")
    check_eq "Spot le chien|2015-04-01T16:00:00+02:00|2015-04-01T16:30:00+02:00||1|CONFIRMED
karim@example.com NEEDS-ACTION
test1@example.com NEEDS-ACTION" "$before" "the invitation as icalendar reads appt's export"
    check_eq "${before/karim@example.com NEEDS-ACTION/karim@example.com ACCEPTED}" "$after" \
        "after the reply: only karim's answer changed"
    a --json list --from 2015-04-01 --days 1
    check_contains "$OUT" '"title":"Spot le chien"' "the meeting is listed with its title"
    # The same reply again changes nothing and says why.
    a import "$FIXTURES/google-reply-to-exchange-request.ics"
    check_status 0 "the reply again"
    check_contains "$OUT" "(0 updated, 1 unchanged)" "the reply again: unchanged"
    check_contains "$ERR" "note: UID $EXCHANGE_UID: the reply's answer is stored already" "the reply again: why"
}

# Attendees are shown: show, JSON and --format give the organizer and every attendee's
# answer; with [mail] addresses, list and show give the user's own answer, which a reply
# from that attendee changes.
attendees_are_shown() {
    use_store "$1" || return
    a import "$FIXTURES/exchange-request.ics"
    check_status 0 "import of the Exchange invitation"
    local id
    id=$("$APPT" --db "$STORE" --json list --from 2015-04-01 --days 1 | python3 -c 'import json,sys; print(json.loads(sys.stdin.readline())["id"])')
    a show "$id"
    check_contains "$OUT" "organizer: Inbox Apptest2 <test2@example.com>" "show: the organizer"
    check_contains "$OUT" "attendee: Karim Hamidou <karim@example.com> (required, needs action, answer asked)" "show: an attendee"
    check_not_contains "$OUT" "your answer" "no answer of the user's without [mail] addresses"
    a --json show "$id"
    check_contains "$OUT" '"organizer":{"name":"Inbox Apptest2","email":"test2@example.com"}' "JSON: the organizer"
    check_contains "$OUT" '"attendees":[{"name":"Karim Hamidou","email":"karim@example.com","role":"REQ-PARTICIPANT","status":"NEEDS-ACTION","rsvp":true}' "JSON: the attendees"
    check_contains "$OUT" "\"uid\":\"$EXCHANGE_UID\"" "JSON: the UID"
    printf '[mail]\naddresses = Karim@Example.com\n' >"$T/mail.conf"
    APPT_NOW=2015-03-30T12:00 run_appt --db "$STORE" --config "$T/mail.conf" list --from 2015-04-01 --days 1
    check_contains "$OUT" "Spot le chien  [needs action]" "list: the user's answer"
    APPT_NOW=2015-03-30T12:00 run_appt --db "$STORE" --config "$T/mail.conf" list --from 2015-04-01 --days 1 \
        --format '{answer}|{organizer}|{attendees}'
    check_eq "needs action|Inbox Apptest2 <test2@example.com>|Karim Hamidou <karim@example.com>, test1@example.com <test1@example.com>" \
        "$OUT" "--format's fields"
    a import "$FIXTURES/google-reply-to-exchange-request.ics"
    check_contains "$OUT" "(1 updated, 0 unchanged)" "the reply is applied: $ERR"
    APPT_NOW=2015-03-30T12:00 run_appt --db "$STORE" --config "$T/mail.conf" show "$id"
    check_contains "$OUT" "your answer: accepted" "show: the user's answer, after the reply"
}

# A reply for a meeting appt does not hold is refused: it creates nothing.
reply_for_an_unknown_meeting_is_refused() {
    use_store "$1" || return
    a import "$FIXTURES/google-reply.ics"
    check_status 1 "a reply for an unknown meeting"
    check_contains "$ERR" "google-reply.ics: a reply for UID cccc@nylas.com, which is in none of your calendars: nothing changed" \
        "the refusal names the file and the UID"
    a --json list --all --include-cancelled
    check_eq "" "$OUT" "nothing was stored"
}

# Google's cancellation (SEQUENCE 1) of its invitation cancels it; Thunderbird's cancel of a
# whole daily series (no DTSTART) cancels the series.
cancel_cancels() {
    use_store "$1" || return
    a import "$FIXTURES/google-request.ics"
    a import "$FIXTURES/thunderbird-recurring-request.ics"
    a import "$FIXTURES/google-cancel.ics"
    check_status 0 "Google's cancel"
    check_contains "$OUT" 'cancelled "Buffalo Buffalo"' "Google's cancel says what it cancelled"
    a import "$FIXTURES/thunderbird-recurring-cancel.ics"
    check_status 0 "Thunderbird's cancel"
    a --json list --all --include-cancelled
    check_contains "$OUT" '"title":"Buffalo Buffalo"' "the cancelled meeting is kept"
    local statuses
    statuses=$(python3 -c '
import json, sys
print(" ".join(sorted(o["title"] + "=" + o["status"] for o in map(json.loads, sys.stdin))))' <<<"$OUT")
    check_eq "Buffalo Buffalo=cancelled Repeat Event=cancelled" "$statuses" "both are cancelled"
    export_to "$T/after.ics"
    check_eq "CANCELLED" "$(event_facts "$T/after.ics" c74p2nmutcd0kt69ku7rs8vu2g@google.com | head -1 | cut -d'|' -f6)" \
        "icalendar reads STATUS:CANCELLED in the export"
}

# COUNTER and DECLINECOUNTER are not applied: refused, naming the METHOD, nothing stored.
counter_is_refused() {
    use_store "$1" || return
    a import "$FIXTURES/rfc2446-counter-request.ics"
    export_to "$T/before.ics"
    local method
    for method in counter declinecounter; do
        a import "$FIXTURES/rfc2446-$method.ics"
        check_status 1 "import of a ${method^^}"
        check_contains "$ERR" "METHOD:${method^^} is not something appt applies" "the refusal names the METHOD"
    done
    export_to "$T/after.ics"
    check_eq "$(grep -v '^DTSTAMP' "$T/before.ics")" "$(grep -v '^DTSTAMP' "$T/after.ics")" "the store is as it was"
}

# The same import from a script on stdin and from a pipe.
messages_from_a_script_and_a_pipe() {
    use_store "$1" || return
    printf 'import %s\nimport %s\n' "$FIXTURES/exchange-request.ics" "$FIXTURES/google-reply-to-exchange-request.ics" >"$T/plan"
    APPT_NOW=2015-03-30T12:00 run_appt --db "$STORE" <"$T/plan"
    check_status 0 "the script"
    check_contains "$OUT" 'answer recorded on "Spot le chien"' "the script applied the reply"
    a import /dev/stdin <"$FIXTURES/google-reply-to-exchange-request.ics"
    check_status 0 "the reply from a pipe"
    check_contains "$OUT" "(0 updated, 1 unchanged)" "the reply from a pipe finds it applied"
    a --json import "$FIXTURES/google-reply-to-exchange-request.ics"
    check_contains "$OUT" '"method":"REPLY"' "JSON names the METHOD"
    check_contains "$OUT" '"unchanged":1' "JSON counts it unchanged"
}

engines=(sqlite)
[[ -n ${APPT_TEST_PG:-} ]] && engines+=(postgres)
for engine in "${engines[@]}"; do
    for s in reply_changes_only_the_answer reply_for_an_unknown_meeting_is_refused cancel_cancels counter_is_refused \
        messages_from_a_script_and_a_pipe attendees_are_shown; do
        eval "${s}_$engine() { $s $engine; }"
        run_scenario "${s}_$engine"
    done
done
e2e_finish "e2e invitations"
