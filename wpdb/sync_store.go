package wpdb

import (
	"context"
	"database/sql"
	"fmt"
	"sync/atomic"
	"time"

	"github.com/calendard/calendard"
)

// Bounds of one journaling transaction. A calendard write waits for its own (the posts it names)
// before it answers, so that one is short; a poll's or a reconcile's scans of a large calendar take
// longer. One that fails leaves the fingerprints as they were: the next reconcile journals what
// it missed.
const (
	syncOwnTimeout       = 5 * time.Second
	syncAllTimeout       = time.Minute
	syncReconcileTimeout = 5 * time.Minute
)

// syncPruneEvery is how often the filler prunes entries older than the retention.
const syncPruneEvery = time.Hour

// startSync opens the journal in the background and journals every change the feed publishes
// once it is open. Opening creates the tables when missing, with a baseline of every object's
// fingerprint, which on a large calendar takes a while: the service answers meanwhile, and
// sync_token answers ErrSyncStarting. When the tables cannot be created (a database user without
// CREATE), sync stays off: o.OnError hears why once, and SyncHead answers ErrSyncOff.
func (s *Store) startSync(ctx context.Context, o StartOptions) {
	j := s.syncJournal()
	if o.SyncRetention > 0 {
		j.retention = o.SyncRetention
	}
	starting := fmt.Errorf("%w: the journal is being opened", calendard.ErrSyncStarting)
	j.offReason.Store(&starting)
	j.opened = make(chan struct{})
	s.feed.Subscribe(func(c Change) {
		// Another instance's change was journaled there before it was announced (its own write,
		// or what its poll saw): journaling it here again finds nothing and locks the state row
		// once more per instance, or, for a remote All (an announcement missed), diffs every post.
		if !j.on.Load() || c.Remote {
			return
		}
		if err := s.journalChange(c); err != nil && o.OnError != nil {
			o.OnError(fmt.Errorf("sync journal: %w", err))
		}
	})
	// The head read before a poll's reading is reflected by everything kept once the poll has
	// published and the store is quiescent: every entry at or below it was committed before the
	// watermark was read. Entries there that another instance journaled (a bare meta update its
	// reconcile found) are published here first, so that this instance reloads them too.
	s.feed.beforePoll = func(ctx context.Context) func() {
		if !j.on.Load() {
			return nil
		}
		var epoch string
		var head int64
		if err := s.sql.primary().QueryRowContext(ctx, "SELECT epoch, head FROM "+s.t("calendard_sync_state")+" WHERE id = 1").Scan(&epoch, &head); err != nil {
			return nil
		}
		if e := j.epoch.Load(); e == nil || *e != epoch {
			// A recreated journal: its seqs start again, and so does the safe head.
			j.epoch.Store(&epoch)
			j.safe.Store(0)
			j.published.Store(0)
			j.settled.Store(true)
		}
		return func() { s.advanceSafe(ctx, head) }
	}
	s.feed.reconciler = s.reconcile
	go s.openSync(ctx, o)
}

// openSync is startSync's background part: it ends with the journal on, or off with the reason.
func (s *Store) openSync(ctx context.Context, o StartOptions) {
	j := s.syncJournal()
	defer close(j.opened)
	report := func(err error) {
		if ctx.Err() == nil && o.OnError != nil {
			o.OnError(err)
		}
	}
	created, err := s.ensureSyncJournal(ctx)
	if err != nil {
		err = fmt.Errorf("%w: %w", ErrSyncOff, err)
		j.offReason.Store(&err)
		report(fmt.Errorf("sync journal off (sync_token answers an error): %w", err))
		return
	}
	// The entries journaled before this start are not published again: the store loads its state
	// from the rows, and its polls catch up with what that load missed. The safe head stays unknown
	// (no token in list answers) until a poll finds the store settled past them (advanceSafe),
	// except on an empty journal, where 0 is already true.
	var epoch string
	var head int64
	if err := s.sql.primary().QueryRowContext(ctx, "SELECT epoch, head FROM "+s.t("calendard_sync_state")+" WHERE id = 1").Scan(&epoch, &head); err == nil {
		j.epoch.Store(&epoch)
		j.published.Store(head)
		j.settled.Store(head == 0)
	}
	j.fresh.Store(created)
	j.on.Store(true)
	s.maybePrune(ctx)
}

