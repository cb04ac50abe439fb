package taskrun

import (
	"os"
	"path/filepath"
	"syscall"
	"testing"

	"go.uber.org/zap"

	"github.com/authbench/authbench/env"
	"github.com/authbench/authbench/internal/testenv"
	"github.com/authbench/authbench/policy"
	"github.com/authbench/authbench/runapi"
	"github.com/authbench/authbench/taskrun/internal/runbox"
	"github.com/authbench/authbench/tasks"
)

func writeFiles(t *testing.T, dir string, files map[string]string) {
	t.Helper()
	for name, data := range files {
		p := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

func owner(t *testing.T, p string) (int, int) {
	t.Helper()
	st, err := os.Lstat(p)
	if err != nil {
		t.Fatal(err)
	}
	s := st.Sys().(*syscall.Stat_t)
	return int(s.Uid), int(s.Gid)
}

// TestHarborRootfsLayout: before the agent, /logs/agent is the agent's
// and the oracle has a writable copy of solution/ (not a bind of the host
// dir); after it, whatever the agent planted in /logs/verifier and /tests
// is gone and /tests is a fresh root-owned copy of tests/.
func TestHarborRootfsLayout(t *testing.T) {
	testenv.NeedRoot(t)
	taskDir, rootfs := t.TempDir(), t.TempDir()
	writeFiles(t, taskDir, map[string]string{
		"solution/solve.sh": "echo solved\n", "solution/data/input.txt": "x",
		"tests/test.sh": "exit 0\n", "tests/test_outputs.py": "def test(): pass\n",
	})
	if err := os.Chmod(filepath.Join(taskDir, "solution", "solve.sh"), 0o555); err != nil {
		t.Fatal(err)
	}
	writeFiles(t, rootfs, map[string]string{"etc/passwd": "root:x:0:0::/root:/bin/sh\n"})
	task := &tasks.Task{Name: "layout", Dir: taskDir}
	r := &runner{Box: &runbox.Box{Options: Options{Task: task},
		Rootfs: &env.Rootfs{Path: rootfs}, Ident: runapi.Identity{UID: 4321, GID: 4322}}}
	oracle, _, err := newAgent(task, "oracle")
	if err != nil {
		t.Fatal(err)
	}
	if err := r.prepareAgentRootfs(); err != nil {
		t.Fatal(err)
	}
	if err := oracle.prepare(r); err != nil {
		t.Fatal(err)
	}
	for p, want := range map[string]int{"logs/agent": 4321, "logs/verifier": 0, "solution": 4321, "solution/solve.sh": 4321, "solution/data/input.txt": 4321} {
		if uid, _ := owner(t, filepath.Join(rootfs, p)); uid != want {
			t.Errorf("/%s owned by %d, want %d", p, uid, want)
		}
	}
	if st, _ := os.Stat(filepath.Join(rootfs, "solution", "solve.sh")); st.Mode().Perm()&0o200 == 0 {
		t.Errorf("/solution/solve.sh is not writable by its owner: %v", st.Mode())
	}
	// What the agent writes into /solution stays in the rootfs.
	writeFiles(t, rootfs, map[string]string{"solution/answer.txt": "42"})
	if _, err := os.Stat(filepath.Join(taskDir, "solution", "answer.txt")); err == nil {
		t.Error("a write into /solution reached the host's task dir")
	}
	// The agent plants a reward, a conftest.py and swaps /tests for a link.
	writeFiles(t, rootfs, map[string]string{"logs/verifier/reward.txt": "1", "evil/conftest.py": "planted"})
	if err := os.Symlink("/evil", filepath.Join(rootfs, "tests")); err != nil {
		t.Fatal(err)
	}
	if err := r.prepareVerifierRootfs(); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Lstat(filepath.Join(rootfs, "logs", "verifier", "reward.txt")); err == nil {
		t.Error("the planted reward survived")
	}
	if st, err := os.Lstat(filepath.Join(rootfs, "tests")); err != nil || !st.IsDir() {
		t.Fatalf("/tests is not a directory: %v", err)
	}
	if _, err := os.Stat(filepath.Join(rootfs, "tests", "conftest.py")); err == nil {
		t.Error("the planted conftest.py is in /tests")
	}
	if data, err := os.ReadFile(filepath.Join(rootfs, "tests", "test.sh")); err != nil || string(data) != "exit 0\n" {
		t.Errorf("/tests/test.sh: %q, %v", data, err)
	}
	if uid, _ := owner(t, filepath.Join(rootfs, "tests", "test_outputs.py")); uid != 0 {
		t.Errorf("/tests is not root's")
	}
	if data, err := os.ReadFile(filepath.Join(rootfs, "evil", "conftest.py")); err != nil || string(data) != "planted" {
		t.Errorf("the link's target was touched: %q %v", data, err)
	}
}

// TestCmdAgentGetsNoSolution: an agent other than the oracle and the
// shortcut never sees solution/.
func TestCmdAgentGetsNoSolution(t *testing.T) {
	testenv.NeedRoot(t)
	taskDir, rootfs := t.TempDir(), t.TempDir()
	writeFiles(t, taskDir, map[string]string{"solution/solve.sh": "echo solved\n"})
	task := &tasks.Task{Name: "cmd", Dir: taskDir}
	r := &runner{Box: &runbox.Box{Options: Options{Task: task}, Rootfs: &env.Rootfs{Path: rootfs}}}
	cmd, _, err := newAgent(task, "cmd:cat /solution/solve.sh")
	if err != nil {
		t.Fatal(err)
	}
	if err := r.prepareAgentRootfs(); err != nil {
		t.Fatal(err)
	}
	if err := cmd.prepare(r); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Lstat(filepath.Join(rootfs, "solution")); err == nil {
		t.Fatal("a cmd: agent's rootfs has /solution")
	}
	if st, err := os.Stat(filepath.Join(rootfs, "logs", "agent")); err != nil || !st.IsDir() {
		t.Fatalf("/logs/agent: %v", err)
	}
}

// TestStaticScoreOfTheRunsPolicy: the spec row scores the spec's
// required set (a perfect score), a policy row scores π, and the
// unconstrained row has no score.
func TestStaticScoreOfTheRunsPolicy(t *testing.T) {
	task := fixture(t, "hello-standard")
	rootfs := t.TempDir()
	writeFiles(t, rootfs, map[string]string{"app/input.txt": "a\n", "app/other.txt": "b\n", "usr/bin/bash": "", "usr/bin/wc": ""})
	for _, p := range []string{"usr/bin/bash", "usr/bin/wc"} {
		if err := os.Chmod(filepath.Join(rootfs, p), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	pi, err := policy.ParsePolicy([]byte(`{"read": ["/app/**"], "write": ["/app/count.txt"], "execute": ["/usr/bin/bash", "/usr/bin/wc"]}`), "pi")
	if err != nil {
		t.Fatal(err)
	}
	score := func(source string, pol *policy.Policy) *runapi.TaskResult {
		r := &runner{Box: &runbox.Box{Options: Options{Task: task, Source: source, Policy: pol}, Rootfs: &env.Rootfs{Path: rootfs}, Log: zap.NewNop()}, res: &runapi.TaskResult{}}
		r.staticScore()
		return r.res
	}
	if res := score(runapi.SourceSpec, nil); res.StaticScore == nil || !res.StaticScore.Valid || res.StaticScore.Axes[policy.Read].F1 != 1 || res.StaticScore.Axes[policy.Execute].F1 != 1 {
		t.Errorf("spec row: %+v (%s)", res.StaticScore, res.StaticScoreError)
	}
	if res := score(runapi.SourcePolicy, pi); res.StaticScore == nil || res.StaticScore.Axes[policy.Read].Precision != 0.5 || res.StaticScore.Axes[policy.Read].Recall != 1 {
		t.Errorf("policy row: %+v (%s)", res.StaticScore, res.StaticScoreError)
	}
	if res := score(runapi.SourceUnconstrained, nil); res.StaticScore != nil {
		t.Errorf("unconstrained row scored: %+v", res.StaticScore)
	}
}
