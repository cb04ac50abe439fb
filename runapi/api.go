package runapi

import (
	"encoding/base64"
	"encoding/json"
	"fmt"
	"time"

	"github.com/authbench/authbench/agent/modelconfig"
	"github.com/authbench/authbench/audit"
	"github.com/authbench/authbench/policy"
	"github.com/authbench/authbench/tracer/trace"
)

// APIVersion prefixes every API path.
const APIVersion = "v1"

// State is where a run is in its life.
type State string

// Run states. Terminal states never change again.
const (
	StateQueued    State = "queued"
	StateRunning   State = "running"
	StateSucceeded State = "succeeded" // the command exited 0
	StateFailed    State = "failed"    // non-zero exit, or it could not start
	StateTimeout   State = "timeout"   // killed at its deadline
	StateCancelled State = "cancelled" // killed on request
	StateAborted   State = "aborted"   // the daemon stopped or died first
)

// AllStates lists every state, for metrics.
var AllStates = []State{StateQueued, StateRunning, StateSucceeded, StateFailed, StateTimeout, StateCancelled, StateAborted}

// Terminal reports whether a run in state s has ended.
func (s State) Terminal() bool { return s != StateQueued && s != StateRunning }

// Process is one process of a run's tree, as /proc showed it: pid (host
// PID namespace), parent pid, command name and command line.
type Process struct {
	Pid     int    `json:"pid"`
	PPid    int    `json:"ppid"`
	Comm    string `json:"comm"`
	Cmdline string `json:"cmdline,omitempty"`
}

// ExecRequest asks for one command run: argv under a policy, confined
// by sandbox-init with Landlock, seccomp and an identity, traced when
// asked (`authbench exec`, `authbench trace`).
type ExecRequest struct {
	// Command is argv; Command[0] is an absolute path or a name looked
	// up in the PATH of Env.
	Command []string `json:"command"`
	// Dir is the working directory (absolute); default "/".
	Dir string `json:"dir,omitempty"`
	// Env is the environment, "KEY=VALUE" entries.
	Env []string `json:"env,omitempty"`
	// Policy is π; null runs the command without Landlock.
	Policy json.RawMessage `json:"policy,omitempty"`
	// Baseline is "default", "none", or a spec document whose
	// implicit_permissions are the baseline. Default "default".
	Baseline json.RawMessage `json:"baseline,omitempty"`
	// Semantics is how the policy becomes Landlock rules: "precise" (the
	// default) or "published" (the published AuthBench launcher's rules).
	Semantics string `json:"semantics,omitempty"`
	// RefuseSymlinks refuses a policy whose targets are reached through
	// a symlink instead of listing them as wider than the policy.
	RefuseSymlinks bool `json:"refuse_symlinks,omitempty"`
	// Seccomp is an OCI LinuxSeccomp profile; null uses the default one.
	Seccomp json.RawMessage `json:"seccomp,omitempty"`
	// NoSeccomp runs without any seccomp filter.
	NoSeccomp bool `json:"no_seccomp,omitempty"`
	// UID and GID to run as. A caller that is not root always runs as
	// itself; root defaults to itself too.
	UID *uint32 `json:"uid,omitempty"`
	GID *uint32 `json:"gid,omitempty"`
	// AllowRoot must be set (by a root caller) to run the tree as uid 0.
	AllowRoot bool `json:"allow_root,omitempty"`
	// AllowUnenforced runs even where Landlock is not available.
	AllowUnenforced bool `json:"allow_unenforced,omitempty"`
	// AllowUnixConnect lets the tree connect to pathname unix sockets on
	// a kernel whose Landlock cannot restrict them (below ABI 9), where a
	// confined tree may otherwise make no unix socket but socketpair.
	AllowUnixConnect bool `json:"allow_unix_connect,omitempty"`
	// Trace records every file event of the tree. A traced run without
	// any seccomp filter (no_seccomp) gets one that only makes io_uring
	// unavailable (ENOSYS), so that its file accesses stay visible.
	Trace bool `json:"trace,omitempty"`
	// Capabilities names capabilities (e.g. "CAP_NET_BIND_SERVICE") the
	// tree keeps; only a tree running as uid 0 keeps any. Default none.
	Capabilities []string `json:"capabilities,omitempty"`
	// WaitTree waits for the whole tree, not only its root: sandbox-init
	// stays as the tree's reaper (confined like the command) and the run
	// ends when the last process of the tree has exited. Without it the
	// run ends with the root; in a PID namespace of its own (a root
	// daemon) the kernel then kills the rest of the tree.
	WaitTree bool `json:"wait_tree,omitempty"`
}

