#!/usr/bin/env python3
"""Another CalDAV client for the sync tests (Tests/e2e/sync.sh): Python's `caldav` and
`icalendar` put, edit and delete events on a server the way a phone or a web calendar does,
and `dump` prints a canonical form of a calendar's events so that what the server holds and
what appt exports can be compared line by line.

  peer.py mkcal SERVER_URL CAL_ID NAME [COLOR]   make SERVER_URL's principal a calendar (MKCALENDAR,
                                                 VEVENT); prints its URL
  peer.py calendars SERVER_URL                   the principal's calendars: URL TAB display name
  peer.py create CAL_URL UID [--kind simple|full|series|allday] [--summary S]
                 [--start YYYYMMDDTHHMMSS] [--href NAME]
                                                 store a new event (If-None-Match: *) under a name
                                                 of the peer's choosing (not UID.ics, as phones do);
                                                 prints its href. full: attendees, organizer, two
                                                 alarms, categories, URL, X- properties and more;
                                                 series: a weekly series with an EXDATE and an
                                                 override (RECURRENCE-ID) that moves and renames
                                                 the third occurrence
  peer.py bulk CAL_URL COUNT [--prefix P]        COUNT simple events P-1 ... P-COUNT (raw PUTs on
                                                 one kept-alive connection)
  peer.py edit CAL_URL UID [--rid RID] NAME=VALUE... [--remove NAME]... [--keep-sequence]
                                                 set (or remove) properties of the master, or of
                                                 the override RID (YYYYMMDDTHHMMSS as in its
                                                 RECURRENCE-ID), PUT with If-Match; SEQUENCE goes
                                                 up by one unless --keep-sequence
  peer.py override CAL_URL UID RID NAME=VALUE... add an override of occurrence RID (a copy of the
                                                 master without RRULE/EXDATE, RECURRENCE-ID RID)
  peer.py cancel CAL_URL UID [--rid RID]         STATUS:CANCELLED (the master or one override)
  peer.py delete CAL_URL UID                     DELETE (If-Match) the resource holding UID
  peer.py move CAL_URL UID TO_CAL_URL            move the event to another calendar as a phone
                                                 does: PUT it there (If-None-Match: *), then
                                                 DELETE it here (If-Match)
  peer.py get CAL_URL UID                        the resource's iCalendar text
  peer.py put CAL_URL HREF FILE                  PUT FILE as HREF (If-None-Match: *)
  peer.py list CAL_URL | list-file FILE.ics      UID TAB RECURRENCE-ID TAB STATUS TAB SUMMARY, sorted
  peer.py dump CAL_URL | dump-file FILE.ics [--ignore NAME,...]
                                                 the canonical form (below), sorted
  peer.py dups CAL_URL                           UIDs held by more than one resource (none: nothing)
  peer.py uid CAL_URL SUMMARY                    the UID of the one master whose SUMMARY is SUMMARY
  peer.py batch CAL_URL                          run the lines of stdin, each one of
                                                 `create UID SUMMARY [KIND]`, `edit UID NAME=VALUE...`,
                                                 `cancel UID`, `delete UID` (shell quoting), in one
                                                 process
  peer.py count CAL_URL                          how many resources the calendar holds
  peer.py prefill-radicale DIR COUNT [--prefix P] [--name NAME]
  peer.py prefill-xandikos DIR COUNT [--prefix P] [--name NAME]
                                                 write a calendar of COUNT events straight into a
                                                 (stopped) server's storage: DIR is the collection
                                                 to make, e.g. ROOT/collection-root/USER/CAL or
                                                 ROOT/user/calendars/CAL (Xandikos: a git commit)

Canonical form: one line per property, `UID<TAB>RECURRENCE-ID<TAB>NAME;PARAMS:VALUE`, of every
VEVENT, with the lines folded back, parameter names upper case and sorted, parameter values
unquoted where they need no quotes, VALUE=DATE-TIME (the default) left out, CATEGORIES and
EXDATE/RDATE lines merged, and each VALARM as `VALARM.K/NAME...` lines (K the alarm's place
among the component's alarms in sorted order). DTSTAMP is left out (a writer stamps it anew), and so is SEQUENCE:0 (the default),
and so are VTIMEZONE components and the calendar's own properties (PRODID, VERSION,
X-WR-CALNAME...). A duplicate component shows as its lines twice. --ignore leaves out more
properties by name (e.g. LAST-MODIFIED,SEQUENCE).

APPT_CALDAV_TIMEOUT is how many seconds a request may take (default 60).
Credentials come from APPT_CALDAV_USER / APPT_CALDAV_PASSWORD (none when unset), a CA file
from APPT_CALDAV_CA_FILE; never from the command line (it shows in `ps`). An HTTP failure is
one line on stderr and exit 1.
"""
import base64
import hashlib
import http.client
import os
import re
import ssl
import subprocess
import sys
import urllib.parse
import xml.etree.ElementTree as ET

