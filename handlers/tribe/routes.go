package tribe

import (
	"github.com/calendard/calendard"
	"github.com/calendard/calendard/handlers"
	"github.com/calendard/calendard/handlers/termapi"
	"github.com/calendard/calendard/internal/php"
)

// pluginServices are what the plugin's route handlers use beyond the request, given to them when
// the routes are built (New): their events, venues and organizers, terms, writes and the geo
// filters' settings.
type PluginServices struct {
	events calendard.EventService
	// ranked orders event searches by relevance (nil: orderby=relevance is ignored).
	ranked    handlers.RankedEvents
	linked    calendard.LinkedService
	TermQuery calendard.TermQueryService
	writer    calendard.Writer
	// geo finds venues by coordinates; the geo filters are on only with geoOn and a geo service.
	geo         calendard.GeoService
	geoOn       bool
	geoRadiusKM float64
	// strictReads filters lists by the read_post rule (Config.StrictReads).
	strictReads bool
	posts       calendard.PostService
	users       calendard.UserService
	terms       calendard.TermService
}

func NewPluginServices(cfg handlers.Config, d handlers.Deps) *PluginServices {
	return &PluginServices{events: d.Events, ranked: d.Ranked, linked: d.Linked, TermQuery: d.TermQuery, writer: d.Writer,
		geo: d.Geo, geoOn: cfg.Geo, geoRadiusKM: cfg.GeoRadiusKM, strictReads: cfg.StrictReads,
		posts: d.Posts, users: d.Users, terms: d.Terms}
}

// geoFilters reports whether the geoloc filters are served.
func (p *PluginServices) geoFilters() bool { return p.geoOn && p.geo != nil }

