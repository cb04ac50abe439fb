package installed

import (
	"encoding/json"
	"strings"
	"testing"
)

func TestParseName(t *testing.T) {
	for _, tc := range []struct {
		name, harness, model string
		ok                   bool
		err                  string
	}{
		{"installed:openclaw:gpt-5", "openclaw", "gpt-5", true, ""},
		{"installed:pi:qwen3:8b", "pi", "qwen3:8b", true, ""},
		{"installed:pi", "pi", "", true, ""},
		{"installed:codex:x", "", "", true, "known: openclaw, pi"},
		{"openai:gpt-5", "", "", false, ""},
		{"cmd:true", "", "", false, ""},
	} {
		h, model, ok, err := ParseName(tc.name)
		if ok != tc.ok || h.Name != tc.harness || model != tc.model || (err == nil) != (tc.err == "") ||
			err != nil && !strings.Contains(err.Error(), tc.err) {
			t.Errorf("%s: %q %q %v %v", tc.name, h.Name, model, ok, err)
		}
	}
}

// TestFiles: each harness's configuration names the run's endpoint as an
// openai-completions provider with the placeholder key, never a real one.
func TestFiles(t *testing.T) {
	e := Endpoint{BaseURL: "http://127.0.0.1:8080/v1/", Model: "scripted"}
	if err := e.Check(); err != nil {
		t.Fatal(err)
	}
	for _, name := range Names() {
		files, err := Harnesses[name].Files(e)
		if err != nil || len(files) != 1 || !strings.HasPrefix(files[0].Path, State+"/") {
			t.Fatalf("%s: %v %v", name, files, err)
		}
		var cfg struct {
			Models struct {
				Providers map[string]map[string]any `json:"providers"`
			} `json:"models"`
			Providers map[string]map[string]any `json:"providers"`
		}
		if err := json.Unmarshal(files[0].Data, &cfg); err != nil {
			t.Fatal(err)
		}
		p := cfg.Providers[ProviderID]
		if p == nil {
			p = cfg.Models.Providers[ProviderID]
		}
		if p["baseUrl"] != "http://127.0.0.1:8080/v1" || p["api"] != "openai-completions" || p["apiKey"] != PlaceholderKey {
			t.Errorf("%s: provider %v", name, p)
		}
	}
	for _, bad := range []Endpoint{{BaseURL: "ftp://x/v1", Model: "m"}, {BaseURL: "http://u:p@x/v1", Model: "m"}, {BaseURL: "http://x/v1"}} {
		if bad.Check() == nil {
			t.Errorf("%+v: accepted", bad)
		}
	}
}

func TestArgv(t *testing.T) {
	e := Endpoint{BaseURL: "http://127.0.0.1:1/v1", Model: "m"}
	for _, name := range Names() {
		h := Harnesses[name]
		argv, err := h.Argv(e, "do the task")
		if err != nil || argv[0] != Node || argv[1] != h.EntryPath() || argv[len(argv)-1] != "do the task" {
			t.Errorf("%s: %q %v", name, argv, err)
		}
		if _, err := h.Argv(e, strings.Repeat("x", MaxInstructionBytes+1)); err == nil {
			t.Errorf("%s: an instruction over the bound was accepted", name)
		}
	}
}
