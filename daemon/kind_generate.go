package daemon

import (
	"context"
	"math"
	"path/filepath"
	"time"

	"github.com/authbench/authbench/daemon/work"
	"github.com/authbench/authbench/runapi"
)

// generateKind is a permission generation (runapi.GenerateRequest,
// package generate behind Config.Work): a generator explores a fresh
// rootfs of the task's image under the generation policy, traced, and
// its answer is validated.
type generateKind struct{}

// validate checks a generation request: like a task run's, a caller that
// is not root may only use a trusted task dir; the generator name must
// parse, its own timeout be in range and its model fit it.
func (generateKind) validate(rec *runapi.RunRequest, c checkEnv) (kindState, error) {
	p := &generatePrepared{recorded: recorded{rec}}
	return p, p.check(c)
}

// check checks the generation and resolves its defaults into p.
func (p *generatePrepared) check(c checkEnv) error {
	if err := c.needWork("generate"); err != nil {
		return err
	}
	gr := *p.req.Generate
	p.req.Generate = &gr
	switch {
	case !filepath.IsAbs(gr.Dir):
		return badField("generate.dir", "must be an absolute path, got %q", gr.Dir)
	case math.IsNaN(gr.TimeoutSeconds) || gr.TimeoutSeconds < 0 || gr.TimeoutSeconds > runapi.MaxTimeoutSeconds:
		return badField("generate.timeout_s", "must be between 0 and %d", runapi.MaxTimeoutSeconds)
	}
	g, err := c.work.ParseGenerator(gr.Generator)
	if err != nil {
		return badField("generate.generator", "%v", err)
	}
	if c.peer.UID != 0 {
		if ferr := checkTrustedTaskDir(gr.Dir, c.trusted); ferr != nil {
			return ferr
		}
	}
	t, err := c.work.LoadTask(gr.Dir)
	if err != nil {
		return badField("generate.dir", "%v", err)
	}
	p.task = t
	return p.takeGeneratorModel(g)
}

// takeGeneratorModel checks the model of an openai:MODEL generator and
// moves it, with its API key, out of the request: what is recorded keeps
// it redacted.
func (p *generatePrepared) takeGeneratorModel(g work.Generator) error {
	gr := *p.req.Generate
	switch {
	case !g.OpenAI:
		if gr.Model != nil {
			return badField("generate.model", "only an openai:MODEL or st:MODEL generator takes a model")
		}
		return nil
	case gr.Model == nil:
		return badField("generate.model", "generator %s needs a model (base_url, api_key, options)", gr.Generator)
	}
	cfg := *gr.Model
	if cfg.Model != "" && cfg.Model != g.Model {
		return badField("generate.model.model", "is %q but the generator names %q", cfg.Model, g.Model)
	}
	cfg.Model = g.Model
	p.modelAsked = cfg
	cfg, err := cfg.Resolve(func(string) string { return "" })
	if err != nil {
		return badField("generate.model", "%v", err)
	}
	p.model = &cfg
	redacted := cfg.Redacted()
	gr.Model = &redacted
	p.req.Generate = &gr
	p.modelAt, p.modelField = &p.req.Generate.Model, "generate.model"
	return nil
}

// execute carries out a generation in the run's directory and records
// it. It succeeds (exit code 0) when the generation was carried out,
// whether the policy is valid or not.
func (generateKind) execute(ctx context.Context, m *Manager, ar *activeRun) outcome {
	prep := stateOf[*generatePrepared](ar)
	gr := prep.req.Generate
	run, stop := m.startTaskWork(ar, prep.task, gr.BaseMap)
	defer stop()
	rec, err := m.cfg.Work.Generate(ctx, work.GenerateJob{Env: run,
		Generator: gr.Generator, Timeout: time.Duration(gr.TimeoutSeconds * float64(time.Second)), Model: prep.model,
	})
	if rec != nil {
		m.amend(ar, func(r *runapi.Run) { r.GenerateResult = rec }) // saved with the end; its counts and denials are read there
	}
	if err != nil {
		return outcome{startErr: err, killed: ctx.Err() != nil}
	}
	return outcome{killed: ctx.Err() != nil}
}

// defaultTimeout: the generator's own timeout applies.
func (generateKind) defaultTimeout(time.Duration) time.Duration { return taskTimeout }

// signalable: the generator is a container's init, not ours to signal.
func (generateKind) signalable() bool { return false }

// traced: a generation always is.
func (generateKind) traced(*runapi.RunRequest) bool { return true }

// usesRootfs: the generator explores a rootfs of the task's image.
func (generateKind) usesRootfs() bool { return true }

// artifacts: the generation's record, answer, transcripts and trace.
func (generateKind) artifacts() []runapi.Artifact { return runapi.GenerationArtifacts }
