package wpdb

import (
	"context"
	"database/sql"
	"database/sql/driver"
	"errors"
	"fmt"
	"log/slog"
	"math/rand/v2"
	"sync"
	"sync/atomic"
	"time"

	"github.com/go-sql-driver/mysql"
	"golang.org/x/sync/singleflight"
)

// Read replicas (MariaDB or MySQL, GTID replication). Every statement outside a write transaction
// that is not an authentication read may go to a replica; the pool type below decides per
// statement, so the queries themselves do not know. A replica is used only when it has applied every primary
// position this instance knows of (its own writes' commits, the positions other instances
// announce with their changes, and the primary's position read whenever the change feed publishes
// a change it did not make): the first read after such a change waits for it on the replica
// (MASTER_GTID_WAIT on MariaDB, WAIT_FOR_EXECUTED_GTID_SET on MySQL), for a bounded time, then
// reads the primary and sets the replica aside until it has caught up. A health checker reads every
// replica's applied position (@@gtid_slave_pos, @@gtid_executed) and leaves out the ones that
// cannot be reached or have not applied, after MaxLag, a position the primary had. The primary's
// family is read at the first check; until then, and on a MySQL primary without gtid_mode=ON,
// reads go to the primary.

// ReplicaOptions configure read replicas.
type ReplicaOptions struct {
	// MaxLag is how long a replica may take to apply what the primary committed before it is left
	// out (default 5s). It also bounds a read's wait for a replica (at most 1s).
	MaxLag time.Duration
	// Check is the health check interval (default MaxLag/2, at most 1s).
	Check  time.Duration
	Logger *slog.Logger
}

// ReplicaStatus is a replica's state as the health checker last saw it (for metrics).
type ReplicaStatus struct {
	Addr  string // host:port
	Up    bool   // reads may go to it
	State string // "starting", "up", "down" or "lagging"
	Reads uint64 // statements and read transactions it served
}

// pool is the primary's connection pool, with the replicas reads may go to. Statements that
// write, transactions that are not read-only, connections (Conn) and Ping go to the primary.
type pool struct {
	*sql.DB
	rs *replicaSet // nil: no replicas, everything on the primary
}

// primary is the primary's pool, for reads that must not lag (authentication, the change feed).
func (p *pool) primary() *sql.DB { return p.DB }

// QueryContext runs a read on a replica that has every known write, else on the primary.
func (p *pool) QueryContext(ctx context.Context, q string, args ...any) (*sql.Rows, error) {
	db, r := p.reader(ctx)
	rows, err := db.QueryContext(ctx, q, args...)
	if err != nil && p.replicaFailed(ctx, r, err) {
		return p.DB.QueryContext(ctx, q, args...)
	}
	return rows, err
}

// QueryRowContext is QueryContext for one row.
func (p *pool) QueryRowContext(ctx context.Context, q string, args ...any) *sql.Row {
	db, r := p.reader(ctx)
	row := db.QueryRowContext(ctx, q, args...)
	if r != nil && p.replicaFailed(ctx, r, row.Err()) {
		return p.DB.QueryRowContext(ctx, q, args...)
	}
	return row
}

// BeginTx starts a read-only transaction on a replica (the event index's builds), any other on the
// primary.
func (p *pool) BeginTx(ctx context.Context, opts *sql.TxOptions) (*sql.Tx, error) {
	if opts == nil || !opts.ReadOnly {
		return p.DB.BeginTx(ctx, opts)
	}
	db, r := p.reader(ctx)
	tx, err := db.BeginTx(ctx, opts)
	if err != nil && p.replicaFailed(ctx, r, err) {
		return p.DB.BeginTx(ctx, opts)
	}
	return tx, err
}

// Close closes the replicas' pools and stops their health checker, then the primary's pool.
func (p *pool) Close() error {
	if p.rs != nil {
		p.rs.close()
	}
	return p.DB.Close()
}

// reader picks where a read goes: a usable replica with every known write, else the primary.
func (p *pool) reader(ctx context.Context) (*sql.DB, *replica) {
	if p.rs == nil {
		return p.DB, nil
	}
	if r := p.rs.pick(ctx); r != nil {
		r.reads.Add(1)
		return r.db, r
	}
	p.rs.primaryReads.Add(1)
	return p.DB, nil
}

