package main

import (
	"log/slog"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"

	"github.com/calendard/calendard/cache"
	"github.com/calendard/calendard/wpdb"
)

// newMetrics is the registry /metrics serves (nil when CALENDAR_METRICS=off): the Go runtime's and
// the process's series, then what the cache and the HTTP layer register.
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
		MaxBytes: cfg.CacheBytes, Timeout: cfg.RedisTimeout, Logger: log, Registerer: r,
		Generation: store.Generation, Quiescent: store.Quiescent, Feed: db.Changes()})
	if err != nil {
		return nil, &ConfigError{Var: "CALENDAR_CACHE", Err: err}
	}
	return c, nil
}
