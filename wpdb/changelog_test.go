package wpdb

import (
	"context"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/calendard/calendard"
)

// Another instance's poll (a feed of its own on the same database) sees every write of calendard's,
// even one the rest of the watermark cannot see (a meta value updated in place, twice in one
// second), and publishes exactly the posts written; a direct change among them makes it All.
func TestOtherInstancesPollSeesEveryWriteExactly(t *testing.T) {
	eachStore(t, func(t *testing.T, s *Store) {
		ctx := context.Background()
		other := newFeed(s.DB)
		var mu sync.Mutex
		var heard []Change
		other.Subscribe(func(c Change) {
			mu.Lock()
			heard = append(heard, c)
			mu.Unlock()
		})
		poll := func() []Change {
			t.Helper()
			mu.Lock()
			heard = nil
			mu.Unlock()
			if err := other.Sync(ctx); err != nil {
				t.Fatal(err)
			}
			mu.Lock()
			defer mu.Unlock()
			return heard
		}
		if err := other.Sync(ctx); err != nil { // the first reading
			t.Fatal(err)
		}
		var id int64
		if err := s.sql.QueryRowContext(ctx, "SELECT MIN(post_id) FROM wp_postmeta WHERE meta_key = '_EventStartDate'").Scan(&id); err != nil {
			t.Fatal(err)
		}
		// A frozen clock: both writes fall in the same second.
		clock := func() time.Time { return time.Date(2026, 11, 22, 4, 30, 10, 0, time.UTC) }
		setMeta := func(v string) {
			t.Helper()
			err := s.Write(ctx, clock, func(tx calendard.WriteTx) error {
				_, err := tx.UpdateMetaRows(ctx, id, "_EventCost", v)
				return err
			})
			if err != nil {
				t.Fatal(err)
			}
		}

		setMeta("11")
		if got := poll(); len(got) != 1 || got[0].All || !slices.Equal(got[0].Posts, []int64{id}) {
			t.Errorf("one write: the other feed published %+v, want one change of post %d", got, id)
		}
		setMeta("12")
		setMeta("13")
		if got := poll(); len(got) != 1 || got[0].All || !slices.Equal(got[0].Posts, []int64{id}) {
			t.Errorf("two writes in one second: the other feed published %+v, want one change of post %d", got, id)
		}
		if got := poll(); len(got) != 0 {
			t.Errorf("nothing written: the other feed published %+v", got)
		}
		setMeta("14")
		if _, err := s.sql.ExecContext(ctx, "INSERT INTO wp_postmeta (post_id, meta_key, meta_value) VALUES (?, '_outside', 'x')", id); err != nil {
			t.Fatal(err)
		}
		if got := poll(); len(got) != 1 || !got[0].All {
			t.Errorf("a write and a direct change: the other feed published %+v, want All", got)
		}
	})
}