// replicaFailed reports whether a read on replica r failed because the replica did (it is then
// left out, and the read goes to the primary).
func (p *pool) replicaFailed(ctx context.Context, r *replica, err error) bool {
	if r == nil || err == nil || ctx.Err() != nil || !connectionLost(err) {
		return false
	}
	p.rs.setState(r, stateDown, err)
	p.rs.primaryReads.Add(1)
	return true
}

type replicaState int

const (
	stateStarting replicaState = iota
	stateUp
	stateDown
	stateLagging
)

func (s replicaState) String() string { return [...]string{"starting", "up", "down", "lagging"}[s] }

type replica struct {
	addr  string
	db    *sql.DB
	reads atomic.Uint64
	up    atomic.Bool // state == stateUp, for the read path
	// Guarded by replicaSet.mu.
	state   replicaState
	applied position
	// pending is the oldest primary position seen that the replica had not applied, since when.
	pending      position
	pendingSince time.Time
	// stuck is a position a read waited for in vain: the replica stays out until it has it.
	stuck position
}

type replicaSet struct {
	primary      *sql.DB
	list         []*replica // in this instance's order of preference
	maxLag, wait time.Duration
	check        time.Duration
	log          *slog.Logger
	primaryReads atomic.Uint64
	// flavor is the primary's family, nil until the health checker has read it.
	flavor atomic.Pointer[flavor]
	// waits merges the reads that wait for the same position on the same replica into one
	// wait: after a change, every request of the moment would otherwise hold a replica
	// connection of its own in the same wait.
	waits singleflight.Group

	mu sync.Mutex
	// need is the highest primary position this instance knows of; known says it was learned
	// since the start or since a write's position could not be read (until then, reads go to
	// the primary).
	need  position
	known bool

	stop context.CancelFunc
	done chan struct{}
}

// UseReplicas makes reads go to the MariaDB or MySQL read replicas the DSNs name (same form as
// OpenMySQL's, without "mysql://"), from the first health check on. It starts the health checker, which Close
// stops. It is for a MySQL/MariaDB store only, and must be called before the store is used.
func (db *DB) UseReplicas(dsns []string, o ReplicaOptions) error {
	if db.dialect != MySQL {
		return errors.New("read replicas need a MySQL/MariaDB primary")
	}
	if len(dsns) == 0 {
		return nil
	}
	if o.MaxLag <= 0 {
		o.MaxLag = 5 * time.Second
	}
	if o.Check <= 0 {
		o.Check = min(o.MaxLag/2, time.Second)
	}
	if o.Logger == nil {
		o.Logger = slog.New(slog.DiscardHandler)
	}
	rs := &replicaSet{primary: db.sql.DB, maxLag: o.MaxLag, wait: min(o.MaxLag, time.Second), check: o.Check, log: o.Logger,
		done: make(chan struct{})}
	for _, dsn := range dsns {
		cfg, err := MySQLConfig(dsn)
		if err != nil {
			rs.closeReplicas()
			return err
		}
		conn, err := mysql.NewConnector(cfg)
		if err != nil {
			rs.closeReplicas()
			return err
		}
		pool := sql.OpenDB(boundedConnector{Connector: wpSessionConnector{conn}, limit: rs.wait})
		pool.SetMaxOpenConns(32)
		pool.SetMaxIdleConns(16)
		pool.SetConnMaxLifetime(5 * time.Minute)
		rs.list = append(rs.list, &replica{addr: cfg.Addr, db: pool})
	}
	// Each instance prefers its own replica, so a fleet spreads over them, and one instance's reads
	// never go back in time by moving between replicas while all are healthy.
	if n := len(rs.list); n > 1 {
		k := rand.IntN(n)
		rs.list = append(rs.list[k:], rs.list[:k]...)
	}
	db.sql.rs = rs
	ctx, cancel := context.WithCancel(context.Background())
	rs.stop = cancel
	go rs.run(ctx)
	return nil
}

// boundedConnector gives a new replica connection at most limit (the reads' wait bound) to be
// made: a replica that does not answer (its host gone without a reset, a name its DNS is slow to
// refuse, a server that accepts but never greets) then fails the read soon enough for it to go to
// the primary within the request's deadline, instead of using that deadline up.
type boundedConnector struct {
	driver.Connector
	limit time.Duration
}

