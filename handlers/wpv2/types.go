package wpv2

import (
	_ "embed"
	"slices"

	"github.com/calendard/calendard"
	"github.com/calendard/calendard/handlers"
	"github.com/calendard/calendard/internal/phpjson"
)

// GET /wp/v2/types and /wp/v2/taxonomies (WP_REST_Post_Types_Controller, WP_REST_Taxonomies_Controller)
// for the post types and taxonomies calendard serves under wp/v2.

// registryJSON is what register_post_type and register_taxonomy hold for the plugin's event, venue
// and organizer types and its event category taxonomy on the reference (The Events Calendar 6.17):
// labels, capabilities, supports, block template, icon and visibility, in the edit context's field
// order. WordPress core's types and taxonomies (and the plugin's calendar embeds) are built from
// their registration arguments (wpv2_registry.go).
//
//go:embed registry.json
var registryJSON []byte

// coreRegistry is every type and taxonomy shown in REST, in registration order: core's, then the
// plugin's on init (venues, organizers, events, then calendar embeds; event categories last).
var coreRegistry = func() struct{ types, taxonomies *phpjson.Object } {
	v, err := phpjson.Decode(registryJSON)
	if err != nil {
		panic("registry.json: " + err.Error())
	}
	o := v.(*phpjson.Object)
	t, _ := o.Get("types")
	x, _ := o.Get("taxonomies")
	pluginTypes, pluginTaxonomies := t.(*phpjson.Object), x.(*phpjson.Object)

	// The post types in registration order with their 'taxonomies' argument (for the plugin's
	// types in the JSON, the taxonomies they are shown with).
	type typeReg struct {
		name       string
		def        *postTypeDef
		taxonomies []string
	}
	var regs []typeReg
	for i := range corePostTypes {
		regs = append(regs, typeReg{corePostTypes[i].name, &corePostTypes[i], corePostTypes[i].taxonomies})
	}
	for _, name := range pluginTypes.Keys() {
		e, _ := pluginTypes.Get(name)
		tx, _ := e.(*phpjson.Object).Get("taxonomies")
		var names []string
		for _, n := range tx.([]any) {
			names = append(names, n.(string))
		}
		regs = append(regs, typeReg{name: name, taxonomies: names})
	}
	regs = append(regs, typeReg{calendarEmbedType.name, &calendarEmbedType, calendarEmbedType.taxonomies})

	taxonomies := phpjson.NewObject()
	for _, d := range coreTaxonomies {
		types := append([]string(nil), d.objectTypes...)
		for _, r := range regs {
			if slices.Contains(r.taxonomies, d.name) && !slices.Contains(types, r.name) {
				types = append(types, r.name)
			}
		}
		taxonomies.Set(d.name, taxonomyEntryOf(d, types))
	}
	for _, name := range pluginTaxonomies.Keys() {
		e, _ := pluginTaxonomies.Get(name)
		taxonomies.Set(name, e)
	}
	typesOf := func(postType string) []string {
		var out []string
		for _, name := range taxonomies.Keys() {
			e, _ := taxonomies.Get(name)
			ts, _ := e.(*phpjson.Object).Get("types")
			if slices.Contains(ts.([]any), any(postType)) {
				out = append(out, name)
			}
		}
		return out
	}
	types := phpjson.NewObject()
	for _, r := range regs {
		if r.def == nil {
			e, _ := pluginTypes.Get(r.name)
			types.Set(r.name, e)
			continue
		}
		types.Set(r.name, postTypeEntry(*r.def, typesOf(r.name)))
	}
	return struct{ types, taxonomies *phpjson.Object }{types, taxonomies}
}()

// typeFieldContexts and taxonomyFieldContexts are the contexts of each schema property.
var typeFieldContexts = map[string][]string{
	"capabilities": {"edit"}, "description": {"view", "edit"}, "hierarchical": {"view", "edit"},
	"has_archive": {"view", "edit"}, "visibility": {"edit"}, "viewable": {"edit"}, "labels": {"edit"},
	"name": {"view", "edit", "embed"}, "slug": {"view", "edit", "embed"}, "icon": {"view", "edit", "embed"},
	"supports": {"edit"}, "taxonomies": {"view", "edit"}, "rest_base": {"view", "edit", "embed"},
	"rest_namespace": {"view", "edit", "embed"}, "template": {"view", "edit", "embed"}, "template_lock": {"view", "edit", "embed"},
}

