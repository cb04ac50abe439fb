package taskrun

import (
	"context"
	"errors"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/authbench/authbench/env"
	"github.com/authbench/authbench/env/imagemeta"
	"github.com/authbench/authbench/policy"
	"github.com/authbench/authbench/runapi"
	"github.com/authbench/authbench/tasks"
)

// runIn is runTask with the run's directory and options chosen by the
// caller; it returns the run's error instead of failing.
func runIn(t *testing.T, task *tasks.Task, source, agent string, sem policy.Semantics, dir string) (*runapi.TaskResult, error) {
	return runWith(t, Options{Task: task, Source: source, Semantics: sem, Agent: agent, Dir: dir})
}

// runWith runs o with the test's binary, images, builder and tracer.
func runWith(t testing.TB, o Options) (*runapi.TaskResult, error) {
	t.Helper()
	images := testImages()
	ctx, cancel := context.WithTimeout(context.Background(), 15*time.Minute)
	defer cancel()
	o.Self, o.Images, o.Builder, o.Tracer = testSelf, images, env.NewBuilder(imagemeta.Buildah, images), testTr
	return Run(ctx, o)
}

// TestHarborFixtures: each Harbor convention has a fixture task whose
// oracle passes unconstrained and under its own spec with the published
// semantics (the default).
func TestHarborFixtures(t *testing.T) {
	setup(t)
	checks := map[string]func(t *testing.T, unconstrained, spec *runapi.TaskResult){
		// No USER: the agent is root, writing into a root-owned work dir.
		"harbor-root-workdir": func(t *testing.T, u, s *runapi.TaskResult) {
			if id := s.AgentIdentity; id == nil || id.UID != 0 || id.GID != 0 || id.User != "root" || id.Home != "/root" {
				t.Errorf("identity %+v, want root", id)
			}
		},
		// USER builder: resolved through the image's passwd and group.
		"harbor-image-user": func(t *testing.T, u, s *runapi.TaskResult) {
			if id := s.AgentIdentity; id == nil || id.UID != 1234 || id.GID != 2345 || id.User != "builder" {
				t.Errorf("identity %+v, want builder 1234:2345", id)
			}
		},
		// The deliverable written into /solution reaches the verifier, not
		// the host's task dir.
		"harbor-solution-deliverable": func(t *testing.T, u, s *runapi.TaskResult) {
			if _, err := os.Stat(filepath.Join("..", "tasks", "testdata", "fixtures", "harbor-solution-deliverable", "solution", "answer.txt")); err == nil {
				t.Error("the oracle's /solution/answer.txt landed in the host's task dir")
			}
		},
		// git's lock-then-rename of index.lock under a spec naming it.
		"harbor-git-lock": func(t *testing.T, u, s *runapi.TaskResult) {},
	}
	for name, check := range checks {
		t.Run(name, func(t *testing.T) {
			task := fixture(t, name)
			u := runTask(t, task, runapi.SourceUnconstrained, runapi.AgentOracle)
			if !u.Utility || u.UtilityReward == nil && task.TestScript != "" {
				t.Errorf("unconstrained: utility %v reward %v (exit %d)", u.Utility, u.UtilityReward, u.ExitCode)
			}
			s := runTask(t, task, runapi.SourceSpec, runapi.AgentOracle)
			if !s.Utility || s.Semantics != policy.SemanticsPublished || len(denialsBesidesTTY(s)) != 0 {
				t.Errorf("spec, published: utility %v semantics %q denials %+v (exit %d)", s.Utility, s.Semantics, s.Denials, s.ExitCode)
			}
			if s.StaticScore == nil || !s.StaticScore.Valid {
				t.Errorf("spec: static score %+v (%s)", s.StaticScore, s.StaticScoreError)
			}
			check(t, u, s)
		})
	}
}

// denialsBesidesTTY are the run's denials but bash's probe of /dev/tty
// (the container has no terminal; no spec grants it).
func denialsBesidesTTY(res *runapi.TaskResult) []string {
	var out []string
	for _, d := range res.Denials {
		if d.Path != "/dev/tty" {
			out = append(out, string(d.Axis)+" "+d.Path)
		}
	}
	return out
}

