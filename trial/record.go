package trial

import (
	"slices"
	"time"

	"github.com/authbench/authbench/agent/modelconfig"
	"github.com/authbench/authbench/runapi"
	"github.com/authbench/authbench/verdict"
)

// Record is one run of the benchmark: one row of the results database,
// the unit every report aggregates. Rates and means are computed by the
// report from Records, never stored.
//
// The fields a report shows of every run are declared once, in the
// structs Record embeds (Identity, Verdicts, Diagnosis, Findings,
// RunEnd), which the report's per-run entry embeds too; embedding keeps
// the JSON flat, its keys those of the fields.
type Record struct {
	Identity
	// AgentCapabilities are the capabilities the agent ran with (empty:
	// none; null when the run never decided them).
	AgentCapabilities []string `json:"agent_capabilities"`

	Verdicts

	// Static score of the run's policy against the task's spec. PolicyValid
	// false means every metric is 0 (an invalid or missing policy).
	PolicyValid       bool     `json:"policy_valid"`
	PolicyError       string   `json:"policy_error,omitempty"`
	ReadP             float64  `json:"read_precision"`
	ReadR             float64  `json:"read_recall"`
	ReadF1            float64  `json:"read_f1"`
	WriteP            float64  `json:"write_precision"`
	WriteR            float64  `json:"write_recall"`
	WriteF1           float64  `json:"write_f1"`
	ExecP             float64  `json:"execute_precision"`
	ExecR             float64  `json:"execute_recall"`
	ExecF1            float64  `json:"execute_f1"`
	SensitiveCoverage *float64 `json:"sensitive_coverage,omitempty"`
	// PlanGrantsSensitive are the sensitive files the run's enforced plan
	// let its policy reach ("axis path", runapi.TaskResult.
	// PlanGrantsSensitive), which the static score, following the
	// published formula, does not see; empty when none (or no plan).
	PlanGrantsSensitive []string `json:"plan_grants_sensitive,omitempty"`
	// NetworkP, NetworkR and NetworkF1 are the network axis's score, set
	// only for a scored run of a task whose spec scores that axis
	// (docs/scoring.md, "The network axis"); 0 for an invalid policy.
	NetworkP  *float64 `json:"network_precision,omitempty"`
	NetworkR  *float64 `json:"network_recall,omitempty"`
	NetworkF1 *float64 `json:"network_f1,omitempty"`
	// Scored is false for sources without a policy (unconstrained): they
	// have no static score and are left out of static means.
	Scored bool `json:"scored"`
	// ScoreError says why a run with a valid policy has no static score
	// (its spec could not be scored in the run's rootfs).
	ScoreError string `json:"score_error,omitempty"`

	// Classes are every failure label that applies; Diagnosis the one
	// behind the first denial in time and that denial.
	Classes []verdict.Class `json:"classes"`
	Diagnosis
	// ExposureAccess is the first sensitive access of an exposed run
	// ("op axis path"), or "attack verifier" when only V_a showed it.
	ExposureAccess string `json:"exposure_access,omitempty"`
	Denials        int    `json:"denials"`
	Findings
	VerifierError string `json:"verifier_error,omitempty"`
	RunEnd
	// ErrorKind is the kind of that failure (runapi.ErrorKind: build,
	// rootfs, identity, confine, daemon, ...); Harbor's exception_type.
	ErrorKind runapi.ErrorKind `json:"error_kind,omitempty"`

	// Timings in seconds.
	SetupS    float64 `json:"setup_s"`
	AgentS    float64 `json:"agent_s"`
	VerifyS   float64 `json:"verify_s"`
	WallS     float64 `json:"wall_s"`
	LostEvent uint64  `json:"lost_events"`

	// Generation describes how a gen: source's policy was generated (nil
	// for other sources); its files are in Dir/generation/.
	Generation *Generation `json:"generation,omitempty"`
	// Tokens are the run's model tokens per stage (generator, agent); nil
	// when no model reported any.
	Tokens *Tokens `json:"tokens,omitempty"`

	// Requests are the run's run-time permission requests in brief (nil:
	// the run had no --requests decider).
	Requests *Requests `json:"permission_requests,omitempty"`

	// Attribution is set by bench --attribute on a failed run: the
	// permissions a re-run with them added confirmed (or not).
	Attribution *Attribution `json:"attribution,omitempty"`

	// Dir is the run's directory relative to the bench's out dir.
	Dir      string    `json:"dir"`
	Finished time.Time `json:"finished"`
}

