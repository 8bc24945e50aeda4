package handlers

import (
	"github.com/calendard/calendard"
)

// coreServices are what the wp/v2 route handlers use beyond the request, given to them when the
// routes are built (New): wp/v2's post and user queries, raw options, terms and users.
type coreServices struct {
	posts PostStore
	terms calendard.TermService
	users calendard.UserService
}

// coreRouteTable registers the wp/v2 routes calendard serves, in WordPress' registration order:
// the namespace index WordPress adds with the first route, then the routes. The indexes list this
// table, so they list exactly what is served.
func coreRouteTable(s *Server, cfg Config, deps Deps) []*Route {
	svc := &coreServices{posts: deps.Posts, terms: deps.Terms, users: deps.Users}
	plugin := NewPluginServices(cfg, deps)
	routes := []*Route{{Path: "", Endpoints: []*Endpoint{{Methods: []string{"GET"}, Handler: s.NamespaceIndex,
		Args: []*Arg{
			{Name: "namespace", HasDefault: true, Default: func(*Request) any { return NamespaceCore }},
			{Name: "context", HasDefault: true, Default: func(*Request) any { return "view" }},
		}}}}}
	// Attachments register before the plugin's types, as create_initial_rest_routes walks the
	// post types in registration order.
	routes = append(routes, mediaRoutes(svc)...)
	for _, pt := range []string{calendard.PostTypeEvent, calendard.PostTypeVenue, calendard.PostTypeOrganizer} {
		h := newCorePosts(pt, svc)
		routes = append(routes, &Route{Path: "/" + pt, AllowBatch: true, Schema: h.itemSchema, Endpoints: []*Endpoint{
			{Methods: []string{"GET"}, Args: h.collectionArgs(), Permission: h.listPermission, Handler: h.list},
			{Methods: []string{"POST"}, Args: h.writeArgs(false), Permission: h.createPermission, Handler: h.create},
		}})
		routes = append(routes, &Route{Path: "/" + pt + `/(?P<id>[\d]+)`, AllowBatch: true, Schema: h.itemSchema, Endpoints: []*Endpoint{
			{Methods: []string{"GET"}, Args: coreGetArgs(), Permission: h.readPermission, Handler: h.get},
			{Methods: []string{"POST", "PUT", "PATCH"}, Args: h.writeArgs(true), Permission: h.updatePermission, Handler: h.update},
			{Methods: []string{"DELETE"}, Args: []*Arg{coreIDArg(), coreTyped("force", "boolean", "Whether to bypass Trash and force deletion.", false)},
				Permission: h.deletePermission, Handler: h.delete},
		}})
		// The revisions controller registers right after its post type's controller.
		routes = append(routes, &Route{Path: "/" + pt + `/(?P<parent>[\d]+)/revisions`, Endpoints: []*Endpoint{
			{Methods: []string{"GET"}, Args: h.revisionsArgs(), Permission: h.revisionsPermission, Handler: h.revisions}}})
		routes = append(routes, &Route{Path: "/" + pt + `/(?P<parent>[\d]+)/revisions/(?P<id>[\d]+)`, Endpoints: []*Endpoint{
			{Methods: []string{"GET"}, Args: revisionArgs(registryContextArg()), Permission: h.revisionsPermission, Handler: h.revisionGet},
			{Methods: []string{"DELETE"}, Args: revisionArgs(coreTyped("force", "boolean", "Required to be true, as revisions do not support trashing.", false)),
				Permission: h.revisionDeletePermission, Handler: h.revisionDelete}}})
	}
	routes = append(routes, registryRoutes()...)
	routes = append(routes, coreTermRoutes(plugin)...)
	routes = append(routes, usersRoutes(svc)...)
	routes = append(routes, &Route{Path: "/settings", Schema: settingsSchema, Endpoints: []*Endpoint{
		{Methods: []string{"GET"}, Permission: settingsPermission, Handler: svc.settings},
		{Methods: []string{"POST", "PUT", "PATCH"}, Args: settingsArgs(), Permission: settingsPermission, Handler: svc.settingsUpdate},
	}})
	return routes
}

// CoreRoutes registers the wp/v2 routes.
func CoreRoutes(s *Server, cfg Config, deps Deps) {
	s.Register(NamespaceCore, coreRouteTable(s, cfg, deps))
}

// notYet answers the wp/v2 endpoints calendard registers but does not serve yet.
func notYet(*Request) (*Response, error) {
	return nil, &calendard.Error{Code: "rest_not_implemented", Message: "calendard does not serve this endpoint yet.", Status: 501}
}

func coreIDArg() *Arg {
	a := coreTyped("id", "integer", "Unique identifier for the post.", nil)
	a.HasDefault = false
	return a
}

// coreTyped is a core argument with a JSON-schema type, validated and sanitized by
// rest_validate_request_arg / rest_sanitize_request_arg.
func coreTyped(name, typ, desc string, def any) *Arg {
	a := &Arg{Name: name, Type: typ, Description: desc,
		Validate: func(_ *Request, v any) error {
			_, err := Coerce(name, typ, v)
			return err
		}}
	if def != nil {
		a.HasDefault = true
		a.Default = func(*Request) any { return def }
	}
	return a
}

// coreContextArg is get_context_param(default view).
func coreContextArg() *Arg {
	return &Arg{Name: "context", Type: "string", HasDefault: true, Default: func(*Request) any { return "view" },
		Description: "Scope under which the request is made; determines fields present in response.", Schema: coreContextSchema(),
		Validate: func(_ *Request, v any) error {
			if s, ok := v.(string); ok {
				switch s {
				case "view", "embed", "edit":
					return nil
				}
				return &calendard.Error{Code: "rest_not_in_enum", Message: "context is not one of view, embed, and edit.", HasRawData: true}
			}
			return TypeError("context", "string")
		}}
}

func coreGetArgs() []*Arg {
	return []*Arg{coreIDArg(), coreContextArg(),
		coreTyped("excerpt_length", "integer", "Override the default excerpt length.", nil),
		coreTyped("password", "string", "The password for the post if it is password protected.", nil)}
}
