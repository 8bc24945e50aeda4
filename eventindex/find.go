package eventindex

import (
	"fmt"
	"slices"

	"github.com/calendard/calendard"
	"github.com/calendard/calendard/internal/collation"
)

// Finding: a list's page and total from a snapshot, a block summary or a posting list at a time;
// the search matches of the whole calendar.

// blockFit says how a whole block fares on the query's regular dates.
type blockFit uint8

const (
	blockSome blockFit = iota // some events may pass: scan them
	blockAll                  // every event passes the dates
	blockNone                 // no event passes the dates
)

func (q *query) blockDates(blk *block) blockFit {
	switch {
	case blk.maxStart < q.sMin || blk.minStart > q.sMax || blk.maxEnd < q.eMin || blk.minEnd > q.eMax:
		return blockNone
	case blk.minStart >= q.sMin && blk.maxStart <= q.sMax && blk.minEnd >= q.eMin && blk.maxEnd <= q.eMax:
		return blockAll
	}
	return blockSome
}

// blockCount is how many of a block's events pass the query's statuses and featured filter (its
// dates passing).
func (q *query) blockCount(blk *block) int {
	c := 0
	for st := range blockStatuses {
		if !q.statusOKByID[st] {
			continue
		}
		switch {
		case q.f.Featured == nil:
			c += int(blk.all[st])
		case *q.f.Featured:
			c += int(blk.featured[st])
		default:
			c += int(blk.all[st] - blk.featured[st])
		}
	}
	return c
}

