#!/usr/bin/env python3
"""The oracle of Tests/corpus/rie: Python's recurring-ical-events on one calendar.

    oracle.py FILE TZ FROM TO           the occurrences, as JSON lines {"title","start"}
    oracle.py --window FILE             the window run.sh uses for FILE: "FROM TO"
    oracle.py --batch TZ OUTDIR FILE... both for many files in one process: OUTDIR/NAME.window
                                        and OUTDIR/NAME.oracle, or OUTDIR/NAME.error when the
                                        library cannot read NAME (one line: why; with
                                        NAME.window when it reads the file but cannot expand
                                        it: run.sh still runs appt's round trip there)

Occurrences: recurring_ical_events.of(calendar).between(FROM, TO), FROM and TO being dates
(their midnight in TZ; TO exclusive): every VEVENT occurrence overlapping the window. `of`
applies X-WR-TIMEZONE. Those with STATUS:CANCELLED are left out: the library lists them, appt's
`list` does not (its --include-cancelled would list EXDATE'd occurrences too, which the library
leaves out). Each is printed as its SUMMARY (empty without one, as appt's JSON has it) and its start in UTC
(YYYY-MM-DDTHH:MM:SSZ); a DATE is its midnight in TZ, a floating time is TZ's. Sorted by
(start, title), so two outputs are equal exactly when the multisets are.

Window: FROM is 1 January of the earliest year among the VEVENTs' DTSTART, RECURRENCE-ID and
RDATE values, TO is 1 January of the latest such year + 2 (every explicit date is inside, with
at least a year of rule expansion after it). Without any: 2000-01-01 to 2030-01-01. The window
does not depend on TZ.
"""

import json
import os
import sys
import zoneinfo
from datetime import date, datetime, timezone

import icalendar
import recurring_ical_events

UTC = timezone.utc
NO_EVENTS_WINDOW = (date(2000, 1, 1), date(2030, 1, 1))


def zone(name):
    return UTC if name == "UTC" else zoneinfo.ZoneInfo(name)


def read(path):
    with open(path, "rb") as f:
        return icalendar.Calendar.from_ical(f.read())


def utc_text(value, tz):
    if isinstance(value, datetime):
        if value.tzinfo is None:
            value = value.replace(tzinfo=tz)
        return value.astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")
    if isinstance(value, date):
        return utc_text(datetime(value.year, value.month, value.day), tz)
    raise TypeError(repr(value))


def explicit_years(cal):
    years = []
    for ev in cal.walk("VEVENT"):
        for key in ("DTSTART", "RECURRENCE-ID", "RDATE"):
            v = ev.get(key)
            if v is None:
                continue
            for x in v if isinstance(v, list) else [v]:
                try:
                    if key == "RDATE":
                        for d in x.dts:
                            dt = d.dt[0] if isinstance(d.dt, tuple) else d.dt
                            years.append(dt.year)
                    else:
                        years.append(x.dt.year)
                except Exception:
                    pass
    return years


def window(cal):
    years = explicit_years(cal)
    if not years:
        return NO_EVENTS_WINDOW
    return date(min(years), 1, 1), date(max(years) + 2, 1, 1)


def occurrences(cal, tz, start, stop):
    """The JSON lines of the occurrences in [start, stop) (dates, midnight in tz)."""
    begin = datetime(start.year, start.month, start.day, tzinfo=tz)
    end = datetime(stop.year, stop.month, stop.day, tzinfo=tz)
    rows = []
    for ev in recurring_ical_events.of(cal).between(begin, end):
        if str(ev.get("STATUS", "")).strip().upper() == "CANCELLED":
            continue
        title = str(ev.get("SUMMARY")) if ev.get("SUMMARY") is not None else ""
        rows.append((utc_text(ev["DTSTART"].dt, tz), title))
    return [json.dumps({"title": t, "start": s}, ensure_ascii=False) for s, t in sorted(rows)]


def one_line(error):
    return f"{type(error).__name__}: {error}".replace("\n", " ")


def batch(tz_name, outdir, paths):
    tz = zone(tz_name)
    os.makedirs(outdir, exist_ok=True)
    for path in paths:
        base = os.path.join(outdir, os.path.basename(path))
        try:
            cal = read(path)
            start, stop = window(cal)
        except Exception as error:  # the library cannot read it: run.sh skips it
            with open(base + ".error", "w", encoding="utf-8") as f:
                f.write(one_line(error) + "\n")
            continue
        try:
            lines = occurrences(cal, tz, start, stop)
        except Exception as error:  # nor expand it: not compared, but the window is known
            with open(base + ".error", "w", encoding="utf-8") as f:
                f.write(one_line(error) + "\n")
        else:
            with open(base + ".oracle", "w", encoding="utf-8") as f:
                f.write("".join(line + "\n" for line in lines))
        # last: run.sh takes NAME.window as "the oracle finished this file"
        with open(base + ".window", "w", encoding="utf-8") as f:
            f.write(f"{start.isoformat()} {stop.isoformat()}\n")


def main(argv):
    if len(argv) >= 2 and argv[0] == "--window":
        for path in argv[1:]:
            start, stop = window(read(path))
            print(start.isoformat(), stop.isoformat())
        return 0
    if len(argv) >= 3 and argv[0] == "--batch":
        batch(argv[1], argv[2], argv[3:])
        return 0
    if len(argv) == 4 and not argv[0].startswith("--"):
        path, tz_name, start, stop = argv
        lines = occurrences(read(path), zone(tz_name), date.fromisoformat(start), date.fromisoformat(stop))
        sys.stdout.write("".join(line + "\n" for line in lines))
        return 0
    print(__doc__.split("\n\n")[1], file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
