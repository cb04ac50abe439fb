package daemon

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
)

// testBinary is the authbench binary built for these tests: the daemon
// re-executes it as sandbox-init, and some tests run it as the daemon.
var testBinary string

func TestMain(m *testing.M) {
	os.Exit(runTests(m))
}

func runTests(m *testing.M) int {
	dir, err := os.MkdirTemp("", "authbench-daemon-test")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	defer os.RemoveAll(dir)
	os.Chmod(dir, 0o755)
	testBinary = filepath.Join(dir, "authbench")
	build := exec.Command("go", "build", "-o", testBinary, "../cli/authbench")
	build.Env = append(os.Environ(), "CGO_ENABLED=0")
	if out, err := build.CombinedOutput(); err != nil {
		fmt.Fprintf(os.Stderr, "build authbench for the daemon tests: %v\n%s", err, out)
		return 1
	}
	return m.Run()
}
