package wpdb

import (
	"context"
	"errors"
	"sync"
	"sync/atomic"
	"time"

	"github.com/maypok86/otter/v2"

	"github.com/calendard/calendard"
	"github.com/calendard/calendard/eventindex"
)

// Store is the database plus the configuration that overrides its options, and what calendard
// keeps in memory between requests: the site settings, the terms and the event list index. All of
// it is tagged with the change feed's generation, so nothing outlives a change.
type Store struct {
	*DB
	overrides SiteOverrides
	site      atomic.Pointer[cachedSite]
	termsMu   sync.Mutex
	terms     map[string]cachedTerms
	index     *EventIndex
	records   *otter.Cache[int64, cachedEvent]
	memos     *otter.Cache[string, memoEntry]
	// live: Start runs, so the feed hears every change and caches may be kept.
	live atomic.Bool
	// firstSQLList is closed once a list has been answered by SQL while the index was not ready
	// (see firstBuildGrace).
	firstSQLList     chan struct{}
	firstSQLListOnce sync.Once
	// sqlTooSlow: a list sent to SQL while the index lacked its pass passed its deadline (a large
	// calendar on MariaDB, mostly not in its cache). From then on lists wait for the index there as
	// on the embedded store: each such list costs a full scan, which MariaDB goes on running after
	// the request gave up, and a pile of them slows the build the lists wait for.
	sqlTooSlow atomic.Bool
	// sync is the sync journal's state (sync_store.go).
	sync     *journal
	syncOnce sync.Once
}

// firstBuildGrace is how long, at most, a first index build on MariaDB waits for the first list
// answered by SQL before it starts. The two compete for the same cores and the list alone is the
// quicker of the two: started together, the build would delay a start's first answer.
const firstBuildGrace = 500 * time.Millisecond

type cachedSite struct {
	gen  uint64
	site *calendard.Site
}

type cachedEvent struct {
	gen   uint64
	event *calendard.Event
}

type cachedTerms struct {
	gen   uint64
	terms []*calendard.Term
}

// NewStore wraps db; the site settings it serves apply the overrides.
func NewStore(db *DB, ov SiteOverrides) *Store {
	return &Store{DB: db, overrides: ov, terms: map[string]cachedTerms{}, firstSQLList: make(chan struct{})}
}

// Site returns the current site settings, read again after every change.
func (s *Store) Site(ctx context.Context) (*calendard.Site, error) {
	gen := s.feed.Generation()
	if c := s.site.Load(); c != nil && c.gen == gen && s.live.Load() {
		return c.site, nil
	}
	site, err := s.LoadSite(ctx, s.overrides)
	if err != nil {
		return nil, err
	}
	s.site.Store(&cachedSite{gen: gen, site: site})
	return site, nil
}

// TermsOf returns every term of a taxonomy, read again after every change.
func (s *Store) TermsOf(ctx context.Context, taxonomy string) ([]*calendard.Term, error) {
	gen := s.feed.Generation()
	s.termsMu.Lock()
	c, ok := s.terms[taxonomy]
	s.termsMu.Unlock()
	if ok && c.gen == gen && s.live.Load() {
		return c.terms, nil
	}
	terms, err := s.DB.TermsOf(ctx, taxonomy)
	if err != nil {
		return nil, err
	}
	s.termsMu.Lock()
	s.terms[taxonomy] = cachedTerms{gen: gen, terms: terms}
	s.termsMu.Unlock()
	return terms, nil
}

// waitIndex waits up to 10 s for the event index to be ready (wait: one of its Wait methods).
func waitIndex(ctx context.Context, wait func(context.Context) bool) {
	w, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	wait(w)
}

