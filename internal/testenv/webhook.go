package testenv

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"sync"
	"testing"
	"time"
)

// Delivery is one request a Receiver got.
type Delivery struct {
	ID, Timestamp, Signature string
	Body                     []byte
	At                       time.Time
}

// Receiver is a real webhook receiver: an HTTP server on a fixed loopback port, which can go down
// and come back on the same address.
type Receiver struct {
	Addr string
	// answer gives the status of the n-th request (from 1); nil: 200.
	answer func(n int, d Delivery) int
	mu     sync.Mutex
	got    []Delivery
	srv    *http.Server
}

// StartReceiver starts a receiver on a free port; it stops with the test.
func StartReceiver(t testing.TB, answer func(n int, d Delivery) int) *Receiver {
	t.Helper()
	r := &Receiver{answer: answer}
	err := OnFreePort(func(port int) error {
		r.Addr = "127.0.0.1:" + strconv.Itoa(port)
		return r.Up()
	})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(r.Down)
	return r
}

// URL is the receiver's address, with a token in its query that must never be logged.
func (r *Receiver) URL() string { return "http://" + r.Addr + "/hook?token=secret-token-in-query" }

// Up (re)starts the receiver on its address.
func (r *Receiver) Up() error {
	ln, err := net.Listen("tcp", r.Addr)
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

// Down closes the receiver: connections are refused until Up.
func (r *Receiver) Down() {
	r.mu.Lock()
	srv := r.srv
	r.srv = nil
	r.mu.Unlock()
	if srv != nil {
		_ = srv.Close()
	}
}

func (r *Receiver) serve(w http.ResponseWriter, req *http.Request) {
	body, _ := io.ReadAll(req.Body)
	d := Delivery{ID: req.Header.Get("webhook-id"), Timestamp: req.Header.Get("webhook-timestamp"),
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

// Deliveries are the requests received so far, in order.
func (r *Receiver) Deliveries() []Delivery {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]Delivery(nil), r.got...)
}

// Unique is ds deduplicated by webhook-id, in the order first seen.
func Unique(ds []Delivery) []Delivery {
	seen := map[string]bool{}
	var out []Delivery
	for _, d := range ds {
		if !seen[d.ID] {
			seen[d.ID] = true
			out = append(out, d)
		}
	}
	return out
}

// Verified is what the official Standard Webhooks library made of a delivery.
type Verified struct {
	OK      bool            `json:"ok"`
	Error   string          `json:"error"`
	Payload json.RawMessage `json:"payload"`
}

// VerifyStandardWebhooks checks deliveries signed with secret using npm's standardwebhooks, in
// dir (webhook/testdata/standardwebhooks, installed there from its lock file when missing).
func VerifyStandardWebhooks(t testing.TB, dir, secret string, ds []Delivery) []Verified {
	t.Helper()
	node, err := exec.LookPath("node")
	if err != nil {
		t.Fatal("node is not installed (apt-get install -y nodejs npm): standardwebhooks cannot verify the signatures")
	}
	if dir, err = filepath.Abs(dir); err != nil {
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
	in := []msg{}
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
	var res []Verified
	if err := json.Unmarshal(out, &res); err != nil {
		t.Fatalf("verify.cjs printed %q: %v", out, err)
	}
	return res
}
