// Package strtotime is a port of PHP 8.2's free-form date/time parser
// (timelib's parse_date.re as used by strtotime(), date_create() and
// new DateTime()) together with timelib's resolution of relative parts
// against a base time (tm2unixtime.c).
//
// The scanner is a transcription of the re2c grammar (rules.go: one regexp
// per rule), run through a lazily built DFA with re2c's longest-match,
// first-rule-wins semantics (dfa.go). The actions, number helpers, zone
// lookup and normalisation are ported function by function, so quirks such
// as "2027-02-30" rolling over to March 2nd, "2027-01-31 +1 month" giving
// March 3rd or "2027" meaning 20:27 today are reproduced rather than "fixed".
//
// Where this port and PHP could differ, TestPHPDifferential (opt-in, needs a
// php binary) compares them on tens of thousands of generated strings.
package strtotime

import (
	"errors"
	"fmt"
	"strings"
	"sync"
	"time"
)

// ErrEmpty is returned for the empty string, which PHP rejects with
// "Empty string". (A string of only spaces is accepted and means "now".)
var ErrEmpty = errors.New("strtotime: empty string")

// Parse interprets s as PHP's strtotime(s, base) does with
// date_default_timezone_set(loc).
//
// Relative parts are applied to base (in loc); like strtotime, whose base is
// an integer, base is truncated to whole seconds. If s carries an explicit
// zone/offset ("Z", "+02:00", "EST", "America/Chicago" ...), the returned time
// is in that zone (a time.FixedZone for offsets and abbreviations, the
// time.Location for identifiers), so callers can read both the instant and
// the wall clock PHP's DateTime would show; otherwise it is in loc.
// Fractional seconds in s ("10:00:00.5") are kept; Unix() equals strtotime's
// integer result. Unparsable input (PHP returns false) yields an error.
func Parse(s string, base time.Time, loc *time.Location) (time.Time, error) {
	if loc == nil {
		loc = time.UTC
	}
	p, err := parseString(s)
	if err != nil {
		return time.Time{}, err
	}
	now := nowFrom(base.Truncate(time.Second), loc)
	t := &p.t
	t.fillHoles(now)
	sse := t.updateTS(loc)
	return time.Unix(sse, t.us*1000).In(resultLocation(t, loc)), nil
}

// parseString is timelib_strtotime: trims, scans and reports the first error.
func parseString(s string) (*parser, error) {
	// timelib trims C isspace() characters from both ends, but a string made
	// only of spaces keeps one (and then means "now").
	b, e := 0, len(s)-1
	if len(s) > 0 {
		for b < e && isCSpace(s[b]) {
			b++
		}
		for e > b && isCSpace(s[e]) {
			e--
		}
	}
	if e-b < 0 {
		return nil, ErrEmpty
	}
	p := &parser{t: ptime{
		y: unset, m: unset, d: unset, h: unset, i: unset, s: unset, us: unset,
		z: unset, dst: unset,
	}}
	p.scan(s[b : e+1])
	if p.err != nil {
		if len(s) > 64 {
			s = s[:64] + "..." // keep errors (and logs) small for huge inputs
		}
		return nil, fmt.Errorf("strtotime: cannot parse %q: %w", s, p.err)
	}
	return p, nil
}

// nowFrom builds timelib's "now" (timelib_unixtime2local) for base in loc.
func nowFrom(base time.Time, loc *time.Location) *ptime {
	l := base.In(loc)
	abbr, off := l.Zone()
	var dst int64
	if l.IsDST() {
		dst = 1
	}
	return &ptime{
		y: int64(l.Year()), m: int64(l.Month()), d: int64(l.Day()),
		h: int64(l.Hour()), i: int64(l.Minute()), s: int64(l.Second()),
		us:       0, // strtotime's now has no fraction
		z:        int64(off),
		dst:      dst,
		tzAbbr:   abbr,
		loc:      loc,
		zoneType: zoneID,
	}
}

// resultLocation picks the zone PHP's DateTime would report.
func resultLocation(t *ptime, def *time.Location) *time.Location {
	switch t.zoneType {
	case zoneOffset:
		return fixedZone(offsetName(t.z), t.z)
	case zoneAbbr:
		return fixedZone(t.tzAbbr, t.z+t.dst*3600)
	case zoneID:
		if t.loc != nil {
			return t.loc
		}
	}
	return def
}

// fixedZone avoids time.FixedZone's int overflow for absurd offsets.
func fixedZone(name string, off int64) *time.Location {
	const limit = 1 << 31
	if off >= limit || off <= -limit {
		off = 0
	}
	return time.FixedZone(name, int(off))
}

// offsetName formats an offset like PHP's "P" format (+02:00).
func offsetName(z int64) string {
	sign := '+'
	if z < 0 {
		sign, z = '-', -z
	}
	if z%60 != 0 {
		return fmt.Sprintf("%c%02d:%02d:%02d", sign, z/3600, z/60%60, z%60)
	}
	return fmt.Sprintf("%c%02d:%02d", sign, z/3600, z/60%60)
}

// ParseTimezone accepts what PHP's new DateTimeZone($name) accepts: zone
// identifiers (case-insensitively), "UTC", abbreviations from timelib's table
// ("EST", "CEST", "Z" ...; a fixed offset, as PHP treats them) and offsets
// ("+02:00", "-0530", "+2", "GMT+5"). Anything else is an error.
func ParseTimezone(name string) (*time.Location, error) {
	if strings.IndexByte(name, 0) >= 0 {
		return nil, fmt.Errorf("strtotime: timezone must not contain null bytes")
	}
	c := &cursor{s: name}
	r := parseZone(c)
	bad := fmt.Errorf("strtotime: unknown or bad timezone (%s)", name)
	if r.z >= 100*3600 || r.z <= -100*3600 {
		return nil, fmt.Errorf("strtotime: timezone offset is out of range (%s)", name)
	}
	if !r.found || c.i < len(name) {
		return nil, bad
	}
	switch r.zoneType {
	case zoneOffset:
		return fixedZone(offsetName(r.z), r.z), nil
	case zoneAbbr:
		return fixedZone(r.abbr, r.z+r.dst*3600), nil
	case zoneID:
		return r.loc, nil
	}
	return nil, bad
}

var (
	zoneIndexOnce sync.Once
	zoneIndex     map[string]string // lower-case identifier -> canonical spelling
	zoneCache     sync.Map          // canonical identifier -> *time.Location
)

// lookupZoneID is PHP's timezone database lookup (php_date_parse_tzfile):
// identifiers match case-insensitively.
func lookupZoneID(name string) *time.Location {
	zoneIndexOnce.Do(func() {
		zoneIndex = make(map[string]string)
		for _, id := range strings.Fields(zoneIDs) {
			zoneIndex[strings.ToLower(id)] = id
		}
		zoneIndex["utc"] = "UTC"
	})
	canon, ok := zoneIndex[strings.ToLower(name)]
	if !ok {
		return nil
	}
	if l, ok := zoneCache.Load(canon); ok {
		return l.(*time.Location)
	}
	l, err := time.LoadLocation(canon)
	if err != nil {
		return nil
	}
	zoneCache.Store(canon, l)
	return l
}
