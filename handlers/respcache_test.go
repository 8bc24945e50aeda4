package handlers_test

import (
	"bytes"
	"compress/gzip"
	"context"
	"database/sql"
	"html"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	goredis "github.com/redis/go-redis/v9"

	"github.com/calendard/calendard/cache"
	"github.com/calendard/calendard/handlers"
	"github.com/calendard/calendard/internal/service"
	"github.com/calendard/calendard/internal/testenv"
	"github.com/calendard/calendard/wpdb"
)

// Tests of the response cache (cache/) and HTTP caching (httpcache.go) through the real HTTP stack,
// against real MariaDB and a real redis-server started by the test.

var cacheNow = time.Date(2026, 11, 22, 4, 30, 10, 0, time.UTC)

type cachedServer struct {
	*httptest.Server
	logs *testenv.SyncBuffer
	reg  *prometheus.Registry
}

type cacheSetup struct {
	mode     cache.Mode
	redisURL string
	watch    time.Duration // change feed poll (default 100 ms)
	private  cache.Private
	// hideMetrics leaves /metrics off the API (calendard's default); the tests that read it
	// serve it there.
	hideMetrics bool
	// accessLog turns the access log on; quietLogs sends the logs nowhere (benchmarks).
	accessLog, quietLogs bool
	// onStore, when set, hears the started store.
	onStore func(*wpdb.Store)
}

// startCachedServer serves the database at dsn as calendard serve does, with the response cache.
func startCachedServer(t *testing.T, dsn string, cs cacheSetup) *cachedServer {
	t.Helper()
	h, logs, reg := cachedHandler(t, dsn, cs)
	srv := httptest.NewServer(h)
	t.Cleanup(srv.Close)
	return &cachedServer{Server: srv, logs: logs, reg: reg}
}

// cachedHandler is the HTTP stack of startCachedServer without a listener (benchmarks call it
// directly); everything it started stops when the test ends.
func cachedHandler(t testing.TB, dsn string, cs cacheSetup) (http.Handler, *testenv.SyncBuffer, *prometheus.Registry) {
	t.Helper()
	db, err := wpdb.OpenMySQL(dsn, "wp_")
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	if cs.watch == 0 {
		cs.watch = 100 * time.Millisecond
	}
	store := service.Start(ctx, db, wpdb.SiteOverrides{}, wpdb.StartOptions{WatchInterval: cs.watch, Records: 1000})
	wait, stop := context.WithTimeout(ctx, 10*time.Second)
	defer stop()
	if !store.Index().WaitReady(wait) {
		t.Fatal("the event index was not built")
	}
	if cs.onStore != nil {
		cs.onStore(store)
	}
	logs := &testenv.SyncBuffer{}
	var logTo io.Writer = logs
	if cs.quietLogs {
		logTo = io.Discard
	}
	log := slog.New(slog.NewTextHandler(logTo, nil))
	reg := prometheus.NewRegistry()
	c, err := cache.New(cache.Options{Mode: cs.mode, RedisURL: cs.redisURL, Prefix: "test:", TTL: time.Minute, MaxBytes: 32 << 20,
		Timeout: 100 * time.Millisecond, Retry: 50 * time.Millisecond, Logger: log, Registerer: reg,
		Generation: store.Generation, Quiescent: store.Quiescent, Feed: db.Changes(), Sync: db.Changes().Sync, Private: cs.private})
	if err != nil {
		t.Fatal(err)
	}
	h := service.Handler(handlers.Config{Environment: "local", Clock: func() time.Time { return cacheNow }, Logger: log,
		Cache: c, CacheHeader: true, Metrics: reg, PublicMetrics: !cs.hideMetrics, AccessLog: cs.accessLog}, store)
	t.Cleanup(func() {
		c.Close()
		cancel()
		db.Close()
	})
	return h, logs, reg
}

// oracleServer answers from the database at dsn with nothing kept between requests: what a cached
// answer must equal.
func oracleServer(t *testing.T, dsn string) *httptest.Server {
	t.Helper()
	db, err := wpdb.OpenMySQL(dsn, "wp_")
	if err != nil {
		t.Fatal(err)
	}
	// Cold (service.Cold): the oracle keeps nothing, so it reads every answer from the rows.
	store := service.Start(context.Background(), db, wpdb.SiteOverrides{}, service.Cold)
	srv := httptest.NewServer(service.Handler(handlers.Config{Environment: "local", Clock: func() time.Time { return cacheNow }}, store))
	t.Cleanup(func() {
		srv.Close()
		db.Close()
	})
	return srv
}

