package wpdb

import (
	"context"
	"strconv"
	"sync/atomic"
	"testing"
	"time"

	"github.com/calendard/calendard"
)

// reconcileFixture starts s with an event index, a record cache and the journal (no timed
// reconcile: the test runs each), and runs the first reconcile, which reloads everything once
// (the journal's baseline was recorded at this start), until the index has settled.
func reconcileFixture(t *testing.T, s *Store) (context.Context, *calendard.Site) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	s.Start(ctx, StartOptions{WatchInterval: 50 * time.Millisecond, Records: 1000})
	if !s.Index().WaitReady(ctxTimeout(t, 30*time.Second)) {
		t.Fatal("index never built")
	}
	<-s.SyncOpened()
	reconcileNow(t, s.feed)
	waitFor(t, "the store to settle after the first reconcile", s.Quiescent)
	site, err := s.Site(ctx)
	if err != nil {
		t.Fatal(err)
	}
	return ctx, site
}

func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// countPublished counts what the feed publishes from now on.
func countPublished(s *Store) *atomic.Int64 {
	var n atomic.Int64
	s.feed.Subscribe(func(Change) { n.Add(1) })
	return &n
}

// A reconcile that finds nothing changed publishes nothing: the response cache's generation, the
// event index's snapshot (which only a publication patches or rebuilds) and the record cache stay.
// On a reconcile that published Change{All} every time, the generation moved and the index rebuilt.
func TestReconcileWithNothingChangedLeavesEverythingKept(t *testing.T) {
	eachStore(t, func(t *testing.T, s *Store) {
		ctx, _ := reconcileFixture(t, s)
		published := countPublished(s)
		gen, rebuilds := s.Generation(), s.Index().Stats().Rebuilds
		_, head, _, err := s.SyncHead(ctx)
		if err != nil {
			t.Fatal(err)
		}
		for range 2 {
			reconcileNow(t, s.feed)
		}
		_, head2, _, _ := s.SyncHead(ctx)
		if g := s.Generation(); g != gen || published.Load() != 0 {
			t.Errorf("idle reconciles: generation %d → %d, %d changes published", gen, g, published.Load())
		}
		if r := s.Index().Stats().Rebuilds; r != rebuilds {
			t.Errorf("idle reconciles asked the index for %d rebuilds", r-rebuilds)
		}
		if head2 != head {
			t.Errorf("idle reconciles journaled entries %d..%d", head+1, head2)
		}
	})
}

// A bare meta UPDATE and a bare term_relationships change (neither moves the watermark) are found
// by the reconcile, journaled, and published as the posts they are: the index is patched (no
// rebuild), the record cache reloads them, and the generation moves once.
func TestReconcilePublishesWhatTheJournalFound(t *testing.T) {
	eachStore(t, func(t *testing.T, s *Store) {
		ctx, site := reconcileFixture(t, s)
		// An event with a category, and a category it is not in.
		var event, fromTT, toTT, toTerm int64
		if err := s.sql.QueryRowContext(ctx, "SELECT tr.object_id, tr.term_taxonomy_id FROM wp_term_relationships tr "+
			"JOIN wp_term_taxonomy tt ON tt.term_taxonomy_id = tr.term_taxonomy_id JOIN wp_posts p ON p.ID = tr.object_id "+
			"JOIN wp_postmeta m ON m.post_id = p.ID AND m.meta_key = '_EventCost' "+
			"WHERE tt.taxonomy = 'tribe_events_cat' AND p.post_type = 'tribe_events' AND p.post_status = 'publish' ORDER BY tr.object_id LIMIT 1").
			Scan(&event, &fromTT); err != nil {
			t.Fatal(err)
		}
		if err := s.sql.QueryRowContext(ctx, "SELECT term_taxonomy_id, term_id FROM wp_term_taxonomy WHERE taxonomy = 'tribe_events_cat' "+
			"AND term_taxonomy_id NOT IN (SELECT term_taxonomy_id FROM wp_term_relationships WHERE object_id = ?) ORDER BY term_taxonomy_id LIMIT 1", event).
			Scan(&toTT, &toTerm); err != nil {
			t.Fatal(err)
		}
		inCategory := func() bool {
			f := calendard.EventFilter{Statuses: []string{"publish"}, CategoryIDs: []int64{toTerm}, Limit: 1000}
			ids, _, ok := s.Index().FindEvents(site, &f)
			return ok && contains64(ids, event)
		}
		before, err := s.EventByID(ctx, event) // kept in the record cache
		if err != nil || before == nil || before.Meta.Value("_EventCost") == "4321" || inCategory() {
			t.Fatalf("before: %v %v (in category %d already: %v)", before, err, toTerm, inCategory())
		}
		_, head, _, _ := s.SyncHead(ctx)
		gen, rebuilds := s.Generation(), s.Index().Stats().Rebuilds
		published := countPublished(s)

		for _, q := range []string{
			"UPDATE wp_postmeta SET meta_value = '4321' WHERE post_id = ? AND meta_key = '_EventCost'",
			"UPDATE wp_term_relationships SET term_taxonomy_id = " + strconv.FormatInt(toTT, 10) + " WHERE object_id = ? AND term_taxonomy_id = " + strconv.FormatInt(fromTT, 10),
		} {
			if _, err := s.sql.ExecContext(ctx, q, event); err != nil {
				t.Fatal(err)
			}
		}
		// The watermark does not see them: a poll publishes nothing.
		if err := s.feed.Sync(ctx); err != nil {
			t.Fatal(err)
		}
		if published.Load() != 0 {
			t.Fatalf("a poll published %d changes for bare updates", published.Load())
		}
		reconcileNow(t, s.feed)

		if !inCategory() {
			t.Errorf("the index does not list event %d in category %d after the reconcile", event, toTerm)
		}
		after, err := s.EventByID(ctx, event)
		if err != nil || after == nil {
			t.Fatalf("the record after the reconcile: %v %v", after, err)
		}
		if c := after.Meta.Value("_EventCost"); c != "4321" {
			t.Errorf("the record after the reconcile: cost %q", c)
		}
		found := false
		for _, c := range after.Categories {
			found = found || c.ID == toTerm
		}
		if !found {
			t.Errorf("the record's categories miss %d after the reconcile", toTerm)
		}
		if g := s.Generation(); g == gen || published.Load() != 1 {
			t.Errorf("generation %d → %d, %d changes published (want one)", gen, g, published.Load())
		}
		if r := s.Index().Stats().Rebuilds; r != rebuilds {
			t.Errorf("the reconcile rebuilt the index (%d) instead of patching it", r-rebuilds)
		}
		got, err := s.SyncSince(ctx, head, 100)
		n := 0
		for _, e := range got {
			if e.Resource == SyncEvents && e.ID == event {
				n++
			}
		}
		if err != nil || n != 1 {
			t.Errorf("event %d journaled %d times: %+v (%v)", event, n, got, err)
		}
	})
}

