#!/usr/bin/env bash
# iCalendar interop, end to end, against real clients: appt's own round trip, Python's
# `icalendar` library (pip) both ways, calcurse (Debian package) both ways, a malformed file,
# re-imports, and a first check (a weekly series across a DST change).
# Installs icalendar and calcurse first if they are missing.
# usage: Tests/e2e/interop.sh [PATH_TO_APPT]
set -u
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
e2e_init "${1:-}"
FIXTURES="$E2E_DIR/fixtures"

# ------------------------------------------------------------------ tools

if ! python3 -c 'import icalendar' 2>/dev/null; then
    echo "e2e interop: installing Python icalendar" >&2
    python3 -m pip install --quiet icalendar 2>/dev/null ||
        python3 -m pip install --quiet --break-system-packages icalendar >&2
fi
if ! command -v calcurse >/dev/null; then
    echo "e2e interop: installing calcurse" >&2
    sudo=""
    [[ $(id -u) -eq 0 ]] || sudo="sudo"
    $sudo apt-get update -qq >&2 &&
        DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends calcurse >&2
fi
python3 -c 'import icalendar' 2>/dev/null || { echo "e2e interop: Python icalendar is missing" >&2; exit 2; }
command -v calcurse >/dev/null || { echo "e2e interop: calcurse is missing" >&2; exit 2; }

# ------------------------------------------------------------------ helpers

# populate DB: a varied calendar entered through appt itself (in the scenario's TZ): commas,
# semicolons, backslashes, emoji and a long title; multi-line notes; whole days (one and
# several); weekly/monthly/daily/yearly series with BYDAY, COUNT, UNTIL and INTERVAL; a
# cancelled one-off and a cancelled occurrence.
populate() {
    run_script 'add "Dentist, Dr. Who; room 5" --at "2027-02-01 10:00" --for 45m --note "Bring the card, and the form; back\slash"
add "Standup" --at "2027-02-01 09:00" --for 30m --repeat weekly --on mon,wed --until-date 2027-05-01
add "Holiday 🏖️ at the sea with a title long enough to be folded more than once, sûrement" --at 2027-02-10 --for 3d
add "Cancelled lunch" --at "2027-02-03 12:00" --for 1h30m
add "Birthday" --at 2027-03-05 --repeat yearly
add "Run" --at "2027-02-02 18:00" --for 1h --repeat daily --every 3 --count 20
add "Late show" --at "2027-02-05 23:00" --until "2027-02-06 01:30"' --db "$1"
    check_status 0 "populate $1"
    # A note of several lines cannot be typed on one script line: one-shot.
    run_appt --db "$1" add "Monthly review" --at "2027-01-31 16:00" --repeat monthly --count 6 \
        --note $'first line\nsecond line, with; punctuation'
    check_status 0 "add the monthly review"
    local id
    id=$(ids_titled "$1" "Cancelled lunch")
    run_appt --db "$1" cancel "$id"
    check_status 0 "cancel the lunch"
    id=$(ids_titled "$1" "Standup")
    run_appt --db "$1" cancel "$id" --occurrence 2027-03-15
    check_status 0 "cancel one standup"
}

# ids_titled DB TITLE: the id of the appointment with that title.
ids_titled() {
    "$APPT" --db "$1" --json list --all --include-cancelled |
        python3 -c 'import sys, json
for l in sys.stdin:
    o = json.loads(l)
    if o["title"] == sys.argv[1]: print(o["id"])' "$2"
}

