package bench

import (
	"fmt"
	"strings"

	"github.com/authbench/authbench/agent/agentname"
	"github.com/authbench/authbench/permreq"
	"github.com/authbench/authbench/runapi"
)

// checkRequests checks --requests: a known decider, an openai:MODEL
// agent (it asks itself) or the oracle (the bench's requester asks for
// it, with the spec, deny or allow decider: the bench links no model
// client), bounds in range.
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
	n, _ := agentname.Parse(c.Agent)
	switch {
	case requesterAgent(c.Agent) && strings.HasPrefix(c.Requests, permreq.DeciderModel):
		return fmt.Errorf("bench: --requests %s with agent %s: the bench decides the oracle's requests itself and links no model client; use spec, deny or allow", c.Requests, c.Agent)
	case !n.CanRequest() && !requesterAgent(c.Agent):
		return fmt.Errorf("bench: --requests: agent %s cannot make permission requests (openai:MODEL, cmd:COMMAND and installed:NAME agents, and the oracle through the bench's requester, can)", c.Agent)
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
