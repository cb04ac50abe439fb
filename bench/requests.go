package bench

import (
	"fmt"

	"github.com/authbench/authbench/agent/agentname"
	"github.com/authbench/authbench/permreq"
	"github.com/authbench/authbench/runapi"
)

// checkRequests checks --requests: a known decider, an openai:MODEL
// agent (the only kind that can request yet), bounds in range.
func (c *Config) checkRequests() error {
	if c.Requests == "" {
		if c.MaxRequests != 0 || c.RequestTimeoutS != 0 {
			return fmt.Errorf("bench: --max-requests and --request-timeout need --requests")
		}
		return nil
	}
	if err := permreq.CheckDecider(c.Requests); err != nil {
		return fmt.Errorf("bench: --requests: %w", err)
	}
	if n, _ := agentname.Parse(c.Agent); !n.CanRequest() {
		return fmt.Errorf("bench: --requests: agent %s cannot make permission requests (only openai:MODEL agents can, yet)", c.Agent)
	}
	if c.MaxRequests < 0 || c.MaxRequests > 1000 || !(c.RequestTimeoutS >= 0 && c.RequestTimeoutS <= 600) {
		return fmt.Errorf("bench: --max-requests must be 0 to 1000 and --request-timeout 0 to 600 seconds")
	}
	return nil
}

// requestsOn sets the bench's requests on a task request.
func (c *Config) requestsOn(tr *runapi.TaskRequest) {
	tr.Requests, tr.MaxRequests, tr.RequestTimeoutS = c.Requests, c.MaxRequests, c.RequestTimeoutS
}
