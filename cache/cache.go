// Package cache keeps whole GET answers (the exact bytes and headers sent) in process memory or in
// Redis, so that a repeated request costs a lookup. Entries are stamped with the calendar's
// generation and are served only while it has not moved, so no answer outlives a change calendard
// can know about:
//
//   - memory: the generation is the local change feed's (wpdb.Store.Generation), which calendard's
//     writes and the watermark poll move.
//   - redis: the generation is a Redis counter shared by every instance. Each instance increments
//     it after every change its feed publishes (its own writes and what its watermark poll sees)
//     and announces the change on a pub/sub channel; a lookup reads the counter and the entry in
//     one MGET, so a write through one instance is seen by every other one on its next request,
//     and an instance that finds the counter ahead of what it has applied brings its own state
//     (the event index, cached options) up to date before answering.
//
// Redis trouble never breaks an answer: every call has a short timeout; on a failure the cache
// says Bypass (the caller answers from the database) until a background probe finds Redis again.
package cache

import (
	"context"
	"crypto/sha256"
	"encoding/base64"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/maypok86/otter/v2"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/redis/go-redis/v9"

	"github.com/calendard/calendard/wpdb"
)

// Mode selects where answers are kept.
type Mode int

const (
	Off Mode = iota
	Memory
	Redis
)

// ParseMode reads off|memory|redis.
func ParseMode(s string) (Mode, error) {
	switch s {
	case "off":
		return Off, nil
	case "memory":
		return Memory, nil
	case "redis":
		return Redis, nil
	}
	return Off, fmt.Errorf("must be off, memory or redis, got %q", s)
}

func (m Mode) String() string { return [...]string{"off", "memory", "redis"}[m] }

// Result says how a request was answered.
type Result uint8

const (
	Bypass Result = iota // not looked up (not cacheable, cache off, Redis away)
	Hit
	Miss
)

func (r Result) String() string { return [...]string{"BYPASS", "HIT", "MISS"}[r] }

// Feed is the one change feed (wpdb.Feed): the Redis cache announces what it publishes and applies
// what other instances announce.
type Feed interface {
	Subscribe(func(wpdb.Change))
	Publish(wpdb.Change)
}

// Options configure a Cache.
type Options struct {
	Mode     Mode
	RedisURL string        // redis://[user:pass@]host:port/db or rediss://
	Prefix   string        // Redis key prefix (one per site sharing a Redis)
	TTL      time.Duration // longest life of an entry
	MaxBytes int64         // memory: bound of the kept answers
	Timeout  time.Duration // redis: deadline of each call
	// Retry is how often a Redis found away is tried again (default 500 ms).
	Retry  time.Duration
	Logger *slog.Logger
	// Registerer receives the Redis metrics (nil: none).
	Registerer prometheus.Registerer

	// Generation is the local change feed's generation (wpdb.Store.Generation: the store must keep
	// its state in step with the database, CALENDAR_WATCH_INTERVAL > 0). Quiescent reports whether the store reflects every generation
	// up to the one read before it (wpdb.Store.Quiescent).
	Generation func() uint64
	Quiescent  func() bool
	Feed       Feed
	// Sync (redis) is the read barrier used while Redis cannot tell this instance of the others'
	// writes (wpdb.Feed.Sync): it returns once a watermark reading that started after the call has
	// been applied. A lookup calls it while Redis is away and when a Redis call fails, and the
	// probe calls it when it finds Redis again, before this instance trusts Redis. nil: none
	// (answers may then lag other instances' writes by the watch interval while Redis is away).
	Sync func(context.Context) error

	// Private says where answers to authenticated users are kept (default PrivateLocal: in this
	// process only, never in Redis).
	Private Private

	// Push (redis, 0: off) lets a hit in the in-process front trust the shared generation this
	// instance last learned instead of reading it: other instances' changes arrive on the pub/sub
	// channel at once, and the counter is read in the background every Push, which bounds how
	// late a lost announcement is seen. Off, every front hit reads the counter, so a write through
	// any instance is seen by the very next request anywhere, for one round trip per hit.
	Push time.Duration
}