func cacheFixture(t *testing.T, prefix string) (string, *sql.DB) {
	t.Helper()
	dsn := testenv.FixtureDB(t, fixture, testenv.DBName(prefix, t))
	raw, err := sql.Open("mysql", dsn)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { raw.Close() })
	return dsn, raw
}

// waitCaching waits until the server's cache answers (Redis found by its first probe).
func waitCaching(t *testing.T, srv *httptest.Server, path string) {
	t.Helper()
	for start := time.Now(); time.Since(start) < 10*time.Second; time.Sleep(20 * time.Millisecond) {
		if x := call(t, srv, "GET", path, nil, "").header.Get("X-Cache"); x == "MISS" || x == "HIT" {
			return
		}
	}
	t.Fatal("the response cache never answered")
}

// sameAnswer fails when a and b differ in status, body or the headers an answer is made of.
func sameAnswer(t *testing.T, what string, a, b answer) {
	t.Helper()
	// json_ld emails are scrambled with random character references on every rendering, as the
	// plugin does (antispambot): compared decoded.
	identical := a.raw == b.raw
	a.raw, b.raw = unscrambled(a.raw), unscrambled(b.raw)
	if a.status != b.status || a.raw != b.raw {
		i := 0
		for i < len(a.raw) && i < len(b.raw) && a.raw[i] == b.raw[i] {
			i++
		}
		from := max(0, i-80)
		t.Errorf("%s: status %d, want %d; bodies differ at byte %d:\n got %.200q\nwant %.200q", what, a.status, b.status, i, a.raw[from:], b.raw[from:])
		return
	}
	for _, h := range []string{"X-WP-Total", "X-WP-TotalPages", "X-TEC-Total", "X-TEC-TotalPages", "Allow", "Link", "Content-Type", "ETag", "Cache-Control"} {
		if a.header.Get(h) != b.header.Get(h) && (identical || h != "ETag") {
			t.Errorf("%s: header %s %q, want %q", what, h, a.header.Get(h), b.header.Get(h))
		}
	}
}

const (
	evList   = "/wp-json/tribe/events/v1/events?per_page=50&start_date=2000-01-01&end_date=2040-01-01"
	venList  = "/wp-json/tribe/events/v1/venues?per_page=50"
	orgList  = "/wp-json/tribe/events/v1/organizers?per_page=50"
	catList  = "/wp-json/tribe/events/v1/categories?per_page=50&hide_empty=0"
	tagList  = "/wp-json/tribe/events/v1/tags?per_page=50&hide_empty=0"
	nsPrefix = "/wp-json/tribe/events/v1"
)

// firstOf returns the id and slug of the first record of a list.
func firstOf(t *testing.T, srv *httptest.Server, list, key string) (string, string) {
	t.Helper()
	a := call(t, srv, "GET", list, nil, "admin")
	recs, _ := a.body[key].([]any)
	if len(recs) < 2 {
		t.Fatalf("%s: want at least 2 %s, got %d: %.200s", list, key, len(recs), a.raw)
	}
	r := recs[len(recs)-1].(map[string]any)
	return strconv.FormatInt(int64(r["id"].(float64)), 10), r["slug"].(string)
}

