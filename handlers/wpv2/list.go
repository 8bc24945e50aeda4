package wpv2

import (
	"fmt"
	"math"
	"regexp"
	"strings"
	"time"

	"github.com/calendard/calendard"
	"github.com/calendard/calendard/handlers"
	"github.com/calendard/calendard/internal/php"
	"github.com/calendard/calendard/internal/phpjson"
	"github.com/calendard/calendard/internal/wptext"
)

// GET /wp/v2/<type>: WP_REST_Posts_Controller::get_items for the calendar's post types, with the
// plugin's filter on every front-end event query (events that have ended are left out).

// coreStatuses are the registered post statuses in registration order (get_post_stati()), as the
// status parameter's enum lists them and WP_Query writes its status conditions.
var coreStatuses = []string{"publish", "future", "draft", "pending", "private", "trash", "auto-draft", "inherit",
	"request-pending", "request-confirmed", "request-failed", "request-completed", "in-progress", "failed",
	"tribe-ea-success", "tribe-ea-failed", "tribe-ea-schedule", "tribe-ea-pending", "tribe-ea-draft", "tribe-ignored"}

// collectionArgs is get_collection_params in its registration order.
func (h *corePosts) collectionArgs() []*handlers.Arg {
	intItems := handlers.Schema("type", "integer")
	args := []*handlers.Arg{
		handlers.SchemaArg("context", false, handlers.Schema("description", "Scope under which the request is made; determines fields present in response.",
			"type", "string", "enum", handlers.StrList("view", "embed", "edit"), "default", "view"), nil),
		handlers.SchemaArg("page", false, handlers.Schema("description", "Current page of the collection.", "type", "integer", "default", 1, "minimum", 1), handlers.Absint),
		handlers.SchemaArg("per_page", false, handlers.Schema("description", "Maximum number of items to be returned in result set.", "type", "integer",
			"default", 10, "minimum", 1, "maximum", 100), handlers.Absint),
		handlers.SchemaArg("search", false, handlers.Schema("description", "Limit results to those matching a string.", "type", "string"), handlers.SanitizeTextParam),
		listDateArg("after", "Limit response to posts published after a given ISO8601 compliant date."),
		listDateArg("modified_after", "Limit response to posts modified after a given ISO8601 compliant date."),
		handlers.SchemaArg("author", false, handlers.Schema("description", "Limit result set to posts assigned to specific authors.", "type", "array",
			"items", intItems, "default", []any{}), nil),
		handlers.SchemaArg("author_exclude", false, handlers.Schema("description", "Ensure result set excludes posts assigned to specific authors.", "type", "array",
			"items", intItems, "default", []any{}), nil),
		listDateArg("before", "Limit response to posts published before a given ISO8601 compliant date."),
		listDateArg("modified_before", "Limit response to posts modified before a given ISO8601 compliant date."),
		handlers.SchemaArg("exclude", false, handlers.Schema("description", "Ensure result set excludes specific IDs.", "type", "array", "items", intItems, "default", []any{}), nil),
		handlers.SchemaArg("include", false, handlers.Schema("description", "Limit result set to specific IDs.", "type", "array", "items", intItems, "default", []any{}), nil),
		handlers.SchemaArg("search_semantics", false, handlers.Schema("description", "How to interpret the search input.", "type", "string", "enum", handlers.StrList("exact")), nil),
		handlers.SchemaArg("offset", false, handlers.Schema("description", "Offset the result set by a specific number of items.", "type", "integer"), nil),
		handlers.SchemaArg("order", false, handlers.Schema("description", "Order sort attribute ascending or descending.", "type", "string", "default", "desc",
			"enum", handlers.StrList("asc", "desc")), nil),
		handlers.SchemaArg("orderby", false, handlers.Schema("description", "Sort collection by post attribute.", "type", "string", "default", "date",
			"enum", handlers.StrList("author", "date", "id", "include", "modified", "parent", "relevance", "slug", "include_slugs", "title")), nil),
	}
	if h.attachment {
		args = append(args,
			handlers.SchemaArg("parent", false, handlers.Schema("description", "Limit result set to items with particular parent IDs.", "type", "array", "items", intItems, "default", []any{}), nil),
			handlers.SchemaArg("parent_exclude", false, handlers.Schema("description", "Limit result set to all items except those of a particular parent ID.", "type", "array",
				"items", intItems, "default", []any{}), nil))
	}
	args = append(args,
		handlers.SchemaArg("search_columns", false, handlers.Schema("default", []any{}, "description", "Array of column names to be searched.", "type", "array",
			"items", handlers.Schema("enum", handlers.StrList("post_title", "post_content", "post_excerpt"), "type", "string")), nil),
		handlers.SchemaArg("slug", false, handlers.Schema("description", "Limit result set to posts with one or more specific slugs.", "type", "array",
			"items", handlers.Schema("type", "string")), nil),
		h.statusArg())
	if len(h.taxonomies) > 0 {
		args = append(args, handlers.SchemaArg("tax_relation", false, handlers.Schema("description", "Limit result set based on relationship between multiple taxonomies.",
			"type", "string", "enum", handlers.StrList("AND", "OR")), nil))
		for _, tax := range h.taxonomies {
			args = append(args, listTaxArg(tax, false), listTaxArg(tax, true))
		}
	}
	if h.attachment {
		args = append(args, mediaTypeArgs()...)
	}
	return args
}

