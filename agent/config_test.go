package agent_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/spf13/pflag"

	"github.com/authbench/authbench/agent"
	"github.com/authbench/authbench/agent/modelconfig"
)

func env(m map[string]string) func(string) string {
	return func(k string) string { return m[k] }
}

func TestConfigResolve(t *testing.T) {
	temp := func(v float64) *float64 { return &v }
	cases := []struct {
		name    string
		in      modelconfig.Config
		env     map[string]string
		want    modelconfig.Config
		wantErr string
	}{
		{name: "defaults", in: modelconfig.Config{Model: "m"},
			want: modelconfig.Config{Model: "m", BaseURL: modelconfig.DefaultBaseURL, MaxTurns: 30, CallTimeout: modelconfig.Duration(120 * time.Second), MaxRetries: 4, MaxHistoryBytes: modelconfig.DefaultMaxHistoryBytes}},
		{name: "env fills", in: modelconfig.Config{Model: "m"}, env: map[string]string{"OPENAI_BASE_URL": "http://localhost:8080/v1", "OPENAI_API_KEY": "k1"},
			want: modelconfig.Config{Model: "m", BaseURL: "http://localhost:8080/v1", APIKey: "k1", MaxTurns: 30, CallTimeout: modelconfig.Duration(120 * time.Second), MaxRetries: 4, MaxHistoryBytes: modelconfig.DefaultMaxHistoryBytes}},
		{name: "config beats env", in: modelconfig.Config{Model: "m", BaseURL: "https://x.example/v1", APIKey: "k2", MaxRetries: -1, MaxTurns: 5, CallTimeout: modelconfig.Duration(time.Second)},
			env:  map[string]string{"OPENAI_BASE_URL": "http://localhost:8080/v1", "OPENAI_API_KEY": "k1"},
			want: modelconfig.Config{Model: "m", BaseURL: "https://x.example/v1", APIKey: "k2", MaxTurns: 5, CallTimeout: modelconfig.Duration(time.Second), MaxRetries: -1, MaxHistoryBytes: modelconfig.DefaultMaxHistoryBytes}},
		{name: "no model", in: modelconfig.Config{}, wantErr: "model: missing"},
		{name: "bad url", in: modelconfig.Config{Model: "m", BaseURL: "localhost:8080"}, wantErr: "base_url"},
		{name: "ftp url", in: modelconfig.Config{Model: "m", BaseURL: "ftp://h/v1"}, wantErr: "base_url"},
		{name: "credentials in url", in: modelconfig.Config{Model: "m", BaseURL: "https://u:p@h/v1"}, wantErr: "base_url: no credentials"},
		{name: "negative turns", in: modelconfig.Config{Model: "m", MaxTurns: -1}, wantErr: "max_turns"},
		{name: "negative history", in: modelconfig.Config{Model: "m", MaxHistoryBytes: -1}, wantErr: "max_history_bytes"},
		{name: "negative tokens", in: modelconfig.Config{Model: "m", MaxTokens: -5}, wantErr: "max_tokens"},
		{name: "negative timeout", in: modelconfig.Config{Model: "m", CallTimeout: -1}, wantErr: "call_timeout"},
		{name: "retries -2", in: modelconfig.Config{Model: "m", MaxRetries: -2}, wantErr: "max_retries"},
		{name: "temperature", in: modelconfig.Config{Model: "m", Temperature: temp(3)}, wantErr: "temperature"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got, err := c.in.Resolve(env(c.env))
			if c.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), c.wantErr) {
					t.Fatalf("err %v, want %q", err, c.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			g, _ := json.Marshal(got)
			w, _ := json.Marshal(c.want)
			if string(g) != string(w) {
				t.Errorf("got  %s\nwant %s", g, w)
			}
			again, err := got.Resolve(env(c.env))
			a, _ := json.Marshal(again)
			if err != nil || string(a) != string(g) {
				t.Errorf("resolving twice changed %s to %s (%v)", g, a, err)
			}
		})
	}
}

