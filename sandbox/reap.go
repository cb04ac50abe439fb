package sandbox

import (
	"errors"
	"fmt"
	"os"
	"os/signal"
	"syscall"

	"golang.org/x/sys/unix"
)

// forwardedSignals are the signals the reaper passes on to the command.
var forwardedSignals = []os.Signal{
	unix.SIGINT, unix.SIGTERM, unix.SIGHUP, unix.SIGQUIT, unix.SIGUSR1, unix.SIGUSR2,
	unix.SIGWINCH, unix.SIGCONT, unix.SIGTSTP, unix.SIGTTIN, unix.SIGTTOU,
}

// reapTree is sandbox-init's life as the tree's reaper (Launch.WaitTree),
// already restricted like the command: it becomes the subreaper of its
// descendants, starts the command (looked up as execProgram does),
// reports the start to the launcher by closing the error pipe, forwards
// signals to the command, reaps every process of the tree and exits with
// the command's status. It returns only when the command could not be
// started.
func reapTree(spec *Launch) *InitError {
	if spec.ReportExit {
		unix.CloseOnExec(statusFD) // the command's tree never holds it
	}
	if err := unix.Prctl(unix.PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0); err != nil {
		return initError(StageExec, "", os.NewSyscallError("prctl(PR_SET_CHILD_SUBREAPER)", err))
	}
	sigs := make(chan os.Signal, 16)
	signal.Notify(sigs, forwardedSignals...)
	var pid int
	attr := &syscall.ProcAttr{Env: spec.Env, Files: []uintptr{0, 1, 2},
		Sys: &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}}
	if ierr := runProgram(spec, func(path string) error {
		// A PATH candidate that does not exist is skipped without a
		// child (no failed exec in the trace for each PATH entry); the
		// exec itself makes every other check.
		var st unix.Stat_t
		if err := unix.Stat(path, &st); errors.Is(err, unix.ENOENT) || errors.Is(err, unix.ENOTDIR) {
			return err
		}
		p, err := syscall.ForkExec(path, spec.Args, attr)
		pid = p
		return err
	}); ierr != nil {
		signal.Stop(sigs)
		return ierr
	}
	_ = unix.Close(errorFD) // the launcher's Release returns: the command runs
	report := func(string) {}
	if spec.ReportExit {
		report = func(msg string) { _, _ = unix.Write(statusFD, []byte(msg+"\n")) }
		report(statusStarted)
	}
	go func() {
		for sig := range sigs {
			_ = unix.Kill(pid, sig.(syscall.Signal))
		}
	}()
	os.Exit(reapAll(pid, func(status int) {
		report(fmt.Sprintf("%s %d", statusExit, status))
		if spec.ReportExit {
			_ = unix.Close(statusFD)
		}
	}))
	return nil
}

// The messages of the status pipe (Launch.ReportExit).
const (
	statusStarted = "started"
	statusExit    = "exit"
)

// reapAll waits for every child (orphans of the tree included) until
// none is left and returns the status of pid as a shell reports it;
// ended is called with it as soon as pid ends.
func reapAll(pid int, ended func(status int)) int {
	status := 0
	for {
		var ws syscall.WaitStatus
		p, err := syscall.Wait4(-1, &ws, 0, nil)
		if err == syscall.EINTR {
			continue
		}
		if err != nil { // ECHILD: the tree is gone
			return status
		}
		if p == pid {
			status = shellStatus(ws)
			ended(status)
		}
		// The reaper holds the seccomp filter, so the openat2 agent,
		// which serves until nobody holds it, ends when it is the last
		// child left.
		if p != agentPid && agentChildOnly() {
			stopAgent()
		}
	}
}

// shellStatus is a wait status as a shell reports it: the exit code, or
// 128+N for a process killed by signal N.
func shellStatus(ws syscall.WaitStatus) int {
	if ws.Signaled() {
		return 128 + int(ws.Signal())
	}
	return ws.ExitStatus()
}
