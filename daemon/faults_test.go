package daemon

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/authbench/authbench/runapi"
	"golang.org/x/sys/unix"
)

// smallStateDisk mounts a tmpfs of size bytes, to be a full state disk.
func smallStateDisk(t *testing.T, size string) string {
	t.Helper()
	dir := t.TempDir()
	if err := unix.Mount("tmpfs", dir, "tmpfs", 0, "size="+size); err != nil {
		t.Fatalf("mount a small tmpfs: %v", err)
	}
	t.Cleanup(func() { unix.Unmount(dir, unix.MNT_DETACH) })
	return dir
}

// fillDisk fills the filesystem of dir with one file and returns it.
func fillDisk(t *testing.T, dir string) string {
	t.Helper()
	name := filepath.Join(dir, "filler")
	f, err := os.Create(name)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	buf := make([]byte, 64<<10)
	for {
		if _, err := f.Write(buf); err != nil {
			if !strings.Contains(err.Error(), "no space left") {
				t.Fatal(err)
			}
			return name
		}
	}
}

// TestFullStateDiskFailsTheRun: a run whose output fills the state disk
// fails with the reason at once, the daemon keeps answering with the
// record it could not save, and saves it when there is room again.
func TestFullStateDiskFailsTheRun(t *testing.T) {
	requireRoot(t)
	state := smallStateDisk(t, "1m")
	d := startTestDaemon(t, Config{Self: testBinary, StateDir: state}, "")
	run := submitAndWait(t, d.client, &runapi.RunRequest{Exec: &runapi.ExecRequest{Command: []string{"sh", "-c", "head -c 4000000 /dev/zero; sleep 60"}, UID: uid(65534), GID: uid(65534)}})
	const want, enospc = "state disk full: write stdout: ", "no space left on device"
	if run.State != runapi.StateFailed || !strings.HasPrefix(run.Error, want) || !strings.HasSuffix(run.Error, enospc) {
		t.Fatalf("run = %s %q, want failed with %q...%q", run.State, run.Error, want, enospc)
	}
	if run.StdoutDroppedBytes <= 0 {
		t.Fatalf("dropped stdout not counted: %+v", run)
	}
	// The daemon still serves, from memory.
	if got, err := d.client.Get(context.Background(), run.ID); err != nil || got.State != runapi.StateFailed {
		t.Fatalf("get after the fault: %+v %v", got, err)
	}
	if err := os.Remove(d.m.store.RunFile(run.ID, stdoutFile)); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(3 * unsavedRetry)
	for {
		rec, err := d.m.store.Load(run.ID)
		if err == nil && rec.State == runapi.StateFailed && strings.HasPrefix(rec.Error, want) {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("stored record after room was made: %+v %v", rec, err)
		}
		time.Sleep(50 * time.Millisecond)
	}
	if next := submitAndWait(t, d.client, &runapi.RunRequest{Exec: &runapi.ExecRequest{Command: []string{"/bin/true"}, UID: uid(65534), GID: uid(65534)}}); next.State != runapi.StateSucceeded {
		t.Fatalf("next run: %+v", next)
	}
}

// TestFailedCreateLeavesNothing: a run that cannot be recorded is refused
// with the reason and leaves no directory behind.
func TestFailedCreateLeavesNothing(t *testing.T) {
	requireRoot(t)
	state := smallStateDisk(t, "256k")
	d := startTestDaemon(t, Config{Self: testBinary, StateDir: state}, "")
	fillDisk(t, state)
	_, err := d.client.Submit(context.Background(), &runapi.RunRequest{Exec: &runapi.ExecRequest{Command: []string{"/bin/true"}, UID: uid(65534), GID: uid(65534)}})
	if err == nil || !strings.Contains(err.Error(), "state disk full") {
		t.Fatalf("submit on a full disk: %v", err)
	}
	entries, err := os.ReadDir(filepath.Join(state, "runs"))
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		t.Errorf("left in the state directory: %s", e.Name())
	}
}

// TestKilledDaemonLeavesAnIncompleteTrace: the event log of a traced run
// reaches the disk while the run runs, and after kill -9 of the daemon
// the next one records the run as aborted with trace_incomplete and the
// events that reached the disk, never "events 0, lost 0".
func TestKilledDaemonLeavesAnIncompleteTrace(t *testing.T) {
	requireRoot(t)
	testTracer(t) // the eBPF tracer must load here
	socket := filepath.Join(shortTempDir(t), "d.sock")
	state := t.TempDir()
	daemon := startDaemonWith(t, socket, state)
	defer daemon.Process.Kill()
	client := runapi.NewClient(socket)
	run, err := client.Submit(context.Background(), &runapi.RunRequest{Exec: &runapi.ExecRequest{Command: []string{"sh", "-c", "while :; do cat /etc/hostname >/dev/null; sleep 0.02; done"}, Trace: true, UID: uid(65534), GID: uid(65534)}})
	if err != nil {
		t.Fatal(err)
	}
	waitState(t, client, run.ID, runapi.StateRunning)
	events := filepath.Join(state, "runs", run.ID, eventsFile)
	deadline := time.Now().Add(5 * time.Second)
	for {
		if st, err := os.Stat(events); err == nil && st.Size() > 0 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("no event reached the disk while the run ran")
		}
		time.Sleep(20 * time.Millisecond)
	}
	if err := daemon.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	daemon.Wait()

	restarted := startDaemonProcess(t, socket, state)
	defer func() {
		restarted.Process.Signal(syscall.SIGTERM)
		restarted.Wait()
	}()
	rec, err := client.Get(context.Background(), run.ID)
	if err != nil {
		t.Fatal(err)
	}
	if rec.State != runapi.StateAborted || !rec.TraceIncomplete || rec.Events == 0 {
		t.Fatalf("after kill -9 and restart: state %s, trace_incomplete %v, events %d", rec.State, rec.TraceIncomplete, rec.Events)
	}
}

// TestCountStoredEvents counts complete event lines only.
func TestCountStoredEvents(t *testing.T) {
	tests := []struct {
		log  string
		want uint64
	}{
		{"", 0},
		{`{"op":"open"}` + "\n", 1},
		{`{"op":"open"}` + "\n" + `{"op":"exec"}` + "\n" + `{"op":"ope`, 2},
		{`{"op":"open"}` + "\n" + `{"op":"truncated","after_bytes":14,"dropped_events":3}` + "\n" + `{"op":"summary","events":4,"lost":0}` + "\n", 1},
		{strings.Repeat("x", 100<<10) + "\n" + `{"op":"open"}` + "\n", 2},
	}
	for i, tt := range tests {
		name := filepath.Join(t.TempDir(), "events.jsonl")
		if err := os.WriteFile(name, []byte(tt.log), 0o644); err != nil {
			t.Fatal(err)
		}
		if got, err := countStoredEvents(name); err != nil || got != tt.want {
			t.Errorf("case %d: %d, %v; want %d", i, got, err, tt.want)
		}
	}
	if got, err := countStoredEvents(filepath.Join(t.TempDir(), "none")); err != nil || got != 0 {
		t.Errorf("missing log: %d, %v", got, err)
	}
}