// SyncOpened is closed once the journal has been opened at start (on, or off with its reason):
// before it, sync answers ErrSyncStarting. Without Start (or without the watch) it is closed.
func (s *Store) SyncOpened() <-chan struct{} { return s.syncJournal().opened }

// SyncStats is the journal's state as the diagnostics show it.
type SyncStats struct {
	// State is "opening" (at start, before the baseline is written), "settling" (open, until a
	// poll finds the store reflecting the entries journaled before the start: list answers carry
	// no token meanwhile), "on", or "off".
	State string `json:"state"`
	// Epoch and SafeHead are what list answers' sync tokens carry now.
	Epoch    string `json:"epoch,omitempty"`
	SafeHead int64  `json:"safe_head"`
}

// SyncStats reports the journal's state (calendard shows it at /debug/vars as sync_journal).
func (s *Store) SyncStats() SyncStats {
	j := s.syncJournal()
	st := SyncStats{State: "off", SafeHead: j.safe.Load()}
	select {
	case <-j.opened:
		switch {
		case j.on.Load() && !j.settled.Load():
			st.State = "settling"
		case j.on.Load():
			st.State = "on"
		}
	default:
		st.State = "opening"
	}
	if e := j.epoch.Load(); e != nil {
		st.Epoch = *e
	}
	return st
}

// journalChange journals what c may have changed: the posts it names (whole fingerprints) and
// the terms; for an All, every post row. A reconcile's change is journaled already (reconcile).
func (s *Store) journalChange(c Change) error {
	if c.Reconcile {
		return nil
	}
	sc := syncScope{ids: c.Posts, full: true, terms: c.Terms}
	if c.All {
		sc = syncScope{all: true, terms: true}
	}
	if sc.empty() {
		return nil
	}
	timeout := syncOwnTimeout
	if c.All {
		timeout = syncAllTimeout
	}
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	_, err := s.journalScope(ctx, sc)
	return err
}

// testHookAfterSyncRead, when set (tests), runs between a two-pass diff's read and its journaling.
var testHookAfterSyncRead atomic.Pointer[func()]

// journalScope journals what changed among sc's objects and returns it. A scope of every post is
// compared in two passes: the candidates are read in a read-only transaction (a snapshot) that
// holds no lock (candidateScope), then only they are compared again, and journaled, under the
// journal's lock (on SQLite, the database's write lock), so that a large calendar's scan keeps no
// writer waiting. A write journaled in between is compared again there: neither lost nor
// journaled twice.
func (s *Store) journalScope(ctx context.Context, sc syncScope) ([]syncChange, error) {
	if sc.all {
		var err error
		if sc, err = s.candidateScope(ctx, sc); err != nil || sc.empty() {
			return nil, err
		}
	}
	return s.journalLocked(ctx, sc)
}

// candidateScope is a two-pass diff's first pass: the scope of sc's objects whose fingerprints
// differ from the stored ones, by ID (terms: all of them, when one differs).
func (s *Store) candidateScope(ctx context.Context, sc syncScope) (syncScope, error) {
	cands, err := s.syncCandidates(ctx, sc)
	if err != nil {
		return syncScope{}, err
	}
	if hook := testHookAfterSyncRead.Load(); hook != nil {
		(*hook)()
	}
	out := syncScope{full: true}
	for _, c := range cands {
		switch c.resource {
		case SyncCategories, SyncTags:
			out.terms = true
		default:
			out.ids = append(out.ids, c.id)
		}
	}
	return out, nil
}

// empty reports whether sc names no object.
func (sc syncScope) empty() bool { return !sc.all && len(sc.ids) == 0 && !sc.terms }

