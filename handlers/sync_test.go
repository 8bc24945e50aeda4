package handlers_test

import (
	"context"
	"database/sql"
	"net/http/httptest"
	"net/url"
	"slices"
	"testing"
	"time"

	"github.com/calendard/calendard/cache"
	"github.com/calendard/calendard/handlers"
	"github.com/calendard/calendard/internal/service"
	"github.com/calendard/calendard/internal/testenv"
	"github.com/calendard/calendard/wpdb"
)

const syncHeader = "X-Calendard-Sync-Token"

// syncFixture is one store's server (the response cache on, a short watch interval, no timed
// reconcile: the test runs it) with a raw connection to its rows.
type syncFixture struct {
	srv   *httptest.Server
	db    *sql.DB
	store *wpdb.Store
}

func syncFixtures(t *testing.T) map[string]syncFixture {
	t.Helper()
	serve := func(db *wpdb.DB) (*httptest.Server, *wpdb.Store) {
		ctx, cancel := context.WithCancel(context.Background())
		t.Cleanup(cancel)
		store := service.Start(ctx, db, wpdb.SiteOverrides{}, wpdb.StartOptions{WatchInterval: 50 * time.Millisecond, Records: 1000})
		<-store.SyncOpened()
		c, err := cache.New(cache.Options{Mode: cache.Memory, TTL: time.Minute, MaxBytes: 8 << 20,
			Generation: store.Generation, Quiescent: store.Quiescent, Feed: db.Changes(), Sync: db.Changes().Sync})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(c.Close)
		srv := httptest.NewServer(service.Handler(handlers.Config{Environment: "local", Clock: func() time.Time { return eventsNow },
			DBTimeout: time.Minute, Cache: c, CacheHeader: true}, store))
		t.Cleanup(srv.Close)
		return srv, store
	}
	dsn := testenv.FixtureDB(t, fixture, testenv.DBName("sync", t))
	mdb, err := wpdb.OpenMySQL(dsn, "wp_")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { mdb.Close() })
	mraw, err := sql.Open("mysql", dsn)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { mraw.Close() })
	path := sqliteCopy(t)
	sdb, err := wpdb.OpenSQLite(path, "wp_")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { sdb.Close() })
	sraw, err := sql.Open("sqlite", wpdb.SQLiteDSN(path))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { sraw.Close() })
	msrv, mstore := serve(mdb)
	ssrv, sstore := serve(sdb)
	return map[string]syncFixture{"mysql": {msrv, mraw, mstore}, "sqlite": {ssrv, sraw, sstore}}
}

// syncResult is what following a token to the end gave: items by ID (each counted), tombstones.
type syncResult struct {
	items   map[int64]map[string]any
	seen    map[int64]int
	deleted map[int64]int
	next    string
	calls   int
}

// followSync follows tok on the list at path as user until an answer says there is no more, with
// pages of perPage journal entries.
func followSync(t *testing.T, srv *httptest.Server, path, key, tok, user string, perPage int) syncResult {
	t.Helper()
	res := syncResult{items: map[int64]map[string]any{}, seen: map[int64]int{}, deleted: map[int64]int{}}
	for {
		a := call(t, srv, "GET", path+"?per_page="+itoa(perPage)+"&sync_token="+url.QueryEscape(tok), nil, user)
		if a.status != 200 {
			t.Fatalf("sync %s: %d %.300s", path, a.status, a.raw)
		}
		res.calls++
		items, _ := a.body[key].([]any)
		for _, it := range items {
			m := it.(map[string]any)
			id := int64(m["id"].(float64))
			res.items[id] = m
			res.seen[id]++
		}
		dels, _ := a.body["deleted"].([]any)
		for _, d := range dels {
			res.deleted[int64(d.(float64))]++
		}
		next, _ := a.body["next_sync_token"].(string)
		if next == "" || a.header.Get(syncHeader) != next {
			t.Fatalf("next token %q, header %q", next, a.header.Get(syncHeader))
		}
		tok = next
		if len(items)+len(dels) > perPage {
			t.Fatalf("a page of %d entries answered %d objects", perPage, len(items)+len(dels))
		}
		if a.body["more"] != true {
			res.next = next
			return res
		}
	}
}

