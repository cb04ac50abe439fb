package installed

import (
	"encoding/json"
	"fmt"
	"net/url"
	"path"
	"runtime"
	"slices"
	"strings"

	"github.com/authbench/authbench/agent"
	"github.com/authbench/authbench/agent/modelconfig"
	"github.com/authbench/authbench/internal/safefile"
	"github.com/authbench/authbench/netproxy/netpolicy"
)

// Prefix starts an installed agent's name: installed:NAME[@VERSION][:MODEL].
const Prefix = modelconfig.InstalledPrefix

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

// Harness is one installable agent harness: a value of the table
// Harnesses, each harness's configuration, command and transcript in a
// file of its own.
type Harness struct {
	// Name is its name in installed:NAME.
	Name string
	// Package and Version are its npm package (Version: the table's
	// default, or the run's pin).
	Package, Version string
	// Entry is its command's script, relative to its package directory
	// ($ARCH: the npm registry's name of the machine's architecture, x64
	// or arm64).
	Entry string
	// Native says Entry is a program of its own (a compiled binary),
	// not a script for node.
	Native bool
	// API is the model API it speaks (docs/agents.md).
	API string
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
	// Reads are patterns outside its layer and state its runtime reads:
	// the plan lets it read them, listed as wider than π.
	Reads []string
	// Overrides are npm overrides its install takes (package → registry
	// version): for dependencies some of its versions name by a git URL,
	// which the registry alone cannot serve.
	Overrides map[string]string
	// OwnEnv is its environment beside the common part of Env.
	OwnEnv []string
	// Config is its configuration files for a run (pure).
	Config func(Run) ([]File, error)
	// Args are its arguments after node and its entry for one turn on
	// the instruction (pure).
	Args func(r Run, instruction string) []string
	// Events reads the session events it recorded, beneath the run's
	// upper layer root, in order, and the file they came from.
	Events func(root *safefile.Dir) (events [][]byte, file string, err error)
	// Convert converts those events to ATIF (pure).
	Convert func(h Harness, model string, events [][]byte) *agent.Trajectory
	// ForVersion, when set, is the harness at its Version (a pin): what
	// differs between its releases, as its entry (pure).
	ForVersion func(h Harness) Harness
}

// NodeVersion is the Node.js every layer carries (from the npm
// registry's node-linux-<arch> package).
const NodeVersion = "24.22.3"

// Model APIs a harness speaks.
const (
	APIChatCompletions = "openai-chat-completions"
	APIResponses       = "openai-responses"
	APIMessages        = "anthropic-messages"
)

// Harnesses are the known harnesses, by name.
var Harnesses = map[string]Harness{
	"openclaw":    openclaw,
	"pi":          pi,
	"qwen-code":   qwenCode,
	"opencode":    opencode,
	"claude-code": claudeCode,
	"codex":       codex,
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
func (h Harness) EntryPath() string {
	arch, _ := nodeArch(runtime.GOARCH)
	return path.Join(h.Dir(), strings.ReplaceAll(h.Entry, "$ARCH", arch))
}

// ParseName parses installed:NAME[@VERSION][:MODEL]
// (modelconfig.ParseInstalledName) and finds NAME in Harnesses: h's
// Version is the pinned one, else the table's. ok is false when name is
// not an installed agent; a malformed name or an unknown harness is an
// error (listing the known ones). MODEL may be empty (the [model]
// table's model is used).
func ParseName(name string) (h Harness, model string, ok bool, err error) {
	n, ok, err := modelconfig.ParseInstalledName(name)
	if !ok || err != nil {
		return Harness{}, "", ok, err
	}
	h, known := Harnesses[n.Harness]
	if !known {
		return Harness{}, "", true, fmt.Errorf("agent %q: no installed harness %q (known: %s)", name, n.Harness, strings.Join(Names(), ", "))
	}
	if n.Version != "" {
		h.Version = n.Version
	}
	if h.ForVersion != nil {
		h = h.ForVersion(h)
	}
	return h, n.Model, true, nil
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

// maxTokens is the bound on each answer a harness is configured with.
func (e Endpoint) maxTokens() int {
	if e.MaxTokens <= 0 {
		return 8192
	}
	return e.MaxTokens
}

// Run is one run's setting of a harness.
type Run struct {
	Endpoint
	// Workdir is the task's working directory (its image's WORKDIR, "/"
	// when it names none): the harness starts there and its tools work
	// there, as Harbor's installed agents do.
	Workdir string
	// Version is the harness version the run installs (its
	// configuration's keys may depend on it).
	Version string
}

// File is a file Setup writes into the run's rootfs.
type File struct {
	Path string
	Data []byte
}

// jsonFile is a configuration file of v as indented JSON.
func jsonFile(name string, v any) ([]File, error) {
	data, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		return nil, err
	}
	return []File{{Path: name, Data: data}}, nil
}

// Files are the harness's configuration files for the run (pure).
func (h Harness) Files(r Run) ([]File, error) {
	if h.Config == nil {
		return nil, fmt.Errorf("harness %s: no configuration", h.Name)
	}
	return h.Config(r)
}

// Env is the harness's environment beside the image's: its HOME and
// state, and nothing of the real key.
func (h Harness) Env() []string {
	return append([]string{"HOME=" + Home, "TMPDIR=" + Tmp, "NO_COLOR=1", "CI=1"}, h.OwnEnv...)
}

// MaxInstructionBytes bounds the instruction, which a harness gets as
// one argument (Linux takes up to 128 KiB in one).
const MaxInstructionBytes = 100 << 10

// Argv is the harness's command for one turn on the instruction (its
// prompt); an instruction over MaxInstructionBytes is an error.
func (h Harness) Argv(r Run, instruction string) ([]string, error) {
	if len(instruction) > MaxInstructionBytes {
		return nil, fmt.Errorf("instruction of %d bytes: a harness takes at most %d", len(instruction), MaxInstructionBytes)
	}
	if h.Args == nil {
		return nil, fmt.Errorf("harness %s: no command", h.Name)
	}
	if h.Native {
		return append([]string{h.EntryPath()}, h.Args(r, instruction)...), nil
	}
	return append([]string{Node, h.EntryPath()}, h.Args(r, instruction)...), nil
}
