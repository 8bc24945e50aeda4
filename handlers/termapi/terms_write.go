package termapi

import (
	"errors"
	"time"

	"github.com/calendard/calendard"
	"github.com/calendard/calendard/handlers"
	"github.com/calendard/calendard/internal/php"
)

// Category and tag writes (POST on the collections, POST/PUT/PATCH/DELETE on /{id}): the plugin hands
// the request to WordPress' terms controller (create_item, update_item, delete_item with force) and
// renames the term it answers with. Every write runs in one transaction.

// errNotHierarchical is the core controller's answer to a parent on a flat taxonomy.
var errNotHierarchical = &calendard.Error{Code: "rest_taxonomy_not_hierarchical",
	Message: "Cannot set parent term, taxonomy is not hierarchical.", Status: 400}

// errParentMissing is the core controller's check of the parent term (a race with the validator).
var errParentMissing = &calendard.Error{Code: "rest_term_invalid", Message: "Parent term does not exist.", Status: 400}

// errTermMissing is the core controller's answer for a term that vanished after validation.
var errTermMissing = &calendard.Error{Code: "rest_term_invalid", Message: "Term does not exist.", Status: 404}

// Writes are the term writes of one taxonomy both namespaces serve (the core terms
// controller's create_item, update_item and delete_item, which the plugin's routes wrap).
type Writes struct {
	Writer       calendard.Writer
	Taxonomy     string
	Hierarchical bool
}

// termWriteError turns a wp_insert_term/wp_update_term failure into the core controller's answer.
// term_exists gets status 400 and the existing term's ID (added twice more to the WP_Error, hence
// additional_data); every other error is a WP_Error without a status, which WordPress sends with
// status 500 and its data as it is ("data": null, or wpdb's last error), and calendard with status 400.
func termWriteError(err error) error {
	var te *calendard.TermError
	if !errors.As(err, &te) {
		return err
	}
	if te.Code == calendard.ErrCodeTermExists {
		return &calendard.Error{Code: te.Code, Message: te.Message, Status: 400,
			Data:  []calendard.KV{{Key: "term_id", Value: te.TermID}},
			Extra: []calendard.KV{{Key: "additional_data", Value: []any{te.TermID, te.TermID}}}}
	}
	return &calendard.Error{Code: te.Code, Message: te.Message, Status: 400, RawData: te.Data, HasRawData: true}
}

// write runs fn in one transaction at the request's clock; the taxonomy cached for validation is
// dropped afterwards.
func (h *Writes) write(r *handlers.Request, fn func(tx calendard.WriteTx) error) error {
	w := h.Writer
	if w == nil {
		return &calendard.Error{Code: "rest_not_implemented", Message: "This endpoint is not implemented by calendard yet.", Status: 501}
	}
	now := r.Now
	err := w.Write(r.Context(), func() time.Time { return now }, func(tx calendard.WriteTx) error {
		if err := calendard.LockTermWrites(r.Context(), tx); err != nil {
			return err
		}
		return fn(tx)
	})
	forgetTaxonomy(r, h.Taxonomy)
	return termWriteError(err)
}

// loadIndex reads the taxonomy inside the transaction (the records need the ancestors' slugs).
func (h *Writes) loadIndex(r *handlers.Request, tx calendard.WriteTx) (*Index, error) {
	terms, err := tx.TermsOfTaxonomy(r.Context(), h.Taxonomy)
	if err != nil {
		return nil, err
	}
	return newTermIndex(terms), nil
}

// TextParam returns a string parameter the client sent (validated and typed already).
func TextParam(r *handlers.Request, name string) *string {
	v, ok := r.Param(name)
	if !ok {
		return nil
	}
	s, _ := php.String(v)
	return &s
}

// ParentParam is the parent the client sent (isset($request['parent'])): refused on flat taxonomies.
func (h *Writes) ParentParam(r *handlers.Request) (*int64, error) {
	v, ok := r.Param("parent")
	if !ok {
		return nil, nil
	}
	if !h.Hierarchical {
		return nil, errNotHierarchical
	}
	p := php.Int(v)
	return &p, nil
}

// checkParent is get_term((int) $request['parent']) inside the transaction.
func (h *Writes) checkParent(r *handlers.Request, tx calendard.WriteTx, parent *int64) error {
	if parent == nil || *parent == 0 {
		return nil
	}
	t, err := tx.TermByID(r.Context(), *parent, h.Taxonomy)
	if err != nil {
		return err
	}
	if t == nil {
		return errParentMissing
	}
	return nil
}

// NewTermArgs is what a create request sends for wp_insert_term (both namespaces).
func (h *Writes) NewTermArgs(r *handlers.Request, parent *int64) calendard.TermArgs {
	args := calendard.TermArgs{Taxonomy: h.Taxonomy, Hierarchical: h.Hierarchical}
	if s := TextParam(r, "name"); s != nil {
		args.Name = *s
	}
	if s := TextParam(r, "slug"); s != nil {
		args.Slug = *s
	}
	if s := TextParam(r, "description"); s != nil {
		args.Description = *s
	}
	if parent != nil {
		args.Parent = *parent
	}
	return args
}

// InsertTerm is the write of the core controller's create_item (which the plugin's create wraps):
// the parent check, wp_insert_term, and the term with its taxonomy as they are afterwards.
func (h *Writes) InsertTerm(r *handlers.Request, args calendard.TermArgs, parent *int64) (*calendard.Term, *Index, error) {
	var (
		term *calendard.Term
		idx  *Index
	)
	err := h.write(r, func(tx calendard.WriteTx) error {
		if err := h.checkParent(r, tx, parent); err != nil {
			return err
		}
		t, err := calendard.InsertTerm(r.Context(), tx, args)
		if err != nil {
			return err
		}
		if idx, err = h.loadIndex(r, tx); err != nil {
			return err
		}
		if term = idx.ByID(t.ID); term == nil {
			return errTermMissing
		}
		return nil
	})
	return term, idx, err
}

// UpdateTerm is the write of the core controller's update_item: the term must still exist, the
// parent is checked, wp_update_term runs, and the term and its taxonomy are read back.
func (h *Writes) UpdateTerm(r *handlers.Request, id int64, u calendard.TermUpdate) (*calendard.Term, *Index, error) {
	var (
		term *calendard.Term
		idx  *Index
	)
	err := h.write(r, func(tx calendard.WriteTx) error {
		cur, err := tx.TermByID(r.Context(), id, h.Taxonomy)
		if err != nil {
			return err
		}
		if cur == nil {
			return errTermMissing
		}
		if err := h.checkParent(r, tx, u.Parent); err != nil {
			return err
		}
		if _, err := calendard.UpdateTerm(r.Context(), tx, id, h.Taxonomy, h.Hierarchical, u); err != nil {
			return err
		}
		if idx, err = h.loadIndex(r, tx); err != nil {
			return err
		}
		if term = idx.ByID(id); term == nil {
			return errTermMissing
		}
		return nil
	})
	return term, idx, err
}

// DeleteTerm is the write of the core controller's delete_item: wp_delete_term on the term as it is
// inside the transaction, which before sees first (to answer with the term as it was).
func (h *Writes) DeleteTerm(r *handlers.Request, id int64, before func(*calendard.Term, *Index)) error {
	return h.write(r, func(tx calendard.WriteTx) error {
		idx, err := h.loadIndex(r, tx)
		if err != nil {
			return err
		}
		t := idx.ByID(id)
		if t == nil {
			return errTermMissing
		}
		before(t, idx)
		return calendard.DeleteTerm(r.Context(), tx, t, h.Hierarchical)
	})
}
