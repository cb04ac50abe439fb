package bench

import (
	"bytes"
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"sort"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/authbench/authbench/internal/testenv"
	"github.com/authbench/authbench/runapi"
	"github.com/authbench/authbench/sandbox"
	"github.com/authbench/authbench/trial"
	"github.com/authbench/authbench/verdict"
)

// needBench requires what real task runs need.
func needBench(t testing.TB) string {
	t.Helper()
	testenv.NeedRoot(t)
	testenv.Need(t, "Landlock", sandbox.KernelLandlockABI() > 0)
	testenv.NeedTools(t, "runc", "buildah", "debootstrap")
	return testenv.AuthbenchFull(t)
}

// fixtureTasks copies fixture tasks into a fresh tasks dir.
func fixtureTasks(t testing.TB, names ...string) string {
	t.Helper()
	dir := t.TempDir()
	for _, n := range names {
		src := filepath.Join("..", "tasks", "testdata", "fixtures", n)
		if out, err := exec.Command("cp", "-r", src, filepath.Join(dir, n)).CombinedOutput(); err != nil {
			t.Fatalf("copy %s: %v %s", n, err, out)
		}
	}
	return dir
}

type benchCmd struct {
	bin             string
	tasks, stateDir string
	args            []string
}

func newBenchCmd(t testing.TB, bin, tasksDir string) benchCmd {
	state := t.TempDir()
	return benchCmd{bin: bin, tasks: tasksDir, stateDir: state, args: []string{"bench", "--socket", "", "--tasks", tasksDir,
		"--agent", "oracle", "--images-dir", testenv.ImagesDir(), "--state-dir", state}}
}

func (b benchCmd) command(extra ...string) *exec.Cmd {
	cmd := exec.Command(b.bin, append(append([]string{}, b.args...), extra...)...)
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	return cmd
}

// run runs the bench to its end and returns its exit code and output.
func (b benchCmd) run(t testing.TB, extra ...string) (int, string, string) {
	t.Helper()
	cmd := b.command(extra...)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	var ee *exec.ExitError
	if err != nil && !errors.As(err, &ee) {
		t.Fatal(err)
	}
	return cmd.ProcessState.ExitCode(), stdout.String(), stderr.String()
}

func (b benchCmd) mustRun(t testing.TB, extra ...string) string {
	t.Helper()
	code, stdout, stderr := b.run(t, extra...)
	if code != 0 {
		t.Fatalf("bench %v: exit %d\n%s", extra, code, stderr)
	}
	return stdout
}

// comparable strips what differs between two benches of the same runs:
// timings.
func comparable(recs []trial.Record) []trial.Record {
	out := append([]trial.Record(nil), recs...)
	for i := range out {
		r := &out[i]
		r.SetupS, r.AgentS, r.VerifyS, r.WallS, r.Finished = 0, 0, 0, 0, time.Time{}
	}
	sort.Slice(out, func(i, j int) bool { return keyOf(&out[i]).String() < keyOf(&out[j]).String() })
	return out
}

func loadOut(t testing.TB, dirs ...string) []trial.Record {
	t.Helper()
	recs, err := LoadRecords(dirs...)
	if err != nil {
		t.Fatal(err)
	}
	return comparable(recs)
}

// TestBenchFixtures runs the oracle under unconstrained and spec on a
// standard and a sensitive fixture, and checks the verdicts, then that
// the same bench killed mid-way and resumed, and the same bench in two
// shards, store the same runs.
func TestBenchFixtures(t *testing.T) {
	bin := needBench(t)
	b := newBenchCmd(t, bin, fixtureTasks(t, "hello-standard", "secret-sensitive"))
	sources := []string{"--sources", "unconstrained,spec"}
	work := t.TempDir()

	whole := filepath.Join(work, "whole")
	b.mustRun(t, append(sources, "--out", whole)...)
	recs := loadOut(t, whole)
	checkFixtureRecords(t, recs)
	checkJobLayout(t, whole, recs)
	checkRunsVerdict(t, whole, recs)

	// The same command again runs nothing; other settings are refused.
	var sum Summary
	if err := json.Unmarshal([]byte(b.mustRun(t, append(sources, "--out", whole, "--json")...)), &sum); err != nil {
		t.Fatal(err)
	}
	if sum.Stats.NResumed != 6 || sum.Stats.NTrials != 6 || sum.NTotal != 6 {
		t.Fatalf("resumed bench: %+v", sum)
	}
	if code, _, stderr := b.run(t, append(sources, "--out", whole, "--trials", "2")...); code != 2 || !strings.Contains(stderr, "--trials") {
		t.Fatalf("other settings: exit %d %s", code, stderr)
	}

	// SIGKILL once runs are stored, then resume. The killed embedded
	// daemon leaves its run in flight (an overlay rootfs mounted) in its
	// state dir: a state dir of its own, unmounted at the end.
	killed := filepath.Join(work, "killed")
	kb := newBenchCmd(t, bin, b.tasks)
	t.Cleanup(func() { unmountUnder(t, kb.stateDir) })
	cmd := kb.command(append(sources, "--out", killed, "--parallel", "1")...)
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	for stored := 0; stored < 2; {
		if cmd.ProcessState != nil {
			t.Fatal("the bench ended before it was killed")
		}
		time.Sleep(100 * time.Millisecond)
		if recs, err := LoadRecords(killed); err == nil {
			stored = len(recs)
		}
	}
	if err := syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	_ = cmd.Wait()
	before := len(loadOut(t, killed))
	if before >= 6 {
		t.Fatalf("killed too late: %d runs stored", before)
	}
	kb.mustRun(t, append(sources, "--out", killed)...)
	if got := loadOut(t, killed); !reflect.DeepEqual(got, recs) {
		t.Fatalf("killed (%d stored) and resumed:\n%+v\nuninterrupted:\n%+v", before, got, recs)
	}

	// Two shards merged equal the whole.
	s0, s1 := filepath.Join(work, "s0"), filepath.Join(work, "s1")
	b.mustRun(t, append(sources, "--out", s0, "--shard", "0/2")...)
	b.mustRun(t, append(sources, "--out", s1, "--shard", "1/2")...)
	if n0, n1 := len(loadOut(t, s0)), len(loadOut(t, s1)); n0 == 0 || n1 == 0 {
		t.Fatalf("a shard ran nothing: %d %d", n0, n1)
	}
	if got := loadOut(t, s0, s1); !reflect.DeepEqual(comparable(got), recs) {
		t.Fatalf("shards merged:\n%+v\nwhole:\n%+v", got, recs)
	}
}

