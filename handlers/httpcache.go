package handlers

import (
	"bytes"
	"compress/gzip"
	"encoding/hex"
	"net/http"
	"net/textproto"
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
// the response cache (cache/) exactly as they were sent. An anonymous GET is looked up before any
// other work (cachedFirst); other requests once their caller is known (serveCached).

// exchange is what one request's answer needs to know beyond its body and headers.
type exchange struct {
	srv    *Server
	start  time.Time
	route  string // metrics label
	result cache.Result
	ticket *cache.Ticket // set on a cache miss: the answer is to be kept
	// clockBound: the answer depends on the clock (kept for its second only).
	clockBound bool
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
	// The series of each route and result, looked up once (a hit must not hash label values).
	routes   sync.Map // route label -> prometheus.Observer
	byResult [3]prometheus.Counter
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
	for _, res := range []cache.Result{cache.Bypass, cache.Hit, cache.Miss} {
		m.byResult[res] = m.results.WithLabelValues(res.String())
	}
	r.MustRegister(m.latency, m.results)
	return m
}

// observe records one answer.
func (m *httpMetrics) observe(route string, d time.Duration, res cache.Result) {
	o, ok := m.routes.Load(route)
	if !ok {
		o, _ = m.routes.LoadOrStore(route, m.latency.WithLabelValues(route))
	}
	o.(prometheus.Observer).Observe(d.Seconds())
	m.byResult[res].Inc()
}

// exchanges starts each request's exchange and records its metrics when it has been answered.
func (s *Server) exchanges() gin.HandlerFunc {
	return func(c *gin.Context) {
		// A request with credentials is private whether or not they were accepted.
		ex := &exchange{srv: s, start: time.Now(), route: "other", private: c.GetHeader("Authorization") != ""}
		if v, ok := c.Get(lookupKey); ok {
			ex.start = v.(*cacheLookup).start // the lookup is part of the answer's time
		}
		c.Set(exchangeKey, ex)
		c.Next()
		if m := s.metrics; m != nil {
			route := ex.route
			if route == "other" && (c.Request.URL.Path == "/healthz" || c.Request.URL.Path == "/metrics") {
				route = c.Request.URL.Path
			}
			m.observe(route, time.Since(ex.start), ex.result)
		}
	}
}

// httpCaching is what the HTTP caching headers need, computed once.
type httpCaching struct {
	public []string // Cache-Control of anonymous answers
}

func newHTTPCaching(cfg Config) httpCaching {
	public := "public, no-cache"
	if cfg.PublicMaxAge > 0 {
		public = "public, max-age=" + strconv.Itoa(int(cfg.PublicMaxAge/time.Second))
	}
	return httpCaching{public: []string{public}}
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

// anonymousView is the view every anonymous visitor shares.
const anonymousView = "anonymous"

// viewOf names what a caller may see: anonymous visitors share one view; an authenticated user's
// answers are kept under that user alone (ID, login, email, roles and every capability, so a
// changed role is another view) and are never served to anyone else.
func viewOf(u *calendard.User) string {
	if !u.LoggedIn() {
		return anonymousView
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

// cacheKey is the response cache's key of a GET or HEAD request: the request as sent (path and
// query string exactly: answers echo the query's order and spelling in rest_url and
// next_rest_url), whether it came over TLS (/doc says so) and the caller's view. GET and HEAD
// share it.
func cacheKey(path, rawQuery string, secure bool, view, accept string) string {
	scheme := "http"
	if secure {
		scheme = "https"
	}
	k := "v1\x00" + path + "\x00" + rawQuery + "\x00" + scheme + "\x00" + view
	if AcceptsCalendar(accept) {
		// The same URL answers iCalendar to an Accept naming text/calendar.
		k += "\x00ical"
	}
	return k
}

// AcceptsCalendar reports whether an Accept header names text/calendar (without q=0): the events
// list then answers iCalendar.
func AcceptsCalendar(accept string) bool {
	for accept != "" {
		var part string
		part, accept, _ = strings.Cut(accept, ",")
		name, params, _ := strings.Cut(part, ";")
		if !strings.EqualFold(strings.TrimSpace(name), "text/calendar") {
			continue
		}
		for _, prm := range strings.Split(params, ";") {
			if q, ok := strings.CutPrefix(strings.ToLower(strings.TrimSpace(prm)), "q="); ok {
				if f, err := strconv.ParseFloat(strings.TrimSpace(q), 64); err == nil && f == 0 {
					return false
				}
			}
		}
		return true
	}
	return false
}

// cacheLookup is cachedFirst's lookup, handed to serveCached so that a miss is not looked up twice.
type cacheLookup struct {
	start  time.Time
	key    string
	now    int64
	ticket cache.Ticket
	result cache.Result
}

const lookupKey = "calendard.lookup"

// cachedFirst answers an anonymous GET or HEAD from the response cache before any other work: no
// site options, authentication, route matching or parameters. For such a request the key holds
// everything its answer depends on (path, query string, scheme; the anonymous view), and only
// answers serve() computed and kept under that key can be found, so a request serve() would not
// have kept (a body, a method override, an unknown route) finds nothing and goes on as usual.
func (s *Server) cachedFirst() gin.HandlerFunc {
	return func(c *gin.Context) {
		r := c.Request
		if !s.anonymousRead(r) {
			return
		}
		start := time.Now()
		key := cacheKey(r.URL.Path, r.URL.RawQuery, s.secureRequest(r), anonymousView, r.Header.Get("Accept"))
		now := s.cfg.Clock().Unix()
		e, t, res := s.cfg.Cache.Get(r.Context(), key, now, false)
		if res != cache.Hit {
			c.Set(lookupKey, &cacheLookup{start: start, key: key, now: now, ticket: t, result: res})
			return
		}
		c.Abort()
		if s.cfg.AccessLog {
			c.Set(routeKey, e.Route)
		}
		s.writeEntry(c.Writer, r, e, cache.Hit, false, s.corsHeaders(r.Header.Get("Origin"), calendard.Anonymous, r.Method))
		if m := s.metrics; m != nil {
			m.observe(e.Route, time.Since(start), cache.Hit)
		}
	}
}

// anonymousRead reports whether r is a GET or HEAD without credentials, body or method override,
// within the URI limit (limitURI answers the others).
func (s *Server) anonymousRead(r *http.Request) bool {
	return s.cfg.Cache != nil && (r.Method == "GET" || r.Method == "HEAD") && r.ContentLength == 0 &&
		len(r.TransferEncoding) == 0 && r.Header["Authorization"] == nil && r.Header["X-Http-Method-Override"] == nil &&
		(s.cfg.MaxURIBytes <= 0 || len(r.RequestURI) <= s.cfg.MaxURIBytes)
}

// serveCached looks a GET or HEAD request up in the response cache once its caller is known and
// answers it from there when it can; on a miss it leaves a ticket so that respond keeps the answer.
// It also names the request's route for the metrics.
func (s *Server) serveCached(c *gin.Context, req *Request, route string) bool {
	ex := exchangeOf(c)
	if ex == nil {
		return false
	}
	private := req.User.LoggedIn()
	ex.private = ex.private || private
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
		(route != "/" && rt == nil) || strings.Contains(c.Request.URL.RawQuery, "sync_token") {
		// A body (a GET may carry JSON parameters) or an override makes the request something
		// else than its URL says; unknown routes are cheap to answer. A sync answer follows the
		// sync journal, which can move on without the generation (handlers/tribe/sync.go).
		return false
	}
	ex.clockBound = route == "/" || dependsOnClock(ns, rt, c.Request.URL.RawQuery)
	now := req.Now.Unix()
	key := cacheKey(c.Request.URL.Path, c.Request.URL.RawQuery, req.Secure, viewOf(req.User), c.GetHeader("Accept"))
	var e *cache.Entry
	var ticket cache.Ticket
	var res cache.Result
	if v, ok := c.Get(lookupKey); ok && v.(*cacheLookup).key == key && v.(*cacheLookup).now == now {
		// cachedFirst looked it up already (and did not find it).
		l := v.(*cacheLookup)
		ticket, res = l.ticket, l.result
	} else {
		e, ticket, res = s.cfg.Cache.Get(req.ctx, key, now, private)
	}
	ex.result = res
	switch res {
	case cache.Hit:
		ex.cors = s.corsHeaders(c.GetHeader("Origin"), req.User, m)
		s.writeEntry(c.Writer, c.Request, e, res, ex.private, ex.cors)
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

// etagOf is a strong validator of the whole answer: status, headers and body. A list's sync token
// is left out: an unchanged list is the same representation whatever the journal did meanwhile
// (its older token only repeats changes), and a store without the journal answers the same.
func etagOf(e *cache.Entry) string {
	h := xxhash.New()
	var buf [8]byte
	_, _ = h.WriteString(strconv.Itoa(e.Status) + "\n")
	for _, kv := range e.Header {
		if kv.Name == SyncTokenHeader {
			continue
		}
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
	e := &cache.Entry{Status: status, Header: make([]cache.Header, 0, len(hdrs)+1), Body: payload, Route: ex.route}
	for _, kv := range hdrs {
		e.Header = append(e.Header, cache.Header{Name: kv.Key, Value: kv.Value.(string)})
	}
	e.Header = append(e.Header, cache.Header{Name: "Content-Type", Value: ctype})
	e.ETag = etagOf(e)
	if ex.ticket != nil && cacheableStatus(status) {
		// payload is a pooled buffer: the kept entry gets its own copy, and everything a hit
		// writes is made now, before other requests can see the entry.
		e.Body = bytes.Clone(payload)
		if len(e.Body) >= gzipMin {
			e.Gzip = gzipBytes(e.Body)
		}
		preparedOf(e)
		ex.srv.cfg.Cache.Put(c.Request.Context(), *ex.ticket, e, ex.clockBound)
	} else if ex.ticket != nil {
		ex.result = cache.Bypass
	}
	ex.srv.writeEntry(c.Writer, c.Request, e, ex.result, ex.private, ex.cors)
}

// preparedEntry is an entry's headers as writeEntry writes them: canonical names with their
// values, assigned to the response's header map as they are. The value slices are shared by every
// answer of the entry: they have no spare capacity, so an append elsewhere copies them.
type preparedEntry struct {
	fields       []headerField // the answer's own headers (the last of a name wins, as Header.Set)
	cacheControl bool          // one of them is Cache-Control
	etag         []string
	gzipETag     []string
	length       []string
	gzipLength   []string // nil when the entry has no gzip copy
}

type headerField struct {
	name  string
	value []string
}

// preparedOf returns the entry's prepared headers, making them the first time.
func preparedOf(e *cache.Entry) *preparedEntry {
	if p, ok := e.Prepared().(*preparedEntry); ok {
		return p
	}
	p := &preparedEntry{fields: make([]headerField, 0, len(e.Header))}
	for _, kv := range e.Header {
		name, value := textproto.CanonicalMIMEHeaderKey(kv.Name), []string{kv.Value}
		if i := slices.IndexFunc(p.fields, func(f headerField) bool { return f.name == name }); i >= 0 {
			p.fields[i].value = value
			continue
		}
		p.fields = append(p.fields, headerField{name, value})
		p.cacheControl = p.cacheControl || name == "Cache-Control"
	}
	p.etag, p.gzipETag = []string{e.ETag}, []string{gzipETag(e.ETag)}
	p.length = []string{strconv.Itoa(len(e.Body))}
	if e.Gzip != nil {
		p.gzipLength = []string{strconv.Itoa(len(e.Gzip))}
	}
	e.SetPrepared(p)
	return p
}

// Header values every answer shares (never modified: see preparedEntry).
var (
	// Accept: the events list answers iCalendar to text/calendar.
	varyPlain     = []string{"Authorization, Accept-Encoding, Accept"}
	varyOrigin    = []string{"Origin", "Authorization, Accept-Encoding, Accept"}
	ccNoStore     = []string{"no-store"}
	ccPrivate     = []string{"private, no-cache"}
	codingGzip    = []string{"gzip"}
	xCacheResults = [3][]string{{cache.Bypass.String()}, {cache.Hit.String()}, {cache.Miss.String()}}
)

// writeEntry writes a GET or HEAD answer, fresh or from the cache. private: the request carried
// credentials; cors: this request's CORS headers.
func (s *Server) writeEntry(w http.ResponseWriter, r *http.Request, e *cache.Entry, result cache.Result, private bool, cors []calendard.KV) {
	p := preparedOf(e)
	h := w.Header()
	for _, f := range p.fields {
		h[f.name] = f.value
	}
	// Answers differ by caller (Authorization), by coding and, where CORS applies, by Origin
	// (corsHeaders names that one, and comes first).
	vary := varyPlain
	for _, kv := range cors {
		if v := kv.Value.(string); kv.Key == "Vary" && v == "Origin" {
			vary = varyOrigin
		} else {
			h.Set(kv.Key, v)
		}
	}
	if len(h["Vary"]) > 0 {
		h["Vary"] = append(h["Vary"], vary...)
	} else {
		h["Vary"] = vary
	}
	switch {
	case e.Status >= 500:
		h["Cache-Control"] = ccNoStore
	case private:
		if !p.cacheControl {
			h["Cache-Control"] = ccPrivate
		}
	case s == nil:
	default:
		h["Cache-Control"] = s.hc.public
	}
	if s != nil && s.cfg.CacheHeader {
		h["X-Cache"] = xCacheResults[result]
	}
	body, etag, length := e.Body, p.etag, p.length
	if len(body) >= gzipMin && acceptsGzip(r.Header.Get("Accept-Encoding")) {
		if e.Gzip != nil {
			body, length = e.Gzip, p.gzipLength
		} else {
			// An answer not kept: compressed for this request only.
			body = gzipBytes(body)
			length = []string{strconv.Itoa(len(body))}
		}
		etag = p.gzipETag
		h["Content-Encoding"] = codingGzip
	}
	h["Etag"] = etag
	if e.Status >= 200 && e.Status < 300 {
		if notModified(r, e, p) {
			delete(h, "Content-Type")
			delete(h, "Content-Length")
			delete(h, "Content-Encoding")
			w.WriteHeader(304)
			return
		}
	}
	h["Content-Length"] = length
	w.WriteHeader(e.Status)
	if r.Method != "HEAD" {
		_, _ = w.Write(body)
	}
}

// notModified evaluates If-None-Match, or, without one, If-Modified-Since against the answer's own
// Last-Modified (RFC 9110 13.2.2; answers without Last-Modified ignore it).
func notModified(r *http.Request, e *cache.Entry, p *preparedEntry) bool {
	if inm := r.Header.Get("If-None-Match"); inm != "" {
		return matchesETag(inm, e.ETag)
	}
	ims := r.Header.Get("If-Modified-Since")
	if ims == "" || r.Method != "GET" && r.Method != "HEAD" {
		return false
	}
	for _, f := range p.fields {
		if f.name != "Last-Modified" {
			continue
		}
		lm, err1 := http.ParseTime(f.value[0])
		since, err2 := http.ParseTime(ims)
		return err1 == nil && err2 == nil && !lm.After(since)
	}
	return false
}

// acceptsGzip reads Accept-Encoding: gzip (or *) listed without q=0.
func acceptsGzip(ae string) bool {
	for ae != "" {
		var part string
		part, ae, _ = strings.Cut(ae, ",")
		name, params, _ := strings.Cut(strings.TrimSpace(part), ";")
		name = strings.TrimSpace(name)
		if !strings.EqualFold(name, "gzip") && !strings.EqualFold(name, "x-gzip") && name != "*" {
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
	for inm != "" {
		var t string
		t, inm, _ = strings.Cut(inm, ",")
		t = strings.TrimPrefix(strings.TrimSpace(t), "W/")
		if t == "*" || t == etag || isGzipETag(t, etag) {
			return true
		}
	}
	return false
}

// isGzipETag reports whether t is gzipETag(etag), without making it.
func isGzipETag(t, etag string) bool {
	base := strings.TrimSuffix(etag, `"`)
	return len(t) == len(base)+len(`-gzip"`) && strings.HasPrefix(t, base) && strings.HasSuffix(t, `-gzip"`)
}

// SyncTokenHeader carries a v1 list's sync token (handlers/tribe/sync.go).
const SyncTokenHeader = "X-Calendard-Sync-Token"
