#!/usr/bin/env python3
"""reference.py FILE TZ FROM TO: the occurrences of FILE's events in [FROM, TO), as an
independent reference for appt (Python's icalendar parses, dateutil.rrule expands).

Prints one JSON object per line, {"title": ..., "start": "YYYY-MM-DDTHH:MM:SSZ"} (start in
UTC), sorted by (start, title): every VEVENT occurrence that overlaps the window, i.e.
start < TO and end > FROM, where a zero-length occurrence counts when FROM <= start < TO.
FROM and TO are ISO dates or date-times, local in TZ (an IANA name).

The rules this reference applies (RFC 5545, and where it is silent, what common readers do):
- DTSTART DATE: a whole day, starting at midnight in TZ. A floating DATE-TIME is local in the
  calendar's X-WR-TIMEZONE when it has one, else in TZ. TZID: the file's VTIMEZONE rules (via
  icalendar, which builds a tzinfo from the VTIMEZONE when the TZID is not an IANA name), an
  IANA name, a Windows name (icalendar's own Windows->Olson mapping), or an Outlook display
  label such as "(UTC+01:00) Amsterdam, Berlin, ..." (WINDOWS_LABELS below).
- End: DTEND, else DURATION (days in it are nominal: the same wall-clock time N days later),
  else one day for a DATE and zero length for a DATE-TIME. A DTEND before its DTSTART (of the
  same kind) in an event that does not repeat: the two swapped, as recurring-ical-events reads
  it; any other end before its start is taken as zero length.
- Recurrence: dateutil's rruleset over every RRULE (and EXRULE), RDATE (DATE, DATE-TIME,
  PERIOD: the period gives that occurrence's own length) and EXDATE, expanded in DTSTART's
  zone (wall-clock times stay put across DST; a local time in a gap uses the offset before
  the gap, one that happens twice the first, as RFC 5545 says). DTSTART is always an
  occurrence. Each occurrence lasts as long as the master.
- Copies of one (UID, RECURRENCE-ID): the highest SEQUENCE wins (on a tie, the later one).
- An override (RECURRENCE-ID) replaces the occurrence it names, wherever it moves it; its
  title, time, length and status are its own. RANGE=THISANDFUTURE: the same changes apply to
  every later occurrence too (the shift of its start in wall-clock time, its length, title,
  status), unless a later override of its own says otherwise. An override whose master is
  absent is an event of its own.
- STATUS:CANCELLED: the event (or that occurrence) is left out.
- A missing SUMMARY is an empty title (as appt's JSON has it).

Where icalendar itself needs help (written down in Tests/corpus/README.md):
- the file is read as bytes (icalendar strips a UTF-8 BOM only from bytes);
- a TZID whose VTIMEZONE comes after the event, or that icalendar cannot resolve, is resolved
  here (resolve_tz) from the file's VTIMEZONEs and the tables;
- UNTIL is rewritten to match DTSTART's kind before dateutil sees it (dateutil refuses an
  aware UNTIL with a naive DTSTART and the reverse).
"""

import json
import re
import sys
import zoneinfo
from datetime import date, datetime, time, timedelta, timezone

import icalendar
from dateutil.rrule import rrulestr, rruleset

try:
    from icalendar.timezone.windows_to_olson import WINDOWS_TO_OLSON
except ImportError:  # older icalendar
    from icalendar.windows_to_olson import WINDOWS_TO_OLSON

UTC = timezone.utc

# Outlook / Exchange display labels used as TZIDs (the Windows names are icalendar's).
WINDOWS_LABELS = {
    "(UTC+01:00) Amsterdam, Berlin, Bern, Rome, Stockholm, Vienna": "Europe/Berlin",
    "(UTC+01:00) Brussels, Copenhagen, Madrid, Paris": "Europe/Paris",
    "(UTC+00:00) Dublin, Edinburgh, Lisbon, London": "Europe/London",
    "(UTC-05:00) Eastern Time (US & Canada)": "America/New_York",
    "(UTC-06:00) Central Time (US & Canada)": "America/Chicago",
    "(UTC-08:00) Pacific Time (US & Canada)": "America/Los_Angeles",
    "(UTC+09:00) Osaka, Sapporo, Tokyo": "Asia/Tokyo",
}


def fail(message):
    print(f"reference: {message}", file=sys.stderr)
    sys.exit(1)


