package resiliencetests

import (
	"bufio"
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/calendard/calendard/internal/testenv"
)

// Faults of the database under load, against the real binary and a MariaDB server of the test's
// own (a child process it can stall with SIGSTOP and stop): stalled for 4 s, then stopped (an
// orderly shutdown, then a start on the same data directory and port) for 3 s, while 12 clients read
// and write (anonymous lists, singles and search=, an administrator's lists, creates and updates).
//
//   - Every request gets an answer, none a 5xx but 503 service_unavailable, none later than twice
//     CALENDAR_DB_TIMEOUT (2 s here: a request has the deadline once for authentication, once for its
//     handler) plus a margin; those made while the database was away are a 503 within the deadline
//     plus the margin, or the usual answer when memory holds all it needs (never for a write).
//   - A refused write is stored only when its answer says it may be (data.committed true or null),
//     and never when it started after the database went away and was answered before it came back;
//     every create answered 201 is stored.
//   - After SIGCONT / the restart, authenticated reads and writes succeed again by themselves within
//     15 s (reads come back in a fraction of a second; writes took up to 4.2 s on a loaded 2-core
//     machine, docs/reliability.md).
//   - At rest afterwards no goroutine is left over (pprof through CALENDAR_DEBUG_ADDR, the driver's
//     one watcher per open connection aside) and MariaDB counts no more connections from calendard
//     than the pool keeps idle (16), none busy.
//
// TestSIGTERMDrainsWrites (sigterm_test.go) stops calendard itself during writes.

const (
	// The deadline and the margin leave room for a loaded 2-core machine (make test runs packages in
	// parallel): a healthy write under this load takes up to ~1 s there.
	faultDBTimeout = 2 * time.Second
	faultMargin    = 2 * time.Second
	recoveryBound  = 15 * time.Second
	poolIdleCap    = 16 // wpdb.OpenMySQL: SetMaxIdleConns(16)
)

// outcome is one request of the load.
type outcome struct {
	kind       string
	title      string // the title a create or update sent
	start, end time.Time
	status     int
	code       string
	data       string // the error's data, raw (data.committed says whether a refused write is stored)
	err        error
}

// loadMix is the requests the fault load sends: anonymous reads (some served from memory), an
// administrator's reads (authentication reads the users table) and writes.
type loadMix struct {
	s      *server
	events []string
	mu     sync.Mutex
	out    []outcome
	seq    int
}

func (l *loadMix) one(ctx context.Context, worker int) {
	l.mu.Lock()
	l.seq++
	n := l.seq
	l.mu.Unlock()
	var kind, method, path, user, title string
	var body any
	switch {
	case worker%3 == 2 && n%2 == 0:
		kind, method, path, user = "create", "POST", "/wp-json/tribe/events/v1/events", "admin"
		title = fmt.Sprintf("Fault load %d", n)
		body = map[string]any{"title": title, "start_date": "2027-06-01 10:00:00", "end_date": "2027-06-01 11:00:00",
			"venue": map[string]any{"venue": fmt.Sprintf("Fault Hall %d", n%7)}, "categories": []any{"Fault Category"}, "tags": []any{"fault"}}
	case worker%3 == 2:
		kind, method, path, user = "update", "POST", "/wp-json/tribe/events/v1/events/"+l.events[n%len(l.events)], "admin"
		title = fmt.Sprintf("Updated under load %d", n)
		body = map[string]any{"title": title}
	case worker%3 == 1:
		kind, method, path, user = "admin read", "GET", "/wp-json/tribe/events/v1/events?status=draft,pending&per_page=5", "admin"
	default:
		kind, method = "read", "GET"
		path = []string{"/wp-json/tribe/events/v1/events?per_page=10&page=" + strconv.Itoa(1+n%3),
			"/wp-json/tribe/events/v1/events/" + l.events[n%len(l.events)], "/wp-json/tribe/events/v1/venues",
			"/wp-json/tribe/events/v1/events?search=concert", "/wp-json/tribe/events/v1/categories"}[n%5]
	}
	start := time.Now()
	a := l.s.call(ctx, method, path, user, body)
	o := outcome{kind: kind, title: title, start: start, end: time.Now(), status: a.status, code: errorCode(a.body), err: a.err}
	if o.status >= 300 {
		var e struct {
			Data json.RawMessage `json:"data"`
		}
		_ = json.Unmarshal(a.body, &e)
		o.data = string(e.Data)
	}
	l.mu.Lock()
	l.out = append(l.out, o)
	l.mu.Unlock()
}

