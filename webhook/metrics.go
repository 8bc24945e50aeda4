package webhook

import (
	"time"

	"github.com/prometheus/client_golang/prometheus"
)

// Metrics are the dispatcher's Prometheus series, labelled by endpoint host.
type Metrics struct {
	deliveries  *prometheus.CounterVec
	pendingG    *prometheus.GaugeVec
	lastSuccess *prometheus.GaugeVec
	lost        *prometheus.CounterVec
}

// NewMetrics registers the series on r.
func NewMetrics(r prometheus.Registerer) *Metrics {
	m := &Metrics{
		deliveries: prometheus.NewCounterVec(prometheus.CounterOpts{Name: "calendard_webhook_deliveries_total",
			Help: "Webhook delivery attempts by endpoint host and result (success, http_error, transport_error)."}, []string{"endpoint", "result"}),
		pendingG: prometheus.NewGaugeVec(prometheus.GaugeOpts{Name: "calendard_webhook_pending",
			Help: "Journal entries past the endpoint's cursor (some may not match its filter)."}, []string{"endpoint"}),
		lastSuccess: prometheus.NewGaugeVec(prometheus.GaugeOpts{Name: "calendard_webhook_last_success_timestamp_seconds",
			Help: "Unix time of the endpoint's last 2xx answer."}, []string{"endpoint"}),
		lost: prometheus.NewCounterVec(prometheus.CounterOpts{Name: "calendard_webhook_lost_total",
			Help: "Journal entries dropped by the journal's retention before they were delivered."}, []string{"endpoint"}),
	}
	r.MustRegister(m.deliveries, m.pendingG, m.lastSuccess, m.lost)
	return m
}

func (m *Metrics) delivered(endpoint, result string, at time.Time) {
	if m == nil {
		return
	}
	m.deliveries.WithLabelValues(endpoint, result).Inc()
	if !at.IsZero() {
		m.lastSuccess.WithLabelValues(endpoint).Set(float64(at.UnixNano()) / 1e9)
	}
}

func (m *Metrics) pending(endpoint string, n int64) {
	if m != nil {
		m.pendingG.WithLabelValues(endpoint).Set(float64(max(n, 0)))
	}
}

func (m *Metrics) lose(endpoint string, n int64) {
	if m != nil {
		m.lost.WithLabelValues(endpoint).Add(float64(n))
	}
}
