package strtotime

import (
	"errors"
	"strings"
	"time"
)

// unset is TIMELIB_UNSET: the marker for "not given" fields.
const unset = -9999999

// relTime is timelib_rel_time, restricted to what the parser fills in.
type relTime struct {
	y, m, d, h, i, s, us int64

	weekday         int64 // 0 = Sunday ... 6; -7 after "ago" on Sunday
	weekdayBehavior int

	haveWeekdayRelative bool
	haveSpecialRelative bool
	specialType         int
	specialAmount       int64

	firstLastDayOf int
}

// ptime is timelib_time as the parser and the relative-time resolution use it.
type ptime struct {
	y, m, d, h, i, s, us int64

	z        int64 // seconds east of UTC
	dst      int64
	tzAbbr   string
	loc      *time.Location // tz_info
	zoneType int

	haveTime     int // a counter: "gnunocolon" uses a second time as the year
	haveDate     bool
	haveZone     int
	haveRelative bool

	rel relTime
}

// parser holds the state of one timelib_strtotime run.
type parser struct {
	t   ptime
	err error
}

// fail records a parse error. timelib keeps scanning after errors, but any
// error makes strtotime return false, so the scanner stops at the first one.
func (p *parser) fail(msg string) {
	if p.err == nil {
		p.err = errors.New(msg)
	}
}

// The TIMELIB_* helper macros of parse_date.re. The "have" variants report
// false when they recorded an error, in which case the action must stop.

func (p *parser) haveTime() bool {
	if p.t.haveTime != 0 {
		p.fail("Double time specification")
		return false
	}
	p.t.haveTime = 1
	p.t.h, p.t.i, p.t.s, p.t.us = 0, 0, 0, 0
	return true
}

func (p *parser) unhaveTime() {
	p.t.haveTime = 0
	p.t.h, p.t.i, p.t.s, p.t.us = 0, 0, 0, 0
}

func (p *parser) haveDate() bool {
	if p.t.haveDate {
		p.fail("Double date specification")
		return false
	}
	p.t.haveDate = true
	return true
}

func (p *parser) unhaveDate() {
	p.t.haveDate = false
	p.t.d, p.t.m, p.t.y = 0, 0, 0
}

func (p *parser) haveRelative() { p.t.haveRelative = true }

func (p *parser) haveWeekdayRelative() {
	p.t.haveRelative = true
	p.t.rel.haveWeekdayRelative = true
}

func (p *parser) haveSpecialRelative() {
	p.t.haveRelative = true
	p.t.rel.haveSpecialRelative = true
}

// haveTZ is TIMELIB_HAVE_TZ: a second zone is only a warning (and ignored),
// a third one is an error.
func (p *parser) haveTZ() bool {
	if p.t.haveZone != 0 {
		if p.t.haveZone > 1 {
			p.fail("Double timezone specification")
		}
		p.t.haveZone++
		return false
	}
	p.t.haveZone++
	return true
}

// processYear is TIMELIB_PROCESS_YEAR: two-digit years map to 1970-2069.
func processYear(y int64, length int) int64 {
	if y == unset || length >= 4 {
		return y
	}
	if y < 100 {
		if y < 70 {
			return y + 2000
		}
		return y + 1900
	}
	return y
}

// applyZone stores a timelib_parse_zone result, failing when the zone is
// unknown.
func (p *parser) applyZone(c *cursor) {
	r := parseZone(c)
	if r.zoneType != zoneNone {
		p.t.zoneType = r.zoneType
	}
	p.t.z = r.z
	if r.setDst {
		p.t.dst = r.dst
	}
	if r.abbr != "" {
		p.t.tzAbbr = r.abbr
	}
	if r.loc != nil {
		p.t.loc = r.loc
	}
	if !r.found {
		p.fail("The timezone could not be found in the database")
	}
}

// padding mirrors the NUL bytes re2c sees after the input (YYMAXFILL).
const padding = "\x00\x00\x00\x00"

