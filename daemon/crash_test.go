package daemon

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"syscall"
	"testing"
	"time"
)

// startDaemonProcess runs `authbench daemon` as its own process.
func startDaemonProcess(t *testing.T, socket, state string) *exec.Cmd {
	t.Helper()
	cmd := exec.Command(testBinary, "daemon", "--socket", socket, "--state-dir", state, "--no-tracer")
	cmd.Stderr = os.Stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(10 * time.Second)
	for !SocketAlive(socket) {
		if time.Now().After(deadline) {
			cmd.Process.Kill()
			t.Fatal("daemon did not start listening")
		}
		time.Sleep(20 * time.Millisecond)
	}
	return cmd
}

// TestDaemonKillLeavesNoOrphans: after kill -9 of the daemon no process
// of its runs survives, and a restarted daemon lists the run as aborted.
func TestDaemonKillLeavesNoOrphans(t *testing.T) {
	requireRoot(t)
	socket := filepath.Join(shortTempDir(t), "d.sock")
	state := t.TempDir()
	daemon := startDaemonProcess(t, socket, state)
	client := NewClient(socket)
	ctx := context.Background()
	marker := treeMarker()
	run, err := client.Submit(ctx, &RunRequest{Command: backgroundTree(marker), UID: uid(65534), GID: uid(65534)})
	if err != nil {
		daemon.Process.Kill()
		t.Fatal(err)
	}
	done, err := client.Submit(ctx, &RunRequest{Command: []string{"/bin/true"}, UID: uid(65534), GID: uid(65534)})
	if err != nil {
		daemon.Process.Kill()
		t.Fatal(err)
	}
	waitState(t, client, done.ID, StateSucceeded)
	waitState(t, client, run.ID, StateRunning)
	deadline := time.Now().Add(5 * time.Second)
	waitTreeSize(t, marker, 3, deadline)
	if err := daemon.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	daemon.Wait()
	waitTreeGone(t, marker, 2*time.Second)

	restarted := startDaemonProcess(t, socket, state)
	defer func() {
		restarted.Process.Signal(syscall.SIGTERM)
		restarted.Wait()
	}()
	runs, err := client.List(ctx)
	if err != nil {
		t.Fatal(err)
	}
	states := map[string]State{}
	for _, r := range runs {
		states[r.ID] = r.State
	}
	if states[run.ID] != StateAborted || states[done.ID] != StateSucceeded {
		t.Fatalf("after restart: %v", states)
	}
}

// TestSIGTERMAbortsRuns: a daemon stopped with SIGTERM records its active
// runs as aborted and kills their trees.
func TestSIGTERMAbortsRuns(t *testing.T) {
	requireRoot(t)
	socket := filepath.Join(shortTempDir(t), "d.sock")
	state := t.TempDir()
	daemon := startDaemonProcess(t, socket, state)
	client := NewClient(socket)
	marker := treeMarker()
	run, err := client.Submit(context.Background(), &RunRequest{Command: backgroundTree(marker), UID: uid(65534), GID: uid(65534)})
	if err != nil {
		daemon.Process.Kill()
		t.Fatal(err)
	}
	waitState(t, client, run.ID, StateRunning)
	waitTreeSize(t, marker, 3, time.Now().Add(5*time.Second))
	daemon.Process.Signal(syscall.SIGTERM)
	if err := daemon.Wait(); err != nil {
		t.Fatalf("daemon exit after SIGTERM: %v", err)
	}
	waitTreeGone(t, marker, time.Second)
	store, err := OpenStore(state)
	if err != nil {
		t.Fatal(err)
	}
	rec, err := store.Load(run.ID)
	if err != nil {
		t.Fatal(err)
	}
	if rec.State != StateAborted {
		t.Fatalf("run after SIGTERM is %s", rec.State)
	}
}
