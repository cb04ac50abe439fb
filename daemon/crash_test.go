package daemon

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/authbench/authbench/internal/testenv"
	"github.com/authbench/authbench/runapi"
)

// startDaemonProcess runs `authbench daemon` as its own process, without
// a tracer, with extra flags.
func startDaemonProcess(t *testing.T, socket, state string, flags ...string) *exec.Cmd {
	t.Helper()
	return startDaemonWith(t, socket, state, append([]string{"--no-tracer"}, flags...)...)
}

// startDaemonWith runs `authbench daemon` as its own process with flags.
func startDaemonWith(t *testing.T, socket, state string, flags ...string) *exec.Cmd {
	t.Helper()
	cmd := exec.Command(testBinary, append([]string{"daemon", "--socket", socket, "--state-dir", state}, flags...)...)
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
	client := runapi.NewClient(socket)
	ctx := context.Background()
	marker := treeMarker()
	run, err := client.Submit(ctx, &runapi.RunRequest{Exec: &runapi.ExecRequest{Command: backgroundTree(marker), UID: uid(65534), GID: uid(65534)}})
	if err != nil {
		daemon.Process.Kill()
		t.Fatal(err)
	}
	done, err := client.Submit(ctx, &runapi.RunRequest{Exec: &runapi.ExecRequest{Command: []string{"/bin/true"}, UID: uid(65534), GID: uid(65534)}})
	if err != nil {
		daemon.Process.Kill()
		t.Fatal(err)
	}
	waitState(t, client, done.ID, runapi.StateSucceeded)
	waitState(t, client, run.ID, runapi.StateRunning)
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
	states := map[string]runapi.State{}
	for _, r := range runs {
		states[r.ID] = r.State
	}
	if states[run.ID] != runapi.StateAborted || states[done.ID] != runapi.StateSucceeded {
		t.Fatalf("after restart: %v", states)
	}
}

// TestDaemonKillEndsTaskContainers: kill -9 of the daemon during a task
// run ends the agent's container too (runc dies with the daemon, and the
// container's init, sandbox-init, with runc), not only at the next start.
func TestDaemonKillEndsTaskContainers(t *testing.T) {
	requireRoot(t)
	testenv.NeedTools(t, "runc", "buildah", "debootstrap")
	socket := filepath.Join(shortTempDir(t), "d.sock")
	state := t.TempDir()
	daemon := startDaemonProcess(t, socket, state, "--images-dir", testenv.ImagesDir())
	defer daemon.Process.Kill()
	dir, err := filepath.Abs("../tasks/testdata/fixtures/hello-standard")
	if err != nil {
		t.Fatal(err)
	}
	marker := treeMarker()
	client := runapi.NewClient(socket)
	run, err := client.Submit(context.Background(), &runapi.RunRequest{Task: &runapi.TaskRequest{
		Dir: dir, PolicySource: "unconstrained", Agent: "cmd:sleep " + marker + " & sleep " + marker,
	}})
	if err != nil {
		t.Fatal(err)
	}
	waitState(t, client, run.ID, runapi.StateRunning)
	waitTreeSize(t, marker, 2, time.Now().Add(3*time.Minute)) // the image may be built first
	if err := daemon.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	daemon.Wait()
	waitTreeGone(t, marker, 3*time.Second)

	// The next daemon on the state directory unmounts the run's rootfs.
	restarted := startDaemonProcess(t, socket, state, "--images-dir", testenv.ImagesDir())
	restarted.Process.Signal(syscall.SIGTERM)
	restarted.Wait()
	mounts, err := os.ReadFile("/proc/self/mountinfo")
	if err != nil {
		t.Fatal(err)
	}
	for _, line := range strings.Split(string(mounts), "\n") {
		if strings.Contains(line, state) {
			t.Errorf("still mounted after a restart: %s", line)
		}
	}
}

// TestSIGTERMAbortsRuns: a daemon stopped with SIGTERM records its active
// runs as aborted and kills their trees.
func TestSIGTERMAbortsRuns(t *testing.T) {
	requireRoot(t)
	socket := filepath.Join(shortTempDir(t), "d.sock")
	state := t.TempDir()
	daemon := startDaemonProcess(t, socket, state)
	client := runapi.NewClient(socket)
	marker := treeMarker()
	run, err := client.Submit(context.Background(), &runapi.RunRequest{Exec: &runapi.ExecRequest{Command: backgroundTree(marker), UID: uid(65534), GID: uid(65534)}})
	if err != nil {
		daemon.Process.Kill()
		t.Fatal(err)
	}
	waitState(t, client, run.ID, runapi.StateRunning)
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
	if rec.State != runapi.StateAborted {
		t.Fatalf("run after SIGTERM is %s", rec.State)
	}
}
