package cache

import (
	"context"
	"sync/atomic"
	"testing"
	"time"

	"github.com/calendard/calendard/internal/testenv"
	"github.com/calendard/calendard/wpdb"
)

// Two instances on one Redis, one of which (a) is slow to find Redis again after an outage: its
// probe waits an hour. Whatever a writes while it still counts Redis as away, and whatever it wrote
// during the outage, must not leave b serving an entry that misses the write once b trusts Redis
// again — however long a's probe takes (on a loaded machine, a probe can be late by seconds).
func TestAnInstanceSlowToFindRedisCannotLeaveOthersStale(t *testing.T) {
	testenv.SkipIfShort(t, "redis-server")
	ctx := context.Background()
	// instance is a cache that has found Redis. One whose first probe timed out (a loaded machine)
	// would wait out its retry, an hour for a: it is replaced until one finds Redis.
	instance := func(r *testenv.Redis, retry time.Duration) *Cache {
		for start := time.Now(); ; {
			var gen atomic.Uint64
			var quiet atomic.Bool
			quiet.Store(true)
			c, err := New(Options{Mode: Redis, RedisURL: r.URL(0), Prefix: "t:", Timeout: 100 * time.Millisecond, Retry: retry,
				Generation: gen.Load, Quiescent: quiet.Load, Feed: &feed{}})
			if err != nil {
				t.Fatal(err)
			}
			for probe := time.Now(); !c.up.Load() && time.Since(probe) < 3*time.Second; time.Sleep(5 * time.Millisecond) {
			}
			if c.up.Load() {
				t.Cleanup(c.Close)
				return c
			}
			c.Close()
			if time.Since(start) > 30*time.Second {
				t.Fatal("no instance found Redis within 30 s")
			}
		}
	}
	waitFor := func(what string, cond func() bool) {
		t.Helper()
		for start := time.Now(); !cond(); time.Sleep(5 * time.Millisecond) {
			if time.Since(start) > 30*time.Second {
				t.Fatalf("%s: not within 30 s", what)
			}
		}
	}
	// gone looks key up on each instance until both count Redis as away.
	gone := func(a, b *Cache) {
		t.Helper()
		waitFor("both instances give Redis up", func() bool {
			for _, c := range []*Cache{a, b} {
				if c.up.Load() {
					c.Get(ctx, "GET /probe", 0, false)
				}
			}
			return !a.up.Load() && !b.up.Load()
		})
	}
	const key = "GET /events"

	t.Run("Redis restarted empty: a write through the late instance", func(t *testing.T) {
		r := testenv.NewRedis(t)
		a, b := instance(r, time.Hour), instance(r, 20*time.Millisecond)
		waitFor("Redis found", func() bool { return a.up.Load() && b.up.Load() })
		r.Kill()
		gone(a, b)
		if err := r.Restart(); err != nil {
			t.Fatal(err)
		}
		waitFor("b finds Redis again", b.up.Load)
		keep(t, b, key, false, "before the write")
		if _, _, res := b.Get(ctx, key, 0, false); res != Hit {
			t.Fatalf("the kept answer: %v, want a hit", res)
		}
		if a.up.Load() {
			t.Fatal("a found Redis again: the test needs it away")
		}
		a.onLocalChange(wpdb.Change{Posts: []int64{1}})
		// A miss, or a bypass (b waited for the announcement, then its call ran out of time): not the
		// entry kept before the write.
		if e, _, res := b.Get(ctx, key, 0, false); res == Hit {
			t.Errorf("after a's write: the entry kept before it (%q)", e.Body)
		}
	})

	// go-redis stops dialing after as many failed dials as its pool has connections, until a
	// background dial once a second works: a long outage's refused announcements must not leave
	// the late instance unable to announce once Redis is back.
	t.Run("Redis restarted after many refused dials: a write through the late instance", func(t *testing.T) {
		r := testenv.NewRedis(t)
		a, b := instance(r, time.Hour), instance(r, 20*time.Millisecond)
		waitFor("Redis found", func() bool { return a.up.Load() && b.up.Load() })
		r.Kill()
		gone(a, b)
		for range a.client().Options().PoolSize + 5 {
			a.onLocalChange(wpdb.Change{Posts: []int64{1}}) // refused: Redis is down
		}
		if err := r.Restart(); err != nil {
			t.Fatal(err)
		}
		waitFor("b finds Redis again", b.up.Load)
		keep(t, b, key, false, "before the write")
		if _, _, res := b.Get(ctx, key, 0, false); res != Hit {
			t.Fatalf("the kept answer: %v, want a hit", res)
		}
		a.onLocalChange(wpdb.Change{Posts: []int64{1}})
		if e, _, res := b.Get(ctx, key, 0, false); res == Hit {
			t.Errorf("after a's write: the entry kept before it (%q)", e.Body)
		}
	})

	t.Run("Redis hung, entries kept: a write through the late instance during the hang", func(t *testing.T) {
		r := testenv.NewRedis(t)
		a, b := instance(r, time.Hour), instance(r, 20*time.Millisecond)
		waitFor("Redis found", func() bool { return a.up.Load() && b.up.Load() })
		keep(t, b, key, false, "before the hang")
		if err := r.Pause(); err != nil {
			t.Fatal(err)
		}
		gone(a, b)
		a.onLocalChange(wpdb.Change{Posts: []int64{1}}) // not announced: Redis hangs
		if err := r.Resume(); err != nil {
			t.Fatal(err)
		}
		waitFor("b finds Redis again", b.up.Load)
		if a.up.Load() {
			t.Fatal("a found Redis again: the test needs it away")
		}
		if e, _, res := b.Get(ctx, key, 0, false); res == Hit {
			t.Errorf("after the hang: the entry kept before it (%q), which misses a's write during the hang", e.Body)
		}
	})
}
