package daemon

import (
	"github.com/prometheus/client_golang/prometheus"
)

// Metrics are the daemon's Prometheus metrics, served on GET /metrics.
type Metrics struct {
	registry  *prometheus.Registry
	runs      *prometheus.GaugeVec
	events    prometheus.Counter
	lost      prometheus.Counter
	durations *prometheus.HistogramVec
	refused   prometheus.Counter
	// connsRefused counts connections refused by the connection limits,
	// quotaRefused runs refused by the per-uid active-run quota.
	connsRefused prometheus.Counter
	quotaRefused prometheus.Counter
	// outputDropped counts bytes of stdout and stderr not stored (cap or
	// write error), over all runs.
	outputDropped prometheus.Counter
}

func newMetrics() *Metrics {
	m := &Metrics{
		registry: prometheus.NewRegistry(),
		runs: prometheus.NewGaugeVec(prometheus.GaugeOpts{
			Name: "authbench_runs", Help: "Runs known to the daemon, by state.",
		}, []string{"state"}),
		events: prometheus.NewCounter(prometheus.CounterOpts{
			Name: "authbench_trace_events_total", Help: "Trace events recorded over all runs.",
		}),
		lost: prometheus.NewCounter(prometheus.CounterOpts{
			Name: "authbench_trace_lost_events_total", Help: "Trace events lost (ring buffer full or undecodable) over all runs.",
		}),
		durations: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Name: "authbench_run_duration_seconds", Help: "Wall time of finished runs, by final state.",
			Buckets: prometheus.ExponentialBuckets(0.005, 4, 10),
		}, []string{"state"}),
		refused: prometheus.NewCounter(prometheus.CounterOpts{
			Name: "authbench_api_refused_total", Help: "API requests refused by peer-credential authorisation.",
		}),
		connsRefused: prometheus.NewCounter(prometheus.CounterOpts{
			Name: "authbench_api_connections_refused_total", Help: "API connections refused by the per-uid or non-root connection limits.",
		}),
		quotaRefused: prometheus.NewCounter(prometheus.CounterOpts{
			Name: "authbench_runs_refused_quota_total", Help: "Runs refused by the per-uid active-run quota.",
		}),
		outputDropped: prometheus.NewCounter(prometheus.CounterOpts{
			Name: "authbench_output_dropped_bytes_total", Help: "Bytes of runs' stdout and stderr not stored (output cap or write error).",
		}),
	}
	m.registry.MustRegister(m.runs, m.events, m.lost, m.durations, m.refused, m.connsRefused, m.quotaRefused, m.outputDropped)
	for _, s := range AllStates {
		m.runs.WithLabelValues(string(s))
	}
	return m
}

// transition moves one run from state from ("" for a new run) to to.
func (m *Metrics) transition(from, to State) {
	if from != "" {
		m.runs.WithLabelValues(string(from)).Dec()
	}
	m.runs.WithLabelValues(string(to)).Inc()
}