// TaskRequest asks for one task run: the task's agent runs in a fresh
// rootfs of the task's image, under the policy source's plan, traced,
// then its verifiers (package taskrun).
type TaskRequest struct {
	// Dir is the task directory (Harbor layout), absolute.
	Dir string `json:"dir"`
	// PolicySource is "unconstrained", "spec" or "policy" (then Policy
	// is π).
	PolicySource string `json:"policy_source"`
	// Policy is π of policy source "policy"; the other sources take
	// none.
	Policy json.RawMessage `json:"policy,omitempty"`
	// Agent is "oracle", "shortcut", `cmd:COMMAND`, `openai:MODEL` or
	// `installed:NAME[@VERSION][:MODEL]` (parsed by agent/agentname).
	Agent string `json:"agent"`
	// Model is the endpoint and options of an openai:MODEL agent,
	// resolved by the client (its api_key travels here: the daemon never
	// reads the model's key from its own environment). The daemon keeps
	// the key in memory for the run only: the recorded request, the run
	// record and the run's files never hold it.
	Model *modelconfig.Config `json:"model,omitempty"`
	// BaseMap maps FROM images to local ones (NAME=IMAGE).
	BaseMap map[string]string `json:"base_map,omitempty"`
	// Semantics is how the policy becomes Landlock rules: "published"
	// (the published AuthBench launcher's rules, the default when empty)
	// or "precise".
	Semantics string `json:"semantics,omitempty"`
	// Caps is the agent's capability set: "none", "docker" (Docker's
	// default set) or a comma-separated list of names; empty for the
	// task's (Docker's set unless task.toml's cap_add/cap_drop change it).
	// A caller that is not root may name Docker's capabilities only.
	Caps string `json:"caps,omitempty"`
	// AgentAllowHosts are allow-list entries of the agent phase's network
	// (`--agent-allow-host HOST:PORT`, docs/tasks.md "Network policy"):
	// the agent phase becomes an allowlist of the task's allowed_hosts
	// and them. A bad entry is refused naming its index.
	AgentAllowHosts []string `json:"agent_allow_hosts,omitempty"`
	// Requests names the decider of an openai:MODEL agent's run-time
	// permission requests ("spec", "deny", "allow" or "model:MODEL", a
	// judge model on the agent's endpoint; empty: the agent cannot
	// request); MaxRequests (0: 8, at most 1000) and
	// RequestTimeoutS (0: 30, at most 600) bound them (docs/security.md,
	// "Permission requests").
	Requests        string  `json:"requests,omitempty"`
	MaxRequests     int     `json:"max_requests,omitempty"`
	RequestTimeoutS float64 `json:"request_timeout_s,omitempty"`
}

// GenerateRequest asks for one permission generation (package generate):
// the generator explores a fresh copy-on-write rootfs of the task's image
// under the generation policy (read everything, write only its output
// file, execute only inspection tools and itself), traced, and its answer
// is validated. The run succeeds when the generation was carried out,
// whatever the answer; Run.GenerateResult says how it went.
type GenerateRequest struct {
	// Dir is the task directory (Harbor layout), absolute.
	Dir string `json:"dir"`
	// Generator is `cmd:COMMAND`, `openai:MODEL`, `heuristic`, `spec` or
	// `allow-all`.
	Generator string `json:"generator"`
	// BaseMap maps FROM images to local ones (NAME=IMAGE).
	BaseMap map[string]string `json:"base_map,omitempty"`
	// TimeoutSeconds is the generator's time (0: 600).
	TimeoutSeconds float64 `json:"timeout_s,omitempty"`
	// Model is the endpoint and options of an openai:MODEL generator,
	// resolved by the client, with its api_key, which the daemon keeps in
	// memory for the run only (as TaskRequest.Model).
	Model *modelconfig.Config `json:"model,omitempty"`
}

