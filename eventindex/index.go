// Package eventindex answers The Events Calendar's event lists (filters, order, totals) and list
// searches from memory: the list keys of every event, compiled into sorted, block-summarised
// snapshots with posting lists per venue, organizer and term. It reads the database only through a
// Source (package wpdb's SQL loaders) and compares text and dates as MariaDB does
// (internal/collation, internal/mysqlcast), so its answers are the SQL query's to the row.
//
// The files follow its seams: records.go (an event's keys, its date rows and packed search text),
// keys.go (the keys a Source reads beside the posts), index.go (the life of an index: Build, Patch,
// Changed), compile.go (snapshots, block summaries, posting lists), patch.go (a write applied to a
// snapshot), query.go (a filter prepared and matched), find.go (a page and its total), file.go (the
// last full build kept on disk).
package eventindex

import (
	"context"
	"sync"
	"sync/atomic"
	"time"

	"github.com/calendard/calendard"
)

// Index answers event list filters, order and totals from memory: the list keys of every event
// (status, dates, publication date, parent, flags, terms, venues and organizers) and nothing else.
// Records are still loaded from the database, a page at a time. It stays exact: calendard's writes
// patch it before they answer (through the change feed), and a change the watermark poll sees
// rebuilds it in the background while the previous snapshot keeps answering.
//
// Answers are the SQL query's (FindEvents) to the row: the same comparisons (dates as the columns
// compare them, statuses, meta keys and taxonomies under the table collation, venue and organizer
// IDs through CAST AS SIGNED, search terms as LIKE '%term%' on title, excerpt and content) and the
// same order, MIN(start) of the matching dates, then post_date, then ID.
type Index struct {
	src      Source
	blockLen int
	snap     atomic.Pointer[snapshot]

	mu       sync.Mutex // serialises builds and patches
	building bool
	again    bool    // a rebuild was asked for while one ran
	patched  []int64 // IDs patched while a build ran, re-applied to its result
	log      func(error)
	// allSeen counts the Change{All} heard, allBuilt the count a finished build started after:
	// while they differ the snapshot may be older than the feed's generation (Stale).
	allSeen, allBuilt atomic.Uint64
	file              *file       // nil: builds are not kept on disk (UseFile)
	fromFile          atomic.Bool // the first snapshot came from the file
	loading           atomic.Bool // a file is there and LoadFile has not finished (Loading)
	patches           int         // Patch calls, under mu: a build saves only what no patch changed
	// filePatches is patches when the file was last given a snapshot, fileSaved when (under mu).
	filePatches int
	fileSaved   time.Time
}

// Stale reports whether a rebuild asked for by a change is still to finish: answers from the
// index may then be older than the feed's generation, so nothing derived from them may be kept
// under that generation.
func (x *Index) Stale() bool { return x.allBuilt.Load() < x.allSeen.Load() }

// Building reports whether a build is under way.
func (x *Index) Building() bool {
	x.mu.Lock()
	defer x.mu.Unlock()
	return x.building
}

// Source is where an index reads the events' keys: the database, through three loaders. A build
// reads Events (the posts, their dates and flags, their search text, terms, venues and organizers);
// a first build reads FirstPass instead, then Texts, so that plain lists are answered sooner. The
// events' keys are filled through Posts, Keys and Texts.
type Source interface {
	// Events reads the keys of every event (ids nil) or of those of the given posts that are
	// events. mark, when not nil, gets the state the events were read in (for the index file).
	Events(ctx context.Context, mode Mode, ids []int64, mark *Mark) (map[int64]*Event, error)
	// FirstPass reads what a plain list needs of every event: Events without the search text,
	// the featured flag, terms, venues and organizers (noText, noIDs). ids reads those IDs (the
	// second pass), or waits for their read, which a source may start beside the first pass; its
	// snapshot is the first's or later, so that a change it misses is one the change feed
	// delivers after mark. When err is nil, ids must be called once (cancel ctx first to abandon
	// the read).
	FirstPass(ctx context.Context, mode Mode, mark *Mark) (events map[int64]*Event, ids func() (*Keys, error), err error)
	// Texts reads the search text of every event (a first build's third pass).
	Texts(ctx context.Context) ([]Text, error)
	// Mark is the database's current state (LoadFile compares it with the file's).
	Mark(ctx context.Context) (Mark, error)
}

