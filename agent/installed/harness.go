package installed

import (
	"encoding/json"
	"fmt"
	"github.com/authbench/authbench/netproxy/netpolicy"
	"net/url"
	"path"
	"slices"
	"strings"
)

// Prefix starts an installed agent's name: installed:NAME[:MODEL].
const Prefix = "installed:"

// Paths inside the container.
const (
	// Root is where a harness layer puts node and the harness's package
	// tree (read and execute granted by the plan).
	Root = "/opt/authbench/harness"
	// Node is the Node.js binary of every layer.
	Node = Root + "/node/bin/node"
	// StateRoot holds a run's harness state and home (read and write
	// granted by the plan); Setup creates it in the run's rootfs, owned
	// by the agent's user.
	StateRoot = "/var/lib/authbench-harness"
	// Home is the harness's HOME.
	Home = StateRoot + "/home"
	// State is the harness's own state directory (its configuration,
	// sessions, databases).
	State = StateRoot + "/state"
	// Tmp is its TMPDIR (a task's policy rarely lets the agent write
	// /tmp).
	Tmp = StateRoot + "/tmp"
)

// ProviderID is the name of the custom provider each harness's
// configuration gets for the run's model endpoint.
const ProviderID = "authbench"

// PlaceholderKey is the API key a harness is configured with: the real
// key stays outside the container (the run's egress proxy injects it).
const PlaceholderKey = netpolicy.Placeholder

// Harness is one installable agent harness.
type Harness struct {
	// Name is its name in installed:NAME.
	Name string
	// Package and Version are its npm package.
	Package, Version string
	// Entry is its command's script, relative to its package directory.
	Entry string
	// Sandbox says what becomes of the harness's own sandbox under
	// authbench (docs/agents.md).
	Sandbox string
	// Complete, when set, are the arguments of a run of the harness that
	// completes its package's install (what its install scripts would
	// have done), made once when its layer is built, confined.
	Complete []string
	// Scratch are patterns outside its state the harness writes
	// whatever its environment says (OpenClaw's locks under /tmp): the
	// plan lets it read and write them, listed as wider than π.
	Scratch []string
}

// NodeVersion is the Node.js every layer carries (from the npm
// registry's node-linux-<arch> package).
const NodeVersion = "24.22.3"

// Harnesses are the known harnesses, by name.
var Harnesses = map[string]Harness{
	"openclaw": {Name: "openclaw", Package: "openclaw", Version: "2026.9.6", Entry: "openclaw.mjs", Complete: []string{"--version"}, Scratch: []string{"/tmp/**"},
		Sandbox: "off (agents.defaults.sandbox.mode \"off\"): its sandbox runs tools in Docker containers, which do not exist inside a task container; the tools run in authbench's confinement instead"},
	"pi": {Name: "pi", Package: "@earendil-works/pi-coding-agent", Version: "1.6.0", Entry: "dist/bundle/cli.js",
		Sandbox: "none: pi has no sandbox of its own; its tools run in authbench's confinement"},
}

// Names lists the known harnesses, sorted.
func Names() []string {
	var out []string
	for n := range Harnesses {
		out = append(out, n)
	}
	slices.Sort(out)
	return out
}

// Dir is the harness's package directory inside the container.
func (h Harness) Dir() string { return path.Join(Root, h.Name, "node_modules", h.Package) }

// EntryPath is its command's script inside the container.
func (h Harness) EntryPath() string { return path.Join(h.Dir(), h.Entry) }

// ParseName splits installed:NAME[:MODEL]. ok is false when name is not
// an installed agent; an unknown harness is an error listing the known
// ones. MODEL may be empty (the [model] table's model is used).
func ParseName(name string) (h Harness, model string, ok bool, err error) {
	rest, found := strings.CutPrefix(name, Prefix)
	if !found {
		return Harness{}, "", false, nil
	}
	hn, model, _ := strings.Cut(rest, ":")
	h, known := Harnesses[hn]
	if !known {
		return Harness{}, "", true, fmt.Errorf("agent %q: no installed harness %q (known: %s)", name, hn, strings.Join(Names(), ", "))
	}
	return h, model, true, nil
}

// Endpoint is the model endpoint a harness is configured for.
type Endpoint struct {
	// BaseURL ends before /chat/completions (as modelconfig.Config's).
	BaseURL string
	// Model is the model's name at the endpoint.
	Model string
	// MaxTokens bounds each answer (0: 8192).
	MaxTokens int
}

