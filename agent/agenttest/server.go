// Package agenttest is a scripted local OpenAI-compatible
// /v1/chat/completions server for tests. It answers each request with the
// next scripted Reply, as a single JSON body or, when the request asks
// for "stream": true, as server-sent events that split the content and
// the tool-call arguments across several chunks, with the usage in the
// last chunk before "data: [DONE]". The Hostile* replies (hostile.go)
// are endpoints that misbehave on purpose — thousands of tool calls,
// endless streams, malformed UTF-8 — for the bounds of the model loop.
package agenttest

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"
	"time"
)

// Call is one tool call of a scripted reply.
type Call struct{ ID, Name, Arguments string } // Arguments raw text (may be malformed JSON)

// Reply is the server's answer to one request.
type Reply struct {
	Status                         int               // 0 → 200
	Header                         map[string]string // e.g. "Retry-After": "1"
	Body                           string            // raw body (error replies, garbage); overrides Content/ToolCalls
	Content                        string
	ToolCalls                      []Call
	PromptTokens, CompletionTokens int
	Delay                          time.Duration // before replying (timeouts)
	// Raw writes the body itself (hostile servers: see Hostile*); the
	// Content-Type is Header's, else application/json. Writes are
	// flushed; a write error (the client left) may end it.
	Raw func(w io.Writer) error
}

// Request is what the server received.
type Request struct {
	Model         string
	Stream        bool
	Messages      []map[string]any
	Tools         []string    // function names offered
	Authorization string      // the Authorization header
	Header        http.Header // all headers
	Body          []byte
	Path          string    // the request's URL path
	Time          time.Time // when the request arrived
}

// Server is a running scripted server.
type Server struct {
	URL string // base URL ending in /v1

	t    testing.TB
	srv  *httptest.Server
	f    func(n int, req Request) Reply
	mu   sync.Mutex
	reqs []Request
}

// New starts a server answering with replies in order; an extra request
// gets a 500 and fails the test.
func New(t testing.TB, replies ...Reply) *Server {
	t.Helper()
	return NewFunc(t, func(n int, req Request) Reply {
		if n >= len(replies) {
			t.Errorf("agenttest: unscripted request %d (only %d replies)", n+1, len(replies))
			return Reply{Status: http.StatusInternalServerError, Body: `{"error":{"message":"unscripted request","type":"server_error"}}`}
		}
		return replies[n]
	})
}

// NewFunc starts a server that answers request n (counting from 0) with
// f(n, req).
func NewFunc(t testing.TB, f func(n int, req Request) Reply) *Server {
	t.Helper()
	return start(t, f, "POST /v1/chat/completions", (*Server).serve)
}

// start starts a server answering route with serve.
func start(t testing.TB, f func(n int, req Request) Reply, route string, serve func(*Server, http.ResponseWriter, *http.Request)) *Server {
	s := &Server{t: t, f: f}
	mux := http.NewServeMux()
	mux.HandleFunc(route, func(w http.ResponseWriter, r *http.Request) { serve(s, w, r) })
	s.srv = httptest.NewServer(mux)
	s.URL = s.srv.URL + "/v1"
	t.Cleanup(s.srv.Close)
	return s
}

// Requests returns the requests received so far.
func (s *Server) Requests() []Request {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]Request(nil), s.reqs...)
}

func (s *Server) serve(w http.ResponseWriter, r *http.Request) {
	s.handle(w, r, wire{parse: parseRequest, stream: writeStream, json: func(model string, reply Reply) any { return completion(model, reply) }})
}

// wire is one API's request and reply formats.
type wire struct {
	parse  func(body []byte) (Request, error)
	stream func(w http.ResponseWriter, model string, r Reply)
	json   func(model string, r Reply) any
}

