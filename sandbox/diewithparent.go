package sandbox

import (
	"fmt"
	"os"
	"os/exec"
	"runtime"
	"strings"
	"syscall"

	"golang.org/x/sys/unix"
)

// DieWithParentCommand is the hidden subcommand under which the authbench
// binary, as a container's init, arms the parent-death signal (SIGKILL)
// and executes the rest of its arguments: a container that runs no
// sandbox-init (a task's compose sidecar) still ends with the runc that
// started it, and so with the daemon.
const DieWithParentCommand = "die-with-parent"

// DieWithParentArgv is the argv that runs argv under DieWithParentCommand,
// with binary the authbench binary as the container sees it.
func DieWithParentArgv(binary string, argv []string) []string {
	return append([]string{binary, DieWithParentCommand, "--"}, argv...)
}

// RunDieWithParent arms the parent-death signal and executes argv (after
// an optional "--"), looked up in PATH when it names no directory. It
// returns only on failure.
func RunDieWithParent(argv []string) error {
	runtime.LockOSThread()
	if len(argv) > 0 && argv[0] == "--" {
		argv = argv[1:]
	}
	if len(argv) == 0 {
		return fmt.Errorf("%s: no command", DieWithParentCommand)
	}
	if err := setDeathSignal(int(unix.SIGKILL), os.Getppid()); err != nil {
		return fmt.Errorf("%s: %w", DieWithParentCommand, err)
	}
	path := argv[0]
	if !strings.Contains(path, "/") {
		p, err := exec.LookPath(path)
		if err != nil {
			return fmt.Errorf("%s: %w", DieWithParentCommand, err)
		}
		path = p
	}
	err := syscall.Exec(path, argv, os.Environ())
	return fmt.Errorf("%s: exec %s: %w", DieWithParentCommand, path, err)
}
