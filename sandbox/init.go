package sandbox

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime"

	"golang.org/x/sys/unix"
)

// ExitInitFailure is sandbox-init's exit status when it fails before exec.
const ExitInitFailure = 126

// RunInit is the body of sandbox-init: wait at the gate for the spec,
// prepare the process and exec. It returns only on failure, after the
// error has been sent to the parent; the caller exits ExitInitFailure.
//
// sandbox-init, and the command it becomes, die with the process that
// launched it: Start asks for that, and sandbox-init asks again itself for
// launchers that do not, such as runc, which starts it as a container's
// init (when that init dies, the kernel kills the whole container).
func RunInit() error {
	runtime.LockOSThread()
	errPipe := os.NewFile(errorFD, "sandbox-error")
	err := dieWithParent()
	if err == nil {
		err = initAndExec()
	}
	fmt.Fprintf(errPipe, "sandbox-init: %v", err)
	errPipe.Close()
	return err
}

// dieWithParent sets the parent-death signal to SIGKILL. Inside a PID
// namespace, where a launcher that died first cannot be seen, it closes
// the gate instead, and reading the spec fails.
func dieWithParent() error {
	return setDeathSignal(int(unix.SIGKILL), os.Getppid())
}

func initAndExec() error {
	unix.CloseOnExec(errorFD)
	specFile := os.NewFile(specFD, "sandbox-spec")
	var spec Spec
	if err := json.NewDecoder(specFile).Decode(&spec); err != nil {
		return fmt.Errorf("read spec: %w", err)
	}
	specFile.Close()
	return becomeCommand(&spec)
}

// Exec applies spec's restrictions to the calling process and replaces
// it with the command: the single-process form of Start and Release, for
// callers that have nothing to do between the restrictions and the exec
// (no tracer to register the pid with). It returns only on failure; a
// *CommandError when the restrictions were applied but the command could
// not be executed.
func Exec(spec Spec) error {
	runtime.LockOSThread() // never unlocked: this thread execs
	if !filepath.IsAbs(spec.Path) {
		return fmt.Errorf("sandbox: program path %q is not absolute", spec.Path)
	}
	return becomeCommand(&spec)
}

// becomeCommand changes directory, restricts the process and execs.
func becomeCommand(spec *Spec) error {
	if spec.Dir != "" {
		if err := os.Chdir(spec.Dir); err != nil {
			return fmt.Errorf("chdir: %w", err)
		}
	}
	if err := restrict(spec); err != nil {
		return err
	}
	if err := unix.Exec(spec.Path, spec.Args, spec.Env); err != nil {
		return execError(spec, err)
	}
	return nil
}

// restrict applies the spec's restrictions to this process, in an order
// where each step still has what it needs: descriptors first; Landlock
// while still root, so that rule paths only root can open can be added;
// the bounding set and the identity; no_new_privs; seccomp last, so the
// filter only has to allow what remains (the exec).
func restrict(spec *Spec) error {
	if (spec.UID == nil) != (spec.GID == nil) {
		return errors.New("uid and gid must be given together")
	}
	if spec.CloseFDs {
		if err := closeInheritedFDs(); err != nil {
			return err
		}
	}
	abi := KernelLandlockABI()
	if spec.LandlockABI > 0 && spec.LandlockABI < abi {
		abi = spec.LandlockABI
	}
	apply, err := landlockStep(spec.Plan, abi, spec.AllowUnenforced)
	if err != nil {
		return err
	}
	if apply {
		if err := applyLandlock(spec.Plan, abi); err != nil {
			return err
		}
	}
	if spec.DropCapabilities {
		if err := dropBoundingCapabilities(); err != nil {
			return err
		}
	}
	if spec.UID != nil {
		if err := setIdentity(*spec.UID, *spec.GID); err != nil {
			return err
		}
	}
	if spec.NoNewPrivs || spec.Plan != nil || spec.Seccomp != nil {
		if err := setNoNewPrivs(); err != nil {
			return err
		}
	}
	if spec.Seccomp != nil {
		if err := installFilter(spec.Seccomp); err != nil {
			return err
		}
	}
	return nil
}

// CommandError is a failure to execute the command itself, after the
// restrictions were applied.
type CommandError struct {
	Path string
	Err  error
	// Hint explains a likely cause.
	Hint string
}

func (e *CommandError) Error() string {
	msg := fmt.Sprintf("exec %s: %v", e.Path, e.Err)
	if e.Hint != "" {
		msg += " (" + e.Hint + ")"
	}
	return msg
}

func (e *CommandError) Unwrap() error { return e.Err }

// execError explains a failed exec; a refusal by Landlock is the common
// case of a policy without an execute rule for the command.
func execError(spec *Spec, err error) error {
	ce := &CommandError{Path: spec.Path, Err: err}
	if errors.Is(err, unix.EACCES) && spec.Plan != nil {
		ce.Hint = "the policy has no execute rule for it, or for its interpreter"
	}
	return ce
}
