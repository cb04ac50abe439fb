package daemon

import (
	"context"
	"errors"
	"fmt"
	"os"
	"sort"
	"strings"
	"syscall"
	"time"
)

// ErrNotRunning: the run has no tree to signal (queued, ended, or a task
// run, whose agent is a container's init).
var ErrNotRunning = errors.New("the run has no running command to signal")

// SignalRequest is the body of POST /v1/runs/{id}/signal.
type SignalRequest struct {
	// Signal is the signal's name: SIGINT, SIGTERM, SIGHUP, SIGQUIT,
	// SIGUSR1 or SIGUSR2 (the "SIG" prefix may be left out).
	Signal string `json:"signal"`
}

// forwardable are the signals a caller may send to its run's tree.
var forwardable = map[string]syscall.Signal{
	"SIGINT": syscall.SIGINT, "SIGTERM": syscall.SIGTERM, "SIGHUP": syscall.SIGHUP,
	"SIGQUIT": syscall.SIGQUIT, "SIGUSR1": syscall.SIGUSR1, "SIGUSR2": syscall.SIGUSR2,
}

// ParseSignal maps a signal name (SIGINT or INT) to a signal the API
// forwards; any other is a bad request naming the field.
func ParseSignal(name string) (syscall.Signal, error) {
	n := strings.ToUpper(strings.TrimSpace(name))
	if !strings.HasPrefix(n, "SIG") {
		n = "SIG" + n
	}
	if sig, ok := forwardable[n]; ok {
		return sig, nil
	}
	names := make([]string, 0, len(forwardable))
	for k := range forwardable {
		names = append(names, k)
	}
	sort.Strings(names)
	return 0, badField("signal", "%q is not one of %s", name, strings.Join(names, ", "))
}

// SignalName is the API's name of sig (for SignalRequest).
func SignalName(sig syscall.Signal) string {
	for name, s := range forwardable {
		if s == sig {
			return name
		}
	}
	return fmt.Sprintf("SIG%d", int(sig))
}

// Signal forwards sig to the tree of run id, as the embedded CLI forwards
// a terminal's signals (lifecycle.Forward): the command's handler runs,
// or its default action ends the tree.
func (m *Manager) Signal(id string, sig syscall.Signal) error {
	ar := m.lookup(id)
	if ar == nil {
		if _, err := m.Get(id); err != nil {
			return err
		}
		return ErrNotRunning
	}
	if ar.prep.req.Task != nil || ar.prep.req.Generate != nil || ar.attach != nil {
		return ErrNotRunning // a container's init; an attached run gets its terminal's signals
	}
	select {
	case ar.signals <- sig:
		return nil
	case <-ar.done:
		return ErrNotRunning
	default:
		return fmt.Errorf("signal run %s: %d signals are already waiting to be delivered", id, cap(ar.signals))
	}
}

// SignalFor is Signal for a caller that may see the run (else ErrNotFound).
func (m *Manager) SignalFor(peer Peer, id string, sig syscall.Signal) error {
	if _, err := m.GetFor(peer, id); err != nil {
		return err
	}
	return m.Signal(id, sig)
}

// runSignals is the channel an unattached run's tree receives forwarded
// signals on.
func runSignals() chan os.Signal { return make(chan os.Signal, 4) }

// cancelGrace bounds how long WaitOrCancel waits for a cancelled run to
// end.
const cancelGrace = time.Minute

// WaitOrCancel waits for run id to end. When ctx ends first (the caller
// was interrupted: SIGINT, SIGTERM), the run is cancelled and waited for,
// so a run through a socket ends with its caller as an embedded run ends
// with its process; the error is then ctx's cause.
func WaitOrCancel(ctx context.Context, api API, id string) (*Run, error) {
	final, err := api.Wait(ctx, id)
	if err == nil || ctx.Err() == nil {
		return final, err
	}
	cctx, cancel := context.WithTimeout(context.Background(), cancelGrace)
	defer cancel()
	if _, cerr := api.Cancel(cctx, id); cerr != nil {
		return nil, errors.Join(context.Cause(ctx), fmt.Errorf("cancel run %s: %w", id, cerr))
	}
	final, werr := api.Wait(cctx, id)
	if werr != nil {
		return nil, errors.Join(context.Cause(ctx), fmt.Errorf("wait for cancelled run %s: %w", id, werr))
	}
	return final, context.Cause(ctx)
}

// SignalError is the cause of a context ended by a termination signal
// (SignalContext).
type SignalError struct{ Signal syscall.Signal }

func (e *SignalError) Error() string { return "interrupted by " + SignalName(e.Signal) }

// ExitStatus is the status of a process that a signal's default action
// ended: 128 + its number.
func (e *SignalError) ExitStatus() int { return 128 + int(e.Signal) }
