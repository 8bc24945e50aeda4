package wpv2

import (
	"math"

	"github.com/calendard/calendard"
	"github.com/calendard/calendard/handlers"
	"github.com/calendard/calendard/handlers/termapi"
	"github.com/calendard/calendard/internal/php"
	"github.com/calendard/calendard/internal/phpjson"
)

// coreTerms serves one of the calendar's taxonomies under WordPress core's wp/v2 namespace
// (WP_REST_Terms_Controller: event categories at /tribe_events_cat, tags at /tags). Queries, records,
// links and writes are the ones the plugin's /categories and /tags routes use, since the plugin
// wraps the same controller.
type coreTerms struct {
	taxonomy     string
	base         string // rest_base
	hierarchical bool
	caps         termCaps
	writes       *termapi.Writes // shared with the plugin's routes
	query        calendard.TermQueryService
	taxonomies   termapi.Taxonomies
	posts        Store
}

// termCaps are a taxonomy's capabilities after map_meta_cap (edit_term and delete_term map to
// edit_terms and delete_terms).
type termCaps struct{ edit, delete, assign string }

// termCapsOf: the plugin registers event categories with publish_tribe_events for managing, editing
// and deleting and edit_tribe_events for assigning; core maps edit_post_tags and delete_post_tags to
// manage_categories, and assign_post_tags to edit_posts.
func termCapsOf(taxonomy string) termCaps {
	if taxonomy == calendard.TaxonomyCategory {
		ev := calendard.CapsOf(calendard.PostTypeEvent)
		return termCaps{edit: ev.Publish, delete: ev.Publish, assign: ev.Edit}
	}
	return termCaps{edit: "manage_categories", delete: "manage_categories", assign: "edit_posts"}
}

// termPostTypes are the post types a taxonomy is registered for (is_object_in_taxonomy), and
// termViewableTypes those of them that are publicly queryable (is_post_type_viewable).
var (
	termPostTypes = map[string][]string{
		calendard.TaxonomyCategory: {calendard.PostTypeEvent, "tec_calendar_embed"},
		calendard.TaxonomyTag:      {"post", calendard.PostTypeEvent, "tec_calendar_embed"},
	}
	termViewableTypes = map[string]bool{"post": true, calendard.PostTypeEvent: true, "tec_calendar_embed": true}
)

func newCoreTerms(taxonomy string, svc *coreServices) *coreTerms {
	h := &coreTerms{taxonomy: taxonomy, base: termapi.RESTBase(taxonomy), caps: termCapsOf(taxonomy),
		hierarchical: taxonomy == calendard.TaxonomyCategory, query: svc.termQuery,
		taxonomies: svc.taxonomies, posts: svc.posts}
	h.writes = &termapi.Writes{Writer: svc.writer, Taxonomy: taxonomy, Hierarchical: h.hierarchical}
	return h
}

// coreTermRoutes registers the term routes of the calendar's taxonomies in WordPress' order (core's
// tags first, then the plugin's event categories).
func coreTermRoutes(svc *coreServices) []*handlers.Route {
	var routes []*handlers.Route
	for _, h := range []*coreTerms{newCoreTerms(calendard.TaxonomyTag, svc), newCoreTerms(calendard.TaxonomyCategory, svc)} {
		id := handlers.SchemaArg("id", false, handlers.Schema("description", "Unique identifier for the term.", "type", "integer"), nil)
		force := handlers.SchemaArg("force", false, handlers.Schema("type", "boolean", "default", false,
			"description", "Required to be true, as terms do not support trashing."), nil)
		routes = append(routes,
			&handlers.Route{Path: "/" + h.base, AllowBatch: true, Schema: h.itemSchema, Endpoints: []*handlers.Endpoint{
				{Methods: []string{"GET"}, Args: h.collectionArgs(), Permission: h.listPermission, Handler: h.list},
				{Methods: []string{"POST"}, Args: h.itemArgs(true), Permission: h.createPermission, Handler: h.create},
			}},
			&handlers.Route{Path: "/" + h.base + `/(?P<id>[\d]+)`, AllowBatch: true, Schema: h.itemSchema, Endpoints: []*handlers.Endpoint{
				{Methods: []string{"GET"}, Args: []*handlers.Arg{id, coreTermContextArg("view")}, Permission: h.readPermission, Handler: h.get},
				{Methods: []string{"POST", "PUT", "PATCH"}, Args: append([]*handlers.Arg{id}, h.itemArgs(false)...),
					Permission: h.updatePermission, Handler: h.update},
				{Methods: []string{"DELETE"}, Args: []*handlers.Arg{id, force}, Permission: h.deletePermission, Handler: h.delete},
			}})
	}
	return routes
}