func TestResponseCacheHitsAndWriteInvalidation(t *testing.T) {
	dsn, _ := cacheFixture(t, "rc")
	srv := startCachedServer(t, dsn, cacheSetup{mode: cache.Memory})
	oracle := oracleServer(t, dsn)

	t.Run("a repeated GET is a hit, byte-identical to the uncached answer", func(t *testing.T) {
		for _, p := range []string{evList, venList, orgList, catList, tagList, nsPrefix, nsPrefix + "/doc", "/wp-json/", "/?rest_route=/calendar/events/v1/events&per_page=3"} {
			first, second := call(t, srv.Server, "GET", p, nil, ""), call(t, srv.Server, "GET", p, nil, "")
			if first.header.Get("X-Cache") != "MISS" || second.header.Get("X-Cache") != "HIT" {
				t.Errorf("%s: X-Cache %q then %q, want MISS then HIT", p, first.header.Get("X-Cache"), second.header.Get("X-Cache"))
			}
			sameAnswer(t, p+" (hit)", second, first)
			sameAnswer(t, p+" (uncached)", second, call(t, oracle, "GET", p, nil, ""))
		}
	})

	evID, evSlug := firstOf(t, srv.Server, evList, "events")
	venID, venSlug := firstOf(t, srv.Server, venList, "venues")
	orgID, orgSlug := firstOf(t, srv.Server, orgList, "organizers")
	catID, _ := firstOf(t, srv.Server, catList, "categories")
	tagID, _ := firstOf(t, srv.Server, tagList, "tags")
	newEvent := map[string]any{"title": "Cache test event", "start_date": "2026-12-01 10:00:00", "end_date": "2026-12-01 12:00:00", "status": "publish"}

	for _, c := range []struct {
		name, method, path string
		body               any
		reads              []string
	}{
		{"create event", "POST", nsPrefix + "/events", newEvent, []string{evList}},
		{"update event by ID", "POST", nsPrefix + "/events/" + evID, map[string]any{"title": "Renamed event"}, []string{evList, nsPrefix + "/events/" + evID}},
		{"update event by slug", "PUT", nsPrefix + "/events/by-slug/" + evSlug, map[string]any{"title": "Renamed by slug"}, []string{evList, nsPrefix + "/events/by-slug/" + evSlug}},
		{"update venue by ID", "POST", nsPrefix + "/venues/" + venID, map[string]any{"venue": "Renamed venue"}, []string{venList, nsPrefix + "/venues/" + venID}},
		{"update venue by slug", "POST", nsPrefix + "/venues/by-slug/" + venSlug, map[string]any{"venue": "Venue by slug"}, []string{venList}},
		{"create venue", "POST", nsPrefix + "/venues", map[string]any{"venue": "New cache venue"}, []string{venList}},
		{"update organizer by ID", "POST", nsPrefix + "/organizers/" + orgID, map[string]any{"organizer": "Renamed organizer"}, []string{orgList, nsPrefix + "/organizers/" + orgID}},
		{"update organizer by slug", "POST", nsPrefix + "/organizers/by-slug/" + orgSlug, map[string]any{"organizer": "Organizer by slug"}, []string{orgList}},
		{"create organizer", "POST", nsPrefix + "/organizers", map[string]any{"organizer": "New cache organizer"}, []string{orgList}},
		{"create category", "POST", nsPrefix + "/categories", map[string]any{"name": "New cache category"}, []string{catList}},
		{"update category", "POST", nsPrefix + "/categories/" + catID, map[string]any{"name": "Renamed category"}, []string{catList, nsPrefix + "/categories/" + catID}},
		{"create tag", "POST", nsPrefix + "/tags", map[string]any{"name": "New cache tag"}, []string{tagList}},
		{"update tag", "POST", nsPrefix + "/tags/" + tagID, map[string]any{"name": "Renamed tag"}, []string{tagList, nsPrefix + "/tags/" + tagID}},
		{"delete event by ID", "DELETE", nsPrefix + "/events/" + evID, nil, []string{evList}},
		{"delete venue by ID", "DELETE", nsPrefix + "/venues/" + venID, nil, []string{venList}},
		{"delete organizer by ID", "DELETE", nsPrefix + "/organizers/" + orgID, nil, []string{orgList}},
		{"delete category", "DELETE", nsPrefix + "/categories/" + catID, nil, []string{catList}},
		{"delete tag", "DELETE", nsPrefix + "/tags/" + tagID, nil, []string{tagList}},
	} {
		t.Run(c.name+" is seen by the next GET, not served from the cache", func(t *testing.T) {
			before := map[string]answer{}
			for _, p := range c.reads {
				before[p] = primed(t, srv.Server, p)
			}
			if w := call(t, srv.Server, c.method, c.path, c.body, "admin"); w.status >= 300 {
				t.Fatalf("%s %s: %d %.300s", c.method, c.path, w.status, w.raw)
			}
			changed := false
			for _, p := range c.reads {
				a := call(t, srv.Server, "GET", p, nil, "")
				if a.header.Get("X-Cache") != "MISS" {
					t.Errorf("%s after the write: X-Cache %q, want MISS", p, a.header.Get("X-Cache"))
				}
				sameAnswer(t, p+" after the write", a, call(t, oracle, "GET", p, nil, ""))
				changed = changed || a.raw != before[p].raw
			}
			if !changed {
				t.Errorf("no primed answer changed: the write was not a test of invalidation")
			}
		})
	}
}

// primed asks for path until the answer comes from the cache. The change feed's watermark poll
// sees a write the API made one poll later and calls it a change too, so the first answer after a
// write may be computed again once.
func primed(t *testing.T, srv *httptest.Server, path string) answer {
	t.Helper()
	for start := time.Now(); time.Since(start) < 30*time.Second; time.Sleep(20 * time.Millisecond) {
		call(t, srv, "GET", path, nil, "")
		if a := call(t, srv, "GET", path, nil, ""); a.header.Get("X-Cache") == "HIT" {
			return a
		}
	}
	t.Fatalf("%s never came from the cache", path)
	return answer{}
}