// journalLocked compares sc's objects and journals what changed, in one journaling transaction.
func (s *Store) journalLocked(ctx context.Context, sc syncScope) ([]syncChange, error) {
	j := s.syncJournal()
	var journaled []syncChange
	j.mu.Lock()
	defer j.mu.Unlock()
	err := s.journalTx(ctx, j.clock(), false, func(ctx context.Context, tx *sql.Tx) ([]syncChange, error) {
		changes, err := s.syncDiff(ctx, tx, sc)
		journaled = changes
		return changes, err
	}, func(first, last int64) {
		j.ownMu.Lock()
		j.own = append(j.own, [2]int64{first, last})
		j.ownMu.Unlock()
		select {
		case j.wake <- struct{}{}:
		default:
		}
	})
	if err != nil {
		return nil, err
	}
	return journaled, nil
}

// syncCandidates is a two-pass diff's first pass: the objects of sc whose fingerprints differ
// from the stored ones, read in a read-only transaction (on SQLite a deferred one, a WAL
// snapshot, which takes no write lock), on the primary.
func (s *Store) syncCandidates(ctx context.Context, sc syncScope) ([]syncChange, error) {
	opts := &sql.TxOptions{ReadOnly: true, Isolation: sql.LevelRepeatableRead}
	if s.dialect == SQLite {
		opts = &sql.TxOptions{ReadOnly: true}
	}
	tx, err := s.sql.primary().BeginTx(ctx, opts)
	if err != nil {
		return nil, err
	}
	defer tx.Rollback()
	return s.syncMoved(ctx, tx, sc)
}

// maybePrune prunes the entries past the retention, at most once per syncPruneEvery.
func (s *Store) maybePrune(ctx context.Context) {
	j := s.syncJournal()
	now := j.clock()
	j.mu.Lock()
	due := now.Sub(j.lastPrune) >= syncPruneEvery
	if due {
		j.lastPrune = now
	}
	j.mu.Unlock()
	if due {
		_ = s.pruneSync(ctx, now.Add(-j.retention))
	}
}

// syncForeignMax is the most foreign entries a poll publishes by ID; more are published as All.
const syncForeignMax = 1000

// advanceSafe moves the safe head to head (read before a poll's reading, the poll now done): the
// entries above the safe head that other instances journaled are published first, and the move
// waits for a poll at which the store is quiescent.
func (s *Store) advanceSafe(ctx context.Context, head int64) {
	j := s.syncJournal()
	safe := j.safe.Load()
	if head <= safe {
		return
	}
	// Foreign entries are published once: a store not yet quiescent leaves safe where it is, and
	// the next poll must not publish them again (each publish moves the generation, so a store
	// whose index is still applying one would never settle, and caches would miss at every poll).
	from := max(safe, j.published.Load())
	if from >= head {
		if s.Quiescent() {
			s.moveSafe(head)
		}
		return
	}
	// Under j.mu: a journaling of this instance's that committed entries at or below head has
	// also recorded them as its own (its after callback runs before it lets j.mu go), so they
	// are not taken for another instance's.
	j.mu.Lock()
	entries, err := s.SyncSinceResource(ctx, "", from, head, syncForeignMax+1)
	j.ownMu.Lock()
	own := append([][2]int64(nil), j.own...)
	j.ownMu.Unlock()
	j.mu.Unlock()
	if err != nil {
		return
	}
	var c Change
	foreign := false
	for _, e := range entries {
		mine := false
		for _, r := range own {
			if e.Seq >= r[0] && e.Seq <= r[1] {
				mine = true
				break
			}
		}
		if mine {
			continue
		}
		foreign = true
		if e.Resource == SyncCategories || e.Resource == SyncTags {
			c.Terms = true
		} else {
			c.Posts = append(c.Posts, e.ID)
		}
	}
	if len(entries) > syncForeignMax {
		c = Change{All: true}
	}
	if foreign {
		s.feed.Publish(c)
	}
	j.published.Store(head)
	if s.Quiescent() {
		s.moveSafe(head)
	}
}

// moveSafe sets the safe head and forgets this instance's own ranges at or below it.
func (s *Store) moveSafe(head int64) {
	j := s.syncJournal()
	j.safe.Store(head)
	j.settled.Store(true)
	j.ownMu.Lock()
	kept := j.own[:0]
	for _, r := range j.own {
		if r[1] > head {
			kept = append(kept, r)
		}
	}
	j.own = kept
	j.ownMu.Unlock()
}
