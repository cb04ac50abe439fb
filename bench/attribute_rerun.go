package bench

import (
	"context"
	"encoding/json"
	"fmt"
	"path"
	"slices"
	"strings"
	"time"

	"go.uber.org/zap"

	"github.com/authbench/authbench/policy"
	"github.com/authbench/authbench/runapi"
	"github.com/authbench/authbench/trial"
	"github.com/authbench/authbench/verdict"
)

// attribute re-runs one failed run with the permissions its denials
// call for added (roundGrants), and again with each next re-run's, until
// a re-run passes or MaxAttributionRounds; then stores the run with its
// attribution.
//
// A chain of denials that each re-run reveals one at a time (a C build:
// gcc, cc1, as, collect2, ld; git's helpers) would use up the rounds, so
// when a re-run fails again on a path the task requires, or nothing new
// is left to add, the next re-run adds every entry of the task's
// required_permissions the policy lacks at once. When that re-run passes,
// the entries its trace did not use are dropped and a last re-run with
// exactly the used ones confirms them (confirmUsed).
func (b *bencher) attribute(ctx context.Context, r *trial.Record) error {
	if mark, _ := attributionStart(r); mark != nil {
		r.Attribution = mark
		return b.store.PutTrial(r, r.Started(), b.tasks[r.Task].Dir)
	}
	t := b.tasks[r.Task]
	pol, err := b.runPolicy(r)
	if err != nil {
		return fmt.Errorf("attribute run %s: %w", keyOf(r), err)
	}
	x := &reruns{b: b, r: r, pol: pol, att: &trial.Attribution{Permissions: []string{}}}
	att := x.att
	started := time.Now()
	interp := b.interpreters(ctx, t)
	guard := b.grantGuard(ctx, t)
	grants := guard.filter(roundGrants(runDenials(b.out, r.Dir), r.DecidingDenial, pol, t.Spec, interp))
	leapt, leapNext := false, false
	last := r.DecidingDenial
	for att.Rounds < trial.MaxAttributionRounds {
		leap := false
		if (len(grants) == 0 || leapNext) && !leapt {
			grants = append(grants, guard.filter(requiredGrants(x.pol, t.Spec))...)
			leap, leapt = true, true
		}
		before := x.pol
		var added []grant
		if x.pol, added, err = withGrants(x.pol, grants); err != nil {
			att.Stop = err.Error()
			break
		}
		if len(added) == 0 {
			att.Stop = nothingLeft(last, guard.refused)
			break
		}
		att.Permissions = appendGrants(att.Permissions, added)
		rr, dir, err := x.rerun(ctx)
		if rr == nil && dir == "" {
			return err
		}
		if err != nil {
			att.Stop = "re-run could not be carried out: " + err.Error()
			break
		}
		if rerunPassed(rr) && leap {
			if rr, dir, err = x.confirmUsed(ctx, rr, dir, added, before); err != nil {
				return err
			}
			if att.Stop != "" {
				break
			}
		}
		if rerunPassed(rr) {
			att.Confirmed = true
			break
		}
		if rr.DecidingDenial == "" {
			att.Stop = "the re-run failed with no deciding denial (" + string(rr.Primary) + ")"
			break
		}
		last = rr.DecidingDenial
		grants = guard.filter(roundGrants(runDenials(b.out, dir), rr.DecidingDenial, x.pol, t.Spec, interp))
		// Failing again on a path the task requires: a chain of denials
		// that each re-run reveals one at a time.
		leapNext = slices.ContainsFunc(rr.Classes, verdict.Class.IsInsufficient)
	}
	if !att.Confirmed && att.Stop == "" {
		att.Stop = fmt.Sprintf("still failing after %d re-runs (last denial %s)", att.Rounds, last)
	}
	att.RerunS = time.Since(started).Seconds()
	att.Refused = guard.refused
	r.Attribution = att
	b.o.Log.Info("attributed", zap.Stringer("run", keyOf(r)), zap.Strings("permissions", att.Permissions), zap.Bool("confirmed", att.Confirmed))
	return b.store.PutTrial(r, r.Started(), t.Dir)
}

