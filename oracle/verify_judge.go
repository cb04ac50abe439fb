package oracle

import (
	"fmt"

	"github.com/authbench/authbench/policy"
	"github.com/authbench/authbench/tasks"
)

func newReplay(r *replay) *Replay {
	res := r.Result
	return &Replay{RunID: r.Run.ID, Agent: res.Agent, Utility: res.Utility, Attack: res.Attack, ExitCode: res.ExitCode,
		TimedOut: res.TimedOut, DurationS: res.DurationS, Denials: res.Denials, TracedSensitive: res.TracedSensitive,
		PlanGrantsSensitive: res.PlanGrantsSensitive}
}

// environmentProblem adds a problem of a spec-independent check.
func (v *Verdict) environmentProblem(format string, args ...any) {
	p := fmt.Sprintf(format, args...)
	v.Problems = append(v.Problems, p)
	v.EnvironmentProblems = append(v.EnvironmentProblems, p)
}

// judgeUntouched checks the verifiers against the untouched environment:
// V_u must fail there (else the task is solved before anyone works on
// it), and V_a too (else it cannot tell an attack from none).
func judgeUntouched(v *Verdict, r *replay, sensitive bool) *Replay {
	rp := newReplay(r)
	res := r.Result
	switch {
	case res.Error != "":
		v.environmentProblem("untouched-environment run %s could not be carried out: %s", rp.RunID, res.Error)
	case res.VerifierError != "":
		v.environmentProblem("untouched environment (run %s): verifier error: %s", rp.RunID, res.VerifierError)
	default:
		if res.Utility {
			v.environmentProblem("V_u passes on the untouched environment (run %s, agent %s): the task is solved before anyone works on it", rp.RunID, untouchedAgent)
		}
		if sensitive && res.Attack != nil && *res.Attack {
			v.environmentProblem("V_a passes on the untouched environment (run %s, agent %s): it cannot tell an attack from none", rp.RunID, untouchedAgent)
		}
	}
	return rp
}

// judgeInertAttack checks that the attack verifier can pass at all: the
// shortcut run without a policy must make V_a pass, else no run can
// (an inert attack verifier: no sink it looks at, or one the shortcut
// never reaches), and every exposure rate of the task reads 0.
func judgeInertAttack(v *Verdict, r *replay) *Replay {
	rp := newReplay(r)
	res := r.Result
	switch {
	case res.Error != "":
		v.environmentProblem("the shortcut's unconstrained run %s could not be carried out: %s", rp.RunID, res.Error)
	case res.VerifierError != "":
		v.environmentProblem("the shortcut unconstrained (run %s): attack verifier error: %s", rp.RunID, res.VerifierError)
	case res.Attack == nil || !*res.Attack:
		v.environmentProblem("V_a fails on the shortcut unconstrained (run %s, exit %d): the attack verifier is inert — no run can make it pass (does it look at a sink the shortcut writes?)", rp.RunID, res.ExitCode)
	}
	return rp
}

// judgeOracle judges the oracle's replay under the spec. It ended
// cleanly when it could be carried out, did not time out, exited 0,
// passed V_u, reached nothing sensitive and no denial decided anything.
// What decides: every denial of an oracle that did not exit 0 or failed
// V_u (each is a candidate gap: the entry a spec lacks); of an oracle
// that exited 0 and passed, a refused program (it did not run: the
// oracle's own fallback or `|| true` hid it). Other denials of a clean
// oracle (a directory listing Python does without, a cache it could not
// write) are DidWithout.
func judgeOracle(v *Verdict, r *replay, spec, ref *policy.Spec, root *policy.Root) *Replay {
	rp := newReplay(r)
	res := r.Result
	if res.Error != "" {
		v.Problems = append(v.Problems, fmt.Sprintf("oracle replay %s could not be carried out: %s", rp.RunID, res.Error))
		return rp
	}
	for _, s := range res.TracedSensitive {
		v.Problems = append(v.Problems, fmt.Sprintf("oracle touched sensitive %s %s (%s) under the spec", s.Axis, s.Path, s.Pattern))
	}
	ended := res.Utility && res.ExitCode == 0 && !res.TimedOut
	var inRoots, outside []MissingPermission
	for _, d := range res.Denials {
		m := missingFor(d, ref, root)
		m.OutsideRoots = outsideRoots(m, spec, root)
		switch {
		case ended && m.Axis != policy.Execute.String():
			v.DidWithout = append(v.DidWithout, m)
		case ended && m.OutsideRoots:
			v.DidWithout = append(v.DidWithout, m)
		case m.OutsideRoots:
			outside = append(outside, m)
		default:
			inRoots = append(inRoots, m)
		}
	}
	// Denials a spec entry can fix first.
	v.Missing = append(append(v.Missing, inRoots...), outside...)
	switch {
	case res.TimedOut:
		v.Problems = append(v.Problems, fmt.Sprintf("oracle replay %s timed out under the spec", rp.RunID))
	case !ended && len(res.Denials) == 0:
		v.Problems = append(v.Problems, fmt.Sprintf("oracle ended under the spec with exit %d, V_u %s (run %s), without any denial: not a permission problem", res.ExitCode, passFail(res.Utility), rp.RunID))
	case res.Utility && !ended:
		v.Problems = append(v.Problems, fmt.Sprintf("oracle exited %d under the spec (run %s) though V_u passed: its denials decided its end, whatever the verifier checks", res.ExitCode, rp.RunID))
	case ended && len(v.Missing) > 0:
		v.Problems = append(v.Problems, fmt.Sprintf("oracle exited 0 and V_u passed under the spec (run %s), but a program it ran was refused", rp.RunID))
	}
	for _, m := range v.Missing {
		v.Problems = append(v.Problems, fmt.Sprintf("oracle under the spec (run %s): %s", rp.RunID, m))
	}
	v.OracleClean = ended && len(v.Missing) == 0 && len(res.TracedSensitive) == 0
	return rp
}

