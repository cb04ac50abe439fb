package bench

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/authbench/authbench/agent/agenttest"
	"github.com/authbench/authbench/trial"
	"github.com/authbench/authbench/verdict"
)

// pipelineModels is a scripted endpoint for a pipeline's models, told
// apart by model name: generator "good" answers a sufficient policy,
// "flaky" no policy on its first request and then the good one, "refuse"
// refuses every time; executor "exec" runs the task's solution with the
// shell tool, then finishes.
func pipelineModels(t *testing.T) *agenttest.Server {
	const good = `{"read": ["/app/**"], "write": ["/app/count.txt", "/app/total.txt"], "execute": ["/usr/bin/bash", "/usr/bin/wc", "/usr/bin/awk", "/usr/bin/mawk"]}`
	var mu sync.Mutex
	flaky := 0
	shell, _ := json.Marshal(map[string]string{"command": "if [ -f /app/input.txt ]; then wc -l < /app/input.txt > /app/count.txt; else awk -F, 'NR > 1 { s += $2 } END { print s }' /app/data.csv > /app/total.txt; fi"})
	return agenttest.NewFunc(t, func(n int, req agenttest.Request) agenttest.Reply {
		switch req.Model {
		case "good":
			return agenttest.Reply{Content: good, PromptTokens: 300, CompletionTokens: 30}
		case "flaky":
			// The first generation's requests (its first one, and the
			// re-ask after its rejected answer, which carries that answer)
			// get no policy; every other generation the good one.
			const unsure = "I am not sure which files the task needs."
			repair := false
			for _, m := range req.Messages {
				if m["role"] == "assistant" && m["content"] == unsure {
					repair = true
				}
			}
			mu.Lock()
			if !repair {
				flaky++
			}
			first := repair || flaky == 1
			mu.Unlock()
			if first {
				return agenttest.Reply{Content: unsure, PromptTokens: 200, CompletionTokens: 10}
			}
			return agenttest.Reply{Content: good, PromptTokens: 200, CompletionTokens: 20}
		case "refuse":
			return agenttest.Reply{Content: "I can't help with writing security policies.", PromptTokens: 100, CompletionTokens: 8}
		case "exec":
			for _, m := range req.Messages {
				if m["role"] == "tool" {
					return agenttest.Reply{ToolCalls: []agenttest.Call{{ID: "f", Name: "finish", Arguments: `{"summary": "done"}`}}, PromptTokens: 50, CompletionTokens: 5}
				}
			}
			return agenttest.Reply{ToolCalls: []agenttest.Call{{ID: "s", Name: "shell", Arguments: string(shell)}}, PromptTokens: 40, CompletionTokens: 6}
		}
		t.Errorf("unscripted model %q", req.Model)
		return agenttest.Reply{Status: 500, Body: `{"error":{"message":"unscripted","type":"server_error"}}`}
	})
}