// TestGitLockNeedsPublishedSemantics: the precise plan gives the write of
// a missing .git/index.lock only the right to create it, so git cannot
// rename it over the index; the published plan opens .git for writing
// and lists that as wider than the policy.
func TestGitLockNeedsPublishedSemantics(t *testing.T) {
	setup(t)
	task := fixture(t, "harbor-git-lock")
	res, err := runIn(t, task, runapi.SourceSpec, runapi.AgentOracle, policy.SemanticsPrecise, t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	if res.Utility || res.Semantics != policy.SemanticsPrecise || res.ExitCode == 0 {
		t.Errorf("precise: utility %v semantics %q exit %d", res.Utility, res.Semantics, res.ExitCode)
	}
	res, err = runIn(t, task, runapi.SourceSpec, runapi.AgentOracle, "", t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	wider := false
	for _, w := range res.PlanWiderThanPolicy {
		wider = wider || (w.Kind == policy.WiderParentDir && w.Path == "/repo/.git")
	}
	if !res.Utility || !wider {
		t.Errorf("published: utility %v, widenings %+v", res.Utility, res.PlanWiderThanPolicy)
	}
}

var capLine = regexp.MustCompile(`(?m)^(CapEff|CapPrm|CapBnd|CapAmb):\s+([0-9a-f]+)$`)

// dockerCapMask is Docker's default capability set as /proc/PID/status
// prints it (CHOWN DAC_OVERRIDE FOWNER FSETID KILL SETGID SETUID SETPCAP
// NET_BIND_SERVICE NET_RAW SYS_CHROOT MKNOD AUDIT_WRITE SETFCAP).
const dockerCapMask = "a80425fb"

// TestConfinedRootAgentCapabilities: in an image without USER the agent is
// root and, confined or not, holds Docker's default set as a root
// container does (effective, permitted, bounding; never ambient); with no
// capabilities asked for (--caps none) a confined root holds none at all.
func TestConfinedRootAgentCapabilities(t *testing.T) {
	setup(t)
	task := fixture(t, "harbor-root-workdir")
	pi, err := policy.ParsePolicy([]byte(`{"read": [], "write": [], "execute": ["/bin/sh", "/usr/bin/id", "/usr/bin/cat"]}`), "pi")
	if err != nil {
		t.Fatal(err)
	}
	caps := func(source string, asked []string) map[string]string {
		dir := t.TempDir()
		res, err := runWith(t, Options{Task: task, Source: source, Policy: pi, Capabilities: asked,
			Agent: "cmd:id -u; cat /proc/self/status", Dir: dir})
		if err != nil || res.ExitCode != 0 {
			t.Fatalf("%s: %v (exit %d)", source, err, res.ExitCode)
		}
		out, err := os.ReadFile(filepath.Join(dir, runapi.FileAgentStdout))
		if err != nil || !strings.HasPrefix(string(out), "0\n") {
			t.Fatalf("%s: the agent is not root: %q %v", source, out, err)
		}
		m := map[string]string{}
		for _, c := range capLine.FindAllStringSubmatch(string(out), -1) {
			m[c[1]] = strings.TrimLeft(c[2], "0")
		}
		return m
	}
	docker := map[string]string{"CapEff": dockerCapMask, "CapPrm": dockerCapMask, "CapBnd": dockerCapMask, "CapAmb": ""}
	for _, source := range []string{runapi.SourcePolicy, runapi.SourceUnconstrained} {
		if c := caps(source, nil); !maps.Equal(c, docker) {
			t.Errorf("%s root: capabilities %v, want Docker's %v", source, c, docker)
		}
	}
	none := map[string]string{"CapEff": "", "CapPrm": "", "CapBnd": "", "CapAmb": ""}
	if c := caps(runapi.SourcePolicy, []string{}); !maps.Equal(c, none) {
		t.Errorf("confined root with no capabilities asked: %v", c)
	}
}

// copyFixture copies a fixture to a temporary directory for breaking.
func copyFixture(t *testing.T, name string) string {
	t.Helper()
	dir := filepath.Join(t.TempDir(), name)
	if out, err := exec.Command("cp", "-a", filepath.Join("..", "tasks", "testdata", "fixtures", name), dir).CombinedOutput(); err != nil {
		t.Fatalf("copy fixture: %v %s", err, out)
	}
	return dir
}

// TestHarborBadInput: an image USER its passwd does not know fails the
// run naming the task and the user; a reward file holding garbage is a
// verifier error quoting it.
func TestHarborBadInput(t *testing.T) {
	setup(t)
	dir := copyFixture(t, "hello-standard")
	df := filepath.Join(dir, "environment", "Dockerfile")
	data, err := os.ReadFile(df)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(df, append(data, "USER ghost\n"...), 0o644); err != nil {
		t.Fatal(err)
	}
	task, err := tasks.Load(dir)
	if err != nil {
		t.Fatal(err)
	}
	res, err := runIn(t, task, runapi.SourceSpec, runapi.AgentOracle, "", t.TempDir())
	var ue *UnknownUserError
	if !errors.As(err, &ue) || !strings.Contains(res.Error, `task hello-standard: agent user "ghost": user "ghost" is not in the image's /etc/passwd`) {
		t.Errorf("unknown USER: %v (result error %q)", err, res.Error)
	}
	if res.ErrorKind != runapi.ErrorIdentity {
		t.Errorf("unknown USER: error kind %q, want %q", res.ErrorKind, runapi.ErrorIdentity)
	}
	if !res.AgentDidNotRun {
		t.Errorf("unknown USER: the agent never started, but the record does not say so")
	}

	dir = copyFixture(t, "hello-standard")
	if err := os.WriteFile(filepath.Join(dir, "tests", "test.sh"), []byte("#!/bin/bash\necho 'all tests PASSED' > /logs/verifier/reward.txt\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	if task, err = tasks.Load(dir); err != nil {
		t.Fatal(err)
	}
	res, err = runIn(t, task, runapi.SourceUnconstrained, runapi.AgentOracle, "", t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	if res.Utility || !strings.Contains(res.VerifierError, `reward is not a number: "all tests PASSED\n"`) || res.AgentDidNotRun {
		t.Errorf("garbage reward: utility %v, verifier error %q, agent did not run %v", res.Utility, res.VerifierError, res.AgentDidNotRun)
	}
}