// scan runs the scanner over s (already trimmed) until the end of input or
// the first error.
func (p *parser) scan(s string) {
	src := s + padding
	n := len(s)
	pos := 0
	for pos <= n && p.err == nil {
		best, bestLen := scanner().match(src[pos:])
		if best < 0 {
			// re2c's "any" rule: one byte, an error.
			p.fail("Unexpected character")
			return
		}
		tok := src[pos : pos+bestLen]
		pos += bestLen
		// Actions work on a C copy of the token, which ends at the first NUL.
		if k := strings.IndexByte(tok, 0); k >= 0 {
			tok = tok[:k]
		}
		p.action(best, tok)
	}
}

// action runs the code attached to a scanner rule.
func (p *parser) action(id ruleID, tok string) {
	c := &cursor{s: tok}
	switch id {
	case rYesterday, rNow, rNoon, rMidnightToday, rTomorrow, rTimestamp, rTimestampMs, rFirstLastDayOf, rBackFrontOf, rWeekdayOf:
		p.wordAction(id, tok, c)
	case rTime12, rMssqlTime, rTime24, rGnuNoColon, rISO8601NoColon:
		p.timeAction(id, c)
	case rAmerican, rISODate4, rISODate2, rISODateX, rGnuDateShorter, rGnuDateShort, rDateFull, rPointedDate4, rPointedDate2, rDateNoDay, rDateNoDayRev:
		p.dateAction(id, c)
	case rDateTextual, rDateNoYearRev, rDateNoColon, rXMLRPC, rPgYDotD, rISOWeekDay, rISOWeek, rPgTextShort, rPgTextReverse, rCLF:
		p.textDateAction(id, c)
	case rYear4, rAgo, rDayText, rRelativeTextWeek, rRelativeText, rMonthText, rTimezone, rDateShortWithTime12, rDateShortWithTime24, rRelative:
		p.relativeAction(id, c)
	case rPunct, rSpace, rNulNewline:
		// skipped
	}
}

// wordAction runs the relative words (yesterday, noon, tomorrow ...), timestamps and "first/last
// day of", "back/front of" and weekday-of rules.
func (p *parser) wordAction(id ruleID, tok string, c *cursor) {
	t := &p.t
	switch id {
	case rYesterday:
		p.haveRelative()
		p.unhaveTime()
		t.rel.d = -1

	case rNow:

	case rNoon:
		p.unhaveTime()
		p.haveTime()
		t.h = 12

	case rMidnightToday:
		p.unhaveTime()

	case rTomorrow:
		p.haveRelative()
		p.unhaveTime()
		t.rel.d = 1

	case rTimestamp, rTimestampMs:
		p.haveRelative()
		p.unhaveDate()
		p.unhaveTime()
		if !p.haveTZ() {
			return
		}
		negative := c.at(1) == '-'
		i := p.getSignedNr(c, 24)
		var us int64
		if id == rTimestampMs {
			before := c.i
			us = p.getSignedNr(c, 6)
			us = int64(float64(us) * pow10(7-(c.i-before)))
			if negative {
				us = -us
			}
		}
		t.y, t.m, t.d = 1970, 1, 1
		t.h, t.i, t.s, t.us = 0, 0, 0, 0
		t.rel.s += i
		if id == rTimestampMs {
			t.rel.us = us
		}
		t.zoneType = zoneOffset
		t.z = 0
		t.dst = 0

	case rFirstLastDayOf:
		p.haveRelative()
		if tok[0] == 'l' || tok[0] == 'L' {
			t.rel.firstLastDayOf = specialLastDayOfMonth
		} else {
			t.rel.firstLastDayOf = specialFirstDayOfMonth
		}

	case rBackFrontOf:
		p.unhaveTime()
		p.haveTime()
		if tok[0] == 'b' { // case-sensitive in timelib: "Back of" acts as "front of"
			t.h = getNr(c, 2)
			t.i = 15
		} else {
			t.h = getNr(c, 2) - 1
			t.i = 45
		}
		if c.ch() != 0 {
			eatSpaces(c)
			t.h += meridianCorrection(c, t.h)
		}

	case rWeekdayOf:
		p.haveRelative()
		p.haveSpecialRelative()
		behavior := 0
		i := getRelativeText(c, &behavior)
		eatSpaces(c)
		if i > 0 { // first, second... etc
			t.rel.specialType = specialDayOfWeekInMonth
			p.setRelative(c, i, 1, timePartDontKeep)
		} else { // last
			t.rel.specialType = specialLastDayOfWeekInMonth
			p.setRelative(c, i, behavior, timePartDontKeep)
		}
	}
}