// waitSync follows tok until cond holds for the whole result (the direct changes reach the journal
// with the next poll or the reconcile), and returns it.
func waitSync(t *testing.T, srv *httptest.Server, path, key, tok, user string, cond func(syncResult) bool) syncResult {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for {
		r := followSync(t, srv, path, key, tok, user, 3)
		if cond(r) {
			return r
		}
		if time.Now().After(deadline) {
			t.Fatalf("the sync of %s never showed the changes: items %v, deleted %v", path, keys(r.seen), keys(r.deleted))
		}
		time.Sleep(20 * time.Millisecond)
	}
}

func keys(m map[int64]int) []int64 {
	var out []int64
	for k := range m {
		out = append(out, k)
	}
	slices.Sort(out)
	return out
}

func listToken(t *testing.T, srv *httptest.Server, path, user string) string {
	t.Helper()
	a := call(t, srv, "GET", path+"?per_page=1", nil, user)
	tok := a.header.Get(syncHeader)
	if a.status != 200 || tok == "" {
		t.Fatalf("list %s: %d, token %q", path, a.status, tok)
	}
	return tok
}

func TestSyncTokensFollowWritesAndDirectChanges(t *testing.T) {
	const venues = "/wp-json/tribe/events/v1/venues"
	const calEvents = "/wp-json/calendar/events/v1/events"
	for name, fx := range syncFixtures(t) {
		t.Run(name, func(t *testing.T) {
			srv, db := fx.srv, fx.db
			var evs []int64
			rows, err := db.Query("SELECT ID FROM wp_posts WHERE post_type = 'tribe_events' AND post_status = 'publish' AND ID NOT IN " +
				"(SELECT post_id FROM wp_postmeta WHERE meta_key = '_EventCost') ORDER BY ID LIMIT 6")
			if err != nil {
				t.Fatal(err)
			}
			for rows.Next() {
				var id int64
				_ = rows.Scan(&id)
				evs = append(evs, id)
			}
			rows.Close()
			costEvent := scalar[int64](t, db, "SELECT p.ID FROM wp_posts p JOIN wp_postmeta m ON m.post_id = p.ID AND m.meta_key = '_EventCost' "+
				"WHERE p.post_type = 'tribe_events' AND p.post_status = 'publish' ORDER BY p.ID LIMIT 1")
			if len(evs) < 6 {
				t.Fatalf("fixture events: %v", evs)
			}
			tokAdmin := listToken(t, srv, eventsPath, "admin")
			tokAnon := listToken(t, srv, calEvents, "")
			tokVenues := listToken(t, srv, venues, "")

			// Through calendard: create, update, set to draft, trash, delete for good.
			created := idOf(t, call(t, srv, "POST", eventsPath, map[string]any{"title": "Sync Gala", "start_date": "2027-07-04 18:30:00",
				"end_date": "2027-07-04 22:00:00", "status": "publish"}, "admin"))
			if a := call(t, srv, "POST", eventsPath+"/"+itoa(int(evs[0])), map[string]any{"title": "Renamed by API"}, "admin"); a.status != 200 {
				t.Fatalf("update: %d %.300s", a.status, a.raw)
			}
			if a := call(t, srv, "POST", eventsPath+"/"+itoa(int(evs[1])), map[string]any{"status": "draft"}, "admin"); a.status != 200 {
				t.Fatalf("draft: %d %.300s", a.status, a.raw)
			}
			if a := call(t, srv, "DELETE", eventsPath+"/"+itoa(int(evs[2])), nil, "admin"); a.status != 200 {
				t.Fatalf("trash: %d %.300s", a.status, a.raw)
			}
			if a := call(t, srv, "DELETE", "/wp-json/wp/v2/tribe_events/"+itoa(int(evs[3]))+"?force=true", nil, "admin"); a.status != 200 {
				t.Fatalf("delete: %d %.300s", a.status, a.raw)
			}
			// The writes are in the very next sync answer (journaled before each write answered).
			r := followSync(t, srv, eventsPath, "events", tokAdmin, "admin", 50)
			for _, id := range []int64{created, evs[0], evs[1]} {
				if r.seen[id] != 1 {
					t.Errorf("right after the writes: event %d seen %d times (items %v)", id, r.seen[id], keys(r.seen))
				}
			}
			for _, id := range []int64{evs[2], evs[3]} {
				if r.deleted[id] != 1 {
					t.Errorf("right after the writes: event %d not a tombstone (deleted %v)", id, keys(r.deleted))
				}
			}

			// As WordPress would, in SQL: a venue inserted with its meta, a title saved with
			// post_modified_gmt, a row deleted, and a bare meta UPDATE the reconcile finds.
			exec := func(q string, args ...any) {
				t.Helper()
				if _, err := db.Exec(q, args...); err != nil {
					t.Fatalf("%s: %v", q, err)
				}
			}
			exec("INSERT INTO wp_posts (post_author, post_date, post_date_gmt, post_content, post_title, post_excerpt, post_status, comment_status, " +
				"ping_status, post_password, post_name, to_ping, pinged, post_modified, post_modified_gmt, post_content_filtered, post_parent, guid, " +
				"menu_order, post_type, post_mime_type, comment_count) VALUES (1, '2026-11-20 10:00:00', '2026-11-20 15:00:00', '', 'Direct Hall', '', " +
				"'publish', 'closed', 'closed', '', 'direct-hall', '', '', '2026-11-20 10:00:00', '2026-11-20 15:00:00', '', 0, 'http://x/?p=1', 0, " +
				"'tribe_venue', '', 0)")
			venue := scalar[int64](t, db, "SELECT MAX(ID) FROM wp_posts WHERE post_type = 'tribe_venue'")
			exec("INSERT INTO wp_postmeta (post_id, meta_key, meta_value) VALUES (?, '_VenueCity', 'Springfield')", venue)
			exec("UPDATE wp_posts SET post_title = 'Renamed in SQL', post_modified = '2026-11-22 00:00:00', post_modified_gmt = '2026-11-22 05:00:00' WHERE ID = ?", evs[4])
			exec("DELETE FROM wp_posts WHERE ID = ?", evs[5])
			exec("DELETE FROM wp_postmeta WHERE post_id = ?", evs[5])
			waitSync(t, srv, eventsPath, "events", tokAdmin, "admin", func(r syncResult) bool { return r.seen[evs[4]] > 0 && r.deleted[evs[5]] > 0 })
			exec("UPDATE wp_postmeta SET meta_value = '77' WHERE post_id = ? AND meta_key = '_EventCost'", costEvent)
			// The watermark cannot see it; the reconcile can.
			if done, err := fx.store.Changes().Reconcile(context.Background()); err != nil || !done {
				t.Fatalf("reconcile: done %v, %v", done, err)
			}

			wantItems := []int64{created, evs[0], evs[1], evs[4], costEvent}
			wantDeleted := []int64{evs[2], evs[3], evs[5]}
			r = waitSync(t, srv, eventsPath, "events", tokAdmin, "admin", func(r syncResult) bool { return r.seen[costEvent] > 0 })
			if !slices.Equal(keys(r.seen), sorted(wantItems)) || !slices.Equal(keys(r.deleted), sorted(wantDeleted)) {
				t.Errorf("admin: items %v (want %v), deleted %v (want %v)", keys(r.seen), sorted(wantItems), keys(r.deleted), sorted(wantDeleted))
			}
			for id, n := range r.seen {
				if n != 1 || r.deleted[id] != 0 {
					t.Errorf("admin: event %d seen %d times, a tombstone %d times", id, n, r.deleted[id])
				}
			}
			if r.calls < 3 {
				t.Errorf("8 changes in pages of 3 took %d calls", r.calls)
			}
			if got := r.items[evs[0]]["title"]; got != "Renamed by API" {
				t.Errorf("updated event's title %v", got)
			}
			if got := r.items[evs[4]]["title"]; got != "Renamed in SQL" {
				t.Errorf("SQL-renamed event's title %v", got)
			}
			if got := r.items[costEvent]["cost"]; got == nil || got == "" {
				t.Errorf("the reconciled event renders no cost: %v", got)
			}
			if got := r.items[evs[1]]["status"]; got != "draft" {
				t.Errorf("the draft's status %v", got)
			}
			// Anonymous, on the twin namespace: the draft is a tombstone too.
			ra := followSync(t, srv, calEvents, "events", tokAnon, "", 50)
			if !slices.Equal(keys(ra.seen), sorted([]int64{created, evs[0], evs[4], costEvent})) ||
				!slices.Equal(keys(ra.deleted), sorted([]int64{evs[1], evs[2], evs[3], evs[5]})) {
				t.Errorf("anonymous: items %v, deleted %v", keys(ra.seen), keys(ra.deleted))
			}
			// The venues list has its own changes: the inserted venue.
			rv := followSync(t, srv, venues, "venues", tokVenues, "", 50)
			if rv.seen[venue] != 1 || rv.items[venue]["city"] != "Springfield" {
				t.Errorf("venues: items %v (want %d with its city), deleted %v", keys(rv.seen), venue, keys(rv.deleted))
			}
			// Nothing new: the next token answers nothing.
			if again := followSync(t, srv, eventsPath, "events", r.next, "admin", 50); len(again.seen)+len(again.deleted) != 0 {
				t.Errorf("after the last token: %v %v", keys(again.seen), keys(again.deleted))
			}

			// The plain-permalink form answers the same.
			if a := call(t, srv, "GET", "/?rest_route=/tribe/events/v1/events&sync_token="+url.QueryEscape(r.next), nil, "admin"); a.status != 200 ||
				a.body["next_sync_token"] != r.next || a.header.Get(syncHeader) != r.next {
				t.Errorf("?rest_route= sync: %d %.200s", a.status, a.raw)
			}

			// Bad tokens and filters.
			for _, c := range []struct{ path, want string }{
				{eventsPath + "?sync_token=garbage", "rest_invalid_param"},
				{eventsPath + "?sync_token=" + tokVenues, "rest_invalid_param"},
				{eventsPath + "?search=gala&sync_token=" + url.QueryEscape(tokAdmin), "rest_invalid_param"},
				{"/wp-json/tribe/events/v1/tags?sync_token=" + url.QueryEscape(tokAdmin), "rest_invalid_param"},
			} {
				a := call(t, srv, "GET", c.path, nil, "")
				data, _ := a.body["data"].(map[string]any)
				if a.status != 400 || a.body["code"] != c.want || data == nil || data["status"] != float64(400) {
					t.Errorf("%s: %d %.200s", c.path, a.status, a.raw)
				}
			}
			if a := call(t, srv, "GET", eventsPath+"?search=gala&sync_token="+url.QueryEscape(tokAdmin), nil, ""); !containsKey(a.body, "search") {
				t.Errorf("the filter error names no parameter: %.300s", a.raw)
			}

			// A pruned token answers 410, also when its answer was cached.
			path := eventsPath + "?sync_token=" + url.QueryEscape(tokAnon)
			if a := call(t, srv, "GET", path, nil, ""); a.status != 200 {
				t.Fatalf("before pruning: %d", a.status)
			}
			if err := fx.store.PruneSync(context.Background(), time.Now().Add(time.Hour)); err != nil {
				t.Fatal(err)
			}
			a := call(t, srv, "GET", path, nil, "")
			data, _ := a.body["data"].(map[string]any)
			if a.status != 410 || a.body["code"] != "rest_sync_token_expired" || data["status"] != float64(410) {
				t.Errorf("a pruned token: %d %.300s", a.status, a.raw)
			}
			// The newest token still follows.
			if a := call(t, srv, "GET", eventsPath+"?sync_token="+url.QueryEscape(r.next), nil, "admin"); a.status != 200 {
				t.Errorf("the newest token after pruning: %d %.200s", a.status, a.raw)
			}
		})
	}
}

func sorted(ids []int64) []int64 {
	out := slices.Clone(ids)
	slices.Sort(out)
	return out
}

// containsKey reports whether an error's data.params names key.
func containsKey(body map[string]any, key string) bool {
	data, _ := body["data"].(map[string]any)
	params, _ := data["params"].(map[string]any)
	_, ok := params[key]
	return ok
}
