package handlers

import (
	"context"
	"errors"
	"log/slog"
	"regexp"
	"strings"
	"time"

	"github.com/calendard/calendard"
	"github.com/calendard/calendard/internal/phpjson"
	"github.com/calendard/calendard/internal/wptext"
)

// Namespaces calendard serves; every route is registered under both with identical behaviour.
const (
	NamespaceCalendar = "calendar/events/v1"
	NamespaceTribe    = "tribe/events/v1"
)

// Arg is one declared route parameter, mirroring register_rest_route's args.
type Arg struct {
	Name     string
	Type     string // JSON-schema type WordPress coerces ("integer", "boolean", "string"), "" for none
	Required bool
	// Default computes the default value; HasDefault distinguishes a null default from none.
	Default    func(r *Request) any
	HasDefault bool

	Description string
	Format      string
	ItemsType   string // "items": {"type": ...} as shown in the index
	// Validate is the validate_callback: nil error = valid, errInvalid = "Invalid parameter.",
	// a *calendard.Error = that message plus details.
	Validate func(r *Request, v any) error
	// Sanitize replaces WordPress' type-based sanitizer when set.
	Sanitize func(r *Request, v any) (any, error)

	// Schema is the JSON schema of an argument WordPress core registers with one (wp/v2): route
	// descriptions show its keywords instead of the fields above (see schemaArg).
	Schema *phpjson.Object

	// Documentation-only attributes (/doc).
	SwaggerType      string
	In               string
	CollectionFormat string
}

// ErrInvalid is a validator's plain "false".
var ErrInvalid = errors.New("invalid parameter")

// Endpoint is one handler of a route.
type Endpoint struct {
	Methods []string
	Args    []*Arg
	// Permission is the permission_callback; nil means public.
	Permission func(r *Request) error
	Handler    func(r *Request) (*Response, error)
}

// Route is a namespace-relative WordPress route regex with its handlers in registration order.
type Route struct {
	Path      string // e.g. "/events/(?P<id>\d+)"; "" is the namespace root
	re        *regexp.Regexp
	Endpoints []*Endpoint
	// AllowBatch is the route's allow_batch option ({"v1": true} on each endpoint's description).
	AllowBatch bool
	// Schema is the route's item schema, shown by OPTIONS (nil: none).
	Schema func(r *Request) *phpjson.Object
}

func (rt *Route) compile() {
	rt.re = regexp.MustCompile(`(?i)^` + rt.Path + `$`)
}

// Methods returns the union of the route's methods in handler order.
func (rt *Route) Methods() []string {
	var out []string
	seen := map[string]bool{}
	for _, ep := range rt.Endpoints {
		for _, m := range ep.Methods {
			if !seen[m] {
				seen[m] = true
				out = append(out, m)
			}
		}
	}
	return out
}

// HasVariables reports whether the route has path parameters (those get no _links.self).
func (rt *Route) HasVariables() bool { return strings.Contains(rt.Path, "(?P<") }

// Response is a handler's answer.
type Response struct {
	Status  int
	Body    any
	Headers []calendard.KV
	// ContentType set: Raw is the answer's body as it is (not JSON; _fields, _envelope and _jsonp
	// do not apply).
	ContentType string
	Raw         []byte
}

// Ok returns a 200 response.
func Ok(body any) *Response { return &Response{Status: 200, Body: body} }

// Header adds a response header.
func (r *Response) Header(k, v string) *Response {
	r.Headers = append(r.Headers, calendard.KV{Key: k, Value: v})
	return r
}

// Request is one REST request after routing.
type Request struct {
	ctx context.Context
	// dbContext starts a database deadline of the server's length (a committed write's read-back).
	dbContext func(context.Context) (context.Context, context.CancelFunc)
	log       *slog.Logger
	Method    string
	NS        string // namespace spelling the client used
	Route     *Route
	Endpoint  *Endpoint
	Site      *calendard.Site
	User      *calendard.User
	Now       time.Time
	Render    *wptext.RenderContext
	// Secure is WordPress' is_ssl(): TLS, or https reported by a trusted proxy.
	Secure bool
	// Accept is the request's Accept header (the events list answers text/calendar).
	Accept string

	query    *phpjson.Object
	body     *phpjson.Object
	json     *phpjson.Object
	jsonErr  *phpjson.SyntaxError
	isJSON   bool
	url      *phpjson.Object
	defaults *phpjson.Object

	// locals are what route families keep for the rest of the request (Local, SetLocal).
	locals map[any]any
}

// Sources returns the parameter sources in WordPress' lookup order.
func (r *Request) Sources() []*phpjson.Object {
	var out []*phpjson.Object
	if r.isJSON {
		out = append(out, r.json)
	}
	switch r.Method {
	case "POST", "PUT", "PATCH", "DELETE":
		out = append(out, r.body)
	}
	return append(out, r.query, r.url, r.defaults)
}

// Param returns the first non-null value of a parameter across the sources (WP_REST_Request::get_param).
func (r *Request) Param(name string) (any, bool) {
	for _, src := range r.Sources() {
		if v, ok := src.Get(name); ok && v != nil {
			return v, true
		}
	}
	return nil, false
}

// Value returns the parameter or nil.
func (r *Request) Value(name string) any { v, _ := r.Param(name); return v }

// QueryHas reports whether the query string itself carries the parameter (get_query_params).
func (r *Request) QueryHas(name string) bool { return r.query.Has(name) }

// setParam overwrites a parameter in the source that currently provides it (sanitized values).
func (r *Request) setParam(src *phpjson.Object, name string, v any) { src.Set(name, v) }

// RestURL returns the URL of a namespace-relative REST path in the form WordPress emits for this
// site (pretty /wp-json/ URLs when permalinks are on, index.php?rest_route= otherwise).
func (r *Request) RestURL(path string) string {
	return RestURL(r.Site, "/"+r.NS+"/"+strings.TrimPrefix(path, "/"))
}

// RestURL is get_rest_url for an absolute route such as "/tribe/events/v1/events".
func RestURL(site *calendard.Site, route string) string {
	if site.PrettyPermalinks {
		return site.HomeURL + "/wp-json" + route
	}
	return site.HomeURL + "/index.php?rest_route=" + route
}