// timeAction runs the time-of-day rules.
func (p *parser) timeAction(id ruleID, c *cursor) {
	t := &p.t
	switch id {
	case rTime12:
		if !p.haveTime() {
			return
		}
		t.h = getNr(c, 2)
		if b := c.ch(); b == ':' || b == '.' {
			t.i = getNr(c, 2)
			if b := c.ch(); b == ':' || b == '.' {
				t.s = getNr(c, 2)
			}
		}
		eatSpaces(c)
		t.h += meridianCorrection(c, t.h)

	case rMssqlTime:
		if !p.haveTime() {
			return
		}
		t.h = getNr(c, 2)
		t.i = getNr(c, 2)
		if b := c.ch(); b == ':' || b == '.' {
			t.s = getNr(c, 2)
			if b := c.ch(); b == ':' || b == '.' {
				t.us = getFracNr(c)
			}
		}
		eatSpaces(c)
		t.h += meridianCorrection(c, t.h)

	case rTime24:
		if !p.haveTime() {
			return
		}
		t.h = getNr(c, 2)
		if b := c.ch(); b == ':' || b == '.' {
			t.i = getNr(c, 2)
			if b := c.ch(); b == ':' || b == '.' {
				t.s = getNr(c, 2)
				if c.ch() == '.' {
					t.us = getFracNr(c)
				}
			}
		}
		if c.ch() != 0 {
			p.applyZone(c)
		}

	case rGnuNoColon:
		switch t.haveTime {
		case 0:
			t.h = getNr(c, 2)
			t.i = getNr(c, 2)
			t.s = 0
		case 1:
			t.y = getNr(c, 4)
		default:
			p.fail("Double time specification")
			return
		}
		t.haveTime++

	case rISO8601NoColon:
		if !p.haveTime() {
			return
		}
		t.h = getNr(c, 2)
		t.i = getNr(c, 2)
		t.s = getNr(c, 2)
		if c.ch() != 0 {
			p.applyZone(c)
		}
	}
}

