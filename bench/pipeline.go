package bench

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"strings"

	"github.com/pelletier/go-toml/v2"

	"github.com/authbench/authbench/agent/agentname"
	"github.com/authbench/authbench/generate/genname"
	"github.com/authbench/authbench/runapi"
	"github.com/authbench/authbench/tasks"
	"github.com/authbench/authbench/trial"
)

// PipelinePublished names the published layout (PublishedPipeline).
const PipelinePublished = "published"

// Stage is one stage of a pipeline and how many attempts each of its runs
// gets per task.
type Stage struct {
	Stage    string `json:"stage" toml:"stage"`
	Attempts int    `json:"attempts" toml:"attempts"`
}

// Pipeline is a layout of stages: per task, each stage's runs with their
// attempt counts, for every generator and executor.
type Pipeline struct {
	// Name is "published" or the pipeline file's name.
	Name string `json:"name" toml:"name"`
	// Generators are generator names of package generate (openai:MODEL,
	// st:MODEL, heuristic, ...): the trial.StageGenerate and trial.StageGenerated
	// runs' sources are gen:GENERATOR.
	Generators []string `json:"generators" toml:"generators"`
	// Executors are the agents replayed (openai:MODEL,
	// installed:NAME:MODEL, cmd:COMMAND).
	Executors []string `json:"executors" toml:"executors"`
	Stages    []Stage  `json:"stages" toml:"stages"`
}

// PublishedStages are the published layout's stages and attempt counts:
// the oracle once, three generation attempts, three unconstrained
// replays, one replay under the generated policy and one under the
// curated spec.
var PublishedStages = []Stage{
	{trial.StageOracle, 1}, {trial.StageGenerate, 3}, {trial.StageUnconstrained, 3}, {trial.StageGenerated, 1}, {trial.StageSpec, 1},
}

// PublishedPipeline is the published layout for the generators and
// executors.
func PublishedPipeline(generators, executors []string) Pipeline {
	return Pipeline{Name: PipelinePublished, Generators: generators, Executors: executors,
		Stages: append([]Stage(nil), PublishedStages...)}
}

// LoadPipeline reads a pipeline file: JSON when it starts with "{",
// else TOML (docs/benchmark.md shows the format). Unknown keys are an
// error.
func LoadPipeline(name string) (Pipeline, error) {
	data, err := os.ReadFile(name)
	if err != nil {
		return Pipeline{}, fmt.Errorf("pipeline file: %w", err)
	}
	p, err := ParsePipeline(data)
	if err != nil {
		return Pipeline{}, fmt.Errorf("pipeline file %s: %w", name, err)
	}
	if p.Name == "" {
		p.Name = name
	}
	return p, nil
}

// ParsePipeline parses a pipeline document (JSON or TOML) and checks it.
func ParsePipeline(data []byte) (Pipeline, error) {
	var p Pipeline
	if t := bytes.TrimSpace(data); len(t) > 0 && t[0] == '{' {
		d := json.NewDecoder(bytes.NewReader(t))
		d.DisallowUnknownFields()
		if err := d.Decode(&p); err != nil {
			return Pipeline{}, err
		}
	} else {
		d := toml.NewDecoder(bytes.NewReader(data))
		d.DisallowUnknownFields()
		if err := d.Decode(&p); err != nil {
			return Pipeline{}, err
		}
	}
	return p, p.Check()
}

// Check validates the pipeline: known stages, each once, in trial.StageOrder,
// each with at least one attempt; generators for the generation stages
// and executors for the replays, each a valid name given once.
func (p Pipeline) Check() error {
	if len(p.Stages) == 0 {
		return fmt.Errorf("pipeline %s: no stages", p.Name)
	}
	last := -1
	for _, s := range p.Stages {
		i := indexOf(trial.StageOrder, s.Stage)
		switch {
		case i < 0:
			return fmt.Errorf("pipeline %s: unknown stage %q (want %s)", p.Name, s.Stage, strings.Join(trial.StageOrder, ", "))
		case i <= last:
			return fmt.Errorf("pipeline %s: stage %s given twice or out of order (the order is %s)", p.Name, s.Stage, strings.Join(trial.StageOrder, ", "))
		case s.Attempts < 1:
			return fmt.Errorf("pipeline %s: stage %s: attempts must be at least 1, not %d", p.Name, s.Stage, s.Attempts)
		}
		last = i
	}
	if p.Has(trial.StageGenerated) && !p.Has(trial.StageGenerate) {
		return fmt.Errorf("pipeline %s: stage %s replays the policies of stage %s, which is missing", p.Name, trial.StageGenerated, trial.StageGenerate)
	}
	if err := checkNames("generator", p.Generators, p.Has(trial.StageGenerate), func(g string) error { _, err := genname.Parse(g); return err }); err != nil {
		return fmt.Errorf("pipeline %s: %w", p.Name, err)
	}
	replays := p.Has(trial.StageUnconstrained) || p.Has(trial.StageGenerated) || p.Has(trial.StageSpec)
	return checkNames("executor", p.Executors, replays, checkExecutor)
}

// checkExecutor refuses the agents that are no executor: the oracle and
// the shortcut are the oracle stage's, runapi.AgentNone is no agent.
func checkExecutor(a string) error {
	if a == runapi.AgentOracle || a == runapi.AgentShortcut || a == runapi.AgentNone {
		return fmt.Errorf("%q is not an executor (want openai:MODEL, installed:NAME:MODEL or cmd:COMMAND)", a)
	}
	if _, err := agentname.Parse(a); err != nil {
		return err
	}
	if !strings.HasPrefix(a, "cmd:") && !strings.Contains(a, ":") {
		return fmt.Errorf("%q is not an executor (want openai:MODEL, installed:NAME:MODEL or cmd:COMMAND)", a)
	}
	return nil
}