// coreTermContextArg is get_context_param over the term schema's contexts.
func coreTermContextArg(def string) *handlers.Arg {
	return handlers.SchemaArg("context", false, handlers.Schema(
		"description", "Scope under which the request is made; determines fields present in response.",
		"type", "string", "enum", handlers.StrList("view", "embed", "edit"), "default", def), handlers.SanitizeKeyParam)
}

// collectionArgs are get_collection_params: the controller's common ones (context, page, per_page,
// search), then the terms controller's. offset exists for flat taxonomies, parent for hierarchical ones.
func (h *coreTerms) collectionArgs() []*handlers.Arg {
	args := []*handlers.Arg{
		coreTermContextArg("view"),
		handlers.SchemaArg("page", false, handlers.Schema("description", "Current page of the collection.", "type", "integer",
			"default", int64(1), "minimum", int64(1)), handlers.Absint),
		handlers.SchemaArg("per_page", false, handlers.Schema("description", "Maximum number of items to be returned in result set.",
			"type", "integer", "default", int64(10), "minimum", int64(1), "maximum", int64(100)), handlers.Absint),
		handlers.SchemaArg("search", false, handlers.Schema("description", "Limit results to those matching a string.", "type", "string"),
			handlers.SanitizeTextParam),
		handlers.SchemaArg("exclude", false, handlers.Schema("description", "Ensure result set excludes specific IDs.", "type", "array",
			"items", handlers.Schema("type", "integer"), "default", []any{}), nil),
		handlers.SchemaArg("include", false, handlers.Schema("description", "Limit result set to specific IDs.", "type", "array",
			"items", handlers.Schema("type", "integer"), "default", []any{}), nil),
	}
	if !h.hierarchical {
		args = append(args, handlers.SchemaArg("offset", false, handlers.Schema("description", "Offset the result set by a specific number of items.",
			"type", "integer"), nil))
	}
	args = append(args,
		handlers.SchemaArg("order", false, handlers.Schema("description", "Order sort attribute ascending or descending.", "type", "string",
			"default", "asc", "enum", handlers.StrList("asc", "desc")), nil),
		handlers.SchemaArg("orderby", false, handlers.Schema("description", "Sort collection by term attribute.", "type", "string",
			"default", "name", "enum", handlers.StrList("id", "include", "name", "slug", "include_slugs", "term_group", "description", "count")), nil),
		handlers.SchemaArg("hide_empty", false, handlers.Schema("description", "Whether to hide terms not assigned to any posts.", "type", "boolean",
			"default", false), nil),
	)
	if h.hierarchical {
		args = append(args, handlers.SchemaArg("parent", false, handlers.Schema("description", "Limit result set to terms assigned to a specific parent.",
			"type", "integer"), nil))
	}
	return append(args,
		handlers.SchemaArg("post", false, handlers.Schema("description", "Limit result set to terms assigned to a specific post.", "type", "integer",
			"default", nil), nil),
		handlers.SchemaArg("slug", false, handlers.Schema("description", "Limit result set to terms with one or more specific slugs.", "type", "array",
			"items", handlers.Schema("type", "string")), nil),
	)
}

// itemArgs are get_endpoint_args_for_item_schema: the writable schema properties; only creating
// requires the name. meta has no registered keys, so it only has to be an array
// (WP_REST_Meta_Fields::check_meta_is_array) and changes nothing.
func (h *coreTerms) itemArgs(creating bool) []*handlers.Arg {
	args := []*handlers.Arg{
		handlers.SchemaArg("description", false, handlers.Schema("description", "HTML description of the term.", "type", "string"), nil),
		handlers.SchemaArg("name", creating, handlers.Schema("description", "HTML title for the term.", "type", "string"), handlers.SanitizeTextParam),
		handlers.SchemaArg("slug", false, handlers.Schema("description", "An alphanumeric identifier for the term unique to its type.", "type", "string"),
			handlers.SanitizeSlugParam),
	}
	if h.hierarchical {
		args = append(args, handlers.SchemaArg("parent", false, handlers.Schema("description", "The parent term ID.", "type", "integer"), nil))
	}
	meta := &handlers.Arg{Name: "meta", Type: "object", Schema: handlers.Schema("description", "Meta fields.", "type", "object", "properties", []any{}),
		Validate: func(_ *handlers.Request, v any) error {
			if !php.IsArray(v) {
				return handlers.ErrInvalid
			}
			return nil
		}}
	return append(args, meta)
}

