package report

import (
	"strings"
	"testing"

	"github.com/authbench/authbench/trial"
	"github.com/authbench/authbench/verdict"
)

// TestModelRows: one row per generator and per model executor; a
// generator's static scores are its generation attempts' (an invalid one
// counts 0), its failures its replays', invalid_policy included; the
// figures across models render with every model's label.
func TestModelRows(t *testing.T) {
	recs := []trial.Record{
		stageRec("a", trial.StageGenerate, "gen:openai:good", "none", 1, true),
		stageRec("a", trial.StageGenerate, "gen:openai:timeout", "none", 1, false),
		stageRec("a", trial.StageGenerated, "gen:openai:good", "openai:exec", 1, true),
		stageRec("a", trial.StageGenerated, "gen:openai:timeout", "openai:exec", 1, false),
		stageRec("a", trial.StageSpec, "spec", "openai:exec", 1, false),
		stageRec("a", trial.StageOracle, "spec", "oracle", 1, true),
	}
	recs[3].Primary, recs[3].Classes, recs[3].AgentDidNotRun = verdict.ClassInvalidPolicy, []verdict.Class{verdict.ClassInvalidPolicy}, true
	recs[3].Scored = true // an invalid policy: scored 0
	recs[1].Tokens = &trial.Tokens{In: 100, Out: 10, Stages: []trial.StageTokens{{Stage: "generator", Model: "timeout", In: 100, Out: 10}}}
	rep := Build(recs, Options{})
	if len(rep.Models) != 3 {
		t.Fatalf("models %+v", rep.Models)
	}
	good, timeout, exec := rep.Models[0], rep.Models[1], rep.Models[2]
	if good.Role != RoleGenerator || good.Model != "openai:good" || timeout.Model != "openai:timeout" || exec.Role != RoleExecutor || exec.Model != "openai:exec" {
		t.Fatalf("order %+v %+v %+v", good, timeout, exec)
	}
	if s := good.Row.StaticStandard; s == nil || s.Read.Precision != 0.5 || s.Execute.Precision != 0.25 || s.Read.Recall != 1 {
		t.Errorf("good static %+v", s)
	}
	if s := timeout.Row.StaticStandard; s == nil || s.Read.Recall != 0 || timeout.Row.Invalid != 1 {
		t.Errorf("timed-out generator static %+v invalid %d", s, timeout.Row.Invalid)
	}
	if timeout.Row.Tokens == nil || timeout.Row.Tokens.InPerRun != 100 {
		t.Errorf("timed-out generator tokens %+v", timeout.Row.Tokens)
	}
	share := func(d FailureDist, class verdict.Class) int {
		for _, c := range d.Classes {
			if c.Class == class {
				return c.Count
			}
		}
		return -1
	}
	if timeout.Failures.Failed != 1 || share(timeout.Failures, verdict.ClassInvalidPolicy) != 1 || good.Failures.Failed != 0 {
		t.Errorf("generator failures %+v / %+v", timeout.Failures, good.Failures)
	}
	if exec.Row.Runs != 3 || exec.Failures.Failed != 2 || share(exec.Failures, verdict.ClassReadInsufficient) != 1 {
		t.Errorf("executor %+v failures %+v", exec.Row, exec.Failures)
	}
	charts, err := rep.modelCharts()
	if err != nil {
		t.Fatal(err)
	}
	ids := []string{}
	for _, c := range charts {
		ids = append(ids, c.ID)
	}
	if len(charts) != 2 || charts[0].ID != "figure-models-standard-axes" || charts[1].ID != "figure-models-failures" {
		t.Fatalf("charts %v", ids)
	}
	for _, want := range []string{"generator / openai:good", "generator / openai:timeout"} {
		if !strings.Contains(charts[0].SVG, want) {
			t.Errorf("axis figure lacks %q", want)
		}
	}
	for _, want := range []string{">executor / openai:exec (2 failed)<", ">generator / openai:timeout (1 failed)<", ">invalid_policy (2)<"} {
		if !strings.Contains(charts[1].SVG, want) {
			t.Errorf("failure figure lacks %q", want)
		}
	}
	var md strings.Builder
	if err := rep.Markdown(&md); err != nil || !strings.Contains(md.String(), "## Across models") || !strings.Contains(md.String(), "## Pipeline stages") {
		t.Errorf("markdown lacks the sections (%v)", err)
	}
}

// TestInvalidPolicyColorIsItsOwn: invalid_policy's colour in the
// per-model chart is no other class's.
func TestInvalidPolicyColorIsItsOwn(t *testing.T) {
	for class, c := range classColors {
		if c == invalidPolicyColor {
			t.Errorf("invalid_policy shares its colour with %s", class)
		}
	}
}
