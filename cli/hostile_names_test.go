package cli

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/authbench/authbench/audit"
	"github.com/authbench/authbench/policy"
	"github.com/authbench/authbench/runapi"
)

// hostile is a name that would drive a terminal: a window-title OSC, a
// screen clear, an OSC 8 link, a forged line and a bidi override.
// It has no slash, so a directory may have it as its name.
const hostile = "evil\x1b]0;pwned\x07\x1b[2J\x1b]8;;http:x\x1b\\\nok   forged\u202e"

func noControls(t *testing.T, what, out string) {
	t.Helper()
	for _, bad := range []string{"\x1b", "\x07", "\u202e", "\nok   forged"} {
		if strings.Contains(out, bad) {
			t.Errorf("%s carries %q:\n%q", what, bad, out)
		}
	}
}

// TestTasksCheckEscapesNames: `tasks check` and `tasks ls` print a task
// directory with a hostile name escaped.
func TestTasksCheckEscapesNames(t *testing.T) {
	dir := t.TempDir()
	if out, err := exec.Command("cp", "-r", filepath.Join("..", "tasks", "testdata", "fixtures", "hello-standard"),
		filepath.Join(dir, hostile)).CombinedOutput(); err != nil {
		t.Fatalf("%v %s", err, out)
	}
	if err := os.Mkdir(filepath.Join(dir, "broken"+hostile), 0o755); err != nil {
		t.Fatal(err)
	}
	for _, args := range [][]string{{"tasks", "check", dir}, {"tasks", "ls", dir}} {
		var out, errb bytes.Buffer
		Run(args, &out, &errb)
		noControls(t, strings.Join(args[:2], " "), out.String()+errb.String())
		if !strings.Contains(out.String()+errb.String(), `evil\x1b]0;pwned\x07`) {
			t.Errorf("%v does not name the task, escaped:\n%s%s", args, out.String(), errb.String())
		}
	}
}

// TestTaskRunSummaryEscapesNames: a task run's summary escapes what the
// agent chose (paths it made, its errors) and the task's name.
func TestTaskRunSummaryEscapesNames(t *testing.T) {
	res := &runapi.TaskResult{Task: hostile, Agent: `cmd:"` + hostile + `"`, PolicySource: "dir:" + hostile,
		AgentStopReason: "error", AgentError: hostile, VerifierError: hostile,
		Denials:         []audit.Denial{{Axis: "read", Op: "openat", Path: "/app/" + hostile}},
		TracedSensitive: []runapi.SensitiveAccess{{Axis: policy.Read, Op: "openat", Path: "/k" + hostile, Pattern: hostile}}}
	var out bytes.Buffer
	printTaskResult(&out, "run-1", res)
	noControls(t, "task run summary", out.String())
	if strings.Count(out.String(), `\x1b]0;pwned`) < 6 {
		t.Errorf("names missing from the summary:\n%s", out.String())
	}
}
