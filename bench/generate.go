package bench

import (
	"context"
	"errors"
	"fmt"
	"path"

	"github.com/authbench/authbench/generate/genname"
	"github.com/authbench/authbench/runapi"
	"github.com/authbench/authbench/tasks"
	"github.com/authbench/authbench/trial"
)

// generatedPolicy generates the policy of one run with s's generator
// through the daemon, keeps the generation's files in dir/generation/ and
// its summary in r.Generation (dir is under the out dir). An invalid answer is an invalid runPolicy
// (no doc: the agent does not run); the error is for a generation that
// could not be carried out.
func (b *bencher) generatedPolicy(ctx context.Context, t *tasks.Task, s Source, dir string, r *trial.Record) (runPolicy, error) {
	req := &runapi.RunRequest{Generate: &runapi.GenerateRequest{Dir: t.Dir, Generator: s.Generator, BaseMap: b.cfg.BaseMap}}
	if g, _ := genname.Parse(s.Generator); g.UsesModel() {
		if b.cfg.GenModel == nil {
			return runPolicy{}, fmt.Errorf("source %s: no model configuration", s.Name)
		}
		cfg := *b.cfg.GenModel
		cfg.Model = g.Model
		req.Generate.Model = &cfg
	}
	var final *runapi.Run
	var errs []error
	for try := 0; try < 2 && final == nil; try++ {
		run, err := runapi.RunGenerate(ctx, b.o.API, req)
		if err == nil && (run.GenerateResult == nil || run.GenerateResult.Error != "") {
			err = fmt.Errorf("generation %s ended %s: %s", run.ID, run.State, run.Error)
			if run.GenerateResult != nil && run.GenerateResult.ErrorKind != "" {
				err = runapi.WithKind(run.GenerateResult.ErrorKind, err)
			}
		}
		if err != nil {
			errs = append(errs, err)
			if ctx.Err() != nil {
				break
			}
			continue
		}
		final = run
	}
	if final == nil {
		return runPolicy{}, runapi.WithKind(runapi.ErrorDaemon, fmt.Errorf("generate with %s: %w", s.Generator, errors.Join(errs...)))
	}
	if err := b.out.MkdirAll(path.Join(dir, runapi.GenerationDir)); err != nil {
		return runPolicy{}, diskError(err)
	}
	for _, f := range runapi.GenerationArtifacts {
		if f.Trial == "" {
			continue
		}
		data, err := runapi.ReadLog(ctx, b.o.API, final.ID, f.API)
		if err != nil {
			return runPolicy{}, err
		}
		if len(data) == 0 {
			continue
		}
		if err := b.out.WriteFile(path.Join(dir, f.Trial), data, 0o644); err != nil {
			return runPolicy{}, diskError(err)
		}
	}
	rec := final.GenerateResult
	g := &trial.Generation{Generator: s.Generator, Valid: rec.Valid, Reason: rec.Reason, DurationS: rec.DurationS,
		Traced: rec.Traced, FilesRead: len(rec.FilesRead), SensitiveRead: len(rec.SensitiveRead), ToolCalls: rec.ToolCalls, Turns: rec.Turns, StopReason: rec.StopReason, RunID: final.ID}
	if rec.Tokens != nil {
		g.Tokens = rec.Tokens.Total
	}
	r.Generation = g
	if gen, err := genname.Parse(s.Generator); err == nil {
		r.AddGenerationTokens(rec, gen.Model)
	}
	if !rec.Valid {
		return runPolicy{source: runapi.SourcePolicy, err: rec.Reason}, nil
	}
	return fromDocument(rec.Policy, s.Name, t.Spec), nil
}
