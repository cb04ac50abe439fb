package agent_test

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/authbench/authbench/agent"
	"github.com/authbench/authbench/agent/agenttest"
	"github.com/authbench/authbench/agent/modelconfig"
)

func TestTrajectoryFields(t *testing.T) {
	srv := agenttest.New(t,
		agenttest.Reply{Content: "Looking.", ToolCalls: []agenttest.Call{
			{ID: "c1", Name: "echo", Arguments: `{"text":"a"}`},
			{ID: "c2", Name: "echo", Arguments: `{"text":"bb"}`},
		}, PromptTokens: 11, CompletionTokens: 4},
		agenttest.Reply{Content: "no tools this time", PromptTokens: 13, CompletionTokens: 2},
		agenttest.Reply{ToolCalls: []agenttest.Call{{ID: "c3", Name: "finish", Arguments: `{"summary":"done"}`}}, PromptTokens: 17, CompletionTokens: 3},
	)
	var calls []string
	l := agent.Loop{Config: config(srv.URL, true), Tools: []agent.Tool{echoTool(&calls), finishTool()}, AgentName: "authbench", AgentVersion: "0.9"}
	out := l.Run(context.Background(), "SYSTEM PROMPT", "USER TASK")
	if out.Reason != modelconfig.StopFinished {
		t.Fatalf("reason %s err %v", out.Reason, out.Err)
	}
	path := filepath.Join(t.TempDir(), "trajectory.json")
	if err := out.Trajectory.WriteFile(path); err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var tr agent.Trajectory
	if err := json.Unmarshal(data, &tr); err != nil {
		t.Fatal(err)
	}
	if tr.SchemaVersion != "ATIF-v1.4" || tr.SessionID == "" {
		t.Errorf("schema %q session %q", tr.SchemaVersion, tr.SessionID)
	}
	if a := tr.Agent; a.Name != "authbench" || a.Version != "0.9" || a.ModelName != "test-model" {
		t.Errorf("agent %+v", tr.Agent)
	}
	// system, user, agent(c1,c2), agent(no tools), user(reminder), agent(finish)
	wantSources := []string{"system", "user", "agent", "agent", "user", "agent"}
	if len(tr.Steps) != len(wantSources) {
		t.Fatalf("%d steps, want %d", len(tr.Steps), len(wantSources))
	}
	var sum agent.FinalMetrics
	for i, s := range tr.Steps {
		if s.StepID != i+1 || s.Source != wantSources[i] || s.Timestamp == "" {
			t.Errorf("step %d: id %d source %s timestamp %q", i, s.StepID, s.Source, s.Timestamp)
		}
		if (s.Metrics != nil) != (s.Source == "agent") {
			t.Errorf("step %d (%s): metrics %v", s.StepID, s.Source, s.Metrics)
		}
		if s.Metrics != nil {
			sum.TotalPromptTokens += s.Metrics.PromptTokens
			sum.TotalCompletionTokens += s.Metrics.CompletionTokens
		}
		// every tool call has exactly one result linked by id, in order
		if len(s.ToolCalls) > 0 {
			if s.Observation == nil || len(s.Observation.Results) != len(s.ToolCalls) {
				t.Fatalf("step %d: %d calls, observation %+v", s.StepID, len(s.ToolCalls), s.Observation)
			}
			for j, c := range s.ToolCalls {
				if s.Observation.Results[j].SourceCallID != c.ToolCallID {
					t.Errorf("step %d: result %d is for %q, call is %q", s.StepID, j, s.Observation.Results[j].SourceCallID, c.ToolCallID)
				}
			}
		}
	}
	if tr.Steps[0].Message != "SYSTEM PROMPT" || tr.Steps[1].Message != "USER TASK" || tr.Steps[4].Message != agent.ReminderText {
		t.Errorf("messages %q %q %q", tr.Steps[0].Message, tr.Steps[1].Message, tr.Steps[4].Message)
	}
	st := tr.Steps[2]
	var args bytes.Buffer
	if err := json.Compact(&args, st.ToolCalls[1].Arguments); err != nil {
		t.Fatal(err)
	}
	if st.Message != "Looking." || st.ModelName != "test-model" || args.String() != `{"text":"bb"}` || st.ToolCalls[1].FunctionName != "echo" {
		t.Errorf("agent step %+v", st)
	}
	if st.Observation.Results[1].Content != "BB" {
		t.Errorf("observation %+v", st.Observation.Results)
	}
	extra, _ := st.Extra[agent.StepExtraToolResults].(map[string]any)
	if c2, _ := extra["c2"].(map[string]any); c2["len"] != float64(2) {
		t.Errorf("tool extra of c2 not kept by its id: %v", st.Extra)
	}
	fm := tr.FinalMetrics
	if fm == nil || fm.TotalPromptTokens != 41 || fm.TotalCompletionTokens != 9 || fm.TotalSteps != len(tr.Steps) ||
		fm.TotalPromptTokens != sum.TotalPromptTokens || fm.TotalCompletionTokens != sum.TotalCompletionTokens {
		t.Errorf("final metrics %+v, steps sum %+v", fm, sum)
	}
	if out.Usage.PromptTokens != fm.TotalPromptTokens || out.Usage.CompletionTokens != fm.TotalCompletionTokens {
		t.Errorf("outcome usage %+v vs final metrics %+v", out.Usage, fm)
	}
	// each run has its own session id
	srv2 := agenttest.New(t, agenttest.Reply{Content: "{}"})
	out2 := (&agent.Loop{Config: config(srv2.URL, false), Final: jsonFinal}).Run(context.Background(), "", "u")
	if out2.Trajectory.SessionID == tr.SessionID || out2.Trajectory.Steps[0].Source != "user" {
		t.Errorf("second trajectory: session %q, first step %s", out2.Trajectory.SessionID, out2.Trajectory.Steps[0].Source)
	}
}

func TestTrajectoryWriteFileRefusesSymlink(t *testing.T) {
	dir := t.TempDir()
	target := filepath.Join(dir, "victim")
	if err := os.WriteFile(target, []byte("keep"), 0o644); err != nil {
		t.Fatal(err)
	}
	link := filepath.Join(dir, "trajectory.json")
	if err := os.Symlink(target, link); err != nil {
		t.Fatal(err)
	}
	tr := &agent.Trajectory{SchemaVersion: agent.SchemaVersion}
	if err := tr.WriteFile(link); err == nil {
		t.Fatal("WriteFile followed a symbolic link")
	}
	if b, _ := os.ReadFile(target); string(b) != "keep" {
		t.Errorf("target changed: %q", b)
	}
}
