package installed

import (
	"encoding/json"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/pelletier/go-toml/v2"
)

func TestParseName(t *testing.T) {
	for _, tc := range []struct {
		name, harness, version, model string
		ok                            bool
		err                           string
	}{
		{"installed:openclaw:gpt-5", "openclaw", Harnesses["openclaw"].Version, "gpt-5", true, ""},
		{"installed:openclaw@2026.3.7:gpt-5", "openclaw", "2026.3.7", "gpt-5", true, ""},
		{"installed:pi:qwen3:8b", "pi", Harnesses["pi"].Version, "qwen3:8b", true, ""},
		{"installed:pi@1.5.0", "pi", "1.5.0", "", true, ""},
		{"installed:pi", "pi", Harnesses["pi"].Version, "", true, ""},
		{"installed:nosuch:x", "", "", "", true, "known: " + strings.Join(Names(), ", ")},
		{"installed:pi@latest:x", "", "", "", true, "not an exact npm version"},
		{"installed:pi@1.6.0/../x", "", "", "", true, "not an exact npm version"},
		{"openai:gpt-5", "", "", "", false, ""},
		{"cmd:true", "", "", "", false, ""},
	} {
		h, model, ok, err := ParseName(tc.name)
		if ok != tc.ok || h.Name != tc.harness || h.Version != tc.version || model != tc.model || (err == nil) != (tc.err == "") ||
			err != nil && !strings.Contains(err.Error(), tc.err) {
			t.Errorf("%s: %q %q %q %v %v", tc.name, h.Name, h.Version, model, ok, err)
		}
	}
	// A pin changes the run's copy, not the table.
	if Harnesses["pi"].Version == "1.5.0" {
		t.Error("a pinned version leaked into the table")
	}
}

// lookup is the value at a dotted path of decoded JSON ("a.b.0.c").
func lookup(v any, dotted string) any {
	for _, k := range strings.Split(dotted, ".") {
		switch x := v.(type) {
		case map[string]any:
			v = x[k]
		case []any:
			n, err := strconv.Atoi(k)
			if err != nil || n >= len(x) {
				return nil
			}
			v = x[n]
		default:
			return nil
		}
	}
	return v
}

// TestFiles: each harness's configuration, under its state root, names
// the run's endpoint with the placeholder key (or the variable holding
// it), never a real one, and the task's working directory where the
// harness takes one. The first file is the configuration.
func TestFiles(t *testing.T) {
	e := Endpoint{BaseURL: "http://127.0.0.1:8080/v1/", Model: "scripted"}
	if err := e.Check(); err != nil {
		t.Fatal(err)
	}
	want := map[string]map[string]any{
		"openclaw": {"models.providers.authbench.baseUrl": "http://127.0.0.1:8080/v1", "models.providers.authbench.api": "openai-completions",
			"models.providers.authbench.apiKey": PlaceholderKey, "agents.defaults.cwd": "/app", "agents.defaults.workspace": nil,
			"agents.defaults.sandbox.mode": "off"},
		"pi": {"providers.authbench.baseUrl": "http://127.0.0.1:8080/v1", "providers.authbench.api": "openai-completions",
			"providers.authbench.apiKey": PlaceholderKey},
		"qwen-code": {"modelProviders.openai.0.baseUrl": "http://127.0.0.1:8080/v1", "modelProviders.openai.0.envKey": "OPENAI_API_KEY",
			"security.auth.selectedType": "openai", "telemetry.enabled": false, "privacy.usageStatisticsEnabled": false,
			"general.disableAutoUpdate": true},
		"opencode": {"provider.authbench.options.baseURL": "http://127.0.0.1:8080/v1", "provider.authbench.options.apiKey": PlaceholderKey,
			"provider.authbench.npm": "@ai-sdk/openai-compatible", "model": "authbench/scripted", "autoupdate": false, "share": "disabled",
			"snapshot": false},
		"claude-code": {"env.ANTHROPIC_BASE_URL": "http://127.0.0.1:8080", "env.ANTHROPIC_MODEL": "scripted",
			"env.ANTHROPIC_DEFAULT_HAIKU_MODEL": "scripted", "env.CLAUDE_CODE_MAX_OUTPUT_TOKENS": "8192", "permissions.defaultMode": "bypassPermissions"},
		"codex": {"model_providers.authbench.base_url": "http://127.0.0.1:8080/v1", "model_providers.authbench.wire_api": "responses",
			"model_providers.authbench.env_key": "OPENAI_API_KEY", "model_provider": "authbench", "model": "scripted",
			"approval_policy": "never", "sandbox_mode": "danger-full-access", "analytics.enabled": false, "features.plugins": false, "check_for_update_on_startup": false},
	}
	for _, name := range Names() {
		files, err := Harnesses[name].Files(Run{Endpoint: e, Workdir: "/app", Version: Harnesses[name].Version})
		if err != nil || len(files) == 0 {
			t.Fatalf("%s: %v %v", name, files, err)
		}
		for _, f := range files {
			if !strings.HasPrefix(f.Path, StateRoot+"/") || strings.Contains(string(f.Data), "sk-") {
				t.Errorf("%s: %s outside the state root, or holding a key", name, f.Path)
			}
		}
		var cfg any
		unmarshal := json.Unmarshal
		if strings.HasSuffix(files[0].Path, ".toml") {
			unmarshal = toml.Unmarshal
		}
		if err := unmarshal(files[0].Data, &cfg); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if want[name] == nil {
			t.Errorf("%s: no expectations", name)
		}
		for k, v := range want[name] {
			if got := lookup(cfg, k); got != v {
				t.Errorf("%s: %s = %v, want %v", name, k, got, v)
			}
		}
	}
	for _, bad := range []Endpoint{{BaseURL: "ftp://x/v1", Model: "m"}, {BaseURL: "http://u:p@x/v1", Model: "m"}, {BaseURL: "http://x/v1"}} {
		if bad.Check() == nil {
			t.Errorf("%+v: accepted", bad)
		}
	}
}