// itemSchema is get_item_schema (OPTIONS).
func (h *coreTerms) itemSchema(*handlers.Request) *phpjson.Object {
	all, view, viewEdit := handlers.StrList("view", "embed", "edit"), handlers.StrList("view", "embed", "edit"), handlers.StrList("view", "edit")
	title := h.taxonomy
	if h.taxonomy == calendard.TaxonomyTag {
		title = "tag"
	}
	props := phpjson.Obj(
		"id", handlers.Schema("description", "Unique identifier for the term.", "type", "integer", "context", all, "readonly", true),
		"count", handlers.Schema("description", "Number of published posts for the term.", "type", "integer", "context", viewEdit, "readonly", true),
		"description", handlers.Schema("description", "HTML description of the term.", "type", "string", "context", viewEdit),
		"link", handlers.Schema("description", "URL of the term.", "type", "string", "format", "uri", "context", view, "readonly", true),
		"name", handlers.Schema("description", "HTML title for the term.", "type", "string", "context", all, "required", true),
		"slug", handlers.Schema("description", "An alphanumeric identifier for the term unique to its type.", "type", "string", "context", all),
		"taxonomy", handlers.Schema("description", "Type attribution for the term.", "type", "string", "enum", handlers.StrList(h.taxonomy),
			"context", all, "readonly", true),
	)
	if h.hierarchical {
		props.Set("parent", handlers.Schema("description", "The parent term ID.", "type", "integer", "context", viewEdit))
	}
	props.Set("meta", handlers.Schema("description", "Meta fields.", "type", "object", "context", viewEdit, "properties", []any{}))
	return phpjson.Obj("$schema", "http://json-schema.org/draft-04/schema#", "title", title, "type", "object", "properties", props)
}

// errTermInvalid is WP_REST_Terms_Controller::get_term's error.
var errTermInvalid = &calendard.Error{Code: "rest_term_invalid", Message: "Term does not exist.", Status: 404}

// term is get_term: the term of this taxonomy with the route's ID.
func (h *coreTerms) term(r *handlers.Request) (*calendard.Term, *termapi.Index, error) {
	id := php.Int(r.Value("id"))
	if id <= 0 {
		return nil, nil, errTermInvalid
	}
	idx, err := h.taxonomies.Get(r, h.taxonomy)
	if err != nil {
		return nil, nil, err
	}
	t := idx.ByID(id)
	if t == nil {
		return nil, nil, errTermInvalid
	}
	return t, idx, nil
}

// listPermission is get_items_permissions_check: the edit context needs edit_terms, and the terms
// of a post only show when the post may be read.
func (h *coreTerms) listPermission(r *handlers.Request) error {
	if viewContext(r) == "edit" && !r.User.Can(h.caps.edit) {
		return &calendard.Error{Code: "rest_forbidden_context", Message: "Sorry, you are not allowed to edit terms in this taxonomy.", Status: authCode(r)}
	}
	post := r.Value("post")
	if php.Empty(post) {
		return nil
	}
	p, err := h.posts.PostByID(r.Context(), php.Int(post))
	if err != nil {
		return err
	}
	if p == nil {
		return &calendard.Error{Code: "rest_post_invalid_id", Message: "Invalid post ID.", Status: 400}
	}
	canRead, err := h.canReadTermsOf(r, p)
	if err != nil {
		return err
	}
	if !canRead {
		return &calendard.Error{Code: "rest_forbidden_context", Message: "Sorry, you are not allowed to view terms for this post.", Status: authCode(r)}
	}
	return nil
}

// canReadTermsOf is check_read_terms_permission_for_post: a post of a type the taxonomy is
// registered for, publicly viewable (published, of a viewable type) or readable by the user.
func (h *coreTerms) canReadTermsOf(r *handlers.Request, p *calendard.Post) (bool, error) {
	inTaxonomy := false
	for _, pt := range termPostTypes[h.taxonomy] {
		inTaxonomy = inTaxonomy || pt == p.Type
	}
	if !inTaxonomy {
		return false, nil
	}
	if p.Status == "publish" && termViewableTypes[p.Type] {
		return true, nil
	}
	ref := &calendard.PostRef{ID: p.ID, Type: p.Type, Status: p.Status, Author: p.Author}
	if p.Status == "trash" {
		var err error
		if ref.TrashedFrom, err = h.posts.TrashedFrom(r.Context(), p.ID); err != nil {
			return false, err
		}
	}
	return r.User.CanReadPost(ref), nil
}

