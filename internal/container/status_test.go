package container

import (
	"errors"
	"syscall"
	"testing"
	"time"

	"github.com/authbench/authbench/internal/lifecycle"
)

// TestStatusTransitions: the life only goes forward, a created container
// may end before it ran, and nothing leaves Destroyed.
func TestStatusTransitions(t *testing.T) {
	for _, tc := range []struct {
		from, to Status
		ok       bool
	}{
		{Created, Running, true},
		{Created, Stopped, true},
		{Created, Destroyed, false},
		{Created, Created, false},
		{Running, Stopped, true},
		{Running, Created, false},
		{Running, Destroyed, false},
		{Stopped, Destroyed, true},
		{Stopped, Running, false},
		{Stopped, Created, false},
		{Destroyed, Created, false},
		{Destroyed, Running, false},
		{Destroyed, Stopped, false},
		{Status(-1), Created, false},
		{Status(9), Destroyed, false},
	} {
		if got := tc.from.CanBecome(tc.to); got != tc.ok {
			t.Errorf("%s -> %s: %v, want %v", tc.from, tc.to, got, tc.ok)
		}
	}
}

// TestMoveTo: moveTo walks the table forward (Created to Destroyed by
// way of Stopped) and refuses to go back with a *StatusError.
func TestMoveTo(t *testing.T) {
	for _, tc := range []struct {
		from, to Status
		want     Status
		err      bool
	}{
		{Created, Running, Running, false},
		{Created, Destroyed, Destroyed, false},
		{Running, Destroyed, Destroyed, false},
		{Stopped, Stopped, Stopped, false},
		{Running, Created, Running, true},
		{Destroyed, Running, Destroyed, true},
		{Stopped, Running, Stopped, true},
	} {
		c := &Container{cfg: Config{ID: "x"}, status: tc.from}
		err := c.moveTo(tc.to, "test")
		var se *StatusError
		if c.status != tc.want || (err != nil) != tc.err || (err != nil && (!errors.As(err, &se) || se.Status != tc.from)) {
			t.Errorf("%s -> %s: now %s, err %v; want %s, error %v", tc.from, tc.to, c.status, err, tc.want, tc.err)
		}
	}
	if s := Status(7).String(); s != "status(7)" {
		t.Errorf("unknown status named %q", s)
	}
}

// TestSignalAfterExit: a running container is signalled through its
// pidfd; once its init ended, Signal returns a *lifecycle.ExitedError
// and the container goes Running, Stopped, Destroyed; Destroy may follow.
func TestSignalAfterExit(t *testing.T) {
	c, rc := start(t, "trap 'exit 7' USR1; sleep 4345.25 & wait")
	if st := c.Status(); st != Running {
		t.Fatalf("an ungated container with a pid is %s, want running", st)
	}
	waitRunning(t, "sleep 4345.25")
	if err := c.Signal(syscall.SIGUSR1); err != nil {
		t.Fatalf("signal a running init: %v", err)
	}
	select {
	case <-c.Done():
	case <-time.After(20 * time.Second):
		t.Fatal("the init did not end on the signal")
	}
	if st := c.Status(); st != Stopped {
		t.Errorf("an ended container is %s, want stopped", st)
	}
	var ex *lifecycle.ExitedError
	if err := c.Signal(syscall.SIGKILL); !errors.As(err, &ex) {
		t.Errorf("signal a stopped container: %v; want *lifecycle.ExitedError", err)
	}
	if code, err := c.Wait(); err != nil || code != 7 {
		t.Errorf("Wait = %d, %v; want 7 from the trap", code, err)
	}
	if st := c.Status(); st != Destroyed {
		t.Errorf("a waited container is %s, want destroyed", st)
	}
	if err := c.Signal(syscall.SIGKILL); !errors.As(err, &ex) {
		t.Errorf("signal a destroyed container: %v; want *lifecycle.ExitedError", err)
	}
	if err := c.Destroy(); err != nil {
		t.Errorf("Destroy after Wait: %v", err)
	}
	nothingLeft(t, c, rc, "4345.25")
}

// TestSignalBeforePid: a container whose pid is not known yet refuses a
// signal with a *StatusError rather than signalling pid 0 (the caller's
// process group).
func TestSignalBeforePid(t *testing.T) {
	c := &Container{cfg: Config{ID: "x"}, status: Created}
	var se *StatusError
	if err := c.signalIn(Created, syscall.SIGTERM); !errors.As(err, &se) || se.Status != Created {
		t.Errorf("signal before the pid is known: %v; want *StatusError", err)
	}
}
