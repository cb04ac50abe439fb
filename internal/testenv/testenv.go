// Package testenv holds what authbench's tests need of the machine: a
// feature the tests of a kernel mechanism need fails the test under
// CI=true (where every feature must be present) and skips it elsewhere
// with a message naming the feature; the image cache shared by the
// packages that build task images; a static authbench binary for
// tests that run it as sandbox-init or as the daemon; a tiny rootfs of
// host programs for container tests (MiniRootfs); and PeakRSS, for
// tests that bound a process's memory.
package testenv

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
)

// InCI reports whether the tests run in CI (CI=true).
func InCI() bool { return os.Getenv("CI") == "true" }

// Need fails the test under CI when ok is false, and skips it elsewhere,
// naming the missing feature.
func Need(t testing.TB, feature string, ok bool) {
	t.Helper()
	if ok {
		return
	}
	if InCI() {
		t.Fatalf("%s is required under CI=true but is not available", feature)
	}
	t.Skipf("skipping: needs %s", feature)
}

// NeedNoError is Need for a feature whose absence is an error (err is
// put in the message).
func NeedNoError(t testing.TB, feature string, err error) {
	t.Helper()
	if err != nil {
		Need(t, fmt.Sprintf("%s (%v)", feature, err), false)
	}
}

// NeedRoot requires running as root.
func NeedRoot(t testing.TB) { Need(t, "root", os.Geteuid() == 0) }

// NeedTools requires programs on PATH.
func NeedTools(t testing.TB, names ...string) {
	t.Helper()
	for _, n := range names {
		_, err := exec.LookPath(n)
		Need(t, n, err == nil)
	}
}

// ImagesDir is the image cache shared by the tests that build task
// images ($AUTHBENCH_TEST_IMAGES, default /var/cache/authbench-test/images):
// the base image is built once per machine, not once per package.
func ImagesDir() string {
	if dir := os.Getenv("AUTHBENCH_TEST_IMAGES"); dir != "" {
		return dir
	}
	return "/var/cache/authbench-test/images"
}

var (
	binOnce sync.Once
	binPath string
	binErr  error
)

// Authbench returns a static (CGO_ENABLED=0) build of the authbench
// binary, built once per test process into a directory every uid can
// read, with authbench-full and authbench-sandbox-init next to it; $AUTHBENCH_BIN names a
// prebuilt one instead.
func Authbench(t testing.TB) string {
	t.Helper()
	if b := os.Getenv("AUTHBENCH_BIN"); b != "" {
		abs, err := filepath.Abs(b)
		if err != nil {
			t.Fatal(err)
		}
		return abs
	}
	bin, err := BuildAuthbench()
	if err != nil {
		t.Fatal(err)
	}
	return bin
}

// AuthbenchFull is the full CLI next to Authbench's thin front
// (authbench-full): the binary to re-execute for task runs, whose
// containers run its hidden commands (agent-tools) with nothing next to
// it to hand them to.
func AuthbenchFull(t testing.TB) string {
	t.Helper()
	return FullBinary(Authbench(t))
}

// FullBinary is the full CLI next to the front binary bin.
func FullBinary(bin string) string {
	return filepath.Join(filepath.Dir(bin), "authbench-full")
}

// BuildAuthbench is Authbench for callers outside a test (TestMain); it
// builds once per process.
func BuildAuthbench() (string, error) {
	binOnce.Do(func() { binPath, binErr = buildAuthbench() })
	return binPath, binErr
}

// binDirPrefix names the directories of built binaries: the prefix and
// the building process's pid.
const binDirPrefix = "authbench-test-bin-"

func buildAuthbench() (string, error) {
	removeStaleBinDirs()
	dir := filepath.Join(os.TempDir(), binDirPrefix+strconv.Itoa(os.Getpid()))
	if err := os.RemoveAll(dir); err != nil {
		return "", err
	}
	if err := os.Mkdir(dir, 0o755); err != nil {
		return "", err
	}
	if err := os.Chmod(dir, 0o755); err != nil {
		return "", err
	}
	// As make build: static (usable as a PID-namespace init), the thin
	// front with the full CLI and the small sandbox-init next to it,
	// where the front and the launcher look for them.
	bin := filepath.Join(dir, "authbench")
	for _, b := range [][2]string{{bin, "cli/authbench"}, {filepath.Join(dir, "authbench-full"), "cli/authbench-full"},
		{filepath.Join(dir, "authbench-sandbox-init"), "cli/authbench-sandbox-init"}} {
		build := exec.Command("go", "build", "-o", b[0], "github.com/authbench/authbench/"+b[1])
		build.Env = append(os.Environ(), "CGO_ENABLED=0")
		if out, err := build.CombinedOutput(); err != nil {
			return "", fmt.Errorf("build %s: %v\n%s", b[1], err, out)
		}
	}
	return bin, nil
}

// removeStaleBinDirs removes the binaries built by test processes that
// have ended (74 MB each; a test process cannot remove its own when it
// exits, so the next one does).
func removeStaleBinDirs() {
	entries, err := os.ReadDir(os.TempDir())
	if err != nil {
		return
	}
	for _, e := range entries {
		pid, err := strconv.Atoi(strings.TrimPrefix(e.Name(), binDirPrefix))
		if err != nil || !strings.HasPrefix(e.Name(), binDirPrefix) || pid == os.Getpid() {
			continue
		}
		if err := syscall.Kill(pid, 0); errors.Is(err, syscall.ESRCH) {
			os.RemoveAll(filepath.Join(os.TempDir(), e.Name()))
		}
	}
}