# appointments DB [LIST ARGS...]: the JSON lines of `list --all --include-cancelled` (or of the
# given list options) without id, created, updated and revision (bookkeeping of this file, not
# what a calendar says), one per line, sorted.
appointments() {
    local db=$1
    shift
    [[ $# -gt 0 ]] || set -- --all --include-cancelled
    "$APPT" --db "$db" --json list "$@" | python3 -c 'import sys, json
rows = []
for l in sys.stdin:
    o = json.loads(l)
    for k in ("id", "created", "updated", "revision"): o.pop(k, None)
    rows.append(json.dumps(o, sort_keys=True, ensure_ascii=False))
print("\n".join(sorted(rows)))'
}

# same_appointments WHAT DB1 DB2 [LIST ARGS...]
same_appointments() {
    local what=$1 a b
    shift
    a=$(appointments "$1" "${@:3}")
    b=$(appointments "$2" "${@:3}")
    [[ -n $a ]] || fail "$what: nothing listed"
    [[ "$a" == "$b" ]] || fail "$what differ:
$(diff <(printf '%s\n' "$a") <(printf '%s\n' "$b") | sed 's/^/      /')"
}

# ------------------------------------------------------------------ scenarios

# (a) appt -> .ics -> a fresh appt gives the same appointments, series, zones and cancellations.
appt_round_trip() {
    export TZ=America/New_York
    populate one.db
    run_appt --db one.db import "$FIXTURES/zones.ics"
    check_status 0 "import the zones fixture"
    run_appt --db one.db export out.ics
    check_status 0 "export to a file"
    check_eq "exported 13 appointments to out.ics" "$OUT" "export message"
    check_eq 600 "$(stat -c %a out.ics)" "export file mode"
    run_appt --db one.db export
    check_eq "$(tr -d '\r' <out.ics)" "$(printf '%s' "$OUT" | tr -d '\r')" "export to stdout = export to a file"
    check_eq 0 "$(grep -c $'[^\r]$' out.ics)" "every line ends in CRLF"
    check_eq 0 "$(LC_ALL=C awk '{ if (length($0) > 76) n++ } END { print n + 0 }' out.ics)" "lines over 75 octets"
    run_appt --db two.db import out.ics
    check_status 0 "import the export"
    check_eq "imported 13 appointments (13 added, 0 updated) from out.ics" "$OUT" "import message"
    same_appointments "stored appointments" one.db two.db
    same_appointments "occurrences in 2027" one.db two.db --from 2027-01-01 --to 2027-12-31 --include-cancelled
    # A range: only what reaches February 2027 (series whose span reaches it included).
    run_appt --db one.db export --from 2027-02-10 --to 2027-02-11 feb.ics
    check_status 0 "export a range"
    check_contains "$(tr -d '\r' <feb.ics)" "SUMMARY:Holiday" "range export"
    check_contains "$(tr -d '\r' <feb.ics)" "SUMMARY:Standup" "range export keeps a series reaching it"
    check_not_contains "$(tr -d '\r' <feb.ics)" "SUMMARY:Cancelled lunch" "range export"
    run_appt --db one.db export --from 2027-03-01 --to 2027-02-01 x.ics
    check_status 1 "a reversed range"
    check_contains "$ERR" "reversed range" "reversed range message"
    [[ ! -e x.ics ]] || fail "a refused export wrote a file"
}

# (b) Python's icalendar reads our export with the same events, and dateutil expands our
# series to the same occurrences appt lists.
python_reads_export() {
    export TZ=America/New_York
    populate db
    run_appt --db db import "$FIXTURES/zones.ics"
    run_appt --db db export out.ics
    check_status 0 "export"
    "$APPT" --db db --json list --all --include-cancelled >stored.jsonl
    "$APPT" --db db --json list --from 2027-01-01 --to 2027-12-31 >occurrences.jsonl
    python3 - out.ics stored.jsonl occurrences.jsonl <<'PY' || fail "Python icalendar disagrees with appt (above)"
import datetime, json, sys, zoneinfo
import icalendar
from dateutil.rrule import rrulestr

local = zoneinfo.ZoneInfo("America/New_York")
cal = icalendar.Calendar.from_ical(open(sys.argv[1], "rb").read())
stored = [json.loads(l) for l in open(sys.argv[2])]
listed = [json.loads(l) for l in open(sys.argv[3])]
errors = []

def instant(value):
    """A DTSTART/DTEND value as an aware datetime (a date: local midnight)."""
    if isinstance(value, datetime.datetime):
        return value if value.tzinfo else value.replace(tzinfo=local)
    return datetime.datetime(value.year, value.month, value.day, tzinfo=local)

events = {}
for ev in cal.walk("VEVENT"):
    events[str(ev["summary"])] = ev
if len(events) != len(stored):
    errors.append(f"{len(events)} VEVENTs, appt has {len(stored)}")
zones = {str(tz["tzid"]) for tz in cal.walk("VTIMEZONE")}
if zones != {"America/New_York", "Europe/Paris", "Asia/Tokyo"}:
    errors.append(f"VTIMEZONEs {sorted(zones)}")

for a in stored:
    ev = events.get(a["title"])
    if ev is None:
        errors.append(f"no VEVENT for {a['title']!r}")
        continue
    start = ev.decoded("dtstart")
    # An end given as a DURATION is written back as one.
    end = ev.decoded("dtend") if "dtend" in ev else start + ev.decoded("duration")
    if instant(start) != datetime.datetime.fromisoformat(a["start"]):
        errors.append(f"{a['title']}: DTSTART {start} != {a['start']}")
    if instant(end) != datetime.datetime.fromisoformat(a["end"]):
        errors.append(f"{a['title']}: DTEND {end} != {a['end']}")
    if a["all_day"] != (type(start) is datetime.date):
        errors.append(f"{a['title']}: all-day {a['all_day']} but DTSTART {start!r}")
    if not a["all_day"] and a["time_zone"] not in ("GMT", str(getattr(start.tzinfo, "key", start.tzinfo))):
        errors.append(f"{a['title']}: zone {start.tzinfo} != {a['time_zone']}")
    status = str(ev.get("status", "CONFIRMED"))
    if (status == "CANCELLED") != (a["status"] == "cancelled"):
        errors.append(f"{a['title']}: STATUS {status} but appt says {a['status']}")
    if str(ev.get("description", "")) != a["note"]:
        errors.append(f"{a['title']}: DESCRIPTION {str(ev.get('description', ''))!r} != {a['note']!r}")
    rule = ev.get("rrule")
    if (rule is None) != (a["repeat"] is None):
        errors.append(f"{a['title']}: RRULE {rule} but appt repeat {a['repeat']}")
    if rule is not None:
        ours = dict(p.split("=") for p in a["repeat"].split(";"))
        theirs = {k: ",".join(str(x) for x in v) for k, v in rule.items() if k != "UNTIL"}
        ours_no_until = {k: v for k, v in ours.items() if k != "UNTIL"}
        if theirs != ours_no_until:
            errors.append(f"{a['title']}: RRULE {theirs} != {ours_no_until}")

# Every scheduled occurrence appt lists in 2027 is what dateutil expands from the file.
window = (datetime.datetime(2027, 1, 1, tzinfo=local), datetime.datetime(2028, 1, 1, tzinfo=local))
expanded = set()
for title, ev in events.items():
    if str(ev.get("status", "")) == "CANCELLED":
        continue
    start = ev.decoded("dtstart")
    end = ev.decoded("dtend") if "dtend" in ev else start + ev.decoded("duration")
    length = instant(end) - instant(start)
    starts = [instant(start)]
    if ev.get("rrule") is not None:
        text = ev["rrule"].to_ical().decode()
        dtstart = start if isinstance(start, datetime.datetime) else datetime.datetime(start.year, start.month, start.day)
        rule = rrulestr(text, dtstart=dtstart)
        excluded = set()
        exdates = ev.get("exdate")
        for group in (exdates if isinstance(exdates, list) else [exdates] if exdates else []):
            excluded |= {instant(d.dt) for d in group.dts}
        starts = []
        for s in rule:
            s = instant(s)
            if s >= window[1]:
                break
            if s not in excluded:
                starts.append(s)
    for s in starts:
        if s < window[1] and s + length > window[0]:
            expanded.add((title, s, s + length))
appt = {(o["title"], datetime.datetime.fromisoformat(o["start"]), datetime.datetime.fromisoformat(o["end"])) for o in listed}
for missing in sorted(expanded - appt):
    errors.append(f"dateutil has {missing[0]} at {missing[1]}, appt does not")
for extra in sorted(appt - expanded):
    errors.append(f"appt lists {extra[0]} at {extra[1]}, dateutil does not")
if len(appt) < 50:
    errors.append(f"only {len(appt)} occurrences compared")
for e in errors:
    print("    " + e, file=sys.stderr)
sys.exit(1 if errors else 0)
PY
}

# (c) A calendar written by Python's icalendar imports into appt with the same appointments.
python_calendar_imports() {
    export TZ=Europe/Paris
    python3 - made.ics expected.jsonl <<'PY' || { fail "could not write the calendar with Python"; return; }
import datetime, json, sys, zoneinfo
import icalendar

berlin = zoneinfo.ZoneInfo("Europe/Berlin")
ny = zoneinfo.ZoneInfo("America/New_York")
paris = zoneinfo.ZoneInfo("Europe/Paris")
utc = datetime.timezone.utc
cal = icalendar.Calendar()
cal.add("prodid", "-//appt interop test//python icalendar//EN")
cal.add("version", "2.0")
expected = []

def event(uid, summary, start, end, **extra):
    ev = icalendar.Event()
    ev.add("uid", uid)
    ev.add("dtstamp", datetime.datetime(2026, 11, 1, 12, 0, tzinfo=utc))
    ev.add("summary", summary)
    ev.add("dtstart", start)
    ev.add("dtend", end)
    for key, value in extra.items():
        ev.add(key.replace("_", "-"), value)
    cal.add_component(ev)
    return ev

def iso(value, zone=paris):
    if isinstance(value, datetime.datetime):
        return value.astimezone(zone).isoformat()
    return datetime.datetime(value.year, value.month, value.day, tzinfo=zone).isoformat()

s, e = datetime.datetime(2027, 1, 12, 9, 30, tzinfo=berlin), datetime.datetime(2027, 1, 12, 11, 0, tzinfo=berlin)
event("berlin@py", "Workshop, part 1; room B", s, e, description="Agenda:\nintro\nhands-on", location="Berlin")
expected.append(dict(title="Workshop, part 1; room B", start=iso(s), end=iso(e), note="Agenda:\nintro\nhands-on", location="Berlin", status="scheduled", all_day=False, repeat=None, time_zone="Europe/Berlin"))

s, e = datetime.date(2027, 2, 1), datetime.date(2027, 2, 3)
event("allday@py", "Conference ☕", s, e)
expected.append(dict(title="Conference ☕", start=iso(s), end=iso(e), note="", status="scheduled", all_day=True, repeat=None, time_zone="Europe/Paris"))

s, e = datetime.datetime(2027, 3, 1, 9, 0, tzinfo=ny), datetime.datetime(2027, 3, 1, 9, 45, tzinfo=ny)
event("weekly@py", "NY weekly", s, e,
      rrule={"freq": "weekly", "byday": ["MO", "WE"], "count": 10},
      exdate=[datetime.datetime(2027, 3, 3, 9, 0, tzinfo=ny), datetime.datetime(2027, 3, 15, 9, 0, tzinfo=ny)])
expected.append(dict(title="NY weekly", start=iso(s), end=iso(e), note="", status="scheduled", all_day=False, repeat="FREQ=WEEKLY;COUNT=10;BYDAY=MO,WE", time_zone="America/New_York"))

s, e = datetime.datetime(2027, 1, 20, 15, 0, tzinfo=utc), datetime.datetime(2027, 1, 20, 16, 0, tzinfo=utc)
event("cancelled@py", "Called off", s, e, status="CANCELLED")
expected.append(dict(title="Called off", start=iso(s), end=iso(e), note="", status="cancelled", all_day=False, repeat=None, time_zone="GMT"))

s, e = datetime.datetime(2027, 1, 25, 18, 0), datetime.datetime(2027, 1, 25, 19, 0)
event("floating@py", "Floating yoga", s, e, rrule={"freq": "daily", "interval": 2, "until": datetime.datetime(2027, 2, 4, 18, 0)})
expected.append(dict(title="Floating yoga", start=iso(s.replace(tzinfo=paris)), end=iso(e.replace(tzinfo=paris)), note="", status="scheduled", all_day=False, repeat="FREQ=DAILY;UNTIL=20270204T180000;INTERVAL=2", time_zone="Europe/Paris"))

todo = icalendar.Todo()
todo.add("uid", "todo@py")
todo.add("summary", "a task")
cal.add_component(todo)
if hasattr(cal, "add_missing_timezones"):
    cal.add_missing_timezones()
open(sys.argv[1], "wb").write(cal.to_ical())
with open(sys.argv[2], "w") as f:
    for x in expected:
        f.write(json.dumps(x, ensure_ascii=False) + "\n")
PY
    run_appt --db db import made.ics
    check_status 0 "import Python's calendar"
    check_contains "$OUT" "imported 5 appointments (5 added, 0 updated) from made.ics" "import message"
    check_eq "imported 5 appointments (5 added, 0 updated) from made.ics" "$OUT" "stdout is the summary alone"
    check_contains "$ERR" "made.ics:" "the notes (on stderr) name the file"
    check_contains "$ERR" "note: 1 VTODO skipped (the first here): appt keeps events only" "the to-do is skipped with a note"
    run_script $'import made.ics' --db script.db
    check_status 0 "import in a script"
    check_contains "$ERR" "line 1: made.ics:" "a script's import notes name its line, on stderr"
    check_not_contains "$OUT" "note:" "a script's stdout has no notes"
    "$APPT" --db db --json list --all --include-cancelled >stored.jsonl
    "$APPT" --db db --json list --from 2027-03-01 --to 2027-04-30 --include-cancelled >weekly.jsonl
    python3 - expected.jsonl stored.jsonl weekly.jsonl <<'PY' || fail "appt's import of Python's calendar differs (above)"
import datetime, json, sys
expected = {x["title"]: x for x in map(json.loads, open(sys.argv[1]))}
stored = {x["title"]: x for x in map(json.loads, open(sys.argv[2]))}
errors = []
if set(expected) != set(stored):
    errors.append(f"titles {sorted(stored)} != {sorted(expected)}")
def parts(rule):
    """An RRULE as its parts (appt writes them in canonical order: FREQ, UNTIL/COUNT, INTERVAL, BYxxx)."""
    return None if rule is None else dict(p.split("=", 1) for p in rule.split(";"))
for title, want in expected.items():
    got = stored.get(title, {})
    for key, value in want.items():
        have = got.get(key)
        if key == "location" and key not in got:
            continue  # the JSON's "location" may not be there yet
        if key in ("start", "end"):
            same = have is not None and datetime.datetime.fromisoformat(have) == datetime.datetime.fromisoformat(value)
        elif key == "repeat":
            same = parts(have) == parts(value)
        else:
            same = have == value
        if not same:
            errors.append(f"{title}: {key} {have!r} != {value!r}")
weekly = [json.loads(l) for l in open(sys.argv[3])]
weekly = [o for o in weekly if o["title"] == "NY weekly"]
starts = [(o["start"][:16], o["status"]) for o in weekly]
want = [("2027-03-01T09:00", "scheduled"), ("2027-03-03T09:00", "cancelled"), ("2027-03-08T09:00", "scheduled"),
        ("2027-03-10T09:00", "scheduled"), ("2027-03-15T09:00", "cancelled"), ("2027-03-17T09:00", "scheduled"),
        ("2027-03-22T09:00", "scheduled"), ("2027-03-24T09:00", "scheduled"), ("2027-03-29T09:00", "scheduled"),
        ("2027-03-31T09:00", "scheduled")]
# Listed in Paris time: 09:00 New York is 15:00 Paris, but 14:00 in the weeks the two
# countries change their clocks on different dates (14 to 28 March 2027).
got = [(s[:11] + ("09:00" if s[11:] in ("15:00", "14:00") else s[11:]), st) for s, st in starts]
if got != want:
    errors.append(f"NY weekly occurrences {starts}")
for e in errors:
    print("    " + e, file=sys.stderr)
sys.exit(1 if errors else 0)
PY
    # (f) in passing: the same file again adds nothing.
    run_appt --db db import made.ics
    check_status 0 "re-import"
    check_contains "$OUT" "imported 5 appointments (0 added, 0 updated, 5 unchanged)" "re-import message"
    check_eq 5 "$("$APPT" --db db list --all --include-cancelled | wc -l)" "appointments after the re-import"
}

# (d) calcurse imports our export, exports it back, and appt imports that: the same titles,
# times, durations and notes; recurrence (rules and cancelled occurrences) as occurrences.
# calcurse has no status (a cancelled appointment comes back scheduled) and no multi-day
# whole-day event (it becomes a daily series of whole days covering the same days).
calcurse_round_trip() {
    export TZ=America/New_York
    populate one.db
    run_appt --db one.db export out.ics
    check_status 0 "export"
    mkdir -p cal
    local report
    report=$(calcurse -D "$T/cal" -i out.ics 2>&1)
    check_contains "$report" "0 skipped" "calcurse imports every event (report: $report)"
    calcurse -D "$T/cal" -xical >back.ics 2>calcurse.err
    [[ -s back.ics ]] || { fail "calcurse exported nothing: $(cat calcurse.err)"; return; }
    run_appt --db two.db import back.ics
    check_status 0 "import calcurse's export"
    check_contains "$OUT" "imported 8 appointments (8 added, 0 updated)" "import message"
    "$APPT" --db one.db --json list --from 2027-01-01 --to 2027-12-31 --include-cancelled >a.jsonl
    "$APPT" --db two.db --json list --from 2027-01-01 --to 2027-12-31 --include-cancelled >b.jsonl
    "$APPT" --db one.db --json list --all --include-cancelled >a-all.jsonl
    "$APPT" --db two.db --json list --all --include-cancelled >b-all.jsonl
    python3 - a.jsonl b.jsonl a-all.jsonl b-all.jsonl <<'PY' || fail "appt -> calcurse -> appt changed something beyond the documented losses (above)"
import datetime, json, sys
load = lambda p: [json.loads(l) for l in open(p)]
before, after, before_all, after_all = map(load, sys.argv[1:5])
errors = []

def days(o):
    """A whole-day occurrence as the days it covers; a timed one as itself."""
    start, end = datetime.datetime.fromisoformat(o["start"]), datetime.datetime.fromisoformat(o["end"])
    if not o["all_day"]:
        return [(o["title"], start, end, o["note"])]
    out, d = [], start
    while d < end:
        out.append((o["title"], d.date(), None, o["note"]))
        d = d + datetime.timedelta(days=1)
    return out

# The only status calcurse loses is that of an appointment cancelled as a whole.
cancelled_whole = {o["title"] for o in before_all if o["status"] == "cancelled"}
def keyed(rows, drop_status_of):
    out = {}
    for o in rows:
        status = "scheduled" if o["title"] in drop_status_of else o["status"]
        for k in days(o):
            out[k] = status
    return out
a = keyed(before, cancelled_whole)
b = keyed(after, set())
for k in sorted(set(a) - set(b), key=str):
    errors.append(f"lost: {k}")
for k in sorted(set(b) - set(a), key=str):
    errors.append(f"appeared: {k}")
for k in sorted(set(a) & set(b), key=str):
    if a[k] != b[k]:
        errors.append(f"status of {k}: {a[k]} -> {b[k]}")
if "Cancelled lunch" not in cancelled_whole or len(a) < 50:
    errors.append(f"the comparison saw too little: {len(a)} occurrences, cancelled {cancelled_whole}")
if not any(st == "cancelled" for st in b.values()):
    errors.append("the cancelled occurrence (EXDATE) did not survive")

# Rules: frequency, interval and days survive; COUNT may come back as the equivalent UNTIL.
# A whole-day appointment of several days comes back as a daily series.
def rule(o):
    parts = dict(p.split("=") for p in o["repeat"].split(";")) if o["repeat"] else {}
    return {k: v for k, v in parts.items() if k not in ("COUNT", "UNTIL")}
def multi_day(o):
    length = datetime.datetime.fromisoformat(o["end"]) - datetime.datetime.fromisoformat(o["start"])
    return o["all_day"] and o["repeat"] is None and length > datetime.timedelta(days=1)
rules_after = {o["title"]: rule(o) for o in after_all}
for o in before_all:
    want = {"FREQ": "DAILY"} if multi_day(o) else rule(o)
    if rules_after.get(o["title"]) != want:
        errors.append(f"rule of {o['title']}: {want} -> {rules_after.get(o['title'])}")
if len(before_all) != len(after_all):
    errors.append(f"{len(before_all)} appointments became {len(after_all)}")
for e in errors:
    print("    " + e, file=sys.stderr)
sys.exit(1 if errors else 0)
PY
    # calcurse's export has no UIDs: appt derives them from the content, so a re-import
    # of the same file adds nothing.
    run_appt --db two.db import back.ics
    check_contains "$OUT" "(0 added, 0 updated, 8 unchanged)" "re-import of calcurse's export"
}

# (e) A malformed file imports nothing, exits 1 and names every bad line (what no reader can
# interpret: an impossible date, an RRULE part out of range); what readers do read
# (BYMONTHDAY, a RECURRENCE-ID override, an event around a line that is not a property, which
# is left out) is no problem. --partial
# imports the good events and still lists the rest; a missing file is named.
malformed_file() {
    local file="$FIXTURES/malformed.ics"
    run_appt --db db import "$file"
    check_status 1 "import of a malformed file"
    check_contains "$ERR" "2 problems; nothing imported" "summary line"
    check_contains "$ERR" "$file:13: DTSTART: \"20260230\": February 2026 has 28 days, not 30" "Feb 30"
    check_not_contains "$ERR" "$file:19:" "BYMONTHDAY is read"
    # A malformed line is left out (a note), as Python's icalendar reads it: its event is read.
    check_not_contains "$ERR" "$file:25:" "a malformed line is no problem"
    check_not_contains "$ERR" "$file:31:" "the override (RECURRENCE-ID) is read"
    check_contains "$ERR" "$file:39: RRULE BYMONTHDAY=40: expected days 1 to 31 or -31 to -1" "an RRULE part out of range"
    check_eq "" "$("$APPT" --db db list --all --include-cancelled)" "nothing imported"
    run_appt --db db import "$file" --partial
    check_status 1 "--partial with skipped events"
    check_contains "$ERR" "imported 4 appointments (4 added, 0 updated) from $file; skipped 2 events" "partial summary"
    check_contains "$ERR" "$file:39: RRULE BYMONTHDAY=40" "partial still lists the problems"
    check_contains "$("$APPT" --db db list --all)" "The only good one" "the good event"
    check_contains "$("$APPT" --db db list --all)" "a folded summary" "the event with a malformed line, without it"
    check_contains "$("$APPT" --db db list --all)" "(no title)  [repeats]" "the BYMONTHDAY series"
    run_appt --db db import nowhere.ics
    check_status 1 "a missing file"
    check_contains "$ERR" "cannot read nowhere.ics: No such file or directory" "missing file message"
}

# (f) Re-importing adds nothing; a changed event is updated in place (same id).
reimport_updates_in_place() {
    run_appt --db db import "$FIXTURES/zones.ics"
    check_status 0 "first import"
    local id
    id=$(ids_titled db "Tokyo call 📞")
    run_appt --db db import "$FIXTURES/zones.ics"
    check_contains "$OUT" "imported 5 appointments (0 added, 0 updated, 5 unchanged)" "second import"
    sed 's/^SUMMARY:Tokyo call.*/SUMMARY:Tokyo call (moved)/; s/^DTSTART;TZID=Asia\/Tokyo:20270115T090000/DTSTART;TZID=Asia\/Tokyo:20270115T100000/' \
        "$FIXTURES/zones.ics" >changed.ics
    run_appt --db db import changed.ics
    check_contains "$OUT" "imported 5 appointments (0 added, 1 updated, 4 unchanged)" "import of a changed file"
    check_eq "$id" "$(ids_titled db "Tokyo call (moved)")" "the changed event keeps its id"
    check_eq 5 "$("$APPT" --db db list --all --include-cancelled | wc -l)" "appointments"
    # appt's own export, imported back into the same database, is recognised too.
    run_appt --db db export mine.ics
    run_appt --db db import mine.ics
    check_contains "$OUT" "(0 added, 0 updated, 5 unchanged)" "re-import of our own export"
}

# (h) An event of no length: added with --for 0, or read without DTEND (RFC 5545); listed on
# its day at its time, with an end at its start in JSON; exported without DTEND (RFC 5545 wants
# DTEND after DTSTART); DTEND before DTSTART is read swapped.
moments() {
    export TZ=UTC
    run_appt --db db add Deadline --at "2026-12-01 17:00" --for 0
    check_status 0 "add a moment"
    printf 'BEGIN:VCALENDAR\r\nVERSION:2.0\r\nPRODID:-//e2e//EN\r\nBEGIN:VEVENT\r\nUID:m1@e2e\r\nDTSTAMP:20261101T000000Z\r\nDTSTART:20261201T090000Z\r\nSUMMARY:Call back\r\nEND:VEVENT\r\nBEGIN:VEVENT\r\nUID:m2@e2e\r\nDTSTAMP:20261101T000000Z\r\nDTSTART:20261201T120000Z\r\nDTEND:20261201T110000Z\r\nSUMMARY:Backwards\r\nEND:VEVENT\r\nEND:VCALENDAR\r\n' >moments.ics
    run_appt --db db import moments.ics
    check_status 0 "import a moment and a reversed event"
    check_contains "$ERR" "DTEND is before DTSTART: the two are read swapped" "the swap is noted"
    check_eq $'Tue 2026-12-01  09:00-09:00  Call back\nTue 2026-12-01  11:00-12:00  Backwards\nTue 2026-12-01  17:00-17:00  Deadline' \
        "$("$APPT" --db db list --from 2026-12-01 --to 2026-12-02 | sed 's/^[0-9a-f]*  //')" "the day's list"
    check_eq "" "$("$APPT" --db db list --from 2026-12-01T09:01 --to 2026-12-01T10:00)" "not listed after its moment"
    check_contains "$("$APPT" --db db --json list --from 2026-12-01 --to 2026-12-02)" \
        '"title":"Call back","start":"2026-12-01T09:00:00+00:00","end":"2026-12-01T09:00:00+00:00"' "JSON: the end is the start"
    run_appt --db db export out.ics
    local exported
    exported=$(tr -d '\r' <out.ics)
    local read_without added
    read_without=$(awk '/^UID:m1@e2e/,/^END:VEVENT/' <<<"$exported")
    check_contains "$read_without" "DTSTART:20261201T090000Z" "the moment read without DTEND"
    check_not_contains "$read_without" "DTEND" "no DTEND written for the one read without"
    added=$(awk '/^SUMMARY:Deadline/,/^END:VEVENT/' <<<"$exported")
    check_contains "$added" "DTSTART:20261201T170000Z" "the moment added"
    check_not_contains "$added" "DTEND" "no DTEND for the one added either (RFC 5545 wants DTEND after DTSTART)"
    run_appt --db db import out.ics
    check_contains "$OUT" "(0 added, 0 updated, 3 unchanged)" "the export reads back unchanged"
}

# (g) A weekly series lists on every matching day of three months, keeps its local time across
# the DST change (New York, 14 March 2027), and one occurrence can be cancelled alone; an export
# and import keep all of it.
weekly_across_dst() {
    export TZ=America/New_York
    run_appt --db db --json add "Team sync" --at "2027-02-01 09:00" --for 45m --repeat weekly
    check_status 0 "add the series"
    local id
    id=$(printf '%s\n' "$OUT" | python3 -c 'import sys, json; print(json.loads(sys.stdin.readline())["id"])')
    cat >check.py <<'PY'
import datetime, json, sys
rows = [json.loads(l) for l in sys.stdin]
days = [r["start"][:10] for r in rows]
want, d = [], datetime.date(2027, 2, 1)
while d <= datetime.date(2027, 4, 30):
    want.append(d.isoformat())
    d += datetime.timedelta(days=7)
errors = []
if days != want:
    errors.append(f"days {days} != every Monday {want}")
for r in rows:
    if r["start"][11:19] != "09:00:00" or r["end"][11:19] != "09:45:00":
        errors.append(f"{r['start']} -> {r['end']} is not 09:00-09:45 local")
    offset = "-04:00" if r["start"][:10] >= "2027-03-14" else "-05:00"
    if not r["start"].endswith(offset):
        errors.append(f"{r['start']} should carry {offset}")
cancelled = [r["start"][:10] for r in rows if r["status"] == "cancelled"]
expected = [sys.argv[1]] if sys.argv[1] else []
if cancelled != expected:
    errors.append(f"cancelled {cancelled}, expected {expected}")
for e in errors:
    print("    " + e, file=sys.stderr)
sys.exit(1 if errors else 0)
PY
    # check_occurrences EXPECTED_CANCELLED_DAY DB
    check_occurrences() {
        "$APPT" --db "$2" --json list --from 2027-02-01 --to 2027-04-30 --include-cancelled |
            python3 check.py "$1" || fail "occurrences in $2 (cancelled: ${1:-none})"
    }
    check_occurrences "" db
    run_appt --db db cancel "$id" --occurrence 2027-03-15
    check_status 0 "cancel one occurrence"
    check_occurrences 2027-03-15 db
    check_eq 12 "$("$APPT" --db db list --from 2027-02-01 --to 2027-04-30 | wc -l)" "scheduled occurrences"
    check_contains "$("$APPT" --db db list --all)" "Team sync  [repeats]" "the series itself stays scheduled"
    run_appt --db db export series.ics
    check_contains "$(tr -d '\r' <series.ics)" "EXDATE;TZID=America/New_York:20270315T090000" "the EXDATE"
    run_appt --db other import series.ics
    check_status 0 "import the series"
    check_occurrences 2027-03-15 other
}

run_scenario appt_round_trip
run_scenario python_reads_export
run_scenario python_calendar_imports
run_scenario calcurse_round_trip
run_scenario malformed_file
run_scenario reimport_updates_in_place
run_scenario weekly_across_dst
run_scenario moments
e2e_finish "e2e interop"
