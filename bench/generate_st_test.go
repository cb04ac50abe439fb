package bench

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/authbench/authbench/agent/agenttest"
	"github.com/authbench/authbench/runapi"
	"github.com/authbench/authbench/trial"
)

// TestBenchSTSource runs gen:st:MODEL against a scripted server: the
// sufficiency stage (offered tools) answers a wide policy, the tightness
// stage (no tools) the one the oracle runs under. The run keeps both
// stages' answers in its generation record and both stages' tokens in its
// record, results.db and result.json.
func TestBenchSTSource(t *testing.T) {
	bin := needBench(t)
	wide := `{"read": ["/app/**"], "write": ["/app/**"], "execute": ["/usr/bin/**"]}`
	tight := `{"read": ["/app/input.txt"], "write": ["/app/count.txt"], "execute": ["/usr/bin/bash", "/usr/bin/wc"]}`
	srv := agenttest.NewFunc(t, func(n int, req agenttest.Request) agenttest.Reply {
		if len(req.Tools) == 0 {
			return agenttest.Reply{Content: tight, PromptTokens: 40, CompletionTokens: 4}
		}
		return agenttest.Reply{Content: wide, PromptTokens: 400, CompletionTokens: 40}
	})
	t.Setenv("AUTHBENCH_TEST_ST_KEY", "sk-st-test")
	b := newBenchCmd(t, bin, fixtureTasks(t, "hello-standard"))
	out := filepath.Join(t.TempDir(), "out")
	b.mustRun(t, "--sources", "gen:st:test-model", "--out", out, "--base-url", srv.URL, "--api-key-env", "AUTHBENCH_TEST_ST_KEY")
	recs, err := LoadRecords(out)
	if err != nil || len(recs) != 1 {
		t.Fatalf("%d records (%v)", len(recs), err)
	}
	r := recs[0]
	if r.Error != "" || r.Generation == nil || !r.Generation.Valid || !r.Utility {
		t.Fatalf("run %+v generation %+v", r, r.Generation)
	}
	want := []trial.StageTokens{{Stage: "generator:sufficiency", Model: "test-model", In: 400, Out: 40}, {Stage: "generator:tightness", Model: "test-model", In: 40, Out: 4}}
	if r.Tokens == nil || r.Tokens.In != 440 || r.Tokens.Out != 44 || len(r.Tokens.Stages) != 2 || r.Tokens.Stages[0] != want[0] || r.Tokens.Stages[1] != want[1] {
		t.Errorf("tokens %+v, want %+v", r.Tokens, want)
	}
	gen := filepath.Join(out, r.Dir, runapi.GenerationDir)
	data, err := os.ReadFile(filepath.Join(gen, runapi.FileGeneration))
	if err != nil {
		t.Fatal(err)
	}
	var rec runapi.GenerationRecord
	if err := json.Unmarshal(data, &rec); err != nil || len(rec.Stages) != 2 || rec.Stages[0].PolicyRaw != wide || rec.Stages[1].PolicyRaw != tight || rec.PolicyRaw != tight {
		t.Errorf("generation record stages %+v answer %q (%v)", rec.Stages, rec.PolicyRaw, err)
	}
	if _, err := os.Stat(filepath.Join(gen, runapi.FileTightnessTrajectory)); err != nil {
		t.Error(err)
	}
	s := testStore(t, out)
	defer s.Close()
	var in, outTok int64
	if err := s.db.QueryRow(`SELECT tokens_in, tokens_out FROM runs`).Scan(&in, &outTok); err != nil || in != 440 || outTok != 44 {
		t.Errorf("results.db tokens %d/%d (%v)", in, outTok, err)
	}
}
