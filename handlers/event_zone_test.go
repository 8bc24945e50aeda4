package handlers_test

import (
	"fmt"
	"testing"
)

// Dates sent with a timezone land where the plugin puts them. Single_Event::prepare_postarr builds
// each date with Tribe__Date_Utils::build_date_object($value, $request['timezone']): the string is
// parsed in the zone Tribe__Timezones::build_timezone_object makes of the request's timezone (the
// site's, America/New_York, when none is sent), or in the zone the string itself names; a Unix
// timestamp is read as UTC ('@' ignores the zone). The wall clock it reads is stored as the local
// date; Tribe__Events__API then converts it to UTC in the event's zone, an offset name ("UTC-8")
// through the region PHP picks for that offset. The clock is recordedNow: 2026-11-22 04:29:22 UTC,
// which is 23:29 on the 21st in New York, 20:29 on the 21st in Los Angeles and 17:29 on the 22nd
// in Auckland. Expected values are worked out by hand from those rules.
func TestEventDatesWithTimezone(t *testing.T) {
	cases := []struct {
		name              string
		tz                any // nil: not sent
		start, end        any
		local, localEnd   string
		utc, utcEnd, zone string
		duration          string
	}{
		{"west of UTC: Los Angeles summer time, across local midnight", "America/Los_Angeles",
			"2027-07-04 23:30:00", "2027-07-05 00:30:00",
			"2027-07-04 23:30:00", "2027-07-05 00:30:00", "2027-07-05 06:30:00", "2027-07-05 07:30:00", "America/Los_Angeles", "3600"},
		{"east of UTC: Auckland summer time, the UTC date is the day before", "Pacific/Auckland",
			"2027-01-01 00:15:00", "2027-01-01 01:00:00",
			"2027-01-01 00:15:00", "2027-01-01 01:00:00", "2026-12-31 11:15:00", "2026-12-31 12:00:00", "Pacific/Auckland", "2700"},
		{"a time in the request zone's spring-forward gap moves an hour on, as PHP's DateTime does", "Europe/Paris",
			"2027-03-28 02:30:00", "2027-03-28 04:00:00",
			"2027-03-28 03:30:00", "2027-03-28 04:00:00", "2027-03-28 01:30:00", "2027-03-28 02:00:00", "Europe/Paris", "1800"},
		{"the hour repeated at the fall-back is the first one (summer time)", "America/New_York",
			"2027-11-07 01:30:00", "2027-11-07 03:00:00",
			"2027-11-07 01:30:00", "2027-11-07 03:00:00", "2027-11-07 05:30:00", "2027-11-07 08:00:00", "America/New_York", "9000"},
		{"a string with its own offset keeps its wall clock, read in the event zone", "America/Chicago",
			"2027-05-10T10:00:00+05:30", "2027-05-10T12:00:00+05:30",
			"2027-05-10 10:00:00", "2027-05-10 12:00:00", "2027-05-10 15:00:00", "2027-05-10 17:00:00", "America/Chicago", "7200"},
		{"a Unix timestamp is the UTC wall clock, then read in the event zone", "Asia/Tokyo",
			"1804000000", "1804003600",
			"2027-03-02 15:06:40", "2027-03-02 16:06:40", "2027-03-02 06:06:40", "2027-03-02 07:06:40", "Asia/Tokyo", "3600"},
		{"relative dates are relative to the request zone's clock: tomorrow in Auckland is the 23rd", "Pacific/Auckland",
			"tomorrow 10:00", "tomorrow 12:00",
			"2026-11-23 10:00:00", "2026-11-23 12:00:00", "2026-11-22 21:00:00", "2026-11-22 23:00:00", "Pacific/Auckland", "7200"},
		{"now in Los Angeles is 20:29 on the 21st", "America/Los_Angeles",
			"now", "+1 hour",
			"2026-11-21 20:29:22", "2026-11-21 21:29:22", "2026-11-22 04:29:22", "2026-11-22 05:29:22", "America/Los_Angeles", "3600"},
		{"without a timezone, relative dates follow the site zone: tomorrow in New York is the 22nd", nil,
			"tomorrow 10:00", "tomorrow 12:00",
			"2026-11-22 10:00:00", "2026-11-22 12:00:00", "2026-11-22 15:00:00", "2026-11-22 17:00:00", "America/New_York", "7200"},
		{"a date alone is midnight", "Pacific/Auckland",
			"2027-05-10", "2027-05-11",
			"2027-05-10 00:00:00", "2027-05-11 00:00:00", "2027-05-09 12:00:00", "2027-05-10 12:00:00", "Pacific/Auckland", "86400"},
		{"an offset zone with a half hour is Asia/Kolkata's", "UTC+5:30",
			"2027-05-10 10:00:00", "2027-05-10 12:00:00",
			"2027-05-10 10:00:00", "2027-05-10 12:00:00", "2027-05-10 04:30:00", "2027-05-10 06:30:00", "UTC+5:30", "7200"},
		{"an offset zone converts through its region, daylight saving time included: UTC-8 in July is Los Angeles' UTC-7", "UTC-8",
			"2027-07-01 10:00:00", "2027-07-01 11:00:00",
			"2027-07-01 10:00:00", "2027-07-01 11:00:00", "2027-07-01 17:00:00", "2027-07-01 18:00:00", "UTC-8", "3600"},
		{"UTC+12 in the southern winter is Auckland's standard time", "UTC+12",
			"2027-07-01 10:00:00", "2027-07-01 11:00:00",
			"2027-07-01 10:00:00", "2027-07-01 11:00:00", "2027-06-30 22:00:00", "2027-06-30 23:00:00", "UTC+12", "3600"},
		// Offsets timelib's fallback map has no standard-time region for: the plugin walks PHP's
		// abbreviation list for the first standard-time zone of the offset, else UTC.
		{"UTC+9.5 is found in PHP's abbreviation list: Adelaide, on summer time in January", "UTC+9.5",
			"2027-01-10 10:00:00", "2027-01-10 11:00:00",
			"2027-01-10 10:00:00", "2027-01-10 11:00:00", "2027-01-09 23:30:00", "2027-01-10 00:30:00", "UTC+9.5", "3600"},
		{"UTC-10.5 is found as Honolulu's old standard time, and converts at Honolulu's -10 today", "UTC-10.5",
			"2027-07-01 10:00:00", "2027-07-01 11:00:00",
			"2027-07-01 10:00:00", "2027-07-01 11:00:00", "2027-07-01 20:00:00", "2027-07-01 21:00:00", "UTC-10.5", "3600"},
		{"UTC+6 has no standard-time zone in PHP's lists: the dates are taken as UTC", "UTC+6",
			"2027-07-01 10:00:00", "2027-07-01 11:00:00",
			"2027-07-01 10:00:00", "2027-07-01 11:00:00", "2027-07-01 10:00:00", "2027-07-01 11:00:00", "UTC+6", "3600"},
		{"UTC+13.75 has none either: UTC", "UTC+13.75",
			"2027-07-01 10:00:00", "2027-07-01 11:00:00",
			"2027-07-01 10:00:00", "2027-07-01 11:00:00", "2027-07-01 10:00:00", "2027-07-01 11:00:00", "UTC+13.75", "3600"},
	}
	for name, s := range servedStores(t, recordedNow, "dz") {
		for _, c := range cases {
			t.Run(name+"/"+c.name, func(t *testing.T) {
				body := map[string]any{"title": "Zone " + c.name, "start_date": c.start, "end_date": c.end}
				if c.tz != nil {
					body["timezone"] = c.tz
				}
				a := call(t, s.srv, "POST", "/wp-json/tribe/events/v1/events", body, "admin")
				if a.status != 201 {
					t.Fatalf("create: %d %s", a.status, a.raw)
				}
				id := fmt.Sprint(a.body["id"])
				checkEventDates(t, s, id, c.local, c.localEnd, c.utc, c.utcEnd, c.zone, c.duration)
				if a.body["utc_start_date"] != c.utc || a.body["start_date"] != c.local {
					t.Errorf("answer start %v (UTC %v), want %s (UTC %s)", a.body["start_date"], a.body["utc_start_date"], c.local, c.utc)
				}
			})
		}
		// An update moves an event by the same rules.
		t.Run(name+"/an update with a timezone re-reads the dates in it", func(t *testing.T) {
			a := call(t, s.srv, "POST", "/wp-json/tribe/events/v1/events", map[string]any{"title": "Moved",
				"start_date": "2027-02-01 09:00:00", "end_date": "2027-02-01 10:00:00"}, "admin")
			if a.status != 201 {
				t.Fatalf("create: %d %s", a.status, a.raw)
			}
			id := fmt.Sprint(a.body["id"])
			checkEventDates(t, s, id, "2027-02-01 09:00:00", "2027-02-01 10:00:00", "2027-02-01 14:00:00", "2027-02-01 15:00:00", "America/New_York", "3600")
			u := call(t, s.srv, "POST", "/wp-json/tribe/events/v1/events/"+id, map[string]any{"title": "Moved",
				"timezone": "Pacific/Auckland", "start_date": "tomorrow 09:00", "end_date": "tomorrow 10:30",
				"date": "tomorrow 08:00"}, "admin")
			if u.status != 200 {
				t.Fatalf("update: %d %s", u.status, u.raw)
			}
			checkEventDates(t, s, id, "2026-11-23 09:00:00", "2026-11-23 10:30:00", "2026-11-22 20:00:00", "2026-11-22 21:30:00", "Pacific/Auckland", "5400")
			if got := scalar[string](t, s.raw, "SELECT post_date FROM wp_posts WHERE ID = ?", id); got != "2026-11-23 08:00:00" {
				t.Errorf("post_date = %s: the post date is read in the request zone too", got)
			}
		})
	}
}