// listDateArg is a date-time string argument: rest_parse_date must accept it.
func listDateArg(name, desc string) *handlers.Arg {
	a := handlers.SchemaArg(name, false, handlers.Schema("description", desc, "type", "string", "format", "date-time"), nil)
	validate := a.Validate
	a.Validate = func(r *handlers.Request, v any) error {
		if err := validate(r, v); err != nil {
			return err
		}
		if s, _ := v.(string); !handlers.RFC3339Date(s) {
			return &calendard.Error{Code: "rest_invalid_date", Message: "Invalid date.", HasRawData: true}
		}
		return nil
	}
	return a
}

// listLocalDate is WP_Date_Query::build_mysql_datetime for a date-time value (handlers.LocalMySQLDate).
func listLocalDate(site *calendard.Site, v string) string { return handlers.LocalMySQLDate(site, v) }

// statusArg is the status parameter with sanitize_post_statuses: every status but the default
// needs the type's edit capability (private also passes with read_private), and each is checked
// against the whole parameter's schema.
func (h *corePosts) statusArg() *handlers.Arg {
	// The attachments controller defaults to inherit and lists only its own statuses.
	def, enum := "publish", append(append([]string{}, coreStatuses...), "any")
	if h.attachment {
		def, enum = "inherit", []string{"inherit", "private", "trash"}
	}
	s := handlers.Schema("default", def, "description", "Limit result set to posts assigned one or more statuses.", "type", "array",
		"items", handlers.Schema("enum", handlers.StrList(enum...), "type", "string"))
	a := handlers.SchemaArg("status", false, s, nil)
	a.Validate = nil
	caps := calendard.CapsOf(h.postType)
	a.Sanitize = func(r *handlers.Request, v any) (any, error) {
		statuses := wpParseSlugList(v)
		for _, st := range statuses {
			if st == def {
				continue
			}
			if r.User.Can(caps.Edit) || (st == "private" && r.User.Can(caps.ReadPrivate)) {
				if err := handlers.RestValidateValue(st, s, "status"); err != nil {
					return nil, err
				}
				continue
			}
			return nil, &calendard.Error{Code: "rest_forbidden_status", Message: "Status is forbidden.", Status: authCode(r)}
		}
		out := make([]any, len(statuses))
		for i, st := range statuses {
			out[i] = st
		}
		return out, nil
	}
	return a
}

// wpParseSlugList is wp_parse_slug_list: wp_parse_list, sanitize_title each, unique.
func wpParseSlugList(v any) []string {
	var out []string
	seen := map[string]bool{}
	for _, it := range handlers.RestSanitizeArray(v) {
		s, _ := php.String(it)
		s = wptext.SanitizeTitle(s)
		if !seen[s] {
			seen[s] = true
			out = append(out, s)
		}
	}
	return out
}

