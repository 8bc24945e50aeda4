package search

import (
	"context"
	"database/sql"
	"fmt"
	"os"
	"strconv"
	"testing"
	"time"

	"github.com/calendard/calendard"
	"github.com/calendard/calendard/bench/gen"
)

// BenchmarkSearch measures search= and geo queries through Meilisearch and through the SQL fallback
// on a generated calendar of SEARCH_BENCH_EVENTS events (default 10,000) over site-a, and the time
// to rebuild the index (reported as reindex-s; SEARCH_BENCH_REINDEX=off skips it). Run:
// go test ./search/ -run '^$' -bench Search.
func BenchmarkSearch(b *testing.B) {
	n := 10_000
	if v := os.Getenv("SEARCH_BENCH_EVENTS"); v != "" {
		n, _ = strconv.Atoi(v)
	}
	c := benchCalendar(b, n)
	ctx := context.Background()
	// SEARCH_BENCH_REINDEX=off measures the queries only (a rebuild of a large calendar is slow).
	if os.Getenv("SEARCH_BENCH_REINDEX") != "off" {
		start := time.Now()
		if err := c.ix.Rebuild(ctx, nil); err != nil {
			b.Fatal(err)
		}
		reindex := time.Since(start)
		b.Logf("%d events: reindex %s", n, reindex.Round(time.Millisecond))
		defer b.ReportMetric(reindex.Seconds(), "reindex-s")
	}
	c.waitSubstringIndex(b)
	for _, q := range []string{"Concert", "Marathon Summit", "Jazz", "a"} {
		for _, mode := range []struct {
			name string
			svc  calendard.EventService
		}{{"meili", c.meili}, {"sql", c.sql}} {
			b.Run(fmt.Sprintf("search=%s/%s", q, mode.name), func(b *testing.B) {
				f := everything(q, true)
				f.Limit = 10
				svc := mode.svc
				for b.Loop() {
					if _, _, err := svc.FindEvents(ctx, c.site, f); err != nil {
						b.Fatal(err)
					}
				}
				// A failed Meilisearch request falls back to SQL silently: the figures would be SQL's.
				if !c.ix.Usable() {
					b.Fatal("the search index is not usable: searches went to SQL")
				}
			})
		}
	}
	for _, mode := range []string{"meili", "sql"} {
		g := &Geo{DB: c.db}
		if mode == "meili" {
			g.Index = c.ix
		}
		b.Run("geo-1000km/"+mode, func(b *testing.B) {
			for b.Loop() {
				if _, err := g.VenuesNear(ctx, 48.8776, 2.3019, 1000); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
	// The reconcile's fingerprint comparison (what finds a bare meta UPDATE): its database side.
	b.Run("reconcile-prints", func(b *testing.B) {
		for b.Loop() {
			if _, err := c.db.SearchPrints(ctx, printedMeta); err != nil {
				b.Fatal(err)
			}
			if _, err := c.db.TermPrints(ctx); err != nil {
				b.Fatal(err)
			}
		}
	})
}

func benchCalendar(b *testing.B, n int) *calendar {
	usableWithin = 30 * time.Minute
	start := time.Now()
	defer func() { b.Logf("generated and indexed %d events in %s", n, time.Since(start).Round(time.Second)) }()
	return newCalendar(b, sharedMeili(b), func(raw *sql.DB) {
		if _, err := gen.Generate(context.Background(), raw, gen.MySQL, gen.Options{Events: n, Seed: 5, Replace: true,
			Now: time.Date(2026, 11, 22, 0, 0, 0, 0, time.UTC)}); err != nil {
			b.Fatal(err)
		}
	})
}
