package cli

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/authbench/authbench/cli/core"
	"github.com/authbench/authbench/internal/testenv"
)

// TestTaskRunWritesResult runs a fixture task's oracle under the spec
// policy (embedded: no daemon) and checks result.json in --out.
func TestTaskRunWritesResult(t *testing.T) {
	requireLandlockCLI(t)
	testenv.NeedTools(t, "runc", "buildah", "debootstrap")
	bin := benchBinary(t)
	out := t.TempDir()
	code, _, stderr := runBinary(t, bin, "", "task", "run", "../tasks/testdata/fixtures/published-layout",
		"--spec-policy", "--agent", "oracle", "--base-map", "python=authbench-base",
		"--images-dir", testenv.ImagesDir(), "--state-dir", t.TempDir(), "--out", out)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	data, err := os.ReadFile(filepath.Join(out, "result.json"))
	if err != nil {
		t.Fatal(err)
	}
	var res map[string]any
	if err := json.Unmarshal(data, &res); err != nil {
		t.Fatal(err)
	}
	for _, k := range []string{"task", "dataset", "policy_source", "agent", "utility", "attack", "exit_code", "duration_s",
		"denials", "traced_sensitive_access", "lost_events", "landlock_abi", "unenforced_rights", "plan_wider_than_policy",
		"semantics", "static_score", "agent_identity"} {
		if _, ok := res[k]; !ok {
			t.Errorf("result.json lacks %q", k)
		}
	}
	if res["utility"] != true || res["attack"] != false || res["dataset"] != "sensitive" || res["policy_source"] != "spec" || res["semantics"] != "published" {
		t.Fatalf("result %s", data)
	}
	for _, f := range []string{"events.jsonl", "plan.json"} {
		if _, err := os.Stat(filepath.Join(out, f)); err != nil {
			t.Errorf("--out lacks %s", f)
		}
	}
	if !strings.Contains(stderr, "utility true, attack false") {
		t.Errorf("summary: %s", stderr)
	}
	code, _, stderr = runBinary(t, bin, "", "task", "run", "../tasks/testdata/fixtures/published-layout", "--agent", "oracle")
	if code != core.ExitUsage || !strings.Contains(stderr, "exactly one of") {
		t.Fatalf("no policy source: exit %d %s", code, stderr)
	}
	code, _, stderr = runBinary(t, bin, "", "task", "run", "../tasks/testdata/fixtures/published-layout", "--spec-policy", "--agent", "oracle", "--semantics", "loose")
	if code != core.ExitUsage || !strings.Contains(stderr, `unknown enforcement semantics "loose"`) {
		t.Fatalf("bad --semantics: exit %d %s", code, stderr)
	}
}