// Check refuses an endpoint a harness cannot be configured with.
func (e Endpoint) Check() error {
	u, err := url.Parse(e.BaseURL)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" || u.User != nil {
		return fmt.Errorf("base URL %q: want http(s)://host[:port]/path without credentials", e.BaseURL)
	}
	if e.Model == "" {
		return fmt.Errorf("no model: name it (installed:NAME:MODEL) or set [model] model")
	}
	return nil
}

// modelEntry is a custom provider's model in both harnesses' formats.
func (e Endpoint) modelEntry() map[string]any {
	max := e.MaxTokens
	if max <= 0 {
		max = 8192
	}
	return map[string]any{
		"id": e.Model, "name": e.Model, "reasoning": false, "input": []string{"text"},
		"cost":          map[string]float64{"input": 0, "output": 0, "cacheRead": 0, "cacheWrite": 0},
		"contextWindow": 128000, "maxTokens": max,
	}
}

// provider is the custom provider entry (both harnesses read the same
// shape).
func (e Endpoint) provider() map[string]any {
	return map[string]any{
		"baseUrl": strings.TrimRight(e.BaseURL, "/"), "apiKey": PlaceholderKey, "api": "openai-completions",
		"models": []any{e.modelEntry()},
	}
}

// File is a file Setup writes into the run's rootfs.
type File struct {
	Path string
	Data []byte
}

// Files are the harness's configuration files for the endpoint (pure).
func (h Harness) Files(e Endpoint) ([]File, error) {
	var cfg any
	var name string
	switch h.Name {
	case "openclaw":
		name = path.Join(State, "openclaw.json")
		cfg = map[string]any{
			"agents": map[string]any{"defaults": map[string]any{
				"model":   map[string]any{"primary": ProviderID + "/" + e.Model},
				"sandbox": map[string]any{"mode": "off"},
			}},
			"models": map[string]any{"mode": "merge", "providers": map[string]any{ProviderID: e.provider()}},
		}
	case "pi":
		name = path.Join(State, "models.json")
		cfg = map[string]any{"providers": map[string]any{ProviderID: e.provider()}}
	default:
		return nil, fmt.Errorf("harness %s: no configuration", h.Name)
	}
	data, err := json.MarshalIndent(cfg, "", "  ")
	if err != nil {
		return nil, err
	}
	return []File{{Path: name, Data: data}}, nil
}

// Env is the harness's environment beside the image's: its HOME and
// state, and nothing of the real key.
func (h Harness) Env() []string {
	env := []string{"HOME=" + Home, "TMPDIR=" + Tmp, "NO_COLOR=1", "CI=1"}
	switch h.Name {
	case "openclaw":
		// Its exec tool runs commands with $SHELL (else sh), and wraps
		// each child in /bin/sh to set its OOM score unless
		// OPENCLAW_CHILD_OOM_SCORE_ADJ is off: bash, the shell task
		// specs name (an oracle's solve.sh runs in it), does both.
		env = append(env, "OPENCLAW_STATE_DIR="+State, "OPENCLAW_CONFIG_PATH="+path.Join(State, "openclaw.json"),
			"SHELL=/bin/bash", "OPENCLAW_CHILD_OOM_SCORE_ADJ=0")
	case "pi":
		env = append(env, "PI_CODING_AGENT_DIR="+State)
	}
	return env
}

// SessionsDir is where pi keeps its session files.
const SessionsDir = State + "/sessions"

// MaxInstructionBytes bounds the instruction, which a harness gets as
// one argument (Linux takes up to 128 KiB in one).
const MaxInstructionBytes = 100 << 10

// Argv is the harness's command for one turn on the instruction (its
// prompt); an instruction over MaxInstructionBytes is an error.
func (h Harness) Argv(e Endpoint, instruction string) ([]string, error) {
	if len(instruction) > MaxInstructionBytes {
		return nil, fmt.Errorf("instruction of %d bytes: a harness takes at most %d", len(instruction), MaxInstructionBytes)
	}
	switch h.Name {
	case "openclaw":
		return []string{Node, h.EntryPath(), "agent", "--local", "--session-id", SessionID, "--json",
			"--model", ProviderID + "/" + e.Model, "-m", instruction}, nil
	case "pi":
		return []string{Node, h.EntryPath(), "--print", "--provider", ProviderID, "--model", e.Model,
			"--session-dir", SessionsDir, instruction}, nil
	}
	return nil, fmt.Errorf("harness %s: no command", h.Name)
}

// SessionID is the session an OpenClaw run records its transcript under.
const SessionID = "authbench"
