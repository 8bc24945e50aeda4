package wpdb

import (
	"cmp"
	"context"
	"database/sql"
	"fmt"
	"math"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/calendard/calendard"
	"github.com/calendard/calendard/internal/collation"
	"github.com/calendard/calendard/internal/mysqlcast"
)

// EventIndex answers event list filters, order and totals from memory: the list keys of every event
// (status, dates, publication date, parent, flags, terms, venues and organizers) and nothing else.
// Records are still loaded from the database, a page at a time. It stays exact: calendard's writes
// patch it before they answer (through the change feed), and a change the watermark poll sees
// rebuilds it in the background while the previous snapshot keeps answering.
//
// Answers are the SQL query's (FindEvents) to the row: the same comparisons (dates as the columns
// compare them, statuses, meta keys and taxonomies under the table collation, venue and organizer
// IDs through CAST AS SIGNED, search terms as LIKE '%term%' on title, excerpt and content) and the
// same order, MIN(start) of the matching dates, then post_date, then ID.
type EventIndex struct {
	db   *DB
	snap atomic.Pointer[ixSnapshot]

	mu       sync.Mutex // serialises builds and patches
	building bool
	again    bool    // a rebuild was asked for while one ran
	patched  []int64 // IDs patched while a build ran, re-applied to its result
	log      func(error)
	// allSeen counts the Change{All} heard, allBuilt the count a finished build started after:
	// while they differ the snapshot may be older than the feed's generation (Stale).
	allSeen, allBuilt atomic.Uint64
	file              *indexFile  // nil: builds are not kept on disk (UseFile)
	fromFile          atomic.Bool // the first snapshot came from the file
	patches           int         // Patch calls, under mu: a build saves only what no patch changed
}

// Stale reports whether a rebuild asked for by a change is still to finish: answers from the
// index may then be older than the feed's generation, so nothing derived from them may be kept
// under that generation.
func (x *EventIndex) Stale() bool { return x.allBuilt.Load() < x.allSeen.Load() }

// ixMode is what decides which dates an index holds.
type ixMode struct {
	customTables bool // dates from tec_occurrences (else _EventStartDate/_EventEndDate meta)
	utc          bool // the site's "site" timezone mode: UTC columns
}

func modeOf(site *calendard.Site) ixMode {
	return ixMode{customTables: site.UseCustomTables, utc: site.TimezoneModeSite}
}

// ixRow is one (start, end) pair an event can match with: an occurrence row, or one combination
// of start and end meta rows (the SQL joins them, so every combination is a row).
type ixRow struct {
	startN, endN int64 // packed YYYYMMDDhhmmss when the text is a regular datetime
	// irr holds the texts of a row that is not two regular datetimes (nil: regular). A regular
	// row's texts are its packed dates written out (unpackDate), so they are not kept.
	irr *ixRowText
}

type ixRowText struct {
	start, end string
	// legacy marks a row of meta dates (postmeta snapshot): startN and endN hold the values
	// MariaDB's CAST compares (legacyAbsent: no such meta), the texts decide the sort value.
	legacy bool
}

// legacyAbsent stands for a missing start or end meta row in a legacy row.
const legacyAbsent = -1

// legacyRow is one (start, end) combination of an event's date meta on a postmeta site; a
// missing side (no row of the key) is absent. Two texts in the plugin's own form, a real date
// for the start, are a regular row: MariaDB reads them as their digits.
func legacyRow(start, end string, hasStart, hasEnd bool) ixRow {
	if hasStart && hasEnd {
		sp, sReg := mysqlcast.Pack(start)
		ep, eReg := mysqlcast.Pack(end)
		sn, sOK, sValid := mysqlcast.Datetime(start)
		en, eOK, _ := mysqlcast.Datetime(end)
		if sReg && eReg && sOK && eOK && sValid && sp == sn && ep == en {
			return ixRow{startN: sn, endN: en}
		}
	}
	r := ixRow{startN: legacyAbsent, endN: legacyAbsent, irr: &ixRowText{legacy: true}}
	if hasStart {
		r.startN, r.irr.start = mysqlcast.DatetimeCompared(start), strings.Clone(start)
	}
	if hasEnd {
		r.endN, r.irr.end = mysqlcast.DatetimeCompared(end), strings.Clone(end)
	}
	return r
}

// legacyStart is the row's start as CAST(... AS DATETIME) sorts it: null for no row or no date.
func (r *ixRow) legacyStart() (n int64, null bool) {
	if r.irr == nil {
		return r.startN, false
	}
	if r.startN == legacyAbsent {
		return 0, true
	}
	n, _, valid := mysqlcast.Datetime(r.irr.start)
	if !valid {
		return 0, true // NULLs tie
	}
	return n, false
}

func (r *ixRow) regular() bool { return r.irr == nil }

func (r *ixRow) startText() string {
	if r.irr != nil {
		return r.irr.start
	}
	return mysqlcast.Unpack(r.startN)
}

// ixEvent is the list key of one tribe_events post. Its fields are ordered to leave no padding:
// the index holds one per event.
type ixEvent struct {
	id        int64
	postDateN int64
	parent    int64
	rows      []ixRow
	// ids holds the event's categories, tags, venues (CAST(meta_value AS SIGNED) of every
	// _EventVenueID row) and organizers in one slice, split at nCats, nTags and nVenues: one
	// allocation instead of four, a third of the slice headers (see setIDs).
	ids []int64
	// text is the title, excerpt and content folded for LIKE (likeFold), joined by a byte that no
	// folded text holds, so a search term matches within one column as LIKE does.
	text string
	// rare is the spelling of a status past the 255 interned ones (statusID rareStatus), else nil:
	// the common statuses are their code alone.
	rare                  *string
	nCats, nTags, nVenues uint32
	statusID              uint8 // statusCode(status)
	hidden                bool  // _EventHideFromUpcoming exists: never listed
	featured              bool  // _tribe_featured exists
	password              bool  // post_password <> '' (PAD SPACE: spaces alone are no password)
	noText                bool  // text is not loaded yet (a first build's first pass)
	noIDs                 bool  // ids are not loaded yet (a first build's first pass)
}

// setStatus stores the event's post_status as its interned code.
func (e *ixEvent) setStatus(st string) {
	e.statusID, e.rare = internStatus(st)
}

// status is the event's post_status.
func (e *ixEvent) status() string {
	if e.rare != nil {
		return *e.rare
	}
	return statusName(e.statusID)
}

func (e *ixEvent) cats() []int64 { return e.ids[:e.nCats:e.nCats] }
func (e *ixEvent) tags() []int64 {
	return e.ids[e.nCats : e.nCats+e.nTags : e.nCats+e.nTags]
}
func (e *ixEvent) venues() []int64 {
	return e.ids[e.nCats+e.nTags : e.nCats+e.nTags+e.nVenues : e.nCats+e.nTags+e.nVenues]
}
func (e *ixEvent) orgs() []int64 { return e.ids[e.nCats+e.nTags+e.nVenues:] }

// setIDs stores the four ID lists in one slice, taken from arena when it has room (a build packs
// every event's IDs into a few large blocks).
func (e *ixEvent) setIDs(arena *[]int64, cats, tags, venues, orgs []int64) {
	n := len(cats) + len(tags) + len(venues) + len(orgs)
	if n == 0 {
		e.ids, e.nCats, e.nTags, e.nVenues = nil, 0, 0, 0
		return
	}
	var ids []int64
	if arena != nil {
		if cap(*arena)-len(*arena) < n {
			*arena = make([]int64, 0, max(n, 16<<10))
		}
		from := len(*arena)
		*arena = append(append(append(append(*arena, cats...), tags...), venues...), orgs...)
		ids = (*arena)[from:len(*arena):len(*arena)]
	} else {
		ids = append(append(append(append(make([]int64, 0, n), cats...), tags...), venues...), orgs...)
	}
	e.ids, e.nCats, e.nTags, e.nVenues = ids, uint32(len(cats)), uint32(len(tags)), uint32(len(venues))
}

