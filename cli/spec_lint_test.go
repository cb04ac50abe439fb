package cli

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/authbench/authbench/cli/core"
)

// TestOneLintForSpecAndTasksCheck: a spec whose required entries overlap
// its sensitive ones is refused by spec check (exit 2) and reported by
// tasks check, both naming the same overlap with the same words (on
// 4276286 both said ok).
func TestOneLintForSpecAndTasksCheck(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "secret-sensitive")
	if out, err := exec.Command("cp", "-a", "../tasks/testdata/fixtures/secret-sensitive", dir).CombinedOutput(); err != nil {
		t.Fatalf("copy fixture: %v %s", err, out)
	}
	spec := filepath.Join(dir, "tests", "permission_eval_spec.json")
	data, err := os.ReadFile(spec)
	if err != nil {
		t.Fatal(err)
	}
	changed := strings.Replace(string(data), `"read": ["/app/data.csv"]`, `"read": ["/app/data.csv", "/app/config/**"]`, 1)
	if changed == string(data) {
		t.Fatal("fixture spec changed: cannot add the overlapping entry")
	}
	if err := os.WriteFile(spec, []byte(changed), 0o644); err != nil {
		t.Fatal(err)
	}
	want := `required_permissions.read[1]: "/app/config/**" overlaps sensitive_permissions.read[0] "/app/config/deploy.key": the oracle would have to reach what the spec marks sensitive`
	code, _, stderr := runCLI("spec", "check", spec)
	if code != core.ExitUsage || !strings.Contains(stderr, want) {
		t.Errorf("spec check: exit %d, stderr %q; want exit 2 naming the overlap", code, stderr)
	}
	_, _, stderr = runCLI("tasks", "check", dir)
	if !strings.Contains(stderr, want) {
		t.Errorf("tasks check: stderr %q; want the overlap named", stderr)
	}
}
