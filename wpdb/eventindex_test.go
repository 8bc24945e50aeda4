package wpdb

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/calendard/calendard"
	"github.com/calendard/calendard/eventindex"
	"github.com/calendard/calendard/internal/mysqlcast"
)

// indexFilterValues are the values random filters draw from: the fixture's own dates and IDs, so
// bounds fall on, just before and just after real events.
type indexFilterValues struct {
	dates                        []string
	venues, orgs, cats, tags, id []int64
	words                        []string
}

func collectFilterValues(t *testing.T, s *Store) indexFilterValues {
	t.Helper()
	ctx := context.Background()
	var v indexFilterValues
	q := func(sql string, fn func(scan func(...any) error) error) {
		rows, err := s.sql.QueryContext(ctx, sql)
		if err != nil {
			t.Fatal(err)
		}
		defer rows.Close()
		for rows.Next() {
			if err := fn(rows.Scan); err != nil {
				t.Fatal(err)
			}
		}
	}
	q("SELECT meta_value FROM wp_postmeta WHERE meta_key IN ('_EventStartDate', '_EventEndDate', '_EventStartDateUTC', '_EventEndDateUTC')",
		func(scan func(...any) error) error {
			var d string
			if err := scan(&d); err != nil {
				return err
			}
			v.dates = append(v.dates, d)
			if tm, err := time.Parse(calendard.DBDateTime, d); err == nil {
				v.dates = append(v.dates, tm.Add(-time.Second).Format(calendard.DBDateTime), tm.Add(time.Second).Format(calendard.DBDateTime))
			}
			return nil
		})
	ids := func(sql string) (out []int64) {
		q(sql, func(scan func(...any) error) error {
			var id int64
			err := scan(&id)
			out = append(out, id)
			return err
		})
		return append(out, 999999)
	}
	q("SELECT post_title, post_content FROM wp_posts WHERE post_type = 'tribe_events'", func(scan func(...any) error) error {
		var title, content string
		if err := scan(&title, &content); err != nil {
			return err
		}
		for _, w := range strings.Fields(title + " " + content) {
			if len(w) > 3 && len(v.words) < 4000 {
				v.words = append(v.words, w)
			}
		}
		return nil
	})
	// Variants LIKE equates with the stored words (case, accents) and some it does not.
	v.words = append(v.words, "FESTIVAL", "fèstival", "Café", "cafe", "naïve", "concert", "ß", "ss", "<p>", "&amp;", "\\", "%", "_")
	v.venues = ids("SELECT ID FROM wp_posts WHERE post_type = 'tribe_venue'")
	v.orgs = ids("SELECT ID FROM wp_posts WHERE post_type = 'tribe_organizer'")
	v.cats = ids("SELECT term_id FROM wp_term_taxonomy WHERE taxonomy = 'tribe_events_cat'")
	v.tags = ids("SELECT term_id FROM wp_term_taxonomy WHERE taxonomy = 'post_tag'")
	v.id = ids("SELECT ID FROM wp_posts")
	return v
}

// randomFilter draws an event filter the index must answer as SQL does.
func randomFilter(r *rand.Rand, v indexFilterValues) calendard.EventFilter {
	var f calendard.EventFilter
	date := func() *string {
		if r.IntN(3) > 0 {
			return nil
		}
		d := v.dates[r.IntN(len(v.dates))]
		return &d
	}
	f.StartOnOrAfter, f.EndOnOrBefore = date(), date()
	if r.IntN(3) == 0 {
		f.StartsBefore, f.StartsAfter, f.EndsBefore, f.EndsAfter = date(), date(), date(), date()
	}
	switch r.IntN(4) {
	case 0:
		f.Statuses = []string{"publish"}
	case 1:
		f.Statuses = []string{"draft", "private", "pending", "future", "trash"}[:1+r.IntN(5)]
	}
	pick := func(from []int64) []int64 {
		switch r.IntN(8) {
		case 0:
			return []int64{}
		case 1, 2:
			out := []int64{from[r.IntN(len(from))]}
			if r.IntN(2) == 0 {
				out = append(out, from[r.IntN(len(from))])
			}
			return out
		}
		return nil
	}
	f.VenueIDs, f.OrganizerIDs, f.CategoryIDs, f.TagIDs = pick(v.venues), pick(v.orgs), pick(v.cats), pick(v.tags)
	if r.IntN(4) == 0 {
		b := r.IntN(2) == 0
		f.Featured = &b
	}
	if r.IntN(6) == 0 {
		f.Include = []int64{}
		for n := r.IntN(8); n > 0; n-- {
			f.Include = append(f.Include, v.id[r.IntN(len(v.id))])
		}
		f.OrderByPostDate = true
	}
	if r.IntN(10) == 0 {
		p := v.id[r.IntN(len(v.id))]
		if r.IntN(2) == 0 {
			p = 0
		}
		f.PostParent = &p
	}
	if r.IntN(3) == 0 {
		var terms []string
		for n := 1 + r.IntN(3); n > 0; n-- {
			w := v.words[r.IntN(len(v.words))]
			if len(w) > 5 && r.IntN(3) == 0 {
				w = w[1 : len(w)-1] // a fragment
			}
			if r.IntN(5) == 0 {
				w = "-" + w
			}
			terms = append(terms, w)
		}
		f.Search = calendard.ParseSearch(strings.Join(terms, " "))
		f.SearchAnonymous = r.IntN(2) == 0
		if r.IntN(2) == 0 { // search alone, so that enough searches match something
			f = calendard.EventFilter{Search: f.Search, SearchAnonymous: f.SearchAnonymous, Statuses: f.Statuses}
		}
		if r.IntN(3) == 0 { // events the search finds whatever their text (Meilisearch's matches)
			f.SearchAlso = []int64{}
			for n := r.IntN(12); n > 0; n-- {
				f.SearchAlso = append(f.SearchAlso, v.id[r.IntN(len(v.id))])
			}
		}
	}
	f.Limit = []int{1, 5, 10, 50}[r.IntN(4)]
	f.Offset = []int{0, 0, 0, 3, 10, 40, 90}[r.IntN(7)]
	return f
}

