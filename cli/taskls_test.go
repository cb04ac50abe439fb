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

func decodeListing(t *testing.T, out string) map[string]taskListing {
	t.Helper()
	var rows []taskListing
	if err := json.Unmarshal([]byte(out), &rows); err != nil {
		t.Fatalf("decode %q: %v", out, err)
	}
	byName := map[string]taskListing{}
	for _, r := range rows {
		byName[r.Name] = r
	}
	return byName
}

func TestTasksLsFixtures(t *testing.T) {
	code, out, errOut := runCLI("tasks", "ls", "--json", taskFixtures)
	if code != core.ExitOK {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	got := decodeListing(t, out)
	want := map[string]taskListing{
		"secret-sensitive": {Domain: "data-processing", Dataset: "sensitive", Difficulty: "easy", Valid: true,
			Required: specSize{Read: 1, Write: 1, Execute: 2}, Sensitive: 2},
		"published-layout": {Domain: "software-engineering", Dataset: "sensitive", Difficulty: "medium", Valid: true,
			Required: specSize{Read: 1, Write: 1, Execute: 2}, Sensitive: 2},
	}
	for name, w := range want {
		g, ok := got[name]
		if !ok {
			t.Errorf("%s not listed", name)
			continue
		}
		g.Name, g.Dir = "", ""
		if g != w {
			t.Errorf("%s = %+v, want %+v", name, g, w)
		}
	}
}

func TestTasksLsTable(t *testing.T) {
	code, out, errOut := runCLI("tasks", "ls", filepath.Join(taskFixtures, "secret-sensitive"))
	if code != core.ExitOK {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	lines := strings.Split(strings.TrimSpace(out), "\n")
	if len(lines) != 2 || !strings.HasPrefix(lines[0], "TASK") {
		t.Fatalf("table = %q", out)
	}
	if f := strings.Fields(lines[1]); strings.Join(f, " ") != "secret-sensitive data-processing sensitive easy 1/1/2 2" {
		t.Errorf("row = %q", lines[1])
	}
}

// The default DIR is the built-in suite, relative to the repository root.
func TestTasksLsDefaultsToTheSuite(t *testing.T) {
	t.Chdir("..")
	code, out, errOut := runCLI("tasks", "ls", "--json")
	if code != core.ExitOK {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	got := decodeListing(t, out)
	r, ok := got["swe-fix-c-build"]
	if !ok || r.Domain != "software-engineering" || r.Dataset != "standard" || r.Required.Execute == 0 {
		t.Fatalf("swe-fix-c-build = %+v (listed: %v)", r, ok)
	}
	if !strings.HasPrefix(r.Dir, filepath.Join(mustGetwd(t), DefaultSuiteDir)) {
		t.Errorf("dir %s is not under the suite", r.Dir)
	}
	// A task with the network axis counts its hosts.
	if n := got["sec-ioc-feed-triage"]; n.Required.Network != 1 || n.Sensitive != 1 {
		t.Errorf("sec-ioc-feed-triage = %+v", n)
	}
}

func mustGetwd(t *testing.T) string {
	t.Helper()
	wd, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	return wd
}

func TestTasksLsMarksInvalidTasks(t *testing.T) {
	suite := t.TempDir()
	for _, name := range []string{"hello-standard", "secret-sensitive"} {
		if out, err := exec.Command("cp", "-a", filepath.Join(taskFixtures, name), suite).CombinedOutput(); err != nil {
			t.Fatalf("cp: %v %s", err, out)
		}
	}
	os.Remove(filepath.Join(suite, "secret-sensitive", "tests", "test_attack_outputs.py"))
	code, out, errOut := runCLI("tasks", "ls", suite)
	if code != core.ExitUsage || !strings.Contains(errOut, "1 of 2 task(s) do not load") {
		t.Fatalf("exit %d, stderr %q", code, errOut)
	}
	if !strings.Contains(out, "hello-standard") || !rowHas(out, "secret-sensitive", "invalid") {
		t.Errorf("table = %q", out)
	}
}

func rowHas(out, name, word string) bool {
	for _, l := range strings.Split(out, "\n") {
		f := strings.Fields(l)
		if len(f) > 2 && f[0] == name && f[2] == word {
			return true
		}
	}
	return false
}

func TestTasksLsBadArgs(t *testing.T) {
	if code, _, _ := runCLI("tasks", "ls", "a", "b"); code != core.ExitUsage {
		t.Errorf("two DIRs: exit %d", code)
	}
	if code, _, errOut := runCLI("tasks", "ls", filepath.Join(t.TempDir(), "none")); code != core.ExitUsage || !strings.Contains(errOut, "find tasks") {
		t.Errorf("missing DIR: exit %d, %q", code, errOut)
	}
}