// A calendard write committed while the reconcile reads is journaled once, by itself: the
// reconcile reads without the journal's lock (the write would wait for it otherwise, on SQLite
// for the database's write lock) and compares its candidates again under it.
func TestReconcileJournalsAConcurrentWriteOnce(t *testing.T) {
	eachStore(t, func(t *testing.T, s *Store) {
		ctx, _ := reconcileFixture(t, s)
		rows, err := s.sql.QueryContext(ctx, "SELECT p.ID FROM wp_posts p JOIN wp_postmeta m ON m.post_id = p.ID AND m.meta_key = '_EventCost' "+
			"WHERE p.post_type = 'tribe_events' AND p.post_status = 'publish' ORDER BY p.ID LIMIT 2")
		if err != nil {
			t.Fatal(err)
		}
		ids, err := scanIDs(rows)
		if err != nil || len(ids) < 2 {
			t.Fatalf("fixture events: %v", ids)
		}
		bare, written := ids[0], ids[1]
		_, head, _, _ := s.SyncHead(ctx)
		// The reconcile finds both: one a bare update, the other a bare update that a calendard
		// write then changes again while the reconcile reads.
		for _, id := range ids {
			if _, err := s.sql.ExecContext(ctx, "UPDATE wp_postmeta SET meta_value = '55' WHERE post_id = ? AND meta_key = '_EventCost'", id); err != nil {
				t.Fatal(err)
			}
		}
		wrote := make(chan error, 1)
		hook := func() {
			testHookAfterSyncRead.Store(nil)
			wctx, cancel := context.WithTimeout(ctx, 20*time.Second)
			defer cancel()
			wrote <- s.Write(wctx, nil, func(tx calendard.WriteTx) error {
				return tx.AddMeta(wctx, written, "_EventURL", "https://example.org/during")
			})
		}
		testHookAfterSyncRead.Store(&hook)
		t.Cleanup(func() { testHookAfterSyncRead.Store(nil) })
		reconcileNow(t, s.feed)
		select {
		case err := <-wrote:
			if err != nil {
				t.Fatalf("the write during the reconcile's read: %v", err)
			}
		default:
			t.Fatal("the hook did not run: the reconcile read nothing")
		}
		got, err := s.SyncSince(ctx, head, 100)
		if err != nil {
			t.Fatal(err)
		}
		count := map[int64]int{}
		for _, e := range got {
			if e.Resource == SyncEvents {
				count[e.ID]++
			}
		}
		if count[bare] != 1 || count[written] != 1 {
			t.Errorf("journaled: bare %d %d times, written %d %d times (want once each): %+v", bare, count[bare], written, count[written], got)
		}
		for _, id := range ids {
			e, err := s.EventByID(ctx, id)
			if err != nil || e == nil || e.Meta.Value("_EventCost") != "55" {
				t.Errorf("event %d after the reconcile: %v %v", id, e, err)
			}
		}
	})
}