import caldav
import icalendar
from caldav.elements import ical
from caldav.lib import error as dav_error


def client(url):
    return caldav.DAVClient(
        url=url,
        username=os.environ.get("APPT_CALDAV_USER") or None,
        password=os.environ.get("APPT_CALDAV_PASSWORD") or None,
        ssl_verify_cert=os.environ.get("APPT_CALDAV_CA_FILE") or True,
        require_tls=False,
        enable_rfc6764=False,
    )


# seconds a request may take (APPT_CALDAV_TIMEOUT; a server's first scan of 10,000 files is slow)
TIMEOUT = float(os.environ.get("APPT_CALDAV_TIMEOUT") or 60)


class Failure(Exception):
    pass


# ---------------------------------------------------------------- raw HTTP on one connection


class Raw:
    """Plain requests on one kept-alive connection (http.client), so a test sees exactly what
    was sent: the `caldav` library is used for discovery and listing only."""

    def __init__(self, url):
        self.url = urllib.parse.urlsplit(url)
        self.connection = None

    def _connect(self):
        host = self.url.hostname
        port = self.url.port
        if self.url.scheme == "https":
            context = ssl.create_default_context(cafile=os.environ.get("APPT_CALDAV_CA_FILE") or None)
            return http.client.HTTPSConnection(host, port or 443, timeout=TIMEOUT, context=context)
        return http.client.HTTPConnection(host, port or 80, timeout=TIMEOUT)

    def request(self, method, path, body=None, headers=None):
        headers = dict(headers or {})
        user = os.environ.get("APPT_CALDAV_USER")
        if user:
            token = f"{user}:{os.environ.get('APPT_CALDAV_PASSWORD', '')}".encode()
            headers["Authorization"] = "Basic " + base64.b64encode(token).decode()
        if isinstance(body, str):
            body = body.encode()
        for attempt in (1, 2):
            if self.connection is None:
                self.connection = self._connect()
            try:
                self.connection.request(method, path, body=body, headers=headers)
                response = self.connection.getresponse()
                data = response.read()
                return response.status, dict((k.lower(), v) for k, v in response.getheaders()), data
            except (http.client.RemoteDisconnected, ConnectionResetError, BrokenPipeError):
                self.connection.close()
                self.connection = None
                if attempt == 2:
                    raise
        raise AssertionError("unreachable")


def collection_path(url):
    path = urllib.parse.urlsplit(url).path
    return path if path.endswith("/") else path + "/"


def href_for(uid):
    return "peer-" + hashlib.sha1(uid.encode()).hexdigest()[:12] + ".ics"


def check(status, what, data=b""):
    if status >= 300:
        text = data.decode("utf-8", "replace").strip().replace("\n", " ")[:200]
        raise Failure(f"{what}: HTTP {status} {text}")


# ---------------------------------------------------------------- events a peer writes

VTIMEZONE = """BEGIN:VTIMEZONE
TZID:Europe/Berlin
BEGIN:STANDARD
DTSTART:19701025T030000
RRULE:FREQ=YEARLY;BYMONTH=10;BYDAY=-1SU
TZOFFSETFROM:+0200
TZOFFSETTO:+0100
TZNAME:CET
END:STANDARD
BEGIN:DAYLIGHT
DTSTART:19700329T020000
RRULE:FREQ=YEARLY;BYMONTH=3;BYDAY=-1SU
TZOFFSETFROM:+0100
TZOFFSETTO:+0200
TZNAME:CEST
END:DAYLIGHT
END:VTIMEZONE
"""


def wrap(body, timezone=True):
    text = "BEGIN:VCALENDAR\nVERSION:2.0\nPRODID:-//appt tests//peer.py//EN\n"
    if timezone:
        text += VTIMEZONE
    text += body + "END:VCALENDAR\n"
    return text.replace("\r\n", "\n").replace("\n", "\r\n")


