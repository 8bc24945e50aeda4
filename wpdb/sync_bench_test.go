package wpdb

import (
	"context"
	"database/sql"
	"os"
	"testing"
	"time"
)

// The journal's diffs over an existing calendar (CALENDAR_BENCH_DB, e.g. sqlite:///tmp/cal.db made
// by `calendard demo --events 20000`; skipped without it): what a watermark poll that saw
// WordPress write costs (the post rows' cheap fingerprints), and what a reconcile costs (meta and
// term relationships too), with nothing changed.
func benchSyncStore(b *testing.B) *DB {
	spec := os.Getenv("CALENDAR_BENCH_DB")
	if spec == "" {
		b.Skip("CALENDAR_BENCH_DB names no calendar")
	}
	db, err := Open(spec, "wp_")
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { db.Close() })
	start := time.Now()
	if err := db.EnsureSyncJournal(context.Background()); err != nil {
		b.Fatal(err)
	}
	b.Logf("journal ready (baseline when new) in %v", time.Since(start).Round(time.Millisecond))
	// Entries a first diff journals (a demo written without a running server) are not what is measured.
	if err := db.journalTx(context.Background(), time.Now(), false, func(ctx context.Context, tx *sql.Tx) ([]syncChange, error) {
		return db.syncDiff(ctx, tx, syncScope{all: true, full: true, terms: true})
	}, nil); err != nil {
		b.Fatal(err)
	}
	return db
}

func benchSyncDiff(b *testing.B, sc syncScope) {
	db := benchSyncStore(b)
	ctx := context.Background()
	b.ResetTimer()
	for b.Loop() {
		err := db.journalTx(ctx, time.Now(), false, func(ctx context.Context, tx *sql.Tx) ([]syncChange, error) {
			changes, err := db.syncDiff(ctx, tx, sc)
			if err == nil && len(changes) > 0 {
				b.Fatalf("an idle diff found %d changes", len(changes))
			}
			return changes, err
		}, nil)
		if err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkSyncPollDiff(b *testing.B) { benchSyncDiff(b, syncScope{all: true, terms: true}) }
func BenchmarkSyncReconcileDiff(b *testing.B) {
	benchSyncDiff(b, syncScope{all: true, full: true, terms: true})
}
