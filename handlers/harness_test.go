package handlers_test

import (
	"bytes"
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/calendard/calendard/handlers"
	"github.com/calendard/calendard/internal/service"
	"github.com/calendard/calendard/internal/testenv"
	"github.com/calendard/calendard/wpdb"
)

// Shared harness of the write tests: a fresh copy of the recorded fixture per test, served through
// the real HTTP stack, and a plain connection to inspect the rows.

// appPasswords are the fixture users' application passwords.
var appPasswords = map[string]string{
	"admin": adminPass, "editor": "EditorAppPassw0rd0000000", "author": "AuthorAppPassw0rd0000000",
	"contributor": "ContribAppPassw0rd000000", "subscriber": "SubscrAppPassw0rd0000000",
}

// fixtureServer serves a fresh copy of the fixture with the clock frozen at now; it returns the
// server, a connection to its database and the database's DSN.
func fixtureServer(t *testing.T, now time.Time) (*httptest.Server, *sql.DB, string) {
	t.Helper()
	return fixtureServerIn(t, now, "w")
}

// fixtureServerIn is fixtureServer with its own database name prefix (one database per prefix and
// test) and setup statements run on the copy first (%s stands for the quoted database name).
func fixtureServerIn(t *testing.T, now time.Time, prefix string, setup ...string) (*httptest.Server, *sql.DB, string) {
	t.Helper()
	// The deadline is not what these tests test (dbtimeout_test.go and deadline_test.go do): at the
	// default 5 s, writes that queue on one lock (50 creates of one title) can run out of time on a
	// loaded 2-core machine and answer 503.
	return serveFixture(t, handlers.Config{Environment: "local", Clock: func() time.Time { return now }, DBTimeout: time.Minute},
		prefix, setup...)
}

// serveFixture is the common part: a fixture copy, the real HTTP stack over it with cfg and the
// store as serve runs it, and a raw connection to the copy.
func serveFixture(t *testing.T, cfg handlers.Config, prefix string, setup ...string) (*httptest.Server, *sql.DB, string) {
	t.Helper()
	return serveFixtureStore(t, cfg, prefix, true, setup...)
}

// serveFixtureStore is serveFixture with the store started (live) or not: a store that is not
// started keeps nothing between requests, so every answer comes from SQL.
func serveFixtureStore(t *testing.T, cfg handlers.Config, prefix string, live bool, setup ...string) (*httptest.Server, *sql.DB, string) {
	t.Helper()
	name := testenv.DBName(prefix, t)
	dsn := testenv.FixtureDB(t, fixture, name)
	if len(setup) > 0 {
		stmts := make([]string, len(setup))
		for i, st := range setup {
			stmts[i] = fmt.Sprintf(st, "`"+name+"`")
		}
		if err := testenv.SharedMariaDB(t).Exec(context.Background(), stmts...); err != nil {
			t.Fatal(err)
		}
	}
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
	if !live {
		srv := httptest.NewServer(service.Handler(cfg, service.Start(context.Background(), db, wpdb.SiteOverrides{}, service.Cold)))
		t.Cleanup(srv.Close)
		return srv, raw, dsn
	}
	return serveLive(t, cfg, db), raw, dsn
}

// liveStores are the stores of the servers serveLive started, for settle.
var liveStores sync.Map // *httptest.Server → *wpdb.Store

// serveLive serves db through service.Handler over the store as serve runs it (service.Live: the
// change feed, the event index, loaded records kept), until the test ends.
func serveLive(t testing.TB, cfg handlers.Config, db *wpdb.DB) *httptest.Server {
	t.Helper()
	store := liveStore(t, db, wpdb.SiteOverrides{})
	srv := httptest.NewServer(service.Handler(cfg, store))
	liveStores.Store(srv, store)
	t.Cleanup(func() {
		srv.Close()
		liveStores.Delete(srv)
	})
	return srv
}

// liveStore is service.Start with service.Live until the test ends (registered after the
// database's Cleanup, so it stops before the database closes).
func liveStore(t testing.TB, db *wpdb.DB, overrides wpdb.SiteOverrides) *wpdb.Store {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	return service.Start(ctx, db, overrides, service.Live)
}

