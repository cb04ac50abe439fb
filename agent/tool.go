package agent

import (
	"context"
	"encoding/json"
)

// Tool is one function the model may call.
type Tool struct {
	Name, Description string
	Parameters        map[string]any // JSON Schema of the arguments object
	// Run executes one call. args are the raw JSON arguments as the model
	// sent them, already checked to be a JSON object (malformed JSON never
	// reaches Run: the loop answers the model with the parse error). A
	// returned error is given back to the model as the observation
	// ("error: ..."), and the loop goes on.
	Run func(ctx context.Context, args json.RawMessage) (Observation, error)
}

// Observation is what a tool call returns to the model.
type Observation struct {
	Text  string         // what the model reads
	Done  bool           // this call ends the loop (finish): StopFinished
	Extra map[string]any // stored with the call's observation in the trajectory (e.g. trace range)
}

// ExtraSummary is the Observation.Extra key whose string value becomes
// Outcome.Summary (the finish tool's summary).
const ExtraSummary = "summary"

// Usage counts tokens as the endpoint reported them.
type Usage struct{ PromptTokens, CompletionTokens, TotalTokens int64 }

func (u *Usage) add(v Usage) {
	u.PromptTokens += v.PromptTokens
	u.CompletionTokens += v.CompletionTokens
	u.TotalTokens += v.TotalTokens
}
