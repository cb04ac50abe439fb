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

// TestTolerableSpecLintIsAWarning: a required entry outside its scored
// root (a spec the published verifier scores) is a warning of spec check
// and tasks check, which both still say ok: the task is usable.
func TestTolerableSpecLintIsAWarning(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "hello-standard")
	if out, err := exec.Command("cp", "-a", "../tasks/testdata/fixtures/hello-standard", dir).CombinedOutput(); err != nil {
		t.Fatalf("copy fixture: %v %s", err, out)
	}
	spec := filepath.Join(dir, "tests", "permission_eval_spec.json")
	doc := `{"required_permissions": {"read": ["/app/input.txt", "/etc/app.conf"], "write": [], "execute": []},
"scored_roots": {"read": ["/app"], "write": ["/app"], "execute": ["/usr/bin"]},
"implicit_permissions": {"read": [], "write": [], "execute": []}}`
	if err := os.WriteFile(spec, []byte(doc), 0o644); err != nil {
		t.Fatal(err)
	}
	want := `warning: required_permissions.read[1]: "/etc/app.conf" is outside every scored root of scored_roots.read`
	for _, args := range [][]string{{"spec", "check", spec}, {"tasks", "check", dir}} {
		code, stdout, stderr := runCLI(args...)
		if code != 0 || !strings.Contains(stderr, want) || !strings.Contains(stdout+stderr, "ok") {
			t.Errorf("%v: exit %d, stdout %q, stderr %q; want ok with the warning", args, code, stdout, stderr)
		}
	}
}

// TestTasksCheckRefusesMissingCopySource: a COPY source missing from
// the build context is an error of tasks check, at its line, in the
// words every run of the task refuses it with.
func TestTasksCheckRefusesMissingCopySource(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "hello-standard")
	if out, err := exec.Command("cp", "-a", "../tasks/testdata/fixtures/hello-standard", dir).CombinedOutput(); err != nil {
		t.Fatalf("copy fixture: %v %s", err, out)
	}
	if err := os.Remove(filepath.Join(dir, "environment", "input.txt")); err != nil {
		t.Fatal(err)
	}
	want := `environment/Dockerfile:3: COPY source "input.txt" is not in the build context (environment/): the image cannot be built`
	code, _, stderr := runCLI("tasks", "check", dir)
	if code == 0 || !strings.Contains(stderr, want) {
		t.Errorf("tasks check: exit %d, stderr %q; want a failure naming the missing source", code, stderr)
	}
	code, _, stderr = runCLI("task", "run", dir, "--unconstrained", "--agent", "oracle", "--state-dir", t.TempDir())
	if code != core.ExitUsage || !strings.Contains(stderr, want) {
		t.Errorf("task run: exit %d, stderr %q; want it refused with the same words", code, stderr)
	}
}
