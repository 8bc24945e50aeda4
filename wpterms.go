package calendard

import (
	"context"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/calendard/calendard/internal/php"
	"github.com/calendard/calendard/internal/wptext"
)

// WordPress' term write functions (wp_insert_term, term_exists, wp_set_post_terms) on top of WriteTx.
// Lookups go through SQL so the database collation decides equality, as it does for WordPress.

// TermNameForDB applies the pre_term_name filters a name goes through before it is stored or
// compared with stored names (sanitize_text_field, wp_filter_kses, then _wp_specialchars).
func TermNameForDB(name string) string {
	return wptext.SpecialChars(wptext.FilterKses(wptext.SanitizeTextField(name)))
}

// TermDescriptionForDB applies the pre_term_description filter (wp_filter_kses, for every user).
func TermDescriptionForDB(description string) string {
	return wptext.FilterKsesTermDescription(description)
}

// phpEmptySlug is PHP's empty() on a sanitized slug: "" and "0" count as no slug.
func phpEmptySlug(slug string) bool { return slug == "" || slug == "0" }

// TermExists is term_exists($term, $taxonomy) for a string: the sanitized slug first, then the name.
func TermExists(ctx context.Context, tx WriteTx, term, taxonomy string) (*Term, error) {
	term = strings.TrimSpace(term)
	if term == "" {
		return nil, nil
	}
	if slug := wptext.SanitizeTitle(term); slug != "" {
		t, err := tx.TermBySlug(ctx, slug, taxonomy)
		if t != nil || err != nil {
			return t, err
		}
	}
	ts, err := tx.TermsByName(ctx, TermNameForDB(term), taxonomy, nil)
	if err != nil || len(ts) == 0 {
		return nil, err
	}
	return ts[0], nil
}

// TermArgs are wp_insert_term's arguments.
type TermArgs struct {
	Taxonomy     string
	Name         string // raw; sanitized here
	Slug         string // raw; "" derives it from the name
	Description  string
	Parent       int64
	Hierarchical bool
	// ID and TaxonomyID, when set and free, are the term_id and term_taxonomy_id the term is stored
	// under (a migration keeps the source's).
	ID, TaxonomyID int64
}

// Term write errors, as wp_insert_term returns them (the REST layer adds status and data).
const (
	ErrCodeTermExists        = "term_exists"
	ErrCodeDuplicateTermSlug = "duplicate_term_slug"
	ErrCodeEmptyTermName     = "empty_term_name"
	ErrCodeMissingParent     = "missing_parent"
	ErrCodeDBInsert          = "db_insert_error"
)

// termFieldLength is the size of wp_terms.name and wp_terms.slug (varchar(200)). wpdb refuses a
// longer value before it reaches MySQL.
const termFieldLength = 200

// termFieldsRefused returns the wp_terms fields wpdb would refuse (process_fields: too long or not
// valid UTF-8), in column order.
func termFieldsRefused(name, slug string) []string {
	var out []string
	if utf8.RuneCountInString(name) > termFieldLength || !utf8.ValidString(name) {
		out = append(out, "name")
	}
	if utf8.RuneCountInString(slug) > termFieldLength || !utf8.ValidString(slug) {
		out = append(out, "slug")
	}
	return out
}

// wpdbFieldsError is wpdb's last_error for values process_fields refused.
func wpdbFieldsError(fields []string) string {
	if len(fields) == 1 {
		return "WordPress database error: Processing the value for the following field failed: " + fields[0] +
			". The supplied value may be too long or contains invalid data."
	}
	return "WordPress database error: Processing the values for the following fields failed: " +
		strings.Join(fields, ", ") + ". The supplied values may be too long or contain invalid data."
}

// TermError is a wp_insert_term/wp_update_term failure; TermID names the conflicting term.
type TermError struct {
	Code    string
	Message string
	TermID  int64
	// Data is the WP_Error's data when it is not a term ID (wpdb's last error of db_insert_error).
	Data any
}

func (e *TermError) Error() string { return e.Code + ": " + e.Message }