// Private is where the answers of authenticated users may be kept. They are always keyed by the
// user (never served to anyone else); the choice is whether they may leave the process.
type Private int

const (
	PrivateLocal  Private = iota // in this process's memory only (in Redis mode: the in-process front)
	PrivateShared                // also in Redis, under hashed keys
	PrivateOff                   // not kept at all
)

// ParsePrivate reads local|shared|off.
func ParsePrivate(s string) (Private, error) {
	switch s {
	case "local":
		return PrivateLocal, nil
	case "shared":
		return PrivateShared, nil
	case "off":
		return PrivateOff, nil
	}
	return PrivateLocal, fmt.Errorf("must be local, shared or off, got %q", s)
}

// Cache is the response cache. A nil *Cache caches nothing.
type Cache struct {
	o   Options
	log *slog.Logger
	// mem holds the answers in memory mode, and is the in-process front of Redis in redis mode
	// (a hit there costs one shared read of the generation, no transfer). Keys are the request
	// descriptions themselves: equal keys are equal requests, whatever a hash would say.
	mem *otter.Cache[string, *Entry]

	// gen batches the reads of the shared generation (sharedGen).
	gen genBatcher

	// rdb is the client of the calls while Redis counts as up. go-redis stops dialing after as
	// many failed dials as its pool holds connections, until a background dial once a second
	// works; so the calls made while Redis is away (the probe, announcements) each use a client of
	// their own, and the probe's client becomes rdb when Redis answers again.
	rdb      atomic.Pointer[redis.Client]
	ro       *redis.Options
	resub    chan struct{} // rdb was replaced: the listener subscribes again
	genKey   string
	chanName string
	up       atomic.Bool
	applied  atomic.Uint64 // the shared generation this instance's state reflects
	syncMu   sync.Mutex    // orders increments and the application of remote generations
	wake     chan struct{}
	// connected: Redis answered once (recover's first call needs no reload; guarded by syncMu).
	connected bool
	dirty     atomic.Bool  // a local change could not be announced
	fails     atomic.Int32 // Redis calls failed in a row
	lastOK    atomic.Int64 // when a Redis call last worked (Unix ns, to 100 ms)
	synced    atomic.Int64 // push: when the background read of the counter last worked (Unix ns)
	cancel    context.CancelFunc
	done      sync.WaitGroup

	redisUp     prometheus.Gauge
	redisErrors prometheus.Counter
}

// New builds the cache; in Redis mode it starts probing Redis in the background and answers Bypass
// until the first probe succeeds (the service starts whether Redis is there or not).
func New(o Options) (*Cache, error) {
	if o.Mode == Off {
		return nil, nil
	}
	if o.Logger == nil {
		o.Logger = slog.Default()
	}
	if o.TTL <= 0 {
		o.TTL = 5 * time.Minute
	}
	if o.Retry <= 0 {
		o.Retry = 500 * time.Millisecond
	}
	if o.Generation == nil || o.Quiescent == nil {
		return nil, errors.New("cache: Generation and Quiescent are required")
	}
	if o.MaxBytes <= 0 {
		o.MaxBytes = 64 << 20
	}
	c := &Cache{o: o, log: o.Logger}
	c.mem = otter.Must(&otter.Options[string, *Entry]{
		MaximumWeight:    uint64(o.MaxBytes),
		Weigher:          func(k string, e *Entry) uint32 { return e.weight() + uint32(min(len(k), 1<<20)) },
		ExpiryCalculator: otter.ExpiryWriting[string, *Entry](o.TTL),
	})
	switch o.Mode {
	case Memory:
		return c, nil
	case Redis:
		return c, c.startRedis()
	}
	return nil, fmt.Errorf("cache: unknown mode %d", o.Mode)
}

// ParseRedisURL checks a redis:// or rediss:// URL.
func ParseRedisURL(u string) error {
	if !strings.HasPrefix(u, "redis://") && !strings.HasPrefix(u, "rediss://") {
		return fmt.Errorf("must be redis://[user:pass@]host:port/db or rediss://…, got %q", u)
	}
	_, err := redis.ParseURL(u)
	return err
}

