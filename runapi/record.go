package runapi

import (
	"bytes"
	"encoding/json"

	"github.com/authbench/authbench/agent/modelconfig"
	"github.com/authbench/authbench/audit"
	"github.com/authbench/authbench/netproxy/netpolicy"
	"github.com/authbench/authbench/policy"
	"github.com/authbench/authbench/verdict"
)

// TaskResult is the record of one task run (result.json, and the
// daemon's Run.TaskResult): every other shape of a run — the bench's row,
// Harbor's trial result — is derived from it.
type TaskResult struct {
	Task         string `json:"task"`
	Dataset      string `json:"dataset"`
	PolicySource string `json:"policy_source"`
	Agent        string `json:"agent"`
	// Semantics is the enforcement semantics the policy was compiled
	// with ("published" or "precise"; the unconstrained row has no plan).
	Semantics policy.Semantics `json:"semantics"`
	// AgentIdentity is who the agent ran as (absent when the run failed
	// before it was resolved).
	AgentIdentity *Identity `json:"agent_identity,omitempty"`
	// AgentCapabilities are the capabilities the agent ran with
	// (the request's capabilities, else the task's; [] for none, null when the run failed
	// before they were decided). A uid-0 agent held them effective and
	// permitted, another uid in its bounding set only.
	AgentCapabilities []string `json:"agent_capabilities"`
	// Bounds are the cgroup bounds of the run's containers.
	Bounds *ContainerBounds `json:"bounds,omitempty"`
	// ImageSubstitutions are the images the run used in place of those
	// its task names (the task's FROMs, then each sidecar's).
	ImageSubstitutions []ImageSubstitution `json:"image_substitutions,omitempty"`
	// ComposeWarnings name the compose keys the run read but did not
	// apply.
	ComposeWarnings []string `json:"compose_warnings,omitempty"`
	// Utility is V_u's verdict; Attack is V_a's (null for standard tasks).
	// Both are null in JSON, and false and nil here, when AgentDidNotRun.
	Utility bool  `json:"utility"`
	Attack  *bool `json:"attack"`
	// UtilityReward is the reward a tests/test.sh verifier wrote
	// (reward.json or reward.txt, read as Harbor does; 1 passes).
	UtilityReward *float64 `json:"utility_reward,omitempty"`
	// VerifierError is set when a verifier could not give a verdict (it
	// crashed, timed out or wrote no reward): distinct from false.
	VerifierError string `json:"verifier_error,omitempty"`
	// ExitCode is the agent's exit status (128+n when killed by signal n);
	// null in JSON, and 0 here, when AgentDidNotRun.
	ExitCode  int     `json:"exit_code"`
	TimedOut  bool    `json:"timed_out"`
	DurationS float64 `json:"duration_s"`
	// VerifyS is the verifiers' time (their rootfs set-up included).
	VerifyS float64 `json:"verify_s"`
	// SetupMS is the time from the rootfs being ready to the agent's exec.
	SetupMS float64 `json:"setup_ms"`
	// Denials are traced operations the plan refused; TracedSensitive the
	// successful accesses matching sensitive_permissions.
	Denials         []audit.Denial    `json:"denials"`
	TracedSensitive []SensitiveAccess `json:"traced_sensitive_access"`
	Traced          bool              `json:"traced"`
	Events          uint64            `json:"events"`
	LostEvents      uint64            `json:"lost_events"`
	// LandlockABI is the kernel's; UnenforcedRights what it cannot
	// enforce of the plan.
	LandlockABI         int               `json:"landlock_abi"`
	UnenforcedRights    []string          `json:"unenforced_rights"`
	PlanWiderThanPolicy []policy.Widening `json:"plan_wider_than_policy"`
	// PlanGrantsSensitive are the sensitive files (sensitive_permissions)
	// the run's enforced plan lets its policy reach (policy.Plan.
	// SensitiveGrants: a listed directory's hierarchy, a missing file's
	// nearest ancestor, a written file's parent under published
	// semantics), which the static score, following the published
	// formula, does not see; absent without a plan or sensitive entries.
	PlanGrantsSensitive []policy.SensitiveGrant `json:"plan_grants_sensitive,omitempty"`
	// StaticScore is the run's policy (the spec's required set for the
	// spec source, π for a policy) scored against the task's spec over
	// the run's fresh rootfs before the agent started; absent for the
	// unconstrained row. StaticScoreError says why it is absent when the
	// spec could not be scored in this rootfs.
	StaticScore      *policy.Score `json:"static_score,omitempty"`
	StaticScoreError string        `json:"static_score_error,omitempty"`
	// Network is the run's network: each phase's policy, its proxy's
	// events in brief (every attempt is in the run's network file; the
	// agent's refused ones are among Denials too), and what Landlock
	// enforces of TCP. Absent when the run failed before it was decided.
	Network *NetworkRecord `json:"network,omitempty"`
	// StillRunning are the agent's processes that were still running when
	// its time ran out (they were killed), its container's init first.
	StillRunning []Process `json:"still_running,omitempty"`
	// VerifiersTraced reports that every verifier ran completely traced
	// (Verifiers, one trace session each) and the agent's files are known,
	// so that VerifierTampered can be trusted: the files the agent left,
	// not expected outputs of the task, that a verifier read, executed or
	// mapped as code (the first maxTamperedListed;
	// VerifierTamperedOmitted counts the rest). A run with any cannot
	// trust its verdicts.
	VerifiersTraced         bool            `json:"verifiers_traced"`
	Verifiers               []VerifierTrace `json:"verifiers,omitempty"`
	VerifierTampered        []TamperedFile  `json:"verifier_tampered,omitempty"`
	VerifierTamperedOmitted int             `json:"verifier_tampered_omitted,omitempty"`
	// Model is the endpoint and options of an openai:MODEL agent, without
	// its API key. AgentTurns are its model calls that returned,
	// AgentTokens their token counts (an installed harness's too, summed
	// from its transcript where the harness records usage), AgentStopReason why it stopped
	// (finished, turn_limit, timeout, model_error, invalid_answer,
	// toolbox_died) and AgentError the error behind a stop that is not
	// "finished". Its transcript is TrajectoryFile.
	Model           *modelconfig.Config `json:"model,omitempty"`
	AgentTurns      int                 `json:"agent_turns,omitempty"`
	AgentTokens     *TokenCounts        `json:"agent_tokens,omitempty"`
	AgentStopReason string              `json:"agent_stop_reason,omitempty"`
	AgentError      string              `json:"agent_error,omitempty"`
	// Requests is the run's decider of run-time permission requests
	// (--requests; "" when the agent could not request).
	Requests string `json:"requests,omitempty"`
	// PermissionRequests are the agent's run-time permission requests
	// within the run's limit, in order (--requests);
	// PermissionRequestsOverLimit counts those refused beyond it (not
	// listed).
	PermissionRequests          []PermissionRequest `json:"permission_requests,omitempty"`
	PermissionRequestsOverLimit int                 `json:"permission_requests_over_limit,omitempty"`
	// HarnessModel is the model an installed harness was configured for
	// (its AgentTokens were spent on it).
	HarnessModel string `json:"harness_model,omitempty"`
	// Harness is an installed agent's harness and version
	// (installed:NAME[@VERSION]), HarnessVersion that npm version alone
	// (the pinned one, else the harness table's); HarnessError says why
	// its transcript could not be kept. Its own transcript is
	// harness-transcript.jsonl, as ATIF TrajectoryFile.
	Harness        string `json:"harness,omitempty"`
	HarnessVersion string `json:"harness_version,omitempty"`
	HarnessError   string `json:"harness_error,omitempty"`
	// Error says why the run could not be carried out (image build,
	// rootfs, the agent could not start); the verdicts are then false.
	Error string `json:"error,omitempty"`
	// ErrorKind is the kind of that failure (build, rootfs, identity,
	// network, sidecar, confine, agent, agent_timeout, ...).
	ErrorKind ErrorKind `json:"error_kind,omitempty"`
	// AgentDidNotRun: the run failed (Error) before its agent started —
	// the image did not build, the rootfs, identity, network, a sidecar or
	// the confinement could not be set up, the agent's program could not
	// be started. Such a run has no verdict and no agent exit: an error,
	// never a failure of the agent (see MarshalJSON).
	AgentDidNotRun bool `json:"agent_did_not_run,omitempty"`
	// AgentStdoutDroppedBytes and AgentStderrDroppedBytes count the
	// agent's output not stored (the daemon's output cap); LostEvents
	// includes the events not stored beyond it.
	AgentStdoutDroppedBytes int64 `json:"agent_stdout_dropped_bytes,omitempty"`
	AgentStderrDroppedBytes int64 `json:"agent_stderr_dropped_bytes,omitempty"`
	// Classification is the run's verdict as failure classes, computed
	// by the run (Classify): its classes, primary class, deciding denial
	// and first sensitive access.
	verdict.Classification
}

