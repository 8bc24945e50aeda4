package handlers_test

import (
	"context"
	"database/sql"
	"fmt"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/calendard/calendard/handlers"
	"github.com/calendard/calendard/internal/service"
	"github.com/calendard/calendard/wpdb"
)

// indexedAndSQLStores serves a fresh copy of the fixture, with the setup statements run on it, on
// MariaDB and on SQLite, each twice: lists answered by SQL ("…/sql") and from the in-memory event
// index ("…/index").
func indexedAndSQLStores(t *testing.T, prefix string, setup ...string) map[string]*httptest.Server {
	t.Helper()
	cfg := handlers.Config{Environment: "local", Clock: func() time.Time { return recordedNow }}
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	out := map[string]*httptest.Server{}
	serve := func(name string, open func() (*wpdb.DB, error)) {
		for _, indexed := range []bool{false, true} {
			db, err := open()
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { db.Close() })
			// The SQL variant runs cold: its answers come from SQL alone, which the indexed
			// variant's must equal.
			opts, path := service.Cold, name+"/sql"
			if indexed {
				opts, path = wpdb.StartOptions{WatchInterval: time.Hour, Records: 100}, name+"/index"
			}
			store := service.Start(ctx, db, wpdb.SiteOverrides{}, opts)
			srv := httptest.NewServer(service.Handler(cfg, store))
			t.Cleanup(srv.Close)
			out[path] = srv
		}
	}
	_, raw, dsn := serveFixture(t, cfg, prefix)
	for _, st := range setup {
		if _, err := raw.Exec(st); err != nil {
			t.Fatalf("%s: %v", st, err)
		}
	}
	serve("mysql", func() (*wpdb.DB, error) { return wpdb.OpenMySQL(dsn, "wp_") })

	b, err := os.ReadFile(sqliteFixture(t))
	if err != nil {
		t.Fatal(err)
	}
	file := filepath.Join(t.TempDir(), "wp.db")
	if err := os.WriteFile(file, b, 0o644); err != nil {
		t.Fatal(err)
	}
	lite, err := sql.Open("sqlite", "file:"+file+"?_pragma=busy_timeout(10000)")
	if err != nil {
		t.Fatal(err)
	}
	for _, st := range setup {
		if _, err := lite.Exec(st); err != nil {
			t.Fatalf("%s: %v", st, err)
		}
	}
	lite.Close()
	serve("sqlite", func() (*wpdb.DB, error) { return wpdb.OpenSQLite(file, "wp_") })
	return out
}

// Two tags created directly in the tables (term_taxonomy_id not the term_id), each on one event.
var directTags = []string{
	"INSERT INTO wp_terms (term_id, name, slug, term_group) VALUES (900, 'Direct One', 'direct-one', 0), (901, 'Direct Two', 'direct-two', 0)",
	"INSERT INTO wp_term_taxonomy (term_taxonomy_id, term_id, taxonomy, description, parent, count) VALUES (950, 900, 'post_tag', '', 0, 1), (951, 901, 'post_tag', '', 0, 1)",
	"INSERT INTO wp_term_relationships (object_id, term_taxonomy_id, term_order) VALUES (34, 950, 0), (41, 951, 0)",
}

// A v1 tags filter with several tags lists the events of any of them where the plugin keeps events
// on postmeta; where it reads its custom tables only the first tag filters (WP_Query's tag_id query
// var ANDed in by the custom tables' second query), as recorded.
func TestTagListFilterOnPostmetaMatchesAnyTag(t *testing.T) {
	const dates = "start_date=2020-01-01&end_date=2030-12-31&per_page=50"
	for _, mode := range []struct {
		name, prefix string
		setup        []string
		want         []int
	}{
		{"postmeta", "tgpm", append(slices.Clone(legacySetup), directTags...), []int{34, 41}},
		{"custom tables", "tgct", directTags, []int{34}},
	} {
		for store, srv := range indexedAndSQLStores(t, mode.prefix, mode.setup...) {
			for _, q := range []string{"tags=900,901", "tags[0]=direct-one&tags[1]=direct-two"} {
				a := call(t, srv, "GET", eventsPath+"?"+dates+"&"+q, nil, "")
				var got []int
				for _, e := range eventList(a) {
					got = append(got, int(e["id"].(float64)))
				}
				slices.Sort(got)
				if a.status != 200 || !slices.Equal(got, mode.want) || fmt.Sprint(a.body["total"]) != fmt.Sprint(len(mode.want)) {
					t.Errorf("%s %s ?%s: %d events %v total %v, want %v", mode.name, store, q, a.status, got, a.body["total"], mode.want)
				}
			}
			// One tag alone filters by that tag everywhere.
			if a := call(t, srv, "GET", eventsPath+"?"+dates+"&tags=901", nil, ""); len(eventList(a)) != 1 || eventList(a)[0]["id"] != float64(41) {
				t.Errorf("%s %s ?tags=901: %d %.300s", mode.name, store, a.status, a.raw)
			}
		}
	}
}