// run keeps clients busy until stop is closed.
func (l *loadMix) run(clients int, stop <-chan struct{}) *sync.WaitGroup {
	var wg sync.WaitGroup
	for w := 0; w < clients; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				select {
				case <-stop:
					return
				default:
				}
				l.one(context.Background(), w)
			}
		}()
	}
	return &wg
}

// loadFor runs the load for d and returns its outcomes.
func (l *loadMix) loadFor(clients int, d time.Duration) []outcome {
	stop := make(chan struct{})
	wg := l.run(clients, stop)
	time.Sleep(d)
	close(stop)
	wg.Wait()
	return l.take()
}

func (l *loadMix) take() []outcome {
	l.mu.Lock()
	defer l.mu.Unlock()
	out := l.out
	l.out = nil
	return out
}

// goroutineCounts reads the server's goroutine profile: all goroutines, and those that are not the
// MySQL driver's per-connection watchers (one per open connection, however many the pool keeps).
func goroutineCounts(t *testing.T, s *server) (all, other int) {
	t.Helper()
	resp, err := http.Get("http://" + s.debug + "/debug/pprof/goroutine?debug=1")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	sc := bufio.NewScanner(resp.Body)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	n, watcher := 0, false
	flush := func() {
		all += n
		if !watcher {
			other += n
		}
		n, watcher = 0, false
	}
	for sc.Scan() {
		line := sc.Text()
		switch {
		case strings.Contains(line, " @ ") && !strings.HasPrefix(line, "#"):
			flush()
			n, _ = strconv.Atoi(strings.Fields(line)[0])
		case strings.Contains(line, "startWatcher"):
			watcher = true
		}
	}
	flush()
	return all, other
}

// dbConnections counts the connections calendard holds on MariaDB (Threads_connected without the
// monitor's own) and those of them not idle.
func dbConnections(t *testing.T, monitor *sql.DB) (total, busy int) {
	t.Helper()
	rows, err := monitor.Query("SELECT COMMAND FROM information_schema.PROCESSLIST WHERE ID <> CONNECTION_ID() AND USER = 'root'")
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	for rows.Next() {
		var cmd string
		if err := rows.Scan(&cmd); err != nil {
			t.Fatal(err)
		}
		total++
		if cmd != "Sleep" {
			busy++
		}
	}
	var name string
	var threads int
	if err := monitor.QueryRow("SHOW STATUS LIKE 'Threads_connected'").Scan(&name, &threads); err != nil {
		t.Fatal(err)
	}
	if threads-1 != total {
		t.Logf("Threads_connected %d, processlist %d (+1 monitor)", threads, total)
	}
	return threads - 1, busy
}

// saturate has 24 administrators' requests run at once a few times, so that the pool holds as many
// idle connections as it keeps (16): measured after it, a connection count above that cap is a
// connection something still holds.
func saturate(s *server) {
	for round := 0; round < 3; round++ {
		var wg sync.WaitGroup
		for i := 0; i < 24; i++ {
			wg.Add(1)
			go func() {
				defer wg.Done()
				s.call(context.Background(), "GET", "/wp-json/tribe/events/v1/events?status=draft&search=a&per_page=50", "admin", nil)
			}()
		}
		wg.Wait()
	}
	client.CloseIdleConnections()
}