// Run is the record of one run, as GET /v1/runs/{id} returns it.
type Run struct {
	ID    string `json:"id"`
	State State  `json:"state"`
	// Request is the request as submitted; its env values are shown
	// only to the caller and root (others see "KEY=<redacted>").
	Request RunRequest `json:"request"`
	// CallerUID, CallerGID and CallerPID identify who submitted the run
	// (the kernel's credentials of the API peer); only that uid and root
	// may see, follow or cancel it.
	CallerUID uint32 `json:"caller_uid"`
	CallerGID uint32 `json:"caller_gid"`
	CallerPID int32  `json:"caller_pid,omitempty"`
	// UID and GID the tree ran as.
	UID uint32 `json:"uid"`
	GID uint32 `json:"gid"`
	// Pid is the root process id while it runs (host pid namespace).
	Pid      int  `json:"pid,omitempty"`
	ExitCode *int `json:"exit_code,omitempty"`
	// ExitStatus is the status a shell would report for the run, which
	// `authbench exec` exits with: ExitCode, or when the command could
	// not be started 127 (not found), 126 (not executable) or 125 (it
	// could not be confined, or anything else failed first).
	ExitStatus *int   `json:"exit_status,omitempty"`
	Error      string `json:"error,omitempty"`
	// ErrorKind is the kind of that failure (confine, agent_timeout,
	// cancelled, daemon, or a task run's: build, rootfs, ...).
	ErrorKind ErrorKind  `json:"error_kind,omitempty"`
	CreatedAt time.Time  `json:"created_at"`
	StartedAt *time.Time `json:"started_at,omitempty"`
	EndedAt   *time.Time `json:"ended_at,omitempty"`
	// Events and LostEvents count a command's trace (a task run's or a
	// generation's are in its result: TraceCounts reads either).
	Events     uint64 `json:"events"`
	LostEvents uint64 `json:"lost_events"`
	// Denials are the traced operations the plan refused (audit) of a
	// command (a task run's or a generation's are in its result:
	// DeniedAccesses reads either), in
	// order of first occurrence; DeniedDropped counts those beyond
	// audit.MaxDenials.
	Denials       []audit.Denial `json:"denials,omitempty"`
	DeniedDropped int            `json:"denied_dropped,omitempty"`
	// LoaderExecs are programs run through the dynamic loader.
	LoaderExecs []trace.LoaderExec `json:"loader_execs,omitempty"`
	// MmapExecs are files the plan gives no execute right that a process
	// mapped executable (a library loaded with LD_PRELOAD or dlopen).
	MmapExecs []audit.MmapExec `json:"mmap_execs,omitempty"`
	// LandlockABI is the kernel's Landlock ABI version (0: none).
	// UnenforcedRights lists rights of the plan this kernel could not
	// enforce. Both are a command's (a task run's are in its result:
	// Enforcement reads either).
	LandlockABI      int      `json:"landlock_abi"`
	UnenforcedRights []string `json:"unenforced_rights,omitempty"`
	// Plan is the Landlock rule plan the run was restricted by.
	Plan *policy.Plan `json:"plan,omitempty"`
	// TaskResult is the result of a task run (also result.json).
	TaskResult *TaskResult `json:"task_result,omitempty"`
	// GenerateResult is the record of a generation (also generation.json).
	GenerateResult *GenerationRecord `json:"generate_result,omitempty"`
	// BuildResult says how an image build went.
	BuildResult *BuildResult `json:"build_result,omitempty"`
	// TraceIncomplete is set when the event log was not finished (the
	// daemon died mid-run, or writing it failed): Events then counts the
	// event lines that reached the log. LostEvents includes the events
	// not stored beyond the daemon's output cap.
	TraceIncomplete bool `json:"trace_incomplete,omitempty"`
	// StillRunning lists the processes of the tree that were still
	// running when the run was cut short (timeout, cancel, daemon stop),
	// its root first; they were killed.
	StillRunning []Process `json:"still_running,omitempty"`
	// StdoutDroppedBytes and StderrDroppedBytes count output not stored
	// (beyond the daemon's output cap, or after a write error).
	StdoutDroppedBytes int64 `json:"stdout_dropped_bytes,omitempty"`
	StderrDroppedBytes int64 `json:"stderr_dropped_bytes,omitempty"`
}

// TraceCounts are the trace events the run recorded and lost: a task
// run's or a generation's from its result (the run references it), a
// command's — or a run whose result never came, such as one a dead
// daemon left — from the run itself.
func (r *Run) TraceCounts() (events, lost uint64) {
	switch {
	case r.TaskResult != nil:
		return r.TaskResult.Events, r.TaskResult.LostEvents
	case r.GenerateResult != nil:
		return r.GenerateResult.Events, r.GenerateResult.LostEvents
	}
	return r.Events, r.LostEvents
}

