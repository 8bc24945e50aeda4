package search

import (
	"context"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"unicode"

	"github.com/meilisearch/meilisearch-go"

	"github.com/calendard/calendard"
	"github.com/calendard/calendard/wpdb"
)

// searchPage is how many IDs one search request lists; a search pages on until every match is
// listed (the index's maxTotalHits is above any calendar, so nothing is cut).
const searchPage = 50_000

// IDs returns the IDs of every document of kind matching query and filter, best match first. It
// bypasses the breaker and the request timeout (searches use lookup).
func (ix *Index) IDs(ctx context.Context, kind, query string, filter string, sort []string) ([]int64, error) {
	return ix.ids(ctx, ix.client, kind, query, filter, sort)
}

func (ix *Index) ids(ctx context.Context, client meilisearch.ServiceManager, kind, query string, filter string, sort []string) ([]int64, error) {
	var out []int64
	for offset := int64(0); ; offset += searchPage {
		req := &meilisearch.SearchRequest{Offset: offset, Limit: searchPage, AttributesToRetrieve: []string{"id"},
			MatchingStrategy: meilisearch.All, Sort: sort}
		if filter != "" {
			req.Filter = filter
		}
		res, err := client.Index(ix.UID(kind)).SearchWithContext(ctx, query, req)
		if err != nil {
			return nil, err
		}
		for _, h := range res.Hits {
			var d struct {
				ID int64 `json:"id"`
			}
			if err := h.DecodeInto(&d); err != nil {
				return nil, err
			}
			out = append(out, d.ID)
		}
		if int64(len(res.Hits)) < searchPage {
			return out, nil
		}
	}
}

// Query turns WordPress' parsed search terms into a Meilisearch query: words as they are, quoted
// phrases as phrases. Excluded terms ("-word") are left to the exact path, which applies them as
// the plugin does; rest holds them.
func Query(terms []calendard.SearchTerm) (q string, rest []calendard.SearchTerm) {
	var parts []string
	for _, t := range terms {
		if t.Exclude {
			rest = append(rest, t)
			continue
		}
		// As the documents' text: "<Friends>" must be the word friends (Meilisearch would keep it
		// whole).
		text := brackets.Replace(strings.ReplaceAll(t.Text, `"`, " "))
		if strings.ContainsAny(strings.TrimSpace(text), " \t") {
			text = `"` + strings.TrimSpace(text) + `"`
		}
		parts = append(parts, text)
	}
	q = strings.TrimSpace(strings.Join(parts, " "))
	if !hasWord(q) {
		// Only punctuation ("&"): Meilisearch would ignore it and match every document; the
		// plugin's substring match answers instead.
		q = ""
	}
	return q, rest
}

// hasWord reports whether s holds a letter or a digit: something Meilisearch indexes as a word.
func hasWord(s string) bool {
	return strings.IndexFunc(s, func(r rune) bool { return unicode.IsLetter(r) || unicode.IsNumber(r) }) >= 0
}

// Events answers event lists with `search=`: the plugin's substring match (the exact path it wraps)
// joined with Meilisearch's word, prefix and typo matches, handed to the exact path as
// EventFilter.SearchAlso; every other filter, the order, the count and the pages are the exact
// path's. While the index is not usable, or when a search fails or does not answer in time
// (Config.Timeout; the breaker counts it), the wrapped service answers alone: the plugin's
// substring match.
type Events struct {
	calendard.EventService
	Index *Index
	// Substrings is the exact path's in-memory event index (wpdb.Store.Index), nil when there is
	// none: it lets a search leave the substring match's events out of the Meilisearch request.
	Substrings SubstringIndex
	// MaxIDs bounds the IDs handed to the exact path beside the substring match (an SQL IN list);
	// a search with more is answered by the substring match alone. 0: 30,000.
	MaxIDs int
}

// SubstringIndex lists the events the substring match finds (wpdb's event index).
type SubstringIndex interface {
	// SearchMatches returns the IDs of the listed events the search terms match and of every
	// listed event (both ascending); ok is false when the index cannot answer.
	SearchMatches(site *calendard.Site, terms []calendard.SearchTerm) (matches, listed []int64, ok bool)
}

func (e *Events) maxIDs() int {
	if e.MaxIDs == 0 {
		return 30_000
	}
	return e.MaxIDs
}

