package wpdb

import (
	"context"
	"fmt"
	"io"
	"net"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/go-sql-driver/mysql"

	"github.com/calendard/calendard"
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
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	rep, db := replicatedTables(t, ctx)
	proxy := newStallProxy(t, rep.Replica.Addr)
	replica := rep.Replica.Server
	replica.Addr = proxy.l.Addr().String()
	if err := db.UseReplicas([]string{replica.DSN("wp")}, ReplicaOptions{MaxLag: 5 * time.Second}); err != nil {
		t.Fatal(err)
	}
	replicaServesReads(t, ctx, db)

	proxy.stall()
	// The request's deadline, generous: the read must not use it up.
	const deadline = 15 * time.Second
	rctx, rcancel := context.WithTimeout(ctx, deadline)
	defer rcancel()
	start := time.Now()
	_, err := db.Options(rctx, "siteurl")
	took := time.Since(start)
	if err != nil {
		t.Fatalf("a read right after the replica stopped answering: %v after %s (deadline %s)", err, took.Round(time.Millisecond), deadline)
	}
	if _, primary := db.Replicas(); primary == 0 {
		t.Error("the read was not retried on the primary")
	}
	t.Logf("read answered by the primary after %s", took.Round(time.Millisecond))
}

// blackholeResolver resolves through a DNS server that never answers, as a container's resolver
// does for a stopped container's name when the engine's DNS cannot reach an upstream: Go's own
// resolver, so the lookup is shared between callers (singleflight) and waits its own timeouts.
func blackholeResolver(t *testing.T) *net.Resolver {
	t.Helper()
	pc, err := net.ListenPacket("udp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { pc.Close() })
	return &net.Resolver{PreferGo: true, Dial: func(ctx context.Context, _, _ string) (net.Conn, error) {
		var d net.Dialer
		return d.DialContext(ctx, "udp", pc.LocalAddr().String())
	}}
}

type requestKey struct{}

// A write request through an instance right after its replica stopped and the replica's name stopped
// resolving (TestFleetDocker's `stop replica`): the request's reads before and after its write
// (the first finds the replica up; the one after waits for the write's position on it) cost the
// wait bound each at most, then go to the primary, and the request succeeds within its deadline even
// though the DSN allows a connection 30 s. Once the replica is marked down, no call made for a
// request dials it at all (only the health checker does, in the background).
func TestReplicaWhoseNameStopsResolvingCostsAWriteRequestTheWaitBoundOnly(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	rep, db := replicatedTables(t, ctx)

	// The replica's connections go through dial: to its address while it "runs"; once stopped, its
	// connections are closed (as a stopped server's are) and its name no longer resolves in time.
	resolver := blackholeResolver(t)
	var (
		mu           sync.Mutex
		stopped      bool
		conns        []net.Conn
		requestDials atomic.Int64
	)
	network := "replicadns" + strings.ReplaceAll(t.Name(), "/", "_")
	mysql.RegisterDialContext(network, func(ctx context.Context, addr string) (net.Conn, error) {
		mu.Lock()
		down := stopped
		mu.Unlock()
		if down {
			if ctx.Value(requestKey{}) != nil {
				requestDials.Add(1)
			}
			d := net.Dialer{Resolver: resolver}
			return d.DialContext(ctx, "tcp", "replica.calendard.test:3306")
		}
		var d net.Dialer
		c, err := d.DialContext(ctx, "tcp", addr)
		if err == nil {
			mu.Lock()
			conns = append(conns, c)
			mu.Unlock()
		}
		return c, err
	})
	t.Cleanup(func() { mysql.DeregisterDialContext(network) })
	cfg, err := mysql.ParseDSN(rep.Replica.DSN("wp"))
	if err != nil {
		t.Fatal(err)
	}
	cfg.Net, cfg.Timeout = network, 30*time.Second
	if err := db.UseReplicas([]string{cfg.FormatDSN()}, ReplicaOptions{MaxLag: 5 * time.Second}); err != nil {
		t.Fatal(err)
	}
	replicaServesReads(t, ctx, db)

	mu.Lock()
	stopped = true
	for _, c := range conns {
		c.Close()
	}
	mu.Unlock()
	// A request's deadline, generous beside the wait bound (1s a call): it must not be used up.
	const deadline = 10 * time.Second
	request := func(value string) error {
		rctx, rcancel := context.WithTimeout(context.WithValue(ctx, requestKey{}, true), deadline)
		defer rcancel()
		if _, err := db.Options(rctx, "blogname"); err != nil {
			return fmt.Errorf("the read before the write: %w", err)
		}
		err := db.Write(rctx, nil, func(tx calendard.WriteTx) error { return tx.UpdateOption(rctx, "blogname", value) })
		if err != nil {
			return fmt.Errorf("the write: %w", err)
		}
		got, err := db.Options(rctx, "blogname")
		if err != nil {
			return fmt.Errorf("the read after the write: %w", err)
		}
		if got["blogname"] != value {
			return fmt.Errorf("the read after the write: blogname %q, want %q", got["blogname"], value)
		}
		return nil
	}
	start := time.Now()
	if err := request("first"); err != nil {
		t.Fatalf("a write request right after the replica stopped: %v after %s (deadline %s)", err, time.Since(start).Round(time.Millisecond), deadline)
	}
	t.Logf("the write request answered after %s, %d replica dials for it", time.Since(start).Round(time.Millisecond), requestDials.Load())
	if rs, _ := db.Replicas(); rs[0].Up {
		t.Fatalf("the replica is still up after a request failed to reach it: %+v", rs[0])
	}
	dials := requestDials.Load()
	for i := range 3 {
		if err := request(fmt.Sprintf("again %d", i)); err != nil {
			t.Fatalf("a write request with the replica marked down: %v", err)
		}
	}
	if n := requestDials.Load() - dials; n != 0 {
		t.Errorf("requests dialed the replica %d times after it was marked down", n)
	}
}

// replicaServesReads waits until db's one replica is up and checks that a read goes to it.
func replicaServesReads(t *testing.T, ctx context.Context, db *DB) {
	t.Helper()
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
}

// Reads that arrive together after a change wait for it on the replica in one MASTER_GTID_WAIT,
// not one each (each would hold a replica connection for up to the wait bound).
func TestReadsWaitingForOnePositionShareOneWait(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	rep, db := replicatedTables(t, ctx)
	if err := db.UseReplicas([]string{rep.Replica.DSN("wp")}, ReplicaOptions{MaxLag: 5 * time.Second}); err != nil {
		t.Fatal(err)
	}
	replicaServesReads(t, ctx, db)
	waits := func() int {
		t.Helper()
		var name string
		var n int
		if err := db.sql.rs.list[0].db.QueryRowContext(ctx, "SHOW GLOBAL STATUS LIKE 'Master_gtid_wait_count'").Scan(&name, &n); err != nil {
			t.Fatal(err)
		}
		return n
	}

	// The replica lags: a change on the primary it has not applied.
	if err := rep.StopApplying(ctx); err != nil {
		t.Fatal(err)
	}
	if err := rep.Primary.Exec(ctx, "INSERT INTO wp.wp_options (option_name, option_value, autoload) VALUES ('lagging', 'x', 'no')"); err != nil {
		t.Fatal(err)
	}
	pos, err := rep.Position(ctx)
	if err != nil {
		t.Fatal(err)
	}
	need, ok := parseGTIDPos(pos)
	if !ok {
		t.Fatalf("primary position %q", pos)
	}
	db.sql.rs.advance(need)
	before := waits()
	const readers = 16
	var wg sync.WaitGroup
	var failed atomic.Int32
	start := make(chan struct{})
	for range readers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			<-start
			if v, err := db.Options(ctx, "lagging"); err != nil || v["lagging"] != "x" {
				failed.Add(1)
			}
		}()
	}
	close(start)
	wg.Wait()
	if err := rep.StartApplying(ctx); err != nil {
		t.Fatal(err)
	}
	if n := failed.Load(); n > 0 {
		t.Errorf("%d of %d reads did not see the change", n, readers)
	}
	// One wait for all of them (a reader late enough to find the replica set aside waits none).
	if n := waits() - before; n < 1 || n > 2 {
		t.Errorf("%d reads waited in %d MASTER_GTID_WAIT calls, want 1", readers, n)
	}
}

// replicatedTables starts a primary and a replica, creates the calendar's tables on the primary
// and waits until the replica has them; db is the primary's.
func replicatedTables(t *testing.T, ctx context.Context) (*testenv.Replication, *DB) {
	t.Helper()
	rep := testenv.NewReplication(t)
	if err := rep.Primary.CreateDatabase(ctx, "wp"); err != nil {
		t.Fatal(err)
	}
	db, err := OpenMySQL(rep.Primary.DSN("wp"), "wp_")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	if err := db.CreateTables(ctx); err != nil {
		t.Fatal(err)
	}
	if err := rep.WaitReplicated(ctx, time.Minute); err != nil {
		t.Fatal(err)
	}
	return rep, db
}
