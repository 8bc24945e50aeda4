package strtotime

import (
	"math"
	"strconv"
	"strings"
	"time"
)

// cursor walks a token the way timelib's helpers walk a NUL-terminated C
// string: reading at or past the end yields 0, which every helper treats as
// the terminator.
type cursor struct {
	s string
	i int
}

func (c *cursor) ch() byte {
	if c.i < len(c.s) {
		return c.s[c.i]
	}
	return 0
}

func (c *cursor) at(off int) byte {
	if j := c.i + off; j >= 0 && j < len(c.s) {
		return c.s[j]
	}
	return 0
}

func isDigit(b byte) bool { return b >= '0' && b <= '9' }
func isAlpha(b byte) bool { return (b >= 'A' && b <= 'Z') || (b >= 'a' && b <= 'z') }

// isCSpace mirrors C's isspace() in the "C" locale.
func isCSpace(b byte) bool {
	return b == ' ' || b == '\t' || b == '\n' || b == '\v' || b == '\f' || b == '\r'
}

// strtoll parses an optional sign and leading digits like C's strtoll,
// saturating on overflow; ok is false when it overflowed (errno == ERANGE).
func strtoll(s string) (v int64, ok bool) {
	i := 0
	for i < len(s) && isCSpace(s[i]) {
		i++
	}
	start := i
	if i < len(s) && (s[i] == '+' || s[i] == '-') {
		i++
	}
	j := i
	for j < len(s) && isDigit(s[j]) {
		j++
	}
	if j == i {
		return 0, true
	}
	v, err := strconv.ParseInt(s[start:j], 10, 64)
	if err != nil {
		if s[start] == '-' {
			return math.MinInt64, false
		}
		return math.MaxInt64, false
	}
	return v, true
}

// timelib_meridian: returns the hour correction for an am/pm marker.
func meridianCorrection(c *cursor, h int64) int64 {
	var ret int64
	for {
		b := c.ch()
		if b == 0 || b == 'A' || b == 'a' || b == 'P' || b == 'p' {
			break // strchr("AaPp", '\0') is non-NULL, so C stops at NUL too
		}
		c.i++
	}
	if b := c.ch(); b == 'a' || b == 'A' {
		if h == 12 {
			ret = -12
		}
	} else if h != 12 {
		ret = 12
	}
	c.i++
	if c.ch() == '.' {
		c.i++
	}
	if b := c.ch(); b == 'M' || b == 'm' {
		c.i++
	}
	if c.ch() == '.' {
		c.i++
	}
	return ret
}

// timelib_get_nr_ex: skips non-digits, then reads at most maxLen digits.
func getNrEx(c *cursor, maxLen int) (int64, int) {
	for !isDigit(c.ch()) {
		if c.ch() == 0 {
			return unset, 0
		}
		c.i++
	}
	begin := c.i
	for isDigit(c.ch()) && c.i-begin < maxLen {
		c.i++
	}
	v, _ := strtoll(c.s[begin:c.i])
	return v, c.i - begin
}

func getNr(c *cursor, maxLen int) int64 {
	v, _ := getNrEx(c, maxLen)
	return v
}

// timelib_skip_day_suffix
func skipDaySuffix(c *cursor) {
	if isCSpace(c.ch()) {
		return
	}
	if c.i+2 <= len(c.s) {
		switch strings.ToLower(c.s[c.i : c.i+2]) {
		case "nd", "rd", "st", "th":
			c.i += 2
		}
	}
}

// timelib_get_frac_nr: reads ".ddd" (or ":ddd") and returns microseconds.
func getFracNr(c *cursor) int64 {
	for b := c.ch(); b != '.' && b != ':' && !isDigit(b); b = c.ch() {
		if b == 0 {
			return unset
		}
		c.i++
	}
	begin := c.i
	for b := c.ch(); b == '.' || b == ':' || isDigit(b); b = c.ch() {
		c.i++
	}
	n := c.i - begin
	f := strtod(c.s[begin+1 : c.i])
	return int64(f * math.Pow(10, float64(7-n)))
}

// strtod handles the only inputs timelib feeds it here: digits, dots and
// colons. It parses the longest "digits[.digits]" prefix.
func strtod(s string) float64 {
	i := 0
	for i < len(s) && isDigit(s[i]) {
		i++
	}
	if i < len(s) && s[i] == '.' {
		j := i + 1
		for j < len(s) && isDigit(s[j]) {
			j++
		}
		if j > i+1 || i > 0 {
			i = j
		}
	}
	f, err := strconv.ParseFloat(s[:i], 64)
	if err != nil && f == 0 {
		return 0
	}
	return f
}