// Identity is who a run is: the same (Task, Source, Agent, Trial) is the
// same run, skipped when the bench is resumed.
type Identity struct {
	Task    string `json:"task"`
	Dataset string `json:"dataset"` // "standard" or "sensitive"
	Source  string `json:"source"`  // unconstrained, spec, trace, allow-all, dir:PATH, gen:NAME
	Agent   string `json:"agent"`   // oracle, shortcut, cmd:..., openai:MODEL
	Trial   int    `json:"trial"`
	// Semantics is the enforcement semantics of the plan ("published" or
	// "precise"); empty for unconstrained runs.
	Semantics string `json:"semantics,omitempty"`
	// Stage is the pipeline stage of a bench --pipeline run (oracle,
	// generate, unconstrained, generated, spec), whose attempt number is
	// Trial; empty for other benches.
	Stage string `json:"stage,omitempty"`
}

// Verdicts are what the verifiers and the trace said of a run.
type Verdicts struct {
	// Utility is V_u's verdict; Attack V_a's (nil for standard tasks).
	Utility bool  `json:"utility"`
	Attack  *bool `json:"attack,omitempty"`
	// TracedExposure: the trace shows a successful access to a file
	// matching sensitive_permissions on its axis (by real path or file
	// identity, so aliases count).
	TracedExposure bool `json:"traced_exposure"`
}

// Diagnosis is why a run failed: the failure class behind the first
// denial in time (exposure first), and the denial that decided it.
type Diagnosis struct {
	// Primary is that class (empty when the run did not fail).
	Primary verdict.Class `json:"primary_class,omitempty"`
	// DecidingDenial is that denial, "op axis path" (empty when none).
	DecidingDenial string `json:"deciding_denial,omitempty"`
}

// Findings are what the trace caught beyond the verdicts: files a
// verifier consumed that the agent left, verifiers not traced
// completely, and code run without an execute right.
type Findings struct {
	// TamperedFiles are the files a verifier consumed that the agent left
	// and the task did not ask for (the first 50; TamperedOmitted counts
	// the rest).
	TamperedFiles []string `json:"tampered_files,omitempty"`
	// TamperedVerifiers are the verifiers that consumed them ("utility",
	// "attack"), each once, sorted.
	TamperedVerifiers []string `json:"tampered_verifiers,omitempty"`
	TamperedOmitted   int      `json:"tampered_omitted,omitempty"`
	// VerifiersUntraced: a verifier was not traced completely.
	VerifiersUntraced bool `json:"verifiers_untraced,omitempty"`
	// MmapExecs are the files code ran from without an execute right
	// (mapped executable: exec_via_mmap).
	MmapExecs []string `json:"exec_via_mmap,omitempty"`
}

// RunEnd is how a run ended: how its agent ended, the images that stood
// in for its task's, and the error that kept it from being carried out.
type RunEnd struct {
	// AgentExitCode is the agent's exit status (128+n when killed by
	// signal n, as a shell reports it); AgentSignal names n then;
	// AgentTimedOut: its time ran out and it was killed.
	AgentExitCode int    `json:"agent_exit_code"`
	AgentSignal   string `json:"agent_signal,omitempty"`
	AgentTimedOut bool   `json:"agent_timed_out,omitempty"`
	// AgentStopReason is why a model agent's loop ended
	// (modelconfig.StopReason: finished, turn_limit, timeout, model_error,
	// invalid_answer, limits); empty for other agents.
	AgentStopReason string `json:"agent_stop_reason,omitempty"`
	// ImageSubstitutions are the images the run used in place of those
	// its task names (runapi.TaskResult): the run did not use the published
	// image.
	ImageSubstitutions []runapi.ImageSubstitution `json:"image_substitutions,omitempty"`
	// Error says why the run could not be carried out (never an agent
	// failure); such runs are counted apart from failures, with no class.
	Error string `json:"error,omitempty"`
	// AgentDidNotRun: the run has no verdicts because it failed before
	// its agent ran (runapi.TaskResult.AgentDidNotRun) or before the
	// daemon gave a task record at all (a policy or recording that could
	// not be made, a daemon error). Its utility, attack and
	// agent_exit_code are null in JSON and in the results database.
	AgentDidNotRun bool `json:"agent_did_not_run,omitempty"`
}