// listTaxArg is a taxonomy filter ("tags", "tags_exclude", ...): a list of term IDs, or an object
// with terms, include_children (hierarchical taxonomies) and operator (includes only), validated
// as WordPress validates its type list and oneOf.
func listTaxArg(tax coreTaxonomy, exclude bool) *handlers.Arg {
	name, desc := tax.base, "Limit result set to items with specific terms assigned in the "+tax.base+" taxonomy."
	if exclude {
		name, desc = tax.base+"_exclude", "Limit result set to items except those with specific terms assigned in the "+tax.base+" taxonomy."
	}
	intItems := handlers.Schema("type", "integer")
	props := handlers.Schema("terms", handlers.Schema("description", "Term IDs.", "type", "array", "items", intItems, "default", []any{}))
	hierarchical := tax.name == calendard.TaxonomyCategory
	if hierarchical {
		props.Set("include_children", handlers.Schema("description", "Whether to include child terms in the terms limiting the result set.",
			"type", "boolean", "default", false))
	}
	if !exclude {
		props.Set("operator", handlers.Schema("description", "Whether items must be assigned all or any of the specified terms.",
			"type", "string", "enum", handlers.StrList("AND", "OR"), "default", "OR"))
	}
	list := handlers.Schema("title", "Term ID List", "description", "Match terms with the listed IDs.", "type", "array", "items", intItems)
	object := handlers.Schema("title", "Term ID Taxonomy Query", "description", "Perform an advanced term query.", "type", "object",
		"properties", props, "additionalProperties", false)
	s := handlers.Schema("description", desc, "type", handlers.StrList("object", "array"), "oneOf", []any{list, object})
	a := handlers.SchemaArg(name, false, s, nil)
	a.Type = ""
	a.Validate = func(_ *handlers.Request, v any) error {
		_, err := listOneOf(v, name, list, object, props)
		return err
	}
	a.Sanitize = func(_ *handlers.Request, v any) (any, error) {
		return listOneOf(v, name, list, object, props)
	}
	return a
}

// listOneOf is rest_validate_value_from_schema (and the sanitizer) for a taxonomy filter: the
// value is an object when rest_is_object says so, else a list; exactly one of the two schemas
// must match it, and the error of the one that fails for a reason other than its type is shown.
func listOneOf(v any, param string, list, object, props *phpjson.Object) (any, error) {
	if !handlers.RestIsObject(v) && !handlers.RestIsArray(v) {
		return nil, handlers.TypeError(param, "object,array")
	}
	asList := func() (any, error) {
		if !handlers.RestIsArray(v) {
			return nil, handlers.TypeError(param, "array")
		}
		if err := handlers.RestValidateValue(v, list, param); err != nil {
			return nil, err
		}
		return handlers.RestSanitizeValue(v, list), nil
	}
	asObject := func() (any, error) {
		o, ok := v.(*phpjson.Object)
		if !ok || !handlers.RestIsObject(v) {
			return nil, handlers.TypeError(param, "object")
		}
		out := phpjson.NewObject()
		for _, k := range o.Keys() {
			ps, known := props.Get(k)
			if !known {
				return nil, &calendard.Error{Code: "rest_additional_properties_forbidden",
					Message: fmt.Sprintf("%s is not a valid property of Object.", k), HasRawData: true}
			}
			val, _ := o.Get(k)
			if err := handlers.RestValidateValue(val, ps.(*phpjson.Object), param+"["+k+"]"); err != nil {
				return nil, err
			}
			out.Set(k, handlers.RestSanitizeValue(val, ps.(*phpjson.Object)))
		}
		return out, nil
	}
	type try struct {
		title string
		out   any
		err   error
	}
	l, lerr := asList()
	o, oerr := asObject()
	tries := []try{{"Term ID List", l, lerr}, {"Term ID Taxonomy Query", o, oerr}}
	var ok []try
	var failed []int
	for i, t := range tries {
		if t.err == nil {
			ok = append(ok, t)
		} else {
			failed = append(failed, i)
		}
	}
	if len(ok) == 1 {
		return ok[0].out, nil
	}
	if len(ok) > 1 {
		return nil, &calendard.Error{Code: "rest_one_of_multiple_matches",
			Message: param + " matches Term ID List and Term ID Taxonomy Query, but should match only one.", HasRawData: true}
	}
	// rest_get_combining_operation_error: drop type errors about the parameter itself.
	var kept []int
	for _, i := range failed {
		if e, isErr := tries[i].err.(*calendard.Error); isErr && e.Code == "rest_invalid_type" && typeErrorParam(e) == param {
			continue
		}
		kept = append(kept, i)
	}
	if len(kept) == 1 {
		t := tries[kept[0]]
		msg := t.err.Error()
		if e, isErr := t.err.(*calendard.Error); isErr {
			msg = e.Message
		}
		return nil, &calendard.Error{Code: "rest_no_matching_schema",
			Message: fmt.Sprintf("%s is not a valid %s. Reason: %s", param, t.title, msg),
			Data:    []calendard.KV{{Key: "position", Value: kept[0]}}}
	}
	return nil, &calendard.Error{Code: "rest_no_matching_schema", Message: param + " does not match any of the expected formats.", HasRawData: true}
}

