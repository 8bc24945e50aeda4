package handlers_test

import (
	"context"
	"database/sql"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/calendard/calendard/handlers"
	"github.com/calendard/calendard/wpdb"
)

// The database deadline bounds the waits a driver does not end by itself: the SQLite write lock
// held by another connection (SQLite's busy handler sleeps through the driver's interrupt), and a
// MySQL COMMIT the database stalls on (database/sql's Commit takes no context). The bounds are
// generous, yet shorter than an unbounded wait: the 10 s busy timeout, or the whole stall (6 s here).

const (
	deadlineUnderTest = time.Second
	answeredWithin    = 4 * time.Second
)

func TestSQLiteWriteLockHeldElsewhereAnswersByTheDeadline(t *testing.T) {
	srv, path := serveSQLiteFixtureAt(t, handlers.Config{DBTimeout: deadlineUnderTest, Environment: "local",
		Clock: func() time.Time { return recordedNow }})
	event := map[string]any{"title": "Behind the lock", "start_date": "2027-05-10 10:00:00", "end_date": "2027-05-10 12:00:00"}
	// The admin's application password is used once before: its last use of the day is recorded
	// then, so the requests below write nothing while they authenticate.
	if a := call(t, srv, "GET", eventsPath+"?per_page=1", nil, "admin"); a.status != 200 {
		t.Fatalf("warm-up: %d %.200s", a.status, a.raw)
	}

	// Another connection (as another process would) holds the write lock.
	other, err := sql.Open("sqlite", "file:"+path+"?_pragma=busy_timeout(10000)")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { other.Close() })
	ctx := context.Background()
	holder, err := other.Conn(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer holder.Close()
	if _, err := holder.ExecContext(ctx, "BEGIN IMMEDIATE"); err != nil {
		t.Fatal(err)
	}
	locked := true
	defer func() {
		if locked {
			_, _ = holder.ExecContext(ctx, "ROLLBACK")
		}
	}()

	for _, rq := range []struct {
		method, path, user string
		body               any
	}{
		{"POST", eventsPath, "admin", event},
		{"POST", eventsPath + "/34", "admin", map[string]any{"title": "Renamed behind the lock"}},
		{"POST", "/wp-json/tribe/events/v1/venues", "admin", map[string]any{"venue": "Locked Hall"}},
		// Authenticating for the first time today records the use: a write too.
		{"GET", eventsPath + "?per_page=1", "editor", nil},
	} {
		start := time.Now()
		a := call(t, srv, rq.method, rq.path, rq.body, rq.user)
		took := time.Since(start)
		if a.status != 503 || a.body["code"] != "service_unavailable" || !wpShaped(a) {
			t.Errorf("%s %s as %s: %d %.200s, want 503 service_unavailable", rq.method, rq.path, rq.user, a.status, a.raw)
		}
		if took > answeredWithin {
			t.Errorf("%s %s as %s: answered after %v, want within %v of a %v deadline", rq.method, rq.path, rq.user,
				took.Round(time.Millisecond), answeredWithin, deadlineUnderTest)
		}
		t.Logf("%s %s as %s: %d after %v", rq.method, rq.path, rq.user, a.status, took.Round(time.Millisecond))
	}
	// Reads do not need the lock (WAL).
	if a := call(t, srv, "GET", eventsPath+"/34", nil, ""); a.status != 200 {
		t.Errorf("read while the lock is held: %d %.200s", a.status, a.raw)
	}

	if _, err := holder.ExecContext(ctx, "ROLLBACK"); err != nil {
		t.Fatal(err)
	}
	locked = false
	// The connections the refused writes used wait the full busy timeout again: a write queued
	// behind a short one is not refused.
	if a := call(t, srv, "POST", eventsPath, event, "admin"); a.status != 201 {
		t.Errorf("write once the lock is free: %d %.300s", a.status, a.raw)
	}
}

// A write whose COMMIT the database stalls on is answered at the deadline: 503 with the record's
// ID and data.committed null, since the commit may or may not have happened. Once the database
// resumes, the record is there whole or not at all.
func TestStalledCommitAnswersByTheDeadline(t *testing.T) {
	srv, maria, raw, _ := stallableServer(t, handlers.Config{DBTimeout: deadlineUnderTest})
	var armed atomic.Bool
	armed.Store(true)
	pauseErr := make(chan error, 1)
	wpdb.TestHookBeforeCommit = func() {
		if armed.CompareAndSwap(true, false) {
			pauseErr <- maria.Pause()
		}
	}
	defer func() { wpdb.TestHookBeforeCommit = nil }()
	// The stall ends by itself after 6 s, so that a commit waiting for the server ends too.
	resume := time.AfterFunc(6*time.Second, func() { _ = maria.Signal(syscall.SIGCONT) })
	defer resume.Stop()
	defer maria.Signal(syscall.SIGCONT)

	start := time.Now()
	a := call(t, srv, "POST", eventsPath, map[string]any{"title": "Committing as it stalls",
		"start_date": "2027-06-01 10:00:00", "end_date": "2027-06-01 11:00:00"}, "admin")
	took := time.Since(start)
	_ = maria.Signal(syscall.SIGCONT)
	if armed.Load() {
		t.Fatal("the write never reached its commit")
	}
	if err := <-pauseErr; err != nil {
		t.Fatal(err)
	}
	t.Logf("answered %d after %v", a.status, took.Round(time.Millisecond))
	data, _ := a.body["data"].(map[string]any)
	committed, hasCommitted := data["committed"]
	if a.status != 503 || a.body["code"] != "service_unavailable" || !hasCommitted || committed != nil || !wpShaped(a) {
		t.Fatalf("%d %.300s, want 503 service_unavailable with data.committed null", a.status, a.raw)
	}
	if took > answeredWithin {
		t.Errorf("answered after %v, want within %v of a %v deadline", took.Round(time.Millisecond), answeredWithin, deadlineUnderTest)
	}
	id, _ := data["id"].(float64)
	if id <= 0 {
		t.Fatalf("data.id %v, want the event's ID", data["id"])
	}
	// Whatever the server did with the COMMIT it had been sent, the event is whole or absent.
	var posts, dates, rows int
	for wait := time.Now(); ; time.Sleep(20 * time.Millisecond) {
		err := raw.QueryRow(`SELECT (SELECT COUNT(*) FROM wp_posts WHERE ID = ?),
			(SELECT COUNT(*) FROM wp_postmeta WHERE post_id = ? AND meta_key = '_EventStartDate'),
			(SELECT COUNT(*) FROM wp_tec_events WHERE post_id = ?)`, int64(id), int64(id), int64(id)).Scan(&posts, &dates, &rows)
		if err == nil {
			break
		}
		if time.Since(wait) > 10*time.Second {
			t.Fatalf("the database did not answer after SIGCONT: %v", err)
		}
	}
	if !(posts == 1 && dates == 1 && rows == 1) && !(posts == 0 && dates == 0 && rows == 0) {
		t.Errorf("event %v: %d post, %d start date, %d tec_events rows: want all or nothing", id, posts, dates, rows)
	}
	t.Logf("after SIGCONT the event is stored: %v", posts == 1)
	if a := call(t, srv, "POST", eventsPath, map[string]any{"title": "After the stall",
		"start_date": "2027-06-02 10:00:00", "end_date": "2027-06-02 11:00:00"}, "admin"); a.status != 201 {
		t.Errorf("write after the stall: %d %.300s", a.status, a.raw)
	}
}
