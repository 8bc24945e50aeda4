package wpdb

import (
	"context"
	"database/sql"
	"os"
	"testing"
	"time"
)

// benchCalendar opens the calendar CALENDAR_BENCH_DB names until the benchmark ends (skipped
// without it).
func benchCalendar(b *testing.B) *DB {
	spec := os.Getenv("CALENDAR_BENCH_DB")
	if spec == "" {
		b.Skip("CALENDAR_BENCH_DB names no calendar")
	}
	db, err := Open(spec, "wp_")
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { db.Close() })
	return db
}

// The journal's diffs over an existing calendar (CALENDAR_BENCH_DB, e.g. sqlite:///tmp/cal.db made
// by `calendard demo --events 20000`; skipped without it): what a watermark poll that saw
// WordPress write costs (the post rows' cheap fingerprints), and what a reconcile costs (meta and
// term relationships too), with nothing changed.
func benchSyncStore(b *testing.B) *DB {
	db := benchCalendar(b)
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

// What the journal's lock is held for at a reconcile now: the candidates are read without it, and
// only they are compared again and journaled under it (one bare meta UPDATE per iteration, or
// nothing changed with CALENDAR_BENCH_IDLE=1). BenchmarkSyncReconcileDiff is the whole diff under
// the lock, as a reconcile held it before.
func BenchmarkSyncReconcileLock(b *testing.B) {
	db := benchSyncStore(b)
	s := NewStore(db, SiteOverrides{})
	ctx := context.Background()
	var id int64
	if err := db.sql.QueryRowContext(ctx, "SELECT p.ID FROM "+db.t("posts")+" p JOIN "+db.t("postmeta")+
		" m ON m.post_id = p.ID AND m.meta_key = '_EventStartDate' WHERE p.post_type = 'tribe_events' ORDER BY p.ID LIMIT 1").Scan(&id); err != nil {
		b.Fatal(err)
	}
	idle := os.Getenv("CALENDAR_BENCH_IDLE") == "1"
	var read, locked time.Duration
	i := 0
	b.ResetTimer()
	for b.Loop() {
		i++
		if !idle {
			if _, err := db.sql.ExecContext(ctx, "INSERT INTO "+db.t("postmeta")+" (post_id, meta_key, meta_value) VALUES (?, '_bench_reconcile', ?)", id, i); err != nil {
				b.Fatal(err)
			}
		}
		start := time.Now()
		sc, err := s.candidateScope(ctx, syncScope{all: true, full: true, terms: true})
		if err != nil {
			b.Fatal(err)
		}
		mid := time.Now()
		if !sc.empty() {
			if _, err := s.journalLocked(ctx, sc); err != nil {
				b.Fatal(err)
			}
		}
		read += mid.Sub(start)
		locked += time.Since(mid)
	}
	b.ReportMetric(float64(read.Microseconds())/1000/float64(i), "read-ms/op")
	b.ReportMetric(float64(locked.Microseconds())/1000/float64(i), "lock-ms/op")
	if !idle {
		_, _ = db.sql.ExecContext(ctx, "DELETE FROM "+db.t("postmeta")+" WHERE meta_key = '_bench_reconcile'")
	}
}
