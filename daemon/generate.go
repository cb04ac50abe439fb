package daemon

import (
	"context"
	"fmt"
	"path/filepath"
	"time"

	"github.com/authbench/authbench/agent"
	"github.com/authbench/authbench/generate"
	"github.com/authbench/authbench/taskrun/explore"
	"github.com/authbench/authbench/tasks"
)

// GenerateRequest asks for one permission generation (package generate):
// the generator explores a fresh copy-on-write rootfs of the task's image
// under the generation policy (read everything, write only its output
// file, execute only inspection tools and itself), traced, and its answer
// is validated. The run succeeds when the generation was carried out,
// whatever the answer; Run.GenerateResult says how it went.
type GenerateRequest struct {
	// Dir is the task directory (Harbor layout), absolute.
	Dir string `json:"dir"`
	// Generator is `cmd:COMMAND`, `openai:MODEL`, `heuristic`, `spec` or
	// `allow-all`.
	Generator string `json:"generator"`
	// BaseMap maps FROM images to local ones (NAME=IMAGE).
	BaseMap map[string]string `json:"base_map,omitempty"`
	// TimeoutSeconds is the generator's time (0: 600).
	TimeoutSeconds float64 `json:"timeout_s,omitempty"`
	// Model is the endpoint and options of an openai:MODEL generator,
	// resolved by the client, with its api_key, which the daemon keeps in
	// memory for the run only (as TaskRequest.Model).
	Model *agent.Config `json:"model,omitempty"`
}

// generateFiles are a generation run's files by API name.
func generateFiles() map[string]string {
	files := explore.Files()
	files["generation"], files["generated-policy"], files["trajectory"] =
		generate.RecordFile, generate.PolicyFile, generate.TrajectoryFile
	return files
}

// validateGenerate checks a generation request: like a task run's, a
// caller that is not root may only use a trusted task dir; the generator
// name must parse; the rest of the request must be empty.
func validateGenerate(req *RunRequest, peer Peer, trusted []string) (*prepared, error) {
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
	if _, err := generate.ParseGenerator(gr.Generator); err != nil {
		return nil, badField("generate.generator", "%v", err)
	}
	if peer.UID != 0 {
		if ferr := checkTrustedTaskDir(gr.Dir, trusted); ferr != nil {
			return nil, ferr
		}
	}
	t, err := tasks.Load(gr.Dir)
	if err != nil {
		return nil, badField("generate.dir", "%v", err)
	}
	p.generate = t
	if err := p.takeGeneratorModel(); err != nil {
		return nil, err
	}
	return p, nil
}

// takeGeneratorModel checks the model of an openai:MODEL generator and
// moves it, with its API key, out of the request: what is recorded keeps
// it redacted.
func (p *prepared) takeGeneratorModel() error {
	gr := *p.req.Generate
	g, _ := generate.ParseGenerator(gr.Generator)
	switch {
	case g.Kind != generate.KindOpenAI:
		if gr.Model != nil {
			return badField("generate.model", "only an openai:MODEL generator takes a model")
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
	run, stop, err := m.startTaskWork(ar, ar.prep.generate, gr.BaseMap)
	if err != nil {
		return outcome{startErr: err}
	}
	defer stop()
	rec, err := generate.Run(ctx, generate.Options{
		Generator: gr.Generator, Timeout: time.Duration(gr.TimeoutSeconds * float64(time.Second)), Model: ar.prep.model, Run: run,
	})
	if rec != nil {
		m.update(ar, func(r *Run) {
			r.GenerateResult = rec
			r.Events, r.LostEvents, r.Denials = rec.Events, rec.LostEvents, rec.Denials
		})
	}
	if err != nil {
		return outcome{startErr: err, killed: ctx.Err() != nil}
	}
	return outcome{killed: ctx.Err() != nil}
}

// RunGenerate submits a generation to api and waits for its end. The
// error is for a generation that could not be submitted or followed.
func RunGenerate(ctx context.Context, api API, req *RunRequest) (*Run, error) {
	if req.Generate == nil {
		return nil, fmt.Errorf("generate: the request names no generation")
	}
	run, err := api.Submit(ctx, req)
	if err != nil {
		return nil, err
	}
	final, err := WaitOrCancel(ctx, api, run.ID)
	if err != nil {
		return final, fmt.Errorf("generate %s: wait for run %s: %w", req.Generate.Dir, run.ID, err)
	}
	return final, nil
}
