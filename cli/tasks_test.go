package cli

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/authbench/authbench/cli/core"
)

const taskFixtures = "../tasks/testdata/fixtures"

func TestTasksCheckFixtures(t *testing.T) {
	entries, err := os.ReadDir(taskFixtures)
	if err != nil {
		t.Fatal(err)
	}
	code, _, errOut := runCLI("tasks", "check", taskFixtures)
	if code != core.ExitOK || strings.Count(errOut, "ok   ") != len(entries) {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	code, out, errOut := runCLI("tasks", "check", "--json", filepath.Join(taskFixtures, "secret-sensitive"))
	var got struct {
		Valid bool `json:"valid"`
		Tasks []struct {
			Name    string `json:"name"`
			Dataset string `json:"dataset"`
			Valid   bool   `json:"valid"`
		} `json:"tasks"`
	}
	if code != core.ExitOK || json.Unmarshal([]byte(out), &got) != nil || !got.Valid || len(got.Tasks) != 1 || got.Tasks[0].Dataset != "sensitive" {
		t.Fatalf("exit %d, out %q, err %q", code, out, errOut)
	}
}

func TestTasksCheckReportsEveryProblemOfEveryTask(t *testing.T) {
	suite := t.TempDir()
	for _, name := range []string{"hello-standard", "secret-sensitive"} {
		if out, err := exec.Command("cp", "-a", filepath.Join(taskFixtures, name), suite).CombinedOutput(); err != nil {
			t.Fatalf("cp: %v %s", err, out)
		}
	}
	os.WriteFile(filepath.Join(suite, "hello-standard", "task.toml"), []byte("[agent]\ntimeout_sec = \"x\"\n"), 0o644)
	os.Remove(filepath.Join(suite, "hello-standard", "instruction.md"))
	os.Remove(filepath.Join(suite, "secret-sensitive", "tests", "test_attack_outputs.py"))
	code, _, errOut := runCLI("tasks", "check", suite)
	for _, want := range []string{
		"hello-standard/task.toml:2: agent.timeout_sec: must be a number, got a string",
		"hello-standard/instruction.md: missing",
		"secret-sensitive/tests/test_attack_outputs.py: missing",
		"2 of 2 task(s) have problems",
	} {
		if !strings.Contains(errOut, want) {
			t.Errorf("output lacks %q:\n%s", want, errOut)
		}
	}
	if code != core.ExitUsage {
		t.Errorf("exit %d, want %d", code, core.ExitUsage)
	}
	code, out, _ := runCLI("tasks", "check", "--json", suite)
	var got struct {
		Valid bool `json:"valid"`
		Tasks []struct {
			Problems []struct {
				File  string `json:"file"`
				Line  int    `json:"line"`
				Field string `json:"field"`
			} `json:"problems"`
		} `json:"tasks"`
	}
	if code != core.ExitUsage || json.Unmarshal([]byte(out), &got) != nil || got.Valid || len(got.Tasks) != 2 || len(got.Tasks[0].Problems) != 2 {
		t.Fatalf("exit %d, json %q", code, out)
	}
	if p := got.Tasks[0].Problems[0]; p.File != "task.toml" || p.Line != 2 || p.Field != "agent.timeout_sec" {
		t.Errorf("first problem = %+v", p)
	}
}

func TestTasksCheckBadArgs(t *testing.T) {
	if code, _, _ := runCLI("tasks", "check"); code != core.ExitUsage {
		t.Errorf("no DIR: exit %d", code)
	}
	code, _, errOut := runCLI("tasks", "check", filepath.Join(t.TempDir(), "missing"))
	if code != core.ExitUsage || !strings.Contains(errOut, "find tasks in") {
		t.Errorf("missing DIR: exit %d %s", code, errOut)
	}
	code, _, errOut = runCLI("tasks", "check", t.TempDir())
	if code != core.ExitUsage || !strings.Contains(errOut, "no task.toml") {
		t.Errorf("empty DIR: exit %d %s", code, errOut)
	}
}
