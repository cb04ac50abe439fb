package agent

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"strings"
	"time"

	"github.com/pelletier/go-toml/v2"
	"github.com/spf13/pflag"

	"github.com/authbench/authbench/agent/modelconfig"
)

// Flags are the model options of a command (task run, bench, generate).
// Precedence: flags > the [model] table of the config file >
// OPENAI_BASE_URL / OPENAI_API_KEY > defaults. The key itself is never a
// flag: --api-key-env names the variable holding it.
type Flags struct {
	fs          *pflag.FlagSet
	baseURL     string
	apiKeyEnv   string
	temperature float64
	maxTurns    int
	maxTokens   int
	callTimeout time.Duration
	maxRetries  int
	stream      bool
}

// AddFlags registers the model options on fs.
func AddFlags(fs *pflag.FlagSet) *Flags {
	f := &Flags{fs: fs}
	fs.StringVar(&f.baseURL, "base-url", "", "OpenAI-compatible endpoint of an openai:MODEL agent or generator (default $"+modelconfig.EnvBaseURL+", else "+modelconfig.DefaultBaseURL+")")
	fs.StringVar(&f.apiKeyEnv, "api-key-env", modelconfig.EnvAPIKey, "environment variable holding the model's API key (never the key itself)")
	fs.Float64Var(&f.temperature, "temperature", 0, "model sampling temperature, 0..2 (default: the server's)")
	fs.IntVar(&f.maxTurns, "max-turns", 0, fmt.Sprintf("model calls per agent loop (default %d)", modelconfig.DefaultMaxTurns))
	fs.IntVar(&f.maxTokens, "max-tokens", 0, "max output tokens per model call (default: the server's)")
	fs.DurationVar(&f.callTimeout, "call-timeout", 0, fmt.Sprintf("timeout of each model call attempt (default %s)", modelconfig.DefaultCallTimeout))
	fs.IntVar(&f.maxRetries, "max-retries", 0, fmt.Sprintf("retries of a model call on 429/5xx/connection errors (default %d; -1: none)", modelconfig.DefaultMaxRetries))
	fs.BoolVar(&f.stream, "stream", false, "ask the model for streamed (SSE) responses")
	return f
}

// Config builds the resolved config of model from the flags, the [model]
// table of configFile (a missing file is no error unless configRequired)
// and the environment. model "" takes the config file's model.
func (f *Flags) Config(model, configFile string, configRequired bool, getenv func(string) string) (modelconfig.Config, error) {
	if getenv == nil {
		getenv = os.Getenv
	}
	t, err := loadModelTable(configFile, configRequired)
	if err != nil {
		return modelconfig.Config{}, err
	}
	c := t.Config
	if model != "" {
		c.Model = model
	}
	keyEnv := t.APIKeyEnv
	changed := func(name string) bool { return f.fs != nil && f.fs.Changed(name) }
	if changed("base-url") {
		c.BaseURL = f.baseURL
	}
	if changed("api-key-env") {
		keyEnv = f.apiKeyEnv
	}
	if changed("temperature") {
		v := f.temperature
		c.Temperature = &v
	}
	if changed("max-turns") {
		c.MaxTurns = f.maxTurns
	}
	if changed("max-tokens") {
		c.MaxTokens = f.maxTokens
	}
	if changed("call-timeout") {
		c.CallTimeout = modelconfig.Duration(f.callTimeout)
	}
	if changed("max-retries") {
		c.MaxRetries = f.maxRetries
	}
	if changed("stream") {
		c.Stream = f.stream
	}
	if keyEnv != "" {
		key := getenv(keyEnv)
		if key == "" {
			return modelconfig.Config{}, fmt.Errorf("api key: environment variable %s is empty or unset", keyEnv)
		}
		c.APIKey = modelconfig.Secret(key)
	}
	return c.Resolve(getenv)
}

