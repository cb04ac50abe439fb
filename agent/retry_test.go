package agent_test

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"sync/atomic"
	"testing"

	"github.com/authbench/authbench/agent"
	"github.com/authbench/authbench/agent/agenttest"
)

// A connection dropped without a response is retried.
func TestLoopRetriesConnectionError(t *testing.T) {
	var n atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.Copy(io.Discard, r.Body)
		if n.Add(1) == 1 {
			conn, _, err := w.(http.Hijacker).Hijack()
			if err != nil {
				t.Error(err)
				return
			}
			conn.Close()
			return
		}
		w.Header().Set("Content-Type", "application/json")
		json.NewEncoder(w).Encode(map[string]any{
			"id": "x", "object": "chat.completion", "model": "m",
			"choices": []any{map[string]any{"index": 0, "finish_reason": "stop", "message": map[string]any{"role": "assistant", "content": "{}"}}},
		})
	}))
	defer srv.Close()
	out := (&agent.Loop{Config: config(srv.URL+"/v1", false), Final: jsonFinal}).Run(context.Background(), "sys", "go")
	if out.Reason != agent.StopFinished || n.Load() != 2 {
		t.Fatalf("reason %s err %v after %d requests", out.Reason, out.Err, n.Load())
	}
}

// Tool calls beyond MaxCallsPerTurn in one response are not run.
func TestLoopBoundsCallsPerResponse(t *testing.T) {
	var many []agenttest.Call
	for i := range agent.MaxCallsPerTurn + 3 {
		many = append(many, agenttest.Call{ID: fmt.Sprintf("c%d", i), Name: "echo", Arguments: `{"text":"x"}`})
	}
	srv := agenttest.New(t, agenttest.Reply{ToolCalls: many}, agenttest.Reply{ToolCalls: []agenttest.Call{{ID: "f", Name: "finish", Arguments: `{}`}}})
	var calls []string
	out := (&agent.Loop{Config: config(srv.URL, false), Tools: []agent.Tool{echoTool(&calls), finishTool()}}).Run(context.Background(), "sys", "go")
	if out.Reason != agent.StopFinished || len(calls) != agent.MaxCallsPerTurn {
		t.Fatalf("reason %s, %d calls run", out.Reason, len(calls))
	}
	res := out.Trajectory.Steps[2].Observation.Results
	if len(res) != len(many) || res[len(res)-1].Content != fmt.Sprintf("not run: at most %d tool calls per response", agent.MaxCallsPerTurn) {
		t.Errorf("last result %+v", res[len(res)-1])
	}
}