def parse_window_bound(text, tz):
    m = re.fullmatch(r"(\d{4})-(\d{2})-(\d{2})(?:[T ](\d{2}):(\d{2})(?::(\d{2}))?)?", text)
    if not m:
        fail(f"{text!r} is not an ISO date or date-time")
    y, mo, d = int(m.group(1)), int(m.group(2)), int(m.group(3))
    h, mi, s = (int(m.group(i) or 0) for i in (4, 5, 6))
    return datetime(y, mo, d, h, mi, s, tzinfo=tz).astimezone(UTC)


class Context:
    def __init__(self, cal_components, run_tz):
        self.run_tz = run_tz
        self.vtimezones = {}
        self.floating_tz = run_tz
        for cal in cal_components:
            for vtz in cal.walk("VTIMEZONE"):
                self.vtimezones[str(vtz["TZID"])] = vtz
            wr = cal.get("X-WR-TIMEZONE")
            if wr is not None:
                self.floating_tz = self.iana(str(wr)) or fail(f"X-WR-TIMEZONE {wr} unknown")
        self.cache = {}

    @staticmethod
    def iana(name):
        name = name.strip().strip('"')
        for candidate in (name, name.strip("/"), WINDOWS_TO_OLSON.get(name), WINDOWS_LABELS.get(name)):
            if not candidate:
                continue
            try:
                return zoneinfo.ZoneInfo(candidate)
            except (zoneinfo.ZoneInfoNotFoundError, ValueError):
                pass
        # globally unique TZIDs such as /mozilla.org/20050126_1/Europe/Berlin
        parts = name.strip("/").split("/")
        for start in range(1, len(parts)):
            try:
                return zoneinfo.ZoneInfo("/".join(parts[start:]))
            except (zoneinfo.ZoneInfoNotFoundError, ValueError):
                pass
        return None

    def resolve_tz(self, tzid):
        if tzid in self.cache:
            return self.cache[tzid]
        tz = None
        vtz = self.vtimezones.get(tzid)
        if vtz is not None and self.iana(tzid) is None:
            tz = vtz.to_tz(lookup_tzid=False)  # the VTIMEZONE's own rules
        if tz is None:
            tz = self.iana(tzid)
        if tz is None:
            fail(f"TZID {tzid!r}: neither a VTIMEZONE in the file nor a known zone name")
        self.cache[tzid] = tz
        return tz

    def instant(self, value, params):
        """A DATE stays a date; a DATE-TIME becomes an aware datetime."""
        if isinstance(value, datetime):
            if value.tzinfo is None:
                tzid = params.get("TZID") if params else None
                tz = self.resolve_tz(str(tzid)) if tzid else self.floating_tz
                return value.replace(tzinfo=tz)
            return value
        if isinstance(value, date):
            return value
        fail(f"unexpected date value {value!r}")


def day_start(d, tz):
    return datetime(d.year, d.month, d.day, tzinfo=tz)


def wall(dt):
    return dt.replace(tzinfo=None)