// readPermission is get_item_permissions_check.
func (h *coreTerms) readPermission(r *handlers.Request) error {
	if _, _, err := h.term(r); err != nil {
		return err
	}
	if viewContext(r) == "edit" && !r.User.Can(h.caps.edit) {
		return &calendard.Error{Code: "rest_forbidden_context", Message: "Sorry, you are not allowed to edit this term.", Status: authCode(r)}
	}
	return nil
}

// createPermission is create_item_permissions_check: edit_terms on hierarchical taxonomies,
// assign_terms on flat ones.
func (h *coreTerms) createPermission(r *handlers.Request) error {
	need := h.caps.assign
	if h.hierarchical {
		need = h.caps.edit
	}
	if !r.User.Can(need) {
		return &calendard.Error{Code: "rest_cannot_create", Message: "Sorry, you are not allowed to create terms in this taxonomy.", Status: authCode(r)}
	}
	return nil
}

// updatePermission is update_item_permissions_check (edit_term).
func (h *coreTerms) updatePermission(r *handlers.Request) error {
	if _, _, err := h.term(r); err != nil {
		return err
	}
	if !r.User.Can(h.caps.edit) {
		return &calendard.Error{Code: "rest_cannot_update", Message: "Sorry, you are not allowed to edit this term.", Status: authCode(r)}
	}
	return nil
}

// deletePermission is delete_item_permissions_check (delete_term; neither taxonomy has a default
// term, which could never be deleted).
func (h *coreTerms) deletePermission(r *handlers.Request) error {
	if _, _, err := h.term(r); err != nil {
		return err
	}
	if !r.User.Can(h.caps.delete) {
		return &calendard.Error{Code: "rest_cannot_delete", Message: "Sorry, you are not allowed to delete this term.", Status: authCode(r)}
	}
	return nil
}

// item is prepare_item_for_response: the fields of the context (embed leaves out count,
// description, parent and meta), with the links the plugin's routes give a single term.
func (h *coreTerms) item(r *handlers.Request, t *calendard.Term, idx *termapi.Index, context string, links bool) *phpjson.Object {
	full := context != "embed"
	o := phpjson.Obj("id", t.ID)
	if full {
		o.Set("count", t.Count).Set("description", t.Description)
	}
	o.Set("link", termapi.Link(r, t, idx)).Set("name", t.Name).Set("slug", t.Slug).Set("taxonomy", t.Taxonomy)
	if full {
		if h.hierarchical {
			o.Set("parent", t.Parent)
		}
		// No term meta is registered for REST: an empty PHP array.
		o.Set("meta", []any{})
	}
	if links {
		o.Set("_links", termapi.Links(r, t, idx))
	}
	return o
}

// list is GET /wp/v2/<taxonomy>: get_items over the same term query as the plugin's archives.
func (h *coreTerms) list(r *handlers.Request) (*handlers.Response, error) {
	idx, err := h.taxonomies.Get(r, h.taxonomy)
	if err != nil {
		return nil, err
	}
	perPage := php.Int(r.Value("per_page"))
	if perPage < 1 {
		perPage = 1 // validation keeps it at 1 or more; a guard against dividing by zero
	}
	page := php.Int(r.Value("page"))
	// The query reads absint of an offset parameter (WP_Term_Query); the Link page comes from
	// the parameter as given.
	offset := handlers.RowsBefore(page, perPage)
	given := int64(offset)
	if v := r.Value("offset"); !h.hierarchical && !php.Empty(v) {
		given = php.Int(v)
		offset = handlers.QueryOffset(given)
	}
	a := termapi.ListQuery{Taxonomy: h.taxonomy, Hierarchical: h.hierarchical, Number: perPage, Offset: offset,
		Post: r.Value("post"), Include: r.Value("include"), Exclude: r.Value("exclude"), Slug: r.Value("slug"),
		HideEmpty: handlers.RestBool(r.Value("hide_empty"))}
	if h.hierarchical {
		a.Parent = r.Value("parent")
	}
	a.Search, _ = r.Value("search").(string)
	a.Orderby, _ = r.Value("orderby").(string)
	a.Order, _ = r.Value("order").(string)
	plan := a.Plan(idx)

	terms, err := plan.Run(r, idx, h.query)
	if err != nil {
		return nil, err
	}
	total, err := plan.Count(r, h.query)
	if err != nil {
		return nil, err
	}
	context := viewContext(r)
	items := make([]any, 0, len(terms))
	// WordPress leaves out of the edit context the terms the user may not edit_term; that is the
	// taxonomy's edit_terms, which the permission check already required.
	for _, t := range terms {
		items = append(items, h.item(r, t, idx, context, true))
	}

	// The page is derived back from the offset, as WordPress does (an offset mid-page counts as the
	// next page).
	curPage := int64(math.Ceil(float64(given)/float64(perPage) + 1))
	maxPages := int64(math.Ceil(float64(total) / float64(perPage)))
	return pagedResponse(r, items, "/"+handlers.NamespaceCore+"/"+h.base, curPage, maxPages, int64(total)), nil
}

