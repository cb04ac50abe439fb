package lifecycle

import (
	"fmt"
	"os"
	"strconv"
	"strings"
	"syscall"
)

// Disposition is what a process does with a signal.
type Disposition int

// Dispositions of a signal.
const (
	Default Disposition = iota // the default action (for SIGINT etc.: terminate)
	Caught                     // a handler runs
	Ignored
)

// Forward sends sig to the tree's root p, through its pidfd (an
// *ExitedError when it has ended: nothing is signalled). A root that is the init of
// its own PID namespace only receives the signals it catches (the kernel
// protects a namespace's init from default actions), so when it leaves
// sig to its default action Forward calls kill instead, which ends the
// tree as that default action would; it then reports killed=true.
func Forward(p *Process, sig syscall.Signal, nsInit bool, kill func() error) (killed bool, err error) {
	if p == nil {
		return false, fmt.Errorf("forward %s: no handle on the tree's root", sig)
	}
	if p.Exited() {
		// Its pid may be another process's by now: read nothing of it.
		return false, fmt.Errorf("forward: %w", &ExitedError{Pid: p.Pid(), Signal: sig})
	}
	if nsInit {
		d, err := SignalDisposition(p.Pid(), sig)
		if err != nil {
			return false, err
		}
		switch d {
		case Ignored:
			return false, nil
		case Default:
			if terminates(sig) {
				return true, kill()
			}
		}
	}
	if err := p.Signal(sig); err != nil {
		return false, fmt.Errorf("forward: %w", err)
	}
	return false, nil
}

// terminates reports whether sig's default action ends the process.
func terminates(sig syscall.Signal) bool {
	switch sig {
	case syscall.SIGCHLD, syscall.SIGCONT, syscall.SIGURG, syscall.SIGWINCH,
		syscall.SIGSTOP, syscall.SIGTSTP, syscall.SIGTTIN, syscall.SIGTTOU:
		return false
	}
	return true
}

// SignalDisposition reads from /proc/PID/status whether process pid
// catches, ignores or leaves sig to its default action.
func SignalDisposition(pid int, sig syscall.Signal) (Disposition, error) {
	data, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/status")
	if err != nil {
		return Default, fmt.Errorf("signal disposition of %d: %w", pid, err)
	}
	return ParseDisposition(string(data), sig)
}

// ParseDisposition reads sig's disposition from the text of a
// /proc/PID/status file (its SigIgn and SigCgt masks).
func ParseDisposition(status string, sig syscall.Signal) (Disposition, error) {
	var ign, cgt uint64
	var seen int
	for _, line := range strings.Split(status, "\n") {
		key, val, ok := strings.Cut(line, ":")
		if !ok || key != "SigIgn" && key != "SigCgt" {
			continue
		}
		mask, err := strconv.ParseUint(strings.TrimSpace(val), 16, 64)
		if err != nil {
			return Default, fmt.Errorf("status %s: %w", key, err)
		}
		if key == "SigIgn" {
			ign = mask
		} else {
			cgt = mask
		}
		seen++
	}
	if seen != 2 {
		return Default, fmt.Errorf("status: no SigIgn/SigCgt masks")
	}
	bit := uint64(1) << (uint(sig) - 1)
	switch {
	case cgt&bit != 0:
		return Caught, nil
	case ign&bit != 0:
		return Ignored, nil
	}
	return Default, nil
}