def shift_hours(start, hours):
    """YYYYMMDDTHHMMSS + hours (naive, for building test data)."""
    import datetime

    moment = datetime.datetime.strptime(start, "%Y%m%dT%H%M%S") + datetime.timedelta(hours=hours)
    return moment.strftime("%Y%m%dT%H%M%S")


def shift_days(start, days):
    import datetime

    moment = datetime.datetime.strptime(start, "%Y%m%dT%H%M%S") + datetime.timedelta(days=days)
    return moment.strftime("%Y%m%dT%H%M%S")


def event_text(kind, uid, summary, start):
    end = shift_hours(start, 1)
    if kind == "simple":
        return wrap(
            f"""BEGIN:VEVENT
UID:{uid}
DTSTAMP:20261201T120000Z
DTSTART;TZID=Europe/Berlin:{start}
DTEND;TZID=Europe/Berlin:{end}
SUMMARY:{summary}
END:VEVENT
"""
        )
    if kind == "allday":
        day = start[:8]
        next_day = shift_days(start, 1)[:8]
        return wrap(
            f"""BEGIN:VEVENT
UID:{uid}
DTSTAMP:20261201T120000Z
DTSTART;VALUE=DATE:{day}
DTEND;VALUE=DATE:{next_day}
SUMMARY:{summary}
TRANSP:TRANSPARENT
CATEGORIES:holiday
END:VEVENT
""",
            timezone=False,
        )
    if kind == "full":
        return wrap(
            f"""BEGIN:VEVENT
UID:{uid}
DTSTAMP:20261201T120000Z
CREATED:20261120T080000Z
LAST-MODIFIED:20261121T093000Z
SEQUENCE:2
DTSTART;TZID=Europe/Berlin:{start}
DTEND;TZID=Europe/Berlin:{shift_hours(start, 1.5)}
SUMMARY:{summary}
LOCATION:Praxis Dr. Weiß\\, Hauptstr. 1\\; 2. Stock
DESCRIPTION:Bring the forms.\\nSecond line\\, with a comma.
CATEGORIES:health,errands
CATEGORIES:family
CLASS:PRIVATE
PRIORITY:5
TRANSP:OPAQUE
STATUS:CONFIRMED
URL:https://example.com/booking?id=42&lang=de
GEO:52.520008;13.404954
ORGANIZER;CN="Dr. Weiß":mailto:praxis@example.com
ATTENDEE;CN=Alice Example;ROLE=REQ-PARTICIPANT;PARTSTAT=ACCEPTED;RSVP=TRUE:mailto:alice@example.com
ATTENDEE;CN="Bob, the builder";ROLE=OPT-PARTICIPANT;PARTSTAT=NEEDS-ACTION;CUTYPE=INDIVIDUAL:mailto:bob@example.com
ATTACH;FMTTYPE=application/pdf:https://example.com/forms.pdf
COLOR:teal
X-APPLE-TRAVEL-ADVISORY-BEHAVIOR:AUTOMATIC
X-MICROSOFT-CDO-BUSYSTATUS;X-PARAM=kept:BUSY
X-PHONE-APP-FLAG:kept verbatim\\, with a comma
BEGIN:VALARM
ACTION:DISPLAY
DESCRIPTION:Dentist in 15 minutes
TRIGGER:-PT15M
X-WR-ALARMUID:{uid}-alarm-1
END:VALARM
BEGIN:VALARM
ACTION:EMAIL
SUMMARY:Dentist tomorrow
DESCRIPTION:Tomorrow at the dentist
ATTENDEE:mailto:alice@example.com
TRIGGER;RELATED=START:-P1D
END:VALARM
END:VEVENT
"""
        )
    if kind == "series":
        third = shift_days(start, 14)
        fourth = shift_days(start, 21)
        return wrap(
            f"""BEGIN:VEVENT
UID:{uid}
DTSTAMP:20261201T120000Z
DTSTART;TZID=Europe/Berlin:{start}
DTEND;TZID=Europe/Berlin:{end}
SUMMARY:{summary}
RRULE:FREQ=WEEKLY;COUNT=6
EXDATE;TZID=Europe/Berlin:{fourth}
CATEGORIES:team
X-SERIES-NOTE:kept on the master
BEGIN:VALARM
ACTION:DISPLAY
DESCRIPTION:{summary}
TRIGGER:-PT10M
END:VALARM
END:VEVENT
BEGIN:VEVENT
UID:{uid}
DTSTAMP:20261201T120000Z
RECURRENCE-ID;TZID=Europe/Berlin:{third}
DTSTART;TZID=Europe/Berlin:{shift_hours(third, 2)}
DTEND;TZID=Europe/Berlin:{shift_hours(third, 3)}
SUMMARY:{summary} (moved)
LOCATION:Room 4
X-OVERRIDE-NOTE:kept on the override
END:VEVENT
"""
        )
    raise Failure(f"unknown kind {kind} (simple, full, series, allday)")