func (c boundedConnector) Connect(ctx context.Context) (driver.Conn, error) {
	ctx, cancel := context.WithTimeout(ctx, c.limit)
	defer cancel()
	conn, err := c.Connector.Connect(ctx)
	if err != nil && ctx.Err() != nil {
		err = fmt.Errorf("connecting within %s: %w", c.limit, err)
	}
	return conn, err
}

// Replicas reports the replicas' states and the reads that went to the primary for want of a
// usable replica (nil, 0 without replicas).
func (db *DB) Replicas() ([]ReplicaStatus, uint64) {
	rs := db.sql.rs
	if rs == nil {
		return nil, 0
	}
	rs.mu.Lock()
	defer rs.mu.Unlock()
	out := make([]ReplicaStatus, len(rs.list))
	for i, r := range rs.list {
		out[i] = ReplicaStatus{Addr: r.addr, Up: r.state == stateUp, State: r.state.String(), Reads: r.reads.Load()}
	}
	return out, rs.primaryReads.Load()
}

func (rs *replicaSet) closeReplicas() {
	for _, r := range rs.list {
		_ = r.db.Close()
	}
}

func (rs *replicaSet) close() {
	rs.stop()
	<-rs.done
	rs.closeReplicas()
}

// pick returns the replica a read goes to, nil for the primary: the first usable one that has
// applied every known position, else the first usable one once it has, within the wait bound.
func (rs *replicaSet) pick(ctx context.Context) *replica {
	rs.mu.Lock()
	need, known := rs.need, rs.known
	var first *replica
	for _, r := range rs.list {
		if !r.up.Load() {
			continue
		}
		if covers(r.applied, need) {
			rs.mu.Unlock()
			return r
		}
		if first == nil {
			first = r
		}
	}
	rs.mu.Unlock()
	if !known || first == nil {
		return nil
	}
	if rs.waitFor(ctx, first, need) {
		return first
	}
	return nil
}

// waitFor waits, at most rs.wait, for r to apply need. A replica that does not is set aside until
// it has (the health checker sees it), so that the reads after this one do not wait for it too.
func (rs *replicaSet) waitFor(ctx context.Context, r *replica, need position) bool {
	fl := rs.flavor.Load()
	if fl == nil {
		return false
	}
	pos := need.String()
	flight := rs.waits.DoChan(r.addr+" "+pos, func() (any, error) {
		// Not bound to the request that started it (the others joined it): to the wait bound.
		wctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), rs.wait+2*time.Second)
		defer cancel()
		var res sql.NullInt64
		err := r.db.QueryRowContext(wctx, fl.waitSQL, pos, rs.wait.Seconds()).Scan(&res)
		return res, err
	})
	var res sql.NullInt64
	var err error
	select {
	case <-ctx.Done():
		return false // the request ended: nothing learned about the replica
	case out := <-flight:
		res, _ = out.Val.(sql.NullInt64)
		err = out.Err
	}
	rs.mu.Lock()
	defer rs.mu.Unlock()
	switch {
	case err == nil && res.Valid && res.Int64 == 0:
		r.applied = merged(r.applied, need)
		return true
	case err != nil && ctx.Err() != nil:
		return false // the request ended: nothing learned about the replica
	case err != nil && connectionLost(err):
		rs.setStateLocked(r, stateDown, err)
	default:
		r.stuck = need
		if err == nil {
			err = fmt.Errorf("it has not applied %s after %s", need, rs.wait)
		}
		rs.setStateLocked(r, stateLagging, err)
	}
	return false
}

// advance records a primary position this instance must not read behind of.
func (rs *replicaSet) advance(p position) {
	rs.mu.Lock()
	rs.need = merged(rs.need, p)
	rs.known = true
	rs.mu.Unlock()
}

// forget sends reads to the primary until a position is learned again: a write committed but its
// position could not be read.
func (rs *replicaSet) forget() {
	rs.mu.Lock()
	rs.known = false
	rs.mu.Unlock()
}

func (rs *replicaSet) setState(r *replica, s replicaState, err error) {
	rs.mu.Lock()
	rs.setStateLocked(r, s, err)
	rs.mu.Unlock()
}

// setStateLocked changes r's state and logs the change once.
func (rs *replicaSet) setStateLocked(r *replica, s replicaState, err error) {
	if r.state == s {
		return
	}
	r.state = s
	r.up.Store(s == stateUp)
	switch s {
	case stateUp:
		rs.log.Info("read replica in use", "replica", r.addr)
	case stateDown:
		rs.log.Warn("read replica unreachable: reading elsewhere until it is back", "replica", r.addr, "err", err)
	case stateLagging:
		rs.log.Warn("read replica lagging: reading elsewhere until it catches up", "replica", r.addr, "max_lag", rs.maxLag, "err", err)
	}
}

