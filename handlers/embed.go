package handlers

import (
	"strconv"
	"strings"

	"github.com/calendard/calendard"
	"github.com/calendard/calendard/internal/php"
	"github.com/calendard/calendard/internal/phpjson"
	"github.com/calendard/calendard/internal/wptext"
)

// _embed: WP_REST_Server::embed_links. Each embeddable link of the answer (of each item of a
// collection) is fetched through calendard's own routing as the same user, in the embed context,
// and its answer (or error) is placed under _embedded, keyed by relation, links in order.

// embedParam is rest_parse_embed_param: all relations, or the listed ones.
func embedParam(v any) (all bool, rels []string) {
	s, isStr := v.(string)
	if php.Empty(v) || (isStr && (s == "true" || s == "1")) {
		return true, nil
	}
	for _, it := range RestSanitizeArray(v) {
		if r, _ := php.String(it); r != "" {
			rels = append(rels, r)
		}
	}
	return len(rels) == 0, rels
}

// embed adds _embedded to an answer's items when the query asks for it.
func (s *Server) embed(req *Request, resp *Response) {
	v, asked := req.query.Get("_embed")
	if !asked || resp == nil || resp.Status >= 400 {
		return
	}
	all, rels := embedParam(v)
	cache := map[string]any{}
	switch b := resp.Body.(type) {
	case []any:
		for _, it := range b {
			if o, isObj := it.(*phpjson.Object); isObj {
				s.embedLinks(req, o, all, rels, cache)
			}
		}
	case *phpjson.Object:
		s.embedLinks(req, b, all, rels, cache)
	}
}

func (s *Server) embedLinks(req *Request, data *phpjson.Object, all bool, rels []string, cache map[string]any) {
	lv, _ := data.Get("_links")
	links, isObj := lv.(*phpjson.Object)
	if !isObj {
		return
	}
	embedded := phpjson.NewObject()
	for _, rel := range links.Keys() {
		if !all && !containsString(rels, rel) {
			continue
		}
		list, _ := links.Get(rel)
		items, _ := list.([]any)
		var embeds []any
		found := false
		for _, it := range items {
			link, _ := it.(*phpjson.Object)
			if link == nil {
				continue
			}
			if e, _ := link.Get("embeddable"); e != true {
				embeds = append(embeds, []any{})
				continue
			}
			h, _ := link.Get("href")
			href, _ := h.(string)
			if _, done := cache[href]; !done {
				cache[href] = s.dispatchEmbedded(req, href)
			}
			embeds = append(embeds, cache[href])
			if !php.Empty(cache[href]) && !IsEmptyList(cache[href]) {
				found = true
			}
		}
		if found {
			embedded.Set(rel, embeds)
		}
	}
	if embedded.Len() > 0 {
		data.Set("_embedded", embedded)
	}
}

func containsString(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// IsEmptyList reports whether v is an empty PHP array (an empty list or object).
func IsEmptyList(v any) bool {
	switch x := v.(type) {
	case []any:
		return len(x) == 0
	case *phpjson.Object:
		return x.Len() == 0
	}
	return false
}

// dispatchEmbedded is WP_REST_Request::from_url plus dispatch for one link: the answer's data, or
// [] for a URL that is not one of the site's REST URLs.
func (s *Server) dispatchEmbedded(parent *Request, href string) any {
	site := parent.Site
	var route, rawQuery string
	switch base := RestURL(site, ""); {
	case site.PrettyPermalinks && strings.HasPrefix(href, base):
		route, rawQuery, _ = strings.Cut(strings.TrimPrefix(href, base), "?")
	case !site.PrettyPermalinks && strings.HasPrefix(href, base):
		rest := strings.TrimPrefix(href, base)
		route, rawQuery, _ = strings.Cut(rest, "&")
	default:
		return []any{}
	}
	query := parseQuery(rawQuery)
	if c, _ := query.Get("context"); php.Empty(c) {
		query.Set("context", "embed")
	}
	req := &Request{ctx: parent.ctx, dbContext: s.dbContext, log: s.log, Method: "GET", Site: site, User: parent.User, Now: parent.Now,
		Render: wptext.NewRenderContext(site.HomeURL), Secure: parent.Secure, query: query,
		url: phpjson.NewObject(), defaults: phpjson.NewObject()}
	rt, ep, ns, captures := s.match(route, "GET", site)
	if rt == nil {
		return errorBody(&calendard.Error{Code: "rest_no_route", Message: calendard.MsgNoRoute, Status: 404})
	}
	if pp, _ := query.Get("per_page"); php.Empty(pp) {
		for _, a := range ep.Args {
			if a.Name == "per_page" && a.Schema != nil {
				if max, has := a.Schema.Get("maximum"); has {
					query.Set("per_page", strconv.FormatInt(php.Int(max), 10))
				}
			}
		}
	}
	req.NS, req.Route, req.Endpoint = ns, rt, ep
	for k, v := range captures {
		req.url.Set(k, v)
	}
	s.setDefaults(req)
	return s.run(req).Body
}
