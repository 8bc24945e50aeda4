package handlers_test

import (
	"context"
	"database/sql"
	"net/http/httptest"
	"runtime"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/calendard/calendard/handlers"
	"github.com/calendard/calendard/internal/service"
	"github.com/calendard/calendard/internal/testenv"
	"github.com/calendard/calendard/wpdb"
)

// stallableServer serves the fixture from a MariaDB server of its own, which the test may stall.
func stallableServer(t *testing.T, cfg handlers.Config) (*httptest.Server, *testenv.MariaDB, *sql.DB, *wpdb.DB) {
	t.Helper()
	testenv.SkipIfShort(t, "mariadbd")
	m, err := testenv.StartMariaDB(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_ = m.Signal(syscall.SIGCONT)
		m.Stop()
	})
	ctx := context.Background()
	if err := m.CreateDatabase(ctx, "wp"); err != nil {
		t.Fatal(err)
	}
	if err := m.LoadSQL(ctx, "wp", fixture); err != nil {
		t.Fatal(err)
	}
	db, err := wpdb.OpenMySQL(m.DSN("wp"), "wp_")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	raw, err := sql.Open("mysql", m.DSN("wp"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { raw.Close() })
	if cfg.Clock == nil {
		cfg.Clock = func() time.Time { return eventsNow }
	}
	cfg.Environment = "local"
	// Cold (service.Cold): with nothing kept (site options, event index, loaded records) every
	// request reaches the stalled database, which is what the deadline is tested against.
	store := service.Start(context.Background(), db, wpdb.SiteOverrides{}, service.Cold)
	srv := httptest.NewServer(service.Handler(cfg, store))
	t.Cleanup(srv.Close)
	return srv, m, raw, db
}

