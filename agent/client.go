package agent

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"mime"
	"net/http"
	"strconv"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/option"
	"github.com/openai/openai-go/v3/shared"

	"github.com/authbench/authbench/agent/modelconfig"
)

// Bounds on what a model's response may occupy.
const (
	// MaxBody bounds a response body read from the endpoint. A JSON body
	// over it is a model error; a stream over it is cut there (noted as
	// truncated "response").
	MaxBody = 16 << 20
	// MaxField bounds the content and each tool call's arguments kept from
	// a response (and so in the history and the trajectory).
	MaxField = 256 << 10
	// quoteLen is how much of a garbage body a model error quotes.
	quoteLen = 200
)

// ModelError is a failed model call: HTTP status (0: no response), and
// what went wrong. Its text never contains the API key.
type ModelError struct {
	Status int    // HTTP status of the last attempt, 0 when there was none
	Msg    string // what went wrong, with the start of a bad body quoted
}

func (e *ModelError) Error() string {
	if e.Status != 0 {
		return fmt.Sprintf("model call: HTTP %d: %s", e.Status, e.Msg)
	}
	return "model call: " + e.Msg
}

// toolCall is one function call of a response.
type toolCall struct{ ID, Name, Arguments string }

// response is one assistant message, bounded.
type response struct {
	Content   string
	Reasoning string // the reasoning text some servers send beside the content
	ToolCalls []toolCall
	Usage     Usage
	Cached    int64
	Truncated []string // "content", "arguments:<id>", "response"
	// DroppedCalls counts the tool calls past MaxCallsPerTurn: never
	// stored, never run.
	DroppedCalls int
}

// client calls a chat-completions endpoint.
type client struct {
	cfg modelconfig.Config
	oc  openai.Client
}

func newClient(cfg modelconfig.Config, hc *http.Client) *client {
	opts := []option.RequestOption{
		option.WithBaseURL(cfg.BaseURL),
		option.WithAPIKey(cfg.APIKey.Reveal()),
		option.WithMaxRetries(cfg.Retries()),
		option.WithRequestTimeout(time.Duration(cfg.CallTimeout)),
		option.WithMiddleware(limitBody, onlyOwnHeaders(cfg.APIKey)),
	}
	if hc != nil {
		opts = append(opts, option.WithHTTPClient(hc))
	}
	return &client{cfg: cfg, oc: openai.NewClient(opts...)}
}

// onlyOwnHeaders sends the config's key and nothing openai-go took from
// the process's environment (OPENAI_API_KEY, OPENAI_ADMIN_KEY,
// OPENAI_ORG_ID, OPENAI_PROJECT_ID, OPENAI_CUSTOM_HEADERS): in the daemon
// that environment is the daemon's, and the endpoint is the caller's
// choice.
func onlyOwnHeaders(key modelconfig.Secret) option.Middleware {
	return func(req *http.Request, next option.MiddlewareNext) (*http.Response, error) {
		for name := range req.Header {
			if !ownHeader(name) {
				req.Header.Del(name)
			}
		}
		if key != "" {
			req.Header.Set("Authorization", "Bearer "+key.Reveal())
		}
		return next(req)
	}
}

// ownHeader: a request header the client sends on its own account.
func ownHeader(name string) bool {
	switch http.CanonicalHeaderKey(name) {
	case "Content-Type", "Content-Length", "Accept", "Accept-Encoding", "User-Agent", "Idempotency-Key":
		return true
	}
	return strings.HasPrefix(http.CanonicalHeaderKey(name), "X-Stainless-")
}

// limitBody makes a response body fail after MaxBody bytes, so no body
// (error replies included) can take more memory than that.
func limitBody(req *http.Request, next option.MiddlewareNext) (*http.Response, error) {
	res, err := next(req)
	if res != nil && res.Body != nil {
		res.Body = &limitedBody{rc: res.Body, left: MaxBody}
	}
	return res, err
}

// errBodyTooLarge: a response body passed MaxBody.
var errBodyTooLarge = fmt.Errorf("response body over %d bytes", MaxBody)

type limitedBody struct {
	rc   io.ReadCloser
	left int64
}

func (b *limitedBody) Read(p []byte) (int, error) {
	if b.left <= 0 {
		return 0, errBodyTooLarge
	}
	if int64(len(p)) > b.left {
		p = p[:b.left]
	}
	n, err := b.rc.Read(p)
	b.left -= int64(n)
	return n, err
}

func (b *limitedBody) Close() error { return b.rc.Close() }

