package calendard

import (
	"math"
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
// region PHP's timezone_name_from_abbr('', seconds, 0) names for that offset, so "UTC-8" is
// America/Los_Angeles, with its daylight saving time.

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
		// No region for that offset in PHP's fallback map: PHP then searches its whole
		// abbreviation list, whose order is not reproduced here; a fixed offset stands in.
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

// offsetRegion is Tribe__Timezones::generate_timezone_string_from_utc_offset for the offsets PHP's
// fallback map knows: the seconds are hours*3600 + minutes*60 of the text around the colon (so
// "UTC-5:30" is -4:30, as in the plugin), looked up with isdst 0.
func offsetRegion(name string) (*time.Location, bool) {
	off := strings.Replace(name, "UTC", "", 1)
	if !strings.Contains(off, ":") {
		off += ":00"
	}
	parts := strings.SplitN(off, ":", 3)
	if !php.IsNumericString(parts[0]) || !php.IsNumericString(parts[1]) {
		return nil, false
	}
	secs := php.Float(parts[0])*3600 + php.Float(parts[1])*60
	if secs != math.Trunc(secs) {
		return nil, false
	}
	region, ok := phpFallbackRegion[int(secs)/60]
	if !ok || int(secs)%60 != 0 {
		return nil, false
	}
	loc, err := LoadZone(region)
	return loc, err == nil
}

// phpFallbackRegion is timelib's fallback map (ext/date/lib/fallbackmap.h) for isdst 0: the region
// timezone_name_from_abbr(”, offset, 0) returns, by offset in minutes.
var phpFallbackRegion = map[int]string{
	-660: "Pacific/Apia", -600: "Pacific/Honolulu", -540: "America/Anchorage", -480: "America/Los_Angeles",
	-420: "America/Denver", -360: "America/Chicago", -300: "America/New_York", -270: "America/Caracas",
	-240: "America/Halifax", -180: "America/Sao_Paulo", -60: "Atlantic/Azores", 0: "Europe/London",
	60: "Europe/Paris", 120: "Europe/Helsinki", 180: "Europe/Moscow", 240: "Asia/Dubai", 300: "Asia/Karachi",
	330: "Asia/Kolkata", 345: "Asia/Katmandu", 360: "Asia/Novosibirsk", 420: "Asia/Krasnoyarsk",
	480: "Asia/Shanghai", 540: "Asia/Tokyo", 600: "Australia/Melbourne", 720: "Pacific/Auckland",
}
