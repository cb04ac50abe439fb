package agent_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/authbench/authbench/agent"
	"github.com/authbench/authbench/agent/agenttest"
)

// modes runs a test in non-streaming and streaming mode.
func modes(t *testing.T, f func(t *testing.T, stream bool)) {
	for _, stream := range []bool{false, true} {
		t.Run(fmt.Sprintf("stream=%v", stream), func(t *testing.T) { f(t, stream) })
	}
}

func config(url string, stream bool) agent.Config {
	return agent.Config{BaseURL: url, APIKey: "sk-test-SECRET", Model: "test-model", Stream: stream, MaxRetries: 2}
}

// echoTool returns its "text" argument upper-cased and counts its calls.
func echoTool(calls *[]string) agent.Tool {
	return agent.Tool{
		Name: "echo", Description: "echo text",
		Parameters: map[string]any{"type": "object", "properties": map[string]any{"text": map[string]any{"type": "string"}}},
		Run: func(ctx context.Context, args json.RawMessage) (agent.Observation, error) {
			var a struct{ Text string }
			if err := json.Unmarshal(args, &a); err != nil {
				return agent.Observation{}, err
			}
			*calls = append(*calls, a.Text)
			if a.Text == "fail" {
				return agent.Observation{}, errors.New("echo refuses to fail")
			}
			return agent.Observation{Text: strings.ToUpper(a.Text), Extra: map[string]any{"len": len(a.Text)}}, nil
		},
	}
}

func finishTool() agent.Tool {
	return agent.Tool{
		Name: "finish", Description: "end the task",
		Parameters: map[string]any{"type": "object", "properties": map[string]any{"summary": map[string]any{"type": "string"}}},
		Run: func(ctx context.Context, args json.RawMessage) (agent.Observation, error) {
			var a struct{ Summary string }
			if err := json.Unmarshal(args, &a); err != nil {
				return agent.Observation{}, err
			}
			return agent.Observation{Text: "finished", Done: true, Extra: map[string]any{agent.ExtraSummary: a.Summary}}, nil
		},
	}
}

func TestLoopMultiTurnToolCalls(t *testing.T) {
	modes(t, func(t *testing.T, stream bool) {
		srv := agenttest.New(t,
			agenttest.Reply{Content: "Let me look.", ToolCalls: []agenttest.Call{{ID: "c1", Name: "echo", Arguments: `{"text":"hello"}`}}, PromptTokens: 10, CompletionTokens: 5},
			agenttest.Reply{ToolCalls: []agenttest.Call{
				{ID: "c2", Name: "echo", Arguments: `{"text":"two"}`},
				{ID: "c3", Name: "echo", Arguments: `{"text":"three"}`},
			}, PromptTokens: 20, CompletionTokens: 7},
			agenttest.Reply{ToolCalls: []agenttest.Call{{ID: "c4", Name: "finish", Arguments: `{"summary":"all done"}`}}, PromptTokens: 30, CompletionTokens: 3},
		)
		var calls []string
		l := agent.Loop{Config: config(srv.URL, stream), Tools: []agent.Tool{echoTool(&calls), finishTool()}, AgentName: "authbench-test", AgentVersion: "1"}
		out := l.Run(context.Background(), "You are a test.", "Do it.")
		if out.Reason != agent.StopFinished || out.Err != nil {
			t.Fatalf("reason %s err %v", out.Reason, out.Err)
		}
		if got := strings.Join(calls, ","); got != "hello,two,three" {
			t.Errorf("tool calls %q", got)
		}
		if out.Turns != 3 || out.Summary != "all done" {
			t.Errorf("turns %d summary %q", out.Turns, out.Summary)
		}
		if out.Usage != (agent.Usage{PromptTokens: 60, CompletionTokens: 15, TotalTokens: 75}) {
			t.Errorf("usage %+v", out.Usage)
		}
		reqs := srv.Requests()
		if len(reqs) != 3 {
			t.Fatalf("%d requests", len(reqs))
		}
		for _, r := range reqs {
			if r.Stream != stream || r.Model != "test-model" || strings.Join(r.Tools, ",") != "echo,finish" {
				t.Errorf("request stream %v model %q tools %v", r.Stream, r.Model, r.Tools)
			}
		}
		if got := agenttest.LastToolResult(reqs[1]); got != "HELLO" {
			t.Errorf("second request's tool result %q", got)
		}
		// The third request answers both calls of the second response, in order, by id.
		var toolMsgs []string
		for _, m := range reqs[2].Messages {
			if m["role"] == "tool" {
				toolMsgs = append(toolMsgs, fmt.Sprintf("%v=%v", m["tool_call_id"], m["content"]))
			}
		}
		if got := strings.Join(toolMsgs, " "); got != "c1=HELLO c2=TWO c3=THREE" {
			t.Errorf("tool messages %q", got)
		}
	})
}