// InsertTerm is wp_insert_term: it sanitizes the name, refuses a name already used (among siblings
// for hierarchical taxonomies), makes the slug unique and stores the term with a zero count.
func InsertTerm(ctx context.Context, tx WriteTx, a TermArgs) (*Term, error) {
	name := TermNameForDB(a.Name)
	if name == "" {
		return nil, &TermError{Code: ErrCodeEmptyTermName, Message: "A name is required for this term."}
	}
	if a.Parent > 0 {
		p, err := tx.TermByID(ctx, a.Parent, a.Taxonomy)
		if err != nil {
			return nil, err
		}
		if p == nil {
			return nil, &TermError{Code: ErrCodeMissingParent, Message: "Parent term does not exist."}
		}
	}
	// The slug goes through pre_term_slug (sanitize_title); one that sanitizes away counts as none.
	slug := wptext.SanitizeTitle(a.Slug)
	slugProvided := !phpEmptySlug(slug)
	if !slugProvided {
		slug = wptext.SanitizeTitle(name)
	}

	var parent *int64
	if a.Hierarchical {
		parent = &a.Parent
	}
	matches, err := tx.TermsByName(ctx, name, a.Taxonomy, parent)
	if err != nil {
		return nil, err
	}
	var nameMatch *Term
	for _, m := range matches {
		// get_terms' name match ignores accents; WordPress then compares strictly.
		if php.StrToLower(m.Name) == php.StrToLower(name) {
			nameMatch = m
			break
		}
	}
	if nameMatch != nil {
		slugMatch, err := tx.TermBySlug(ctx, slug, a.Taxonomy)
		if err != nil {
			return nil, err
		}
		if !slugProvided || nameMatch.Slug == slug || slugMatch != nil {
			if !a.Hierarchical {
				return nil, &TermError{Code: ErrCodeTermExists, TermID: nameMatch.ID,
					Message: "A term with the name provided already exists in this taxonomy."}
			}
			siblings, err := tx.TermsByParent(ctx, a.Taxonomy, a.Parent)
			if err != nil {
				return nil, err
			}
			var existing *Term
			if !slugProvided || nameMatch.Slug == slug {
				for _, s := range siblings {
					if s.Name == name {
						existing = nameMatch
						break
					}
				}
			}
			if existing == nil && slugMatch != nil {
				for _, s := range siblings {
					if s.Slug == slug {
						existing = slugMatch
						break
					}
				}
			}
			if existing != nil {
				return nil, &TermError{Code: ErrCodeTermExists, TermID: existing.ID,
					Message: "A term with the name provided already exists with this parent."}
			}
		}
	}

	if slug, err = UniqueTermSlug(ctx, tx, slug, a.Taxonomy, a.Parent, a.Hierarchical, 0); err != nil {
		return nil, err
	}
	if bad := termFieldsRefused(name, slug); len(bad) > 0 {
		return nil, &TermError{Code: ErrCodeDBInsert, Message: "Could not insert term into the database.", Data: wpdbFieldsError(bad)}
	}
	desc := TermDescriptionForDB(a.Description)
	if !utf8.ValidString(desc) {
		// WordPress has stored the wp_terms row by then and leaves it behind; calendard's transaction
		// writes nothing.
		return nil, &TermError{Code: ErrCodeDBInsert, Message: "Could not insert term taxonomy into the database.",
			Data: wpdbFieldsError([]string{"description"})}
	}
	t, err := tx.InsertTerm(ctx, &Term{ID: a.ID, TaxonomyID: a.TaxonomyID, Name: name, Slug: slug, Taxonomy: a.Taxonomy, Description: desc, Parent: a.Parent})
	if err != nil {
		return nil, err
	}
	if t.Slug == "" {
		// A name without any slug characters (e.g. "&"): WordPress falls back to the term ID.
		t.Slug = strconv.FormatInt(t.ID, 10)
		if err := tx.UpdateTerm(ctx, t); err != nil {
			return nil, err
		}
	}
	// WordPress refuses (and removes again) a term whose slug an older term of the same taxonomy and
	// parent already has.
	dup, err := tx.DuplicateTermSlug(ctx, t)
	if err != nil {
		return nil, err
	}
	if dup {
		if err := tx.DeleteTerm(ctx, t); err != nil {
			return nil, err
		}
		return nil, &TermError{Code: ErrCodeDuplicateTermSlug,
			Message: "The slug &#8220;" + slug + "&#8221; is already in use by another term."}
	}
	return t, nil
}

