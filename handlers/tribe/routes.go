// Package tribe serves the plugin's namespaces, tribe/events/v1 and its calendar/events/v1 twin:
// events, venues and organizers, categories and tags, with their archives, singles and writes.
// Routes makes the route family handlers.New registers; internal/service gives it the services it
// uses (Services, each handler keeping the ones it reads) and its settings (Options). The term
// archive and write logic it shares with wp/v2 is in handlers/termapi.
package tribe

import (
	"context"

	"github.com/calendard/calendard"
	"github.com/calendard/calendard/handlers"
	"github.com/calendard/calendard/handlers/termapi"
	"github.com/calendard/calendard/internal/php"
)

// Services are what the plugin's routes read and write through; internal/service wires them
// (wpdb.Store, with package search in front of events and venues when configured). Each handler
// keeps only those it uses. Ranked and Geo may be nil.
type Services struct {
	Events calendard.EventService
	// Ranked orders event searches by relevance (nil: orderby=relevance is ignored, as the plugin
	// does).
	Ranked    RankedEvents
	Linked    calendard.LinkedService
	Posts     calendard.PostService
	Users     Users
	Terms     termapi.Source
	TermQuery calendard.TermQueryService
	Writer    calendard.Writer
	// Geo finds venues by coordinates for the geoloc filters (Options.Geo).
	Geo calendard.GeoService
	// Generation is the change feed's generation (wpdb.Store.Generation), which the list records
	// kept for anonymous callers are tagged with. nil: none are kept.
	Generation func() uint64
	// Sync is the sync journal behind the lists' sync tokens (nil: no tokens).
	Sync calendard.SyncJournal
}

// RankedEvents is an event service that can order a search by relevance (package search, with
// Meilisearch configured).
type RankedEvents interface {
	FindEventsByRelevance(ctx context.Context, site *calendard.Site, f calendard.EventFilter) ([]*calendard.Event, int, error)
}

// Users finds users by ID (is_user_id).
type Users interface {
	UserByID(ctx context.Context, id int64) (*calendard.UserRecord, error)
}

// Options are the plugin routes' settings (from handlers.Config: StrictReads, Geo, GeoRadiusKM,
// RenderCacheBytes).
type Options struct {
	// StrictReads filters lists, and the venues and organizers embedded in events, by the
	// read_post rule single records use.
	StrictReads bool
	// Geo turns on the geoloc filters; GeoRadiusKM is the default geoloc_radius.
	Geo         bool
	GeoRadiusKM float64
	// RenderCacheBytes bounds the encoded list records kept for anonymous callers (0: 64 MiB;
	// negative: none).
	RenderCacheBytes int
	// ICalMaxEvents caps the events of an events list answered as iCalendar (0: 1000).
	ICalMaxEvents int
}

// Routes is the route family of the plugin's namespaces (tribe/events/v1 and its
// calendar/events/v1 twin), for handlers.New.
func Routes(svc Services, o Options) handlers.RouteFamily {
	return func(s *handlers.Server) { s.Register(handlers.NamespaceTribe, routeTable(s, svc, o)) }
}

// routeTable registers the plugin's routes in its registration order (which the namespace index and
// /doc follow). Each route is served under both namespaces.
func routeTable(s *handlers.Server, svc Services, o Options) []*handlers.Route {
	lk := &lookups{posts: svc.Posts, users: svc.Users, taxonomies: termapi.Taxonomies{Terms: svc.Terms}}
	rs := &records{strictReads: o.StrictReads, rendered: newRenderedRecords(svc.Generation, o.RenderCacheBytes)}
	sy := &syncer{journal: svc.Sync}
	geo := &geoFilter{geo: svc.Geo, on: o.Geo, radiusKM: o.GeoRadiusKM, ranked: svc.Ranked != nil}
	linked := func(postType, kind, plural string) *linkedHandler {
		return &linkedHandler{lookups: lk, records: rs, sync: sy, linked: svc.Linked, writer: svc.Writer, geo: geo,
			strictReads: o.StrictReads, postType: postType, kind: kind, plural: plural}
	}
	venues := linked(calendard.PostTypeVenue, "venue", "venues")
	organizers := linked(calendard.PostTypeOrganizer, "organizer", "organizers")
	ev := &eventsHandler{lookups: lk, records: rs, sync: sy, events: svc.Events, ranked: svc.Ranked, writer: svc.Writer, geo: geo,
		strictReads: o.StrictReads, venues: venues, organizers: organizers, icalMax: o.ICalMaxEvents}
	if ev.icalMax <= 0 {
		ev.icalMax = 1000
	}
	terms := func(taxonomy, kind, plural string) *termsHandler {
		return &termsHandler{Writes: &termapi.Writes{Writer: svc.Writer, Taxonomy: taxonomy, Hierarchical: taxonomy == calendard.TaxonomyCategory},
			lookups: lk, sync: sy, query: svc.TermQuery, kind: kind, plural: plural}
	}
	cats := terms(calendard.TaxonomyCategory, "category", "categories")
	tags := terms(calendard.TaxonomyTag, "tag", "tags")
	evCaps := calendard.CapsOf(calendard.PostTypeEvent)

	routes := []*handlers.Route{
		{Path: "", Endpoints: []*handlers.Endpoint{{Methods: []string{"GET"}, Handler: s.NamespaceIndex,
			Args: []*handlers.Arg{
				{Name: "namespace", HasDefault: true, Default: func(r *handlers.Request) any { return r.NS }},
				{Name: "context", HasDefault: true, Default: func(*handlers.Request) any { return "view" }},
			}}}},
		{Path: "/doc", Endpoints: []*handlers.Endpoint{{Methods: []string{"GET"}, Handler: s.Doc}}},
		{Path: "/events", Endpoints: []*handlers.Endpoint{
			{Methods: []string{"GET"}, Args: append(ev.listArgs(), geo.args(calendard.PostTypeEvent)...), Handler: ev.list},
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
				{Methods: []string{"GET"}, Args: append(lh.listArgs(), geo.args(lh.postType)...), Handler: lh.list},
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
	for _, th := range []*termsHandler{cats, tags} {
		manage := canDo(evCaps.Edit, termapi.ManageCap(th.Taxonomy))
		routes = append(routes,
			&handlers.Route{Path: "/" + th.plural, Endpoints: []*handlers.Endpoint{
				{Methods: []string{"GET"}, Args: th.listArgs(), Handler: th.list},
				{Methods: []string{"POST"}, Args: lk.termWriteArgs(th.kind, true, th.Hierarchical), Permission: manage, Handler: th.create},
			}},
			&handlers.Route{Path: "/" + th.plural + `/(?P<id>\d+)`, Endpoints: []*handlers.Endpoint{
				{Methods: []string{"GET"}, Args: []*handlers.Arg{th.idArg()}, Handler: th.get},
				{Methods: []string{"POST", "PUT", "PATCH"}, Args: append([]*handlers.Arg{th.idArg()}, lk.termWriteArgs(th.kind, false, th.Hierarchical)...),
					Permission: manage, Handler: th.update},
				{Methods: []string{"DELETE"}, Args: []*handlers.Arg{th.idArg()}, Permission: manage, Handler: th.delete},
			}})
	}
	return routes
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
