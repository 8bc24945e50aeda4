package wpdb

import (
	"context"
	"crypto/sha256"
	"database/sql"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"sync"
	"sync/atomic"
	"time"
)

// Change says what changed in the calendar. Everything that keeps state derived from the database
// (the event list index, cached site options and terms, the response cache in cache/ and the
// search index in search/) learns about changes from one Feed instead of watching the database
// itself.
type Change struct {
	// Posts are the posts whose rows, meta, terms or occurrences a calendard write changed.
	Posts []int64
	// Terms: term rows or term_taxonomy rows changed (names, parents, counts, deletions).
	Terms bool
	// All: anything may have changed (seen by the watermark poll: WordPress wrote directly).
	All bool
	// Reconcile: the periodic reconcile (Feed.Reconcile) published this: what it found the sync
	// journal's fingerprints to differ from the tables (a bare UPDATE of a meta value, which the
	// watermark cannot see), journaled already; or, without a journal, an All.
	Reconcile bool
	// Remote: another calendard instance made the change and announced it (the shared response
	// cache, cache/); it is applied here and not announced again.
	Remote bool
	// Generation is the feed's generation after this change.
	Generation uint64
	// Position (read replicas only) is the primary's GTID position that holds the change: reads
	// after it wait for a replica to have applied it. The instance that made the change announces
	// it with the change; a change published without one gets the primary's current position.
	Position string
}

// Feed is the calendar's one change feed: calendard's own writes publish what they touched right
// after commit, and a watermark poll catches what WordPress (or anyone else) writes directly. The
// generation number moves with every change, so a cache tagged with it is exact.
type Feed struct {
	db  *DB
	gen atomic.Uint64
	// inflight counts Publish calls whose subscribers are still running: state read while it is 0
	// reflects every generation up to the one read before it (Quiescent).
	inflight atomic.Int64
	mu       sync.Mutex // guards subs and the watermark
	subs     []func(Change)
	last     watermark
	seen     bool
	failed   bool // a poll failed before the first one that read the watermark
	// ownCommits counts calendard's own writes between their commit and their absorb, and ownSeq
	// moves when one ends: a poll whose reading overlapped one reads again (Poll).
	ownCommits atomic.Int64
	ownSeq     atomic.Uint64
	// pollMu makes polls one at a time: each compares its reading with the one before it.
	pollMu sync.Mutex
	// readTook is how long the last poll's reading took (its publishing not counted): pollWait.
	readTook atomic.Int64
	// syncMu guards syncing and nextSync (Sync).
	syncMu   sync.Mutex
	syncing  bool
	nextSync *syncRound
	// beforePoll, when set, runs before each poll's reading; what it returns runs once the poll
	// has read the watermark and published what it found (the sync journal's safe head).
	beforePoll func(context.Context) func()
	// afterPoll, when set, runs after a poll whose reading no write of calendard's was under way
	// around, once it has published what it found, with that reading.
	afterPoll atomic.Pointer[func(watermark)]
	// reconciler, when set, is the reconcile's comparison (the sync journal's): it runs tick once
	// it goes ahead, and publishes what it found itself. An error makes the reconcile publish
	// Change{All} instead (tick run), except errReconcileLater (tick not run), which puts it off
	// to the next poll.
	reconciler func(ctx context.Context, tick func()) error
	// onReconcile run at every reconcile, whatever it finds (OnReconcile).
	onReconcile []func()
}

// errReconcileLater: the reconcile cannot compare yet (the journal is being opened).
var errReconcileLater = errors.New("the reconcile waits for the sync journal to open")

func newFeed(db *DB) *Feed { return &Feed{db: db} }

// Changes returns the database's change feed.
func (db *DB) Changes() *Feed { return db.feed }

// Generation is a number that moves whenever the calendar may have changed.
func (f *Feed) Generation() uint64 { return f.gen.Load() }

// Settled reports whether no change is being published: every subscriber has run for every
// generation up to the one read before the call.
func (f *Feed) Settled() bool { return f.inflight.Load() == 0 }

// Subscribe registers fn to run on every change, synchronously in the publisher's goroutine (a
// calendard write waits for it, so the next request sees the write). fn must be quick or hand the
// work to a goroutine of its own.
func (f *Feed) Subscribe(fn func(Change)) {
	f.mu.Lock()
	f.subs = append(f.subs, fn)
	f.mu.Unlock()
}