// UniqueTermSlug is wp_unique_term_slug: a slug used in the same taxonomy gets the parents' slugs
// appended (hierarchical taxonomies), then "-2", "-3", ... until no term of any taxonomy has it.
func UniqueTermSlug(ctx context.Context, tx WriteTx, slug, taxonomy string, parent int64, hierarchical bool, termID int64) (string, error) {
	inTax, err := tx.TermBySlug(ctx, slug, taxonomy)
	if err != nil {
		return "", err
	}
	if inTax == nil {
		return slug, nil
	}
	suffix := ""
	if hierarchical && parent != 0 {
		for p := parent; p != 0; {
			pt, err := tx.TermByID(ctx, p, taxonomy)
			if err != nil {
				return "", err
			}
			if pt == nil {
				break
			}
			suffix += "-" + pt.Slug
			taken, err := tx.TermSlugTaken(ctx, slug+suffix, 0)
			if err != nil {
				return "", err
			}
			if !taken || pt.Parent == 0 {
				break
			}
			p = pt.Parent
		}
	}
	slug += suffix
	taken, err := tx.TermSlugTaken(ctx, slug, termID)
	if err != nil || !taken {
		return slug, err
	}
	for n := 2; ; n++ {
		alt := slug + "-" + strconv.Itoa(n)
		taken, err := tx.TermSlugTaken(ctx, alt, 0)
		if err != nil {
			return "", err
		}
		if !taken {
			return alt, nil
		}
	}
}

// TermInput is one item of a categories/tags parameter.
type TermInput struct {
	Numeric bool   // is_numeric: names a term ID
	ID      int64  // absint of a numeric item
	Text    string // the item as a string
}

// termRef is what Tribe__Terms::translate_terms_to_ids yields per item: an integer ID, or (for terms
// found by slug or name) the ID as a string, which wp_set_post_terms later treats as a term name.
type termRef struct {
	id       int64
	asString bool
}

// translateTermsToIDs is Tribe__Terms::translate_terms_to_ids: numeric items must be existing term
// IDs (others are skipped); other items are looked up by slug or name, or created.
func translateTermsToIDs(ctx context.Context, tx WriteTx, items []TermInput, taxonomy string, hierarchical bool) ([]termRef, error) {
	var out []termRef
	seen := map[int64]bool{}
	add := func(r termRef) {
		// array_unique compares loosely, so "11" and 11 are one item.
		if !seen[r.id] {
			seen[r.id] = true
			out = append(out, r)
		}
	}
	for _, it := range items {
		if !it.Numeric && strings.TrimSpace(it.Text) == "" {
			continue
		}
		if it.Numeric {
			t, err := tx.TermByID(ctx, it.ID, taxonomy)
			if err != nil {
				return nil, err
			}
			if t != nil {
				add(termRef{id: t.ID})
			}
			continue
		}
		t, err := TermExists(ctx, tx, it.Text, taxonomy)
		if err != nil {
			return nil, err
		}
		if t != nil {
			add(termRef{id: t.ID, asString: true})
			continue
		}
		t, err = InsertTerm(ctx, tx, TermArgs{Taxonomy: taxonomy, Name: it.Text, Hierarchical: hierarchical})
		if err != nil {
			if _, ok := err.(*TermError); ok {
				continue // is_wp_error: skipped
			}
			return nil, err
		}
		add(termRef{id: t.ID})
	}
	return out, nil
}

// setPostTerms is wp_set_post_terms($post, $refs, $taxonomy) as wp_insert_post calls it for
// tax_input: hierarchical taxonomies take every item as an ID; otherwise integer items are IDs and
// string items are names (looked up by slug or name, created when missing).
func setPostTerms(ctx context.Context, tx WriteTx, postID int64, refs []termRef, taxonomy string, hierarchical bool) error {
	var terms []*Term
	for _, r := range refs {
		if r.id == 0 {
			continue
		}
		if hierarchical || !r.asString {
			t, err := tx.TermByID(ctx, r.id, taxonomy)
			if err != nil {
				return err
			}
			if t != nil {
				terms = append(terms, t)
			}
			continue
		}
		name := strconv.FormatInt(r.id, 10)
		t, err := TermExists(ctx, tx, name, taxonomy)
		if err != nil {
			return err
		}
		if t == nil {
			if t, err = InsertTerm(ctx, tx, TermArgs{Taxonomy: taxonomy, Name: name}); err != nil {
				if _, ok := err.(*TermError); ok {
					continue
				}
				return err
			}
		}
		terms = append(terms, t)
	}
	return SetObjectTerms(ctx, tx, postID, taxonomy, terms)
}