func TestResponseCacheSeesDirectSQLWrites(t *testing.T) {
	dsn, raw := cacheFixture(t, "rs")
	srv := startCachedServer(t, dsn, cacheSetup{mode: cache.Memory})
	id, _ := firstOf(t, srv.Server, evList, "events")
	single := nsPrefix + "/events/" + id
	for _, p := range []string{evList, single} {
		primed(t, srv.Server, p)
	}
	if _, err := raw.Exec("UPDATE wp_posts SET post_title = 'Renamed in SQL', post_modified_gmt = UTC_TIMESTAMP() WHERE ID = ?", id); err != nil {
		t.Fatal(err)
	}
	t.Run("a title changed in SQL reaches the cached list and single within the watermark poll", func(t *testing.T) {
		// The poll runs every 100 ms, but stretches its interval when a reading is slow (it may take
		// a few per cent of a core): on a loaded 2-core machine that can be seconds.
		for start := time.Now(); time.Since(start) < 30*time.Second; time.Sleep(20 * time.Millisecond) {
			l, s := call(t, srv.Server, "GET", evList, nil, ""), call(t, srv.Server, "GET", single, nil, "")
			if strings.Contains(l.raw, "Renamed in SQL") && strings.Contains(s.raw, "Renamed in SQL") {
				return
			}
		}
		t.Error("the cached answers never showed the direct change")
	})
}

// The reconcile: a bare meta UPDATE (no watermark sees it) reaches the cached single event once a
// reconcile has run; a reconcile that finds nothing changed leaves every cached answer a hit.
func TestResponseCacheFollowsTheReconcile(t *testing.T) {
	dsn, raw := cacheFixture(t, "rr")
	var store *wpdb.Store
	srv := startCachedServer(t, dsn, cacheSetup{mode: cache.Memory, onStore: func(s *wpdb.Store) { store = s }})
	ctx := context.Background()
	<-store.SyncOpened()
	reconcile := func() {
		t.Helper()
		if done, err := store.Changes().Reconcile(ctx); err != nil || !done {
			t.Fatalf("reconcile: done %v, %v", done, err)
		}
	}
	reconcile() // the first after the journal's baseline reloads everything
	var id int64
	if err := raw.QueryRow("SELECT p.ID FROM wp_posts p JOIN wp_postmeta m ON m.post_id = p.ID AND m.meta_key = '_EventCost' " +
		"WHERE p.post_type = 'tribe_events' AND p.post_status = 'publish' AND m.meta_value <> '' ORDER BY p.ID LIMIT 1").Scan(&id); err != nil {
		t.Fatal(err)
	}
	single := nsPrefix + "/events/" + strconv.FormatInt(id, 10)
	paths := []string{evList, venList, single}
	for _, p := range paths {
		primed(t, srv.Server, p)
	}
	reconcile()
	for _, p := range paths {
		if a := call(t, srv.Server, "GET", p, nil, ""); a.header.Get("X-Cache") != "HIT" {
			t.Errorf("%s after a reconcile that found nothing: X-Cache %q, want HIT", p, a.header.Get("X-Cache"))
		}
	}
	if _, err := raw.Exec("UPDATE wp_postmeta SET meta_value = '98765' WHERE post_id = ? AND meta_key = '_EventCost'", id); err != nil {
		t.Fatal(err)
	}
	reconcile()
	if a := call(t, srv.Server, "GET", single, nil, ""); !strings.Contains(a.raw, "98765") {
		t.Errorf("%s after the reconcile found a bare meta UPDATE: X-Cache %q, no new cost: %.300s", single, a.header.Get("X-Cache"), a.raw)
	}
}

