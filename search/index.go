// Package search keeps a Meilisearch index of events, venues and organizers in step with the
// calendar (through the one change feed, wpdb.Feed) and answers `search=` and the geo filters from
// it. Whenever the index cannot give the exact answer — Meilisearch unreachable, the first sync not
// done, a change not yet applied — the caller's SQL path answers instead (see Events, Linked, Geo).
package search

import (
	"context"
	"fmt"
	"log/slog"
	"maps"
	"slices"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/meilisearch/meilisearch-go"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/sony/gobreaker/v2"

	"github.com/calendard/calendard/wpdb"
)

// Config says where Meilisearch is and how indexes are named.
type Config struct {
	URL, Key string
	// Prefix names the indexes: PREFIX_events, PREFIX_venues, PREFIX_organizers (default
	// "calendard"), so that several calendars can share one Meilisearch.
	Prefix string
	Logger *slog.Logger
	// RetryMax bounds the wait between sync retries while Meilisearch is away (default 5 s; the
	// first retry comes after 100 ms, each next one after twice as long).
	RetryMax time.Duration
	// Timeout bounds a search on the request path (default DefaultTimeout): beyond it the answer
	// comes from SQL and the search counts as failed.
	Timeout time.Duration
	// BackgroundTimeout bounds each HTTP call of the sync worker and of Rebuild (default
	// DefaultBackgroundTimeout).
	BackgroundTimeout time.Duration
	// Registerer receives the breaker's metrics (nil: none).
	Registerer prometheus.Registerer
}

// Kinds of documents, one index each.
const (
	KindEvents     = "events"
	KindVenues     = "venues"
	KindOrganizers = "organizers"
)

var kinds = []string{KindEvents, KindVenues, KindOrganizers}

// Index is the live search index and its sync worker.
type Index struct {
	cfg    Config
	client meilisearch.ServiceManager // the sync worker's and Rebuild's
	// searcher serves the request path, through br: bounded by cfg.Timeout, never retried.
	searcher meilisearch.ServiceManager
	br       breakerState
	db       *wpdb.DB
	log      *slog.Logger

	mu        sync.Mutex
	pending   map[int64]bool // posts to re-read and upsert or delete
	full      bool           // re-sync by watermark plus deletion detection
	terms     bool           // term names may have changed: compare the term prints
	check     bool           // reconcile: compare the post prints
	verify    bool           // the breaker opened: check the indexes and their settings again
	watermark string         // newest post_modified_gmt applied
	wake      chan struct{}
	// prints and termPrints are the fingerprints (wpdb.SearchPrints, TermPrints) read before the
	// documents last synced from them; nil until the first full sync.
	prints, termPrints map[int64]uint64
	// applied holds the prints of the documents written to the live indexes since the last
	// round (merged into prints when it succeeds).
	applied map[int64]uint64

	synced  atomic.Bool  // a full sync succeeded and nothing is pending
	healthy atomic.Bool  // the sync worker's last round succeeded, and the breaker has not opened since
	down    atomic.Bool  // an outage has been logged (logged once)
	calls   atomic.Int64 // searches the request path sent to Meilisearch
	work    atomic.Int64 // changes seen but not yet applied (0: the index is current)
	written atomic.Int64 // documents written (enqueued), for the tests
}

// New connects to Meilisearch (no request is made yet).
func New(cfg Config, db *wpdb.DB) *Index {
	if cfg.Prefix == "" {
		cfg.Prefix = "calendard"
	}
	if cfg.Logger == nil {
		cfg.Logger = slog.Default()
	}
	if cfg.RetryMax <= 0 {
		cfg.RetryMax = 5 * time.Second
	}
	if cfg.Timeout <= 0 {
		cfg.Timeout = DefaultTimeout
	}
	if cfg.BackgroundTimeout <= 0 {
		cfg.BackgroundTimeout = DefaultBackgroundTimeout
	}
	ix := &Index{cfg: cfg, db: db, log: cfg.Logger, pending: map[int64]bool{}, wake: make(chan struct{}, 1)}
	ix.client, ix.searcher = clients(cfg)
	ix.newBreaker()
	return ix
}

