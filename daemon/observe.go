package daemon

import (
	"net/http"
	"time"

	"github.com/authbench/authbench/runapi"
)

// Metrics counts what the daemon does (package daemon/metrics: in
// Prometheus, served on GET /metrics). Config.Metrics nil counts nothing
// and serves no metrics: a Manager embedded for one command.
type Metrics interface {
	// Transition moves one run from state from ("" for a new run) to to.
	Transition(from, to runapi.State)
	// RunEnded counts an ended run: its wall time (ran: it started) and
	// its trace events, recorded and lost.
	RunEnded(state runapi.State, ran bool, wall time.Duration, events, lost uint64)
	// QuotaRefused counts a run refused by the per-uid quota.
	QuotaRefused()
	// Refused counts a request refused by authorisation.
	Refused()
	// ConnRefused counts a connection refused by the connection limits.
	ConnRefused()
	// OutputDropped counts bytes of stdout and stderr not stored.
	OutputDropped(bytes int64)
	// Handler serves the metrics.
	Handler() http.Handler
}

// noMetrics counts nothing (Config.Metrics nil).
type noMetrics struct{}

func (noMetrics) Transition(runapi.State, runapi.State)                      {}
func (noMetrics) RunEnded(runapi.State, bool, time.Duration, uint64, uint64) {}
func (noMetrics) QuotaRefused()                                              {}
func (noMetrics) Refused()                                                   {}
func (noMetrics) ConnRefused()                                               {}
func (noMetrics) OutputDropped(int64)                                        {}
func (noMetrics) Handler() http.Handler                                      { return http.NotFoundHandler() }