func TestEventIndexAnswersAsSQL(t *testing.T) {
	eachStore(t, func(t *testing.T, s *Store) {
		ctx := context.Background()
		base, err := s.LoadSite(ctx, SiteOverrides{})
		if err != nil {
			t.Fatal(err)
		}
		// Two rounds: the plugin's own rows (every event sorts by one regular date: the plain scan
		// and page skipping), then rows the plugin never writes but a database can hold.
		for round := 0; round < 2; round++ {
			if round == 1 {
				// Rows the plugin never writes but a database can hold: irregular dates, a second occurrence,
				// a second start meta row, a non-numeric venue reference and odd-cased keys and statuses.
				for _, st := range []string{
					"UPDATE wp_postmeta SET meta_value = '2027-01-05' WHERE meta_key = '_EventStartDate' AND post_id = (SELECT MIN(post_id) FROM (SELECT post_id FROM wp_postmeta WHERE meta_key = '_EventVenueID') x)",
					"INSERT INTO wp_postmeta (post_id, meta_key, meta_value) SELECT post_id, '_EventStartDate', '2026-12-24 08:00:00' FROM wp_postmeta WHERE meta_key = '_EventCost' ORDER BY meta_id LIMIT 1",
					"INSERT INTO wp_postmeta (post_id, meta_key, meta_value) SELECT post_id, '_EventVenueID', ' 12abc' FROM wp_postmeta WHERE meta_key = '_EventOrganizerID' ORDER BY meta_id LIMIT 1",
					"INSERT INTO wp_postmeta (post_id, meta_key, meta_value) SELECT post_id, '_TRIBE_FEATURED', '' FROM wp_postmeta WHERE meta_key = '_EventURL' ORDER BY meta_id LIMIT 1",
					// Other spellings the collation finds equal (case, a trailing space, an accent),
					// beside the exact ones of the same post: the embedded store's first build reads
					// those posts again, in meta_id order.
					"INSERT INTO wp_postmeta (post_id, meta_key, meta_value) SELECT post_id, '_eventorganizerid', (SELECT MAX(ID) FROM wp_posts WHERE post_type = 'tribe_organizer') FROM wp_postmeta WHERE meta_key = '_EventOrganizerID' ORDER BY meta_id DESC LIMIT 1",
					"INSERT INTO wp_postmeta (post_id, meta_key, meta_value) SELECT post_id, '_EventVenueID ', (SELECT MIN(ID) FROM wp_posts WHERE post_type = 'tribe_venue') FROM wp_postmeta WHERE meta_key = '_EventVenueID' ORDER BY meta_id DESC LIMIT 1",
					"INSERT INTO wp_postmeta (post_id, meta_key, meta_value) SELECT post_id, '_EventHideFromUpcomíng', 'yes' FROM wp_postmeta WHERE meta_key = '_EventOrganizerID' ORDER BY meta_id LIMIT 1 OFFSET 3",
					"INSERT INTO wp_tec_occurrences (event_id, post_id, start_date, start_date_utc, end_date, end_date_utc, duration, hash, updated_at) SELECT event_id, post_id, '2025-03-01 10:00:00', '2025-03-01 15:00:00', '2025-03-01 12:00:00', '2025-03-01 17:00:00', 7200, 'x', '2025-01-01 00:00:00' FROM wp_tec_occurrences ORDER BY occurrence_id DESC LIMIT 1",
					"UPDATE wp_posts SET post_status = 'Publish' WHERE ID = (SELECT MAX(post_id) FROM wp_tec_occurrences)",
					"UPDATE wp_posts SET post_password = '  ' WHERE ID = (SELECT MIN(post_id) FROM wp_tec_occurrences)",
					"INSERT INTO wp_postmeta (post_id, meta_key, meta_value) SELECT post_id, '_EventEndDateUTC', '2030-01-01 00:00:00' FROM wp_postmeta WHERE meta_key = '_EventURL' ORDER BY meta_id DESC LIMIT 1",
				} {
					if _, err := s.sql.ExecContext(ctx, st); err != nil {
						t.Fatalf("%s: %v", st, err)
					}
				}
			}
			values := collectFilterValues(t, s)
			for m, mode := range []eventindex.Mode{{CustomTables: true}, {}, {CustomTables: true, UTC: true}, {UTC: true}} {
				site := *base
				site.UseCustomTables, site.TimezoneModeSite = mode.CustomTables, mode.UTC
				// Blocks of 3 or 4 events, so that the fixture's lists count whole blocks (and the
				// edges of odd lengths) as a large calendar's do.
				x := NewEventIndex(s.DB, eventindex.Options{BlockLen: 3 + m%2})
				if err := x.Build(ctx, &site); err != nil {
					t.Fatal(err)
				}
				// Searches go through the trigram index, built in the background.
				if !x.WaitTextIndex(ctxTimeout(t, 30*time.Second)) {
					t.Fatal("no text index within 30 s")
				}
				if slow := x.Stats().Irregular; (round == 0) != (slow == 0) {
					t.Fatalf("round %d has %d events with several or irregular dates", round, slow)
				}
				r := rand.New(rand.NewPCG(1, uint64(len(values.dates))))
				nonEmpty, searched := 0, 0
				for i := 0; i < 1000; i++ {
					f := randomFilter(r, values)
					ids, total, ok := x.FindEvents(&site, &f)
					if !ok {
						if allRegular(f) {
							t.Fatalf("index declined %s", describeFilter(f))
						}
						continue // irregular bounds (never sent by the handlers) go to SQL
					}
					want, wantTotal, err := s.DB.FindEvents(ctx, &site, f)
					if err != nil {
						t.Fatal(err)
					}
					if total != wantTotal || !reflect.DeepEqual(ids, eventIDs(want)) {
						t.Fatalf("mode %+v filter %s:\nindex %d %v\nsql   %d %v", mode, describeFilter(f), total, ids, wantTotal, eventIDs(want))
					}
					if total > 0 {
						nonEmpty++
						if len(f.Search) > 0 {
							searched++
						}
					}
				}
				if searched < 20 {
					t.Errorf("mode %+v: only %d searches matched anything; the test is too weak", mode, searched)
				}
				if nonEmpty < 200 {
					t.Errorf("mode %+v: only %d of 1000 random filters matched anything; the test is too weak", mode, nonEmpty)
				}
			}
		}
	})
}

