// Reads an iCalendar text on stdin with ical.js and prints its events as JSON: uid, summary,
// description, all_day, start and end (UNIX seconds through the feed's own VTIMEZONEs; all-day
// events: their dates).
const ICAL = require("ical.js");

let text = "";
process.stdin.on("data", (d) => (text += d));
process.stdin.on("end", () => {
  const cal = new ICAL.Component(ICAL.parse(text));
  for (const vtz of cal.getAllSubcomponents("vtimezone")) {
    ICAL.TimezoneService.register(vtz);
  }
  const out = cal.getAllSubcomponents("vevent").map((c) => {
    const e = new ICAL.Event(c);
    const allDay = e.startDate.isDate;
    const when = (t) => (allDay ? t.toString() : t.toUnixTime());
    return {
      uid: e.uid,
      summary: e.summary,
      description: e.description,
      all_day: allDay,
      start: String(when(e.startDate)),
      end: String(when(e.endDate)),
    };
  });
  process.stdout.write(JSON.stringify(out));
});