// VerifierTrace is how completely one verifier (V_u "utility", V_a
// "attack") was traced, in its own session.
type VerifierTrace struct {
	Verifier   string `json:"verifier"`
	Traced     bool   `json:"traced"`
	Events     uint64 `json:"events"`
	LostEvents uint64 `json:"lost_events"`
	// Error says why the trace is missing or incomplete.
	Error string `json:"error,omitempty"`
}

// SensitiveAccess is a successful traced access that matches a
// sensitive_permissions pattern on its axis. Path is the file reached
// (the kernel's real path when the event has one); Via is the name the
// process used when it differs (a symlink, a hard link, /proc/self/root,
// ".." after a symlink, a renamed directory).
type SensitiveAccess struct {
	Op string `json:"op"`
	// Axis is the access's axis: a file axis, or policy.Network for a
	// connection (JSON: its name).
	Axis    policy.Axis `json:"axis"`
	Path    string      `json:"path"`
	Via     string      `json:"via,omitempty"`
	Pattern string      `json:"pattern"`
}

// Identity is who a task's agent runs as, resolved in the run's rootfs
// the way a container runtime resolves an image's USER.
type Identity struct {
	// User is what was asked for: task.toml's [agent] user, else the
	// image's USER, else "root".
	User string `json:"user"`
	UID  int    `json:"uid"`
	GID  int    `json:"gid"`
	// Groups are the supplementary groups: the primary gid and every
	// group of /etc/group that lists the user as a member (as a login or
	// a container runtime sets them).
	Groups []int `json:"groups"`
	// Home is the user's home directory from /etc/passwd ("/" when the
	// user has no entry).
	Home string `json:"home"`
}

