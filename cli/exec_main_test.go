package cli

import (
	"os"
	"testing"

	"github.com/authbench/authbench/cli/core"
	"github.com/authbench/authbench/daemon"
	"github.com/authbench/authbench/sandbox"
)

// asCLIEnv makes the test binary behave as the authbench binary, so that
// tests can run commands with real standard streams (exec's in-place
// path).
const asCLIEnv = "AUTHBENCH_TEST_AS_CLI"

// TestMain lets the test binary serve as sandbox-init, so that exec tests
// run in-process: `authbench exec` re-executes os.Executable(), which is
// this binary.
func TestMain(m *testing.M) {
	// Tests run embedded, whatever daemon may listen on this machine.
	os.Setenv(core.SocketEnv, "")
	// An embedded task run started in-process leaves its watchdog behind
	// as this binary too.
	hidden := len(os.Args) > 1 && (os.Args[1] == sandbox.InitCommand || os.Args[1] == daemon.WatchdogCommand ||
		os.Args[1] == sandbox.DieWithParentCommand)
	if hidden || os.Getenv(asCLIEnv) == "1" {
		os.Exit(Main(os.Args[1:]))
	}
	os.Exit(m.Run())
}
