package calendard

import (
	"testing"
	"time"
)

// The zone the plugin builds for a "UTC+x" name (Tribe__Timezones::build_timezone_object through
// generate_timezone_string_from_utc_offset): timelib's fallback map for isdst 0, else the first
// standard-time zone of the offset in timezone_abbreviations_list(), else UTC. Expected zones read
// from timelib 2022.16's fallbackmap.h and timezonemap.h (PHP 8.2), not from calendard's tables.
func TestBuildTimezoneObjectForOffsetNames(t *testing.T) {
	site := &Site{TimezoneString: "America/New_York"}
	cases := []struct {
		name, zone, want string
	}{
		{"an offset in the fallback map is its region", "UTC-8", "America/Los_Angeles"},
		{"UTC+5.75 is in the fallback map (npt)", "UTC+5.75", "Asia/Katmandu"},
		{"UTC+5:45 is the same offset", "UTC+5:45", "Asia/Katmandu"},
		{"UTC+8 is the fallback map's cst, Shanghai, not the list's Perth", "UTC+8", "Asia/Shanghai"},
		{"UTC+6 is only a daylight-time entry of the fallback map and a military letter in the list: UTC", "UTC+6", "UTC"},
		{"UTC+9.5 comes from the abbreviation list (acst)", "UTC+9.5", "Australia/Adelaide"},
		{"UTC-3.5 comes from the abbreviation list (nst)", "UTC-3.5", "America/St_Johns"},
		{"UTC-10.5 comes from the abbreviation list (Honolulu's old hst)", "UTC-10.5", "Pacific/Honolulu"},
		{"UTC+1.4 is Vilnius' old wmt, the first such entry", "UTC+1.4", "Europe/Vilnius"},
		{"UTC-9.5 is only a daylight-time entry: UTC", "UTC-9.5", "UTC"},
		{"UTC+13.75 is in neither list: UTC", "UTC+13.75", "UTC"},
		{"UTC+11 has no standard-time entry: UTC", "UTC+11", "UTC"},
		{"UTC-12 is a military letter without a zone: UTC", "UTC-12", "UTC"},
		{"the plugin's sum of signed hours and unsigned minutes: UTC-3:30 is -2:30, none: UTC", "UTC-3:30", "UTC"},
		{"a fraction of a second is dropped as PHP's int conversion does: UTC+5.333 is none: UTC", "UTC+5.333", "UTC"},
		{"a trailing +0 is dropped: UTC", "UTC+0", "UTC"},
		{"a zone name is itself", "Asia/Tokyo", "Asia/Tokyo"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if got := BuildTimezoneObject(c.zone, true, site).String(); got != c.want {
				t.Errorf("BuildTimezoneObject(%q) = %s, want %s", c.zone, got, c.want)
			}
		})
	}
	// The region's own rules apply: UTC+9.5 in January is Adelaide's summer time.
	loc := BuildTimezoneObject("UTC+9.5", true, site)
	if _, off := time.Date(2027, 1, 10, 10, 0, 0, 0, loc).Zone(); off != 37800 {
		t.Errorf("UTC+9.5 in January: offset %d, want 37800", off)
	}
}