// FindEvents answers from the event index when it is built and can answer the filter, from SQL
// otherwise; both give the same page.
func (s *Store) FindEvents(ctx context.Context, site *calendard.Site, f calendard.EventFilter) ([]*calendard.Event, int, error) {
	if s.index != nil {
		if s.sqlTooSlow.Load() && s.index.IDsReady() && s.index.TextReady() {
			s.sqlTooSlow.Store(false)
		}
		if !s.index.Ready() && s.index.Loading() {
			// A restart is reading the index file: far sooner than a list over a large calendar
			// through SQL, which would compete with it for the cores and the database.
			waitIndex(ctx, s.index.WaitLoaded)
		}
		if s.dialect == SQLite || s.sqlTooSlow.Load() {
			// On SQLite the first build answers sooner than one list over the whole calendar
			// through SQL; on MariaDB the SQL list is the sooner (firstBuildGrace), so it answers
			// meanwhile, until one passes its deadline (sqlTooSlow). The build's later passes, the terms, venues and organizers and then the
			// search text, follow soon after the first: lists filtered by them and searches wait
			// for them too, rather than go through SQL on the embedded store, which takes longer.
			// (The readiness is tested here, so that a list that waits for nothing creates no
			// method values.)
			if !s.index.Ready() {
				waitIndex(ctx, s.index.WaitReady)
			}
			if s.index.Ready() && eventindex.NeedsIDs(&f) && !s.index.IDsReady() {
				waitIndex(ctx, s.index.WaitIDsReady)
			}
			if s.index.Ready() && len(f.Search) > 0 && !s.index.TextReady() {
				waitIndex(ctx, s.index.WaitTextReady)
			}
		}
		if ids, total, ok := s.index.FindEvents(site, &f); ok {
			events, err := s.events(ctx, ids)
			return events, total, err
		}
		if !s.index.Ready() {
			defer s.firstSQLListOnce.Do(func() { close(s.firstSQLList) })
		}
		events, total, err := s.DB.FindEvents(ctx, site, f)
		if errors.Is(err, context.DeadlineExceeded) && !(s.index.IDsReady() && s.index.TextReady()) {
			s.sqlTooSlow.Store(true)
			if events, total, ok, err := s.findAfterFirstBuild(ctx, site, f); ok {
				return events, total, err
			}
		}
		return events, total, err
	}
	return s.DB.FindEvents(ctx, site, f)
}

// firstBuildPatience bounds how long a list asked during the event index's first build may wait
// for it once the request's database deadline has passed: neither SQL nor the index answered in
// time (a calendar too large for SQL, at a million events on MariaDB a first pass of several
// seconds), and the build is the instance's own work: a starting instance answers late rather
// than 503. The list's own statements kept their deadline; the page's records, loaded once the
// index answers, are bounded by this wait.
var firstBuildPatience = 30 * time.Second

// testHookFirstBuildWait, when set, runs as a list starts waiting out firstBuildPatience.
var testHookFirstBuildWait func()

// findAfterFirstBuild answers f from the index once the pass it needs is in, waiting up to
// firstBuildPatience from now, and loads the page's records within that time too; ok is false
// when ctx was canceled by the caller rather than by its deadline, when no first build is under
// way, or when the pass is not in by then.
func (s *Store) findAfterFirstBuild(ctx context.Context, site *calendard.Site, f calendard.EventFilter) ([]*calendard.Event, int, bool, error) {
	if !errors.Is(ctx.Err(), context.DeadlineExceeded) || !s.index.Building() {
		return nil, 0, false, nil
	}
	w, cancel := context.WithTimeout(context.WithoutCancel(ctx), firstBuildPatience)
	defer cancel()
	if testHookFirstBuildWait != nil {
		testHookFirstBuildWait()
	}
	s.index.WaitReady(w)
	if eventindex.NeedsIDs(&f) {
		s.index.WaitIDsReady(w)
	}
	if len(f.Search) > 0 {
		s.index.WaitTextReady(w)
	}
	ids, total, ok := s.index.FindEvents(site, &f)
	if !ok {
		return nil, 0, false, nil
	}
	events, err := s.events(w, ids)
	return events, total, true, err
}

// EventByID loads one event with everything it embeds, from the record cache when it is current.
func (s *Store) EventByID(ctx context.Context, id int64) (*calendard.Event, error) {
	evs, err := s.events(ctx, []int64{id})
	if err != nil || len(evs) == 0 {
		return nil, err
	}
	return evs[0], nil
}

// events is eventsByIDs through the record cache: records loaded at the current generation are
// reused (they are never modified once loaded), the rest are loaded in one batch.
func (s *Store) events(ctx context.Context, ids []int64) ([]*calendard.Event, error) {
	if s.records == nil || !s.live.Load() {
		return s.eventsByIDs(ctx, ids)
	}
	gen := s.feed.Generation() // read before loading: a change meanwhile makes what we store stale
	found := make(map[int64]*calendard.Event, len(ids))
	var missing []int64
	for _, id := range ids {
		if c, ok := s.records.GetIfPresent(id); ok && c.gen == gen {
			found[id] = c.event
		} else {
			missing = append(missing, id)
		}
	}
	if len(missing) > 0 {
		loaded, err := s.eventsByIDs(ctx, missing)
		if err != nil {
			return nil, err
		}
		for _, e := range loaded {
			found[e.ID] = e
			s.records.Set(e.ID, cachedEvent{gen: gen, event: e})
		}
	}
	out := make([]*calendard.Event, 0, len(ids))
	for _, id := range ids {
		if e := found[id]; e != nil {
			out = append(out, e)
		}
	}
	return out, nil
}