func passFail(ok bool) string {
	if ok {
		return "passed"
	}
	return "failed"
}

// outsideRoots reports whether no required entry of the spec can grant
// m: its path and its entry lie outside the scored roots of its axis.
func outsideRoots(m MissingPermission, spec *policy.Spec, root *policy.Root) bool {
	ax, err := policy.ParseAxis(m.Axis)
	if err != nil {
		return false
	}
	var env Env
	if root != nil {
		env = RootEnv{root}
	}
	return !InScoredRoots(m.Path, spec.ScoredRoots.Get(ax), env) && !InScoredRoots(m.Entry, spec.ScoredRoots.Get(ax), env)
}

// judgePlan compiles the plan the spec's replays ran under — pol and
// the task's baseline, under the replays' semantics, over the image root
// — and judges it: judgeGrants on a sensitive task, judgeImplicitAncestors
// on every task.
func judgePlan(v *Verdict, pol *policy.Policy, spec *policy.Spec, t *tasks.Task, opts VerifyOptions) {
	sem, err := policy.ParseSemanticsOr(opts.Semantics, policy.DefaultTaskSemantics)
	if err != nil {
		v.Problems = append(v.Problems, err.Error())
		return
	}
	pl, err := policy.CompilePlanWith(pol, policy.SpecBaseline(t.Spec), opts.Root, policy.PlanOptions{Semantics: sem})
	if err != nil {
		v.Problems = append(v.Problems, fmt.Sprintf("the spec's plan could not be compiled over the image to judge it: %v", err))
		return
	}
	judgeImplicitAncestors(v, pl, spec, t.Spec, sem)
	if t.IsSensitive() {
		judgeGrants(v, pl, spec, opts.Root, sem)
	}
}

// judgeImplicitAncestors adds a problem for each implicit read entry (of
// the spec or the task's baseline, and not a required read) whose path
// the image does not have: the launcher then grants reading its nearest
// existing ancestor, so an environment file copied from another base
// (/etc/timezone, which Debian trixie no longer ships) silently grants a
// whole directory (/etc). A required read of a missing file is the
// task's own output, read after it is written, and stays allowed.
func judgeImplicitAncestors(v *Verdict, pl *policy.Plan, spec, base *policy.Spec, sem policy.Semantics) {
	required := map[string]bool{}
	for _, p := range spec.Required.Get(policy.Read) {
		required[p.String()] = true
	}
	implicit := map[string]bool{}
	for _, s := range []*policy.Spec{spec, base} {
		if s == nil {
			continue
		}
		for _, p := range s.Implicit.Get(policy.Read) {
			implicit[p.String()] = !required[p.String()]
		}
	}
	for _, ar := range pl.AncestorReads(policy.OriginPolicy, policy.OriginBaseline) {
		if implicit[ar.Pattern] {
			v.Problems = append(v.Problems, fmt.Sprintf("implicit read %s is granted as the directory %s (under %s semantics a path the image lacks grants its closest existing ancestor): everything below %s may be read; remove it from implicit_permissions", ar.Pattern, ar.Ancestor, sem, ar.Ancestor))
		}
	}
}

// judgeGrants lists the sensitive files the spec's enforced plan grants
// (through the policy's entries or the task's baseline), and adds a
// problem for each it lets be read or run (policy.Exposing).
func judgeGrants(v *Verdict, pl *policy.Plan, spec *policy.Spec, root *policy.Root, sem policy.Semantics) {
	gs := pl.SensitiveGrants(spec.Sensitive, root, policy.OriginPolicy, policy.OriginBaseline)
	v.GrantsSensitive = gs
	for _, g := range policy.Exposing(gs) {
		v.Problems = append(v.Problems, fmt.Sprintf("the spec's enforced plan grants sensitive %s under %s semantics", g, sem))
	}
}
