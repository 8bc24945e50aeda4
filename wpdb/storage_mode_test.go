package wpdb

import (
	"context"
	"reflect"
	"testing"
	"time"

	"github.com/calendard/calendard"
	"github.com/calendard/calendard/eventindex"
)

// The plugin's rule (Custom_Tables\V1\Provider::is_active, Migration\State::is_migrated), case by
// case: the switch option, the migration phase, and the wp-config constant.
func TestCustomTablesRule(t *testing.T) {
	state := func(phase string) string {
		return `a:3:{s:18:"complete_timestamp";N;s:5:"phase";` + phase + `s:19:"preview_unsupported";b:0;}`
	}
	notRequired := state(`s:22:"migration-not-required";`)
	cases := []struct {
		name      string
		disabled  bool
		active    string
		hasActive bool
		state     string
		want      bool
	}{
		{"migration not required, no switch option: tables in use", false, "", false, notRequired, true},
		{"migration complete: tables in use", false, "", false, state(`s:18:"migration-complete";`), true},
		{"switch option 1: tables in use", false, "1", true, notRequired, true},
		{"switch option b:1;: tables in use", false, "b:1;", true, notRequired, true},
		{"switch option empty (update_option false): postmeta", false, "", true, notRequired, false},
		{"switch option 0: postmeta", false, "0", true, notRequired, false},
		{"switch option b:0;: postmeta", false, "b:0;", true, notRequired, false},
		{"switch option a:0:{}: postmeta", false, "a:0:{}", true, notRequired, false},
		{"switch option broken serialization (false): postmeta", false, "b:2;", true, notRequired, false},
		{"constant TEC_CUSTOM_TABLES_V1_DISABLED: postmeta", true, "", false, notRequired, false},
		{"no migration state stored: postmeta", false, "", false, "", false},
		{"phase null: postmeta", false, "", false, state("N;"), false},
		{"migration prompt (preview done): postmeta", false, "", false, state(`s:16:"migration-prompt";`), false},
		{"migration in progress: postmeta", false, "", false, state(`s:21:"migration-in-progress";`), false},
		{"reverted: postmeta", false, "", false, state(`s:15:"revert-complete";`), false},
		{"failed: postmeta", false, "", false, state(`s:25:"migration-failed-complete";`), false},
		{"phase true (loose in_array): tables in use", false, "", false, state("b:1;"), true},
		{"phase 0: postmeta", false, "", false, state("i:0;"), false},
		{"state not an array: postmeta", false, "", false, `s:22:"migration-not-required";`, false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if got := customTablesInUse(c.disabled, c.active, c.hasActive, c.state); got != c.want {
				t.Errorf("customTablesInUse = %v, want %v", got, c.want)
			}
		})
	}
}