// UID is the live index name of a kind.
func (ix *Index) UID(kind string) string { return ix.cfg.Prefix + "_" + kind }

// Usable reports whether searches may be answered from the index now: it is reachable (the
// breaker is not open), fully synced, and every change seen has been applied.
func (ix *Index) Usable() bool {
	return ix.healthy.Load() && ix.synced.Load() && ix.work.Load() == 0 && ix.br.cb.State() != gobreaker.StateOpen
}

// Follow subscribes to the change feed. The callback only records what changed: a calendard write
// never waits for Meilisearch.
func (ix *Index) Follow(feed *wpdb.Feed) {
	feed.Subscribe(func(c wpdb.Change) {
		ix.mu.Lock()
		for _, id := range c.Posts {
			ix.pending[id] = true
		}
		ix.full = ix.full || c.All
		// A moved watermark may be a term renamed directly (its checksum is part of it).
		ix.terms = ix.terms || c.Terms || c.All
		ix.work.Add(1)
		ix.mu.Unlock()
		ix.signal()
	})
	// Every reconcile, whether or not it finds a change in the database: the documents are listed
	// and compared (one Meilisearch lost is written again) and the searchable columns' prints too.
	feed.OnReconcile(func() {
		ix.mu.Lock()
		ix.full, ix.terms, ix.check = true, true, true
		ix.work.Add(1)
		ix.mu.Unlock()
		ix.signal()
	})
}

func (ix *Index) signal() {
	select {
	case ix.wake <- struct{}{}:
	default:
	}
}

// Start applies the settings, brings the index up to date and keeps it so until ctx ends. It
// returns at once; searches fall back to SQL until the first sync is done.
func (ix *Index) Start(ctx context.Context) {
	ix.mu.Lock()
	ix.full = true
	ix.work.Add(1)
	ix.mu.Unlock()
	go ix.run(ctx)
}

// run is the sync worker: it applies what the feed recorded, retrying with a growing pause while
// Meilisearch (or the database) is away. When the breaker opens it is woken to probe Meilisearch
// the same way: a round that succeeds makes the index usable again.
func (ix *Index) run(ctx context.Context) {
	settingsDone := false
	wait := 100 * time.Millisecond
	for {
		err := func() error {
			ix.mu.Lock()
			if ix.verify {
				ix.verify, settingsDone = false, false
			}
			ix.mu.Unlock()
			if !settingsDone {
				for _, k := range kinds {
					created, err := ix.ensureIndex(ctx, ix.UID(k), k)
					if err != nil {
						return err
					}
					if created {
						// Meilisearch came back without the index: the next round lists and
						// refills it.
						ix.synced.Store(false)
					}
				}
				settingsDone = true
			}
			return ix.syncOnce(ctx)
		}()
		if ctx.Err() != nil {
			return
		}
		if err != nil {
			// Meilisearch may come back without its data: the indexes are checked again.
			settingsDone = false
			ix.failed(err)
			select {
			case <-ctx.Done():
				return
			case <-time.After(wait):
			}
			wait = min(2*wait, ix.cfg.RetryMax)
			continue
		}
		wait = 100 * time.Millisecond
		select {
		case <-ctx.Done():
			return
		case <-ix.wake:
		}
	}
}

// failed records an outage (logged once) and makes the next round re-sync everything it may have
// missed.
func (ix *Index) failed(err error) {
	ix.healthy.Store(false)
	ix.synced.Store(false)
	if !ix.down.Swap(true) {
		ix.log.Warn("search index unavailable: searches are answered from SQL until it is back", "err", err)
	}
}

// markHealthy ends an outage.
func (ix *Index) markHealthy() {
	ix.healthy.Store(true)
	if ix.down.Swap(false) {
		ix.log.Info("search index available again")
	}
}