// params builds the request of one call.
func (c *client) params(msgs []openai.ChatCompletionMessageParamUnion, tools []Tool) openai.ChatCompletionNewParams {
	p := openai.ChatCompletionNewParams{Model: c.cfg.Model, Messages: msgs}
	for _, t := range tools {
		fd := shared.FunctionDefinitionParam{Name: t.Name, Parameters: shared.FunctionParameters(t.Parameters)}
		if t.Description != "" {
			fd.Description = openai.String(t.Description)
		}
		p.Tools = append(p.Tools, openai.ChatCompletionFunctionTool(fd))
	}
	if c.cfg.Temperature != nil {
		p.Temperature = openai.Float(*c.cfg.Temperature)
	}
	if c.cfg.MaxTokens > 0 {
		p.MaxTokens = openai.Int(int64(c.cfg.MaxTokens))
	}
	if c.cfg.Stream {
		p.StreamOptions = openai.ChatCompletionStreamOptionsParam{IncludeUsage: openai.Bool(true)}
	}
	return p
}

// complete makes one model call (with the client's retries) and returns
// the assistant message, or a *ModelError, or the context's error.
func (c *client) complete(ctx context.Context, msgs []openai.ChatCompletionMessageParamUnion, tools []Tool) (*response, error) {
	var raw *http.Response
	var opts []option.RequestOption
	if c.cfg.Stream {
		opts = append(opts, option.WithJSONSet("stream", true))
	}
	err := c.oc.Post(ctx, "chat/completions", c.params(msgs, tools), &raw, opts...)
	if err != nil {
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		return nil, c.callError(err)
	}
	defer raw.Body.Close()
	var resp *response
	if c.cfg.Stream && !isJSON(raw.Header.Get("Content-Type")) {
		resp, err = readStream(raw)
	} else {
		resp, err = readCompletion(raw.Body)
	}
	if err != nil {
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		var me *ModelError
		if errors.As(err, &me) {
			me.Status = raw.StatusCode
			me.Msg = scrub(me.Msg, c.cfg.APIKey)
			return nil, me
		}
		return nil, &ModelError{Status: raw.StatusCode, Msg: scrub(err.Error(), c.cfg.APIKey)}
	}
	return resp, nil
}

// callError turns an error of the HTTP exchange into a *ModelError.
func (c *client) callError(err error) error {
	var ae *openai.Error
	if errors.As(err, &ae) {
		msg := ae.Message
		if msg == "" && ae.Response != nil && ae.Response.Body != nil {
			// not OpenAI's {"error": {"message": ...}}: quote the body's start
			head, _ := io.ReadAll(io.LimitReader(ae.Response.Body, quoteLen+1))
			if len(bytes.TrimSpace(head)) > 0 {
				msg = quote(head)
			}
		}
		if msg == "" {
			msg = http.StatusText(ae.StatusCode)
		}
		return &ModelError{Status: ae.StatusCode, Msg: excerpt(scrub(msg, c.cfg.APIKey))}
	}
	return &ModelError{Msg: excerpt(scrub(err.Error(), c.cfg.APIKey))}
}

// maxExcerpt bounds an error text of the endpoint kept in a record.
const maxExcerpt = 512

// excerpt is an endpoint's error text as records keep it: at most
// maxExcerpt bytes (cut at a rune, marked), quoted when it holds control
// or invalid bytes (escapes for terminals, markup and logs stay inert).
func excerpt(s string) string {
	cut := len(s) > maxExcerpt
	if cut {
		s = s[:runeCut(s, maxExcerpt)]
	}
	if strings.IndexFunc(s, func(r rune) bool { return r == utf8.RuneError || !unicode.IsGraphic(r) && r != ' ' }) >= 0 {
		s = strconv.Quote(s)
	}
	if cut {
		s += "..."
	}
	return s
}

// scrub replaces the key wherever an error text repeats it.
func scrub(s string, key modelconfig.Secret) string {
	if len(key) < 4 {
		return s
	}
	return strings.ReplaceAll(s, key.Reveal(), modelconfig.Redacted)
}

func isJSON(contentType string) bool {
	mt, _, _ := mime.ParseMediaType(contentType)
	return mt == "application/json" || strings.HasSuffix(mt, "+json")
}

// quote returns the start of a body, quoted, for an error message.
func quote(b []byte) string {
	if len(b) > quoteLen {
		return fmt.Sprintf("%q...", b[:quoteLen])
	}
	return fmt.Sprintf("%q", b)
}

// bound cuts s to MaxField bytes (at a rune boundary).
func bound(s string) (string, bool) {
	if len(s) <= MaxField {
		return s, false
	}
	return s[:runeCut(s, MaxField)], true
}

// headKeeper keeps the first quoteLen bytes written to it.
type headKeeper struct{ b []byte }

func (h *headKeeper) Write(p []byte) (int, error) {
	if room := quoteLen + 1 - len(h.b); room > 0 {
		h.b = append(h.b, p[:min(room, len(p))]...)
	}
	return len(p), nil
}

type readCloser struct {
	io.Reader
	io.Closer
}
