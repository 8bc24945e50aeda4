package eventindex

import (
	"cmp"
	"math"
	"slices"
	"strings"
	"sync"

	"github.com/calendard/calendard"
	"github.com/calendard/calendard/internal/collation"
	"github.com/calendard/calendard/internal/mysqlcast"
)

// Queries: a filter prepared for the index (bounds packed, statuses resolved) and the tests of one
// event against it.

// query is an EventFilter prepared for the index: bounds packed, statuses resolved.
type query struct {
	f *calendard.EventFilter
	// legacy is a postmeta snapshot: every bound is met by any of the event's rows on its own
	// and compares MariaDB's CAST of the meta text (legacyRow), the order is the least CAST start.
	legacy                                         bool
	startGE, endLE, startLT, startGT, endLT, endGT *dateBound
	statusOK                                       func(string) bool
	statusOKByID                                   *[256]bool
	// The date bounds folded into inclusive ranges of packed dates.
	sMin, sMax, eMin, eMax int64
	search                 []foldedTerm
	include                map[int64]bool
	also                   map[int64]bool // SearchAlso: events that pass the terms not excluded
}

type foldedTerm struct {
	text    string
	grams   gramMask
	exclude bool
}

type dateBound struct {
	s string
	n int64
}

// FiltersByIDs reports whether f filters by terms, venues or organizers.
func FiltersByIDs(f *calendard.EventFilter) bool {
	return f.CategoryIDs != nil || f.TagIDs != nil || f.VenueIDs != nil || f.OrganizerIDs != nil
}

// NeedsIDs reports whether f filters by what a first build's second pass reads: terms, venues,
// organizers or the featured flag (IDsReady).
func NeedsIDs(f *calendard.EventFilter) bool {
	return FiltersByIDs(f) || f.Featured != nil
}

// prepare checks the filter is one the index answers and packs it.
func (s *snapshot) prepare(site *calendard.Site, f *calendard.EventFilter) (*query, bool) {
	// Strict reads (ReadableBy) filter by author as well: those lists are answered by SQL.
	// post_modified is not kept: modified_after/modified_before lists are answered by SQL.
	if ModeOf(site) != s.mode || f.ReadableBy != nil || f.ModifiedAfter != nil || f.ModifiedBefore != nil || (s.textless && len(f.Search) > 0) || (s.idless && NeedsIDs(f)) {
		return nil, false
	}
	q := &query{f: f, legacy: !s.mode.CustomTables}
	for _, t := range f.Search {
		folded := collation.LikeFold(t.Text)
		q.search = append(q.search, foldedTerm{text: folded, grams: gramsOf(folded), exclude: t.Exclude})
	}
	ok := true
	bound := func(v *string) *dateBound {
		if v == nil {
			return nil
		}
		n, regular := mysqlcast.Pack(*v)
		if m, inRange, _ := mysqlcast.Datetime(*v); !regular || (q.legacy && (!inRange || m != n)) {
			ok = false
		}
		return &dateBound{s: *v, n: n}
	}
	q.startGE, q.endLE = bound(f.StartOnOrAfter), bound(f.EndOnOrBefore)
	q.startLT, q.startGT = bound(f.StartsBefore), bound(f.StartsAfter)
	q.endLT, q.endGT = bound(f.EndsBefore), bound(f.EndsAfter)
	if !ok {
		return nil, false
	}
	q.sMin, q.sMax, q.eMin, q.eMax = math.MinInt64, math.MaxInt64, math.MinInt64, math.MaxInt64
	if q.startGE != nil {
		q.sMin = max(q.sMin, q.startGE.n)
	}
	if q.startGT != nil {
		q.sMin = max(q.sMin, q.startGT.n+1)
	}
	if q.startLT != nil {
		q.sMax = min(q.sMax, q.startLT.n-1)
	}
	if q.endLE != nil {
		q.eMax = min(q.eMax, q.endLE.n)
	}
	if q.endLT != nil {
		q.eMax = min(q.eMax, q.endLT.n-1)
	}
	if q.endGT != nil {
		q.eMin = max(q.eMin, q.endGT.n+1)
	}
	q.statusOK = statusMatcher(f.Statuses)
	q.statusOKByID = statusTable(q.statusOK)
	if f.Include != nil {
		q.include = make(map[int64]bool, len(f.Include))
		for _, id := range f.Include {
			q.include[id] = true
		}
	}
	if len(f.SearchAlso) > 0 {
		q.also = make(map[int64]bool, len(f.SearchAlso))
		for _, id := range f.SearchAlso {
			q.also[id] = true
		}
	}
	return q, true
}

