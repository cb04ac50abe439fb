// Package spawn starts child processes from one OS thread that lives as
// long as the process, so that a child's parent-death signal (Linux
// PR_SET_PDEATHSIG, exec.Cmd's SysProcAttr.Pdeathsig) means "the parent
// process died". The kernel sends that signal when the thread that forked
// the child exits, and a Go program may end a thread at any time: a
// goroutine that exits while locked to its thread ends that thread.
package spawn

import (
	"os/exec"
	"runtime"
	"sync"
)

var (
	once sync.Once
	reqs chan func()
)

// Start starts cmd like cmd.Start, from the spawning thread.
func Start(cmd *exec.Cmd) error {
	once.Do(func() {
		reqs = make(chan func())
		go serve()
	})
	done := make(chan error, 1)
	reqs <- func() { done <- cmd.Start() }
	return <-done
}

// serve runs the start requests on a thread it never gives back: the
// goroutine stays locked and never returns, so the thread never exits.
func serve() {
	runtime.LockOSThread()
	for start := range reqs {
		start()
	}
}
