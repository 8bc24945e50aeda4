package tribe

import (
	"github.com/calendard/calendard"
	"github.com/calendard/calendard/handlers"
	"github.com/calendard/calendard/handlers/termapi"
	"github.com/calendard/calendard/internal/php"
	"github.com/calendard/calendard/internal/phpjson"
)

// termsHandler serves /categories and /tags (the plugin's wrappers around WordPress' terms controller).
type termsHandler struct {
	*termapi.Writes
	*lookups
	sync   *syncer
	query  calendard.TermQueryService
	kind   string // "category" or "tag"
	plural string // route segment
}

// listArgs are the archive parameters of the term lists, in the plugin's declaration order.
func (h *termsHandler) listArgs() []*handlers.Arg {
	inTaxonomy := h.validTermList(h.Taxonomy)
	args := []*handlers.Arg{
		pageArg(),
		perPageArg("The number of event " + h.plural + " to return on each page"),
		{Name: "search", Type: "string", Validate: validString, Description: "Limit results to those matching a string"},
		// include/exclude have no type: WordPress passes them on raw and wp_parse_id_list reads them.
		{Name: "exclude", ItemsType: "integer", SwaggerType: "array", Validate: inTaxonomy,
			Description: "Ensure result set exclude specific IDs"},
		{Name: "include", ItemsType: "integer", SwaggerType: "array", Validate: inTaxonomy,
			Description: "Limit result set to specific IDs"},
		{Name: "order", Type: "string", Validate: validString, Description: "Order sort attribute ascending or descending"},
		{Name: "orderby", Type: "string", Validate: validString, Description: "Sort collection by term attribute"},
		// The plugin declares the default as the string "1"; the boolean coercion turns it into true.
		{Name: "hide_empty", Type: "boolean", HasDefault: true, Default: func(*handlers.Request) any { return "1" },
			Description: "Whether to hide terms not assigned to any posts"},
	}
	if h.Hierarchical {
		// An existing category: "0" (top level) is rejected before WordPress could read it.
		args = append(args, &handlers.Arg{Name: "parent", Type: "integer", Validate: inTaxonomy,
			Description: "Limit result set to terms assigned to a specific parent"})
	}
	return append(args,
		&handlers.Arg{Name: "post", Type: "integer", Validate: h.validEventID,
			Description: "Limit result set to terms assigned to a specific post"},
		&handlers.Arg{Name: "event", Type: "integer", Validate: h.validEventID,
			Description: `Limit result set to terms assigned to a specific event (an alias of the "post" parameter)`},
		&handlers.Arg{Name: "slug", Type: "string", Validate: validString, Description: "Limit result set to terms with a specific slug"},
	)
}

// idArg is the path parameter of the single-term route: it must name a term of the taxonomy
// (is_event_category / is_post_tag), otherwise the request fails validation with a 400.
func (h *termsHandler) idArg() *handlers.Arg {
	a := termIDArg(h.kind)
	a.Validate = h.validTermList(h.Taxonomy)
	return a
}

// list is GET /categories and /tags (Term_Archive_Base::get over WP_REST_Terms_Controller::get_items).
func (h *termsHandler) list(r *handlers.Request) (*handlers.Response, error) {
	if syncAsked(r) {
		return h.sync.answer(r, h.plural, h.plural, h.listArgs(), func(ids []int64) (map[int64]any, error) {
			idx, err := h.taxonomies.Get(r, h.Taxonomy)
			if err != nil {
				return nil, err
			}
			out := map[int64]any{}
			for _, id := range ids {
				if t := idx.ByID(id); t != nil {
					out[id] = termRecord(r, t, idx)
				}
			}
			return out, nil
		})
	}
	tok := h.sync.listToken(r, h.plural) // before loading: the list reflects every change up to it
	idx, err := h.taxonomies.Get(r, h.Taxonomy)
	if err != nil {
		return nil, err
	}
	page := php.Int(r.Value("page"))
	if page < 1 {
		page = 1
	}
	perPage := int64(r.Site.PerPage)
	if v := r.Value("per_page"); !php.Empty(v) {
		perPage = php.Int(v)
	}
	if perPage < 1 {
		perPage = 1
	}
	plan := h.termQuery(r, idx, page, perPage)

	terms, err := plan.Run(r, idx, h.query)
	if err != nil {
		return nil, err
	}
	total, err := plan.Count(r, h.query)
	if err != nil {
		return nil, err
	}

	records := make([]any, 0, len(terms))
	for _, t := range terms {
		records = append(records, termRecord(r, t, idx))
	}
	pages := totalPages(total, perPage)
	// rest_url is the bare collection URL: the plugin never carries the request's filters.
	restURL := r.RestURL(h.plural + "/")
	body := phpjson.Obj("rest_url", restURL, "total", total, "total_pages", pages, h.plural, records)
	// No 404 past the last page: the list is just empty, with a link back.
	if page < pages {
		body.Set("next_rest_url", pageURL(restURL, page+1))
	}
	if page > 1 {
		body.Set("previous_rest_url", pageURL(restURL, page-1))
	}
	return withToken(withTotals(handlers.Ok(body), total, pages), tok), nil
}

