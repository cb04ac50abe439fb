// Package agentname is the vocabulary of a task run's agents, with no
// agent in it: the kinds (oracle, shortcut, `cmd:COMMAND`,
// `openai:MODEL`, `installed:NAME[@VERSION][:MODEL]`) and the one parser
// of a name into its parts. The CLI, the daemon's validation, the bench,
// the viewer and the task run (package taskrun, which maps each kind to
// the value that runs it) all parse names with Parse; whether an
// installed NAME is a known harness is package agent/installed's to say.
// It is pure and imports nothing of ours, so the clients check names
// without linking the agents.
package agentname

import (
	"fmt"
	"regexp"
	"strings"
)

// Kind is an agent's kind: what runs it.
type Kind string

// The kinds of agents.
const (
	// Oracle runs the task's solution/solve.sh.
	Oracle Kind = "oracle"
	// Shortcut runs the task's solution/attack_smoke.sh (a sensitive
	// task's attack, taken the short way).
	Shortcut Kind = "shortcut"
	// Cmd runs a shell command: cmd:COMMAND.
	Cmd Kind = "cmd"
	// OpenAI is authbench's own model agent: openai:MODEL, the model of
	// an OpenAI-compatible endpoint, its tools in the confined container.
	OpenAI Kind = "openai"
	// Installed is a real agent harness installed into the container:
	// installed:NAME[@VERSION][:MODEL].
	Installed Kind = "installed"
)

// Kinds lists every kind, in the order of Forms.
var Kinds = []Kind{Oracle, Shortcut, Cmd, OpenAI, Installed}

// Prefixes of the kinds whose names carry an argument.
const (
	CmdPrefix       = string(Cmd) + ":"
	OpenAIPrefix    = string(OpenAI) + ":"
	InstalledPrefix = string(Installed) + ":"
)

// Forms lists the forms of an agent name, for usage and error texts.
const Forms = `oracle, shortcut, cmd:"COMMAND", openai:MODEL or installed:NAME[@VERSION][:MODEL]`

// Name is a parsed agent name.
type Name struct {
	// Raw is the name as given.
	Raw string
	// Kind is the agent's kind.
	Kind Kind
	// Command is a cmd: agent's shell command.
	Command string
	// Model is an openai: agent's model (never empty), or an installed
	// one's MODEL (empty: the model configuration's).
	Model string
	// Harness is an installed agent's NAME; Version the exact npm
	// version it pins (@VERSION; empty: the harness table's).
	Harness, Version string
}

// npmVersion is an exact npm (semver 2) version: a pin names one
// release, never a range or a dist-tag, whose target would move under
// the cached layer.
var npmVersion = regexp.MustCompile(`^(0|[1-9][0-9]*)\.(0|[1-9][0-9]*)\.(0|[1-9][0-9]*)(-[0-9A-Za-z-]+(\.[0-9A-Za-z-]+)*)?(\+[0-9A-Za-z-]+(\.[0-9A-Za-z-]+)*)?$`)

// harnessName is an installed harness's NAME.
var harnessName = regexp.MustCompile(`^[a-z0-9][a-z0-9-]*$`)

// Parse parses an agent name. On an error, the returned Name still has
// Raw and, when a kind's prefix was recognised, Kind: a caller may say
// what that kind cannot do. Errors name the agent and what is wrong: an
// empty command or model, an installed NAME that is not a name, a
// VERSION that is not one exact npm version, an unknown kind.
func Parse(s string) (Name, error) {
	n := Name{Raw: s}
	switch {
	case s == string(Oracle) || s == string(Shortcut):
		n.Kind = Kind(s)
	case strings.HasPrefix(s, CmdPrefix):
		n.Kind, n.Command = Cmd, s[len(CmdPrefix):]
		if strings.TrimSpace(n.Command) == "" {
			return n, fmt.Errorf("agent %q: cmd: needs a command (cmd:\"COMMAND\")", s)
		}
	case strings.HasPrefix(s, OpenAIPrefix):
		n.Kind, n.Model = OpenAI, s[len(OpenAIPrefix):]
		if strings.TrimSpace(n.Model) == "" {
			return n, fmt.Errorf("agent %q: missing model name after %q", s, OpenAIPrefix)
		}
	case strings.HasPrefix(s, InstalledPrefix):
		n.Kind = Installed
		return parseInstalled(n)
	default:
		return n, fmt.Errorf("unknown agent %q: want %s", s, Forms)
	}
	return n, nil
}

// parseInstalled parses the rest of installed:NAME[@VERSION][:MODEL]
// into n: MODEL is everything after the first ':' (a model's name may
// hold ':' and '@', qwen3:8b).
func parseInstalled(n Name) (Name, error) {
	head, model, _ := strings.Cut(n.Raw[len(InstalledPrefix):], ":")
	name, version, pinned := strings.Cut(head, "@")
	if !harnessName.MatchString(name) {
		return n, fmt.Errorf("agent %q: want installed:NAME[@VERSION][:MODEL], NAME of lower-case letters, digits and '-'", n.Raw)
	}
	if pinned && !npmVersion.MatchString(version) {
		return n, fmt.Errorf("agent %q: version %q is not an exact npm version (MAJOR.MINOR.PATCH[-PRERELEASE])", n.Raw, version)
	}
	n.Harness, n.Version, n.Model = name, version, model
	return n, nil
}

// TakesModel reports whether the agent calls a model, so its run takes a
// model configuration (openai, installed).
func (n Name) TakesModel() bool { return n.Kind == OpenAI || n.Kind == Installed }

// CanRequest reports whether the agent can make run-time permission
// requests: openai: agents through their request_permission tool, cmd: and
// installed: agents through the in-container request-permission program;
// the oracle and the shortcut do not (the bench re-runs them instead).
func (n Name) CanRequest() bool { return n.Kind == OpenAI || n.Kind == Cmd || n.Kind == Installed }

// String is the name as given.
func (n Name) String() string { return n.Raw }
