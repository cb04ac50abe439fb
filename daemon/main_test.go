package daemon

import (
	"fmt"
	"os"
	"testing"

	"github.com/authbench/authbench/daemon/taskwork"
	"github.com/authbench/authbench/internal/testenv"
)

// testBinary is the authbench binary built for these tests: the daemon
// re-executes it as sandbox-init, and some tests run it as the daemon.
var testBinary string

// testWork loads tasks and checks their names for the tests that
// validate task requests; task runs use the shared test images.
var testWork = taskwork.New(taskwork.Config{ImagesDir: testenv.ImagesDir()})

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
