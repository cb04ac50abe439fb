package bench

import (
	"errors"
	"strings"
	"testing"

	"github.com/authbench/authbench/runapi"
	"github.com/authbench/authbench/tasks"
	"github.com/authbench/authbench/trial"
)

// TestParsePipeline: a pipeline file in TOML or JSON, and the files a
// pipeline refuses (unknown keys and stages, out of order, no attempts,
// missing generators or executors, agents that are no executor).
func TestParsePipeline(t *testing.T) {
	toml := `name = "short"
generators = ["openai:g1", "st:g2"]
executors = ["openai:e1"]
[[stages]]
stage = "generate"
attempts = 2
[[stages]]
stage = "generated"
attempts = 1
`
	p, err := ParsePipeline([]byte(toml))
	if err != nil || p.Name != "short" || len(p.Stages) != 2 || p.attempts(trial.StageGenerate) != 2 || p.Has(trial.StageOracle) || len(p.Generators) != 2 {
		t.Fatalf("TOML: %+v %v", p, err)
	}
	j := `{"name": "j", "generators": ["heuristic"], "executors": ["installed:pi:m"], "stages": [{"stage": "oracle", "attempts": 1}, {"stage": "generate", "attempts": 5}, {"stage": "spec", "attempts": 2}]}`
	if p, err := ParsePipeline([]byte(j)); err != nil || p.attempts(trial.StageGenerate) != 5 || p.attempts(trial.StageSpec) != 2 {
		t.Fatalf("JSON: %+v %v", p, err)
	}
	for _, c := range []struct{ doc, want string }{
		{`{"stages": [{"stage": "oracle", "attempts": 1}], "extra": 1}`, "unknown field"},
		{"stages = 3\nbogus = 1\n", ""},
		{`{"stages": []}`, "no stages"},
		{`{"stages": [{"stage": "replay", "attempts": 1}]}`, "unknown stage"},
		{`{"stages": [{"stage": "spec", "attempts": 1}, {"stage": "oracle", "attempts": 1}], "executors": ["openai:e"]}`, "out of order"},
		{`{"stages": [{"stage": "oracle", "attempts": 1}, {"stage": "oracle", "attempts": 1}]}`, "twice or out of order"},
		{`{"stages": [{"stage": "oracle", "attempts": 0}]}`, "at least 1"},
		{`{"stages": [{"stage": "oracle", "attempts": -3}]}`, "at least 1"},
		{`{"stages": [{"stage": "generated", "attempts": 1}], "generators": ["heuristic"], "executors": ["openai:e"]}`, "which is missing"},
		{`{"stages": [{"stage": "generate", "attempts": 1}]}`, "no generator"},
		{`{"stages": [{"stage": "generate", "attempts": 1}], "generators": ["gpt-5"]}`, "generator \"gpt-5\""},
		{`{"stages": [{"stage": "spec", "attempts": 1}]}`, "no executor"},
		{`{"stages": [{"stage": "spec", "attempts": 1}], "executors": ["oracle"]}`, "not an executor"},
		{`{"stages": [{"stage": "spec", "attempts": 1}], "executors": ["none"]}`, "not an executor"},
		{`{"stages": [{"stage": "spec", "attempts": 1}], "executors": ["openai:"]}`, "missing model name"},
		{`{"stages": [{"stage": "spec", "attempts": 1}], "executors": ["openai:a", "openai:a"]}`, "given twice"},
		{"\x00\xff", ""},
	} {
		_, err := ParsePipeline([]byte(c.doc))
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%q: %v, want an error with %q", c.doc, err, c.want)
		}
	}
}

// TestPublishedPlan: the published layout's runs of a standard and a
// sensitive task, each with its stage; attempts are trials; a flag's
// count changes its stage.
func TestPublishedPlan(t *testing.T) {
	p := PublishedPipeline([]string{"openai:g1", "st:g2"}, []string{"openai:e1", "openai:e2"})
	if err := p.Check(); err != nil {
		t.Fatal(err)
	}
	std := &tasks.Task{Name: "a"}
	sens := &tasks.Task{Name: "b", AttackSmoke: "attack_smoke.sh"}
	sens.Config.Metadata.Dataset = tasks.Sensitive
	keys, stages := p.plan([]*tasks.Task{std, sens})
	count := map[string]int{}
	for _, k := range keys {
		count[stages[k]]++
		if stages[k] == trial.StageGenerate && k.Agent != runapi.AgentNone {
			t.Errorf("generation attempt %s has an agent", k)
		}
	}
	// oracle: 2 tasks + the shortcut of b; generate: 2 tasks × 2 generators
	// × 3; unconstrained: 2 × 2 executors × 3; generated: 2 × 2 × 2 × 1;
	// spec: 2 × 2 × 1.
	want := map[string]int{trial.StageOracle: 3, trial.StageGenerate: 12, trial.StageUnconstrained: 12, trial.StageGenerated: 8, trial.StageSpec: 4}
	for s, n := range want {
		if count[s] != n {
			t.Errorf("stage %s: %d runs, want %d", s, count[s], n)
		}
	}
	if len(keys) != len(stages) {
		t.Errorf("%d keys, %d distinct: a run planned twice", len(keys), len(stages))
	}
	if k := keys[0]; stages[k] != trial.StageOracle || k.Source != runapi.SourceSpec || k.Agent != "oracle" {
		t.Errorf("first run %s (%s), want the oracle under the spec", k, stages[k])
	}
	if err := p.SetAttempts(trial.StageUnconstrained, 1); err != nil {
		t.Fatal(err)
	}
	keys, _ = p.plan([]*tasks.Task{std})
	if len(keys) != 1+6+2+4+2 {
		t.Errorf("%d runs with --unconstrained-attempts 1", len(keys))
	}
	q := Pipeline{Stages: []Stage{{trial.StageSpec, 1}}, Executors: []string{"openai:e"}}
	if err := q.SetAttempts(trial.StageGenerate, 2); err == nil {
		t.Error("set the attempts of a stage the pipeline lacks")
	}
	src, err := p.Sources()
	if err != nil || len(src) != 4 || src[2].Name != "gen:openai:g1" || src[3].Generator != "st:g2" {
		t.Errorf("sources %+v %v", src, err)
	}
}

// TestPipelineIsASetting: an out dir made with one layout is refused
// with another (a count, a generator) or with none, naming --pipeline.
func TestPipelineIsASetting(t *testing.T) {
	a := PublishedPipeline([]string{"openai:g"}, []string{"openai:e"})
	b := PublishedPipeline([]string{"openai:g"}, []string{"openai:e"})
	if err := b.SetAttempts(trial.StageGenerate, 5); err != nil {
		t.Fatal(err)
	}
	c := PublishedPipeline([]string{"openai:h"}, []string{"openai:e"})
	with := (&Config{Pipeline: &a}).Settings()
	if err := compareSettings("out", with, (&Config{Pipeline: &a}).Settings()); err != nil {
		t.Errorf("the same layout: %v", err)
	}
	for _, other := range []*Pipeline{&b, &c, nil} {
		var mm *SettingsMismatchError
		if err := compareSettings("out", with, (&Config{Pipeline: other}).Settings()); !errors.As(err, &mm) || mm.Setting != "--pipeline" {
			t.Errorf("layout %+v: %v", other, err)
		}
	}
}