// A tag whose parent column is set (tags are not hierarchical, but nothing stops a direct write):
// the plugin's v1 tag records, list and single, have no parent (the core controller's schema
// has it for hierarchical taxonomies only) and so no urls.up, while a category's have both. An
// event's embedded tags are WP_Term arrays with their parent, and get urls.up; the core API's
// _links.up follows the parent column in any taxonomy (prepare_links).
func TestTagParentGivesNoV1UpLink(t *testing.T) {
	for store, s := range servedStores(t, recordedNow, "tup",
		"UPDATE wp_term_taxonomy SET parent = 12 WHERE term_id = 11 AND taxonomy = 'post_tag'") {
		v1 := "/wp-json/tribe/events/v1/"
		single := call(t, s.srv, "GET", v1+"tags/11", nil, "")
		list := call(t, s.srv, "GET", v1+"tags?per_page=50", nil, "")
		var listed map[string]any
		tags, _ := list.body["tags"].([]any)
		for _, x := range tags {
			if m, _ := x.(map[string]any); m != nil && m["id"] == float64(11) {
				listed = m
			}
		}
		for what, rec := range map[string]map[string]any{"single": single.body, "list": listed} {
			urls, _ := rec["urls"].(map[string]any)
			if urls == nil || urls["self"] == nil {
				t.Fatalf("%s: v1 tag %s: %.300v", store, what, rec)
			}
			if _, has := urls["up"]; has {
				t.Errorf("%s: v1 tag %s has urls.up %v", store, what, urls["up"])
			}
			if _, has := rec["parent"]; has {
				t.Errorf("%s: v1 tag %s has parent", store, what)
			}
		}
		// Categories are hierarchical: a child has its parent's up link.
		cats := call(t, s.srv, "GET", v1+"categories?per_page=50", nil, "")
		found := false
		catList, _ := cats.body["categories"].([]any)
		for _, x := range catList {
			m, _ := x.(map[string]any)
			if p, _ := m["parent"].(float64); p != 0 {
				urls, _ := m["urls"].(map[string]any)
				if !hasSuffix(urls["up"], "/tribe/events/v1/categories/"+fmt.Sprint(p)) {
					t.Errorf("%s: category %v with parent %v: urls.up %v", store, m["id"], p, urls["up"])
				}
				found = true
			}
		}
		if !found {
			t.Fatalf("%s: the fixture has no child category to compare with", store)
		}
		// An event's tag keeps the plugin's up link.
		ev := call(t, s.srv, "GET", eventsPath+"/140", nil, "")
		evTags, _ := ev.body["tags"].([]any)
		var embedded map[string]any
		for _, x := range evTags {
			if m, _ := x.(map[string]any); m != nil && m["id"] == float64(11) {
				embedded = m
			}
		}
		if urls, _ := embedded["urls"].(map[string]any); !hasSuffix(urls["up"], "/tribe/events/v1/tags/12") {
			t.Errorf("%s: event 140's tag 11: urls %v, want up to tag 12", store, embedded["urls"])
		}
		// The core API links up in any taxonomy.
		core := call(t, s.srv, "GET", "/wp-json/wp/v2/tags/11", nil, "")
		links, _ := core.body["_links"].(map[string]any)
		if up, _ := links["up"].([]any); len(up) != 1 {
			t.Errorf("%s: /wp/v2/tags/11 _links %v, want up", store, links)
		}
	}
}

func hasSuffix(v any, suffix string) bool {
	s, _ := v.(string)
	return len(s) >= len(suffix) && s[len(s)-len(suffix):] == suffix
}