func typeErrorParam(e *calendard.Error) string {
	for _, kv := range e.Data {
		if kv.Key == "param" {
			s, _ := kv.Value.(string)
			return s
		}
	}
	return ""
}

// listPermission is get_items_permissions_check.
func (h *corePosts) listPermission(r *handlers.Request) error {
	if viewContext(r) == "edit" && !r.User.Can(calendard.CapsOf(h.postType).Edit) {
		return &calendard.Error{Code: "rest_forbidden_context", Message: "Sorry, you are not allowed to edit posts in this post type.", Status: authCode(r)}
	}
	return nil
}

// eventQueryDateKeys is the plugin's test for a query that already filters on event dates
// (preg_match on the serialized query vars): such queries keep WordPress' own order and rows.
var eventQueryDateKeys = regexp.MustCompile(`_Event(Start|End)Date(UTC)?`)

// intList is a list parameter's values as integers (wp_parse_id_list-like, after the schema).
func intList(r *handlers.Request, name string) []int64 {
	var out []int64
	for _, v := range handlers.RestSanitizeArray(r.Value(name)) {
		out = append(out, php.Int(v))
	}
	return out
}

// stringList is a list parameter's values as strings.
func stringList(r *handlers.Request, name string) []string {
	var out []string
	for _, v := range handlers.RestSanitizeArray(r.Value(name)) {
		s, _ := php.String(v)
		out = append(out, s)
	}
	return out
}

