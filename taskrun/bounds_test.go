package taskrun

import (
	"context"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/authbench/authbench/env"
	"github.com/authbench/authbench/env/imagemeta"
	"github.com/authbench/authbench/runapi"
	"github.com/authbench/authbench/tasks"
)

// forkBomb forks sleepers until the kernel refuses (or 6,000 succeed),
// says how many, holds them 20 s and ends them: bounded whatever happens.
const forkBomb = `cmd:python3 - <<'EOF'
import os, signal, subprocess, sys, time
kids, err = [], "none"
while len(kids) < 6000:
    try:
        kids.append(subprocess.Popen(["sleep", "120"]))
    except OSError as e:
        err = e.strerror
        break
print("forked=%d err=%s" % (len(kids), err), flush=True)
time.sleep(20)
for k in kids:
    k.kill()
EOF`

// memoryHog writes 3 GiB, more than the default memory bound.
const memoryHog = `cmd:python3 -c 'b = bytearray(b"\x01") * (3 << 30); print("allocated", len(b), flush=True)'`

// unboundedTask is the hello-standard fixture with no cpus or memory in
// task.toml: every bound is the default.
func unboundedTask(t *testing.T) *tasks.Task {
	task := fixture(t, "hello-standard")
	task.Config.Environment.CPUs, task.Config.Environment.MemoryMB = 0, 0
	task.Config.Agent.TimeoutSec = 90
	return task
}

// TestEscapeDaemonForkBombAndMemoryHogAreBounded: in task containers whose
// task.toml sets no bounds, a fork bomb is refused at the default pids
// limit (on main nothing stopped it: 6,000 forks) and a 3 GiB writer is
// killed at the default memory limit; while both run, a second run
// completes within a bound, and each record names the defaulted bounds.
func TestEscapeDaemonForkBombAndMemoryHogAreBounded(t *testing.T) {
	setup(t)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
	defer cancel()
	type result struct {
		res *runapi.TaskResult
		dir string
		err error
	}
	start := func(agent string) (string, chan result) {
		dir := t.TempDir()
		ch := make(chan result, 1)
		go func() {
			images := testImages()
			res, err := Run(ctx, Options{Task: unboundedTask(t), Source: runapi.SourceUnconstrained, Agent: agent, Self: testSelf,
				Images: images, Builder: env.NewBuilder(imagemeta.Buildah, images), Tracer: testTr, Dir: dir})
			ch <- result{res, dir, err}
		}()
		return dir, ch
	}
	bombDir, bombDone := start(forkBomb)
	_, hogDone := start(memoryHog)
	// Wait until the bomb holds every process its bound allows.
	var report string
	for report == "" {
		data, _ := os.ReadFile(filepath.Join(bombDir, runapi.FileAgentStdout))
		if m := regexp.MustCompile(`forked=\d+ err=.*`).Find(data); m != nil {
			report = string(m)
			break
		}
		select {
		case r := <-bombDone:
			t.Fatalf("the fork bomb ended without a report: %+v %v", r.res, r.err)
		case <-ctx.Done():
			t.Fatal("no report of the fork bomb")
		case <-time.After(200 * time.Millisecond):
		}
	}
	t.Logf("fork bomb: %s", report)
	n, _ := strconv.Atoi(strings.TrimPrefix(strings.Fields(report)[0], "forked="))
	if n >= 6000 || n >= int(env.DefaultBounds.Pids) || !strings.Contains(report, "unavailable") {
		t.Errorf("fork bomb: %s; want refused (EAGAIN) below the default pids limit %d", report, env.DefaultBounds.Pids)
	}
	began := time.Now()
	res := runTask(t, fixture(t, "hello-standard"), runapi.SourceUnconstrained, runapi.AgentOracle)
	took := time.Since(began)
	t.Logf("concurrent run: %v", took)
	if !res.Utility || took > 3*time.Minute {
		t.Errorf("concurrent run beside the fork bomb and the hog: utility %v after %v", res.Utility, took)
	}
	hog := <-hogDone
	if hog.err != nil || hog.res.ExitCode != 137 {
		t.Errorf("memory hog: exit %d, err %v; want killed (137) at %d MiB", hog.res.ExitCode, hog.err, env.DefaultBounds.MemoryMB)
	}
	if out, _ := os.ReadFile(filepath.Join(hog.dir, runapi.FileAgentStdout)); strings.Contains(string(out), "allocated") {
		t.Errorf("memory hog got its 3 GiB: %s", out)
	}
	bomb := <-bombDone
	if bomb.err != nil {
		t.Errorf("fork bomb run: %v", bomb.err)
	}
	for _, r := range []*runapi.TaskResult{hog.res, bomb.res} {
		b := r.Bounds
		if b == nil || b.Pids != env.DefaultBounds.Pids || b.MemoryMB != env.DefaultBounds.MemoryMB || b.CPUs != env.DefaultBounds.CPUs ||
			!slices.Equal(b.Defaulted, []string{env.BoundCPUs, env.BoundMemory, env.BoundPids}) || len(b.Unenforced) != 0 {
			t.Errorf("record's bounds %+v", b)
		}
	}
}