func TestFlagsPrecedence(t *testing.T) {
	file := filepath.Join(t.TempDir(), "config.toml")
	if err := os.WriteFile(file, []byte(`
[env]
builder = "buildah"

[model]
base_url = "http://file.example/v1"
api_key_env = "FILE_KEY"
model = "file-model"
temperature = 0.5
max_turns = 12
call_timeout = "90s"
max_retries = 2
stream = true
`), 0o644); err != nil {
		t.Fatal(err)
	}
	environ := map[string]string{"OPENAI_BASE_URL": "http://env.example/v1", "OPENAI_API_KEY": "env-key", "FILE_KEY": "file-key", "FLAG_KEY": "flag-key"}
	cases := []struct {
		name    string
		args    []string
		model   string
		file    string
		check   func(t *testing.T, c modelconfig.Config)
		wantErr string
	}{
		{name: "env and defaults", model: "m", check: func(t *testing.T, c modelconfig.Config) {
			if c.BaseURL != "http://env.example/v1" || c.APIKey.Reveal() != "env-key" || c.MaxTurns != 30 || c.Stream || c.Temperature != nil {
				t.Errorf("%+v", c)
			}
		}},
		{name: "file beats env", file: file, check: func(t *testing.T, c modelconfig.Config) {
			if c.BaseURL != "http://file.example/v1" || c.APIKey.Reveal() != "file-key" || c.Model != "file-model" ||
				c.MaxTurns != 12 || *c.Temperature != 0.5 || c.CallTimeout != modelconfig.Duration(90*time.Second) || c.MaxRetries != 2 || !c.Stream {
				t.Errorf("%+v", c)
			}
		}},
		{name: "flags beat file", file: file, model: "flag-model",
			args: []string{"--base-url", "http://flag.example/v1", "--api-key-env", "FLAG_KEY", "--temperature", "0", "--max-turns", "3",
				"--max-tokens", "100", "--call-timeout", "5s", "--max-retries", "-1", "--stream=false"},
			check: func(t *testing.T, c modelconfig.Config) {
				if c.BaseURL != "http://flag.example/v1" || c.APIKey.Reveal() != "flag-key" || c.Model != "flag-model" || *c.Temperature != 0 ||
					c.MaxTurns != 3 || c.MaxTokens != 100 || c.CallTimeout != modelconfig.Duration(5*time.Second) || c.MaxRetries != -1 || c.Stream {
					t.Errorf("%+v", c)
				}
			}},
		{name: "named key variable unset", model: "m", args: []string{"--api-key-env", "NOPE"}, wantErr: "NOPE is empty or unset"},
		{name: "no model anywhere", wantErr: "model: missing"},
		{name: "missing required file", model: "m", file: filepath.Join(t.TempDir(), "absent.toml"), wantErr: "read config"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			fs := pflag.NewFlagSet("test", pflag.ContinueOnError)
			f := agent.AddFlags(fs)
			if err := fs.Parse(c.args); err != nil {
				t.Fatal(err)
			}
			cfg, err := f.Config(c.model, c.file, c.file != "", env(environ))
			if c.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), c.wantErr) {
					t.Fatalf("err %v, want %q", err, c.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			c.check(t, cfg)
		})
	}
}

func TestFlagsConfigFileErrors(t *testing.T) {
	cases := []struct{ name, text, want string }{
		{"unknown key", "[model]\nmodel = \"m\"\n\napi_key = \"sk-x\"\n", ":4: model.api_key: unknown key"},
		{"wrong type", "[model]\nmax_turns = \"many\"\n", ":2:"},
		{"bad duration", "[model]\ncall_timeout = \"soon\"\n", "duration"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			file := filepath.Join(t.TempDir(), "config.toml")
			if err := os.WriteFile(file, []byte(c.text), 0o644); err != nil {
				t.Fatal(err)
			}
			f := agent.AddFlags(pflag.NewFlagSet("test", pflag.ContinueOnError))
			_, err := f.Config("m", file, true, env(nil))
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Errorf("err %v, want %q", err, c.want)
			}
		})
	}
	// A missing default file is no error.
	f := agent.AddFlags(pflag.NewFlagSet("test", pflag.ContinueOnError))
	if _, err := f.Config("m", filepath.Join(t.TempDir(), "absent.toml"), false, env(nil)); err != nil {
		t.Errorf("missing optional file: %v", err)
	}
}
