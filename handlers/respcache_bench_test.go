package handlers_test

import (
	"io"
	"net/http"
	"net/http/httptest"
	"regexp"
	"testing"

	"github.com/calendard/calendard/cache"
	"github.com/calendard/calendard/internal/testenv"
)

// BenchmarkResponseCacheHit is the cost of answering a request from the response cache inside the
// process: the whole handler (middleware, lookup, headers, body write into a writer that discards
// it), without the network or net/http's connection work. The clock is frozen, so answers that
// depend on it stay hits. Each case checks that its answers were hits with the expected status.
//
//	go test ./handlers/ -run '^$' -bench ResponseCacheHit -benchmem
func BenchmarkResponseCacheHit(b *testing.B) {
	dsn := testenv.FixtureDB(b, fixture, "bench_rc")
	redis := testenv.NewRedis(b)
	cases := []struct {
		name, path string
		header     map[string]string
		status     int
	}{
		{"events list", "/wp-json/tribe/events/v1/events", nil, 200},
		{"events list, 50", evList, nil, 200},
		{"events list, gzip", "/wp-json/tribe/events/v1/events", map[string]string{"Accept-Encoding": "gzip"}, 200},
		{"event", "", nil, 200},
		{"categories", catList, nil, 200},
		{"rest_route", "/?rest_route=/tribe/events/v1/venues", nil, 200},
		{"events list, If-None-Match", "/wp-json/tribe/events/v1/events", map[string]string{"If-None-Match": ""}, 304},
	}
	for _, mode := range []struct {
		name string
		cs   cacheSetup
	}{
		{"memory", cacheSetup{mode: cache.Memory}},
		// The same with the access log on (formatted, written nowhere): its cost per answer.
		{"memory, access log", cacheSetup{mode: cache.Memory, accessLog: true, quietLogs: true}},
		{"redis", cacheSetup{mode: cache.Redis, redisURL: redis.URL(0)}},
	} {
		b.Run(mode.name, func(b *testing.B) {
			h, _, _ := cachedHandler(b, dsn, mode.cs)
			eventPath := firstEventPath(b, h)
			request := func(path string, header map[string]string, etag string) *http.Request {
				if path == "" {
					path = eventPath
				}
				r := httptest.NewRequest("GET", path, nil)
				for k, v := range header {
					if k == "If-None-Match" {
						v = etag
					}
					r.Header.Set(k, v)
				}
				return r
			}
			for _, c := range cases {
				b.Run(c.name, func(b *testing.B) {
					// Computed once (the miss), then answered from the cache.
					w := newDiscardWriter()
					waitHit(b, h, request(c.path, c.header, ""), w)
					r := request(c.path, c.header, w.Header().Get("ETag"))
					b.ReportAllocs()
					b.ResetTimer()
					for b.Loop() {
						w.reset()
						h.ServeHTTP(w, r)
					}
					b.StopTimer()
					if w.status != c.status || w.Header().Get("X-Cache") != "HIT" {
						b.Fatalf("%s: %d %s, want %d HIT", r.URL, w.status, w.Header().Get("X-Cache"), c.status)
					}
				})
			}
			// Over loopback HTTP, one client: the whole round trip of a hit and of a 304 (the
			// target for a 304 is in BENCHMARKS.md), net/http on both sides included.
			srv := httptest.NewServer(h)
			defer srv.Close()
			client := &http.Client{Transport: &http.Transport{DisableCompression: true}}
			for _, c := range []struct {
				name        string
				conditional bool
				status      int
			}{{"http round trip", false, 200}, {"http round trip, 304", true, 304}} {
				b.Run(c.name, func(b *testing.B) {
					path := "/wp-json/tribe/events/v1/events"
					w := newDiscardWriter()
					waitHit(b, h, request(path, nil, ""), w)
					req, err := http.NewRequest("GET", srv.URL+path, nil)
					if err != nil {
						b.Fatal(err)
					}
					if c.conditional {
						req.Header.Set("If-None-Match", w.Header().Get("ETag"))
					}
					b.ResetTimer()
					for b.Loop() {
						resp, err := client.Do(req)
						if err != nil {
							b.Fatal(err)
						}
						_, _ = io.Copy(io.Discard, resp.Body)
						resp.Body.Close()
						if resp.StatusCode != c.status || resp.Header.Get("X-Cache") != "HIT" {
							b.Fatalf("%d %s, want %d HIT", resp.StatusCode, resp.Header.Get("X-Cache"), c.status)
						}
					}
				})
			}
			b.Run("events list, parallel", func(b *testing.B) {
				path := "/wp-json/tribe/events/v1/events"
				waitHit(b, h, request(path, nil, ""), newDiscardWriter())
				b.ReportAllocs()
				b.ResetTimer()
				b.RunParallel(func(pb *testing.PB) {
					w, r := newDiscardWriter(), request(path, nil, "")
					for pb.Next() {
						w.reset()
						h.ServeHTTP(w, r)
						if w.status != 200 || w.Header().Get("X-Cache") != "HIT" {
							b.Errorf("%d %s, want 200 HIT", w.status, w.Header().Get("X-Cache"))
							return
						}
					}
				})
			})
		})
	}
}

// waitHit requests r until it is answered from the cache (a Redis cache answers once its first
// probe has found Redis).
func waitHit(b *testing.B, h http.Handler, r *http.Request, w *discardWriter) {
	b.Helper()
	for range 500 {
		w.reset()
		h.ServeHTTP(w, r)
		if w.Header().Get("X-Cache") == "HIT" {
			return
		}
	}
	b.Fatalf("%s never came from the cache (last: %d %s)", r.URL, w.status, w.Header().Get("X-Cache"))
}

// firstEventPath is the path of the first event of the anonymous list.
func firstEventPath(b *testing.B, h http.Handler) string {
	b.Helper()
	w := &recordingWriter{discardWriter: newDiscardWriter()}
	h.ServeHTTP(w, httptest.NewRequest("GET", "/wp-json/tribe/events/v1/events?per_page=1", nil))
	m := eventIDRe.FindSubmatch(w.body)
	if m == nil {
		b.Fatalf("no event in %.200s", w.body)
	}
	return "/wp-json/tribe/events/v1/events/" + string(m[1])
}

var eventIDRe = regexp.MustCompile(`"events":\[\{"id":(\d+)`)

// discardWriter is a ResponseWriter that keeps the status and headers and drops the body.
type discardWriter struct {
	h      http.Header
	status int
	n      int
}

func newDiscardWriter() *discardWriter { return &discardWriter{h: http.Header{}} }

func (w *discardWriter) Header() http.Header { return w.h }
func (w *discardWriter) WriteHeader(status int) {
	if w.status == 0 {
		w.status = status
	}
}
func (w *discardWriter) Write(p []byte) (int, error) {
	w.WriteHeader(200)
	w.n += len(p)
	return len(p), nil
}
func (w *discardWriter) reset() {
	clear(w.h)
	w.status, w.n = 0, 0
}

type recordingWriter struct {
	*discardWriter
	body []byte
}

func (w *recordingWriter) Write(p []byte) (int, error) {
	w.body = append(w.body, p...)
	return w.discardWriter.Write(p)
}
