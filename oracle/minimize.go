package oracle

import (
	"context"
	"errors"
	"sync"

	"github.com/authbench/authbench/policy"
	"github.com/authbench/authbench/runapi"
	"github.com/authbench/authbench/tasks"
)

// DefaultParallel bounds the replays of a minimisation.
const DefaultParallel = 4

// Entry is one required entry of a spec.
type Entry struct {
	Axis    string `json:"axis"`
	Pattern string `json:"pattern"`
}

// Minimization is what dropping each required entry in turn showed.
type Minimization struct {
	// NotNeeded are entries without which the oracle still passed:
	// candidate over-grants.
	NotNeeded []Entry `json:"not_needed"`
	// NeverTouched are entries that matched none of the oracle's
	// accesses in the full replay.
	NeverTouched []Entry `json:"never_touched"`
	// Needed are entries without which the oracle failed.
	Needed   []Entry `json:"needed"`
	Replays  int     `json:"replays"`
	Parallel int     `json:"parallel"`
}

// Without returns spec with the i-th entry of axis ax dropped.
func Without(spec *policy.Spec, ax policy.Axis, i int) *policy.Spec {
	out := *spec
	out.Required = policy.Permissions{}
	for _, a := range policy.Axes {
		out.Required[a] = append([]policy.Pattern(nil), spec.Required[a]...)
	}
	out.Required[ax] = append(out.Required[ax][:i:i], spec.Required[ax][i+1:]...)
	return &out
}

// minimize replays the oracle once per required entry without it, at
// most opts.Parallel at a time. full is the oracle's replay under the
// whole spec.
func minimize(ctx context.Context, api runapi.API, t *tasks.Task, spec *policy.Spec, full *replay, opts VerifyOptions) (*Minimization, error) {
	par := opts.Parallel
	if par <= 0 {
		par = DefaultParallel
	}
	type job struct {
		ax policy.Axis
		i  int
	}
	var jobs []job
	for _, ax := range policy.Axes {
		for i := range spec.Required[ax] {
			jobs = append(jobs, job{ax, i})
		}
	}
	passed := make([]bool, len(jobs))
	errs := make([]error, len(jobs))
	sem := make(chan struct{}, par)
	var wg sync.WaitGroup
	for k, j := range jobs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			sem <- struct{}{}
			defer func() { <-sem }()
			r, err := runTask(ctx, api, t, opts.RunOptions, runapi.SourcePolicy, runapi.AgentOracle, SpecPolicy(Without(spec, j.ax, j.i), t.Spec))
			if err != nil {
				errs[k] = err
				return
			}
			passed[k] = r.Result.Error == "" && r.Result.Utility && r.Result.ExitCode == 0 && !r.Result.TimedOut && len(r.Result.TracedSensitive) == 0
		}()
	}
	wg.Wait()
	if err := errors.Join(errs...); err != nil {
		return nil, err
	}
	m := &Minimization{NotNeeded: []Entry{}, NeverTouched: []Entry{}, Needed: []Entry{}, Replays: len(jobs), Parallel: par}
	var env Env
	if opts.Root != nil {
		env = RootEnv{opts.Root}
	}
	acc := Derive(full.Events, env)
	for k, j := range jobs {
		e := Entry{Axis: j.ax.String(), Pattern: spec.Required[j.ax][j.i].String()}
		if passed[k] {
			m.NotNeeded = append(m.NotNeeded, e)
		} else {
			m.Needed = append(m.Needed, e)
		}
		if !touched(spec.Required[j.ax][j.i], acc.Sorted(j.ax)) {
			m.NeverTouched = append(m.NeverTouched, e)
		}
	}
	return m, nil
}

func touched(p policy.Pattern, paths []string) bool {
	for _, q := range paths {
		if p.Match(q) {
			return true
		}
	}
	return false
}
