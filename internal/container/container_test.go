package container

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/authbench/authbench/env"
	"github.com/authbench/authbench/internal/lifecycle"
	"github.com/authbench/authbench/internal/testenv"
)

func TestMain(m *testing.M) {
	code := m.Run()
	testenv.RemoveMiniRootfs()
	os.Exit(code)
}

// start starts `sh -c script` in a fresh overlay of a tiny rootfs under a
// runc root of the test's own, returning the container and that runc.
func start(t *testing.T, script string) (*Container, env.Runc) {
	t.Helper()
	testenv.NeedRoot(t)
	testenv.NeedTools(t, "runc")
	work := t.TempDir()
	rfs, err := env.NewRootfs(testenv.MiniRootfs(t), filepath.Join(work, "rootfs"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := rfs.Close(); err != nil {
			t.Error(err)
		}
	})
	spec, err := env.RuntimeSpec(env.RunConfig{Rootfs: rfs.Path, Args: []string{"/bin/sh", "-c", script}})
	if err != nil {
		t.Fatal(err)
	}
	rc := env.Runc{Root: filepath.Join(work, "runc")}
	c, err := Start(Config{Runc: rc, ID: fmt.Sprintf("authbench-ctest-%d", time.Now().UnixNano()), Bundle: filepath.Join(work, "bundle"), Spec: spec})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(c.Kill)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if _, err := c.WaitPid(ctx); err != nil {
		t.Fatal(err)
	}
	if out, err := exec.Command("runc", "--root", rc.Root, "list", "-q").Output(); err != nil || !strings.Contains(string(out), c.ID()) {
		t.Fatalf("runc list: %q, %v; want %s (nothingLeft's check would see nothing)", out, err, c.ID())
	}
	return c, rc
}

// nothingLeft fails unless runc lists no container and no process runs
// `sleep MARKER`, and the bundle is gone.
func nothingLeft(t *testing.T, c *Container, rc env.Runc, marker string) {
	t.Helper()
	out, err := exec.Command("runc", "--root", rc.Root, "list", "-q").CombinedOutput()
	if err != nil || strings.TrimSpace(string(out)) != "" {
		t.Errorf("runc list: %q, %v; want no container", out, err)
	}
	if ps := processesRunning("sleep " + marker); len(ps) > 0 {
		t.Errorf("still running: %v", ps)
	}
	if _, err := os.Stat(c.cfg.Bundle); !os.IsNotExist(err) {
		t.Errorf("bundle left: %v", err)
	}
}

// processesRunning are the pids whose command line is cmdline.
func processesRunning(cmdline string) []string {
	var out []string
	entries, _ := os.ReadDir("/proc")
	for _, e := range entries {
		data, err := os.ReadFile(filepath.Join("/proc", e.Name(), "cmdline"))
		if err == nil && strings.ReplaceAll(strings.TrimRight(string(data), "\x00"), "\x00", " ") == cmdline {
			out = append(out, e.Name())
		}
	}
	return out
}

// waitRunning waits until a process runs cmdline.
func waitRunning(t *testing.T, cmdline string) {
	t.Helper()
	for deadline := time.Now().Add(20 * time.Second); len(processesRunning(cmdline)) == 0; {
		if time.Now().After(deadline) {
			t.Fatalf("%q never ran", cmdline)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// TestStopEscalatesPastIgnoredSIGTERM: a container whose processes ignore
// SIGTERM is killed once the grace is over, and Stop leaves nothing.
func TestStopEscalatesPastIgnoredSIGTERM(t *testing.T) {
	c, rc := start(t, "trap '' TERM; sleep 4343.25; echo done")
	waitRunning(t, "sleep 4343.25")
	begin := time.Now()
	if c.Stop(500 * time.Millisecond) {
		t.Error("Stop says the container ended within its grace; it ignores SIGTERM")
	}
	if d := time.Since(begin); d < 500*time.Millisecond {
		t.Errorf("Stop returned after %v, before its grace", d)
	}
	res, waited, _ := c.Ended()
	if !waited || !res.TimedOut || res.ExitCode != 128+9 {
		t.Errorf("ended %+v (waited %v); want killed by SIGKILL", res, waited)
	}
	if st := c.Status(); st != Destroyed {
		t.Errorf("a stopped container is %s, want destroyed", st)
	}
	nothingLeft(t, c, rc, "4343.25")
}

// TestStopWithinGrace: a container that ends on SIGTERM ends within its
// grace.
func TestStopWithinGrace(t *testing.T) {
	c, rc := start(t, "sleep 4343.5 & wait")
	waitRunning(t, "sleep 4343.5")
	if !c.Stop(10 * time.Second) {
		t.Error("a container ending on SIGTERM was killed")
	}
	nothingLeft(t, c, rc, "4343.5")
}

// TestDaemonDiesWithItsContainer: a container whose init starts a daemon
// (its own session, detached) and exits ends, and leaves nothing running.
func TestDaemonDiesWithItsContainer(t *testing.T) {
	c, rc := start(t, "(trap '' TERM HUP; sleep 4343.75 </dev/null >/dev/null 2>&1 &); sleep 0.2; exit 3")
	code, err := c.Wait()
	if err != nil || code != 3 {
		t.Fatalf("Wait = %d, %v; want 3", code, err)
	}
	nothingLeft(t, c, rc, "4343.75")
}

// TestRunKillsAtContextEnd: Run (lifecycle.Run) kills a container whose
// context ended, reports what was still running, and leaves nothing.
func TestRunKillsAtContextEnd(t *testing.T) {
	c, rc := start(t, "trap '' TERM; sleep 4344.25 & sleep 4344.25; wait")
	waitRunning(t, "sleep 4344.25")
	ctx, cancel := context.WithTimeout(context.Background(), 300*time.Millisecond)
	defer cancel()
	res := Run(ctx, c, lifecycle.Steps{KillGrace: KillGrace})
	if !res.Killed || res.StartErr != nil || res.Status != 128+9 {
		t.Errorf("Run = %+v; want killed by SIGKILL", res)
	}
	sleeps := 0
	for _, p := range res.StillRunning {
		if p.Cmdline == "sleep 4344.25" {
			sleeps++
		}
	}
	if sleeps != 2 {
		t.Errorf("still running %v; want both sleeps", res.StillRunning)
	}
	if ended, _, _ := c.Ended(); !ended.TimedOut {
		t.Error("a killed container's result does not say TimedOut")
	}
	nothingLeft(t, c, rc, "4344.25")
}
