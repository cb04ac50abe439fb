// Package layers is the layer map of authbench: every package of the
// module placed in one of an ordered list of layers, lowest first. A
// package imports only packages of its own layer or below (a layer with a
// Reach, only up to that layer), so the clients link no kernel, proxy or
// model-client code and the pure model links nothing that runs anything.
// The test enforces it with `go list`, naming each edge against the
// order; docs/architecture.md's layer table is Markdown's rendering of
// the same list.
package layers

import (
	"fmt"
	"strings"
)

// Layer is one layer of the map.
type Layer struct {
	// Name is the layer's name.
	Name string
	// Holds says what belongs in the layer.
	Holds string
	// Packages are the layer's packages, relative to the module.
	Packages []string
	// Reach, when set, names the highest layer below this one that its
	// packages may import (besides their own): the layers between are out
	// of their reach.
	Reach string
}

// ServerLibraries are the third-party libraries of the kernel, proxy,
// runtime and model-client code, which the clients must not link
// (TestClientsLinkNoServer), with the packages of them that are allowed:
// the task format reads Dockerfiles with BuildKit's parser, the one
// `docker build` uses, which builds nothing.
var ServerLibraries = []struct {
	Prefix string
	Except []string
}{
	{"github.com/cilium/ebpf", nil},
	{"github.com/google/nftables", nil},
	{"github.com/mdlayher/netlink", nil},
	{"github.com/landlock-lsm/go-landlock", nil},
	{"github.com/opencontainers/runtime-spec", nil},
	{"github.com/openai/openai-go", nil},
	{"github.com/prometheus/client_golang", nil},
	{"github.com/moby/buildkit", []string{"github.com/moby/buildkit/frontend/dockerfile/", "github.com/moby/buildkit/util/stack"}},
}

// Module is the module path the packages are relative to.
const Module = "github.com/authbench/authbench"

// Layers is the map, lowest layer first.
var Layers = []Layer{
	{Name: "base", Holds: "helpers with no domain: files created without following links, untrusted text made safe for terminals, capped output; this map",
		Packages: []string{"internal/safefile", "internal/safefile/safefiletest", "internal/termtext", "internal/capped", "internal/layers"}},
	{Name: "model", Holds: "pure data and functions (no processes, no network): π and the spec, the one pattern matcher, trace events, network policies, model configs, agent names, Docker's capability model, generator names, a built image's record",
		Packages: []string{"policy", "policy/formats", "tracer/trace", "netproxy/netpolicy", "agent/modelconfig", "agent/agentname", "capability", "generate/genname", "env/imagemeta"}},
	{Name: "judgement", Holds: "pure: a trace and a plan judged into denials, loader execs and capability denials; a run's outcome judged into its failure classes, primary class and deciding denial",
		Packages: []string{"audit", "verdict"}},
	{Name: "wire", Holds: "the run API: wire types, the API interface and socket client, the artifact table, error kinds; a bench trial's row; run-time permission requests and their deciders",
		Packages: []string{"runapi", "trial", "permreq"}},
	{Name: "task format", Holds: "the Harbor task layout read and checked: task.toml, compose, Dockerfile (nothing built or run)",
		Packages: []string{"tasks"}},
	{Name: "mechanisms", Holds: "the kernel- and runtime-facing parts, each applying data of the model: sandbox-init, eBPF, the egress proxy, images and runc",
		Packages: []string{"sandbox", "sandbox/internal/mkdefault", "sandbox/internal/mksysnum", "bpf", "tracer", "netproxy", "env",
			"internal/spawn", "internal/netns", "internal/testenv", "permreq/broker"}},
	{Name: "run", Holds: "one run's life: gated process trees, containers, agents, verifiers, generators",
		Packages: []string{"internal/lifecycle", "internal/container", "agent", "agent/agenttest", "agent/toolbox", "agent/installed",
			"taskrun", "taskrun/explore", "taskrun/internal/runbox", "taskrun/internal/session", "generate"}},
	{Name: "service", Holds: "the daemon: authorisation, limits, records, the run kinds",
		Packages: []string{"daemon", "daemon/work", "daemon/metrics", "daemon/taskwork"}},
	{Name: "clients", Holds: "the bench, the oracle, the report and its browser viewer: they talk to runs through the run API",
		Packages: []string{"bench", "oracle", "report", "viewer"}, Reach: "task format"},
	{Name: "commands", Holds: "the binaries: the CLI wires the clients to a daemon's socket or an embedded service",
		Packages: []string{"cli", "cli/core", "cli/front", "cli/authbench", "cli/authbench-full", "cli/authbench-sandbox-init", "scripts/benchtrace"}},
}

// Index returns the index in Layers of the layer that holds pkg
// (relative to the module), or -1.
func Index(pkg string) int {
	for i, l := range Layers {
		for _, p := range l.Packages {
			if p == pkg {
				return i
			}
		}
	}
	return -1
}

// reach is the highest layer index the packages of layer i may import.
func reach(i int) int {
	if r := Layers[i].Reach; r != "" {
		for j := range i {
			if Layers[j].Name == r {
				return j
			}
		}
	}
	return i
}

// Check returns why the import of to by from (both relative to the
// module) goes against the map, or nil.
func Check(from, to string) error {
	i, j := Index(from), Index(to)
	switch {
	case i < 0:
		return fmt.Errorf("%s is in no layer", from)
	case j < 0:
		return fmt.Errorf("%s is in no layer", to)
	case j > reach(i) && j != i:
		return fmt.Errorf("%s (layer %d %s) imports %s (layer %d %s): above its reach, layer %d %s", from, i+1, Layers[i].Name, to, j+1, Layers[j].Name, reach(i)+1, Layers[reach(i)].Name)
	}
	return nil
}

// Markdown renders the map as the Markdown table of docs/architecture.md.
func Markdown() string {
	var b strings.Builder
	b.WriteString("| layer | packages | what belongs here |\n|---|---|---|\n")
	for i, l := range Layers {
		name := l.Name
		if l.Reach != "" {
			name += fmt.Sprintf(" (imports up to %s)", l.Reach)
		}
		fmt.Fprintf(&b, "| %d %s | `%s` | %s |\n", i+1, name, strings.Join(l.Packages, "`, `"), l.Holds)
	}
	return b.String()
}
