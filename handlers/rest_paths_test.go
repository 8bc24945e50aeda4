package handlers_test

import (
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/calendard/calendard/handlers"
)

// Odd REST paths get the same answer on both stores, as served (MariaDB behind a WordPress site;
// SQLite as the whole site, with its HTML 404 page for what it does not serve), and the answer
// WordPress gives with pretty permalinks: WP::parse_request trims the slashes around the path
// before the rewrite rules ^wp-json/?$ and ^wp-json/(.*)? match it, so "//wp-json/x" is the route
// "/x", while "//wp-json//x" and "?rest_route=//x" are the route "//x", which no route matches
// (404 rest_no_route, JSON). rest_route values are untrailingslashit()ed.
func TestOddRESTPathsOnBothStores(t *testing.T) {
	clock := func() time.Time { return recordedNow }
	mysqlSrv, _, _ := serveFixture(t, handlers.Config{Environment: "local", Clock: clock}, "p")
	srvs := map[string]*httptest.Server{
		"mysql":  mysqlSrv,
		"sqlite": serveSQLiteFixture(t, handlers.Config{Environment: "local", Clock: clock, WholeSite: true}),
	}
	const events = "/wp-json/tribe/events/v1/events"
	for _, c := range []struct {
		path, same string // same: the path whose answer it is; "" for rest_no_route
	}{
		{"//wp-json/tribe/events/v1/events", events},
		{"///wp-json/tribe/events/v1/events//", events},
		{"/wp-json/tribe/events/v1/events/", events},
		{"/wp-json/tribe/events/v1/events//", events},
		{"/?rest_route=/tribe/events/v1/events/", events},
		{"//wp-json//tribe/events/v1/events", ""},
		{"/wp-json//tribe/events/v1/events", ""},
		{"/wp-json/tribe//events/v1/events", ""},
		{"/?rest_route=//tribe/events/v1/events", ""},
		{"/index.php?rest_route=//tribe/events/v1/events", ""},
		{"//wp-json//", "/wp-json/"},
		{"/wp-json//", "/wp-json/"},
		{"//wp-json", "/wp-json/"},
		{"/?rest_route=//", "/wp-json/"},
	} {
		answers := map[string]answer{}
		for name, srv := range srvs {
			a := get(t, srv, c.path, nil)
			answers[name] = a
			if !strings.HasPrefix(a.header.Get("Content-Type"), "application/json") {
				t.Errorf("%s %s: %d %q %.200s, want a JSON answer", name, c.path, a.status, a.header.Get("Content-Type"), a.raw)
				continue
			}
			if c.same == "" {
				if a.status != 404 || a.body["code"] != "rest_no_route" {
					t.Errorf("%s %s: %d %.200s, want 404 rest_no_route", name, c.path, a.status, a.raw)
				}
				continue
			}
			if want := get(t, srv, c.same, nil); a.status != want.status || a.raw != want.raw {
				t.Errorf("%s %s: %d %.200s, want the answer of %s: %d %.200s", name, c.path, a.status, a.raw, c.same, want.status, want.raw)
			}
		}
		if m, s := answers["mysql"], answers["sqlite"]; m.status != s.status || m.raw != s.raw {
			t.Errorf("%s: the stores differ:\n mysql  %d %.200s\n sqlite %d %.200s", c.path, m.status, m.raw, s.status, s.raw)
		}
	}
}