// Statuses are interned process-wide so a query decides each stored spelling once, not per event.
var (
	statusMu    sync.Mutex
	statusNames []string // by code; code 255 stands for every spelling past the first 255
)

const rareStatus = 255

// internStatus returns st's code and, for a rare status (past the first 255 spellings), its own
// copy of the spelling.
func internStatus(st string) (uint8, *string) {
	c := statusCode(st)
	if c == rareStatus {
		rare := strings.Clone(st)
		return c, &rare
	}
	return c, nil
}

// statusName is the spelling of an interned status code.
func statusName(c uint8) string {
	statusMu.Lock()
	defer statusMu.Unlock()
	return statusNames[c]
}

func statusCode(st string) uint8 {
	statusMu.Lock()
	defer statusMu.Unlock()
	for i, n := range statusNames {
		if n == st {
			return uint8(i)
		}
	}
	if len(statusNames) >= rareStatus {
		return rareStatus
	}
	statusNames = append(statusNames, st)
	return uint8(len(statusNames) - 1)
}

// statusTable answers the status filter for every interned spelling.
func statusTable(match func(string) bool) *[256]bool {
	statusMu.Lock()
	names := statusNames
	statusMu.Unlock()
	var t [256]bool
	for i, n := range names {
		t[i] = match(n)
	}
	return &t
}

// statusMatcher compares statuses as the column's collation does (post_status IN (...), or NOT IN
// ('trash', 'auto-draft') for "any"), remembering each stored value's answer.
func statusMatcher(statuses []string) func(string) bool {
	var memo sync.Map
	return func(st string) bool {
		if v, ok := memo.Load(st); ok {
			return v.(bool)
		}
		var ok bool
		if statuses == nil {
			ok = !collation.Equal(st, "trash") && !collation.Equal(st, "auto-draft")
		} else {
			for _, want := range statuses {
				if collation.Equal(st, want) {
					ok = true
					break
				}
			}
		}
		memo.Store(st, ok)
		return ok
	}
}

// matchRow reports whether a (start, end) row passes the date bounds.
func (q *query) matchRow(r *dateRow) bool {
	return dateOK(r, true, q.startGE, 0) && dateOK(r, true, q.startGT, 1) && dateOK(r, true, q.startLT, -1) &&
		dateOK(r, false, q.endLE, 2) && dateOK(r, false, q.endLT, -1) && dateOK(r, false, q.endGT, 1)
}

// matchLegacy is the postmeta query's date test: each bound met by some row of the event.
func (q *query) matchLegacy(e *Event) bool {
	for _, c := range [...]struct {
		b     *dateBound
		start bool
		want  int
	}{{q.startGE, true, 0}, {q.startGT, true, 1}, {q.startLT, true, -1}, {q.endLE, false, 2}, {q.endLT, false, -1}, {q.endGT, false, 1}} {
		if c.b == nil {
			continue
		}
		met := false
		for i := range e.rows {
			if dateOK(&e.rows[i], c.start, c.b, c.want) {
				met = true
				break
			}
		}
		if !met {
			return false
		}
	}
	return true
}

// matchRegular is matchRow for a regular row, on packed dates.
func (q *query) matchRegular(start, end int64) bool {
	return start >= q.sMin && start <= q.sMax && end >= q.eMin && end <= q.eMax
}

