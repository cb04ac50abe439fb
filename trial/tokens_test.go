package trial

import (
	"testing"

	"github.com/authbench/authbench/agent/modelconfig"
	"github.com/authbench/authbench/runapi"
)

// TestTokensPerStage: a generation's stages and the model agent's tokens
// are summed into the run's tokens, each kept as a stage with its model;
// a run with no model reports none.
func TestTokensPerStage(t *testing.T) {
	r := &Record{}
	FromTaskResult(r, &runapi.TaskResult{}, Policy{Source: runapi.SourceUnconstrained}, nil)
	if r.Tokens != nil {
		t.Fatalf("a run without a model has tokens %+v", r.Tokens)
	}
	r.AddGenerationTokens(&runapi.GenerationRecord{Tokens: &runapi.TokenCounts{Prompt: 7, Completion: 3}}, "g")
	FromTaskResult(r, &runapi.TaskResult{Model: &modelconfig.Config{Model: "exec"}, AgentTokens: &runapi.TokenCounts{Prompt: 100, Completion: 20, Total: 120}},
		Policy{Source: runapi.SourceUnconstrained}, nil)
	want := []StageTokens{{Stage: "generator", Model: "g", In: 7, Out: 3}, {Stage: "agent", Model: "exec", In: 100, Out: 20}}
	if r.Tokens == nil || r.Tokens.In != 107 || r.Tokens.Out != 23 || len(r.Tokens.Stages) != 2 || r.Tokens.Stages[0] != want[0] || r.Tokens.Stages[1] != want[1] {
		t.Errorf("tokens %+v, want %+v", r.Tokens, want)
	}
}

// TestHarnessTokensNameTheirModel: an installed harness's tokens are the
// agent stage of the model it was configured for.
func TestHarnessTokensNameTheirModel(t *testing.T) {
	r := &Record{}
	FromTaskResult(r, &runapi.TaskResult{HarnessModel: "harness-model", AgentTokens: &runapi.TokenCounts{Prompt: 5, Completion: 1}},
		Policy{Source: runapi.SourceUnconstrained}, nil)
	if r.Tokens == nil || len(r.Tokens.Stages) != 1 || r.Tokens.Stages[0] != (StageTokens{Stage: TokenStageAgent, Model: "harness-model", In: 5, Out: 1}) {
		t.Errorf("tokens %+v", r.Tokens)
	}
}