// Publish announces a change to every subscriber.
func (f *Feed) Publish(c Change) {
	f.inflight.Add(1)
	defer f.inflight.Add(-1)
	// Before any subscriber reloads what changed: from here on, reads see the change.
	if f.db != nil && f.db.sql.rs != nil && (c.Position == "" || !f.db.notePosition(c.Position)) {
		c.Position = f.db.learnPosition(f.db.sql.primary())
	}
	c.Generation = f.gen.Add(1)
	f.mu.Lock()
	subs := slices.Clone(f.subs)
	f.mu.Unlock()
	for _, fn := range subs {
		fn(c)
	}
}

// watermark is a cheap fingerprint of the tables calendard reads: the counts and highest IDs show
// inserts and deletions, the newest post_modified_gmt shows every save WordPress makes through
// wp_insert_post/wp_update_post, a checksum of term names shows renames, the options digest
// shows settings changes, and the changelog every write of calendard's (changelog.go).
type watermark struct {
	posts, maxPost, maxMeta, rels, terms, occ int64
	modified, termsig                         string
	options                                   [32]byte
	changes                                   string
}

// watermarkSQL reads the fingerprint in one statement; every part reads an index (COUNT(*) the
// smallest one), never a whole row.
func (db *DB) watermarkSQL(occurrences bool) string {
	occ := "0"
	if occurrences {
		occ = "(SELECT COUNT(*) + COALESCE(MAX(occurrence_id), 0) FROM " + db.t("tec_occurrences") + ")"
	}
	return "SELECT (SELECT COUNT(*) FROM " + db.t("posts") + "), (SELECT COALESCE(MAX(ID), 0) FROM " + db.t("posts") +
		"), (SELECT COALESCE(MAX(post_modified_gmt), '') FROM " + db.t("posts") +
		"), (SELECT COALESCE(MAX(meta_id), 0) FROM " + db.t("postmeta") +
		"), (SELECT COUNT(*) FROM " + db.t("term_relationships") +
		"), (SELECT COUNT(*) + COALESCE(MAX(term_id), 0) FROM " + db.t("terms") +
		"), (SELECT " + db.concatSig("COUNT(*)", "COALESCE(SUM(count), 0)", "COALESCE(SUM(parent), 0)", "COALESCE(MAX(term_taxonomy_id), 0)",
		db.termNamesSig()) +
		" FROM " + db.t("term_taxonomy") + "), " + occ +
		// In the same statement as the rest: a reading is one snapshot, which the changelog's
		// fingerprints are compared with.
		", (SELECT option_value FROM " + db.t("options") + " WHERE option_name = '" + changesOption + "')"
}

// termNamesSig is a checksum of every term's name and slug: a term renamed directly in the database
// (no count or ID moves) is seen by the next poll. The terms table is small next to posts and meta.
func (db *DB) termNamesSig() string {
	return "(SELECT COALESCE(SUM(CRC32(CONCAT_WS(CHAR(31), term_id, name, slug))), 0) FROM " + db.t("terms") + ")"
}

// concatSig joins numeric expressions into one text value.
func (db *DB) concatSig(exprs ...string) string {
	if db.dialect == SQLite {
		out := ""
		for i, e := range exprs {
			if i > 0 {
				out += " || '/' || "
			}
			out += "CAST(" + e + " AS TEXT)"
		}
		return out
	}
	out := "CONCAT_WS('/'"
	for _, e := range exprs {
		out += ", " + e
	}
	return out + ")"
}

// readWatermark reads the fingerprint (inside q, a transaction or the pool).
func (db *DB) readWatermark(ctx context.Context, q queryer) (watermark, error) {
	var w watermark
	occ := db.occurrencesExist(ctx, q)
	var termsig, changes sql.NullString
	if err := q.QueryRowContext(ctx, db.watermarkSQL(occ)).Scan(&w.posts, &w.maxPost, &w.modified, &w.maxMeta,
		&w.rels, &w.terms, &termsig, &w.occ, &changes); err != nil {
		return w, err
	}
	w.termsig, w.changes = termsig.String, changes.String
	names := append(append([]string{}, siteOptions...), db.prefix+"user_roles")
	rows, err := q.QueryContext(ctx, "SELECT option_name, option_value FROM "+db.t("options")+
		" WHERE option_name IN ("+placeholders(len(names))+") ORDER BY option_name", stringArgs(names)...)
	if err != nil {
		return w, err
	}
	defer rows.Close()
	h := sha256.New()
	for rows.Next() {
		var k, v string
		if err := rows.Scan(&k, &v); err != nil {
			return w, err
		}
		h.Write([]byte(strconv.Itoa(len(k)) + ":" + k + strconv.Itoa(len(v)) + ":" + v))
	}
	if err := rows.Err(); err != nil {
		return w, err
	}
	copy(w.options[:], h.Sum(nil))
	return w, nil
}

