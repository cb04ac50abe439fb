package agent_test

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/authbench/authbench/agent"
	"github.com/authbench/authbench/agent/agenttest"
	"github.com/authbench/authbench/agent/modelconfig"
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
	if out.Reason != modelconfig.StopFinished || n.Load() != 2 {
		t.Fatalf("reason %s err %v after %d requests", out.Reason, out.Err, n.Load())
	}
}

// Tool calls beyond MaxCallsPerTurn in one response are dropped as it is
// read: not run, not in the history or the trajectory; the step counts
// them and the model is told.
func TestLoopBoundsCallsPerResponse(t *testing.T) {
	var many []agenttest.Call
	for i := range agent.MaxCallsPerTurn + 3 {
		many = append(many, agenttest.Call{ID: fmt.Sprintf("c%d", i), Name: "echo", Arguments: `{"text":"x"}`})
	}
	modes(t, func(t *testing.T, stream bool) {
		srv := agenttest.New(t, agenttest.Reply{ToolCalls: many}, agenttest.Reply{ToolCalls: []agenttest.Call{{ID: "f", Name: "finish", Arguments: `{}`}}})
		var calls []string
		out := (&agent.Loop{Config: config(srv.URL, stream), Tools: []agent.Tool{echoTool(&calls), finishTool()}}).Run(context.Background(), "sys", "go")
		if out.Reason != modelconfig.StopFinished || len(calls) != agent.MaxCallsPerTurn {
			t.Fatalf("reason %s, %d calls run", out.Reason, len(calls))
		}
		step := out.Trajectory.Steps[2]
		if len(step.ToolCalls) != agent.MaxCallsPerTurn || len(step.Observation.Results) != agent.MaxCallsPerTurn || step.Extra[agent.StepExtraDroppedCalls] != 3 {
			t.Errorf("step: %d calls, %d results, extra %v", len(step.ToolCalls), len(step.Observation.Results), step.Extra)
		}
		next := srv.Requests()[1]
		if got := agenttest.LastUserMessage(next); got != agent.DroppedCallsText(3) {
			t.Errorf("the model was told %q", got)
		}
		if strings.Contains(string(next.Body), `"c32"`) {
			t.Errorf("a dropped call is in the history")
		}
	})
}

// A server that ignores "stream": true and answers with JSON is understood.
func TestLoopStreamAnsweredWithJSON(t *testing.T) {
	body := `{"id":"x","object":"chat.completion","model":"m","choices":[{"index":0,"finish_reason":"stop","message":{"role":"assistant","content":"{\"ok\":true}"}}],"usage":{"prompt_tokens":5,"completion_tokens":2,"total_tokens":7}}`
	srv := agenttest.New(t, agenttest.Reply{Body: body})
	out := (&agent.Loop{Config: config(srv.URL, true), Final: jsonFinal}).Run(context.Background(), "sys", "go")
	if out.Reason != modelconfig.StopFinished || out.Final != `{"ok":true}` || out.Usage.TotalTokens != 7 || !srv.Requests()[0].Stream {
		t.Fatalf("reason %s final %q usage %+v err %v", out.Reason, out.Final, out.Usage, out.Err)
	}
}

// The options of the config reach the request body.
func TestLoopRequestOptions(t *testing.T) {
	modes(t, func(t *testing.T, stream bool) {
		srv := agenttest.New(t, agenttest.Reply{Content: "{}"})
		cfg := config(srv.URL, stream)
		temp := 0.3
		cfg.Temperature, cfg.MaxTokens = &temp, 77
		(&agent.Loop{Config: cfg, Final: jsonFinal}).Run(context.Background(), "sys", "go")
		var body struct {
			Model         string
			Temperature   *float64
			MaxTokens     int `json:"max_tokens"`
			Stream        bool
			StreamOptions *struct {
				IncludeUsage bool `json:"include_usage"`
			} `json:"stream_options"`
		}
		if err := json.Unmarshal(srv.Requests()[0].Body, &body); err != nil {
			t.Fatal(err)
		}
		if body.Model != "test-model" || body.Temperature == nil || *body.Temperature != 0.3 || body.MaxTokens != 77 || body.Stream != stream {
			t.Errorf("body %s", srv.Requests()[0].Body)
		}
		if stream != (body.StreamOptions != nil && body.StreamOptions.IncludeUsage) {
			t.Errorf("stream_options in %s", srv.Requests()[0].Body)
		}
	})
}

