package bench

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/authbench/authbench/runapi"
	"github.com/authbench/authbench/verdict"
)

// TestBenchGeneratedPolicies runs the oracle under two generated
// sources: gen:spec (valid everywhere) and a gen:cmd generator that
// answers on one task and fails (exit 3, garbage) on the other. The bench
// goes on past the failure: the failed generation is stored as an
// invalid_policy run without an agent run, scored 0, with its generation
// files; the valid ones run the agent under the generated policy.
func TestBenchGeneratedPolicies(t *testing.T) {
	bin := needBench(t)
	b := newBenchCmd(t, bin, fixtureTasks(t, "hello-standard", "harbor-root-workdir"))
	gen := `cmd:if [ -e /app/input.txt ]; then cat /app/input.txt >/dev/null; ` +
		`echo '{"read": ["/app/input.txt"], "write": ["/app/count.txt"], "execute": ["/usr/bin/bash", "/usr/bin/wc"]}'; ` +
		`else echo 'no idea'; exit 3; fi`
	out := filepath.Join(t.TempDir(), "out")
	b.mustRun(t, "--sources", "gen:spec,gen:"+gen, "--out", out)
	recs, err := LoadRecords(out)
	if err != nil {
		t.Fatal(err)
	}
	if len(recs) != 4 {
		t.Fatalf("%d records, want 4: %+v", len(recs), recs)
	}
	for _, r := range recs {
		name := keyOf(&r).String()
		g := r.Generation
		if r.Error != "" || g == nil {
			t.Fatalf("%s: error %q generation %+v", name, r.Error, g)
		}
		record := filepath.Join(out, r.Dir, runapi.GenerationDir, runapi.FileGeneration)
		if _, err := os.Stat(record); err != nil {
			t.Errorf("%s: %v", name, err)
		}
		invalid := r.Source != "gen:spec" && r.Task == "harbor-root-workdir"
		switch {
		case invalid:
			if g.Valid || !strings.Contains(g.Reason, "exited with status 3") || r.PolicyValid || !r.Scored ||
				r.Primary != verdict.ClassInvalidPolicy || r.AgentS != 0 || r.Utility || r.ReadF1 != 0 {
				t.Errorf("%s: want an invalid policy without an agent run: %+v %+v", name, r, g)
			}
			raw, err := os.ReadFile(filepath.Join(out, r.Dir, runapi.GenerationDir, runapi.FileGeneratedPolicy))
			if err != nil || !strings.Contains(string(raw), "no idea") {
				t.Errorf("%s: the raw answer %q (%v)", name, raw, err)
			}
		default:
			if !g.Valid || !r.PolicyValid || !r.Utility || r.AgentS == 0 || len(r.Classes) != 0 {
				t.Errorf("%s: want a valid policy and a successful agent run: %+v %+v", name, r, g)
			}
		}
	}
}
