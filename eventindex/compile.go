package eventindex

import (
	"cmp"
	"errors"
	"fmt"
	"slices"
	"sync"
	"sync/atomic"
)

// Compiling: a snapshot sorts the listable events in list order, lays their keys out side by side,
// summarises them in blocks and maps every venue, organizer and term to its events' positions.

// snapshot is an immutable compiled index.
type snapshot struct {
	mode   Mode
	byID   map[int64]*Event
	main   []*Event // listable simple events by (start, post_date, ID)
	starts []int64  // main[i].rows[0].startN
	// ends, statuses and featured repeat main[i]'s keys side by side for the plain scan.
	ends     []int64
	statuses []uint8
	featured []bool
	grams    []gramMask
	blocks   []block // summaries of main in runs of blockLen positions
	blockLen int
	// postBlocks holds postingBlocks' summaries of the long posting lists and unions asked for.
	postBlocks  sync.Map // postingKey -> []block
	postBlocksN atomic.Int32
	slow        []*Event // listable events with several or irregular rows
	// postings map a venue, organizer or term ID to the positions of its events in main.
	venues, orgs, cats, tags postings
	// unions remembers merged posting lists of multi-ID filters (a category with its children) for
	// the snapshot's life: the same category list asked again costs no merge.
	unions  sync.Map // string -> []int32
	unionsN atomic.Int32
	// listed is listedIDs' answer.
	listedOnce sync.Once
	listed     []int64
	// textless: some event's search text is not loaded yet, so searches are not answered here.
	textless bool
	// idless: some event's terms, venues and organizers are not loaded yet, so lists filtered by
	// them are not answered here.
	idless bool
	// tix is the text index of the main list of the compile this snapshot comes from (its slots
	// are that list's positions); slotPos maps a slot to its event's position in this main (-1:
	// gone; nil: the same position), and unindexed holds the positions, ascending, of the events
	// patches added since, which the index does not cover.
	tix       *textIndexRef
	slotPos   []int32
	unindexed []int32
}

// postings map an ID to positions in main, ascending: in list order, so that a start-date range
// of main is one range of every list, and a filter reads the side-by-side keys at those positions
// instead of the events themselves.
type postings map[int64][]int32

// clone is a copy of s's keys and lists, without its caches (posting summaries, unions, listed).
func (s *snapshot) clone() *snapshot {
	return &snapshot{mode: s.mode, byID: s.byID, main: s.main, starts: s.starts, ends: s.ends, statuses: s.statuses,
		featured: s.featured, grams: s.grams, blocks: s.blocks, blockLen: s.blockLen, slow: s.slow, venues: s.venues, orgs: s.orgs,
		cats: s.cats, tags: s.tags, textless: s.textless, idless: s.idless, tix: s.tix, slotPos: s.slotPos, unindexed: s.unindexed}
}

// sortMain sorts events in mainOrder on copies of their keys: comparing the events themselves
// would follow two pointers per comparison (the event, its row), a large part of a compile.
func sortMain(events []*Event) {
	type sortKey struct {
		start, postDate, id int64
		e                   *Event
	}
	keys := make([]sortKey, len(events))
	for i, e := range events {
		keys[i] = sortKey{e.rows[0].startN, e.postDateN, e.id, e}
	}
	slices.SortFunc(keys, func(a, b sortKey) int {
		return cmp.Or(cmp.Compare(a.start, b.start), cmp.Compare(a.postDate, b.postDate), cmp.Compare(a.id, b.id))
	})
	for i := range keys {
		events[i] = keys[i].e
	}
}

// mainOrder is the list order of simple events: start, post_date, ID.
func mainOrder(a, b *Event) int {
	return cmp.Or(cmp.Compare(a.rows[0].startN, b.rows[0].startN), cmp.Compare(a.postDateN, b.postDateN), cmp.Compare(a.id, b.id))
}

// listable sorts an event into main (true), slow (false) or neither (ok false).
func listable(e *Event) (main, ok bool) {
	if e.hidden || len(e.rows) == 0 {
		return false, false
	}
	return e.simple(), true
}

