package handlers

import (
	"strings"

	"github.com/calendard/calendard"
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
func (ti *TermIndex) bySlug(slug string) *calendard.Term {
	for _, t := range ti.terms {
		if strings.EqualFold(t.Slug, slug) {
			return t
		}
	}
	return nil
}

func (ti *TermIndex) byName(name string) *calendard.Term {
	for _, t := range ti.terms {
		if strings.EqualFold(t.Name, name) {
			return t
		}
	}
	return nil
}

// taxonomy loads a taxonomy once per request for validators and filters.
func (r *Request) Taxonomy(tax string) (*TermIndex, error) {
	if idx, ok := r.termCache[tax]; ok {
		return idx, nil
	}
	terms, err := r.srv.deps.Terms.TermsOf(r.ctx, tax)
	if err != nil {
		return nil, err
	}
	idx := newTermIndex(terms)
	if r.termCache == nil {
		r.termCache = map[string]*TermIndex{}
	}
	r.termCache[tax] = idx
	return idx, nil
}
