// Package work is the contract between the daemon's core (package
// daemon: requests, the Manager, exec runs, records) and the request
// kinds that need task environments — task runs, generations and image
// builds — which package daemon/taskwork carries out. The core links only
// this package, so a binary that embeds the daemon for `exec` (the thin
// front, cli/front) links no task loader, image builder, container
// runner or model client.
package work

import (
	"context"
	"io"
	"time"

	"go.uber.org/zap"

	"github.com/authbench/authbench/agent/modelconfig"
	"github.com/authbench/authbench/permreq"
	"github.com/authbench/authbench/policy"
	"github.com/authbench/authbench/runapi"
)

// Kinds loads tasks, checks the names a request gives and carries out
// task runs, generations and image builds for the daemon's Manager
// (daemon.Config.Work). Errors of the checks are the bad input's; the
// daemon names the field.
type Kinds interface {
	// LoadTask loads and checks the task in dir.
	LoadTask(dir string) (Task, error)
	// CheckAgent checks a task run's agent name for task t.
	CheckAgent(t Task, agent string) error
	// ParseGenerator checks a generator's name.
	ParseGenerator(name string) (Generator, error)
	// CheckBuilder checks an image builder's name ("": the default).
	CheckBuilder(name string) error
	// CheckFamily checks a base family's name with mirror.
	CheckFamily(family, mirror string) error

	// RunTask carries out a task run; its result is nil only when the
	// run did not get as far as having one.
	RunTask(ctx context.Context, j TaskJob) (*runapi.TaskResult, error)
	// Generate carries out a generation; its record is nil only when it
	// did not get as far as having one.
	Generate(ctx context.Context, j GenerateJob) (*runapi.GenerationRecord, error)
	// Build builds a base or a task image (or finds it up to date); the
	// result is never nil.
	Build(ctx context.Context, j BuildJob) (*runapi.BuildResult, error)

	// CleanupRun removes what a task run or generation left in its
	// directory (root filesystems, sidecars) after its daemon died.
	CleanupRun(dir string) error
	// DeleteContainer deletes container id of the runc state in
	// runcRoot, left by a daemon that died.
	DeleteContainer(runcRoot, id string) error
}

// Task is a loaded task; the core reads its permission spec.
type Task interface {
	// PermissionSpec is the task's permission spec (the policies of a
	// task run are checked against it).
	PermissionSpec() *policy.Spec
}

// Generator is a parsed generator name.
type Generator struct {
	// Model is an openai:MODEL or st:MODEL generator's model; OpenAI says
	// it is one of those (it calls a model).
	Model  string
	OpenAI bool
}

// Env is the daemon's part of a task run's or generation's environment.
type Env struct {
	// Task is the task (from LoadTask).
	Task Task
	// BaseMap maps FROM images to local ones (the request's image map).
	BaseMap map[string]string
	// Dir is the run's directory (its files, records and root
	// filesystems).
	Dir string
	// Self is the authbench binary, mounted into containers as
	// sandbox-init.
	Self string
	// RuncRoot holds the runc state of the daemon's containers.
	RuncRoot string
	// MaxOutputBytes caps each stored output and event log.
	MaxOutputBytes int64
	// Log receives structured logs.
	Log *zap.Logger
	// OnIdentity is called with the agent's identity once resolved.
	OnIdentity func(runapi.Identity)
}

// TaskJob is a validated task run.
type TaskJob struct {
	Env
	// Source, Policy and Semantics say what confines the agent.
	Source    string
	Policy    *policy.Policy
	Semantics policy.Semantics
	// Agent is the agent's name; Model its model (openai:, installed:),
	// resolved, with its key.
	Agent string
	Model *modelconfig.Config
	// Capabilities replace the task's set when not nil.
	Capabilities []string
	// AllowHosts are run-time allow-list entries of the agent phase.
	AllowHosts []string
	// Requests names the decider of the agent's run-time permission
	// requests ("": none); RequestLimits bound them.
	Requests      string
	RequestLimits permreq.Limits
}

// GenerateJob is a validated generation.
type GenerateJob struct {
	Env
	// Generator is the generator's name; Timeout a sandboxed one's time
	// (0: the default); Model an openai: one's model, with its key.
	Generator string
	Timeout   time.Duration
	Model     *modelconfig.Config
}

// BuildJob is a validated image build.
type BuildJob struct {
	// Request is the build request.
	Request runapi.BuildRequest
	// Task is the task whose image to build; nil builds a base.
	Task Task
	// Log receives the builder's output.
	Log io.Writer
}