// getSignedNr is PHP 8.2's timelib_get_signed_nr: skips to the first sign or
// digit, multiplies the signs it finds ("--5" is 5), then reads at most maxLen
// digits; a value outside int64 is an error ("Number out of range").
func (p *parser) getSignedNr(c *cursor, maxLen int) int64 {
	for b := c.ch(); !isDigit(b) && b != '+' && b != '-'; b = c.ch() {
		if b == 0 {
			p.fail("Found unexpected data")
			return 0
		}
		c.i++
	}
	neg := false
	for b := c.ch(); b == '+' || b == '-'; b = c.ch() {
		if b == '-' {
			neg = !neg
		}
		c.i++
	}
	for !isDigit(c.ch()) {
		if c.ch() == 0 {
			p.fail("Found unexpected data")
			return 0
		}
		c.i++
	}
	begin := c.i
	for isDigit(c.ch()) && c.i-begin < maxLen {
		c.i++
	}
	digits := c.s[begin:c.i]
	if neg {
		digits = "-" + digits
	}
	v, ok := strtoll(digits)
	if !ok {
		p.fail("Number out of range")
		return 0
	}
	return v
}

var relTextTable = []struct {
	name     string
	behavior int
	value    int64
}{
	{"first", 0, 1}, {"next", 0, 1}, {"second", 0, 2}, {"third", 0, 3}, {"fourth", 0, 4},
	{"fifth", 0, 5}, {"sixth", 0, 6}, {"seventh", 0, 7}, {"eight", 0, 8}, {"eighth", 0, 8},
	{"ninth", 0, 9}, {"tenth", 0, 10}, {"eleventh", 0, 11}, {"twelfth", 0, 12},
	{"last", 0, -1}, {"previous", 0, -1}, {"this", 1, 0},
}

// timelib_lookup_relative_text
func lookupRelativeText(c *cursor, behavior *int) int64 {
	begin := c.i
	for isAlpha(c.ch()) {
		c.i++
	}
	word := c.s[begin:c.i]
	var value int64
	for _, e := range relTextTable {
		if strings.EqualFold(word, e.name) {
			value = e.value
			*behavior = e.behavior
		}
	}
	return value
}

// timelib_get_relative_text
func getRelativeText(c *cursor, behavior *int) int64 {
	for b := c.ch(); b == ' ' || b == '\t' || b == '-' || b == '/'; b = c.ch() {
		c.i++
	}
	return lookupRelativeText(c, behavior)
}

var monthTable = map[string]int64{
	"jan": 1, "feb": 2, "mar": 3, "apr": 4, "may": 5, "jun": 6, "jul": 7, "aug": 8,
	"sep": 9, "sept": 9, "oct": 10, "nov": 11, "dec": 12,
	"i": 1, "ii": 2, "iii": 3, "iv": 4, "v": 5, "vi": 6, "vii": 7, "viii": 8,
	"ix": 9, "x": 10, "xi": 11, "xii": 12,
	"january": 1, "february": 2, "march": 3, "april": 4, "june": 6, "july": 7,
	"august": 8, "september": 9, "october": 10, "november": 11, "december": 12,
}

// timelib_lookup_month
func lookupMonth(c *cursor) int64 {
	begin := c.i
	for isAlpha(c.ch()) {
		c.i++
	}
	return monthTable[strings.ToLower(c.s[begin:c.i])]
}

// timelib_get_month
func getMonth(c *cursor) int64 {
	for b := c.ch(); b == ' ' || b == '\t' || b == '-' || b == '.' || b == '/'; b = c.ch() {
		c.i++
	}
	return lookupMonth(c)
}

// timelib_eat_spaces: spaces, tabs, NBSP and NNBSP.
func eatSpaces(c *cursor) {
	for {
		switch {
		case c.ch() == ' ' || c.ch() == '\t':
			c.i++
		case c.ch() == 0xe2 && c.at(1) == 0x80 && c.at(2) == 0xaf:
			c.i += 3
		case c.ch() == 0xc2 && c.at(1) == 0xa0:
			c.i += 2
		default:
			return
		}
	}
}

// Relative units (timelib_relunit_lookup).
const (
	unitMicrosec = iota + 1
	unitSecond
	unitMinute
	unitHour
	unitDay
	unitMonth
	unitYear
	unitWeekday
	unitSpecial
)

// Special relative types and first/last-day-of markers (timelib.h).
const (
	specialWeekday              = 1
	specialDayOfWeekInMonth     = 2
	specialLastDayOfWeekInMonth = 3
	specialFirstDayOfMonth      = 1
	specialLastDayOfMonth       = 2
)

