package termapi

import (
	"context"
	"strings"

	"github.com/calendard/calendard"
	"github.com/calendard/calendard/handlers"
)

// termIndex answers term lookups over one taxonomy, loaded once per request.
type TermIndex struct {
	terms []*calendard.Term
	Tree  *calendard.TermTree
	ids   map[int64]*calendard.Term // filters, hierarchy walks and records look terms up by ID often
}

func newTermIndex(terms []*calendard.Term) *TermIndex {
	ids := make(map[int64]*calendard.Term, len(terms))
	for _, t := range terms {
		if _, dup := ids[t.ID]; !dup {
			ids[t.ID] = t
		}
	}
	return &TermIndex{terms: terms, Tree: calendard.NewTermTree(terms), ids: ids}
}

func (ti *TermIndex) ByID(id int64) *calendard.Term { return ti.ids[id] }

// bySlug compares like the database collation (case-insensitive).
func (ti *TermIndex) BySlug(slug string) *calendard.Term {
	for _, t := range ti.terms {
		if strings.EqualFold(t.Slug, slug) {
			return t
		}
	}
	return nil
}

func (ti *TermIndex) ByName(name string) *calendard.Term {
	for _, t := range ti.terms {
		if strings.EqualFold(t.Name, name) {
			return t
		}
	}
	return nil
}

// TermSource reads the terms of a taxonomy (wpdb.Store).
type TermSource interface {
	TermsOf(ctx context.Context, taxonomy string) ([]*calendard.Term, error)
}

// Taxonomies load a taxonomy once per request, for validators, filters and records.
type Taxonomies struct{ Terms TermSource }

// taxonomyKey keeps a loaded taxonomy among the request's locals.
type taxonomyKey string

// Get is the taxonomy's terms as the request first loaded them.
func (t Taxonomies) Get(r *handlers.Request, tax string) (*TermIndex, error) {
	if idx, ok := r.Local(taxonomyKey(tax)); ok {
		return idx.(*TermIndex), nil
	}
	terms, err := t.Terms.TermsOf(r.Context(), tax)
	if err != nil {
		return nil, err
	}
	idx := newTermIndex(terms)
	r.SetLocal(taxonomyKey(tax), idx)
	return idx, nil
}

// ForgetTaxonomy drops the taxonomy the request loaded (after it wrote terms).
func ForgetTaxonomy(r *handlers.Request, tax string) { r.SetLocal(taxonomyKey(tax), nil) }