// dateAction runs the numeric date rules (American, ISO, GNU, pointed, day-less).
func (p *parser) dateAction(id ruleID, c *cursor) {
	t := &p.t
	switch id {
	case rAmerican:
		if !p.haveDate() {
			return
		}
		t.m = getNr(c, 2)
		t.d = getNr(c, 2)
		if c.ch() == '/' {
			y, l := getNrEx(c, 4)
			t.y = processYear(y, l)
		}

	case rISODate4:
		if !p.haveDate() {
			return
		}
		t.y = p.getSignedNr(c, 4)
		t.m = getNr(c, 2)
		t.d = getNr(c, 2)

	case rISODate2:
		if !p.haveDate() {
			return
		}
		y, l := getNrEx(c, 4)
		t.m = getNr(c, 2)
		t.d = getNr(c, 2)
		t.y = processYear(y, l)

	case rISODateX:
		if !p.haveDate() {
			return
		}
		t.y = p.getSignedNr(c, 19)
		t.m = getNr(c, 2)
		t.d = getNr(c, 2)

	case rGnuDateShorter:
		if !p.haveDate() {
			return
		}
		y, l := getNrEx(c, 4)
		t.m = getNr(c, 2)
		t.d = 1
		t.y = processYear(y, l)

	case rGnuDateShort:
		if !p.haveDate() {
			return
		}
		y, l := getNrEx(c, 4)
		t.m = getNr(c, 2)
		t.d = getNr(c, 2)
		t.y = processYear(y, l)

	case rDateFull:
		if !p.haveDate() {
			return
		}
		t.d = getNr(c, 2)
		skipDaySuffix(c)
		t.m = getMonth(c)
		y, l := getNrEx(c, 4)
		t.y = processYear(y, l)

	case rPointedDate4:
		if !p.haveDate() {
			return
		}
		t.d = getNr(c, 2)
		t.m = getNr(c, 2)
		t.y = getNr(c, 4)

	case rPointedDate2:
		if !p.haveDate() {
			return
		}
		t.d = getNr(c, 2)
		t.m = getNr(c, 2)
		y, l := getNrEx(c, 2)
		t.y = processYear(y, l)

	case rDateNoDay:
		if !p.haveDate() {
			return
		}
		t.m = getMonth(c)
		y, l := getNrEx(c, 4)
		t.d = 1
		t.y = processYear(y, l)

	case rDateNoDayRev:
		if !p.haveDate() {
			return
		}
		y, l := getNrEx(c, 4)
		t.m = getMonth(c)
		t.d = 1
		t.y = processYear(y, l)
	}
}

// textDateAction runs the textual and other date rules (textual months, XML-RPC, PostgreSQL, ISO
// weeks, CLF).
func (p *parser) textDateAction(id ruleID, c *cursor) {
	t := &p.t
	switch id {
	case rDateTextual:
		if !p.haveDate() {
			return
		}
		t.m = getMonth(c)
		t.d = getNr(c, 2)
		y, l := getNrEx(c, 4)
		t.y = processYear(y, l)

	case rDateNoYearRev:
		if !p.haveDate() {
			return
		}
		t.d = getNr(c, 2)
		skipDaySuffix(c)
		t.m = getMonth(c)

	case rDateNoColon:
		if !p.haveDate() {
			return
		}
		t.y = getNr(c, 4)
		t.m = getNr(c, 2)
		t.d = getNr(c, 2)

	case rXMLRPC:
		if !p.haveTime() || !p.haveDate() {
			return
		}
		t.y = getNr(c, 4)
		t.m = getNr(c, 2)
		t.d = getNr(c, 2)
		t.h = getNr(c, 2)
		t.i = getNr(c, 2)
		t.s = getNr(c, 2)
		if c.ch() == '.' {
			t.us = getFracNr(c)
			if c.ch() != 0 { // timezone is optional
				p.applyZone(c)
			}
		}

	case rPgYDotD:
		if !p.haveDate() {
			return
		}
		y, l := getNrEx(c, 4)
		t.d = getNr(c, 3)
		t.m = 1
		t.y = processYear(y, l)

	case rISOWeekDay, rISOWeek:
		if !p.haveDate() {
			return
		}
		p.haveRelative()
		t.y = getNr(c, 4)
		w := getNr(c, 2)
		d := int64(1)
		if id == rISOWeekDay {
			d = getNr(c, 1)
		}
		t.m = 1
		t.d = 1
		t.rel.d = dayNrFromWeekNr(t.y, w, d)

	case rPgTextShort:
		if !p.haveDate() {
			return
		}
		t.m = getMonth(c)
		t.d = getNr(c, 2)
		y, l := getNrEx(c, 4)
		t.y = processYear(y, l)

	case rPgTextReverse:
		if !p.haveDate() {
			return
		}
		y, l := getNrEx(c, 4)
		t.m = getMonth(c)
		t.d = getNr(c, 2)
		t.y = processYear(y, l)

	case rCLF:
		if !p.haveTime() || !p.haveDate() {
			return
		}
		t.d = getNr(c, 2)
		t.m = getMonth(c)
		t.y = getNr(c, 4)
		t.h = getNr(c, 2)
		t.i = getNr(c, 2)
		t.s = getNr(c, 2)
		eatSpaces(c)
		p.applyZone(c)
	}
}

