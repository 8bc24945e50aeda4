package webhook

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/calendard/calendard/internal/testenv"
	"github.com/calendard/calendard/wpdb"
)

// testSecret is a whsec_ secret of 32 bytes.
var testSecret = "whsec_" + base64.StdEncoding.EncodeToString([]byte("0123456789abcdef0123456789abcdef"))

// delivery is one request a receiver got.
type delivery struct {
	ID, Timestamp, Signature string
	Body                     []byte
	At                       time.Time
}

func (d delivery) payload(t *testing.T) Payload {
	t.Helper()
	var p Payload
	if err := json.Unmarshal(d.Body, &p); err != nil {
		t.Fatalf("body %q: %v", d.Body, err)
	}
	return p
}

// receiver is a real HTTP server on a fixed loopback port, which can go down and come back on the
// same address.
type receiver struct {
	addr string
	// answer gives the status of the n-th request (from 1); nil: 200.
	answer func(n int, d delivery) int
	mu     sync.Mutex
	got    []delivery
	srv    *http.Server
}

func startReceiver(t *testing.T, answer func(n int, d delivery) int) *receiver {
	t.Helper()
	r := &receiver{answer: answer}
	err := testenv.OnFreePort(func(port int) error {
		r.addr = "127.0.0.1:" + strconv.Itoa(port)
		return r.up()
	})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(r.down)
	return r
}

func (r *receiver) url() string { return "http://" + r.addr + "/hook?token=secret-token-in-query" }

func (r *receiver) up() error {
	ln, err := net.Listen("tcp", r.addr)
	if err != nil {
		return err
	}
	srv := &http.Server{Handler: http.HandlerFunc(r.serve)}
	r.mu.Lock()
	r.srv = srv
	r.mu.Unlock()
	go func() { _ = srv.Serve(ln) }()
	return nil
}

func (r *receiver) down() {
	r.mu.Lock()
	srv := r.srv
	r.srv = nil
	r.mu.Unlock()
	if srv != nil {
		_ = srv.Close()
	}
}

func (r *receiver) serve(w http.ResponseWriter, req *http.Request) {
	body, _ := io.ReadAll(req.Body)
	d := delivery{ID: req.Header.Get("webhook-id"), Timestamp: req.Header.Get("webhook-timestamp"),
		Signature: req.Header.Get("webhook-signature"), Body: body, At: time.Now()}
	r.mu.Lock()
	r.got = append(r.got, d)
	n := len(r.got)
	r.mu.Unlock()
	status := http.StatusOK
	if r.answer != nil {
		status = r.answer(n, d)
	}
	w.WriteHeader(status)
}

func (r *receiver) deliveries() []delivery {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]delivery(nil), r.got...)
}

// unique is the deliveries deduplicated by webhook-id, in the order first seen.
func unique(ds []delivery) []delivery {
	seen := map[string]bool{}
	var out []delivery
	for _, d := range ds {
		if !seen[d.ID] {
			seen[d.ID] = true
			out = append(out, d)
		}
	}
	return out
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
func endpoint(t *testing.T, r *receiver) Endpoint {
	t.Helper()
	key, err := DecodeSecret(testSecret)
	if err != nil {
		t.Fatal(err)
	}
	return Endpoint{URL: r.url(), Secret: key, Timeout: 5 * time.Second, RetryMin: 20 * time.Millisecond, RetryMax: 2 * time.Second}
}

// verified is what the official Standard Webhooks library made of a delivery.
type verified struct {
	OK      bool            `json:"ok"`
	Error   string          `json:"error"`
	Payload json.RawMessage `json:"payload"`
}

// verifyJS checks deliveries with npm's standardwebhooks (installed into
// testdata/standardwebhooks from its lock file), signed with secret.
func verifyJS(t *testing.T, secret string, ds []delivery) []verified {
	t.Helper()
	node, err := exec.LookPath("node")
	if err != nil {
		t.Fatal("node is not installed (apt-get install -y nodejs npm): standardwebhooks cannot verify the signatures")
	}
	dir, err := filepath.Abs(filepath.Join("testdata", "standardwebhooks"))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(dir, "node_modules", "standardwebhooks", "package.json")); err != nil {
		npm, err := exec.LookPath("npm")
		if err != nil {
			t.Fatal("npm is not installed: cannot install standardwebhooks")
		}
		cmd := exec.Command(npm, "ci", "--no-audit", "--no-fund")
		cmd.Dir = dir
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("npm ci (offline? standardwebhooks comes from the npm registry): %v\n%s", err, out)
		}
	}
	type msg struct {
		Secret  string            `json:"secret"`
		Headers map[string]string `json:"headers"`
		Body    string            `json:"body"`
	}
	var in []msg
	for _, d := range ds {
		in = append(in, msg{Secret: secret, Body: string(d.Body),
			Headers: map[string]string{"webhook-id": d.ID, "webhook-timestamp": d.Timestamp, "webhook-signature": d.Signature}})
	}
	b, _ := json.Marshal(in)
	cmd := exec.Command(node, "verify.cjs")
	cmd.Dir = dir
	cmd.Stdin = bytes.NewReader(b)
	out, err := cmd.Output()
	if err != nil {
		var ee *exec.ExitError
		if errors.As(err, &ee) {
			t.Fatalf("verify.cjs: %v\n%s", err, ee.Stderr)
		}
		t.Fatal(err)
	}
	var res []verified
	if err := json.Unmarshal(out, &res); err != nil {
		t.Fatalf("verify.cjs printed %q: %v", out, err)
	}
	return res
}