// queryer is what both *sql.DB and *sql.Tx offer for reads.
type queryer interface {
	QueryContext(ctx context.Context, query string, args ...any) (*sql.Rows, error)
	QueryRowContext(ctx context.Context, query string, args ...any) *sql.Row
}

// occurrencesExist reports whether the plugin's occurrence table exists.
func (db *DB) occurrencesExist(ctx context.Context, q queryer) bool {
	ok, err := db.tablesExist(ctx, q, db.t("tec_occurrences"))
	return ok && err == nil
}

// ownCommit marks one of calendard's own writes from just before its commit until the returned
// function runs, after its absorb.
func (f *Feed) ownCommit() func() {
	f.ownCommits.Add(1)
	return func() {
		f.ownSeq.Add(1)
		f.ownCommits.Add(-1)
	}
}

// absorb takes end as the last watermark reading when the poll's last reading is still before: the
// difference is calendard's own write, published already, so the next poll need not announce it
// as a change from outside (which would rebuild everything kept, the event index included). before
// is read at the start of the write's transaction and end just before its commit, inside it, so
// only a change made outside calendard and committed during that transaction could be taken along
// unseen (another instance's write shows in the changelog); the reconcile (Watch) bounds how long
// it stays so, as for a bare meta UPDATE.
func (f *Feed) absorb(before, end watermark) {
	f.mu.Lock()
	defer f.mu.Unlock()
	// The changelog must hold this write's entry alone beyond before: another writer of
	// calendard's that committed meanwhile may be in end, and must reach the next poll.
	if f.seen && f.last == before && lastSeq(end.changes) == lastSeq(before.changes)+1 {
		f.last = end
	}
}

// reading is the watermark of the latest poll, if one has succeeded.
func (f *Feed) reading() (watermark, bool) {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.last, f.seen
}

// PollTook is how long the latest watermark reading took (0 before the first).
func (f *Feed) PollTook() time.Duration { return time.Duration(f.readTook.Load()) }

// PollWait is how long Watch waits between polls at interval after that reading: the interval, or
// longer when readings are slow (pollDuty). With the reading it bounds how late a change made
// directly in the database shows.
func (f *Feed) PollWait(interval time.Duration) time.Duration {
	return pollWait(interval, f.PollTook())
}

// Poll reads the watermark once and publishes what changed since the last poll: the writes the
// changelog names when they account for the whole move, else Change{All}. The first poll only
// records the watermark. It reports whether it published.
func (f *Feed) Poll(ctx context.Context) (bool, error) {
	f.pollMu.Lock()
	defer f.pollMu.Unlock()
	var w watermark
	var err error
	done := func() {}
	if f.beforePoll != nil {
		if d := f.beforePoll(ctx); d != nil {
			done = d
		}
	}
	// A reading taken after one of calendard's own commits but before its absorb would see that
	// write as a change from outside (published twice): such a reading is taken again, a few
	// times at most, so that a stream of writes cannot hold the poll back.
	start := time.Now()
	clean := false // no write of calendard's between its commit and its publishing around the reading
	for try := 0; try < 3; try++ {
		seq := f.ownSeq.Load()
		busy := f.ownCommits.Load() > 0
		// The primary's: the poll's readings must not go back in time, nor miss what a
		// replica has not applied yet (Publish then makes the reloads wait for it).
		w, err = f.db.readWatermark(ctx, f.db.sql.primary())
		clean = !busy && f.ownCommits.Load() == 0 && f.ownSeq.Load() == seq
		if err != nil || clean {
			break
		}
	}
	f.readTook.Store(int64(time.Since(start)))
	if err != nil {
		f.mu.Lock()
		f.failed = f.failed || !f.seen
		f.mu.Unlock()
		return false, err
	}
	f.mu.Lock()
	last, seen := f.last, f.seen
	// Without a first reading, anything may have changed since whatever was loaded meanwhile.
	changed := (seen && w != last) || (!seen && f.failed)
	f.last, f.seen = w, true
	f.mu.Unlock()
	if changed {
		c := Change{All: true}
		if seen {
			c = changeBetween(last, w)
		}
		f.Publish(c)
	}
	done()
	if fn := f.afterPoll.Load(); fn != nil && clean {
		(*fn)(w)
	}
	return changed, nil
}

// syncRound is one poll that the Sync calls arrived before it started share.
type syncRound struct {
	done chan struct{}
	err  error
}

