package tracer

import (
	"os"
	"path/filepath"
	"testing"
)

// TestChdirAndExecByDescriptor pins what the tracer reports for the two
// calls whose arguments no longer mean the same after they succeed (the
// tracer reads everything at sys_exit): a chdir that succeeded reports the
// directory it moved to (its real location, like every base directory),
// a failed one the name as given against the unchanged cwd, and an exec
// through a descriptor (fexecve, execveat) the file that was executed,
// although the descriptor is closed on exec.
func TestChdirAndExecByDescriptor(t *testing.T) {
	needTool(t, "python3")
	dir := t.TempDir()
	writeFile(t, filepath.Join(dir, "real", "f"), "x")
	if err := os.Symlink("real", filepath.Join(dir, "link")); err != nil {
		t.Fatal(err)
	}
	truePath, err := filepath.EvalSymlinks("/bin/true")
	if err != nil {
		t.Fatal(err)
	}
	script := `import os
try:
    os.chdir("missing")
except FileNotFoundError:
    pass
os.chdir("link")
open("f").read()
fd = os.open("/bin/true", os.O_RDONLY | os.O_CLOEXEC)
os.execve(fd, ["true"], {})`
	r := runTraced(t, loadTracer(t, Options{}), dir, []string{"python3", "-c", script}, nil)
	if r.code != 0 {
		t.Fatalf("workload exited %d", r.code)
	}
	want := []tuple{
		{"chdir", dir + "/missing", false},
		{"chdir", dir + "/real", true},
		{"open", dir + "/real/f", true},
		{"exec", truePath, true},
	}
	got := map[tuple]bool{}
	for _, ev := range r.events {
		got[tuple{string(ev.Op), ev.Path, !ev.Failed()}] = true
	}
	for _, w := range want {
		if !got[w] {
			t.Errorf("missing %v", w)
		}
	}
	if t.Failed() {
		for _, ev := range r.events {
			t.Logf("%s %q ret=%d", ev.Op, ev.Path, ev.Ret)
		}
	}
}
