package handlers_test

import (
	"context"
	"database/sql"
	"net/http/httptest"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/calendard/calendard/handlers"
	"github.com/calendard/calendard/internal/service"
	"github.com/calendard/calendard/internal/testenv"
	"github.com/calendard/calendard/wpdb"
)

// liveServer serves a fresh fixture copy as calendard serve does: the store started (event index,
// record cache, change feed polling every 100 ms) and rendered records kept between requests.
func liveServer(t *testing.T, now time.Time) (*httptest.Server, *sql.DB) {
	t.Helper()
	name := testenv.DBName("live", t)
	dsn := testenv.FixtureDB(t, fixture, name)
	db, err := wpdb.OpenMySQL(dsn, "wp_")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	raw, err := sql.Open("mysql", dsn)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { raw.Close() })
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	store := service.Start(ctx, db, wpdb.SiteOverrides{}, wpdb.StartOptions{WatchInterval: 100 * time.Millisecond, Records: 1000})
	wait, stop := context.WithTimeout(ctx, 10*time.Second)
	defer stop()
	if !store.Index().WaitReady(wait) {
		t.Fatal("the event index was not built")
	}
	srv := httptest.NewServer(service.Handler(handlers.Config{Environment: "local", Clock: func() time.Time { return now }}, store))
	t.Cleanup(srv.Close)
	return srv, raw
}

func TestCachedAnswersStayExact(t *testing.T) {
	now := time.Date(2026, 11, 21, 12, 0, 0, 0, time.UTC)
	srv, raw := liveServer(t, now)
	cold, _, _ := fixtureServer(t, now) // the same fixture with nothing kept between requests
	const list = "/wp-json/tribe/events/v1/events?per_page=50"

	t.Run("a repeated list is byte-identical to an uncached one", func(t *testing.T) {
		// Venue and organizer list records are kept rendered as event list records are.
		for _, path := range []string{list, "/wp-json/tribe/events/v1/venues?per_page=50", "/wp-json/tribe/events/v1/organizers?per_page=50"} {
			first := call(t, srv, "GET", path, nil, "")
			second := call(t, srv, "GET", path, nil, "")
			fresh := call(t, cold, "GET", path, nil, "")
			if first.status != 200 || first.raw != second.raw {
				t.Fatalf("%s: status %d; second answer differs from the first", path, first.status)
			}
			if second.raw != fresh.raw {
				t.Errorf("%s: cached answer differs from the uncached server's:\n%.300s\n%.300s", path, second.raw, fresh.raw)
			}
		}
	})

	events := call(t, srv, "GET", list, nil, "").body["events"].([]any)
	id := int64(events[0].(map[string]any)["id"].(float64))
	path := "/wp-json/tribe/events/v1/events/" + strconv.FormatInt(id, 10)

	t.Run("a write through the API is in the next list and single", func(t *testing.T) {
		if a := call(t, srv, "POST", path, map[string]any{"title": "Renamed by the API"}, "admin"); a.status != 200 {
			t.Fatalf("update: %d %s", a.status, a.raw)
		}
		if a := call(t, srv, "GET", list, nil, ""); !strings.Contains(a.raw, "Renamed by the API") {
			t.Error("the list still shows the old title")
		}
		if a := call(t, srv, "GET", path, nil, ""); !strings.Contains(a.raw, "Renamed by the API") {
			t.Error("the single still shows the old title")
		}
	})

	t.Run("venue, organizer and term answers follow API writes", func(t *testing.T) {
		for _, c := range []struct{ list, key, create string }{
			{"/wp-json/tribe/events/v1/venues", "venues", "/wp-json/tribe/events/v1/venues"},
			{"/wp-json/tribe/events/v1/organizers", "organizers", "/wp-json/tribe/events/v1/organizers"},
			{"/wp-json/tribe/events/v1/categories?hide_empty=0", "categories", "/wp-json/tribe/events/v1/categories"},
		} {
			before := call(t, srv, "GET", c.list, nil, "")
			body := map[string]any{"venue": "Cache Hall", "organizer": "Cache Crew", "name": "Cache Category"}
			if a := call(t, srv, "POST", c.create, body, "admin"); a.status != 201 && a.status != 200 {
				t.Fatalf("create at %s: %d %s", c.create, a.status, a.raw)
			}
			after := call(t, srv, "GET", c.list, nil, "")
			if after.raw == before.raw || after.body["total"] == before.body["total"] {
				t.Errorf("%s did not change after a create (total %v)", c.list, after.body["total"])
			}
			if fresh := call(t, cold, "GET", c.list, nil, ""); fresh.status != after.status {
				t.Errorf("%s: live %d, uncached %d", c.list, after.status, fresh.status)
			}
		}
	})

	t.Run("a venue renamed in SQL is in the next venue list", func(t *testing.T) {
		const venues = "/wp-json/tribe/events/v1/venues?per_page=50"
		first := call(t, srv, "GET", venues, nil, "").body["venues"].([]any)[0].(map[string]any)
		if _, err := raw.Exec("UPDATE wp_posts SET post_title = 'Hall renamed in SQL', post_modified_gmt = UTC_TIMESTAMP() WHERE ID = ?", int64(first["id"].(float64))); err != nil {
			t.Fatal(err)
		}
		for start := time.Now(); time.Since(start) < 30*time.Second; time.Sleep(20 * time.Millisecond) {
			if strings.Contains(call(t, srv, "GET", venues, nil, "").raw, "Hall renamed in SQL") {
				return
			}
		}
		t.Error("the venue list kept the rendered record from before the change")
	})

	t.Run("a direct SQL write reaches the answers through the watermark poll", func(t *testing.T) {
		if _, err := raw.Exec("UPDATE wp_posts SET post_title = 'Renamed in SQL', post_modified_gmt = UTC_TIMESTAMP() WHERE ID = ?", id); err != nil {
			t.Fatal(err)
		}
		start := time.Now()
		for time.Since(start) < 30*time.Second {
			l, s := call(t, srv, "GET", list, nil, ""), call(t, srv, "GET", path, nil, "")
			if strings.Contains(l.raw, "Renamed in SQL") && strings.Contains(s.raw, "Renamed in SQL") {
				t.Logf("seen after %v at a 100 ms poll", time.Since(start).Round(time.Millisecond))
				return
			}
			time.Sleep(20 * time.Millisecond)
		}
		t.Error("the direct change never reached the answers")
	})

	t.Run("a direct change of the options is in the answers", func(t *testing.T) {
		if _, err := raw.Exec("UPDATE wp_options SET option_value = '7' WHERE option_name = 'posts_per_page'"); err != nil {
			t.Fatal(err)
		}
		start := time.Now()
		for time.Since(start) < 30*time.Second {
			a := call(t, srv, "GET", "/wp-json/tribe/events/v1/events", nil, "")
			if evs, _ := a.body["events"].([]any); len(evs) == 7 {
				return
			}
			time.Sleep(20 * time.Millisecond)
		}
		t.Error("the default page size did not follow posts_per_page")
	})
}
