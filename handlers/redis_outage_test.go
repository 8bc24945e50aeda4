package handlers_test

import (
	"context"
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	goredis "github.com/redis/go-redis/v9"

	"github.com/calendard/calendard/cache"
	"github.com/calendard/calendard/internal/testenv"
)

// Two instances on one MariaDB and one Redis (CALENDAR_REDIS_PUSH=0): one writer changes an event's
// title through A while readers read B. Redis is stalled (SIGSTOP), killed, and started again,
// empty. However B learns of A's writes (Redis, or the watermark while Redis is away), no read
// that began after a write had returned may show an older title: not on the v1 single event, not
// in a v1 search= list (the event index), not on wp/v2.
func TestRedisOutageAnswersStayFresh(t *testing.T) {
	dsn, _ := cacheFixture(t, "ro")
	redis := testenv.NewRedis(t)
	// The production default watch interval: freshness during the outage must not depend on it.
	setup := cacheSetup{mode: cache.Redis, redisURL: redis.URL(0), watch: time.Second}
	a := startCachedServer(t, dsn, setup)
	b := startCachedServer(t, dsn, setup)
	waitCaching(t, a.Server, nsPrefix+"/doc")
	waitCaching(t, b.Server, nsPrefix+"/doc")
	id, _ := firstOf(t, a.Server, evList, "events")

	const mark = "Outagemark"
	routes := []struct{ name, path string }{
		{"v1 single", nsPrefix + "/events/" + id},
		{"v1 search", nsPrefix + "/events?search=" + mark + "&start_date=2000-01-01&end_date=2040-01-01"},
		{"wp/v2 single", "/wp-json/wp/v2/tribe_events/" + id},
	}
	versionRe := regexp.MustCompile(mark + ` (\d+)`)

	type tally struct {
		reads, stale, maxLag, bypass, cached, failed int
		took, slowest                                time.Duration
	}
	var (
		mu      sync.Mutex
		phase   = "up"
		tallies = map[string]*tally{} // phase + route
		worst   time.Duration         // longest a stale answer was behind the write it missed
		doneAt  = map[int]time.Time{} // when write n returned
	)
	var done atomic.Int64 // writes returned
	stop := make(chan struct{})
	var wg sync.WaitGroup
	for _, r := range routes {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				select {
				case <-stop:
					return
				default:
				}
				floor, start := int(done.Load()), time.Now()
				ans := call(t, b.Server, "GET", r.path, nil, "")
				v := 0
				if m := versionRe.FindStringSubmatch(ans.raw); m != nil {
					v, _ = strconv.Atoi(m[1])
				}
				mu.Lock()
				k := phase + " / " + r.name
				tl := tallies[k]
				if tl == nil {
					tl = &tally{}
					tallies[k] = tl
				}
				tl.reads++
				took := time.Since(start)
				tl.took += took
				tl.slowest = max(tl.slowest, took)
				switch x := ans.header.Get("X-Cache"); {
				case ans.status != 200 || (floor > 0 && !strings.Contains(ans.raw, mark)):
					tl.failed++
				case x == "BYPASS":
					tl.bypass++
				default:
					tl.cached++
				}
				if v < floor {
					tl.stale++
					tl.maxLag = max(tl.maxLag, floor-v)
					worst = max(worst, start.Sub(doneAt[v+1]))
				}
				mu.Unlock()
			}
		}()
	}
	write := func() {
		n := int(done.Load()) + 1
		w := call(t, a.Server, "POST", nsPrefix+"/events/"+id, map[string]any{"title": fmt.Sprintf("%s %d", mark, n)}, "admin")
		if w.status != 200 {
			t.Fatalf("write %d through A: %d %.200s", n, w.status, w.raw)
		}
		mu.Lock()
		doneAt[n] = time.Now()
		mu.Unlock()
		done.Store(int64(n))
	}
	enter := func(p string) {
		mu.Lock()
		phase = p
		mu.Unlock()
	}
	// writeUntil writes at least n times, then until cond holds (within a generous deadline).
	writeUntil := func(what string, n int, cond func() bool) {
		deadline := time.Now().Add(30 * time.Second)
		for i := 0; i < n || !cond(); i++ {
			if time.Now().After(deadline) {
				t.Fatalf("%s: not reached within 30 s", what)
			}
			write()
		}
	}
	redisUp := func(s *cachedServer) bool { return gaugeValue(t, s.reg, "calendard_cache_redis_up") == 1 }
	seen := func(p string, pred func(*tally) bool) func() bool {
		return func() bool {
			mu.Lock()
			defer mu.Unlock()
			for _, r := range routes {
				if tl := tallies[p+" / "+r.name]; tl == nil || !pred(tl) {
					return false
				}
			}
			return true
		}
	}
	var halted sync.Once
	halt := func() {
		halted.Do(func() { close(stop) })
		wg.Wait()
	}
	defer halt()

	writeUntil("reads while Redis is up", 5, seen("up", func(tl *tally) bool { return tl.cached > 0 }))

	// Redis hangs: calls time out until the instances give it up.
	pid := redisPID(t, redis)
	if err := syscall.Kill(pid, syscall.SIGSTOP); err != nil {
		t.Fatal(err)
	}
	enter("hung")
	// Until both gave it up and every route was read while it hung: a read that started as it
	// stopped can take the whole call timeout, so on a busy machine a route may have none before.
	writeUntil("B gives up a hung Redis", 3, func() bool {
		return !redisUp(b) && !redisUp(a) && seen("hung", func(tl *tally) bool { return tl.reads >= 1 })()
	})

	redis.Kill()
	enter("down")
	writeUntil("reads while Redis is down", 10, seen("down", func(tl *tally) bool { return tl.reads >= 3 }))

	if err := redis.Restart(); err != nil {
		t.Fatal(err)
	}
	enter("back")
	writeUntil("B caches again", 5, func() bool {
		return redisUp(a) && redisUp(b) && seen("back", func(tl *tally) bool { return tl.cached > 0 })()
	})
	writeUntil("after", 5, func() bool { return true })
	halt()

	stale := 0
	for _, p := range []string{"up", "hung", "down", "back"} {
		for _, r := range routes {
			tl := tallies[p+" / "+r.name]
			if tl == nil {
				t.Errorf("%s / %s: no read", p, r.name)
				continue
			}
			t.Logf("%-5s %-13s reads %4d  stale %4d (up to %d writes behind)  bypass %4d  cached %4d  failed %d  mean %v  slowest %v",
				p, r.name, tl.reads, tl.stale, tl.maxLag, tl.bypass, tl.cached, tl.failed,
				(tl.took / time.Duration(tl.reads)).Round(time.Microsecond), tl.slowest.Round(time.Millisecond))
			stale += tl.stale
			if tl.failed > 0 {
				t.Errorf("%s / %s: %d answers were not 200 with the event", p, r.name, tl.failed)
			}
			if p == "down" && tl.cached > 0 {
				t.Errorf("%s / %s: %d answers from the cache with Redis killed", p, r.name, tl.cached)
			}
		}
	}
	t.Logf("%d writes through A; the stalest answer was %v behind the write it missed", done.Load(), worst)
	if stale > 0 {
		t.Errorf("%d reads on B began after a write through A had returned and showed an older title (up to %v behind)", stale, worst)
	}
}

// redisPID asks the server for its process ID (testenv keeps the process to itself).
func redisPID(t *testing.T, r *testenv.Redis) int {
	t.Helper()
	c := goredis.NewClient(&goredis.Options{Addr: r.Addr()})
	defer c.Close()
	info, err := c.Info(context.Background(), "server").Result()
	if err != nil {
		t.Fatal(err)
	}
	m := regexp.MustCompile(`process_id:(\d+)`).FindStringSubmatch(info)
	if m == nil {
		t.Fatalf("no process_id in INFO: %.200s", info)
	}
	pid, _ := strconv.Atoi(m[1])
	return pid
}
