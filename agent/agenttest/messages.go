package agenttest

import (
	"encoding/json"
	"fmt"
	"net/http"
	"testing"
)

// NewMessages starts a server speaking Anthropic's Messages API (POST
// /v1/messages) that answers with replies in order; an extra request gets
// a 500 and fails the test. A reply's ToolCalls are tool_use blocks (their
// Arguments the input, which must be a JSON object), its tokens the
// usage's input_tokens and output_tokens. A streaming request ("stream":
// true) is answered with Anthropic's server-sent events: message_start,
// a content_block_start/_delta…/_stop triple per block (text deltas and
// input_json_delta split in two), message_delta with the stop reason and
// usage, message_stop. The server's URL ends in /v1, as
// ANTHROPIC_BASE_URL does not: give a client s.URL without it (BaseURL).
func NewMessages(t testing.TB, replies ...Reply) *Server {
	t.Helper()
	return NewMessagesFunc(t, scripted(t, replies))
}

// NewMessagesFunc starts a Messages server that answers request n
// (counting from 0) with f(n, req).
func NewMessagesFunc(t testing.TB, f func(n int, req Request) Reply) *Server {
	t.Helper()
	return start(t, f, "POST /v1/messages", func(s *Server, w http.ResponseWriter, r *http.Request) {
		s.handle(w, r, wire{parse: parseMessages, stream: writeMessagesStream, json: func(model string, reply Reply) any { return message(model, reply) }})
	})
}

// BaseURL is the server's root, without the /v1 of URL (what a
// Messages client takes).
func (s *Server) BaseURL() string { return s.srv.URL }

// scripted answers request n with replies[n], failing the test on an
// extra request.
func scripted(t testing.TB, replies []Reply) func(n int, req Request) Reply {
	return func(n int, req Request) Reply {
		if n >= len(replies) {
			t.Errorf("agenttest: unscripted request %d (only %d replies)", n+1, len(replies))
			return Reply{Status: http.StatusInternalServerError, Body: `{"type":"error","error":{"type":"api_error","message":"unscripted request"}}`}
		}
		return replies[n]
	}
}

// parseMessages reads a Messages request: its messages as sent, the
// names of its tools.
func parseMessages(body []byte) (Request, error) {
	var raw struct {
		Model    string           `json:"model"`
		Stream   bool             `json:"stream"`
		Messages []map[string]any `json:"messages"`
		Tools    []struct {
			Name string `json:"name"`
		} `json:"tools"`
	}
	if err := json.Unmarshal(body, &raw); err != nil {
		return Request{}, err
	}
	req := Request{Model: raw.Model, Stream: raw.Stream, Messages: raw.Messages, Body: body}
	for _, t := range raw.Tools {
		req.Tools = append(req.Tools, t.Name)
	}
	return req, nil
}

// stopReason is a Messages reply's stop_reason.
func stopReason(r Reply) string {
	if len(r.ToolCalls) > 0 {
		return "tool_use"
	}
	return "end_turn"
}

// blocks are a reply's content blocks: its text, then its tool_use
// blocks.
func blocks(r Reply) []map[string]any {
	var out []map[string]any
	if r.Content != "" {
		out = append(out, map[string]any{"type": "text", "text": r.Content})
	}
	for _, c := range r.ToolCalls {
		out = append(out, map[string]any{"type": "tool_use", "id": c.ID, "name": c.Name, "input": json.RawMessage(c.Arguments)})
	}
	return out
}

// message is a whole (non-streaming) Messages response.
func message(model string, r Reply) map[string]any {
	content := blocks(r)
	if content == nil {
		content = []map[string]any{}
	}
	return map[string]any{"id": "msg_agenttest", "type": "message", "role": "assistant", "model": model,
		"content": content, "stop_reason": stopReason(r), "stop_sequence": nil,
		"usage": map[string]any{"input_tokens": r.PromptTokens, "output_tokens": r.CompletionTokens}}
}

// writeMessagesStream writes a reply as Messages server-sent events.
func writeMessagesStream(w http.ResponseWriter, model string, r Reply) {
	send := func(event string, v map[string]any) {
		v["type"] = event
		b, _ := json.Marshal(v)
		fmt.Fprintf(w, "event: %s\ndata: %s\n\n", event, b)
		if f, ok := w.(http.Flusher); ok {
			f.Flush()
		}
	}
	send("message_start", map[string]any{"message": map[string]any{"id": "msg_agenttest", "type": "message", "role": "assistant",
		"model": model, "content": []any{}, "stop_reason": nil, "stop_sequence": nil,
		"usage": map[string]any{"input_tokens": r.PromptTokens, "output_tokens": 1}}})
	for i, b := range blocks(r) {
		switch b["type"] {
		case "text":
			send("content_block_start", map[string]any{"index": i, "content_block": map[string]any{"type": "text", "text": ""}})
			for _, part := range halves(r.Content) {
				send("content_block_delta", map[string]any{"index": i, "delta": map[string]any{"type": "text_delta", "text": part}})
			}
		case "tool_use":
			send("content_block_start", map[string]any{"index": i, "content_block": map[string]any{"type": "tool_use", "id": b["id"], "name": b["name"], "input": map[string]any{}}})
			for _, part := range halves(string(b["input"].(json.RawMessage))) {
				send("content_block_delta", map[string]any{"index": i, "delta": map[string]any{"type": "input_json_delta", "partial_json": part}})
			}
		}
		send("content_block_stop", map[string]any{"index": i})
	}
	send("message_delta", map[string]any{"delta": map[string]any{"stop_reason": stopReason(r), "stop_sequence": nil},
		"usage": map[string]any{"input_tokens": r.PromptTokens, "output_tokens": r.CompletionTokens}})
	send("message_stop", map[string]any{})
}
