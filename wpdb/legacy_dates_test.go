package wpdb

import (
	"context"
	"reflect"
	"slices"
	"testing"

	"github.com/calendard/calendard"
	"github.com/calendard/calendard/eventindex"
)

// On a site without the custom tables the plugin's event query (Tribe__Events__Repositories__Event)
// makes each date bound a WP_Meta_Query clause of type DATETIME with its own join:
// CAST(meta_value AS DATETIME) op 'bound', met by any row of the key; and orders by
// CAST(start meta AS DATETIME) over a LEFT JOIN. So a date without a time is midnight, an empty
// start compares as 0000-00-00 (before every bound), an out-of-calendar day keeps its fields, two
// start rows can meet two bounds one each, and an event without end meta lists when no end bound
// asks for it. SQL and the event index answer alike, on both stores.
func TestLegacyDateBoundsAsThePlugin(t *testing.T) {
	eachStore(t, func(t *testing.T, s *Store) {
		ctx := context.Background()
		base, err := s.LoadSite(ctx, SiteOverrides{})
		if err != nil {
			t.Fatal(err)
		}
		site := *base
		site.UseCustomTables, site.TimezoneModeSite = false, false
		rows, err := s.sql.QueryContext(ctx, "SELECT ID FROM wp_posts p WHERE post_type = 'tribe_events' AND post_status = 'publish' AND NOT EXISTS "+
			"(SELECT 1 FROM wp_postmeta h WHERE h.post_id = p.ID AND h.meta_key = '_EventHideFromUpcoming') ORDER BY ID LIMIT 6")
		if err != nil {
			t.Fatal(err)
		}
		ids, err := scanIDs(rows)
		if err != nil {
			t.Fatal(err)
		}
		if len(ids) != 6 {
			t.Fatalf("fixture events: %v", ids)
		}
		A, B, C, D, E, F := ids[0], ids[1], ids[2], ids[3], ids[4], ids[5]
		dates := map[int64][][2]string{ // meta rows: key, value
			A: {{"_EventStartDate", "2027-01-05"}, {"_EventEndDate", "2027-01-05 23:59:59"}},
			B: {{"_EventStartDate", ""}, {"_EventEndDate", "2027-01-06 10:00:00"}},
			C: {{"_EventStartDate", "2027-01-03 10:00:00"}, {"_EventStartDate", "2027-01-09 10:00:00"}, {"_EventEndDate", "2027-01-09 12:00:00"}},
			D: {{"_EventStartDate", "2027-02-30 10:00:00"}, {"_EventEndDate", "2027-03-01 10:00:00"}},
			E: {{"_EventStartDate", "2027-01-07 10:00:00"}},
			F: {},
		}
		for i, id := range ids {
			if _, err := s.sql.ExecContext(ctx, "DELETE FROM wp_postmeta WHERE post_id = ? AND meta_key IN ('_EventStartDate', '_EventEndDate')", id); err != nil {
				t.Fatal(err)
			}
			// Distinct publication dates order the events whose start sorts as NULL.
			if _, err := s.sql.ExecContext(ctx, "UPDATE wp_posts SET post_date = ? WHERE ID = ?", "2020-01-0"+string(rune('1'+i))+" 00:00:00", id); err != nil {
				t.Fatal(err)
			}
			for _, m := range dates[id] {
				if _, err := s.sql.ExecContext(ctx, "INSERT INTO wp_postmeta (post_id, meta_key, meta_value) VALUES (?, ?, ?)", id, m[0], m[1]); err != nil {
					t.Fatal(err)
				}
			}
		}
		x := NewEventIndex(s.DB, eventindex.Options{})
		if err := x.Build(ctx, &site); err != nil {
			t.Fatal(err)
		}
		cases := []struct {
			name string
			f    calendard.EventFilter
			want []int64
		}{
			{"on or after: a date alone is midnight, an empty start is 0000-00-00, Feb 30 keeps its day, a missing end does not matter; NULL starts first",
				calendard.EventFilter{StartOnOrAfter: ptr("2027-01-05 00:00:00")}, []int64{D, C, A, E}},
			{"before: an empty start is before every bound", calendard.EventFilter{StartsBefore: ptr("2027-01-05 00:00:00")}, []int64{B, C}},
			{"two bounds met by two start rows, one each", calendard.EventFilter{StartOnOrAfter: ptr("2027-01-04 00:00:00"),
				StartsBefore: ptr("2027-01-06 00:00:00")}, []int64{C, A}},
			{"an end bound leaves out the event without end meta", calendard.EventFilter{EndOnOrBefore: ptr("2027-01-06 23:59:59")}, []int64{B, A}},
			{"no bound: every event, the one without dates too, NULL starts first by publication date",
				calendard.EventFilter{}, []int64{B, D, F, C, A, E}},
			{"start and end bounds", calendard.EventFilter{StartOnOrAfter: ptr("2027-01-01 00:00:00"), EndsAfter: ptr("2027-01-09 11:00:00")}, []int64{D, C}},
		}
		for _, c := range cases {
			t.Run(c.name, func(t *testing.T) {
				f := c.f
				f.Include, f.Limit = ids, 50
				evs, total, err := s.DB.FindEvents(ctx, &site, f)
				if err != nil {
					t.Fatal(err)
				}
				if got := eventIDs(evs); !reflect.DeepEqual(got, c.want) || total != len(c.want) {
					t.Errorf("SQL: %v (total %d), want %v", got, total, c.want)
				}
				got, total, ok := x.FindEvents(&site, &f)
				if !ok {
					t.Fatal("the index declined")
				}
				if !reflect.DeepEqual(got, c.want) || total != len(c.want) {
					t.Errorf("index: %v (total %d), want %v", got, total, c.want)
				}
			})
		}
	})
}