// TestOpenClawWorkdirByVersion: OpenClaw from 2026.9 runs its tools in
// agents.defaults.cwd; the published pin 2026.3.7, whose configuration
// has no such key, gets the working directory as its workspace.
func TestOpenClawWorkdirByVersion(t *testing.T) {
	for _, tc := range []struct {
		version, key string
		other        string
	}{{"2026.9.6", "agents.defaults.cwd", "agents.defaults.workspace"}, {"2027.1.2", "agents.defaults.cwd", "agents.defaults.workspace"},
		{"2026.3.7", "agents.defaults.workspace", "agents.defaults.cwd"}, {"junk", "agents.defaults.workspace", "agents.defaults.cwd"}} {
		files, err := openclaw.Files(Run{Endpoint: Endpoint{BaseURL: "http://x/v1", Model: "m"}, Workdir: "/srv/analytics", Version: tc.version})
		if err != nil {
			t.Fatal(err)
		}
		var cfg any
		if err := json.Unmarshal(files[0].Data, &cfg); err != nil {
			t.Fatal(err)
		}
		if lookup(cfg, tc.key) != "/srv/analytics" || lookup(cfg, tc.other) != nil {
			t.Errorf("%s: %s", tc.version, files[0].Data)
		}
	}
}

func TestArgv(t *testing.T) {
	e := Run{Endpoint: Endpoint{BaseURL: "http://127.0.0.1:1/v1", Model: "m"}, Workdir: "/app"}
	for _, name := range Names() {
		h := Harnesses[name]
		argv, err := h.Argv(e, "do the task")
		prog := []string{Node, h.EntryPath()}
		if h.Native {
			prog = prog[1:]
		}
		if err != nil || !slices.Equal(argv[:len(prog)], prog) || argv[len(argv)-1] != "do the task" {
			t.Errorf("%s: %q %v", name, argv, err)
		}
		if _, err := h.Argv(e, strings.Repeat("x", MaxInstructionBytes+1)); err == nil {
			t.Errorf("%s: an instruction over the bound was accepted", name)
		}
	}
}

// TestClaudeEntryByVersion: Claude Code from 2.1.113 is its compiled
// binary, run directly; an earlier pin is its Node.js script, run by
// node; a version that does not parse gets the script.
func TestClaudeEntryByVersion(t *testing.T) {
	for _, tc := range []struct {
		name, entry string
		native      bool
	}{
		{"installed:claude-code:m", "../claude-code-linux-$ARCH/claude", true},
		{"installed:claude-code@2.1.113:m", "../claude-code-linux-$ARCH/claude", true},
		{"installed:claude-code@3.0.0:m", "../claude-code-linux-$ARCH/claude", true},
		{"installed:claude-code@2.1.112:m", "cli.js", false},
		{"installed:claude-code@2.0.77-beta.1:m", "cli.js", false},
		{"installed:claude-code@1.0.128:m", "cli.js", false},
	} {
		h, _, _, err := ParseName(tc.name)
		if err != nil || h.Entry != tc.entry || h.Native != tc.native {
			t.Errorf("%s: entry %q native %v, %v", tc.name, h.Entry, h.Native, err)
		}
		argv, err := h.Argv(Run{Endpoint: Endpoint{BaseURL: "http://x/v1", Model: "m"}}, "go")
		if err != nil || (argv[0] == Node) == tc.native {
			t.Errorf("%s: argv %q", tc.name, argv)
		}
	}
	if Harnesses["claude-code"].Entry != "../claude-code-linux-$ARCH/claude" {
		t.Error("a pin changed the table")
	}
	for _, v := range []string{"2.1", "x.y.z", ""} {
		if versionAtLeast(v, 0, 0, 0) {
			t.Errorf("%q parsed", v)
		}
	}
}