// listQuery turns the sanitized parameters into the WP_Query of get_items.
func (h *corePosts) listQuery(r *handlers.Request) (calendard.CorePostQuery, error) {
	q := calendard.CorePostQuery{PostType: h.postType}
	if h.attachment && (!php.Empty(r.Value("media_type")) || !php.Empty(r.Value("mime_type"))) {
		return q, &calendard.Error{Code: "rest_not_implemented", Message: "calendard does not filter media by type.", Status: 501}
	}
	ints := func(name string) []int64 { return intList(r, name) }
	q.Include, q.Exclude = ints("include"), ints("exclude")
	q.Authors, q.AuthorsExclude = ints("author"), ints("author_exclude")
	if h.attachment {
		q.ParentIn, q.ParentNotIn = ints("parent"), ints("parent_exclude")
	}
	for _, v := range handlers.RestSanitizeArray(r.Value("slug")) {
		s, _ := php.String(v)
		q.Slugs = append(q.Slugs, wptext.SanitizeTitle(s))
	}
	search, _ := r.Value("search").(string)
	if search != "" {
		q.Search = calendard.ParseSearch(search)
		q.SearchAnonymous = !r.User.LoggedIn()
		q.SearchExact = r.Value("search_semantics") == "exact"
		q.SearchFilename = h.attachment
		for _, c := range handlers.RestSanitizeArray(r.Value("search_columns")) {
			if s, _ := c.(string); s == "post_title" || s == "post_excerpt" || s == "post_content" {
				q.SearchColumns = append(q.SearchColumns, s)
			}
		}
	}
	statuses := map[string]bool{}
	for _, v := range handlers.RestSanitizeArray(r.Value("status")) {
		s, _ := v.(string)
		statuses[s] = true
	}
	if !statuses["any"] {
		q.Statuses = []string{}
		for _, s := range coreStatuses {
			if statuses[s] {
				q.Statuses = append(q.Statuses, s)
			}
		}
	}
	date := func(name string) *string {
		if s, ok := r.Value(name).(string); ok {
			v := listLocalDate(r.Site, s)
			return &v
		}
		return nil
	}
	q.After, q.Before, q.ModifiedAfter, q.ModifiedBefore = date("after"), date("before"), date("modified_after"), date("modified_before")
	if rel, ok := r.Value("tax_relation").(string); ok {
		q.TaxRelation = rel
	}
	for _, tax := range h.taxonomies {
		for _, exclude := range []bool{false, true} {
			name := tax.base
			if exclude {
				name += "_exclude"
			}
			clause, err := h.taxClause(r, tax, r.Value(name), exclude)
			if err != nil {
				return q, err
			}
			if clause != nil {
				q.Tax = append(q.Tax, *clause)
			}
		}
	}
	orderby, _ := r.Value("orderby").(string)
	q.OrderBy = map[string]string{"id": "ID", "include": "post__in", "slug": "post_name", "include_slugs": "post_name__in"}[orderby]
	if q.OrderBy == "" {
		q.OrderBy = orderby
	}
	q.Desc = r.Value("order") != "asc"
	perPage := php.Int(r.Value("per_page"))
	page := max(php.Int(r.Value("page")), 1)
	q.Limit, q.Offset = int(perPage), handlers.RowsBefore(page, perPage)
	if off, ok := r.Param("offset"); ok {
		q.Offset = handlers.QueryOffset(php.Int(off)) // an offset given, even 0, takes precedence over the page
	}
	if h.postType == calendard.PostTypeEvent && !eventQueryDateKeys.MatchString(search+strings.Join(q.Slugs, " ")) {
		// Dates::immutable('now'): the plugin's site zone (PHP's region on an offset-only site).
		now := r.Now.In(handlers.PluginSiteZone(r.Site)).Format(time.DateTime)
		q.EndsFrom = &now
	}
	return q, nil
}

// taxClause is prepare_tax_query for one taxonomy filter, with WP_Tax_Query's cleaning: child
// terms added when asked (hierarchical taxonomies), term IDs turned into term_taxonomy_ids,
// unknown terms dropped.
func (h *corePosts) taxClause(r *handlers.Request, tax coreTaxonomy, v any, exclude bool) (*calendard.CoreTaxClause, error) {
	if php.Empty(v) {
		return nil, nil
	}
	var terms []any
	children := false
	operator := "IN"
	switch x := v.(type) {
	case []any:
		terms = x
	case *phpjson.Object:
		t, _ := x.Get("terms")
		terms = handlers.RestSanitizeArray(t)
		ic, _ := x.Get("include_children")
		children = !php.Empty(ic)
		if op, _ := x.Get("operator"); op == "AND" && !exclude {
			operator = "AND"
		}
	default:
		return nil, nil
	}
	if len(terms) == 0 {
		return nil, nil
	}
	if exclude {
		operator = "NOT IN"
	}
	idx, err := h.svc.taxonomies.Get(r, tax.name)
	if err != nil {
		return nil, err
	}
	var ids []int64
	seen := map[int64]bool{}
	addID := func(id int64) {
		if !seen[id] {
			seen[id] = true
			ids = append(ids, id)
		}
	}
	for _, t := range terms {
		addID(php.Int(t))
	}
	if children && tax.name == calendard.TaxonomyCategory {
		for _, id := range idx.Tree.WithDescendants(append([]int64(nil), ids...)) {
			addID(id)
		}
	}
	clause := &calendard.CoreTaxClause{Taxonomy: tax.name, IncludeChildren: children, Operator: operator}
	for _, id := range ids {
		if t := idx.ByID(id); t != nil {
			clause.Terms = append(clause.Terms, t.TaxonomyID)
		}
	}
	if operator == "AND" && len(clause.Terms) < len(ids) {
		clause.Terms = nil // a missing term: no post has them all
	}
	return clause, nil
}