func (c *Cache) startRedis() error {
	if c.o.Feed == nil {
		return errors.New("cache: redis mode needs the change feed")
	}
	ro, err := redis.ParseURL(c.o.RedisURL)
	if err != nil {
		return fmt.Errorf("CALENDAR_REDIS_URL: %w", err)
	}
	if c.o.Timeout <= 0 {
		c.o.Timeout = 50 * time.Millisecond
	}
	// Every call is bounded by the configured timeout and never retried: a slow Redis costs a
	// request at most that long, then the database answers.
	ro.DialTimeout, ro.ReadTimeout, ro.WriteTimeout = c.o.Timeout, c.o.Timeout, c.o.Timeout
	ro.PoolTimeout = c.o.Timeout
	ro.ContextTimeoutEnabled = true
	ro.MaxRetries = -1
	ro.DialerRetries, ro.DialerRetryTimeout = 1, c.o.Timeout
	ro.DisableIdentity = true
	// go-redis logs every failed dial itself; the cache logs once per change of state instead.
	redis.SetLogger(quietLogger{})
	c.ro = ro
	c.rdb.Store(c.newClient())
	c.resub = make(chan struct{}, 1)
	if c.o.Prefix == "" {
		c.o.Prefix = "calendard:"
	}
	c.genKey, c.chanName = c.o.Prefix+"gen", c.o.Prefix+"changes"
	c.wake = make(chan struct{}, 1)
	c.redisUp = prometheus.NewGauge(prometheus.GaugeOpts{Name: "calendard_cache_redis_up",
		Help: "1 while the Redis response cache answers, 0 while answers come from the database."})
	c.redisErrors = prometheus.NewCounter(prometheus.CounterOpts{Name: "calendard_cache_redis_errors_total",
		Help: "Redis calls that failed or timed out (each one answered from the database)."})
	if r := c.o.Registerer; r != nil {
		r.MustRegister(c.redisUp, c.redisErrors)
	}
	c.o.Feed.Subscribe(c.onLocalChange)
	ctx, cancel := context.WithCancel(context.Background())
	c.cancel = cancel
	c.done.Add(2)
	go c.probe(ctx)
	go c.listen(ctx)
	if c.o.Push > 0 {
		c.done.Add(1)
		go c.sync(ctx)
	}
	return nil
}

// sync reads the shared counter every Push (push mode), bringing this instance to it: an
// announcement lost on the pub/sub channel is made up for within one interval.
func (c *Cache) sync(ctx context.Context) {
	defer c.done.Done()
	t := time.NewTicker(c.o.Push)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
		if !c.up.Load() {
			continue
		}
		rctx, cancel := context.WithTimeout(ctx, c.o.Timeout)
		if _, err := c.sharedGen(rctx); err == nil {
			c.synced.Store(time.Now().UnixNano())
		}
		cancel()
	}
}

// frontGen is the shared generation a front hit is checked against: in push mode while the
// background reads work, the one this instance last learned; else one read now (sharedGen).
func (c *Cache) frontGen(ctx context.Context) (uint64, error) {
	if c.o.Push > 0 && time.Since(time.Unix(0, c.synced.Load())) < 2*c.o.Push {
		return c.applied.Load(), nil
	}
	return c.sharedGen(ctx)
}

// client is the client of the calls made while Redis counts as up.
func (c *Cache) client() *redis.Client { return c.rdb.Load() }

// newClient is a client with a pool of its own (no dial failure of another client counts).
func (c *Cache) newClient() *redis.Client {
	o := *c.ro
	return redis.NewClient(&o)
}

// replaceClient makes rc the client of the calls made while Redis counts as up. The one it
// replaces is closed once the calls that may still use it have timed out.
func (c *Cache) replaceClient(rc *redis.Client) {
	old := c.rdb.Swap(rc)
	select {
	case c.resub <- struct{}{}:
	default:
	}
	if old != nil && old != rc {
		time.AfterFunc(10*c.o.Timeout+time.Second, func() { _ = old.Close() })
	}
}

