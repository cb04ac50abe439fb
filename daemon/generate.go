package daemon

import (
	"context"
	"path/filepath"
	"time"

	"github.com/authbench/authbench/daemon/work"
	"github.com/authbench/authbench/runapi"
)

// validateGenerate checks a generation request: like a task run's, a
// caller that is not root may only use a trusted task dir; the generator
// name must parse; the rest of the request must be empty.
func validateGenerate(req *runapi.RunRequest, peer Peer, trusted []string, w work.Kinds) (*prepared, error) {
	p := &prepared{req: *req}
	gr := req.Generate
	switch {
	case req.Task != nil:
		return nil, badField("generate", "a request is a task run or a generation, not both")
	case len(req.Command) > 0 || req.Dir != "" || len(req.Env) > 0:
		return nil, badField("command", "a generation takes its command, directory and environment from the task and the generator")
	case req.UID != nil || req.GID != nil || req.AllowRoot || len(req.Capabilities) > 0:
		return nil, badField("uid", "a generator runs as the task's agent user")
	case !isNull(req.Seccomp) || req.NoSeccomp || !isNull(req.Policy) || !isNull(req.Baseline) || req.WaitTree:
		return nil, badField("policy", "a generator runs under the generation policy and seccomp profile")
	case !filepath.IsAbs(gr.Dir):
		return nil, badField("generate.dir", "must be an absolute path, got %q", gr.Dir)
	case gr.TimeoutSeconds < 0 || gr.TimeoutSeconds > maxTimeoutSecond:
		return nil, badField("generate.timeout_s", "must be between 0 and %d", maxTimeoutSecond)
	}
	g, err := w.ParseGenerator(gr.Generator)
	if err != nil {
		return nil, badField("generate.generator", "%v", err)
	}
	if peer.UID != 0 {
		if ferr := checkTrustedTaskDir(gr.Dir, trusted); ferr != nil {
			return nil, ferr
		}
	}
	t, err := w.LoadTask(gr.Dir)
	if err != nil {
		return nil, badField("generate.dir", "%v", err)
	}
	p.generate = t
	if err := p.takeGeneratorModel(g); err != nil {
		return nil, err
	}
	return p, nil
}

// takeGeneratorModel checks the model of an openai:MODEL generator and
// moves it, with its API key, out of the request: what is recorded keeps
// it redacted.
func (p *prepared) takeGeneratorModel(g work.Generator) error {
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
	return nil
}

// executeGenerate carries out a generation in the run's directory and
// records it. It succeeds (exit code 0) when the generation was carried
// out, whether the policy is valid or not.
func (m *Manager) executeGenerate(ctx context.Context, ar *activeRun) outcome {
	gr := ar.prep.req.Generate
	run, stop := m.startTaskWork(ar, ar.prep.generate, gr.BaseMap)
	defer stop()
	rec, err := m.cfg.Work.Generate(ctx, work.GenerateJob{Env: run,
		Generator: gr.Generator, Timeout: time.Duration(gr.TimeoutSeconds * float64(time.Second)), Model: ar.prep.model,
	})
	if rec != nil {
		m.amend(ar, func(r *runapi.Run) { r.GenerateResult = rec }) // saved with the end; its counts and denials are read there
	}
	if err != nil {
		return outcome{startErr: err, killed: ctx.Err() != nil}
	}
	return outcome{killed: ctx.Err() != nil}
}
