package lifecycle

import (
	"errors"
	"fmt"
	"sync"
	"syscall"

	"golang.org/x/sys/unix"
)

// Process is a handle on one process through a pidfd (pidfd_open), taken
// while the process is known to be the one meant (a child not yet
// reaped, or an init held at its gate). Signals go through the handle
// (pidfd_send_signal), so they reach that process or none: once it has
// ended, a new process that was given its pid is never signalled, the
// hazard of a bare kill(pid) that runc guards against the same way.
type Process struct {
	pid int
	mu  sync.Mutex
	fd  int // -1 once closed
}

// ExitedError is returned when a signal is sent to a process that has
// ended (or a handle already closed): nothing was signalled.
type ExitedError struct {
	Pid    int
	Signal syscall.Signal
}

// Error says which process had ended.
func (e *ExitedError) Error() string {
	return fmt.Sprintf("signal %s to process %d: it has ended", e.Signal, e.Pid)
}

// OpenProcess takes a handle on process pid. The caller must know that
// pid is still the process it means (see Process).
func OpenProcess(pid int) (*Process, error) {
	if pid <= 0 {
		return nil, fmt.Errorf("pidfd of process %d: not a process id", pid)
	}
	fd, err := unix.PidfdOpen(pid, 0)
	if err != nil {
		return nil, fmt.Errorf("pidfd of process %d: %w", pid, err)
	}
	return &Process{pid: pid, fd: fd}, nil
}

// Pid is the process id the handle was taken for.
func (p *Process) Pid() int { return p.pid }

// Exited reports whether the process has ended (a pidfd becomes
// readable when its process exits; a closed handle counts as ended).
func (p *Process) Exited() bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.exitedLocked()
}

func (p *Process) exitedLocked() bool {
	if p.fd < 0 {
		return true
	}
	fds := []unix.PollFd{{Fd: int32(p.fd), Events: unix.POLLIN}}
	for {
		n, err := unix.Poll(fds, 0)
		if errors.Is(err, unix.EINTR) {
			continue
		}
		return err == nil && n > 0 && fds[0].Revents&(unix.POLLIN|unix.POLLHUP) != 0
	}
}

// Signal sends sig to the process, or returns an *ExitedError without
// signalling anything when it has ended.
func (p *Process) Signal(sig syscall.Signal) error {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.exitedLocked() {
		return &ExitedError{Pid: p.pid, Signal: sig}
	}
	err := unix.PidfdSendSignal(p.fd, sig, nil, 0)
	switch {
	case err == nil:
		return nil
	case errors.Is(err, unix.ESRCH):
		return &ExitedError{Pid: p.pid, Signal: sig}
	}
	return fmt.Errorf("signal %s to process %d: %w", sig, p.pid, err)
}

// Close releases the handle; later signals return an *ExitedError.
// Safe on nil and more than once.
func (p *Process) Close() error {
	if p == nil {
		return nil
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.fd < 0 {
		return nil
	}
	err := unix.Close(p.fd)
	p.fd = -1
	return err
}