// relativeAction runs the year, "ago", day and month name, relative text, time zone, date-with-time
// and relative-offset rules.
func (p *parser) relativeAction(id ruleID, c *cursor) {
	t := &p.t
	switch id {
	case rYear4:
		t.y = getNr(c, 4)

	case rAgo:
		r := &t.rel
		r.y, r.m, r.d, r.h, r.i, r.s = -r.y, -r.m, -r.d, -r.h, -r.i, -r.s
		r.weekday = -r.weekday
		if r.weekday == 0 {
			r.weekday = -7
		}
		if r.haveSpecialRelative && r.specialType == specialWeekday {
			r.specialAmount = -r.specialAmount
		}

	case rDayText:
		p.haveRelative()
		p.haveWeekdayRelative()
		p.unhaveTime()
		if u, ok := lookupRelUnit(c); ok {
			t.rel.weekday = u.multiplier
		}
		if t.rel.weekdayBehavior != 2 {
			t.rel.weekdayBehavior = 1
		}

	case rRelativeTextWeek:
		p.haveRelative()
		for c.ch() != 0 {
			start := c.i
			behavior := 0
			i := getRelativeText(c, &behavior)
			eatSpaces(c)
			p.setRelative(c, i, behavior, timePartDontKeep)
			t.rel.weekdayBehavior = 2
			// to handle the format weekday + last/this/next week
			if !t.rel.haveWeekdayRelative {
				p.haveWeekdayRelative()
				t.rel.weekday = 1
			}
			if c.i == start {
				break // cannot happen for tokens of this rule; guards against looping
			}
		}

	case rRelativeText:
		p.haveRelative()
		for c.ch() != 0 {
			start := c.i
			behavior := 0
			i := getRelativeText(c, &behavior)
			eatSpaces(c)
			p.setRelative(c, i, behavior, timePartDontKeep)
			if c.i == start {
				break
			}
		}

	case rMonthText:
		if !p.haveDate() {
			return
		}
		t.m = lookupMonth(c)

	case rTimezone:
		if !p.haveTZ() {
			return
		}
		eatSpaces(c)
		p.applyZone(c)

	case rDateShortWithTime12:
		if !p.haveDate() {
			return
		}
		t.m = getMonth(c)
		t.d = getNr(c, 2)
		if !p.haveTime() {
			return
		}
		t.h = getNr(c, 2)
		t.i = getNr(c, 2)
		if b := c.ch(); b == ':' || b == '.' {
			t.s = getNr(c, 2)
			if c.ch() == '.' {
				t.us = getFracNr(c)
			}
		}
		t.h += meridianCorrection(c, t.h)

	case rDateShortWithTime24:
		if !p.haveDate() {
			return
		}
		t.m = getMonth(c)
		t.d = getNr(c, 2)
		if !p.haveTime() {
			return
		}
		t.h = getNr(c, 2)
		t.i = getNr(c, 2)
		if c.ch() == ':' {
			t.s = getNr(c, 2)
			if c.ch() == '.' {
				t.us = getFracNr(c)
			}
		}
		if c.ch() != 0 {
			p.applyZone(c)
		}

	case rRelative:
		p.haveRelative()
		for c.ch() != 0 && p.err == nil {
			start := c.i
			i := p.getSignedNr(c, 24)
			eatSpaces(c)
			p.setRelative(c, i, 1, timePartKeep)
			if c.i == start {
				break
			}
		}
	}
}

func pow10(n int) float64 {
	f := 1.0
	for ; n > 0; n-- {
		f *= 10
	}
	for ; n < 0; n++ {
		f /= 10
	}
	return f
}