// compile sorts the listable events and builds the postings, with block summaries of blockLen
// events.
func compile(mode Mode, events map[int64]*Event, blockLen int) *snapshot {
	s := &snapshot{mode: mode, byID: events, blockLen: blockLen}
	for _, e := range events {
		s.textless = s.textless || e.noText
		s.idless = s.idless || e.noIDs
		if main, ok := listable(e); ok && main {
			s.main = append(s.main, e)
		} else if ok {
			s.slow = append(s.slow, e)
		}
	}
	sortMain(s.main)
	slices.SortFunc(s.slow, func(a, b *Event) int { return cmp.Compare(a.id, b.id) })
	s.fillKeys(func(_ int, e *Event) gramMask { return e.gramMask() })
	s.postAll()
	if !s.textless {
		s.tix = startTextIndex(s.main)
	}
	return s
}

// postAll fills the posting lists of main in one pass over its events. Each kind's lists are cut
// from one block of exactly the positions they hold: appended one by one they would keep much more
// capacity than positions, in thousands of slices. The pass records (list, position) pairs; the
// lists are then filled from the pairs, in order, without going back to the events.
func (s *snapshot) postAll() {
	type pair struct{ list, pos int32 }
	type kind struct {
		m     *postings
		ids   func(*Event) []int64
		slot  map[int64]int32 // ID -> its list's number
		keys  []int64         // list number -> ID
		count []int32
		last  []int32 // the last position added to each list: an ID an event repeats counts once
		pairs []pair
	}
	kinds := [...]*kind{{m: &s.venues, ids: (*Event).venues}, {m: &s.orgs, ids: (*Event).orgs},
		{m: &s.cats, ids: (*Event).cats}, {m: &s.tags, ids: (*Event).tags}}
	for _, k := range kinds {
		k.slot = map[int64]int32{}
	}
	for i, e := range s.main {
		for _, k := range kinds {
			for _, id := range k.ids(e) {
				l, ok := k.slot[id]
				if !ok {
					l = int32(len(k.keys))
					k.slot[id] = l
					k.keys, k.count, k.last = append(k.keys, id), append(k.count, 0), append(k.last, -1)
				}
				if k.last[l] == int32(i) {
					continue
				}
				k.last[l] = int32(i)
				k.count[l]++
				k.pairs = append(k.pairs, pair{l, int32(i)})
			}
		}
	}
	for _, k := range kinds {
		block := make([]int32, len(k.pairs))
		lists := make([][]int32, len(k.keys))
		for l, n := range k.count {
			lists[l], block = block[:0:n], block[n:]
		}
		for _, p := range k.pairs {
			lists[p.list] = append(lists[p.list], p.pos)
		}
		m := make(postings, len(k.keys))
		for l, id := range k.keys {
			m[id] = lists[l]
		}
		*k.m = m
	}
}

// fillKeys lays main's keys out side by side. The byte pairs of an event's text are kept there
// only, not on the event: grams gives them for position i (the caller knows which it can copy).
//
// A textless snapshot answers no search, so it has no byte pairs (grams nil): 32 bytes an event
// that a first build would otherwise hold, all zero, beside the ones its text pass makes.
func (s *snapshot) fillKeys(grams func(i int, e *Event) gramMask) {
	s.grams = nil
	if !s.textless {
		s.grams = make([]gramMask, len(s.main))
		for i, e := range s.main {
			s.grams[i] = grams(i, e)
		}
	}
	s.fillColumns()
}

// fillColumns lays main's keys other than the byte pairs out side by side, with their blocks.
func (s *snapshot) fillColumns() {
	s.starts = make([]int64, len(s.main))
	s.ends = make([]int64, len(s.main))
	s.statuses = make([]uint8, len(s.main))
	s.featured = make([]bool, len(s.main))
	for i, e := range s.main {
		s.starts[i], s.ends[i], s.statuses[i], s.featured[i] = e.rows[0].startN, e.rows[0].endN, e.statusID, e.featured
	}
	s.blocks = s.summarize(len(s.main), func(k int) int { return k })
}

// defaultBlockLen consecutive positions of main, or of a posting list, share one block (Options.BlockLen).
const defaultBlockLen = 128

const blockStatuses = 8 // status codes counted per block; a block holding another is scanned

// block summarises a run of main, or of a posting list, so that a list's total does not cost one
// step per event: a block whose every event passes the query's dates adds the counts of the
// statuses the query accepts, one whose events all fail is skipped, and only the blocks at the
// edges of the date range (or holding the page) are scanned event by event.
type block struct {
	minStart, maxStart int64 // the first and last event's: main is sorted by start
	minEnd, maxEnd     int64
	mixed              bool // a status code of blockStatuses or more (rare included)
	all, featured      [blockStatuses]uint16
}

