package taskrun

import (
	"github.com/authbench/authbench/agent"
	"github.com/authbench/authbench/runapi"
)

// trajectoryTokens sums the token metrics of a transcript's steps (an
// installed harness's, converted to ATIF); nil when no step carries any.
func trajectoryTokens(tr *agent.Trajectory) *runapi.TokenCounts {
	if tr == nil {
		return nil
	}
	var c *runapi.TokenCounts
	for _, s := range tr.Steps {
		if s.Metrics == nil {
			continue
		}
		if c == nil {
			c = &runapi.TokenCounts{}
		}
		c.Prompt += s.Metrics.PromptTokens
		c.Completion += s.Metrics.CompletionTokens
	}
	if c != nil {
		c.Total = c.Prompt + c.Completion
	}
	return c
}
