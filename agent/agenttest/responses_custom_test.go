package agenttest

import (
	"context"
	"strings"
	"testing"

	"github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/option"
	"github.com/openai/openai-go/v3/responses"
)

// TestResponsesCustomCallReadByTheSDK: the official OpenAI Go client
// reads the scripted freeform tool call: the events in order, the input
// rebuilt from its deltas, the completed response's custom_tool_call and
// usage; the next request's custom_tool_call_output is the last custom
// tool result (and not a function call's).
func TestResponsesCustomCallReadByTheSDK(t *testing.T) {
	patch := "*** Begin Patch\n*** Add File: a.txt\n+hi\n*** End Patch\n"
	s := NewResponses(t, ResponsesCustomCall("call_p", "apply_patch", patch, 40, 9), Reply{Content: "done"})
	client := openai.NewClient(option.WithBaseURL(s.URL), option.WithAPIKey("k"), option.WithMaxRetries(0))
	stream := client.Responses.NewStreaming(context.Background(), responses.ResponseNewParams{
		Model: "m", Input: responses.ResponseNewParamsInputUnion{OfString: openai.String("patch it")}})
	var types []string
	var input strings.Builder
	var done responses.Response
	for stream.Next() {
		ev := stream.Current()
		types = append(types, ev.Type)
		switch ev.Type {
		case "response.custom_tool_call_input.delta":
			input.WriteString(ev.Delta)
		case "response.completed":
			done = ev.Response
		}
	}
	if err := stream.Err(); err != nil {
		t.Fatal(err)
	}
	want := "response.created response.output_item.added response.custom_tool_call_input.delta response.custom_tool_call_input.delta " +
		"response.custom_tool_call_input.done response.output_item.done response.completed"
	if strings.Join(types, " ") != want {
		t.Errorf("events %q", types)
	}
	if input.String() != patch || done.Usage.InputTokens != 40 || done.Usage.OutputTokens != 9 || len(done.Output) != 1 {
		t.Fatalf("input %q, completed response %+v", input.String(), done)
	}
	if call := done.Output[0].AsCustomToolCall(); call.CallID != "call_p" || call.Name != "apply_patch" || call.Input != patch {
		t.Errorf("output %+v", done.Output[0])
	}
	out := responses.ResponseInputItemParamOfCustomToolCallOutput("call_p", "Success. Updated the following files:\nA a.txt\n")
	if _, err := client.Responses.New(context.Background(), responses.ResponseNewParams{Model: "m",
		Input: responses.ResponseNewParamsInputUnion{OfInputItemList: responses.ResponseInputParam{out}}}); err != nil {
		t.Fatal(err)
	}
	req := s.Requests()[1]
	if got := LastCustomToolResult(req); got != "Success. Updated the following files:\nA a.txt\n" || LastToolResult(req) != "" {
		t.Errorf("LastCustomToolResult %q, LastToolResult %q", got, LastToolResult(req))
	}
}
