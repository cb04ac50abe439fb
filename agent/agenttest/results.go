package agenttest

// toolResult is the text of the tool result m holds, if it holds one: a
// chat-completions "tool" message, the last tool_result block of a
// Messages user message, or a Responses function_call_output item.
func toolResult(m map[string]any) (string, bool) {
	switch {
	case m["role"] == "tool":
		return contentText(m["content"]), true
	case m["type"] == "function_call_output":
		return contentText(m["output"]), true
	case m["role"] == "user":
		blocks, _ := m["content"].([]any)
		for i := len(blocks) - 1; i >= 0; i-- {
			if b, ok := blocks[i].(map[string]any); ok && b["type"] == "tool_result" {
				return contentText(b["content"]), true
			}
		}
	}
	return "", false
}
