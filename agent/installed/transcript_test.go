package installed

import (
	"bytes"
	"encoding/json"
	"os"
	"strings"
	"testing"

	"github.com/authbench/authbench/agent"
)

func readEvents(t *testing.T, file string) [][]byte {
	t.Helper()
	data, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	var out [][]byte
	for _, l := range bytes.Split(bytes.TrimSpace(data), []byte("\n")) {
		out = append(out, l)
	}
	return out
}

// TestToTrajectory: the sessions OpenClaw 2026.9.6, pi 1.6.0 and Qwen
// Code 0.24.4 recorded
// of one scripted turn (an exec/bash call, then "done") become the same
// ATIF steps: the task as a user step, the call with its arguments and
// its result as an observation, the final text, token usage summed.
func TestToTrajectory(t *testing.T) {
	for _, tc := range []struct {
		harness, file, tool string
		system              bool
	}{
		{"openclaw", "testdata/openclaw-events.jsonl", "exec", false},
		{"pi", "testdata/pi-session.jsonl", "bash", true},
	} {
		t.Run(tc.harness, func(t *testing.T) {
			h := Harnesses[tc.harness]
			tr := ToTrajectory(h, "scripted", readEvents(t, tc.file))
			if tr.SchemaVersion != agent.SchemaVersion || tr.SessionID == "" || tr.Agent.Name != tc.harness || tr.Agent.Version != h.Version {
				t.Errorf("root: %+v", tr)
			}
			steps := tr.Steps
			if tc.system {
				if len(steps) == 0 || steps[0].Source != agent.SourceSystem {
					t.Fatalf("want a system step first: %+v", steps)
				}
				steps = steps[1:]
			}
			if len(steps) != 3 {
				t.Fatalf("steps: %+v", tr.Steps)
			}
			if steps[0].Source != agent.SourceUser || steps[0].Message != "create the file" {
				t.Errorf("user step: %+v", steps[0])
			}
			call := steps[1]
			if call.Source != agent.SourceAgent || len(call.ToolCalls) != 1 || call.ToolCalls[0].FunctionName != tc.tool ||
				!strings.Contains(string(call.ToolCalls[0].Arguments), "echo hello") {
				t.Errorf("agent step: %+v", call)
			}
			if call.Observation == nil || len(call.Observation.Results) != 1 || call.Observation.Results[0].SourceCallID != "call1" ||
				!strings.Contains(call.Observation.Results[0].Content, "uid=0") {
				t.Errorf("observation: %+v", call.Observation)
			}
			if steps[2].Message != "done" || steps[2].Metrics == nil || steps[2].Metrics.PromptTokens != 10 {
				t.Errorf("final step: %+v", steps[2])
			}
			if tr.FinalMetrics.TotalPromptTokens != 20 || tr.FinalMetrics.TotalCompletionTokens != 10 || tr.FinalMetrics.TotalSteps != len(tr.Steps) {
				t.Errorf("final metrics: %+v", tr.FinalMetrics)
			}
			for i, s := range tr.Steps {
				if s.StepID != i+1 {
					t.Errorf("step %d has id %d", i, s.StepID)
				}
			}
		})
	}
}

// TestToTrajectoryHostile: what an agent may have written in its own
// transcript: junk lines, a result for no call, arguments that are not
// an object, a huge text, content of the wrong type.
func TestToTrajectoryHostile(t *testing.T) {
	huge := strings.Repeat("x", 1<<20)
	ev := func(v any) []byte { b, _ := json.Marshal(v); return b }
	events := [][]byte{
		[]byte("not json"),
		ev(map[string]any{"type": "message", "message": map[string]any{"role": "toolResult", "toolCallId": "nobody", "content": "x"}}),
		ev(map[string]any{"type": "message", "message": map[string]any{"role": "assistant", "content": []any{
			map[string]any{"type": "toolCall", "id": "c1", "name": "exec", "arguments": "[1,2]"},
			map[string]any{"type": "text", "text": huge},
		}}}),
		ev(map[string]any{"type": "message", "message": map[string]any{"role": "user", "content": 42}}),
		ev(map[string]any{"type": "message", "message": map[string]any{"role": "toolResult", "toolCallId": "c1", "isError": true, "content": []any{map[string]any{"type": "text", "text": "boom"}}}}),
	}
	tr := ToTrajectory(Harnesses["pi"], "m", events)
	if tr.Extra["skipped_events"] != 2 || tr.Extra["truncated"] != true {
		t.Errorf("extra: %v", tr.Extra)
	}
	if len(tr.Steps) != 2 {
		t.Fatalf("steps: %d", len(tr.Steps))
	}
	a := tr.Steps[0]
	if string(a.ToolCalls[0].Arguments) != "{}" || len(a.Message) != maxTextBytes {
		t.Errorf("arguments %s, message of %d bytes", a.ToolCalls[0].Arguments, len(a.Message))
	}
	if a.Observation == nil || a.Observation.Results[0].Content != "error: boom" {
		t.Errorf("observation: %+v", a.Observation)
	}
}
