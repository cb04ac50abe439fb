package tracer

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/authbench/authbench/tracer/trace"
)

// TestChrootView: a process in a chroot reports paths as it sees them,
// relative paths resolved up to its own root, not the host's.
func TestChrootView(t *testing.T) {
	needTool(t, "chroot", "dash")
	tr := loadTracer(t, Options{})
	root := t.TempDir()
	dash, _ := exec.LookPath("dash")
	dash, _ = filepath.EvalSymlinks(dash)
	files := []string{dash}
	out, err := exec.Command("ldd", dash).Output()
	if err != nil {
		t.Skipf("ldd %s: %v", dash, err)
	}
	for _, f := range strings.Fields(string(out)) {
		if strings.HasPrefix(f, "/") {
			files = append(files, f)
		}
	}
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		dst := filepath.Join(root, f)
		if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(dst, b, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.MkdirAll(filepath.Join(root, "work", "d"), 0o755); err != nil {
		t.Fatal(err)
	}
	// Only shell built-ins: the chroot holds nothing but dash.
	r := runTraced(t, tr, "/", []string{"chroot", root, dash, "-c", "cd /work && echo hi > f && cd d && : > ../g"}, nil)
	if r.code != 0 {
		t.Fatalf("chrooted shell exited %d", r.code)
	}
	for _, want := range []struct {
		op   trace.Op
		path string
	}{{trace.OpChdir, "/work"}, {trace.OpOpen, "/work/f"}, {trace.OpChdir, "/work/d"}, {trace.OpOpen, "/work/g"}} {
		n := count(r.events, func(ev *trace.Event) bool { return ev.Op == want.op && ev.Path == want.path && !ev.Failed() })
		if n != 1 {
			t.Errorf("%d successful %s of %s (the chroot's view), want 1", n, want.op, want.path)
		}
	}
	if n := count(r.events, func(ev *trace.Event) bool { return strings.HasPrefix(ev.Path, root+"/work") }); n != 0 {
		t.Errorf("%d events show the host's path of the chroot", n)
	}
}

// TestMountCrossing: the walk of a relative path's base directory crosses
// into a file system mounted in the process's own mount namespace.
func TestMountCrossing(t *testing.T) {
	needTool(t, "unshare", "mount")
	tr := loadTracer(t, Options{})
	mnt := t.TempDir()
	script := "mount -t tmpfs authbench-test " + mnt + " && mkdir " + mnt + "/sub && cd " + mnt + "/sub && : > f && cd .. && : > g"
	r := runTraced(t, tr, "/", []string{"unshare", "-m", "--propagation", "private", "sh", "-c", script}, nil)
	if r.code != 0 {
		t.Fatalf("workload exited %d", r.code)
	}
	for _, p := range []string{mnt + "/sub/f", mnt + "/g"} {
		if n := count(r.events, func(ev *trace.Event) bool { return ev.Op == trace.OpOpen && ev.Path == p && !ev.Failed() }); n != 1 {
			t.Errorf("%d opens of %s across the tmpfs mount, want 1", n, p)
		}
	}
}

// TestCompatSyscall: an open through the ia32 ABI (int 0x80) from a
// 64-bit process is traced like any other.
func TestCompatSyscall(t *testing.T) {
	tr := loadTracer(t, Options{})
	int80 := helperBin(t, "int80")
	target := filepath.Join(t.TempDir(), "target")
	writeFile(t, target, "x")
	if err := exec.Command(int80, target).Run(); err != nil {
		// Not a feature authbench needs: a kernel booted with ia32
		// emulation off has no int 0x80 syscalls to trace.
		t.Skipf("this kernel does not run ia32 syscalls (int 0x80 untraced: %v)", err)
	}
	r := runTraced(t, tr, "/", []string{int80, target}, nil)
	if r.code != 0 {
		t.Fatalf("int80 exited %d (ia32 emulation off?)", r.code)
	}
	if n := count(r.events, func(ev *trace.Event) bool {
		return ev.Op == trace.OpOpen && ev.Path == target && ev.Axis == trace.AxisRead
	}); n != 1 {
		t.Errorf("%d int 0x80 opens of %s traced, want 1", n, target)
	}
}
