package taskrun

import (
	"testing"

	"github.com/authbench/authbench/agent"
)

func TestTrajectoryTokens(t *testing.T) {
	for _, c := range []struct {
		name    string
		tr      *agent.Trajectory
		in, out int64
		counted bool
	}{
		{"none", nil, 0, 0, false},
		{"no metrics", &agent.Trajectory{Steps: []agent.Step{{Message: "hi"}}}, 0, 0, false},
		{"summed", &agent.Trajectory{Steps: []agent.Step{
			{Metrics: &agent.Metrics{PromptTokens: 100, CompletionTokens: 10, CachedTokens: 50}},
			{Message: "tool output"},
			{Metrics: &agent.Metrics{PromptTokens: 200, CompletionTokens: 20}},
		}}, 300, 30, true},
	} {
		got := trajectoryTokens(c.tr)
		if (got != nil) != c.counted || got != nil && (got.Prompt != c.in || got.Completion != c.out || got.Total != c.in+c.out) {
			t.Errorf("%s: %+v, want %d in %d out (counted %v)", c.name, got, c.in, c.out, c.counted)
		}
	}
}