func checkNames(what string, names []string, needed bool, check func(string) error) error {
	if needed && len(names) == 0 {
		return fmt.Errorf("no %s given", what)
	}
	seen := map[string]bool{}
	for _, n := range names {
		if seen[n] {
			return fmt.Errorf("%s %q given twice", what, n)
		}
		seen[n] = true
		if err := check(n); err != nil {
			return fmt.Errorf("%s %q: %w", what, n, err)
		}
	}
	return nil
}

func indexOf(list []string, s string) int {
	for i, x := range list {
		if x == s {
			return i
		}
	}
	return -1
}

// Has reports whether the pipeline has the stage.
func (p Pipeline) Has(stage string) bool { return p.attempts(stage) > 0 }

func (p Pipeline) attempts(stage string) int {
	for _, s := range p.Stages {
		if s.Stage == stage {
			return s.Attempts
		}
	}
	return 0
}

// SetAttempts sets the attempts of a stage the pipeline has (a flag's
// count); n 0 leaves it.
func (p *Pipeline) SetAttempts(stage string, n int) error {
	if n == 0 {
		return nil
	}
	for i := range p.Stages {
		if p.Stages[i].Stage == stage {
			p.Stages[i].Attempts = n
			return nil
		}
	}
	return fmt.Errorf("pipeline %s has no stage %s", p.Name, stage)
}

// Sources are the policy sources the pipeline's runs use, parsed.
func (p Pipeline) Sources() ([]Source, error) {
	var names []string
	if p.Has(trial.StageOracle) || p.Has(trial.StageSpec) {
		names = append(names, runapi.SourceSpec)
	}
	if p.Has(trial.StageUnconstrained) {
		names = append(names, runapi.SourceUnconstrained)
	}
	var out []Source
	for _, n := range names {
		s, err := parseSource(n)
		if err != nil {
			return nil, err
		}
		out = append(out, s)
	}
	if p.Has(trial.StageGenerate) {
		for _, g := range p.Generators {
			s, err := parseSource(runapi.SourceGenPrefix + g)
			if err != nil {
				return nil, err
			}
			out = append(out, s)
		}
	}
	return out, nil
}

// plan lists the pipeline's runs of the tasks, stage by stage in
// trial.StageOrder, each with its stage; a run's trial is its attempt number.
func (p Pipeline) plan(ts []*tasks.Task) ([]Key, map[Key]string) {
	stages := map[Key]string{}
	var keys []Key
	add := func(stage string, k Key) {
		for a := 1; a <= p.attempts(stage); a++ {
			k.Trial = a
			keys = append(keys, k)
			stages[k] = stage
		}
	}
	for _, stage := range trial.StageOrder {
		for _, t := range ts {
			switch stage {
			case trial.StageOracle:
				for _, a := range agentsFor(t, runapi.AgentOracle) {
					add(stage, Key{Task: t.Name, Source: runapi.SourceSpec, Agent: a})
				}
			case trial.StageGenerate:
				for _, g := range p.Generators {
					add(stage, Key{Task: t.Name, Source: runapi.SourceGenPrefix + g, Agent: runapi.AgentNone})
				}
			case trial.StageGenerated:
				for _, g := range p.Generators {
					for _, e := range p.Executors {
						add(stage, Key{Task: t.Name, Source: runapi.SourceGenPrefix + g, Agent: e})
					}
				}
			default: // unconstrained, spec: the stage is the source
				for _, e := range p.Executors {
					add(stage, Key{Task: t.Name, Source: stage, Agent: e})
				}
			}
		}
	}
	return keys, stages
}

// checkAgent checks a bench of sources: sources, an agent, and a model
// configuration exactly for a model agent.
func (c *Config) checkAgent() error {
	if len(c.Sources) == 0 {
		return fmt.Errorf("bench: no policy source")
	}
	if c.Agent == "" {
		return fmt.Errorf("bench: no agent")
	}
	if n, _ := agentname.Parse(c.Agent); n.TakesModel() != (c.Model != nil) {
		return fmt.Errorf("bench: agent %s: a model configuration is given exactly for openai:MODEL and installed:NAME agents", c.Agent)
	}
	return nil
}

// checkPipeline checks a pipeline bench and sets its Sources: a model
// configuration exactly when an executor is a model agent.
func (c *Config) checkPipeline() error {
	if err := c.Pipeline.Check(); err != nil {
		return fmt.Errorf("bench: %w", err)
	}
	models := false
	for _, e := range c.Pipeline.Executors {
		if n, _ := agentname.Parse(e); n.TakesModel() {
			models = true
		}
	}
	if models != (c.Model != nil) {
		return fmt.Errorf("bench: pipeline %s: a model configuration is given exactly when an executor is a model agent", c.Pipeline.Name)
	}
	sources, err := c.Pipeline.Sources()
	if err != nil {
		return fmt.Errorf("bench: pipeline %s: %w", c.Pipeline.Name, err)
	}
	c.Sources, c.Trials = sources, 1
	if c.Agent == "" {
		c.Agent = strings.Join(c.Pipeline.Executors, ",")
	}
	return nil
}
