#!/usr/bin/env python3
"""Another CalDAV client (Python's `caldav`) for the tests: it seeds the throwaway servers and
writes events the way a phone or a web calendar would, so the Swift client is checked against
a second, independent implementation.

  client.py seed URL CAL_ID NAME COLOR     make the calendar URL/CAL_ID/ (MKCALENDAR, VEVENT)
                                           with display name NAME and Apple colour COLOR
  client.py put-event CALENDAR_URL UID     store one event with many properties as UID.ics;
                                           prints its href
  client.py get-event CALENDAR_URL UID     prints the stored event's iCalendar text

Credentials come from APPT_CALDAV_USER / APPT_CALDAV_PASSWORD (none when unset), a CA file
from APPT_CALDAV_CA_FILE; never from the command line (it shows in `ps`).
"""
import os
import sys

import caldav
from caldav.elements import ical


def client(url):
    return caldav.DAVClient(
        url=url,
        username=os.environ.get("APPT_CALDAV_USER") or None,
        password=os.environ.get("APPT_CALDAV_PASSWORD") or None,
        ssl_verify_cert=os.environ.get("APPT_CALDAV_CA_FILE") or True,
        require_tls=False,
        enable_rfc6764=False,
    )


EVENT = """BEGIN:VCALENDAR
VERSION:2.0
PRODID:-//appt tests//python caldav//EN
BEGIN:VTIMEZONE
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
BEGIN:VEVENT
UID:{uid}
DTSTAMP:20261201T120000Z
DTSTART;TZID=Europe/Berlin:20261207T100000
DTEND;TZID=Europe/Berlin:20261207T113000
SUMMARY:Dentist\\, with \\; a semicolon
LOCATION:Praxis Dr. Weiß\\, Hauptstr. 1
DESCRIPTION:Bring the forms.\\nSecond line.
CATEGORIES:health,errands
STATUS:CONFIRMED
RRULE:FREQ=WEEKLY;COUNT=3
X-PHONE-APP-FLAG:kept verbatim
BEGIN:VALARM
ACTION:DISPLAY
DESCRIPTION:Dentist
TRIGGER:-PT15M
END:VALARM
END:VEVENT
END:VCALENDAR
"""


def main(argv):
    if len(argv) == 6 and argv[1] == "seed":
        _, _, url, cal_id, name, color = argv
        principal = client(url).principal()
        calendar = principal.make_calendar(name=name, cal_id=cal_id, supported_calendar_component_set=["VEVENT"])
        calendar.set_properties([ical.CalendarColor(color)])
        print(calendar.url)
        return 0
    if len(argv) == 4 and argv[1] == "put-event":
        _, _, url, uid = argv
        calendar = client(url).calendar(url=url)
        event = calendar.save_event(EVENT.format(uid=uid))
        print(event.url)
        return 0
    if len(argv) == 4 and argv[1] == "get-event":
        _, _, url, uid = argv
        calendar = client(url).calendar(url=url)
        print(calendar.event_by_uid(uid).data)
        return 0
    print(__doc__, file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv))
