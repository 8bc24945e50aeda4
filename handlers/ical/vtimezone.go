package ical

import (
	"fmt"
	"strings"
	"time"
)

// zoneYears is the span of event years one VTIMEZONE block covers.
type zoneYears struct {
	name       string
	loc        *time.Location
	start, end int // earliest start year, latest end year
}

// vtimezone writes the block of one zone as iCal::get_timezones does: PHP's
// DateTimeZone::getTransitions from January 1st of (start year - 1) to December 31st of (end year
// + 1), 00:00 UTC; the first entry (the state at the range start) only gives the first
// TZOFFSETFROM, and a zone without transitions in the range gets that entry twice, as one
// STANDARD (or DAYLIGHT) block starting at the range start. The plugin writes each DTSTART as the
// transition's UTC instant; rfc writes its local time before the change (TZOFFSETFROM), as RFC 5545
// reads it.
func vtimezone(b *strings.Builder, z zoneYears, rfc bool) {
	from := time.Date(z.start-1, 1, 1, 0, 0, 0, 0, time.UTC)
	to := time.Date(z.end+1, 12, 31, 0, 0, 0, 0, time.UTC)
	type transition struct {
		at     time.Time
		offset int
		abbr   string
		dst    bool
	}
	state := func(t time.Time) transition {
		lt := t.In(z.loc)
		abbr, off := lt.Zone()
		return transition{at: t, offset: off, abbr: abbr, dst: lt.IsDST()}
	}
	list := []transition{state(from)}
	for t := from; ; {
		_, end := t.In(z.loc).ZoneBounds()
		if end.IsZero() || end.After(to) {
			break
		}
		tr := state(end)
		if prev := list[len(list)-1]; tr.offset != prev.offset || tr.abbr != prev.abbr || tr.dst != prev.dst {
			list = append(list, tr)
		}
		t = end
	}
	if len(list) == 1 {
		list = append(list, list[0])
	}
	line(b, "BEGIN:VTIMEZONE")
	line(b, "TZID:"+z.name)
	for i := 1; i < len(list); i++ {
		kind := "STANDARD"
		if list[i].dst {
			kind = "DAYLIGHT"
		}
		line(b, "BEGIN:"+kind)
		line(b, "TZOFFSETFROM:"+formatOffset(list[i-1].offset))
		line(b, "TZOFFSETTO:"+formatOffset(list[i].offset))
		line(b, "TZNAME:"+list[i].abbr)
		at := list[i].at.UTC()
		if rfc {
			at = at.Add(time.Duration(list[i-1].offset) * time.Second)
		}
		line(b, "DTSTART:"+at.Format("20060102T150405"))
		line(b, "END:"+kind)
	}
	line(b, "END:VTIMEZONE")
}

// formatOffset is iCal::format_offset, with its sign taken from the whole hours (an offset of
// -00:30 is written "+0030", as the plugin does).
func formatOffset(secs int) string {
	hours := secs / 3600
	abs := secs
	if abs < 0 {
		abs = -abs
	}
	minutes := abs/60 - (abs/3600)*60
	if hours < 0 {
		return fmt.Sprintf("%03d%02d", hours, minutes)
	}
	return fmt.Sprintf("+%02d%02d", hours, minutes)
}

func line(b *strings.Builder, s string) {
	b.WriteString(s)
	b.WriteString("\r\n")
}