// A response body over MaxBody: a JSON body is a model error, a stream is
// cut there and kept, noted as truncated.
func TestLoopBodyOverLimit(t *testing.T) {
	huge := strings.Repeat("x", agent.MaxBody+agent.MaxBody/4)
	modes(t, func(t *testing.T, stream bool) {
		srv := agenttest.New(t, agenttest.Reply{Content: huge})
		out := (&agent.Loop{Config: config(srv.URL, stream), Final: func(string) error { return nil }}).Run(context.Background(), "sys", "go")
		if !stream {
			if out.Reason != modelconfig.StopModelError || !strings.Contains(out.Err.Error(), "response body over") {
				t.Fatalf("reason %s err %v", out.Reason, out.Err)
			}
			return
		}
		if out.Reason != modelconfig.StopFinished || len(out.Final) != agent.MaxField {
			t.Fatalf("reason %s err %v final %d bytes", out.Reason, out.Err, len(out.Final))
		}
		if got := fmt.Sprint(out.Trajectory.Steps[2].Extra[agent.StepExtraTruncated]); got != "[content response]" {
			t.Errorf("truncation note %s", got)
		}
	})
}

// A stream whose chunks carry different ids (and a usage chunk without
// one) is accumulated as one response.
func TestLoopStreamChunkIDs(t *testing.T) {
	body := `data: {"id":"a1","object":"chat.completion.chunk","model":"m","choices":[{"index":0,"delta":{"role":"assistant","content":"{\"o"}}]}

data: {"id":"a2","object":"chat.completion.chunk","model":"m","choices":[{"index":0,"delta":{"content":"k\":1}"},"finish_reason":"stop"}]}

data: {"object":"chat.completion.chunk","model":"m","choices":[],"usage":{"prompt_tokens":3,"completion_tokens":2,"total_tokens":5}}

data: [DONE]

`
	srv := agenttest.New(t, agenttest.Reply{Body: body, Header: map[string]string{"Content-Type": "text/event-stream"}})
	out := (&agent.Loop{Config: config(srv.URL, true), Final: jsonFinal}).Run(context.Background(), "sys", "go")
	if out.Reason != modelconfig.StopFinished || out.Final != `{"ok":1}` || out.Usage.TotalTokens != 5 {
		t.Fatalf("reason %s final %q usage %+v err %v", out.Reason, out.Final, out.Usage, out.Err)
	}
}

// The reasoning text some servers send beside the content is kept in the
// step's reasoning_content.
func TestLoopReasoningContent(t *testing.T) {
	stream := `data: {"id":"a","object":"chat.completion.chunk","model":"m","choices":[{"index":0,"delta":{"role":"assistant","reasoning_content":"think "}}]}

data: {"id":"a","object":"chat.completion.chunk","model":"m","choices":[{"index":0,"delta":{"reasoning_content":"hard"}}]}

data: {"id":"a","object":"chat.completion.chunk","model":"m","choices":[{"index":0,"delta":{"content":"{}"},"finish_reason":"stop"}]}

data: [DONE]

`
	plain := `{"id":"x","object":"chat.completion","model":"m","choices":[{"index":0,"finish_reason":"stop","message":{"role":"assistant","content":"{}","reasoning":"think hard"}}]}`
	modes(t, func(t *testing.T, s bool) {
		reply := agenttest.Reply{Body: plain}
		if s {
			reply = agenttest.Reply{Body: stream, Header: map[string]string{"Content-Type": "text/event-stream"}}
		}
		srv := agenttest.New(t, reply)
		out := (&agent.Loop{Config: config(srv.URL, s), Final: jsonFinal}).Run(context.Background(), "sys", "go")
		if out.Reason != modelconfig.StopFinished {
			t.Fatalf("reason %s err %v", out.Reason, out.Err)
		}
		if got := out.Trajectory.Steps[2].ReasoningContent; got != "think hard" {
			t.Errorf("reasoning_content %q", got)
		}
	})
}

// Missing and repeated tool call ids are replaced, so that every result
// links to one call.
func TestLoopToolCallIDs(t *testing.T) {
	modes(t, func(t *testing.T, stream bool) {
		srv := agenttest.New(t,
			agenttest.Reply{ToolCalls: []agenttest.Call{{ID: "", Name: "echo", Arguments: `{"text":"a"}`}, {ID: "dup", Name: "echo", Arguments: `{"text":"b"}`}}},
			agenttest.Reply{ToolCalls: []agenttest.Call{{ID: "dup", Name: "finish", Arguments: `{}`}}},
		)
		var calls []string
		out := (&agent.Loop{Config: config(srv.URL, stream), Tools: []agent.Tool{echoTool(&calls), finishTool()}}).Run(context.Background(), "sys", "go")
		if out.Reason != modelconfig.StopFinished {
			t.Fatalf("reason %s err %v", out.Reason, out.Err)
		}
		seen := map[string]bool{}
		for _, s := range out.Trajectory.Steps {
			for i, c := range s.ToolCalls {
				if c.ToolCallID == "" || seen[c.ToolCallID] || s.Observation.Results[i].SourceCallID != c.ToolCallID {
					t.Errorf("step %d call %d: id %q (seen %v)", s.StepID, i, c.ToolCallID, seen[c.ToolCallID])
				}
				seen[c.ToolCallID] = true
			}
		}
	})
}

