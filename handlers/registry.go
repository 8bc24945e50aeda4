package handlers

import "regexp"

// Routes are registered into the server by their families (RouteFamily): the server matches,
// validates, dispatches, embeds and lists them (indexes, OPTIONS, /doc) without knowing any.

// RouteFamily registers one family of routes (the plugin's, wp/v2) into s with Register. It is
// called once, by New; the family's handlers were given the services they use when it was made
// (internal/service wires them).
type RouteFamily func(s *Server)

// Register adds routes under a namespace the server serves: NamespaceCore, or either of the
// plugin's (NamespaceTribe or NamespaceCalendar: every plugin route is served under both). Routes
// keep their registration order, which the namespace index, OPTIONS and /doc follow.
func (s *Server) Register(ns string, routes []*Route) {
	for _, rt := range routes {
		rt.compile()
	}
	switch ns {
	case NamespaceCore:
		s.core = append(s.core, routes...)
	case NamespaceTribe, NamespaceCalendar:
		s.routes = append(s.routes, routes...)
	default:
		panic("handlers: Register under an unknown namespace " + ns)
	}
}

// NamespaceCore is WordPress core's namespace, where core exposes the calendar's post types and
// taxonomies (WP_REST_Posts_Controller and friends).
const NamespaceCore = "wp/v2"

var coreNSRe = regexp.MustCompile(`(?i)^/wp/v2(/.*)?$`)

// routesFor picks the route table of a REST path: wp/v2 routes are namespace-relative to "wp/v2",
// the plugin's to either of its spellings.
func (s *Server) routesFor(path string) (ns, rel string, routes []*Route, ok bool) {
	if m := coreNSRe.FindStringSubmatch(path); m != nil {
		return NamespaceCore, m[1], s.core, true
	}
	ns, rel, ok = splitNamespace(path)
	return ns, rel, s.routes, ok
}

// namespaceRoutes is the route table of a namespace calendard serves, as the indexes list it.
func (s *Server) namespaceRoutes(ns string) []*Route {
	if ns == NamespaceCore {
		return s.core
	}
	return s.routes
}