class Event:
    """One VEVENT: start, length, title, status, recurrence."""

    def __init__(self, comp, ctx):
        self.comp = comp
        self.ctx = ctx
        if "DTSTART" not in comp:
            fail(f"event {comp.get('UID')} has no DTSTART")
        dt = comp["DTSTART"]
        self.start = ctx.instant(dt.dt, dt.params)
        self.all_day = not isinstance(self.start, datetime)
        self.swapped_end = None
        repeats = any(name in comp for name in ("RRULE", "RDATE", "RECURRENCE-ID"))
        if "DTEND" in comp and not repeats:
            end = ctx.instant(comp["DTEND"].dt, comp["DTEND"].params)
            if isinstance(end, datetime) == (not self.all_day) and self.before(end, self.start):
                # written the wrong way round: read swapped, as recurring-ical-events reads it
                self.swapped_end, self.start = self.start, end
        self.title = str(comp["SUMMARY"]) if "SUMMARY" in comp else ""
        self.cancelled = str(comp.get("STATUS", "")).upper() == "CANCELLED"
        self.sequence = int(comp.get("SEQUENCE", 0))
        rid = comp.get("RECURRENCE-ID")
        self.rid = None
        self.range_future = False
        if rid is not None:
            self.rid = self.key(ctx.instant(rid.dt, rid.params))
            self.range_future = str(rid.params.get("RANGE", "")).upper() == "THISANDFUTURE"
        self.length = self.compute_length()

    @staticmethod
    def before(a, b):
        """a is earlier than b (two dates, or two aware datetimes)."""
        return a.astimezone(UTC) < b.astimezone(UTC) if isinstance(a, datetime) else a < b

    def key(self, value):
        """How occurrences are matched: a date, or a UTC instant."""
        if isinstance(value, datetime):
            if self.all_day:
                return value.astimezone(self.ctx.run_tz).date()
            return value.astimezone(UTC)
        if not self.all_day:
            # a DATE naming an occurrence of a timed event: that day at DTSTART's time
            return datetime.combine(value, self.start.timetz().replace(tzinfo=None), tzinfo=self.start.tzinfo).astimezone(UTC)
        return value

    def compute_length(self):
        comp = self.comp
        if "DTEND" in comp:
            end = self.swapped_end or self.ctx.instant(comp["DTEND"].dt, comp["DTEND"].params)
            if self.all_day:
                end_day = end if not isinstance(end, datetime) else end.date()
                return timedelta(days=max(0, (end_day - self.start).days))
            if not isinstance(end, datetime):
                end = day_start(end, self.start.tzinfo)
            return max(timedelta(0), end.astimezone(UTC) - self.start.astimezone(UTC))
        if "DURATION" in comp:
            d = comp["DURATION"].dt
            if self.all_day:
                return timedelta(days=max(0, d.days))
            return max(timedelta(0), d)
        return timedelta(days=1) if self.all_day else timedelta(0)

    def span(self, start, length):
        """(UTC start, UTC end) of an occurrence starting at start (a date or an aware datetime)."""
        if self.all_day:
            tz = self.ctx.run_tz
            return day_start(start, tz).astimezone(UTC), day_start(start + timedelta(days=length.days), tz).astimezone(UTC)
        days, rest = timedelta(days=length.days), length - timedelta(days=length.days)
        if days and "DURATION" in self.comp and "DTEND" not in self.comp:
            # nominal days: the same wall-clock time N days later, then the exact rest
            end = (wall(start) + days).replace(tzinfo=start.tzinfo).astimezone(UTC) + rest
        else:
            end = start.astimezone(UTC) + length
        return start.astimezone(UTC), end

    # --- recurrence

    def as_kind(self, value, params):
        """A recurrence value in the kind dateutil gets for this event."""
        v = self.ctx.instant(value, params)
        if self.all_day:
            if isinstance(v, datetime):
                v = v.astimezone(self.ctx.run_tz).date()
            return datetime(v.year, v.month, v.day)
        if not isinstance(v, datetime):
            v = datetime.combine(v, wall(self.start).time()).replace(tzinfo=self.start.tzinfo)
        return v.astimezone(self.start.tzinfo)

    def dateutil_start(self):
        if self.all_day:
            return datetime(self.start.year, self.start.month, self.start.day)
        return self.start

    def rule_text(self, recur):
        parts = []
        for name, values in recur.items():
            if name == "UNTIL":
                until = values[0]
                if self.all_day:
                    if isinstance(until, datetime):
                        if until.tzinfo is not None:
                            until = until.astimezone(self.ctx.run_tz).replace(tzinfo=None)
                        text = until.strftime("%Y%m%dT%H%M%S")
                    else:
                        text = until.strftime("%Y%m%d")
                else:
                    if not isinstance(until, datetime):  # a DATE: through the end of that day
                        until = datetime.combine(until, time(23, 59, 59)).replace(tzinfo=self.start.tzinfo)
                    elif until.tzinfo is None:
                        until = until.replace(tzinfo=self.start.tzinfo)
                    text = until.astimezone(UTC).strftime("%Y%m%dT%H%M%SZ")
                parts.append(f"UNTIL={text}")
            else:
                single = icalendar.vRecur({name: values}).to_ical().decode()
                parts.append(single)
        return ";".join(parts)

    def values(self, name):
        props = self.comp.get(name)
        if props is None:
            return []
        if not isinstance(props, list):
            props = [props]
        out = []
        for prop in props:
            for item in prop.dts:
                out.append((item.dt, prop.params))
        return out

    def occurrences(self, hi_utc):
        """(original start, period length or None) of every occurrence starting before hi_utc,
        in order; original start is a date (all day) or an aware datetime."""
        if not any(n in self.comp for n in ("RRULE", "RDATE")):
            yield self.start, None
            return
        rset = rruleset()
        start = self.dateutil_start()
        rset.rdate(start)
        rules = self.comp.get("RRULE")
        for recur in rules if isinstance(rules, list) else ([rules] if rules is not None else []):
            rset.rrule(rrulestr(self.rule_text(recur), dtstart=start))
        exrules = self.comp.get("EXRULE")
        for recur in exrules if isinstance(exrules, list) else ([exrules] if exrules is not None else []):
            rset.exrule(rrulestr(self.rule_text(recur), dtstart=start))
        periods = {}
        for value, params in self.values("RDATE"):
            if isinstance(value, tuple):  # PERIOD: (start, end or duration)
                begin = self.as_kind(value[0], params)
                other = value[1]
                if isinstance(other, timedelta):
                    length = other
                else:
                    length = self.ctx.instant(other, params).astimezone(UTC) - begin.astimezone(UTC)
                periods[begin] = length
                rset.rdate(begin)
            else:
                rset.rdate(self.as_kind(value, params))
        for value, params in self.values("EXDATE"):
            rset.exdate(self.as_kind(value, params))
        for occ in rset:
            if self.all_day:
                day = occ.date()
                if day_start(day, self.ctx.run_tz).astimezone(UTC) >= hi_utc:
                    return
                yield day, None
            else:
                if occ.astimezone(UTC) >= hi_utc:
                    return
                yield occ, periods.get(occ)