// get is GET /wp/v2/<taxonomy>/<id>.
func (h *coreTerms) get(r *handlers.Request) (*handlers.Response, error) {
	t, idx, err := h.term(r)
	if err != nil {
		return nil, err
	}
	return handlers.Ok(h.item(r, t, idx, viewContext(r), true)), nil
}

// setFirstParam is WP_REST_Request::set_param: the value goes to the first source in parameter order.
func setFirstParam(r *handlers.Request, name string, v any) {
	for _, src := range r.Sources() {
		if src != nil {
			src.Set(name, v)
			return
		}
	}
}

// create is POST /wp/v2/<taxonomy>: create_item. The answer is the term in the edit context with
// its links, 201 and a Location.
func (h *coreTerms) create(r *handlers.Request) (*handlers.Response, error) {
	parent, err := h.writes.ParentParam(r)
	if err != nil {
		return nil, err
	}
	t, idx, err := h.writes.InsertTerm(r, h.writes.NewTermArgs(r, parent), parent)
	if err != nil {
		return nil, err
	}
	setFirstParam(r, "context", "edit")
	resp := &handlers.Response{Status: 201, Body: h.item(r, t, idx, "edit", true)}
	return resp.Header("Location", handlers.RestURL(r.Site, "/"+handlers.NamespaceCore+"/"+h.base+"/"+handlers.Itoa(t.ID))), nil
}

// update is POST/PUT/PATCH /wp/v2/<taxonomy>/<id>: update_item (wp_update_term runs even with nothing
// to change).
func (h *coreTerms) update(r *handlers.Request) (*handlers.Response, error) {
	cur, _, err := h.term(r)
	if err != nil {
		return nil, err
	}
	parent, err := h.writes.ParentParam(r)
	if err != nil {
		return nil, err
	}
	u := calendard.TermUpdate{Name: termapi.TextParam(r, "name"), Slug: termapi.TextParam(r, "slug"),
		Description: termapi.TextParam(r, "description"), Parent: parent}
	t, idx, err := h.writes.UpdateTerm(r, cur.ID, u)
	if err != nil {
		return nil, err
	}
	setFirstParam(r, "context", "edit")
	return handlers.Ok(h.item(r, t, idx, "edit", true)), nil
}

// errTrashNotSupported is delete_item's answer without force: terms have no trash.
var errTrashNotSupported = &calendard.Error{Code: "rest_trash_not_supported",
	Message: "Terms do not support trashing. Set 'force=true' to delete.", Status: 501}

// delete is DELETE /wp/v2/<taxonomy>/<id>?force=true: wp_delete_term, answered with the term as it
// was (view context, no links).
func (h *coreTerms) delete(r *handlers.Request) (*handlers.Response, error) {
	cur, _, err := h.term(r)
	if err != nil {
		return nil, err
	}
	if !handlers.RestBool(r.Value("force")) {
		return nil, errTrashNotSupported
	}
	setFirstParam(r, "context", "view")
	var previous *phpjson.Object
	err = h.writes.DeleteTerm(r, cur.ID, func(t *calendard.Term, idx *termapi.Index) {
		previous = h.item(r, t, idx, "view", false)
	})
	if err != nil {
		return nil, err
	}
	return handlers.Ok(phpjson.Obj("deleted", true, "previous", previous)), nil
}
