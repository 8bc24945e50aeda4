package calendard

import (
	"context"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/calendard/calendard/internal/wptext"
)

// WordPress' wp_update_term and wp_delete_term on top of WriteTx (wp_insert_term is in wpterms.go).

// Further term write error codes (wp_update_term).
const (
	ErrCodeInvalidTerm = "invalid_term"
)

// TermUpdate are wp_update_term's arguments: nil fields keep the stored value (which is sanitized
// again, as WordPress merges the stored term into the arguments).
type TermUpdate struct {
	Name        *string // raw; sanitized like on insert
	Slug        *string // raw; sanitize_title'd, "" derives it from the name
	Description *string
	Parent      *int64
}

// LockTermWrites serializes term writes until the transaction ends, so two requests cannot both pass
// the name and slug checks and then store the same term twice (WordPress narrows that race with its
// last-minute duplicate check, which a transaction cannot see across).
func LockTermWrites(ctx context.Context, tx WriteTx) error {
	return tx.LockSlugs(ctx, "(terms)")
}

// UpdateTerm is wp_update_term for a term of the taxonomy: the stored values merged with u and
// sanitized, an empty name refused, the parent checked and cleared when it would make a loop, and a
// slug taken by another term of the taxonomy either made unique (derived slug or new parent) or
// refused with duplicate_term_slug.
func UpdateTerm(ctx context.Context, tx WriteTx, id int64, taxonomy string, hierarchical bool, u TermUpdate) (*Term, error) {
	cur, err := tx.TermByID(ctx, id, taxonomy)
	if err != nil {
		return nil, err
	}
	if cur == nil {
		return nil, &TermError{Code: ErrCodeInvalidTerm, Message: "Empty Term."}
	}
	name, slugIn, desc, parent := cur.Name, cur.Slug, cur.Description, cur.Parent
	if u.Name != nil {
		name = *u.Name
	}
	if u.Slug != nil {
		slugIn = *u.Slug
	}
	if u.Description != nil {
		desc = *u.Description
	}
	if u.Parent != nil {
		parent = *u.Parent
	}
	// sanitize_term(..., 'db'): pre_term_* filters, integer fields never negative.
	name = TermNameForDB(name)
	desc = TermDescriptionForDB(desc)
	slug := wptext.SanitizeTitle(slugIn)
	if parent < 0 {
		parent = 0
	}

	if strings.Trim(name, " \t\n\r\x00\x0b") == "" {
		return nil, &TermError{Code: ErrCodeEmptyTermName, Message: "A name is required for this term."}
	}
	if parent > 0 {
		p, err := tx.TermByID(ctx, parent, taxonomy)
		if err != nil {
			return nil, err
		}
		if p == nil {
			return nil, &TermError{Code: ErrCodeMissingParent, Message: "Parent term does not exist."}
		}
	}
	emptySlug := phpEmptySlug(slug)
	if emptySlug {
		slug = wptext.SanitizeTitle(name)
	}

	// The wp_update_term_parent filter (wp_check_term_hierarchy_for_loops).
	newParent, err := checkTermHierarchyForLoops(ctx, tx, parent, id, taxonomy, hierarchical)
	if err != nil {
		return nil, err
	}

	if slug != "" {
		dup, err := tx.TermBySlug(ctx, slug, taxonomy)
		if err != nil {
			return nil, err
		}
		if dup != nil && dup.ID != id {
			if !emptySlug && newParent == cur.Parent {
				return nil, &TermError{Code: ErrCodeDuplicateTermSlug,
					Message: "The slug &#8220;" + slug + "&#8221; is already in use by another term."}
			}
			// wp_unique_term_slug sees the requested parent, before the loop check.
			if slug, err = UniqueTermSlug(ctx, tx, slug, taxonomy, parent, hierarchical, id); err != nil {
				return nil, err
			}
		}
	}

	next := *cur
	// wpdb refuses invalid text and wp_update_term does not check: the taxonomy row (description
	// and parent) keeps its values.
	if utf8.ValidString(desc) {
		next.Description, next.Parent = desc, newParent
	}
	// wpdb refuses a name or slug too long for wp_terms or not UTF-8, and wp_update_term does not
	// check: the term row keeps its values while the taxonomy row is still updated.
	if len(termFieldsRefused(name, slug)) == 0 {
		next.Name, next.Slug = name, slug
	}
	if slug == "" {
		// sanitize_title($name, $term_id): a name without slug characters falls back to the ID.
		next.Slug = strconv.FormatInt(id, 10)
	}
	if err := tx.UpdateTerm(ctx, &next); err != nil {
		return nil, err
	}
	return tx.TermByID(ctx, id, taxonomy)
}

// checkTermHierarchyForLoops is wp_check_term_hierarchy_for_loops: no parent, the term itself, or a
// parent below the term give 0; a loop above that does not contain the term is broken by moving its
// members to the top level.
func checkTermHierarchyForLoops(ctx context.Context, tx WriteTx, parent, id int64, taxonomy string, hierarchical bool) (int64, error) {
	if parent == 0 || parent == id {
		return 0, nil
	}
	loop, err := findTermHierarchyLoop(ctx, tx, id, parent, taxonomy)
	if err != nil || len(loop) == 0 {
		return parent, err
	}
	for _, m := range loop {
		if m == id {
			return 0, nil
		}
	}
	zero := int64(0)
	for _, m := range loop {
		if _, err := UpdateTerm(ctx, tx, m, taxonomy, hierarchical, TermUpdate{Parent: &zero}); err != nil {
			return 0, err
		}
	}
	return parent, nil
}

// findTermHierarchyLoop is wp_find_hierarchy_loop over term parents with the term's parent
// overridden: the members of the cycle the ancestor chain runs into, or nil when it reaches the top
// (or a missing term).
func findTermHierarchyLoop(ctx context.Context, tx WriteTx, id, parent int64, taxonomy string) ([]int64, error) {
	var chain []int64
	at := map[int64]int{}
	cur := id
	for cur != 0 {
		if i, seen := at[cur]; seen {
			return chain[i:], nil
		}
		at[cur] = len(chain)
		chain = append(chain, cur)
		if cur == id {
			cur = parent
			continue
		}
		t, err := tx.TermByID(ctx, cur, taxonomy)
		if err != nil {
			return nil, err
		}
		if t == nil {
			return nil, nil
		}
		cur = t.Parent
	}
	return nil, nil
}

// DeleteTerm is wp_delete_term for a term that exists: children of a hierarchical term move up to
// its parent, then its relationships, meta, taxonomy row and term row go. Objects keep their other
// terms and no other term is recounted (the taxonomies calendard serves have no default term).
func DeleteTerm(ctx context.Context, tx WriteTx, t *Term, hierarchical bool) error {
	if hierarchical {
		children, err := tx.TermsByParent(ctx, t.Taxonomy, t.ID)
		if err != nil {
			return err
		}
		for _, c := range children {
			moved := *c
			moved.Parent = t.Parent
			if err := tx.UpdateTerm(ctx, &moved); err != nil {
				return err
			}
		}
	}
	return tx.DeleteTerm(ctx, t)
}