# ---------------------------------------------------------------- listing a calendar


def resources(url):
    """[(href, etag, text)] of every resource of the calendar (calendar-query, with data)."""
    raw = Raw(url)
    body = """<?xml version="1.0" encoding="utf-8"?>
<C:calendar-query xmlns:D="DAV:" xmlns:C="urn:ietf:params:xml:ns:caldav">
  <D:prop><D:getetag/><C:calendar-data/></D:prop>
  <C:filter><C:comp-filter name="VCALENDAR"/></C:filter>
</C:calendar-query>"""
    status, _, data = raw.request(
        "REPORT",
        collection_path(url),
        body,
        {"Depth": "1", "Content-Type": "application/xml; charset=utf-8"},
    )
    check(status, f"REPORT {url}", data)
    ns = {"D": "DAV:", "C": "urn:ietf:params:xml:ns:caldav"}
    out = []
    try:
        root = ET.fromstring(data)
    except ET.ParseError as error:
        raise Failure(f"REPORT {url}: the answer is not XML ({error})")
    for response in root.findall("D:response", ns):
        href = response.findtext("D:href", default="", namespaces=ns)
        etag = None
        text = None
        for propstat in response.findall("D:propstat", ns):
            if "200" not in (propstat.findtext("D:status", default="", namespaces=ns)):
                continue
            etag = propstat.findtext("D:prop/D:getetag", default=None, namespaces=ns) or etag
            text = propstat.findtext("D:prop/C:calendar-data", default=None, namespaces=ns) or text
        if text is not None:
            out.append((urllib.parse.unquote(href), etag, text))
    return out


def uid_of(text):
    for line in unfold(text):
        if line.upper().startswith("UID:") or line.upper().startswith("UID;"):
            return line.split(":", 1)[1]
    return None


def find(url, uid):
    matches = [r for r in resources(url) if uid_of(r[2]) == uid]
    if not matches:
        raise Failure(f"no event with UID {uid} in {url}")
    if len(matches) > 1:
        raise Failure(f"UID {uid} is held by {len(matches)} resources in {url}")
    return matches[0]


# ---------------------------------------------------------------- the canonical form


def unfold(text):
    text = text.replace("\r\n", "\n").replace("\r", "\n")
    lines = []
    for line in text.split("\n"):
        if line[:1] in (" ", "\t") and lines:
            lines[-1] += line[1:]
        elif line:
            lines.append(line)
    return lines


def split_line(line):
    """NAME, [(PARAM, VALUE)], VALUE of one unfolded content line (quotes respected)."""
    i = 0
    in_quotes = False
    cut = None
    while i < len(line):
        c = line[i]
        if c == '"':
            in_quotes = not in_quotes
        elif c == ":" and not in_quotes:
            cut = i
            break
        i += 1
    if cut is None:
        return line.upper(), [], ""
    head, value = line[:cut], line[cut + 1 :]
    parts = []
    current = ""
    in_quotes = False
    for c in head:
        if c == '"':
            in_quotes = not in_quotes
            current += c
        elif c == ";" and not in_quotes:
            parts.append(current)
            current = ""
        else:
            current += c
    parts.append(current)
    name = parts[0].upper()
    params = []
    for part in parts[1:]:
        if "=" in part:
            key, raw_value = part.split("=", 1)
        else:
            key, raw_value = part, ""
        values = []
        current = ""
        in_quotes = False
        for c in raw_value:
            if c == '"':
                in_quotes = not in_quotes
            elif c == "," and not in_quotes:
                values.append(current)
                current = ""
            else:
                current += c
        values.append(current)
        params.append((key.upper(), values))
    return name, params, value


UPPER_PARAMS = {"VALUE", "ROLE", "PARTSTAT", "RSVP", "CUTYPE", "RELATED", "RANGE", "ENCODING", "FBTYPE", "RELTYPE"}
LIST_PROPERTIES = {"CATEGORIES", "EXDATE", "RDATE", "RESOURCES"}
SKIPPED_ALWAYS = {"DTSTAMP"}


