package agent_test

import (
	"context"
	"encoding/json"
	"fmt"
	"testing"
	"time"

	"github.com/authbench/authbench/agent"
	"github.com/authbench/authbench/agent/agenttest"
	"github.com/authbench/authbench/agent/modelconfig"
)

// BenchmarkLoopToolCalls measures the loop's own cost per tool call: a
// run of two model calls against the local scripted server, the first
// asking for MaxCallsPerTurn calls of a tool that does nothing. The
// local server's time is included, so ns/toolcall is an upper bound of
// the loop's share of a tool call.
func BenchmarkLoopToolCalls(b *testing.B) {
	var calls []agenttest.Call
	for i := range agent.MaxCallsPerTurn {
		calls = append(calls, agenttest.Call{ID: fmt.Sprintf("c%d", i), Name: "noop", Arguments: `{"path":"/etc/hostname"}`})
	}
	srv := agenttest.NewFunc(b, func(n int, req agenttest.Request) agenttest.Reply {
		if n%2 == 0 {
			return agenttest.Reply{ToolCalls: calls, PromptTokens: 100, CompletionTokens: 50}
		}
		return agenttest.Reply{ToolCalls: []agenttest.Call{{ID: "f", Name: "finish", Arguments: `{}`}}}
	})
	noop := agent.Tool{Name: "noop", Run: func(context.Context, json.RawMessage) (agent.Observation, error) {
		return agent.Observation{Text: "ok", Extra: map[string]any{"start_ns": 1, "end_ns": 2}}, nil
	}}
	finish := agent.Tool{Name: "finish", Run: func(context.Context, json.RawMessage) (agent.Observation, error) {
		return agent.Observation{Text: "bye", Done: true}, nil
	}}
	l := agent.Loop{Config: config(srv.URL, false), Tools: []agent.Tool{noop, finish}}
	b.ResetTimer()
	start := time.Now()
	for b.Loop() {
		if out := l.Run(context.Background(), "sys", "go"); out.Reason != modelconfig.StopFinished {
			b.Fatal(out.Err)
		}
	}
	total := time.Since(start)
	b.ReportMetric(float64(total.Nanoseconds())/float64(b.N)/float64(agent.MaxCallsPerTurn+1), "ns/toolcall")
}