// checkEventDates checks an event's stored date meta.
func checkEventDates(t *testing.T, s storeSite, id, local, localEnd, utc, utcEnd, zone, duration string) {
	t.Helper()
	for key, want := range map[string]string{"_EventStartDate": local, "_EventEndDate": localEnd, "_EventStartDateUTC": utc,
		"_EventEndDateUTC": utcEnd, "_EventTimezone": zone, "_EventDuration": duration} {
		got := scalar[string](t, s.raw, "SELECT meta_value FROM wp_postmeta WHERE post_id = ? AND meta_key = ? ORDER BY meta_id LIMIT 1", id, key)
		if got != want {
			t.Errorf("%s = %q, want %q", key, got, want)
		}
	}
}

// The same rules on sites east of UTC (Auckland, and an offset-only site at UTC+5:30) and on an
// offset-only site west of it (gmt_offset -8): a request without a timezone reads its dates in the
// site's zone and stores the site's zone name (Tribe__Events__Timezones::wp_timezone_string: the
// timezone_string, or "UTC+5.5"-style from gmt_offset), and an offset site's zone converts through
// PHP's region for the offset. The clock is recordedNow (04:29:22 UTC: 17:29 in Auckland, 09:59 in
// India, 20:29 the day before in Los Angeles).
func TestEventDatesOnSitesEastAndWest(t *testing.T) {
	sites := []struct {
		name  string
		setup []string
		cases []struct {
			tz                                      any
			start, end                              string
			local, localEnd, utc, utcEnd, zone, dur string
		}
	}{
		{"Auckland", []string{"UPDATE wp_options SET option_value = 'Pacific/Auckland' WHERE option_name = 'timezone_string'"},
			[]struct {
				tz                                      any
				start, end                              string
				local, localEnd, utc, utcEnd, zone, dur string
			}{
				{nil, "tomorrow 10:00", "tomorrow 11:00", "2026-11-23 10:00:00", "2026-11-23 11:00:00", "2026-11-22 21:00:00", "2026-11-22 22:00:00", "Pacific/Auckland", "3600"},
				{"America/Los_Angeles", "today 23:00", "tomorrow 01:00", "2026-11-21 23:00:00", "2026-11-22 01:00:00", "2026-11-22 07:00:00", "2026-11-22 09:00:00", "America/Los_Angeles", "7200"},
			}},
		{"UTC+5:30 by gmt_offset", []string{
			"UPDATE wp_options SET option_value = '' WHERE option_name = 'timezone_string'",
			"UPDATE wp_options SET option_value = '5.5' WHERE option_name = 'gmt_offset'"},
			[]struct {
				tz                                      any
				start, end                              string
				local, localEnd, utc, utcEnd, zone, dur string
			}{
				{nil, "tomorrow 10:00", "tomorrow 11:00", "2026-11-23 10:00:00", "2026-11-23 11:00:00", "2026-11-23 04:30:00", "2026-11-23 05:30:00", "UTC+5.5", "3600"},
				{nil, "now", "+30 minutes", "2026-11-22 09:59:22", "2026-11-22 10:29:22", "2026-11-22 04:29:22", "2026-11-22 04:59:22", "UTC+5.5", "1800"},
			}},
		{"UTC-8 by gmt_offset", []string{
			"UPDATE wp_options SET option_value = '' WHERE option_name = 'timezone_string'",
			"UPDATE wp_options SET option_value = '-8' WHERE option_name = 'gmt_offset'"},
			[]struct {
				tz                                      any
				start, end                              string
				local, localEnd, utc, utcEnd, zone, dur string
			}{
				// The site's "UTC-8" is America/Los_Angeles to PHP: in July that is UTC-7.
				{nil, "2027-07-01 10:00:00", "2027-07-01 11:00:00", "2027-07-01 10:00:00", "2027-07-01 11:00:00", "2027-07-01 17:00:00", "2027-07-01 18:00:00", "UTC-8", "3600"},
				{nil, "2027-01-01 10:00:00", "2027-01-01 11:00:00", "2027-01-01 10:00:00", "2027-01-01 11:00:00", "2027-01-01 18:00:00", "2027-01-01 19:00:00", "UTC-8", "3600"},
				{nil, "tomorrow 09:00", "tomorrow 10:00", "2026-11-22 09:00:00", "2026-11-22 10:00:00", "2026-11-22 17:00:00", "2026-11-22 18:00:00", "UTC-8", "3600"},
			}},
		// gmt_offset 5.75 is "UTC+5.75", PHP's fallback map's Asia/Katmandu (10:14 there).
		{"UTC+5:45 by gmt_offset", []string{
			"UPDATE wp_options SET option_value = '' WHERE option_name = 'timezone_string'",
			"UPDATE wp_options SET option_value = '5.75' WHERE option_name = 'gmt_offset'"},
			[]struct {
				tz                                      any
				start, end                              string
				local, localEnd, utc, utcEnd, zone, dur string
			}{
				{nil, "tomorrow 10:00", "tomorrow 11:00", "2026-11-23 10:00:00", "2026-11-23 11:00:00", "2026-11-23 04:15:00", "2026-11-23 05:15:00", "UTC+5.75", "3600"},
			}},
		// gmt_offset 6 is "UTC+6", for which PHP knows no standard-time zone: the plugin's zone is
		// UTC, so relative dates follow the UTC clock and the dates are stored as if in UTC.
		{"UTC+6 by gmt_offset", []string{
			"UPDATE wp_options SET option_value = '' WHERE option_name = 'timezone_string'",
			"UPDATE wp_options SET option_value = '6' WHERE option_name = 'gmt_offset'"},
			[]struct {
				tz                                      any
				start, end                              string
				local, localEnd, utc, utcEnd, zone, dur string
			}{
				{nil, "tomorrow 10:00", "tomorrow 11:00", "2026-11-23 10:00:00", "2026-11-23 11:00:00", "2026-11-23 10:00:00", "2026-11-23 11:00:00", "UTC+6", "3600"},
				{nil, "now", "+30 minutes", "2026-11-22 04:29:22", "2026-11-22 04:59:22", "2026-11-22 04:29:22", "2026-11-22 04:59:22", "UTC+6", "1800"},
			}},
	}
	for i, site := range sites {
		for name, s := range servedStores(t, recordedNow, fmt.Sprintf("ew%d", i), site.setup...) {
			for j, c := range site.cases {
				t.Run(fmt.Sprintf("%s/%s/%d %v %s", site.name, name, j, c.tz, c.start), func(t *testing.T) {
					body := map[string]any{"title": "Site zone", "start_date": c.start, "end_date": c.end}
					if c.tz != nil {
						body["timezone"] = c.tz
					}
					a := call(t, s.srv, "POST", "/wp-json/tribe/events/v1/events", body, "admin")
					if a.status != 201 {
						t.Fatalf("create: %d %s", a.status, a.raw)
					}
					checkEventDates(t, s, fmt.Sprint(a.body["id"]), c.local, c.localEnd, c.utc, c.utcEnd, c.zone, c.dur)
				})
			}
		}
	}
}