// ImageSubstitution is an image the run used in place of the one its
// task names; Service is the compose service ("" for the agent's).
type ImageSubstitution struct {
	Service string `json:"service,omitempty"`
	// Ref is the image as the Dockerfile or compose file names it.
	Ref string `json:"ref"`
	// Used is what the build used instead.
	Used string `json:"used"`
	// Why names the rule and what the stand-in is.
	Why string `json:"why"`
}

// TamperedFile is a file the agent wrote, that is not an expected output
// of the task, and that a verifier then read, executed or mapped as code:
// a planted pytest.ini, sitecustomize.py in the interpreter's zip, a
// preloaded library, a script the verifier runs. A run with one cannot
// trust its verdicts.
type TamperedFile struct {
	Path     string `json:"path"`
	Verifier string `json:"verifier"` // "utility" or "attack"
	// Op is how the verifier consumed it: "exec" (the file executed, a
	// script or its interpreter), "read" (opened for reading: a
	// configuration, a module, `bash FILE`) or "mmap" (mapped executable).
	Op string `json:"op"`
	// Why says what makes it count: the identity and content the agent
	// left, and that no required write permission covers it.
	Why string `json:"why"`
}

// TokenCounts are a model agent's tokens (result.json agent_tokens).
type TokenCounts struct {
	Prompt     int64 `json:"prompt"`
	Completion int64 `json:"completion"`
	Total      int64 `json:"total"`
}

// GenerationRecord is the record of one permission generation
// (generation.json, and the daemon's Run.GenerateResult).
type GenerationRecord struct {
	Task      string `json:"task"`
	Generator string `json:"generator"`
	// Valid: the answer is a policy the scorer's parser accepts and the
	// generator ended normally; Reason says why not.
	Valid  bool   `json:"valid"`
	Reason string `json:"reason,omitempty"`
	// PolicyRaw is the answer as given (also policy.json); Policy is it
	// parsed (absent when invalid).
	PolicyRaw string          `json:"policy_raw"`
	Policy    json.RawMessage `json:"policy,omitempty"`
	// AnswerFrom is where the answer came from (output_file, stdout,
	// model, builtin).
	AnswerFrom string `json:"answer_from,omitempty"`
	// ExitCode is a cmd: generator's exit status (128+n: killed by
	// signal n); absent for the others.
	ExitCode  *int    `json:"exit_code,omitempty"`
	TimedOut  bool    `json:"timed_out"`
	DurationS float64 `json:"duration_s"`
	SetupMS   float64 `json:"setup_ms"`
	// FilesRead are the files the generator opened for reading
	// successfully (from the trace; null when untraced).
	FilesRead        []string `json:"files_read"`
	FilesReadDropped int      `json:"files_read_dropped,omitempty"`
	// SensitiveRead are the files read that match the spec's sensitive
	// read patterns (sensitive tasks): the generator saw them.
	SensitiveRead []string       `json:"sensitive_read,omitempty"`
	Denials       []audit.Denial `json:"denials,omitempty"`
	Traced        bool           `json:"traced"`
	Events        uint64         `json:"events"`
	LostEvents    uint64         `json:"lost_events"`
	// Executable are the programs the generation policy let run.
	Executable []string `json:"executable,omitempty"`
	// ToolCalls are an openai generator's tool calls, or the programs a
	// traced cmd: generator ran (successful execs after its own). Turns,
	// Tokens, StopReason and Model describe an openai generator (Model with
	// its API key removed).
	ToolCalls  int             `json:"tool_calls"`
	Turns      int             `json:"turns"`
	Tokens     *TokenCounts    `json:"tokens,omitempty"`
	StopReason string          `json:"stop_reason,omitempty"`
	Model      json.RawMessage `json:"model,omitempty"`
	// Stages are an st: generator's stages in order (sufficiency, then
	// tightness when the sufficiency answer was valid): each one's answer
	// as given and how it ended. Tokens and Turns are their sums; the
	// record's answer is the last stage's.
	Stages []GenerationStage `json:"stages,omitempty"`
	// Error says why the generation could not be carried out at all
	// (image build, rootfs); the policy is then invalid too.
	Error string `json:"error,omitempty"`
	// ErrorKind is the kind of that failure (ErrorKind: build, rootfs,
	// identity, ...).
	ErrorKind ErrorKind `json:"error_kind,omitempty"`
}

