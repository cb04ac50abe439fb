package agenttest

import (
	"encoding/json"
	"fmt"
	"net/http"
	"testing"
)

// NewResponses starts a server speaking OpenAI's Responses API (POST
// /v1/responses) that answers with replies in order; an extra request
// gets a 500 and fails the test. A reply's Content is an output message,
// its ToolCalls function_call items (ID their call_id), its tokens the
// usage's input_tokens and output_tokens. A streaming request is
// answered with the Responses server-sent events: response.created,
// response.in_progress, per output item response.output_item.added, its
// deltas (response.output_text.delta, response.function_call_arguments.delta,
// split in two) and response.output_item.done, then response.completed
// with the whole response and its usage. Request.Messages are the
// request's input items.
func NewResponses(t testing.TB, replies ...Reply) *Server {
	t.Helper()
	return NewResponsesFunc(t, scripted(t, replies))
}

// NewResponsesFunc starts a Responses server that answers request n
// (counting from 0) with f(n, req).
func NewResponsesFunc(t testing.TB, f func(n int, req Request) Reply) *Server {
	t.Helper()
	return start(t, f, "POST /v1/responses", func(s *Server, w http.ResponseWriter, r *http.Request) {
		s.handle(w, r, wire{parse: parseResponses, stream: writeResponsesStream, json: func(model string, reply Reply) any { return response(model, reply, "completed") }})
	})
}

// parseResponses reads a Responses request: its input items (a string
// input is one user message), the names of its tools (a tool without a
// name, as local_shell, by its type).
func parseResponses(body []byte) (Request, error) {
	var raw struct {
		Model  string          `json:"model"`
		Stream bool            `json:"stream"`
		Input  json.RawMessage `json:"input"`
		Tools  []struct {
			Type string `json:"type"`
			Name string `json:"name"`
		} `json:"tools"`
	}
	if err := json.Unmarshal(body, &raw); err != nil {
		return Request{}, err
	}
	req := Request{Model: raw.Model, Stream: raw.Stream, Body: body}
	var text string
	if json.Unmarshal(raw.Input, &text) == nil {
		req.Messages = []map[string]any{{"type": "message", "role": "user", "content": text}}
	} else if len(raw.Input) > 0 {
		if err := json.Unmarshal(raw.Input, &req.Messages); err != nil {
			return Request{}, fmt.Errorf("input: %w", err)
		}
	}
	for _, t := range raw.Tools {
		name := t.Name
		if name == "" {
			name = t.Type
		}
		req.Tools = append(req.Tools, name)
	}
	return req, nil
}

// outputItems are a reply's output items, as completed: its message,
// then its function calls.
func outputItems(r Reply) []map[string]any {
	var out []map[string]any
	if r.Content != "" {
		out = append(out, map[string]any{"id": "msg_agenttest", "type": "message", "role": "assistant", "status": "completed",
			"content": []any{map[string]any{"type": "output_text", "text": r.Content, "annotations": []any{}}}})
	}
	for i, c := range r.ToolCalls {
		out = append(out, map[string]any{"id": fmt.Sprintf("fc_agenttest_%d", i), "type": "function_call", "status": "completed",
			"call_id": c.ID, "name": c.Name, "arguments": c.Arguments})
	}
	return out
}

// response is a whole Responses response of the reply, with status.
func response(model string, r Reply, status string) map[string]any {
	out := outputItems(r)
	if out == nil {
		out = []map[string]any{}
	}
	return map[string]any{"id": "resp_agenttest", "object": "response", "status": status, "model": model, "output": out,
		"usage": map[string]any{"input_tokens": r.PromptTokens, "output_tokens": r.CompletionTokens, "total_tokens": r.PromptTokens + r.CompletionTokens,
			"input_tokens_details": map[string]any{"cached_tokens": 0}, "output_tokens_details": map[string]any{"reasoning_tokens": 0}}}
}

// writeResponsesStream writes a reply as Responses server-sent events.
func writeResponsesStream(w http.ResponseWriter, model string, r Reply) {
	seq := 0
	send := func(event string, v map[string]any) {
		v["type"], v["sequence_number"] = event, seq
		seq++
		b, _ := json.Marshal(v)
		fmt.Fprintf(w, "event: %s\ndata: %s\n\n", event, b)
		if f, ok := w.(http.Flusher); ok {
			f.Flush()
		}
	}
	started := response(model, Reply{}, "in_progress")
	delete(started, "usage")
	send("response.created", map[string]any{"response": started})
	send("response.in_progress", map[string]any{"response": started})
	for i, item := range outputItems(r) {
		id := item["id"]
		switch item["type"] {
		case "message":
			send("response.output_item.added", map[string]any{"output_index": i, "item": map[string]any{"id": id, "type": "message", "role": "assistant", "status": "in_progress", "content": []any{}}})
			send("response.content_part.added", map[string]any{"output_index": i, "item_id": id, "content_index": 0, "part": map[string]any{"type": "output_text", "text": "", "annotations": []any{}}})
			for _, part := range halves(r.Content) {
				send("response.output_text.delta", map[string]any{"output_index": i, "item_id": id, "content_index": 0, "delta": part})
			}
			send("response.output_text.done", map[string]any{"output_index": i, "item_id": id, "content_index": 0, "text": r.Content})
			send("response.content_part.done", map[string]any{"output_index": i, "item_id": id, "content_index": 0, "part": map[string]any{"type": "output_text", "text": r.Content, "annotations": []any{}}})
		case "function_call":
			added := map[string]any{}
			for k, v := range item {
				added[k] = v
			}
			added["status"], added["arguments"] = "in_progress", ""
			send("response.output_item.added", map[string]any{"output_index": i, "item": added})
			args := item["arguments"].(string)
			for _, part := range halves(args) {
				if part != "" {
					send("response.function_call_arguments.delta", map[string]any{"output_index": i, "item_id": id, "delta": part})
				}
			}
			send("response.function_call_arguments.done", map[string]any{"output_index": i, "item_id": id, "arguments": args})
		}
		send("response.output_item.done", map[string]any{"output_index": i, "item": item})
	}
	send("response.completed", map[string]any{"response": response(model, r, "completed")})
}
