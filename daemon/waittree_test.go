package daemon

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/authbench/authbench/runapi"
)

// TestWaitTreeWaitsForOrphans: with wait_tree the run ends when the
// orphan its root left behind has finished (its file is there when the
// run has ended, and it was traced), with the root's status; without it
// the orphan is killed with the root's PID namespace.
func TestWaitTreeWaitsForOrphans(t *testing.T) {
	requireRoot(t)
	d := startTestDaemon(t, Config{Self: testBinary, Tracer: testTracer(t)}, "")
	dir := openTempDir(t, "", "abwait")
	if err := os.Chmod(dir, 0o777); err != nil {
		t.Fatal(err)
	}
	for _, wait := range []bool{true, false} {
		out := filepath.Join(dir, "orphan-"+map[bool]string{true: "waited", false: "killed"}[wait])
		script := "(sleep 0.3; echo late > " + out + ") & exit 3"
		final := submitAndWait(t, d.client, &runapi.RunRequest{Exec: &runapi.ExecRequest{Command: []string{"/bin/sh", "-c", script}, UID: uid(65534), GID: uid(65534), Trace: true, NoSeccomp: true, WaitTree: wait}})
		if final.ExitStatus == nil || *final.ExitStatus != 3 {
			t.Fatalf("wait_tree=%v: %+v, want exit status 3", wait, final)
		}
		_, err := os.Stat(out)
		if wait != (err == nil) {
			t.Fatalf("wait_tree=%v: orphan's file exists: %v, want %v", wait, err == nil, wait)
		}
		events := readLog(t, d.client, final.ID, "events")
		if traced := strings.Contains(events, out); traced != wait {
			t.Fatalf("wait_tree=%v: orphan's write traced: %v\n%s", wait, traced, events)
		}
	}
}

// TestCutShortRunNamesProcessesStillRunning: a run that times out lists
// the processes of its tree that were still running, orphans included.
func TestCutShortRunNamesProcessesStillRunning(t *testing.T) {
	requireRoot(t)
	d := startTestDaemon(t, Config{Self: testBinary}, "")
	marker := treeMarker()
	script := "sleep " + marker + " & sleep " + marker + " & exit 0"
	final := submitAndWait(t, d.client, &runapi.RunRequest{Exec: &runapi.ExecRequest{Command: []string{"/bin/sh", "-c", script}, UID: uid(65534), GID: uid(65534), WaitTree: true}, Common: runapi.Common{TimeoutSeconds: 0.5}})
	if final.State != runapi.StateTimeout {
		t.Fatalf("run is %s, want timeout: %+v", final.State, final)
	}
	var sleeps int
	for _, p := range final.StillRunning {
		if p.Comm == "sleep" && p.Cmdline == "sleep "+marker {
			sleeps++
		}
	}
	// The reaper is sandbox-init (authbench-sandbox-init: comm
	// "authbench-sandb"; or authbench itself).
	if sleeps != 2 || !strings.HasPrefix(final.StillRunning[0].Comm, "authbench") {
		t.Fatalf("still running = %+v, want the reaper and two sleeps", final.StillRunning)
	}
	waitTreeGone(t, marker, 2e9)
}
