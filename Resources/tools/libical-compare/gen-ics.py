#!/usr/bin/env python3
"""Writes a large iCalendar file for the parse benchmark: gen-ics.py [N] > big.ics (N=100000).

Deterministic (seeded). A mix like a real export: a VTIMEZONE for Europe/Berlin; 70% timed
events with TZID=Europe/Berlin, 15% in UTC, 10% whole days (DATE), 5% weekly series
(RRULE COUNT); every event has UID, DTSTAMP, SUMMARY, DTEND; a third a DESCRIPTION (some
long enough to be folded, some with escaped commas and newlines), a quarter a LOCATION.
Only what appt's importer accepts today, so `appt import` takes the whole file.
"""
import random
import sys
from datetime import date, datetime, timedelta

N = int(sys.argv[1]) if len(sys.argv) > 1 else 100000
rng = random.Random(13)

WORDS = "dentist standup review lunch call planning retro 1:1 gym piano school parents tax budget".split()
PLACES = ["Room 4", "Praxis Dr. Weber\\, Hauptstr. 5", "Zoom", "Café Central", "Office"]


def fold(line):
    data = line.encode("utf-8")
    out, chunk = [], 75
    while len(data) > chunk:
        cut = chunk
        while cut > 0 and (data[cut] & 0xC0) == 0x80:  # never split a UTF-8 sequence
            cut -= 1
        out.append(data[:cut])
        data = data[cut:]
        chunk = 74
    out.append(data)
    return b"\r\n ".join(out).decode("utf-8")


def emit(lines):
    sys.stdout.write("".join(fold(line) + "\r\n" for line in lines))


emit([
    "BEGIN:VCALENDAR", "VERSION:2.0", "PRODID:-//appt//libical-compare gen-ics//EN",
    "BEGIN:VTIMEZONE", "TZID:Europe/Berlin",
    "BEGIN:DAYLIGHT", "TZOFFSETFROM:+0100", "TZOFFSETTO:+0200", "TZNAME:CEST",
    "DTSTART:19700329T020000", "RRULE:FREQ=YEARLY;BYMONTH=3;BYDAY=-1SU", "END:DAYLIGHT",
    "BEGIN:STANDARD", "TZOFFSETFROM:+0200", "TZOFFSETTO:+0100", "TZNAME:CET",
    "DTSTART:19701025T030000", "RRULE:FREQ=YEARLY;BYMONTH=10;BYDAY=-1SU", "END:STANDARD",
    "END:VTIMEZONE",
])

base = datetime(2020, 1, 1, 0, 0)
for i in range(N):
    start = base + timedelta(days=rng.randrange(0, 3650), minutes=15 * rng.randrange(28, 80))
    length = timedelta(minutes=15 * rng.randrange(1, 9))
    kind = rng.random()
    title = " ".join(rng.choice(WORDS) for _ in range(rng.randrange(1, 5))).capitalize()
    lines = ["BEGIN:VEVENT", f"UID:gen-{i:06d}@libical-compare", "DTSTAMP:20261201T120000Z",
             f"SUMMARY:{title} #{i}"]
    fmt = "%Y%m%dT%H%M%S"
    if kind < 0.10:
        day = start.date()
        lines += [f"DTSTART;VALUE=DATE:{day:%Y%m%d}", f"DTEND;VALUE=DATE:{day + timedelta(days=1):%Y%m%d}"]
    elif kind < 0.25:
        lines += [f"DTSTART:{start:{fmt}}Z", f"DTEND:{start + length:{fmt}}Z"]
    else:
        lines += [f"DTSTART;TZID=Europe/Berlin:{start:{fmt}}",
                  f"DTEND;TZID=Europe/Berlin:{start + length:{fmt}}"]
        if kind > 0.95:
            lines.append(f"RRULE:FREQ=WEEKLY;COUNT={rng.randrange(2, 30)}")
    if rng.random() < 0.33:
        text = " ".join(rng.choice(WORDS) for _ in range(rng.randrange(3, 40)))
        if rng.random() < 0.3:
            text += "\\nBring: papers\\, card"
        lines.append(f"DESCRIPTION:{text}")
    if rng.random() < 0.25:
        lines.append(f"LOCATION:{rng.choice(PLACES)}")
    lines.append("END:VEVENT")
    emit(lines)

emit(["END:VCALENDAR"])
