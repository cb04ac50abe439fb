package cli

import (
	"strings"
	"testing"
)

// TestTaskRunRefusesABadHarnessVersion: a pinned harness version that is
// not one exact npm release is bad input (exit 2, naming the reason),
// refused before any run starts.
func TestTaskRunRefusesABadHarnessVersion(t *testing.T) {
	for _, agent := range []string{"installed:pi@latest:m", "installed:openclaw@^2026.3.7:m", "installed:pi@1.6.0;id:m"} {
		code, _, stderr := runCLI("task", "run", "../tasks/testdata/fixtures/hello-standard", "--unconstrained", "--agent", agent)
		if code != 2 || !strings.Contains(stderr, "not an exact npm version") {
			t.Errorf("%s: exit %d, %s", agent, code, stderr)
		}
	}
}
