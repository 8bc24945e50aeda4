package calendard

import (
	"regexp"
	"strings"
	"time"

	"github.com/calendard/calendard/internal/php"
	"github.com/calendard/calendard/internal/strtotime"
)

// The plugin turns a zone name into a PHP DateTimeZone in two ways. Tribe__Timezones::to_utc and
// apply_offset do plain arithmetic on "UTC+5:30"-style names (EventZone), but
// Tribe__Timezones::build_timezone_object, which builds the zone dates are parsed in (the REST
// endpoint's Tribe__Date_Utils::build_date_object($request['start_date'], $request['timezone'])) and
// the zone Tribe__Events__API converts an offset-named event's dates to UTC with
// (Tribe__Date_Utils::immutable), goes through get_valid_timezone: a "UTC+h[:mm]" name becomes the
// region PHP's timezone_name_from_abbr("", seconds, 0) names for that offset, so "UTC-8" is
// America/Los_Angeles, with its daylight saving time; offsets PHP has no such region for go through
// the plugin's own search of PHP's abbreviation list (UTC-10:30 is Pacific/Honolulu, today -10) and
// end in UTC when that finds none (UTC+6, UTC+13.75, UTC-9.5).

// BuildTimezoneObject is Tribe__Timezones::build_timezone_object($timezone): given is false for a
// null $timezone (absent parameter), which means the site's zone (wp_timezone_string).
func BuildTimezoneObject(name string, given bool, site *Site) *time.Location {
	if !given {
		name = site.TimezoneString
	}
	// get_valid_timezone: a trailing "+0"/"-0" is dropped ("UTC+0" is "UTC").
	name = trailingZero.ReplaceAllString(name, "")
	if isUTCOffsetName(name) {
		if loc, ok := offsetRegion(name); ok {
			return loc
		}
		// Text PHP's arithmetic would throw on (a TypeError, past the plugin's catch): the
		// offset read as a fixed zone stands in for the fatal error.
		if loc, err := LoadZone(strings.TrimSpace(name)); err == nil {
			return loc
		}
		return time.UTC
	}
	if strings.EqualFold(name, "UTC") {
		return time.UTC
	}
	if loc, err := LoadZone(name); err == nil {
		return loc
	}
	loc, err := strtotime.ParseTimezone(name)
	if err != nil {
		return time.UTC // new DateTimeZone threw: build_timezone_object falls back to UTC
	}
	return loc
}

var trailingZero = regexp.MustCompile(`[+-]0$`)

// isUTCOffsetName is Tribe__Timezones::is_utc_offset: "UTC" followed by anything, after trim().
func isUTCOffsetName(name string) bool {
	n := strings.Trim(name, " \t\n\r\x00\x0B")
	return strings.HasPrefix(n, "UTC") && len(n) > 3
}

// offsetRegion is Tribe__Timezones::generate_timezone_string_from_utc_offset: the seconds are
// hours*3600 + minutes*60 of the text around the colon (so "UTC-5:30" is -4:30, as in the plugin),
// truncated to an integer as PHP passes them on; timezone_name_from_abbr("", seconds, 0) finds them
// in timelib's fallback map (isdst 0) or fails, and then the plugin takes the first standard-time
// zone of that offset in timezone_abbreviations_list(), or else "UTC". ok is false only for text
// PHP cannot multiply (a TypeError in PHP 8).
func offsetRegion(name string) (*time.Location, bool) {
	off := name
	if !strings.Contains(off, ":") {
		off += ":00"
	}
	off = strings.ReplaceAll(off, "UTC", "")
	parts := strings.SplitN(off, ":", 3)
	if !phpNumericOperand(parts[0]) || !phpNumericOperand(parts[1]) {
		return nil, false
	}
	secs := int(php.Float(parts[0])*3600 + php.Float(parts[1])*60)
	region, ok := phpFallbackRegion[secs]
	if !ok {
		region, ok = phpAbbrListStandardZone[secs]
	}
	if !ok {
		return time.UTC, true
	}
	loc, err := LoadZone(region)
	if err != nil {
		return time.UTC, true
	}
	return loc, true
}

// phpNumericOperand reports a string PHP 8 accepts in arithmetic: numeric, or with a numeric
// prefix (a warning); anything else throws a TypeError.
func phpNumericOperand(s string) bool {
	s = strings.TrimLeft(s, " \t\n\r\v\f")
	i := 0
	if i < len(s) && (s[i] == '+' || s[i] == '-') {
		i++
	}
	digits := false
	for i < len(s) && s[i] >= '0' && s[i] <= '9' {
		i, digits = i+1, true
	}
	if i < len(s) && s[i] == '.' {
		i++
		for i < len(s) && s[i] >= '0' && s[i] <= '9' {
			i, digits = i+1, true
		}
	}
	return digits
}

// phpFallbackRegion is timelib's fallback map (fallbackmap.h) for isdst 0: the region
// timezone_name_from_abbr("", offset, 0) returns, by offset in seconds.
var phpFallbackRegion = map[int]string{
	-660 * 60: "Pacific/Apia", -600 * 60: "Pacific/Honolulu", -540 * 60: "America/Anchorage",
	-480 * 60: "America/Los_Angeles", -420 * 60: "America/Denver", -360 * 60: "America/Chicago",
	-300 * 60: "America/New_York", -270 * 60: "America/Caracas", -240 * 60: "America/Halifax",
	-180 * 60: "America/Sao_Paulo", -60 * 60: "Atlantic/Azores", 0: "Europe/London", 60 * 60: "Europe/Paris",
	120 * 60: "Europe/Helsinki", 180 * 60: "Europe/Moscow", 240 * 60: "Asia/Dubai", 300 * 60: "Asia/Karachi",
	330 * 60: "Asia/Kolkata", 345 * 60: "Asia/Katmandu", 420 * 60: "Asia/Krasnoyarsk", 480 * 60: "Asia/Shanghai",
	540 * 60: "Asia/Tokyo", 600 * 60: "Australia/Melbourne", 720 * 60: "Pacific/Auckland",
}