// StartOptions tune what Start runs.
type StartOptions struct {
	// WatchInterval is how often the change feed polls the database's watermark (0: never; only
	// calendard's own writes are seen).
	WatchInterval time.Duration
	// Reconcile is how often the changes no watermark sees are looked for (Feed.Reconcile; 0: never).
	Reconcile time.Duration
	// NoIndex keeps event lists on SQL.
	NoIndex bool
	// OnError hears background failures (index builds, polls).
	OnError func(error)
	// Records is how many loaded event records to keep for reuse (0: none).
	Records int
	// IndexFile is where the event index keeps its last full build, to start from at the next
	// start when the database has not changed since ("": nowhere).
	IndexFile string
	// SyncRetention is how long sync journal entries are kept (0: DefaultSyncRetention). The
	// journal runs when WatchInterval > 0.
	SyncRetention time.Duration
}

// Start builds the event index in the background and keeps everything in step with the database
// until ctx ends. Lists answer from SQL until the first build finishes.
func (s *Store) Start(ctx context.Context, o StartOptions) {
	s.live.Store(o.WatchInterval > 0)
	if o.Records > 0 {
		s.records = otter.Must(&otter.Options[int64, cachedEvent]{MaximumSize: o.Records})
		s.memos = otter.Must(&otter.Options[string, memoEntry]{MaximumSize: 4 * o.Records})
		s.feed.Subscribe(func(Change) {
			s.records.InvalidateAll()
			s.memos.InvalidateAll()
		})
	}
	// A restart reads the index file while the change feed takes its first reading (at a million
	// events on MariaDB each takes a second or more); the file is used only if that reading is
	// the file's mark. A build starts after the reading.
	polled := make(chan struct{})
	fileMark := func(ctx context.Context) (eventindex.Mark, error) {
		select {
		case <-polled:
		case <-ctx.Done():
			return "", ctx.Err()
		}
		if w, ok := s.feed.reading(); ok {
			return s.indexMark(w), nil
		}
		return indexSource{s.DB}.Mark(ctx) // no watch, or its first poll failed
	}
	if !o.NoIndex {
		s.index = NewEventIndex(s.DB, eventindex.Options{OnError: o.OnError})
		if o.IndexFile != "" {
			s.index.UseFile(o.IndexFile)
		}
		go func() {
			// Read apart from Site's cache, which must not keep settings read before the first poll.
			site, _ := s.LoadSite(ctx, s.overrides) // nil on an error: LoadFile then ends the wait for the file
			if s.index.LoadFile(ctx, site, fileMark) {
				return
			}
			select {
			case <-polled:
			case <-ctx.Done():
				return
			}
			if s.dialect != SQLite {
				select {
				case <-s.firstSQLList:
				case <-time.After(firstBuildGrace):
				case <-ctx.Done():
				}
			}
			s.index.BuildUntilReady(ctx, s.Site)
		}()
	}
	if s.index != nil {
		// Before the polls: the watch's first poll runs at once, and a change it publishes must
		// reach the index (a patch while the file loads is applied to what it loads).
		followFeed(s.index, s.feed, s.Site)
		if o.IndexFile != "" {
			// A snapshot reflects a poll's reading when every change published by then is applied:
			// no write of calendard's still between its commit and its publishing, none being
			// published, no rebuild pending. Writes committed after the reading are newer than the
			// mark the file gets, so a restart finds the database moved on and builds.
			save := func(w watermark) {
				if s.feed.ownCommits.Load() == 0 && s.feed.Settled() && !s.index.Stale() {
					s.index.SaveCurrent(s.indexMark(w))
				}
			}
			s.feed.afterPoll.Store(&save)
		}
	}
	if o.WatchInterval > 0 {
		s.startSync(ctx, o)
		// The first poll records the watermark the index build starts from; what changes after it
		// shows in the next poll.
		_, _ = s.feed.Poll(ctx)
		go s.feed.Watch(ctx, o.WatchInterval, o.Reconcile, o.OnError)
	}
	close(polled)
}

// Generation is the change feed's generation while the store keeps state (Start ran with a
// watch interval), so caches outside wpdb can tag what they keep with it.
func (s *Store) Generation() uint64 {
	if !s.live.Load() {
		return 0
	}
	return s.feed.Generation()
}

// Quiescent reports whether everything the store keeps reflects every change up to the generation
// read before the call: no change is being published and no index rebuild is pending. A cache
// outside wpdb keeps what it computed under a generation only when the store was quiescent then.
func (s *Store) Quiescent() bool {
	return s.feed.Settled() && (s.index == nil || !s.index.Stale())
}

// Index returns the event index (nil unless Start built one).
func (s *Store) Index() *EventIndex { return s.index }