// syncOnce applies everything recorded so far.
func (ix *Index) syncOnce(ctx context.Context) error {
	ix.mu.Lock()
	work := ix.work.Load()
	ids := make([]int64, 0, len(ix.pending))
	for id := range ix.pending {
		ids = append(ids, id)
	}
	recovering := !ix.synced.Load() // after an outage: the index may have lost documents
	full, terms, check := ix.full || recovering, ix.terms, ix.check
	ix.pending = map[int64]bool{}
	ix.full, ix.terms, ix.check = false, false, false
	first := ix.prints == nil
	ix.mu.Unlock()

	requeue := func() {
		ix.mu.Lock()
		for _, id := range ids {
			ix.pending[id] = true
		}
		ix.full = ix.full || full
		ix.terms = ix.terms || terms
		ix.check = ix.check || check
		ix.mu.Unlock()
	}
	var err error
	// The prints are read before the documents: a change made after them shows at the next
	// comparison, never hidden by a print newer than the document.
	var prints, termPrints map[int64]uint64
	if first || check {
		prints, err = ix.db.SearchPrints(ctx, printedMeta)
	}
	if err == nil && (first || check || terms) {
		termPrints, err = ix.db.TermPrints(ctx)
	}
	if err == nil && (full || first) {
		// The first sync seeds the prints from the documents: the comparison below finds what
		// changed while calendard was away (and every document without a print, as an older
		// calendard wrote them).
		err = ix.resync(ctx, ix.cfg.Prefix, ix.watermarkValue(), first, check || recovering)
	}
	if err == nil {
		ids = append(ids, ix.changedPosts(prints)...)
		var evs []int64
		if evs, err = ix.db.EventsWithTermIDs(ctx, ix.changedTerms(termPrints)); err == nil {
			ids = append(ids, evs...)
		}
	}
	if err == nil && len(ids) > 0 {
		slices.Sort(ids)
		ids = slices.Compact(ids)
		err = ix.apply(ctx, ix.cfg.Prefix, ids)
	}
	ix.mu.Lock()
	applied := ix.applied
	ix.applied = map[int64]uint64{}
	if err == nil {
		if prints != nil {
			ix.prints = prints
		}
		// The documents just written carry newer prints than a comparison read before them.
		maps.Copy(ix.prints, applied)
		if termPrints != nil {
			ix.termPrints = termPrints
		}
	} else if first {
		ix.prints = nil // seeded part way: the next round starts over
	}
	ix.mu.Unlock()
	if err != nil {
		requeue()
		return err
	}
	ix.markHealthy()
	ix.synced.Store(true)
	ix.work.Add(-work)
	if first {
		ix.log.Info("search index ready", "posts", len(prints))
	}
	return nil
}

// changedPosts lists the posts whose print differs from the last one (new posts too; deletions are
// the resync's). nil now: nothing compared.
func (ix *Index) changedPosts(now map[int64]uint64) []int64 {
	ix.mu.Lock()
	defer ix.mu.Unlock()
	var out []int64
	for id, p := range now {
		if old, ok := ix.prints[id]; !ok || old != p {
			out = append(out, id)
		}
	}
	return out
}

// changedTerms lists the terms whose name or slug differs from the last print.
func (ix *Index) changedTerms(now map[int64]uint64) []int64 {
	ix.mu.Lock()
	defer ix.mu.Unlock()
	var out []int64
	for id, p := range now {
		if old, ok := ix.termPrints[id]; ok && old != p {
			out = append(out, id)
		}
	}
	return out
}

func (ix *Index) watermarkValue() string {
	ix.mu.Lock()
	defer ix.mu.Unlock()
	return ix.watermark
}

func (ix *Index) noteModified(m string) {
	ix.mu.Lock()
	if m > ix.watermark {
		ix.watermark = m
	}
	ix.mu.Unlock()
}