// FindEvents implements calendard.EventService.
func (e *Events) FindEvents(ctx context.Context, site *calendard.Site, f calendard.EventFilter) ([]*calendard.Event, int, error) {
	if len(f.Search) == 0 || e.Index == nil || !e.Index.Usable() {
		return e.EventService.FindEvents(ctx, site, f)
	}
	q, _ := Query(f.Search)
	if q == "" {
		return e.EventService.FindEvents(ctx, site, f)
	}
	also, err := e.beyondSubstring(ctx, site, f, q)
	if err != nil {
		return e.EventService.FindEvents(ctx, site, f)
	}
	if len(also) > e.maxIDs() {
		return e.EventService.FindEvents(ctx, site, f)
	}
	g := f
	g.SearchAlso = also
	return e.EventService.FindEvents(ctx, site, g)
}

// beyondSubstring returns the events Meilisearch matches that the substring match may miss. When
// the event index can list the substring match's events (an IDs-only pass in memory), they are
// left out of the request by ID, so Meilisearch lists only the others: listing a hit is what a
// Meilisearch search costs, and a broad word's hits are mostly substring matches. Otherwise every
// match is listed.
func (e *Events) beyondSubstring(ctx context.Context, site *calendard.Site, f calendard.EventFilter, q string) ([]int64, error) {
	filter := searchFilter(f)
	if x := e.Substrings; x != nil {
		if matches, listed, ok := x.SearchMatches(site, f.Search); ok {
			filter = and(filter, exceptIDs(matches, listed))
		}
	}
	return e.Index.lookup(ctx, KindEvents, q, filter, nil)
}

// searchFilter is the Meilisearch filter every event search carries.
func searchFilter(f calendard.EventFilter) string {
	if f.SearchAnonymous {
		return "password_protected = false"
	}
	return ""
}

func and(a, b string) string {
	switch {
	case a == "":
		return b
	case b == "":
		return a
	}
	return "(" + a + ") AND (" + b + ")"
}

// exceptIDs is a filter leaving out the events of ids, a subset of listed (both ascending): runs of
// consecutive listed events become one range, so a word found in most events costs a few ranges,
// not an ID each. The IDs a range spans beside listed ones are events no list shows (hidden, or
// without dates) or no event at all, so leaving them out changes no answer.
func exceptIDs(ids, listed []int64) string {
	if len(ids) == 0 {
		return ""
	}
	var singles, ranges []string
	i := 0
	for k := 0; k < len(listed) && i < len(ids); {
		if listed[k] != ids[i] {
			k++
			continue
		}
		from := k
		for k < len(listed) && i < len(ids) && listed[k] == ids[i] {
			k++
			i++
		}
		if k-1 == from {
			singles = append(singles, strconv.FormatInt(listed[from], 10))
		} else {
			ranges = append(ranges, "id "+strconv.FormatInt(listed[from], 10)+" TO "+strconv.FormatInt(listed[k-1], 10))
		}
	}
	if len(singles) > 0 {
		ranges = append(ranges, "id IN ["+strings.Join(singles, ", ")+"]")
	}
	return "NOT (" + strings.Join(ranges, " OR ") + ")"
}

// Linked answers venue and organizer `search=` from the index (the plugin's find_like otherwise).
type Linked struct {
	calendard.LinkedService
	Index *Index
}

// SearchLinked implements calendard.LinkedService.
func (l *Linked) SearchLinked(ctx context.Context, postType, search string) ([]int64, error) {
	kind := typeKind(postType)
	if l.Index == nil || !l.Index.Usable() || kind == "" || !hasWord(search) {
		return l.LinkedService.SearchLinked(ctx, postType, search)
	}
	// find_like never matches trashed posts.
	ids, err := l.Index.lookup(ctx, kind, brackets.Replace(search), "status != trash", nil)
	if err != nil {
		return l.LinkedService.SearchLinked(ctx, postType, search)
	}
	// The answer holds every venue or organizer the plugin's substring match finds, as well as
	// Meilisearch's word, prefix and typo matches: a word found only inside a longer word ("Vía"
	// in "Víale") is no match for Meilisearch. The IDs only narrow the list, so their order does
	// not matter; the substring match is one query over a small table, memoized per change.
	exact, err := l.LinkedService.SearchLinked(ctx, postType, search)
	if err != nil {
		return nil, err
	}
	return union(ids, exact), nil
}

