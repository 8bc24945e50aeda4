package webhook

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"log/slog"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/calendard/calendard/internal/testenv"
	"github.com/calendard/calendard/wpdb"
)

// testSecret is a whsec_ secret of 32 bytes.
var testSecret = "whsec_" + base64.StdEncoding.EncodeToString([]byte("0123456789abcdef0123456789abcdef"))

// payload decodes a delivery's body.
func payload(t *testing.T, d testenv.Delivery) Payload {
	t.Helper()
	var p Payload
	if err := json.Unmarshal(d.Body, &p); err != nil {
		t.Fatalf("body %q: %v", d.Body, err)
	}
	return p
}

// waitFor polls cond until it holds or the deadline passes.
func waitFor(t *testing.T, what string, within time.Duration, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(within)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out after %v waiting for %s", within, what)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// memJournal is an in-memory journal with the store's semantics (Seq from 1, oldest, epoch,
// wake-ups), for the dispatcher's own tests; the served tests read the real one.
type memJournal struct {
	mu      sync.Mutex
	epoch   string
	entries []Entry
	next    int64
	pruned  int64 // the newest seq dropped
	wake    chan struct{}
}

func newMemJournal(epoch string) *memJournal {
	return &memJournal{epoch: epoch, next: 1, wake: make(chan struct{}, 1)}
}

func (j *memJournal) add(resource string, id int64, status string, deleted bool) int64 {
	j.mu.Lock()
	e := Entry{Seq: j.next, Resource: resource, ID: id, Status: status, Deleted: deleted, At: time.Now()}
	j.next++
	j.entries = append(j.entries, e)
	j.mu.Unlock()
	select {
	case j.wake <- struct{}{}:
	default:
	}
	return e.Seq
}

// dropThrough forgets the entries up to seq, as the journal's retention does.
func (j *memJournal) dropThrough(seq int64) {
	j.mu.Lock()
	defer j.mu.Unlock()
	for len(j.entries) > 0 && j.entries[0].Seq <= seq {
		j.entries = j.entries[1:]
	}
	j.pruned = max(j.pruned, seq)
}

func (j *memJournal) SyncSince(_ context.Context, after int64, limit int) ([]Entry, error) {
	j.mu.Lock()
	defer j.mu.Unlock()
	var out []Entry
	for _, e := range j.entries {
		if e.Seq > after && len(out) < limit {
			out = append(out, e)
		}
	}
	return out, nil
}

func (j *memJournal) SyncHead(context.Context) (string, int64, int64, error) {
	j.mu.Lock()
	defer j.mu.Unlock()
	return j.epoch, j.next - 1, j.pruned, nil
}

func (j *memJournal) SyncWake() <-chan struct{} { return j.wake }

// sqliteCursors opens the cursor table in a fresh SQLite store of the test's.
func sqliteCursors(t *testing.T) *wpdb.WebhookCursors {
	t.Helper()
	db, err := wpdb.Open("sqlite://"+filepath.Join(t.TempDir(), "hooks.db"), "wp_")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	return db.WebhookCursors()
}

// mariadbCursors opens the cursor table in a fresh MariaDB database of the test's.
func mariadbCursors(t *testing.T) *wpdb.WebhookCursors {
	t.Helper()
	m := testenv.SharedMariaDB(t)
	name := testenv.DBName("hooks", t)
	if err := m.CreateDatabase(context.Background(), name); err != nil {
		t.Fatal(err)
	}
	db, err := wpdb.Open("mysql://"+m.DSN(name), "wp_")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	return db.WebhookCursors()
}

// stores are the two cursor stores, each test's own.
var stores = []struct {
	name string
	open func(t *testing.T) *wpdb.WebhookCursors
}{{"sqlite", sqliteCursors}, {"mariadb", mariadbCursors}}

// running is a started dispatcher.
type running struct {
	d       *Dispatcher
	metrics *Metrics
	logs    *testenv.SyncBuffer
	cancel  context.CancelFunc
	done    chan struct{}
}

// stop ends the dispatcher and waits for it.
func (r *running) stop() {
	r.cancel()
	<-r.done
}

func itemURL(_ context.Context, resource string, id int64) (string, error) {
	return fmt.Sprintf("http://site.test/wp-json/tribe/events/v1/%s/%d", resource, id), nil
}

// startDispatcher runs a dispatcher until the test ends (or stop).
func startDispatcher(t *testing.T, o Options) *running {
	t.Helper()
	r := &running{logs: &testenv.SyncBuffer{}, metrics: NewMetrics(prometheus.NewRegistry()), done: make(chan struct{})}
	if o.ItemURL == nil {
		o.ItemURL = itemURL
	}
	o.Logger = slog.New(slog.NewTextHandler(r.logs, nil))
	o.Metrics = r.metrics
	if o.Poll == 0 {
		o.Poll = 50 * time.Millisecond
	}
	d, err := New(o)
	if err != nil {
		t.Fatal(err)
	}
	r.d = d
	ctx, cancel := context.WithCancel(context.Background())
	r.cancel = cancel
	go func() { d.Run(ctx); close(r.done) }()
	t.Cleanup(r.stop)
	return r
}

// endpoint is a test endpoint of the receiver with short retries.
func endpoint(t *testing.T, r *testenv.Receiver) Endpoint {
	t.Helper()
	key, err := DecodeSecret(testSecret)
	if err != nil {
		t.Fatal(err)
	}
	return Endpoint{URL: r.URL(), Secret: key, Timeout: 5 * time.Second, RetryMin: 20 * time.Millisecond, RetryMax: 2 * time.Second}
}
