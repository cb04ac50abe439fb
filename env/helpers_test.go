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
	miniOnce.Do(func() {
		miniDir, miniErr = testenv.MiniRootfs("/bin/sh", "/bin/cat", "/bin/ls", "/bin/sleep", "/usr/bin/id", "/bin/echo", "/usr/bin/env", "/bin/touch", "/bin/mkdir")
		if miniErr == nil {
			miniErr = os.WriteFile(filepath.Join(miniDir, "app", "hello.txt"), []byte("hello from the image\n"), 0o644)
		}
	})
	if miniErr != nil {
		t.Fatalf("mini rootfs: %v", miniErr)
	}
	return miniDir
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
