// Package handlers serves the plugin's REST API over Gin. It reproduces the WordPress REST server the
// plugin runs on (route matching, parameter sources and validation order, permission checks, headers,
// error bodies, _embed, _fields/_envelope, indexes, OPTIONS, /doc) and serves the route families
// registered into it (RouteFamily, Server.Register; registry.go): the plugin's namespaces (package
// handlers/tribe) and wp/v2 (package handlers/wpv2), which share the term logic of handlers/termapi.
// The server imports none of them; internal/service makes the families with their services and
// passes them to New. request_api.go is what families use of a request beyond its fields
// (Context, Local, Write, ReadBack); shared.go and paging.go hold the WordPress helpers both
// families use (Permalink, UploadURL, RowsBefore).
package handlers

import (
	"bytes"
	"context"
	"errors"
	"log/slog"
	"math"
	"net"
	"net/netip"
	"regexp"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/gin-gonic/gin"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/promhttp"

	"github.com/calendard/calendard"
	"github.com/calendard/calendard/cache"
	"github.com/calendard/calendard/internal/phpjson"
	"github.com/calendard/calendard/internal/wptext"
)

// SiteSource yields the current site settings (options may change while the service runs).
type SiteSource interface {
	Site(ctx context.Context) (*calendard.Site, error)
}

// Database is the health and failure classification of the store's connection (wpdb.DB).
type Database interface {
	// Ping reports database health.
	Ping(ctx context.Context) error
	// Unavailable reports whether err is the database failing (a refused connection, a server
	// gone away) as the store classifies its driver's errors.
	Unavailable(err error) bool
}

// Config holds the settings of the HTTP layer.
type Config struct {
	// Environment is WordPress' environment type; application passwords work over plain HTTP only
	// when it is "local".
	Environment string
	// TrustedProxies may tell, with X-Forwarded-Proto: https, that the client used TLS.
	TrustedProxies []netip.Prefix
	// Clock returns the current time (frozen by CALENDAR_NOW).
	Clock  func() time.Time
	Logger *slog.Logger
	// RenderCacheBytes bounds the rendered event records kept for anonymous lists (0: 64 MiB;
	// negative: none); read by the plugin's routes (tribe.Options).
	RenderCacheBytes int
	// ICalMaxEvents caps the events of an events list answered as iCalendar (0: 1000); read by
	// the plugin's routes (tribe.Options).
	ICalMaxEvents int

	// Limits (docs/reliability.md). Zero means the default; where a limit can be
	// switched off, a negative value does that.

	// MaxBodyBytes bounds request bodies: 413 beyond (default 8 MiB, PHP's post_max_size).
	MaxBodyBytes int64
	// MaxBodyValues bounds the values (scalars, arrays, objects) one JSON body may hold: 400
	// rest_request_too_complex beyond (default 10000). Form bodies keep PHP's max_input_vars (1000).
	MaxBodyValues int
	// MaxDecodedBytes bounds the estimated size of the values decoded from one body: 400
	// rest_request_too_complex beyond (default 16 MiB).
	MaxDecodedBytes int64
	// BodyMemory is the process-wide budget of request bodies in flight (bytes read and decoded by
	// running requests; a declared Content-Length is charged before reading): 503 rest_server_busy
	// with Retry-After at once beyond (default 64 MiB).
	BodyMemory int64
	// BodyTimeout is the time a request body has to arrive whole: 408 rest_request_timeout beyond
	// (default 30 s).
	BodyTimeout time.Duration
	// MaxURIBytes bounds the request line's target: 414 rest_uri_too_long beyond (default 8 KiB,
	// nginx's large_client_header_buffers).
	MaxURIBytes int
	// DBTimeout is the deadline of a request's database work, once before and once after its body is
	// read: 503 service_unavailable beyond (default 5 s).
	DBTimeout time.Duration
	// Logins limits failed logins per account and per client address.
	Logins LoginLimit
	// CORSOrigins are the origins answered with CORS headers; nil or "*" means any (WordPress'
	// rest_send_cors_headers reflects every Origin, "null" included).
	CORSOrigins []string
	// StrictReads filters lists (events, venues, organizers, search= and include= too) by the
	// read_post rule single records use. Off: lists show what the plugin shows. Read by the
	// plugin's routes (tribe.Options).
	StrictReads bool
	// Cache keeps whole GET answers (nil: none); httpcache.go.
	Cache *cache.Cache
	// CacheHeader adds X-Cache: HIT|MISS|BYPASS to answers.
	CacheHeader bool
	// PublicMaxAge is how long shared caches may keep answers to anonymous requests
	// (Cache-Control: public, max-age); 0: they must revalidate (no-cache) every time.
	PublicMaxAge time.Duration
	// Metrics receives the HTTP layer's Prometheus series (nil: none).
	Metrics *prometheus.Registry
	// PublicMetrics serves Metrics at /metrics on this handler too (calendard serves them on its
	// diagnostics listener; CALENDAR_METRICS=public asks for this).
	PublicMetrics bool
	// WholeSite says calendard is the whole site (no WordPress serves its pages, as with the
	// embedded store): a GET or HEAD of a path it does not serve is the site's 404 page, with
	// WordPress' and the plugin's API discovery headers. The site root always is a page.
	WholeSite bool
	// Geo turns on the paid edition's geoloc filters (events) and calendard's extensions of them
	// (venues, geoloc_radius); off, the parameters only echo into rest_url, as without that edition.
	Geo bool
	// GeoRadiusKM is the default geoloc_radius. Both are read by the plugin's routes
	// (tribe.Options).
	GeoRadiusKM float64
	// AccessLog writes one line per request to Logger and answers with an X-Request-ID
	// (accesslog.go).
	AccessLog bool
	// FrontEnd answers the front-end (non-REST) requests it serves, such as the calendar's iCal
	// exports (package handlers/ical), and reports whether it did; the others go on as before.
	FrontEnd func(c *gin.Context) bool
}