// gramMask is a 256-bit set of hashed byte pairs. A text can contain a term only if its mask holds
// every bit of the term's: one AND per word rules out almost every event that lacks the term, and
// strings.Contains decides the rest.
type gramMask [4]uint64

func gramsOf[T string | []byte](s T) gramMask {
	var m gramMask
	for i := 0; i+1 < len(s); i++ {
		h := (uint32(s[i])*31 + uint32(s[i+1])) * 2654435761 >> 24 // 0..255
		m[h>>6] |= 1 << (h & 63)
	}
	return m
}

func (m *gramMask) holds(t *gramMask) bool {
	return m[0]&t[0] == t[0] && m[1]&t[1] == t[1] && m[2]&t[2] == t[2] && m[3]&t[3] == t[3]
}

// searchSep separates the columns in ixEvent.text: 0xFF never occurs in UTF-8.
const searchSep = "\xff"

// appendSearchText appends an event's search text (ixEvent.text) to dst: a build folds every event
// into one reused buffer and keeps only the result.
func appendSearchText(dst []byte, title, excerpt, content string) []byte {
	dst = collation.LikeFoldAppend(dst, title)
	dst = append(dst, searchSep...)
	dst = collation.LikeFoldAppend(dst, excerpt)
	dst = append(dst, searchSep...)
	return collation.LikeFoldAppend(dst, content)
}

// textPacker stores many short texts as substrings of a few large strings (textBlock bytes each):
// the search text of a whole calendar is then a few dozen objects instead of one per event, so the
// collector has that many fewer to mark and no text pays its size class's rounding. A substring
// shares its block's memory, so a block lives while any of its texts does: a full build replaces
// every event, and a patch's few events get strings of their own.
type textPacker struct {
	buf     []byte
	pending []packedText
	set     func(i int, s string) // gives text i its string once its block is made
}

type packedText struct{ i, from, to int }

const textBlock = 256 << 10

// add appends text i (folded bytes, copied) to the current block.
func (p *textPacker) add(i int, b []byte) {
	if len(p.buf)+len(b) > textBlock && len(p.buf) > 0 {
		p.flush()
	}
	if p.buf == nil {
		p.buf = make([]byte, 0, max(textBlock, len(b)))
	}
	from := len(p.buf)
	p.buf = append(p.buf, b...)
	p.pending = append(p.pending, packedText{i, from, len(p.buf)})
}

// flush makes the current block's string and hands out its texts; call it once after the last add.
func (p *textPacker) flush() {
	if len(p.pending) == 0 {
		return
	}
	block := string(p.buf)
	for _, t := range p.pending {
		p.set(t.i, block[t.from:t.to])
	}
	p.buf, p.pending = p.buf[:0], p.pending[:0]
}

// simple reports whether the event sorts by one regular row wherever a filter leaves it.
func (e *ixEvent) simple() bool { return len(e.rows) == 1 && e.rows[0].regular() }

// ixSnapshot is an immutable compiled index.
type ixSnapshot struct {
	mode   ixMode
	byID   map[int64]*ixEvent
	main   []*ixEvent // listable simple events by (start, post_date, ID)
	starts []int64    // main[i].rows[0].startN
	// ends, statuses and featured repeat main[i]'s keys side by side for the plain scan.
	ends     []int64
	statuses []uint8
	featured []bool
	grams    []gramMask
	blocks   []ixBlock // summaries of main in runs of blockLen positions
	blockLen int
	// postBlocks holds postingBlocks' summaries of the long posting lists and unions asked for.
	postBlocks  sync.Map // postingKey -> []ixBlock
	postBlocksN atomic.Int32
	slow        []*ixEvent // listable events with several or irregular rows
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
}

// postings map an ID to positions in main, ascending: in list order, so that a start-date range
// of main is one range of every list, and a filter reads the side-by-side keys at those positions
// instead of the events themselves.
type postings map[int64][]int32

// NewEventIndex returns an index over db; it answers nothing until Build has run.
func NewEventIndex(db *DB, onError func(error)) *EventIndex {
	return &EventIndex{db: db, log: onError}
}

// Ready reports whether a snapshot exists.
func (x *EventIndex) Ready() bool { return x.snap.Load() != nil }

// TextReady reports whether a snapshot exists that answers searches too.
func (x *EventIndex) TextReady() bool {
	s := x.snap.Load()
	return s != nil && !s.textless
}

// IDsReady reports whether a snapshot exists that answers lists filtered by terms, venues or
// organizers too.
func (x *EventIndex) IDsReady() bool {
	s := x.snap.Load()
	return s != nil && !s.idless
}

// WaitIDsReady waits until a snapshot answers lists filtered by IDs or ctx ends.
func (x *EventIndex) WaitIDsReady(ctx context.Context) bool { return x.wait(ctx, x.IDsReady) }

// WaitReady waits until a snapshot exists or ctx ends.
func (x *EventIndex) WaitReady(ctx context.Context) bool { return x.wait(ctx, x.Ready) }

// WaitTextReady waits until a snapshot answers searches or ctx ends.
func (x *EventIndex) WaitTextReady(ctx context.Context) bool { return x.wait(ctx, x.TextReady) }

func (x *EventIndex) wait(ctx context.Context, ready func() bool) bool {
	for !ready() {
		select {
		case <-ctx.Done():
			return false
		case <-time.After(5 * time.Millisecond):
		}
	}
	return true
}

// Build loads every event's keys and swaps the new snapshot in. Patches that land while it loads
// are applied to the result before the swap, so no write is lost.
//
// The first build, which every list waits for, runs in three passes: the keys a plain list needs
// (dates, status, flags), then the terms, venues and organizers, then the search text (the title,
// excerpt and content, folded), which is the larger part of the work. Lists filtered by IDs and
// searches are answered from SQL, or wait, until their pass is in, so that on a large embedded
// calendar the first list waits for the first pass only.
func (x *EventIndex) Build(ctx context.Context, site *calendard.Site) error {
	x.mu.Lock()
	if x.building {
		x.again = true
		x.mu.Unlock()
		return nil
	}
	x.building, x.patched = true, nil
	x.mu.Unlock()
	for {
		mode := modeOf(site)
		target := x.allSeen.Load() // read before loading: what changes later is not in this build
		var mark watermark
		markp := &mark
		if x.file == nil {
			markp = nil
		}
		first := x.snap.Load() == nil
		events, err := x.db.loadIndexEvents(ctx, mode, nil, markp, !first)
		x.mu.Lock()
		if err != nil {
			x.building, x.again = false, false
			x.mu.Unlock()
			return err
		}
		patches := x.patches
		if len(x.patched) > 0 {
			fresh, err := x.db.loadIndexEvents(ctx, mode, x.patched, nil, true)
			if err != nil {
				x.building, x.again = false, false
				x.mu.Unlock()
				return err
			}
			mergeEvents(events, x.patched, fresh)
			patches = -1
		} else if x.file != nil && !first {
			// The events are exactly the database at mark: worth keeping for the next start.
			x.file.save(&indexImage{prefix: x.db.prefix, mode: mode, mark: mark, events: events})
		}
		x.snap.Store(compileIndex(mode, events))
		if target > x.allBuilt.Load() {
			x.allBuilt.Store(target)
		}
		x.patched = nil
		if first {
			x.mu.Unlock()
			keys, err := x.db.loadIndexIDs(ctx, mode)
			x.mu.Lock()
			if err != nil {
				x.building, x.again = false, false
				x.mu.Unlock()
				return err
			}
			x.addIDs(keys, mode)
			x.mu.Unlock()
			texts, err := x.db.loadIndexTexts(ctx)
			x.mu.Lock()
			if err != nil {
				x.building, x.again = false, false
				x.mu.Unlock()
				return err
			}
			x.addTexts(texts, mode, mark, patches)
		}
		if !x.again {
			x.building = false
			x.mu.Unlock()
			return nil
		}
		x.again = false
		x.mu.Unlock()
	}
}

