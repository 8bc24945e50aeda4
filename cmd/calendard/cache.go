package main

import (
	"log/slog"
	"net"
	"net/http"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/prometheus/client_golang/prometheus/promhttp"

	"github.com/calendard/calendard/cache"
	"github.com/calendard/calendard/wpdb"
)

// newMetrics is the registry /metrics serves (nil when CALENDAR_METRICS=off): the Go runtime's and
// the process's series, then what the cache and the HTTP layer register. The series say how busy
// the service is and which routes it serves: they are not on the API listener unless
// CALENDAR_METRICS=public (handlers.Config.PublicMetrics), only on the loopback diagnostics
// listener and on CALENDAR_METRICS_ADDR (serveMetrics).
func newMetrics(cfg *Config) *prometheus.Registry {
	if !cfg.Metrics {
		return nil
	}
	reg := prometheus.NewRegistry()
	reg.MustRegister(collectors.NewGoCollector(), collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}))
	return reg
}

// openCache builds the response cache on the store's one change feed. Redis need not be there:
// answers come from the database until it is.
func openCache(cfg *Config, store *wpdb.Store, db *wpdb.DB, log *slog.Logger, reg *prometheus.Registry) (*cache.Cache, error) {
	var r prometheus.Registerer
	if reg != nil {
		r = reg
	}
	mode := cfg.Cache
	if mode != cache.Off && cfg.WatchInterval == 0 {
		// Without the watermark poll the store keeps nothing between requests (Store.Generation
		// stays 0), and a change WordPress makes would never reach a cached answer.
		log.Warn("response cache off: CALENDAR_WATCH_INTERVAL=0")
		mode = cache.Off
	}
	c, err := cache.New(cache.Options{Mode: mode, RedisURL: cfg.RedisURL, Prefix: cfg.CachePrefix, TTL: cfg.CacheTTL,
		MaxBytes: cfg.CacheBytes, Timeout: cfg.RedisTimeout, Push: cfg.RedisPush, Logger: log, Registerer: r, Private: cfg.CachePrivate,
		Generation: store.Generation, Quiescent: store.Quiescent, Feed: db.Changes(), Sync: db.Changes().Sync})
	if err != nil {
		return nil, &ConfigError{Var: "CALENDAR_CACHE", Err: err}
	}
	return c, nil
}

// serveMetrics serves reg at /metrics on the diagnostics listener (when CALENDAR_DEBUG_ADDR started
// one) and on a listener of its own at CALENDAR_METRICS_ADDR. The returned function stops the
// latter.
func serveMetrics(cfg *Config, reg *prometheus.Registry) (stop func(), err error) {
	stop = func() {}
	if reg == nil {
		return stop, nil
	}
	h := promhttp.HandlerFor(reg, promhttp.HandlerOpts{})
	debugMetrics.Store(&h)
	if cfg.MetricsAddr == "" {
		return stop, nil
	}
	ln, err := net.Listen("tcp", cfg.MetricsAddr)
	if err != nil {
		return stop, &ConfigError{Var: "CALENDAR_METRICS_ADDR", Err: err}
	}
	mux := http.NewServeMux()
	mux.Handle("/metrics", h)
	srv := &http.Server{Handler: mux, ReadHeaderTimeout: 10 * time.Second}
	go func() { _ = srv.Serve(ln) }()
	return func() { _ = srv.Close() }, nil
}