// Deps are the services the server itself uses; the route families get their own.
type Deps struct {
	Site SiteSource
	DB   Database
	// Users authenticate application passwords (and record their use).
	Users calendard.UserService
}

// Server is the REST API.
type Server struct {
	cfg    Config
	deps   Deps
	routes []*Route
	core   []*Route // wp/v2 (Register)
	log    *slog.Logger
	bodies *bodyPool
	logins *loginLimiter
	// untrustedProxyWarned: the warning about forwarding headers from an untrusted peer was logged.
	untrustedProxyWarned atomic.Bool
	cors                 corsPolicy
	metrics              *httpMetrics
	hc                   httpCaching
	// plainHTTPWarned: the warning about credentials over plain HTTP has been logged.
	plainHTTPWarned atomic.Bool
}

// New builds the Gin engine serving the API with the routes the families register.
func New(cfg Config, deps Deps, families ...RouteFamily) *gin.Engine {
	if cfg.Clock == nil {
		cfg.Clock = time.Now
	}
	if cfg.Logger == nil {
		cfg.Logger = slog.Default()
	}
	setDefault(&cfg.MaxBodyBytes, defaultMaxBodyBytes)
	setDefault(&cfg.MaxBodyValues, defaultMaxBodyValues)
	setDefault(&cfg.MaxDecodedBytes, defaultMaxDecodedBytes)
	setDefault(&cfg.BodyMemory, defaultBodyMemory)
	setDefault(&cfg.BodyTimeout, defaultBodyTimeout)
	setDefault(&cfg.MaxURIBytes, defaultMaxURIBytes)
	setDefault(&cfg.DBTimeout, defaultDBTimeout)
	if cfg.MaxBodyBytes < 0 {
		cfg.MaxBodyBytes = math.MaxInt64
	}
	s := &Server{cfg: cfg, deps: deps, log: cfg.Logger, bodies: &bodyPool{limit: cfg.BodyMemory},
		logins: newLoginLimiter(cfg.Logins), cors: newCORSPolicy(cfg.CORSOrigins)}
	for _, register := range families {
		register(s)
	}

	gin.SetMode(gin.ReleaseMode)
	e := gin.New()
	if cfg.Metrics != nil {
		s.metrics = newHTTPMetrics(cfg.Metrics)
	}
	s.hc = newHTTPCaching(cfg)
	if cfg.AccessLog {
		// First: it times and logs every answer, those from the response cache too.
		e.Use(s.accessLog())
	}
	// cachedFirst answers anonymous reads from the response cache before everything else.
	e.Use(s.untrustedProxyCheck(), s.cachedFirst(), s.exchanges(), s.recoverer(), s.limitURI())
	if cfg.Metrics != nil && cfg.PublicMetrics {
		e.GET("/metrics", gin.WrapH(promhttp.HandlerFor(cfg.Metrics, promhttp.HandlerOpts{})))
	}
	e.GET("/healthz", s.health)
	e.HEAD("/healthz", s.health)
	e.Any("/wp-json", s.serveREST)
	e.Any("/wp-json/*route", s.serveREST)
	e.Any("/", s.serveQueryRoute)
	e.Any("/index.php", s.serveQueryRoute)
	e.NoRoute(s.serveNoRoute)
	e.NoMethod(s.serveNoRoute)
	return e
}