// resync brings the indexes named by prefix up to date with the database: posts modified at or
// after the watermark are re-read (all of them when there is none), and documents whose post is
// gone are deleted (deletion detection by comparing the ID sets). With seed (the first sync of a
// running calendard), nothing is re-read by its modification time: the prints the documents carry
// become the ones the caller compares the database's with, so a restart re-indexes only what
// changed while calendard was away. Without list, and once prints are known, the deleted posts are
// found in memory (the prints' IDs against the database's) instead of listing every document from
// Meilisearch: a watermark move costs no listing; the reconcile, the first sync and the one after an
// outage list, which also re-reads documents the index lost.
func (ix *Index) resync(ctx context.Context, prefix, since string, seed, list bool) error {
	all, err := ix.db.IndexablePosts(ctx, "")
	if err != nil {
		return err
	}
	inDB := make(map[int64]string, len(all))
	for _, p := range all {
		inDB[p.ID] = p.Type
	}
	var changed []int64
	newest := since
	for _, p := range all {
		if !seed && (since == "" || p.ModifiedGMT >= since) {
			changed = append(changed, p.ID)
		}
		newest = max(newest, p.ModifiedGMT)
	}
	ix.mu.Lock()
	known := ix.prints != nil && prefix == ix.cfg.Prefix
	var gone []string
	for id := range ix.prints {
		if _, ok := inDB[id]; !ok && known && !seed && !list {
			gone = append(gone, strconv.FormatInt(id, 10))
			delete(ix.prints, id)
		}
	}
	ix.mu.Unlock()
	if known && !seed && !list {
		if len(gone) > 0 {
			for _, k := range kinds {
				if err := ix.waitTask(ctx, func() (*meilisearch.TaskInfo, error) {
					return ix.client.Index(prefix+"_"+k).DeleteDocumentsWithContext(ctx, gone, nil)
				}); err != nil {
					return err
				}
			}
		}
		more, err := ix.eventsLinkedToRemoved(ctx, gone)
		if err != nil {
			return err
		}
		if err := ix.apply(ctx, prefix, append(changed, more...)); err != nil {
			return err
		}
		ix.noteModified(newest)
		return nil
	}
	seeded := map[int64]uint64{}
	var removed []string
	for _, k := range kinds {
		docs, err := ix.documentPrints(ctx, prefix+"_"+k)
		if err != nil {
			return err
		}
		have := make([]int64, 0, len(docs))
		for id, p := range docs {
			have = append(have, id)
			if typeKind(inDB[id]) == k && p != "" {
				if n, err := strconv.ParseUint(p, 10, 64); err == nil {
					seeded[id] = n
				}
			}
		}
		var gone []string
		for _, id := range have {
			if typeKind(inDB[id]) != k {
				gone = append(gone, strconv.FormatInt(id, 10))
			}
		}
		// Posts the index lacks (written while it was being rebuilt elsewhere) are re-read too.
		present := make(map[int64]bool, len(have))
		for _, id := range have {
			present[id] = true
		}
		for _, p := range all {
			if typeKind(p.Type) == k && !present[p.ID] && (since != "" && p.ModifiedGMT < since) {
				changed = append(changed, p.ID)
			}
		}
		if len(gone) > 0 {
			if err := ix.waitTask(ctx, func() (*meilisearch.TaskInfo, error) {
				return ix.client.Index(prefix+"_"+k).DeleteDocumentsWithContext(ctx, gone, nil)
			}); err != nil {
				return err
			}
			removed = append(removed, gone...)
		}
	}
	more, err := ix.eventsLinkedToRemoved(ctx, removed)
	if err != nil {
		return err
	}
	changed = append(changed, more...)
	if seed {
		ix.mu.Lock()
		ix.prints = seeded
		ix.mu.Unlock()
	}
	if err := ix.apply(ctx, prefix, changed); err != nil {
		return err
	}
	ix.noteModified(newest)
	return nil
}

// eventsLinkedToRemoved lists the events whose venue or organizer meta names a removed post: their
// documents carry its name and coordinates.
func (ix *Index) eventsLinkedToRemoved(ctx context.Context, removed []string) ([]int64, error) {
	var ids []int64
	for _, s := range removed {
		if id, err := strconv.ParseInt(s, 10, 64); err == nil {
			ids = append(ids, id)
		}
	}
	return ix.db.EventsLinkedTo(ctx, ids)
}

func typeKind(postType string) string {
	switch postType {
	case "tribe_events":
		return KindEvents
	case "tribe_venue":
		return KindVenues
	case "tribe_organizer":
		return KindOrganizers
	}
	return ""
}