// A site whose custom tables are switched off lists its events from postmeta: the same events,
// totals and order the tables gave before they were switched off and emptied.
func TestLegacySiteListsFromPostmeta(t *testing.T) {
	eachStore(t, func(t *testing.T, s *Store) {
		ctx := context.Background()
		before, err := s.Site(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if !before.UseCustomTables {
			t.Fatal("the fixture uses its custom tables")
		}
		filters := map[string]calendard.EventFilter{
			"window":     {StartOnOrAfter: ptr("2025-01-01 00:00:00"), EndOnOrBefore: ptr("2028-12-31 23:59:59"), Limit: 50},
			"page 2":     {StartOnOrAfter: ptr("2025-01-01 00:00:00"), Limit: 5, Offset: 5},
			"categories": {CategoryIDs: []int64{2, 3, 4}, Statuses: []string{"publish"}, Limit: 50},
		}
		want := map[string][]int64{}
		totals := map[string]int{}
		for name, f := range filters {
			evs, total, err := s.FindEvents(ctx, before, f)
			if err != nil {
				t.Fatal(err)
			}
			want[name], totals[name] = eventIDs(evs), total
		}
		for _, st := range []string{
			"INSERT INTO wp_options (option_name, option_value, autoload) VALUES ('tec_custom_tables_v1_active', '', 'auto')",
			"DELETE FROM wp_tec_occurrences", "DELETE FROM wp_tec_events",
		} {
			if _, err := s.sql.ExecContext(ctx, st); err != nil {
				t.Fatal(err)
			}
		}
		site, err := s.LoadSite(ctx, SiteOverrides{})
		if err != nil {
			t.Fatal(err)
		}
		if site.UseCustomTables {
			t.Fatal("tec_custom_tables_v1_active is false: the site is on postmeta")
		}
		for name, f := range filters {
			t.Run(name+" lists the same events from postmeta", func(t *testing.T) {
				evs, total, err := s.DB.FindEvents(ctx, site, f)
				if err != nil {
					t.Fatal(err)
				}
				if total != totals[name] || !reflect.DeepEqual(eventIDs(evs), want[name]) || total == 0 {
					t.Errorf("postmeta %d %v\ntables   %d %v", total, eventIDs(evs), totals[name], want[name])
				}
			})
		}
		// The index, built for the legacy site, answers the same.
		x := NewEventIndex(s.DB, eventindex.Options{})
		if err := x.Build(ctx, site); err != nil {
			t.Fatal(err)
		}
		for name, f := range filters {
			ids, total, ok := x.FindEvents(site, &f)
			if !ok || total != totals[name] || !reflect.DeepEqual(ids, want[name]) {
				t.Errorf("%s: index %v %d %v, want %d %v", name, ok, total, ids, totals[name], want[name])
			}
		}
		off, err := s.LoadSite(ctx, SiteOverrides{CustomTablesDisabled: true})
		if err != nil || off.UseCustomTables {
			t.Errorf("CALENDAR_CUSTOM_TABLES=off must keep the site on postmeta (err %v)", err)
		}
	})
}

// Switching the custom tables off on a running site (as the plugin's option does) is seen through
// the change feed: the site settings flip to postmeta, and the event index, rebuilt for the new
// mode, lists the same events from postmeta while the emptied tables hold none.
func TestLiveStoreFollowsTheCustomTablesSwitch(t *testing.T) {
	eachStore(t, func(t *testing.T, s *Store) {
		ctx, cancel := context.WithCancel(context.Background())
		defer cancel()
		s.Start(ctx, StartOptions{WatchInterval: 100 * time.Millisecond})
		if !s.Index().WaitReady(ctxTimeout(t, 10*time.Second)) {
			t.Fatal("index never built")
		}
		site, err := s.Site(ctx)
		if err != nil || !site.UseCustomTables {
			t.Fatalf("the fixture uses its custom tables (err %v)", err)
		}
		f := calendard.EventFilter{Statuses: []string{"publish"}, StartOnOrAfter: ptr("2000-01-01 00:00:00"), Limit: 500}
		want, wantTotal, err := s.FindEvents(ctx, site, f)
		if err != nil || wantTotal == 0 {
			t.Fatalf("%d events, err %v", wantTotal, err)
		}
		for _, st := range []string{
			"INSERT INTO wp_options (option_name, option_value, autoload) VALUES ('tec_custom_tables_v1_active', '0', 'auto')",
			"DELETE FROM wp_tec_occurrences", "DELETE FROM wp_tec_events",
		} {
			if _, err := s.sql.ExecContext(ctx, st); err != nil {
				t.Fatal(err)
			}
		}
		deadline := time.Now().Add(10 * time.Second)
		for {
			site, err = s.Site(ctx)
			if err != nil {
				t.Fatal(err)
			}
			if !site.UseCustomTables {
				break
			}
			if time.Now().After(deadline) {
				t.Fatal("the switch was not seen within 10 s")
			}
			time.Sleep(50 * time.Millisecond)
		}
		// Whether the index has rebuilt yet or SQL answers meanwhile, the answer is the same.
		for i := 0; i < 2; i++ {
			got, total, err := s.FindEvents(ctx, site, f)
			if err != nil {
				t.Fatal(err)
			}
			if total != wantTotal || !reflect.DeepEqual(eventIDs(got), eventIDs(want)) {
				t.Errorf("after the switch: %d %v, before %d %v", total, eventIDs(got), wantTotal, eventIDs(want))
			}
			time.Sleep(500 * time.Millisecond)
		}
		deadline = time.Now().Add(10 * time.Second)
		for {
			ids, total, ok := s.Index().FindEvents(site, &f)
			if ok {
				if total != wantTotal || !reflect.DeepEqual(ids, eventIDs(want)) {
					t.Errorf("rebuilt index: %d %v, want %d %v", total, ids, wantTotal, eventIDs(want))
				}
				break
			}
			if time.Now().After(deadline) {
				t.Fatal("the index was not rebuilt for postmeta within 10 s")
			}
			time.Sleep(50 * time.Millisecond)
		}
	})
}
