package handlers

import (
	"bytes"
	"compress/gzip"
	"encoding/hex"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/cespare/xxhash/v2"
	"github.com/gin-gonic/gin"
	"github.com/prometheus/client_golang/prometheus"

	"github.com/calendard/calendard"
	"github.com/calendard/calendard/cache"
)

// HTTP caching lives here: every answer is written by respond (or, from the response cache, by
// writeEntry), which adds the strong ETag, answers If-None-Match with 304, sets Cache-Control and
// Vary, compresses with gzip when the client asks, says X-Cache, and keeps cacheable GET answers in
// the response cache (cache/) exactly as they were sent.

// exchange is what one request's answer needs to know beyond its body and headers.
type exchange struct {
	srv    *Server
	start  time.Time
	route  string // metrics label
	result cache.Result
	ticket *cache.Ticket // set on a cache miss: the answer is to be kept
	// cors are the CORS headers of this request (they depend on its Origin, so they are never
	// kept with a cached answer).
	cors []calendard.KV
	// private: the request carried credentials (Cache-Control must not let shared caches keep it).
	private bool
}

const exchangeKey = "calendard.exchange"

func exchangeOf(c *gin.Context) *exchange {
	if v, ok := c.Get(exchangeKey); ok {
		return v.(*exchange)
	}
	return nil
}

// httpMetrics are the Prometheus series the HTTP layer keeps.
type httpMetrics struct {
	latency *prometheus.HistogramVec
	results *prometheus.CounterVec
}

func newHTTPMetrics(r prometheus.Registerer) *httpMetrics {
	if r == nil {
		return nil
	}
	m := &httpMetrics{
		latency: prometheus.NewHistogramVec(prometheus.HistogramOpts{Name: "calendard_http_request_duration_seconds",
			Help:    "Time from a request's arrival to its answer, by route.",
			Buckets: []float64{.0001, .00025, .0005, .001, .0025, .005, .01, .025, .05, .1, .25, .5, 1, 2.5, 5}},
			[]string{"route"}),
		results: prometheus.NewCounterVec(prometheus.CounterOpts{Name: "calendard_cache_requests_total",
			Help: "Answers by response cache result: HIT (from the cache), MISS (computed and kept), BYPASS (not cacheable, cache off or Redis away)."},
			[]string{"result"}),
	}
	r.MustRegister(m.latency, m.results)
	return m
}

// exchanges starts each request's exchange and records its metrics when it has been answered.
func (s *Server) exchanges() gin.HandlerFunc {
	return func(c *gin.Context) {
		// A request with credentials is private whether or not they were accepted.
		ex := &exchange{srv: s, start: time.Now(), route: "other", private: c.GetHeader("Authorization") != ""}
		c.Set(exchangeKey, ex)
		c.Next()
		if m := s.metrics; m != nil {
			route := ex.route
			if route == "other" && (c.Request.URL.Path == "/healthz" || c.Request.URL.Path == "/metrics") {
				route = c.Request.URL.Path
			}
			m.latency.WithLabelValues(route).Observe(time.Since(ex.start).Seconds())
			m.results.WithLabelValues(ex.result.String()).Inc()
		}
	}
}

var captureRe = regexp.MustCompile(`\(\?P<(\w+)>[^)]*\)`)

// routeLabels are the metrics labels of routes: the namespace family and the path with its
// captures written {name}.
var routeLabels sync.Map // *Route -> string

func routeLabel(ns string, rt *Route) string {
	if v, ok := routeLabels.Load(rt); ok {
		return v.(string)
	}
	family := "events/v1"
	if ns != NamespaceCalendar && ns != NamespaceTribe {
		family = ns
	}
	l := family + captureRe.ReplaceAllString(rt.Path, "{$1}")
	if rt.Path == "" {
		l += "/"
	}
	routeLabels.Store(rt, l)
	return l
}

// clockless are the plugin routes whose answers never depend on the clock: they are kept until
// the calendar changes. Every other route (lists of events, the indexes with their default dates,
// venue and organizer lists asked for only_with_upcoming, routes added later) is kept for the
// second it was computed in only, so a cached answer is the fresh one byte for byte.
var clockless = map[string]bool{
	"/doc": true, `/events/(?P<id>\d+)`: true, `/events/by-slug/(?P<slug>[^/]+)`: true,
	"/venues": true, `/venues/(?P<id>\d+)`: true, `/venues/by-slug/(?P<slug>[^/]+)`: true,
	"/organizers": true, `/organizers/(?P<id>\d+)`: true, `/organizers/by-slug/(?P<slug>[^/]+)`: true,
	"/categories": true, `/categories/(?P<id>\d+)`: true, "/tags": true, `/tags/(?P<id>\d+)`: true,
}

