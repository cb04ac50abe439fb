package daemon

import (
	"errors"
	"fmt"
	"os"
	"sort"
	"strings"
	"syscall"

	"github.com/authbench/authbench/runapi"
)

// ErrNotRunning: the run has no tree to signal (queued, ended, or of a
// kind that takes no signals: a task run, whose agent is a container's
// init, a generation, a build).
var ErrNotRunning = errors.New("the run has no running command to signal")

// ParseSignal maps a signal name (SIGINT or INT) to a signal the API
// forwards; any other is a bad request naming the field.
func ParseSignal(name string) (syscall.Signal, error) {
	n := strings.ToUpper(strings.TrimSpace(name))
	if !strings.HasPrefix(n, "SIG") {
		n = "SIG" + n
	}
	if sig, ok := runapi.ForwardableSignals[n]; ok {
		return sig, nil
	}
	names := make([]string, 0, len(runapi.ForwardableSignals))
	for k := range runapi.ForwardableSignals {
		names = append(names, k)
	}
	sort.Strings(names)
	return 0, badField("signal", "%q is not one of %s", name, strings.Join(names, ", "))
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
	if !ar.prep.kind.signalable() || ar.attach != nil {
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

// SignalError is the cause of a context ended by a termination signal
// (SignalContext).
type SignalError struct{ Signal syscall.Signal }

func (e *SignalError) Error() string { return "interrupted by " + runapi.SignalName(e.Signal) }

// ExitStatus is the status of a process that a signal's default action
// ended: 128 + its number.
func (e *SignalError) ExitStatus() int { return 128 + int(e.Signal) }
