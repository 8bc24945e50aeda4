package handlers

import (
	"net/url"
	"strings"

	"github.com/calendard/calendard/internal/phpjson"
)

// OpenAPI document of GET /{ns}/doc (the plugin's Swagger_Documentation endpoint).
//
// Paths, methods, parameters and request bodies are generated from the route table the router serves
// (Server.routes), so the document cannot drift from what calendard answers. Only the texts the plugin
// writes by hand are tables: the schemas (doc_schemas.go) and each operation's responses
// (doc_responses.go). The conversion of arguments follows the plugin's swaggerize_args and
// swaggerize_post_args, quirks included.

// docMethods are the documented operations in the plugin's order; a route's handlers map onto them
// (PUT and PATCH share the POST handler and are not documented).
var docMethods = []struct{ key, method string }{{"get", "GET"}, {"post", "POST"}, {"delete", "DELETE"}}

const noDescription = "No description provided"

// Doc is GET /{ns}/doc: the OpenAPI 3.0.0 document of the routes calendard serves.
func (s *Server) Doc(r *Request) (*Response, error) {
	return Ok(s.openAPI(r)), nil
}

// openAPI builds the document for the namespace the client used.
func (s *Server) openAPI(r *Request) *phpjson.Object {
	paths := phpjson.NewObject()
	for _, rt := range s.routes {
		// The namespace root is WordPress' index, not one of the plugin's documented endpoints.
		if rt.Path == "" {
			continue
		}
		paths.Set(openAPIPath(rt.Path), s.pathItem(rt))
	}
	return phpjson.Obj(
		"openapi", "3.0.0",
		"info", phpjson.Obj(
			"version", "1.0.0",
			"title", "The Events Calendar REST API",
			"description", "The Events Calendar REST API allows accessing upcoming events information easily and conveniently.",
		),
		"components", phpjson.Obj("schemas", docSchemas),
		"servers", []any{phpjson.Obj("url", docServerURL(r))},
		"paths", paths,
	)
}

// docServerURL is the plugin's servers URL: the is_ssl() scheme, the home URL's host
// (parse_url PHP_URL_HOST) and tribe_events_rest_url() with the home URL removed, so the home URL's
// port and sub-directory are lost.
func docServerURL(r *Request) string {
	scheme := "http"
	if r.Secure {
		scheme = "https"
	}
	return scheme + "://" + phpURLHost(r.Site.HomeURL) + strings.ReplaceAll(r.RestURL(""), r.Site.HomeURL, "")
}

// phpURLHost is parse_url($u, PHP_URL_HOST): the authority without user info and port (IPv6
// literals keep their brackets).
func phpURLHost(u string) string {
	p, err := url.Parse(u)
	if err != nil {
		return ""
	}
	host := p.Host
	if i := strings.LastIndexByte(host, ':'); i >= 0 && !strings.Contains(host[i:], "]") {
		host = host[:i]
	}
	return host
}

// openAPIPath turns a route regex into an OpenAPI path: each named group (?P<name>...) becomes {name}.
func openAPIPath(re string) string {
	var b strings.Builder
	for {
		i := strings.Index(re, "(?P<")
		if i < 0 {
			b.WriteString(re)
			return b.String()
		}
		b.WriteString(re[:i])
		rest := re[i+len("(?P<"):]
		name, _, _ := strings.Cut(rest, ">")
		b.WriteString("{" + name + "}")
		re = rest[groupEnd(rest):]
	}
}

// groupEnd returns the index just past the parenthesis closing a group whose opening parenthesis
// precedes s, skipping escaped characters and character classes.
func groupEnd(s string) int {
	depth, inClass := 1, false
	for i := 0; i < len(s); i++ {
		switch c := s[i]; {
		case c == '\\':
			i++
		case inClass:
			inClass = c != ']'
		case c == '[':
			inClass = true
		case c == '(':
			depth++
		case c == ')':
			depth--
			if depth == 0 {
				return i + 1
			}
		}
	}
	return len(s)
}

// endpointFor returns the route's handler of a method.
func endpointFor(rt *Route, method string) *Endpoint {
	for _, ep := range rt.Endpoints {
		for _, m := range ep.Methods {
			if m == method {
				return ep
			}
		}
	}
	return nil
}

// collectionOf returns the archive route an item route belongs to (/events for /events/{id} and
// /events/by-slug/{slug}): the longest route without variables whose path prefixes it.
func (s *Server) collectionOf(item *Route) *Route {
	var best *Route
	for _, rt := range s.routes {
		if rt == item || rt.Path == "" || rt.HasVariables() || !strings.HasPrefix(item.Path, rt.Path+"/") {
			continue
		}
		if best == nil || len(rt.Path) > len(best.Path) {
			best = rt
		}
	}
	return best
}

