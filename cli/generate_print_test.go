package cli

import (
	"bytes"
	"strings"
	"testing"

	"github.com/authbench/authbench/runapi"
)

// TestPrintGenerationStages: an st: generation's summary says its tokens
// and how each stage ended, the failed stage with its reason.
func TestPrintGenerationStages(t *testing.T) {
	var b bytes.Buffer
	printGeneration(&b, "run-1", 1, &runapi.GenerationRecord{Task: "t", Generator: "st:m", Reason: "tightness stage: invalid policy: x",
		Turns: 3, StopReason: "invalid_answer", Tokens: &runapi.TokenCounts{Prompt: 350, Completion: 35},
		Stages: []runapi.GenerationStage{
			{Stage: "sufficiency", Valid: true, Turns: 2, StopReason: "finished", Tokens: &runapi.TokenCounts{Prompt: 300, Completion: 30}},
			{Stage: "tightness", Reason: "invalid policy: x", Turns: 1, StopReason: "invalid_answer"},
		}})
	for _, want := range []string{
		"INVALID: tightness stage: invalid policy: x", "tokens 350 in, 35 out",
		"stage sufficiency: valid, 2 turns, stop finished, tokens 300 in, 30 out",
		"stage tightness: INVALID: invalid policy: x, 1 turns, stop invalid_answer\n",
	} {
		if !strings.Contains(b.String(), want) {
			t.Errorf("summary lacks %q:\n%s", want, b.String())
		}
	}
}
