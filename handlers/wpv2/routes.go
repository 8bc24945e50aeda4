// Package wpv2 serves WordPress core's wp/v2 routes for the calendar's post types and taxonomies,
// the types and taxonomies registries, users and settings. Routes makes their route family for
// handlers.New (internal/service does, with the services of Services); they use the server's request API and the
// term logic the plugin's routes share (package termapi).
package wpv2

import (
	"context"

	"github.com/calendard/calendard"
	"github.com/calendard/calendard/handlers"
	"github.com/calendard/calendard/handlers/termapi"
)

// Store is what wp/v2 reads of posts, users and options (wpdb.Store): the post lookups, wp/v2's
// post and user queries and the raw options of /wp/v2/settings.
type Store interface {
	PostByID(ctx context.Context, id int64) (*calendard.Post, error)
	PostsByName(ctx context.Context, name string, postTypes ...string) ([]*calendard.Post, error)
	TrashedFrom(ctx context.Context, id int64) (string, error)
	calendard.CorePostReader
	calendard.CorePostLister
	calendard.CoreUserReader
	calendard.CoreUserLister
	// Options reads raw wp_options values.
	Options(ctx context.Context, names ...string) (map[string]string, error)
}

// Users finds users by ID (the authors of posts and revisions).
type Users interface {
	UserByID(ctx context.Context, id int64) (*calendard.UserRecord, error)
}

// Services are what the wp/v2 routes read and write through; internal/service wires them
// (wpdb.Store and its connection).
type Services struct {
	Store     Store
	Users     Users
	Terms     termapi.Source
	TermQuery calendard.TermQueryService
	Writer    calendard.Writer
}

// coreServices are the services as the wp/v2 handlers keep them.
type coreServices struct {
	posts     Store
	users     Users
	termQuery calendard.TermQueryService
	writer    calendard.Writer
	// taxonomies load the calendar's taxonomies once per request.
	taxonomies termapi.Taxonomies
}

// corePost loads any post by ID (nil when there is none or it cannot be read), for parents of
// attachments and revisions.
func (c *coreServices) corePost(r *handlers.Request, id int64) *calendard.CorePost {
	if id <= 0 {
		return nil
	}
	p, err := c.posts.CorePost(r.Context(), id)
	if err != nil {
		return nil
	}
	return p
}

// coreRouteTable registers the wp/v2 routes calendard serves, in WordPress' registration order:
// the namespace index WordPress adds with the first route, then the routes. The indexes list this
// table, so they list exactly what is served.
func coreRouteTable(s *handlers.Server, svc *coreServices) []*handlers.Route {
	routes := []*handlers.Route{{Path: "", Endpoints: []*handlers.Endpoint{{Methods: []string{"GET"}, Handler: s.NamespaceIndex,
		Args: []*handlers.Arg{
			{Name: "namespace", HasDefault: true, Default: func(*handlers.Request) any { return handlers.NamespaceCore }},
			{Name: "context", HasDefault: true, Default: func(*handlers.Request) any { return "view" }},
		}}}}}
	// Attachments register before the plugin's types, as create_initial_rest_routes walks the
	// post types in registration order.
	routes = append(routes, mediaRoutes(svc)...)
	for _, pt := range []string{calendard.PostTypeEvent, calendard.PostTypeVenue, calendard.PostTypeOrganizer} {
		h := newCorePosts(pt, svc)
		routes = append(routes, &handlers.Route{Path: "/" + pt, AllowBatch: true, Schema: h.itemSchema, Endpoints: []*handlers.Endpoint{
			{Methods: []string{"GET"}, Args: h.collectionArgs(), Permission: h.listPermission, Handler: h.list},
			{Methods: []string{"POST"}, Args: h.writeArgs(false), Permission: h.createPermission, Handler: h.create},
		}})
		routes = append(routes, &handlers.Route{Path: "/" + pt + `/(?P<id>[\d]+)`, AllowBatch: true, Schema: h.itemSchema, Endpoints: []*handlers.Endpoint{
			{Methods: []string{"GET"}, Args: coreGetArgs(), Permission: h.readPermission, Handler: h.get},
			{Methods: []string{"POST", "PUT", "PATCH"}, Args: h.writeArgs(true), Permission: h.updatePermission, Handler: h.update},
			{Methods: []string{"DELETE"}, Args: []*handlers.Arg{coreIDArg(), coreTyped("force", "boolean", "Whether to bypass Trash and force deletion.", false)},
				Permission: h.deletePermission, Handler: h.delete},
		}})
		// The revisions controller registers right after its post type's controller.
		routes = append(routes, &handlers.Route{Path: "/" + pt + `/(?P<parent>[\d]+)/revisions`, Endpoints: []*handlers.Endpoint{
			{Methods: []string{"GET"}, Args: h.revisionsArgs(), Permission: h.revisionsPermission, Handler: h.revisions}}})
		routes = append(routes, &handlers.Route{Path: "/" + pt + `/(?P<parent>[\d]+)/revisions/(?P<id>[\d]+)`, Endpoints: []*handlers.Endpoint{
			{Methods: []string{"GET"}, Args: revisionArgs(registryContextArg()), Permission: h.revisionsPermission, Handler: h.revisionGet},
			{Methods: []string{"DELETE"}, Args: revisionArgs(coreTyped("force", "boolean", "Required to be true, as revisions do not support trashing.", false)),
				Permission: h.revisionDeletePermission, Handler: h.revisionDelete}}})
	}
	routes = append(routes, registryRoutes()...)
	routes = append(routes, coreTermRoutes(svc)...)
	routes = append(routes, usersRoutes(svc)...)
	routes = append(routes, &handlers.Route{Path: "/settings", Schema: settingsSchema, Endpoints: []*handlers.Endpoint{
		{Methods: []string{"GET"}, Permission: settingsPermission, Handler: svc.settings},
		{Methods: []string{"POST", "PUT", "PATCH"}, Args: settingsArgs(), Permission: settingsPermission, Handler: svc.settingsUpdate},
	}})
	return routes
}

