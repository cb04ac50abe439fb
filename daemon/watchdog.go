package daemon

import (
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"syscall"

	"go.uber.org/zap"
	"golang.org/x/sys/unix"

	"github.com/authbench/authbench/daemon/work"
)

// WatchdogCommand is the hidden subcommand of an embedded manager's
// watchdog: a process of its own session that waits for the manager's
// process to end (even by SIGKILL) and then recovers what it left in
// flight (RecoverStale: containers deleted, overlays unmounted, records
// aborted).
const WatchdogCommand = "state-watchdog"

// embeddedLockFile, in a state directory, is flocked by every process
// that embeds a manager on it: shared while it runs, exclusive to recover
// the runs of those that died.
const embeddedLockFile = "embedded.lock"

// watchdogFD is the descriptor on which the watchdog reads the end of
// its manager's process (EOF: every copy of the pipe's write end closed).
const watchdogFD = 3

// Embedded is what a process embedding a manager holds: its claim on
// the state directory and its watchdog.
type Embedded struct {
	claim *StateClaim
	pipe  *os.File // the write end; closed at Stop or by the kernel at death
	cmd   *exec.Cmd
}

// StateClaim is a shared lock on a state directory, held by every
// process that runs a manager on it (a daemon, an embedded CLI).
type StateClaim struct{ f *os.File }

// ClaimState claims the manager's state directory. When no other process
// claims it, it first recovers the runs that a killed one left
// (RecoverStale); recovered says whether it did, err is the recovery's.
// Whoever holds a claim keeps others from recovering its runs in flight.
func (m *Manager) ClaimState() (c *StateClaim, recovered bool, err error) {
	f, err := os.OpenFile(filepath.Join(m.cfg.StateDir, embeddedLockFile), os.O_RDWR|os.O_CREATE|unix.O_NOFOLLOW, 0o600)
	if err != nil {
		return nil, false, fmt.Errorf("claim state dir: %w", err)
	}
	var rerr error
	if unix.Flock(int(f.Fd()), unix.LOCK_EX|unix.LOCK_NB) == nil {
		recovered, rerr = true, m.RecoverStale()
	}
	if err := unix.Flock(int(f.Fd()), unix.LOCK_SH); err != nil {
		f.Close()
		return nil, false, fmt.Errorf("claim state dir %s: %w", m.cfg.StateDir, err)
	}
	return &StateClaim{f: f}, recovered, rerr
}

// Release ends the claim.
func (c *StateClaim) Release() { c.f.Close() }

// Embed prepares the state directory of a manager embedded in this
// process: it claims it (ClaimState: recovering what a killed process
// left when nobody else uses it) and starts the watchdog (the authbench
// binary self, run as `self state-watchdog STATE`), which recovers this
// process's runs in flight once this process ends, whatever ends it.
func (m *Manager) Embed(self string) (*Embedded, error) {
	state := m.cfg.StateDir
	claim, _, err := m.ClaimState()
	if claim == nil {
		return nil, err
	}
	if err != nil {
		m.log.Warn("recovering the runs a killed process left", zap.Error(err))
	}
	fail := func(err error) (*Embedded, error) {
		claim.Release()
		return nil, fmt.Errorf("embedded daemon: %w", err)
	}
	r, w, err := os.Pipe()
	if err != nil {
		return fail(err)
	}
	defer r.Close()
	logFile, err := os.OpenFile(filepath.Join(state, "watchdog.log"), os.O_WRONLY|os.O_APPEND|os.O_CREATE|unix.O_NOFOLLOW, 0o600)
	if err != nil {
		w.Close()
		return fail(err)
	}
	defer logFile.Close()
	cmd := exec.Command(self, WatchdogCommand, state)
	cmd.ExtraFiles = []*os.File{r} // watchdogFD
	cmd.Stdout, cmd.Stderr = logFile, logFile
	// Its own session: a signal to this process's group (^C, a kill of
	// the group) does not reach it.
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
	if err := cmd.Start(); err != nil {
		w.Close()
		return fail(fmt.Errorf("start watchdog: %w", err))
	}
	go func() { _ = cmd.Wait() }() // reap it if this process outlives it
	return &Embedded{claim: claim, pipe: w, cmd: cmd}, nil
}

// Stop releases the state directory; the watchdog then finds nothing in
// flight (the manager was shut down) and exits.
func (e *Embedded) Stop() {
	e.claim.Release()
	e.pipe.Close()
}

// WatchdogPID is the watchdog's process id.
func (e *Embedded) WatchdogPID() int { return e.cmd.Process.Pid }

// RunWatchdog is the watchdog's body: it waits for the end of the
// process that started it, then, once no other process uses the state
// directory (an exclusive lock), recovers the runs left in flight; w
// cleans up after task runs (nil when the embedding process ran none).
func RunWatchdog(state string, w work.Kinds, log *zap.Logger) error {
	pipe := os.NewFile(watchdogFD, "watchdog")
	if pipe == nil {
		return errors.New("watchdog: no pipe on descriptor 3")
	}
	_, _ = io.Copy(io.Discard, pipe) // returns at EOF
	pipe.Close()
	lock, err := os.OpenFile(filepath.Join(state, embeddedLockFile), os.O_RDWR|unix.O_NOFOLLOW, 0)
	if err != nil {
		return fmt.Errorf("watchdog: %w", err)
	}
	defer lock.Close()
	if err := unix.Flock(int(lock.Fd()), unix.LOCK_EX); err != nil {
		return fmt.Errorf("watchdog: lock %s: %w", state, err)
	}
	m, err := NewManager(Config{StateDir: state, Work: w, Log: log})
	if err != nil {
		return fmt.Errorf("watchdog: %w", err)
	}
	if err := m.RecoverStale(); err != nil {
		return fmt.Errorf("watchdog: recover %s: %w", state, err)
	}
	return nil
}