func dependsOnClock(ns string, rt *Route, rawQuery string) bool {
	if rt == nil || (ns != NamespaceCalendar && ns != NamespaceTribe) || !clockless[rt.Path] {
		return true
	}
	return (rt.Path == "/venues" || rt.Path == "/organizers") && strings.Contains(rawQuery, "only_with_upcoming")
}

// viewOf names what a caller may see: anonymous visitors share one view; an authenticated user's
// answers are kept under that user alone (ID, login, email, roles and every capability, so a
// changed role is another view) and are never served to anyone else.
func viewOf(u *calendard.User) string {
	if !u.LoggedIn() {
		return "anonymous"
	}
	var b strings.Builder
	b.WriteString("user:" + strconv.FormatInt(u.ID, 10) + "\x00" + u.Login + "\x00" + u.Email + "\x00" + strings.Join(u.Roles, ",") + "\x00")
	caps := make([]string, 0, len(u.Caps))
	for k, v := range u.Caps {
		if v {
			caps = append(caps, k)
		} else {
			caps = append(caps, "!"+k)
		}
	}
	slices.Sort(caps)
	b.WriteString(strings.Join(caps, ","))
	return b.String()
}

// serveCached looks a GET or HEAD request up in the response cache once its caller is known and
// answers it from there when it can; on a miss it leaves a ticket so that respond keeps the answer.
// It also names the request's route for the metrics.
func (s *Server) serveCached(c *gin.Context, req *Request, route string) bool {
	ex := exchangeOf(c)
	if ex == nil {
		return false
	}
	ex.private = ex.private || req.User.LoggedIn()
	var ns string
	var rt *Route
	if route == "/" {
		ex.route = "/"
	} else if ns, rt = s.matchPath(route, req.Site); rt != nil {
		ex.route = routeLabel(ns, rt)
	}
	m := c.Request.Method
	if s.cfg.Cache == nil || (m != "GET" && m != "HEAD") || (req.Method != "GET" && req.Method != "HEAD") ||
		c.GetHeader("X-HTTP-Method-Override") != "" || c.Request.ContentLength != 0 || len(c.Request.TransferEncoding) > 0 ||
		(route != "/" && rt == nil) {
		// A body (a GET may carry JSON parameters) or an override makes the request something
		// else than its URL says; unknown routes are cheap to answer.
		return false
	}
	var clock int64
	if route == "/" || dependsOnClock(ns, rt, c.Request.URL.RawQuery) {
		clock = req.Now.Unix()
	}
	// The key is the request as sent (path and query string exactly: answers echo the query's
	// order and spelling in rest_url and next_rest_url), whether it came over TLS (/doc says so)
	// and the caller's view. GET and HEAD share it.
	secure := "http"
	if req.Secure {
		secure = "https"
	}
	key := cache.Key("v1\x00" + c.Request.URL.Path + "\x00" + c.Request.URL.RawQuery + "\x00" + secure + "\x00" + viewOf(req.User))
	e, ticket, res := s.cfg.Cache.Get(req.ctx, key, clock)
	ex.result = res
	switch res {
	case cache.Hit:
		ex.cors = s.corsHeaders(c.GetHeader("Origin"), req.User, m)
		s.writeEntry(c, e, ex)
		return true
	case cache.Miss:
		ex.ticket = &ticket
	}
	return false
}

// cacheableStatus: answers that say something about the calendar are kept; failures of the moment
// (5xx, timeouts, limits, a cancelled request) are not.
func cacheableStatus(status int) bool {
	switch status {
	case 408, 413, 429, 499:
		return false
	}
	return status >= 200 && status < 500
}

// gzipMin is the smallest body worth compressing (smaller ones fit one packet anyway).
const gzipMin = 1024

var gzipWriters = sync.Pool{New: func() any { w, _ := gzip.NewWriterLevel(nil, gzip.BestSpeed); return w }}

func gzipBytes(b []byte) []byte {
	var out bytes.Buffer
	out.Grow(len(b) / 4)
	w := gzipWriters.Get().(*gzip.Writer)
	w.Reset(&out)
	_, _ = w.Write(b)
	_ = w.Close()
	gzipWriters.Put(w)
	return out.Bytes()
}

// etagOf is a strong validator of the whole answer: status, headers and body.
func etagOf(e *cache.Entry) string {
	h := xxhash.New()
	var buf [8]byte
	_, _ = h.WriteString(strconv.Itoa(e.Status) + "\n")
	for _, kv := range e.Header {
		_, _ = h.WriteString(kv.Name + ": " + kv.Value + "\n")
	}
	_, _ = h.Write(e.Body)
	sum := h.Sum(buf[:0])
	return `"` + hex.EncodeToString(sum) + strconv.FormatInt(int64(len(e.Body)), 36) + `"`
}

// gzipETag is the validator of the compressed representation (a strong ETag names one coding).
func gzipETag(etag string) string { return strings.TrimSuffix(etag, `"`) + `-gzip"` }

