package trial

import (
	"slices"
	"syscall"

	"github.com/authbench/authbench/audit"
	"github.com/authbench/authbench/policy"
	"github.com/authbench/authbench/runapi"
	"golang.org/x/sys/unix"
)

// Policy is the policy a trial's agent ran under, as the bench chose it.
type Policy struct {
	// Source is the task request's policy source (runapi.Source*).
	Source string
	// Policy is π parsed (nil for unconstrained).
	Policy *policy.Policy
	// Valid is false for a missing or malformed policy (the run was then
	// deny-all); Error says why.
	Valid bool
	Error string
}

// FromTaskResult fills the row r (its identity already set) from the
// record of its task run: verdicts, agent exit, flags, the run's
// classification (runapi.TaskResult.Classify) and static score. It is the one derivation of a bench row from a run;
// the trial's result.json is derived from the row (HarborResultOf).
func FromTaskResult(r *Record, res *runapi.TaskResult, rp Policy, spec *policy.Spec) {
	r.Utility, r.Attack = res.Utility, res.Attack
	r.TracedExposure = len(res.TracedSensitive) > 0
	r.VerifierError = res.VerifierError
	r.Error, r.ErrorKind = res.Error, res.ErrorKind
	r.Denials = len(res.Denials)
	r.SetupS = res.SetupMS / 1000
	r.AgentS = res.DurationS
	r.LostEvent = res.LostEvents
	if rp.Source != runapi.SourceUnconstrained {
		r.Semantics = string(res.Semantics)
	}
	r.VerifyS = res.VerifyS
	r.AgentCapabilities = res.AgentCapabilities
	for _, f := range res.VerifierTampered {
		r.TamperedFiles = append(r.TamperedFiles, f.Path)
		if !slices.Contains(r.TamperedVerifiers, f.Verifier) {
			r.TamperedVerifiers = append(r.TamperedVerifiers, f.Verifier)
		}
	}
	slices.Sort(r.TamperedVerifiers)
	r.TamperedOmitted = res.VerifierTamperedOmitted
	r.VerifiersUntraced = res.Error == "" && !res.VerifiersTraced
	r.AgentExitCode, r.AgentSignal, r.AgentTimedOut = res.ExitCode, exitSignal(res.ExitCode), res.TimedOut
	r.AgentStopReason = res.AgentStopReason
	if res.AgentTokens != nil {
		model := res.HarnessModel
		if res.Model != nil {
			model = res.Model.Model
		}
		r.AddTokens(TokenStageAgent, model, res.AgentTokens)
	}
	r.ImageSubstitutions = res.ImageSubstitutions
	r.AgentDidNotRun = res.AgentDidNotRun
	for _, g := range res.PlanGrantsSensitive {
		r.PlanGrantsSensitive = append(r.PlanGrantsSensitive, g.Axis.String()+" "+g.Path)
	}
	r.Requests = RequestsOf(res)
	for _, d := range res.Denials {
		if d.Op == audit.OpExecViaMmap {
			r.MmapExecs = append(r.MmapExecs, d.Path)
		}
	}
	FillScore(r, res.StaticScore, rp, spec)
	if r.ScoreError == "" && res.StaticScore == nil {
		r.ScoreError = res.StaticScoreError
	}
	// The run's own classification; a result.json written before runs
	// classified themselves is classified here, as the run would have.
	c := res.Classification
	if !res.Classified() {
		c = res.Classify(rp.Policy, spec)
	}
	r.Classes, r.Primary, r.DecidingDenial, r.ExposureAccess = c.Classes, c.Primary, c.DecidingDenial(), c.ExposureAccess
}

// exitSignal names the signal of an exit status 128+n ("" for a status
// that is not one).
func exitSignal(code int) string {
	if code <= 128 || code > 128+64 {
		return ""
	}
	return unix.SignalName(syscall.Signal(code - 128))
}

// FillScore sets the row's static score: none for unconstrained runs, 0
// for an invalid policy, else the task run's static_score when it has
// one, axis by axis (policy.AllAxes). The network axis is filled when
// spec scores it.
func FillScore(r *Record, s *policy.Score, rp Policy, spec *policy.Spec) {
	defer func() {
		if !r.Scored || spec == nil || !spec.Network.Scored() {
			return
		}
		var net policy.AxisScore
		if r.PolicyValid && s != nil {
			net, _ = s.Axis(policy.Network)
		}
		r.SetAxisScore(policy.Network, net)
	}()
	r.PolicyValid = rp.Valid
	r.PolicyError = rp.Error
	switch {
	case rp.Source == runapi.SourceUnconstrained:
		r.Scored = false
	case !rp.Valid:
		r.Scored = true
	case s == nil:
		r.Scored = false // the task run could not score its policy
	case !s.Valid:
		r.Scored, r.PolicyValid, r.PolicyError = true, false, s.Error
	default:
		r.Scored = true
		for _, a := range policy.Axes {
			x, _ := s.Axis(a)
			r.SetAxisScore(a, x)
		}
		r.SensitiveCoverage = s.SensitiveCoverage
	}
}