func TestResponseCacheKeepsViewsApart(t *testing.T) {
	dsn, _ := cacheFixture(t, "rv")
	srv := startCachedServer(t, dsn, cacheSetup{mode: cache.Memory})
	oracle := oracleServer(t, dsn)
	drafts := nsPrefix + "/events?status=draft,private,pending&per_page=50"

	admin := call(t, srv.Server, "GET", drafts, nil, "admin")
	if again := call(t, srv.Server, "GET", drafts, nil, "admin"); again.header.Get("X-Cache") != "HIT" || admin.status != 200 {
		t.Fatalf("admin's list: %d, X-Cache %q on the second request", admin.status, again.header.Get("X-Cache"))
	}
	for _, user := range []string{"", "subscriber", "contributor", "author", "editor"} {
		name := user
		if name == "" {
			name = "anonymous"
		}
		t.Run(name+" never gets the administrator's cached answer", func(t *testing.T) {
			a := call(t, srv.Server, "GET", drafts, nil, user)
			if a.header.Get("X-Cache") == "HIT" {
				t.Errorf("first request of %s was a hit", name)
			}
			sameAnswer(t, name, a, call(t, oracle, "GET", drafts, nil, user))
			// Authors and contributors may list others' drafts as the plugin does (docs/reliability.md,
			// strict reads); visitors and subscribers may not.
			if (user == "" || user == "subscriber") && a.raw == admin.raw {
				t.Errorf("%s sees the administrator's drafts", name)
			}
			b := call(t, srv.Server, "GET", drafts, nil, user)
			sameAnswer(t, name+" (second)", b, a)
		})
	}
	t.Run("authenticated answers forbid shared caches, anonymous ones allow them", func(t *testing.T) {
		if cc := admin.header.Get("Cache-Control"); !strings.Contains(cc, "private") || !strings.Contains(cc, "no-store") {
			t.Errorf("admin: Cache-Control %q", cc)
		}
		if cc := call(t, srv.Server, "GET", evList, nil, "").header.Get("Cache-Control"); !strings.HasPrefix(cc, "public") {
			t.Errorf("anonymous: Cache-Control %q", cc)
		}
		if v := admin.header.Values("Vary"); !strings.Contains(strings.Join(v, ","), "Authorization") {
			t.Errorf("Vary %q", v)
		}
	})
}

func TestConditionalAndCompressedAnswers(t *testing.T) {
	dsn, _ := cacheFixture(t, "r3")
	cached := startCachedServer(t, dsn, cacheSetup{mode: cache.Memory})
	uncached := oracleServer(t, dsn)
	noGzip := &http.Client{Transport: &http.Transport{DisableCompression: true}}
	get := func(srv *httptest.Server, path string, hdr ...string) answer {
		req, err := http.NewRequest("GET", srv.URL+path, nil)
		if err != nil {
			t.Fatal(err)
		}
		for i := 0; i+1 < len(hdr); i += 2 {
			req.Header.Set(hdr[i], hdr[i+1])
		}
		resp, err := noGzip.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		var b bytes.Buffer
		_, _ = b.ReadFrom(resp.Body)
		return answer{status: resp.StatusCode, header: resp.Header, raw: b.String()}
	}
	for _, s := range []struct {
		name string
		srv  *httptest.Server
	}{{"cached", cached.Server}, {"uncached", uncached}} {
		t.Run(s.name+": If-None-Match with the ETag answers 304, another tag 200", func(t *testing.T) {
			full := get(s.srv, evList)
			etag := full.header.Get("ETag")
			if full.status != 200 || !strings.HasPrefix(etag, `"`) {
				t.Fatalf("status %d, ETag %q", full.status, etag)
			}
			for _, inm := range []string{etag, "W/" + etag, `"other", ` + etag, "*"} {
				a := get(s.srv, evList, "If-None-Match", inm)
				if a.status != 304 || a.raw != "" || a.header.Get("ETag") != etag {
					t.Errorf("If-None-Match %s: %d, %d bytes, ETag %q", inm, a.status, len(a.raw), a.header.Get("ETag"))
				}
			}
			if a := get(s.srv, evList, "If-None-Match", `"stale"`); a.status != 200 || a.raw != full.raw {
				t.Errorf("another tag: %d", a.status)
			}
		})
		t.Run(s.name+": gzip when asked, the same bytes once decompressed, its own ETag", func(t *testing.T) {
			plain := get(s.srv, evList)
			gz := get(s.srv, evList, "Accept-Encoding", "gzip, deflate")
			if gz.header.Get("Content-Encoding") != "gzip" || gz.header.Get("ETag") == plain.header.Get("ETag") {
				t.Fatalf("Content-Encoding %q, ETag %q (plain %q)", gz.header.Get("Content-Encoding"), gz.header.Get("ETag"), plain.header.Get("ETag"))
			}
			if got := gunzip(t, gz.raw); got != plain.raw {
				t.Errorf("decompressed body differs from the plain one")
			}
			if a := get(s.srv, evList, "Accept-Encoding", "gzip", "If-None-Match", gz.header.Get("ETag")); a.status != 304 {
				t.Errorf("If-None-Match with the gzip ETag: %d", a.status)
			}
			if a := get(s.srv, evList, "Accept-Encoding", "gzip;q=0"); a.header.Get("Content-Encoding") != "" {
				t.Errorf("gzip;q=0 still compressed")
			}
		})
	}
	t.Run("an answer changed by a write gets another ETag", func(t *testing.T) {
		id, _ := firstOf(t, cached.Server, evList, "events")
		before := get(cached.Server, evList).header.Get("ETag")
		if w := call(t, cached.Server, "POST", nsPrefix+"/events/"+id, map[string]any{"title": "New ETag"}, "admin"); w.status != 200 {
			t.Fatalf("update: %d", w.status)
		}
		if a := get(cached.Server, evList, "If-None-Match", before); a.status != 200 || a.header.Get("ETag") == before {
			t.Errorf("after the write: %d, ETag %q (was %q)", a.status, a.header.Get("ETag"), before)
		}
	})
}

