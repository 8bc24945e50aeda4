package tribe

import (
	"testing"
	"time"

	calendard "github.com/calendard/calendard"
)

// Tribe__Timezones::localize_date shows a UTC moment in
// generate_timezone_string_from_utc_offset(wp_timezone_string()): a named site zone as itself, an
// offset-only site ("UTC-8" from gmt_offset -8) in the region PHP names for the offset, with its
// summer time, or in UTC when PHP has none (UTC+6). WordPress' own fixed offset is not used.
func TestLocalizeDateInThePluginsSiteZone(t *testing.T) {
	site := func(tz, gmt string) *calendard.Site {
		name := calendard.SiteZoneString(tz, gmt)
		loc, err := calendard.LoadZone(name)
		if err != nil {
			t.Fatal(err)
		}
		return &calendard.Site{TimezoneName: tz, GMTOffset: gmt, TimezoneString: name, Location: loc}
	}
	now := time.Date(2026, 11, 22, 4, 29, 22, 0, time.UTC)
	cases := []struct {
		name                string
		site                *calendard.Site
		in, want, wantStart string
	}{
		{"a named zone: New York in summer", site("America/New_York", "0"), "2027-07-01 12:00:00", "2027-07-01 08:00:00", "2026-11-21 18:59:00"},
		{"UTC-8 in July is Los Angeles' UTC-7", site("", "-8"), "2027-07-01 12:00:00", "2027-07-01 05:00:00", "2026-11-21 15:59:00"},
		{"UTC-8 in January is UTC-8", site("", "-8"), "2027-01-01 12:00:00", "2027-01-01 04:00:00", "2026-11-21 15:59:00"},
		{"UTC+5.75 is Katmandu", site("", "5.75"), "2027-07-01 12:00:00", "2027-07-01 17:45:00", "2026-11-22 05:44:00"},
		{"UTC+6 has no PHP region: UTC", site("", "6"), "2027-07-01 12:00:00", "2027-07-01 12:00:00", "2026-11-21 23:59:00"},
		{"UTC+10 is Melbourne, on summer time in January", site("", "10"), "2027-01-10 00:00:00", "2027-01-10 11:00:00", "2026-11-22 10:59:00"},
		{"a timestamp is a UTC moment", site("", "-8"), "1814875200", "2027-07-06 05:00:00", "2026-11-21 15:59:00"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got, ok := localizeDate(c.in, c.site, now)
			if !ok || got != c.want {
				t.Errorf("localizeDate(%q) = %q, %v; want %q", c.in, got, ok, c.want)
			}
			if got := defaultStartDate(c.site, now); got != c.wantStart {
				t.Errorf("defaultStartDate = %q, want %q", got, c.wantStart)
			}
		})
	}
}