def unescape(value):
    return re.sub(r"\\(.)", lambda m: "\n" if m.group(1) in "nN" else m.group(1), value)


def split_commas(value):
    """Split a list value on commas that are not escaped."""
    items = []
    current = ""
    i = 0
    while i < len(value):
        c = value[i]
        if c == "\\" and i + 1 < len(value):
            current += value[i : i + 2]
            i += 2
            continue
        if c == ",":
            items.append(current)
            current = ""
        else:
            current += c
        i += 1
    items.append(current)
    return items


def canonical_param(key, values):
    if key in UPPER_PARAMS:
        values = [v.upper() for v in values]
    shown = []
    for v in values:
        shown.append(f'"{v}"' if re.search(r'[:;,]', v) else v)
    return f"{key}={','.join(shown)}"


def canonical_value(name, value):
    # \N and \n mean the same line break
    return value.replace("\\N", "\\n")


def canonical_component(lines, ignore):
    """Sorted canonical lines of one component's own properties, then its VALARMs."""
    props = {}
    order = []
    alarms = []
    depth = 0
    sub = []
    for line in lines:
        name, params, value = split_line(line)
        if name == "BEGIN":
            depth += 1
            if depth > 1:
                sub.append(line)
            continue
        if name == "END":
            if depth > 1:
                sub.append(line)
            depth -= 1
            if depth == 1 and sub:
                alarms.append(sub)
                sub = []
            continue
        if depth > 1:
            sub.append(line)
            continue
        if name in SKIPPED_ALWAYS or name in ignore:
            continue
        if name == "SEQUENCE" and value.strip() == "0":
            continue  # the default (RFC 5545): a writer may or may not spell it
        params = [(k, v) for k, v in params if not (k == "VALUE" and [x.upper() for x in v] == ["DATE-TIME"])]
        head = ";".join([name] + [canonical_param(k, v) for k, v in sorted(params)])
        value = canonical_value(name, value)
        if name in LIST_PROPERTIES:
            key = head
            if key not in props:
                props[key] = []
                order.append(key)
            props[key].extend(split_commas(value))
        else:
            order.append(None)
            props.setdefault(None, []).append(f"{head}:{value}")
    out = []
    for key, values in props.items():
        if key is None:
            out.extend(values)
        elif key.startswith("EXDATE") or key.startswith("RDATE"):
            out.append(f"{key}:{','.join(sorted(values))}")
        else:
            out.append(f"{key}:{','.join(values)}")
    out.sort()
    alarm_blocks = []
    for alarm in alarms:
        # strip the BEGIN/END lines of the alarm itself
        inner = alarm[1:-1]
        alarm_blocks.append(canonical_component(["BEGIN:X"] + inner + ["END:X"], ignore))
    alarm_blocks.sort()
    for k, block in enumerate(alarm_blocks):
        out.extend(f"VALARM.{k + 1}/{line}" for line in block)
    return out


def components(text):
    """[(UID, RECURRENCE-ID, [lines])] of the VEVENTs in an iCalendar text."""
    out = []
    current = None
    depth = 0
    for line in unfold(text):
        name, params, value = split_line(line)
        if name == "BEGIN" and value.upper() == "VEVENT" and current is None:
            current = [line]
            depth = 1
            continue
        if current is not None:
            current.append(line)
            if name == "BEGIN":
                depth += 1
            elif name == "END":
                depth -= 1
                if depth == 0:
                    uid = ""
                    rid = "-"
                    for inner in current[1:-1]:
                        n, p, v = split_line(inner)
                        if n == "UID" and not uid:
                            uid = v
                        elif n == "RECURRENCE-ID":
                            rid = v
                    out.append((uid, rid, current))
                    current = None
    return out


def dump_texts(texts, ignore):
    lines = []
    for text in texts:
        for uid, rid, comp in components(text):
            for line in canonical_component(comp, ignore):
                lines.append(f"{uid}\t{rid}\t{line}")
    lines.sort()
    return lines