// addTexts swaps in a snapshot whose events have their search text; x.mu is held. Events patched
// meanwhile have theirs already. The result is kept on disk when no patch changed anything since
// the watermark mark (patches is x.patches when the first pass ended, -1 when it had patches).
//
// The text is written into the events in place rather than into copies, which would double the
// index's memory at the moment it is largest: every snapshot holding these events is textless and
// so answers no search, and no reader looks at text before loading the snapshot published below
// (an atomic store: the writes happen before). Writers all hold x.mu.
func (x *EventIndex) addTexts(texts []ixText, mode ixMode, mark watermark, patches int) {
	cur := x.snap.Load()
	if cur == nil || cur.mode != mode || !cur.textless {
		return
	}
	for i := range texts {
		t := &texts[i]
		if e := cur.byID[t.id]; e != nil && e.noText {
			e.text, e.noText = t.text, false
		}
	}
	textless := false
	for _, e := range cur.byID {
		if e.noText {
			textless = true // new since the texts were read: a patch brings it
			break
		}
	}
	n := cur.clone()
	n.textless = textless
	n.grams = make([]gramMask, len(n.main))
	for i, e := range n.main {
		n.grams[i] = gramsOf(e.text)
	}
	x.snap.Store(n)
	if x.file != nil && !n.textless && patches == x.patches {
		x.file.save(&indexImage{prefix: x.db.prefix, mode: mode, mark: mark, events: n.byID})
	}
}

// addIDs swaps in a snapshot whose events have their terms, venues and organizers (the first
// build's second pass); x.mu is held. As with addTexts the IDs are written into the events in
// place: no reader looks at an event's IDs in a snapshot that is idless (prepare declines the lists
// filtered by them, and matchEvent reads them only for those), and the new snapshot is published
// after the writes. Events patched meanwhile have theirs already.
func (x *EventIndex) addIDs(k *ixKeys, mode ixMode) {
	cur := x.snap.Load()
	if cur == nil || cur.mode != mode || !cur.idless {
		return
	}
	var arena []int64
	for id, e := range cur.byID {
		if e.noIDs {
			cats, tags, venues, orgs := k.idsOf(id)
			e.setIDs(&arena, cats, tags, venues, orgs)
			e.noIDs = false
		}
	}
	n := cur.clone()
	n.idless = false
	n.postAll()
	x.snap.Store(n)
}

// clone is a copy of s's keys and lists, without its caches (posting summaries, unions, listed).
func (s *ixSnapshot) clone() *ixSnapshot {
	return &ixSnapshot{mode: s.mode, byID: s.byID, main: s.main, starts: s.starts, ends: s.ends, statuses: s.statuses,
		featured: s.featured, grams: s.grams, blocks: s.blocks, blockLen: s.blockLen, slow: s.slow, venues: s.venues, orgs: s.orgs,
		cats: s.cats, tags: s.tags, textless: s.textless, idless: s.idless}
}

// mergeEvents replaces the given IDs in events by their fresh keys (absent: deleted or no longer
// an event).
func mergeEvents(events map[int64]*ixEvent, ids []int64, fresh map[int64]*ixEvent) {
	for _, id := range ids {
		if e, ok := fresh[id]; ok {
			events[id] = e
		} else {
			delete(events, id)
		}
	}
}

// Patch reloads the keys of the given posts and swaps in a snapshot that has them. Posts that are
// not events are ignored.
func (x *EventIndex) Patch(ctx context.Context, ids []int64) error {
	x.mu.Lock()
	defer x.mu.Unlock()
	x.patches++
	if x.building {
		x.patched = append(x.patched, ids...)
	}
	cur := x.snap.Load()
	if cur == nil {
		return nil
	}
	fresh, err := x.db.loadIndexEvents(ctx, cur.mode, ids, nil, true)
	if err != nil {
		// The snapshot can no longer be trusted: answer from SQL until a rebuild.
		x.snap.Store(nil)
		return err
	}
	x.snap.Store(cur.patched(ids, fresh))
	return nil
}

// Follow keeps the index in step with the change feed: written posts are patched at once, and
// anything else starts a background rebuild (the current snapshot answers meanwhile). site gives
// the settings a rebuild uses.
func (x *EventIndex) Follow(feed *Feed, site func(context.Context) (*calendard.Site, error)) {
	feed.Subscribe(func(c Change) {
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		if len(c.Posts) > 0 && !c.All {
			if err := x.Patch(ctx, c.Posts); err != nil && x.log != nil {
				x.log(err)
			}
		}
		if c.All {
			x.allSeen.Add(1)
			go func() { _ = x.rebuild(site) }()
		}
	})
}

// buildUntilReady builds the first snapshot, retrying while the database is away.
func (x *EventIndex) buildUntilReady(ctx context.Context, site func(context.Context) (*calendard.Site, error)) {
	wait := 100 * time.Millisecond
	for !x.Ready() && ctx.Err() == nil {
		if x.rebuild(site) == nil {
			return
		}
		select {
		case <-ctx.Done():
		case <-time.After(wait):
		}
		wait = min(2*wait, 10*time.Second)
	}
}

func (x *EventIndex) rebuild(site func(context.Context) (*calendard.Site, error)) error {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	s, err := site(ctx)
	if err == nil {
		err = x.Build(ctx, s)
	}
	if err != nil && x.log != nil {
		x.log(err)
	}
	return err
}

