package main

import (
	"log/slog"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/calendard/calendard/wpdb"
)

// useReplicas sends reads to CALENDAR_DB_REPLICAS (docs/operations.md, "Read replicas") and
// exports their states: calendard_db_replica_up and calendard_db_replica_reads_total per replica,
// calendard_db_primary_reads_total for the reads that went to the primary for want of a replica
// fresh enough.
func useReplicas(cfg *Config, db *wpdb.DB, log *slog.Logger, reg *prometheus.Registry) error {
	if len(cfg.DBReplicas) == 0 {
		return nil
	}
	if err := db.UseReplicas(cfg.DBReplicas, wpdb.ReplicaOptions{MaxLag: cfg.ReplicaMaxLag, Logger: log}); err != nil {
		return &ConfigError{Var: "CALENDAR_DB_REPLICAS", Err: err}
	}
	if reg == nil {
		return nil
	}
	states, _ := db.Replicas()
	for i, st := range states {
		labels := prometheus.Labels{"replica": st.Addr}
		reg.MustRegister(
			prometheus.NewGaugeFunc(prometheus.GaugeOpts{Name: "calendard_db_replica_up", ConstLabels: labels,
				Help: "1 while reads may go to the read replica, 0 while it is unreachable, lagging beyond CALENDAR_REPLICA_MAX_LAG, or not checked yet."},
				func() float64 {
					if s, _ := db.Replicas(); s[i].Up {
						return 1
					}
					return 0
				}),
			prometheus.NewCounterFunc(prometheus.CounterOpts{Name: "calendard_db_replica_reads_total", ConstLabels: labels,
				Help: "Statements and read transactions the read replica served."},
				func() float64 { s, _ := db.Replicas(); return float64(s[i].Reads) }))
	}
	reg.MustRegister(prometheus.NewCounterFunc(prometheus.CounterOpts{Name: "calendard_db_primary_reads_total",
		Help: "Reads sent to the primary because no read replica was usable and had applied every write known (0 without CALENDAR_DB_REPLICAS)."},
		func() float64 { _, n := db.Replicas(); return float64(n) }))
	return nil
}
