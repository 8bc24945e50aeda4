package search

import (
	"context"
	"errors"
	"net"
	"net/http"
	"sync"
	"time"

	"github.com/meilisearch/meilisearch-go"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/sony/gobreaker/v2"
)

// Defaults of the Meilisearch timeouts (Config.Timeout, Config.BackgroundTimeout).
const (
	// DefaultTimeout bounds a search on the request path: a few times the slowest Meilisearch
	// search on a large calendar and a loaded machine (BENCHMARKS.md), a tenth of the default
	// request deadline. A request waits at most this long on Meilisearch, and only until the
	// breaker opens.
	DefaultTimeout = 500 * time.Millisecond
	// DefaultBackgroundTimeout bounds each HTTP call of the sync worker and of Rebuild: long enough
	// for a batch of documents on a loaded machine, short enough that a hung Meilisearch does not
	// hold the worker for good.
	DefaultBackgroundTimeout = 30 * time.Second
)

// Breaker tuning: tripAfter consecutive failed searches open it (one slow search alone only
// answers from SQL); after breakerOpen the next search is a trial, once the sync worker has seen
// Meilisearch answer again.
const (
	tripAfter   = 3
	breakerOpen = time.Second
)

// clients returns the Meilisearch clients: one for the background (each HTTP call bounded by
// background, the library's retries on 502-504 kept) and one for the request path (no retries:
// the caller's timeout and the breaker decide).
func clients(cfg Config) (background, requests meilisearch.ServiceManager) {
	transport := func() *http.Transport {
		return &http.Transport{
			Proxy:                 http.ProxyFromEnvironment,
			DialContext:           (&net.Dialer{Timeout: 10 * time.Second, KeepAlive: 30 * time.Second}).DialContext,
			MaxIdleConns:          100,
			MaxIdleConnsPerHost:   100,
			IdleConnTimeout:       90 * time.Second,
			TLSHandshakeTimeout:   10 * time.Second,
			ExpectContinueTimeout: time.Second,
		}
	}
	opts := func(c *http.Client, more ...meilisearch.Option) []meilisearch.Option {
		o := []meilisearch.Option{meilisearch.WithCustomClient(c)}
		if cfg.Key != "" {
			o = append(o, meilisearch.WithAPIKey(cfg.Key))
		}
		return append(o, more...)
	}
	background = meilisearch.New(cfg.URL, opts(&http.Client{Transport: transport(), Timeout: cfg.BackgroundTimeout})...)
	requests = meilisearch.New(cfg.URL, opts(&http.Client{Transport: transport()}, meilisearch.DisableRetries())...)
	return background, requests
}

// breakerState is the request path's circuit breaker and what it reports.
type breakerState struct {
	cb *gobreaker.CircuitBreaker[[]int64]
	// lastErr is the last failed search, for the log line of the trip.
	mu      sync.Mutex
	lastErr error
	errors  prometheus.Counter
}

// callerGone wraps the error of a search whose caller went away (its context cancelled, a client
// that hung up): not Meilisearch's failure, so the breaker does not count it. A caller's deadline
// that ends first does count: Meilisearch did not answer in the time the request had.
type callerGone struct{ error }

func (e callerGone) Unwrap() error { return e.error }

func (ix *Index) newBreaker() {
	ix.br.errors = prometheus.NewCounter(prometheus.CounterOpts{Name: "calendard_search_meili_errors_total",
		Help: "Searches Meilisearch failed or did not answer within CALENDAR_MEILI_TIMEOUT (each answered from SQL)."})
	ix.br.cb = gobreaker.NewCircuitBreaker[[]int64](gobreaker.Settings{
		Name:        "meilisearch",
		MaxRequests: 1,
		Timeout:     breakerOpen,
		ReadyToTrip: func(c gobreaker.Counts) bool { return c.ConsecutiveFailures >= tripAfter },
		IsExcluded: func(err error) bool {
			var g callerGone
			return errors.As(err, &g)
		},
		OnStateChange: func(_ string, from, to gobreaker.State) { ix.breakerChanged(from, to) },
	})
	if r := ix.cfg.Registerer; r != nil {
		r.MustRegister(ix.br.errors, prometheus.NewGaugeFunc(prometheus.GaugeOpts{Name: "calendard_search_meili_up",
			Help: "1 while searches go through Meilisearch; 0 while they are answered from SQL (Meilisearch failing or not answering, or the index catching up)."},
			func() float64 {
				if ix.Usable() {
					return 1
				}
				return 0
			}))
	}
}

// breakerChanged logs each change of state once and, when the breaker opens, has the sync worker
// probe Meilisearch (with its backoff) until it answers. It runs under the breaker's lock: it
// must not call the breaker.
func (ix *Index) breakerChanged(from, to gobreaker.State) {
	switch to {
	case gobreaker.StateOpen:
		ix.br.mu.Lock()
		err := ix.br.lastErr
		ix.br.mu.Unlock()
		if from == gobreaker.StateClosed {
			ix.log.Warn("Meilisearch searches failing: answered from SQL until Meilisearch answers again",
				"failures", tripAfter, "err", err)
			ix.down.Store(true) // the sync worker logs the end of the outage, once
		} else {
			// Still failing (or slow while its other calls answer): not a new outage to log.
			ix.log.Debug("Meilisearch trial search failed", "err", err)
		}
		ix.healthy.Store(false)
		ix.mu.Lock()
		ix.verify = true
		ix.mu.Unlock()
		ix.signal()
	case gobreaker.StateHalfOpen:
		ix.log.Debug("Meilisearch breaker half-open: the next search is a trial")
	case gobreaker.StateClosed:
		ix.log.Info("Meilisearch searches answer again")
	}
}

// lookup is IDs for the request path: bounded by the timeout, through the breaker. An open
// breaker answers at once with an error (no call to Meilisearch); the caller answers from SQL.
func (ix *Index) lookup(ctx context.Context, kind, query, filter string, sort []string) ([]int64, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	return ix.br.cb.Execute(func() ([]int64, error) {
		ix.calls.Add(1)
		cctx, cancel := context.WithTimeout(ctx, ix.cfg.Timeout)
		defer cancel()
		ids, err := ix.ids(cctx, ix.searcher, kind, query, filter, sort)
		if err == nil {
			return ids, nil
		}
		if errors.Is(ctx.Err(), context.Canceled) {
			return nil, callerGone{err}
		}
		ix.br.errors.Inc()
		ix.br.mu.Lock()
		ix.br.lastErr = err
		ix.br.mu.Unlock()
		return nil, err
	})
}
