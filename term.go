package calendard

// Term is a row of wp_terms joined with its wp_term_taxonomy row.
type Term struct {
	ID          int64
	Name        string
	Slug        string
	Group       int64
	TaxonomyID  int64 // term_taxonomy_id
	Taxonomy    string
	Description string
	Parent      int64
	Count       int64
}

// TermTree is the parent/child structure of a hierarchical taxonomy, used to widen category filters to
// descendants as WordPress' tax_query does by default.
type TermTree struct {
	children map[int64][]int64
}

// NewTermTree builds a tree from (id, parent) pairs.
func NewTermTree(terms []*Term) *TermTree {
	t := &TermTree{children: map[int64][]int64{}}
	for _, term := range terms {
		if term.Parent != 0 {
			t.children[term.Parent] = append(t.children[term.Parent], term.ID)
		}
	}
	return t
}

// WithDescendants returns ids plus every descendant of each, without duplicates, ids first.
func (t *TermTree) WithDescendants(ids []int64) []int64 {
	seen := map[int64]bool{}
	var out []int64
	var walk func(id int64)
	walk = func(id int64) {
		if seen[id] {
			return
		}
		seen[id] = true
		out = append(out, id)
		for _, c := range t.children[id] {
			walk(c)
		}
	}
	for _, id := range ids {
		walk(id)
	}
	return out
}

// HasDescendantWhere reports whether any descendant of id satisfies pred. Cycles in damaged data
// (a term that is its own ancestor) are tolerated.
func (t *TermTree) HasDescendantWhere(id int64, pred func(int64) bool) bool {
	for _, d := range t.WithDescendants([]int64{id})[1:] {
		if pred(d) {
			return true
		}
	}
	return false
}
