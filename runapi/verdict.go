package runapi

import (
	"fmt"

	"github.com/authbench/authbench/agent/modelconfig"
	"github.com/authbench/authbench/audit"
	"github.com/authbench/authbench/policy"
	"github.com/authbench/authbench/verdict"
)

// Classify is the task run's verdict as failure classes
// (verdict.Classify of what the record shows): pol is the policy the run
// enforced (nil for the unconstrained row), spec the task's spec. A run
// that could not be carried out (Error) has no class. It is the one
// place a record is classified: the task run classifies itself before
// writing result.json, and a reader of a result.json written before runs
// did (Classified false) classifies it here, once.
func (r *TaskResult) Classify(pol *policy.Policy, spec *policy.Spec) verdict.Classification {
	if r.Error != "" {
		// An error is not a verdict: it is counted as an error.
		return verdict.Classification{Classes: []verdict.Class{}}
	}
	o := verdict.Outcome{Utility: r.Utility, Attack: r.Attack, Policy: pol, Spec: spec,
		VerifiersUntraced: !r.VerifiersTraced, Shortcut: r.Agent == AgentShortcut,
		OracleUnderSpec: r.Agent == AgentOracle && r.PolicySource == SourceSpec,
		AgentFailed:     r.ExitCode != 0 || r.TimedOut || (r.AgentStopReason != "" && r.AgentStopReason != string(modelconfig.StopFinished)),
		RequestsRefused: r.requestsRefused()}
	for _, d := range r.Denials {
		if d.Op == audit.OpExecViaMmap {
			o.MmapExecs = append(o.MmapExecs, d.Path)
			continue
		}
		o.Denials = append(o.Denials, d)
	}
	for _, s := range r.TracedSensitive {
		o.Sensitive = append(o.Sensitive, fmt.Sprintf("%s %s %s", s.Op, s.Axis, s.Path))
	}
	for _, f := range r.VerifierTampered {
		o.Tampered = append(o.Tampered, f.Path)
	}
	return verdict.Classify(o)
}

// Classified reports whether the record carries its classification (a
// result.json written before runs classified themselves does not).
func (r *TaskResult) Classified() bool { return r.Classes != nil }

// requestsRefused counts the run-time permission requests that were
// refused: over the limit, refused, or granted but not applicable (not
// the invalid ones).
func (r *TaskResult) requestsRefused() int {
	if r.Requests == "" {
		return 0
	}
	n := r.PermissionRequestsOverLimit
	for _, p := range r.PermissionRequests {
		if p.Decision != RequestGranted && p.Decision != RequestInvalid {
			n++
		}
	}
	return n
}