// timelib_set_relative's time_part flag: whether "N weekday" keeps the time.
const (
	timePartKeep     = true
	timePartDontKeep = false
)

type relUnit struct {
	unit       int
	multiplier int64
}

var relUnitTable = map[string]relUnit{
	"ms": {unitMicrosec, 1000}, "msec": {unitMicrosec, 1000}, "msecs": {unitMicrosec, 1000},
	"millisecond": {unitMicrosec, 1000}, "milliseconds": {unitMicrosec, 1000},
	"µs": {unitMicrosec, 1}, "usec": {unitMicrosec, 1}, "usecs": {unitMicrosec, 1},
	"µsec": {unitMicrosec, 1}, "µsecs": {unitMicrosec, 1},
	"microsecond": {unitMicrosec, 1}, "microseconds": {unitMicrosec, 1},
	"sec": {unitSecond, 1}, "secs": {unitSecond, 1}, "second": {unitSecond, 1}, "seconds": {unitSecond, 1},
	"min": {unitMinute, 1}, "mins": {unitMinute, 1}, "minute": {unitMinute, 1}, "minutes": {unitMinute, 1},
	"hour": {unitHour, 1}, "hours": {unitHour, 1},
	"day": {unitDay, 1}, "days": {unitDay, 1},
	"week": {unitDay, 7}, "weeks": {unitDay, 7},
	"fortnight": {unitDay, 14}, "fortnights": {unitDay, 14},
	"forthnight": {unitDay, 14}, "forthnights": {unitDay, 14},
	"month": {unitMonth, 1}, "months": {unitMonth, 1},
	"year": {unitYear, 1}, "years": {unitYear, 1},

	"mondays": {unitWeekday, 1}, "monday": {unitWeekday, 1}, "mon": {unitWeekday, 1},
	"tuesdays": {unitWeekday, 2}, "tuesday": {unitWeekday, 2}, "tue": {unitWeekday, 2},
	"wednesdays": {unitWeekday, 3}, "wednesday": {unitWeekday, 3}, "wed": {unitWeekday, 3},
	"thursdays": {unitWeekday, 4}, "thursday": {unitWeekday, 4}, "thu": {unitWeekday, 4},
	"fridays": {unitWeekday, 5}, "friday": {unitWeekday, 5}, "fri": {unitWeekday, 5},
	"saturdays": {unitWeekday, 6}, "saturday": {unitWeekday, 6}, "sat": {unitWeekday, 6},
	"sundays": {unitWeekday, 0}, "sunday": {unitWeekday, 0}, "sun": {unitWeekday, 0},

	"weekday": {unitSpecial, specialWeekday}, "weekdays": {unitSpecial, specialWeekday},
}

// asciiLower lowercases ASCII letters only, like strcasecmp in the C locale.
func asciiLower(s string) string {
	for i := 0; i < len(s); i++ {
		if s[i] >= 'A' && s[i] <= 'Z' {
			b := []byte(s)
			for j := i; j < len(b); j++ {
				if b[j] >= 'A' && b[j] <= 'Z' {
					b[j] += 'a' - 'A'
				}
			}
			return string(b)
		}
	}
	return s
}

// timelib_lookup_relunit: reads a word up to a separator and looks it up.
func lookupRelUnit(c *cursor) (relUnit, bool) {
	begin := c.i
	for {
		b := c.ch()
		if b == 0 || b == ' ' || b == ',' || b == '\t' || b == ';' || b == ':' ||
			b == '/' || b == '.' || b == '-' || b == '(' || b == ')' {
			break
		}
		c.i++
	}
	u, ok := relUnitTable[asciiLower(c.s[begin:c.i])]
	return u, ok
}

// timelib_set_relative: applies "amount unit" to the relative part.
func (p *parser) setRelative(c *cursor, amount int64, behavior int, keepTime bool) {
	u, ok := lookupRelUnit(c)
	if !ok {
		return
	}
	r := &p.t.rel
	switch u.unit {
	case unitMicrosec:
		r.us += amount * u.multiplier
	case unitSecond:
		r.s += amount * u.multiplier
	case unitMinute:
		r.i += amount * u.multiplier
	case unitHour:
		r.h += amount * u.multiplier
	case unitDay:
		r.d += amount * u.multiplier
	case unitMonth:
		r.m += amount * u.multiplier
	case unitYear:
		r.y += amount * u.multiplier
	case unitWeekday:
		p.haveWeekdayRelative()
		if !keepTime {
			p.unhaveTime()
		}
		if amount > 0 {
			r.d += (amount - 1) * 7
		} else {
			r.d += amount * 7
		}
		r.weekday = u.multiplier
		r.weekdayBehavior = behavior
	case unitSpecial:
		p.haveSpecialRelative()
		if !keepTime {
			p.unhaveTime()
		}
		r.specialType = int(u.multiplier)
		r.specialAmount = amount
	}
}

