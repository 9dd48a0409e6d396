#!/usr/bin/env python3
"""roundtrip.py ORIGINAL EXPORTED: is EXPORTED (appt's export of an import of ORIGINAL) the
same calendar as ORIGINAL, component by component? Both are parsed with Python's icalendar.

Compared:
- every VEVENT of ORIGINAL, matched in EXPORTED by UID + RECURRENCE-ID (the instant, so a
  RECURRENCE-ID written in another zone still matches, and then differs as a value): the same
  multiset of property names, each with an equal value and equal parameters, and the same
  multiset of sub-components (VALARM, unknown ones), compared the same way, recursively;
- every VTIMEZONE of ORIGINAL that a VEVENT refers to (a TZID parameter), matched by TZID;
- EXPORTED has no VEVENT that ORIGINAL lacks.
Values: dates and date-times as their value and TZID parameter (the text icalendar writes for
them, which keeps the wall-clock time, the Z or the DATE); everything else by the bytes
icalendar's to_ical() gives for it (so escaping and folding do not matter, content does).

Tolerated (not differences):
- DTSTAMP is ignored (appt writes the time of the export).
- CREATED, LAST-MODIFIED and SEQUENCE may be added where ORIGINAL lacks them; where ORIGINAL
  has them, they must be equal.
- The VALUE parameter of a date or date-time property is not compared (the value itself
  shows whether it is a DATE, a DATE-TIME or a PERIOD).
- Calendar-level properties (PRODID, VERSION, CALSCALE, METHOD, X-WR-*) are not compared.
- VTODO, VJOURNAL and VFREEBUSY are not compared (appt is an appointment book: it imports
  the events beside them and says so), nor are unknown top-level components.
- EXPORTED may have VTIMEZONEs that ORIGINAL lacks (appt writes one for each zone it uses),
  and a VTIMEZONE of ORIGINAL that no VEVENT refers to need not come back.
- Several copies of one (UID, RECURRENCE-ID) in ORIGINAL: only the one with the highest
  SEQUENCE (the later one on a tie) is expected back, since it replaces the others.

Prints each difference with the UID and the property; exit status 1 on any, 0 when none.
"""

import sys
from collections import Counter
from datetime import date, datetime, timezone

import icalendar

IGNORED = {"DTSTAMP"}
MAY_BE_ADDED = {"CREATED", "LAST-MODIFIED", "SEQUENCE"}
DATE_PROPS = {"DTSTART", "DTEND", "DUE", "RECURRENCE-ID", "EXDATE", "RDATE", "CREATED",
              "LAST-MODIFIED", "DTSTAMP", "COMPLETED", "TRIGGER"}
SKIPPED_COMPONENTS = {"VTODO", "VJOURNAL", "VFREEBUSY"}


def load(path):
    with open(path, "rb") as f:
        return icalendar.Calendar.from_ical(f.read(), multiple=True)


def params_of(name, prop):
    params = getattr(prop, "params", {}) or {}
    out = []
    for key, value in params.items():
        key = key.upper()
        if key == "VALUE" and name in DATE_PROPS:
            continue
        if isinstance(value, (list, tuple)):
            value = tuple(str(v) for v in value)
        else:
            value = str(value)
        out.append((key, value))
    return tuple(sorted(out))


def value_of(prop):
    try:
        text = prop.to_ical()
        return text.decode("utf-8", "replace") if isinstance(text, bytes) else str(text)
    except Exception as error:  # a value icalendar cannot write back: compare its text
        return f"<{type(prop).__name__}: {error}: {prop!r}>"


def props_of(component):
    """[(NAME, params, value)] of one component's own properties."""
    out = []
    for name, prop in component.property_items(recursive=False, sorted=False):
        name = name.upper()
        if name in ("BEGIN", "END"):
            continue
        out.append((name, params_of(name, prop), value_of(prop)))
    return out


def canonical(component):
    """A comparable form of a component and its sub-components, recursively."""
    return (
        component.name,
        tuple(sorted(props_of(component))),
        tuple(sorted(canonical(sub) for sub in component.subcomponents)),
    )


def show(entry):
    name, params, value = entry
    ptext = "".join(f";{k}={','.join(v) if isinstance(v, tuple) else v}" for k, v in params)
    return f"{name}{ptext}:{value}"


