package testenv

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
)

var (
	miniOnce sync.Once
	miniDir  string
	miniErr  error
)

// miniPrograms are the host programs of MiniRootfs.
var miniPrograms = []string{"/bin/sh", "/bin/cat", "/bin/ls", "/bin/sleep", "/usr/bin/id", "/bin/echo", "/usr/bin/env", "/bin/touch", "/bin/mkdir"}

// MiniRootfs is a tiny rootfs built once per test binary from host
// programs (sh, cat, ls, sleep, id, echo, env, touch, mkdir) and the
// libraries they load (no image needed), with /proc, /dev, /sys, /tmp,
// /app and /etc. Lay an overlay over it rather than changing it; a
// TestMain removes it with RemoveMiniRootfs.
func MiniRootfs(t testing.TB) string {
	t.Helper()
	miniOnce.Do(func() { miniDir, miniErr = buildMiniRootfs(miniPrograms) })
	if miniErr != nil {
		t.Fatalf("mini rootfs: %v", miniErr)
	}
	return miniDir
}

// RemoveMiniRootfs removes MiniRootfs's directory, if it was built.
func RemoveMiniRootfs() {
	if miniDir != "" {
		os.RemoveAll(miniDir)
	}
}

func buildMiniRootfs(progs []string) (string, error) {
	dir, err := os.MkdirTemp("", "authbench-mini-rootfs-")
	if err != nil {
		return "", err
	}
	files := map[string]bool{}
	for _, p := range progs {
		real, err := filepath.EvalSymlinks(p)
		if err != nil {
			return "", err
		}
		files[p], files[real] = true, true
		out, _ := exec.Command("ldd", real).Output()
		for _, line := range strings.Split(string(out), "\n") {
			for _, f := range strings.Fields(line) {
				if strings.HasPrefix(f, "/") {
					files[f] = true
				}
			}
		}
	}
	for f := range files {
		if err := os.MkdirAll(filepath.Join(dir, filepath.Dir(f)), 0o755); err != nil {
			return "", err
		}
		if out, err := exec.Command("cp", "-L", f, filepath.Join(dir, f)).CombinedOutput(); err != nil {
			return "", &os.PathError{Op: "cp " + string(out), Path: f, Err: err}
		}
	}
	for _, d := range []string{"proc", "dev", "sys", "tmp", "app", "etc"} {
		if err := os.MkdirAll(filepath.Join(dir, d), 0o755); err != nil {
			return "", err
		}
	}
	os.Chmod(filepath.Join(dir, "tmp"), 0o1777)
	return dir, os.Chmod(dir, 0o755)
}
