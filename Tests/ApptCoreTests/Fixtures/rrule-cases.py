#!/usr/bin/env python3
"""Regenerates rrule-cases.json: recurrence cases expanded by Python's dateutil.rrule.

RecurrenceDateutilTests reads the JSON (no Python at test time) and compares appt's
RecurrenceSet with dateutil's occurrences, instant by instant (UTC).

Run from this folder:  python3 rrule-cases.py > rrule-cases.json   (dateutil 2.9)

Each case: a zone (IANA, or null for a floating time, read as UTC), DTSTART on the wall
clock, RRULEs, EXDATEs and RDATEs on the same wall clock, and a window [from, to) of UTC
instants. UNTIL is written in UTC for zoned starts (dateutil requires it).
"""
import json
import sys
from datetime import datetime, timezone

import dateutil
from dateutil import rrule, tz

UTC = timezone.utc

# (name, zone, dtstart, [rrule], [exdate], [rdate], from, to)
CASES = [
    ("daily", "Europe/Berlin", "20240101T090000", ["FREQ=DAILY;COUNT=20"], [], [], None, None),
    ("daily interval 3 far window", "Europe/Berlin", "20100105T073000", ["FREQ=DAILY;INTERVAL=3"], [], [], "20260301T000000", "20260415T000000"),
    ("daily 10 years, a week", "America/New_York", "20160101T080000", ["FREQ=DAILY"], [], [], "20260601T000000", "20260608T000000"),
    ("daily byday weekdays", "America/New_York", "20260101T090000", ["FREQ=DAILY;BYDAY=MO,TU,WE,TH,FR;COUNT=30"], [], [], None, None),
    ("daily bymonth bymonthday", "UTC", "20200101T120000", ["FREQ=DAILY;BYMONTH=2;BYMONTHDAY=-1;COUNT=6"], [], [], None, None),
    ("daily byhour byminute", "Europe/Berlin", "20260325T000000", ["FREQ=DAILY;BYHOUR=1,2,3;BYMINUTE=15,45;COUNT=18"], [], [], None, None),
    ("weekly", "America/New_York", "20250106T100000", ["FREQ=WEEKLY;COUNT=12"], [], [], None, None),
    ("weekly byday interval 2", "America/New_York", "20250101T100000", ["FREQ=WEEKLY;INTERVAL=2;BYDAY=MO,WE,FR;COUNT=20"], [], [], None, None),
    ("weekly interval 3 wkst su", "Europe/London", "20250104T183000", ["FREQ=WEEKLY;INTERVAL=3;BYDAY=SA,SU,MO;WKST=SU;COUNT=15"], [], [], None, None),
    ("weekly interval 3 wkst th", "Europe/London", "20250104T183000", ["FREQ=WEEKLY;INTERVAL=3;BYDAY=SA,SU,MO;WKST=TH;COUNT=15"], [], [], None, None),
    ("weekly until utc", "Australia/Sydney", "20250301T090000", ["FREQ=WEEKLY;BYDAY=SA,TU;UNTIL=20250601T000000Z"], [], [], None, None),
    ("weekly far window no count", "Asia/Tokyo", "20000103T090000", ["FREQ=WEEKLY;INTERVAL=2;BYDAY=MO,TH"], [], [], "20260101T000000", "20260301T000000"),
    ("weekly bymonth limit", "UTC", "20250101T000000", ["FREQ=WEEKLY;BYDAY=FR;BYMONTH=1,7;COUNT=12"], [], [], None, None),
    ("weekly byhour expands", "UTC", "20250106T080000", ["FREQ=WEEKLY;BYDAY=MO;BYHOUR=8,12,17;COUNT=9"], [], [], None, None),
    ("monthly bymonthday 31", "America/Chicago", "20250131T090000", ["FREQ=MONTHLY;BYMONTHDAY=31;COUNT=10"], [], [], None, None),
    ("monthly start on 31 no by", "America/Chicago", "20250131T090000", ["FREQ=MONTHLY;COUNT=10"], [], [], None, None),
    ("monthly last day", "Europe/Berlin", "20240131T090000", ["FREQ=MONTHLY;BYMONTHDAY=-1;COUNT=14"], [], [], None, None),
    ("monthly last friday", "Europe/Berlin", "20250131T170000", ["FREQ=MONTHLY;BYDAY=-1FR;COUNT=14"], [], [], None, None),
    ("monthly 2nd tuesday", "America/New_York", "20250114T190000", ["FREQ=MONTHLY;BYDAY=2TU;COUNT=14"], [], [], None, None),
    ("monthly last weekday setpos", "America/New_York", "20250131T090000", ["FREQ=MONTHLY;BYDAY=MO,TU,WE,TH,FR;BYSETPOS=-1;COUNT=14"], [], [], None, None),
    ("monthly first weekday setpos", "America/New_York", "20250101T090000", ["FREQ=MONTHLY;BYDAY=MO,TU,WE,TH,FR;BYSETPOS=1;COUNT=14"], [], [], None, None),
    ("monthly setpos 1 and -1 of days", "UTC", "20250101T090000", ["FREQ=MONTHLY;BYMONTHDAY=1,10,20,-1;BYSETPOS=1,-1;COUNT=12"], [], [], None, None),
    ("monthly 15 and -1", "UTC", "20240115T083000", ["FREQ=MONTHLY;BYMONTHDAY=15,-1;COUNT=16"], [], [], None, None),
    ("monthly interval 3 far window", "Europe/Paris", "19990110T100000", ["FREQ=MONTHLY;INTERVAL=3;BYDAY=2SU"], [], [], "20260101T000000", "20270101T000000"),
    ("monthly count 1000", "Europe/Paris", "19500115T100000", ["FREQ=MONTHLY;COUNT=1000"], [], [], "20330101T000000", "20340101T000000"),
    ("monthly count with bymonthday far window", "UTC", "20000101T000000", ["FREQ=MONTHLY;BYMONTHDAY=1,15;COUNT=500"], [], [], "20200101T000000", "20210101T000000"),
    ("monthly byhour byminute setpos", "UTC", "20250101T080000", ["FREQ=MONTHLY;BYMONTHDAY=1;BYHOUR=8,16;BYMINUTE=0,30;BYSETPOS=2,-1;COUNT=8"], [], [], None, None),
    ("monthly bymonth limit", "UTC", "20250105T100000", ["FREQ=MONTHLY;BYMONTH=3,6,9,12;BYDAY=1MO;COUNT=8"], [], [], None, None),
    ("monthly byyearday limit", "UTC", "20250101T100000", ["FREQ=MONTHLY;BYMONTHDAY=1;BYYEARDAY=1,-365,182;COUNT=4"], [], [], None, "20400101T000000"),
    ("yearly feb 29", "UTC", "20000229T120000", ["FREQ=YEARLY;COUNT=8"], [], [], None, None),
    ("yearly bymonthday 29 bymonth 2", "UTC", "20000229T120000", ["FREQ=YEARLY;BYMONTH=2;BYMONTHDAY=29;COUNT=6"], [], [], None, None),
    ("yearly byyearday -1", "America/New_York", "20231231T235900", ["FREQ=YEARLY;BYYEARDAY=-1;COUNT=6"], [], [], None, None),
    ("yearly byyearday 366", "UTC", "20200101T000000", ["FREQ=YEARLY;BYYEARDAY=366;COUNT=3"], [], [], None, None),
    ("yearly byweekno 1 wkst mo", "UTC", "20200101T090000", ["FREQ=YEARLY;BYWEEKNO=1;BYDAY=MO,TU,WE,TH,FR,SA,SU;WKST=MO;COUNT=21"], [], [], None, None),
    ("yearly byweekno 1 wkst su", "UTC", "20200101T090000", ["FREQ=YEARLY;BYWEEKNO=1;BYDAY=MO,TU,WE,TH,FR,SA,SU;WKST=SU;COUNT=21"], [], [], None, None),
    ("yearly byweekno 53", "UTC", "20150101T090000", ["FREQ=YEARLY;BYWEEKNO=53;BYDAY=MO;COUNT=4"], [], [], None, None),
    ("yearly byweekno -1", "UTC", "20150101T090000", ["FREQ=YEARLY;BYWEEKNO=-1;BYDAY=TH;COUNT=8"], [], [], None, None),
    ("yearly byweekno 1 and 52 sunday", "UTC", "20150101T090000", ["FREQ=YEARLY;BYWEEKNO=1,52;BYDAY=SU;WKST=SU;COUNT=10"], [], [], None, None),
    ("yearly 4th thursday november", "America/New_York", "20251127T120000", ["FREQ=YEARLY;BYMONTH=11;BYDAY=4TH;COUNT=8"], [], [], None, None),
    ("yearly last sunday march (DST)", "Europe/Berlin", "20250330T010000", ["FREQ=YEARLY;BYMONTH=3;BYDAY=-1SU;COUNT=6"], [], [], None, None),
    ("yearly 1st monday of year", "UTC", "20250106T090000", ["FREQ=YEARLY;BYDAY=1MO;COUNT=6"], [], [], None, None),
    ("yearly -1 friday of year", "UTC", "20251226T090000", ["FREQ=YEARLY;BYDAY=-1FR;COUNT=6"], [], [], None, None),
    ("yearly bymonth byday setpos", "UTC", "20250101T090000", ["FREQ=YEARLY;BYMONTH=1,6;BYDAY=MO;BYSETPOS=1,-1;COUNT=8"], [], [], None, None),
    ("yearly far window", "Europe/Berlin", "19700704T200000", ["FREQ=YEARLY;INTERVAL=2"], [], [], "20240101T000000", "20300101T000000"),
    ("yearly byweekno 20 byday mo far", "UTC", "19970512T090000", ["FREQ=YEARLY;BYWEEKNO=20;BYDAY=MO"], [], [], "20250101T000000", "20300101T000000"),
    ("hourly", "Europe/Berlin", "20260101T220000", ["FREQ=HOURLY;INTERVAL=5;COUNT=12"], [], [], None, None),
    ("hourly byday bymonth", "UTC", "20250101T000000", ["FREQ=HOURLY;INTERVAL=7;BYDAY=SA;BYMONTH=1;COUNT=12"], [], [], None, None),
    ("hourly byhour byminute", "UTC", "20250101T000000", ["FREQ=HOURLY;BYHOUR=9,10;BYMINUTE=0,30;COUNT=12"], [], [], None, None),
    ("hourly Berlin autumn overlap", "Europe/Berlin", "20251025T230000", ["FREQ=HOURLY;COUNT=6"], [], [], None, None),
    ("hourly far window", "UTC", "20200101T003000", ["FREQ=HOURLY;INTERVAL=13"], [], [], "20260101T000000", "20260104T000000"),
    ("minutely bysecond", "UTC", "20250101T000000", ["FREQ=MINUTELY;INTERVAL=7;BYSECOND=0,30;COUNT=10"], [], [], None, None),
    ("minutely byhour limit", "UTC", "20250101T000000", ["FREQ=MINUTELY;INTERVAL=45;BYHOUR=12;COUNT=10"], [], [], None, None),
    ("secondly", "UTC", "20250101T000000", ["FREQ=SECONDLY;INTERVAL=17;COUNT=10"], [], [], None, None),
    ("secondly byminute limit", "UTC", "20250101T000000", ["FREQ=SECONDLY;INTERVAL=20;BYMINUTE=5;BYHOUR=1;COUNT=6"], [], [], None, None),
    ("two rules union", "America/New_York", "20250106T090000", ["FREQ=WEEKLY;BYDAY=MO;COUNT=5", "FREQ=MONTHLY;BYMONTHDAY=10;COUNT=3"], [], [], None, None),
    ("overlapping rules dedupe", "UTC", "20250101T090000", ["FREQ=DAILY;COUNT=10", "FREQ=DAILY;INTERVAL=2;COUNT=5"], [], [], None, None),
    ("exdate and rdate", "Europe/Berlin", "20250106T090000", ["FREQ=WEEKLY;COUNT=6"], ["20250113T090000", "20250127T090000"], ["20250108T140000", "20250301T090000"], None, None),
    ("floating daily", None, "20250101T083000", ["FREQ=DAILY;BYDAY=SA,SU;COUNT=6"], [], [], None, None),
    ("floating until local", None, "20250101T083000", ["FREQ=WEEKLY;UNTIL=20250129T083000"], [], [], None, None),
    ("date start yearly", None, "20250315T000000", ["FREQ=YEARLY;BYMONTH=3;BYMONTHDAY=15,-1;COUNT=6"], [], [], None, None),
    ("unmatched dtstart", "UTC", "20250102T090000", ["FREQ=MONTHLY;BYDAY=1MO;COUNT=4"], [], [], None, None),
    ("interval across year weekly wkst", "UTC", "20241230T090000", ["FREQ=WEEKLY;INTERVAL=2;BYDAY=MO,SU;WKST=SU;COUNT=8"], [], [], None, None),
    ("hourly Berlin spring gap", "Europe/Berlin", "20250329T230000", ["FREQ=HOURLY;COUNT=6"], [], [], None, None),
    ("daily New York 02:30 across the gap", "America/New_York", "20250307T023000", ["FREQ=DAILY;COUNT=4"], [], [], None, None),
    ("daily Berlin 02:30 across the overlap", "Europe/Berlin", "20251025T023000", ["FREQ=DAILY;COUNT=3"], [], [], None, None),
]


