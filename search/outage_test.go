package search

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/sony/gobreaker/v2"

	"github.com/calendard/calendard"
	"github.com/calendard/calendard/internal/testenv"
)

// The bounds below are generous for a loaded 2-core machine, yet short of what they guard against:
// a search with Meilisearch hung waiting the whole request deadline (5 s), or for ever without one,
// and a restarted Meilisearch taking over only at the reconcile (5 min by default, an hour here).
const (
	searchBound  = 2 * time.Second
	recoverBound = 20 * time.Second
	// refillBound: a Meilisearch that lost its data is refilled (172 posts) before it answers.
	refillBound = 45 * time.Second
)

// ownMeili starts a Meilisearch for one test (it is stalled or killed), resumed and stopped at the
// end.
func ownMeili(t *testing.T) *testenv.Meilisearch {
	t.Helper()
	testenv.SkipIfShort(t, "Meilisearch")
	m, err := testenv.StartMeilisearch(t.TempDir())
	if err != nil {
		t.Fatalf("starting Meilisearch: %v", err)
	}
	t.Cleanup(func() { _ = m.Resume(); m.Stop() })
	return m
}

// timedIDs is ids with ctx, failing when the search does not end within bound (and not waiting for
// it beyond 15 s: on a hung search the test fails instead of hanging).
func timedIDs(t *testing.T, ctx context.Context, svc calendard.EventService, site *calendard.Site, f calendard.EventFilter, bound time.Duration) []int64 {
	t.Helper()
	type result struct {
		ids []int64
		err error
	}
	done := make(chan result, 1)
	start := time.Now()
	go func() {
		evs, _, err := svc.FindEvents(ctx, site, f)
		var out []int64
		for _, e := range evs {
			out = append(out, e.ID)
		}
		done <- result{out, err}
	}()
	select {
	case r := <-done:
		if r.err != nil {
			t.Fatalf("search=%v: %v after %s", f.Search, r.err, time.Since(start).Round(time.Millisecond))
		}
		if took := time.Since(start); took > bound {
			t.Fatalf("search=%v took %s, want under %s", f.Search, took.Round(time.Millisecond), bound)
		}
		return r.ids
	case <-time.After(15 * time.Second):
		t.Fatalf("search=%v had not ended after 15 s", f.Search)
	}
	return nil
}

// metric reads a gauge or counter of reg by name.
func metric(t *testing.T, reg *prometheus.Registry, name string) float64 {
	t.Helper()
	mfs, err := reg.Gather()
	if err != nil {
		t.Fatal(err)
	}
	for _, mf := range mfs {
		if mf.GetName() != name || len(mf.Metric) == 0 {
			continue
		}
		if g := mf.Metric[0].GetGauge(); g != nil {
			return g.GetValue()
		}
		return mf.Metric[0].GetCounter().GetValue()
	}
	t.Fatalf("no metric %s", name)
	return 0
}