// find returns the page's IDs and the total.
func (s *snapshot) find(q *query) ([]int64, int) {
	f := q.f
	want := f.Offset + f.Limit
	if f.Limit <= 0 || want < f.Offset { // no page, or overflow: count only
		want = 0
	}
	var hits []hit
	total := 0
	sorted := !f.OrderByPostDate
	// Hits before the page need no keeping when nothing can be merged in among them later.
	skip := 0
	if len(s.slow) == 0 && sorted && q.include == nil {
		skip = f.Offset
	}
	consider := func(e *Event, skipPostings bool) {
		if !q.matchEvent(e, skipPostings) {
			return
		}
		h, ok := q.hitOf(e)
		if !ok || !q.matchText(e) { // the text last: it costs most
			return
		}
		total++
		if !sorted || (total > skip && total <= want) || !e.simple() {
			hits = append(hits, h)
		}
	}

	switch {
	case q.include != nil:
		sorted = false
		seen := map[int64]bool{}
		for _, id := range f.Include {
			if e := s.byID[id]; e != nil && !seen[id] && !e.hidden && len(e.rows) > 0 {
				seen[id] = true
				consider(e, false)
			}
		}
	default:
		// The candidates are main's positions within the start range, or, when the filter names
		// venues, organizers or terms, the positions of the smallest such list within that range
		// (a second kind of ID filter, rare, is checked on the event).
		lo, hi := s.startRange(q)
		pos, kinds := s.postingsFor(f)
		n := hi - lo
		// base is the candidates' offset in what they were taken from: main, or the posting list.
		base, list := lo, pos
		if kinds > 0 {
			base = lowerBound32(pos, int32(lo))
			pos = pos[base:lowerBound32(pos, int32(hi))]
			n = len(pos)
		}
		at := func(k int) int {
			if kinds > 0 {
				return int(pos[k])
			}
			return lo + k
		}
		if kinds <= 1 && len(q.search) == 0 && f.PostParent == nil {
			// Status, featured and dates only: a scan of the side-by-side keys.
			scan := func(from, to int) {
				for k := from; k < to; k++ {
					i := at(k)
					st := s.statuses[i]
					if st == rareStatus || !q.statusOKByID[st] || (f.Featured != nil && s.featured[i] != *f.Featured) ||
						!q.matchRegular(s.starts[i], s.ends[i]) {
						if st == rareStatus {
							consider(s.main[i], true)
						}
						continue
					}
					total++
					if total > skip && total <= want {
						hits = append(hits, hit{e: s.main[i], start: &s.main[i].rows[0]})
					}
				}
			}
			// The blocks summarise main, or the one posting list the filter names.
			var blocks []block
			switch {
			case !sorted:
			case kinds == 0:
				blocks = s.blocks
			case kinds == 1:
				blocks = s.postingBlocks(list)
			}
			if blocks == nil {
				scan(0, n)
			} else {
				// Whole blocks before the page or after it is full are counted, not scanned.
				bl := s.blockLen
				for b := base / bl; b*bl < base+n; b++ {
					from, to := max(base, b*bl), min(base+n, (b+1)*bl)
					if from == b*bl && to == (b+1)*bl && b < len(blocks) && !blocks[b].mixed {
						switch q.blockDates(&blocks[b]) {
						case blockNone:
							continue
						case blockAll:
							if c := q.blockCount(&blocks[b]); total+c <= skip || total >= want {
								total += c
								continue
							}
						}
					}
					scan(from-base, to-base)
				}
			}
		} else {
			// Rule events out on the side-by-side keys (status, dates, the search's byte pairs)
			// before touching them. SearchAlso is looked up only for events the byte pairs rule
			// out, and only when it names any: the lookup reads the event itself, a cache miss.
			must := q.mustGrams()
			also := len(q.also) > 0
			var cand []int32
			narrowed := false
			if len(q.search) > 0 {
				cand, narrowed = s.searchPositions(q)
			}
			check := func(i int) {
				// The text index's candidates skip the byte pairs: a read of one more array at a
				// random place, for events that hold every trigram already.
				if st := s.statuses[i]; st != rareStatus && (!q.statusOKByID[st] || !q.matchRegular(s.starts[i], s.ends[i]) ||
					(!narrowed && s.grams != nil && !s.grams[i].holds(&must) && (!also || !q.also[s.main[i].id]))) {
					return
				}
				// The text before the rest when searching: most events whose byte pairs pass
				// lack the term, and the text is what decides.
				if e := s.main[i]; len(q.search) == 0 || q.matchText(e) {
					consider(e, kinds <= 1)
				}
			}
			// A search the text index narrows reads its candidates only: those in the start
			// range and, when an ID filter names a list, on it.
			if narrowed {
				cand = cand[lowerBound32(cand, int32(lo)):lowerBound32(cand, int32(hi))]
				if kinds > 0 {
					cand = intersectSorted(cand, pos)
				}
				for _, i := range cand {
					check(int(i))
				}
			} else {
				for k := 0; k < n; k++ {
					check(at(k))
				}
			}
		}
		for _, e := range s.slow {
			consider(e, false)
		}
	}
	if len(s.slow) > 0 || !sorted {
		slices.SortFunc(hits, q.compareHits)
	}
	if f.Offset >= total || f.Limit <= 0 {
		return nil, total
	}
	from, end := f.Offset-skip, min(len(hits), want-skip)
	if want == 0 {
		end = len(hits)
	}
	ids := make([]int64, 0, max(0, end-from))
	for _, h := range hits[from:end] {
		ids = append(ids, h.e.id)
	}
	return ids, total
}

// mustGrams is the union of the byte pairs of the search's terms that must occur.
func (q *query) mustGrams() gramMask {
	var must gramMask
	for _, t := range q.search {
		if !t.exclude {
			for k := range must {
				must[k] |= t.grams[k]
			}
		}
	}
	return must
}

// startRange narrows the main list by its sort key, the start date, when the filter bounds it.
func (s *snapshot) startRange(q *query) (int, int) {
	lo, hi := 0, len(s.main)
	if q.startGE != nil {
		lo = max(lo, lowerBound(s.starts, q.startGE.n))
	}
	if q.startGT != nil {
		lo = max(lo, lowerBound(s.starts, q.startGT.n+1))
	}
	if q.startLT != nil {
		hi = min(hi, lowerBound(s.starts, q.startLT.n))
	}
	if hi < lo {
		hi = lo
	}
	return lo, hi
}

func lowerBound(a []int64, v int64) int {
	i, _ := slices.BinarySearch(a, v)
	return i
}

