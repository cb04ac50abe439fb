package agent_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/authbench/authbench/agent"
	"github.com/authbench/authbench/agent/agenttest"
	"github.com/authbench/authbench/agent/modelconfig"
)

// modes runs a test in non-streaming and streaming mode.
func modes(t *testing.T, f func(t *testing.T, stream bool)) {
	for _, stream := range []bool{false, true} {
		t.Run(fmt.Sprintf("stream=%v", stream), func(t *testing.T) { f(t, stream) })
	}
}

func config(url string, stream bool) modelconfig.Config {
	return modelconfig.Config{BaseURL: url, APIKey: "sk-test-SECRET", Model: "test-model", Stream: stream, MaxRetries: 2}
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
		if out.Reason != modelconfig.StopFinished || out.Err != nil {
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

// jsonFinal accepts an answer that is a JSON object.
func jsonFinal(content string) error {
	var v map[string]any
	if err := json.Unmarshal([]byte(content), &v); err != nil {
		return fmt.Errorf("not a JSON object: %w", err)
	}
	return nil
}

func TestLoopFinalAnswerRepaired(t *testing.T) {
	modes(t, func(t *testing.T, stream bool) {
		srv := agenttest.New(t,
			agenttest.Reply{Content: `{"read": ["/etc"]`},
			agenttest.Reply{Content: `{"read": ["/etc"]}`},
		)
		l := agent.Loop{Config: config(srv.URL, stream), Final: jsonFinal}
		out := l.Run(context.Background(), "sys", "write pi")
		if out.Reason != modelconfig.StopFinished || out.Err != nil || out.Final != `{"read": ["/etc"]}` {
			t.Fatalf("reason %s err %v final %q", out.Reason, out.Err, out.Final)
		}
		reqs := srv.Requests()
		re := agenttest.LastUserMessage(reqs[1])
		if !strings.Contains(re, "not a JSON object: unexpected end of JSON input") {
			t.Errorf("re-ask %q does not carry the parser's error", re)
		}
		if out.Turns != 2 {
			t.Errorf("turns %d", out.Turns)
		}
	})
}

func TestLoopFinalAnswerStillInvalid(t *testing.T) {
	modes(t, func(t *testing.T, stream bool) {
		srv := agenttest.New(t, agenttest.Reply{Content: "policy: /etc"}, agenttest.Reply{Content: "policy: /etc again"})
		l := agent.Loop{Config: config(srv.URL, stream), Final: jsonFinal}
		out := l.Run(context.Background(), "sys", "write pi")
		if out.Reason != modelconfig.StopInvalidAnswer {
			t.Fatalf("reason %s", out.Reason)
		}
		if out.Err == nil || !strings.Contains(out.Err.Error(), "not a JSON object: invalid character 'p'") {
			t.Errorf("err %v lacks the parser's message", out.Err)
		}
		if out.Final != "policy: /etc again" {
			t.Errorf("final %q: want the last answer", out.Final)
		}
		if len(srv.Requests()) != 2 {
			t.Errorf("%d requests, want 2 (one repair)", len(srv.Requests()))
		}
	})
}

func TestLoopRetriesServerError(t *testing.T) {
	modes(t, func(t *testing.T, stream bool) {
		srv := agenttest.New(t,
			agenttest.Reply{Status: 500, Body: `{"error":{"message":"overloaded","type":"server_error"}}`},
			agenttest.Reply{Content: `{}`},
		)
		l := agent.Loop{Config: config(srv.URL, stream), Final: jsonFinal}
		out := l.Run(context.Background(), "sys", "go")
		if out.Reason != modelconfig.StopFinished || out.Turns != 1 {
			t.Fatalf("reason %s turns %d err %v", out.Reason, out.Turns, out.Err)
		}
		if n := len(srv.Requests()); n != 2 {
			t.Errorf("%d requests, want 2", n)
		}
	})
}

func TestLoopRetryAfter(t *testing.T) {
	modes(t, func(t *testing.T, stream bool) {
		srv := agenttest.New(t,
			agenttest.Reply{Status: 429, Header: map[string]string{"Retry-After": "1"}, Body: `{"error":{"message":"slow down","type":"rate_limit"}}`},
			agenttest.Reply{Content: `{}`},
		)
		l := agent.Loop{Config: config(srv.URL, stream), Final: jsonFinal}
		out := l.Run(context.Background(), "sys", "go")
		if out.Reason != modelconfig.StopFinished {
			t.Fatalf("reason %s err %v", out.Reason, out.Err)
		}
		reqs := srv.Requests()
		if len(reqs) != 2 {
			t.Fatalf("%d requests", len(reqs))
		}
		if gap := reqs[1].Time.Sub(reqs[0].Time); gap < 900*time.Millisecond {
			t.Errorf("retry %v after the 429, want >= 0.9s (Retry-After: 1)", gap)
		}
	})
}

func TestLoopRetriesExhausted(t *testing.T) {
	modes(t, func(t *testing.T, stream bool) {
		busy := agenttest.Reply{Status: 503, Body: `{"error":{"message":"busy","type":"server_error"}}`}
		srv := agenttest.New(t, busy, busy)
		cfg := config(srv.URL, stream)
		cfg.MaxRetries = 1
		l := agent.Loop{Config: cfg, Final: jsonFinal}
		out := l.Run(context.Background(), "sys", "go")
		var me *agent.ModelError
		if out.Reason != modelconfig.StopModelError || !errors.As(out.Err, &me) || me.Status != 503 || !strings.Contains(me.Msg, "busy") {
			t.Fatalf("reason %s err %v", out.Reason, out.Err)
		}
		if out.Turns != 0 {
			t.Errorf("turns %d", out.Turns)
		}
	})
}

func TestLoopNoRetries(t *testing.T) {
	srv := agenttest.New(t, agenttest.Reply{Status: 500, Body: `{"error":{"message":"x"}}`})
	cfg := config(srv.URL, false)
	cfg.MaxRetries = -1
	out := (&agent.Loop{Config: cfg, Final: jsonFinal}).Run(context.Background(), "sys", "go")
	if out.Reason != modelconfig.StopModelError || len(srv.Requests()) != 1 {
		t.Fatalf("reason %s, %d requests", out.Reason, len(srv.Requests()))
	}
}

func TestLoopGarbageBody(t *testing.T) {
	sse := map[string]string{"Content-Type": "text/event-stream"}
	garbage := "<html>" + strings.Repeat("bad gateway ", 40) + "</html>"
	cases := []struct {
		name   string
		stream bool
		reply  agenttest.Reply
		want   string
	}{
		{"html", false, agenttest.Reply{Body: garbage, Header: map[string]string{"Content-Type": "application/json"}}, `"<html>bad gateway`},
		{"html stream", true, agenttest.Reply{Body: garbage, Header: map[string]string{"Content-Type": "application/json"}}, `"<html>bad gateway`},
		{"empty", false, agenttest.Reply{Body: " ", Header: map[string]string{"Content-Type": "application/json"}}, "empty response body"},
		{"no choices", false, agenttest.Reply{Body: `{"id":"x","choices":[]}`}, "no choices"},
		{"bad chunk", true, agenttest.Reply{Body: "data: {not json\n\n", Header: sse}, `"data: {not json`},
		{"no events", true, agenttest.Reply{Body: garbage, Header: sse}, "stream without a choice"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			srv := agenttest.New(t, c.reply)
			out := (&agent.Loop{Config: config(srv.URL, c.stream), Final: jsonFinal}).Run(context.Background(), "sys", "go")
			if out.Reason != modelconfig.StopModelError {
				t.Fatalf("reason %s err %v", out.Reason, out.Err)
			}
			msg := out.Err.Error()
			t.Log(msg)
			if !strings.Contains(msg, c.want) {
				t.Errorf("err %q lacks %q", msg, c.want)
			}
			if len(msg) > 600 {
				t.Errorf("err is %d bytes: the body must be quoted, bounded", len(msg))
			}
			if out.Trajectory == nil || out.Trajectory.Extra[agent.TrajectoryExtraError] == nil || out.Trajectory.Extra[agent.TrajectoryExtraStopReason] != modelconfig.StopModelError {
				t.Errorf("trajectory lacks the error")
			}
		})
	}
}

func TestLoopUnknownToolAndBadArguments(t *testing.T) {
	modes(t, func(t *testing.T, stream bool) {
		srv := agenttest.New(t,
			agenttest.Reply{ToolCalls: []agenttest.Call{
				{ID: "u1", Name: "rm_rf", Arguments: `{}`},
				{ID: "m1", Name: "echo", Arguments: `{"text": "unterminated`},
				{ID: "a1", Name: "echo", Arguments: `["not", "an object"]`},
				{ID: "f1", Name: "echo", Arguments: `{"text":"fail"}`},
			}},
			agenttest.Reply{ToolCalls: []agenttest.Call{{ID: "f2", Name: "finish", Arguments: `{"summary":"ok"}`}}},
		)
		var calls []string
		l := agent.Loop{Config: config(srv.URL, stream), Tools: []agent.Tool{echoTool(&calls), finishTool()}}
		out := l.Run(context.Background(), "sys", "go")
		if out.Reason != modelconfig.StopFinished {
			t.Fatalf("reason %s err %v", out.Reason, out.Err)
		}
		got := map[string]string{}
		for _, m := range srv.Requests()[1].Messages {
			if m["role"] == "tool" {
				got[m["tool_call_id"].(string)] = m["content"].(string)
			}
		}
		want := map[string]string{
			"u1": `error: no tool named "rm_rf" (tools: echo, finish)`,
			"m1": "error: arguments of echo are not valid JSON: unexpected end of JSON input",
			"a1": "error: arguments of echo are not valid JSON: want a JSON object, got array",
			"f1": "error: echo refuses to fail",
		}
		for id, w := range want {
			if got[id] != w {
				t.Errorf("%s: model read %q, want %q", id, got[id], w)
			}
		}
		// the history sent back holds JSON objects only (vLLM parses them)
		for _, m := range srv.Requests()[1].Messages {
			tcs, _ := m["tool_calls"].([]any)
			for _, tc := range tcs {
				a := tc.(map[string]any)["function"].(map[string]any)["arguments"].(string)
				var obj map[string]any
				if err := json.Unmarshal([]byte(a), &obj); err != nil || obj == nil {
					t.Errorf("history carries arguments %q", a)
				}
			}
		}
		if strings.Join(calls, ",") != "fail" {
			t.Errorf("Run called with %v: malformed arguments must never reach Run", calls)
		}
		step := out.Trajectory.Steps[2]
		for _, tc := range step.ToolCalls {
			if !json.Valid(tc.Arguments) || tc.Arguments[0] != '{' {
				t.Errorf("trajectory arguments of %s are %s, want a JSON object", tc.ToolCallID, tc.Arguments)
			}
		}
		inv, _ := step.Extra[agent.StepExtraInvalidArguments].(map[string]any)
		if inv["m1"] != `{"text": "unterminated` {
			t.Errorf("invalid arguments kept in extra: %v", step.Extra)
		}
	})
}

func TestLoopTurnLimit(t *testing.T) {
	modes(t, func(t *testing.T, stream bool) {
		srv := agenttest.NewFunc(t, func(n int, req agenttest.Request) agenttest.Reply {
			return agenttest.Reply{Content: "thinking about it", PromptTokens: 1, CompletionTokens: 1}
		})
		cfg := config(srv.URL, stream)
		cfg.MaxTurns = 3
		out := (&agent.Loop{Config: cfg, Tools: []agent.Tool{finishTool()}}).Run(context.Background(), "sys", "go")
		if out.Reason != modelconfig.StopTurnLimit || out.Turns != 3 || out.Err == nil {
			t.Fatalf("reason %s turns %d err %v", out.Reason, out.Turns, out.Err)
		}
		reqs := srv.Requests()
		if len(reqs) != 3 {
			t.Fatalf("%d requests, want 3", len(reqs))
		}
		if got := agenttest.LastUserMessage(reqs[1]); got != agent.ReminderText {
			t.Errorf("answer to a response without tool calls: %q", got)
		}
	})
}

func TestLoopContextDeadline(t *testing.T) {
	modes(t, func(t *testing.T, stream bool) {
		srv := agenttest.New(t, agenttest.Reply{Delay: 10 * time.Second, Content: "{}"})
		ctx, cancel := context.WithTimeoutCause(context.Background(), 200*time.Millisecond, errors.New("task timeout"))
		defer cancel()
		out := (&agent.Loop{Config: config(srv.URL, stream), Final: jsonFinal}).Run(ctx, "sys", "go")
		if out.Reason != modelconfig.StopTimeout {
			t.Fatalf("reason %s err %v", out.Reason, out.Err)
		}
		if out.Err == nil || !strings.Contains(out.Err.Error(), "task timeout") {
			t.Errorf("err %v lacks the context's cause", out.Err)
		}
	})
}

func TestLoopDeadlineDuringTool(t *testing.T) {
	srv := agenttest.New(t, agenttest.Reply{ToolCalls: []agenttest.Call{{ID: "s1", Name: "sleep", Arguments: `{}`}, {ID: "s2", Name: "sleep", Arguments: `{}`}}})
	sleep := agent.Tool{Name: "sleep", Run: func(ctx context.Context, _ json.RawMessage) (agent.Observation, error) {
		<-ctx.Done()
		return agent.Observation{}, ctx.Err()
	}}
	ctx, cancel := context.WithTimeout(context.Background(), 200*time.Millisecond)
	defer cancel()
	out := (&agent.Loop{Config: config(srv.URL, false), Tools: []agent.Tool{sleep}}).Run(ctx, "sys", "go")
	if out.Reason != modelconfig.StopTimeout || !errors.Is(out.Err, context.DeadlineExceeded) {
		t.Fatalf("reason %s err %v", out.Reason, out.Err)
	}
	res := out.Trajectory.Steps[2].Observation.Results
	if len(res) != 2 || !strings.HasPrefix(res[1].Content, "not run") {
		t.Errorf("results %+v", res)
	}
}

func TestLoopCallTimeout(t *testing.T) {
	srv := agenttest.New(t, agenttest.Reply{Delay: 5 * time.Second, Content: "{}"})
	cfg := config(srv.URL, false)
	cfg.CallTimeout = modelconfig.Duration(200 * time.Millisecond)
	cfg.MaxRetries = -1
	out := (&agent.Loop{Config: cfg, Final: jsonFinal}).Run(context.Background(), "sys", "go")
	if out.Reason != modelconfig.StopModelError {
		t.Fatalf("reason %s err %v: a call's timeout is a model error, not the run's", out.Reason, out.Err)
	}
}

func TestLoopBoundsHugeFields(t *testing.T) {
	modes(t, func(t *testing.T, stream bool) {
		huge := strings.Repeat("é", agent.MaxField) // 2 bytes a rune
		srv := agenttest.New(t,
			agenttest.Reply{Content: huge, ToolCalls: []agenttest.Call{{ID: "h1", Name: "echo", Arguments: `{"text":"` + huge + `"}`}}},
			agenttest.Reply{ToolCalls: []agenttest.Call{{ID: "f", Name: "finish", Arguments: `{}`}}},
		)
		var calls []string
		out := (&agent.Loop{Config: config(srv.URL, stream), Tools: []agent.Tool{echoTool(&calls), finishTool()}}).Run(context.Background(), "sys", "go")
		if out.Reason != modelconfig.StopFinished {
			t.Fatalf("reason %s err %v", out.Reason, out.Err)
		}
		step := out.Trajectory.Steps[2]
		if len(step.Message) > agent.MaxField || !utf8.ValidString(step.Message) {
			t.Errorf("content kept %d bytes (valid UTF-8 %v)", len(step.Message), utf8.ValidString(step.Message))
		}
		if fmt.Sprint(step.Extra[agent.StepExtraTruncated]) != "[content arguments:h1]" {
			t.Errorf("truncation note %v", step.Extra)
		}
		if len(calls) != 0 {
			t.Errorf("cut arguments reached Run")
		}
		if !strings.Contains(agenttest.LastToolResult(srv.Requests()[1]), "not valid JSON") {
			t.Errorf("the model was not told its cut arguments are invalid")
		}
	})
}