// Routes is the route family of wp/v2, for handlers.New.
func Routes(svc Services) handlers.RouteFamily {
	c := &coreServices{posts: svc.Store, users: svc.Users, termQuery: svc.TermQuery, writer: svc.Writer,
		taxonomies: termapi.Taxonomies{Terms: svc.Terms}}
	return func(s *handlers.Server) { s.Register(handlers.NamespaceCore, coreRouteTable(s, c)) }
}

// notYet answers the wp/v2 endpoints calendard registers but does not serve yet.
func notYet(*handlers.Request) (*handlers.Response, error) {
	return nil, &calendard.Error{Code: "rest_not_implemented", Message: "calendard does not serve this endpoint yet.", Status: 501}
}

func coreIDArg() *handlers.Arg {
	a := coreTyped("id", "integer", "Unique identifier for the post.", nil)
	a.HasDefault = false
	return a
}

// coreTyped is a core argument with a JSON-schema type, validated and sanitized by
// rest_validate_request_arg / rest_sanitize_request_arg.
func coreTyped(name, typ, desc string, def any) *handlers.Arg {
	a := &handlers.Arg{Name: name, Type: typ, Description: desc,
		Validate: func(_ *handlers.Request, v any) error {
			_, err := handlers.Coerce(name, typ, v)
			return err
		}}
	if def != nil {
		a.HasDefault = true
		a.Default = func(*handlers.Request) any { return def }
	}
	return a
}

// coreContextArg is get_context_param(default view).
func coreContextArg() *handlers.Arg {
	return &handlers.Arg{Name: "context", Type: "string", HasDefault: true, Default: func(*handlers.Request) any { return "view" },
		Description: "Scope under which the request is made; determines fields present in response.", Schema: coreContextSchema(),
		Validate: func(_ *handlers.Request, v any) error {
			if s, ok := v.(string); ok {
				switch s {
				case "view", "embed", "edit":
					return nil
				}
				return &calendard.Error{Code: "rest_not_in_enum", Message: "context is not one of view, embed, and edit.", HasRawData: true}
			}
			return handlers.TypeError("context", "string")
		}}
}

func coreGetArgs() []*handlers.Arg {
	return []*handlers.Arg{coreIDArg(), coreContextArg(),
		coreTyped("excerpt_length", "integer", "Override the default excerpt length.", nil),
		coreTyped("password", "string", "The password for the post if it is password protected.", nil)}
}