// checkFixtureRecords: spec → utility true and no exposure; the
// unconstrained shortcut → exposure by V_a and by trace.
func checkFixtureRecords(t *testing.T, recs []trial.Record) {
	t.Helper()
	if len(recs) != 6 {
		t.Fatalf("%d records, want 6: %+v", len(recs), recs)
	}
	for _, r := range recs {
		name := keyOf(&r).String()
		if r.Error != "" || r.Semantics == "" && r.Source != runapi.SourceUnconstrained {
			t.Errorf("%s: error %q semantics %q", name, r.Error, r.Semantics)
		}
		switch {
		case r.Source == runapi.SourceSpec && r.Agent == "shortcut":
			// Blocked: not a failure, and the shortcut's own failure
			// is no flag.
			if r.Exposed() || !reflect.DeepEqual(r.Classes, []verdict.Class{verdict.ClassAttackBlocked}) || r.Primary != verdict.ClassAttackBlocked ||
				!strings.Contains(r.DecidingDenial, "deploy.key") {
				t.Errorf("%s: want attack_blocked by the key's denial: %+v", name, r)
			}
		case r.Source == runapi.SourceSpec:
			if !r.Utility || r.Exposed() || !r.Scored || !r.PolicyValid || r.ReadR != 1 || r.WriteR != 1 || r.ExecR != 1 || len(r.Classes) != 0 {
				t.Errorf("%s: %+v", name, r)
			}
		case r.Agent == "shortcut":
			if r.Attack == nil || !*r.Attack || !r.TracedExposure || r.Primary != verdict.ClassSensitiveExposure || r.ExposureAccess == "" {
				t.Errorf("%s: want exposure by V_a and trace: %+v", name, r)
			}
		default:
			if !r.Utility || r.Exposed() || r.Scored {
				t.Errorf("%s: %+v", name, r)
			}
		}
	}
}

// checkJobLayout: the out dir is a Harbor job: config.json, result.json,
// and per trial config.json, result.json and the run's files.
func checkJobLayout(t *testing.T, out string, recs []trial.Record) {
	t.Helper()
	var job struct {
		NTotal int   `json:"n_total_trials"`
		Stats  Stats `json:"stats"`
	}
	readJSON(t, filepath.Join(out, JobResultFile), &job)
	if job.NTotal != 6 || job.Stats.NTrials != 6 || job.Stats.NFailed != 1 {
		t.Errorf("job result: %+v", job)
	}
	var cfg jobConfig
	readJSON(t, filepath.Join(out, JobConfigFile), &cfg)
	if cfg.Authbench.Agent != "oracle" || len(cfg.Authbench.Sources) != 2 {
		t.Errorf("job config: %+v", cfg)
	}
	for _, r := range recs {
		var tr trial.HarborResult
		readJSON(t, filepath.Join(out, r.Dir, JobResultFile), &tr)
		if tr.TaskName != r.Task || tr.VerifierResult == nil || tr.Authbench == nil || tr.Authbench.Utility != r.Utility {
			t.Errorf("%s: trial result %+v", r.Dir, tr)
		}
		for _, f := range []string{JobConfigFile, "authbench/result.json", "authbench/events.jsonl"} {
			if _, err := os.Stat(filepath.Join(out, r.Dir, f)); err != nil {
				t.Errorf("%s: %v", r.Dir, err)
			}
		}
	}
}