def overlaps(start, end, lo, hi):
    if start >= hi:
        return False
    if end == start:
        return start >= lo
    return end > lo


def main():
    if len(sys.argv) != 5:
        print("usage: reference.py FILE TZ FROM TO", file=sys.stderr)
        sys.exit(2)
    path, tzname, lo_text, hi_text = sys.argv[1:]
    run_tz = zoneinfo.ZoneInfo(tzname)
    lo, hi = parse_window_bound(lo_text, run_tz), parse_window_bound(hi_text, run_tz)
    with open(path, "rb") as f:
        data = f.read()
    cals = icalendar.Calendar.from_ical(data, multiple=True)
    ctx = Context(cals, run_tz)

    # (UID, RECURRENCE-ID) -> the copy with the highest SEQUENCE (later wins a tie)
    chosen = {}
    for cal in cals:
        for comp in cal.walk("VEVENT"):
            ev = Event(comp, ctx)
            uid = str(comp.get("UID", f"(no uid {id(comp)})"))
            k = (uid, ev.rid)
            if k not in chosen or ev.sequence >= chosen[k].sequence:
                chosen[k] = ev
    masters = {uid: ev for (uid, rid), ev in chosen.items() if rid is None}
    overrides = {}
    for (uid, rid), ev in chosen.items():
        if rid is not None:
            overrides.setdefault(uid, {})[rid] = ev

    out = []

    def emit(ev, start, length):
        s, e = ev.span(start, length)
        if overlaps(s, e, lo, hi):
            out.append((s, ev.title))

    # every override stands where it is now (its master's occurrence it replaces is skipped)
    for uid, by_rid in overrides.items():
        for ev in by_rid.values():
            if not ev.cancelled:
                emit(ev, ev.start, ev.length)

    for uid, master in masters.items():
        by_rid = overrides.get(uid, {})
        ranges = sorted((rid, ev) for rid, ev in by_rid.items() if ev.range_future)
        margin = timedelta(days=2)
        for rid, ev in ranges:  # a later occurrence moved earlier may land in the window
            if master.all_day:
                margin += abs(ev.start - rid) if not isinstance(ev.start, datetime) else timedelta(0)
            else:
                margin += abs(ev.start.astimezone(UTC) - rid)
        for original, period in master.occurrences(hi + margin):
            k = master.key(original)
            if k in by_rid:
                continue  # replaced by its override (emitted above)
            title, length, cancelled, start = master.title, master.length, master.cancelled, original
            if period is not None:
                length = period
            rng = None
            for rid, ev in ranges:
                if rid <= k:
                    rng = (rid, ev)
            if rng is not None:
                rid, ev = rng
                title, length, cancelled = ev.title, ev.length, ev.cancelled
                if master.all_day:
                    start = original + (ev.start - rid)
                else:
                    before = wall(master.as_kind(rid, {}))
                    after = wall(ev.start.astimezone(master.start.tzinfo))
                    start = (wall(original) + (after - before)).replace(tzinfo=master.start.tzinfo)
            if cancelled:
                continue
            s, e = master.span(start, length)
            if overlaps(s, e, lo, hi):
                out.append((s, title))

    out.sort(key=lambda item: (item[0], item[1]))
    for s, title in out:
        print(json.dumps({"title": title, "start": s.strftime("%Y-%m-%dT%H:%M:%SZ")}, ensure_ascii=False))


if __name__ == "__main__":
    main()
