package handlers

import (
	"bytes"
	"encoding/json"

	"github.com/calendard/calendard/internal/phpjson"
)

// routeData describes one route as WP_REST_Server::get_data_for_route does (namespace index, OPTIONS).
func (r *Request) routeData(rt *Route) *phpjson.Object {
	methods := []any{}
	for _, m := range rt.Methods() {
		methods = append(methods, m)
	}
	endpoints := []any{}
	for _, ep := range rt.Endpoints {
		em := []any{}
		for _, m := range ep.Methods {
			em = append(em, m)
		}
		args := phpjson.NewObject()
		for _, a := range ep.Args {
			args.Set(a.Name, r.argData(a))
		}
		e := phpjson.Obj("methods", em)
		if rt.AllowBatch {
			e.Set("allow_batch", phpjson.Obj("v1", true))
		}
		endpoints = append(endpoints, e.Set("args", args))
	}
	o := phpjson.Obj("namespace", r.NS, "methods", methods, "endpoints", endpoints)
	// The schema is part of the "help" description only (OPTIONS), not of the index.
	if rt.Schema != nil && r.Route == rt && r.Method == "OPTIONS" {
		o.Set("schema", rt.Schema(r))
	}
	if !rt.HasVariables() {
		o.Set("_links", phpjson.Obj("self", []any{phpjson.Obj("href", RestURL(r.Site, "/"+r.NS+rt.Path))}))
	}
	return o
}

// argData keeps the JSON-schema keywords of an argument plus "required".
func (r *Request) argData(a *Arg) *phpjson.Object {
	if a.Schema != nil {
		return schemaArgData(a)
	}
	o := phpjson.NewObject()
	if a.HasDefault {
		var v any
		if a.Default != nil {
			v = a.Default(r)
		}
		o.Set("default", v)
	}
	if a.Description != "" {
		o.Set("description", a.Description)
	}
	if a.Type != "" {
		o.Set("type", a.Type)
	}
	if a.Format != "" {
		o.Set("format", a.Format)
	}
	if a.ItemsType != "" {
		o.Set("items", phpjson.Obj("type", a.ItemsType))
	}
	o.Set("required", a.Required)
	return o
}

// NamespaceIndex is GET /{ns}: every route of the namespace keyed by its regex.
func (s *Server) NamespaceIndex(r *Request) (*Response, error) {
	routes := phpjson.NewObject()
	for _, rt := range s.namespaceRoutes(r.NS) {
		routes.Set("/"+r.NS+rt.Path, r.routeData(rt))
	}
	body := phpjson.Obj("namespace", r.NS, "routes", routes,
		"_links", phpjson.Obj("up", []any{phpjson.Obj("href", RestURL(r.Site, "/"))}))
	return Ok(body), nil
}

// optionsResponse is the answer to OPTIONS on a known route: its description.
func (s *Server) optionsResponse(r *Request) *Response {
	return Ok(r.routeData(r.Route))
}

// indentJSON pretty-prints an encoded body (_pretty), keeping PHP's escaping.
func indentJSON(b []byte) []byte {
	var out bytes.Buffer
	if err := json.Indent(&out, b, "", "    "); err != nil {
		return b
	}
	return out.Bytes()
}

// siteIndex is GET /wp-json/ (WP_REST_Server::get_index) restricted to what calendard serves: the
// site description, its namespaces (the plugin's two and wp/v2) and their routes, so generic
// WordPress clients can discover the API.
func (s *Server) siteIndex(r *Request) *Response {
	site := r.Site
	routes := phpjson.Obj("/", phpjson.Obj("namespace", "", "methods", []any{"GET"},
		"endpoints", []any{phpjson.Obj("methods", []any{"GET"},
			"args", phpjson.Obj("context", phpjson.Obj("default", "view", "required", false)))},
		"_links", phpjson.Obj("self", []any{phpjson.Obj("href", RestURL(site, "/"))})))
	namespaces := []any{}
	if !site.RESTDisabled {
		// WordPress registers core's routes after the plugins' (rest_api_init, priority 99).
		for _, ns := range []string{NamespaceCalendar, NamespaceTribe, NamespaceCore} {
			namespaces = append(namespaces, ns)
			nr := *r
			nr.NS = ns
			for _, rt := range s.namespaceRoutes(ns) {
				routes.Set("/"+ns+rt.Path, nr.routeData(rt))
			}
		}
	}
	return Ok(phpjson.Obj(
		"name", site.Name, "description", site.Description, "url", site.SiteURL, "home", site.HomeURL,
		"gmt_offset", site.OffsetHours(r.Now), "timezone_string", site.TimezoneName,
		"namespaces", namespaces, "authentication", []any{}, "routes", routes,
		"_links", phpjson.Obj("help", []any{phpjson.Obj("href", "https://developer.wordpress.org/rest-api/")})))
}