func allRegular(f calendard.EventFilter) bool {
	for _, b := range []*string{f.StartOnOrAfter, f.EndOnOrBefore, f.StartsBefore, f.StartsAfter, f.EndsBefore, f.EndsAfter} {
		if _, ok := mysqlcast.Pack(deref(b, "2000-01-01 00:00:00")); !ok {
			return false
		}
	}
	return true
}

func deref(p *string, def string) string {
	if p == nil {
		return def
	}
	return *p
}

func describeFilter(f calendard.EventFilter) string {
	s := func(p *string) string {
		if p == nil {
			return "-"
		}
		return *p
	}
	b := "-"
	if f.Featured != nil {
		b = fmt.Sprint(*f.Featured)
	}
	par := "-"
	if f.PostParent != nil {
		par = fmt.Sprint(*f.PostParent)
	}
	return fmt.Sprintf("search=%+v also=%v anon=%v ", f.Search, f.SearchAlso, f.SearchAnonymous) + fmt.Sprintf("status=%v start>=%s end<=%s sb=%s sa=%s eb=%s ea=%s venues=%v orgs=%v cats=%v tags=%v featured=%s include=%v parent=%s limit=%d offset=%d",
		f.Statuses, s(f.StartOnOrAfter), s(f.EndOnOrBefore), s(f.StartsBefore), s(f.StartsAfter), s(f.EndsBefore), s(f.EndsAfter),
		f.VenueIDs, f.OrganizerIDs, f.CategoryIDs, f.TagIDs, b, f.Include, par, f.Limit, f.Offset)
}

func TestEventIndexFollowsWritesAndDirectChanges(t *testing.T) {
	eachStore(t, func(t *testing.T, s *Store) {
		ctx, cancel := context.WithCancel(context.Background())
		defer cancel()
		s.Start(ctx, StartOptions{WatchInterval: 100 * time.Millisecond, Reconcile: 700 * time.Millisecond})
		if !s.Index().WaitReady(ctxTimeout(t, 10*time.Second)) {
			t.Fatal("index never built")
		}
		site, err := s.Site(ctx)
		if err != nil {
			t.Fatal(err)
		}
		f := calendard.EventFilter{Statuses: []string{"publish"}, StartOnOrAfter: ptr("2000-01-01 00:00:00"), Limit: 500}
		ids, total, ok := s.Index().FindEvents(site, &f)
		if !ok || total == 0 {
			t.Fatalf("index answered %v with %d events", ok, total)
		}
		victim := ids[0]

		t.Run("a calendard write is in the next answer", func(t *testing.T) {
			err := s.Write(ctx, nil, func(tx calendard.WriteTx) error {
				return tx.AddMeta(ctx, victim, "_EventHideFromUpcoming", "yes")
			})
			if err != nil {
				t.Fatal(err)
			}
			ids, n, _ := s.Index().FindEvents(site, &f)
			if n != total-1 || contains64(ids, victim) {
				t.Errorf("after hiding %d: total %d (was %d), still listed: %v", victim, n, total, contains64(ids, victim))
			}
		})
		t.Run("a direct SQL change is in the answers within the watch interval and a rebuild", func(t *testing.T) {
			start := time.Now()
			if _, err := s.sql.ExecContext(ctx, "UPDATE wp_posts SET post_status = 'draft', post_modified_gmt = '2030-01-01 00:00:00' WHERE ID = ?", ids[1]); err != nil {
				t.Fatal(err)
			}
			deadline := time.Now().Add(30 * time.Second)
			for time.Now().Before(deadline) {
				got, n, _ := s.Index().FindEvents(site, &f)
				if n == total-2 && !contains64(got, ids[1]) {
					t.Logf("seen after %v", time.Since(start).Round(time.Millisecond))
					return
				}
				time.Sleep(20 * time.Millisecond)
			}
			t.Errorf("the direct change to %d was not seen within 30 s", ids[1])
		})
		t.Run("a bare meta update the watermark cannot see shows after the reconcile interval", func(t *testing.T) {
			if _, err := s.sql.ExecContext(ctx, "UPDATE wp_postmeta SET meta_value = '1' WHERE post_id = ? AND meta_key = '_EventHideFromUpcoming'", victim); err != nil {
				t.Fatal(err)
			}
			if _, err := s.sql.ExecContext(ctx, "UPDATE wp_postmeta SET meta_key = '_was_hidden' WHERE post_id = ? AND meta_key = '_EventHideFromUpcoming'", victim); err != nil {
				t.Fatal(err)
			}
			deadline := time.Now().Add(30 * time.Second)
			for time.Now().Before(deadline) {
				if got, _, _ := s.Index().FindEvents(site, &f); contains64(got, victim) {
					return
				}
				time.Sleep(50 * time.Millisecond)
			}
			t.Errorf("event %d is still hidden 5 s after its hide flag was renamed away", victim)
		})
	})
}

func ctxTimeout(t *testing.T, d time.Duration) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), d)
	t.Cleanup(cancel)
	return ctx
}

func contains64(ids []int64, id int64) bool {
	for _, x := range ids {
		if x == id {
			return true
		}
	}
	return false
}

// TestMemoKeysCoverEveryField fails when a filter gains a field the memo keys do not spell: add it
// to the key in memo.go, then here.
func TestMemoKeysCoverEveryField(t *testing.T) {
	for typ, want := range map[reflect.Type]int{
		reflect.TypeOf(calendard.TermQuery{}):    14,
		reflect.TypeOf(calendard.LinkedFilter{}): 9,
	} {
		if typ.NumField() != want {
			t.Errorf("%s has %d fields; memo.go's key spells %d", typ, typ.NumField(), want)
		}
	}
	if memoKey("a", []int64{1, 2}) == memoKey("a", []int64{12}) || memoKey("ab", "c") == memoKey("a", "bc") ||
		memoKey([]int64(nil)) == memoKey([]int64{}) {
		t.Error("memo keys are ambiguous")
	}
}

