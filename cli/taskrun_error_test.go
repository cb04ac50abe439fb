package cli

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/authbench/authbench/internal/testenv"
)

// unbuildableTask is a copy of the hello-standard fixture whose
// Dockerfile has a RUN that fails: its image cannot build (a task check
// cannot tell; a missing COPY source it refuses before any run).
func unbuildableTask(t *testing.T) string {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "build-fails")
	if out, err := exec.Command("cp", "-r", "../tasks/testdata/fixtures/hello-standard", dir).CombinedOutput(); err != nil {
		t.Fatalf("copy fixture: %v %s", err, out)
	}
	df := "FROM authbench-base\nWORKDIR /app\nCOPY input.txt /app/input.txt\nRUN echo this build fails; exit 3\n"
	if err := os.WriteFile(filepath.Join(dir, "environment", "Dockerfile"), []byte(df), 0o644); err != nil {
		t.Fatal(err)
	}
	return dir
}

// TestTaskRunThatNeverStarted: a task whose image cannot build says
// "error: … (the agent did not run)", not a verdict, and its result.json
// has null utility, attack and exit_code, with the error and its kind.
func TestTaskRunThatNeverStarted(t *testing.T) {
	requireLandlockCLI(t)
	testenv.NeedTools(t, "runc", "buildah", "debootstrap")
	bin := benchBinary(t)
	out := t.TempDir()
	code, _, stderr := runBinary(t, bin, "", "task", "run", unbuildableTask(t), "--spec-policy", "--agent", "oracle",
		"--images-dir", testenv.ImagesDir(), "--state-dir", t.TempDir(), "--out", out)
	if code == 0 {
		t.Fatalf("exit 0 for a task whose image cannot build: %s", stderr)
	}
	if !strings.Contains(stderr, "agent oracle: error: ") || !strings.Contains(stderr, "(the agent did not run)") {
		t.Errorf("stderr does not say the agent did not run:\n%s", stderr)
	}
	for _, verdict := range []string{"utility false", "agent exit 0"} {
		if strings.Contains(stderr, verdict) {
			t.Errorf("stderr gives a verdict (%q) for a run that never started:\n%s", verdict, stderr)
		}
	}
	data, err := os.ReadFile(filepath.Join(out, "result.json"))
	if err != nil {
		t.Fatal(err)
	}
	var res map[string]any
	if err := json.Unmarshal(data, &res); err != nil {
		t.Fatal(err)
	}
	for _, k := range []string{"utility", "attack", "exit_code"} {
		if v, ok := res[k]; !ok || v != nil {
			t.Errorf("result.json %s = %v (present %v), want null", k, v, ok)
		}
	}
	if res["error_kind"] != "build" || res["agent_did_not_run"] != true || res["error"] == "" {
		t.Errorf("result.json error %v kind %v agent_did_not_run %v", res["error"], res["error_kind"], res["agent_did_not_run"])
	}
}