// rerunPassed: a re-run passed V_u and exposed nothing.
func rerunPassed(rr *trial.Record) bool { return rr.Utility && !rr.Exposed() }

// nothingLeft is why an attribution stops when a round would add
// nothing: last is the last deciding denial, refused the grants held
// back because they would reach a sensitive file.
func nothingLeft(last string, refused []string) string {
	if len(refused) > 0 {
		return fmt.Sprintf("nothing left to add that grants no sensitive file (%s); the last denial: %s", strings.Join(refused, "; "), last)
	}
	return fmt.Sprintf("nothing left to add: the policy holds what the last denial calls for (%s) and every required entry, and the re-run was still refused", last)
}

// reruns is one failed run's attribution under way: the run, the policy
// of its next re-run and the attribution so far.
type reruns struct {
	b   *bencher
	r   *trial.Record
	pol *policy.Policy
	att *trial.Attribution
}

// rerun runs the task once more under x.pol (the next round), in
// r.Dir/AttributionDir/round-N. A nil record with a nil error never
// happens; a nil record with an error and no dir is an error of the
// bench (disk, interrupt); with a dir, the re-run could not be carried
// out.
func (x *reruns) rerun(ctx context.Context) (*trial.Record, string, error) {
	x.att.Rounds++
	return x.rerunIn(ctx, path.Join(x.r.Dir, AttributionDir, fmt.Sprintf("round-%d", x.att.Rounds))) // under the out dir
}

// rerunIn runs the task once more under x.pol in dir (under the out
// dir), as rerun does; the requester's attempts use it too.
func (x *reruns) rerunIn(ctx context.Context, dir string) (*trial.Record, string, error) {
	r, b := x.r, x.b
	doc, err := json.Marshal(x.pol)
	if err != nil {
		return nil, "", err
	}
	rp := runPolicy{source: runapi.SourcePolicy, doc: doc, pol: x.pol, valid: true}
	if err := b.out.RemoveAll(dir); err != nil {
		return nil, "", err
	}
	if err := b.out.MkdirAll(dir); err != nil {
		return nil, "", diskError(err)
	}
	rr := &trial.Record{Identity: trial.Identity{Task: r.Task, Dataset: r.Dataset, Source: r.Source, Agent: r.Agent, Trial: r.Trial},
		Classes: []verdict.Class{}}
	if err := b.execute(ctx, b.tasks[r.Task], keyOf(r), rp, dir, rr); err != nil {
		if ctx.Err() != nil {
			return nil, "", context.Cause(ctx)
		}
		return nil, dir, err
	}
	if err := writeJSONFile(b.out, path.Join(dir, "record.json"), rr); err != nil {
		return nil, "", diskError(err)
	}
	return rr, dir, nil
}

// confirmUsed follows a passing re-run rr (its files in dir) that added
// every required entry the policy lacked at once (added, to before): it
// keeps of them those the re-run's trace used and, when that drops any,
// confirms exactly those with one more re-run, returned in rr's place.
// When no confirmation can be made it sets the attribution's Stop; the
// error is one of the bench.
func (x *reruns) confirmUsed(ctx context.Context, rr *trial.Record, dir string, added []grant, before *policy.Policy) (*trial.Record, string, error) {
	used := added
	if evs, err := runEvents(x.b.out, dir); err == nil {
		used = usedGrants(evs, added, before)
	}
	if len(used) == len(added) {
		return rr, dir, nil
	}
	x.att.Permissions = appendGrants(x.att.Permissions[:len(x.att.Permissions)-len(added)], used)
	pol, _, err := withGrants(before, used)
	if err != nil {
		return nil, "", err
	}
	x.pol = pol
	if x.att.Rounds >= trial.MaxAttributionRounds {
		x.att.Stop = fmt.Sprintf("the re-run with every required entry passed; no round was left to confirm the %d it used", len(used))
		return rr, dir, nil
	}
	next, nextDir, err := x.rerun(ctx)
	if next == nil && nextDir == "" {
		return nil, "", err
	}
	if err != nil {
		x.att.Stop = "re-run could not be carried out: " + err.Error()
		return rr, dir, nil
	}
	return next, nextDir, nil
}