// TestEventIndexPatchesAsItRebuilds changes events behind the index's back, patches them in (as a
// calendard write does) and holds the patched index to the SQL answers.
func TestEventIndexPatchesAsItRebuilds(t *testing.T) {
	eachStore(t, func(t *testing.T, s *Store) {
		ctx := context.Background()
		site, err := s.LoadSite(ctx, SiteOverrides{})
		if err != nil {
			t.Fatal(err)
		}
		x := NewEventIndex(s.DB, eventindex.Options{})
		if err := x.Build(ctx, site); err != nil {
			t.Fatal(err)
		}
		var ids []int64
		rows, err := s.sql.QueryContext(ctx, "SELECT ID FROM wp_posts WHERE post_type = 'tribe_events' ORDER BY ID")
		if err != nil {
			t.Fatal(err)
		}
		if ids, err = scanIDs(rows); err != nil {
			t.Fatal(err)
		}
		r := rand.New(rand.NewPCG(3, 4))
		values := collectFilterValues(t, s)
		for round := 0; round < 12; round++ {
			var touched []int64
			for k := 0; k < 1+r.IntN(4); k++ {
				id := ids[r.IntN(len(ids))]
				touched = append(touched, id)
				var st string
				switch r.IntN(6) {
				case 0:
					st = "UPDATE wp_posts SET post_status = 'draft' WHERE ID = ?"
				case 1:
					st = "UPDATE wp_posts SET post_status = 'publish' WHERE ID = ?"
				case 2:
					st = "UPDATE wp_tec_occurrences SET start_date = '2027-02-02 10:00:00', start_date_utc = '2027-02-02 15:00:00' WHERE post_id = ?"
				case 3:
					st = "UPDATE wp_postmeta SET meta_value = '" + fmt.Sprint(values.venues[r.IntN(len(values.venues))]) + "' WHERE meta_key = '_EventVenueID' AND post_id = ?"
				case 4:
					st = "DELETE FROM wp_term_relationships WHERE object_id = ?"
				case 5:
					st = "INSERT INTO wp_postmeta (post_id, meta_key, meta_value) VALUES (?, '_EventHideFromUpcoming', 'yes')"
				}
				if _, err := s.sql.ExecContext(ctx, st, id); err != nil {
					t.Fatalf("%s: %v", st, err)
				}
			}
			if err := x.Patch(ctx, append(touched, touched[0], 999999)); err != nil {
				t.Fatal(err)
			}
			for i := 0; i < 100; i++ {
				f := randomFilter(r, values)
				got, total, ok := x.FindEvents(site, &f)
				if !ok {
					continue
				}
				want, wantTotal, err := s.DB.FindEvents(ctx, site, f)
				if err != nil {
					t.Fatal(err)
				}
				if total != wantTotal || !reflect.DeepEqual(got, eventIDs(want)) {
					t.Fatalf("round %d, after patching %v, filter %s:\nindex %d %v\nsql   %d %v", round, touched, describeFilter(f), total, got, wantTotal, eventIDs(want))
				}
			}
		}
	})
}

// calendard's own writes are announced by the writes themselves; the watermark poll must not take
// them for changes from outside too (a full rebuild of everything kept, per write), while a direct
// change still is one.
func TestOwnWritesAreNotSeenAsOutsideChanges(t *testing.T) {
	eachStore(t, func(t *testing.T, s *Store) {
		ctx, cancel := context.WithCancel(context.Background())
		defer cancel()
		s.Start(ctx, StartOptions{WatchInterval: 50 * time.Millisecond})
		if !s.Index().WaitReady(ctxTimeout(t, 10*time.Second)) {
			t.Fatal("index never built")
		}
		site, err := s.Site(ctx)
		if err != nil {
			t.Fatal(err)
		}
		f := calendard.EventFilter{Statuses: []string{"publish"}, StartOnOrAfter: ptr("2000-01-01 00:00:00"), Limit: 500}
		ids, total, _ := s.Index().FindEvents(site, &f)
		// What the start itself may announce (a first poll that failed on a loaded machine is
		// followed by a change from outside) is over once three polls have passed quietly.
		rebuilds := s.Index().Stats().Rebuilds
		for quiet := time.Now(); time.Since(quiet) < 150*time.Millisecond || s.Index().Stale(); time.Sleep(10 * time.Millisecond) {
			if n := s.Index().Stats().Rebuilds; n != rebuilds {
				rebuilds, quiet = n, time.Now()
			}
		}
		for i, id := range ids[:3] {
			err := s.Write(ctx, nil, func(tx calendard.WriteTx) error {
				return tx.AddMeta(ctx, id, "_EventHideFromUpcoming", "yes")
			})
			if err != nil {
				t.Fatal(err)
			}
			for range 3 { // three polls that read the database after the write
				if err := s.feed.Sync(ctx); err != nil {
					t.Fatal(err)
				}
			}
			if _, n, _ := s.Index().FindEvents(site, &f); n != total-i-1 {
				t.Fatalf("after hiding %d events the list has %d, want %d", i+1, n, total-i-1)
			}
		}
		if n := s.Index().Stats().Rebuilds - rebuilds; n != 0 {
			t.Errorf("three calendard writes were taken for %d outside changes", n)
		}
		if _, err := s.sql.ExecContext(ctx, "UPDATE wp_posts SET post_status = 'draft', post_modified_gmt = '2031-01-01 00:00:00' WHERE ID = ?", ids[5]); err != nil {
			t.Fatal(err)
		}
		// A poll that read the database after the change must see it: no waiting on the clock.
		if err := s.feed.Sync(ctx); err != nil {
			t.Fatal(err)
		}
		deadline := time.Now().Add(30 * time.Second)
		for s.Index().Stats().Rebuilds == rebuilds && time.Now().Before(deadline) {
			time.Sleep(20 * time.Millisecond)
		}
		if s.Index().Stats().Rebuilds == rebuilds {
			t.Error("a direct change was not seen")
		}
	})
}

func TestPollWaitKeepsThePollUnderItsShareOfACore(t *testing.T) {
	for _, c := range []struct {
		name           string
		interval, took time.Duration
		want           time.Duration
	}{
		{"a cheap poll keeps the interval", time.Second, 2 * time.Millisecond, time.Second},
		{"a poll of 40 ms waits 1.96 s", time.Second, 40 * time.Millisecond, 1960 * time.Millisecond},
		{"a poll of 300 ms waits 14.7 s", time.Second, 300 * time.Millisecond, 14700 * time.Millisecond},
	} {
		t.Run(c.name, func(t *testing.T) {
			if got := pollWait(c.interval, c.took); got != c.want {
				t.Errorf("pollWait(%v, %v) = %v, want %v", c.interval, c.took, got, c.want)
			}
		})
	}
}

