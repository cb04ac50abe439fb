package daemon

import (
	"fmt"
	"os"
	"testing"

	"github.com/authbench/authbench/internal/testenv"
)

// testBinary is the authbench binary built for these tests: the daemon
// re-executes it as sandbox-init, and some tests run it as the daemon.
var testBinary string

func TestMain(m *testing.M) {
	os.Exit(runTests(m))
}

func runTests(m *testing.M) int {
	var err error
	if testBinary, err = testenv.BuildAuthbench(); err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	return m.Run()
}