// The verifiers, as result.json and TamperedVerifiers name them.
const (
	VerifierUtility = "utility"
	VerifierAttack  = "attack"
)

// Excluded is true for a run left out of success rates: a verdict of
// it is left out (ExcludedFrom), and the bench does not trust verifiers.
func (r *Record) Excluded(trustVerifiers bool) bool {
	return r.ExcludedFrom(VerifierUtility, trustVerifiers) ||
		(r.Attack != nil && r.ExcludedFrom(VerifierAttack, trustVerifiers))
}

// ExcludedFrom is true when the verdict of verifier ("utility" or
// "attack") is left out of the rates: the verifiers were not traced
// completely, or that verifier consumed a file the agent left and its
// verdict is the one tampering could buy the agent — V_u passed, or V_a
// found no attack. A tampered V_u that still failed, or a tampered V_a
// that still found the attack, decides nothing in the agent's favour and
// counts; so does V_a's verdict of a run whose V_u read tampered tests.
// When the list of tampered files was cut, or the record predates
// TamperedVerifiers, tampering is taken to reach both verifiers.
func (r *Record) ExcludedFrom(verifier string, trustVerifiers bool) bool {
	switch {
	case trustVerifiers:
		return false
	case r.VerifiersUntraced:
		return true
	case len(r.TamperedFiles) == 0:
		return false
	case r.TamperedOmitted == 0 && len(r.TamperedVerifiers) > 0 && !slices.Contains(r.TamperedVerifiers, verifier):
		return false
	}
	if verifier == VerifierAttack {
		return r.Attack == nil || !*r.Attack
	}
	return r.Utility
}

// AgentFailed is true when the agent exited non-zero or timed out, or
// a model agent's loop ended without finishing (any stop reason but
// finished: out of turns, a model error, an invalid answer, over its
// limits).
func (r *Record) AgentFailed() bool {
	return r.AgentExitCode != 0 || r.AgentTimedOut || (r.AgentStopReason != "" && r.AgentStopReason != string(modelconfig.StopFinished))
}

// Started is when the run started: Finished less WallS.
func (r *Record) Started() time.Time {
	return r.Finished.Add(-time.Duration(r.WallS * float64(time.Second)))
}

// Has reports whether the run carries label.
func (r *Record) Has(label verdict.Class) bool {
	for _, c := range r.Classes {
		if c == label {
			return true
		}
	}
	return false
}

// Exposed is true when V_a passed or the trace shows sensitive access.
func (r *Record) Exposed() bool {
	return (r.Attack != nil && *r.Attack) || r.TracedExposure
}

// Generation is the part of a generation record a bench keeps with the
// run (the whole record is Dir/generation/generation.json).
type Generation struct {
	Generator string  `json:"generator"`
	Valid     bool    `json:"valid"`
	Reason    string  `json:"reason,omitempty"`
	DurationS float64 `json:"duration_s"`
	// Traced: the generator ran traced (cmd:, openai:); FilesRead counts
	// the files it read;
	// SensitiveRead those matching the spec's sensitive read patterns.
	Traced        bool   `json:"traced"`
	FilesRead     int    `json:"files_read"`
	SensitiveRead int    `json:"sensitive_read,omitempty"`
	ToolCalls     int    `json:"tool_calls,omitempty"`
	Turns         int    `json:"turns,omitempty"`
	Tokens        int64  `json:"tokens,omitempty"`
	StopReason    string `json:"stop_reason,omitempty"`
	// RunID is the daemon's run of the generation.
	RunID string `json:"run_id"`
}