// TestHungMeilisearchAnswersFromSQLWithoutWaiting stalls Meilisearch (SIGSTOP: connections are
// accepted, nothing answers). A search waits at most the Meilisearch timeout, with or without a
// request deadline, and answers the plugin's substring match; after a few such failures the breaker
// sends searches to SQL without calling Meilisearch; once it answers again, searches go through it.
func TestHungMeilisearchAnswersFromSQLWithoutWaiting(t *testing.T) {
	m := ownMeili(t)
	reg := prometheus.NewRegistry()
	c := newCalendarWith(t, m, nil, 0, Config{Registerer: reg})
	linked := &Linked{LinkedService: c.db, Index: c.ix}
	geo := &Geo{DB: c.db, Index: c.ix}
	typo := everything("Marathn", true)
	viaIndex, _ := ids(t, c.meili, c.site, typo)
	if len(viaIndex) == 0 {
		t.Fatal("search=Marathn finds nothing through Meilisearch before the stall")
	}
	if err := m.Pause(); err != nil {
		t.Fatal(err)
	}

	queries := []string{"Marathon", "Concert", "Fair", "Marathn", "Night", "Jazz"}
	t.Run("without a request deadline a search still ends", func(t *testing.T) {
		f := everything(queries[0], true)
		want, _ := ids(t, c.sql, c.site, f)
		if got := timedIDs(t, context.Background(), c.meili, c.site, f, searchBound); !slices.Equal(got, want) {
			t.Fatalf("answer %v, the substring match %v", got, want)
		}
	})
	t.Run("searches answer the substring match, well within the request deadline", func(t *testing.T) {
		for _, q := range queries[1:tripAfter] {
			ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
			f := everything(q, true)
			want, _ := ids(t, c.sql, c.site, f)
			if got := timedIDs(t, ctx, c.meili, c.site, f, searchBound); !slices.Equal(got, want) {
				t.Fatalf("search=%s: answer %v, the substring match %v", q, got, want)
			}
			cancel()
		}
	})
	// Open, or half-open once breakerOpen has passed: either way no search is let through until
	// the sync worker has seen Meilisearch answer.
	if st := c.ix.br.cb.State(); st == gobreaker.StateClosed || c.ix.Usable() {
		t.Fatalf("breaker %s, usable %v after %d searches timed out", st, c.ix.Usable(), tripAfter)
	}
	if got := metric(t, reg, "calendard_search_meili_up"); got != 0 {
		t.Errorf("calendard_search_meili_up = %v, want 0", got)
	}
	if got := metric(t, reg, "calendard_search_meili_errors_total"); got < tripAfter {
		t.Errorf("calendard_search_meili_errors_total = %v, want at least %d", got, tripAfter)
	}
	t.Run("with the breaker open nothing calls Meilisearch", func(t *testing.T) {
		calls := c.ix.calls.Load()
		for range 3 {
			for _, q := range queries {
				f := everything(q, true)
				want, _ := ids(t, c.sql, c.site, f)
				if got := timedIDs(t, context.Background(), c.meili, c.site, f, searchBound); !slices.Equal(got, want) {
					t.Fatalf("search=%s: answer %v, the substring match %v", q, got, want)
				}
				if _, _, err := c.meili.(*Events).FindEventsByRelevance(context.Background(), c.site, f); err != nil {
					t.Fatal(err)
				}
			}
			want, err := c.db.SearchLinked(context.Background(), calendard.PostTypeVenue, "Hall")
			if err != nil {
				t.Fatal(err)
			}
			if got, err := linked.SearchLinked(context.Background(), calendard.PostTypeVenue, "Hall"); err != nil || !slices.Equal(got, want) {
				t.Fatalf("venue search=Hall: %v %v, find_like %v", got, err, want)
			}
			if _, err := geo.VenuesNear(context.Background(), 48.8776, 2.3019, 1000); err != nil {
				t.Fatal(err)
			}
		}
		if n := c.ix.calls.Load() - calls; n != 0 {
			t.Fatalf("%d searches sent to the stalled Meilisearch with the breaker open", n)
		}
	})

	if err := m.Resume(); err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	c.eventuallyWithin(t, recoverBound, "search=Marathn through Meilisearch again", func() bool {
		got, _ := ids(t, c.meili, c.site, typo)
		return slices.Equal(got, viaIndex)
	})
	t.Logf("searches through Meilisearch again %s after SIGCONT", time.Since(start).Round(time.Millisecond))
	if st := c.ix.br.cb.State(); st != gobreaker.StateClosed {
		t.Fatalf("breaker %s after recovery", st)
	}
	if got := metric(t, reg, "calendard_search_meili_up"); got != 1 {
		t.Errorf("calendard_search_meili_up = %v after recovery, want 1", got)
	}
}

// TestRestartedMeilisearchTakesOverWithinSeconds kills Meilisearch, searches meanwhile (answered
// from SQL; the breaker opens), and starts it again: searches go through it again within seconds,
// with the reconcile an hour away and no change to the calendar to wake the sync worker. The
// default retry pause (RetryMax) is kept.
func TestRestartedMeilisearchTakesOverWithinSeconds(t *testing.T) {
	for _, tc := range []struct {
		name  string
		wipe  bool
		bound time.Duration
	}{{"with its data", false, recoverBound}, {"without its data", true, refillBound}} {
		t.Run(tc.name, func(t *testing.T) {
			m := ownMeili(t)
			c := newCalendarWith(t, m, nil, time.Hour, Config{})
			typo := everything("Marathn", false)
			viaIndex, _ := ids(t, c.meili, c.site, typo)
			if len(viaIndex) == 0 {
				t.Fatal("search=Marathn finds nothing through Meilisearch before the kill")
			}
			m.Kill()
			if tc.wipe {
				if err := os.RemoveAll(filepath.Join(m.Dir, "data.ms")); err != nil {
					t.Fatal(err)
				}
			}
			want, _ := ids(t, c.sql, c.site, typo)
			for range tripAfter + 2 {
				if got := timedIDs(t, context.Background(), c.meili, c.site, typo, searchBound); !slices.Equal(got, want) {
					t.Fatalf("while down: %v, the substring match %v", got, want)
				}
			}
			if c.ix.Usable() {
				t.Fatal("the index counts as usable with Meilisearch killed")
			}
			if err := m.Start(); err != nil {
				t.Fatal(err)
			}
			start := time.Now()
			c.eventuallyWithin(t, tc.bound, "search=Marathn through Meilisearch again", func() bool {
				got, _ := ids(t, c.meili, c.site, typo)
				return slices.Equal(got, viaIndex)
			})
			t.Logf("searches through Meilisearch again %s after the restart", time.Since(start).Round(time.Millisecond))
		})
	}
}

// eventuallyWithin polls cond until it holds, failing after bound.
func (c *calendar) eventuallyWithin(t *testing.T, bound time.Duration, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(bound)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("%s: not within %s", what, bound)
		}
		time.Sleep(25 * time.Millisecond)
	}
}
