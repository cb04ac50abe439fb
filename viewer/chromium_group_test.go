package viewer

import (
	"os/exec"
	"syscall"
	"time"
)

// inOwnGroup makes cmd (Chromium) the leader of a process group and its
// cancellation kill the whole group: killing Chromium alone leaves its
// zygote, renderers and crash handler writing into the profile, and the
// test's TempDir cleanup then fails on a directory that is not empty.
func inOwnGroup(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Cancel = func() error { return killGroup(cmd) }
}

// killGroup kills cmd's process group and waits, at most 10 s, until no
// process of it is left.
func killGroup(cmd *exec.Cmd) error {
	if cmd.Process == nil {
		return nil
	}
	pgid := cmd.Process.Pid
	err := syscall.Kill(-pgid, syscall.SIGKILL)
	for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
		if syscall.Kill(-pgid, 0) == syscall.ESRCH {
			break
		}
	}
	return err
}
