"""Reads an iCalendar text on stdin with Python's icalendar and prints its events as JSON: uid,
summary, description, all_day, start and end (UNIX seconds, the TZID read through the system's zone
database; all-day events: their dates)."""
import datetime
import json
import sys

import icalendar

cal = icalendar.Calendar.from_ical(sys.stdin.buffer.read())
out = []
for ev in cal.walk("VEVENT"):
    start, end = ev.decoded("DTSTART"), ev.decoded("DTEND")
    all_day = not isinstance(start, datetime.datetime)

    def when(t):
        if all_day:
            return t.isoformat()
        if t.tzinfo is None:
            raise SystemExit("floating time: " + t.isoformat())
        return str(int(t.timestamp()))

    out.append({
        "uid": str(ev.get("UID")),
        "summary": str(ev.get("SUMMARY")),
        "description": str(ev.get("DESCRIPTION", "")),
        "all_day": all_day,
        "start": when(start),
        "end": when(end),
    })
json.dump(out, sys.stdout, ensure_ascii=False)