// handle records a request of the API a speaks and answers it with the
// next scripted reply in that API's format.
func (s *Server) handle(w http.ResponseWriter, r *http.Request, a wire) {
	body, err := io.ReadAll(r.Body)
	if err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	req, err := a.parse(body)
	if err != nil {
		s.t.Errorf("agenttest: bad request body: %v", err)
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	req.Authorization = r.Header.Get("Authorization")
	req.Header = r.Header.Clone()
	req.Path = r.URL.Path
	req.Time = time.Now()
	s.mu.Lock()
	n := len(s.reqs)
	s.reqs = append(s.reqs, req)
	s.mu.Unlock()

	reply := s.f(n, req)
	if reply.Delay > 0 {
		select {
		case <-time.After(reply.Delay):
		case <-r.Context().Done():
			return
		}
	}
	for k, v := range reply.Header {
		w.Header().Set(k, v)
	}
	status := reply.Status
	if status == 0 {
		status = http.StatusOK
	}
	switch {
	case reply.Raw != nil:
		if w.Header().Get("Content-Type") == "" {
			w.Header().Set("Content-Type", "application/json")
		}
		w.WriteHeader(status)
		_ = reply.Raw(flushWriter{w})
	case reply.Body != "":
		if w.Header().Get("Content-Type") == "" {
			w.Header().Set("Content-Type", "application/json")
		}
		w.WriteHeader(status)
		io.WriteString(w, reply.Body)
	case req.Stream:
		w.Header().Set("Content-Type", "text/event-stream")
		w.WriteHeader(status)
		a.stream(w, req.Model, reply)
	default:
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(status)
		json.NewEncoder(w).Encode(a.json(req.Model, reply))
	}
}

func parseRequest(body []byte) (Request, error) {
	var raw struct {
		Model    string           `json:"model"`
		Stream   bool             `json:"stream"`
		Messages []map[string]any `json:"messages"`
		Tools    []struct {
			Function struct {
				Name string `json:"name"`
			} `json:"function"`
		} `json:"tools"`
	}
	if err := json.Unmarshal(body, &raw); err != nil {
		return Request{}, err
	}
	req := Request{Model: raw.Model, Stream: raw.Stream, Messages: raw.Messages, Body: body}
	for _, t := range raw.Tools {
		req.Tools = append(req.Tools, t.Function.Name)
	}
	return req, nil
}

func finishReason(r Reply) string {
	if len(r.ToolCalls) > 0 {
		return "tool_calls"
	}
	return "stop"
}

func usage(r Reply) map[string]any {
	return map[string]any{
		"prompt_tokens":     r.PromptTokens,
		"completion_tokens": r.CompletionTokens,
		"total_tokens":      r.PromptTokens + r.CompletionTokens,
	}
}

func completion(model string, r Reply) map[string]any {
	msg := map[string]any{"role": "assistant", "content": r.Content}
	if r.Content == "" && len(r.ToolCalls) > 0 {
		msg["content"] = nil
	}
	if len(r.ToolCalls) > 0 {
		var calls []map[string]any
		for _, c := range r.ToolCalls {
			calls = append(calls, map[string]any{
				"id": c.ID, "type": "function",
				"function": map[string]any{"name": c.Name, "arguments": c.Arguments},
			})
		}
		msg["tool_calls"] = calls
	}
	return map[string]any{
		"id": "chatcmpl-agenttest", "object": "chat.completion", "created": time.Now().Unix(), "model": model,
		"choices": []any{map[string]any{"index": 0, "message": msg, "finish_reason": finishReason(r)}},
		"usage":   usage(r),
	}
}

// halves splits s in two (at a rune boundary), for chunking.
func halves(s string) []string {
	if len(s) < 2 {
		return []string{s}
	}
	rs := []rune(s)
	return []string{string(rs[:len(rs)/2]), string(rs[len(rs)/2:])}
}

func writeStream(w http.ResponseWriter, model string, r Reply) {
	chunk := func(delta map[string]any, finish any) map[string]any {
		return map[string]any{
			"id": "chatcmpl-agenttest", "object": "chat.completion.chunk", "created": time.Now().Unix(), "model": model,
			"choices": []any{map[string]any{"index": 0, "delta": delta, "finish_reason": finish}},
		}
	}
	send := func(v any) {
		b, _ := json.Marshal(v)
		fmt.Fprintf(w, "data: %s\n\n", b)
		if f, ok := w.(http.Flusher); ok {
			f.Flush()
		}
	}
	send(chunk(map[string]any{"role": "assistant", "content": ""}, nil))
	if r.Content != "" {
		for _, part := range halves(r.Content) {
			send(chunk(map[string]any{"content": part}, nil))
		}
	}
	for i, c := range r.ToolCalls {
		send(chunk(map[string]any{"tool_calls": []any{map[string]any{
			"index": i, "id": c.ID, "type": "function",
			"function": map[string]any{"name": c.Name, "arguments": ""},
		}}}, nil))
		for _, part := range halves(c.Arguments) {
			if part == "" {
				continue
			}
			send(chunk(map[string]any{"tool_calls": []any{map[string]any{
				"index": i, "function": map[string]any{"arguments": part},
			}}}, nil))
		}
	}
	send(chunk(map[string]any{}, finishReason(r)))
	send(map[string]any{
		"id": "chatcmpl-agenttest", "object": "chat.completion.chunk", "created": time.Now().Unix(), "model": model,
		"choices": []any{}, "usage": usage(r),
	})
	io.WriteString(w, "data: [DONE]\n\n")
}

// LastToolResult returns the content of the last tool result in req:
// a "tool" message (chat completions), a user message's last tool_result
// block (Messages) or a function_call_output item (Responses); "" when
// there is none.
func LastToolResult(req Request) string {
	for i := len(req.Messages) - 1; i >= 0; i-- {
		if text, ok := toolResult(req.Messages[i]); ok {
			return text
		}
	}
	return ""
}

// LastUserMessage returns the content of the last "user" message in req.
func LastUserMessage(req Request) string {
	for i := len(req.Messages) - 1; i >= 0; i-- {
		if req.Messages[i]["role"] == "user" {
			return contentText(req.Messages[i]["content"])
		}
	}
	return ""
}

// contentText reads a message content: a string or an array of text parts.
func contentText(c any) string {
	switch v := c.(type) {
	case string:
		return v
	case []any:
		var s string
		for _, p := range v {
			if m, ok := p.(map[string]any); ok {
				if t, ok := m["text"].(string); ok {
					s += t
				}
			}
		}
		return s
	}
	return ""
}

// flushWriter flushes each write to the client.
type flushWriter struct{ w http.ResponseWriter }

func (f flushWriter) Write(p []byte) (int, error) {
	n, err := f.w.Write(p)
	if fl, ok := f.w.(http.Flusher); ok {
		fl.Flush()
	}
	return n, err
}