// postingsFor picks the smallest posting union among the ID filters: its positions in main, and
// how many kinds of ID filter the filter has (0: none; positions nil).
func (s *snapshot) postingsFor(f *calendard.EventFilter) (best []int32, kinds int) {
	for _, c := range []struct {
		ids []int64
		m   postings
	}{{f.VenueIDs, s.venues}, {f.OrganizerIDs, s.orgs}, {f.CategoryIDs, s.cats}, {f.TagIDs, s.tags}} {
		if c.ids == nil {
			continue
		}
		u := s.cachedUnion(c.ids, c.m)
		if kinds == 0 || len(u) < len(best) {
			best = u
		}
		kinds++
	}
	return best, kinds
}

// cachedUnion is union, remembered per snapshot (at most 256 different ID lists).
func (s *snapshot) cachedUnion(ids []int64, m postings) []int32 {
	if len(ids) < 2 {
		return union(ids, m)
	}
	key := fmt.Sprintf("%p/%v", m, ids)
	if u, ok := s.unions.Load(key); ok {
		return u.([]int32)
	}
	u := union(ids, m)
	if s.unionsN.Add(1) <= 256 {
		s.unions.Store(key, u)
	}
	return u
}

// union merges the posting lists of several IDs into one ascending list without duplicates.
func union(ids []int64, m postings) []int32 {
	if len(ids) == 1 {
		return m[ids[0]]
	}
	var out []int32
	for _, id := range ids {
		out = mergeUnion(out, m[id])
	}
	return out
}

// mergeUnion merges two ascending lists into a new one, each position once.
func mergeUnion(a, b []int32) []int32 {
	out := make([]int32, 0, len(a)+len(b))
	for len(a) > 0 && len(b) > 0 {
		switch {
		case a[0] < b[0]:
			out, a = append(out, a[0]), a[1:]
		case a[0] > b[0]:
			out, b = append(out, b[0]), b[1:]
		default:
			out, a, b = append(out, a[0]), a[1:], b[1:]
		}
	}
	return append(append(out, a...), b...)
}

func lowerBound32(a []int32, v int32) int {
	i, _ := slices.BinarySearch(a, v)
	return i
}

// SearchMatches returns the IDs of the events a list can show (not hidden, with dates) whose title,
// excerpt or content holds every term not excluded, as the list's search tests them, and the IDs
// of every event a list can show; both ascending, listed shared (not to be modified). ok is false
// when the index cannot answer for site: not built, another date mode, or a rebuild pending.
// An IDs-only pass: no order, no record, no other filter.
func (x *Index) SearchMatches(site *calendard.Site, terms []calendard.SearchTerm) (matches, listed []int64, ok bool) {
	s := x.snap.Load()
	if s == nil || ModeOf(site) != s.mode || x.Stale() || s.textless {
		return nil, nil, false
	}
	q := &query{}
	for _, t := range terms {
		if !t.Exclude {
			folded := collation.LikeFold(t.Text)
			q.search = append(q.search, foldedTerm{text: folded, grams: gramsOf(folded)})
		}
	}
	must := q.mustGrams()
	if cand, ok := s.searchPositions(q); ok {
		for _, i := range cand {
			if e := s.main[i]; s.grams[i].holds(&must) && q.matchText(e) {
				matches = append(matches, e.id)
			}
		}
	} else {
		for i, e := range s.main {
			if s.grams[i].holds(&must) && q.matchText(e) {
				matches = append(matches, e.id)
			}
		}
	}
	for _, e := range s.slow {
		if q.matchText(e) {
			matches = append(matches, e.id)
		}
	}
	slices.Sort(matches)
	return matches, s.listedIDs(), true
}

// listedIDs is the IDs of main and slow, ascending, computed once per snapshot.
func (s *snapshot) listedIDs() []int64 {
	s.listedOnce.Do(func() {
		s.listed = make([]int64, 0, len(s.main)+len(s.slow))
		for _, e := range s.main {
			s.listed = append(s.listed, e.id)
		}
		for _, e := range s.slow {
			s.listed = append(s.listed, e.id)
		}
		slices.Sort(s.listed)
	})
	return s.listed
}

// FindEvents answers from the index when it can; ok is false when the caller must ask SQL.
func (x *Index) FindEvents(site *calendard.Site, f *calendard.EventFilter) ([]int64, int, bool) {
	s := x.snap.Load()
	if s == nil {
		return nil, 0, false
	}
	q, ok := s.prepare(site, f)
	if !ok {
		return nil, 0, false
	}
	ids, total := s.find(q)
	return ids, total, true
}