type quietLogger struct{}

func (quietLogger) Printf(context.Context, string, ...any) {}

// Close stops the background work and the Redis client.
func (c *Cache) Close() {
	if c == nil || c.client() == nil {
		return
	}
	c.cancel()
	c.done.Wait()
	_ = c.client().Close()
}

// Mode is the cache's mode (Off for nil).
func (c *Cache) Mode() Mode {
	if c == nil {
		return Off
	}
	return c.o.Mode
}

// Ticket carries what a lookup found out to the Put of the answer computed after a miss.
type Ticket struct {
	key      string
	gen      uint64 // the generation the answer will be kept under
	now      int64  // the second of the lookup
	localGen uint64
	keep     bool // the store was quiescent when the lookup read the generation
	private  bool
}

// Get looks up the answer kept under key (the request's normalised description). now is the
// second the request is answered in: an answer that depends on the clock is served only within
// the second it was computed in. private says the key is an authenticated user's. Hit returns the
// entry; Miss a ticket for Put; Bypass means the cache cannot be used now.
func (c *Cache) Get(ctx context.Context, key string, now int64, private bool) (*Entry, Ticket, Result) {
	if c == nil {
		return nil, Ticket{}, Bypass
	}
	synced := false
	if c.o.Mode == Redis && c.blind() {
		c.barrier(ctx)
		synced = true
	}
	if private && c.o.Private == PrivateOff {
		return nil, Ticket{}, Bypass
	}
	if c.o.Mode == Memory {
		gen := c.o.Generation()
		if e, ok := c.mem.GetIfPresent(key); ok && e.Stamp.Gen == gen && e.fresh(now) {
			return e, Ticket{}, Hit
		}
		// Quiescent is read after the generation: the store reflects every change up to it.
		return nil, Ticket{key: key, gen: gen, now: now, localGen: gen, keep: c.o.Quiescent(), private: private}, Miss
	}
	if !c.up.Load() {
		return nil, Ticket{}, Bypass
	}
	// A Redis call that fails leaves this instance unsure of the others' writes: the answer then
	// waits for the barrier as well (Redis may hang for a second before it counts as away).
	bypass := func() (*Entry, Ticket, Result) {
		if !synced {
			c.barrier(ctx)
		}
		return nil, Ticket{}, Bypass
	}
	rctx, cancel := context.WithTimeout(ctx, c.o.Timeout)
	defer cancel()
	front, ok := c.mem.GetIfPresent(key)
	if (ok && front.fresh(now)) || (private && c.o.Private == PrivateLocal) {
		// The front has a candidate (or the answer may only be kept here): only the shared
		// generation is needed, read after this request arrived so that every write finished
		// before it counts (or, in push mode, as last learned).
		gen, err := c.frontGen(rctx)
		if err != nil {
			return bypass()
		}
		t := c.ticket(key, gen, now, private)
		if ok && front.Stamp.Gen == gen && front.fresh(now) {
			return front, t, Hit
		}
		if private && c.o.Private == PrivateLocal {
			return nil, t, Miss
		}
	}
	// Not in the front: the generation and the entry in one round trip.
	vals, err := c.client().MGet(rctx, c.genKey, c.entryKey(key)).Result()
	if err != nil {
		c.fail(err)
		return bypass()
	}
	c.ok()
	gen, err := c.observeGen(rctx, vals[0])
	if err != nil {
		c.fail(err)
		return bypass()
	}
	t := c.ticket(key, gen, now, private)
	if s, ok := vals[1].(string); ok {
		if e, err := decodeEntry([]byte(s)); err == nil && e.Stamp.Gen == gen && e.fresh(now) {
			if c.applied.Load() == gen {
				c.mem.Set(key, e)
			}
			return e, t, Hit
		}
	}
	return nil, t, Miss
}

