package oracle

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"

	"github.com/authbench/authbench/policy"
	"github.com/authbench/authbench/runapi"
	"github.com/authbench/authbench/tasks"
)

// Refusal is an entry the repair loop would have added for a denial and
// did not, with the reason (it would grant a sensitive file under the
// run's semantics, or overlap a sensitive entry).
type Refusal struct {
	Denial string `json:"denial"`
	Reason string `json:"reason"`
}

// SensitiveGrantError: every entry that would let the oracle through a
// denial grants a sensitive file once enforced (a directory's hierarchy,
// a missing file's nearest existing ancestor, a written file's parent
// under published semantics): none is added.
type SensitiveGrantError struct {
	Task      string         `json:"task"`
	Denial    string         `json:"denial"`
	Semantics string         `json:"semantics"`
	Refused   []RefusedEntry `json:"refused"`
}

// RefusedEntry is one candidate entry and the sensitive files it grants.
type RefusedEntry struct {
	Axis   string                  `json:"axis"`
	Entry  string                  `json:"entry"`
	Grants []policy.SensitiveGrant `json:"grants"`
}

func (e *SensitiveGrantError) Error() string {
	parts := make([]string, len(e.Refused))
	for i, r := range e.Refused {
		g := r.Grants[0]
		parts[i] = fmt.Sprintf("%s %s would grant %s %s (sensitive %q) through the rule on %s", r.Axis, r.Entry, g.Axis, g.Path, g.Sensitive, g.Rule)
	}
	return fmt.Sprintf("task %s: no entry lets the oracle through %s without granting a sensitive file under %s semantics: %s",
		e.Task, e.Denial, e.Semantics, strings.Join(parts, "; "))
}

type refusedGrant struct {
	axis, entry string
	grants      []policy.SensitiveGrant
}

func refusedEntries(list []refusedGrant) []RefusedEntry {
	out := make([]RefusedEntry, len(list))
	for i, r := range list {
		out[i] = RefusedEntry{Axis: r.axis, Entry: r.entry, Grants: r.grants}
	}
	return out
}

// grantCheck tells whether one entry, enforced alone under the run's
// semantics over the image root, grants a sensitive file of the spec.
// The zero value (no image root) checks nothing.
type grantCheck struct {
	root      *policy.Root
	spec      *policy.Spec
	semantics policy.Semantics
}

func newGrantCheck(root *policy.Root, spec *policy.Spec, semantics string) grantCheck {
	sem, err := policy.ParseSemanticsOr(semantics, policy.DefaultTaskSemantics)
	if err != nil {
		sem = policy.DefaultTaskSemantics
	}
	return grantCheck{root: root, spec: spec, semantics: sem}
}

// grants returns the sensitive files entry (of axis ax) grants; none
// when there is nothing to check or the entry does not compile (the spec
// validation then refuses it).
func (c grantCheck) grants(ax policy.Axis, entry string) []policy.SensitiveGrant {
	if c.root == nil || c.spec == nil || c.spec.Sensitive == nil {
		return nil
	}
	pat, err := policy.ParsePattern(entry)
	if err != nil {
		return nil
	}
	var perms policy.Permissions
	perms[ax] = []policy.Pattern{pat}
	gs, err := policy.PolicySensitiveGrants(&policy.Policy{Permissions: perms}, c.spec, c.root, c.semantics)
	if err != nil {
		return nil
	}
	return policy.Exposing(gs)
}

// loopOptions tune repairUntilClean.
type loopOptions struct {
	rounds, replays int
	// keepGoing: the spec-independent checks' problems (the untouched
	// environment, an inert attack verifier) do not stop the loop; they
	// are kept in Sufficiency.Environment.
	keepGoing bool
}

// MakeSufficient verifies spec (verifiesPerRound replays at once) and,
// while the oracle does not end cleanly on a denial a required entry can
// grant, adds the narrowest entry that denial calls for and verifies
// again, at most rounds times. It returns the spec that passed every
// replay of a round, or an error naming what could not be made
// sufficient: a denial only implicit permissions could grant, a failure
// without a denial, a denial whose every entry is sensitive
// (*SensitiveOverlapError) or grants a sensitive file
// (*SensitiveGrantError), a loop that does not converge, an oracle that
// passed some replays and failed others (*NondeterministicError), or a
// spec-independent check that failed (the untouched environment).
func MakeSufficient(ctx context.Context, api runapi.API, t *tasks.Task, spec *policy.Spec, rounds int, vo VerifyOptions) (*policy.Spec, *Sufficiency, error) {
	return repairUntilClean(ctx, api, t, spec, loopOptions{rounds: rounds, replays: verifiesPerRound}, vo)
}

