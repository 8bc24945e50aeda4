package main

import (
	"github.com/prometheus/client_golang/prometheus"

	"github.com/calendard/calendard/wpdb"
)

// watchMetrics exports how the change feed keeps up with changes made directly in the database
// (WordPress' own saves): calendard_watch_poll_seconds, how long the latest watermark reading took,
// and calendard_watch_interval_seconds, the wait between polls (CALENDAR_WATCH_INTERVAL, longer on a
// calendar whose readings are slow, so that polling takes at most 2 % of a core). Their sum bounds
// how late such a change shows, replica lag aside: about 25 s at a million events on MariaDB.
func watchMetrics(cfg *Config, feed *wpdb.Feed, reg *prometheus.Registry) {
	if reg == nil || cfg.WatchInterval <= 0 {
		return
	}
	reg.MustRegister(
		prometheus.NewGaugeFunc(prometheus.GaugeOpts{Name: "calendard_watch_poll_seconds",
			Help: "How long the latest watermark reading of the change feed took."},
			func() float64 { return feed.PollTook().Seconds() }),
		prometheus.NewGaugeFunc(prometheus.GaugeOpts{Name: "calendard_watch_interval_seconds",
			Help: "The wait between two polls of the change feed: CALENDAR_WATCH_INTERVAL, or longer when readings are slow (at most 2 % of a core)."},
			func() float64 { return feed.PollWait(cfg.WatchInterval).Seconds() }))
}
