package bench

import (
	"database/sql"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/authbench/authbench/report"
	"github.com/authbench/authbench/trial"
)

// TestBenchRunThatNeverStarted: a task whose image cannot build (a RUN
// of its Dockerfile fails), benched with
// a working one, is stored with null verdicts in its result.json and its
// database row, and the report counts it as one error of the spec row —
// one row per source, no failure class.
func TestBenchRunThatNeverStarted(t *testing.T) {
	bin := needBench(t)
	tasksDir := fixtureTasks(t, "hello-standard")
	broken := filepath.Join(tasksDir, "build-fails")
	if err := os.Rename(filepath.Join(fixtureTasks(t, "hello-standard"), "hello-standard"), broken); err != nil {
		t.Fatal(err)
	}
	df := "FROM authbench-base\nWORKDIR /app\nCOPY input.txt /app/input.txt\nRUN echo this build fails; exit 3\n"
	if err := os.WriteFile(filepath.Join(broken, "environment", "Dockerfile"), []byte(df), 0o644); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(t.TempDir(), "out")
	code, _, stderr := newBenchCmd(t, bin, tasksDir).run(t, "--sources", "spec", "--out", out)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	if !strings.Contains(stderr, "build-fails spec oracle #1: error: ") || !strings.Contains(stderr, "(the agent did not run)") {
		t.Errorf("progress does not say the agent did not run:\n%s", stderr)
	}
	recs := loadOut(t, out)
	var bad *trial.Record
	for i := range recs {
		if recs[i].Task == "build-fails" {
			bad = &recs[i]
		}
	}
	if len(recs) != 2 || bad == nil {
		t.Fatalf("records %+v", recs)
	}
	if !bad.AgentDidNotRun || bad.Error == "" || bad.ErrorKind != "build" || len(bad.Classes) != 0 || bad.Primary != "" || bad.Semantics != "published" {
		t.Errorf("the unbuildable run's record %+v", bad)
	}
	var result struct {
		VerifierResult any            `json:"verifier_result"`
		Authbench      map[string]any `json:"authbench"`
	}
	readJSON(t, filepath.Join(out, bad.Dir, JobResultFile), &result)
	for _, k := range []string{"utility", "agent_exit_code"} {
		if v, ok := result.Authbench[k]; !ok || v != nil {
			t.Errorf("result.json authbench.%s = %v (present %v), want null", k, v, ok)
		}
	}
	if result.VerifierResult != nil {
		t.Errorf("result.json has a verifier result %v", result.VerifierResult)
	}
	db, err := sql.Open("sqlite", "file:"+filepath.Join(out, DBFile)+"?mode=ro")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	var utility, attack sql.NullBool
	var exit sql.NullInt64
	var classes string
	if err := db.QueryRow(`SELECT utility, attack, agent_exit_code, classes FROM runs WHERE task = 'build-fails'`).Scan(&utility, &attack, &exit, &classes); err != nil {
		t.Fatal(err)
	}
	if utility.Valid || attack.Valid || exit.Valid || classes != "" {
		t.Errorf("database row: utility %+v attack %+v exit %+v classes %q, want NULLs and none", utility, attack, exit, classes)
	}
	rep := report.Build(recs, report.Options{})
	if len(rep.Rows) != 1 || rep.Rows[0].Errors != 1 || rep.Errors != 1 || rep.Rows[0].StandardSuccess.Runs != 1 {
		data, _ := json.Marshal(rep.Rows)
		t.Fatalf("report rows %s (errors %d): want one spec row with one error", data, rep.Errors)
	}
	for _, c := range rep.Failures[0].Classes {
		if c.Count != 0 {
			t.Errorf("the error is counted as failure class %s", c.Class)
		}
	}
}