// settled waits until the server has no request in flight and its connections are idle, and
// returns the non-watcher goroutines and calendard's connections.
func settled(t *testing.T, s *server, monitor *sql.DB, wantOther int) (other, conns, busy int) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for {
		client.CloseIdleConnections()
		_, other = goroutineCounts(t, s)
		conns, busy = dbConnections(t, monitor)
		if (wantOther < 0 || other <= wantOther) && busy == 0 && conns <= poolIdleCap || time.Now().After(deadline) {
			return other, conns, busy
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// checkOutage judges the answers of requests made while the database was away.
func checkOutage(t *testing.T, what string, outs []outcome, down, up time.Time) (during int, fast time.Duration) {
	t.Helper()
	var took []time.Duration
	served := map[string]int{}
	for _, o := range outs {
		d := o.end.Sub(o.start)
		if o.err != nil {
			t.Errorf("%s: %s got no answer: %v", what, o.kind, o.err)
			continue
		}
		if o.status >= 500 && !(o.status == 503 && o.code == "service_unavailable") {
			t.Errorf("%s: %s answered %d %s", what, o.kind, o.status, o.code)
		}
		// A request has the deadline twice: for authentication (and its body), then for its handler.
		if d > 2*faultDBTimeout+faultMargin {
			t.Errorf("%s: %s took %v (2 × deadline %v + %v)", what, o.kind, d.Round(time.Millisecond), faultDBTimeout, faultMargin)
		}
		// Requests made entirely while the database was away.
		if o.start.After(down.Add(50*time.Millisecond)) && o.end.Before(up) {
			during++
			if o.status == 503 {
				took = append(took, d)
				if d > faultDBTimeout+faultMargin {
					t.Errorf("%s: %s answered 503 after %v (deadline %v + %v)", what, o.kind, d.Round(time.Millisecond), faultDBTimeout, faultMargin)
				}
			} else {
				served[o.kind]++
				if o.kind == "create" || o.kind == "update" {
					t.Errorf("%s: a %s answered %d while the database was away", what, o.kind, o.status)
				}
			}
		}
	}
	if len(took) == 0 {
		t.Errorf("%s: no 503 while the database was away", what)
		return during, 0
	}
	slices.Sort(took)
	t.Logf("%s: %d requests while the database was away: %d × 503 service_unavailable (p50 %v, max %v), answered from memory %v",
		what, during, len(took), took[len(took)/2].Round(time.Millisecond), took[len(took)-1].Round(time.Millisecond), served)
	return during, took[len(took)-1]
}

// recovery returns how long after up the first read and the first write succeeded.
func recovery(t *testing.T, what string, outs []outcome, up time.Time) {
	t.Helper()
	firstRead, firstWrite := time.Duration(-1), time.Duration(-1)
	for _, o := range outs {
		if o.start.Before(up) || o.err != nil {
			continue
		}
		d := o.end.Sub(up)
		if o.kind == "admin read" && o.status == 200 && (firstRead < 0 || d < firstRead) {
			firstRead = d
		}
		if o.kind == "create" && o.status == 201 && (firstWrite < 0 || d < firstWrite) {
			firstWrite = d
		}
	}
	if firstRead < 0 || firstRead > recoveryBound || firstWrite < 0 || firstWrite > recoveryBound {
		t.Errorf("%s: first authenticated read %v, first write %v after the database came back, want both within %v", what, firstRead, firstWrite, recoveryBound)
		for _, o := range outs {
			if !o.start.Before(up) && (o.kind == "create" || o.kind == "admin read") {
				t.Logf("  %s started %v after: %d %s %v, took %v", o.kind, o.start.Sub(up).Round(time.Millisecond), o.status, o.code, o.err, o.end.Sub(o.start).Round(time.Millisecond))
			}
		}
		return
	}
	t.Logf("%s: answering again %v (reads) and %v (writes) after the database came back", what, firstRead.Round(time.Millisecond), firstWrite.Round(time.Millisecond))
}

func TestMariaDBFaultsUnderLoad(t *testing.T) {
	t.Parallel() // with the other tests of this package but the hostile requests, which measure memory alone
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
	spec := "mysql://" + m.DSN("wp")
	s := startServer(t, spec, map[string]string{"CALENDAR_DB_TIMEOUT": faultDBTimeout.String()})
	monitor, err := sql.Open("mysql", m.DSN("wp"))
	if err != nil {
		t.Fatal(err)
	}
	monitor.SetMaxOpenConns(1)
	defer monitor.Close()
	raw := openSpec(t, spec)
	raw.SetMaxIdleConns(0) // the test's own reads keep no connection for MariaDB to count
	l := &loadMix{s: s, events: queryStrings(t, raw, "SELECT CAST(ID AS CHAR) FROM wp_posts WHERE post_type = 'tribe_events' AND post_status = 'publish' ORDER BY ID LIMIT 40")}

	// Warm up, then the baseline: goroutines and connections at rest after a saturating burst.
	slow := 0
	for _, o := range l.loadFor(12, 2*time.Second) {
		if o.status == 503 && o.code == "service_unavailable" {
			slow++ // the deadline passed on a loaded machine: an answer, in time
			continue
		}
		if o.err != nil || o.status >= 400 {
			t.Fatalf("warm-up: %s: %d %s %v after %v\n%s", o.kind, o.status, o.code, o.err, o.end.Sub(o.start), s.log.String())
		}
	}
	if slow > 0 {
		t.Logf("warm-up: %d requests passed the %v deadline on a healthy database (machine load)", slow, faultDBTimeout)
	}
	saturate(s)
	baseOther, baseConns, _ := settled(t, s, monitor, -1)
	baseAll, _ := goroutineCounts(t, s)
	t.Logf("at rest before the faults: %d goroutines (%d besides the driver's connection watchers), %d connections on MariaDB", baseAll, baseOther, baseConns)

	faults := []struct {
		name       string
		down, back func() error
		away       time.Duration
	}{
		{"stalled (SIGSTOP)", m.Pause, func() error { return m.Signal(syscall.SIGCONT) }, 4 * time.Second},
		// An orderly shutdown (the server refuses connections once it returns), then a start on the
		// same data directory and port.
		{"stopped", func() error { m.Stop(); return nil }, m.Restart, 3 * time.Second},
	}
	for _, f := range faults {
		t.Run(f.name, func(t *testing.T) {
			stop := make(chan struct{})
			wg := l.run(12, stop)
			time.Sleep(time.Second)
			if err := f.down(); err != nil {
				t.Fatal(err)
			}
			down := time.Now()
			time.Sleep(f.away)
			if err := f.back(); err != nil {
				t.Fatal(err)
			}
			up := time.Now() // answering again (mariadbd is resumed, or started and accepting)
			// The load runs on for the whole recovery bound, so that a recovery within it is seen.
			time.Sleep(recoveryBound)
			close(stop)
			wg.Wait()
			outs := l.take()
			checkOutage(t, f.name, outs, down, up)
			recovery(t, f.name, outs, up)

			// A refused write is stored only when its answer says it may be: data.committed true (the
			// read-back failed after the commit) or null (the COMMIT went out unanswered, as for a write
			// whose statements ran once the database came back and whose deadline passed at the
			// commit). A write answered while the database was still away that started after it went
			// away cannot have committed at all. Every create answered 201 is stored: each create and
			// update sent a title of its own.
			stored := map[string]bool{}
			for _, title := range queryStrings(t, raw, "SELECT post_title FROM wp_posts WHERE post_type = 'tribe_events' AND (post_title LIKE 'Fault load %' OR post_title LIKE 'Updated under load %')") {
				stored[title] = true
			}
			writes, refused, ambiguous := 0, 0, 0
			for _, o := range outs {
				if o.title == "" {
					continue
				}
				writes++
				if o.err != nil || o.status >= 300 {
					refused++
				}
				if stored[o.title] && (o.err != nil || o.status >= 300) {
					when := fmt.Sprintf("started %v after the database went away, answered after %v (%v after it came back)",
						o.start.Sub(down).Round(time.Millisecond), o.end.Sub(o.start).Round(time.Millisecond), o.end.Sub(up).Round(time.Millisecond))
					switch {
					case o.start.After(down) && o.end.Before(up):
						t.Errorf("%s %q is stored, though it was answered before the database came back: %s; %d %s %s %v", o.kind, o.title, when, o.status, o.code, o.data, o.err)
					case !mayBeStored(o):
						t.Errorf("%s %q is stored, yet its answer says it is not (no data.committed): %s; %d %s %s %v", o.kind, o.title, when, o.status, o.code, o.data, o.err)
					default:
						ambiguous++
						t.Logf("%s %q stored and answered %d %s %s: %s", o.kind, o.title, o.status, o.code, o.data, when)
					}
				}
				if o.kind == "create" && o.status == 201 && !stored[o.title] {
					t.Errorf("create %q answered 201 is not stored", o.title)
				}
			}
			t.Logf("%s: %d writes, %d refused, %d of those stored as their answer said they might be", f.name, writes, refused, ambiguous)

			saturate(s)
			other, conns, busy := settled(t, s, monitor, baseOther+2)
			all, _ := goroutineCounts(t, s)
			t.Logf("at rest after: %d goroutines (%d besides watchers; %d before), %d connections on MariaDB (%d before), %d busy",
				all, other, baseOther, conns, baseConns, busy)
			if other > baseOther+2 {
				t.Errorf("%d goroutines besides the driver's watchers, %d before: leaked\n%s", other, baseOther, s.goroutineDump())
			}
			if conns > poolIdleCap || busy > 0 {
				t.Errorf("%d connections on MariaDB (%d busy), more than the pool keeps idle (%d): leaked", conns, busy, poolIdleCap)
			}
		})
	}
	// While the database is away the service logs, as errors, what it could not load for a request
	// (site options, the caller's account); anything else logged as an error (a 500's "request
	// failed") or any panic fails the test.
	s.checkLog(t, `msg="loading site options"`, `msg=authenticating`, `msg="health check: database unavailable"`)
}

// mayBeStored reports whether a refused write's answer allows that it is stored: 503 with
// data.committed true (stored) or null (unknown).
func mayBeStored(o outcome) bool {
	if o.err != nil || o.status != 503 {
		return false
	}
	var data map[string]any
	if json.Unmarshal([]byte(o.data), &data) != nil {
		return false
	}
	c, ok := data["committed"]
	return ok && (c == nil || c == true)
}
