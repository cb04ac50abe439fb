package agenttest

import (
	"context"
	"strings"
	"testing"

	"github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/option"
	"github.com/openai/openai-go/v3/responses"
)

// TestResponsesStreamReadByTheSDK: the official OpenAI Go client reads the
// scripted stream (an outside check of the events' shape): the events in
// order, the text and the function call's arguments rebuilt from their
// deltas, the usage of response.completed; the server saw the request's
// input items, tools and bearer key.
func TestResponsesStreamReadByTheSDK(t *testing.T) {
	s := NewResponses(t, Reply{Content: "hello world", ToolCalls: []Call{{ID: "call_1", Name: "exec_command", Arguments: `{"cmd":"ls -la"}`}},
		PromptTokens: 30, CompletionTokens: 4})
	client := openai.NewClient(option.WithBaseURL(s.URL), option.WithAPIKey("k"), option.WithMaxRetries(0))
	stream := client.Responses.NewStreaming(context.Background(), responses.ResponseNewParams{
		Model: "m",
		Input: responses.ResponseNewParamsInputUnion{OfString: openai.String("do it")},
		Tools: []responses.ToolUnionParam{{OfFunction: &responses.FunctionToolParam{Name: "exec_command", Parameters: map[string]any{"type": "object"}}}},
	})
	var types []string
	var text, args strings.Builder
	var done responses.Response
	for stream.Next() {
		ev := stream.Current()
		types = append(types, ev.Type)
		switch ev.Type {
		case "response.output_text.delta":
			text.WriteString(ev.Delta)
		case "response.function_call_arguments.delta":
			args.WriteString(ev.Delta)
		case "response.completed":
			done = ev.Response
		}
	}
	if err := stream.Err(); err != nil {
		t.Fatal(err)
	}
	if types[0] != "response.created" || types[len(types)-1] != "response.completed" || strings.Count(strings.Join(types, " "), "response.output_item.done") != 2 {
		t.Errorf("events %q", types)
	}
	if text.String() != "hello world" || args.String() != `{"cmd":"ls -la"}` {
		t.Errorf("text %q, arguments %q", text.String(), args.String())
	}
	if done.Usage.InputTokens != 30 || done.Usage.OutputTokens != 4 || len(done.Output) != 2 {
		t.Fatalf("completed response %+v", done)
	}
	call := done.Output[1].AsFunctionCall()
	if call.CallID != "call_1" || call.Name != "exec_command" || call.Arguments != `{"cmd":"ls -la"}` || done.OutputText() != "hello world" {
		t.Errorf("output %+v", done.Output)
	}
	req := s.Requests()[0]
	if !req.Stream || req.Authorization != "Bearer k" || strings.Join(req.Tools, ",") != "exec_command" || req.Path != "/v1/responses" ||
		len(req.Messages) != 1 || req.Messages[0]["content"] != "do it" {
		t.Errorf("request %+v", req)
	}
}

// TestResponsesJSONAndToolResult: a request that does not stream gets
// one response body; the function_call_output among its input items is
// the last tool result; an extra request fails the test.
func TestResponsesJSONAndToolResult(t *testing.T) {
	rec := &recorder{TB: t}
	s := NewResponses(rec, Reply{Content: "done", PromptTokens: 5, CompletionTokens: 1})
	client := openai.NewClient(option.WithBaseURL(s.URL), option.WithAPIKey("k"), option.WithMaxRetries(0))
	output := responses.ResponseInputItemParamOfFunctionCallOutput("a.txt\n")
	output.OfFunctionCallOutput.CallID = openai.String("call_1")
	input := responses.ResponseInputParam{responses.ResponseInputItemParamOfFunctionCall(`{"cmd":"ls"}`, "call_1", "exec_command"), output}
	res, err := client.Responses.New(context.Background(), responses.ResponseNewParams{Model: "m", Input: responses.ResponseNewParamsInputUnion{OfInputItemList: input}})
	if err != nil {
		t.Fatal(err)
	}
	if res.OutputText() != "done" || res.Usage.InputTokens != 5 || res.Status != "completed" {
		t.Errorf("response %+v", res)
	}
	if got := LastToolResult(s.Requests()[0]); got != "a.txt\n" {
		t.Errorf("LastToolResult %q", got)
	}
	if _, err := client.Responses.New(context.Background(), responses.ResponseNewParams{Model: "m"}); err == nil || len(rec.errors) != 1 {
		t.Errorf("extra request: %v, test errors %q", err, rec.errors)
	}
}