// dateOK compares a row's start or end with a bound: want 1 (>), -1 (<), 0 (>=), 2 (<=).
func dateOK(r *dateRow, start bool, b *dateBound, want int) bool {
	if b == nil {
		return true
	}
	var c int
	if r.irr == nil || r.irr.legacy {
		n := r.endN
		if start {
			n = r.startN
		}
		if n == legacyAbsent {
			return false // no such meta row: the bound's join finds nothing
		}
		c = cmp.Compare(n, b.n)
	} else if start {
		c = collation.Compare(r.irr.start, b.s)
	} else {
		c = collation.Compare(r.irr.end, b.s)
	}
	switch want {
	case 1:
		return c > 0
	case -1:
		return c < 0
	case 0:
		return c >= 0
	default:
		return c <= 0
	}
}

// matchEvent checks everything but the dates.
func (q *query) matchEvent(e *Event, skipPostings bool) bool {
	f := q.f
	if e.hidden {
		return false
	}
	if e.statusID == rareStatus {
		if !q.statusOK(*e.rare) {
			return false
		}
	} else if !q.statusOKByID[e.statusID] {
		return false
	}
	if f.PostParent != nil && e.parent != *f.PostParent {
		return false
	}
	if f.Featured != nil && e.featured != *f.Featured {
		return false
	}
	if q.include != nil && !q.include[e.id] {
		return false
	}
	if f.SearchAnonymous && len(q.search) > 0 && e.password {
		return false
	}
	if skipPostings || !FiltersByIDs(f) {
		return true // and an event's IDs are not read: addIDs may be writing them (idless)
	}
	return anyIn(e.cats(), f.CategoryIDs) && anyIn(e.tags(), f.TagIDs) && anyIn(e.venues(), f.VenueIDs) && anyIn(e.orgs(), f.OrganizerIDs)
}

// matchText applies the search terms (an event of SearchAlso needs only lack the excluded ones).
func (q *query) matchText(e *Event) bool {
	also := q.also[e.id]
	for i := range q.search {
		t := &q.search[i]
		if t.exclude {
			if e.hasText(t.text) {
				return false
			}
			continue
		}
		// The byte pairs were tested before (main's side by side); the text decides.
		if !also && !e.hasText(t.text) {
			return false
		}
	}
	return true
}

// anyIn is the IN (...) test of an ID filter: nil filters nothing, an empty one matches nothing.
func anyIn(have, want []int64) bool {
	if want == nil {
		return true
	}
	for _, h := range have {
		if slices.Contains(want, h) {
			return true
		}
	}
	return false
}

// hit is a matching event with its sort key (the earliest matching start).
type hit struct {
	e     *Event
	start *dateRow
}

func (q *query) hitOf(e *Event) (hit, bool) {
	if e.simple() {
		r := &e.rows[0]
		return hit{e: e, start: r}, q.matchRegular(r.startN, r.endN)
	}
	var best *dateRow
	if q.legacy {
		if !q.matchLegacy(e) {
			return hit{}, false
		}
		for i := range e.rows {
			if r := &e.rows[i]; best == nil || compareStart(r, best) < 0 {
				best = r
			}
		}
		return hit{e: e, start: best}, true
	}
	for i := range e.rows {
		r := &e.rows[i]
		if q.matchRow(r) && (best == nil || compareStart(r, best) < 0) {
			best = r
		}
	}
	return hit{e: e, start: best}, best != nil
}

func compareStart(a, b *dateRow) int {
	if a.irr == nil && b.irr == nil {
		return cmp.Compare(a.startN, b.startN)
	}
	if (a.irr != nil && a.irr.legacy) || (b.irr != nil && b.irr.legacy) {
		// MIN(CAST(start AS DATETIME)): NULL (no row, or no calendar date) first.
		an, aNull := a.legacyStart()
		bn, bNull := b.legacyStart()
		rank := func(null bool) int {
			if null {
				return 0
			}
			return 1
		}
		return cmp.Or(cmp.Compare(rank(aNull), rank(bNull)), cmp.Compare(an, bn))
	}
	return collation.Compare(a.startText(), b.startText())
}

func (q *query) compareHits(a, b hit) int {
	if q.f.OrderByPostDate {
		return cmp.Or(cmp.Compare(a.e.postDateN, b.e.postDateN), cmp.Compare(a.e.id, b.e.id))
	}
	return cmp.Or(compareStart(a.start, b.start), cmp.Compare(a.e.postDateN, b.e.postDateN), cmp.Compare(a.e.id, b.e.id))
}
