package compattests

import (
	"bytes"
	"os"
	"sync/atomic"
	"testing"

	"github.com/calendard/calendard/internal/testenv"
)

// cacheReplay runs the service with its response cache on and answers every read case twice: the
// second answer must come from the cache (X-Cache: HIT) and be the first one byte for byte, status
// and recorded headers included. The first answer is computed as with the cache off, and is the
// one compared with the recording, so the suite checks both. The MySQL store runs with Redis (a
// throwaway redis-server, or the suite's Redis container with COMPAT_DB=docker), the SQLite store
// with the in-process cache; COMPAT_CACHE=off|memory|redis forces one mode for both.
type cacheReplay struct {
	mode     string
	redisURL string
	replayed atomic.Int64
	hits     atomic.Int64
}

// redisURL is the suite's Redis when it runs one (a container); empty starts a local redis-server.
func newCacheReplay(t *testing.T, store, redisURL string) *cacheReplay {
	mode := os.Getenv("COMPAT_CACHE")
	if mode == "" {
		mode = "memory"
		if store == "mysql" {
			mode = "redis"
		}
	}
	cr := &cacheReplay{mode: mode, redisURL: redisURL}
	if mode == "redis" && redisURL == "" {
		cr.redisURL = testenv.NewRedis(t).URL(0)
	}
	return cr
}

// configure sets the service's cache variables.
func (cr *cacheReplay) configure(env map[string]string) {
	if cr == nil {
		return
	}
	env["CALENDAR_CACHE"] = cr.mode
	env["CALENDAR_CACHE_HEADER"] = "on"
	if cr.mode == "redis" {
		env["CALENDAR_REDIS_URL"] = cr.redisURL
		// The replay checks what is served, not how fast: on a loaded machine a Redis call can take
		// longer than the 50 ms default, which would turn a hit into a bypass.
		env["CALENDAR_REDIS_TIMEOUT"] = "2s"
	}
}

// replay answers a read case, then (cache on) again, and adds a difference for every way the second
// answer is not the first one served from the cache.
func (cr *cacheReplay) replay(r *runner, c *Case, ns string) result {
	a, err := r.svc.Do(r.ctx, r.set, c, ns)
	if err != nil {
		return result{c: c, ns: ns, err: err}
	}
	diffs, err := checkAnswer(r.set, c, ns, r.svc, a, nil)
	res := result{c: c, ns: ns, diffs: diffs, err: err}
	if cr == nil || cr.mode == "off" || err != nil {
		return res
	}
	b, err := r.svc.Do(r.ctx, r.set, c, ns)
	if err != nil {
		res.err = err
		return res
	}
	cr.replayed.Add(1)
	first, second := a.Headers.Get("X-Cache"), b.Headers.Get("X-Cache")
	if second == "HIT" {
		cr.hits.Add(1)
	}
	// A request the cache keeps (it said MISS, or HIT when an earlier case asked the same) must be
	// a hit the second time; one it does not keep (BYPASS: an OPTIONS, a JSON body) must stay so.
	if (first == "MISS" || first == "HIT") && second != "HIT" {
		res.diffs = append(res.diffs, Diff{"cache replay: X-Cache", "HIT", second})
	}
	if first != "MISS" && first != "HIT" && first != "BYPASS" {
		res.diffs = append(res.diffs, Diff{"cache replay: first X-Cache", "MISS, HIT or BYPASS", first})
	}
	if second != "HIT" {
		// Computed again (the first answer was not kept: a bypass while Redis is still being
		// connected to after a restart, an OPTIONS): json_ld emails are scrambled afresh on every
		// rendering, as the plugin does, so the bytes may differ.
		return res
	}
	if a.Status != b.Status {
		res.diffs = append(res.diffs, Diff{"cache replay: status", a.Status, b.Status})
	}
	if !bytes.Equal(a.Raw, b.Raw) {
		res.diffs = append(res.diffs, Diff{"cache replay: body", string(a.Raw), string(b.Raw)})
	}
	for _, h := range append(KeptHeaders, "ETag", "Cache-Control", "X-Robots-Tag") {
		if a.Headers.Get(h) != b.Headers.Get(h) {
			res.diffs = append(res.diffs, Diff{"cache replay: header " + h, a.Headers.Get(h), b.Headers.Get(h)})
		}
	}
	return res
}

// report logs how many answers came from the cache; with the cache on, none would mean the replay
// checked nothing.
func (cr *cacheReplay) report(t *testing.T) {
	if cr == nil || cr.mode == "off" {
		return
	}
	t.Logf("response cache (%s): %d read answers replayed, %d of them from the cache", cr.mode, cr.replayed.Load(), cr.hits.Load())
	if cr.replayed.Load() > 0 && cr.hits.Load() == 0 {
		t.Errorf("response cache (%s): no replayed answer came from the cache", cr.mode)
	}
}
