package termapi

import (
	"strings"

	"github.com/calendard/calendard"
	"github.com/calendard/calendard/handlers"
	"github.com/calendard/calendard/internal/php"
	"github.com/calendard/calendard/internal/wptext"
)

// Plan is one term archive request turned into WP_Term_Query arguments the way
// WP_REST_Terms_Controller::get_items and WP_Term_Query::get_terms do it.
type Plan struct {
	q calendard.TermQuery
	// hierarchical queries (categories) are not limited in SQL: empty terms are dropped in code
	// first, then the page is sliced.
	Hierarchical bool
	HideEmpty    bool
	limit        int // the page size ("number")
	Offset       int
	// noTree: a parent without children answers nothing without querying (_get_term_hierarchy check).
	noTree bool
	// brokenOrder: orderby term_order without the relationships join is an SQL error in WordPress,
	// which wpdb reports as no rows.
	brokenOrder bool
}

// ListQuery are the get_terms arguments WP_REST_Terms_Controller::get_items prepares, as the
// route serving the list read them from its request (the plugin's /categories and /tags, and the
// wp/v2 term routes).
type ListQuery struct {
	Taxonomy     string
	Hierarchical bool
	Post         any // wp_get_object_terms' object when not empty
	Include      any
	Exclude      any
	Slug         any // a string or a list
	Parent       any // the sanitized request value; nil when not sent
	HideEmpty    bool
	Search       string // "" for none
	Orderby      string // as sent ("" is term_id); routes put in their default (name)
	Order        string // as sent; anything but "asc" sorts descending
	Number       int64  // the page size
	Offset       int
}

// Plan turns the arguments into WP_Term_Query's, as get_terms (or wp_get_object_terms) does.
func (a ListQuery) Plan(idx *Index) *Plan {
	p := &Plan{Hierarchical: a.Hierarchical, limit: int(a.Number), Offset: a.Offset}
	q := &p.q
	q.Taxonomy = a.Taxonomy

	if !php.Empty(a.Post) {
		q.ObjectIDs = []int64{php.Int(a.Post)}
	}

	if !php.Empty(a.Include) {
		// WordPress drops exclude when include is given; an include list of just 0 is "empty" in PHP.
		ids := parseIDList(a.Include)
		if !(len(ids) == 1 && ids[0] == 0) {
			q.Include = ids
		}
	} else if !php.Empty(a.Exclude) {
		q.Exclude = parseIDList(a.Exclude)
	}

	slugList := php.IsArray(a.Slug)
	if !php.Empty(a.Slug) {
		if slugList {
			for _, s := range php.List(a.Slug) {
				str, _ := php.String(s)
				q.Slugs = append(q.Slugs, wptext.SanitizeTitle(str))
			}
		} else if s, ok := a.Slug.(string); ok {
			q.Slugs = []string{wptext.SanitizeTitle(s)}
		}
	}

	if a.Hierarchical && a.Parent != nil {
		parent := php.Int(a.Parent)
		if _, isInt := a.Parent.(int64); (isInt && parent == 0) || parent != 0 {
			q.Parent = &parent
		}
		if parent != 0 && len(idx.Tree.WithDescendants([]int64{parent})) < 2 {
			p.noTree = true
		}
	}

	// Querying relationships makes hide_empty superfluous (WordPress turns it off).
	p.HideEmpty = a.HideEmpty && len(q.ObjectIDs) == 0
	q.NonEmpty = p.HideEmpty && !p.Hierarchical

	if !php.Empty(a.Search) {
		q.Search = a.Search
	}

	orderby := a.Orderby
	if orderby == "include_slugs" {
		orderby = "slug__in"
	}
	if orderby == "term_order" && len(q.ObjectIDs) == 0 {
		orderby = "term_id"
	}
	q.OrderBy = parseTermOrderBy(orderby, a.Include)
	if q.OrderBy == calendard.TermOrderByInclude {
		q.OrderIDs = parseIDList(a.Include)
	}
	if strings.EqualFold(orderby, "slug__in") && slugList && len(q.Slugs) > 0 {
		q.OrderBy, q.OrderSlugs = calendard.TermOrderBySlugIn, q.Slugs
	}
	p.brokenOrder = q.OrderBy == calendard.TermOrderByTermOrder && len(q.ObjectIDs) == 0
	// parse_order: anything but "asc" (any case) sorts descending.
	q.Desc = !strings.EqualFold(a.Order, "ASC")

	// WordPress limits in SQL only flat queries without a parent.
	if !p.Hierarchical && q.Parent == nil {
		q.Limit, q.Offset = p.limit, p.Offset
	}
	return p
}

// parseTermOrderBy is WP_Term_Query::parse_orderby (no term meta query is ever involved here).
func parseTermOrderBy(raw string, include any) string {
	switch o := strings.ToLower(raw); o {
	case "term_id", "name", "slug", "term_group", "count", "parent", "taxonomy", "term_taxonomy_id", "description", "term_order":
		return o
	case "include":
		if !php.Empty(include) {
			return calendard.TermOrderByInclude
		}
	case "none":
		return ""
	case "", "id":
		return calendard.TermOrderByTermID
	}
	return calendard.TermOrderByName
}

// parseIDList is wp_parse_id_list: a list or a string split on commas and whitespace, each item
// absint'ed, duplicates removed (first kept).
func parseIDList(v any) []int64 {
	var items []any
	if php.IsArray(v) {
		for _, it := range php.List(v) {
			if !php.IsArray(it) && it != nil {
				items = append(items, it)
			}
		}
	} else {
		s, _ := php.String(v)
		for _, f := range strings.FieldsFunc(s, func(c rune) bool {
			return c == ',' || c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v'
		}) {
			items = append(items, f)
		}
	}
	seen := map[int64]bool{}
	var out []int64
	for _, it := range items {
		n := php.Int(it)
		if n < 0 {
			n = -n
		}
		if !seen[n] {
			seen[n] = true
			out = append(out, n)
		}
	}
	return out
}

// Run fetches the page of terms.
func (p *Plan) Run(r *handlers.Request, idx *Index, tq calendard.TermQueryService) ([]*calendard.Term, error) {
	if p.noTree || p.brokenOrder {
		return nil, nil
	}
	ids, err := tq.TermIDs(r.Context(), p.q)
	if err != nil {
		return nil, err
	}
	var terms []*calendard.Term
	for _, id := range ids {
		t := idx.ByID(id)
		if t == nil {
			continue
		}
		// An empty category is still listed when some descendant has posts.
		if p.Hierarchical && p.HideEmpty && t.Count == 0 &&
			!idx.Tree.HasDescendantWhere(t.ID, func(d int64) bool { c := idx.ByID(d); return c != nil && c.Count != 0 }) {
			continue
		}
		terms = append(terms, t)
	}
	if p.Hierarchical {
		if p.Offset >= len(terms) {
			return nil, nil
		}
		terms = terms[p.Offset:min(len(terms), p.Offset+p.limit)] // offset+limit fits: see rowsBefore
	}
	return terms, nil
}

// Count is wp_count_terms over the same arguments: never hierarchical, so hide_empty becomes
// "tt.count > 0" and empty ancestors the list shows are not counted (reference quirk).
func (p *Plan) Count(r *handlers.Request, tq calendard.TermQueryService) (int, error) {
	if p.noTree {
		return 0, nil
	}
	q := p.q
	q.NonEmpty = p.HideEmpty
	q.Limit, q.Offset = 0, 0
	return tq.CountTerms(r.Context(), q)
}
