// Package metrics counts what a daemon does in Prometheus metrics,
// served on its GET /metrics (daemon.Config.Metrics). The daemon's core
// does not link Prometheus: a Manager embedded for one command (exec)
// counts nothing.
package metrics

import (
	"net/http"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/promhttp"

	"github.com/authbench/authbench/runapi"
)

// Metrics are the daemon's Prometheus metrics (daemon.Metrics).
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

// New returns the metrics of a daemon, each at zero.
func New() *Metrics {
	m := &Metrics{
		registry: prometheus.NewRegistry(),
		runs: prometheus.NewGaugeVec(prometheus.GaugeOpts{
			Name: "authbench_runs", Help: "Runs known to the daemon, by state.",
		}, []string{"state"}),
		events: newCounter("authbench_trace_events_total", "Trace events recorded over all runs."),
		lost:   newCounter("authbench_trace_lost_events_total", "Trace events lost (ring buffer full or undecodable) over all runs."),
		durations: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Name: "authbench_run_duration_seconds", Help: "Wall time of finished runs, by final state.",
			Buckets: prometheus.ExponentialBuckets(0.005, 4, 10),
		}, []string{"state"}),
		refused:       newCounter("authbench_api_refused_total", "API requests refused by peer-credential authorisation."),
		connsRefused:  newCounter("authbench_api_connections_refused_total", "API connections refused by the per-uid or non-root connection limits."),
		quotaRefused:  newCounter("authbench_runs_refused_quota_total", "Runs refused by the per-uid active-run quota."),
		outputDropped: newCounter("authbench_output_dropped_bytes_total", "Bytes of runs' stdout and stderr not stored (output cap or write error)."),
	}
	m.registry.MustRegister(m.runs, m.events, m.lost, m.durations, m.refused, m.connsRefused, m.quotaRefused, m.outputDropped)
	for _, s := range runapi.AllStates {
		m.runs.WithLabelValues(string(s))
	}
	return m
}

// Transition moves one run from state from ("" for a new run) to to.
func (m *Metrics) Transition(from, to runapi.State) {
	if from != "" {
		m.runs.WithLabelValues(string(from)).Dec()
	}
	m.runs.WithLabelValues(string(to)).Inc()
}

// RunEnded counts an ended run: its wall time (ran: it started) and
// its trace events, recorded and lost.
func (m *Metrics) RunEnded(state runapi.State, ran bool, wall time.Duration, events, lost uint64) {
	if ran {
		m.durations.WithLabelValues(string(state)).Observe(wall.Seconds())
	}
	m.events.Add(float64(events))
	m.lost.Add(float64(lost))
}

// QuotaRefused counts a run refused by the per-uid active-run quota.
func (m *Metrics) QuotaRefused() { m.quotaRefused.Inc() }

// Refused counts an API request refused by peer-credential
// authorisation.
func (m *Metrics) Refused() { m.refused.Inc() }

// ConnRefused counts a connection refused by the connection limits.
func (m *Metrics) ConnRefused() { m.connsRefused.Inc() }

// OutputDropped counts bytes of a run's stdout and stderr not stored.
func (m *Metrics) OutputDropped(bytes int64) { m.outputDropped.Add(float64(bytes)) }

// Handler serves the metrics in Prometheus's text format.
func (m *Metrics) Handler() http.Handler {
	return promhttp.HandlerFor(m.registry, promhttp.HandlerOpts{})
}

// newCounter is a counter named name with help text help.
func newCounter(name, help string) prometheus.Counter {
	return prometheus.NewCounter(prometheus.CounterOpts{Name: name, Help: help})
}
