package modelconfig

import (
	"encoding/json"
	"errors"
	"fmt"
	"net/url"
	"strings"
	"time"

	"go.uber.org/zap/zapcore"
)

// Defaults of a Config's zero fields.
const (
	DefaultBaseURL     = "https://api.openai.com/v1"
	DefaultMaxTurns    = 30
	DefaultCallTimeout = 120 * time.Second
	DefaultMaxRetries  = 4
	// DefaultMaxHistoryBytes bounds the conversation a loop keeps and
	// sends (its JSON) when the config sets no max_history_bytes.
	DefaultMaxHistoryBytes = 16 << 20
)

// Config is an OpenAI-compatible endpoint and the model's options.
type Config struct {
	BaseURL     string   `json:"base_url"`               // "" → $OPENAI_BASE_URL → https://api.openai.com/v1
	APIKey      Secret   `json:"api_key,omitempty"`      // "" → $OPENAI_API_KEY; see Secret
	Model       string   `json:"model"`                  //
	Temperature *float64 `json:"temperature,omitempty"`  //
	MaxTokens   int      `json:"max_tokens,omitempty"`   // max output tokens per call (0: server default)
	MaxTurns    int      `json:"max_turns,omitempty"`    // model calls per loop (0: DefaultMaxTurns)
	CallTimeout Duration `json:"call_timeout,omitempty"` // per attempt of a model call (0: 120 s)
	MaxRetries  int      `json:"max_retries,omitempty"`  // on 429/5xx/connection errors (0: 4; -1: none)
	Stream      bool     `json:"stream,omitempty"`       // ask for a streamed (SSE) response
	// MaxHistoryBytes bounds the conversation's JSON (0:
	// DefaultMaxHistoryBytes): a turn that would pass it ends the loop
	// (StopLimits). With MaxTrajectoryBytes it is a loop's memory budget.
	MaxHistoryBytes int64 `json:"max_history_bytes,omitempty"`
}

// Secret is an API key. It marshals to JSON as itself (so a request can
// carry it to the daemon), but String, GoString, Format and zap print
// "[redacted]". Whoever stores a Config calls Config.Redacted first.
type Secret string

// Redacted is what a Secret prints instead of itself.
const Redacted = "[redacted]"

// String returns "[redacted]" (or "" for an empty key).
func (s Secret) String() string {
	if s == "" {
		return ""
	}
	return Redacted
}

// GoString returns the redacted form for %#v.
func (s Secret) GoString() string { return fmt.Sprintf("%q", s.String()) }

// Format prints the redacted form for every verb (%s, %v, %q, %x, ...).
func (s Secret) Format(f fmt.State, verb rune) {
	if verb == 'q' {
		fmt.Fprintf(f, "%q", s.String())
		return
	}
	fmt.Fprint(f, s.String())
}

// MarshalLogObject makes zap.Any and zap.Object print the redacted form.
func (s Secret) MarshalLogObject(enc zapcore.ObjectEncoder) error {
	enc.AddString("secret", s.String())
	return nil
}

// Reveal returns the key itself, for the HTTP client only.
func (s Secret) Reveal() string { return string(s) }

// Redacted returns the config without its key, for storing and logging.
func (c Config) Redacted() Config {
	c.APIKey = ""
	return c
}

// MarshalLogObject logs a config without its key.
func (c Config) MarshalLogObject(enc zapcore.ObjectEncoder) error {
	enc.AddString("base_url", c.BaseURL)
	enc.AddString("model", c.Model)
	enc.AddBool("api_key_set", c.APIKey != "")
	enc.AddInt("max_turns", c.MaxTurns)
	enc.AddBool("stream", c.Stream)
	return nil
}

// Duration is a time.Duration that is a Go duration string in JSON ("90s").
type Duration time.Duration

// MarshalJSON writes the duration as a string.
func (d Duration) MarshalJSON() ([]byte, error) {
	return json.Marshal(time.Duration(d).String())
}

// UnmarshalJSON reads a duration string ("90s", "2m").
func (d *Duration) UnmarshalJSON(b []byte) error {
	var s string
	if err := json.Unmarshal(b, &s); err != nil {
		return fmt.Errorf("duration: want a string like \"90s\": %w", err)
	}
	v, err := time.ParseDuration(s)
	if err != nil {
		return fmt.Errorf("duration: %w", err)
	}
	*d = Duration(v)
	return nil
}

// UnmarshalText reads a duration string (TOML config files).
func (d *Duration) UnmarshalText(b []byte) error {
	v, err := time.ParseDuration(string(b))
	if err != nil {
		return fmt.Errorf("duration: %w", err)
	}
	*d = Duration(v)
	return nil
}

// String formats the duration like time.Duration.
func (d Duration) String() string { return time.Duration(d).String() }

// Env variables read by Resolve.
const (
	EnvBaseURL = "OPENAI_BASE_URL"
	EnvAPIKey  = "OPENAI_API_KEY"
)

// Resolve fills defaults from the environment (OPENAI_BASE_URL,
// OPENAI_API_KEY) and checks the config: a missing model, a bad URL or a
// negative number is an error naming the field. Resolving twice changes
// nothing.
func (c Config) Resolve(getenv func(string) string) (Config, error) {
	if getenv == nil {
		getenv = func(string) string { return "" }
	}
	if c.BaseURL == "" {
		c.BaseURL = getenv(EnvBaseURL)
	}
	if c.BaseURL == "" {
		c.BaseURL = DefaultBaseURL
	}
	if c.APIKey == "" {
		c.APIKey = Secret(getenv(EnvAPIKey))
	}
	if strings.TrimSpace(c.Model) == "" {
		return c, errors.New("model: missing")
	}
	u, err := url.Parse(c.BaseURL)
	if err != nil {
		return c, fmt.Errorf("base_url: %w", err)
	}
	if (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return c, fmt.Errorf("base_url %q: want an http:// or https:// URL with a host", c.BaseURL)
	}
	if u.User != nil {
		return c, fmt.Errorf("base_url: no credentials in the URL (use the API key)")
	}
	if c.Temperature != nil && (*c.Temperature < 0 || *c.Temperature > 2) {
		return c, fmt.Errorf("temperature %g: want 0..2", *c.Temperature)
	}
	if c.MaxTokens < 0 {
		return c, fmt.Errorf("max_tokens %d: negative", c.MaxTokens)
	}
	switch {
	case c.MaxTurns < 0:
		return c, fmt.Errorf("max_turns %d: negative", c.MaxTurns)
	case c.MaxTurns == 0:
		c.MaxTurns = DefaultMaxTurns
	}
	switch {
	case c.MaxHistoryBytes < 0:
		return c, fmt.Errorf("max_history_bytes %d: negative", c.MaxHistoryBytes)
	case c.MaxHistoryBytes == 0:
		c.MaxHistoryBytes = DefaultMaxHistoryBytes
	}
	switch {
	case c.CallTimeout < 0:
		return c, fmt.Errorf("call_timeout %s: negative", c.CallTimeout)
	case c.CallTimeout == 0:
		c.CallTimeout = Duration(DefaultCallTimeout)
	}
	switch {
	case c.MaxRetries < -1:
		return c, fmt.Errorf("max_retries %d: want -1 (none) or more", c.MaxRetries)
	case c.MaxRetries == 0:
		c.MaxRetries = DefaultMaxRetries
	}
	return c, nil
}

// Retries is the number of retries a client makes (MaxRetries of a
// resolved config; -1 means none).
func (c Config) Retries() int {
	if c.MaxRetries < 0 {
		return 0
	}
	return c.MaxRetries
}
