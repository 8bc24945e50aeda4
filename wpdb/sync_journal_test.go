package wpdb

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/calendard/calendard"
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
		s.Start(ctx, StartOptions{WatchInterval: 50 * time.Millisecond})
		epoch, head, oldest, err := s.SyncHead(ctx)
		if err != nil || epoch == "" || head != 0 || oldest != 0 {
			t.Fatalf("fresh journal: epoch %q head %d oldest %d err %v (the baseline journals nothing)", epoch, head, oldest, err)
		}
		var ids []int64
		rows, err := s.sql.QueryContext(ctx, "SELECT ID FROM wp_posts WHERE post_type = 'tribe_events' AND post_status = 'publish' ORDER BY ID LIMIT 3")
		if err != nil {
			t.Fatal(err)
		}
		for rows.Next() {
			var id int64
			_ = rows.Scan(&id)
			ids = append(ids, id)
		}
		rows.Close()
		if len(ids) < 3 {
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
		// A bare meta UPDATE moves no watermark: the reconcile finds it.
		if _, err := s.sql.ExecContext(ctx, "UPDATE wp_postmeta SET meta_value = 'https://example.org/y' WHERE post_id = ? AND meta_key = '_EventURL'", ids[0]); err != nil {
			t.Fatal(err)
		}
		s.feed.Publish(Change{All: true, Reconcile: true})
		got, _ = s.SyncSince(ctx, head, 100)
		if len(got) != 1 || !hasEntry(got, SyncEvents, ids[0], false, "publish") {
			t.Fatalf("after the reconcile: %+v", got)
		}
		// Nothing changed: a second reconcile journals nothing.
		s.feed.Publish(Change{All: true, Reconcile: true})
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