// respond writes an answer. GET and HEAD answers get the HTTP caching headers and, when the
// request missed the cache with a ticket, are kept.
func respond(c *gin.Context, status int, hdrs []calendard.KV, ctype string, payload []byte) {
	ex := exchangeOf(c)
	if ex == nil {
		ex = &exchange{}
	}
	m := c.Request.Method
	if m != "GET" && m != "HEAD" {
		setHeaders(c, hdrs)
		setHeaders(c, ex.cors)
		c.Header("Content-Type", ctype)
		if ex.srv != nil && ex.srv.cfg.CacheHeader {
			c.Header("X-Cache", cache.Bypass.String())
		}
		c.Header("Content-Length", strconv.Itoa(len(payload)))
		c.Status(status)
		_, _ = c.Writer.Write(payload)
		return
	}
	e := &cache.Entry{Status: status, Header: make([]cache.Header, 0, len(hdrs)+1), Body: payload}
	for _, kv := range hdrs {
		e.Header = append(e.Header, cache.Header{Name: kv.Key, Value: kv.Value.(string)})
	}
	e.Header = append(e.Header, cache.Header{Name: "Content-Type", Value: ctype})
	e.ETag = etagOf(e)
	if ex.ticket != nil && cacheableStatus(status) {
		// payload is a pooled buffer: the kept entry gets its own copy.
		e.Body = bytes.Clone(payload)
		if len(e.Body) >= gzipMin {
			e.Gzip = gzipBytes(e.Body)
		}
		ex.srv.cfg.Cache.Put(c.Request.Context(), *ex.ticket, e)
	} else if ex.ticket != nil {
		ex.result = cache.Bypass
	}
	ex.srv.writeEntry(c, e, ex)
}

// writeEntry writes a GET or HEAD answer, fresh or from the cache.
func (s *Server) writeEntry(c *gin.Context, e *cache.Entry, ex *exchange) {
	h := c.Writer.Header()
	for _, kv := range e.Header {
		h.Set(kv.Name, kv.Value)
	}
	setHeaders(c, ex.cors)
	// Answers differ by caller (Authorization), by coding and, where CORS applies, by Origin
	// (corsHeaders adds that one).
	h.Add("Vary", "Authorization, Accept-Encoding")
	switch {
	case e.Status >= 500:
		h.Set("Cache-Control", "no-store")
	case ex.private:
		if h.Get("Cache-Control") == "" {
			h.Set("Cache-Control", "private, no-cache")
		}
	case s == nil:
	case s.cfg.PublicMaxAge > 0:
		h.Set("Cache-Control", "public, max-age="+strconv.Itoa(int(s.cfg.PublicMaxAge/time.Second)))
	default:
		h.Set("Cache-Control", "public, no-cache")
	}
	if s != nil && s.cfg.CacheHeader {
		h.Set("X-Cache", ex.result.String())
	}
	body, etag := e.Body, e.ETag
	if len(body) >= gzipMin && acceptsGzip(c.GetHeader("Accept-Encoding")) {
		if e.Gzip == nil {
			e.Gzip = gzipBytes(body)
		}
		body, etag = e.Gzip, gzipETag(e.ETag)
		h.Set("Content-Encoding", "gzip")
	}
	h.Set("ETag", etag)
	if e.Status >= 200 && e.Status < 300 && matchesETag(c.GetHeader("If-None-Match"), e.ETag) {
		h.Del("Content-Type")
		h.Del("Content-Length")
		h.Del("Content-Encoding")
		c.Status(304)
		c.Writer.WriteHeaderNow()
		return
	}
	h.Set("Content-Length", strconv.Itoa(len(body)))
	c.Status(e.Status)
	if c.Request.Method != "HEAD" {
		_, _ = c.Writer.Write(body)
	} else {
		c.Writer.WriteHeaderNow()
	}
}

// acceptsGzip reads Accept-Encoding: gzip (or *) listed without q=0.
func acceptsGzip(ae string) bool {
	for _, part := range strings.Split(ae, ",") {
		name, params, _ := strings.Cut(strings.TrimSpace(part), ";")
		name = strings.ToLower(strings.TrimSpace(name))
		if name != "gzip" && name != "x-gzip" && name != "*" {
			continue
		}
		if q, ok := strings.CutPrefix(strings.ReplaceAll(strings.ToLower(params), " ", ""), "q="); ok {
			if f, err := strconv.ParseFloat(q, 64); err == nil && f == 0 {
				return false
			}
		}
		return true
	}
	return false
}

// matchesETag is If-None-Match's weak comparison against the answer's validator in either coding.
func matchesETag(inm, etag string) bool {
	if inm == "" {
		return false
	}
	gz := gzipETag(etag)
	for _, t := range strings.Split(inm, ",") {
		t = strings.TrimPrefix(strings.TrimSpace(t), "W/")
		if t == "*" || t == etag || t == gz {
			return true
		}
	}
	return false
}
