package taskrun

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/authbench/authbench/agent"
	"github.com/authbench/authbench/agent/agenttest"
	"github.com/authbench/authbench/tasks"
	"go.uber.org/zap/zaptest"
)

// testAPIKey is the key the model agent tests send; no file of a run may
// hold it.
const testAPIKey = "sk-test-5e5a1b7c-never-stored"

// shellCall is a scripted shell tool call.
func shellCall(id, command string) agenttest.Call {
	args, _ := json.Marshal(map[string]any{"command": command})
	return agenttest.Call{ID: id, Name: "shell", Arguments: string(args)}
}

func toolCall(id, name string, args map[string]any) agenttest.Call {
	data, _ := json.Marshal(args)
	return agenttest.Call{ID: id, Name: name, Arguments: string(data)}
}

func calls(c ...agenttest.Call) agenttest.Reply {
	return agenttest.Reply{ToolCalls: c, PromptTokens: 100, CompletionTokens: 10}
}

func finish(summary string) agenttest.Reply {
	return calls(toolCall("fin", "finish", map[string]any{"summary": summary}))
}

// runModel runs task with an openai:test-model agent against srv.
func runModel(t *testing.T, task *tasks.Task, source string, srv *agenttest.Server, cfg agent.Config, dir string) *Result {
	t.Helper()
	cfg.BaseURL, cfg.APIKey = srv.URL, testAPIKey
	cfg.Model = "test-model"
	res, err := runWith(t, Options{Task: task, Source: source, Agent: "openai:test-model", Model: &cfg, Dir: dir, Log: zaptest.NewLogger(t)})
	if err != nil {
		t.Fatalf("%s %s/openai: %v", task.Name, source, err)
	}
	if res.VerifierError != "" {
		t.Fatalf("verifier error: %s", res.VerifierError)
	}
	for _, req := range srv.Requests() {
		if req.Authorization != "Bearer "+testAPIKey {
			t.Errorf("request without the key: %q", req.Authorization)
		}
	}
	noKeyIn(t, dir)
	return res
}

// noKeyIn fails when any file under dir holds the test API key.
func noKeyIn(t *testing.T, dir string) {
	t.Helper()
	_ = filepath.Walk(dir, func(p string, info os.FileInfo, err error) error {
		if err != nil || !info.Mode().IsRegular() || strings.HasPrefix(p, filepath.Join(dir, rootfsDir)+"/") {
			return nil
		}
		if data, err := os.ReadFile(p); err == nil && strings.Contains(string(data), testAPIKey) {
			t.Errorf("%s holds the API key", p)
		}
		return nil
	})
}

func readTrajectory(t *testing.T, dir string) string {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(dir, TrajectoryFile))
	if err != nil {
		t.Fatal(err)
	}
	return string(data)
}

// TestModelAgentSolvesTheTaskUnderTheSpec: several shell calls (cd and
// export carried over), a read_file, finish: the task is solved under the
// spec policy, each call is linked to its trace lines.
func TestModelAgentSolvesTheTaskUnderTheSpec(t *testing.T) {
	setup(t)
	task := fixture(t, "secret-sensitive")
	srv := agenttest.New(t,
		calls(shellCall("c1", "cd /app && export DATA=data.csv")),
		calls(shellCall("c2", `awk -F, 'NR > 1 { s += $2 } END { print s }' "$DATA" > total.txt; echo "status $?"`)),
		calls(toolCall("c3", "read_file", map[string]any{"path": "data.csv"})),
		finish("wrote the total to /app/total.txt"),
	)
	dir := t.TempDir()
	res := runModel(t, task, SourceSpec, srv, agent.Config{}, dir)
	if !res.Utility || res.Attack == nil || *res.Attack {
		t.Errorf("utility %v attack %v, denials %+v", res.Utility, res.Attack, res.Denials)
	}
	if res.AgentStopReason != string(agent.StopFinished) || res.AgentTurns != 4 || res.AgentTokens == nil || res.AgentTokens.Total != 440 {
		t.Errorf("stop %q turns %d tokens %+v", res.AgentStopReason, res.AgentTurns, res.AgentTokens)
	}
	if res.Model == nil || res.Model.Model != "test-model" || res.Model.APIKey != "" {
		t.Errorf("model %+v", res.Model)
	}
	// bash's own start-up probe of /dev/tty is refused (as the oracle's
	// is); the toolbox's Go runtime start-up opens are not counted.
	for _, d := range res.Denials {
		if d.Path != "/dev/tty" {
			t.Errorf("denial: %+v", d)
		}
	}
	reqs := srv.Requests()
	if got := agenttest.LastToolResult(reqs[2]); got != "status 0\n[exit code: 0]" {
		t.Errorf("awk call: %q", got)
	}
	if got := agenttest.LastToolResult(reqs[3]); !strings.Contains(got, "amount") {
		t.Errorf("read_file: %q", got)
	}
	traj := readTrajectory(t, dir)
	for _, want := range []string{`"events_first_line"`, `"start_ns"`, `"schema_version": "ATIF-v1.4"`} {
		if !strings.Contains(traj, want) {
			t.Errorf("trajectory lacks %s", want)
		}
	}
	wider := false
	for _, w := range res.PlanWiderThanPolicy {
		wider = wider || w.Kind == "agent-toolbox"
	}
	if !wider {
		t.Errorf("the toolbox's execute rule is not listed as wider: %+v", res.PlanWiderThanPolicy)
	}
}