// union is a followed by the IDs of b that a lacks.
func union(a, b []int64) []int64 {
	seen := make(map[int64]bool, len(a))
	out := make([]int64, 0, len(a)+len(b))
	for _, id := range a {
		if !seen[id] {
			seen[id] = true
			out = append(out, id)
		}
	}
	for _, id := range b {
		if !seen[id] {
			seen[id] = true
			out = append(out, id)
		}
	}
	return out
}

// Geo finds venues by coordinates through the index's _geoRadius, or exactly in SQL (haversine
// with a bounding box) when the index is not usable; both give the same venues.
type Geo struct {
	DB    *wpdb.DB
	Index *Index // nil: SQL only
}

// VenuesWithCoordinates returns the IDs of the venues with valid coordinates, by ID.
func (g *Geo) VenuesWithCoordinates(ctx context.Context) ([]int64, error) {
	pts, err := g.DB.VenuesWithCoordinates(ctx)
	if err != nil {
		return nil, err
	}
	ids := make([]int64, len(pts))
	for i, p := range pts {
		ids[i] = p.ID
	}
	return ids, nil
}

// VenuesNear returns the venues within radiusKM of the point, nearest first.
func (g *Geo) VenuesNear(ctx context.Context, lat, lng, radiusKM float64) ([]int64, error) {
	if g.Index != nil && g.Index.Usable() {
		ids, err := g.Index.lookup(ctx, KindVenues, "", geoRadiusFilter(lat, lng, radiusKM), []string{geoPoint(lat, lng) + ":asc"})
		if err == nil {
			return ids, nil
		}
	}
	pts, err := g.DB.VenuesNear(ctx, lat, lng, radiusKM)
	if err != nil {
		return nil, err
	}
	ids := make([]int64, len(pts))
	for i, p := range pts {
		ids[i] = p.ID
	}
	return ids, nil
}

func num(f float64) string { return strconv.FormatFloat(f, 'f', -1, 64) }

func geoRadiusFilter(lat, lng, km float64) string {
	return fmt.Sprintf("_geoRadius(%s, %s, %s)", num(lat), num(lng), num(km*1000))
}

func geoPoint(lat, lng float64) string { return fmt.Sprintf("_geoPoint(%s, %s)", num(lat), num(lng)) }

// FindEventsByRelevance is FindEvents ordered by Meilisearch's ranking (orderby=relevance, an
// extension): the same events and total, Meilisearch's matches best first, then the events only the
// substring match finds (a word inside a longer word, which Meilisearch does not rank) in the
// plugin's order. Without a usable index the plugin's order stands.
func (e *Events) FindEventsByRelevance(ctx context.Context, site *calendard.Site, f calendard.EventFilter) ([]*calendard.Event, int, error) {
	if len(f.Search) == 0 || e.Index == nil || !e.Index.Usable() {
		return e.EventService.FindEvents(ctx, site, f)
	}
	q, _ := Query(f.Search)
	if q == "" {
		return e.EventService.FindEvents(ctx, site, f)
	}
	ids, err := e.Index.lookup(ctx, KindEvents, q, searchFilter(f), nil)
	if err != nil || len(ids) > e.maxIDs() {
		return e.EventService.FindEvents(ctx, site, f)
	}
	// Every match passing the other filters, in the plugin's order, then ranked and paged here.
	g := f
	g.SearchAlso = ids
	g.Offset, g.Limit = 0, 1<<31-1
	all, total, err := e.EventService.FindEvents(ctx, site, g)
	if err != nil {
		return nil, 0, err
	}
	rank := make(map[int64]int, len(ids))
	for i, id := range ids {
		rank[id] = i
	}
	rankOf := func(ev *calendard.Event) int {
		if r, ok := rank[ev.ID]; ok {
			return r
		}
		return len(ids) // a substring match only: after the ranked ones
	}
	slices.SortStableFunc(all, func(a, b *calendard.Event) int { return rankOf(a) - rankOf(b) })
	from := min(f.Offset, len(all))
	to := min(from+f.Limit, len(all))
	return all[from:to], total, nil
}
