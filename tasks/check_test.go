package tasks

import (
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

const fixtures = "testdata/fixtures"

func TestFixturesLoad(t *testing.T) {
	cases := map[string]struct {
		dataset Dataset
		attack  bool
	}{
		"hello-standard":   {Standard, false},
		"apt-package":      {Standard, false},
		"secret-sensitive": {Sensitive, true},
		"published-layout": {Sensitive, true},
	}
	for name, want := range cases {
		t.Run(name, func(t *testing.T) {
			task, err := Load(filepath.Join(fixtures, name))
			if err != nil {
				t.Fatal(err)
			}
			if task.Name != name || task.Dataset() != want.dataset || (task.AttackSmoke != "") != want.attack {
				t.Errorf("task = %+v", task)
			}
			if len(task.Warnings) != 0 || task.Spec == nil || task.Dockerfile == nil || task.Instruction == "" {
				t.Errorf("incomplete: warnings %v", task.Warnings)
			}
			if want.dataset == Sensitive && (task.TestAttack == "" || task.Spec.Sensitive == nil) {
				t.Errorf("sensitive task without attack verifier or sensitive permissions")
			}
		})
	}
}

func TestPublishedLayoutConfig(t *testing.T) {
	task, err := Load(filepath.Join(fixtures, "published-layout"))
	if err != nil {
		t.Fatal(err)
	}
	c := task.Config
	if c.Version != "1.0" || c.Metadata.SensitiveMode != ModeMixed || c.Agent.TimeoutSec != 300 ||
		c.Verifier.TimeoutSec != 120 || c.Environment.MemoryMB != 2048 || c.Environment.StorageMB != 10240 {
		t.Errorf("config = %+v", c)
	}
	if task.TestScript != "" || task.TestOutputs == "" {
		t.Errorf("verifiers: script %q outputs %q", task.TestScript, task.TestOutputs)
	}
	froms, err := task.Dockerfile.Froms()
	if err != nil || len(froms) != 1 || froms[0].Image != "${BASE_IMAGE}" {
		t.Fatalf("froms = %+v, %v", froms, err)
	}
	if args := task.Dockerfile.GlobalArgs(); len(args) != 1 || args[0] != [2]string{"BASE_IMAGE", "python:3.11-slim"} {
		t.Errorf("global args = %v", args)
	}
}

// copyFixture copies a fixture task into a temporary directory.
func copyFixture(t *testing.T, name string) string {
	t.Helper()
	dst := filepath.Join(t.TempDir(), name)
	if out, err := exec.Command("cp", "-a", filepath.Join(fixtures, name), dst).CombinedOutput(); err != nil {
		t.Fatalf("cp: %v: %s", err, out)
	}
	return dst
}

func write(t *testing.T, dir, rel, content string) {
	t.Helper()
	p := filepath.Join(dir, rel)
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

func remove(t *testing.T, dir, rel string) {
	t.Helper()
	if err := os.RemoveAll(filepath.Join(dir, rel)); err != nil {
		t.Fatal(err)
	}
}

func TestCheckReportsEveryProblem(t *testing.T) {
	cases := []struct {
		name    string
		fixture string
		breakIt func(t *testing.T, dir string)
		want    []string // "file:line: field: msg" substrings, in order
	}{
		{"missing files", "hello-standard", func(t *testing.T, d string) {
			remove(t, d, FileInstruction)
			remove(t, d, FileSolve)
			remove(t, d, FileDockerfile)
			remove(t, d, FilePermissionSpec)
		}, []string{"instruction.md: missing", "environment/Dockerfile: missing", "solution/solve.sh: missing", "tests/permission_eval_spec.json: missing"}},
		{"broken toml and empty instruction", "hello-standard", func(t *testing.T, d string) {
			write(t, d, FileConfig, "[agent]\ntimeout_sec = 3\n[agent\n")
			write(t, d, FileInstruction, "  \n")
		}, []string{"task.toml:3: not valid TOML", "instruction.md: empty"}},
		{"wrong types everywhere", "hello-standard", func(t *testing.T, d string) {
			write(t, d, FileConfig, "[agent]\ntimeout_sec = \"1\"\n[environment]\nallow_internet = 1\n")
		}, []string{"task.toml:2: agent.timeout_sec: must be a number", "task.toml:4: environment.allow_internet: must be a boolean"}},
		{"invalid spec", "hello-standard", func(t *testing.T, d string) {
			write(t, d, FilePermissionSpec, `{"required_permissions": {"read": ["rel"], "write": [], "execute": []},
				"scored_roots": {"read": ["/app"], "write": ["/app"], "execute": []}, "implicit_permissions": {"read": [], "write": [], "execute": []}}`)
		}, []string{"tests/permission_eval_spec.json: required_permissions.read[0]:"}},
		{"spec not json", "hello-standard", func(t *testing.T, d string) {
			write(t, d, FilePermissionSpec, "{")
		}, []string{"tests/permission_eval_spec.json: not valid JSON"}},
		{"no verifier", "hello-standard", func(t *testing.T, d string) {
			remove(t, d, FileTestScript)
		}, []string{"tests: no utility verifier"}},
		{"attack files on a standard task", "hello-standard", func(t *testing.T, d string) {
			write(t, d, FileTestAttack, "def test_x(): pass\n")
			write(t, d, FileAttackSmoke, "true\n")
		}, []string{"tests/test_attack_outputs.py: only sensitive tasks", "solution/attack_smoke.sh: only sensitive tasks"}},
		{"sensitive without attack verifier nor sensitive spec", "secret-sensitive", func(t *testing.T, d string) {
			remove(t, d, FileTestAttack)
			write(t, d, FilePermissionSpec, `{"required_permissions": {"read": [], "write": [], "execute": []},
				"scored_roots": {"read": [], "write": [], "execute": []}, "implicit_permissions": {"read": [], "write": [], "execute": []}}`)
		}, []string{"tests/test_attack_outputs.py: missing", "tests/permission_eval_spec.json: sensitive_permissions: a sensitive task's spec"}},
		{"dockerfile without FROM", "hello-standard", func(t *testing.T, d string) {
			write(t, d, FileDockerfile, "# nothing\nRUN true\n")
		}, []string{"environment/Dockerfile: no FROM instruction"}},
		{"solve.sh is a directory", "hello-standard", func(t *testing.T, d string) {
			remove(t, d, FileSolve)
			if err := os.MkdirAll(filepath.Join(d, FileSolve), 0o755); err != nil {
				t.Fatal(err)
			}
		}, []string{"solution/solve.sh: must be a regular file, is a directory"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			dir := copyFixture(t, tc.fixture)
			tc.breakIt(t, dir)
			_, err := Load(dir)
			var te *Error
			if !errors.As(err, &te) {
				t.Fatalf("Load = %v, want *Error", err)
			}
			if len(te.Problems) != len(tc.want) {
				t.Fatalf("got %d problems:\n%v\nwant %d", len(te.Problems), err, len(tc.want))
			}
			for i, p := range te.Problems {
				if !strings.Contains(p.String(), tc.want[i]) {
					t.Errorf("problem %d = %q, want %q", i, p.String(), tc.want[i])
				}
			}
		})
	}
}

func TestUnknownKeysAreWarningsOnly(t *testing.T) {
	dir := copyFixture(t, "hello-standard")
	write(t, dir, FileConfig, "[agent]\ntimeout_sec = 5\nflavour = \"x\"\n[metadata]\nanything = [1, 2]\n")
	task, err := Load(dir)
	if err != nil {
		t.Fatal(err)
	}
	if len(task.Warnings) != 1 || task.Warnings[0].Field != "agent.flavour" || task.Warnings[0].Line != 3 {
		t.Errorf("warnings = %v", task.Warnings)
	}
}

func TestDiscover(t *testing.T) {
	dirs, err := Discover(fixtures)
	if err != nil || len(dirs) != countDirs(t, fixtures) {
		t.Fatalf("Discover = %v, %v", dirs, err)
	}
	one, err := Discover(filepath.Join(fixtures, "apt-package"))
	if err != nil || len(one) != 1 {
		t.Fatalf("Discover(task) = %v, %v", one, err)
	}
	if _, err := Discover(t.TempDir()); err == nil {
		t.Error("Discover(empty dir): want an error")
	}
	if _, err := Discover(filepath.Join(t.TempDir(), "nope")); err == nil {
		t.Error("Discover(missing): want an error")
	}
}

// countDirs counts the directories in dir (each fixture is one task).
func countDirs(t *testing.T, dir string) int {
	t.Helper()
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, e := range entries {
		if e.IsDir() {
			n++
		}
	}
	return n
}

func TestCheckNotADirectory(t *testing.T) {
	_, ps := Check(filepath.Join(t.TempDir(), "nope"))
	if len(ps) != 1 || !strings.Contains(ps[0].Msg, "not a task directory") {
		t.Errorf("problems = %v", ps)
	}
}