// documentIDs lists every document ID in an index.
func (ix *Index) documentIDs(ctx context.Context, uid string) ([]int64, error) {
	docs, err := ix.documentPrints(ctx, uid)
	if err != nil {
		return nil, err
	}
	out := make([]int64, 0, len(docs))
	for id := range docs {
		out = append(out, id)
	}
	slices.Sort(out)
	return out, nil
}

// documentPrints lists every document of an index with the print it was built from ("" for a
// document without one), page by page.
func (ix *Index) documentPrints(ctx context.Context, uid string) (map[int64]string, error) {
	out := map[int64]string{}
	const page = 10000
	for offset := int64(0); ; offset += page {
		var res meilisearch.DocumentsResult
		err := ix.client.Index(uid).GetDocumentsWithContext(ctx, &meilisearch.DocumentsQuery{
			Offset: offset, Limit: page, Fields: []string{"id", "print"}}, &res)
		if err != nil {
			return nil, err
		}
		for _, h := range res.Results {
			var d struct {
				ID    int64  `json:"id"`
				Print string `json:"print"`
			}
			if err := h.DecodeInto(&d); err != nil {
				return nil, err
			}
			out[d.ID] = d.Print
		}
		if int64(len(res.Results)) < page {
			return out, nil
		}
	}
}

// apply re-reads the given posts and upserts their documents, deletes the documents of posts that
// are gone, and re-reads the events that show a changed venue's or organizer's name.
func (ix *Index) apply(ctx context.Context, prefix string, ids []int64) error {
	q := &taskQueue{}
	if err := ix.applyBatches(ctx, prefix, ids, 1000, false, q); err != nil {
		return err
	}
	return q.wait(ctx, ix)
}

// applyBatches is apply in batches of n posts. Document writes are only enqueued into q, so that
// Meilisearch indexes one batch while the next is read; the caller waits for q. fresh says the
// indexes hold none of the posts yet (a rebuild): nothing is deleted from the other kinds.
func (ix *Index) applyBatches(ctx context.Context, prefix string, ids []int64, batch int, fresh bool, q *taskQueue) error {
	// Events re-read for a changed venue or organizer are skipped when they have a batch of their
	// own (a full sync would otherwise read every event twice).
	listed := make(map[int64]bool, len(ids))
	for _, id := range ids {
		listed[id] = true
	}
	live := prefix == ix.cfg.Prefix
	for len(ids) > 0 {
		n := min(batch, len(ids))
		chunk := ids[:n]
		ids = ids[n:]
		// Each document carries the print of what it is built from, read before it: a change
		// made after the print shows as a difference at the next comparison.
		prints, err := ix.db.SearchPrintsOf(ctx, printedMeta, chunk)
		if err != nil {
			return err
		}
		posts, err := ix.db.PostsByIDs(ctx, chunk)
		if err != nil {
			return err
		}
		var events, venues, organizers, linked []int64
		gone := map[string][]string{}
		for _, id := range chunk {
			p := posts[id]
			k := ""
			if p != nil && p.Status != "auto-draft" {
				k = typeKind(p.Type)
			}
			switch k {
			case KindEvents:
				events = append(events, id)
			case KindVenues:
				venues = append(venues, id)
				linked = append(linked, id)
			case KindOrganizers:
				organizers = append(organizers, id)
				linked = append(linked, id)
			}
			for _, other := range kinds {
				if other != k && (!fresh || k == "") {
					gone[other] = append(gone[other], strconv.FormatInt(id, 10))
				}
			}
			if p != nil {
				ix.noteModified(p.ModifiedGMT)
			}
		}
		if len(linked) > 0 {
			more, err := ix.db.EventsLinkedTo(ctx, linked)
			if err != nil {
				return err
			}
			inBatch := make(map[int64]bool, len(events))
			for _, id := range events {
				inBatch[id] = true
			}
			var extra []int64
			for _, id := range more {
				if !listed[id] && !inBatch[id] {
					inBatch[id] = true
					events = append(events, id)
					extra = append(extra, id)
				}
			}
			extraPrints, err := ix.db.SearchPrintsOf(ctx, printedMeta, extra)
			if err != nil {
				return err
			}
			maps.Copy(prints, extraPrints)
		}
		docs, err := ix.eventDocuments(ctx, events)
		if err != nil {
			return err
		}
		printDocs(docs, prints)
		if live {
			ix.mu.Lock()
			if ix.applied == nil {
				ix.applied = map[int64]uint64{}
			}
			maps.Copy(ix.applied, prints)
			ix.mu.Unlock()
		}
		if err := ix.upsert(ctx, prefix+"_"+KindEvents, docs, q); err != nil {
			return err
		}
		for _, lk := range []struct {
			kind string
			ids  []int64
		}{{KindVenues, venues}, {KindOrganizers, organizers}} {
			docs := make([]map[string]any, 0, len(lk.ids))
			for _, id := range lk.ids {
				docs = append(docs, linkedDocument(posts[id]))
			}
			printDocs(docs, prints)
			if err := ix.upsert(ctx, prefix+"_"+lk.kind, docs, q); err != nil {
				return err
			}
		}
		for k, del := range gone {
			if err := q.enqueue(ctx, ix, func() (*meilisearch.TaskInfo, error) {
				return ix.client.Index(prefix+"_"+k).DeleteDocumentsWithContext(ctx, del, nil)
			}); err != nil {
				return err
			}
		}
	}
	return nil
}

