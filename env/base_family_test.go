package env

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/authbench/authbench/tasks"
)

// TestPythonPy313FamilyTaskGetsPython313 builds a task written as the
// published dataset writes its python-py313 tasks (FROM
// ${AUTHBENCH_PYTHON_PY313_PLAIN_BASE}, no --base-map): its base is made
// on demand from Debian trixie (a real debootstrap, minutes the first
// time, cached after), and the image runs Python 3.13 with the family's
// tools.
func TestPythonPy313FamilyTaskGetsPython313(t *testing.T) {
	needRunc(t)
	s, b, _ := needBase(t)
	// The first trixie debootstrap takes minutes (10 on a loaded machine).
	ctx, cancel := context.WithTimeout(context.Background(), 40*time.Minute)
	defer cancel()
	img, _, err := BuildTask(ctx, s, fixture(t, "python-py313"), BuildOptions{Builder: b})
	if err != nil {
		t.Fatal(err)
	}
	if len(img.Froms) != 1 || img.Froms[0].Base != "python-py313" || img.Froms[0].How != "family python-py313" {
		t.Errorf("froms = %+v", img.Froms)
	}
	for _, p := range []string{"usr/bin/python3.13", "usr/local/bin/python3", "usr/local/bin/python3.13", "usr/local/bin/pip", "usr/bin/pytest-3", "usr/bin/jq", "usr/bin/curl", "usr/bin/bc", "usr/bin/tmux", "usr/bin/strace", "usr/bin/ps", "usr/bin/asciinema"} {
		if _, err := os.Lstat(filepath.Join(img.Rootfs, p)); err != nil {
			t.Errorf("image lacks %s: %v", p, err)
		}
	}
	rfs, err := NewRootfs(img.Rootfs, filepath.Join(t.TempDir(), "run"))
	if err != nil {
		t.Fatal(err)
	}
	defer rfs.Close()
	c := TaskRunConfig(fixture(t, "python-py313"), img)
	c.Args = []string{"python3", "--version"}
	res, out := runScript(t, rfs.Path, c)
	if res.ExitCode != 0 || !strings.HasPrefix(strings.TrimSpace(out), "Python 3.13.") {
		t.Errorf("python3 --version → %d %q, want Python 3.13.x", res.ExitCode, out)
	}
	task := fixture(t, "python-py313")
	if utility, _ := agentThenVerify(t, task, img, task.Path(tasks.FileSolve)); !utility {
		t.Error("oracle failed in the python-py313 image")
	}
}
