package agent

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"sort"
	"unicode/utf8"

	"github.com/openai/openai-go/v3/packages/ssestream"
)

// A model's answer is decoded into these bounded types as it is read: at
// most MaxCallsPerTurn tool calls (the others are counted, never
// stored), one choice, each text cut at MaxField bytes while it is
// accumulated. Whatever the endpoint sends, an answer holds at most
// about MaxCallsPerTurn × 2 × MaxField bytes beyond its body.

// maxIDBytes bounds a tool call's id and function name.
const maxIDBytes = 256

// text is a JSON string, or anything else read as "" (some servers send
// null, or parts, where a string is expected).
type text string

func (t *text) UnmarshalJSON(b []byte) error {
	if len(b) > 0 && b[0] == '"' {
		var s string
		if err := json.Unmarshal(b, &s); err != nil {
			return err
		}
		*t = text(s)
	}
	return nil
}

// skip reads any JSON value and keeps nothing.
type skip struct{}

func (*skip) UnmarshalJSON([]byte) error { return nil }

// eachElement calls keep for the elements of the JSON array data while
// keep returns true, and skips the rest, returning how many were
// skipped. null is an empty array; anything else that is not an array
// is an error.
func eachElement(data []byte, keep func(dec *json.Decoder) (bool, error)) (skipped int, err error) {
	if bytes.Equal(bytes.TrimSpace(data), []byte("null")) {
		return 0, nil
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	if tok, err := dec.Token(); err != nil || tok != json.Delim('[') {
		return 0, fmt.Errorf("want an array, got %s", quote(data))
	}
	taking := true
	for dec.More() {
		if taking {
			if taking, err = keep(dec); err != nil {
				return skipped, err
			}
			continue
		}
		var s skip
		if err := dec.Decode(&s); err != nil {
			return skipped, err
		}
		skipped++
	}
	return skipped, nil
}

// wireUsage is a response's token counts.
type wireUsage struct {
	PromptTokens        int64 `json:"prompt_tokens"`
	CompletionTokens    int64 `json:"completion_tokens"`
	TotalTokens         int64 `json:"total_tokens"`
	PromptTokensDetails struct {
		CachedTokens int64 `json:"cached_tokens"`
	} `json:"prompt_tokens_details"`
}

// wireFunction is a tool call's function (or its delta in a stream).
type wireFunction struct {
	Name      text `json:"name"`
	Arguments text `json:"arguments"`
}

// wireCall is one tool call (or a stream's delta of one).
type wireCall struct {
	Index    int          `json:"index"`
	ID       text         `json:"id"`
	Function wireFunction `json:"function"`
}

// wireCalls are the first MaxCallsPerTurn tool calls of a message (or
// deltas of a stream chunk); the others are counted.
type wireCalls struct {
	calls   []wireCall
	dropped int
}

func (w *wireCalls) UnmarshalJSON(data []byte) error {
	n, err := eachElement(data, func(dec *json.Decoder) (bool, error) {
		var c wireCall
		if err := dec.Decode(&c); err != nil {
			return false, err
		}
		w.calls = append(w.calls, c)
		return len(w.calls) < MaxCallsPerTurn, nil
	})
	w.dropped = n
	return err
}

// wireMessage is a message, or a stream's delta of one.
type wireMessage struct {
	Content          text      `json:"content"`
	ReasoningContent text      `json:"reasoning_content"` // DeepSeek, vLLM, llama.cpp
	Reasoning        text      `json:"reasoning"`         // Ollama, OpenRouter
	ToolCalls        wireCalls `json:"tool_calls"`
}

func (m *wireMessage) reasoning() string {
	if m.ReasoningContent != "" {
		return string(m.ReasoningContent)
	}
	return string(m.Reasoning)
}

// wireChoice is a response's choice, or a stream chunk's.
type wireChoice struct {
	Index   int         `json:"index"`
	Message wireMessage `json:"message"`
	Delta   wireMessage `json:"delta"`
}

// firstChoice is choice 0 of a response or chunk; the others are skipped.
type firstChoice struct {
	choice *wireChoice
}

func (f *firstChoice) UnmarshalJSON(data []byte) error {
	_, err := eachElement(data, func(dec *json.Decoder) (bool, error) {
		var c wireChoice
		if err := dec.Decode(&c); err != nil {
			return false, err
		}
		if c.Index == 0 && f.choice == nil {
			f.choice = &c
		}
		return f.choice == nil, nil
	})
	return err
}

// wireCompletion is a response, or a stream chunk.
type wireCompletion struct {
	Choices firstChoice     `json:"choices"`
	Usage   *wireUsage      `json:"usage"`
	Error   json.RawMessage `json:"error"`
}

// answer accumulates one assistant message, bounded.
type answer struct {
	content, reasoning boundedText
	calls              []*callAcc
	byIndex            map[int]*callAcc
	dropped            int
	lastDropped        int
	usage              wireUsage
}

type callAcc struct {
	index    int
	id, name boundedText
	args     boundedText
}

func newAnswer() *answer {
	a := &answer{byIndex: map[int]*callAcc{}, lastDropped: -1}
	a.content.max, a.reasoning.max = MaxField, MaxField
	return a
}

// addMessage adds a whole message (a response that is not streamed).
func (a *answer) addMessage(m *wireMessage) {
	a.content.add(string(m.Content))
	a.reasoning.add(m.reasoning())
	for i, c := range m.ToolCalls.calls {
		c.Index = i
		a.addCall(c)
	}
	a.dropped += m.ToolCalls.dropped
}

// addDelta adds a stream chunk's delta: its tool calls are matched by
// index; an index past the first MaxCallsPerTurn is counted once per run
// of deltas, never stored.
func (a *answer) addDelta(m *wireMessage) {
	a.content.add(string(m.Content))
	a.reasoning.add(m.reasoning())
	for _, c := range m.ToolCalls.calls {
		a.addCall(c)
	}
	a.dropped += m.ToolCalls.dropped
}

func (a *answer) addCall(c wireCall) {
	acc := a.byIndex[c.Index]
	if acc == nil {
		if len(a.calls) >= MaxCallsPerTurn {
			if c.Index != a.lastDropped {
				a.dropped++
				a.lastDropped = c.Index
			}
			return
		}
		acc = &callAcc{index: c.Index}
		acc.id.max, acc.name.max, acc.args.max = maxIDBytes, maxIDBytes, MaxField
		a.byIndex[c.Index] = acc
		a.calls = append(a.calls, acc)
	}
	if acc.id.len() == 0 {
		acc.id.add(string(c.ID))
	}
	acc.name.add(string(c.Function.Name))
	acc.args.add(string(c.Function.Arguments))
}

// response is the bounded answer.
func (a *answer) response() *response {
	u := a.usage
	r := &response{
		Content: a.content.String(), Reasoning: a.reasoning.String(),
		Usage:  Usage{PromptTokens: u.PromptTokens, CompletionTokens: u.CompletionTokens, TotalTokens: u.TotalTokens},
		Cached: u.PromptTokensDetails.CachedTokens, DroppedCalls: a.dropped,
	}
	if a.content.cut {
		r.Truncated = append(r.Truncated, "content")
	}
	sort.SliceStable(a.calls, func(i, j int) bool { return a.calls[i].index < a.calls[j].index })
	for _, c := range a.calls {
		tc := toolCall{ID: c.id.String(), Name: c.name.String(), Arguments: c.args.String()}
		if c.args.cut {
			r.Truncated = append(r.Truncated, "arguments:"+tc.ID)
		}
		r.ToolCalls = append(r.ToolCalls, tc)
	}
	return r
}

// boundedText accumulates text up to max bytes (cut at a rune
// boundary); what comes after is dropped and noted (cut).
type boundedText struct {
	max int
	b   []byte
	cut bool
}

func (t *boundedText) add(s string) {
	if t.cut || s == "" {
		return
	}
	if room := t.max - len(t.b); len(s) > room {
		s, t.cut = s[:runeCut(s, room)], true
	}
	t.b = append(t.b, s...)
}

func (t *boundedText) len() int { return len(t.b) }

func (t *boundedText) String() string { return string(t.b) }

// runeCut is the largest n' ≤ n at which s can be cut without splitting
// a rune.
func runeCut(s string, n int) int {
	if n >= len(s) {
		return len(s)
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return n
}

// readCompletion parses a non-streamed response body.
func readCompletion(body io.Reader) (*response, error) {
	data, err := io.ReadAll(body)
	if err != nil {
		return nil, &ModelError{Msg: fmt.Sprintf("read response: %v", err)}
	}
	if len(bytes.TrimSpace(data)) == 0 {
		return nil, &ModelError{Msg: "empty response body"}
	}
	var cc wireCompletion
	if err := json.Unmarshal(data, &cc); err != nil {
		return nil, &ModelError{Msg: fmt.Sprintf("response is not a chat completion (%v): %s", err, quote(data))}
	}
	if cc.Choices.choice == nil {
		return nil, &ModelError{Msg: "response has no choices: " + quote(data)}
	}
	a := newAnswer()
	a.addMessage(&cc.Choices.choice.Message)
	if cc.Usage != nil {
		a.usage = *cc.Usage
	}
	return a.response(), nil
}

// readStream accumulates a streamed (SSE) response as it is read.
func readStream(raw *http.Response) (*response, error) {
	head := &headKeeper{}
	raw.Body = readCloser{Reader: io.TeeReader(raw.Body, head), Closer: raw.Body}
	dec := ssestream.NewDecoder(raw)
	defer dec.Close()
	a := newAnswer()
	chunks, choices := 0, 0
	for dec.Next() {
		data := dec.Event().Data
		if bytes.HasPrefix(data, []byte("[DONE]")) {
			break
		}
		chunks++
		var chunk wireCompletion
		if err := json.Unmarshal(data, &chunk); err != nil {
			return nil, &ModelError{Msg: fmt.Sprintf("stream chunk %d is not a chat completion chunk (%v): %s", chunks, err, quote(head.b))}
		}
		if len(bytes.TrimSpace(chunk.Error)) > 0 && !bytes.Equal(bytes.TrimSpace(chunk.Error), []byte("null")) {
			return nil, &ModelError{Msg: fmt.Sprintf("error in the stream after %d chunks: %s", chunks, quote(chunk.Error))}
		}
		if c := chunk.Choices.choice; c != nil {
			choices++
			a.addDelta(&c.Delta)
		}
		if chunk.Usage != nil {
			a.usage = *chunk.Usage
		}
	}
	err := dec.Err()
	truncated := false
	if errors.Is(err, errBodyTooLarge) {
		err, truncated = nil, true
	}
	if err != nil {
		return nil, &ModelError{Msg: fmt.Sprintf("stream after %d chunks: %v: %s", chunks, err, quote(head.b))}
	}
	if choices == 0 {
		return nil, &ModelError{Msg: "stream without a choice: " + quote(head.b)}
	}
	r := a.response()
	if truncated {
		r.Truncated = append(r.Truncated, "response")
	}
	return r, nil
}