var taxonomyFieldContexts = map[string][]string{
	"name": {"view", "edit", "embed"}, "slug": {"view", "edit", "embed"}, "capabilities": {"edit"},
	"description": {"view", "edit"}, "labels": {"edit"}, "types": {"view", "edit"}, "show_cloud": {"edit"},
	"hierarchical": {"view", "edit"}, "rest_base": {"view", "edit", "embed"}, "rest_namespace": {"view", "edit", "embed"},
	"visibility": {"edit"},
}

// registryItem is prepare_item_for_response: the registered fields of the context, then _links.
func registryItem(r *handlers.Request, entry *phpjson.Object, contexts map[string][]string, ctx, collection string) *phpjson.Object {
	o := phpjson.NewObject()
	for _, k := range entry.Keys() {
		if slices.Contains(contexts[k], ctx) {
			v, _ := entry.Get(k)
			o.Set(k, v)
		}
	}
	base, _ := entry.Get("rest_base")
	b, _ := base.(string)
	o.Set("_links", phpjson.Obj(
		"collection", []any{phpjson.Obj("href", handlers.RestURL(r.Site, "/wp/v2/"+collection))},
		"wp:items", []any{phpjson.Obj("href", handlers.RestURL(r.Site, "/wp/v2/"+b))},
		"curies", []any{phpjson.Obj("name", "wp", "href", "https://api.w.org/{rel}", "templated", true)}))
	return o
}

// emptyObject keeps an empty collection a JSON object, as both controllers cast it.
func emptyObject(o *phpjson.Object) any {
	if o.Len() == 0 {
		return phpjson.Raw("{}")
	}
	return o
}

func registryContextArg() *handlers.Arg {
	return handlers.SchemaArg("context", false, handlers.Schema("description", "Scope under which the request is made; determines fields present in response.",
		"type", "string", "enum", handlers.StrList("view", "embed", "edit"), "default", "view"), nil)
}

func typeEntry(name string) *phpjson.Object {
	v, _ := coreRegistry.types.Get(name)
	o, _ := v.(*phpjson.Object)
	return o
}

func taxonomyEntry(name string) *phpjson.Object {
	v, _ := coreRegistry.taxonomies.Get(name)
	o, _ := v.(*phpjson.Object)
	return o
}

// typesPermission is WP_REST_Post_Types_Controller::get_items_permissions_check.
func typesPermission(r *handlers.Request) error {
	if viewContext(r) != "edit" {
		return nil
	}
	for _, name := range coreRegistry.types.Keys() {
		if r.User.Can(typeEditCap(name)) {
			return nil
		}
	}
	return &calendard.Error{Code: "rest_cannot_view", Message: "Sorry, you are not allowed to edit posts in this post type.", Status: authCode(r)}
}

// typesList is GET /wp/v2/types.
func typesList(r *handlers.Request) (*handlers.Response, error) {
	out := phpjson.NewObject()
	ctx := viewContext(r)
	for _, name := range coreRegistry.types.Keys() {
		if ctx == "edit" && !r.User.Can(typeEditCap(name)) {
			continue
		}
		out.Set(name, registryItem(r, typeEntry(name), typeFieldContexts, ctx, "types"))
	}
	return handlers.Ok(emptyObject(out)), nil
}

// typeGet is GET /wp/v2/types/<type>.
func typeGet(r *handlers.Request) (*handlers.Response, error) {
	name, _ := r.Value("type").(string)
	entry := typeEntry(name)
	if entry == nil {
		return nil, &calendard.Error{Code: "rest_type_invalid", Message: "Invalid post type.", Status: 404}
	}
	if viewContext(r) == "edit" && !r.User.Can(typeEditCap(name)) {
		return nil, &calendard.Error{Code: "rest_forbidden_context", Message: "Sorry, you are not allowed to edit posts in this post type.", Status: authCode(r)}
	}
	return handlers.Ok(registryItem(r, entry, typeFieldContexts, viewContext(r), "types")), nil
}

// taxonomiesOfRequest is get_taxonomies(), or get_object_taxonomies(type) when type is given.
func taxonomiesOfRequest(r *handlers.Request) []string {
	all := coreRegistry.taxonomies.Keys()
	t, given := r.Value("type").(string)
	if !given || t == "" {
		return all
	}
	var out []string
	for _, name := range all {
		types, _ := taxonomyEntry(name).Get("types")
		for _, pt := range types.([]any) {
			if pt == t {
				out = append(out, name)
				break
			}
		}
	}
	return out
}

// registryCap is a capability a registered type or taxonomy names.
func registryCap(entry *phpjson.Object, key string) string {
	if entry == nil {
		return "do_not_allow"
	}
	caps, _ := entry.Get("capabilities")
	c, _ := caps.(*phpjson.Object)
	if c == nil {
		return "do_not_allow"
	}
	v, _ := c.Get(key)
	s, _ := v.(string)
	return s
}