// Zone types (timelib_time.zone_type).
const (
	zoneNone   = 0
	zoneOffset = 1
	zoneAbbr   = 2
	zoneID     = 3
)

type abbrEntry struct {
	dst    bool
	offset int64 // seconds east of UTC, DST included
}

// maxAbbrLen is _POSIX_TZNAME_MAX on glibc: longer words are never looked up
// as abbreviations.
const maxAbbrLen = 6

// timelib_lookup_abbr: reads [A-Za-z0-9/_+-]* and looks it up as an
// abbreviation. It returns the word either way (for the identifier lookup).
func lookupAbbr(c *cursor) (word string, offset int64, dst int64, found bool) {
	begin := c.i
	for b := c.ch(); isAlpha(b) || isDigit(b) || b == '/' || b == '_' || b == '-' || b == '+'; b = c.ch() {
		c.i++
	}
	word = c.s[begin:c.i]
	if len(word) < maxAbbrLen {
		lw := asciiLower(word)
		if lw == "utc" || lw == "gmt" {
			return word, 0, 0, true
		}
		if e, ok := abbrTable[lw]; ok {
			if e.dst {
				dst = 1
			}
			return word, e.offset - dst*3600, dst, true
		}
	}
	return word, 0, 0, false
}

// timelib_parse_tz_cor: the digits after a +/- sign, as seconds.
func parseTzCor(c *cursor) (int64, bool) {
	begin := c.i
	for isDigit(c.ch()) || c.ch() == ':' {
		c.i++
	}
	s := c.s[begin:c.i]
	atoi := func(s string) int64 { v, _ := strtoll(s); return v }
	switch len(s) {
	case 1, 2: // H, HH
		return atoi(s) * 3600, true
	case 3, 4: // H:M, H:MM, HH:M, HHMM
		if s[1] == ':' {
			return atoi(s)*3600 + atoi(s[2:])*60, true
		} else if s[2] == ':' {
			return atoi(s)*3600 + atoi(s[3:])*60, true
		}
		v := atoi(s)
		return (v/100)*3600 + (v%100)*60, true
	case 5: // HH:MM
		if s[2] != ':' {
			break
		}
		return atoi(s)*3600 + atoi(s[3:])*60, true
	case 6: // HHMMSS
		v := atoi(s)
		return (v/10000)*3600 + ((v/100)%100)*60 + v%100, true
	case 8: // HH:MM:SS
		if s[2] != ':' || s[5] != ':' {
			break
		}
		return atoi(s)*3600 + atoi(s[3:])*60 + atoi(s[6:]), true
	}
	return 0, false
}

// zoneResult is what timelib_parse_zone stores into the time struct.
type zoneResult struct {
	zoneType int
	z        int64 // seconds east of UTC (without the DST hour for abbreviations)
	dst      int64
	setDst   bool // whether dst was assigned (it is left alone for identifiers)
	abbr     string
	loc      *time.Location
	found    bool
}

// parseZone is timelib_parse_zone.
func parseZone(c *cursor) zoneResult {
	var r zoneResult
	for b := c.ch(); b == ' ' || b == '\t' || b == '('; b = c.ch() {
		c.i++
	}
	if c.ch() == 'G' && c.at(1) == 'M' && c.at(2) == 'T' && (c.at(3) == '+' || c.at(3) == '-') {
		c.i += 3
	}
	switch c.ch() {
	case '+', '-':
		neg := c.ch() == '-'
		c.i++
		r.zoneType = zoneOffset
		r.dst, r.setDst = 0, true
		off, ok := parseTzCor(c)
		if neg {
			off = -off
		}
		r.z, r.found = off, ok
	default:
		word, off, dst, found := lookupAbbr(c)
		if found {
			r.zoneType = zoneAbbr
			r.dst, r.setDst = dst, true
			r.abbr = strings.ToUpper(word)
		}
		if !found || word == "UTC" {
			if loc := lookupZoneID(word); loc != nil {
				r.loc = loc
				r.zoneType = zoneID
				found = true
			}
		}
		r.z, r.found = off, found
	}
	for c.ch() == ')' {
		c.i++
	}
	return r
}
