package daemon

import (
	"time"

	"github.com/authbench/authbench/permreq"
	"github.com/authbench/authbench/runapi"
)

// Bounds of a task request's permission requests.
const (
	maxMaxRequests     = 1000
	maxRequestTimeoutS = 600
)

// checkRequests checks a task run's requests, max_requests and
// request_timeout_s (the agent kind is checked by the run itself).
func checkRequests(tr *runapi.TaskRequest) error {
	if tr.Requests == "" {
		if tr.MaxRequests != 0 || tr.RequestTimeoutS != 0 {
			return badField("task.requests", "max_requests and request_timeout_s need a decider")
		}
		return nil
	}
	if err := permreq.CheckDecider(tr.Requests); err != nil {
		return badField("task.requests", "%v", err)
	}
	if tr.MaxRequests < 0 || tr.MaxRequests > maxMaxRequests {
		return badField("task.max_requests", "must be 0 (the default, %d) to %d, got %d", permreq.DefaultMaxRequests, maxMaxRequests, tr.MaxRequests)
	}
	if !(tr.RequestTimeoutS >= 0 && tr.RequestTimeoutS <= maxRequestTimeoutS) {
		return badField("task.request_timeout_s", "must be 0 (the default, %s) to %d seconds, got %v", permreq.DefaultTimeout, maxRequestTimeoutS, tr.RequestTimeoutS)
	}
	return nil
}

// RequestLimits are a checked task request's bounds of its permission
// requests.
func RequestLimits(tr *runapi.TaskRequest) permreq.Limits {
	return permreq.Limits{Max: tr.MaxRequests, Timeout: time.Duration(tr.RequestTimeoutS * float64(time.Second))}
}
