package env

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
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

// miniRootfs is testenv.MiniRootfs with /app/hello.txt.
func miniRootfs(t testing.TB) string {
	t.Helper()
	dir := testenv.MiniRootfs(t)
	if err := os.WriteFile(filepath.Join(dir, "app", "hello.txt"), []byte("hello from the image\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	return dir
}

func TestMain(m *testing.M) {
	code := m.Run()
	testenv.RemoveMiniRootfs()
	os.Exit(code)
}