func TestRedisCacheSharedByTwoServers(t *testing.T) {
	dsn, _ := cacheFixture(t, "r2")
	redis := testenv.NewRedis(t)
	// The watermark poll is slowed to an hour: what one server learns of the other's writes comes
	// through Redis alone.
	a := startCachedServer(t, dsn, cacheSetup{mode: cache.Redis, redisURL: redis.URL(0), watch: time.Hour})
	b := startCachedServer(t, dsn, cacheSetup{mode: cache.Redis, redisURL: redis.URL(0), watch: time.Hour})
	oracle := oracleServer(t, dsn)
	waitCaching(t, a.Server, nsPrefix+"/doc")
	waitCaching(t, b.Server, nsPrefix+"/doc")
	id, _ := firstOf(t, a.Server, evList, "events")
	single := nsPrefix + "/events/" + id

	t.Run("an answer one server computed is a hit on the other", func(t *testing.T) {
		first := call(t, b.Server, "GET", evList, nil, "")
		other := call(t, a.Server, "GET", evList, nil, "")
		if first.header.Get("X-Cache") != "MISS" || other.header.Get("X-Cache") != "HIT" {
			t.Errorf("X-Cache %q on B then %q on A, want MISS then HIT", first.header.Get("X-Cache"), other.header.Get("X-Cache"))
		}
		sameAnswer(t, "shared", other, first)
	})
	for _, w := range []struct {
		name, method, path, want string
		body                     any
	}{
		{"an update", "POST", single, "Renamed through A", map[string]any{"title": "Renamed through A"}},
		{"a new event", "POST", nsPrefix + "/events", "Created through A",
			map[string]any{"title": "Created through A", "start_date": "2026-12-02 10:00:00", "end_date": "2026-12-02 11:00:00", "status": "publish"}},
	} {
		t.Run(w.name+" through one server is in the other's next answer", func(t *testing.T) {
			for _, p := range []string{evList, single} {
				primed(t, b.Server, p)
			}
			if r := call(t, a.Server, w.method, w.path, w.body, "admin"); r.status >= 300 {
				t.Fatalf("write through A: %d %.200s", r.status, r.raw)
			}
			l := call(t, b.Server, "GET", evList, nil, "")
			if !strings.Contains(l.raw, w.want) || l.header.Get("X-Cache") == "HIT" {
				t.Errorf("B's next list: X-Cache %q, has %q: %v", l.header.Get("X-Cache"), w.want, strings.Contains(l.raw, w.want))
			}
			sameAnswer(t, "B's list", l, call(t, oracle, "GET", evList, nil, ""))
			sameAnswer(t, "B's single", call(t, b.Server, "GET", single, nil, ""), call(t, oracle, "GET", single, nil, ""))
		})
	}
}