// modelTable is the [model] table of the config file:
//
//	[model]
//	base_url = "http://localhost:8080/v1"
//	api_key_env = "LLAMA_KEY"
//	model = "qwen3-coder"
//	temperature = 0.2
//	max_tokens = 4096
//	max_turns = 40
//	call_timeout = "90s"
//	max_retries = 4
//	stream = true
//	max_history_bytes = 16777216
//
// and, for the daemon, what members may use (MemberPolicy):
//
//	allowed_base_urls = ["http://localhost:8080/v1"]
//	member_max_turns = 100
//	member_max_history_bytes = 16777216
type modelTable struct {
	modelconfig.Config
	APIKeyEnv string
	Members   modelconfig.MemberPolicy
}

type modelTableTOML struct {
	BaseURL     string                `toml:"base_url"`
	APIKeyEnv   string                `toml:"api_key_env"`
	Model       string                `toml:"model"`
	Temperature *float64              `toml:"temperature"`
	MaxTokens   int                   `toml:"max_tokens"`
	MaxTurns    int                   `toml:"max_turns"`
	CallTimeout *modelconfig.Duration `toml:"call_timeout"`
	MaxRetries  int                   `toml:"max_retries"`
	Stream      bool                  `toml:"stream"`
	MaxHistory  int64                 `toml:"max_history_bytes"`

	AllowedBaseURLs       []string `toml:"allowed_base_urls"`
	MemberMaxTurns        int      `toml:"member_max_turns"`
	MemberMaxHistoryBytes int64    `toml:"member_max_history_bytes"`
}

func loadModelTable(name string, required bool) (modelTable, error) {
	if name == "" {
		return modelTable{}, nil
	}
	data, err := os.ReadFile(name)
	if errors.Is(err, fs.ErrNotExist) && !required {
		return modelTable{}, nil
	}
	if err != nil {
		return modelTable{}, fmt.Errorf("read config: %w", err)
	}
	return parseModelTable(data, name)
}

// parseModelTable reads the [model] table of a config file; other tables
// are left to their owners. Unknown keys in [model] and wrong types are
// errors with their line.
func parseModelTable(data []byte, name string) (modelTable, error) {
	var doc struct {
		Model modelTableTOML `toml:"model"`
	}
	err := toml.NewDecoder(bytes.NewReader(data)).DisallowUnknownFields().Decode(&doc)
	var sme *toml.StrictMissingError
	if errors.As(err, &sme) {
		for i := range sme.Errors {
			e := &sme.Errors[i]
			if k := e.Key(); len(k) > 0 && k[0] == "model" {
				line, _ := e.Position()
				return modelTable{}, fmt.Errorf("config %s:%d: %s: unknown key (known: base_url, api_key_env, model, temperature, max_tokens, max_turns, call_timeout, max_retries, stream, max_history_bytes, allowed_base_urls, member_max_turns, member_max_history_bytes)",
					name, line, strings.Join(k, "."))
			}
		}
		err = nil // unknown keys of other tables are their owners' business
	}
	if err != nil {
		var de *toml.DecodeError
		if errors.As(err, &de) {
			line, _ := de.Position()
			return modelTable{}, fmt.Errorf("config %s:%d: %v", name, line, de.Error())
		}
		return modelTable{}, fmt.Errorf("config %s: %w", name, err)
	}
	m := doc.Model
	t := modelTable{APIKeyEnv: m.APIKeyEnv, Config: modelconfig.Config{
		BaseURL: m.BaseURL, Model: m.Model, Temperature: m.Temperature,
		MaxTokens: m.MaxTokens, MaxTurns: m.MaxTurns, MaxRetries: m.MaxRetries, Stream: m.Stream, MaxHistoryBytes: m.MaxHistory,
	}, Members: modelconfig.MemberPolicy{AllowedBaseURLs: m.AllowedBaseURLs, MaxTurns: m.MemberMaxTurns, MaxHistoryBytes: m.MemberMaxHistoryBytes}}
	if err := t.Members.Check(); err != nil {
		return modelTable{}, fmt.Errorf("config %s: model.%w", name, err)
	}
	if m.CallTimeout != nil {
		t.CallTimeout = *m.CallTimeout
	}
	return t, nil
}

// LoadMemberPolicy reads what the daemon's members may use from the
// [model] table of the config file name (a missing file is no error
// unless required: members then may use no model endpoint).
func LoadMemberPolicy(name string, required bool) (modelconfig.MemberPolicy, error) {
	t, err := loadModelTable(name, required)
	return t.Members, err
}
