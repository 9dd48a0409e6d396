#!/bin/sh
# malformed.sh DIR: writes the malformed calendars of docs/codec-choice.md into DIR. Each
# has one bad VEVENT (uid bad@example) and then a good one (good@example), CRLF line ends.
set -e
cd "$1"
head() { printf 'BEGIN:VCALENDAR\r\nVERSION:2.0\r\nPRODID:-//appt//libical-compare//EN\r\nBEGIN:VEVENT\r\nUID:bad@example\r\nDTSTAMP:20261201T120000Z\r\n'; }
good() { printf 'BEGIN:VEVENT\r\nUID:good@example\r\nDTSTAMP:20261201T120000Z\r\nDTSTART:20250116T090000Z\r\nDTEND:20250116T100000Z\r\nSUMMARY:Good event\r\nEND:VEVENT\r\nEND:VCALENDAR\r\n'; }
crlf() { printf '%s\r\n' "$@"; }
{ head; crlf 'DTSTART:20250115T090000Z' 'DTEND:20250115T100000Z' 'SUMMARY:Weekly' 'RRULE:FREQ=WEEKLY;BYDAY=XX' 'END:VEVENT'; good; } > 1-byday-xx.ics
{ head; crlf 'DTSTART:20250115T090000Z' 'DTEND:20250115T100000Z' 'SUMMARY:Never ends'; good; } > 2-unterminated-vevent.ics
{ head; crlf 'DTSTART:20250115T0900' 'DTEND:20250115T100000Z' 'SUMMARY:Short time' 'END:VEVENT'; good; } > 3-bad-date-time.ics
{ head; crlf 'DTSTART;TZID=Mars/Olympus_Mons:20250115T090000' 'DTEND;TZID=Mars/Olympus_Mons:20250115T100000' 'SUMMARY:On Mars' 'END:VEVENT'; good; } > 4-unknown-tzid.ics
{ head; crlf 'DTSTART:20250115T090000Z' 'DTEND:20250115T100000Z' 'SUMMARY Team meeting' 'END:VEVENT'; good; } > 5-no-colon.ics
# Not one of the five: a file cut off inside its second event (a broken download).
{ printf 'BEGIN:VCALENDAR\r\nVERSION:2.0\r\nPRODID:-//appt//libical-compare//EN\r\n'; good | sed '$d'; crlf 'BEGIN:VEVENT' 'UID:bad@example' 'DTSTART:20250117T090000Z'; } > 6-truncated.ics
