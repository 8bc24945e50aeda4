package main

import (
	"context"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
)

// /metrics shows how long the change feed's watermark reading took and how long it waits between
// polls: with a reading far slower than the interval allows at 2 % of a core, the wait grows.
func TestWatchMetricsShowThePollAndItsInterval(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	db := migratedSQLite(t)
	cfg := &Config{Metrics: true, WatchInterval: time.Nanosecond}
	// One poll, as the watch makes them (a running watch could poll again between the two reads).
	if _, err := db.Changes().Poll(ctx); err != nil {
		t.Fatal(err)
	}
	reg := prometheus.NewRegistry()
	watchMetrics(cfg, db.Changes(), reg)
	got := map[string]float64{}
	mfs, err := reg.Gather()
	if err != nil {
		t.Fatal(err)
	}
	for _, mf := range mfs {
		got[mf.GetName()] = mf.GetMetric()[0].GetGauge().GetValue()
	}
	took, wait := got["calendard_watch_poll_seconds"], got["calendard_watch_interval_seconds"]
	if took <= 0 {
		t.Fatalf("calendard_watch_poll_seconds %v after a poll (metrics %v)", took, got)
	}
	// A 1 ns interval: the wait is the duty cycle's, 49 times the reading.
	if want := 49 * took; wait < want*0.99 || wait > want*1.01 {
		t.Errorf("calendard_watch_interval_seconds %v, want 49 × %v", wait, took)
	}
}