// routeTable registers the plugin's routes in its registration order (which the namespace index and
// /doc follow). Each route is served under both namespaces.
func routeTable(s *handlers.Server, svc *PluginServices, rs *records) []*handlers.Route {
	lk := &lookups{posts: svc.posts, users: svc.users, taxonomies: termapi.Taxonomies{Terms: svc.terms}}
	venues := &linkedHandler{lookups: lk, records: rs, svc: svc, postType: calendard.PostTypeVenue, kind: "venue", plural: "venues"}
	organizers := &linkedHandler{lookups: lk, records: rs, svc: svc, postType: calendard.PostTypeOrganizer, kind: "organizer", plural: "organizers"}
	ev := &eventsHandler{lookups: lk, records: rs, svc: svc, venues: venues, organizers: organizers}
	cats := &TermsHandler{TermWrites: &termapi.TermWrites{Writer: svc.writer, Taxonomy: calendard.TaxonomyCategory, Hierarchical: true}, lookups: lk, Svc: svc, Kind: "category", Plural: "categories"}
	tags := &TermsHandler{TermWrites: &termapi.TermWrites{Writer: svc.writer, Taxonomy: calendard.TaxonomyTag}, lookups: lk, Svc: svc, Kind: "tag", Plural: "tags"}
	evCaps := calendard.CapsOf(calendard.PostTypeEvent)

	routes := []*handlers.Route{
		{Path: "", Endpoints: []*handlers.Endpoint{{Methods: []string{"GET"}, Handler: s.NamespaceIndex,
			Args: []*handlers.Arg{
				{Name: "namespace", HasDefault: true, Default: func(r *handlers.Request) any { return r.NS }},
				{Name: "context", HasDefault: true, Default: func(*handlers.Request) any { return "view" }},
			}}}},
		{Path: "/doc", Endpoints: []*handlers.Endpoint{{Methods: []string{"GET"}, Handler: s.Doc}}},
		{Path: "/events", Endpoints: []*handlers.Endpoint{
			{Methods: []string{"GET"}, Args: append(ev.listArgs(), svc.geoArgs(calendard.PostTypeEvent)...), Handler: ev.list},
			{Methods: []string{"POST"}, Args: lk.eventWriteArgs(true), Permission: canDo(evCaps.Edit), Handler: ev.create},
		}},
		{Path: `/events/(?P<id>\d+)`, Endpoints: []*handlers.Endpoint{
			{Methods: []string{"GET"}, Args: eventIDArgs(), Handler: ev.get},
			{Methods: []string{"DELETE"}, Args: eventIDArgs(), Permission: lk.canPost(calendard.PostTypeEvent, "delete"), Handler: ev.delete},
			{Methods: []string{"POST", "PUT", "PATCH"}, Args: lk.eventUpdateArgs(), Permission: lk.canPost(calendard.PostTypeEvent, "edit"), Handler: ev.update},
		}},
		{Path: `/events/by-slug/(?P<slug>[^/]+)`, Endpoints: []*handlers.Endpoint{
			{Methods: []string{"GET"}, Args: lk.slugEventArgs(), Handler: ev.getBySlug},
			{Methods: []string{"DELETE"}, Args: lk.slugEventArgs(), Permission: canDo(evCaps.Delete), Handler: ev.deleteBySlug},
			{Methods: []string{"POST", "PUT", "PATCH"}, Args: lk.eventSlugUpdateArgs(), Permission: canDo(evCaps.Edit), Handler: ev.updateBySlug},
		}},
	}
	for _, lh := range []*linkedHandler{venues, organizers} {
		caps := calendard.CapsOf(lh.postType)
		writeArgs := lk.venueWriteArgs
		if lh.postType == calendard.PostTypeOrganizer {
			writeArgs = lk.organizerWriteArgs
		}
		routes = append(routes,
			&handlers.Route{Path: "/" + lh.plural, Endpoints: []*handlers.Endpoint{
				{Methods: []string{"GET"}, Args: append(lh.listArgs(), svc.geoArgs(lh.postType)...), Handler: lh.list},
				{Methods: []string{"POST"}, Args: writeArgs(true), Permission: canDo(caps.Edit), Handler: lh.create},
			}},
			&handlers.Route{Path: "/" + lh.plural + `/(?P<id>\d+)`, Endpoints: []*handlers.Endpoint{
				{Methods: []string{"GET"}, Args: lh.getArgs(), Handler: lh.get},
				{Methods: []string{"DELETE"}, Args: []*handlers.Arg{lk.linkedIDArg(lh.kind)}, Permission: lh.linkedPermission("delete"), Handler: lh.delete},
				{Methods: []string{"POST", "PUT", "PATCH"}, Args: append([]*handlers.Arg{lk.linkedIDArg(lh.kind)}, writeArgs(false)...),
					Permission: lh.linkedPermission("edit"), Handler: lh.update},
			}},
			&handlers.Route{Path: "/" + lh.plural + `/by-slug/(?P<slug>[^/]+)`, Endpoints: []*handlers.Endpoint{
				{Methods: []string{"GET"}, Args: []*handlers.Arg{lk.linkedSlugArg(lh.kind, lh.postType)}, Handler: lh.getBySlug},
				{Methods: []string{"DELETE"}, Args: []*handlers.Arg{lk.linkedSlugArg(lh.kind, lh.postType)}, Permission: canDo(caps.Delete), Handler: lh.deleteBySlug},
				{Methods: []string{"POST", "PUT", "PATCH"}, Args: append([]*handlers.Arg{lk.linkedSlugArg(lh.kind, lh.postType)}, writeArgs(false)...),
					Permission: canDo(caps.Edit), Handler: lh.updateBySlug},
			}})
	}
	for _, th := range []*TermsHandler{cats, tags} {
		manage := canDo(evCaps.Edit, termapi.TermManageCap(th.Taxonomy))
		routes = append(routes,
			&handlers.Route{Path: "/" + th.Plural, Endpoints: []*handlers.Endpoint{
				{Methods: []string{"GET"}, Args: th.listArgs(), Handler: th.list},
				{Methods: []string{"POST"}, Args: lk.termWriteArgs(th.Kind, true, th.Hierarchical), Permission: manage, Handler: th.create},
			}},
			&handlers.Route{Path: "/" + th.Plural + `/(?P<id>\d+)`, Endpoints: []*handlers.Endpoint{
				{Methods: []string{"GET"}, Args: []*handlers.Arg{th.idArg()}, Handler: th.get},
				{Methods: []string{"POST", "PUT", "PATCH"}, Args: append([]*handlers.Arg{th.idArg()}, lk.termWriteArgs(th.Kind, false, th.Hierarchical)...),
					Permission: manage, Handler: th.update},
				{Methods: []string{"DELETE"}, Args: []*handlers.Arg{th.idArg()}, Permission: manage, Handler: th.delete},
			}})
	}
	return routes
}

// PluginRoutes registers the plugin's routes under both of its namespaces.
func PluginRoutes(s *handlers.Server, cfg handlers.Config, deps handlers.Deps) {
	rs := &records{strictReads: cfg.StrictReads, rendered: newRenderedRecords(deps.Generation, cfg.RenderCacheBytes)}
	s.Register(handlers.NamespaceTribe, routeTable(s, NewPluginServices(cfg, deps), rs))
}

// canDo is a permission callback requiring primitive capabilities.
func canDo(caps ...string) func(*handlers.Request) error {
	return func(r *handlers.Request) error {
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
func (l *lookups) canPost(postType, action string) func(*handlers.Request) error {
	return func(r *handlers.Request) error { return l.canPostID(r, postType, action, php.Int(r.Value("id"))) }
}

// canPostID is the edit_post/delete_post check for one post ID.
func (l *lookups) canPostID(r *handlers.Request, postType, action string, id int64) error {
	caps := calendard.CapsOf(postType)
	post, err := l.posts.PostByID(r.Context(), id)
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
		if ref.TrashedFrom, err = l.posts.TrashedFrom(r.Context(), post.ID); err != nil {
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
