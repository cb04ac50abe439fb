package agenttest

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
	"sync"
	"testing"
)

// recorder is a testing.TB that keeps Errorf calls instead of failing.
type recorder struct {
	testing.TB
	mu     sync.Mutex
	errors []string
}

func (r *recorder) Errorf(format string, args ...any) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.errors = append(r.errors, fmt.Sprintf(format, args...))
}

func post(t *testing.T, url, body string) (*http.Response, string) {
	t.Helper()
	req, _ := http.NewRequest("POST", url+"/chat/completions", strings.NewReader(body))
	req.Header.Set("Authorization", "Bearer k")
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	b, _ := io.ReadAll(res.Body)
	return res, string(b)
}

func TestUnscriptedRequestFails(t *testing.T) {
	rec := &recorder{TB: t}
	s := New(rec, Reply{Content: "one"})
	if res, _ := post(t, s.URL, `{"model":"m","messages":[]}`); res.StatusCode != 200 {
		t.Fatalf("first: %d", res.StatusCode)
	}
	res, _ := post(t, s.URL, `{"model":"m","messages":[]}`)
	if res.StatusCode != 500 || len(rec.errors) != 1 || !strings.Contains(rec.errors[0], "unscripted request 2") {
		t.Errorf("extra request: status %d, test errors %q", res.StatusCode, rec.errors)
	}
	if got := s.Requests(); len(got) != 2 || got[0].Authorization != "Bearer k" || got[0].Model != "m" {
		t.Errorf("requests %+v", got)
	}
}

func TestStreamSplitsContentAndArguments(t *testing.T) {
	s := New(t, Reply{Content: "hello world", ToolCalls: []Call{{ID: "c1", Name: "shell", Arguments: `{"command":"ls -la"}`}}, PromptTokens: 3, CompletionTokens: 4})
	res, body := post(t, s.URL, `{"model":"m","stream":true,"messages":[{"role":"user","content":"hi"}],"tools":[{"type":"function","function":{"name":"shell"}}]}`)
	if ct := res.Header.Get("Content-Type"); ct != "text/event-stream" {
		t.Fatalf("content type %q", ct)
	}
	var content, args strings.Builder
	var usage map[string]any
	events := strings.Split(strings.TrimSpace(body), "\n\n")
	if events[len(events)-1] != "data: [DONE]" {
		t.Errorf("last event %q", events[len(events)-1])
	}
	contentChunks, argChunks := 0, 0
	for _, ev := range events[:len(events)-1] {
		var chunk struct {
			Choices []struct {
				Delta struct {
					Content   string
					ToolCalls []struct {
						Index    int
						ID       string
						Function struct{ Name, Arguments string }
					} `json:"tool_calls"`
				}
			}
			Usage map[string]any
		}
		if err := json.Unmarshal([]byte(strings.TrimPrefix(ev, "data: ")), &chunk); err != nil {
			t.Fatalf("event %q: %v", ev, err)
		}
		if chunk.Usage != nil {
			usage = chunk.Usage
		}
		for _, c := range chunk.Choices {
			if c.Delta.Content != "" {
				contentChunks++
				content.WriteString(c.Delta.Content)
			}
			for _, tc := range c.Delta.ToolCalls {
				if tc.Function.Arguments != "" {
					argChunks++
					args.WriteString(tc.Function.Arguments)
				}
			}
		}
	}
	if content.String() != "hello world" || contentChunks < 2 {
		t.Errorf("content %q in %d chunks", content.String(), contentChunks)
	}
	if args.String() != `{"command":"ls -la"}` || argChunks < 2 {
		t.Errorf("arguments %q in %d chunks", args.String(), argChunks)
	}
	if usage["total_tokens"] != float64(7) {
		t.Errorf("usage %v", usage)
	}
	req := s.Requests()[0]
	if !req.Stream || strings.Join(req.Tools, ",") != "shell" || LastUserMessage(req) != "hi" {
		t.Errorf("request %+v", req)
	}
}

func TestJSONReply(t *testing.T) {
	s := New(t, Reply{ToolCalls: []Call{{ID: "c1", Name: "read_file", Arguments: `{bad`}}})
	_, body := post(t, s.URL, `{"model":"m","messages":[{"role":"tool","tool_call_id":"x","content":"out"}]}`)
	var cc struct {
		Choices []struct {
			Message struct {
				Content   *string
				ToolCalls []struct {
					ID       string
					Function struct{ Name, Arguments string }
				} `json:"tool_calls"`
			}
			FinishReason string `json:"finish_reason"`
		}
	}
	if err := json.NewDecoder(bytes.NewReader([]byte(body))).Decode(&cc); err != nil {
		t.Fatal(err)
	}
	m := cc.Choices[0].Message
	if m.Content != nil || m.ToolCalls[0].Function.Arguments != `{bad` || cc.Choices[0].FinishReason != "tool_calls" {
		t.Errorf("reply %s", body)
	}
	if LastToolResult(s.Requests()[0]) != "out" {
		t.Errorf("LastToolResult")
	}
}