// run checks the replicas every rs.check until ctx ends.
func (rs *replicaSet) run(ctx context.Context) {
	defer close(rs.done)
	for {
		rs.checkAll(ctx)
		select {
		case <-ctx.Done():
			return
		case <-time.After(rs.check):
		}
	}
}

// checkAll reads the primary's position, then every replica's.
func (rs *replicaSet) checkAll(ctx context.Context) {
	cctx, cancel := context.WithTimeout(ctx, max(rs.check, 2*time.Second))
	defer cancel()
	fl := rs.flavor.Load()
	if fl == nil {
		var err error
		if fl, err = detectFlavor(cctx, rs.primary); err != nil {
			if _, ok := errors.AsType[unsupportedPrimaryError](err); ok {
				for _, r := range rs.list {
					rs.update(r, nil, err, nil, false)
				}
			}
			return // the primary is unreachable: the replicas' readings could not be compared
		}
		rs.flavor.Store(fl)
		rs.log.Info("read replicas: the primary is "+fl.name, "position", "@@"+fl.primaryVar, "applied", "@@"+fl.appliedVar)
	}
	primary, perr := fl.read(cctx, rs.primary, fl.primaryVar)
	if perr == nil {
		rs.mu.Lock()
		if !rs.known {
			rs.need, rs.known = merged(rs.need, primary), true
		}
		rs.mu.Unlock()
	}
	var wg sync.WaitGroup
	for _, r := range rs.list {
		wg.Go(func() {
			applied, err := fl.read(cctx, r.db, fl.appliedVar)
			if err != nil && ctx.Err() != nil {
				return
			}
			if err != nil && unknownVariable(err) {
				err = fmt.Errorf("not a %s replica (the primary is %s; replicas must be of its family): %w", fl.name, fl.name, err)
			}
			rs.update(r, applied, err, primary, perr == nil)
		})
	}
	wg.Wait()
}

// update applies one health reading of r.
func (rs *replicaSet) update(r *replica, applied position, err error, primary position, primaryKnown bool) {
	rs.mu.Lock()
	defer rs.mu.Unlock()
	if err != nil {
		rs.setStateLocked(r, stateDown, err)
		return
	}
	r.applied = merged(r.applied, applied)
	now := time.Now()
	if r.stuck != nil && covers(r.applied, r.stuck) {
		r.stuck = nil
	}
	if primaryKnown {
		switch {
		case covers(r.applied, primary):
			r.pending = nil
		case r.pending == nil || covers(r.applied, r.pending):
			r.pending, r.pendingSince = primary, now
		}
	}
	switch {
	case r.stuck != nil:
		rs.setStateLocked(r, stateLagging, fmt.Errorf("it has not applied %s yet", r.stuck))
	case r.pending != nil && now.Sub(r.pendingSince) > rs.maxLag:
		rs.setStateLocked(r, stateLagging, fmt.Errorf("it has not applied %s after %s", r.pending, now.Sub(r.pendingSince).Round(time.Millisecond)))
	case r.state == stateStarting && !primaryKnown:
		// The first reading without the primary's position cannot tell the lag: wait for one.
	default:
		rs.setStateLocked(r, stateUp, nil)
	}
}

// learnPosition reads the primary's position on q (the connection a write just committed on, or
// the pool) and makes it the least every later read must see. Without replicas it does nothing.
// It returns the position ("" when unknown).
func (db *DB) learnPosition(q queryer) string {
	rs := db.sql.rs
	if rs == nil {
		return ""
	}
	fl := rs.flavor.Load()
	if fl == nil {
		rs.forget()
		return ""
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	p, err := fl.read(ctx, q, fl.primaryVar)
	if err != nil {
		rs.forget()
		return ""
	}
	rs.advance(p)
	return p.String()
}

// notePosition takes a position another instance announced with its change.
func (db *DB) notePosition(s string) bool {
	rs := db.sql.rs
	if rs == nil {
		return true
	}
	fl := rs.flavor.Load()
	if fl == nil {
		return false
	}
	p, ok := fl.parse(s)
	if ok {
		rs.advance(p)
	}
	return ok
}