// TestSearchMatchesAreTheListsSubstringMatches holds the IDs-only search (what Meilisearch's
// answers are joined with) to the list's own search: the same events, whatever their status or
// dates, for words, fragments, accents and several terms; excluded terms play no part.
func TestSearchMatchesAreTheListsSubstringMatches(t *testing.T) {
	eachStore(t, func(t *testing.T, s *Store) {
		ctx := context.Background()
		site, err := s.LoadSite(ctx, SiteOverrides{})
		if err != nil {
			t.Fatal(err)
		}
		x := NewEventIndex(s.DB, eventindex.Options{})
		if _, _, ok := x.SearchMatches(site, calendard.ParseSearch("Night")); ok {
			t.Fatal("an index not built answered")
		}
		if err := x.Build(ctx, site); err != nil {
			t.Fatal(err)
		}
		if !x.WaitTextIndex(ctxTimeout(t, 30*time.Second)) {
			t.Fatal("no text index within 30 s")
		}
		every := []string{"publish", "draft", "private", "pending", "future", "trash", "auto-draft"}
		all, _, err := s.DB.FindEvents(ctx, site, calendard.EventFilter{Statuses: every, Limit: 1 << 20})
		if err != nil {
			t.Fatal(err)
		}
		found := 0
		for _, q := range []string{"Night", "ight", "a", "CAFE", "Marathon Summit", `"Jazz Night"`, "Night -Midnight", "zzqx"} {
			t.Run(q+" finds what the list's search finds", func(t *testing.T) {
				terms := calendard.ParseSearch(q)
				got, listed, ok := x.SearchMatches(site, terms)
				if !ok {
					t.Fatal("the built index declined")
				}
				var positive []calendard.SearchTerm
				for _, term := range terms {
					if !term.Exclude {
						positive = append(positive, term)
					}
				}
				want, _, err := s.DB.FindEvents(ctx, site, calendard.EventFilter{Statuses: every, Search: positive, Limit: 1 << 20})
				if err != nil {
					t.Fatal(err)
				}
				if w := slices.Sorted(slices.Values(eventIDs(want))); !slices.Equal(got, w) {
					t.Fatalf("SearchMatches %v, the list's search %v", got, w)
				}
				if l := slices.Sorted(slices.Values(eventIDs(all))); !slices.Equal(listed, l) {
					t.Fatalf("listed %d IDs, the list of every status %d", len(listed), len(l))
				}
				found += len(got)
			})
		}
		if found < 20 {
			t.Errorf("only %d matches in all: the test is too weak", found)
		}
	})
}

// A first build answers plain lists after its first pass, lists filtered by terms, venues,
// organizers or the featured flag after its second (declined before: they go to SQL) and searches after its third.
func TestFirstBuildListsBeforeItsSearchTextAndSearchesAfter(t *testing.T) {
	eachStore(t, func(t *testing.T, s *Store) {
		ctx := context.Background()
		site, err := s.LoadSite(ctx, SiteOverrides{})
		if err != nil {
			t.Fatal(err)
		}
		// The passes are held apart: the second and third wait for the test (gatedSource).
		src := &gatedSource{Source: indexSource{s.DB}, ids: make(chan struct{}), texts: make(chan struct{})}
		x := eventindex.New(src, eventindex.Options{})
		built := make(chan error, 1)
		go func() { built <- x.Build(ctx, site) }()
		defer func() {
			src.release()
			if err := <-built; err != nil {
				t.Error(err)
			}
		}()
		if !x.WaitReady(ctxTimeout(t, 20*time.Second)) {
			t.Fatal("the first pass never finished")
		}
		same := func(f calendard.EventFilter) bool {
			t.Helper()
			ids, total, ok := x.FindEvents(site, &f)
			if !ok {
				return false
			}
			want, wantTotal, err := s.DB.FindEvents(ctx, site, f)
			if err != nil {
				t.Fatal(err)
			}
			if total != wantTotal || !reflect.DeepEqual(ids, eventIDs(want)) || total == 0 {
				t.Fatalf("%s: index %d %v, sql %d %v", describeFilter(f), total, ids, wantTotal, eventIDs(want))
			}
			return true
		}
		list := calendard.EventFilter{Statuses: []string{"publish"}, Limit: 10}
		search := calendard.EventFilter{Statuses: []string{"publish"}, Search: calendard.ParseSearch("a"), Limit: 10}
		yes, no := true, false
		values := collectFilterValues(t, s)
		byIDs := []calendard.EventFilter{
			{Statuses: []string{"publish"}, VenueIDs: values.venues[:1], Limit: 50},
			{Statuses: []string{"publish"}, OrganizerIDs: values.orgs[:1], Limit: 50},
			{CategoryIDs: values.cats[:1], Limit: 50},
			{TagIDs: values.tags[:1], Limit: 50},
			// The featured flag comes with the second pass too (its rows are spread over postmeta).
			{Statuses: []string{"publish"}, Featured: &yes, Limit: 50},
			{Statuses: []string{"publish"}, Featured: &no, Limit: 50},
		}
		if !x.Ready() || x.IDsReady() || x.TextReady() {
			t.Fatalf("after the first pass: ready %v, IDs ready %v, text ready %v", x.Ready(), x.IDsReady(), x.TextReady())
		}
		if !same(list) {
			t.Fatal("the first pass does not answer a plain list")
		}
		if same(search) {
			t.Fatal("the first pass answered a search without the search text")
		}
		for _, f := range byIDs {
			if same(f) {
				t.Fatalf("the first pass answered %s without the events' IDs", describeFilter(f))
			}
		}
		close(src.ids)
		if !x.WaitIDsReady(ctxTimeout(t, 20*time.Second)) || x.TextReady() {
			t.Fatalf("after the second pass: IDs ready %v, text ready %v", x.IDsReady(), x.TextReady())
		}
		for _, f := range byIDs {
			if !same(f) {
				t.Fatalf("the second pass declined %s", describeFilter(f))
			}
		}
		if same(search) {
			t.Fatal("the second pass answered a search without the search text")
		}
		close(src.texts)
		if !x.WaitTextReady(ctxTimeout(t, 20*time.Second)) {
			t.Fatal("the search text did not make the index ready for searches")
		}
		if !same(search) || !same(list) || !same(byIDs[0]) {
			t.Fatal("the index with its search text declined a list or a search")
		}
	})
}

