package taskrun

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/authbench/authbench/env"
	"github.com/authbench/authbench/runapi"
	"github.com/authbench/authbench/tasks"
)

// probeCompose runs a service that reports its seccomp mode and tries
// namespaces (unshare -U: refused by the container profile, allowed to
// root without it), and whose health test passes only under a filter
// (runc exec runs it: it must be confined too).
const probeCompose = `services:
  main:
    build: .
    depends_on: {boundsprobe: {condition: service_healthy}}
  boundsprobe:
    image: python:3.12-slim
    command: ["sh", "-c", "grep Seccomp: /proc/self/status; unshare -U true; echo unshare=$?; sleep 120"]
    healthcheck: {test: ["CMD-SHELL", "grep -q 'Seccomp:[[:space:]]*2' /proc/self/status"], interval: 200ms, timeout: 5s, retries: 10}
`

// TestEscapeDaemonSidecarsAreConfinedAndBounded: a compose service runs under the
// container seccomp profile (Seccomp 2 in its status and in its health
// probe's; unshare fails with EPERM) and with the default pids limit in
// its cgroup (on main: Seccomp 0, unshare allowed, no pids limit).
func TestEscapeDaemonSidecarsAreConfinedAndBounded(t *testing.T) {
	setup(t)
	dir := copyFixture(t, "hello-standard")
	if err := os.WriteFile(filepath.Join(dir, "environment", "docker-compose.yaml"), []byte(probeCompose), 0o644); err != nil {
		t.Fatal(err)
	}
	task, err := tasks.Load(dir)
	if err != nil {
		t.Fatal(err)
	}
	task.Config.Environment.CPUs, task.Config.Environment.MemoryMB = 0, 0
	runDir := t.TempDir()
	pidsMax := make(chan string, 1)
	stop := make(chan struct{})
	go func() { // the service's pids bound, read from its cgroup while it runs
		defer close(pidsMax)
		// runc makes the cgroup before it writes its limits: a first read
		// may still say "max"; the last value read while it runs counts.
		last := ""
		for {
			if m, _ := filepath.Glob("/sys/fs/cgroup/pids/authbench-*-boundsprobe/pids.max"); len(m) == 1 {
				if data, err := os.ReadFile(m[0]); err == nil {
					if last = strings.TrimSpace(string(data)); last != "max" {
						pidsMax <- last
						return
					}
				}
			}
			select {
			case <-stop:
				pidsMax <- last
				return
			case <-time.After(50 * time.Millisecond):
			}
		}
	}()
	res, err := runWith(t, Options{Task: task, Source: runapi.SourceUnconstrained, Agent: "cmd:sleep 3", Dir: runDir})
	close(stop)
	log, _ := os.ReadFile(filepath.Join(runDir, sidecarDirPrefix+"boundsprobe.log"))
	if err != nil || res.ExitCode != 0 {
		t.Fatalf("run: %v (exit %d); service's log: %s", err, res.ExitCode, log)
	}
	if !strings.Contains(string(log), "Seccomp:\t2") || !strings.Contains(string(log), "unshare=1") ||
		!strings.Contains(string(log), "Operation not permitted") {
		t.Errorf("service's log: %s", log)
	}
	if got, want := <-pidsMax, "2048"; got != want || env.DefaultBounds.Pids != 2048 {
		t.Errorf("service's pids.max %q, want %q", got, want)
	}
}
