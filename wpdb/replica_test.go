package wpdb

import (
	"context"
	"io"
	"net"
	"sync"
	"testing"
	"time"

	"github.com/calendard/calendard/internal/testenv"
)

// stallProxy forwards TCP connections to a server until stall is called; from then on it closes
// the connections it forwarded and accepts new ones without ever answering, as a replica whose
// host went away without a reset, or whose name the DNS is slow to refuse, looks to a client.
type stallProxy struct {
	l      net.Listener
	target string

	mu      sync.Mutex
	stalled bool
	conns   []net.Conn
}

func newStallProxy(t *testing.T, target string) *stallProxy {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	p := &stallProxy{l: l, target: target}
	t.Cleanup(func() {
		l.Close()
		p.mu.Lock()
		defer p.mu.Unlock()
		for _, c := range p.conns {
			c.Close()
		}
	})
	go p.serve()
	return p
}

func (p *stallProxy) serve() {
	for {
		c, err := p.l.Accept()
		if err != nil {
			return
		}
		p.mu.Lock()
		p.conns = append(p.conns, c)
		stalled := p.stalled
		p.mu.Unlock()
		if stalled {
			continue // held open, never answered
		}
		s, err := net.Dial("tcp", p.target)
		if err != nil {
			c.Close()
			continue
		}
		p.mu.Lock()
		p.conns = append(p.conns, s)
		p.mu.Unlock()
		go func() { _, _ = io.Copy(s, c); s.Close() }()
		go func() { _, _ = io.Copy(c, s); c.Close() }()
	}
}

// stall closes every connection forwarded so far and answers no new one.
func (p *stallProxy) stall() {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.stalled = true
	for _, c := range p.conns {
		c.Close()
	}
	p.conns = nil
}

// A replica that stops answering, without refusing, while reads use it: the next read makes a new
// connection to it, which never completes. That connection gets no more than the wait bound
// (ReplicaOptions.MaxLag, at most 1s): the read then goes to the primary and succeeds, well within
// its own deadline, instead of waiting on the replica until that deadline and failing.
func TestReplicaThatStopsAnsweringCostsAReadTheWaitBoundOnly(t *testing.T) {
	rep := testenv.NewReplication(t)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	if err := rep.Primary.CreateDatabase(ctx, "wp"); err != nil {
		t.Fatal(err)
	}
	db, err := OpenMySQL(rep.Primary.DSN("wp"), "wp_")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if err := db.CreateTables(ctx); err != nil {
		t.Fatal(err)
	}
	if err := rep.WaitReplicated(ctx, time.Minute); err != nil {
		t.Fatal(err)
	}
	proxy := newStallProxy(t, rep.Replica.Addr)
	replica := rep.Replica.Server
	replica.Addr = proxy.l.Addr().String()
	if err := db.UseReplicas([]string{replica.DSN("wp")}, ReplicaOptions{MaxLag: 5 * time.Second}); err != nil {
		t.Fatal(err)
	}
	for deadline := time.Now().Add(time.Minute); ; time.Sleep(50 * time.Millisecond) {
		if rs, _ := db.Replicas(); rs[0].Up {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("the replica never came up")
		}
	}
	if _, err := db.Options(ctx, "siteurl"); err != nil {
		t.Fatal(err)
	}
	if rs, _ := db.Replicas(); rs[0].Reads == 0 {
		t.Fatal("the read did not go to the replica")
	}

	proxy.stall()
	// The request's deadline, generous: the read must not use it up.
	const deadline = 15 * time.Second
	rctx, rcancel := context.WithTimeout(ctx, deadline)
	defer rcancel()
	start := time.Now()
	_, err = db.Options(rctx, "siteurl")
	took := time.Since(start)
	if err != nil {
		t.Fatalf("a read right after the replica stopped answering: %v after %s (deadline %s)", err, took.Round(time.Millisecond), deadline)
	}
	if _, primary := db.Replicas(); primary == 0 {
		t.Error("the read was not retried on the primary")
	}
	t.Logf("read answered by the primary after %s", took.Round(time.Millisecond))
}
