package daemon

import (
	"errors"
	"testing"
	"time"

	"github.com/authbench/authbench/runapi"
)

// TestTaskRequests: a task request's requests, max_requests and
// request_timeout_s are checked before anything runs, each refusal naming
// its field; the bounds become the run's limits.
func TestTaskRequests(t *testing.T) {
	for _, c := range []struct {
		tr    runapi.TaskRequest
		field string // "" when accepted
	}{
		{runapi.TaskRequest{}, ""},
		{runapi.TaskRequest{Requests: "spec", MaxRequests: 3, RequestTimeoutS: 2.5}, ""},
		{runapi.TaskRequest{Requests: "maybe"}, "task.requests"},
		{runapi.TaskRequest{Requests: "ask"}, "task.requests"},
		{runapi.TaskRequest{MaxRequests: 3}, "task.requests"},
		{runapi.TaskRequest{Requests: "deny", MaxRequests: 1001}, "task.max_requests"},
		{runapi.TaskRequest{Requests: "deny", MaxRequests: -1}, "task.max_requests"},
		{runapi.TaskRequest{Requests: "allow", RequestTimeoutS: 601}, "task.request_timeout_s"},
	} {
		err := checkRequests(&c.tr)
		var re *RequestError
		switch {
		case c.field == "" && err != nil:
			t.Errorf("%+v: %v", c.tr, err)
		case c.field != "" && (!errors.As(err, &re) || re.Field != c.field):
			t.Errorf("%+v: %v, want a bad %s", c.tr, err, c.field)
		}
	}
	l := RequestLimits(&runapi.TaskRequest{Requests: "spec", MaxRequests: 3, RequestTimeoutS: 2.5})
	if l.Max != 3 || l.Timeout != 2500*time.Millisecond {
		t.Errorf("limits %+v", l)
	}
}
