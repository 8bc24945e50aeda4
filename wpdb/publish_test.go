package wpdb

import (
	"context"
	"sync"
	"testing"
	"time"

	"github.com/calendard/calendard"
	"github.com/calendard/calendard/internal/testenv"
)

// Writers queued on one named lock hold their pooled connections while they wait. A committed
// write's publication (the index patch reads through the pool) must not need one of them: with a
// pool of two connections and a subscriber that reads, four writes of one post type all go through
// at once, where a publication made before the connection and the lock are given back waits for
// the queued writers' deadlines.
func TestPublishingAWriteWaitsForNoQueuedWriter(t *testing.T) {
	dsn := testenv.FixtureDB(t, fixtureFile, testenv.DBName("wpdb", t))
	db, err := OpenMySQL(dsn, "wp_")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	db.sql.SetMaxOpenConns(2)
	db.Changes().Subscribe(func(Change) {
		var one int
		if err := db.sql.QueryRowContext(context.Background(), "SELECT 1").Scan(&one); err != nil {
			t.Errorf("the subscriber's read: %v", err)
		}
	})
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	start := time.Now()
	var wg sync.WaitGroup
	errs := make([]error, 4)
	for i := range errs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			errs[i] = db.Write(ctx, nil, func(tx calendard.WriteTx) error {
				t := tx.(*Tx)
				if err := t.LockSlugs(ctx, "tribe_events"); err != nil {
					return err
				}
				t.touch(int64(1000 + i))
				return nil
			})
		}()
	}
	wg.Wait()
	for i, err := range errs {
		if err != nil {
			t.Errorf("write %d: %v (after %v)", i, err, time.Since(start).Round(time.Millisecond))
		}
	}
}
