package agenttest

import (
	"encoding/json"
	"fmt"
	"io"
)

// ResponsesCustomCall is a Responses reply (for NewResponses) that
// calls a freeform ("custom") tool, as Codex's apply_patch is offered to
// the models whose metadata says so: one custom_tool_call output item
// (call_id id, name, its raw input text) streamed as the Responses
// server-sent events (response.created, response.output_item.added, the
// input in two response.custom_tool_call_input.delta events,
// response.custom_tool_call_input.done, response.output_item.done,
// response.completed with the usage's input_tokens and output_tokens).
// It is always streamed (Codex asks for a stream), its response's model
// empty (a Raw reply does not see the request).
func ResponsesCustomCall(id, name, input string, promptTokens, completionTokens int) Reply {
	item := map[string]any{"id": "ctc_agenttest", "type": "custom_tool_call", "status": "completed", "call_id": id, "name": name, "input": input}
	return Reply{Header: map[string]string{"Content-Type": "text/event-stream"}, Raw: func(w io.Writer) error {
		seq := 0
		send := func(event string, v map[string]any) error {
			v["type"], v["sequence_number"] = event, seq
			seq++
			b, err := json.Marshal(v)
			if err != nil {
				return err
			}
			_, err = fmt.Fprintf(w, "event: %s\ndata: %s\n\n", event, b)
			return err
		}
		started := response("", Reply{}, "in_progress")
		delete(started, "usage")
		added := map[string]any{}
		for k, v := range item {
			added[k] = v
		}
		added["status"], added["input"] = "in_progress", ""
		done := response("", Reply{PromptTokens: promptTokens, CompletionTokens: completionTokens}, "completed")
		done["output"] = []any{item}
		if err := send("response.created", map[string]any{"response": started}); err != nil {
			return err
		}
		if err := send("response.output_item.added", map[string]any{"output_index": 0, "item": added}); err != nil {
			return err
		}
		for _, part := range halves(input) {
			if err := send("response.custom_tool_call_input.delta", map[string]any{"output_index": 0, "item_id": item["id"], "delta": part}); err != nil {
				return err
			}
		}
		if err := send("response.custom_tool_call_input.done", map[string]any{"output_index": 0, "item_id": item["id"], "input": input}); err != nil {
			return err
		}
		if err := send("response.output_item.done", map[string]any{"output_index": 0, "item": item}); err != nil {
			return err
		}
		return send("response.completed", map[string]any{"response": done})
	}}
}

// LastCustomToolResult returns the output of the last Responses
// custom_tool_call_output item in req ("" when there is none).
func LastCustomToolResult(req Request) string {
	for i := len(req.Messages) - 1; i >= 0; i-- {
		if m := req.Messages[i]; m["type"] == "custom_tool_call_output" {
			return contentText(m["output"])
		}
	}
	return ""
}