// printDocs sets each document's print.
func printDocs(docs []map[string]any, prints map[int64]uint64) {
	for _, d := range docs {
		id, _ := d["id"].(int64)
		d["print"] = strconv.FormatUint(prints[id], 10)
	}
}

// upsert writes documents and waits until they are searchable, or, with q, only enqueues the
// write (q.wait waits).
func (ix *Index) upsert(ctx context.Context, uid string, docs []map[string]any, q *taskQueue) error {
	if len(docs) == 0 {
		return nil
	}
	ix.written.Add(int64(len(docs)))
	pk := "id"
	add := func() (*meilisearch.TaskInfo, error) {
		return ix.client.Index(uid).AddDocumentsWithContext(ctx, docs, &meilisearch.DocumentOptions{PrimaryKey: &pk})
	}
	if q == nil {
		return ix.waitTask(ctx, add)
	}
	return q.enqueue(ctx, ix, add)
}

// taskQueue is the Meilisearch tasks enqueued and not yet seen succeed.
type taskQueue struct{ tasks []int64 }

// maxQueued bounds the enqueued writes: the payloads wait on Meilisearch's disk, and a failed task
// is seen early.
const maxQueued = 8

// enqueue sends a task without waiting for it, unless the backlog is full.
func (q *taskQueue) enqueue(ctx context.Context, ix *Index, send func() (*meilisearch.TaskInfo, error)) error {
	info, err := send()
	if err != nil {
		return err
	}
	q.tasks = append(q.tasks, info.TaskUID)
	for len(q.tasks) > maxQueued {
		if err := ix.awaitTask(ctx, q.tasks[0]); err != nil {
			return err
		}
		q.tasks = q.tasks[1:]
	}
	return nil
}

// wait waits for every enqueued task.
func (q *taskQueue) wait(ctx context.Context, ix *Index) error {
	for _, uid := range q.tasks {
		if err := ix.awaitTask(ctx, uid); err != nil {
			return err
		}
	}
	q.tasks = nil
	return nil
}

// waitTask enqueues a task and waits until Meilisearch has processed it, so that "applied" means
// searchable.
func (ix *Index) waitTask(ctx context.Context, enqueue func() (*meilisearch.TaskInfo, error)) error {
	info, err := enqueue()
	if err != nil {
		return err
	}
	return ix.awaitTask(ctx, info.TaskUID)
}

// awaitTask waits until Meilisearch has processed a task and reports its failure.
func (ix *Index) awaitTask(ctx context.Context, uid int64) error {
	task, err := ix.client.WaitForTaskWithContext(ctx, uid, 20*time.Millisecond)
	if err != nil {
		return err
	}
	if task.Status != meilisearch.TaskStatusSucceeded {
		return fmt.Errorf("meilisearch task %d (%s on %s): %s %s", task.UID, task.Type, task.IndexUID, task.Status, task.Error.Message)
	}
	return nil
}