// typeEditCap is the type's cap->edit_posts.
func typeEditCap(name string) string { return registryCap(typeEntry(name), "edit_posts") }

// assignTermsCap is the taxonomy's cap->assign_terms as current_user_can checks it: the core
// taxonomies' own capabilities are meta capabilities map_meta_cap turns into edit_posts.
func assignTermsCap(taxonomy string) string {
	c := registryCap(taxonomyEntry(taxonomy), "assign_terms")
	if c == "assign_categories" || c == "assign_post_tags" {
		return "edit_posts"
	}
	return c
}

// taxonomiesPermission is WP_REST_Taxonomies_Controller::get_items_permissions_check.
func taxonomiesPermission(r *handlers.Request) error {
	if viewContext(r) != "edit" {
		return nil
	}
	for _, name := range taxonomiesOfRequest(r) {
		if r.User.Can(assignTermsCap(name)) {
			return nil
		}
	}
	return &calendard.Error{Code: "rest_cannot_view", Message: "Sorry, you are not allowed to manage terms in this taxonomy.", Status: authCode(r)}
}

// taxonomiesList is GET /wp/v2/taxonomies.
func taxonomiesList(r *handlers.Request) (*handlers.Response, error) {
	out := phpjson.NewObject()
	ctx := viewContext(r)
	for _, name := range taxonomiesOfRequest(r) {
		if ctx == "edit" && !r.User.Can(assignTermsCap(name)) {
			continue
		}
		out.Set(name, registryItem(r, taxonomyEntry(name), taxonomyFieldContexts, ctx, "taxonomies"))
	}
	return handlers.Ok(emptyObject(out)), nil
}

// taxonomyPermission is WP_REST_Taxonomies_Controller::get_item_permissions_check.
func taxonomyPermission(r *handlers.Request) error {
	name, _ := r.Value("taxonomy").(string)
	if taxonomyEntry(name) == nil {
		return nil
	}
	if viewContext(r) == "edit" && !r.User.Can(assignTermsCap(name)) {
		return &calendard.Error{Code: "rest_forbidden_context", Message: "Sorry, you are not allowed to manage terms in this taxonomy.", Status: authCode(r)}
	}
	return nil
}

// taxonomyGet is GET /wp/v2/taxonomies/<taxonomy>.
func taxonomyGet(r *handlers.Request) (*handlers.Response, error) {
	name, _ := r.Value("taxonomy").(string)
	entry := taxonomyEntry(name)
	if entry == nil {
		return nil, &calendard.Error{Code: "rest_taxonomy_invalid", Message: "Invalid taxonomy.", Status: 404}
	}
	return handlers.Ok(registryItem(r, entry, taxonomyFieldContexts, viewContext(r), "taxonomies")), nil
}

// registryRoutes are the types and taxonomies routes, registered after the post types' routes as
// create_initial_rest_routes does.
func registryRoutes() []*handlers.Route {
	return []*handlers.Route{
		{Path: "/types", Endpoints: []*handlers.Endpoint{{Methods: []string{"GET"}, Args: []*handlers.Arg{registryContextArg()},
			Permission: typesPermission, Handler: typesList}}},
		{Path: `/types/(?P<type>[\w-]+)`, Endpoints: []*handlers.Endpoint{{Methods: []string{"GET"}, Args: []*handlers.Arg{
			handlers.SchemaArg("type", false, handlers.Schema("description", "An alphanumeric identifier for the post type.", "type", "string"), nil),
			registryContextArg()}, Handler: typeGet}}},
		{Path: "/taxonomies", Endpoints: []*handlers.Endpoint{{Methods: []string{"GET"}, Args: []*handlers.Arg{registryContextArg(),
			handlers.SchemaArg("type", false, handlers.Schema("description", "Limit results to taxonomies associated with a specific post type.", "type", "string"), nil)},
			Permission: taxonomiesPermission, Handler: taxonomiesList}}},
		{Path: `/taxonomies/(?P<taxonomy>[\w-]+)`, Endpoints: []*handlers.Endpoint{{Methods: []string{"GET"}, Args: []*handlers.Arg{
			handlers.SchemaArg("taxonomy", false, handlers.Schema("description", "An alphanumeric identifier for the taxonomy.", "type", "string"), nil),
			registryContextArg()}, Permission: taxonomyPermission, Handler: taxonomyGet}}},
	}
}