def parse(text, zone):
    value = datetime.strptime(text, "%Y%m%dT%H%M%S")
    return value.replace(tzinfo=zone) if zone is not None else value


def utc_text(value, zone):
    if zone is None:
        value = value.replace(tzinfo=UTC)
    return value.astimezone(UTC).strftime("%Y%m%dT%H%M%SZ")


def expand(zone_id, start, rules, exdates, rdates, window_from, window_to):
    zone = tz.gettz(zone_id) if zone_id else None
    dtstart = parse(start, zone)
    rset = rrule.rruleset()
    for text in rules:
        rset.rrule(rrule.rrulestr(text, dtstart=dtstart))
    for text in exdates:
        rset.exdate(parse(text, zone))
    for text in rdates:
        rset.rdate(parse(text, zone))
    lower = parse(window_from, UTC if zone else None) if window_from else dtstart
    upper = parse(window_to or "20400101T000000", UTC if zone else None)
    return [utc_text(value, zone) for value in rset.between(lower, upper, inc=True) if value < upper]


def main():
    cases = []
    for name, zone_id, start, rules, exdates, rdates, window_from, window_to in CASES:
        occurrences = expand(zone_id, start, rules, exdates, rdates, window_from, window_to)
        cases.append({
            "name": name,
            "zone": zone_id,
            "start": start,
            "rules": rules,
            "exdates": exdates,
            "rdates": rdates,
            "from": (window_from + "Z") if window_from else None,
            "to": (window_to or "20400101T000000") + "Z",
            "occurrences": occurrences,
        })
    json.dump({"generator": "dateutil " + dateutil.__version__, "cases": cases}, sys.stdout, indent=1)
    sys.stdout.write("\n")


if __name__ == "__main__":
    main()
