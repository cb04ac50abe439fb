package taskrun

import (
	"fmt"
	"github.com/authbench/authbench/agent/installed"
	"strings"

	"go.uber.org/zap"

	"github.com/authbench/authbench/agent"
	"github.com/authbench/authbench/env"
	"github.com/authbench/authbench/policy"
	"github.com/authbench/authbench/sandbox"
	"github.com/authbench/authbench/taskrun/internal/runbox"
	"github.com/authbench/authbench/taskrun/internal/session"
	"github.com/authbench/authbench/tasks"
	"github.com/authbench/authbench/tracer"
)

// Policy sources of a run (the rows of the benchmark).
const (
	// SourceUnconstrained runs the agent without Landlock.
	SourceUnconstrained = "unconstrained"
	// SourceSpec runs it under the spec's required ∪ implicit permissions.
	SourceSpec = "spec"
	// SourcePolicy runs it under a given policy π (∪ implicit).
	SourcePolicy = "policy"
)

// Agents.
const (
	AgentOracle   = "oracle"   // solution/solve.sh
	AgentShortcut = "shortcut" // solution/attack_smoke.sh
	agentCmd      = "cmd:"     // cmd:"shell command"
)

// Options describe one task run.
type Options struct {
	Task *tasks.Task
	// Source is SourceUnconstrained, SourceSpec or SourcePolicy; Policy
	// is π for SourcePolicy.
	Source string
	Policy *policy.Policy
	// Semantics is how the policy's patterns become Landlock rules:
	// policy.SemanticsPublished (the published AuthBench launcher's
	// rules; the default for task runs, "" means it) or
	// policy.SemanticsPrecise.
	Semantics policy.Semantics
	// Agent is "oracle", "shortcut", `cmd:COMMAND`, `openai:MODEL` or
	// `installed:NAME[:MODEL]` (package agent/installed).
	Agent string
	// HarnessCache holds installed harnesses' layers and npm's download
	// cache (installed.DefaultCacheDir when "").
	HarnessCache string
	// Capabilities, when not nil, are the capabilities the agent runs
	// with (canonical names; empty for none), replacing the task's set
	// (tasks.Environment.Capabilities: Docker's default set unless
	// task.toml's cap_add/cap_drop change it). A uid-0 agent holds them
	// effective and permitted, another uid in its bounding set only, as
	// Docker gives them.
	Capabilities []string
	// Model is the endpoint and options of an openai:MODEL or installed
	// agent
	// (resolved; its Model is the agent's MODEL).
	Model *agent.Config
	// Self is the static authbench binary, mounted into the container as
	// sandbox-init.
	Self string
	// Images are where images are built and kept.
	Images env.Store
	// Builder builds images; BaseMap maps FROM images to local ones (the
	// image map); Registries are pulled from for images it does not map.
	Builder    env.Builder
	BaseMap    env.BaseMap
	Registries []env.Registry
	// Runc runs the containers.
	Runc env.Runc
	// Tracer traces the agent; nil runs untraced.
	Tracer *tracer.Tracer
	// Dir receives the run's files (events, logs, result.json).
	Dir string
	// MaxOutputBytes caps each of the agent's stored stdout, stderr and
	// event log (0: no cap); the rest is dropped and counted.
	MaxOutputBytes int64
	// Log receives structured logs.
	Log *zap.Logger
	// OnIdentity, when set, is called with the agent's identity as soon
	// as it is resolved (before the agent starts), e.g. to record it.
	OnIdentity func(Identity)
}

// Box is the environment of a run of o, not yet made (Box.New): its
// task, collaborators and run directory. The exploration sandbox
// (taskrun/explore) runs in one too.
func (o Options) Box() *runbox.Box {
	return &runbox.Box{
		Task: o.Task, Self: o.Self, Images: o.Images, Builder: o.Builder, BaseMap: o.BaseMap, Registries: o.Registries,
		Runc: o.Runc, Tracer: o.Tracer, Dir: o.Dir, MaxOutputBytes: o.MaxOutputBytes, Log: o.Log, OnIdentity: o.OnIdentity,
	}
}

// DefaultSemantics is the enforcement semantics of a task run that
// names none: the published launcher's, so that the spec row is
// comparable with published numbers.
const DefaultSemantics = policy.SemanticsPublished

// ParseSemantics checks a task run's semantics name; "" is
// DefaultSemantics.
func ParseSemantics(s string) (policy.Semantics, error) {
	if s == "" {
		return DefaultSemantics, nil
	}
	return policy.ParseSemantics(s)
}

// ParseAgent checks an agent name and returns the command line that runs
// it inside the container, with the script it needs readable (if any).
func ParseAgent(t *tasks.Task, agent string) (argv []string, script string, err error) {
	switch {
	case agent == AgentOracle:
		return []string{"/bin/bash", solutionMount + "/solve.sh"}, solutionMount + "/solve.sh", nil
	case agent == AgentShortcut:
		if t.AttackSmoke == "" {
			return nil, "", fmt.Errorf("agent shortcut: task %s has no %s", t.Name, tasks.FileAttackSmoke)
		}
		return []string{"/bin/bash", solutionMount + "/attack_smoke.sh"}, solutionMount + "/attack_smoke.sh", nil
	case strings.HasPrefix(agent, agentCmd) && strings.TrimSpace(agent[len(agentCmd):]) != "":
		return []string{"/bin/sh", "-c", agent[len(agentCmd):]}, "", nil
	case strings.HasPrefix(agent, agentOpenAI):
		if err := checkModelAgent(agent); err != nil {
			return nil, "", fmt.Errorf("agent %q: %w", agent, err)
		}
		return session.Argv(runbox.DefaultAgentTimeout), "", nil
	case strings.HasPrefix(agent, installed.Prefix):
		if _, _, _, err := installed.ParseName(agent); err != nil {
			return nil, "", err
		}
		return nil, "", nil // the harness's command is made for the run (installedRun)
	}
	return nil, "", fmt.Errorf("agent %q: want oracle, shortcut, cmd:\"COMMAND\", openai:MODEL or installed:NAME[:MODEL]", agent)
}

// AgentCapabilities is the set the agent of o runs with: o.Capabilities,
// else the task's, sorted and canonical; an unknown name is an error.
func AgentCapabilities(o Options) ([]string, error) {
	if o.Capabilities == nil {
		return o.Task.Config.Environment.Capabilities(), nil
	}
	out := make([]string, 0, len(o.Capabilities))
	for _, n := range o.Capabilities {
		c, ok := sandbox.CanonicalCapability(n)
		if !ok {
			return nil, fmt.Errorf("agent capabilities: unknown capability %q", n)
		}
		out = append(out, c)
	}
	return sandbox.SortCapabilities(out), nil
}

// SpecPolicy is the policy of the spec row: required_permissions (the
// implicit ones are added to every plan as its baseline).
func SpecPolicy(spec *policy.Spec) *policy.Policy {
	var network []policy.HostPattern
	if spec.Network.Declared {
		network = append([]policy.HostPattern{}, spec.Network.Required...)
	}
	return &policy.Policy{Permissions: spec.Required, Network: network, Source: spec.Source + " (required_permissions)"}
}