// summarize makes the blocks of the n positions at(0) … at(n-1) of main, ascending; a last
// partial block has none (it is scanned event by event).
func (s *snapshot) summarize(n int, at func(int) int) []block {
	blocks := make([]block, n/s.blockLen)
	for b := range blocks {
		blk := &blocks[b]
		from, to := b*s.blockLen, (b+1)*s.blockLen
		blk.minStart, blk.maxStart = s.starts[at(from)], s.starts[at(to-1)]
		blk.minEnd, blk.maxEnd = s.ends[at(from)], s.ends[at(from)]
		for k := from; k < to; k++ {
			i := at(k)
			blk.minEnd, blk.maxEnd = min(blk.minEnd, s.ends[i]), max(blk.maxEnd, s.ends[i])
			st := s.statuses[i]
			if st >= blockStatuses {
				blk.mixed = true
				continue
			}
			blk.all[st]++
			if s.featured[i] {
				blk.featured[st]++
			}
		}
	}
	return blocks
}

// postingBlocks are the blocks of a posting list (or union) a filter scans, made once per snapshot
// for lists long enough to have a few (nil: the list is scanned event by event).
func (s *snapshot) postingBlocks(pos []int32) []block {
	if len(pos) < 4*s.blockLen {
		return nil
	}
	key := postingKey{&pos[0], len(pos)}
	if b, ok := s.postBlocks.Load(key); ok {
		return b.([]block)
	}
	b := s.summarize(len(pos), func(k int) int { return int(pos[k]) })
	if s.postBlocksN.Add(1) <= 1024 {
		s.postBlocks.Store(key, b)
	}
	return b
}

// postingKey names a posting list by its first element and length: every list and union of a
// snapshot is an array of its own.
type postingKey struct {
	first *int32
	n     int
}

// compileLoaded is compile for the events an index file holds, in the file's order (fileOrder):
// the main list and the irregular events are taken as they lie, after checking that they are
// exactly what compile would make of them, and the byte pairs as stored. The ID map fills on a
// second goroutine beside the key columns and posting lists.
func compileLoaded(l *loaded, blockLen int) (*snapshot, error) {
	s := &snapshot{mode: l.mode, blockLen: blockLen, textless: l.textless, idless: l.idless}
	n := len(l.events)
	var dup bool
	var wg sync.WaitGroup
	wg.Go(func() {
		s.byID = make(map[int64]*Event, n)
		for i := range l.events {
			s.byID[l.events[i].id] = &l.events[i]
		}
		dup = len(s.byID) != n
	})
	err := s.takeOrder(l)
	if err == nil {
		s.grams = l.grams // read into their own array: taken, not copied
		s.fillColumns()
		s.postAll()
	}
	wg.Wait()
	if err == nil && dup {
		err = errors.New("an event ID repeats")
	}
	if err != nil {
		return nil, err
	}
	if !s.textless {
		s.tix = startTextIndex(s.main)
	}
	return s, nil
}

// takeOrder sets main and slow from the file's order, checking it: the main list sorted as
// sortMain sorts it, the irregular events by ID, and no other event listable.
func (s *snapshot) takeOrder(l *loaded) error {
	if l.nMain > 0 {
		s.main = make([]*Event, l.nMain)
	}
	if l.nSlow > 0 {
		s.slow = make([]*Event, l.nSlow)
	}
	for i := range l.events {
		e := &l.events[i]
		main, ok := listable(e)
		switch {
		case i < l.nMain:
			if !ok || !main || (i > 0 && mainOrder(s.main[i-1], e) >= 0) {
				return fmt.Errorf("event %d is out of the main list's order", e.id)
			}
			s.main[i] = e
		case i < l.nMain+l.nSlow:
			k := i - l.nMain
			if !ok || main || (k > 0 && s.slow[k-1].id >= e.id) {
				return fmt.Errorf("event %d is out of the irregular events' order", e.id)
			}
			s.slow[k] = e
		case ok:
			return fmt.Errorf("event %d is listable but in no list", e.id)
		}
	}
	return nil
}
