package bench

import (
	"context"
	"fmt"

	"github.com/authbench/authbench/policy"
	"github.com/authbench/authbench/runapi"
	"github.com/authbench/authbench/tasks"
	"github.com/authbench/authbench/trial"
)

// runTrial is the run a policy is asked for: its trial number, its
// trial directory (under the out dir) and its record, which a source that
// makes its policy (a generator) fills with how it did.
type runTrial struct {
	Number int
	Dir    string
	Record *trial.Record
}

// policySource is one policy source as a value: the policy of a task's
// run. A new source is one type implementing it, one entry of the
// vocabulary (runapi.SourceKinds) and one case of policySourceOf.
type policySource interface {
	// Name is the source as written (Source.Name), its runs' Source.
	Name() string
	// PolicyFor returns the policy the run tr of task t runs under; the
	// error is for a policy that could not be made (the run is stored
	// with it).
	PolicyFor(ctx context.Context, t *tasks.Task, tr runTrial) (runPolicy, error)
}

// policySourceOf is the factory: the value of the source s of b's
// benchmark.
func (b *bencher) policySourceOf(s Source) policySource {
	switch {
	case s.Generator != "":
		return genSource{b: b, s: s}
	case s.Dir != "":
		return dirSource{s: s}
	case s.Name == runapi.SourceTrace:
		return traceSource{b: b}
	}
	return fixedSource{name: s.Name}
}

// fixedSource is a source whose policy follows from the task alone:
// unconstrained, spec, allow-all.
type fixedSource struct{ name string }

func (f fixedSource) Name() string { return f.name }

func (f fixedSource) PolicyFor(_ context.Context, t *tasks.Task, _ runTrial) (runPolicy, error) {
	if f.name == runapi.SourceSpec {
		// The spec lint every command shares: a spec whose required
		// entries overlap its sensitive ones is no policy to run.
		if err := policy.LintSpec(t.Spec); err != nil {
			return runPolicy{}, runapi.WithKind(runapi.ErrorTask, fmt.Errorf("the spec source: %w", err))
		}
	}
	return Source{Name: f.name}.policyFor(t, nil), nil
}

// dirSource is policy files: dir:PATH runs PATH/<task>.json.
type dirSource struct{ s Source }

func (d dirSource) Name() string { return d.s.Name }

func (d dirSource) PolicyFor(_ context.Context, t *tasks.Task, _ runTrial) (runPolicy, error) {
	return d.s.dirPolicy(t.Name, t.Spec), nil
}

// traceSource is the spec's required set recorded from traced oracle
// runs, once per task.
type traceSource struct{ b *bencher }

func (traceSource) Name() string { return runapi.SourceTrace }

func (s traceSource) PolicyFor(ctx context.Context, t *tasks.Task, _ runTrial) (runPolicy, error) {
	return s.b.tracePolicy(ctx, t, Source{Name: runapi.SourceTrace})
}

// genSource is a generator's policy, generated per task and trial.
type genSource struct {
	b *bencher
	s Source
}

func (g genSource) Name() string { return g.s.Name }

func (g genSource) PolicyFor(ctx context.Context, t *tasks.Task, tr runTrial) (runPolicy, error) {
	rp, err := g.b.generatedPolicy(ctx, t, g.s, tr.Dir, tr.Record)
	rp.generated = true
	return rp, err
}
