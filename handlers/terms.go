package handlers

import (
	"github.com/calendard/calendard"
	"github.com/calendard/calendard/internal/php"
	"github.com/calendard/calendard/internal/phpjson"
)

// termsHandler serves /categories and /tags (the plugin's wrappers around WordPress' terms controller).
type TermsHandler struct {
	Svc          *PluginServices
	Taxonomy     string
	Kind         string // "category" or "tag"
	Plural       string // route segment
	Hierarchical bool
}

// listArgs are the archive parameters of the term lists, in the plugin's declaration order.
func (h *TermsHandler) listArgs() []*Arg {
	inTaxonomy := validTermList(h.Taxonomy)
	args := []*Arg{
		pageArg(),
		perPageArg("The number of event " + h.Plural + " to return on each page"),
		{Name: "search", Type: "string", Validate: validString, Description: "Limit results to those matching a string"},
		// include/exclude have no type: WordPress passes them on raw and wp_parse_id_list reads them.
		{Name: "exclude", ItemsType: "integer", SwaggerType: "array", Validate: inTaxonomy,
			Description: "Ensure result set exclude specific IDs"},
		{Name: "include", ItemsType: "integer", SwaggerType: "array", Validate: inTaxonomy,
			Description: "Limit result set to specific IDs"},
		{Name: "order", Type: "string", Validate: validString, Description: "Order sort attribute ascending or descending"},
		{Name: "orderby", Type: "string", Validate: validString, Description: "Sort collection by term attribute"},
		// The plugin declares the default as the string "1"; the boolean coercion turns it into true.
		{Name: "hide_empty", Type: "boolean", HasDefault: true, Default: func(*Request) any { return "1" },
			Description: "Whether to hide terms not assigned to any posts"},
	}
	if h.Hierarchical {
		// An existing category: "0" (top level) is rejected before WordPress could read it.
		args = append(args, &Arg{Name: "parent", Type: "integer", Validate: inTaxonomy,
			Description: "Limit result set to terms assigned to a specific parent"})
	}
	return append(args,
		&Arg{Name: "post", Type: "integer", Validate: validEventID,
			Description: "Limit result set to terms assigned to a specific post"},
		&Arg{Name: "event", Type: "integer", Validate: validEventID,
			Description: `Limit result set to terms assigned to a specific event (an alias of the "post" parameter)`},
		&Arg{Name: "slug", Type: "string", Validate: validString, Description: "Limit result set to terms with a specific slug"},
	)
}

// idArg is the path parameter of the single-term route: it must name a term of the taxonomy
// (is_event_category / is_post_tag), otherwise the request fails validation with a 400.
func (h *TermsHandler) idArg() *Arg {
	a := termIDArg(h.Kind)
	a.Validate = validTermList(h.Taxonomy)
	return a
}

// list is GET /categories and /tags (Term_Archive_Base::get over WP_REST_Terms_Controller::get_items).
func (h *TermsHandler) list(r *Request) (*Response, error) {
	idx, err := r.Taxonomy(h.Taxonomy)
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

	terms, err := plan.Run(r, idx, h.Svc.TermQuery)
	if err != nil {
		return nil, err
	}
	total, err := plan.Count(r, h.Svc.TermQuery)
	if err != nil {
		return nil, err
	}

	records := make([]any, 0, len(terms))
	for _, t := range terms {
		records = append(records, r.termRecord(t, idx))
	}
	pages := totalPages(total, perPage)
	// rest_url is the bare collection URL: the plugin never carries the request's filters.
	restURL := r.RestURL(h.Plural + "/")
	body := phpjson.Obj("rest_url", restURL, "total", total, "total_pages", pages, h.Plural, records)
	// No 404 past the last page: the list is just empty, with a link back.
	if page < pages {
		body.Set("next_rest_url", pageURL(restURL, page+1))
	}
	if page > 1 {
		body.Set("previous_rest_url", pageURL(restURL, page-1))
	}
	return withTotals(Ok(body), total, pages), nil
}

// get is GET /categories/{id} and /tags/{id}: the core term serializer renamed by the plugin, with
// the core controller's links.
func (h *TermsHandler) get(r *Request) (*Response, error) {
	idx, err := r.Taxonomy(h.Taxonomy)
	if err != nil {
		return nil, err
	}
	t := idx.ByID(php.Int(r.Value("id")))
	if t == nil {
		// The term vanished between validation and now: the core controller's answer.
		return nil, &calendard.Error{Code: "rest_term_invalid", Message: "Term does not exist.", Status: 404}
	}
	rec := r.termRecord(t, idx)
	rec.Set("_links", r.TermLinks(t, idx))
	return Ok(rec), nil
}