// list is GET /wp/v2/<type>.
func (h *corePosts) list(r *handlers.Request) (*handlers.Response, error) {
	orderby, _ := r.Value("orderby").(string)
	if orderby == "relevance" && php.Empty(r.Value("search")) {
		return nil, &calendard.Error{Code: "rest_no_search_term_defined", Message: "You need to define a search term to order by relevance.", Status: 400}
	}
	if orderby == "include" && php.Empty(r.Value("include")) {
		return nil, &calendard.Error{Code: "rest_orderby_include_missing_include", Message: "You need to define an include parameter to order by include.", Status: 400}
	}
	lister := h.svc.posts
	q, err := h.listQuery(r)
	if err != nil {
		return nil, err
	}
	page := int(php.Int(r.Value("page")))
	perPage := q.Limit
	ids, total, err := lister.CorePostIDs(r.Context(), r.Site, q)
	if err != nil {
		return nil, err
	}
	if len(ids) == 0 {
		// WP_Query leaves found_posts at 0 when the page is empty; get_items counts again without
		// the page (but with any offset) when the page is past the first. Only whether that first
		// page has a row matters, so one row is asked for; the page count still divides by per_page.
		if page > 1 && perPage > 0 {
			count := q
			if _, has := r.Param("offset"); !has {
				count.Offset = 0
			}
			count.Limit = 1
			again, n, err := lister.CorePostIDs(r.Context(), r.Site, count)
			if err != nil {
				return nil, err
			}
			if len(again) == 0 {
				n = 0
			}
			total = n
		} else {
			total = 0
		}
	}
	maxPages := 0
	if perPage > 0 {
		maxPages = int(math.Ceil(float64(total) / float64(perPage)))
	}
	if page > maxPages && total > 0 {
		return nil, &calendard.Error{Code: "rest_post_invalid_page_number", Message: "The page number requested is larger than the number of pages available.", Status: 400}
	}
	items := []any{}
	if r.Method != "HEAD" && len(ids) > 0 {
		posts, err := lister.CorePosts(r.Context(), ids)
		if err != nil {
			return nil, err
		}
		ctx := viewContext(r)
		for _, cp := range posts {
			if ctx == "edit" {
				if !canEdit(r, cp.Post) {
					continue
				}
			} else if !h.svc.canReadCore(r, cp.Post) {
				continue
			}
			items = append(items, h.item(r, cp, ctx, true))
		}
	}
	return pagedResponse(r, items, "/wp/v2/"+h.base, int64(page), int64(maxPages), int64(total)), nil
}

// pagedResponse is a wp/v2 collection's answer: the items, X-WP-Total and X-WP-TotalPages, and the
// Link prev/next pages of the request's own query (add_query_arg over urlencode_deep'd
// parameters; prev is at most the last page).
func pagedResponse(r *handlers.Request, items []any, route string, page, maxPages, total int64) *handlers.Response {
	resp := handlers.Ok(items).Header("X-WP-Total", handlers.Itoa(total)).Header("X-WP-TotalPages", handlers.Itoa(maxPages))
	base := handlers.AddQueryArg(handlers.RestURL(r.Site, route), objectKVs(handlers.UrlencodeDeep(r.QueryParams())))
	var links []string
	if page > 1 {
		links = append(links, "<"+handlers.AddQueryArg(base, []calendard.KV{{Key: "page", Value: handlers.Itoa(min(page-1, maxPages))}})+`>; rel="prev"`)
	}
	if maxPages > page {
		links = append(links, "<"+handlers.AddQueryArg(base, []calendard.KV{{Key: "page", Value: handlers.Itoa(page + 1)}})+`>; rel="next"`)
	}
	if len(links) > 0 {
		resp.Header("Link", strings.Join(links, ", "))
	}
	return resp
}

// objectKVs lists an object's members as add_query_arg's array argument.
func objectKVs(o *phpjson.Object) []calendard.KV {
	var out []calendard.KV
	for _, k := range o.Keys() {
		v, _ := o.Get(k)
		out = append(out, calendard.KV{Key: k, Value: v})
	}
	return out
}