// sortMain sorts events in mainOrder on copies of their keys: comparing the events themselves
// would follow two pointers per comparison (the event, its row), a large part of a compile.
func sortMain(events []*ixEvent) {
	type sortKey struct {
		start, postDate, id int64
		e                   *ixEvent
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
func mainOrder(a, b *ixEvent) int {
	return cmp.Or(cmp.Compare(a.rows[0].startN, b.rows[0].startN), cmp.Compare(a.postDateN, b.postDateN), cmp.Compare(a.id, b.id))
}

// listable sorts an event into main (true), slow (false) or neither (ok false).
func listable(e *ixEvent) (main, ok bool) {
	if e.hidden || len(e.rows) == 0 {
		return false, false
	}
	return e.simple(), true
}

// compileIndex sorts the listable events and builds the postings.
func compileIndex(mode ixMode, events map[int64]*ixEvent) *ixSnapshot {
	s := &ixSnapshot{mode: mode, byID: events}
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
	slices.SortFunc(s.slow, func(a, b *ixEvent) int { return cmp.Compare(a.id, b.id) })
	s.fillKeys(func(_ int, e *ixEvent) gramMask { return gramsOf(e.text) })
	s.postAll()
	return s
}

// postAll fills the posting lists of main in one pass over its events. Each kind's lists are cut
// from one block of exactly the positions they hold: appended one by one they would keep much more
// capacity than positions, in thousands of slices. The pass records (list, position) pairs; the
// lists are then filled from the pairs, in order, without going back to the events.
func (s *ixSnapshot) postAll() {
	type pair struct{ list, pos int32 }
	type kind struct {
		m     *postings
		ids   func(*ixEvent) []int64
		slot  map[int64]int32 // ID -> its list's number
		keys  []int64         // list number -> ID
		count []int32
		last  []int32 // the last position added to each list: an ID an event repeats counts once
		pairs []pair
	}
	kinds := [...]*kind{{m: &s.venues, ids: (*ixEvent).venues}, {m: &s.orgs, ids: (*ixEvent).orgs},
		{m: &s.cats, ids: (*ixEvent).cats}, {m: &s.tags, ids: (*ixEvent).tags}}
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
func (s *ixSnapshot) fillKeys(grams func(i int, e *ixEvent) gramMask) {
	s.starts = make([]int64, len(s.main))
	s.ends = make([]int64, len(s.main))
	s.statuses = make([]uint8, len(s.main))
	s.featured = make([]bool, len(s.main))
	s.grams = make([]gramMask, len(s.main))
	for i, e := range s.main {
		s.grams[i] = grams(i, e)
		s.starts[i], s.ends[i], s.statuses[i], s.featured[i] = e.rows[0].startN, e.rows[0].endN, e.statusID, e.featured
	}
	s.blockLen = ixBlockLen
	s.blocks = s.summarize(len(s.main), func(k int) int { return k })
}

// ixBlockLen consecutive positions of main, or of a posting list, share one ixBlock (a variable so
// that tests can make blocks of a small calendar).
var ixBlockLen = 128

const ixBlockStatuses = 8 // status codes counted per block; a block holding another is scanned

// ixBlock summarises a run of main, or of a posting list, so that a list's total does not cost one
// step per event: a block whose every event passes the query's dates adds the counts of the
// statuses the query accepts, one whose events all fail is skipped, and only the blocks at the
// edges of the date range (or holding the page) are scanned event by event.
type ixBlock struct {
	minStart, maxStart int64 // the first and last event's: main is sorted by start
	minEnd, maxEnd     int64
	mixed              bool // a status code of ixBlockStatuses or more (rare included)
	all, featured      [ixBlockStatuses]uint16
}

// summarize makes the blocks of the n positions at(0) … at(n-1) of main, ascending; a last
// partial block has none (it is scanned event by event).
func (s *ixSnapshot) summarize(n int, at func(int) int) []ixBlock {
	blocks := make([]ixBlock, n/s.blockLen)
	for b := range blocks {
		blk := &blocks[b]
		from, to := b*s.blockLen, (b+1)*s.blockLen
		blk.minStart, blk.maxStart = s.starts[at(from)], s.starts[at(to-1)]
		blk.minEnd, blk.maxEnd = s.ends[at(from)], s.ends[at(from)]
		for k := from; k < to; k++ {
			i := at(k)
			blk.minEnd, blk.maxEnd = min(blk.minEnd, s.ends[i]), max(blk.maxEnd, s.ends[i])
			st := s.statuses[i]
			if st >= ixBlockStatuses {
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
func (s *ixSnapshot) postingBlocks(pos []int32) []ixBlock {
	if len(pos) < 4*s.blockLen {
		return nil
	}
	key := postingKey{&pos[0], len(pos)}
	if b, ok := s.postBlocks.Load(key); ok {
		return b.([]ixBlock)
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

// ixBlockDates says how a whole block fares on the query's regular dates.
type ixBlockDates uint8

const (
	blockSome ixBlockDates = iota // some events may pass: scan them
	blockAll                      // every event passes the dates
	blockNone                     // no event passes the dates
)

func (q *ixQuery) blockDates(blk *ixBlock) ixBlockDates {
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
func (q *ixQuery) blockCount(blk *ixBlock) int {
	c := 0
	for st := range ixBlockStatuses {
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

// patched returns a copy of s with the events of ids replaced by fresh (absent: gone). It costs a
// copy of the lists, not a sort: O(events) with small constants, so a write stays fast on a large
// calendar.
func (s *ixSnapshot) patched(ids []int64, fresh map[int64]*ixEvent) *ixSnapshot {
	ids = slices.Compact(slices.Sorted(slices.Values(ids)))
	n := &ixSnapshot{mode: s.mode, byID: make(map[int64]*ixEvent, len(s.byID)+len(fresh)), textless: s.textless, idless: s.idless}
	for id, e := range s.byID {
		n.byID[id] = e
	}
	gone := map[*ixEvent]bool{}
	var added []*ixEvent
	for _, id := range ids {
		if old := s.byID[id]; old != nil {
			gone[old] = true
		}
		delete(n.byID, id)
	}
	for _, id := range ids {
		if e := fresh[id]; e != nil && n.byID[id] == nil {
			n.byID[id] = e
			if main, ok := listable(e); ok && main {
				added = append(added, e)
			}
		}
	}
	slices.SortFunc(added, mainOrder)
	var remap, addedAt []int32
	n.main, remap, addedAt = mergeOrdered(s.main, gone, added)
	for _, e := range s.slow {
		if !gone[e] {
			n.slow = append(n.slow, e)
		}
	}
	for _, id := range ids {
		if e := n.byID[id]; e != nil && fresh[id] == e {
			if main, ok := listable(e); ok && !main {
				n.slow = append(n.slow, e)
			}
		}
	}
	slices.SortFunc(n.slow, func(a, b *ixEvent) int { return cmp.Compare(a.id, b.id) })
	// Byte pairs: the kept events' are copied from their old positions, only the added hashed.
	from := make([]int32, len(n.main))
	for i := range from {
		from[i] = -1
	}
	for old, i := range remap {
		if i >= 0 {
			from[i] = int32(old)
		}
	}
	n.fillKeys(func(i int, e *ixEvent) gramMask {
		if from[i] >= 0 {
			return s.grams[from[i]]
		}
		return gramsOf(e.text)
	})
	// Posting lists: every position moves by the events removed and added before it (remap), then
	// the added events join the lists of their IDs.
	for _, pl := range []struct {
		old postings
		new *postings
		ids func(*ixEvent) []int64
	}{{s.venues, &n.venues, (*ixEvent).venues}, {s.orgs, &n.orgs, (*ixEvent).orgs},
		{s.cats, &n.cats, (*ixEvent).cats}, {s.tags, &n.tags, (*ixEvent).tags}} {
		m := make(postings, len(pl.old))
		for k, l := range pl.old {
			out := make([]int32, 0, len(l))
			for _, i := range l {
				if j := remap[i]; j >= 0 {
					out = append(out, j)
				}
			}
			if len(out) > 0 {
				m[k] = out
			}
		}
		grown := map[int64]bool{}
		for a, e := range added {
			for _, k := range slices.Compact(slices.Sorted(slices.Values(pl.ids(e)))) {
				m[k] = append(m[k], addedAt[a])
				grown[k] = true
			}
		}
		for k := range grown {
			slices.Sort(m[k])
		}
		*pl.new = m
	}
	return n
}

// mergeOrdered returns list without the gone events, with add (in list order) merged in, and where
// each event went: remap[j] is list[j]'s new position (-1: gone), addedAt[k] add[k]'s.
func mergeOrdered(list []*ixEvent, gone map[*ixEvent]bool, add []*ixEvent) (out []*ixEvent, remap, addedAt []int32) {
	out = make([]*ixEvent, 0, len(list)+len(add))
	remap, addedAt = make([]int32, len(list)), make([]int32, len(add))
	i := 0
	for j, e := range list {
		if gone[e] {
			remap[j] = -1
			continue
		}
		for i < len(add) && mainOrder(add[i], e) < 0 {
			addedAt[i] = int32(len(out))
			out = append(out, add[i])
			i++
		}
		remap[j] = int32(len(out))
		out = append(out, e)
	}
	for ; i < len(add); i++ {
		addedAt[i] = int32(len(out))
		out = append(out, add[i])
	}
	return out, remap, addedAt
}

// ixQuery is an EventFilter prepared for the index: bounds packed, statuses resolved.
type ixQuery struct {
	f *calendard.EventFilter
	// legacy is a postmeta snapshot: every bound is met by any of the event's rows on its own
	// and compares MariaDB's CAST of the meta text (legacyRow), the order is the least CAST start.
	legacy                                         bool
	startGE, endLE, startLT, startGT, endLT, endGT *ixBound
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

type ixBound struct {
	s string
	n int64
}

// filtersByIDs reports whether f filters by terms, venues or organizers.
func filtersByIDs(f *calendard.EventFilter) bool {
	return f.CategoryIDs != nil || f.TagIDs != nil || f.VenueIDs != nil || f.OrganizerIDs != nil
}

// prepare checks the filter is one the index answers and packs it.
func (s *ixSnapshot) prepare(site *calendard.Site, f *calendard.EventFilter) (*ixQuery, bool) {
	// Strict reads (ReadableBy) filter by author as well: those lists are answered by SQL.
	if modeOf(site) != s.mode || f.ReadableBy != nil || (s.textless && len(f.Search) > 0) || (s.idless && filtersByIDs(f)) {
		return nil, false
	}
	q := &ixQuery{f: f, legacy: !s.mode.customTables}
	for _, t := range f.Search {
		folded := collation.LikeFold(t.Text)
		q.search = append(q.search, foldedTerm{text: folded, grams: gramsOf(folded), exclude: t.Exclude})
	}
	ok := true
	bound := func(v *string) *ixBound {
		if v == nil {
			return nil
		}
		n, regular := mysqlcast.Pack(*v)
		if m, inRange, _ := mysqlcast.Datetime(*v); !regular || (q.legacy && (!inRange || m != n)) {
			ok = false
		}
		return &ixBound{s: *v, n: n}
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
func (q *ixQuery) matchRow(r *ixRow) bool {
	return dateOK(r, true, q.startGE, 0) && dateOK(r, true, q.startGT, 1) && dateOK(r, true, q.startLT, -1) &&
		dateOK(r, false, q.endLE, 2) && dateOK(r, false, q.endLT, -1) && dateOK(r, false, q.endGT, 1)
}

// matchLegacy is the postmeta query's date test: each bound met by some row of the event.
func (q *ixQuery) matchLegacy(e *ixEvent) bool {
	for _, c := range [...]struct {
		b     *ixBound
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
func (q *ixQuery) matchRegular(start, end int64) bool {
	return start >= q.sMin && start <= q.sMax && end >= q.eMin && end <= q.eMax
}

// dateOK compares a row's start or end with a bound: want 1 (>), -1 (<), 0 (>=), 2 (<=).
func dateOK(r *ixRow, start bool, b *ixBound, want int) bool {
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
func (q *ixQuery) matchEvent(e *ixEvent, skipPostings bool) bool {
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
	if skipPostings || !filtersByIDs(f) {
		return true // and an event's IDs are not read: addIDs may be writing them (idless)
	}
	return anyIn(e.cats(), f.CategoryIDs) && anyIn(e.tags(), f.TagIDs) && anyIn(e.venues(), f.VenueIDs) && anyIn(e.orgs(), f.OrganizerIDs)
}

// matchText applies the search terms (an event of SearchAlso needs only lack the excluded ones).
func (q *ixQuery) matchText(e *ixEvent) bool {
	also := q.also[e.id]
	for i := range q.search {
		t := &q.search[i]
		if t.exclude {
			if strings.Contains(e.text, t.text) {
				return false
			}
			continue
		}
		// The byte pairs were tested before (main's side by side); the text decides.
		if !also && !strings.Contains(e.text, t.text) {
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

// ixHit is a matching event with its sort key (the earliest matching start).
type ixHit struct {
	e     *ixEvent
	start *ixRow
}

func (q *ixQuery) hitOf(e *ixEvent) (ixHit, bool) {
	if e.simple() {
		r := &e.rows[0]
		return ixHit{e: e, start: r}, q.matchRegular(r.startN, r.endN)
	}
	var best *ixRow
	if q.legacy {
		if !q.matchLegacy(e) {
			return ixHit{}, false
		}
		for i := range e.rows {
			if r := &e.rows[i]; best == nil || compareStart(r, best) < 0 {
				best = r
			}
		}
		return ixHit{e: e, start: best}, true
	}
	for i := range e.rows {
		r := &e.rows[i]
		if q.matchRow(r) && (best == nil || compareStart(r, best) < 0) {
			best = r
		}
	}
	return ixHit{e: e, start: best}, best != nil
}

func compareStart(a, b *ixRow) int {
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

func (q *ixQuery) compareHits(a, b ixHit) int {
	if q.f.OrderByPostDate {
		return cmp.Or(cmp.Compare(a.e.postDateN, b.e.postDateN), cmp.Compare(a.e.id, b.e.id))
	}
	return cmp.Or(compareStart(a.start, b.start), cmp.Compare(a.e.postDateN, b.e.postDateN), cmp.Compare(a.e.id, b.e.id))
}

// find returns the page's IDs and the total.
func (s *ixSnapshot) find(q *ixQuery) ([]int64, int) {
	f := q.f
	want := f.Offset + f.Limit
	if f.Limit <= 0 || want < f.Offset { // no page, or overflow: count only
		want = 0
	}
	var hits []ixHit
	total := 0
	sorted := !f.OrderByPostDate
	// Hits before the page need no keeping when nothing can be merged in among them later.
	skip := 0
	if len(s.slow) == 0 && sorted && q.include == nil {
		skip = f.Offset
	}
	consider := func(e *ixEvent, skipPostings bool) {
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
						hits = append(hits, ixHit{e: s.main[i], start: &s.main[i].rows[0]})
					}
				}
			}
			// The blocks summarise main, or the one posting list the filter names.
			var blocks []ixBlock
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
			for k := 0; k < n; k++ {
				i := at(k)
				if st := s.statuses[i]; st != rareStatus && (!q.statusOKByID[st] || !q.matchRegular(s.starts[i], s.ends[i]) ||
					(!s.grams[i].holds(&must) && (!also || !q.also[s.main[i].id]))) {
					continue
				}
				// The text before the rest when searching: most events whose byte pairs pass
				// lack the term, and the text is what decides.
				if e := s.main[i]; len(q.search) == 0 || q.matchText(e) {
					consider(e, kinds <= 1)
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
func (q *ixQuery) mustGrams() gramMask {
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
func (s *ixSnapshot) startRange(q *ixQuery) (int, int) {
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
func (s *ixSnapshot) postingsFor(f *calendard.EventFilter) (best []int32, kinds int) {
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
func (s *ixSnapshot) cachedUnion(ids []int64, m postings) []int32 {
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
func (x *EventIndex) SearchMatches(site *calendard.Site, terms []calendard.SearchTerm) (matches, listed []int64, ok bool) {
	s := x.snap.Load()
	if s == nil || modeOf(site) != s.mode || x.Stale() || s.textless {
		return nil, nil, false
	}
	q := &ixQuery{}
	for _, t := range terms {
		if !t.Exclude {
			folded := collation.LikeFold(t.Text)
			q.search = append(q.search, foldedTerm{text: folded, grams: gramsOf(folded)})
		}
	}
	must := q.mustGrams()
	for i, e := range s.main {
		if s.grams[i].holds(&must) && q.matchText(e) {
			matches = append(matches, e.id)
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
func (s *ixSnapshot) listedIDs() []int64 {
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
func (x *EventIndex) FindEvents(site *calendard.Site, f *calendard.EventFilter) ([]int64, int, bool) {
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

func newRow(start, end string) ixRow {
	sn, ok1 := mysqlcast.Pack(start)
	en, ok2 := mysqlcast.Pack(end)
	if ok1 && ok2 {
		return ixRow{startN: sn, endN: en}
	}
	return ixRow{startN: sn, endN: en, irr: &ixRowText{start: strings.Clone(start), end: strings.Clone(end)}}
}

// Meta keys the index reads.
const (
	metaHidden    = "_EventHideFromUpcoming"
	metaFeatured  = "_tribe_featured"
	metaVenue     = "_EventVenueID"
	metaOrganizer = "_EventOrganizerID"
)

// indexPostsQuery reads the event posts' own keys (and search texts, withText) of ids (nil: every
// event). A first pass on the embedded store reads them from the listposts index alone rather than
// through the type index and a table row for each, where post_parent lies past the post's content.
func (db *DB) indexPostsQuery(ctx context.Context, q queryer, ids []int64, withText bool) (string, []any, error) {
	cond, args := idCond("ID", ids)
	cols := "ID, post_status, post_date, post_parent, post_password, '', '', ''"
	if withText {
		cols = "ID, post_status, post_date, post_parent, post_password, post_title, post_excerpt, post_content"
	}
	if ids == nil && !withText && db.dialect == SQLite {
		name := db.t("posts_calendard_listposts")
		if ok, err := db.sqliteHasIndex(ctx, q, name); err != nil || ok {
			return "SELECT " + cols + " FROM " + db.t("posts") + " INDEXED BY " + name + " WHERE " + eventPostsCond, nil, err
		}
	}
	return "SELECT " + cols + " FROM " + db.t("posts") + " WHERE post_type = ?" + cond, append([]any{calendard.PostTypeEvent}, args...), nil
}

// eventPostsCond selects the event posts with a literal, as the listposts index does: SQLite uses a
// partial index only for a query whose condition has the index's own terms.
const eventPostsCond = "post_type = '" + calendard.PostTypeEvent + "'"

// sqliteHasIndex reports whether the embedded store has the named index.
func (db *DB) sqliteHasIndex(ctx context.Context, q queryer, name string) (bool, error) {
	var n int
	err := q.QueryRowContext(ctx, "SELECT COUNT(*) FROM sqlite_master WHERE type = 'index' AND name = ?", name).Scan(&n)
	return n > 0, err
}

// allListKeys are the meta keys the index reads in some mode; listKeysCond selects exactly those
// spellings, byte for byte: the condition of the embedded store's listkeys index (calendardIndexes),
// which a query must repeat word for word for SQLite to use it. A binary comparison keeps the
// collation's Go callback out of both the index and the read.
//
// otherSpellingCond holds every other spelling of those keys that the collation may find equal, and
// few rows else: the same letters in another case (lower() folds ASCII only), trailing spaces (PAD
// SPACE), or any byte outside printable ASCII (accents, ignorable characters, other scripts). In
// utf8mb4_unicode_520_ci two printable ASCII strings are equal only so. It is the condition of the
// listkeys_other index, which holds almost nothing, so finding those posts costs nothing.
var (
	allListKeys       = []string{metaHidden, metaFeatured, metaVenue, metaOrganizer, "_EventStartDate", "_EventEndDate", "_EventStartDateUTC", "_EventEndDateUTC"}
	listKeysCond      = "meta_key COLLATE BINARY IN (" + quotedList(allListKeys) + ")"
	otherSpellingCond = "(lower(rtrim(meta_key, ' ')) IN (" + strings.ToLower(quotedList(allListKeys)) + ") OR meta_key GLOB '*[^ -~]*') AND NOT " + listKeysCond
)

// quotedList writes keys as SQL string literals (they are constants without quotes).
func quotedList(keys []string) string {
	return "'" + strings.Join(keys, "', '") + "'"
}

// loadIndexEvents reads the list keys of every event (ids nil) or of the given posts; mark, when
// given, gets the change feed's watermark read first, the database state the events are.
//
// The posts (and their search text, the costliest part to fold) and the keys stored beside them
// (meta, occurrences, terms) are read side by side for a whole build, each in its own read
// transaction on its own connection, so that a first start uses two cores. The
// second transaction starts once the first holds its snapshot (the watermark, or the first post
// read), so it sees that state or a later one; a change that lands in between is after the
// watermark and after the build began, and the build re-reads it as it re-reads any change that
// lands while it runs (Build's patched list, the feed's next poll). A patch (ids given) is small and
// reads everything in one transaction.
//
// Without withText (a first build's first pass, ids nil) the events have neither their search text
// (noText: loadIndexTexts reads it) nor their terms, venues and organizers (noIDs: loadIndexIDs).
func (db *DB) loadIndexEvents(ctx context.Context, mode ixMode, ids []int64, mark *watermark, withText bool) (map[int64]*ixEvent, error) {
	out := map[int64]*ixEvent{}
	if ids != nil && len(ids) == 0 {
		return out, nil
	}
	tx, err := db.beginIndexRead(ctx)
	if err != nil {
		return nil, err
	}
	defer tx.Rollback()
	if mark != nil {
		if *mark, err = db.readWatermark(ctx, tx); err != nil {
			return nil, err
		}
	}

	var keys *ixKeys
	var keysErr error
	keysDone := make(chan struct{})
	started := false
	parallel := ids == nil
	startKeys := func() {
		started = true
		go func() {
			defer close(keysDone)
			keysErr = db.inIndexRead(ctx, func(tx2 *sql.Tx) (err error) {
				if withText {
					keys, err = db.loadIndexKeys(ctx, tx2, mode, nil)
					return err
				}
				// The first pass: what a plain list needs. The terms, venues and organizers come
				// next (loadIndexIDs), the search text last.
				if keys, err = db.loadIndexMetaKeys(ctx, tx2, mode, nil, ixListKeys); keys != nil {
					keys.noIDs = true
				}
				return err
			})
		}()
	}
	if parallel && mark != nil {
		startKeys()
	}

	query, args, err := db.indexPostsQuery(ctx, tx, ids, withText)
	var rows *sql.Rows
	if err == nil {
		rows, err = tx.QueryContext(ctx, query, args...)
	}
	if err != nil {
		if started {
			<-keysDone
		}
		return nil, err
	}
	var scanErr error
	// Events are allocated in slabs and their texts packed into blocks (textPacker): a whole
	// calendar is a few hundred objects for the collector to mark, not several per event.
	var slab []ixEvent
	var texts []*ixEvent
	pack := textPacker{set: func(i int, s string) { texts[i].text = s }}
	var buf []byte
	for rows.Next() {
		if parallel && !started {
			startKeys()
		}
		if len(slab) == cap(slab) {
			slab = make([]ixEvent, 0, min(max(len(out), 16), 4096))
		}
		slab = slab[:len(slab)+1]
		e := &slab[len(slab)-1]
		var status, postDate, title, excerpt, content, password string
		if scanErr = rows.Scan(&e.id, &status, &postDate, &e.parent, &password, &title, &excerpt, &content); scanErr != nil {
			break
		}
		e.setStatus(status)
		if withText {
			buf = appendSearchText(buf[:0], title, excerpt, content)
			pack.add(len(texts), buf)
			texts = append(texts, e)
		} else {
			e.noText = true
		}
		e.password = password != "" && collation.Compare(password, "") != 0
		e.postDateN, _ = mysqlcast.Pack(postDate)
		out[e.id] = e
	}
	pack.flush()
	rows.Close()
	var other []int64
	if started && scanErr == nil && db.dialect == SQLite {
		// While the keys are read beside: the posts whose keys loadIndexKeys' index read misses.
		other, scanErr = db.postsWithOtherKeySpelling(ctx, tx)
	}
	switch {
	case started:
		<-keysDone
	case parallel:
		keys = &ixKeys{} // no event at all: nothing to join
	default:
		if scanErr == nil && rows.Err() == nil {
			keys, keysErr = db.loadIndexKeys(ctx, tx, mode, ids)
		}
	}
	if scanErr != nil {
		return nil, scanErr
	}
	if err := rows.Err(); err != nil {
		return nil, err
	}
	if keysErr != nil {
		return nil, keysErr
	}
	if len(other) > 0 {
		fresh, err := db.loadIndexKeys(ctx, tx, mode, other)
		if err != nil {
			return nil, err
		}
		keys.replace(other, fresh)
	}
	keys.applyTo(out)
	return out, nil
}

// loadIndexIDs reads the categories, tags, venues and organizers of every event: a first build's
// second pass. The venues and organizers are read on one connection and the terms beside them on
// another; on the embedded store the posts whose keys another spelling could equal are read again
// whole, as loadIndexEvents does.
func (db *DB) loadIndexIDs(ctx context.Context, mode ixMode) (*ixKeys, error) {
	var terms *ixKeys
	var termsErr error
	done := make(chan struct{})
	go func() {
		defer close(done)
		terms = &ixKeys{lists: idListsByEvent{}}
		termsErr = db.inIndexRead(ctx, func(tx *sql.Tx) error { return db.loadIndexTerms(ctx, tx, nil, terms) })
	}()
	k, err := db.loadIndexLinkedIDs(ctx, mode)
	<-done
	if err != nil {
		return nil, err
	}
	if termsErr != nil {
		return nil, termsErr
	}
	k.termLists = terms.lists
	return k, nil
}

// loadIndexLinkedIDs reads the venues and organizers of every event (loadIndexIDs).
func (db *DB) loadIndexLinkedIDs(ctx context.Context, mode ixMode) (k *ixKeys, err error) {
	err = db.inIndexRead(ctx, func(tx *sql.Tx) error {
		if k, err = db.loadIndexMetaKeys(ctx, tx, mode, nil, ixIDKeys); err != nil || db.dialect != SQLite {
			return err
		}
		other, err := db.postsWithOtherKeySpelling(ctx, tx)
		if err != nil || len(other) == 0 {
			return err
		}
		fresh, err := db.loadIndexKeys(ctx, tx, mode, other)
		if err != nil {
			return err
		}
		k.replace(other, fresh)
		return nil
	})
	if err != nil {
		return nil, err
	}
	return k, nil
}

// ixText is an event's folded search text.
type ixText struct {
	id   int64
	text string
}

// loadIndexTexts reads and folds the search text of every event, the texts packed into blocks
// (textPacker).
func (db *DB) loadIndexTexts(ctx context.Context) ([]ixText, error) {
	tx, err := db.beginIndexRead(ctx)
	if err != nil {
		return nil, err
	}
	defer tx.Rollback()
	rows, err := tx.QueryContext(ctx, "SELECT ID, post_title, post_excerpt, post_content FROM "+db.t("posts")+" WHERE post_type = ?", calendard.PostTypeEvent)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []ixText
	pack := textPacker{set: func(i int, s string) { out[i].text = s }}
	var buf []byte
	for rows.Next() {
		var id int64
		var title, excerpt, content string
		if err := rows.Scan(&id, &title, &excerpt, &content); err != nil {
			return nil, err
		}
		buf = appendSearchText(buf[:0], title, excerpt, content)
		pack.add(len(out), buf)
		out = append(out, ixText{id: id})
	}
	pack.flush()
	return out, rows.Err()
}

// inIndexRead runs read in a read-only transaction of its own (beginIndexRead), on a connection of
// its own: the builds read several tables side by side.
func (db *DB) inIndexRead(ctx context.Context, read func(tx *sql.Tx) error) error {
	tx, err := db.beginIndexRead(ctx)
	if err != nil {
		return err
	}
	defer tx.Rollback()
	return read(tx)
}

// beginIndexRead starts a read-only transaction for the index. On SQLite that is a deferred BEGIN,
// a WAL snapshot: the store's DSN makes other transactions BEGIN IMMEDIATE, which would hold the
// write lock, and keep every writer waiting, for as long as a build reads.
func (db *DB) beginIndexRead(ctx context.Context) (*sql.Tx, error) {
	return db.sql.BeginTx(ctx, &sql.TxOptions{ReadOnly: true})
}

// idCond narrows a query to ids (nil: no condition).
func idCond(col string, ids []int64) (string, []any) {
	if ids == nil {
		return "", nil
	}
	return " AND " + col + " IN (" + placeholders(len(ids)) + ")", int64Args(ids)
}

// ixKeys are the list keys stored beside the posts, by post ID (posts that turn out not to be
// events are dropped when they are applied).
type ixKeys struct {
	hidden, featured map[int64]bool
	lists            idListsByEvent
	// termLists, when set, holds the categories and tags (read apart from the meta keys, see
	// loadIndexIDs); lists then holds only venues and organizers.
	termLists idListsByEvent
	// last and lastID remember listsOf's last answer: rows come grouped by post (relationships in
	// their primary key's order, meta by key then post), so most rows skip the map.
	last   *idLists
	lastID int64
	rows   map[int64][]ixRow
	// legacy: a postmeta snapshot, where an event without date meta still lists (no bound joins
	// it), as one row with neither date.
	legacy bool
	// noIDs: the terms, venues and organizers were not read (a first pass, ixListKeys).
	noIDs bool
}

// ixKeySet is which keys loadIndexMetaKeys reads.
type ixKeySet uint8

const (
	ixAllKeys  ixKeySet = iota
	ixListKeys          // what a plain list needs: dates, hidden, featured (no terms, venues, organizers)
	ixIDKeys            // venues and organizers alone
)

// loadIndexKeys reads the meta, occurrence and term keys of every post (ids nil) or of ids.
func (db *DB) loadIndexKeys(ctx context.Context, q queryer, mode ixMode, ids []int64) (*ixKeys, error) {
	k, err := db.loadIndexMetaKeys(ctx, q, mode, ids, ixAllKeys)
	if err != nil {
		return nil, err
	}
	if err := db.loadIndexTerms(ctx, q, ids, k); err != nil {
		return nil, err
	}
	return k, nil
}

// loadIndexMetaKeys is loadIndexKeys without the terms (loadIndexTerms), and only the keys of set.
func (db *DB) loadIndexMetaKeys(ctx context.Context, q queryer, mode ixMode, ids []int64, set ixKeySet) (*ixKeys, error) {
	k := &ixKeys{hidden: map[int64]bool{}, featured: map[int64]bool{}, lists: idListsByEvent{}, rows: map[int64][]ixRow{}}
	startKey, endKey := "_EventStartDate", "_EventEndDate"
	if mode.utc {
		startKey, endKey = "_EventStartDateUTC", "_EventEndDateUTC"
	}
	var keys []string
	if set != ixIDKeys {
		keys = append(keys, metaHidden, metaFeatured)
	}
	if set != ixListKeys {
		keys = append(keys, metaVenue, metaOrganizer)
	}
	if !mode.customTables && set != ixIDKeys {
		keys = append(keys, startKey, endKey)
	}
	starts, ends := map[int64][]string{}, map[int64][]string{}
	read := func(query string, args []any) error {
		rows, err := q.QueryContext(ctx, query, args...)
		if err != nil {
			return err
		}
		defer rows.Close()
		for rows.Next() {
			var id int64
			var key, v nullString
			if err := rows.Scan(&id, &key, &v); err != nil {
				return err
			}
			k.addMeta(id, canonicalKey(key.String, keys), v, startKey, endKey, starts, ends)
		}
		return rows.Err()
	}
	// MariaDB's order: meta_id, and keys equal under the collation (another case, accents) count.
	hint := ""
	if ids == nil && db.dialect != SQLite {
		// The whole calendar on MariaDB: left to itself the optimizer scans every postmeta row in
		// meta_id order rather than sort what WordPress' meta_key index finds, the faster way
		// since the list keys are a small part of postmeta. The hint names the index only where
		// it exists.
		var err error
		if hint, err = db.metaKeyIndexHint(ctx, q); err != nil {
			return nil, err
		}
	}
	exact := "SELECT post_id, meta_key, meta_value FROM " + db.t("postmeta") + hint + " WHERE meta_key IN (" + placeholders(len(keys)) + ")"
	if ids != nil || db.dialect != SQLite {
		cond, args := idCond("post_id", ids)
		if err := read(exact+cond+" ORDER BY meta_id", append(stringArgs(keys), args...)); err != nil {
			return nil, err
		}
	} else {
		// The whole calendar on the embedded store: the keys spelled exactly come from the listkeys
		// index alone (an index read instead of a table row for each through the meta_key index);
		// only the order within one key of one post matters (its organizers), and
		// the index keeps it. loadIndexEvents reads the rare posts with another spelling of a key
		// again (postsWithOtherKeySpelling).
		if err := read("SELECT post_id, meta_key, meta_value FROM "+db.t("postmeta")+" WHERE "+listKeysCond+
			" AND meta_key COLLATE BINARY IN ("+quotedList(keys)+") ORDER BY meta_key COLLATE BINARY, post_id, meta_id", nil); err != nil {
			return nil, err
		}
	}
	if set == ixIDKeys {
		return k, nil // no dates
	}
	if mode.customTables {
		cols := "start_date, end_date"
		if mode.utc {
			cols = "start_date_utc, end_date_utc"
		}
		cond, args := idCond("post_id", ids)
		rows, err := q.QueryContext(ctx, "SELECT post_id, "+cols+" FROM "+db.t("tec_occurrences")+" WHERE 1=1"+cond, args...)
		if err != nil {
			return nil, err
		}
		for rows.Next() {
			var id int64
			var s, e nullString
			if err := rows.Scan(&id, &s, &e); err != nil {
				rows.Close()
				return nil, err
			}
			if s.Valid && e.Valid {
				k.rows[id] = append(k.rows[id], newRow(s.String, e.String))
			}
		}
		rows.Close()
		if err := rows.Err(); err != nil {
			return nil, err
		}
	} else {
		k.legacy = true
		for id, ss := range starts {
			es := ends[id]
			for _, s := range ss {
				for _, e := range es {
					k.rows[id] = append(k.rows[id], legacyRow(s, e, true, true))
				}
				if len(es) == 0 {
					k.rows[id] = append(k.rows[id], legacyRow(s, "", true, false))
				}
			}
		}
		for id, es := range ends {
			if len(starts[id]) == 0 {
				for _, e := range es {
					k.rows[id] = append(k.rows[id], legacyRow("", e, false, true))
				}
			}
		}
	}
	return k, nil
}

// metaKeyIndexHint is " FORCE INDEX (meta_key)" when postmeta has WordPress' index of that name
// starting with meta_key, else "" (a site whose schema lacks it would fail on the hint).
func (db *DB) metaKeyIndexHint(ctx context.Context, q queryer) (string, error) {
	var n int
	if err := q.QueryRowContext(ctx, "SELECT COUNT(*) FROM information_schema.STATISTICS WHERE TABLE_SCHEMA = DATABASE() AND TABLE_NAME = ?"+
		" AND INDEX_NAME = 'meta_key' AND SEQ_IN_INDEX = 1 AND COLUMN_NAME = 'meta_key'", db.t("postmeta")).Scan(&n); err != nil {
		return "", err
	}
	if n == 0 {
		return "", nil
	}
	return " FORCE INDEX (meta_key)", nil
}

// loadIndexTerms reads the event categories and tags of every post (ids nil) or of ids.
func (db *DB) loadIndexTerms(ctx context.Context, q queryer, ids []int64, k *ixKeys) error {
	taxonomies := []string{calendard.TaxonomyCategory, calendard.TaxonomyTag}
	add := func(id, term int64, tax string) {
		l := k.listsOf(id)
		if canonicalKey(tax, taxonomies) == calendard.TaxonomyCategory {
			l.cats = append(l.cats, term)
		} else {
			l.tags = append(l.tags, term)
		}
	}
	if ids == nil && db.dialect == SQLite {
		// The whole calendar on the embedded store: the join would look up each relationship's
		// table row through the term_taxonomy_id index; the few terms in a map and one pass over
		// the relationships' primary key index alone cost far less.
		type termOf struct {
			tax  string
			term int64
		}
		terms := map[int64]termOf{}
		rows, err := q.QueryContext(ctx, "SELECT term_taxonomy_id, taxonomy, term_id FROM "+db.t("term_taxonomy")+" WHERE taxonomy IN (?, ?)", stringArgs(taxonomies)...)
		if err != nil {
			return err
		}
		for rows.Next() {
			var ttID int64
			var t termOf
			if err := rows.Scan(&ttID, &t.tax, &t.term); err != nil {
				rows.Close()
				return err
			}
			terms[ttID] = t
		}
		rows.Close()
		if err := rows.Err(); err != nil {
			return err
		}
		rows, err = q.QueryContext(ctx, "SELECT object_id, term_taxonomy_id FROM "+db.t("term_relationships"))
		if err != nil {
			return err
		}
		defer rows.Close()
		for rows.Next() {
			var id, ttID int64
			if err := rows.Scan(&id, &ttID); err != nil {
				return err
			}
			if t, ok := terms[ttID]; ok {
				add(id, t.term, t.tax)
			}
		}
		return rows.Err()
	}
	cond, args := idCond("tr.object_id", ids)
	rows, err := q.QueryContext(ctx, "SELECT tr.object_id, tt.taxonomy, tt.term_id FROM "+db.t("term_relationships")+" tr JOIN "+
		db.t("term_taxonomy")+" tt ON tt.term_taxonomy_id = tr.term_taxonomy_id WHERE tt.taxonomy IN (?, ?)"+cond,
		append(stringArgs(taxonomies), args...)...)
	if err != nil {
		return err
	}
	defer rows.Close()
	for rows.Next() {
		var id, term int64
		var tax string
		if err := rows.Scan(&id, &tax, &term); err != nil {
			return err
		}
		add(id, term, tax)
	}
	return rows.Err()
}

// replace puts fresh's keys of ids in place of k's.
func (k *ixKeys) replace(ids []int64, fresh *ixKeys) {
	k.last = nil
	for _, id := range ids {
		k.hidden[id], k.featured[id] = fresh.hidden[id], fresh.featured[id]
		k.lists[id], k.rows[id] = fresh.lists[id], fresh.rows[id]
		if k.termLists != nil {
			k.termLists[id] = fresh.lists[id]
		}
	}
}

// applyTo sets the keys of the events in out, packing rows and IDs into large blocks: a few
// allocations for the whole calendar instead of several per event, and the collector has that
// many fewer objects to mark.
func (k *ixKeys) applyTo(out map[int64]*ixEvent) {
	var idArena []int64
	var rowArena []ixRow
	for id, e := range out {
		e.hidden, e.featured = k.hidden[id], k.featured[id]
		rows := k.rows[id]
		if len(rows) == 0 && k.legacy {
			rows = []ixRow{legacyRow("", "", false, false)}
		}
		if len(rows) > 0 {
			if cap(rowArena)-len(rowArena) < len(rows) {
				rowArena = make([]ixRow, 0, max(len(rows), 8<<10))
			}
			from := len(rowArena)
			rowArena = append(rowArena, rows...)
			e.rows = rowArena[from:len(rowArena):len(rowArena)]
		}
		if k.noIDs {
			e.noIDs = true
			continue
		}
		cats, tags, venues, orgs := k.idsOf(id)
		e.setIDs(&idArena, cats, tags, venues, orgs)
	}
}

// idsOf is the event's categories, tags, venues and organizers as read.
func (k *ixKeys) idsOf(id int64) (cats, tags, venues, orgs []int64) {
	l, t := k.lists[id], k.lists[id]
	if k.termLists != nil {
		t = k.termLists[id]
	}
	if l != nil {
		venues, orgs = l.venues, l.orgs
	}
	if t != nil {
		cats, tags = t.cats, t.tags
	}
	return cats, tags, venues, orgs
}

// idLists collects an event's IDs while the build reads them.
type idLists struct{ cats, tags, venues, orgs []int64 }

type idListsByEvent map[int64]*idLists

// listsOf is k.lists.of(id), remembering the last one.
func (k *ixKeys) listsOf(id int64) *idLists {
	if k.last == nil || k.lastID != id {
		k.last, k.lastID = k.lists.of(id), id
	}
	return k.last
}

func (m idListsByEvent) of(id int64) *idLists {
	l := m[id]
	if l == nil {
		l = &idLists{}
		m[id] = l
	}
	return l
}

// postsWithOtherKeySpelling returns the posts holding one of the list keys spelled otherwise than
// exactly (equal under the collation: another case, accents, trailing spaces), which the listkeys
// index does not hold. It reads the listkeys_other index (otherSpellingCond).
func (db *DB) postsWithOtherKeySpelling(ctx context.Context, q queryer) ([]int64, error) {
	rows, err := q.QueryContext(ctx, "SELECT DISTINCT post_id FROM "+db.t("postmeta")+" WHERE "+otherSpellingCond+
		" AND +meta_key IN ("+placeholders(len(allListKeys))+")", stringArgs(allListKeys)...) // +: not through the meta_key index
	if err != nil {
		return nil, err
	}
	return scanIDs(rows)
}

// addMeta folds one meta row (its key made canonical) into k.
func (k *ixKeys) addMeta(id int64, key string, v nullString, startKey, endKey string, starts, ends map[int64][]string) {
	switch key {
	case metaHidden:
		k.hidden[id] = true
	case metaFeatured:
		k.featured[id] = true
	case metaVenue:
		if v.Valid { // CAST(NULL) is NULL, never IN (...)
			l := k.listsOf(id)
			l.venues = append(l.venues, mysqlcast.Signed(v.String))
		}
	case metaOrganizer:
		if v.Valid {
			l := k.listsOf(id)
			l.orgs = append(l.orgs, mysqlcast.Signed(v.String))
		}
	case startKey:
		if v.Valid {
			starts[id] = append(starts[id], v.String)
		}
	case endKey:
		if v.Valid {
			ends[id] = append(ends[id], v.String)
		}
	}
}

// canonicalKey maps a key the database matched under its collation to the spelling asked for.
func canonicalKey(k string, keys []string) string {
	for _, want := range keys {
		if k == want {
			return want
		}
	}
	for _, want := range keys {
		if collation.Compare(k, want) == 0 {
			return want
		}
	}
	return k
}
