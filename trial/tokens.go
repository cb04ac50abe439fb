package trial

import "github.com/authbench/authbench/runapi"

// Stages of a run whose model tokens are counted (Tokens.Stages): the
// generator (an st: generator's stages as "generator:STAGE") and the
// model agent.
const (
	TokenStageGenerator = "generator"
	TokenStageAgent     = "agent"
)

// Tokens are a run's model tokens as the endpoints reported them: In
// (prompt) and Out (completion) summed over Stages.
type Tokens struct {
	In     int64         `json:"in"`
	Out    int64         `json:"out"`
	Stages []StageTokens `json:"stages"`
}

// StageTokens are one stage's tokens and the model that spent them.
type StageTokens struct {
	Stage string `json:"stage"`
	Model string `json:"model,omitempty"`
	In    int64  `json:"in"`
	Out   int64  `json:"out"`
}

// AddTokens adds a stage's token counts to r.Tokens (nil c: none).
func (r *Record) AddTokens(stage, model string, c *runapi.TokenCounts) {
	if c == nil {
		return
	}
	if r.Tokens == nil {
		r.Tokens = &Tokens{}
	}
	r.Tokens.In += c.Prompt
	r.Tokens.Out += c.Completion
	r.Tokens.Stages = append(r.Tokens.Stages, StageTokens{Stage: stage, Model: model, In: c.Prompt, Out: c.Completion})
}

// AddGenerationTokens adds a generation's tokens to r: one stage per
// stage of a multi-stage generator, else one "generator" stage.
func (r *Record) AddGenerationTokens(rec *runapi.GenerationRecord, model string) {
	if len(rec.Stages) == 0 {
		r.AddTokens(TokenStageGenerator, model, rec.Tokens)
		return
	}
	for _, s := range rec.Stages {
		r.AddTokens(TokenStageGenerator+":"+s.Stage, model, s.Tokens)
	}
}