// blind reports whether Redis cannot be trusted to carry the other instances' writes: it is away.
// (When it is found again, recover moves the shared generation and brings this instance's state
// to the database before it counts as back, and every write announces itself even from an
// instance that still counts Redis as away.)
func (c *Cache) blind() bool {
	return !c.up.Load()
}

// barrier brings this instance's state to the database as it is now (Options.Sync), for at most
// the request's own time and syncWait: when the watermark cannot be read (the database slow or
// away) the request goes on with what the instance holds.
func (c *Cache) barrier(ctx context.Context) {
	if c.o.Sync == nil {
		return
	}
	sctx, cancel := context.WithTimeout(ctx, syncWait)
	defer cancel()
	_ = c.o.Sync(sctx)
}

// syncWait bounds how long a request waits for the read barrier.
const syncWait = 2 * time.Second

// ticket is a Redis lookup's ticket: the local state is read after the shared generation was
// applied to it.
func (c *Cache) ticket(key string, gen uint64, now int64, private bool) Ticket {
	local := c.o.Generation()
	return Ticket{key: key, gen: gen, now: now, localGen: local, keep: c.o.Quiescent(), private: private}
}

// observeGen reads the shared counter's value from a reply and brings this instance to it.
func (c *Cache) observeGen(ctx context.Context, v any) (uint64, error) {
	gen, ok := parseGen(v)
	if !ok {
		// The counter is gone (Redis restarted empty, or evicted it): start it again somewhere
		// no entry was stamped with, and treat everything as changed.
		var err error
		if gen, err = c.restartGen(ctx); err != nil {
			return 0, err
		}
		c.applyRemote(gen, nil, true)
	}
	if gen != c.applied.Load() {
		c.catchUp(gen)
	}
	return gen, nil
}

// Put keeps the answer computed after a miss, unless the calendar may have changed while it was
// computed (then it would be kept under a generation it does not reflect). clockBound says the
// answer depends on the clock: it is kept for the ticket's second only.
func (c *Cache) Put(ctx context.Context, t Ticket, e *Entry, clockBound bool) {
	if c == nil || !t.keep || c.o.Generation() != t.localGen {
		return
	}
	e.Stamp = Stamp{Gen: t.gen}
	if clockBound {
		e.Stamp.Clock = t.now
	}
	if c.o.Mode == Memory {
		c.mem.Set(t.key, e)
		return
	}
	if !c.up.Load() || c.applied.Load() != t.gen {
		return
	}
	c.mem.Set(t.key, e)
	if t.private && c.o.Private != PrivateShared {
		return
	}
	rctx, cancel := context.WithTimeout(ctx, c.o.Timeout)
	defer cancel()
	if err := c.client().Set(rctx, c.entryKey(t.key), e.encode(), c.o.TTL).Err(); err != nil {
		c.fail(err)
	}
}

// entryKey is the Redis key of an answer: a hash of the description, which may be long.
func (c *Cache) entryKey(key string) string {
	sum := sha256.Sum256([]byte(key))
	return c.o.Prefix + "r:" + base64.RawURLEncoding.EncodeToString(sum[:])
}

func parseGen(v any) (uint64, bool) {
	s, ok := v.(string)
	if !ok {
		return 0, false
	}
	n, err := strconv.ParseUint(s, 10, 64)
	return n, err == nil
}

// restartGen sets a missing counter to a value no earlier counter reached in practice (the clock
// in nanoseconds), so entries left from before cannot match.
func (c *Cache) restartGen(ctx context.Context) (uint64, error) {
	if err := c.client().SetNX(ctx, c.genKey, time.Now().UnixNano(), 0).Err(); err != nil {
		return 0, err
	}
	return c.client().Get(ctx, c.genKey).Uint64()
}

// catchUp brings this instance to the shared generation gen before it answers. Another
// instance's write is usually announced on the channel a moment after it moved the counter: the
// announcement names the posts it changed, which patches the event index at once, where "anything
// may have changed" would rebuild it in the background (and answer from the old one meanwhile).
// So the announcement is awaited for up to the Redis timeout, then everything is invalidated.
func (c *Cache) catchUp(gen uint64) {
	if gen > c.applied.Load() {
		deadline := time.Now().Add(c.o.Timeout)
		for c.applied.Load() < gen && time.Now().Before(deadline) {
			time.Sleep(200 * time.Microsecond)
		}
	}
	if gen != c.applied.Load() {
		c.applyRemote(gen, nil, true)
	}
}

