package agenttest

import (
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"testing"
)

// postMessages sends a Messages request as Anthropic's clients do.
func postMessages(t *testing.T, s *Server, body string) (*http.Response, string) {
	t.Helper()
	req, _ := http.NewRequest("POST", s.BaseURL()+"/v1/messages", strings.NewReader(body))
	req.Header.Set("x-api-key", "k")
	req.Header.Set("anthropic-version", "2023-06-01")
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	b, _ := io.ReadAll(res.Body)
	return res, string(b)
}

// TestMessagesStream: a streaming request gets Anthropic's events in
// their order — message_start, per block content_block_start, its
// deltas (split in two) and content_block_stop, message_delta with the
// stop reason and the usage, message_stop — each event's name matching
// its data's type; the text and the tool_use input rebuild from the
// deltas.
func TestMessagesStream(t *testing.T) {
	s := NewMessages(t, Reply{Content: "hello world", ToolCalls: []Call{{ID: "toolu_1", Name: "Bash", Arguments: `{"command":"ls -la"}`}}, PromptTokens: 30, CompletionTokens: 4})
	res, body := postMessages(t, s, `{"model":"m","max_tokens":100,"stream":true,"messages":[{"role":"user","content":"hi"}],"tools":[{"name":"Bash","input_schema":{"type":"object"}}]}`)
	if ct := res.Header.Get("Content-Type"); ct != "text/event-stream" {
		t.Fatalf("content type %q", ct)
	}
	var names []string
	var text, input strings.Builder
	var stop string
	var usage map[string]any
	deltas := 0
	for _, ev := range strings.Split(strings.TrimSpace(body), "\n\n") {
		name, data, ok := strings.Cut(ev, "\ndata: ")
		name = strings.TrimPrefix(name, "event: ")
		var v struct {
			Type         string
			Index        int
			ContentBlock map[string]any `json:"content_block"`
			Delta        struct {
				Type        string
				Text        string
				PartialJSON string `json:"partial_json"`
				StopReason  string `json:"stop_reason"`
			}
			Usage map[string]any
		}
		if !ok || json.Unmarshal([]byte(data), &v) != nil || v.Type != name {
			t.Fatalf("event %q", ev)
		}
		names = append(names, name)
		switch v.Delta.Type {
		case "text_delta":
			text.WriteString(v.Delta.Text)
			deltas++
		case "input_json_delta":
			input.WriteString(v.Delta.PartialJSON)
			deltas++
		}
		if name == "message_delta" {
			stop, usage = v.Delta.StopReason, v.Usage
		}
		if name == "content_block_start" && v.Index == 1 && (v.ContentBlock["type"] != "tool_use" || v.ContentBlock["id"] != "toolu_1" || v.ContentBlock["name"] != "Bash") {
			t.Errorf("tool_use block start %v", v.ContentBlock)
		}
	}
	want := "message_start content_block_start content_block_delta content_block_delta content_block_stop content_block_start content_block_delta content_block_delta content_block_stop message_delta message_stop"
	if strings.Join(names, " ") != want {
		t.Errorf("events %q", names)
	}
	if text.String() != "hello world" || input.String() != `{"command":"ls -la"}` || deltas != 4 || stop != "tool_use" {
		t.Errorf("text %q, input %q (%d deltas), stop %q", text.String(), input.String(), deltas, stop)
	}
	if usage["input_tokens"] != float64(30) || usage["output_tokens"] != float64(4) {
		t.Errorf("usage %v", usage)
	}
	req := s.Requests()[0]
	if !req.Stream || req.Header.Get("X-Api-Key") != "k" || strings.Join(req.Tools, ",") != "Bash" || LastUserMessage(req) != "hi" || req.Path != "/v1/messages" {
		t.Errorf("request %+v", req)
	}
}

// TestMessagesJSONAndToolResult: a request that does not stream gets a
// whole message (end_turn, usage); the last tool_result block of the
// request's last user message is its last tool result; an extra request
// gets Anthropic's error shape and fails the test.
func TestMessagesJSONAndToolResult(t *testing.T) {
	rec := &recorder{TB: t}
	s := NewMessages(rec, Reply{Content: "done", PromptTokens: 5, CompletionTokens: 1})
	_, body := postMessages(t, s, `{"model":"m","max_tokens":10,"messages":[{"role":"user","content":"go"},
		{"role":"assistant","content":[{"type":"tool_use","id":"toolu_1","name":"Bash","input":{}}]},
		{"role":"user","content":[{"type":"tool_result","tool_use_id":"toolu_1","content":[{"type":"text","text":"a.txt"}]}]}]}`)
	var m struct {
		StopReason string `json:"stop_reason"`
		Content    []struct{ Type, Text string }
		Usage      struct {
			Input  int `json:"input_tokens"`
			Output int `json:"output_tokens"`
		}
	}
	if err := json.Unmarshal([]byte(body), &m); err != nil || m.StopReason != "end_turn" || len(m.Content) != 1 || m.Content[0].Text != "done" || m.Usage.Input != 5 {
		t.Errorf("message %s: %v", body, err)
	}
	if got := LastToolResult(s.Requests()[0]); got != "a.txt" {
		t.Errorf("LastToolResult %q", got)
	}
	res, body := postMessages(t, s, `{"model":"m","messages":[]}`)
	if res.StatusCode != 500 || !strings.Contains(body, `"type":"error"`) || len(rec.errors) != 1 {
		t.Errorf("extra request: %d %s, test errors %q", res.StatusCode, body, rec.errors)
	}
}
