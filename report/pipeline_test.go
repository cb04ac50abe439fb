package report

import (
	"math"
	"testing"

	"github.com/authbench/authbench/trial"
	"github.com/authbench/authbench/verdict"
)

// TestPassAtK pins the unbiased pass@k estimate against hand-computed
// values: 1 - C(n-c, k) / C(n, k).
func TestPassAtK(t *testing.T) {
	for _, c := range []struct {
		passes, counts []int
		k              int
		want           float64
		ok             bool
	}{
		{[]int{0}, []int{3}, 3, 0, true},
		{[]int{1}, []int{3}, 3, 1, true},
		{[]int{1}, []int{3}, 1, 1.0 / 3, true},
		{[]int{1}, []int{3}, 2, 1 - 1.0/3, true}, // C(2,2)/C(3,2) = 1/3
		{[]int{2}, []int{4}, 2, 1 - 1.0/6, true}, // C(2,2)/C(4,2) = 1/6
		{[]int{3, 0}, []int{3, 3}, 3, 0.5, true}, // macro mean
		{[]int{1, 1}, []int{3, 1}, 3, 1, true},   // the task of 1 attempt left out
		{[]int{0}, []int{1}, 2, 0, false},        // no task has k attempts
		{[]int{0}, []int{0}, 0, 0, false},
	} {
		got, ok := passAtK(c.passes, c.counts, c.k)
		if ok != c.ok || math.Abs(got-c.want) > 1e-12 {
			t.Errorf("passAtK(%v, %v, %d) = %v %v, want %v %v", c.passes, c.counts, c.k, got, ok, c.want, c.ok)
		}
	}
}

func stageRec(task, stage, source, agent string, n int, pass bool) trial.Record {
	r := trial.Record{Identity: trial.Identity{Task: task, Dataset: DatasetStandard, Source: source, Agent: agent, Trial: n, Stage: stage},
		Dir: task + "/" + stage + "/" + source + "/" + agent + "/" + string(rune('0'+n))}
	switch stage {
	case trial.StageGenerate:
		r.Scored, r.PolicyValid = true, pass
		if pass {
			r.ReadR, r.WriteR, r.ExecR, r.ReadP, r.WriteP, r.ExecP = 1, 1, 1, 0.5, 1, 0.25
		} else {
			r.Classes, r.Primary = []verdict.Class{verdict.ClassInvalidPolicy}, verdict.ClassInvalidPolicy
		}
		r.AgentDidNotRun = true
	default:
		r.Utility = pass
		if !pass {
			r.Primary = verdict.ClassReadInsufficient
		}
	}
	return r
}

// TestStageRows: pass@1, pass@k and pass^k per stage from attempts; a
// generation attempt passes when its policy is valid and sufficient; an
// error is no attempt; Table 1 leaves the generation attempts out.
func TestStageRows(t *testing.T) {
	recs := []trial.Record{
		stageRec("a", trial.StageGenerate, "gen:openai:g", "none", 1, false),
		stageRec("a", trial.StageGenerate, "gen:openai:g", "none", 2, true),
		stageRec("a", trial.StageGenerate, "gen:openai:g", "none", 3, true),
		stageRec("b", trial.StageGenerate, "gen:openai:g", "none", 1, false),
		stageRec("b", trial.StageGenerate, "gen:openai:g", "none", 2, false),
		stageRec("b", trial.StageGenerate, "gen:openai:g", "none", 3, false),
		stageRec("a", trial.StageUnconstrained, "unconstrained", "openai:e", 1, true),
		stageRec("a", trial.StageUnconstrained, "unconstrained", "openai:e", 2, true),
		stageRec("a", trial.StageUnconstrained, "unconstrained", "openai:e", 3, false),
		stageRec("a", trial.StageGenerated, "gen:openai:g", "openai:e", 1, true),
		stageRec("b", trial.StageGenerated, "gen:openai:g", "openai:e", 1, false),
	}
	recs[8].Error = "daemon gone" // not an attempt
	rep := Build(recs, Options{})
	if len(rep.Stages) != 3 {
		t.Fatalf("stages %+v", rep.Stages)
	}
	gen, unc, replay := rep.Stages[0], rep.Stages[1], rep.Stages[2]
	if gen.Stage != trial.StageGenerate || gen.Tasks != 2 || gen.Attempts != 3 || math.Abs(gen.Pass1-1.0/3) > 1e-12 ||
		*gen.PassAtK != 0.5 || *gen.PassHatK != 0 {
		t.Errorf("generate %+v pass@k %v pass^k %v", gen, *gen.PassAtK, *gen.PassHatK)
	}
	if unc.Stage != trial.StageUnconstrained || unc.Errors != 1 || unc.Attempts != 2 || *unc.PassAtK != 1 || *unc.PassHatK != 1 {
		t.Errorf("unconstrained %+v", unc)
	}
	if replay.Stage != trial.StageGenerated || replay.Pass1 != 0.5 || replay.Attempts != 1 {
		t.Errorf("generated %+v", replay)
	}
	for _, row := range rep.Rows {
		if row.Agent == "none" {
			t.Errorf("Table 1 has the generation attempts: %+v", row)
		}
	}
	if len(rep.Rows) != 2 {
		t.Errorf("Table 1 rows %d, want unconstrained and gen replays", len(rep.Rows))
	}
}