// get is GET /categories/{id} and /tags/{id}: the core term serializer renamed by the plugin, with
// the core controller's links.
func (h *termsHandler) get(r *handlers.Request) (*handlers.Response, error) {
	idx, err := h.taxonomies.Get(r, h.Taxonomy)
	if err != nil {
		return nil, err
	}
	t := idx.ByID(php.Int(r.Value("id")))
	if t == nil {
		// The term vanished between validation and now: the core controller's answer.
		return nil, &calendard.Error{Code: "rest_term_invalid", Message: "Term does not exist.", Status: 404}
	}
	rec := termRecord(r, t, idx)
	rec.Set("_links", termapi.Links(r, t, idx))
	return handlers.Ok(rec), nil
}

// singleTerm is a term record with the core controller's links.
func singleTerm(r *handlers.Request, t *calendard.Term, idx *termapi.Index) *phpjson.Object {
	rec := termRecord(r, t, idx)
	rec.Set("_links", termapi.Links(r, t, idx))
	return rec
}

// create is POST /categories and /tags: wp_insert_term, then 201 with the term and a Location on the
// core route.
func (h *termsHandler) create(r *handlers.Request) (*handlers.Response, error) {
	parent, err := h.ParentParam(r)
	if err != nil {
		return nil, err
	}
	t, idx, err := h.InsertTerm(r, h.NewTermArgs(r, parent), parent)
	if err != nil {
		return nil, err
	}
	location := handlers.RestURL(r.Site, "/wp/v2/"+termapi.RESTBase(h.Taxonomy)+"/"+handlers.Itoa(t.ID))
	return (&handlers.Response{Status: 201, Body: singleTerm(r, t, idx)}).Header("Location", location), nil
}

// update is POST/PUT/PATCH /categories/{id} and /tags/{id}: wp_update_term with the fields sent (an
// empty request still re-saves the term), then the term as it is now.
func (h *termsHandler) update(r *handlers.Request) (*handlers.Response, error) {
	id := php.Int(r.Value("id"))
	parent, err := h.ParentParam(r)
	if err != nil {
		return nil, err
	}
	u := calendard.TermUpdate{Name: termapi.TextParam(r, "name"), Slug: termapi.TextParam(r, "slug"),
		Description: termapi.TextParam(r, "description"), Parent: parent}
	t, idx, err := h.UpdateTerm(r, id, u)
	if err != nil {
		return nil, err
	}
	return handlers.Ok(singleTerm(r, t, idx)), nil
}

// delete is DELETE /categories/{id} and /tags/{id}: always permanent (the plugin forces it); the
// answer is the term as it was, without links.
func (h *termsHandler) delete(r *handlers.Request) (*handlers.Response, error) {
	var body *phpjson.Object
	err := h.DeleteTerm(r, php.Int(r.Value("id")), func(t *calendard.Term, idx *termapi.Index) {
		body = termRecord(r, t, idx)
	})
	if err != nil {
		return nil, err
	}
	return handlers.Ok(body), nil
}

// termQuery builds the plan of a plugin list request. Parameters are already validated and coerced.
func (h *termsHandler) termQuery(r *handlers.Request, idx *termapi.Index, page, perPage int64) *termapi.Plan {
	a := termapi.ListQuery{Taxonomy: h.Taxonomy, Hierarchical: h.Hierarchical, Number: perPage, Offset: handlers.RowsBefore(page, perPage),
		Post: r.Value("post"), Include: r.Value("include"), Exclude: r.Value("exclude"), Slug: r.Value("slug"),
		HideEmpty: handlers.RestBool(r.Value("hide_empty"))}
	// "event" is an alias of "post" and wins when both are given (the plugin copies it over).
	if ev, ok := r.Param("event"); ok {
		a.Post = ev
	}
	if h.Hierarchical {
		a.Parent = r.Value("parent")
	}
	if s, ok := r.Value("search").(string); ok {
		a.Search = s
	}
	a.Orderby = "name"
	if v, ok := r.Value("orderby").(string); ok {
		a.Orderby = v
	}
	if v, ok := r.Param("order"); ok {
		a.Order, _ = v.(string)
	} else {
		a.Order = "ASC"
	}
	return a.Plan(idx)
}

// termRecord is shape (b) of §4.5: the core terms controller's item (view context) after the
// plugin renamed link to url and added its own urls. parent exists for hierarchical taxonomies only.
func termRecord(r *handlers.Request, t *calendard.Term, idx *termapi.Index) *phpjson.Object {
	o := phpjson.Obj("id", t.ID, "count", t.Count, "description", t.Description, "name", t.Name,
		"slug", t.Slug, "taxonomy", t.Taxonomy)
	hierarchical := t.Taxonomy != calendard.TaxonomyTag
	if hierarchical {
		o.Set("parent", t.Parent)
	}
	// No term meta is registered for the REST API, so meta is an empty PHP array.
	o.Set("meta", []any{})
	o.Set("url", termapi.Link(r, t, idx))
	o.Set("urls", termURLs(r, t, hierarchical))
	return o
}