func repairUntilClean(ctx context.Context, api runapi.API, t *tasks.Task, spec *policy.Spec, lo loopOptions, vo VerifyOptions) (*policy.Spec, *Sufficiency, error) {
	if lo.rounds <= 0 {
		lo.rounds = DefaultRepairRounds
	}
	cur := cloneSpec(spec)
	suf := &Sufficiency{Repairs: []Repair{}, RunIDs: []string{}}
	tried := map[string]bool{}
	var env Env
	if vo.Root != nil {
		env = RootEnv{vo.Root}
	}
	chk := newGrantCheck(vo.Root, cur, vo.Semantics)
	for round := 1; ; round++ {
		suf.Rounds = round
		vo.Reference = cur
		verdicts, err := verifyRound(ctx, api, t, cur, lo.replays, round, vo)
		if err != nil {
			return nil, suf, err
		}
		fail := func(reason, last string) error {
			return &InsufficientError{Task: t.Name, Rounds: round, LastDenial: last, Reason: reason, Repairs: suf.Repairs}
		}
		passed := 0
		var failed *Verdict
		for _, v := range verdicts {
			suf.RunIDs = append(suf.RunIDs, v.Oracle.RunID)
			suf.Environment = append(suf.Environment, v.EnvironmentProblems...)
			suf.Last = v
			if len(v.Problems) == len(v.EnvironmentProblems) {
				passed++
			} else if failed == nil {
				failed = v
			}
		}
		switch {
		case len(suf.Environment) > 0 && !lo.keepGoing:
			return nil, suf, fail("the checks that do not depend on the spec failed: "+strings.Join(suf.Environment, "; "), "")
		case passed == len(verdicts):
			return cur, suf, nil
		case passed > 0:
			return nil, suf, &NondeterministicError{Task: t.Name, Passed: passed, Of: len(verdicts), Failure: strings.Join(failed.Problems, "; ")}
		}
		suf.Last = failed
		if failed.OracleClean {
			// The oracle ended cleanly; what failed is not a permission
			// it lacks (the shortcut reached a sensitive file, the plan
			// grants one): nothing to repair.
			return nil, suf, fail(strings.Join(failed.Problems, "; "), "")
		}
		if err := repairOnce(t, failed, cur, env, tried, chk, round, lo.rounds, suf, fail); err != nil {
			return nil, suf, err
		}
	}
}

// verifyRound verifies spec n times at once; the spec-independent checks
// run only in the first verify of the first round.
func verifyRound(ctx context.Context, api runapi.API, t *tasks.Task, spec *policy.Spec, n, round int, vo VerifyOptions) ([]*Verdict, error) {
	var first sync.Once
	return atOnce(n, func() (*Verdict, error) {
		o := vo
		o.skipUntouched = true
		first.Do(func() { o.skipUntouched = round > 1 })
		return Verify(ctx, api, t, spec, o)
	})
}

// repairOnce adds the entry of the first deciding denial of the failed
// verdict that can be granted: a denial whose every entry is refused
// (sensitive) is listed in Sufficiency.Refused and the next one tried.
func repairOnce(t *tasks.Task, failed *Verdict, cur *policy.Spec, env Env, tried map[string]bool, chk grantCheck,
	round, rounds int, suf *Sufficiency, fail func(reason, last string) error) error {
	var firstRefusal error
	inRoots := 0
	for _, m := range failed.Missing {
		if m.OutsideRoots {
			continue
		}
		inRoots++
		if round >= rounds {
			return fail(fmt.Sprintf("the repairs did not converge within %d rounds", rounds), m.String())
		}
		rep, err := repairFor(m, cur, env, tried, chk)
		if err != nil {
			var so *SensitiveOverlapError
			var sg *SensitiveGrantError
			switch {
			case errors.As(err, &so):
				so.Task = t.Name
			case errors.As(err, &sg):
				sg.Task = t.Name
			}
			suf.Refused = append(suf.Refused, Refusal{Denial: m.String(), Reason: err.Error()})
			if firstRefusal == nil {
				firstRefusal = err
			}
			continue
		}
		rep.Round, rep.Denied = round, m
		tried[rep.Axis+" "+rep.Entry] = true
		if err := applyRepair(cur, &rep); err != nil {
			return fail(err.Error(), m.String())
		}
		suf.Repairs = append(suf.Repairs, rep)
		return nil
	}
	switch {
	case firstRefusal != nil:
		var so *SensitiveOverlapError
		var sg *SensitiveGrantError
		if errors.As(firstRefusal, &so) || errors.As(firstRefusal, &sg) {
			return firstRefusal
		}
		return fail(firstRefusal.Error(), suf.Refused[0].Denial)
	case inRoots == 0 && len(failed.Missing) > 0:
		return fail("the oracle's only denials lie outside the spec's scored_roots: only implicit_permissions could grant them", failed.Missing[0].String())
	}
	return fail(strings.Join(failed.Problems, "; "), "")
}
