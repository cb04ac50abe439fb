package generate

import (
	"context"
	"errors"
	"fmt"
	"os"
	"time"

	"go.uber.org/zap"

	"github.com/authbench/authbench/agent/modelconfig"
	"github.com/authbench/authbench/generate/genname"
	"github.com/authbench/authbench/policy"
	"github.com/authbench/authbench/runapi"
	"github.com/authbench/authbench/taskrun"
	"github.com/authbench/authbench/taskrun/explore"
)

// Options describe one generation.
type Options struct {
	// Run gives the task, the directory (Dir) and the collaborators of the
	// exploration run (Self, Images, Builder, BaseMap, Runc, Tracer,
	// MaxOutputBytes, Log, OnIdentity); its policy fields are not used.
	Run taskrun.Options
	// Generator is the generator's name (genname.Parse).
	Generator string
	// Timeout is a sandboxed generator's time (0: explore.DefaultTimeout).
	Timeout time.Duration
	// Model is an openai or st generator's endpoint and options (resolved, with
	// its API key; its Model is set from the generator's name). The
	// record keeps it redacted.
	Model *modelconfig.Config
}

// Run carries out one generation in o.Run.Dir and writes generation.json
// and policy.json there. A generator that fails (times out, is killed,
// exits non-zero, prints garbage or too much) gives an invalid record,
// not an error; the error is for a generation that could not be carried
// out (unknown generator, image build, rootfs), and the record then says
// why too (written whenever the directory is writable).
func Run(ctx context.Context, o Options) (*runapi.GenerationRecord, error) {
	t := o.Run.Task
	if o.Run.Log == nil {
		o.Run.Log = zap.NewNop()
	}
	rec := &runapi.GenerationRecord{Task: t.Name, Generator: o.Generator}
	if err := os.MkdirAll(o.Run.Dir, 0o750); err != nil {
		return nil, fmt.Errorf("generate %s: %w", t.Name, err)
	}
	start := time.Now()
	err := run(ctx, o, rec)
	rec.SensitiveRead = sensitiveRead(t.Spec, rec.FilesRead)
	if rec.DurationS == 0 {
		rec.DurationS = time.Since(start).Seconds()
	}
	if err != nil {
		rec.Error, rec.ErrorKind, rec.Valid, rec.Policy = err.Error(), runapi.KindOf(err), false, nil
		if rec.Reason == "" {
			rec.Reason = "the generation could not be carried out: " + err.Error()
		}
	}
	if werr := writeRecord(rec, o.Run.Dir); werr != nil {
		return rec, errors.Join(err, werr)
	}
	return rec, err
}

func run(ctx context.Context, o Options, rec *runapi.GenerationRecord) error {
	g, err := genname.Parse(o.Generator)
	if err != nil {
		return runapi.WithKind(runapi.ErrorTask, err)
	}
	t := o.Run.Task
	switch g.Kind {
	case genname.KindAllowAll:
		return acceptBuiltin(rec, AllowAll())
	case genname.KindSpec:
		if t.Spec == nil {
			return fmt.Errorf("generator spec: task %s has no permission spec", t.Name)
		}
		return acceptBuiltin(rec, SpecPolicy(t.Spec))
	case genname.KindHeuristic:
		img, err := taskrun.BuildImage(ctx, o.Run, o.Run.Dir)
		if err != nil {
			return err
		}
		root, err := policy.NewRoot(img.Rootfs)
		if err != nil {
			return err
		}
		return acceptBuiltin(rec, HeuristicFor(root, t.Instruction, img.Config.WorkingDir, imagePath(img.Config.Env), answersNetwork(t)))
	case genname.KindCmd:
		timeout := o.Timeout
		if timeout <= 0 {
			timeout = explore.DefaultTimeout
		}
		x, err := explore.Run(ctx, explore.Options{Options: o.Run, Command: g.Command, Input: InputFor(t), Timeout: timeout})
		if err != nil {
			return err
		}
		judgeExploration(rec, x, timeout.String(), t.Spec)
		return nil
	case genname.KindOpenAI:
		return runModel(ctx, o, g, rec)
	case genname.KindST:
		return runST(ctx, o, g, rec)
	}
	return fmt.Errorf("generator %q: not implemented", o.Generator)
}

// sensitiveRead are the files of read that match spec's sensitive read
// patterns.
func sensitiveRead(spec *policy.Spec, read []string) []string {
	if spec == nil || spec.Sensitive == nil {
		return nil
	}
	var out []string
	for _, f := range read {
		for _, p := range spec.Sensitive.Get(policy.Read) {
			if p.Match(f) {
				out = append(out, f)
				break
			}
		}
	}
	return out
}
