package daemon

import (
	"context"
	"errors"
	"syscall"
	"testing"
	"time"

	"github.com/authbench/authbench/runapi"
)

func TestParseSignal(t *testing.T) {
	for name, want := range map[string]syscall.Signal{"SIGINT": syscall.SIGINT, "term": syscall.SIGTERM, " SIGHUP ": syscall.SIGHUP} {
		if got, err := ParseSignal(name); err != nil || got != want {
			t.Errorf("ParseSignal(%q) = %v, %v; want %v", name, got, err, want)
		}
	}
	for _, name := range []string{"SIGKILL", "SIGSTOP", "9", ""} {
		var re *RequestError
		if _, err := ParseSignal(name); !errors.As(err, &re) || re.Field != "signal" {
			t.Errorf("ParseSignal(%q) = %v, want a bad request naming signal", name, err)
		}
	}
}

// TestSignalReachesTheTreeThroughTheSocket: a signal sent through the API
// runs the command's handler (the run is not cancelled); a signal the
// API does not forward is a 400 and one for an ended run a 409.
func TestSignalReachesTheTreeThroughTheSocket(t *testing.T) {
	requireRoot(t)
	d := startTestDaemon(t, Config{Self: testBinary}, "")
	ctx := context.Background()
	script := `trap 'echo caught; exit 9' TERM; echo ready; while :; do sleep 0.05; done`
	run, err := d.client.Submit(ctx, &runapi.RunRequest{Exec: &runapi.ExecRequest{Command: []string{"/bin/sh", "-c", script}, UID: uid(65534), GID: uid(65534)}})
	if err != nil {
		t.Fatal(err)
	}
	waitState(t, d.client, run.ID, runapi.StateRunning)
	for readLog(t, d.client, run.ID, "stdout") != "ready\n" {
		time.Sleep(10 * time.Millisecond) // the trap is set
	}
	if err := d.client.Signal(ctx, run.ID, syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	final, err := d.client.Wait(ctx, run.ID)
	if err != nil {
		t.Fatal(err)
	}
	if final.State != runapi.StateFailed && final.State != runapi.StateSucceeded || final.ExitStatus == nil || *final.ExitStatus != 9 {
		t.Fatalf("signalled run: %+v, want the handler's exit 9", final)
	}
	if out := readLog(t, d.client, run.ID, "stdout"); out != "ready\ncaught\n" {
		t.Fatalf("stdout %q", out)
	}
	var ae *runapi.APIError
	if err := d.client.Signal(ctx, run.ID, syscall.SIGTERM); !errors.As(err, &ae) || ae.Status != 409 {
		t.Fatalf("signal to an ended run: %v, want 409", err)
	}
	if err := d.client.Signal(ctx, run.ID, syscall.SIGKILL); !errors.As(err, &ae) || ae.Status != 400 {
		t.Fatalf("SIGKILL: %v, want 400", err)
	}
}