// applyRemote brings this instance's state to the shared generation gen: the change another
// instance announced when it is the very next one, else "anything may have changed". force applies
// any generation that differs (a lookup found it); a pub/sub message only applies newer ones.
func (c *Cache) applyRemote(gen uint64, ch *wpdb.Change, force bool) {
	c.syncMu.Lock()
	defer c.syncMu.Unlock()
	applied := c.applied.Load()
	if gen == applied || (!force && gen < applied) {
		return
	}
	local := wpdb.Change{All: true}
	if ch != nil && gen == applied+1 {
		local = *ch
	}
	local.Remote = true
	c.o.Feed.Publish(local)
	c.applied.Store(gen)
}

// onLocalChange runs for every change the local feed publishes: a change of this instance (its
// write, its watermark poll) moves the shared generation and is announced to the others before
// the write that made it returns. That is tried even while this instance counts Redis as away:
// Redis may be back for the others already (they trust it again as soon as they find it), and
// this instance's probe may find it only later.
func (c *Cache) onLocalChange(ch wpdb.Change) {
	if ch.Remote {
		return
	}
	rc, away := c.client(), !c.up.Load()
	if away {
		rc = c.newClient()
		defer rc.Close()
	}
	v, err := c.announce(rc, ch)
	if err != nil {
		// The change is not announced: the generation moves when Redis answers again (recover).
		c.dirty.Store(true)
		if c.up.Load() {
			c.fail(err)
		}
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), c.o.Timeout)
	defer cancel()
	if err := rc.Publish(ctx, c.chanName, encodeChange(v, ch)).Err(); err != nil && c.up.Load() {
		c.fail(err)
	}
	if away {
		// Redis answers again: the probe need not wait for its next turn.
		select {
		case c.wake <- struct{}{}:
		default:
		}
	}
}

// announceTries is how many times a change's increment is tried when Redis times out (a loaded
// machine delays some calls); a refused connection is not tried again.
const announceTries = 3

// announce moves the shared generation for a local change.
func (c *Cache) announce(rc *redis.Client, ch wpdb.Change) (uint64, error) {
	var err error
	for try := 0; try < announceTries; try++ {
		var v uint64
		v, err = c.incr(rc)
		if err == nil || !isTimeout(err) {
			return v, err
		}
	}
	return 0, err
}

// incr moves the shared generation once. While Redis counts as up, nobody else moving it
// meanwhile means this instance's state is at the new generation (if someone did, the next lookup
// applies theirs); while it counts as away, recover sets the generation, and concurrent writes
// need not wait for each other's calls.
func (c *Cache) incr(rc *redis.Client) (uint64, error) {
	ctx, cancel := context.WithTimeout(context.Background(), c.o.Timeout)
	defer cancel()
	if !c.up.Load() {
		return rc.Incr(ctx, c.genKey).Uint64()
	}
	c.syncMu.Lock()
	defer c.syncMu.Unlock()
	v, err := rc.Incr(ctx, c.genKey).Uint64()
	if err == nil && c.up.Load() && v == c.applied.Load()+1 {
		c.applied.Store(v)
	}
	return v, err
}

// encodeChange is the pub/sub message: "gen all terms id,id,...[ position]", the position being
// the primary's GTID position of the change (read replicas: the other instances' reads wait for it).
func encodeChange(gen uint64, ch wpdb.Change) string {
	var b strings.Builder
	b.WriteString(strconv.FormatUint(gen, 10))
	b.WriteString(map[bool]string{true: " 1", false: " 0"}[ch.All])
	b.WriteString(map[bool]string{true: " 1 ", false: " 0 "}[ch.Terms])
	for i, id := range ch.Posts {
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteString(strconv.FormatInt(id, 10))
	}
	if ch.Position != "" {
		b.WriteString(" " + ch.Position)
	}
	return b.String()
}

