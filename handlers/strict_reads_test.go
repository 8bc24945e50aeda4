package handlers_test

import (
	"fmt"
	"net/http/httptest"
	"slices"
	"testing"

	"github.com/calendard/calendard/handlers"
)

// shownIDs returns the ids of a list answer's records (none for a page past the end).
func shownIDs(t *testing.T, a answer, key string) []int64 {
	t.Helper()
	if a.status != 200 && a.status != 404 {
		t.Fatalf("list: %d %.300s", a.status, a.raw)
	}
	return listIDs(a, key)
}

const wideWindow = "start_date=2000-01-01&end_date=2100-12-31"

// allNonPublished are the fixture's events that are not published: pending, private, future, draft
// and trashed, of every author.
const allNonPublished = "35,39,49,51,57,58,61,68,74,90,93,102,113,118,127,132,133,137,145,154,179"

// Lists show other authors' private, draft, pending, future and trashed events to contributors and
// authors, as the plugin does (its list has no per-post read check); strict reads filter lists, with
// search= and include= too, by the read_post rule singles use: nothing a single would refuse.
func TestStrictReads(t *testing.T) {
	t.Run("default: as the plugin", func(t *testing.T) {
		srv := newServer(t, handlers.Config{})
		ids := shownIDs(t, call(t, srv, "GET", eventsPath+"?"+wideWindow+"&status=private", nil, "contributor"), "events")
		if !slices.Contains(ids, 39) {
			t.Errorf("contributor's private list %v lacks the editor's private event 39 the plugin shows", ids)
		}
		if a := call(t, srv, "GET", eventsPath+"/39", nil, "contributor"); a.status != 403 {
			t.Errorf("single 39: %d, want 403", a.status)
		}
		// The administrator's draft venue 20 and organizer 29 too.
		for _, l := range []struct {
			path string
			id   int64
		}{{"venues", 20}, {"organizers", 29}} {
			ids := shownIDs(t, call(t, srv, "GET", "/wp-json/tribe/events/v1/"+l.path+"?status=draft", nil, "contributor"), l.path)
			if !slices.Contains(ids, l.id) {
				t.Errorf("contributor's draft %s %v lack %d", l.path, ids, l.id)
			}
		}
	})

	for store, srv := range bothStores(t, handlers.Config{StrictReads: true}) {
		t.Run("strict/"+store, func(t *testing.T) {
			checkStrict(t, srv)
		})
	}
}

func checkStrict(t *testing.T, srv *httptest.Server) {
	// What the contributor (user 4) keeps: published events and its own, whatever their status, but
	// not its trashed ones (singles refuse trashed events to everyone). Its private 51 is hidden from
	// listings, and include= re-applies the default date window: the plugin shows neither.
	for _, tc := range []struct {
		query string
		want  []int64 // exactly these, in list order
	}{
		{wideWindow + "&status=private", []int64{137}},
		{wideWindow + "&status=trash", nil},
		{wideWindow + "&status=draft,pending", nil},
		{wideWindow + "&status=future", []int64{49}},
		{"include=" + allNonPublished + "&status=private,draft,pending,future,trash", []int64{49}},
		{"include=" + allNonPublished, []int64{49}},
	} {
		ids := shownIDs(t, call(t, srv, "GET", eventsPath+"?"+tc.query, nil, "contributor"), "events")
		if !slices.Equal(ids, tc.want) {
			t.Errorf("contributor %s: %v, want %v", tc.query, ids, tc.want)
		}
	}
	for _, l := range []string{"venues", "organizers"} {
		if ids := shownIDs(t, call(t, srv, "GET", "/wp-json/tribe/events/v1/"+l+"?status=draft", nil, "contributor"), l); len(ids) != 0 {
			t.Errorf("contributor's draft %s: %v, want none", l, ids)
		}
	}
	// search= finds the author's draft "Harbour Fair" and the editor's private "Harbour Fair 2026"
	// for the plugin; strictly, only what the contributor may read.
	if ids := shownIDs(t, call(t, srv, "GET", eventsPath+"?"+wideWindow+"&search=Harbour", nil, "contributor"), "events"); slices.Contains(ids, 39) || slices.Contains(ids, 113) {
		t.Errorf("contributor search: %v", ids)
	}
	a := call(t, srv, "GET", eventsPath+"?include="+allNonPublished, nil, "contributor")
	if a.header.Get("X-TEC-Total") != "1" || a.body["total"] != float64(1) {
		t.Errorf("totals count what is shown: %v %v", a.header.Get("X-TEC-Total"), a.body["total"])
	}

	// For every role, every list answer holds only records the single endpoint would show.
	queries := []string{"status=publish", "status=private", "status=draft", "status=pending", "status=future", "status=trash",
		"status=private,draft,pending,future", "search=e", "include=" + allNonPublished, "include=" + allNonPublished + "&status=trash",
		"include=" + allNonPublished + "&status=private,draft,pending,future"}
	for _, user := range []string{"", "subscriber", "contributor", "author", "editor", "admin"} {
		for _, kind := range []struct{ path, key string }{{"events", "events"}, {"venues", "venues"}, {"organizers", "organizers"}} {
			seen := map[int64]bool{}
			for _, q := range queries {
				path := "/wp-json/tribe/events/v1/" + kind.path + "?per_page=50&" + q
				if kind.path == "events" {
					path += "&" + wideWindow
				}
				a := call(t, srv, "GET", path, nil, user)
				if a.status >= 500 || (a.status >= 400 && a.status != 404 && a.body["code"] != "rest_invalid_param") {
					t.Errorf("%s %s: %d %.200s", user, path, a.status, a.raw)
					continue
				}
				if a.status != 200 {
					continue
				}
				for _, id := range shownIDs(t, a, kind.key) {
					seen[id] = true
				}
			}
			for id := range seen {
				single := call(t, srv, "GET", fmt.Sprintf("/wp-json/tribe/events/v1/%s/%d", kind.path, id), nil, user)
				// A password-protected event is listed redacted; its single asks for the password.
				if single.status != 200 && single.body["code"] != "event-password-protected" {
					t.Errorf("%q lists %s %d, which its single refuses: %d %v", user, kind.path, id, single.status, single.body["code"])
				}
			}
		}
	}
	// Editors and administrators still list other authors' private and draft events.
	if ids := shownIDs(t, call(t, srv, "GET", eventsPath+"?"+wideWindow+"&status=private,draft", nil, "editor"), "events"); !slices.Contains(ids, 90) || !slices.Contains(ids, 68) {
		t.Errorf("editor: %v", ids)
	}
}