func TestRedisAwayAnswersFromTheDatabase(t *testing.T) {
	dsn, _ := cacheFixture(t, "rk")
	redis := testenv.NewRedis(t)
	srv := startCachedServer(t, dsn, cacheSetup{mode: cache.Redis, redisURL: redis.URL(0)})
	oracle := oracleServer(t, dsn)
	waitCaching(t, srv.Server, evList)
	id, _ := firstOf(t, srv.Server, evList, "events")

	redis.Kill()
	t.Run("with Redis killed every answer comes from the database, logged once", func(t *testing.T) {
		for i := 0; i < 20; i++ {
			a := call(t, srv.Server, "GET", evList, nil, "")
			if i > 0 && a.header.Get("X-Cache") != "BYPASS" {
				t.Errorf("request %d: X-Cache %q, want BYPASS", i, a.header.Get("X-Cache"))
			}
			sameAnswer(t, "while Redis is away", a, call(t, oracle, "GET", evList, nil, ""))
		}
		if w := call(t, srv.Server, "POST", nsPrefix+"/events/"+id, map[string]any{"title": "Written while Redis was away"}, "admin"); w.status != 200 {
			t.Fatalf("write while Redis is away: %d %.200s", w.status, w.raw)
		}
		if a := call(t, srv.Server, "GET", evList, nil, ""); !strings.Contains(a.raw, "Written while Redis was away") {
			t.Error("the write is not in the next answer")
		}
		if n := srv.logs.Count("redis cache unavailable"); n != 1 {
			t.Errorf("%d log lines say Redis is unavailable, want 1", n)
		}
		if v := gaugeValue(t, srv.reg, "calendard_cache_redis_up"); v != 0 {
			t.Errorf("calendard_cache_redis_up %v, want 0", v)
		}
	})
	if err := redis.Restart(); err != nil {
		t.Fatal(err)
	}
	t.Run("caching resumes by itself when Redis is back, with what was written meanwhile", func(t *testing.T) {
		waitCaching(t, srv.Server, evList)
		a, b := call(t, srv.Server, "GET", evList, nil, ""), call(t, srv.Server, "GET", evList, nil, "")
		if b.header.Get("X-Cache") != "HIT" {
			t.Errorf("X-Cache %q after Redis came back", b.header.Get("X-Cache"))
		}
		sameAnswer(t, "after Redis came back", a, call(t, oracle, "GET", evList, nil, ""))
		if !strings.Contains(b.raw, "Written while Redis was away") {
			t.Error("the write made while Redis was away is missing")
		}
		if n := srv.logs.Count("redis cache available"); n != 2 {
			t.Errorf("%d log lines say Redis is available, want 2 (start and return)", n)
		}
		if v := gaugeValue(t, srv.reg, "calendard_cache_redis_up"); v != 1 {
			t.Errorf("calendard_cache_redis_up %v, want 1", v)
		}
	})
	t.Run("the metrics count hits, misses and bypasses", func(t *testing.T) {
		resp, err := http.Get(srv.URL + "/metrics")
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		var b bytes.Buffer
		_, _ = b.ReadFrom(resp.Body)
		for _, s := range []string{`calendard_cache_requests_total{result="HIT"}`, `calendard_cache_requests_total{result="MISS"}`,
			`calendard_cache_requests_total{result="BYPASS"}`, `calendard_http_request_duration_seconds_bucket{route="events/v1/events"`} {
			if !strings.Contains(b.String(), s) {
				t.Errorf("/metrics lacks %s", s)
			}
		}
	})
}

// An anonymous GET is answered from the cache before authentication and routing (cachedFirst):
// only requests that would have been kept under the same key may get the kept answer.
func TestAnonymousHitsBeforeRoutingServeOnlyTheirOwnKey(t *testing.T) {
	dsn, _ := cacheFixture(t, "ra")
	srv := startCachedServer(t, dsn, cacheSetup{mode: cache.Memory})
	oracle := oracleServer(t, dsn)
	first := call(t, srv.Server, "GET", evList, nil, "")
	if again := call(t, srv.Server, "GET", evList, nil, ""); again.header.Get("X-Cache") != "HIT" {
		t.Fatalf("the anonymous list was not kept: X-Cache %q", again.header.Get("X-Cache"))
	}
	send := func(method string, header map[string]string, body string) answer {
		req, err := http.NewRequest(method, srv.URL+evList, strings.NewReader(body))
		if err != nil {
			t.Fatal(err)
		}
		for k, v := range header {
			req.Header.Set(k, v)
		}
		return do(t, req)
	}
	for _, c := range []struct {
		name   string
		method string
		header map[string]string
		body   string
		oracle func() answer
	}{
		{"a method override is the other method, not a hit", "GET", map[string]string{"X-HTTP-Method-Override": "POST"}, "",
			func() answer {
				req, _ := http.NewRequest("GET", oracle.URL+evList, nil)
				req.Header.Set("X-HTTP-Method-Override", "POST")
				return do(t, req)
			}},
		{"credentials are another view, not a hit", "GET", basic("admin", adminPass), "",
			func() answer { return call(t, oracle, "GET", evList, nil, "admin") }},
		{"a GET with a body is not a hit", "GET", map[string]string{"Content-Type": "application/json"}, `{"per_page":1}`,
			func() answer {
				req, _ := http.NewRequest("GET", oracle.URL+evList, strings.NewReader(`{"per_page":1}`))
				req.Header.Set("Content-Type", "application/json")
				return do(t, req)
			}},
	} {
		t.Run(c.name, func(t *testing.T) {
			a := send(c.method, c.header, c.body)
			if a.header.Get("X-Cache") == "HIT" {
				t.Errorf("X-Cache HIT")
			}
			sameAnswer(t, c.name, a, c.oracle())
		})
	}
	t.Run("HEAD is a hit without a body", func(t *testing.T) {
		a, get := send("HEAD", nil, ""), send("GET", map[string]string{"Accept-Encoding": "identity"}, "")
		if a.status != 200 || a.header.Get("X-Cache") != "HIT" || a.raw != "" || a.header.Get("ETag") != get.header.Get("ETag") ||
			a.header.Get("Content-Length") != strconv.Itoa(len(first.raw)) {
			t.Errorf("HEAD: %d, X-Cache %q, %d bytes, ETag %q (GET's %q), Content-Length %q (GET's body: %d bytes)", a.status,
				a.header.Get("X-Cache"), len(a.raw), a.header.Get("ETag"), get.header.Get("ETag"), a.header.Get("Content-Length"), len(first.raw))
		}
	})
	t.Run("a hit gets the CORS headers of its own request", func(t *testing.T) {
		a := send("GET", map[string]string{"Origin": "https://front.example"}, "")
		if a.header.Get("X-Cache") != "HIT" || a.header.Get("Access-Control-Allow-Origin") != "https://front.example" ||
			strings.Join(a.header.Values("Vary"), ", ") != "Origin, Authorization, Accept-Encoding, Accept" {
			t.Errorf("X-Cache %q, Access-Control-Allow-Origin %q, Vary %q", a.header.Get("X-Cache"),
				a.header.Get("Access-Control-Allow-Origin"), a.header.Values("Vary"))
		}
		if b := send("GET", nil, ""); b.header.Get("Access-Control-Allow-Origin") != "" {
			t.Errorf("the next hit kept the other request's CORS header %q", b.header.Get("Access-Control-Allow-Origin"))
		}
	})
}