// An error reply is a model error naming its status and the endpoint's
// message, or quoting the start of a body that has none.
func TestLoopErrorReplies(t *testing.T) {
	cases := []struct {
		reply agenttest.Reply
		want  string
	}{
		{agenttest.Reply{Status: 400, Body: `{"error":{"message":"unknown model m"}}`}, "model call: HTTP 400: unknown model m"},
		{agenttest.Reply{Status: 404, Body: `{"detail":"Not Found"}`}, `model call: HTTP 404: "{\"detail\":\"Not Found\"}"`},
		{agenttest.Reply{Status: 502, Body: "<html>Bad Gateway</html>", Header: map[string]string{"Content-Type": "text/html"}}, `model call: HTTP 502: "<html>Bad Gateway</html>"`},
		{agenttest.Reply{Status: 401, Body: " ", Header: map[string]string{"Content-Type": "text/plain"}}, "model call: HTTP 401: Unauthorized"},
	}
	for _, c := range cases {
		t.Run(c.want, func(t *testing.T) {
			srv := agenttest.New(t, c.reply)
			cfg := config(srv.URL, false)
			cfg.MaxRetries = -1
			out := (&agent.Loop{Config: cfg, Final: jsonFinal}).Run(context.Background(), "sys", "go")
			if out.Reason != modelconfig.StopModelError || out.Err.Error() != c.want {
				t.Errorf("reason %s err %v", out.Reason, out.Err)
			}
		})
	}
}

// A tool result over MaxField is cut, with a note to the model and in the
// trajectory.
func TestLoopBoundsObservation(t *testing.T) {
	srv := agenttest.New(t,
		agenttest.Reply{ToolCalls: []agenttest.Call{{ID: "b1", Name: "flood", Arguments: `{}`}}},
		agenttest.Reply{ToolCalls: []agenttest.Call{{ID: "f", Name: "finish", Arguments: `{}`}}},
	)
	flood := agent.Tool{Name: "flood", Run: func(context.Context, json.RawMessage) (agent.Observation, error) {
		return agent.Observation{Text: strings.Repeat("y", 2*agent.MaxField)}, nil
	}}
	out := (&agent.Loop{Config: config(srv.URL, false), Tools: []agent.Tool{flood, finishTool()}}).Run(context.Background(), "sys", "go")
	if out.Reason != modelconfig.StopFinished {
		t.Fatalf("reason %s err %v", out.Reason, out.Err)
	}
	got := agenttest.LastToolResult(srv.Requests()[1])
	if len(got) > agent.MaxField+100 || !strings.HasSuffix(got, "[observation cut to 262144 bytes]") {
		t.Errorf("model read %d bytes ending %q", len(got), got[len(got)-40:])
	}
	if e := fmt.Sprint(out.Trajectory.Steps[2].Extra[agent.StepExtraTruncated]); e != "[observation:b1]" {
		t.Errorf("truncation note %s", e)
	}
}

// An endpoint's error message is kept as a short excerpt, quoted when it
// holds control bytes (a terminal escape, here), never whole.
func TestLoopErrorMessageExcerpt(t *testing.T) {
	msg := "\x1b]0;owned\x07" + strings.Repeat("x", 1<<20)
	body, _ := json.Marshal(map[string]any{"error": map[string]any{"message": msg}})
	srv := agenttest.New(t, agenttest.Reply{Status: 400, Body: string(body)})
	cfg := config(srv.URL, false)
	cfg.MaxRetries = -1
	out := (&agent.Loop{Config: cfg, Final: jsonFinal}).Run(context.Background(), "sys", "go")
	got := out.Err.Error()
	if out.Reason != modelconfig.StopModelError || !strings.HasPrefix(got, `model call: HTTP 400: "\x1b]0;owned\a`) || !strings.HasSuffix(got, `xxx"...`) || len(got) > 700 {
		t.Errorf("error %.300q (%d bytes)", got, len(got))
	}
	if strings.ContainsRune(got, 0x1b) {
		t.Error("the escape reached the error text raw")
	}
}
