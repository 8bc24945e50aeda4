package wpdb

import (
	"context"
	"errors"
	"strconv"
	"testing"
	"time"

	"github.com/calendard/calendard"
	"github.com/calendard/calendard/internal/testenv"
)

// waitSync polls the journal after seq until want finds what it looks for.
func waitSync(t *testing.T, s *Store, after int64, want func([]SyncEntry) bool) []SyncEntry {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for {
		got, err := s.SyncSince(context.Background(), after, 1000)
		if err != nil {
			t.Fatal(err)
		}
		if want(got) {
			return got
		}
		if time.Now().After(deadline) {
			t.Fatalf("journal after %d never matched: %+v", after, got)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// reconcileNow runs the periodic reconcile once, as Watch does.
func reconcileNow(t *testing.T, f *Feed) {
	t.Helper()
	if done, err := f.Reconcile(context.Background()); err != nil || !done {
		t.Fatalf("reconcile: done %v, %v", done, err)
	}
}

func hasEntry(es []SyncEntry, res string, id int64, deleted bool, status string) bool {
	for _, e := range es {
		if e.Resource == res && e.ID == id && e.Deleted == deleted && e.Status == status {
			return true
		}
	}
	return false
}

func TestSyncJournalRecordsWritesDirectChangesAndReconciles(t *testing.T) {
	eachStore(t, func(t *testing.T, s *Store) {
		ctx, cancel := context.WithCancel(context.Background())
		defer cancel()
		if _, _, _, err := s.SyncHead(ctx); !errors.Is(err, ErrSyncOff) {
			t.Fatalf("before Start: SyncHead err %v, want ErrSyncOff", err)
		}
		if st := s.SyncStats(); st.State != "off" {
			t.Errorf("before Start: SyncStats %+v, want off", st)
		}
		s.Start(ctx, StartOptions{WatchInterval: 50 * time.Millisecond})
		<-s.SyncOpened()
		epoch, head, oldest, err := s.SyncHead(ctx)
		if err != nil || epoch == "" || head != 0 || oldest != 0 {
			t.Fatalf("fresh journal: epoch %q head %d oldest %d err %v (the baseline journals nothing)", epoch, head, oldest, err)
		}
		if st := s.SyncStats(); st.State != "on" || st.Epoch != epoch {
			t.Errorf("opened: SyncStats %+v, want on in epoch %q", st, epoch)
		}
		rows, err := s.sql.QueryContext(ctx, "SELECT ID FROM wp_posts WHERE post_type = 'tribe_events' AND post_status = 'publish' ORDER BY ID LIMIT 3")
		if err != nil {
			t.Fatal(err)
		}
		ids, err := scanIDs(rows)
		if err != nil || len(ids) < 3 {
			t.Fatalf("fixture events: %v", ids)
		}

		// calendard's own write is journaled before Write returns.
		if err := s.Write(ctx, nil, func(tx calendard.WriteTx) error { return tx.AddMeta(ctx, ids[0], "_EventURL", "https://example.org/x") }); err != nil {
			t.Fatal(err)
		}
		got, err := s.SyncSince(ctx, 0, 100)
		if err != nil || len(got) != 1 || !hasEntry(got, SyncEvents, ids[0], false, "publish") || got[0].Seq != 1 || got[0].At.IsZero() {
			t.Fatalf("after a calendard write: %+v, %v", got, err)
		}
		select {
		case <-s.SyncWake():
		default:
			t.Error("SyncWake was not signalled")
		}

		// WordPress's own save (post_modified_gmt moves): the next poll.
		if _, err := s.sql.ExecContext(ctx, "UPDATE wp_posts SET post_title = 'Renamed', post_status = 'draft', post_modified_gmt = '2031-01-01 00:00:00' WHERE ID = ?", ids[1]); err != nil {
			t.Fatal(err)
		}
		waitSync(t, s, 1, func(es []SyncEntry) bool { return hasEntry(es, SyncEvents, ids[1], false, "draft") })
		// A row deleted in SQL: a tombstone.
		if _, err := s.sql.ExecContext(ctx, "DELETE FROM wp_posts WHERE ID = ?", ids[2]); err != nil {
			t.Fatal(err)
		}
		got = waitSync(t, s, 1, func(es []SyncEntry) bool { return hasEntry(es, SyncEvents, ids[2], true, "") })
		_, head, _, _ = s.SyncHead(ctx)
		if int64(len(got)) != head-1 || len(got) != 2 {
			t.Errorf("direct changes journaled %d entries (head %d), want 2: %+v", len(got), head, got)
		}
		// A venue renamed: the events embedding it are journaled too.
		var venue, linked int64
		if err := s.sql.QueryRowContext(ctx, "SELECT CAST(m.meta_value AS SIGNED), m.post_id FROM wp_postmeta m JOIN wp_posts p ON p.ID = m.post_id "+
			"WHERE m.meta_key = '_EventVenueID' AND p.post_type = 'tribe_events' AND m.meta_value <> '0' AND p.ID NOT IN (?, ?, ?) ORDER BY m.meta_id LIMIT 1",
			ids[0], ids[1], ids[2]).Scan(&venue, &linked); err != nil {
			t.Fatal(err)
		}
		if _, err := s.sql.ExecContext(ctx, "UPDATE wp_posts SET post_title = 'Renamed Hall', post_modified_gmt = '2031-01-02 00:00:00' WHERE ID = ?", venue); err != nil {
			t.Fatal(err)
		}
		got = waitSync(t, s, head, func(es []SyncEntry) bool { return hasEntry(es, SyncVenues, venue, false, "publish") })
		found := false
		for _, e := range got {
			found = found || (e.Resource == SyncEvents && e.ID == linked && !e.Deleted)
		}
		if !found {
			t.Errorf("venue %d renamed: event %d, which embeds it, not journaled: %+v", venue, linked, got)
		}
		_, head, _, _ = s.SyncHead(ctx)
		// A bare meta UPDATE moves no watermark: the reconcile finds it.
		if _, err := s.sql.ExecContext(ctx, "UPDATE wp_postmeta SET meta_value = 'https://example.org/y' WHERE post_id = ? AND meta_key = '_EventURL'", ids[0]); err != nil {
			t.Fatal(err)
		}
		reconcileNow(t, s.feed)
		got, _ = s.SyncSince(ctx, head, 100)
		if len(got) != 1 || !hasEntry(got, SyncEvents, ids[0], false, "publish") {
			t.Fatalf("after the reconcile: %+v", got)
		}
		// Nothing changed: a second reconcile journals nothing.
		reconcileNow(t, s.feed)
		if _, h2, _, _ := s.SyncHead(ctx); h2 != got[0].Seq {
			t.Errorf("an idle reconcile moved the head from %d to %d", got[0].Seq, h2)
		}
		// Pruning moves oldest to the newest pruned entry.
		if err := s.PruneSync(ctx, time.Now().Add(time.Hour)); err != nil {
			t.Fatal(err)
		}
		e2, h, oldest, _ := s.SyncHead(ctx)
		if e2 != epoch || oldest != h {
			t.Errorf("after pruning everything: oldest %d, head %d (epoch %q→%q)", oldest, h, epoch, e2)
		}
	})
}

// Two instances over one database: a bare meta UPDATE one instance's reconcile journals is
// published by the other at its next poll, so its kept records reload before its sync answers (or
// list tokens) move past the entry.
func TestSyncForeignEntriesReloadTheOtherInstance(t *testing.T) {
	dsn := testenv.FixtureDB(t, fixtureFile, testenv.DBName("wpdbsync", t))
	open := func() *Store { return mysqlStore(t, dsn) }
	a, b := open(), open()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	a.Start(ctx, StartOptions{WatchInterval: 50 * time.Millisecond, NoIndex: true})
	b.Start(ctx, StartOptions{WatchInterval: 50 * time.Millisecond, NoIndex: true, Records: 100})
	<-a.SyncOpened()
	<-b.SyncOpened()
	var id int64
	if err := a.sql.QueryRowContext(ctx, "SELECT p.ID FROM wp_posts p JOIN wp_postmeta m ON m.post_id = p.ID AND m.meta_key = '_EventCost' "+
		"WHERE p.post_type = 'tribe_events' AND p.post_status = 'publish' ORDER BY p.ID LIMIT 1").Scan(&id); err != nil {
		t.Fatal(err)
	}
	if e, err := b.EventByID(ctx, id); err != nil || e.Meta.Value("_EventCost") == "77" {
		t.Fatalf("before: %v %v", e, err)
	}
	if _, err := a.sql.ExecContext(ctx, "UPDATE wp_postmeta SET meta_value = '77' WHERE post_id = ? AND meta_key = '_EventCost'", id); err != nil {
		t.Fatal(err)
	}
	reconcileNow(t, a.feed)
	_, head, _, _ := a.SyncHead(ctx)
	// B's sync catches up (a poll), and what it answers from then on has the new value.
	_, safe, err := b.SyncSafeHead(ctx, true)
	deadline := time.Now().Add(30 * time.Second)
	for err == nil && safe < head && time.Now().Before(deadline) {
		time.Sleep(20 * time.Millisecond)
		_, safe, err = b.SyncSafeHead(ctx, true)
	}
	if err != nil || safe < head {
		t.Fatalf("B's safe head %d, A journaled up to %d (%v)", safe, head, err)
	}
	if e, err := b.EventByID(ctx, id); err != nil || e.Meta.Value("_EventCost") != "77" {
		t.Errorf("B past A's entry still answers the old record: cost %q (%v)", e.Meta.Value("_EventCost"), err)
	}
}

// A store that opens on a journal with entries gives list answers no token until a poll finds it
// settled past them, and then the journal's head, so that a client following that token is
// neither sent entries it has nor told its token expired.
func TestSyncOpeningOnAJournalWithEntries(t *testing.T) {
	dsn := testenv.FixtureDB(t, fixtureFile, testenv.DBName("wpdbsyncre", t))
	open := func() *Store { return mysqlStore(t, dsn) }
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	a := open()
	a.Start(ctx, StartOptions{WatchInterval: 50 * time.Millisecond, NoIndex: true})
	<-a.SyncOpened()
	var id int64
	if err := a.sql.QueryRowContext(ctx, "SELECT ID FROM wp_posts WHERE post_type = 'tribe_events' AND post_status = 'publish' ORDER BY ID LIMIT 1").Scan(&id); err != nil {
		t.Fatal(err)
	}
	for i := range 3 {
		if err := a.Write(ctx, nil, func(tx calendard.WriteTx) error {
			return tx.AddMeta(ctx, id, "_EventURL", "https://example.org/"+strconv.Itoa(i))
		}); err != nil {
			t.Fatal(err)
		}
	}
	epoch, head, _, err := a.SyncHead(ctx)
	if err != nil || head != 3 {
		t.Fatalf("A's head %d (%v), want 3", head, err)
	}

	// No timed poll in B: the token waits for its first reading (which may run beside the opening)
	// or for the one a sync request runs; until then there is none, never a token below head.
	b := open()
	b.Start(ctx, StartOptions{WatchInterval: time.Hour, NoIndex: true})
	<-b.SyncOpened()
	if _, safe, err := b.SyncSafeHead(ctx, false); err == nil {
		if safe != head {
			t.Errorf("B opened: list token %d, want none yet or %d", safe, head)
		}
	} else if !errors.Is(err, calendard.ErrSyncStarting) {
		t.Errorf("B opened, before it settled: SyncSafeHead err %v, want ErrSyncStarting", err)
	} else if st := b.SyncStats(); st.State != "settling" && st.State != "on" || st.Epoch != epoch {
		t.Errorf("B opened, before it settled: %+v, want settling in %q", st, epoch)
	}
	gotEpoch, safe, err := b.SyncSafeHead(ctx, true)
	if err != nil || gotEpoch != epoch || safe != head {
		t.Fatalf("B after its catch-up poll: epoch %q safe %d err %v, want %q %d", gotEpoch, safe, err, epoch, head)
	}
	if _, safe, err := b.SyncSafeHead(ctx, false); err != nil || safe != head {
		t.Errorf("B settled: list token %d (%v), want %d", safe, err, head)
	}
	if st := b.SyncStats(); st.State != "on" || st.SafeHead != head {
		t.Errorf("B settled: %+v", st)
	}
}

// What another instance announces was journaled there: this instance journals only its own
// changes, so a remote "anything may have changed" (an announcement it missed) costs no diff.
func TestSyncJournalsNoRemoteChange(t *testing.T) {
	eachStore(t, func(t *testing.T, s *Store) {
		ctx, cancel := context.WithCancel(context.Background())
		defer cancel()
		s.Start(ctx, StartOptions{WatchInterval: time.Hour, NoIndex: true})
		<-s.SyncOpened()
		if _, err := s.sql.ExecContext(ctx, "UPDATE wp_posts SET post_title = 'Renamed elsewhere' WHERE ID = (SELECT ID FROM (SELECT MIN(ID) AS ID FROM wp_posts WHERE post_type = 'tribe_events' AND post_status = 'publish') x)"); err != nil {
			t.Fatal(err)
		}
		s.feed.Publish(Change{All: true, Remote: true})
		if _, head, _, err := s.SyncHead(ctx); err != nil || head != 0 {
			t.Fatalf("after a remote change: head %d (%v), want 0", head, err)
		}
		s.feed.Publish(Change{All: true})
		if _, head, _, err := s.SyncHead(ctx); err != nil || head != 1 {
			t.Errorf("after a local change: head %d (%v), want 1", head, err)
		}
	})
}

// mysqlStore is a store of its own on the MariaDB database dsn (one instance of a fleet).
func mysqlStore(t *testing.T, dsn string) *Store {
	t.Helper()
	db, err := OpenMySQL(dsn, "wp_")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	return NewStore(db, SiteOverrides{})
}

// The events embedding a changed venue or organizer are found the same way whether the changed
// ones fit one lookup by value or, more of them (a bulk import), one pass over every link.
func TestSyncEventsLinkingToManyLinkedPosts(t *testing.T) {
	eachStore(t, func(t *testing.T, s *Store) {
		ctx := context.Background()
		var linked []int64
		rows, err := s.sql.QueryContext(ctx, "SELECT ID FROM wp_posts WHERE post_type IN ('tribe_venue', 'tribe_organizer') ORDER BY ID")
		if err != nil {
			t.Fatal(err)
		}
		if linked, err = scanIDs(rows); err != nil || len(linked) < 2 {
			t.Fatalf("fixture venues and organizers: %v %v", linked, err)
		}
		tx, err := s.sql.primary().BeginTx(ctx, nil)
		if err != nil {
			t.Fatal(err)
		}
		defer tx.Rollback()
		want := map[int64]bool{}
		for _, id := range linked {
			got, err := s.eventsLinkingTo(ctx, tx, []int64{id})
			if err != nil {
				t.Fatal(err)
			}
			for _, e := range got {
				want[e] = true
			}
		}
		if len(want) == 0 {
			t.Fatal("no event links a venue or organizer: the test is too weak")
		}
		// Past one batch: the fixture's posts and IDs no post has.
		many := append([]int64{}, linked...)
		for id := int64(90_000_000); len(many) <= syncIDBatch; id++ {
			many = append(many, id)
		}
		got, err := s.eventsLinkingTo(ctx, tx, many)
		if err != nil {
			t.Fatal(err)
		}
		seen := map[int64]bool{}
		for _, id := range got {
			if seen[id] || !want[id] {
				t.Errorf("event %d: returned twice, or links none of them", id)
			}
			seen[id] = true
		}
		if len(seen) != len(want) {
			t.Errorf("one pass found %d events, the lookups by value %d", len(seen), len(want))
		}
	})
}
