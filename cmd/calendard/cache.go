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
	c, err := cache.New(cache.Options{Mode: cfg.Cache, RedisURL: cfg.RedisURL, Prefix: cfg.CachePrefix, TTL: cfg.CacheTTL,
		MaxBytes: cfg.CacheBytes, Timeout: cfg.RedisTimeout, Logger: log, Registerer: r,
		Generation: store.Generation, Quiescent: store.Quiescent, Feed: db.Changes()})
	if err != nil {
		return nil, &ConfigError{Var: "CALENDAR_CACHE", Err: err}
	}
	if cfg.Cache != cache.Off && cfg.WatchInterval == 0 {
		// Store.Generation is 0 without the watermark poll: nothing is kept between requests.
		log.Warn("response cache idle: CALENDAR_WATCH_INTERVAL=0 keeps nothing between requests")
	}
	return c, nil
}