// gatedSource is a database's index source whose second pass (FirstPass' ids) and Texts wait for
// the test to close ids and texts, so that a first build's passes can be looked at one by one.
type gatedSource struct {
	eventindex.Source
	ids, texts chan struct{}
	once       sync.Once
}

func (g *gatedSource) FirstPass(ctx context.Context, mode eventindex.Mode, mark *eventindex.Mark) (map[int64]*eventindex.Event, func() (*eventindex.Keys, error), error) {
	events, ids, err := g.Source.FirstPass(ctx, mode, mark)
	if err != nil {
		return nil, nil, err
	}
	return events, func() (*eventindex.Keys, error) {
		<-g.ids
		return ids()
	}, nil
}

func (g *gatedSource) Texts(ctx context.Context) ([]eventindex.Text, error) {
	<-g.texts
	return g.Source.Texts(ctx)
}

// release opens whichever gates the test left closed, so that the build can end.
func (g *gatedSource) release() {
	g.once.Do(func() {
		for _, c := range []chan struct{}{g.ids, g.texts} {
			select {
			case <-c:
			default:
				close(c)
			}
		}
	})
}

// A full build on MariaDB reads the list keys through WordPress' meta_key index, named in a hint;
// a database whose postmeta lacks that index gets no hint (it would fail) and the same answers.
func TestFullBuildHintsTheMetaKeyIndexOnlyWhereItExists(t *testing.T) {
	s, _ := fixtureStore(t)
	ctx := context.Background()
	site, err := s.Site(ctx)
	if err != nil {
		t.Fatal(err)
	}
	filters := []calendard.EventFilter{
		{Statuses: []string{"publish"}, Limit: 10},
		{Statuses: []string{"publish"}, VenueIDs: []int64{collectFilterValues(t, s).venues[0]}, Limit: 50},
		{Limit: 50, Offset: 3},
	}
	for _, c := range []struct {
		name, alter, hint string
	}{
		{"with the index the hint names it", "", " FORCE INDEX (meta_key)"},
		{"without the index there is no hint", "ALTER TABLE wp_postmeta DROP INDEX meta_key", ""},
	} {
		t.Run(c.name, func(t *testing.T) {
			if c.alter != "" {
				if _, err := s.sql.ExecContext(ctx, c.alter); err != nil {
					t.Fatal(err)
				}
			}
			if hint, err := s.metaKeyIndexHint(ctx, s.sql); err != nil || hint != c.hint {
				t.Fatalf("hint %q (%v), want %q", hint, err, c.hint)
			}
			x := NewEventIndex(s.DB, eventindex.Options{})
			if err := x.Build(ctx, site); err != nil {
				t.Fatal(err)
			}
			for _, f := range filters {
				ids, total, ok := x.FindEvents(site, &f)
				want, wantTotal, err := s.DB.FindEvents(ctx, site, f)
				if !ok || err != nil || total != wantTotal || !reflect.DeepEqual(ids, eventIDs(want)) || total == 0 {
					t.Errorf("%s: index %v %d %v, sql %d %v (%v)", describeFilter(f), ok, total, ids, wantTotal, eventIDs(want), err)
				}
			}
		})
	}
}

// On MariaDB a first build waits for the first list SQL answers (they would compete for the cores)
// but not for ever: it starts once that list is answered, and without any list after the grace.
func TestFirstBuildOnMariaDBStartsAfterTheFirstSQLListOrTheGrace(t *testing.T) {
	for _, c := range []struct {
		name string
		list bool
	}{
		{"a list answered by SQL lets the build start", true},
		{"with no list the build starts after the grace", false},
	} {
		t.Run(c.name, func(t *testing.T) {
			s, _ := fixtureStore(t)
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			started := time.Now()
			s.Start(ctx, StartOptions{})
			if !c.list {
				// The fixture builds in tens of milliseconds: at half the grace a build that had
				// not waited would be ready.
				time.Sleep(firstBuildGrace / 2)
				if s.Index().Ready() && time.Since(started) < firstBuildGrace {
					t.Fatalf("the index was built %v after the start, within the %v grace, with no list asked", time.Since(started), firstBuildGrace)
				}
			}
			if c.list {
				site, err := s.Site(ctx)
				if err != nil {
					t.Fatal(err)
				}
				evs, total, err := s.FindEvents(ctx, site, calendard.EventFilter{Statuses: []string{"publish"}, Limit: 5})
				if err != nil || total == 0 || len(evs) == 0 {
					t.Fatalf("first list: %d events of %d, %v", len(evs), total, err)
				}
				select {
				case <-s.firstSQLList:
				default:
					t.Fatal("the first list answered by SQL did not release the build")
				}
			}
			wait, stop := context.WithTimeout(ctx, 30*time.Second)
			defer stop()
			if !s.Index().WaitReady(wait) {
				t.Fatal("the index was never built")
			}
		})
	}
}

