package handlers

import (
	"github.com/calendard/calendard"
	"github.com/calendard/calendard/internal/php"
)

// routeTable registers the plugin's routes in its registration order (which the namespace index and
// /doc follow). Each route is served under both namespaces.
func (s *Server) routeTable() []*Route {
	ev := &eventsHandler{events: s.deps.Events}
	routes := []*Route{
		{Path: "", Endpoints: []*Endpoint{{Methods: []string{"GET"}, Handler: s.namespaceIndex,
			Args: []*Arg{
				{Name: "namespace", HasDefault: true, Default: func(r *Request) any { return r.NS }},
				{Name: "context", HasDefault: true, Default: func(*Request) any { return "view" }},
			}}}},
		{Path: "/events", Endpoints: []*Endpoint{
			{Methods: []string{"GET"}, Args: ev.listArgs(), Handler: ev.list},
			{Methods: []string{"POST"}, Permission: canDo(calendard.CapsOf(calendard.PostTypeEvent).Edit), Handler: notImplemented},
		}},
		{Path: `/events/(?P<id>\d+)`, Endpoints: []*Endpoint{
			{Methods: []string{"GET"}, Args: singleEventArgs(), Handler: ev.get},
			{Methods: []string{"DELETE"}, Permission: canPost(calendard.PostTypeEvent, "delete"), Handler: notImplemented},
			{Methods: []string{"POST", "PUT", "PATCH"}, Permission: canPost(calendard.PostTypeEvent, "edit"), Handler: notImplemented},
		}},
		{Path: `/events/by-slug/(?P<slug>[^/]+)`, Endpoints: []*Endpoint{
			{Methods: []string{"GET"}, Args: slugEventArgs(), Handler: ev.getBySlug},
			{Methods: []string{"DELETE"}, Permission: canDo(calendard.CapsOf(calendard.PostTypeEvent).Delete), Handler: notImplemented},
			{Methods: []string{"POST", "PUT", "PATCH"}, Permission: canDo(calendard.CapsOf(calendard.PostTypeEvent).Edit), Handler: notImplemented},
		}},
	}
	for _, rt := range routes {
		rt.compile()
	}
	return routes
}

// notImplemented answers for endpoints calendard does not serve yet.
func notImplemented(*Request) (*Response, error) {
	return nil, &calendard.Error{Code: "rest_not_implemented", Message: "This endpoint is not implemented by calendard yet.", Status: 501}
}

// canDo is a permission callback requiring primitive capabilities.
func canDo(caps ...string) func(*Request) error {
	return func(r *Request) error {
		for _, c := range caps {
			if !r.User.Can(c) {
				return calendard.ErrForbidden(r.User.LoggedIn())
			}
		}
		return nil
	}
}

// canPost is the per-post edit_post/delete_post check of update and delete routes; for an ID that is
// not a post of the type it falls back to the type's general capability so the handler can answer 404.
func canPost(postType, action string) func(*Request) error {
	return func(r *Request) error {
		caps := calendard.CapsOf(postType)
		id := php.Int(r.Value("id"))
		post, err := r.posts().PostByID(r.ctx, id)
		if err != nil {
			return err
		}
		if post == nil {
			general := caps.Edit
			if action == "delete" {
				general = caps.Delete
			}
			return canDo(general)(r)
		}
		ref := &calendard.PostRef{ID: post.ID, Type: post.Type, Status: post.Status, Author: post.Author}
		if post.Status == "trash" {
			if ref.TrashedFrom, err = r.posts().TrashedFrom(r.ctx, post.ID); err != nil {
				return err
			}
		}
		allowed := r.User.CanEditPost(ref)
		if action == "delete" {
			allowed = r.User.CanDeletePost(ref)
		}
		if !allowed {
			return calendard.ErrForbidden(r.User.LoggedIn())
		}
		return nil
	}
}

// posts returns the post lookups.
func (r *Request) posts() calendard.PostService { return r.srv.deps.Posts }

// taxonomy loads a taxonomy once per request for validators and filters.
func (r *Request) taxonomy(tax string) (*termIndex, error) {
	if idx, ok := r.termCache[tax]; ok {
		return idx, nil
	}
	terms, err := r.srv.deps.Terms.TermsOf(r.ctx, tax)
	if err != nil {
		return nil, err
	}
	idx := &termIndex{terms: terms, tree: calendard.NewTermTree(terms)}
	if r.termCache == nil {
		r.termCache = map[string]*termIndex{}
	}
	r.termCache[tax] = idx
	return idx, nil
}