// The wp/v2 event list's own date filter on a postmeta site (Tribe__Events__Query's
// filter_and_order_by_date: _EventEndDate as CAST(... AS DATETIME) >= now) reads end dates as
// MariaDB does on both stores: a date alone is midnight, an out-of-calendar day keeps its fields,
// an empty end is 0000-00-00. (SQLite's own CAST(... AS DATETIME) is a number: 2027.)
func TestWPV2LegacyEndFilterCastsAsMariaDB(t *testing.T) {
	eachStore(t, func(t *testing.T, s *Store) {
		ctx := context.Background()
		base, err := s.LoadSite(ctx, SiteOverrides{})
		if err != nil {
			t.Fatal(err)
		}
		site := *base
		site.UseCustomTables = false
		rows, err := s.sql.QueryContext(ctx, "SELECT ID FROM wp_posts WHERE post_type = 'tribe_events' AND post_status = 'publish' ORDER BY ID LIMIT 4")
		if err != nil {
			t.Fatal(err)
		}
		ids, err := scanIDs(rows)
		if err != nil {
			t.Fatal(err)
		}
		if len(ids) != 4 {
			t.Fatalf("fixture events: %v", ids)
		}
		ends := []string{"2027-01-05", "2027-01-04 23:59:59", "", "2027-02-30 10:00:00"}
		for i, id := range ids {
			if _, err := s.sql.ExecContext(ctx, "UPDATE wp_postmeta SET meta_value = ? WHERE post_id = ? AND meta_key = '_EventEndDate'", ends[i], id); err != nil {
				t.Fatal(err)
			}
		}
		from := "2027-01-05 00:00:00"
		got, total, err := s.CorePostIDs(ctx, &site, calendard.CorePostQuery{PostType: calendard.PostTypeEvent, Include: ids,
			OrderBy: "date", EndsFrom: &from, Limit: 10})
		if err != nil {
			t.Fatal(err)
		}
		slices.Sort(got)
		if want := []int64{ids[0], ids[3]}; !reflect.DeepEqual(got, want) || total != 2 {
			t.Errorf("events ending at or after %s: %v (total %d), want %v", from, got, total, want)
		}
	})
}