// On the embedded store a first pass reads the event posts from the listposts partial index when
// it exists, and through the posts table when it does not: the same events either way, an event
// whose post_type is spelled in another case included (the index's condition compares under the
// column's collation, as the query without it does).
func TestFirstPassReadsTheListpostsIndexOnlyWhereItExists(t *testing.T) {
	s := sqliteFixtureStore(t)
	ctx := context.Background()
	if _, err := s.Migrate(ctx, MigrateOptions{}, time.Now()); err != nil {
		t.Fatal(err)
	}
	var odd int64
	if err := s.sql.QueryRowContext(ctx, "SELECT MIN(ID) FROM wp_posts WHERE post_type = 'tribe_events' AND post_status = 'publish'").Scan(&odd); err != nil {
		t.Fatal(err)
	}
	if _, err := s.sql.ExecContext(ctx, "UPDATE wp_posts SET post_type = 'Tribe_Events' WHERE ID = ?", odd); err != nil {
		t.Fatal(err)
	}
	site, err := s.Site(ctx)
	if err != nil {
		t.Fatal(err)
	}
	mode := eventindex.ModeOf(site)
	firstPass := func(wantIndex bool) map[int64]eventindex.Event {
		t.Helper()
		query, args, err := s.DB.indexPostsQuery(ctx, s.sql, nil, false)
		if err != nil {
			t.Fatal(err)
		}
		var plan strings.Builder
		rows, err := s.sql.QueryContext(ctx, "EXPLAIN QUERY PLAN "+query, args...)
		if err != nil {
			t.Fatal(err)
		}
		for rows.Next() {
			var id, parent, unused int
			var detail string
			if err := rows.Scan(&id, &parent, &unused, &detail); err != nil {
				t.Fatal(err)
			}
			plan.WriteString(detail)
		}
		rows.Close()
		if used := strings.Contains(plan.String(), "wp_posts_calendard_listposts"); used != wantIndex {
			t.Fatalf("plan %q: uses listposts %v, want %v", plan.String(), used, wantIndex)
		}
		var mark eventindex.Mark
		events, err := s.DB.loadIndexEvents(ctx, mode, nil, &mark, false, nil)
		if err != nil {
			t.Fatal(err)
		}
		out := map[int64]eventindex.Event{}
		for id, e := range events {
			out[id] = *e
		}
		return out
	}
	withIndex := firstPass(true)
	if _, ok := withIndex[odd]; !ok {
		t.Fatalf("the first pass through the index lost event %d, whose post_type is Tribe_Events", odd)
	}
	if _, err := s.sql.ExecContext(ctx, "DROP INDEX wp_posts_calendard_listposts"); err != nil {
		t.Fatal(err)
	}
	without := firstPass(false)
	if len(withIndex) == 0 || !reflect.DeepEqual(withIndex, without) {
		t.Fatalf("first pass: %d events through the index, %d without it, or they differ", len(withIndex), len(without))
	}
}

// TestFirstBuildRetriesAFailedLaterPass: a first build whose second pass (terms, venues,
// organizers) fails after the first has answered plain lists is retried until the index answers
// lists filtered by IDs and searches too, as SQL does.
func TestFirstBuildRetriesAFailedLaterPass(t *testing.T) {
	eachStore(t, func(t *testing.T, s *Store) {
		ctx := context.Background()
		src := &failingIDsSource{Source: indexSource{s.DB}}
		x := eventindex.New(src, eventindex.Options{})
		x.BuildUntilReady(ctxTimeout(t, 60*time.Second), s.Site)
		if !x.Ready() || !x.IDsReady() || !x.TextReady() {
			t.Fatalf("after BuildUntilReady with a failed second pass: ready %v, IDs ready %v, text ready %v (IDs asked %d times)",
				x.Ready(), x.IDsReady(), x.TextReady(), src.calls.Load())
		}
		site, err := s.Site(ctx)
		if err != nil {
			t.Fatal(err)
		}
		values := collectFilterValues(t, s)
		for _, f := range []calendard.EventFilter{
			{Statuses: []string{"publish"}, VenueIDs: values.venues[:1], Limit: 50},
			{CategoryIDs: values.cats[:1], Limit: 50},
			{Statuses: []string{"publish"}, Search: calendard.ParseSearch("a"), Limit: 10},
		} {
			ids, total, ok := x.FindEvents(site, &f)
			if !ok {
				t.Fatalf("the index declined %s", describeFilter(f))
			}
			want, wantTotal, err := s.DB.FindEvents(ctx, site, f)
			if err != nil {
				t.Fatal(err)
			}
			if total != wantTotal || !reflect.DeepEqual(ids, eventIDs(want)) || total == 0 {
				t.Fatalf("%s: index %d %v, sql %d %v", describeFilter(f), total, ids, wantTotal, eventIDs(want))
			}
		}
	})
}

// TestSecondPassReadsTheFirstPassStateOrLater: a first build reads its second pass (venues,
// organizers, terms) beside its first, in a transaction begun once the first holds its snapshot. A
// change committed at that moment is not in the first pass and is in the second, so the second never
// reads a state older than the one the build's mark names (the change feed delivers what is later).
func TestSecondPassReadsTheFirstPassStateOrLater(t *testing.T) {
	eachStore(t, func(t *testing.T, s *Store) {
		for _, withFile := range []bool{false, true} {
			t.Run(fmt.Sprintf("index file %v", withFile), func(t *testing.T) {
				ctx := context.Background()
				var event, from, to int64
				if err := s.sql.QueryRowContext(ctx, "SELECT p.ID, m.meta_value FROM wp_posts p JOIN wp_postmeta m ON m.post_id = p.ID AND m.meta_key = '_EventVenueID'"+
					" WHERE p.post_type = 'tribe_events' AND p.post_status = 'publish' AND m.meta_value > 0 ORDER BY p.ID LIMIT 1").Scan(&event, &from); err != nil {
					t.Fatal(err)
				}
				if err := s.sql.QueryRowContext(ctx, "SELECT MIN(ID) FROM wp_posts WHERE post_type = 'tribe_venue' AND ID <> ?", from).Scan(&to); err != nil {
					t.Fatal(err)
				}
				restore := func() {
					if _, err := s.sql.ExecContext(ctx, "UPDATE wp_posts SET post_status = 'publish' WHERE ID = ?", event); err != nil {
						t.Error(err)
					}
					if _, err := s.sql.ExecContext(ctx, "UPDATE wp_postmeta SET meta_value = ? WHERE post_id = ? AND meta_key = '_EventVenueID'", from, event); err != nil {
						t.Error(err)
					}
				}
				defer restore()
				held := false
				testHookFirstPassHeld = func(db *DB) {
					if db != s.DB || held {
						return // another store's build, or this one's after the first pass
					}
					held = true
					if _, err := s.sql.ExecContext(ctx, "UPDATE wp_posts SET post_status = 'draft' WHERE ID = ?", event); err != nil {
						t.Error(err)
					}
					if _, err := s.sql.ExecContext(ctx, "UPDATE wp_postmeta SET meta_value = ? WHERE post_id = ? AND meta_key = '_EventVenueID'", to, event); err != nil {
						t.Error(err)
					}
				}
				defer func() { testHookFirstPassHeld = nil }()
				x := eventindex.New(indexSource{s.DB}, eventindex.Options{})
				if withFile {
					x.UseFile(filepath.Join(t.TempDir(), "index"))
					defer x.CloseFile()
				}
				site, err := s.Site(ctx)
				if err != nil {
					t.Fatal(err)
				}
				if err := x.Build(ctxTimeout(t, 60*time.Second), site); err != nil {
					t.Fatal(err)
				}
				if !held {
					t.Fatal("the first pass never held its snapshot")
				}
				has := func(venue int64) bool {
					ids, _, ok := x.FindEvents(site, &calendard.EventFilter{Statuses: []string{"publish"}, VenueIDs: []int64{venue}, Limit: 1000})
					if !ok {
						t.Fatalf("the index declined the venue %d list", venue)
					}
					return slices.Contains(ids, event)
				}
				if !has(to) || has(from) {
					t.Fatalf("event %d, published with venue %d when the first pass held its snapshot and then made a draft with venue %d: "+
						"listed as published with the new venue %v, with the old %v; want the first pass's status and the later venue",
						event, from, to, has(to), has(from))
				}
			})
		}
	})
}