func decodeChange(s string) (uint64, *wpdb.Change, bool) {
	f := strings.SplitN(s, " ", 5)
	if len(f) < 4 {
		return 0, nil, false
	}
	gen, err := strconv.ParseUint(f[0], 10, 64)
	if err != nil {
		return 0, nil, false
	}
	ch := &wpdb.Change{All: f[1] == "1", Terms: f[2] == "1"}
	if len(f) == 5 {
		ch.Position = f[4]
	}
	if f[3] != "" {
		for _, p := range strings.Split(f[3], ",") {
			id, err := strconv.ParseInt(p, 10, 64)
			if err != nil {
				return 0, nil, false
			}
			ch.Posts = append(ch.Posts, id)
		}
	}
	return gen, ch, true
}

// listen applies the changes other instances announce, so that their writes usually reach this
// instance's state as precise patches before its next lookup sees the counter.
func (c *Cache) listen(ctx context.Context) {
	defer c.done.Done()
	for ctx.Err() == nil {
		c.listenOn(ctx, c.client())
	}
}

// listenOn applies the announcements rc receives until ctx ends or rc is replaced.
func (c *Cache) listenOn(ctx context.Context, rc *redis.Client) {
	ps := rc.Subscribe(ctx, c.chanName)
	defer ps.Close()
	ch := ps.Channel()
	for {
		select {
		case <-ctx.Done():
			return
		case <-c.resub:
			return
		case m, ok := <-ch:
			if !ok {
				// Closed under it: wait for the client that replaces it.
				select {
				case <-ctx.Done():
				case <-c.resub:
				}
				return
			}
			if gen, change, ok := decodeChange(m.Payload); ok && c.up.Load() {
				c.applyRemote(gen, change, false)
			}
		}
	}
}

// fail records a Redis failure: the first one after Redis answered logs once and hands over to
// the probe; until it finds Redis again every lookup is a Bypass at no cost.
func (c *Cache) fail(err error) {
	c.redisErrors.Inc()
	// A timeout costs only its request: Redis is given up when it refuses connections, or when
	// calls have timed out several times in a row and none has worked for a second (a loaded
	// machine delays some calls; a hung Redis delays all of them).
	if n := c.fails.Add(1); isTimeout(err) && (n < failuresDown || time.Since(time.Unix(0, c.lastOK.Load())) < time.Second) {
		return
	}
	if c.up.CompareAndSwap(true, false) {
		c.redisUp.Set(0)
		c.log.Warn("redis cache unavailable: answering from the database until it is back", "err", err)
		select {
		case c.wake <- struct{}{}:
		default:
		}
	}
}

// failuresDown is how many timeouts in a row make Redis count as away.
const failuresDown = 3

func isTimeout(err error) bool {
	var ne net.Error
	return errors.Is(err, context.DeadlineExceeded) || (errors.As(err, &ne) && ne.Timeout())
}

// ok records a Redis call that worked.
func (c *Cache) ok() {
	if c.fails.Load() != 0 {
		c.fails.Store(0)
	}
	if now := time.Now().UnixNano(); now-c.lastOK.Load() > int64(100*time.Millisecond) {
		c.lastOK.Store(now)
	}
}

// probe pings Redis while it is away (and once at start). When it answers, the shared generation
// is moved (what changed meanwhile, here or anywhere, may be missing from the entries) and this
// instance's state is brought to it.
func (c *Cache) probe(ctx context.Context) {
	defer c.done.Done()
	first := true
	for {
		if !c.up.Load() {
			if err := c.recover(ctx); err == nil {
				c.up.Store(true)
				c.redisUp.Set(1)
				c.log.Info("redis cache available", "addr", c.client().Options().Addr)
			} else if first {
				c.redisUp.Set(0)
				c.redisErrors.Inc()
				c.log.Warn("redis cache unavailable: answering from the database until it is back", "err", err)
			}
			first = false
		}
		wait := c.o.Retry
		if c.up.Load() {
			wait = time.Hour // woken by fail
		}
		select {
		case <-ctx.Done():
			return
		case <-c.wake:
		case <-time.After(wait):
		}
	}
}