// Mark names a database state (the change feed's watermark and whatever else tells one database
// from another), opaque to the index: equal marks, equal data.
type Mark string

// Options tune an index.
type Options struct {
	// OnError hears background failures (builds, patches, index file writes).
	OnError func(error)
	// BlockLen is how many consecutive events share a block summary (0: 128). Tests of small
	// calendars make it small so that their lists count whole blocks as a large calendar's do.
	BlockLen int
}

// New returns an index over src; it answers nothing until Build has run.
func New(src Source, o Options) *Index {
	if o.BlockLen <= 0 {
		o.BlockLen = defaultBlockLen
	}
	return &Index{src: src, log: o.OnError, blockLen: o.BlockLen}
}

// Stats describes the current snapshot, for tests and diagnostics.
type Stats struct {
	Events    int  // event posts in the index
	Irregular int  // listed events with several or irregular dates (searched apart, one by one)
	FromFile  bool // the first snapshot came from the index file
	// Rebuilds counts the changes heard that asked for a rebuild (Changed with all).
	Rebuilds uint64
	// IDsReady and TextReady: the snapshot answers lists filtered by terms, venues and organizers,
	// and searches (a first build's later passes are in).
	IDsReady, TextReady bool
	// FileWrites counts the builds written to the index file.
	FileWrites uint64
	// TextIndexBytes is the size of the search's trigram index (0 while it is being built).
	TextIndexBytes int
}

// Stats describes the current snapshot (zero before the first).
func (x *Index) Stats() Stats {
	st := Stats{FromFile: x.fromFile.Load(), Rebuilds: x.allSeen.Load()}
	if s := x.snap.Load(); s != nil {
		st.Events, st.Irregular = len(s.byID), len(s.slow)
		st.IDsReady, st.TextReady = !s.idless, !s.textless
		if t := s.tix.ready(); t != nil {
			st.TextIndexBytes = t.size()
		}
	}
	if x.file != nil {
		st.FileWrites = x.file.writes.Load()
	}
	return st
}

// Ready reports whether a snapshot exists.
func (x *Index) Ready() bool { return x.snap.Load() != nil }

// TextReady reports whether a snapshot exists that answers searches too.
func (x *Index) TextReady() bool {
	s := x.snap.Load()
	return s != nil && !s.textless
}

// IDsReady reports whether a snapshot exists that answers lists filtered by terms, venues or
// organizers too.
func (x *Index) IDsReady() bool {
	s := x.snap.Load()
	return s != nil && !s.idless
}

// WaitIDsReady waits until a snapshot answers lists filtered by IDs or ctx ends.
func (x *Index) WaitIDsReady(ctx context.Context) bool { return x.wait(ctx, x.IDsReady) }

// WaitReady waits until a snapshot exists or ctx ends.
func (x *Index) WaitReady(ctx context.Context) bool { return x.wait(ctx, x.Ready) }

// WaitTextReady waits until a snapshot answers searches or ctx ends.
func (x *Index) WaitTextReady(ctx context.Context) bool { return x.wait(ctx, x.TextReady) }

// WaitTextIndex waits until the snapshot's search text and its trigram index (built in the
// background after each full build; searches test every event until then) are in, or ctx ends.
func (x *Index) WaitTextIndex(ctx context.Context) bool {
	return x.wait(ctx, func() bool {
		s := x.snap.Load()
		return s != nil && !s.textless && s.tix.ready() != nil
	})
}

