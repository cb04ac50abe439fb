package installed

import (
	"encoding/json"
	"strings"
	"testing"
)

// TestClaudeTrajectoryHostile: what an agent may have written in Claude
// Code's session file: junk, a user line without a message, a result for
// no call, tool_use input that is not an object, a huge text; and what
// Claude Code itself writes: one streamed message as consecutive lines of
// one id (its text, then its tool_use), each repeating the usage, which
// make one step counted once, and an error result as blocks.
func TestClaudeTrajectoryHostile(t *testing.T) {
	huge := strings.Repeat("x", 1<<20)
	ev := func(v any) []byte { b, _ := json.Marshal(v); return b }
	usage := map[string]any{"input_tokens": 3, "cache_read_input_tokens": 4, "cache_creation_input_tokens": 1, "output_tokens": 2}
	events := [][]byte{
		[]byte("not json"),
		ev(map[string]any{"type": "user", "sessionId": "s1"}),
		ev(map[string]any{"type": "user", "message": map[string]any{"role": "user", "content": []any{map[string]any{"type": "tool_result", "tool_use_id": "nobody", "content": "x"}}}}),
		ev(map[string]any{"type": "assistant", "message": map[string]any{"id": "m1", "role": "assistant", "usage": usage, "content": []any{map[string]any{"type": "text", "text": huge}}}}),
		ev(map[string]any{"type": "assistant", "message": map[string]any{"id": "m1", "role": "assistant", "usage": usage, "content": []any{map[string]any{"type": "tool_use", "id": "c1", "name": "Bash", "input": []int{1, 2}}}}}),
		ev(map[string]any{"type": "user", "message": map[string]any{"role": "user", "content": []any{map[string]any{"type": "tool_result", "tool_use_id": "c1", "is_error": true, "content": []any{map[string]any{"type": "text", "text": "boom"}}}}}}),
		ev(map[string]any{"type": "cost-state", "totalCostUSD": 1}),
	}
	tr := ToTrajectory(Harnesses["claude-code"], "m", events)
	if tr.Extra["skipped_events"] != 3 || tr.Extra["truncated"] != true || tr.SessionID != "s1" {
		t.Errorf("extra %v, session %q", tr.Extra, tr.SessionID)
	}
	if len(tr.Steps) != 1 {
		t.Fatalf("steps: %+v", tr.Steps)
	}
	a := tr.Steps[0]
	if len(a.ToolCalls) != 1 || string(a.ToolCalls[0].Arguments) != "{}" || len(a.Message) != maxTextBytes {
		t.Errorf("calls %+v, message of %d bytes", a.ToolCalls, len(a.Message))
	}
	if a.Observation == nil || len(a.Observation.Results) != 1 || a.Observation.Results[0].Content != "error: boom" {
		t.Errorf("observation %+v", a.Observation)
	}
	if m := a.Metrics; m == nil || m.PromptTokens != 8 || m.CachedTokens != 4 || m.CompletionTokens != 2 || tr.FinalMetrics.TotalPromptTokens != 8 {
		t.Errorf("metrics %+v, final %+v: want the message's usage once (prompt = input + cache creation + cache read)", m, tr.FinalMetrics)
	}
}

// TestCodexTrajectoryHostile: Codex's rollout with junk, a payload that
// is not an object, an output for no call, arguments that are not an
// object, a huge text, an unknown item type; a custom tool call (its
// freeform input kept as {"input": …}) and its output; token usage
// closing the response's step, and usage with no open step ignored.
func TestCodexTrajectoryHostile(t *testing.T) {
	huge := strings.Repeat("x", 1<<20)
	line := func(typ string, payload any) []byte {
		b, _ := json.Marshal(map[string]any{"timestamp": "t", "type": typ, "payload": payload})
		return b
	}
	usage := func(in, out int) []byte {
		return line("token_usage_record", map[string]any{"usage": map[string]any{"input_tokens": in, "cached_input_tokens": 1, "output_tokens": out}})
	}
	events := [][]byte{
		[]byte("{"),
		line("response_item", []int{1}),
		line("session_meta", map[string]any{"id": "thread-1"}),
		line("response_item", map[string]any{"type": "function_call_output", "call_id": "nobody", "output": "x"}),
		line("response_item", map[string]any{"type": "message", "role": "assistant", "content": []any{map[string]any{"type": "output_text", "text": huge}}}),
		line("response_item", map[string]any{"type": "function_call", "call_id": "c1", "name": "exec_command", "arguments": "[1,2]"}),
		line("response_item", map[string]any{"type": "custom_tool_call", "call_id": "c2", "name": "apply_patch", "input": "*** Begin Patch"}),
		usage(5, 2),
		usage(100, 100),
		line("response_item", map[string]any{"type": "function_call_output", "call_id": "c1", "output": []any{map[string]any{"type": "input_text", "text": "boom"}}}),
		line("response_item", map[string]any{"type": "custom_tool_call_output", "call_id": "c2", "output": "applied"}),
		line("response_item", map[string]any{"type": "ghost_snapshot"}),
		line("event_msg", map[string]any{"type": "token_count"}),
	}
	tr := ToTrajectory(Harnesses["codex"], "m", events)
	if tr.Extra["skipped_events"] != 4 || tr.Extra["truncated"] != true || tr.SessionID != "thread-1" {
		t.Errorf("extra %v, session %q", tr.Extra, tr.SessionID)
	}
	if len(tr.Steps) != 1 {
		t.Fatalf("steps: %+v", tr.Steps)
	}
	a := tr.Steps[0]
	if len(a.ToolCalls) != 2 || string(a.ToolCalls[0].Arguments) != "{}" || string(a.ToolCalls[1].Arguments) != `{"input":"*** Begin Patch"}` || len(a.Message) != maxTextBytes {
		t.Errorf("calls %+v, message of %d bytes", a.ToolCalls, len(a.Message))
	}
	if a.Observation == nil || len(a.Observation.Results) != 2 || a.Observation.Results[0].Content != "boom" || a.Observation.Results[1].Content != "applied" {
		t.Errorf("observation %+v", a.Observation)
	}
	if m := a.Metrics; m == nil || m.PromptTokens != 5 || m.CompletionTokens != 2 || m.CachedTokens != 1 || tr.FinalMetrics.TotalPromptTokens != 5 {
		t.Errorf("metrics %+v, final %+v", m, tr.FinalMetrics)
	}
}