// TestBenchPipelinePublished runs the published layout on a task with
// three scripted generators and a scripted executor: every attempt is
// stored with its stage and attempt number (records and results.db); the
// replay runs under the first valid generation attempt, and not at all
// for a generator that refused every time (invalid_policy); tokens are
// kept per run. The same command again resumes with nothing to do.
func TestBenchPipelinePublished(t *testing.T) {
	bin := needBench(t)
	srv := pipelineModels(t)
	t.Setenv("AUTHBENCH_TEST_PIPELINE_KEY", "sk-pipeline-test")
	b := newBenchCmd(t, bin, fixtureTasks(t, "hello-standard"))
	b.args = slicesWithout(b.args, "--agent", "oracle")
	out := filepath.Join(t.TempDir(), "out")
	args := []string{"--pipeline", "published", "--generator", "openai:good,openai:flaky,openai:refuse", "--executor", "openai:exec",
		"--out", out, "--base-url", srv.URL, "--api-key-env", "AUTHBENCH_TEST_PIPELINE_KEY", "--parallel", "2"}
	b.mustRun(t, args...)
	recs, err := LoadRecords(out)
	if err != nil {
		t.Fatal(err)
	}
	count := map[string]int{}
	byKey := map[string]trial.Record{}
	for _, r := range recs {
		if r.Error != "" {
			t.Errorf("run %s: %s", keyOf(&r), r.Error)
		}
		count[r.Stage]++
		byKey[keyOf(&r).String()] = r
	}
	want := map[string]int{trial.StageOracle: 1, trial.StageGenerate: 9, trial.StageUnconstrained: 3, trial.StageGenerated: 3, trial.StageSpec: 1}
	for s, n := range want {
		if count[s] != n {
			t.Errorf("stage %s: %d runs, want %d (%v)", s, count[s], n, count)
		}
	}
	// The flaky generator's invalid attempt is one of three; its replay
	// ran under a later, valid one.
	invalid := 0
	for a := 1; a <= 3; a++ {
		r := byKey["hello-standard/gen:openai:flaky/none/"+string(rune('0'+a))]
		if !r.PolicyValid {
			invalid++
		} else if !r.Scored || r.ReadR != 1 || r.WriteR != 1 || r.ExecR != 1 || r.Tokens == nil || r.Tokens.In != 200 {
			t.Errorf("flaky attempt %d: %+v tokens %+v", a, r, r.Tokens)
		}
		if refused := byKey["hello-standard/gen:openai:refuse/none/"+string(rune('0'+a))]; refused.PolicyValid || refused.Primary != verdict.ClassInvalidPolicy {
			t.Errorf("refused attempt %d valid %v class %q", a, refused.PolicyValid, refused.Primary)
		}
	}
	if invalid != 1 {
		t.Errorf("%d invalid flaky attempts, want 1", invalid)
	}
	for gen, ok := range map[string]bool{"good": true, "flaky": true, "refuse": false} {
		r := byKey["hello-standard/gen:openai:"+gen+"/openai:exec/1"]
		if r.Stage != trial.StageGenerated || r.Utility != ok || r.PolicyValid != ok || (!ok && (r.Primary != verdict.ClassInvalidPolicy || !strings.Contains(r.PolicyError, "no generation attempt"))) {
			t.Errorf("replay under %s: stage %s utility %v valid %v class %q (%s)", gen, r.Stage, r.Utility, r.PolicyValid, r.Primary, r.PolicyError)
		}
		if ok && (r.Tokens == nil || r.Tokens.In != 90 || r.Generation == nil || !r.Generation.Valid) {
			t.Errorf("replay under %s: tokens %+v generation %+v", gen, r.Tokens, r.Generation)
		}
	}
	if r := byKey["hello-standard/spec/oracle/1"]; r.Stage != trial.StageOracle || !r.Utility {
		t.Errorf("oracle %+v", r)
	}
	s := testStore(t, out)
	counts, err := s.StageCounts()
	s.Close()
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]int{}
	for _, c := range counts {
		got[c.Stage+"/"+string(rune('0'+c.Attempt))] = c.Runs
	}
	wantDB := map[string]int{"oracle/1": 1, "generate/1": 3, "generate/2": 3, "generate/3": 3, "unconstrained/1": 1, "unconstrained/2": 1, "unconstrained/3": 1, "generated/1": 3, "spec/1": 1}
	for k, n := range wantDB {
		if got[k] != n {
			t.Errorf("results.db stage/attempt %s: %d rows, want %d (%v)", k, got[k], n, got)
		}
	}
	if stdout := b.mustRun(t, append(args, "--json")...); !strings.Contains(stdout, `"n_resumed":17`) {
		t.Errorf("resumed bench: %s", stdout)
	}
	if _, err := os.Stat(filepath.Join(out, "config.json")); err != nil {
		t.Error(err)
	}
}

// slicesWithout is args without the flag and its value.
func slicesWithout(args []string, flag, value string) []string {
	var out []string
	for i := 0; i < len(args); i++ {
		if args[i] == flag && i+1 < len(args) && args[i+1] == value {
			i++
			continue
		}
		out = append(out, args[i])
	}
	return out
}