def list_texts(texts):
    rows = []
    for text in texts:
        for uid, rid, comp in components(text):
            status = "CONFIRMED"
            summary = ""
            depth = 0
            for line in comp:
                n, p, v = split_line(line)
                if n == "BEGIN":
                    depth += 1
                elif n == "END":
                    depth -= 1
                elif depth == 1 and n == "STATUS":
                    status = v.upper()
                elif depth == 1 and n == "SUMMARY":
                    summary = unescape(v)
            if status == "TENTATIVE":
                status = "CONFIRMED"
            rows.append(f"{uid}\t{rid}\t{status}\t{summary}")
    rows.sort()
    return rows


# ---------------------------------------------------------------- editing


def parse_assignments(args):
    sets = []
    removes = []
    rid = None
    i = 0
    while i < len(args):
        a = args[i]
        if a == "--keep-sequence":
            removes.append("--keep-sequence")
            i += 1
            continue
        if a == "--rid":
            rid = args[i + 1]
            i += 2
            continue
        if a == "--remove":
            removes.append(args[i + 1].upper())
            i += 2
            continue
        if "=" not in a:
            raise Failure(f"not NAME=VALUE: {a}")
        name, value = a.split("=", 1)
        sets.append((name.upper(), value))
        i += 1
    return rid, sets, removes


def rid_matches(component, rid):
    value = component.get("RECURRENCE-ID")
    if rid is None:
        return value is None
    if value is None:
        return False
    return value.to_ical().decode() == rid


def apply_sets(component, sets, removes):
    """Set NAME=VALUE (a DTSTART/DTEND of YYYYMMDDTHHMMSS is local time in the component's
    zone) and remove NAMEs; SEQUENCE goes up by one, as a phone's edit does."""
    import datetime
    import zoneinfo

    keep_sequence = "--keep-sequence" in removes
    for name in removes:
        while name in component:
            del component[name]
    for name, value in sets:
        zone = None
        start = component.get("DTSTART")
        if start is not None:
            zone = start.params.get("TZID")
        while name in component:
            del component[name]
        if name in ("DTSTART", "DTEND") and re.fullmatch(r"\d{8}T\d{6}", value):
            moment = datetime.datetime.strptime(value, "%Y%m%dT%H%M%S")
            if zone:
                moment = moment.replace(tzinfo=zoneinfo.ZoneInfo(zone))
            component.add(name, moment)
            continue
        component.add(name, value)
    if not keep_sequence:
        component["SEQUENCE"] = int(component.get("SEQUENCE", 0)) + 1


def put_text(raw, path, text, etag=None, create=False):
    headers = {"Content-Type": "text/calendar; charset=utf-8"}
    if create:
        headers["If-None-Match"] = "*"
    elif etag:
        headers["If-Match"] = etag
    status, response_headers, data = raw.request("PUT", path, text, headers)
    check(status, f"PUT {path}", data)
    return response_headers.get("etag")


def edit(url, uid, args):
    rid, sets, removes = parse_assignments(args)
    href, etag, text = find(url, uid)
    calendar = icalendar.Calendar.from_ical(text)
    found = False
    for component in calendar.walk("VEVENT"):
        if rid_matches(component, rid):
            apply_sets(component, sets, removes)
            found = True
    if not found:
        raise Failure(f"{uid} has no {'override ' + rid if rid else 'master'} in {url}")
    put_text(Raw(url), href, calendar.to_ical().decode())


def add_override(url, uid, rid, args):
    _, sets, removes = parse_assignments(args)
    href, etag, text = find(url, uid)
    calendar = icalendar.Calendar.from_ical(text)
    masters = [c for c in calendar.walk("VEVENT") if c.get("RECURRENCE-ID") is None]
    if not masters:
        raise Failure(f"{uid} has no master")
    master = masters[0]
    zone = master["DTSTART"].params.get("TZID")
    lines = [f"UID:{uid}", "DTSTAMP:20261201T120000Z"]
    tz = f";TZID={zone}" if zone else ""
    lines.append(f"RECURRENCE-ID{tz}:{rid}")
    lines.append(f"DTSTART{tz}:{rid}")
    duration = master["DTEND"].dt - master["DTSTART"].dt
    hours = duration.total_seconds() / 3600
    lines.append(f"DTEND{tz}:{shift_hours(rid, hours)}")
    lines.append(f"SUMMARY:{master.get('SUMMARY')}")
    component = icalendar.Event.from_ical("BEGIN:VEVENT\r\n" + "\r\n".join(lines) + "\r\nEND:VEVENT\r\n")
    apply_sets(component, sets, removes)
    calendar.add_component(component)
    put_text(Raw(url), href, calendar.to_ical().decode())


