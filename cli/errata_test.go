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

// TestTasksErrata: in a suite of two copies of a fixture, the one whose
// spec lacks an execute entry its oracle needs is a spec gap, listed
// with the denial and the entry that fixes it; the other has none.
func TestTasksErrata(t *testing.T) {
	requireLandlockCLI(t)
	testenv.NeedRoot(t)
	testenv.NeedTools(t, "runc", "buildah", "debootstrap")
	bin := benchBinary(t)
	suite := t.TempDir()
	for _, name := range []string{"hello-ok", "hello-gap"} {
		if out, err := exec.Command("cp", "-a", "../tasks/testdata/fixtures/hello-standard", filepath.Join(suite, name)).CombinedOutput(); err != nil {
			t.Fatalf("copy fixture: %v %s", err, out)
		}
	}
	specFile := filepath.Join(suite, "hello-gap", "tests", "permission_eval_spec.json")
	spec, err := os.ReadFile(specFile)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(specFile, []byte(strings.Replace(string(spec), `, "/usr/bin/wc"`, "", 1)), 0o644); err != nil {
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
	if !strings.Contains(stderr, "2 tasks checked: 1 with spec gaps") {
		t.Errorf("summary: %s", stderr)
	}
	code, out, stderr = runBinary(t, bin, "", append([]string{"--json", "tasks", "errata", filepath.Join(suite, "hello-ok")}, common...)...)
	var rep errataReport
	if err := json.Unmarshal([]byte(out), &rep); err != nil || code != 0 || rep.Tasks != 1 || len(rep.Gaps) != 0 {
		t.Fatalf("errata of the good task: exit %d %+v %v\n%s", code, rep, err, stderr)
	}
}