// setDefault replaces a zero setting by its default.
func setDefault[T int | int64 | time.Duration](v *T, def T) {
	if *v == 0 {
		*v = def
	}
}

// dbContext bounds the database work of a request by the configured deadline.
func (s *Server) dbContext(parent context.Context) (context.Context, context.CancelFunc) {
	if s.cfg.DBTimeout > 0 {
		return context.WithTimeout(parent, s.cfg.DBTimeout)
	}
	return context.WithCancel(parent)
}

// recoverer turns a panic into a WordPress-shaped 500 and logs it; the process keeps serving.
func (s *Server) recoverer() gin.HandlerFunc {
	return func(c *gin.Context) {
		defer func() {
			if rec := recover(); rec != nil {
				s.log.Error("panic serving request", "path", c.Request.URL.Path, "panic", rec)
				c.Abort()
				writeJSON(c, 500, errorBody(internalError()), nil)
			}
		}()
		c.Next()
	}
}

func (s *Server) health(c *gin.Context) {
	ctx, cancel := context.WithTimeout(c.Request.Context(), 2*time.Second)
	defer cancel()
	if err := s.deps.DB.Ping(ctx); err != nil {
		// The driver's text names hosts and ports: it goes to the log, not to the (public) probe.
		s.log.Error("health check: database unavailable", "err", err)
		writeJSON(c, 503, phpjson.Obj("status", "unavailable", "database", "unreachable"), nil)
		return
	}
	writeJSON(c, 200, phpjson.Obj("status", "ok"), nil)
}

// serveREST handles /wp-json/<route>.
func (s *Server) serveREST(c *gin.Context) {
	s.serve(c, "/"+strings.TrimPrefix(c.Param("route"), "/"))
}

// serveQueryRoute handles /?rest_route=<route> (and /index.php?rest_route=).
func (s *Server) serveQueryRoute(c *gin.Context) {
	q := parseQuery(c.Request.URL.RawQuery)
	v, ok := q.Get("rest_route")
	if !ok && s.cfg.FrontEnd != nil && s.cfg.FrontEnd(c) {
		return
	}
	if !ok && isPageMethod(c.Request.Method) {
		// No REST route asked for: the site's front page.
		s.serveSitePage(c, 200)
		return
	}
	route, isStr := v.(string)
	if !ok || !isStr {
		s.serveNoRoute(c)
		return
	}
	s.serve(c, route)
}

// serveNoRoute answers like WordPress does for an unknown REST route.
func (s *Server) serveNoRoute(c *gin.Context) {
	if route, ok := restRewrite(c.Request.URL.Path); ok {
		// A path the router did not take as /wp-json/ (doubled slashes before it) that
		// WordPress' rewrite rules still send to the REST API.
		s.serve(c, route)
		return
	}
	if s.cfg.FrontEnd != nil && s.cfg.FrontEnd(c) {
		return
	}
	if s.cfg.WholeSite && isPageMethod(c.Request.Method) && !strings.HasPrefix(c.Request.URL.Path, "/wp-json/") {
		// calendard is the whole site: what it does not serve is the site's 404 page.
		s.serveSitePage(c, 404)
		return
	}
	writeJSON(c, 404, errorBody(&calendard.Error{Code: "rest_no_route", Message: calendard.MsgNoRoute, Status: 404}), baseHeaders(nil))
}

// restRewrite is what WP::parse_request and the REST rewrite rules (^wp-json/?$ and
// ^wp-json/(.*)?) make of a path: the slashes around it are trimmed before matching, so
// "//wp-json/x" is the route "/x" and "//wp-json//x" the route "//x" (no route). ok is false when
// the path is not the API's.
func restRewrite(path string) (route string, ok bool) {
	p := strings.Trim(path, "/")
	if p == "wp-json" {
		return "/", true
	}
	if rest, found := strings.CutPrefix(p, "wp-json/"); found {
		return "/" + rest, true
	}
	return "", false
}

