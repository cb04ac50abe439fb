package generate

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/authbench/authbench/agent/agenttest"
	"github.com/authbench/authbench/policy"
	"github.com/authbench/authbench/runapi"
)

// TestSTGenerator runs st: against a scripted server in two stages: the
// sufficiency stage explores (a tool call, run in the read-only sandbox)
// and answers a wide policy; the tightness stage, offered no tools, is
// given the task and that answer and answers the final policy. The record
// keeps both answers, the final policy is the tightness answer, tokens are
// the stages' sum; a malformed tightness answer (after its repair) makes
// the record invalid with the stage named, and an invalid sufficiency
// answer ends the generator before the tightness stage.
func TestSTGenerator(t *testing.T) {
	setup(t)
	task := fixture(t, "hello-standard")
	wide := `{"read": ["/app/**", "/etc/**"], "write": ["/app/**"], "execute": ["/usr/bin/**"]}`
	tight := `{"read": ["/app/input.txt"], "write": ["/app/count.txt"], "execute": ["/usr/bin/wc"]}`

	t.Run("two stages", func(t *testing.T) {
		var stage2 agenttest.Request
		srv := agenttest.NewFunc(t, func(n int, req agenttest.Request) agenttest.Reply {
			switch n {
			case 0:
				return agenttest.Reply{ToolCalls: []agenttest.Call{{ID: "c1", Name: "list_dir", Arguments: `{"path": "/app"}`}}, PromptTokens: 100, CompletionTokens: 10}
			case 1:
				return agenttest.Reply{Content: wide, PromptTokens: 200, CompletionTokens: 20}
			case 2:
				stage2 = req
				return agenttest.Reply{Content: "```json\n" + tight + "\n```", PromptTokens: 50, CompletionTokens: 5}
			}
			t.Errorf("request %d: the generator should have ended", n)
			return agenttest.Reply{Status: 500}
		})
		o := runOptions(t, task, "st:test-model")
		o.Model = modelConfig(t, srv, true, 0)
		rec, err := Run(context.Background(), o)
		if err != nil {
			t.Fatal(err)
		}
		if !rec.Valid || len(rec.Stages) != 2 {
			t.Fatalf("valid %v reason %q stages %+v", rec.Valid, rec.Reason, rec.Stages)
		}
		s, ti := rec.Stages[0], rec.Stages[1]
		if s.Stage != StageSufficiency || s.PolicyRaw != wide || !s.Valid || s.Turns != 2 || s.Tokens == nil || s.Tokens.Prompt != 300 {
			t.Errorf("sufficiency stage %+v tokens %+v", s, s.Tokens)
		}
		if ti.Stage != StageTightness || !strings.Contains(ti.PolicyRaw, tight) || !ti.Valid || ti.Turns != 1 || ti.Tokens == nil || ti.Tokens.Completion != 5 {
			t.Errorf("tightness stage %+v tokens %+v", ti, ti.Tokens)
		}
		want, err := policy.ParsePolicy([]byte(tight), "want")
		if err != nil {
			t.Fatal(err)
		}
		wantJSON, err := want.MarshalJSON()
		if err != nil {
			t.Fatal(err)
		}
		if string(rec.Policy) != string(wantJSON) || rec.ParsedPolicy() == nil {
			t.Errorf("final policy %s, want the tightness answer %s", rec.Policy, tight)
		}
		if rec.Tokens == nil || rec.Tokens.Prompt != 350 || rec.Tokens.Completion != 35 || rec.Turns != 3 {
			t.Errorf("tokens %+v turns %d, want the stages' sums", rec.Tokens, rec.Turns)
		}
		if len(stage2.Tools) != 0 {
			t.Errorf("the tightness stage was offered tools %v", stage2.Tools)
		}
		if u := agenttest.LastUserMessage(stage2); !strings.Contains(u, wide) || !strings.Contains(u, "hello") && !strings.Contains(u, task.Instruction[:20]) {
			t.Errorf("the tightness stage was not given the task and the sufficiency answer: %q", u)
		}
		if !strings.Contains(string(stage2.Body), "sensitive") {
			t.Error("the tightness stage's prompt does not forbid sensitive paths")
		}
		for _, f := range []string{runapi.FileTrajectory, runapi.FileTightnessTrajectory} {
			if _, err := os.Stat(filepath.Join(o.Run.Dir, f)); err != nil {
				t.Error(err)
			}
		}
		data, err := os.ReadFile(filepath.Join(o.Run.Dir, runapi.FileGeneration))
		if err != nil {
			t.Fatal(err)
		}
		var back runapi.GenerationRecord
		if err := json.Unmarshal(data, &back); err != nil || len(back.Stages) != 2 || back.Stages[0].PolicyRaw != wide {
			t.Errorf("generation.json stages: %v %+v", err, back.Stages)
		}
		noKeyIn(t, o.Run.Dir)
	})

	t.Run("malformed tightness answer", func(t *testing.T) {
		srv := agenttest.New(t, agenttest.Reply{Content: wide}, agenttest.Reply{Content: "just /app"}, agenttest.Reply{Content: `{"read": ["app"]`})
		o := runOptions(t, task, "st:test-model")
		o.Model = modelConfig(t, srv, false, 0)
		rec, err := Run(context.Background(), o)
		if err != nil {
			t.Fatal(err)
		}
		if rec.Valid || rec.Policy != nil || !strings.HasPrefix(rec.Reason, "tightness stage: invalid policy after a repair") {
			t.Fatalf("valid %v policy %s reason %q", rec.Valid, rec.Policy, rec.Reason)
		}
		if len(rec.Stages) != 2 || !rec.Stages[0].Valid || rec.Stages[0].PolicyRaw != wide || rec.Stages[1].Valid || rec.PolicyRaw != `{"read": ["app"]` {
			t.Errorf("stages %+v answer %q", rec.Stages, rec.PolicyRaw)
		}
	})

	t.Run("invalid sufficiency answer", func(t *testing.T) {
		srv := agenttest.New(t, agenttest.Reply{Content: "no"}, agenttest.Reply{Content: "still no"})
		o := runOptions(t, task, "st:test-model")
		o.Model = modelConfig(t, srv, false, 0)
		rec, err := Run(context.Background(), o)
		if err != nil {
			t.Fatal(err)
		}
		if rec.Valid || !strings.HasPrefix(rec.Reason, "sufficiency stage: ") || len(rec.Stages) != 1 || len(srv.Requests()) != 2 {
			t.Errorf("valid %v reason %q stages %+v requests %d", rec.Valid, rec.Reason, rec.Stages, len(srv.Requests()))
		}
	})
}

// TestSTPrompts: the sufficiency prompt is the model generator's with its
// last rule turned round (grant everything needed); the tightness prompt
// carries the task and the first answer.
func TestSTPrompts(t *testing.T) {
	if SufficiencyRules == ModelRules || !strings.Contains(SufficiencyRules, "grant everything the task needs to succeed") || strings.Contains(SufficiencyRules, "nothing more") {
		t.Errorf("sufficiency rules:\n%s", SufficiencyRules)
	}
	if !strings.HasPrefix(SufficiencyRules, ModelRules[:200]) {
		t.Error("the sufficiency rules do not explore as the model generator's do")
	}
}

// TestSTNeedsAModel: st: without a model configuration is a generation
// that could not be carried out, said as such (not as a stage's answer).
func TestSTNeedsAModel(t *testing.T) {
	o := runOptions(t, fixture(t, "hello-standard"), "st:test-model")
	rec, err := Run(context.Background(), o)
	if err == nil || rec.Valid || !strings.Contains(rec.Reason, "could not be carried out") || !strings.Contains(rec.Error, "no model configuration") {
		t.Errorf("err %v valid %v reason %q error %q", err, rec.Valid, rec.Reason, rec.Error)
	}
}