# ---------------------------------------------------------------- storage pre-fill


def simple_events(count, prefix, name):
    import datetime

    base = datetime.datetime(2026, 1, 5, 8, 0)
    for i in range(1, count + 1):
        uid = f"{prefix}-{i}"
        # spread over two years of weekdays, 30-90 minutes, quarter hours
        moment = base + datetime.timedelta(days=(i * 7) % 730, minutes=15 * ((i * 13) % 40))
        end = moment + datetime.timedelta(minutes=30 + 15 * (i % 5))
        yield uid, wrap(
            f"""BEGIN:VEVENT
UID:{uid}
DTSTAMP:20261201T120000Z
DTSTART:{moment.strftime('%Y%m%dT%H%M%S')}Z
DTEND:{end.strftime('%Y%m%dT%H%M%S')}Z
SUMMARY:{name} {i}
DESCRIPTION:Event number {i} of {count}
X-PREFILL:{i}
END:VEVENT
""",
            timezone=False,
        )


def prefill_radicale(directory, count, prefix, name):
    import json

    os.makedirs(directory, exist_ok=False)
    with open(os.path.join(directory, ".Radicale.props"), "w") as f:
        json.dump({"tag": "VCALENDAR", "D:displayname": name, "C:supported-calendar-component-set": "VEVENT"}, f)
    for uid, text in simple_events(count, prefix, name):
        with open(os.path.join(directory, uid + ".ics"), "w", newline="") as f:
            f.write(text)


def prefill_xandikos(directory, count, prefix, name):
    os.makedirs(directory, exist_ok=False)
    with open(os.path.join(directory, ".xandikos"), "w") as f:
        f.write(f"[DEFAULT]\ntype = calendar\ndisplayname = {name}\n")
    for uid, text in simple_events(count, prefix, name):
        with open(os.path.join(directory, uid + ".ics"), "w", newline="") as f:
            f.write(text)
    env = dict(os.environ, GIT_AUTHOR_NAME="peer", GIT_AUTHOR_EMAIL="peer@example.com",
               GIT_COMMITTER_NAME="peer", GIT_COMMITTER_EMAIL="peer@example.com")
    for command in (["git", "init", "-q"], ["git", "add", "-A"], ["git", "commit", "-q", "-m", f"prefill {count}"]):
        subprocess.run(command, cwd=directory, env=env, check=True)


# ---------------------------------------------------------------- main


def option(args, name, default=None):
    if name in args:
        i = args.index(name)
        value = args[i + 1]
        del args[i : i + 2]
        return value
    return default


