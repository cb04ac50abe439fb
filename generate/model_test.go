package generate

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/authbench/authbench/agent/agenttest"
	"github.com/authbench/authbench/agent/modelconfig"
	"github.com/authbench/authbench/runapi"
)

const testKey = "sk-test-generate-secret"

func modelConfig(t *testing.T, srv *agenttest.Server, stream bool, maxTurns int) *modelconfig.Config {
	t.Helper()
	cfg, err := modelconfig.Config{BaseURL: srv.URL, APIKey: testKey, Model: "test-model", MaxTurns: maxTurns, Stream: stream,
		CallTimeout: modelconfig.Duration(20 * time.Second)}.Resolve(nil)
	if err != nil {
		t.Fatal(err)
	}
	return &cfg
}

// noKeyIn fails when a file of the generation's directory holds the key.
func noKeyIn(t *testing.T, dir string) {
	t.Helper()
	files, _ := filepath.Glob(filepath.Join(dir, "*"))
	for _, f := range files {
		if st, err := os.Stat(f); err != nil || !st.Mode().IsRegular() {
			continue
		}
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		if strings.Contains(string(data), testKey) {
			t.Errorf("%s holds the API key", filepath.Base(f))
		}
	}
}

// TestOpenAIGenerator runs the openai generator end to end against a
// scripted OpenAI-compatible server, streaming and not: tool calls over
// several turns (executed in the read-only sandbox), a tool that does not
// exist, a 500 then a 429 with Retry-After (retried), a malformed final
// answer repaired by one re-ask with the parser's error; then a model
// that never answers within the turn limit, and one whose answer stays
// invalid after the repair.
func TestOpenAIGenerator(t *testing.T) {
	setup(t)
	task := fixture(t, "hello-standard")
	valid := `{"read": ["/app/input.txt"], "write": ["/app/count.txt"], "execute": ["/usr/bin/wc"]}`
	for _, stream := range []bool{false, true} {
		name := "plain"
		if stream {
			name = "stream"
		}
		t.Run(name, func(t *testing.T) {
			var listing, content, repairAsk string
			srv := agenttest.NewFunc(t, func(n int, req agenttest.Request) agenttest.Reply {
				switch n {
				case 0:
					return agenttest.Reply{ToolCalls: []agenttest.Call{{ID: "c1", Name: "list_dir", Arguments: `{"path": "/app"}`}}, PromptTokens: 100, CompletionTokens: 10}
				case 1:
					listing = agenttest.LastToolResult(req)
					return agenttest.Reply{ToolCalls: []agenttest.Call{
						{ID: "c2", Name: "read_file", Arguments: `{"path": "/app/input.txt"}`},
						{ID: "c3", Name: "rm_rf", Arguments: `{}`},
					}}
				case 2:
					return agenttest.Reply{Status: 500, Body: `{"error": {"message": "overloaded"}}`}
				case 3:
					return agenttest.Reply{Status: 429, Header: map[string]string{"Retry-After": "1"}, Body: `{"error": {"message": "slow down"}}`}
				case 4:
					content = string(req.Body)
					return agenttest.Reply{Content: "```json\n{\"read\": [\"/app/input.txt\"\n```"}
				case 5:
					repairAsk = agenttest.LastUserMessage(req)
					return agenttest.Reply{Content: valid, PromptTokens: 300, CompletionTokens: 30}
				}
				t.Errorf("request %d: the loop should have ended", n)
				return agenttest.Reply{Status: 500}
			})
			o := runOptions(t, task, "openai:test-model")
			o.Model = modelConfig(t, srv, stream, 0)
			rec, err := Run(context.Background(), o)
			if err != nil {
				t.Fatal(err)
			}
			if !rec.Valid || rec.AnswerFrom != FromModel || rec.StopReason != string(modelconfig.StopFinished) {
				t.Fatalf("valid %v from %s stop %s reason %q", rec.Valid, rec.AnswerFrom, rec.StopReason, rec.Reason)
			}
			if rec.ToolCalls != 2 || rec.Turns != 4 || rec.Tokens == nil || rec.Tokens.Total < 440 {
				t.Errorf("tool calls %d turns %d tokens %+v", rec.ToolCalls, rec.Turns, rec.Tokens)
			}
			if !strings.Contains(listing, "input.txt") {
				t.Errorf("list_dir /app answered %q", listing)
			}
			if !strings.Contains(content, "rm_rf") {
				t.Errorf("the unknown tool's answer did not reach the model: %q", content)
			}
			if !strings.Contains(repairAsk, "JSON") {
				t.Errorf("the repair's re-ask %q does not carry the parser's error", repairAsk)
			}
			if !contains(rec.FilesRead, "/app/input.txt") {
				t.Errorf("files read: %v", rec.FilesRead)
			}
			for i, req := range srv.Requests() {
				if req.Authorization != "Bearer "+testKey || req.Model != "test-model" || req.Stream != stream {
					t.Errorf("request %d: auth %q model %q stream %v", i, req.Authorization, req.Model, req.Stream)
				}
			}
			if _, err := os.Stat(filepath.Join(o.Run.Dir, runapi.FileTrajectory)); err != nil {
				t.Error(err)
			}
			if strings.Contains(string(rec.Model), testKey) || !strings.Contains(string(rec.Model), "test-model") {
				t.Errorf("model in the record: %s", rec.Model)
			}
			noKeyIn(t, o.Run.Dir)
		})
	}

	t.Run("turn limit", func(t *testing.T) {
		srv := agenttest.NewFunc(t, func(n int, req agenttest.Request) agenttest.Reply {
			return agenttest.Reply{ToolCalls: []agenttest.Call{{ID: "c", Name: "stat", Arguments: `{"path": "/app"}`}}}
		})
		o := runOptions(t, task, "openai:test-model")
		o.Model = modelConfig(t, srv, false, 3)
		rec, err := Run(context.Background(), o)
		if err != nil {
			t.Fatal(err)
		}
		if rec.Valid || rec.Reason != "no answer within 3 turns" || rec.Turns != 3 || len(srv.Requests()) != 3 {
			t.Errorf("valid %v reason %q turns %d requests %d", rec.Valid, rec.Reason, rec.Turns, len(srv.Requests()))
		}
		noKeyIn(t, o.Run.Dir)
	})

	t.Run("invalid after repair", func(t *testing.T) {
		srv := agenttest.New(t, agenttest.Reply{Content: "the agent needs /app"}, agenttest.Reply{Content: `{"read": ["app"], "write": [], "execute": []}`})
		o := runOptions(t, task, "openai:test-model")
		o.Model = modelConfig(t, srv, false, 0)
		rec, err := Run(context.Background(), o)
		if err != nil {
			t.Fatal(err)
		}
		if rec.Valid || !strings.HasPrefix(rec.Reason, "invalid policy after a repair") || rec.PolicyRaw != `{"read": ["app"], "write": [], "execute": []}` {
			t.Errorf("valid %v reason %q answer %q", rec.Valid, rec.Reason, rec.PolicyRaw)
		}
	})
}
