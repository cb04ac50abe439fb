package taskrun

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/authbench/authbench/env/imagemeta"
	"github.com/authbench/authbench/internal/testenv"
	"github.com/authbench/authbench/runapi"

	"github.com/authbench/authbench/env"
	"github.com/authbench/authbench/policy"
	"github.com/authbench/authbench/tasks"
	"github.com/authbench/authbench/tracer"
	failure "github.com/authbench/authbench/verdict" // taskrun has a verdict of its own (a verifier's)
)

var (
	testSelf string
	testTr   *tracer.Tracer
)

// setup builds a static authbench (mounted into containers as
// sandbox-init) and loads the tracer, once.
func setup(t testing.TB) {
	t.Helper()
	testenv.NeedRoot(t)
	testenv.NeedTools(t, "runc", "buildah", "debootstrap")
	testSelf, testTr = testenv.AuthbenchFull(t), testenv.Tracer(t)
}

func testImages() env.Store { return env.Store{Dir: testenv.ImagesDir()} }

func fixture(t testing.TB, name string) *tasks.Task {
	t.Helper()
	task, err := tasks.Load(filepath.Join("..", "tasks", "testdata", "fixtures", name))
	if err != nil {
		t.Fatal(err)
	}
	return task
}

func runTask(t *testing.T, task *tasks.Task, source, agent string) *runapi.TaskResult {
	t.Helper()
	images := testImages()
	ctx, cancel := context.WithTimeout(context.Background(), 15*time.Minute)
	defer cancel()
	res, err := Run(ctx, Options{
		Task: task, Source: source, Agent: agent, Self: testSelf, Images: images,
		Builder: env.NewBuilder(imagemeta.Buildah, images), BaseMap: env.BaseMap{"python": env.BaseShortName},
		Tracer: testTr, Dir: t.TempDir(),
	})
	if err != nil {
		t.Fatalf("%s %s/%s: %v", task.Name, source, agent, err)
	}
	if res.VerifierError != "" {
		t.Fatalf("%s %s/%s: verifier error: %s", task.Name, source, agent, res.VerifierError)
	}
	return res
}

// TestOracleAndShortcutUnderEachPolicySource is the matrix on the
// sensitive fixture tasks (one of them in the published layout, with its
// FROM coming from an ARG, mapped to the local base).
func TestOracleAndShortcutUnderEachPolicySource(t *testing.T) {
	setup(t)
	for _, name := range []string{"secret-sensitive", "published-layout"} {
		t.Run(name, func(t *testing.T) {
			task := fixture(t, name)
			sensitive := task.Spec.Sensitive
			if sensitive == nil {
				t.Fatal("fixture has no sensitive_permissions")
			}

			res := runTask(t, task, runapi.SourceUnconstrained, runapi.AgentOracle)
			if !res.Utility {
				t.Errorf("oracle, unconstrained: utility false (exit %d)", res.ExitCode)
			}

			res = runTask(t, task, runapi.SourceSpec, runapi.AgentOracle)
			if !res.Utility || res.Attack == nil || *res.Attack {
				t.Errorf("oracle, spec policy: utility %v attack %v (denials %+v)", res.Utility, res.Attack, res.Denials)
			}
			if res.LandlockABI == 0 || !res.Traced || res.LostEvents != 0 {
				t.Errorf("oracle, spec policy: abi %d traced %v lost %d", res.LandlockABI, res.Traced, res.LostEvents)
			}

			res = runTask(t, task, runapi.SourceUnconstrained, runapi.AgentShortcut)
			if res.Attack == nil || !*res.Attack || len(res.TracedSensitive) == 0 {
				t.Errorf("shortcut, unconstrained: attack %v, traced sensitive %+v", res.Attack, res.TracedSensitive)
			}

			// Under each semantics the shortcut is refused: the trace holds
			// the refused access of a sensitive path, and the audit reports
			// it as a denial (under published semantics the key's directory
			// is listable, not readable: audit.NewInRoot judges the open on
			// what it named).
			for _, sem := range []policy.Semantics{policy.SemanticsPublished, policy.SemanticsPrecise} {
				dir := t.TempDir()
				res, err := runWith(t, Options{Task: task, Source: runapi.SourceSpec, Semantics: sem, Agent: runapi.AgentShortcut, Dir: dir,
					BaseMap: env.BaseMap{"python": env.BaseShortName}})
				if err != nil || res.VerifierError != "" {
					t.Fatalf("shortcut, spec policy, %s: %v %s", sem, err, res.VerifierError)
				}
				if res.Attack == nil || *res.Attack {
					t.Errorf("shortcut, spec policy, %s: the attack happened", sem)
				}
				if p := refusedSensitive(t, dir, sensitive); p == "" {
					t.Errorf("shortcut, spec policy, %s: no refused access of a sensitive path in the trace", sem)
				}
				deniedSensitive := false
				for _, d := range res.Denials {
					for _, p := range sensitive.Get(axisOf(string(d.Axis))) {
						deniedSensitive = deniedSensitive || p.Match(d.Path)
					}
				}
				if !deniedSensitive {
					t.Errorf("shortcut, spec policy, %s: no denial of a sensitive path in %+v", sem, res.Denials)
				}
				if res.SetupMS <= 0 {
					t.Errorf("setup time not measured")
				}
				// The run classified itself: result.json carries its
				// classes, primary class and the deciding denial (the
				// refused sensitive access), typed.
				written := readResult(t, dir)
				// (The published-layout task's verifier also reads a file
				// the shortcut left: verifier_tampered beside it.)
				if !slices.Contains(written.Classes, failure.ClassAttackBlocked) || written.Primary != failure.ClassAttackBlocked ||
					!slices.Equal(written.Classes, res.Classes) {
					t.Errorf("shortcut, spec policy, %s: result.json classes %v primary %q", sem, written.Classes, written.Primary)
				}
				if d := written.Deciding; d == nil || !slices.ContainsFunc(sensitive.Get(axisOf(string(d.Axis))), func(p policy.Pattern) bool { return p.Match(d.Path) }) {
					t.Errorf("shortcut, spec policy, %s: deciding denial %+v is no refused sensitive access", sem, written.Deciding)
				}
			}
		})
	}
}

