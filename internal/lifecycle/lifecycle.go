// Package lifecycle is the one life of a gated run, shared by the
// daemon's runs (and through it `authbench exec`, `trace` and `task run`)
// and every gated container of a task run (the agent, each verifier, the
// model agent's toolbox and a generator's exploration) and the install
// check of an installed harness's layer: the root of the
// tree waits at the sandbox-init gate while it is tracked, is released,
// is waited for, and is killed with its tree when the run's context ends.
// Starting the tree and recording its end stay with the caller; a task
// run's containers are Trees through internal/container, which also
// starts, stops and deletes the ones that are not gated (compose
// services, which run under die-with-parent instead).
//
// Signals reach a tree's root through a Process, a pidfd taken while the
// root is known to be the process meant (pidfd_open, pidfd_send_signal):
// once the root has ended, a signal is an *ExitedError and no process
// given its pid since is ever signalled.
package lifecycle

import (
	"context"
	"fmt"
	"os"
	"syscall"
	"time"

	"github.com/authbench/authbench/runapi"
)

// Tree is a process tree whose root waits at the sandbox-init gate.
type Tree interface {
	// Pid is the root's process id (host PID namespace).
	Pid() int
	// Release opens the gate; it returns once the command was exec'd, or
	// with sandbox-init's error (*sandbox.InitError) if it never was.
	Release() error
	// Wait waits for the root and returns its status as a shell reports
	// it (the exit code, or 128+N when killed by signal N).
	Wait() (int, error)
	// KillTree kills the root and as much of its tree as it can reach.
	KillTree() error
	// Signal forwards a signal to the tree (see Forward).
	Signal(sig syscall.Signal) error
}

// Steps are the caller's parts of the life of a run.
type Steps struct {
	// Track runs while the root waits at its gate (the tracer follows it,
	// the record says it runs); an error kills the tree before the
	// command ever ran.
	Track func(pid int) error
	// Signals are forwarded to the tree while it runs.
	Signals <-chan os.Signal
	// KillGrace is how long a killed tree may take to be reaped before
	// the run ends anyway (its Wait still completes in the background).
	KillGrace time.Duration
}

// Result is how a run ended.
type Result struct {
	// Status is the command's status as a shell reports it; valid when
	// StartErr is nil.
	Status int
	// StartErr is why the command never ran (tracking or sandbox-init
	// failed), or why its end could not be observed.
	StartErr error
	// Killed reports that the tree was killed because ctx ended.
	Killed bool
	// StillRunning are the processes of the tree (its root first) that
	// were still running when it was killed.
	StillRunning []runapi.Process
}

// Run tracks, releases and waits for t, killing its tree when ctx ends.
func Run(ctx context.Context, t Tree, s Steps) Result {
	if s.Track != nil {
		if err := s.Track(t.Pid()); err != nil {
			_ = t.KillTree()
			_, _ = t.Wait()
			return Result{StartErr: err}
		}
	}
	if err := t.Release(); err != nil {
		_, _ = t.Wait()
		return Result{StartErr: err}
	}
	exited := make(chan waitResult, 1)
	go func() {
		code, err := t.Wait()
		exited <- waitResult{code, err}
	}()
	for {
		select {
		case res := <-exited:
			return Result{Status: res.code, StartErr: res.err}
		case sig := <-s.Signals:
			if ssig, ok := sig.(syscall.Signal); ok {
				_ = t.Signal(ssig)
			}
		case <-ctx.Done():
			left := TreeProcesses(t.Pid())
			killErr := t.KillTree()
			grace := s.KillGrace
			if grace <= 0 {
				grace = time.Second
			}
			select {
			case res := <-exited:
				return Result{Status: res.code, StartErr: res.err, Killed: true, StillRunning: left}
			case <-time.After(grace):
				err := fmt.Errorf("killed tree of %d not reaped within %s", t.Pid(), grace)
				if killErr != nil {
					err = fmt.Errorf("%w (kill: %v)", err, killErr)
				}
				return Result{StartErr: err, Killed: true, StillRunning: left}
			}
		}
	}
}

type waitResult struct {
	code int
	err  error
}