// unmountUnder detaches every mount below dir.
func unmountUnder(t *testing.T, dir string) {
	data, err := os.ReadFile("/proc/self/mountinfo")
	if err != nil {
		t.Error(err)
		return
	}
	var targets []string
	for _, line := range strings.Split(string(data), "\n") {
		if f := strings.Fields(line); len(f) > 4 && strings.HasPrefix(f[4], dir+"/") {
			targets = append(targets, f[4])
		}
	}
	sort.Sort(sort.Reverse(sort.StringSlice(targets)))
	for _, m := range targets {
		if err := syscall.Unmount(m, syscall.MNT_DETACH); err != nil {
			t.Errorf("unmount %s: %v", m, err)
		}
	}
}

func readJSON(t *testing.T, name string, v any) {
	t.Helper()
	data, err := os.ReadFile(name)
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(data, v); err != nil {
		t.Fatalf("%s: %v", name, err)
	}
}

// TestBenchPolicyDirAndBrokenTasks: a dir: source with a missing and a
// malformed policy counts both as invalid (scored 0, run as deny-all),
// and a broken task is listed and skipped while the bench goes on.
func TestBenchPolicyDirAndBrokenTasks(t *testing.T) {
	bin := needBench(t)
	tasksDir := fixtureTasks(t, "hello-standard", "secret-sensitive")
	broken := filepath.Join(tasksDir, "broken")
	if err := os.MkdirAll(broken, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(broken, "task.toml"), []byte("version = \n"), 0o644); err != nil {
		t.Fatal(err)
	}
	policies := t.TempDir()
	if err := os.WriteFile(filepath.Join(policies, "secret-sensitive.json"), []byte(`{"read": ["/app/**"]`), 0o644); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(t.TempDir(), "out")
	b := newBenchCmd(t, bin, tasksDir)
	code, stdout, stderr := b.run(t, "--sources", "dir:"+policies, "--out", out, "--json")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	if !strings.Contains(stderr, "skipped task "+broken) {
		t.Errorf("broken task not listed: %s", stderr)
	}
	var sum Summary
	if err := json.Unmarshal([]byte(stdout), &sum); err != nil {
		t.Fatal(err)
	}
	if len(sum.Skipped) != 1 || sum.Skipped[0].Dir != broken || sum.Skipped[0].Reason == "" {
		t.Errorf("skipped: %+v", sum.Skipped)
	}
	recs := loadOut(t, out)
	if len(recs) != 3 {
		t.Fatalf("%d records: %+v", len(recs), recs)
	}
	for _, r := range recs {
		if r.Error != "" || r.PolicyValid || !r.Scored || r.PolicyError == "" || r.ReadF1 != 0 || r.WriteF1 != 0 || r.ExecF1 != 0 {
			t.Errorf("%s: want an invalid policy scored 0: %+v", keyOf(&r), r)
		}
		// The oracle's /bin/bash is /usr/bin/bash, which it needs.
		if r.Agent == "oracle" && (r.Utility || r.Primary != verdict.ClassExecuteInsufficient || r.Denials == 0) {
			t.Errorf("%s: the oracle under deny-all: %+v", keyOf(&r), r)
		}
	}
}

// TestBenchAgentFailedVerifierPassedInReport: an oracle that does its
// work and exits 126 is stored with its exit status and flagged
// agent_failed_verifier_passed, and the report lists it, with the
// skipped broken task and its reason.
func TestBenchAgentFailedVerifierPassedInReport(t *testing.T) {
	bin := needBench(t)
	tasksDir := fixtureTasks(t, "hello-standard")
	solve := filepath.Join(tasksDir, "hello-standard", "solution", "solve.sh")
	if err := os.WriteFile(solve, []byte("#!/bin/bash\nwc -l < /app/input.txt > /app/count.txt\nexit 126\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	broken := filepath.Join(tasksDir, "broken")
	if err := os.MkdirAll(broken, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(broken, "task.toml"), []byte("version = \n"), 0o644); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(t.TempDir(), "out")
	b := newBenchCmd(t, bin, tasksDir)
	b.mustRun(t, "--sources", "spec", "--out", out)
	recs := loadOut(t, out)
	if len(recs) != 1 {
		t.Fatalf("%d records: %+v", len(recs), recs)
	}
	r := recs[0]
	if !r.Utility || r.AgentExitCode != 126 || r.AgentTimedOut || !reflect.DeepEqual(r.Classes, []verdict.Class{verdict.ClassAgentFailedVerifierPassed}) ||
		r.VerifiersUntraced || r.Excluded(false) {
		t.Fatalf("record: %+v", r)
	}
	cmd := exec.Command(bin, "report", out)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("report: %v %s", err, stderr.String())
	}
	md := stdout.String()
	for _, want := range []string{
		"| hello-standard | spec | oracle | 1 | 126 | pass |",
		"| " + broken + " |",
		"the agent failed (126) but V_u passed",
	} {
		if !strings.Contains(md, want) {
			t.Errorf("the report lacks %q:\n%s", want, md)
		}
	}
}