// syncTimeout bounds one poll run for Sync (its callers wait as long as their own context lets them).
const syncTimeout = 10 * time.Second

// Sync returns once a poll that started after the call has read the watermark and published what
// it found, so that whatever the database held when Sync was called is reflected in the state
// kept from the feed (the event index patched, the record cache emptied). It is a read barrier
// for an instance that cannot hear the others' writes otherwise (the shared cache's Redis away).
// Concurrent calls share polls, one at a time: a call waits for the poll under way, if any, and
// then for the next, which every call arrived meanwhile joins.
func (f *Feed) Sync(ctx context.Context) error {
	f.syncMu.Lock()
	r := f.nextSync
	if r == nil {
		r = &syncRound{done: make(chan struct{})}
		f.nextSync = r
	}
	if !f.syncing {
		f.syncing = true
		f.nextSync = nil
		go f.runSyncs(r)
	}
	f.syncMu.Unlock()
	select {
	case <-r.done:
		return r.err
	case <-ctx.Done():
		return ctx.Err()
	}
}

// runSyncs polls for r, then for the round the calls that arrived meanwhile wait for, until none does.
func (f *Feed) runSyncs(r *syncRound) {
	for r != nil {
		ctx, cancel := context.WithTimeout(context.Background(), syncTimeout)
		_, r.err = f.Poll(ctx)
		cancel()
		close(r.done)
		f.syncMu.Lock()
		r, f.nextSync = f.nextSync, nil
		f.syncing = r != nil
		f.syncMu.Unlock()
	}
}

// OnReconcile registers fn to run at every reconcile, before anything it found is published,
// whether or not it finds a change (the search index checks its documents then).
func (f *Feed) OnReconcile(fn func()) {
	f.mu.Lock()
	f.onReconcile = append(f.onReconcile, fn)
	f.mu.Unlock()
}

// Reconcile looks for the changes no watermark sees (a bare UPDATE of a meta value) and publishes
// them. With the sync journal on, that is what its fingerprints differ in, journaled and published
// as the posts and terms they are (nothing at all when nothing changed: caches keep their
// generation); without it, Change{All}: everything kept is reloaded. It reports false when it was
// put off (the journal still opening).
func (f *Feed) Reconcile(ctx context.Context) (bool, error) {
	f.mu.Lock()
	ticks := slices.Clone(f.onReconcile)
	f.mu.Unlock()
	tick := func() {
		for _, fn := range ticks {
			fn()
		}
	}
	var err error
	if f.reconciler != nil {
		if err = f.reconciler(ctx, tick); err == nil {
			return true, nil
		}
		if errors.Is(err, errReconcileLater) {
			return false, nil
		}
	} else {
		tick()
	}
	f.Publish(Change{All: true, Reconcile: true})
	if errors.Is(err, ErrSyncOff) || errors.Is(err, errFreshBaseline) {
		err = nil // reloading everything is the reconcile then
	}
	return true, err
}

// Watch polls every interval until ctx ends. Errors (the database away) are reported through
// onError, once per outage, and polling goes on. Every reconcile interval (0: never) it runs the
// reconcile (Reconcile), which bounds how long a change the watermark cannot see (a bare UPDATE of
// a meta value) can stay unseen.
func (f *Feed) Watch(ctx context.Context, interval, reconcile time.Duration, onError func(error)) {
	failing := false
	last := time.Now()
	for {
		if reconcile > 0 && time.Since(last) >= reconcile {
			done, err := f.Reconcile(ctx)
			if done {
				last = time.Now()
			}
			if err != nil && onError != nil && ctx.Err() == nil {
				onError(fmt.Errorf("reconcile (everything reloaded instead): %w", err))
			}
		}
		if err := f.Sync(ctx); err != nil && !errors.Is(err, context.Canceled) {
			if !failing && onError != nil {
				onError(err)
			}
			failing = true
		} else {
			failing = false
		}
		select {
		case <-ctx.Done():
			return
		case <-time.After(pollWait(interval, time.Duration(f.readTook.Load()))):
		}
	}
}

// pollDuty is the share of one core the watermark poll may take: a poll that took d waits at
// least d/pollDuty before the next, whatever the interval. On a large calendar whose database
// lacks the index `calendard migrate` adds on post_modified_gmt (each poll then reads the whole
// posts table), changes are seen later instead of the poll eating the CPU.
const pollDuty = 0.02

func pollWait(interval, took time.Duration) time.Duration {
	return max(interval, time.Duration(float64(took)/pollDuty)-took)
}