// DeniedAccesses are the traced operations the plan refused: a task
// run's or a generation's from its result, a command's from the run.
func (r *Run) DeniedAccesses() []audit.Denial {
	switch {
	case r.TaskResult != nil:
		return r.TaskResult.Denials
	case r.GenerateResult != nil:
		return r.GenerateResult.Denials
	}
	return r.Denials
}

// Enforcement is the kernel's Landlock ABI and the rights of the plan it
// could not enforce: a task run's from its result, a command's from the
// run.
func (r *Run) Enforcement() (landlockABI int, unenforced []string) {
	if r.TaskResult != nil {
		return r.TaskResult.LandlockABI, r.TaskResult.UnenforcedRights
	}
	return r.LandlockABI, r.UnenforcedRights
}

// ErrorResponse is the body of every non-2xx answer.
type ErrorResponse struct {
	Error string `json:"error"`
	// Field names the offending request field, when there is one.
	Field string `json:"field,omitempty"`
	// Rule names the authorisation rule of a 403 (RulePeerUnverified,
	// RuleConfinedNoNewPrivs, ...).
	Rule string `json:"rule,omitempty"`
	// Allowed are the file names a run serves, in a 404 for a name its
	// kind does not make (ArtifactError).
	Allowed []string `json:"allowed,omitempty"`
}

// SignalRequest is the body of POST /v1/runs/{id}/signal.
type SignalRequest struct {
	// Signal is the signal's name: SIGINT, SIGTERM, SIGHUP, SIGQUIT,
	// SIGUSR1 or SIGUSR2 (the "SIG" prefix may be left out).
	Signal string `json:"signal"`
}

// CreateResponse is the body of a successful POST /v1/runs.
type CreateResponse struct {
	ID string `json:"id"`
}

// ViewStatus is the value of the `view` query parameter of POST /v1/runs
// and GET /v1/runs/{id} that asks for a RunStatus instead of the whole
// record: what a client attached to a run needs to report its end, without
// the request and the plan.
const ViewStatus = "status"

// RunStatus is the status view of a run (?view=status): its id, state,
// exit and failure, and the processes a cut-short run left.
type RunStatus struct {
	ID           string    `json:"id"`
	State        State     `json:"state"`
	ExitCode     *int      `json:"exit_code,omitempty"`
	ExitStatus   *int      `json:"exit_status,omitempty"`
	Error        string    `json:"error,omitempty"`
	ErrorKind    ErrorKind `json:"error_kind,omitempty"`
	StillRunning []Process `json:"still_running,omitempty"`
}

// Status is the status view of r.
func (r *Run) Status() RunStatus {
	return RunStatus{ID: r.ID, State: r.State, ExitCode: r.ExitCode, ExitStatus: r.ExitStatus,
		Error: r.Error, ErrorKind: r.ErrorKind, StillRunning: r.StillRunning}
}

// Run is a record holding only the fields of the status view s (for code
// that reads a run's end from a *Run either way).
func (s RunStatus) Run() *Run {
	return &Run{ID: s.ID, State: s.State, ExitCode: s.ExitCode, ExitStatus: s.ExitStatus,
		Error: s.Error, ErrorKind: s.ErrorKind, StillRunning: s.StillRunning}
}

// StatusTrailer is the trailer of a followed log asked for with
// ?follow=1&view=status: the run's RunStatus as JSON in base64
// (EncodeStatusTrailer), sent once the run has ended and its log has been
// streamed to its end.
const StatusTrailer = "Authbench-Run-Status"

// EncodeStatusTrailer is st as the value of StatusTrailer. Pure.
func EncodeStatusTrailer(st RunStatus) (string, error) {
	data, err := json.Marshal(st)
	if err != nil {
		return "", err
	}
	return base64.StdEncoding.EncodeToString(data), nil
}

// DecodeStatusTrailer reads a StatusTrailer value; "" (no trailer) is
// (nil, nil). Pure.
func DecodeStatusTrailer(v string) (*RunStatus, error) {
	if v == "" {
		return nil, nil
	}
	data, err := base64.StdEncoding.DecodeString(v)
	if err != nil {
		return nil, fmt.Errorf("run status trailer: %w", err)
	}
	var st RunStatus
	if err := json.Unmarshal(data, &st); err != nil {
		return nil, fmt.Errorf("run status trailer: %w", err)
	}
	return &st, nil
}
