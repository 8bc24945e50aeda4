package calendard

import (
	"context"
	"regexp"
	"strings"
)

// Event is a tribe_events post with everything its API record embeds.
type Event struct {
	*Post
	Categories []*Term // ordered by name, as wp_get_object_terms returns them
	Tags       []*Term
	Venues     []*Venue     // in _EventVenueID row order
	Organizers []*Organizer // in _EventOrganizerID row order, duplicates removed
	Image      *Attachment
}

// Venue is a tribe_venue post.
type Venue struct {
	*Post
	Image *Attachment
}

// Organizer is a tribe_organizer post.
type Organizer struct {
	*Post
	Image *Attachment
}

// Attachment is a media library item (featured images). Its meta holds _wp_attached_file and the
// serialized _wp_attachment_metadata.
type Attachment struct {
	*Post
}

// EventFilter is the query an event list request resolves to. Date bounds are DB datetimes compared
// with the event's local dates (or UTC dates when the site uses the "site" timezone mode); nil means
// no bound. A nil ID slice means "no filter"; a non-nil empty one matches nothing.
type EventFilter struct {
	Statuses []string // nil: every status except trash and auto-draft ("any")

	StartOnOrAfter, EndOnOrBefore *string
	StartsBefore, StartsAfter     *string
	EndsBefore, EndsAfter         *string

	Search          []SearchTerm
	SearchAnonymous bool // anonymous searches never match password-protected posts
	// SearchAlso lists events that match the search's terms without holding them as substrings
	// (Meilisearch's word, prefix and typo matches): an event passes the search when it holds
	// every term that is not excluded or its ID is listed, and holds no excluded term. It widens a
	// search only; without Search it does nothing.
	SearchAlso []int64

	CategoryIDs  []int64 // already widened to descendants
	TagIDs       []int64
	VenueIDs     []int64
	OrganizerIDs []int64
	Featured     *bool
	Include      []int64
	PostParent   *int64
	// ModifiedAfter and ModifiedBefore bound post_modified (the site's local time, "Y-m-d H:i:s"),
	// both exclusive, as WP_REST_Posts_Controller's modified_after/modified_before.
	ModifiedAfter, ModifiedBefore *string

	// OrderByPostDate orders by publication date then ID (the reference does this with include).
	OrderByPostDate bool

	// ReadableBy, when set (strict reads), keeps only the posts it allows: see ReadRule. Counts and
	// pages are over the allowed posts only.
	ReadableBy *ReadRule

	Offset, Limit int
}

// EventService reads events.
type EventService interface {
	// FindEvents returns one page of events matching f, with linked data loaded, and the total count.
	FindEvents(ctx context.Context, site *Site, f EventFilter) ([]*Event, int, error)
	// EventByID loads one event with linked data; nil when no event has that ID.
	EventByID(ctx context.Context, id int64) (*Event, error)
}

// PostService answers existence questions parameter validators ask.
type PostService interface {
	// PostByID returns the bare post (no meta) or nil.
	PostByID(ctx context.Context, id int64) (*Post, error)
	// PostsByName returns the bare posts of the given types whose post_name equals name under the
	// database collation, in ID order. Every status counts.
	PostsByName(ctx context.Context, name string, postTypes ...string) ([]*Post, error)
	// TrashedFrom returns a trashed post's _wp_trash_meta_status.
	TrashedFrom(ctx context.Context, id int64) (string, error)
	// AttachmentByURL returns the ID of the attachment whose GUID is url (0 when none).
	AttachmentByURL(ctx context.Context, url string) (int64, error)
}

// TermService reads taxonomies.
type TermService interface {
	// TermsOf returns every term of a taxonomy (for slug/name/ID resolution and hierarchy).
	TermsOf(ctx context.Context, taxonomy string) ([]*Term, error)
}

// SearchTerm is one term of a WordPress keyword search.
type SearchTerm struct {
	Text    string
	Exclude bool // "-term": the post must not contain it
}

var searchTermRe = regexp.MustCompile(`".*?("|$)|((?:^|[\t ",+])[^\t ",+]+)`)

// searchStopwords is WordPress' English stop-word list for multi-word searches.
var searchStopwords = map[string]bool{}

func init() {
	for _, w := range strings.Split("about,an,are,as,at,be,by,com,for,from,how,in,is,it,of,on,or,that,the,this,to,was,what,when,where,who,will,with,www", ",") {
		searchStopwords[w] = true
	}
}

// ParseSearch splits a search string into terms the way WP_Query::parse_search does: quoted phrases
// stay whole, terms are split on spaces, tabs, commas and plus signs, stop-words and single letters
// are dropped, and when nothing (or more than nine terms) remains the whole string is one term.
func ParseSearch(s string) []SearchTerm {
	s = strings.NewReplacer("\r", "", "\n", "").Replace(s)
	var raw []string
	for _, m := range searchTermRe.FindAllString(s, -1) {
		// Go's regexp has no look-behind; the leading separator we consumed is not part of the term.
		if m != "" && !strings.HasPrefix(m, `"`) && strings.ContainsRune("\t \",+", rune(m[0])) {
			m = m[1:]
		}
		raw = append(raw, m)
	}
	var words []string
	if len(raw) > 0 {
		for _, t := range raw {
			if len(t) >= 2 && strings.HasPrefix(t, `"`) && strings.HasSuffix(t, `"`) {
				t = strings.Trim(t, `"'`)
			} else {
				t = strings.Trim(t, `"' `)
			}
			if t == "" || (len(t) == 1 && isASCIILetterOrDash(t[0])) {
				continue
			}
			if searchStopwords[strings.ToLower(t)] {
				continue
			}
			words = append(words, t)
		}
	}
	if len(words) == 0 || len(words) > 9 {
		words = []string{s}
	}
	terms := make([]SearchTerm, 0, len(words))
	for _, w := range words {
		if strings.HasPrefix(w, "-") {
			terms = append(terms, SearchTerm{Text: w[1:], Exclude: true})
			continue
		}
		terms = append(terms, SearchTerm{Text: w})
	}
	return terms
}

func isASCIILetterOrDash(c byte) bool {
	return c == '-' || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z')
}
