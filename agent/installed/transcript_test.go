package installed

import (
	"bytes"
	"database/sql"
	"encoding/json"
	"os"
	"path/filepath"
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

// TestToTrajectory: the sessions OpenClaw 2026.9.6, pi 1.6.0, Qwen Code
// 0.24.4, opencode 1.18.33, Claude Code 2.1.332 and Codex 0.171.0
// recorded (Claude Code's with its bookkeeping lines but the prompt's
// attachments left out, Codex's with long texts cut)
// of one scripted turn (an exec/bash call, then "done") become the same
// ATIF steps: the task as a user step, the call with its arguments and
// its result as an observation, the final text, token usage summed.
func TestToTrajectory(t *testing.T) {
	for _, tc := range []struct {
		harness, file, tool string
		lead                []string // the steps before the prompt's
		prompt              string
	}{
		{"openclaw", "testdata/openclaw-events.jsonl", "exec", nil, "create the file"},
		{"pi", "testdata/pi-session.jsonl", "bash", []string{agent.SourceSystem}, "create the file"},
		{"qwen-code", "testdata/qwen-chat.jsonl", "run_shell_command", nil, "create the file"},
		// opencode run quotes an argument holding spaces as it joins them
		// into its message: the model sees the quotes too.
		{"opencode", "testdata/opencode-messages.jsonl", "bash", nil, `"create the file"`},
		// Claude Code writes the call's answer (a text and a tool_use) as
		// two lines of one message, each with its usage: one step.
		{"claude-code", "testdata/claude-session.jsonl", "Bash", nil, "create the file"},
		// Codex sends its instructions as a developer message and its
		// environment (the working directory, the shell) as a user one.
		{"codex", "testdata/codex-rollout.jsonl", "exec_command", []string{agent.SourceSystem, agent.SourceUser}, "create the file"},
	} {
		t.Run(tc.harness, func(t *testing.T) {
			h := Harnesses[tc.harness]
			tr := ToTrajectory(h, "scripted", readEvents(t, tc.file))
			if tr.SchemaVersion != agent.SchemaVersion || tr.SessionID == "" || tr.Agent.Name != tc.harness || tr.Agent.Version != h.Version {
				t.Errorf("root: %+v", tr)
			}
			steps := tr.Steps
			for i, src := range tc.lead {
				if len(steps) <= i || steps[i].Source != src {
					t.Fatalf("want %v steps first: %+v", tc.lead, steps)
				}
			}
			steps = steps[len(tc.lead):]
			if len(steps) != 3 {
				t.Fatalf("steps: %+v", tr.Steps)
			}
			if steps[0].Source != agent.SourceUser || steps[0].Message != tc.prompt {
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

// TestToTrajectoryHostileChats: the same hostile lines in Qwen Code's
// chat and opencode's messages: junk, a result for no call, arguments
// that are not an object, a huge text, an event of an unknown kind.
func TestToTrajectoryHostileChats(t *testing.T) {
	huge := strings.Repeat("x", 1<<20)
	ev := func(v any) []byte { b, _ := json.Marshal(v); return b }
	qwen := [][]byte{
		[]byte("not json"),
		ev(map[string]any{"type": "tool_result", "message": map[string]any{"parts": []any{map[string]any{"functionResponse": map[string]any{"id": "nobody", "response": map[string]any{"output": "x"}}}}}}),
		ev(map[string]any{"type": "assistant", "message": map[string]any{"parts": []any{
			map[string]any{"functionCall": map[string]any{"id": "c1", "name": "run_shell_command", "args": []int{1, 2}}},
			map[string]any{"text": huge},
		}}}),
		ev(map[string]any{"type": "tool_result", "message": map[string]any{"parts": []any{map[string]any{"functionResponse": map[string]any{"id": "c1", "response": map[string]any{"error": "boom"}}}}}}),
		ev(map[string]any{"type": "compaction"}),
	}
	opencode := [][]byte{
		[]byte("{"),
		ev(map[string]any{"message": map[string]any{"role": "assistant"}, "parts": []any{
			map[string]any{"type": "tool", "tool": "bash", "callID": "c1", "state": map[string]any{"status": "error", "input": "[1,2]", "error": "boom"}},
			map[string]any{"type": "text", "text": huge},
		}}),
		ev(map[string]any{"message": map[string]any{"role": "system"}}),
	}
	for _, tc := range []struct {
		harness string
		events  [][]byte
		skipped int
	}{{"qwen-code", qwen, 3}, {"opencode", opencode, 2}} {
		tr := ToTrajectory(Harnesses[tc.harness], "m", tc.events)
		if tr.Extra["skipped_events"] != tc.skipped || tr.Extra["truncated"] != true {
			t.Errorf("%s: extra %v", tc.harness, tr.Extra)
		}
		if len(tr.Steps) != 1 {
			t.Fatalf("%s: steps %+v", tc.harness, tr.Steps)
		}
		a := tr.Steps[0]
		if len(a.ToolCalls) != 1 || string(a.ToolCalls[0].Arguments) != "{}" || len(a.Message) != maxTextBytes {
			t.Errorf("%s: calls %+v, message of %d bytes", tc.harness, a.ToolCalls, len(a.Message))
		}
		if a.Observation == nil || len(a.Observation.Results) != 1 || !strings.HasPrefix(a.Observation.Results[0].Content, "error: boom") {
			t.Errorf("%s: observation %+v", tc.harness, a.Observation)
		}
	}
}

// TestOpencodeEventsFromItsDatabase: opencode's messages and parts, read
// from its database through the reader's query (parts as JSON, in
// order, a message's parts together), become its steps.
func TestOpencodeEventsFromItsDatabase(t *testing.T) {
	upper := t.TempDir()
	file := filepath.Join(upper, opencodeDB)
	if err := os.MkdirAll(filepath.Dir(file), 0o700); err != nil {
		t.Fatal(err)
	}
	db, err := sql.Open("sqlite", "file:"+file)
	if err != nil {
		t.Fatal(err)
	}
	for _, q := range []string{
		`CREATE TABLE message (id TEXT PRIMARY KEY, session_id TEXT, time_created INTEGER, time_updated INTEGER, data TEXT)`,
		`CREATE TABLE part (id TEXT PRIMARY KEY, message_id TEXT, session_id TEXT, time_created INTEGER, time_updated INTEGER, data TEXT)`,
		`INSERT INTO message VALUES ('m1', 's', 1, 1, '{"role":"user","time":{"created":1}}'), ('m2', 's', 2, 2, '{"role":"assistant","modelID":"x","tokens":{"input":7,"output":3,"cache":{"read":1}}}')`,
		`INSERT INTO part VALUES ('p1', 'm1', 's', 1, 1, '{"type":"text","text":"do it"}'),
			('p3', 'm2', 's', 2, 2, '{"type":"text","text":"done"}'),
			('p2', 'm2', 's', 2, 2, '{"type":"tool","tool":"bash","callID":"c1","state":{"status":"completed","input":{"command":"ls"},"output":"a.txt"}}')`,
	} {
		if _, err := db.Exec(q); err != nil {
			t.Fatal(err)
		}
	}
	db.Close()
	h := Harnesses["opencode"]
	events, _, err := Transcript(h, upper)
	if err != nil || len(events) != 2 {
		t.Fatalf("%d events: %v", len(events), err)
	}
	tr := ToTrajectory(h, "x", events)
	if len(tr.Steps) != 2 || tr.Steps[0].Message != "do it" || tr.SessionID != "s" {
		t.Fatalf("steps %+v", tr.Steps)
	}
	a := tr.Steps[1]
	if a.Message != "done" || len(a.ToolCalls) != 1 || a.ToolCalls[0].FunctionName != "bash" || string(a.ToolCalls[0].Arguments) != `{"command":"ls"}` ||
		a.Observation == nil || a.Observation.Results[0].Content != "a.txt" || a.Metrics == nil || a.Metrics.PromptTokens != 7 {
		t.Errorf("agent step %+v", a)
	}
}
