package runbox

import (
	"go.uber.org/zap"

	"github.com/authbench/authbench/agent/modelconfig"
	"github.com/authbench/authbench/env"
	"github.com/authbench/authbench/netproxy/netpolicy"
	"github.com/authbench/authbench/permreq"
	"github.com/authbench/authbench/policy"
	"github.com/authbench/authbench/runapi"
	"github.com/authbench/authbench/tasks"
	"github.com/authbench/authbench/tracer"
)

// Options describe one run in a task's environment: a task run
// (package taskrun, whose Options these are) or an exploration
// (taskrun/explore, which uses the task and the collaborators only).
type Options struct {
	// Task is the task whose environment the run is in.
	Task *tasks.Task
	// Source is runapi.SourceUnconstrained, SourceSpec or
	// SourcePolicy; Policy is π for SourcePolicy.
	Source string
	Policy *policy.Policy
	// Semantics is how the policy's patterns become Landlock rules:
	// policy.SemanticsPublished (the published AuthBench launcher's
	// rules; the default for task runs, "" means it) or
	// policy.SemanticsPrecise.
	Semantics policy.Semantics
	// Agent is "oracle", "shortcut", `cmd:COMMAND`, `openai:MODEL` or
	// `installed:NAME[@VERSION][:MODEL]` (parsed by agent/agentname).
	Agent string
	// HarnessCache holds installed harnesses' layers and npm's download
	// cache (agent/installed's DefaultCacheDir when "").
	HarnessCache string
	// Capabilities, when not nil, are the capabilities the agent runs
	// with (canonical names; empty for none), replacing the task's set
	// (tasks.Environment.Capabilities: Docker's default set unless
	// task.toml's cap_add/cap_drop change it). A uid-0 agent holds them
	// effective and permitted, another uid in its bounding set only, as
	// Docker gives them.
	Capabilities []string
	// Model is the endpoint and options of an openai:MODEL or installed
	// agent (resolved; its Model is the agent's MODEL).
	Model *modelconfig.Config
	// AllowHosts are run-time allow-list entries of the agent phase
	// (--agent-allow-host HOST:PORT): they make the agent's network an
	// allowlist of the task's allowed_hosts (when it has one) and them.
	AllowHosts []string
	// ModelEndpoint, when set, is a model endpoint the agent calls from
	// inside the container (an installed harness): allowed for the agent
	// phase, the real key injected by the run's proxy (the agent gets
	// netpolicy.Placeholder).
	ModelEndpoint *netpolicy.ModelEndpoint
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
	OnIdentity func(runapi.Identity)
	// Requests names the decider of a model agent's run-time permission
	// requests (package permreq: spec, deny, allow; "": the agent cannot
	// request); RequestLimits bound them (zero: the defaults).
	Requests      string
	RequestLimits permreq.Limits
}
