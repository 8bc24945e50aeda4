// Package termapi is the term logic both route packages serve (handlers/tribe and handlers/wpv2):
// the taxonomies loaded once per request (Taxonomies, Index), the term archive query (ListQuery,
// Plan), term links, and the writes of the core terms controller (Writes). It imports the server
// emulation (handlers) and neither route package.
package termapi

import (
	"context"
	"strings"

	"github.com/calendard/calendard"
	"github.com/calendard/calendard/handlers"
)

// Index answers term lookups over one taxonomy, loaded once per request.
type Index struct {
	terms []*calendard.Term
	Tree  *calendard.TermTree
	ids   map[int64]*calendard.Term // filters, hierarchy walks and records look terms up by ID often
}

func newTermIndex(terms []*calendard.Term) *Index {
	ids := make(map[int64]*calendard.Term, len(terms))
	for _, t := range terms {
		if _, dup := ids[t.ID]; !dup {
			ids[t.ID] = t
		}
	}
	return &Index{terms: terms, Tree: calendard.NewTermTree(terms), ids: ids}
}

// ByID is the term with that ID, or nil.
func (ti *Index) ByID(id int64) *calendard.Term { return ti.ids[id] }

// BySlug compares like the database collation (case-insensitive).
func (ti *Index) BySlug(slug string) *calendard.Term {
	for _, t := range ti.terms {
		if strings.EqualFold(t.Slug, slug) {
			return t
		}
	}
	return nil
}

// ByName compares like the database collation (case-insensitive).
func (ti *Index) ByName(name string) *calendard.Term {
	for _, t := range ti.terms {
		if strings.EqualFold(t.Name, name) {
			return t
		}
	}
	return nil
}

// Source reads the terms of a taxonomy (wpdb.Store).
type Source interface {
	TermsOf(ctx context.Context, taxonomy string) ([]*calendard.Term, error)
}

// Taxonomies load a taxonomy once per request, for validators, filters and records.
type Taxonomies struct{ Terms Source }

// taxonomyKey keeps a loaded taxonomy among the request's locals.
type taxonomyKey string

// Get is the taxonomy's terms as the request first loaded them.
func (t Taxonomies) Get(r *handlers.Request, tax string) (*Index, error) {
	if idx, ok := r.Local(taxonomyKey(tax)); ok {
		return idx.(*Index), nil
	}
	terms, err := t.Terms.TermsOf(r.Context(), tax)
	if err != nil {
		return nil, err
	}
	idx := newTermIndex(terms)
	r.SetLocal(taxonomyKey(tax), idx)
	return idx, nil
}

// forgetTaxonomy drops the taxonomy the request loaded (after it wrote terms).
func forgetTaxonomy(r *handlers.Request, tax string) { r.SetLocal(taxonomyKey(tax), nil) }