func internalError() *calendard.Error {
	return &calendard.Error{Code: "internal_server_error", Message: "The server could not complete the request.", Status: 500}
}

var errUnavailable = &calendard.Error{Code: "service_unavailable", Message: "The database is not reachable.", Status: 503}

var errDBTimeout = &calendard.Error{Code: "service_unavailable", Message: "The database did not answer in time.", Status: 503}

// serve runs one REST request through WordPress' serve_request: authentication, route matching,
// parameter checks, permission, handler, then the response filters (Allow, envelope, JSONP, _fields).
func (s *Server) serve(c *gin.Context, route string) {
	ctx, cancel := s.dbContext(c.Request.Context())
	defer cancel()
	site, err := s.deps.Site.Site(ctx)
	if err != nil {
		e := errUnavailable
		if ctx.Err() == context.DeadlineExceeded {
			e = errDBTimeout
		}
		s.log.Error("loading site options", "err", err)
		writeJSON(c, 503, errorBody(e), baseHeaders(nil))
		return
	}
	now := s.cfg.Clock()
	query := parseQuery(c.Request.URL.RawQuery)

	user, authErr, authHdrs := s.authenticate(ctx, c, site, now)
	hdrs := baseHeaders(site)
	if authErr != nil {
		resp := &Response{Status: authErr.Status, Body: errorBody(authErr), Headers: authHdrs}
		s.finish(c, nil, query, site, user, resp, hdrs)
		return
	}
	if user.LoggedIn() {
		hdrs = append(hdrs, noCacheHeaders...)
	}

	// rest_route values are untrailingslashit()ed; an empty route is the index.
	route = strings.TrimRight(route, `/\`)
	if route == "" {
		route = "/"
	}

	method := c.Request.Method
	if m, ok := query.Get("_method"); ok {
		if ms, isStr := m.(string); isStr {
			method = strings.ToUpper(ms)
		}
	} else if m := c.GetHeader("X-HTTP-Method-Override"); m != "" {
		method = strings.ToUpper(m)
	}

	req := &Request{ctx: ctx, dbContext: s.dbContext, log: s.log, Method: method, Site: site, User: user, Now: now,
		Render: wptext.NewRenderContext(site.HomeURL), Secure: s.secure(c), Accept: c.GetHeader("Accept"), query: query, url: phpjson.NewObject(), defaults: phpjson.NewObject()}
	if s.serveCached(c, req, route) {
		return
	}

	if route == "/" && (method == "GET" || method == "HEAD") {
		s.finish(c, req, query, site, user, s.siteIndex(req), append(hdrs, calendard.KV{Key: "Allow", Value: "GET"}))
		return
	}

	rt, ep, ns, captures := s.match(route, method, site)
	if rt == nil {
		resp := &Response{Status: 404, Body: errorBody(&calendard.Error{Code: "rest_no_route", Message: calendard.MsgNoRoute, Status: 404})}
		if ns2, r2 := s.matchPath(route, site); method == "OPTIONS" && r2 != nil {
			req.NS, req.Route = ns2, r2
			// rest_handle_options_request sets the route's URL parameters, which the Allow header's
			// permission callbacks read (the ID of a single).
			if _, rel, _, ok := s.routesFor(route); ok {
				if m := r2.re.FindStringSubmatch(rel); m != nil {
					for i, name := range r2.re.SubexpNames() {
						if name != "" {
							req.url.Set(name, m[i])
						}
					}
				}
			}
			resp = s.optionsResponse(req)
			s.finish(c, req, query, site, user, resp, append(hdrs, s.allowHeader(req)...))
			return
		}
		s.finish(c, nil, query, site, user, resp, hdrs)
		return
	}
	req.NS, req.Route, req.Endpoint = ns, rt, ep
	for k, v := range captures {
		req.url.Set(k, v)
	}
	budget := &bodyBudget{pool: s.bodies, maxValues: s.cfg.MaxBodyValues, maxDecodedBytes: s.cfg.MaxDecodedBytes}
	defer budget.release()
	if err := s.readBody(c, req, budget); err != nil {
		s.finish(c, req, query, site, user, bodyFailure(err), hdrs)
		budget.release()
		s.linger(c)
		return
	}
	// Reading the body has its own time limit: the database deadline starts again after it.
	ctx, cancel2 := s.dbContext(c.Request.Context())
	defer cancel2()
	req.ctx = ctx
	s.setDefaults(req)

	resp := s.run(req)
	s.embed(req, resp)
	s.finish(c, req, query, site, user, resp, append(hdrs, s.allowHeader(req)...))
}

// run performs the checks and the handler, turning errors into WordPress error responses.
func (s *Server) run(req *Request) *Response {
	resp, err := func() (*Response, error) {
		if err := req.checkParams(); err != nil {
			return nil, err
		}
		if p := req.Endpoint.Permission; p != nil {
			if err := p(req); err != nil {
				return nil, err
			}
		}
		return req.Endpoint.Handler(req)
	}()
	if err != nil {
		return s.errorResponse(req.ctx, err)
	}
	return resp
}

// storageFailure reports whether err is the database failing (a refused connection, a server gone
// away) as the store classifies its driver's errors: reads fail that way too, not only writes, which
// wrap it in calendard.ErrUnavailable themselves.
func (s *Server) storageFailure(err error) bool {
	return s.deps.DB != nil && s.deps.DB.Unavailable(err)
}

// errorResponse maps a domain error to its WordPress body; anything else is logged and hidden. Any
// failure once the request's database deadline has passed is that deadline's 503 (drivers report
// it in their own words: an interrupted SQLite statement, a killed MySQL connection).
func (s *Server) errorResponse(ctx context.Context, err error) *Response {
	var e *calendard.Error
	if !errors.As(err, &e) {
		if errors.Is(err, calendard.ErrCommitUnconfirmed) {
			// A write that did not name its record (wp/v2 writes, settings).
			s.log.Warn("commit not confirmed", "err", err)
			e = errUnconfirmed("change", 0)
		} else if errors.Is(err, context.DeadlineExceeded) || ctx.Err() == context.DeadlineExceeded {
			s.log.Warn("database deadline passed", "timeout", s.cfg.DBTimeout, "err", err)
			e = errDBTimeout
		} else if errors.Is(err, calendard.ErrUnavailable) || s.storageFailure(err) {
			s.log.Warn("storage unavailable", "err", err)
			e = errUnavailable
		} else if errors.Is(err, context.Canceled) {
			e = &calendard.Error{Code: "request_canceled", Message: "The request was canceled.", Status: 499}
		} else {
			s.log.Error("request failed", "err", err)
			e = internalError()
		}
	}
	status := e.Status
	if status == 0 {
		status = 500
	}
	return &Response{Status: status, Body: errorBody(e)}
}

// errorBody renders {"code","message","data":{"status",...}} plus any extra top-level keys.
func errorBody(e *calendard.Error) *phpjson.Object {
	b := phpjson.Obj("code", e.Code, "message", e.Message)
	if e.NoData {
		return b
	}
	if e.HasRawData {
		b.Set("data", e.RawData)
	} else {
		data := phpjson.NewObject()
		if e.Status != 0 {
			data.Set("status", e.Status)
		}
		for _, kv := range e.Data {
			data.Set(kv.Key, kv.Value)
		}
		b.Set("data", data)
	}
	for _, kv := range e.Extra {
		b.Set(kv.Key, kv.Value)
	}
	return b
}

// match finds the route and handler for a path and method like WP_REST_Server::match_request_to_handler:
// routes in registration order, the first whose regex matches and which has a handler for the method
// (HEAD falls back to GET).
func (s *Server) match(path, method string, site *calendard.Site) (*Route, *Endpoint, string, map[string]string) {
	if site.RESTDisabled {
		return nil, nil, "", nil
	}
	ns, rel, routes, ok := s.routesFor(path)
	if !ok {
		return nil, nil, "", nil
	}
	for _, rt := range routes {
		m := rt.re.FindStringSubmatch(rel)
		if m == nil {
			continue
		}
		for _, ep := range rt.Endpoints {
			for _, em := range ep.Methods {
				if em == method || (method == "HEAD" && em == "GET") {
					caps := map[string]string{}
					for i, name := range rt.re.SubexpNames() {
						if name != "" {
							caps[name] = m[i]
						}
					}
					return rt, ep, ns, caps
				}
			}
		}
	}
	return nil, nil, "", nil
}

// matchPath finds a route by path alone (OPTIONS requests).
func (s *Server) matchPath(path string, site *calendard.Site) (string, *Route) {
	if site.RESTDisabled {
		return "", nil
	}
	ns, rel, routes, ok := s.routesFor(path)
	if !ok {
		return "", nil
	}
	for _, rt := range routes {
		if rt.re.MatchString(rel) {
			return ns, rt
		}
	}
	return "", nil
}

var nsRe = regexp.MustCompile(`(?i)^/(calendar/events/v1|tribe/events/v1)(/.*)?$`)

// splitNamespace returns the namespace as spelled by the client (lower-cased) and the rest.
func splitNamespace(path string) (ns, rel string, ok bool) {
	m := nsRe.FindStringSubmatch(path)
	if m == nil {
		return "", "", false
	}
	return strings.ToLower(m[1]), m[2], true
}

// setDefaults evaluates the declared defaults of the matched handler.
func (s *Server) setDefaults(req *Request) {
	req.query = toObject(normalizeLists(req.query))
	for _, a := range req.Endpoint.Args {
		// WordPress registers only defaults that are set (isset): a null default is no value.
		if a.HasDefault && a.Default != nil {
			if v := a.Default(req); v != nil {
				req.defaults.Set(a.Name, v)
			}
		}
	}
}

func toObject(v any) *phpjson.Object {
	if o, ok := v.(*phpjson.Object); ok {
		return o
	}
	// A query string that is itself a bare list cannot happen (names are strings); keep it empty.
	return phpjson.NewObject()
}

// allowHeader is rest_send_allow_header: the route's methods whose permission callback passes.
func (s *Server) allowHeader(req *Request) []calendard.KV {
	if req == nil || req.Route == nil {
		return nil
	}
	allowed := map[string]bool{}
	var order []string
	for _, ep := range req.Route.Endpoints {
		pass := true
		if ep.Permission != nil {
			saved := req.Endpoint
			req.Endpoint = ep
			pass = ep.Permission(req) == nil
			req.Endpoint = saved
		}
		for _, m := range ep.Methods {
			if _, seen := allowed[m]; !seen {
				order = append(order, m)
			}
			allowed[m] = pass
		}
	}
	var out []string
	for _, m := range order {
		if allowed[m] {
			out = append(out, m)
		}
	}
	if len(out) == 0 {
		return nil
	}
	return []calendard.KV{{Key: "Allow", Value: strings.Join(out, ", ")}}
}

var noCacheHeaders = []calendard.KV{
	{Key: "Expires", Value: "Wed, 11 Jan 1984 05:00:00 GMT"},
	{Key: "Cache-Control", Value: "no-cache, must-revalidate, max-age=0, no-store, private"},
}

// baseHeaders are sent with every REST response.
func baseHeaders(site *calendard.Site) []calendard.KV {
	h := []calendard.KV{
		{Key: "X-Robots-Tag", Value: "noindex"},
		{Key: "X-Content-Type-Options", Value: "nosniff"},
		// WordPress exposes only its own headers; the plugin's totals are exposed too, so that a
		// front end on another origin can page through a list, and the sync tokens (handlers/tribe).
		{Key: "Access-Control-Expose-Headers", Value: "X-WP-Total, X-WP-TotalPages, Link, X-TEC-Total, X-TEC-TotalPages, X-Calendard-Sync-Token, X-Calendard-Sync-More"},
		{Key: "Access-Control-Allow-Headers", Value: "Authorization, X-WP-Nonce, Content-Disposition, Content-MD5, Content-Type"},
	}
	if site != nil {
		h = append(h, calendard.KV{Key: "Link", Value: "<" + RestURL(site, "/") + `>; rel="https://api.w.org/"`})
	}
	return h
}

// finish applies the global switches (_envelope, _jsonp, _fields) and writes the response.
func (s *Server) finish(c *gin.Context, req *Request, query *phpjson.Object, site *calendard.Site, user *calendard.User, resp *Response, hdrs []calendard.KV) {
	if ex := exchangeOf(c); ex != nil {
		// Kept apart from the answer's own headers: a cached answer gets each request's.
		ex.cors = s.corsHeaders(c.GetHeader("Origin"), user, c.Request.Method)
	} else {
		hdrs = append(hdrs, s.corsHeaders(c.GetHeader("Origin"), user, c.Request.Method)...)
	}
	status, body := resp.Status, resp.Body
	handlerHeaders := resp.Headers
	if resp.ContentType != "" {
		respond(c, status, append(hdrs, handlerHeaders...), resp.ContentType, resp.Raw)
		return
	}

	if v, ok := query.Get("_fields"); ok && status < 400 {
		body = filterFields(body, v)
	}
	if _, ok := query.Get("_envelope"); ok {
		hh := phpjson.NewObject()
		for _, kv := range handlerHeaders {
			hh.Set(kv.Key, kv.Value)
		}
		body = phpjson.Obj("body", body, "status", status, "headers", hh)
		status = 200
		handlerHeaders = nil
	}
	all := append(hdrs, handlerHeaders...)
	if cb, ok := query.Get("_jsonp"); ok {
		name, _ := cb.(string)
		if !jsonpRe.MatchString(name) {
			writeJSON(c, 400, phpjson.Obj("code", "rest_callback_invalid", "message", "Invalid JSONP callback function."), all)
			return
		}
		payload, err := phpjson.Marshal(body)
		if err != nil {
			s.log.Error("encoding response", "err", err)
			payload = phpjson.MustMarshal(errorBody(internalError()))
		}
		respond(c, status, all, "application/javascript; charset="+charset(site), []byte("/**/"+name+"("+string(payload)+")"))
		return
	}
	_, pretty := query.Get("_pretty")
	writeJSONWith(c, status, body, all, charset(site), pretty)
}

var jsonpRe = regexp.MustCompile(`^[\w\.]+$`)

func charset(site *calendard.Site) string {
	if site == nil || site.Charset == "" {
		return "UTF-8"
	}
	return site.Charset
}

func setHeaders(c *gin.Context, hdrs []calendard.KV) {
	for _, kv := range hdrs {
		c.Header(kv.Key, kv.Value.(string))
	}
}

func writeJSON(c *gin.Context, status int, body any, hdrs []calendard.KV) {
	writeJSONWith(c, status, body, hdrs, "UTF-8", false)
}

// encodeBuffers are reused response buffers: a list page is tens or hundreds of KB, grown from
// nothing per request otherwise. Buffers that grew past 1 MiB are left to the collector.
var encodeBuffers = sync.Pool{New: func() any { return new(bytes.Buffer) }}

// writeJSONWith is the one place responses are encoded (PHP json_encode output).
func writeJSONWith(c *gin.Context, status int, body any, hdrs []calendard.KV, cs string, pretty bool) {
	buf := encodeBuffers.Get().(*bytes.Buffer)
	buf.Reset()
	defer func() {
		if buf.Cap() <= 1<<20 {
			encodeBuffers.Put(buf)
		}
	}()
	var payload []byte
	if err := phpjson.MarshalTo(buf, body); err != nil {
		status = 500
		payload = phpjson.MustMarshal(errorBody(internalError()))
	} else {
		payload = buf.Bytes()
	}
	if pretty {
		payload = indentJSON(payload)
	}
	respond(c, status, hdrs, "application/json; charset="+cs, payload)
}

// filterFields is rest_filter_response_fields: keep listed top-level keys; dotted paths descend into
// objects only.
func filterFields(body any, spec any) any {
	s, ok := spec.(string)
	if !ok {
		return body
	}
	var fields []string
	for _, f := range strings.Split(s, ",") {
		if f = strings.TrimSpace(f); f != "" {
			fields = append(fields, f)
		}
	}
	if len(fields) == 0 {
		return body
	}
	sort.Strings(fields)
	return pickFields(body, fields)
}

func pickFields(body any, fields []string) any {
	switch b := body.(type) {
	case []any:
		out := make([]any, len(b))
		for i, e := range b {
			out[i] = pickFields(e, fields)
		}
		return out
	case *phpjson.Object:
		out := phpjson.NewObject()
		for _, k := range b.Keys() {
			var sub []string
			whole := false
			for _, f := range fields {
				if f == k {
					whole = true
				} else if strings.HasPrefix(f, k+".") {
					sub = append(sub, strings.TrimPrefix(f, k+"."))
				}
			}
			v, _ := b.Get(k)
			switch {
			case whole:
				out.Set(k, v)
			case len(sub) > 0:
				if o, ok := v.(*phpjson.Object); ok {
					out.Set(k, pickFields(o, sub))
				} else {
					out.Set(k, []any{})
				}
			}
		}
		return out
	}
	return body
}

// clientIP is REMOTE_ADDR: the TCP peer, never a forwarded header.
func clientIP(c *gin.Context) string {
	host, _, err := net.SplitHostPort(c.Request.RemoteAddr)
	if err != nil {
		return c.Request.RemoteAddr
	}
	return host
}
