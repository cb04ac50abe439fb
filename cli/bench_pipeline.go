package cli

import (
	"strconv"

	"github.com/spf13/pflag"

	"github.com/authbench/authbench/agent/agentname"
	"github.com/authbench/authbench/bench"
	"github.com/authbench/authbench/cli/core"
	"github.com/authbench/authbench/trial"
)

// pipelineFlags are bench --pipeline and its counts: a layout of stages
// (docs/benchmark.md, "Pipelines") instead of --sources × --agent.
type pipelineFlags struct {
	pipeline   string
	generators []string
	executors  []string
	// attempts are the stages' counts by stage (0: the layout's).
	attempts map[string]*int
}

// register adds --pipeline, --generator, --executor and one
// --STAGE-attempts flag per stage.
func (p *pipelineFlags) register(fl *pflag.FlagSet) {
	fl.StringVar(&p.pipeline, "pipeline", "", `run a pipeline of stages instead of --sources and --agent: "published" (the published layout) or a pipeline `+"`FILE`"+` (TOML or JSON)`)
	fl.StringSliceVar(&p.generators, "generator", nil, "a pipeline's generators (openai:MODEL, st:MODEL, heuristic, ...; repeatable or comma-separated; default the file's)")
	fl.StringSliceVar(&p.executors, "executor", nil, "a pipeline's executors (openai:MODEL, installed:NAME:MODEL, cmd:COMMAND; repeatable or comma-separated; default the file's)")
	p.attempts = map[string]*int{}
	for _, s := range bench.PublishedStages {
		n := new(int)
		p.attempts[s.Stage] = n
		fl.IntVar(n, s.Stage+"-attempts", 0, "attempts per task of a pipeline's "+s.Stage+" stage (default the layout's; published: "+strconv.Itoa(s.Attempts)+")")
	}
}

// build is the pipeline the flags name (nil without --pipeline).
func (p pipelineFlags) build() (*bench.Pipeline, error) {
	if p.pipeline == "" {
		for stage, n := range p.attempts {
			if *n != 0 {
				return nil, core.UsageErrorf("--%s-attempts needs --pipeline", stage)
			}
		}
		if len(p.generators) > 0 || len(p.executors) > 0 {
			return nil, core.UsageErrorf("--generator and --executor need --pipeline")
		}
		return nil, nil
	}
	var pl bench.Pipeline
	if p.pipeline == bench.PipelinePublished {
		pl = bench.PublishedPipeline(nil, nil)
	} else {
		var err error
		if pl, err = bench.LoadPipeline(p.pipeline); err != nil {
			return nil, core.UsageErrorf("--pipeline: %v", err)
		}
	}
	if len(p.generators) > 0 {
		pl.Generators = p.generators
	}
	if len(p.executors) > 0 {
		pl.Executors = p.executors
	}
	for _, s := range trial.StageOrder {
		if err := pl.SetAttempts(s, *p.attempts[s]); err != nil {
			return nil, core.UsageErrorf("--%s-attempts: %v", s, err)
		}
	}
	if err := pl.Check(); err != nil {
		return nil, core.UsageErrorf("--pipeline: %v", err)
	}
	return &pl, nil
}

// modelExecutor is the pipeline's first model executor (whose name
// resolves the model configuration the executors share), "" when none.
func modelExecutor(pl *bench.Pipeline) string {
	for _, e := range pl.Executors {
		if n, _ := agentname.Parse(e); n.TakesModel() {
			return e
		}
	}
	return ""
}

// pipelineSources are the sources and the agent of the bench's flags:
// the pipeline's when there is one (then --sources and --agent must not
// be given), else --sources and --agent.
func (f benchFlags) pipelineSources(pl *bench.Pipeline) ([]bench.Source, string, error) {
	if pl == nil {
		sources, err := bench.ParseSources(f.sources)
		if err != nil {
			return nil, "", core.UsageErrorf("--sources: %v", err)
		}
		return sources, f.agent, nil
	}
	if f.sources != "" || f.agent != "" {
		return nil, "", core.UsageErrorf("--pipeline runs its own stages: no --sources or --agent (use --generator and --executor)")
	}
	sources, err := pl.Sources()
	if err != nil {
		return nil, "", core.UsageErrorf("--pipeline: %v", err)
	}
	return sources, modelExecutor(pl), nil
}
