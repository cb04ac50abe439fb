package bench

import (
	"context"
	"errors"
	"fmt"
	"path"
	"strings"

	"go.uber.org/zap"

	"github.com/authbench/authbench/agent/agentname"
	"github.com/authbench/authbench/agent/modelconfig"
	"github.com/authbench/authbench/policy"
	"github.com/authbench/authbench/runapi"
	"github.com/authbench/authbench/tasks"
	"github.com/authbench/authbench/trial"
	"github.com/authbench/authbench/verdict"
)

// runPending carries out the pending runs: all at once for a bench of
// sources, stage by stage (trial.StageOrder) for a pipeline, whose replays
// under a generated policy need that stage's generations stored.
func (b *bencher) runPending(ctx context.Context, keys []Key) error {
	if b.cfg.Pipeline == nil {
		return b.runAll(ctx, keys)
	}
	for _, stage := range trial.StageOrder {
		var these []Key
		for _, k := range keys {
			if b.stages[k] == stage {
				these = append(these, k)
			}
		}
		if len(these) == 0 {
			continue
		}
		b.o.Log.Info("pipeline stage", zap.String("stage", stage), zap.Int("runs", len(these)))
		if err := b.runAll(ctx, these); err != nil {
			return fmt.Errorf("stage %s: %w", stage, err)
		}
	}
	return nil
}

// planned lists the bench's runs, with each pipeline run's stage.
func (b *bencher) planned(ts []*tasks.Task) []Key {
	if b.cfg.Pipeline == nil {
		return planRuns(ts, b.cfg.Sources, b.cfg.Agent, b.cfg.Trials)
	}
	keys, stages := b.cfg.Pipeline.plan(ts)
	b.stages = stages
	return keys
}

// modelFor is the model configuration of the agent: nil for an agent
// without a model; a pipeline's executors share Config.Model's endpoint,
// each with its own model name.
func (b *bencher) modelFor(agent string) *modelconfig.Config {
	if b.cfg.Pipeline == nil || b.cfg.Model == nil {
		return b.cfg.Model
	}
	n, err := agentname.Parse(agent)
	if !n.TakesModel() || err != nil {
		return nil
	}
	cfg := *b.cfg.Model
	cfg.Model = n.Model
	return &cfg
}

// scoreGeneration finishes a trial.StageGenerate run: no agent runs; the
// generated policy is scored against the spec in the task's image (no
// score when the image is not at hand: a bench through a daemon), an
// invalid one classified invalid_policy and scored 0.
func (b *bencher) scoreGeneration(ctx context.Context, t *tasks.Task, rp runPolicy, r *trial.Record) {
	r.AgentDidNotRun = true
	if !rp.valid {
		r.Classes, r.Primary = []verdict.Class{verdict.ClassInvalidPolicy}, verdict.ClassInvalidPolicy
		trial.FillScore(r, nil, rp.trial(), t.Spec)
		return
	}
	var sc *policy.Score
	if b.o.ImageRoot == nil {
		r.ScoreError = "the task image is not at hand (a bench through a daemon): the generated policy is not scored"
	} else if root, err := b.imageRoot(ctx, t); err != nil {
		r.ScoreError = fmt.Sprintf("the task image: %v", err)
	} else if sc, err = policy.ScorePolicy(rp.pol, t.Spec, root); err != nil {
		r.ScoreError = err.Error()
	}
	trial.FillScore(r, sc, rp.trial(), t.Spec)
}

// stagedGenSource is a generator's policy in a pipeline's replays: the
// policy of the first trial.StageGenerate attempt of the task whose policy is
// valid. When none is, the replay is an invalid policy (invalid_policy,
// scored 0, the agent does not run): a generator that timed out, refused
// or answered no policy on every attempt is counted as failing the task.
type stagedGenSource struct {
	b *bencher
	s Source
}

func (g stagedGenSource) Name() string { return g.s.Name }

func (g stagedGenSource) PolicyFor(_ context.Context, t *tasks.Task, tr runTrial) (runPolicy, error) {
	var reasons []string
	var notRun error
	for a := 1; a <= g.b.cfg.Pipeline.attempts(trial.StageGenerate); a++ {
		k := Key{Task: t.Name, Source: g.s.Name, Agent: runapi.AgentNone, Trial: a}
		rec, err := g.b.store.Record(k)
		if err != nil {
			return runPolicy{}, err
		}
		switch {
		case rec == nil || rec.Error != "":
			why := "not stored"
			if rec != nil {
				why = rec.Error
			}
			notRun = errors.Join(notRun, fmt.Errorf("generation attempt %d: %s", a, why))
			continue
		case !rec.PolicyValid:
			reasons = append(reasons, fmt.Sprintf("attempt %d: %s", a, rec.PolicyError))
			continue
		}
		doc, err := g.b.out.ReadFile(path.Join(rec.Dir, "authbench", "policy.json"))
		if err != nil {
			return runPolicy{}, fmt.Errorf("the policy of generation attempt %d: %w", a, err)
		}
		if tr.Record != nil && rec.Generation != nil {
			gen := *rec.Generation
			tr.Record.Generation = &gen
		}
		rp := fromDocument(doc, g.s.Name, t.Spec)
		rp.generated = true
		return rp, nil
	}
	if notRun != nil {
		return runPolicy{}, runapi.WithKind(runapi.ErrorDaemon, fmt.Errorf("no valid generated policy, and some attempts were not carried out: %w", notRun))
	}
	return runPolicy{source: runapi.SourcePolicy, generated: true,
		err: "no generation attempt gave a valid policy: " + strings.Join(reasons, "; ")}, nil
}

// generationVerdict is a generation attempt's outcome on a progress
// line: its policy's validity and static recall and precision per axis.
func generationVerdict(r *trial.Record) string {
	switch {
	case !r.PolicyValid:
		return "no valid policy, " + string(verdict.ClassInvalidPolicy)
	case !r.Scored:
		return "policy valid, not scored: " + r.ScoreError
	}
	return fmt.Sprintf("policy valid, recall r/w/x %.2f/%.2f/%.2f, precision %.2f/%.2f/%.2f",
		r.ReadR, r.WriteR, r.ExecR, r.ReadP, r.WriteP, r.ExecP)
}