func (c *Cache) recover(ctx context.Context) (err error) {
	rctx, cancel := context.WithTimeout(ctx, c.o.Timeout)
	defer cancel()
	rc := c.newClient()
	defer func() {
		if err != nil {
			_ = rc.Close()
		}
	}()
	// The shared generation moves at every return of Redis, not only after changes made here:
	// an instance still away may have written meanwhile without announcing it, and the entries
	// kept before the outage (Redis hung, not restarted) would not show that write.
	c.syncMu.Lock()
	v, err := rc.Incr(rctx, c.genKey).Uint64()
	if err == nil && v == 1 {
		// A new counter: start it where no entry left from before can match.
		v, err = rc.IncrBy(rctx, c.genKey, time.Now().UnixNano()).Uint64()
	}
	c.syncMu.Unlock()
	if err != nil {
		return err
	}
	// Then this instance's state is brought to the database as it is now (the read barrier), so
	// that every write committed before Redis answered again, announced or not, is reflected in
	// what this instance computes under the new generation.
	synced := !c.connected // at the first connection the state was just loaded
	if !synced && c.o.Sync != nil {
		sctx, cancel := context.WithTimeout(ctx, syncWait)
		synced = c.o.Sync(sctx) == nil
		cancel()
	}
	c.syncMu.Lock()
	defer c.syncMu.Unlock()
	if !synced {
		c.o.Feed.Publish(wpdb.Change{All: true, Remote: true})
	}
	c.replaceClient(rc)
	c.connected = true
	c.dirty.Store(false)
	c.fails.Store(0)
	c.lastOK.Store(time.Now().UnixNano())
	c.applied.Store(v)
	return nil
}

// genBatcher lets concurrent requests share reads of the shared generation. A request joins the
// next read to start, never one already under way: a read that began before the request arrived
// could miss a write that finished just before it, and the answer must reflect every such write.
// Up to maxGenReads reads are under way at once, so a request rarely waits for more than one round
// trip, and Redis sees a few reads per round trip however many requests arrive.
type genBatcher struct {
	mu      sync.Mutex
	next    *genRead // the read the requests arriving now will share, not started yet
	running int
}

const maxGenReads = 4

type genRead struct {
	done chan struct{}
	gen  uint64
	err  error
}

// sharedGen returns the shared generation as read by a Redis call that started after sharedGen was
// called, with this instance's state brought to it.
func (c *Cache) sharedGen(ctx context.Context) (uint64, error) {
	b := &c.gen
	b.mu.Lock()
	r := b.next
	if r == nil {
		r = &genRead{done: make(chan struct{})}
		b.next = r
	}
	lead := b.running < maxGenReads
	if lead {
		b.running++
		b.next = nil
	}
	b.mu.Unlock()
	if lead {
		c.readGen(r)
	} else {
		select {
		case <-r.done:
		case <-ctx.Done():
			return 0, ctx.Err()
		}
	}
	return r.gen, r.err
}

// readGen performs r, then starts the read the requests that arrived meanwhile wait for.
func (c *Cache) readGen(r *genRead) {
	ctx, cancel := context.WithTimeout(context.Background(), c.o.Timeout)
	v, err := c.client().Get(ctx, c.genKey).Result()
	if err == nil || errors.Is(err, redis.Nil) {
		c.ok()
		var val any
		if err == nil {
			val = v
		}
		r.gen, r.err = c.observeGen(ctx, val)
	} else {
		r.err = err
	}
	cancel()
	if r.err != nil {
		c.fail(r.err)
	}
	close(r.done)
	b := &c.gen
	b.mu.Lock()
	next := b.next
	if next != nil {
		b.next = nil
	} else {
		b.running--
	}
	b.mu.Unlock()
	if next != nil {
		go c.readGen(next)
	}
}
