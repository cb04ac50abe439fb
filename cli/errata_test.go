package cli

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/authbench/authbench/cli/core"
	"github.com/authbench/authbench/internal/testenv"
)

// TestTasksErrata: in a suite of three copies of a fixture, the one whose
// spec lacks an execute entry its oracle needs is a spec gap, listed
// with the denial and the entry that fixes it; the one whose oracle
// fails unconstrained too (its verifier wants another count) is an
// environment or oracle failure, with no entry proposed; the other has
// none.
func TestTasksErrata(t *testing.T) {
	requireLandlockCLI(t)
	testenv.NeedRoot(t)
	testenv.NeedTools(t, "runc", "buildah", "debootstrap")
	bin := benchBinary(t)
	suite := t.TempDir()
	for _, name := range []string{"hello-ok", "hello-gap", "hello-broken"} {
		if out, err := exec.Command("cp", "-a", "../tasks/testdata/fixtures/hello-standard", filepath.Join(suite, name)).CombinedOutput(); err != nil {
			t.Fatalf("copy fixture: %v %s", err, out)
		}
	}
	specFile := filepath.Join(suite, "hello-gap", "tests", "permission_eval_spec.json")
	spec, err := os.ReadFile(specFile)
	if err != nil {
		t.Fatal(err)
	}
	noWC := []byte(strings.Replace(string(spec), `, "/usr/bin/wc"`, "", 1))
	if err := os.WriteFile(specFile, noWC, 0o644); err != nil {
		t.Fatal(err)
	}
	broken := filepath.Join(suite, "hello-broken", "tests")
	if err := os.WriteFile(filepath.Join(broken, "permission_eval_spec.json"), noWC, 0o644); err != nil {
		t.Fatal(err)
	}
	testSh, err := os.ReadFile(filepath.Join(broken, "test.sh"))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(broken, "test.sh"), []byte(strings.Replace(string(testSh), `= "3"`, `= "4"`, 1)), 0o755); err != nil {
		t.Fatal(err)
	}
	common := []string{"--images-dir", testenv.ImagesDir(), "--state-dir", t.TempDir()}
	code, out, stderr := runBinary(t, bin, "", append([]string{"tasks", "errata", suite}, common...)...)
	if code != core.ExitFailure {
		t.Fatalf("errata: exit %d\n%s\n%s", code, out, stderr)
	}
	// The denial a spec entry fixes comes first; the others (bash's
	// /dev/tty) follow, outside the scored roots.
	lines := strings.Split(strings.TrimSpace(out), "\n")
	if len(lines) < 2 || !strings.HasPrefix(lines[0], "TASK") || !strings.Contains(lines[1], "hello-gap") ||
		!strings.Contains(lines[1], "exec  /usr/bin/wc") || !strings.Contains(lines[1], `required_permissions.execute "/usr/bin/wc"`) ||
		strings.Contains(out, "hello-ok") {
		t.Fatalf("errata table:\n%s\n%s", out, stderr)
	}
	for _, l := range lines {
		if strings.HasPrefix(l, "hello-broken") || strings.HasPrefix(l, "wider: hello-broken") {
			t.Errorf("an entry proposed for an oracle that fails unconstrained: %s", l)
		}
	}
	if !strings.Contains(out, "problem: hello-broken: the oracle fails unconstrained too") || !strings.Contains(out, "not a spec gap") {
		t.Errorf("errata of the broken task:\n%s", out)
	}
	if !strings.Contains(stderr, "3 tasks checked: 1 with spec gaps") {
		t.Errorf("summary: %s", stderr)
	}
	code, out, stderr = runBinary(t, bin, "", append([]string{"--json", "tasks", "errata", filepath.Join(suite, "hello-ok")}, common...)...)
	var rep errataReport
	if err := json.Unmarshal([]byte(out), &rep); err != nil || code != 0 || rep.Tasks != 1 || len(rep.Gaps) != 0 {
		t.Fatalf("errata of the good task: exit %d %+v %v\n%s", code, rep, err, stderr)
	}
}