// failingIDsSource is a database's index source whose first second pass fails, as a deadline
// passing in a first build's second pass does.
type failingIDsSource struct {
	eventindex.Source
	calls atomic.Int32
}

func (f *failingIDsSource) FirstPass(ctx context.Context, mode eventindex.Mode, mark *eventindex.Mark) (map[int64]*eventindex.Event, func() (*eventindex.Keys, error), error) {
	events, ids, err := f.Source.FirstPass(ctx, mode, mark)
	if err != nil || f.calls.Add(1) != 1 {
		return events, ids, err
	}
	return events, func() (*eventindex.Keys, error) {
		_, _ = ids()
		return nil, context.DeadlineExceeded
	}, nil
}

// TestListsWaitForTheIndexOnceSQLIsTooSlow: on MariaDB the lists asked during a first build go
// to SQL until one of them passes its deadline (a calendar too large for SQL to answer in time);
// from then on they wait for the index's pass as on the embedded store instead of starting full
// scans that the server goes on running after the request gave up, and SQL is asked again once
// the index is complete. A list whose deadline passes meanwhile waits for the index's pass, up to
// firstBuildPatience, rather than fail.
func TestListsWaitForTheIndexOnceSQLIsTooSlow(t *testing.T) {
	s, _ := fixtureStore(t)
	ctx := context.Background()
	site, err := s.Site(ctx)
	if err != nil {
		t.Fatal(err)
	}
	src := &gatedSource{Source: indexSource{s.DB}, ids: make(chan struct{}), texts: make(chan struct{})}
	s.index = eventindex.New(src, eventindex.Options{})
	built := make(chan error, 1)
	go func() { built <- s.index.Build(ctx, site) }()
	defer func() {
		src.release()
		if err := <-built; err != nil {
			t.Error(err)
		}
	}()
	if !s.index.WaitReady(ctxTimeout(t, 20*time.Second)) {
		t.Fatal("the first pass never finished")
	}
	values := collectFilterValues(t, s)
	byCat := calendard.EventFilter{CategoryIDs: values.cats[:1], Limit: 50}
	want, wantTotal, err := s.DB.FindEvents(ctx, site, byCat)
	if err != nil || wantTotal == 0 {
		t.Fatalf("SQL: %d events, %v", wantTotal, err)
	}
	if _, _, err := s.FindEvents(ctx, site, byCat); err != nil {
		t.Fatalf("a category list from SQL while the IDs pass is out: %v", err)
	}
	defer func(p time.Duration) { firstBuildPatience = p }(firstBuildPatience)
	firstBuildPatience = 200 * time.Millisecond
	expired, cancel := context.WithDeadline(ctx, time.Now().Add(-time.Second))
	cancel()
	if _, _, err := s.FindEvents(expired, site, byCat); !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("a list past its deadline, IDs pass held back past the patience: %v, want context.DeadlineExceeded", err)
	}
	// The next list waits for the IDs pass (still held back) rather than asking SQL: it passes its
	// own deadline.
	if _, _, err := s.FindEvents(ctxTimeout(t, 300*time.Millisecond), site, byCat); !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("a category list after SQL passed a deadline, IDs pass held back: %v, want it to wait for the pass and pass its deadline", err)
	}
	// Past its deadline, a list waits for the pass it needs (within the patience) rather than
	// fail: a starting instance answers late, not 503.
	firstBuildPatience = 20 * time.Second
	// The list waits already when the pass comes in.
	testHookFirstBuildWait = func() { testHookFirstBuildWait = nil; close(src.ids) }
	defer func() { testHookFirstBuildWait = nil }()
	expired, cancel = context.WithDeadline(ctx, time.Now().Add(-time.Second))
	cancel()
	got, total, err := s.FindEvents(expired, site, byCat)
	if err != nil || total != wantTotal || !reflect.DeepEqual(eventIDs(got), eventIDs(want)) {
		t.Fatalf("a list past its deadline, answered once the IDs pass is in: %d %v (%v), SQL %d %v", total, eventIDs(got), err, wantTotal, eventIDs(want))
	}
	// A caller's own cancel is not waited out.
	canceled, cancel := context.WithCancel(ctx)
	cancel()
	search := calendard.EventFilter{Search: calendard.ParseSearch("a"), Limit: 10}
	if _, _, err := s.FindEvents(canceled, site, search); !errors.Is(err, context.Canceled) {
		t.Fatalf("a canceled search while the text pass is held back: %v, want context.Canceled", err)
	}
	close(src.texts)
	if !s.index.WaitTextReady(ctxTimeout(t, 20*time.Second)) {
		t.Fatal("the build did not finish")
	}
	got, total, err = s.FindEvents(ctx, site, byCat)
	if err != nil || total != wantTotal || !reflect.DeepEqual(eventIDs(got), eventIDs(want)) {
		t.Fatalf("after the build: %d %v (%v), SQL %d %v", total, eventIDs(got), err, wantTotal, eventIDs(want))
	}
	if s.sqlTooSlow.Load() {
		t.Error("lists still wait for the index after it is complete")
	}
}
