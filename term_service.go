package calendard

import "context"

// TermQuery is one WP_Term_Query as the WordPress REST terms controller builds it for the plugin's
// /categories and /tags archives. The store runs it in WordPress' own SQL shape: MySQL breaks ties
// between equal sort keys according to the statement it is given, and clients see that order.
type TermQuery struct {
	Taxonomy string
	// ObjectIDs is wp_get_object_terms' object_ids: joins the relationships table and selects DISTINCT.
	ObjectIDs []int64
	Include   []int64  // t.term_id IN (...)
	Exclude   []int64  // t.term_id NOT IN (...)
	Slugs     []string // t.slug IN (...), already sanitize_title'd
	Parent    *int64   // tt.parent = '...'
	NonEmpty  bool     // tt.count > 0 (hide_empty on a flat query)
	Search    string   // name or slug contains (LIKE, wildcards escaped)

	// OrderBy is the orderby keyword after WP_Term_Query::parse_orderby: one of TermOrderBy*, or ""
	// for no ORDER BY at all ("none").
	OrderBy string
	// OrderIDs is the FIELD() list of OrderBy "include".
	OrderIDs []int64
	// OrderSlugs is the FIELD() list of OrderBy "slug__in" (sanitized slugs).
	OrderSlugs []string
	Desc       bool
	// Limit > 0 adds LIMIT Offset, Limit (WordPress only limits flat, parentless queries).
	Limit, Offset int
}

// WP_Term_Query orderby keywords a TermQuery accepts.
const (
	TermOrderByTermID         = "term_id"
	TermOrderByName           = "name"
	TermOrderBySlug           = "slug"
	TermOrderByTermGroup      = "term_group"
	TermOrderByCount          = "count"
	TermOrderByParent         = "parent"
	TermOrderByTaxonomy       = "taxonomy"
	TermOrderByTermTaxonomyID = "term_taxonomy_id"
	TermOrderByDescription    = "description"
	TermOrderByTermOrder      = "term_order" // tr.term_order: only valid with ObjectIDs
	TermOrderByInclude        = "include"    // FIELD( t.term_id, OrderIDs )
	TermOrderBySlugIn         = "slug__in"   // FIELD( t.slug, OrderSlugs )
)

// TermQueryService runs term archive queries.
type TermQueryService interface {
	// TermIDs returns the matching term IDs in the query's order (WP_Term_Query's "ids" request).
	TermIDs(ctx context.Context, q TermQuery) ([]int64, error)
	// CountTerms is the same query with fields=count (no order, no limit), as wp_count_terms runs it.
	CountTerms(ctx context.Context, q TermQuery) (int, error)
}
