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
// started it, and so with the daemon. With ConfineFlag first it also
// sets no_new_privs and installs SidecarFilter before the exec.
const DieWithParentCommand = "die-with-parent"

// ConfineFlag asks DieWithParentCommand to install SidecarFilter.
const ConfineFlag = "--seccomp=sidecar"

// DieWithParentArgv is the argv that runs argv under DieWithParentCommand,
// with binary the authbench binary as the container sees it.
func DieWithParentArgv(binary string, argv []string) []string {
	return append([]string{binary, DieWithParentCommand, "--"}, argv...)
}

// ConfinedArgv is DieWithParentArgv with ConfineFlag: argv runs under
// the sidecar seccomp filter (a compose service, and each health test
// run in it: runc exec gives a process no filter of its own).
func ConfinedArgv(binary string, argv []string) []string {
	return append([]string{binary, DieWithParentCommand, ConfineFlag, "--"}, argv...)
}

// RunDieWithParent arms the parent-death signal and executes argv (after
// an optional ConfineFlag and an optional "--"), looked up in PATH when
// it names no directory. It returns only on failure.
func RunDieWithParent(argv []string) error {
	runtime.LockOSThread()
	confine := len(argv) > 0 && argv[0] == ConfineFlag
	if confine {
		argv = argv[1:]
	}
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
	if confine {
		if err := confineSidecar(); err != nil {
			return fmt.Errorf("%s: %w", DieWithParentCommand, err)
		}
	}
	err := syscall.Exec(path, argv, os.Environ())
	return fmt.Errorf("%s: exec %s: %w", DieWithParentCommand, path, err)
}

// confineSidecar sets no_new_privs (runc exec does not) and installs
// SidecarFilter on every thread.
func confineSidecar() error {
	f, err := SidecarFilter()
	if err != nil {
		return err
	}
	if err := setNoNewPrivs(); err != nil {
		return err
	}
	return installFilter(f)
}