// GenerationStage is one stage of a multi-stage generator (st:): its
// answer as given and how its model loop ended.
type GenerationStage struct {
	// Stage is "sufficiency" or "tightness".
	Stage string `json:"stage"`
	// Valid: the answer is a policy for the task; Reason says why not.
	Valid      bool         `json:"valid"`
	Reason     string       `json:"reason,omitempty"`
	PolicyRaw  string       `json:"policy_raw"`
	Turns      int          `json:"turns"`
	Tokens     *TokenCounts `json:"tokens,omitempty"`
	StopReason string       `json:"stop_reason,omitempty"`
	DurationS  float64      `json:"duration_s"`
}

// recordSpec stands for the task's spec when a record's policy is read
// back: the policy was checked against the task's spec when it was
// recorded, so its network list (if any) is accepted.
var recordSpec = &policy.Spec{Network: policy.NetworkSpec{Declared: true}}

// ParsedPolicy returns the record's policy (nil when invalid).
func (r *GenerationRecord) ParsedPolicy() *policy.Policy {
	if !r.Valid || r.Policy == nil {
		return nil
	}
	pol, err := policy.ParsePolicyFor(r.Policy, r.Generator, recordSpec)
	if err != nil {
		return nil
	}
	return pol
}

// OutFile is what `generate --out FILE` writes: a valid answer as the
// policy it parsed to, normalised JSON as every policy reader (policy
// check, score, exec --policy) parses it, whatever wrapping the answer
// had (a fenced block, chatter); an invalid one as given, to look at.
// The raw answer stays in PolicyRaw either way.
func (r *GenerationRecord) OutFile() []byte {
	if !r.Valid || len(r.Policy) == 0 {
		return []byte(r.PolicyRaw)
	}
	var buf bytes.Buffer
	if err := json.Indent(&buf, r.Policy, "", "  "); err != nil {
		return append([]byte(nil), r.Policy...)
	}
	buf.WriteByte('\n')
	return buf.Bytes()
}

// NetworkRecord is a run's network in its result: each phase's policy,
// the proxy's events in brief, and what Landlock does of TCP.
type NetworkRecord struct {
	Agent    netpolicy.Policy `json:"agent"`
	Verifier netpolicy.Policy `json:"verifier"`
	// Setup is the set-up phase's (compose services starting and being
	// health-checked, before the agent), nil in records made before it.
	Setup *netpolicy.Policy `json:"setup,omitempty"`
	// Mediated is true when the run had its own namespace and proxy.
	Mediated bool `json:"mediated"`
	// ModelEndpoint is the endpoint whose key the proxy injected (its
	// URL only), empty for none.
	ModelEndpoint string `json:"model_endpoint,omitempty"`
	// Hosts are the stand-in addresses of the allowed names in the run's
	// /etc/hosts ("127.88.0.1 name").
	Hosts  []string          `json:"hosts,omitempty"`
	Events netpolicy.Summary `json:"events"`
	// UnresolvedHosts are the allowed names (of either phase) that did
	// not resolve on the daemon's host when the run started (checked
	// alongside the run, 3 s each): attempts to them fail with "resolve".
	UnresolvedHosts []string `json:"unresolved_hosts,omitempty"`
	// LandlockTCP says what Landlock enforces of TCP in this run.
	LandlockTCP string `json:"landlock_tcp,omitempty"`
	// KernelNetABI is true when the kernel's Landlock has TCP rights
	// (ABI >= 4).
	KernelNetABI bool `json:"kernel_landlock_tcp"`
}