// With MariaDB stalled (SIGSTOP), every request answers 503 service_unavailable once the database
// deadline has passed and not much later, reads and writes alike; a write the stall caught midway
// leaves nothing behind; after SIGCONT the service recovers by itself, with no goroutine left over.
func TestStalledDatabaseAnswers503InTime(t *testing.T) {
	const deadline = time.Second
	const margin = 1500 * time.Millisecond
	srv, maria, raw, db := stallableServer(t, handlers.Config{DBTimeout: deadline})
	event := map[string]any{"title": "Stalled", "start_date": "2027-05-10 10:00:00", "end_date": "2027-05-10 12:00:00",
		"venue": map[string]any{"venue": "Stall Hall", "city": "Leeds"}, "categories": []any{"Stall Category"}, "tags": []any{"stall-tag"}}
	if a := call(t, srv, "POST", eventsPath, event, "admin"); a.status != 201 {
		t.Fatalf("warm-up write: %d %.300s", a.status, a.raw)
	}
	requests := []struct {
		method, path, user string
		body               any
	}{
		{"GET", eventsPath, "", nil},
		{"GET", eventsPath + "?search=jazz&per_page=50", "", nil},
		{"GET", eventsPath + "/34", "", nil},
		{"GET", "/wp-json/tribe/events/v1/venues", "", nil},
		{"GET", "/wp-json/tribe/events/v1/categories", "", nil},
		{"GET", eventsPath + "?status=draft", "admin", nil},
		{"POST", eventsPath, "admin", event},
		{"POST", eventsPath + "/34", "editor", map[string]any{"title": "Renamed while stalled"}},
		{"DELETE", eventsPath + "/34", "admin", nil},
	}
	runtime.GC()
	goroutines := runtime.NumGoroutine()
	before := tableChecksums(t, raw)

	t.Run("stalled from the start", func(t *testing.T) {
		if err := maria.Pause(); err != nil {
			t.Fatal(err)
		}
		defer maria.Signal(syscall.SIGCONT)
		var wg sync.WaitGroup
		for round := 0; round < 4; round++ { // more requests than the pool has connections
			for _, rq := range requests {
				wg.Add(1)
				go func() {
					defer wg.Done()
					start := time.Now()
					a := call(t, srv, rq.method, rq.path, rq.body, rq.user)
					took := time.Since(start)
					if a.status != 503 || a.body["code"] != "service_unavailable" || !wpShaped(a) {
						t.Errorf("%s %s: %d %.200s, want 503 service_unavailable", rq.method, rq.path, a.status, a.raw)
					}
					if took < deadline-50*time.Millisecond || took > deadline+margin {
						t.Errorf("%s %s: answered after %v, want the %v deadline plus at most %v", rq.method, rq.path, took, deadline, margin)
					}
				}()
			}
			wg.Wait()
		}
	})

	t.Run("stalled in the middle of a write", func(t *testing.T) {
		var once sync.Once
		var mu sync.Mutex
		statements := 0
		wpdb.TestHookBeforeStatement = func(ctx context.Context, connID int64) error {
			mu.Lock()
			statements++
			n := statements
			mu.Unlock()
			if n == 12 {
				once.Do(func() { _ = maria.Pause() })
			}
			return nil
		}
		defer func() { wpdb.TestHookBeforeStatement = nil }()
		defer maria.Signal(syscall.SIGCONT)
		start := time.Now()
		a := call(t, srv, "POST", eventsPath, event, "admin")
		took := time.Since(start)
		if a.status != 503 || a.body["code"] != "service_unavailable" {
			t.Errorf("%d %.200s, want 503 service_unavailable", a.status, a.raw)
		}
		// The stall caught the handler's phase; authentication (its own deadline) ran before it, and
		// hashing a password on a loaded machine can take a good part of a second.
		if took > 2*deadline+margin {
			t.Errorf("answered after %v, want at most twice the %v deadline plus %v", took, deadline, margin)
		}
	})

	t.Run("recovers by itself after SIGCONT", func(t *testing.T) {
		start := time.Now()
		for {
			a := call(t, srv, "GET", eventsPath, nil, "")
			if a.status == 200 {
				break
			}
			if time.Since(start) > 5*time.Second {
				t.Fatalf("still %d %.200s after %v", a.status, a.raw, time.Since(start))
			}
			time.Sleep(50 * time.Millisecond)
		}
		t.Logf("recovered %v after SIGCONT", time.Since(start).Round(time.Millisecond))
		// The writes caught by the stall rolled back: the tables are as they were.
		sameTables(t, raw, before, "writes during the stall")
		if a := call(t, srv, "POST", eventsPath, event, "admin"); a.status != 201 {
			t.Errorf("write after recovery: %d %.300s", a.status, a.raw)
		}
		// Nothing the stall started is still running.
		var n int
		for wait := time.Now(); time.Since(wait) < 30*time.Second; time.Sleep(50 * time.Millisecond) {
			srv.CloseClientConnections()
			runtime.GC()
			if n = runtime.NumGoroutine(); n <= goroutines+2 {
				break
			}
		}
		if n > goroutines+2 {
			t.Errorf("%d goroutines, %d before the stall", n, goroutines)
		}
	})

	// A write whose commit went through but whose answer cannot be read back (the database stalls
	// right after the commit) says that it is stored, with its ID, so a client does not repeat it.
	t.Run("stalled just after a commit answers 503 that names the stored write", func(t *testing.T) {
		var armed atomic.Bool
		armed.Store(true)
		var stalledOn []int64
		var pauseErr error
		db.Changes().Subscribe(func(c wpdb.Change) {
			// Only a write's own change (posts named) stalls the server; the pause is confirmed
			// thread by thread before the handler goes on to read the event back.
			if len(c.Posts) > 0 && armed.CompareAndSwap(true, false) {
				stalledOn, pauseErr = c.Posts, maria.Pause()
			}
		})
		defer maria.Signal(syscall.SIGCONT)
		committed := map[string]any{"title": "Committed before the stall", "start_date": "2027-06-01 10:00:00", "end_date": "2027-06-01 11:00:00"}
		a := call(t, srv, "POST", eventsPath, committed, "admin")
		_ = maria.Signal(syscall.SIGCONT)
		if pauseErr != nil || armed.Load() {
			t.Fatalf("the server was not stalled after the commit (armed %v, pause: %v)", armed.Load(), pauseErr)
		}
		data, _ := a.body["data"].(map[string]any)
		if a.status != 503 || a.body["code"] != "service_unavailable" || data["committed"] != true {
			t.Fatalf("%d %.300s, want 503 service_unavailable with data.committed (stalled after the change of posts %v)", a.status, a.raw, stalledOn)
		}
		id, _ := data["id"].(float64)
		var title string
		if err := raw.QueryRow("SELECT post_title FROM wp_posts WHERE ID = ? AND post_type = 'tribe_events'", int64(id)).Scan(&title); err != nil || title != committed["title"] {
			t.Errorf("data.id %v names %q (%v), want the stored event %q", data["id"], title, err, committed["title"])
		}
	})
}

// Whatever a driver says when the deadline has passed (MySQL: the context error; SQLite: an
// interrupted statement), the caller gets the deadline's 503, never a 500: here with a deadline
// that has always passed, on both stores, for reads and writes.
func TestPassedDeadlineIs503OnBothStores(t *testing.T) {
	for store, srv := range bothStores(t, handlers.Config{DBTimeout: time.Nanosecond}) {
		indexBuilt(t, srv)
		for _, rq := range []struct{ method, path, user string }{
			{"GET", eventsPath, ""}, {"GET", eventsPath + "/34", ""}, {"GET", "/wp-json/tribe/events/v1/venues", ""},
			{"GET", "/wp-json/tribe/events/v1/tags", ""}, {"POST", eventsPath, "admin"},
		} {
			var body any
			if rq.method == "POST" {
				body = map[string]any{"title": "Late", "start_date": "2027-05-10 10:00:00", "end_date": "2027-05-10 12:00:00"}
			}
			a := call(t, srv, rq.method, rq.path, body, rq.user)
			if a.status != 503 || a.body["code"] != "service_unavailable" || !wpShaped(a) {
				t.Errorf("%s %s %s: %d %.200s, want 503 service_unavailable", store, rq.method, rq.path, a.status, a.raw)
			}
		}
	}
}
