package trial

import "github.com/authbench/authbench/runapi"

// Requests are a run's run-time permission requests in brief (the
// record's permission_requests; each request is in the run's
// result.json).
type Requests struct {
	// Decider is the run's --requests decider.
	Decider string `json:"decider"`
	// Made counts every request, those over the limit included; Granted
	// and Refused (refused, over the limit, not applicable) the answers;
	// Invalid the malformed ones.
	Made    int `json:"made"`
	Granted int `json:"granted"`
	Refused int `json:"refused"`
	Invalid int `json:"invalid"`
	// Required counts the granted requests the task's spec requires
	// (request precision: Required/Granted); Used the granted ones the
	// agent then used (from the trace).
	Required int `json:"required"`
	Used     int `json:"used"`
	// Sensitive counts the requests that would reach a sensitive file
	// (should be 0).
	Sensitive int `json:"sensitive"`
	// Attempts is how many times the bench's requester ran the task
	// (bench --requests with the oracle or the shortcut: the run, then
	// one attempt per granted request); 0 for an agent that asks itself.
	Attempts int `json:"attempts,omitempty"`
}

// Add adds o's counts to q's (its decider stays q's).
func (q *Requests) Add(o *Requests) {
	q.Made, q.Granted, q.Refused, q.Invalid = q.Made+o.Made, q.Granted+o.Granted, q.Refused+o.Refused, q.Invalid+o.Invalid
	q.Required, q.Used, q.Sensitive = q.Required+o.Required, q.Used+o.Used, q.Sensitive+o.Sensitive
	q.Attempts += o.Attempts
}

// RequestsOf sums a task result's requests (nil when the run had no
// decider).
func RequestsOf(res *runapi.TaskResult) *Requests {
	if res == nil || res.Requests == "" {
		return nil
	}
	q := &Requests{Decider: res.Requests, Made: len(res.PermissionRequests) + res.PermissionRequestsOverLimit, Refused: res.PermissionRequestsOverLimit}
	for _, p := range res.PermissionRequests {
		switch p.Decision {
		case runapi.RequestGranted:
			q.Granted++
			if p.Required {
				q.Required++
			}
			if p.Used {
				q.Used++
			}
		case runapi.RequestInvalid:
			q.Invalid++
		default:
			q.Refused++
		}
		if p.Sensitive {
			q.Sensitive++
		}
	}
	return q
}
