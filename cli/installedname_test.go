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

// TestTaskRunRefusesABadAgentName: a malformed or unknown agent name is
// bad input (exit 2, naming what is wrong), refused by the one parser
// (agentname) before any run starts.
func TestTaskRunRefusesABadAgentName(t *testing.T) {
	for agent, want := range map[string]string{
		"robot":              "unknown agent",
		"openai":             "unknown agent",
		"cmd:":               "cmd: needs a command",
		"openai:":            "missing model name",
		"installed:":         "want installed:NAME",
		"installed:pi@:m":    "not an exact npm version",
		"installed:../x:m":   "want installed:NAME",
		"gen:openai:gpt-5":   "unknown agent",
		"oracle; rm -rf /":   "unknown agent",
		"installed:Pi@1.0.0": "want installed:NAME",
	} {
		code, _, stderr := runCLI("task", "run", "../tasks/testdata/fixtures/hello-standard", "--unconstrained", "--agent", agent)
		if code != 2 || !strings.Contains(stderr, want) {
			t.Errorf("%s: exit %d, %s", agent, code, stderr)
		}
	}
}