// refusedSensitive returns the path of the first traced access refused
// with EACCES or EPERM that matches a sensitive pattern of its axis.
func refusedSensitive(t *testing.T, dir string, sensitive *policy.Permissions) string {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(dir, runapi.FileEvents))
	if err != nil {
		t.Fatal(err)
	}
	for _, line := range strings.Split(string(data), "\n") {
		var ev struct {
			Path, Axis, Errno string
		}
		if json.Unmarshal([]byte(line), &ev) != nil || (ev.Errno != "EACCES" && ev.Errno != "EPERM") {
			continue
		}
		for _, p := range sensitive.Get(axisOf(ev.Axis)) {
			if p.Match(ev.Path) {
				return ev.Path
			}
		}
	}
	return ""
}

// TestStandardTaskAndAptPackage: a standard task has no attack verdict; a
// task whose Dockerfile installs a Debian package runs its oracle.
func TestStandardTaskAndAptPackage(t *testing.T) {
	setup(t)
	for _, name := range []string{"hello-standard", "apt-package"} {
		res := runTask(t, fixture(t, name), runapi.SourceSpec, runapi.AgentOracle)
		if !res.Utility || res.Attack != nil {
			t.Errorf("%s: utility %v attack %v denials %+v", name, res.Utility, res.Attack, res.Denials)
		}
		if res.Semantics != policy.SemanticsPublished || res.StaticScore == nil || !res.StaticScore.Valid {
			t.Errorf("%s: semantics %q, static score %+v (%s)", name, res.Semantics, res.StaticScore, res.StaticScoreError)
		}
	}
}

// TestHangingAgentIsKilledAtItsTimeout: the task's agent timeout kills
// the container; the run is recorded, not lost.
func TestHangingAgentIsKilledAtItsTimeout(t *testing.T) {
	setup(t)
	task := fixture(t, "hello-standard")
	task.Config.Agent.TimeoutSec = 1
	start := time.Now()
	res := runTask(t, task, runapi.SourceUnconstrained, "cmd:sleep 300 & sleep 300")
	if !res.TimedOut || res.Utility || res.AgentDidNotRun || time.Since(start) > 2*time.Minute {
		t.Fatalf("timed out %v, utility %v, agent did not run %v, after %v", res.TimedOut, res.Utility, res.AgentDidNotRun, time.Since(start))
	}
	// A failure with no denial, classified by the run itself.
	if !slices.Equal(res.Classes, []failure.Class{failure.ClassNotPermissionRelated}) || res.Primary != failure.ClassNotPermissionRelated || res.Deciding != nil {
		t.Errorf("classes %v primary %q deciding %+v", res.Classes, res.Primary, res.Deciding)
	}
}

// readResult reads the result.json a run wrote in dir.
func readResult(t *testing.T, dir string) *runapi.TaskResult {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(dir, runapi.FileResult))
	if err != nil {
		t.Fatal(err)
	}
	var res runapi.TaskResult
	if err := json.Unmarshal(data, &res); err != nil {
		t.Fatalf("%s: %v", runapi.FileResult, err)
	}
	if !res.Classified() {
		t.Fatalf("%s carries no classification", runapi.FileResult)
	}
	return &res
}

func TestBadAgent(t *testing.T) {
	task := fixture(t, "hello-standard")
	for _, a := range []string{"", "robot", "cmd:", "cmd:  ", "shortcut", "openai:", "openai", "installed:", "installed:nosuch", "installed:pi@", "installed:pi@latest:m"} {
		if err := CheckAgent(task, a); err == nil || !strings.Contains(err.Error(), "agent") {
			t.Errorf("agent %q: %v", a, err)
		}
	}
}
