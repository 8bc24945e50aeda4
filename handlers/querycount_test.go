package handlers_test

import (
	"testing"
	"time"

	"github.com/calendard/calendard/handlers"
)

// A list page costs a fixed number of queries whatever its size: meta, terms and linked posts are
// loaded for the whole page, never per record. Counted with MariaDB's own Questions counter. A page
// may skip a loader it does not need (no record has an image), so a larger page may cost a query or
// two more, never a query per record.
//
// The store runs cold (service.Cold): a live one answers a page it has seen from memory, so
// the counts would compare a remembered page with a new one instead of the SQL each costs.
func TestListPagesCostNoQueryPerRecord(t *testing.T) {
	cfg := handlers.Config{Environment: "local", Clock: func() time.Time { return recordedNow }, DBTimeout: time.Minute}
	srv, raw, _ := serveFixtureStore(t, cfg, "w", false)
	questions := func() int {
		var name string
		var n int
		if err := raw.QueryRow("SHOW GLOBAL STATUS LIKE 'Questions'").Scan(&name, &n); err != nil {
			t.Fatal(err)
		}
		return n
	}
	// cost is the number of queries one anonymous request makes, and how many records it listed.
	cost := func(path, key string) (queries, records int) {
		before := questions()
		a := call(t, srv, "GET", path, nil, "")
		queries = questions() - before - 1 // the counter counts its own SHOW
		if a.status != 200 {
			t.Fatalf("%s: %d %.200s", path, a.status, a.raw)
		}
		list, _ := a.body[key].([]any)
		return queries, len(list)
	}
	const ns = "/wp-json/tribe/events/v1/"
	// Per-database facts (which plugin tables exist) are read once; warm them up first.
	if _, n := cost(ns+"events?per_page=10", "events"); n < 5 {
		t.Fatalf("%d upcoming events at the fixture's clock; the checks below need several", n)
	}
	for _, c := range []struct{ route, key string }{
		{"events", "events"}, {"venues", "venues"}, {"organizers", "organizers"},
		{"categories", "categories"}, {"tags", "tags"},
	} {
		t.Run(c.route+" costs no query per record", func(t *testing.T) {
			small, n2 := cost(ns+c.route+"?per_page=2", c.key)
			large, n50 := cost(ns+c.route+"?per_page=50", c.key)
			if n2 != 2 || n50 <= 2 {
				t.Fatalf("listed %d and %d records; the fixture must fill a larger page", n2, n50)
			}
			if large-small > 2 || large-small >= n50-2 {
				t.Errorf("%d queries for 2 records, %d for %d", small, large, n50)
			}
		})
	}
	for _, route := range []string{"venues", "organizers"} {
		t.Run(route+" only_with_upcoming costs no query per upcoming event", func(t *testing.T) {
			plain, _ := cost(ns+route+"?per_page=50", route)
			upcoming, n := cost(ns+route+"?per_page=50&only_with_upcoming=1", route)
			if n == 0 {
				t.Fatal("no linked posts of upcoming events in the fixture")
			}
			if upcoming-plain > 2 {
				t.Errorf("%d queries with only_with_upcoming, %d without", upcoming, plain)
			}
		})
	}
}
