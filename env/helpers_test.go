package env

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/authbench/authbench/internal/testenv"
)

// need is testenv.Need.
func need(t testing.TB, feature string, ok bool) { t.Helper(); testenv.Need(t, feature, ok) }

func haveBin(name string) bool {
	_, err := exec.LookPath(name)
	return err == nil
}

func needRoot(t testing.TB) { t.Helper(); testenv.NeedRoot(t) }

func needRunc(t testing.TB) {
	needRoot(t)
	need(t, "runc", haveBin("runc"))
	need(t, "overlayfs", overlayAvailable())
}

func overlayAvailable() bool {
	data, err := os.ReadFile("/proc/filesystems")
	return err == nil && strings.Contains(string(data), "\toverlay\n")
}

// miniRootfs builds a tiny rootfs from host programs and their libraries
// (no debootstrap needed), once per test binary.
func miniRootfs(t testing.TB) string {
	t.Helper()
	miniOnce.Do(func() { miniDir, miniErr = buildMiniRootfs() })
	if miniErr != nil {
		t.Fatalf("mini rootfs: %v", miniErr)
	}
	return miniDir
}

func buildMiniRootfs() (string, error) {
	dir, err := os.MkdirTemp("", "authbench-mini-rootfs-")
	if err != nil {
		return "", err
	}
	progs := []string{"/bin/sh", "/bin/cat", "/bin/ls", "/bin/sleep", "/usr/bin/id", "/bin/echo", "/usr/bin/env", "/bin/touch", "/bin/mkdir"}
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
	os.WriteFile(filepath.Join(dir, "app", "hello.txt"), []byte("hello from the image\n"), 0o644)
	return dir, os.Chmod(dir, 0o755)
}

var (
	miniOnce sync.Once
	miniDir  string
	miniErr  error
)

func TestMain(m *testing.M) {
	code := m.Run()
	if miniDir != "" {
		os.RemoveAll(miniDir)
	}
	os.Exit(code)
}