// Authenticated users' answers are kept in the process (the front) and never in Redis unless
// CALENDAR_CACHE_PRIVATE=shared; /metrics is not on the API unless asked for.
func TestPrivateAnswersStayOutOfRedis(t *testing.T) {
	redis := testenv.NewRedis(t)
	admin := goredis.NewClient(&goredis.Options{Addr: redis.Addr()})
	defer admin.Close()
	kept := func() int {
		keys, err := admin.Keys(context.Background(), "test:r:*").Result()
		if err != nil {
			t.Fatal(err)
		}
		return len(keys)
	}
	for _, c := range []struct {
		name    string
		private cache.Private
		shared  bool
	}{
		{"by default an authenticated answer is a hit from the process and is not in Redis", cache.PrivateLocal, false},
		{"shared puts authenticated answers in Redis", cache.PrivateShared, true},
	} {
		t.Run(c.name, func(t *testing.T) {
			if err := admin.FlushAll(context.Background()).Err(); err != nil {
				t.Fatal(err)
			}
			dsn, _ := cacheFixture(t, "rp")
			srv := startCachedServer(t, dsn, cacheSetup{mode: cache.Redis, redisURL: redis.URL(0), private: c.private, hideMetrics: true})
			waitCaching(t, srv.Server, evList)
			before := kept()
			call(t, srv.Server, "GET", evList, nil, "admin")
			if b := call(t, srv.Server, "GET", evList, nil, "admin"); b.header.Get("X-Cache") != "HIT" {
				t.Errorf("admin's second request: X-Cache %q, want HIT", b.header.Get("X-Cache"))
			}
			if got := kept() > before; got != c.shared {
				t.Errorf("Redis entries %d then %d: an authenticated answer in Redis %v, want %v", before, kept(), got, c.shared)
			}
			if m := call(t, srv.Server, "GET", "/metrics", nil, ""); m.status != 404 || strings.Contains(m.raw, "calendard_") {
				t.Errorf("/metrics on the API: %d %.100s", m.status, m.raw)
			}
		})
	}
}

func gaugeValue(t *testing.T, reg *prometheus.Registry, name string) float64 {
	t.Helper()
	mfs, err := reg.Gather()
	if err != nil {
		t.Fatal(err)
	}
	for _, mf := range mfs {
		if mf.GetName() == name && len(mf.GetMetric()) > 0 {
			return mf.GetMetric()[0].GetGauge().GetValue()
		}
	}
	t.Fatalf("no metric %s", name)
	return 0
}

var emailRe = regexp.MustCompile(`"email":"[^"]*"`)

func unscrambled(s string) string {
	return emailRe.ReplaceAllStringFunc(s, html.UnescapeString)
}

func gunzip(t *testing.T, s string) string {
	t.Helper()
	r, err := gzip.NewReader(strings.NewReader(s))
	if err != nil {
		t.Fatal(err)
	}
	var b bytes.Buffer
	if _, err := b.ReadFrom(r); err != nil {
		t.Fatal(err)
	}
	return b.String()
}