def main(argv):
    args = argv[1:]
    if not args:
        print(__doc__, file=sys.stderr)
        return 2
    command = args.pop(0)
    if command == "mkcal" and len(args) in (3, 4):
        principal = client(args[0]).principal()
        calendar = principal.make_calendar(name=args[2], cal_id=args[1], supported_calendar_component_set=["VEVENT"])
        if len(args) == 4:
            calendar.set_properties([ical.CalendarColor(args[3])])
        print(calendar.url)
        return 0
    if command == "calendars" and len(args) == 1:
        for calendar in client(args[0]).principal().calendars():
            print(f"{calendar.url}\t{calendar.get_display_name()}")
        return 0
    if command == "create" and len(args) >= 2:
        kind = option(args, "--kind", "simple")
        summary = option(args, "--summary", None)
        start = option(args, "--start", "20261207T100000")
        href = option(args, "--href", None)
        url, uid = args[0], args[1]
        if len(args) != 2:
            raise Failure(f"create: unexpected {args[2:]}")
        text = event_text(kind, uid, summary or f"Peer {kind} {uid}", start)
        path = collection_path(url) + (href or href_for(uid))
        put_text(Raw(url), path, text, create=True)
        print(path)
        return 0
    if command == "bulk" and len(args) >= 2:
        prefix = option(args, "--prefix", "bulk")
        url, count = args[0], int(args[1])
        raw = Raw(url)
        for uid, text in simple_events(count, prefix, prefix):
            put_text(raw, collection_path(url) + href_for(uid), text, create=True)
        return 0
    if command == "edit" and len(args) >= 3:
        edit(args[0], args[1], args[2:])
        return 0
    if command == "override" and len(args) >= 3:
        add_override(args[0], args[1], args[2], args[3:])
        return 0
    if command == "cancel" and len(args) >= 2:
        edit(args[0], args[1], args[2:] + ["STATUS=CANCELLED"])
        return 0
    if command == "delete" and len(args) == 2:
        href, etag, _ = find(args[0], args[1])
        status, _, data = Raw(args[0]).request("DELETE", href, None, {"If-Match": etag} if etag else {})
        check(status, f"DELETE {href}", data)
        return 0
    if command == "move" and len(args) == 3:
        href, etag, text = find(args[0], args[1])
        put_text(Raw(args[2]), collection_path(args[2]) + href_for(args[1]), text, create=True)
        status, _, data = Raw(args[0]).request("DELETE", href, None, {"If-Match": etag} if etag else {})
        check(status, f"DELETE {href}", data)
        return 0
    if command == "get" and len(args) == 2:
        sys.stdout.write(find(args[0], args[1])[2])
        return 0
    if command == "put" and len(args) == 3:
        with open(args[2], encoding="utf-8") as f:
            put_text(Raw(args[0]), collection_path(args[0]) + args[1], f.read(), create=True)
        return 0
    if command == "list" and len(args) == 1:
        print("\n".join(list_texts([r[2] for r in resources(args[0])])))
        return 0
    if command == "list-file" and len(args) == 1:
        with open(args[0], encoding="utf-8") as f:
            print("\n".join(list_texts([f.read()])))
        return 0
    if command in ("dump", "dump-file") and len(args) >= 1:
        ignore = {n.strip().upper() for n in (option(args, "--ignore", "") or "").split(",") if n.strip()}
        if command == "dump":
            texts = [r[2] for r in resources(args[0])]
        else:
            with open(args[0], encoding="utf-8") as f:
                texts = [f.read()]
        print("\n".join(dump_texts(texts, ignore)))
        return 0
    if command == "dups" and len(args) == 1:
        seen = {}
        for href, _, text in resources(args[0]):
            for uid, _, _ in components(text):
                seen.setdefault(uid, set()).add(href)
        for uid, hrefs in sorted(seen.items()):
            if len(hrefs) > 1:
                print(f"{uid}\t{' '.join(sorted(hrefs))}")
        return 0
    if command == "uid" and len(args) == 2:
        found = []
        for href, _, text in resources(args[0]):
            for uid, rid, comp in components(text):
                if rid == "-" and any(split_line(l)[0] == "SUMMARY" and unescape(split_line(l)[2]) == args[1] for l in comp):
                    found.append(uid)
        if len(found) != 1:
            raise Failure(f"{len(found)} events titled {args[1]!r} in {args[0]}")
        print(found[0])
        return 0
    if command == "batch" and len(args) == 1:
        import shlex

        url = args[0]
        raw = Raw(url)
        for line in sys.stdin:
            words = shlex.split(line)
            if not words:
                continue
            op, rest = words[0], words[1:]
            if op == "create" and len(rest) in (2, 3):
                kind = rest[2] if len(rest) == 3 else "simple"
                put_text(raw, collection_path(url) + href_for(rest[0]), event_text(kind, rest[0], rest[1], "20261207T100000"), create=True)
            elif op == "edit" and len(rest) >= 2:
                edit(url, rest[0], rest[1:])
            elif op == "cancel" and len(rest) == 1:
                edit(url, rest[0], ["STATUS=CANCELLED"])
            elif op == "delete" and len(rest) == 1:
                href, etag, _ = find(url, rest[0])
                status, _, data = raw.request("DELETE", href, None, {"If-Match": etag} if etag else {})
                check(status, f"DELETE {href}", data)
            else:
                raise Failure(f"batch: cannot read {line.strip()!r}")
        return 0
    if command == "count" and len(args) == 1:
        print(len(resources(args[0])))
        return 0
    if command in ("prefill-radicale", "prefill-xandikos") and len(args) >= 2:
        prefix = option(args, "--prefix", "pre")
        name = option(args, "--name", "Prefilled")
        fill = prefill_radicale if command == "prefill-radicale" else prefill_xandikos
        fill(args[0], int(args[1]), prefix, name)
        return 0
    print(__doc__, file=sys.stderr)
    return 2


if __name__ == "__main__":
    try:
        sys.exit(main(sys.argv))
    except (Failure, dav_error.DAVError, OSError, http.client.HTTPException) as error:
        print(f"peer.py: {error}", file=sys.stderr)
        sys.exit(1)
