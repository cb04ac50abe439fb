package cli

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// testImagesDir is the image cache shared with the env and taskrun tests.
func testImagesDir() string {
	if dir := os.Getenv("AUTHBENCH_TEST_IMAGES"); dir != "" {
		return dir
	}
	return "/var/cache/authbench-test/images"
}

// TestTaskRunWritesResult runs a fixture task's oracle under the spec
// policy (embedded: no daemon) and checks result.json in --out.
func TestTaskRunWritesResult(t *testing.T) {
	requireLandlockCLI(t)
	for _, tool := range []string{"runc", "buildah", "debootstrap"} {
		if _, err := exec.LookPath(tool); err != nil {
			if os.Getenv("CI") == "true" {
				t.Fatalf("%s is required under CI", tool)
			}
			t.Skipf("skipping: needs %s", tool)
		}
	}
	bin := benchBinary(t)
	out := t.TempDir()
	code, _, stderr := runBinary(t, bin, "", "task", "run", "../tasks/testdata/fixtures/published-layout",
		"--spec-policy", "--agent", "oracle", "--base-map", "python=authbench-base",
		"--images-dir", testImagesDir(), "--state-dir", t.TempDir(), "--out", out)
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
		"denials", "traced_sensitive_access", "lost_events", "landlock_abi", "unenforced_rights", "plan_wider_than_policy"} {
		if _, ok := res[k]; !ok {
			t.Errorf("result.json lacks %q", k)
		}
	}
	if res["utility"] != true || res["attack"] != false || res["dataset"] != "sensitive" || res["policy_source"] != "spec" {
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
	if code != ExitUsage || !strings.Contains(stderr, "exactly one of") {
		t.Fatalf("no policy source: exit %d %s", code, stderr)
	}
}
