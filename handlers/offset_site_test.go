package handlers_test

import (
	"fmt"
	"testing"
	"time"
)

// On a site set by gmt_offset -8 the plugin's "now" (Dates::immutable('now'), build_timezone_object
// of "UTC-8") is Los Angeles' clock, on summer time in July: at 12:00 UTC it is 05:00, not the
// 04:00 of WordPress' fixed offset. The wp/v2 event list shows events ending at or after it
// (Tribe__Events__Query::filter_and_order_by_date), so an event ending at 04:30 has ended.
func TestWPV2EventsEndAfterThePluginsNowOnOffsetSites(t *testing.T) {
	now := time.Date(2027, 7, 1, 12, 0, 0, 0, time.UTC)
	for name, s := range servedStores(t, now, "offnow",
		"UPDATE wp_options SET option_value = '' WHERE option_name = 'timezone_string'",
		"UPDATE wp_options SET option_value = '-8' WHERE option_name = 'gmt_offset'") {
		cases := []struct {
			name   string
			end    string
			listed bool
		}{
			{"an event that ended at 04:30 local has ended at 05:00 Los Angeles time", "2027-07-01 04:30:00", false},
			{"an event ending at 05:30 local is listed", "2027-07-01 05:30:00", true},
		}
		for _, c := range cases {
			t.Run(name+"/"+c.name, func(t *testing.T) {
				a := call(t, s.srv, "POST", "/wp-json/tribe/events/v1/events", map[string]any{"title": "Early " + c.end,
					"start_date": "2027-07-01 03:00:00", "end_date": c.end, "status": "publish"}, "admin")
				if a.status != 201 {
					t.Fatalf("create: %d %s", a.status, a.raw)
				}
				id := fmt.Sprint(a.body["id"])
				l := call(t, s.srv, "GET", "/wp-json/wp/v2/tribe_events?include="+id, nil, "")
				t.Logf("%s %v", l.raw, a.body["end_date"])
				x := call(t, s.srv, "GET", "/wp-json/wp/v2/tribe_events/"+id, nil, "")
				t.Logf("%d %.300s", x.status, x.raw)
				if l.status != 200 {
					t.Fatalf("list: %d %s", l.status, l.raw)
				}
				if got := l.header.Get("X-WP-Total"); (got == "1") != c.listed {
					t.Errorf("X-WP-Total %s, listed want %v: %.200s", got, c.listed, l.raw)
				}
			})
		}
	}
}

// Trashing a venue takes it off the events that have not ended (the plugin's WP_Query with
// filter_and_order_by_date): on the gmt_offset -8 site in July "now" is 05:00 Los Angeles time, so
// the event that ended at 04:30 keeps its venue and the one ending at 05:30 loses it.
func TestTrashedVenueLeavesEventsEndedByThePluginsNow(t *testing.T) {
	now := time.Date(2027, 7, 1, 12, 0, 0, 0, time.UTC)
	for name, s := range servedStores(t, now, "offtrash",
		"UPDATE wp_options SET option_value = '' WHERE option_name = 'timezone_string'",
		"UPDATE wp_options SET option_value = '-8' WHERE option_name = 'gmt_offset'") {
		t.Run(name, func(t *testing.T) {
			v := call(t, s.srv, "POST", "/wp-json/tribe/events/v1/venues", map[string]any{"venue": "Dawn Hall", "status": "publish"}, "admin")
			if v.status != 201 {
				t.Fatalf("venue: %d %s", v.status, v.raw)
			}
			venue := fmt.Sprint(v.body["id"])
			ids := map[string]string{}
			for _, end := range []string{"2027-07-01 04:30:00", "2027-07-01 05:30:00"} {
				a := call(t, s.srv, "POST", "/wp-json/tribe/events/v1/events", map[string]any{"title": "Dawn " + end,
					"start_date": "2027-07-01 03:00:00", "end_date": end, "status": "publish", "venue": venue}, "admin")
				if a.status != 201 {
					t.Fatalf("create: %d %s", a.status, a.raw)
				}
				ids[end] = fmt.Sprint(a.body["id"])
			}
			if d := call(t, s.srv, "DELETE", "/wp-json/tribe/events/v1/venues/"+venue, nil, "admin"); d.status != 200 {
				t.Fatalf("trash: %d %s", d.status, d.raw)
			}
			for end, want := range map[string]int{"2027-07-01 04:30:00": 1, "2027-07-01 05:30:00": 0} {
				if n := scalar[int](t, s.raw, "SELECT COUNT(*) FROM wp_postmeta WHERE post_id = ? AND meta_key = '_EventVenueID'", ids[end]); n != want {
					t.Errorf("event ending %s: %d venue rows, want %d", end, n, want)
				}
			}
		})
	}
}