// settle makes srv's store take in what the test changed directly in the database, as the next
// reconcile would (the watermark poll does not see a bare UPDATE of a row), and waits until what
// it keeps reflects it (the event index rebuilt). Tests that edit rows between requests call it,
// as WordPress' own edits would be seen within the watch interval.
func settle(t testing.TB, srv *httptest.Server) {
	t.Helper()
	v, ok := liveStores.Load(srv)
	if !ok {
		t.Fatal("settle: not a server of serveLive")
	}
	store := v.(*wpdb.Store)
	store.Changes().Publish(wpdb.Change{All: true})
	deadline := time.Now().Add(30 * time.Second)
	for !store.Quiescent() {
		if time.Now().After(deadline) {
			t.Fatal("settle: the store did not take in the change within 30 s")
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// indexBuilt waits until the event index of srv (a server of serveLive) has its first build
// complete, every pass in: a list whose database deadline passes during that build waits for it
// instead of failing, so a test of the deadline itself waits first.
func indexBuilt(t testing.TB, srv *httptest.Server) {
	t.Helper()
	v, ok := liveStores.Load(srv)
	if !ok {
		t.Fatal("indexBuilt: not a server of serveLive")
	}
	x := v.(*wpdb.Store).Index()
	if x == nil {
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if !x.WaitTextReady(ctx) {
		t.Fatal("indexBuilt: the event index's first build did not finish within 30 s")
	}
}

// call sends a request as user ("" for anonymous). body is nil or "" (none), another string (sent
// as is, JSON) or a value to encode as JSON. It may run in a test's goroutines, so a failure to
// send is reported with t.Error (t.Fatal must not leave another goroutine) and answers status 0.
func call(t *testing.T, srv *httptest.Server, method, path string, body any, user string) answer {
	t.Helper()
	var rd io.Reader
	switch b := body.(type) {
	case nil:
	case string:
		if b != "" {
			rd = strings.NewReader(b)
		}
	default:
		enc, err := json.Marshal(b)
		if err != nil {
			t.Error(err)
			return answer{}
		}
		rd = bytes.NewReader(enc)
	}
	req, err := http.NewRequest(method, srv.URL+path, rd)
	if err != nil {
		t.Error(err)
		return answer{}
	}
	if rd != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	if user != "" {
		for k, v := range basic(user, appPasswords[user]) {
			req.Header.Set(k, v)
		}
	}
	return do(t, req)
}

// do sends a request and reads the answer (status 0 when it could not be sent; see call).
func do(t *testing.T, req *http.Request) answer {
	t.Helper()
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Error(err)
		return answer{}
	}
	defer resp.Body.Close()
	raw, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Error(err)
	}
	a := answer{status: resp.StatusCode, header: resp.Header, raw: string(raw)}
	_ = json.Unmarshal(raw, &a.body)
	return a
}

// scalar runs a one-value query.
func scalar[T any](t *testing.T, db *sql.DB, q string, args ...any) T {
	t.Helper()
	var v T
	if err := db.QueryRow(q, args...).Scan(&v); err != nil {
		t.Fatalf("%s: %v", q, err)
	}
	return v
}

// writeTables are the tables a write may touch.
var writeTables = []string{"wp_posts", "wp_postmeta", "wp_terms", "wp_term_taxonomy", "wp_term_relationships",
	"wp_termmeta", "wp_tec_events", "wp_tec_occurrences"}

// tableChecksums fingerprints every table a write may touch, to prove a refused or failed request
// left the database exactly as it was.
func tableChecksums(t *testing.T, db *sql.DB) map[string]string {
	t.Helper()
	out := map[string]string{}
	for _, tbl := range writeTables {
		var name string
		var sum sql.NullString
		if err := db.QueryRow("CHECKSUM TABLE "+tbl).Scan(&name, &sum); err != nil {
			t.Fatal(err)
		}
		out[tbl] = sum.String + "/" + itoa(scalar[int](t, db, "SELECT COUNT(*) FROM "+tbl))
	}
	return out
}

// sameTables fails the test when a table changed since before.
func sameTables(t *testing.T, db *sql.DB, before map[string]string, what string) {
	t.Helper()
	after := tableChecksums(t, db)
	for tbl, sum := range before {
		if after[tbl] != sum {
			t.Errorf("%s: %s changed", what, tbl)
		}
	}
}