def instant_key(prop):
    if prop is None:
        return None
    dt = prop.dt
    if isinstance(dt, datetime):
        if dt.tzinfo is None:
            tzid = prop.params.get("TZID")
            return f"{dt.isoformat()} {tzid or 'floating'}"
        return dt.astimezone(timezone.utc).isoformat()
    if isinstance(dt, date):
        return dt.isoformat()
    return str(dt)


def events(cals):
    """(UID, RECURRENCE-ID instant) -> [VEVENT...] in file order."""
    out = {}
    for cal in cals:
        for comp in cal.walk("VEVENT"):
            key = (str(comp.get("UID", "")), instant_key(comp.get("RECURRENCE-ID")))
            out.setdefault(key, []).append(comp)
    return out


def label(key):
    uid, rid = key
    return f"UID {uid}" + (f" RECURRENCE-ID {rid}" if rid else "")


def compare_props(where, original, exported, problems):
    orig = props_of(original)
    exp = props_of(exported)
    orig_names = {n for n, _, _ in orig}
    orig = [e for e in orig if e[0] not in IGNORED]
    exp = [e for e in exp if e[0] not in IGNORED and not (e[0] in MAY_BE_ADDED and e[0] not in orig_names)]
    missing = Counter(orig) - Counter(exp)
    extra = Counter(exp) - Counter(orig)
    names = sorted({e[0] for e in missing} | {e[0] for e in extra})
    for name in names:
        for entry in sorted(e for e in missing.elements() if e[0] == name):
            problems.append(f"{where}: {name}: lost or changed: {show(entry)}")
        for entry in sorted(e for e in extra.elements() if e[0] == name):
            problems.append(f"{where}: {name}: exported instead or in addition: {show(entry)}")
    orig_subs = Counter(canonical(s) for s in original.subcomponents)
    exp_subs = Counter(canonical(s) for s in exported.subcomponents)
    for sub in sorted((orig_subs - exp_subs).elements()):
        problems.append(f"{where}: {sub[0]}: lost or changed: " + "; ".join(show(p) for p in sub[1]))
    for sub in sorted((exp_subs - orig_subs).elements()):
        problems.append(f"{where}: {sub[0]}: exported instead or in addition: " + "; ".join(show(p) for p in sub[1]))


def tzids_used(component, into):
    for _, prop in component.property_items(recursive=True, sorted=False):
        params = getattr(prop, "params", None)
        if params and "TZID" in params:
            into.add(str(params["TZID"]))
    return into


def main():
    if len(sys.argv) != 3:
        print("usage: roundtrip.py ORIGINAL EXPORTED", file=sys.stderr)
        sys.exit(2)
    original, exported = load(sys.argv[1]), load(sys.argv[2])
    problems = []

    orig_events, exp_events = events(original), events(exported)
    for key, copies in orig_events.items():
        expected = copies[0]
        for comp in copies[1:]:
            if int(comp.get("SEQUENCE", 0)) >= int(expected.get("SEQUENCE", 0)):
                expected = comp
        found = exp_events.get(key, [])
        if not found:
            problems.append(f"{label(key)}: VEVENT missing from the export (SUMMARY {expected.get('SUMMARY')})")
            continue
        if len(found) > 1:
            problems.append(f"{label(key)}: exported {len(found)} times")
        compare_props(label(key), expected, found[0], problems)
    for key in exp_events:
        if key not in orig_events:
            problems.append(f"{label(key)}: VEVENT in the export that the original lacks (SUMMARY {exp_events[key][0].get('SUMMARY')})")

    used = set()
    for copies in orig_events.values():
        for comp in copies:
            tzids_used(comp, used)
    exp_zones = {str(z["TZID"]): z for cal in exported for z in cal.walk("VTIMEZONE")}
    for cal in original:
        for zone in cal.walk("VTIMEZONE"):
            tzid = str(zone.get("TZID"))
            if tzid not in used:
                continue
            if tzid not in exp_zones:
                problems.append(f"VTIMEZONE {tzid}: missing from the export")
                continue
            if canonical(zone) != canonical(exp_zones[tzid]):
                compare_props(f"VTIMEZONE {tzid}", zone, exp_zones[tzid], problems)

    for line in problems:
        print(line)
    sys.exit(1 if problems else 0)


if __name__ == "__main__":
    main()