func (x *Index) wait(ctx context.Context, ready func() bool) bool {
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
// (dates, status, the hidden flag), then (beside it, on MariaDB) the featured flag, terms, venues
// and organizers, then the search text (the title, excerpt and content, folded), the larger part
// of the work. Lists filtered by IDs and searches are answered from SQL, or wait, until their pass
// is in, so that on a large calendar the first list waits for the first pass only. (The search text read beside the
// second pass saved a few seconds at a million events and raised the peak RSS by 200 MB.)
func (x *Index) Build(ctx context.Context, site *calendard.Site) error {
	x.mu.Lock()
	if x.building {
		x.again = true
		x.mu.Unlock()
		return nil
	}
	x.building, x.patched = true, nil
	x.mu.Unlock()
	for {
		err := x.buildOnce(ctx, site)
		x.mu.Lock()
		if err != nil || !x.again {
			x.building, x.again = false, false
			x.mu.Unlock()
			return err
		}
		x.again = false
		x.mu.Unlock()
	}
}

// buildOnce is one full build (Build); x.mu is not held.
func (x *Index) buildOnce(ctx context.Context, site *calendard.Site) error {
	mode := ModeOf(site)
	target := x.allSeen.Load() // read before loading: what changes later is not in this build
	var mark Mark
	markp := &mark
	if x.file == nil {
		markp = nil
	}
	first := x.snap.Load() == nil
	var events map[int64]*Event
	var ids func() (*Keys, error)
	var err error
	if first {
		// The source may read the second pass beside the first (FirstPass).
		passCtx, stop := context.WithCancel(ctx)
		defer stop()
		if events, ids, err = x.src.FirstPass(passCtx, mode, markp); err == nil {
			defer func() {
				if ids != nil { // abandoned by an error before it was applied
					stop()
					_, _ = ids()
				}
			}()
		}
	} else {
		events, err = x.src.Events(ctx, mode, nil, markp)
	}
	if err != nil {
		return err
	}
	x.mu.Lock()
	patches := x.patches
	if len(x.patched) > 0 {
		fresh, err := x.src.Events(ctx, mode, x.patched, nil)
		if err != nil {
			x.mu.Unlock()
			return err
		}
		mergeEvents(events, x.patched, fresh)
		patches = -1
	} else if x.file != nil && !first {
		// The events are exactly the database at mark: worth keeping for the next start.
		x.file.save(&image{mode: mode, mark: mark, events: events})
		x.filePatches, x.fileSaved = x.patches, time.Now()
	}
	x.snap.Store(compile(mode, events, x.blockLen))
	if target > x.allBuilt.Load() {
		x.allBuilt.Store(target)
	}
	x.patched = nil
	x.mu.Unlock()
	if !first {
		return nil
	}
	keys, err := ids()
	ids = nil
	if err != nil {
		return err
	}
	x.mu.Lock()
	x.addIDs(keys, mode)
	x.mu.Unlock()
	texts, err := x.src.Texts(ctx)
	if err != nil {
		return err
	}
	x.mu.Lock()
	x.addTexts(texts, mode, mark, patches)
	x.mu.Unlock()
	return nil
}

// addTexts swaps in a snapshot whose events have their search text; x.mu is held. Events patched
// meanwhile have theirs already. The result is kept on disk when no patch changed anything since
// the state mark (patches is x.patches when the first pass ended, -1 when it had patches).
//
// The text is written into the events in place rather than into copies, which would double the
// index's memory at the moment it is largest: every snapshot holding these events is textless and
// so answers no search, and no reader looks at text before loading the snapshot published below
// (an atomic store: the writes happen before). Writers all hold x.mu.
func (x *Index) addTexts(texts []Text, mode Mode, mark Mark, patches int) {
	cur := x.snap.Load()
	if cur == nil || cur.mode != mode || !cur.textless {
		return
	}
	for i := range texts {
		t := &texts[i]
		if e := cur.byID[t.id]; e != nil && e.noText {
			e.text, e.body, e.noText = t.text, t.body, false
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
		n.grams[i] = e.gramMask()
	}
	n.tix, n.slotPos, n.unindexed = nil, nil, nil
	if !textless {
		n.tix = startTextIndex(n.main)
	}
	x.snap.Store(n)
	if x.file != nil && !n.textless && patches == x.patches {
		x.file.save(&image{mode: mode, mark: mark, events: n.byID})
		x.filePatches, x.fileSaved = x.patches, time.Now()
	}
}

// PatchSaveEvery is how often, at most, SaveCurrent writes a snapshot that patches changed (a
// full build is written at once): at a million events a write is a 180 MB file.
var PatchSaveEvery = 5 * time.Minute

// SaveCurrent gives the index file the current snapshot under mark when patches changed it since
// the file was last written, at most every PatchSaveEvery: without it, a calendar that is only
// ever patched would leave the file at its last full build, and every restart would build again.
// The caller vouches that the snapshot reflects every change the database held at mark (the change
// feed's reading, every change it and calendard's writes published applied, no rebuild pending).
func (x *Index) SaveCurrent(mark Mark) {
	if x.file == nil {
		return
	}
	x.mu.Lock()
	defer x.mu.Unlock()
	s := x.snap.Load()
	if x.building || s == nil || s.textless || x.Stale() || x.patches == x.filePatches || time.Since(x.fileSaved) < PatchSaveEvery {
		return
	}
	x.filePatches, x.fileSaved = x.patches, time.Now()
	x.file.save(&image{mode: s.mode, mark: mark, events: s.byID})
}

// addIDs swaps in a snapshot whose events have their featured flag, terms, venues and organizers
// (the first build's second pass); x.mu is held. As with addTexts these are written into the
// events in place: no reader looks at them in a snapshot that is idless (prepare declines the
// lists filtered by them, and matchEvent reads them only for those), and the new snapshot, with
// its own columns, is published after the writes. Events patched meanwhile have theirs already.
func (x *Index) addIDs(k *Keys, mode Mode) {
	cur := x.snap.Load()
	if cur == nil || cur.mode != mode || !cur.idless {
		return
	}
	for id, e := range cur.byID {
		if e.noIDs {
			e.featured = k.featured[id]
		}
	}
	var arena []int64
	k.eachIDs(func(id int64, l *[idKinds][]int64) {
		if e := cur.byID[id]; e != nil && e.noIDs {
			e.setIDs(&arena, l[idCats], l[idTags], l[idVenues], l[idOrgs])
			e.noIDs = false
		}
	})
	for _, e := range cur.byID {
		if e.noIDs {
			e.noIDs = false // none read: it has none
		}
	}
	n := cur.clone()
	n.idless = false
	n.fillColumns() // the featured column and its block counts
	n.postAll()
	x.snap.Store(n)
}

// mergeEvents replaces the given IDs in events by their fresh keys (absent: deleted or no longer
// an event).
func mergeEvents(events map[int64]*Event, ids []int64, fresh map[int64]*Event) {
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
func (x *Index) Patch(ctx context.Context, ids []int64) error {
	x.mu.Lock()
	defer x.mu.Unlock()
	x.patches++
	if x.building {
		x.patched = append(x.patched, ids...)
	}
	cur := x.snap.Load()
	if cur == nil {
		if x.loading.Load() && !x.building {
			// The file being loaded holds the state before this change: LoadFile applies it.
			x.patched = append(x.patched, ids...)
		}
		return nil
	}
	fresh, err := x.src.Events(ctx, cur.mode, ids, nil)
	if err != nil {
		// The snapshot can no longer be trusted: answer from SQL until a rebuild.
		x.snap.Store(nil)
		return err
	}
	x.snap.Store(cur.patched(ids, fresh))
	return nil
}

// Changed keeps the index in step with a change the change feed publishes: written posts are
// patched at once, and anything else (all) starts a background rebuild (the current snapshot
// answers meanwhile). site gives the settings a rebuild uses.
func (x *Index) Changed(posts []int64, all bool, site func(context.Context) (*calendard.Site, error)) {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if len(posts) > 0 && !all {
		if err := x.Patch(ctx, posts); err != nil && x.log != nil {
			x.log(err)
		}
	}
	if all {
		x.allSeen.Add(1)
		go func() { _ = x.rebuild(site) }()
	}
}

// BuildUntilReady builds the first snapshot, retrying while the database is away or a pass fails:
// a first build whose later pass (terms, venues and organizers; search text) fails has answered
// plain lists already, and without a retry its lists filtered by IDs and its searches would go to
// SQL until the next change (at a million events each a full scan).
func (x *Index) BuildUntilReady(ctx context.Context, site func(context.Context) (*calendard.Site, error)) {
	wait := 100 * time.Millisecond
	for ctx.Err() == nil {
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

// buildTimeout bounds one build (every pass). A first build of a million events reads a few GB
// that are mostly not in the database's cache: on a busy 2-core machine that took over 5 minutes.
const buildTimeout = 15 * time.Minute

func (x *Index) rebuild(site func(context.Context) (*calendard.Site, error)) error {
	ctx, cancel := context.WithTimeout(context.Background(), buildTimeout)
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
