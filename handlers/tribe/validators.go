package tribe

import (
	"encoding/json"
	"strings"

	"github.com/calendard/calendard"
	"github.com/calendard/calendard/handlers"
	"github.com/calendard/calendard/handlers/termapi"
	"github.com/calendard/calendard/internal/php"
	"github.com/calendard/calendard/internal/wptext"
)

// Validators shared by the plugin's endpoints (Tribe__Validator__Base and its TEC subclasses).

// lookups are the reads the plugin's validators, permission checks and filters make beyond the
// service of their route: posts by ID, slug or URL, users by ID, and the taxonomies (loaded once
// per request). The handlers embed them.
type lookups struct {
	posts      calendard.PostService
	users      Users
	taxonomies termapi.Taxonomies
}

func isPositiveInt(v any) bool {
	return php.IsNumeric(v) && php.LooseEqualsInt(v) && php.Int(v) > 0
}

func validPositiveInt(_ *handlers.Request, v any) error {
	if isPositiveInt(v) {
		return nil
	}
	return handlers.ErrInvalid
}

// validString is is_string: a non-empty PHP string.
func validString(_ *handlers.Request, v any) error {
	if s, ok := v.(string); ok && !php.Empty(s) {
		return nil
	}
	return handlers.ErrInvalid
}

func validTime(r *handlers.Request, v any) error {
	if isTime(v, r.Now) {
		return nil
	}
	return handlers.ErrInvalid
}

func validPositiveIntList(_ *handlers.Request, v any) error {
	list := php.ListToArray(v)
	if len(list) == 0 {
		return handlers.ErrInvalid
	}
	for _, it := range list {
		if !isPositiveInt(it) {
			return handlers.ErrInvalid
		}
	}
	return nil
}

// postType returns the type of the post with that ID, or "".
func (l *lookups) postType(r *handlers.Request, id int64) (string, error) {
	if id <= 0 {
		return "", nil
	}
	p, err := l.posts.PostByID(r.Context(), id)
	if err != nil || p == nil {
		return "", err
	}
	return p.Type, nil
}

// isPostOfType is tribe_is_venue/tribe_is_organizer/is_event_id: numeric and a post of that type.
func (l *lookups) isPostOfType(r *handlers.Request, v any, postType string) (bool, error) {
	if !php.IsNumeric(v) {
		return false, nil
	}
	t, err := l.postType(r, php.Int(v))
	return t == postType, err
}

// validPostIDList is is_venue_id_list / is_organizer_id_list: every list item is a post of the type.
func (l *lookups) validPostIDList(postType string) func(*handlers.Request, any) error {
	return func(r *handlers.Request, v any) error {
		list := php.ListToArray(v)
		if len(list) == 0 {
			return handlers.ErrInvalid
		}
		for _, it := range list {
			ok, err := l.isPostOfType(r, it, postType)
			if err != nil {
				return err
			}
			if !ok {
				return handlers.ErrInvalid
			}
		}
		return nil
	}
}

// validEventID is is_event_id: a non-empty ID of an existing event.
func (l *lookups) validEventID(r *handlers.Request, v any) error {
	if php.Empty(v) {
		return handlers.ErrInvalid
	}
	ok, err := l.isPostOfType(r, v, calendard.PostTypeEvent)
	if err != nil {
		return err
	}
	if !ok {
		return handlers.ErrInvalid
	}
	return nil
}

// validTermList is is_term_of_taxonomy: every item exists in the taxonomy (term_exists).
func (l *lookups) validTermList(taxonomy string) func(*handlers.Request, any) error {
	return func(r *handlers.Request, v any) error {
		list := php.ListToArray(v)
		if len(list) == 0 {
			return handlers.ErrInvalid
		}
		for _, it := range list {
			t, err := l.termExists(r, it, taxonomy)
			if err != nil {
				return err
			}
			if t == nil {
				return handlers.ErrInvalid
			}
		}
		return nil
	}
}

// termExists is term_exists($term, $taxonomy): integers look up the ID; strings the sanitized slug,
// then the name (stored HTML-escaped).
func (l *lookups) termExists(r *handlers.Request, v any, taxonomy string) (*calendard.Term, error) {
	terms, err := l.taxonomies.Get(r, taxonomy)
	if err != nil {
		return nil, err
	}
	if n, ok := v.(json.Number); ok && php.LooseEqualsInt(n) && !strings.ContainsAny(string(n), ".eE") {
		return terms.ByID(php.Int(n)), nil
	}
	s, ok := php.String(v)
	if !ok {
		return nil, nil
	}
	s = strings.TrimSpace(s)
	if s == "" {
		return nil, nil
	}
	if t := terms.BySlug(wptext.SanitizeTitle(s)); t != nil {
		return t, nil
	}
	return terms.ByName(termNameForDB(s)), nil
}

// termBy resolves an item the way the event filter does: get_term_by('slug') then get_term_by('id').
func (l *lookups) termBy(r *handlers.Request, v any, taxonomy string) (*calendard.Term, error) {
	terms, err := l.taxonomies.Get(r, taxonomy)
	if err != nil {
		return nil, err
	}
	s, _ := php.String(v)
	if slug := wptext.SanitizeTitle(s); slug != "" {
		if t := terms.BySlug(slug); t != nil {
			return t, nil
		}
	}
	return terms.ByID(php.Int(v)), nil
}

// termNameForDB applies the pre_term_name filters (sanitize_text_field, then _wp_specialchars).
func termNameForDB(s string) string { return calendard.TermNameForDB(s) }