// pathItem documents one route. Archive routes document their GET; item routes their GET, DELETE and
// POST, where POST carries the read parameters and, as request body, the archive's create arguments:
// the plugin documents creation under the item paths only, never as a post on the archive.
func (s *Server) pathItem(rt *Route) *phpjson.Object {
	item := phpjson.NewObject()
	responses := docOperations[rt.Path]
	// Single endpoints default their parameters to the path, archives to the query string (the
	// plugin's per-endpoint swaggerize_args defaults).
	defaultIn := "query"
	if rt.HasVariables() {
		defaultIn = "path"
	}
	read := endpointFor(rt, "GET")
	for _, dm := range docMethods {
		ep := endpointFor(rt, dm.method)
		if ep == nil || (dm.method == "POST" && !rt.HasVariables()) {
			continue
		}
		op := phpjson.NewObject()
		switch dm.method {
		case "POST":
			var readArgs []*Arg
			if read != nil {
				readArgs = read.Args
			}
			if params := docParameters(readArgs, defaultIn); params != nil {
				op.Set("parameters", params)
			}
			var bodyArgs []*Arg
			if docBodyWithReadArgs[rt.Path] {
				bodyArgs = append(bodyArgs, readArgs...)
			}
			if coll := s.collectionOf(rt); coll != nil {
				if create := endpointFor(coll, "POST"); create != nil {
					bodyArgs = append(bodyArgs, create.Args...)
				}
			}
			op.Set("requestBody", docRequestBody(bodyArgs))
		default:
			if params := docParameters(ep.Args, defaultIn); params != nil {
				op.Set("parameters", params)
			}
		}
		op.Set("responses", docResponses(responses[dm.key]))
		item.Set(dm.key, op)
	}
	return item
}

// docType is the documented type of an argument: swagger_type, else the REST type (int/bool spelled
// out like convert_type), else "array" for list arguments that only declare their items.
func docType(a *Arg) string {
	t := a.SwaggerType
	if t == "" {
		t = a.Type
	}
	switch t {
	case "int":
		return "integer"
	case "bool":
		return "boolean"
	case "":
		if a.ItemsType != "" {
			return "array"
		}
	}
	return t
}

// docParameters is swaggerize_args: keys in the order in, schema, description, required, name[, style].
// Falsy values are filtered as array_filter does (hence no "explode": false on CSV lists); an argument
// without any type keeps the plugin's "type": false. Nil when there are no arguments.
func docParameters(args []*Arg, defaultIn string) []any {
	if len(args) == 0 {
		return nil
	}
	out := make([]any, 0, len(args))
	for _, a := range args {
		in := a.In
		if in == "" {
			in = defaultIn
		}
		schema := phpjson.NewObject()
		if t := docType(a); t != "" {
			schema.Set("type", t)
		} else {
			schema.Set("type", false)
		}
		if a.ItemsType != "" {
			schema.Set("items", phpjson.Obj("type", a.ItemsType))
		}
		desc := a.Description
		if desc == "" {
			desc = noDescription
		}
		p := phpjson.Obj("in", in, "schema", schema, "description", desc, "required", a.Required, "name", a.Name)
		if a.CollectionFormat == "csv" {
			p.Set("style", "form")
		}
		out = append(out, p)
	}
	return out
}

// docRequestBody is swaggerize_post_args for form bodies: each argument's description, type (string
// when undeclared) and items. A later argument of the same name replaces an earlier one in place, as
// PHP's array merge does.
func docRequestBody(args []*Arg) *phpjson.Object {
	props := phpjson.NewObject()
	for _, a := range args {
		t := docType(a)
		if t == "" {
			t = "string"
		}
		desc := a.Description
		if desc == "" {
			desc = noDescription
		}
		p := phpjson.Obj("description", desc, "type", t)
		if a.ItemsType != "" {
			p.Set("items", phpjson.Obj("type", a.ItemsType))
		}
		props.Set(a.Name, p)
	}
	return phpjson.Obj("content", phpjson.Obj("application/x-www-form-urlencoded",
		phpjson.Obj("schema", phpjson.Obj("type", "object", "properties", props))))
}

// docResponses renders an operation's documented responses keyed by status code.
func docResponses(list []docResponse) *phpjson.Object {
	out := phpjson.NewObject()
	for _, dr := range list {
		o := phpjson.Obj("description", dr.description)
		if dr.schema != "" {
			ref := phpjson.Obj("$ref", "#/components/schemas/"+dr.schema)
			schema := ref
			if dr.listTitle != "" {
				schema = phpjson.Obj("title", dr.listTitle, "type", "array", "items", ref)
			}
			o.Set("content", phpjson.Obj("application/json", phpjson.Obj("schema", schema)))
		}
		out.Set(dr.code, o)
	}
	return out
}
